//! Keys Boot 3 no longer binds are commented out where they stand, below a note saying why
//! (the metadata's reason, or the key to set by hand instead), so the file keeps every value
//! and no Boot-2-only key stays live. In YAML a mapping left with nothing but commented-out
//! keys is commented out with them: an empty mapping would bind as an empty string. Keys
//! Boot 3 still binds though deprecated (`still_read`) stay as they are.

use super::yaml_move::{Tree, flatten};
use super::{Action, Key, Left, is_leaf, properties_keys, removed_finding, rename, yaml_keys};
use crate::edit::{self, Edit, line_ending};

/// A key Boot 3 no longer binds.
struct Removed {
    key: usize,
    full: String,
    replacement: Option<String>,
    reason: Option<String>,
}

impl Removed {
    /// The comment above the commented-out key.
    fn note(&self) -> String {
        match (&self.replacement, &self.reason) {
            (Some(new), _) => format!("Removed in Spring Boot 3: set {new} instead"),
            (None, Some(why)) => format!("Removed in Spring Boot 3: {why}"),
            (None, None) => "Removed in Spring Boot 3".to_string(),
        }
    }
}

/// Key `i`, when Boot 3 no longer binds it.
fn removed(keys: &[Key], i: usize) -> Option<Removed> {
    let full = keys[i].full();
    match rename(&full, is_leaf(keys, i))? {
        Action::Removed {
            replacement,
            reason,
            still_read: false,
        } => Some(Removed {
            key: i,
            full,
            replacement,
            reason,
        }),
        _ => None,
    }
}

/// `src` with every key Boot 3 no longer binds commented out, if there is one (and, for
/// YAML, if the result still parses), and a finding for each such key at its line in the
/// text returned (or in `src`, when it is left as it is).
pub(super) fn apply(src: &str, yaml: bool) -> (Option<String>, Vec<String>) {
    let keys = if yaml {
        yaml_keys(src)
    } else {
        properties_keys(src)
    };
    let (gone, edits) = if yaml {
        yaml_edits(src, &keys)
    } else {
        properties_edits(src, &keys)
    };
    let out = edit::apply(src, &edits)
        .ok()
        .filter(|out| !edits.is_empty() && (!yaml || flatten(out).is_ok()));
    let lines = edit::LineIndex::new(src);
    // Lines inserted above a key (notes) move it down: the lines each edit inserts, summed
    // in the order of where they start.
    let mut inserted: Vec<(usize, usize)> = edits
        .iter()
        .map(|e| (e.range.start, e.replacement.matches('\n').count()))
        .collect();
    inserted.sort_unstable();
    let inserted_above: Vec<usize> = inserted
        .iter()
        .scan(0, |sum, (_, n)| {
            *sum += n;
            Some(*sum)
        })
        .collect();
    let findings = gone
        .iter()
        .map(|g| {
            let start = keys[g.key].range.start;
            let mut line = lines.line(start);
            let left = if out.is_some() {
                let above = inserted.partition_point(|&(at, _)| at <= start);
                line += above.checked_sub(1).map_or(0, |i| inserted_above[i]);
                Left::CommentedOut
            } else {
                Left::AsIs
            };
            removed_finding(
                line,
                &g.full,
                g.replacement.as_deref(),
                g.reason.as_deref(),
                left,
            )
        })
        .collect();
    (out, findings)
}

fn properties_edits(src: &str, keys: &[Key]) -> (Vec<Removed>, Vec<Edit>) {
    let eol = line_ending(src);
    let mut gone = Vec::new();
    let mut edits = Vec::new();
    for i in 0..keys.len() {
        let Some(removed) = removed(keys, i) else {
            continue;
        };
        let k = &keys[i];
        let indent_start = src[..k.range.start].rfind('\n').map_or(0, |n| n + 1);
        let indent = &src[indent_start..k.range.start];
        edits.push(Edit::insert(
            k.range.start,
            format!("# {}{eol}{indent}# ", removed.note()),
        ));
        gone.push(removed);
        // A comment line does not continue: each continuation line is commented too.
        let mut at = k.range.start;
        loop {
            let end = src[at..].find('\n').map_or(src.len(), |n| at + n);
            let line = src[at..end].trim_end_matches('\r');
            let continued = line.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1;
            if !continued || end == src.len() {
                break;
            }
            at = end + 1;
            let lead = src[at..].len() - src[at..].trim_start_matches([' ', '\t']).len();
            if !src[at + lead..].starts_with(['\n', '\r']) && at + lead < src.len() {
                edits.push(Edit::insert(at + lead, "# "));
            }
        }
    }
    (gone, edits)
}

fn yaml_edits(src: &str, keys: &[Key]) -> (Vec<Removed>, Vec<Edit>) {
    let eol = line_ending(src);
    let tree = Tree { src, keys };
    let mut removed_keys = Vec::new();
    // Key index -> notes of the removed keys it stands for.
    let mut gone: Vec<(usize, Vec<String>)> = Vec::new();
    let mut skip_below: Option<usize> = None;
    for i in 0..keys.len() {
        if skip_below.is_some_and(|d| keys[i].depth > d) {
            continue;
        }
        skip_below = None;
        if let Some(removed) = removed(keys, i) {
            gone.push((i, vec![removed.note()]));
            removed_keys.push(removed);
            skip_below = Some(keys[i].depth);
        }
    }
    // A mapping whose keys all go, goes with them.
    loop {
        let before = gone.len();
        for (i, key) in keys.iter().enumerate() {
            if key.value.is_some() || gone.iter().any(|(g, _)| *g == i) {
                continue;
            }
            let children = tree.children(Some(i), i);
            if !children.is_empty() && children.iter().all(|c| gone.iter().any(|(g, _)| g == c)) {
                let mut notes: Vec<String> = Vec::new();
                for c in &children {
                    for (_, n) in gone.iter().filter(|(g, _)| g == c) {
                        for note in n {
                            if !notes.contains(note) {
                                notes.push(note.clone());
                            }
                        }
                    }
                }
                gone.push((i, notes));
            }
        }
        if gone.len() == before {
            break;
        }
    }
    let mut edits = Vec::new();
    for (i, notes) in &gone {
        if tree
            .ancestors(*i)
            .any(|a| gone.iter().any(|(g, _)| *g == a))
        {
            continue;
        }
        let block = tree.block(*i);
        let indent = " ".repeat(tree.indent(*i));
        let text: String = notes
            .iter()
            .map(|n| format!("{indent}# {n}{eol}"))
            .collect();
        edits.push(Edit::insert(block.start, text));
        let mut at = block.start;
        for line in src[block.clone()].split_inclusive('\n') {
            if !line.trim().is_empty() {
                edits.push(Edit::insert(at + tree.indent(*i), "# "));
            }
            at += line.len();
        }
    }
    (removed_keys, edits)
}
