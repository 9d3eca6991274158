//! A concatenation of string literals split at line breaks (`"a\n" + "b\n"`) becomes a
//! text block (Java 15) holding exactly the same string.
//!
//! The string is kept to the character: escapes stay escapes (only `\n` becomes a real
//! line break), a line's last trailing space becomes `\s` (a text block strips trailing
//! blanks), and the closing delimiter sits where incidental-indentation stripping removes
//! exactly the indentation added here. Concatenations with comments between the parts, or
//! parts that do not end at line breaks, are left alone.
//!
//! A concatenation written over several lines that also joins values
//! (`"<b>" + name + "</b>\n" +`) becomes a text block with `%s` in their places and
//! `.formatted(name, ..)`, where each source line ends in a literal ending in `\n` and each
//! value is typed (in the file) as a `String`, a primitive or a boxed primitive: `%s` formats
//! those as string conversion does (`String.valueOf`, `null` as "null"); an object of any
//! other type might be `Formattable`, which `%s` asks to format itself.

use tree_sitter::Node;

use crate::edit::{Edit, indent_at, line_ending};
use crate::java_syntax::{self, text};
use crate::recipes::FileResult;
use crate::recipes::java_types::{Project, Scope};

/// The types `%s` formats exactly as string concatenation converts them.
const PLAIN_VALUES: [&str; 17] = [
    "java.lang.String",
    "boolean",
    "char",
    "byte",
    "short",
    "int",
    "long",
    "float",
    "double",
    "java.lang.Boolean",
    "java.lang.Character",
    "java.lang.Byte",
    "java.lang.Short",
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Float",
    "java.lang.Double",
];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut scope: Option<Scope> = None;
    super::rewrite_nodes(src, "text-blocks", |n, rw| {
        if !is_concat(n) || n.parent().is_some_and(is_concat) {
            return;
        }
        let mut operands = Vec::new();
        if !chain_operands(n, &mut operands) || operands.len() < 2 {
            return;
        }
        let literals: Option<Vec<&str>> = operands.iter().map(|&o| literal_body(o, src)).collect();
        let (block, values) = match literals {
            Some(parts) => match text_block(&parts, src, n.start_byte()) {
                Some(block) => (block, 0),
                None => return,
            },
            // Only a chain with a literal ending a line is worth typing (most `+` are not).
            None if !operands
                .iter()
                .any(|&o| literal_body(o, src).is_some_and(ends_with_newline_escape)) =>
            {
                return;
            }
            None => {
                let scope = scope.get_or_insert_with(|| {
                    let root = java_syntax::ancestors(n).last().unwrap_or(n);
                    Scope::new(root, src).in_project(project)
                });
                match formatted_block(&operands, src, scope, n.start_byte()) {
                    Some(found) => found,
                    None => return,
                }
            }
        };
        rw.changes.push(match values {
            0 => format!(
                "text-blocks: line {}: {} concatenated literals -> text block",
                n.start_position().row + 1,
                operands.len()
            ),
            v => format!(
                "text-blocks: line {}: {} concatenated literals and values -> text block formatted with {v} value(s)",
                n.start_position().row + 1,
                operands.len() - v
            ),
        });
        rw.edits.push(Edit::replace(n.byte_range(), block));
    })
}

fn is_concat(n: Node) -> bool {
    n.kind() == "binary_expression"
        && n.child_by_field_name("operator")
            .is_some_and(|o| o.kind() == "+")
}

/// The operands of a `+` chain, left to right; false when a comment sits between them.
fn chain_operands<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) -> bool {
    if !is_concat(n) {
        out.push(n);
        return true;
    }
    let mut c = n.walk();
    if n.children(&mut c).any(|k| k.kind().contains("comment")) {
        return false;
    }
    match (
        n.child_by_field_name("left"),
        n.child_by_field_name("right"),
    ) {
        (Some(l), Some(r)) => chain_operands(l, out) && chain_operands(r, out),
        _ => false,
    }
}

/// The raw body (between the quotes) of a plain string literal.
fn literal_body<'s>(n: Node, src: &'s str) -> Option<&'s str> {
    let t = text(n, src);
    (n.kind() == "string_literal" && !t.starts_with("\"\"\"") && t.len() >= 2)
        .then(|| &t[1..t.len() - 1])
}

/// The `.formatted(..)` text block for a chain of literals and plain values written one line
/// of text per source line, and the number of values; None when the chain is not so written,
/// a value's type is not known to be plain, or a literal holds a `\u` escape (it may spell
/// a `%`).
fn formatted_block(
    operands: &[Node],
    src: &str,
    scope: &Scope,
    at: usize,
) -> Option<(String, usize)> {
    // The first operand is a String, so every `+` of the chain concatenates.
    let first = operands[0];
    if literal_body(first, src).is_none() && !scope.denotes(first, "java.lang.String") {
        return None;
    }
    let mut lines = vec![String::new()];
    let mut values = Vec::new();
    let mut line_breaks = 0;
    for (i, &operand) in operands.iter().enumerate() {
        let body = literal_body(operand, src);
        match body {
            Some(body) if !body.contains("\\u") => {
                lines.last_mut()?.push_str(&body.replace('%', "%%"))
            }
            Some(_) => return None,
            None if PLAIN_VALUES.iter().any(|t| is_typed(scope, operand, t)) => {
                lines.last_mut()?.push_str("%s");
                values.push(text(operand, src));
            }
            None => return None,
        }
        let next = operands.get(i + 1);
        if next.is_some_and(|n| n.start_position().row > operand.end_position().row) {
            if !body.is_some_and(ends_with_newline_escape) {
                return None;
            }
            line_breaks += 1;
            lines.push(String::new());
        }
    }
    if values.is_empty() || line_breaks == 0 {
        return None;
    }
    let parts: Vec<&str> = lines.iter().map(String::as_str).collect();
    let block = text_block(&parts, src, at)?;
    Some((
        format!("{block}.formatted({})", values.join(", ")),
        values.len(),
    ))
}

/// Whether the file types `value` as `ty`: a JDK class, or a primitive as written.
fn is_typed(scope: &Scope, value: Node, ty: &str) -> bool {
    if ty.contains('.') {
        return scope.denotes(value, ty);
    }
    scope.type_of(value).is_some_and(|t| t.trim() == ty)
}

/// The text block for these literal bodies, or None when the parts do not each end at a
/// line break or the string has fewer than two lines.
fn text_block(parts: &[&str], src: &str, at: usize) -> Option<String> {
    let (last, init) = parts.split_last()?;
    if !init.iter().all(|p| ends_with_newline_escape(p)) {
        return None;
    }
    let mut lines = split_newlines(&parts.concat());
    // `split_newlines` yields a trailing "" after a final `\n`: the closing delimiter's line.
    let ends_with_newline = ends_with_newline_escape(last);
    if ends_with_newline {
        lines.pop();
    }
    if lines.len() < 2 {
        return None;
    }
    let eol = line_ending(src);
    let base = indent_at(src, at);
    let unit = if base.contains('\t') { "\t" } else { "    " };
    let indent = format!("{base}{unit}");
    let n = lines.len();
    let lines: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| keep_trailing_blank(&plain_quotes(l, i + 1 == n && !ends_with_newline)))
        .collect();
    // Without a closing line, the least-indented content line sets what is stripped: one
    // line must start at the indentation, else the delimiter goes on its own line.
    let flush = lines
        .iter()
        .any(|l| !l.is_empty() && !l.starts_with([' ', '\t']));
    let mut out = format!("\"\"\"{eol}");
    for (i, l) in lines.iter().enumerate() {
        if !l.is_empty() {
            out.push_str(&indent);
            out.push_str(l);
        }
        let is_last = i + 1 == lines.len();
        if !is_last {
            out.push_str(eol);
        }
    }
    if ends_with_newline {
        out.push_str(&format!("{eol}{indent}\"\"\""));
    } else if flush {
        out.push_str("\"\"\"");
    } else {
        out.push_str(&format!("\\{eol}{indent}\"\"\""));
    }
    Some(out)
}

/// Whether the literal body ends in a `\n` escape (not an escaped backslash before `n`).
fn ends_with_newline_escape(body: &str) -> bool {
    let trailing_backslashes = body
        .strip_suffix('n')
        .map(|b| b.chars().rev().take_while(|&c| c == '\\').count());
    trailing_backslashes.is_some_and(|n| n % 2 == 1)
}

/// A literal body split at its `\n` escapes, other escapes kept as written.
fn split_newlines(body: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            lines.last_mut().unwrap().push(c);
            continue;
        }
        match chars.next() {
            Some('n') => lines.push(String::new()),
            Some(e) => {
                let cur = lines.last_mut().unwrap();
                cur.push('\\');
                cur.push(e);
            }
            None => lines.last_mut().unwrap().push('\\'),
        }
    }
    lines
}

/// A line with its `\"` escapes written as plain quotes, as a text block allows, unless that
/// would put three quotes in a row, or a quote before the closing delimiter (`closes`).
fn plain_quotes(line: &str, closes: bool) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some(e) => {
                out.push('\\');
                out.push(e);
            }
            None => out.push('\\'),
        }
    }
    if out.contains("\"\"\"") || (closes && out.ends_with('"')) {
        line.to_string()
    } else {
        out
    }
}

/// A text block strips trailing blanks from each line: the last one becomes an escape.
fn keep_trailing_blank(line: &str) -> String {
    match line.chars().last() {
        Some(' ') => format!("{}\\s", &line[..line.len() - 1]),
        Some('\t') => format!("{}\\t", &line[..line.len() - 1]),
        _ => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of a Java string literal or text block, the way javac reads it (the
    /// escapes these tests use, and JLS 3.10.6's incidental-whitespace stripping).
    fn value(lit: &str) -> String {
        fn unescape(s: &str) -> String {
            let mut out = String::new();
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('s') => out.push(' '),
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('\n') => {}
                    other => panic!("escape {other:?}"),
                }
            }
            out
        }
        if let Some(body) = lit.strip_prefix("\"\"\"") {
            let body = body.strip_suffix("\"\"\"").unwrap();
            let body = body.split_once('\n').unwrap().1;
            let lines: Vec<&str> = body.split('\n').collect();
            let last_is_delimiter = lines.last().unwrap().trim().is_empty();
            let indent = lines
                .iter()
                .enumerate()
                .filter(|(i, l)| {
                    !l.trim().is_empty() || (*i + 1 == lines.len() && last_is_delimiter)
                })
                .map(|(_, l)| l.len() - l.trim_start().len())
                .min()
                .unwrap();
            let stripped: Vec<String> = lines
                .iter()
                .map(|l| l.get(indent..).unwrap_or("").trim_end().to_string())
                .collect();
            unescape(&stripped.join("\n"))
        } else {
            lit.split('+')
                .map(|p| {
                    let p = p.trim();
                    unescape(&p[1..p.len() - 1])
                })
                .collect()
        }
    }

    fn convert(expr: &str) -> String {
        let src = format!("class A {{\n  String s = {expr};\n}}\n");
        let out = rewrite(&src, &Project::default()).text.expect("rewritten");
        let start = out.find("= ").unwrap() + 2;
        let end = out.rfind(';').unwrap();
        out[start..end].to_string()
    }

    #[test]
    fn lines_become_a_text_block_with_the_same_value() {
        for expr in [
            r#""<html>\n" + "  <body>\n" + "  </body>\n" + "</html>\n""#,
            r#""SELECT a\n" + "FROM t\n" + "WHERE x = \"y\"""#,
            r#""  indented\n" + "  both\n" + "  lines""#,
            r#""trailing \n" + "tab\t\n" + "end\n""#,
            r#""a\n" + "\n" + "b\\n\n""#,
            r#""say \"hi\"\n" + "x\"\"\"y \\\"\n" + "end \"q\"""#,
        ] {
            let block = convert(expr);
            assert!(block.starts_with("\"\"\""), "{block}");
            assert_eq!(value(&block), value(expr), "{expr}\n{block}");
        }
    }

    #[test]
    fn the_block_is_indented_one_level_and_closes_on_its_own_line() {
        assert_eq!(
            convert(r#""a\n" + "b\n""#),
            "\"\"\"\n      a\n      b\n      \"\"\""
        );
        assert_eq!(convert(r#""a\n" + "b""#), "\"\"\"\n      a\n      b\"\"\"");
        // Quotes need no escape in a text block, but three in a row or one before the
        // closing delimiter keep theirs.
        assert_eq!(
            convert(r#""{\"a\": 1}\n" + "\"\"\"\n" + "\"z\"""#),
            "\"\"\"\n      {\"a\": 1}\n      \\\"\\\"\\\"\n      \\\"z\\\"\"\"\""
        );
    }

    #[test]
    fn other_concatenations_are_left_alone() {
        for expr in [
            r#""a" + "b""#,
            r#""a\n" + name + "b\n""#,
            r#""a, " + "b\n" + "c\n""#,
            r#""single\n""#,
            // A value on a line of its own, a line not ending in a line break, an object
            // that may be Formattable, numbers added before the first string, a `\u` escape.
            "\"a\\n\" +\n name +\n \"b\\n\"",
            "\"a \" + name +\n \"b\\n\"",
            "\"a \" + thing + \"\\n\" +\n \"b\\n\"",
            "count + count + \"\\n\" +\n \"b\\n\"",
            "\"\\u0025d \" + count + \"\\n\" +\n \"b\\n\"",
        ] {
            let src =
                format!("class A {{ String name; Object thing; int count; String s = {expr}; }}");
            assert_eq!(rewrite(&src, &Project::default()).text, None, "{expr}");
        }
    }

    #[test]
    fn values_joined_line_by_line_are_formatted_into_the_block() {
        let src = "class A {\n  String page(String title, int n) {\n    return \"<h1>\" + title + \"</h1>\\n\" +\n      \"<p>\" + n + \"% done</p>\\n\";\n  }\n}\n";
        let out = rewrite(src, &Project::default()).text.expect("rewritten");
        assert!(
            out.contains("    return \"\"\"\n        <h1>%s</h1>\n        <p>%s%% done</p>\n        \"\"\".formatted(title, n);"),
            "{out}"
        );
    }
}
