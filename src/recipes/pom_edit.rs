//! Byte-range edits to pom.xml that keep the file's own indentation and line endings.

use roxmltree::Node;

use crate::analyze::pom::{child, children};
use crate::edit::{Edit, indent_at, line_ending};

/// Replaces the text content of an element (`<version>1</version>` -> `<version>2</version>`).
pub fn set_text(src: &str, element: Node, value: &str) -> Edit {
    let range = element.range();
    let whole = &src[range.clone()];
    if whole.ends_with("/>") {
        let name = element.tag_name().name();
        return Edit::replace(range, format!("<{name}>{value}</{name}>"));
    }
    let open_end = range.start + whole.find('>').map_or(0, |i| i + 1);
    let close_start = range.start + whole.rfind("</").unwrap_or(whole.len());
    Edit::replace(open_end..close_start, value)
}

/// The indentation unit the file uses (two spaces when it cannot tell).
pub fn indent_unit(src: &str, project: Node) -> String {
    let outer = indent_at(src, project.range().start);
    project
        .children()
        .find(|c| c.is_element())
        .and_then(|c| {
            indent_at(src, c.range().start)
                .strip_prefix(outer)
                .map(str::to_string)
        })
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "  ".into())
}

/// Lays out a snippet written with two-space indentation at `indent`, in the file's style.
fn layout(snippet: &str, indent: &str, unit: &str, eol: &str) -> String {
    snippet
        .lines()
        .map(|l| {
            let depth = (l.len() - l.trim_start_matches(' ').len()) / 2;
            format!("{indent}{}{}", unit.repeat(depth), l.trim_start())
        })
        .collect::<Vec<_>>()
        .join(eol)
}

/// Appends `snippet` as the last child of `parent`.
pub fn append_child(src: &str, project: Node, parent: Node, snippet: &str) -> Edit {
    let unit = indent_unit(src, project);
    let eol = line_ending(src);
    let parent_indent = indent_at(src, parent.range().start).to_string();
    let child_indent = format!("{parent_indent}{unit}");
    let body = layout(snippet, &child_indent, &unit, eol);
    let range = parent.range();
    let whole = &src[range.clone()];
    if whole.ends_with("/>") {
        let name = parent.tag_name().name();
        return Edit::replace(
            range,
            format!("<{name}>{eol}{body}{eol}{parent_indent}</{name}>"),
        );
    }
    match parent.children().rev().find(|c| c.is_element()) {
        Some(last) => Edit::insert(last.range().end, format!("{eol}{body}")),
        None => {
            let open_end = range.start + whole.find('>').map_or(0, |i| i + 1);
            let close_start = range.start + whole.rfind("</").unwrap_or(whole.len());
            Edit::replace(
                open_end..close_start,
                format!("{eol}{body}{eol}{parent_indent}"),
            )
        }
    }
}

/// Inserts `snippet` right after `sibling`, at the sibling's indentation.
pub fn insert_after(src: &str, project: Node, sibling: Node, snippet: &str) -> Edit {
    let unit = indent_unit(src, project);
    let eol = line_ending(src);
    let indent = indent_at(src, sibling.range().start);
    Edit::insert(
        sibling.range().end,
        format!("{eol}{}", layout(snippet, indent, &unit, eol)),
    )
}

/// Appends `snippet` under the element path below `project`, creating missing wrappers
/// (e.g. `["build", "plugins"]` on a pom without `<build>`).
pub fn append_under(src: &str, project: Node, path: &[&'static str], snippet: &str) -> Edit {
    let mut node = project;
    let mut depth = 0;
    while depth < path.len() {
        match child(node, path[depth]) {
            Some(c) => {
                node = c;
                depth += 1;
            }
            None => break,
        }
    }
    let mut wrapped = snippet.to_string();
    for name in path[depth..].iter().rev() {
        let inner: String = wrapped.lines().map(|l| format!("  {l}\n")).collect();
        wrapped = format!("<{name}>\n{inner}</{name}>");
    }
    append_child(src, project, node, &wrapped)
}

/// Removes an element together with its own line when it sits on one.
pub fn remove(src: &str, element: Node) -> Edit {
    let r = element.range();
    let line_start = src[..r.start].rfind('\n').map_or(0, |i| i + 1);
    let rest = &src[r.end..];
    let own_line = src[line_start..r.start].trim().is_empty()
        && rest
            .trim_start_matches([' ', '\t'])
            .starts_with(['\r', '\n']);
    if own_line {
        let nl = rest.find('\n').map_or(rest.len(), |i| i + 1);
        Edit::replace(line_start..r.end + nl, "")
    } else {
        Edit::replace(r, "")
    }
}

/// `<dependency>` XML for coordinates, with optional version and scope.
pub fn dependency_xml(
    group: &str,
    artifact: &str,
    version: Option<&str>,
    scope: Option<&str>,
) -> String {
    let mut s = format!(
        "<dependency>\n  <groupId>{group}</groupId>\n  <artifactId>{artifact}</artifactId>\n"
    );
    if let Some(v) = version {
        s.push_str(&format!("  <version>{v}</version>\n"));
    }
    if let Some(sc) = scope {
        s.push_str(&format!("  <scope>{sc}</scope>\n"));
    }
    s.push_str("</dependency>");
    s
}

/// The element children named `name` whose text equals `value`.
pub fn has_child_text(node: Node, name: &'static str, value: &str) -> bool {
    children(node, name).any(|c| c.text().map(str::trim) == Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::pom::parse_document;
    use crate::edit::apply;
    use std::path::Path;

    #[test]
    fn appends_with_file_style() {
        let src =
            "<project>\r\n    <artifactId>a</artifactId>\r\n    <!-- keep -->\r\n</project>\r\n";
        let doc = parse_document(Path::new("pom.xml"), src).unwrap();
        let project = doc.root_element();
        let e = append_under(src, project, &["properties"], "<x>1</x>");
        let out = apply(src, &[e]).unwrap();
        assert_eq!(
            out,
            "<project>\r\n    <artifactId>a</artifactId>\r\n    <properties>\r\n        <x>1</x>\r\n    </properties>\r\n    <!-- keep -->\r\n</project>\r\n"
        );
    }

    #[test]
    fn sets_text_and_removes_lines() {
        let src = "<project>\n  <a>1</a>\n  <b/>\n</project>\n";
        let doc = parse_document(Path::new("pom.xml"), src).unwrap();
        let p = doc.root_element();
        let a = child(p, "a").unwrap();
        let b = child(p, "b").unwrap();
        let out = apply(src, &[set_text(src, a, "2"), remove(src, b)]).unwrap();
        assert_eq!(out, "<project>\n  <a>2</a>\n</project>\n");
    }
}
