//! Byte-range splices: the only way Uplift changes a file.
//!
//! Every recipe returns [`Edit`]s against the original text; applying them touches nothing
//! outside the ranges, so comments, blank lines, CRLF and indentation survive.

use std::ops::Range;

/// Replace `range` of the original text with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
}

impl Edit {
    pub fn replace(range: Range<usize>, replacement: impl Into<String>) -> Self {
        Self {
            range,
            replacement: replacement.into(),
        }
    }

    pub fn insert(at: usize, text: impl Into<String>) -> Self {
        Self::replace(at..at, text)
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    #[error("edits overlap at bytes {0:?} and {1:?}")]
    Overlap(Range<usize>, Range<usize>),
    #[error("edit {0:?} is outside the text or not on a character boundary")]
    OutOfBounds(Range<usize>),
}

/// Applies edits made against `text`. Insertions at the same offset keep their given order.
/// Overlapping replacements are refused rather than guessed at.
pub fn apply(text: &str, edits: &[Edit]) -> Result<String, EditError> {
    let mut sorted: Vec<(usize, &Edit)> = edits.iter().enumerate().collect();
    sorted.sort_by_key(|(i, e)| (e.range.start, e.range.end, *i));
    let mut out = String::with_capacity(text.len() + 64);
    let mut cursor = 0;
    let mut prev: Option<&Range<usize>> = None;
    for (_, edit) in sorted {
        let r = &edit.range;
        if r.start > r.end
            || r.end > text.len()
            || !text.is_char_boundary(r.start)
            || !text.is_char_boundary(r.end)
        {
            return Err(EditError::OutOfBounds(r.clone()));
        }
        if r.start < cursor {
            return Err(EditError::Overlap(prev.cloned().unwrap_or(0..0), r.clone()));
        }
        out.push_str(&text[cursor..r.start]);
        out.push_str(&edit.replacement);
        cursor = r.end;
        prev = Some(r);
    }
    out.push_str(&text[cursor..]);
    Ok(out)
}

/// Removes the edits that lie inside `range` and returns them rebased to its start, so an
/// edit that rewrites the whole range can apply them to its text first (nested rewrites
/// compose instead of overlapping).
pub fn take_within(edits: &mut Vec<Edit>, range: Range<usize>) -> Vec<Edit> {
    let (inside, outside): (Vec<Edit>, Vec<Edit>) = std::mem::take(edits)
        .into_iter()
        .partition(|e| e.range.start >= range.start && e.range.end <= range.end);
    *edits = outside;
    inside
        .into_iter()
        .map(|e| {
            Edit::replace(
                e.range.start - range.start..e.range.end - range.start,
                e.replacement,
            )
        })
        .collect()
}

/// Where each line of a text starts, so the line of a byte is a binary search: a recipe
/// placing thousands of edits or findings must not scan the text from its start for each.
pub struct LineIndex(Vec<usize>);

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let breaks = text.match_indices('\n').map(|(i, _)| i + 1);
        Self(std::iter::once(0).chain(breaks).collect())
    }

    /// The 0-based row of `byte` and its column in bytes.
    pub fn position(&self, byte: usize) -> (usize, usize) {
        let row = self.0.partition_point(|&start| start <= byte) - 1;
        (row, byte - self.0[row])
    }

    /// The 1-based line number of `byte`.
    pub fn line(&self, byte: usize) -> usize {
        self.position(byte).0 + 1
    }
}

/// The line ending a file already uses, so inserted lines match it: CRLF when its first
/// 64 KiB hold one (recipes ask once per edit, so the answer must not cost a scan of a
/// large file; every file up to that size is read whole).
pub fn line_ending(text: &str) -> &'static str {
    let mut cut = text.len().min(1 << 16);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if text[..cut].contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// `range` widened to its whole line (with the line break) when nothing else is on it.
pub fn whole_line(text: &str, range: Range<usize>) -> Range<usize> {
    let start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |i| range.end + i + 1);
    if text[start..range.start].trim().is_empty() && text[range.end..end].trim().is_empty() {
        start..end
    } else {
        range
    }
}

/// What deleting `range` should remove: its whole lines when nothing else is on them (else
/// also one of the spaces around it, where both sides have one), and then also a blank line
/// before them when a blank line or the end of the block follows, so a removed member leaves
/// no double gap behind.
pub fn deletion_span(text: &str, range: Range<usize>) -> Range<usize> {
    let line = whole_line(text, range.clone());
    let whole = (line.start == 0 || text[..line.start].ends_with('\n'))
        && (line.end == text.len() || text[..line.end].ends_with('\n'));
    if !whole {
        // Inside a line, a deletion between two spaces keeps only one of them.
        let spaced = text[..line.start].ends_with(' ') && text[line.end..].starts_with(' ');
        return if spaced {
            line.start..line.end + 1
        } else {
            line
        };
    }
    let before = text[..line.start].trim_end_matches([' ', '\t']);
    let blank_before = before.ends_with("\n\n") || before.ends_with("\n\r\n");
    let rest = text[line.end..].trim_start_matches([' ', '\t', '\r']);
    if blank_before && (rest.starts_with('\n') || rest.starts_with('}')) {
        let prev_line_start = before[..before.len() - 1].rfind('\n').map_or(0, |i| i + 1);
        prev_line_start..line.end
    } else {
        line
    }
}

/// Leading whitespace of the line that contains byte `at`.
pub fn indent_at(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// `block` (whose lines after the first sit under `from`) moved to sit under `to`.
pub fn reindent(block: &str, from: &str, to: &str) -> String {
    let mut lines = block.split('\n');
    let mut out = lines.next().unwrap_or("").to_string();
    for l in lines {
        out.push('\n');
        match l.strip_prefix(from) {
            Some(rest) => {
                out.push_str(to);
                out.push_str(rest);
            }
            None => out.push_str(l),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deleted_member_takes_one_blank_line_with_it() {
        let src = "class A {\n  int a;\n\n  void f() {\n  }\n\n  int b;\n}\n";
        let at = src.find("void").unwrap()..src.find("  }\n").unwrap() + 3;
        let span = deletion_span(src, at);
        let mut out = src.to_string();
        out.replace_range(span, "");
        assert_eq!(out, "class A {\n  int a;\n\n  int b;\n}\n");
        // Alone on its lines with code around it: only its lines.
        let src = "class A {\n  int a;\n  void f() {}\n  int b;\n}\n";
        let at = src.find("void").unwrap()..src.find("{}").unwrap() + 2;
        let mut out = src.to_string();
        out.replace_range(deletion_span(src, at), "");
        assert_eq!(out, "class A {\n  int a;\n  int b;\n}\n");
        // Inside a line, between two spaces: one space stays.
        let src = "try { f(); } catch (ThreadDeath t) { throw t; } catch (Error e) { }";
        let at = src.find("catch (T").unwrap()..src.find(" catch (E").unwrap();
        let mut out = src.to_string();
        out.replace_range(deletion_span(src, at), "");
        assert_eq!(out, "try { f(); } catch (Error e) { }");
    }

    #[test]
    fn edits_inside_a_range_are_taken_out_rebased() {
        let mut edits = vec![
            Edit::replace(0..1, "X"),
            Edit::replace(4..6, "yy"),
            Edit::insert(8, "!"),
        ];
        let inner = take_within(&mut edits, 3..8);
        assert_eq!(edits, vec![Edit::replace(0..1, "X")]);
        assert_eq!(inner, vec![Edit::replace(1..3, "yy"), Edit::insert(5, "!")]);
        assert_eq!(apply("{abcd}", &inner).unwrap(), "{yycd!}");
    }

    #[test]
    fn splices_only_the_ranges() {
        let text = "a // keep\r\nbb\r\n";
        let out = apply(text, &[Edit::replace(0..1, "x"), Edit::insert(15, "c\r\n")]).unwrap();
        assert_eq!(out, "x // keep\r\nbb\r\nc\r\n");
    }

    #[test]
    fn refuses_overlaps_and_bad_ranges() {
        let text = "abcdef";
        assert!(matches!(
            apply(text, &[Edit::replace(0..3, ""), Edit::replace(2..4, "")]),
            Err(EditError::Overlap(..))
        ));
        assert!(matches!(
            apply(text, &[Edit::replace(5..9, "")]),
            Err(EditError::OutOfBounds(..))
        ));
    }

    #[test]
    fn insertions_at_one_offset_keep_order() {
        let out = apply("ab", &[Edit::insert(1, "1"), Edit::insert(1, "2")]).unwrap();
        assert_eq!(out, "a12b");
    }

    proptest::proptest! {
        /// Bytes outside the edited ranges come through unchanged, in order.
        #[test]
        fn untouched_bytes_survive(text in "[a-z \r\n]{0,80}", cuts in proptest::collection::vec((0usize..80, 0usize..4, "[A-Z]{0,3}"), 0..6)) {
            let mut edits: Vec<Edit> = Vec::new();
            let mut next_free = 0;
            let mut starts: Vec<_> = cuts.into_iter().map(|(s, l, r)| (s.min(text.len()), l, r)).collect();
            starts.sort();
            for (start, len, repl) in starts {
                if start < next_free { continue; }
                let end = (start + len).min(text.len());
                edits.push(Edit::replace(start..end, repl));
                next_free = end.max(start + 1);
            }
            // Given in any order, the edits land where they belong.
            let reversed: Vec<Edit> = edits.iter().rev().cloned().collect();
            let out = apply(&text, &reversed).unwrap();
            let mut rebuilt = String::new();
            let mut cursor = 0;
            for e in &edits {
                rebuilt.push_str(&text[cursor..e.range.start]);
                rebuilt.push_str(&e.replacement);
                cursor = e.range.end;
            }
            rebuilt.push_str(&text[cursor..]);
            proptest::prop_assert_eq!(out, rebuilt);
        }
    }

    /// The row and column of every byte, blank and CRLF lines included, are those a scan
    /// from the start of the text gives.
    #[test]
    fn line_index_places_every_byte_as_a_scan_does() {
        let src = "a\n\nbc\r\n  d\ne";
        let index = LineIndex::new(src);
        for byte in 0..=src.len() {
            let before = &src[..byte];
            let row = before.matches('\n').count();
            let column = byte - before.rfind('\n').map_or(0, |i| i + 1);
            assert_eq!(index.position(byte), (row, column), "{byte}");
            assert_eq!(index.line(byte), row + 1);
        }
    }

    #[test]
    fn finds_indent_and_line_ending() {
        assert_eq!(indent_at("x\n    y", 6), "    ");
        assert_eq!(line_ending("a\r\nb"), "\r\n");
        assert_eq!(line_ending("a\nb"), "\n");
        assert_eq!(line_ending("ab"), "\n");
        assert_eq!(line_ending("a\r\nb\nc"), "\r\n");
        // An LF header on a CRLF file.
        assert_eq!(line_ending("// h\nclass A {\r\n}\r\n"), "\r\n");
    }
}
