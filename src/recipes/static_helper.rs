//! A private static helper method a code recipe adds to a file, where one call cannot keep
//! an old API's contract (its checked exceptions) and a few lines can: it goes at the end of
//! the file's top-level type holding the call, indented like that type's members, so a bare
//! call of it resolves from every nested class, lambda and static context in that type.

use tree_sitter::Node;

use crate::edit::Edit;
use crate::java_syntax;

/// One helper a code recipe adds to a file at most once, to the top-level type of the first
/// call it serves.
pub struct Helper {
    lines: &'static [&'static str],
    placed: Option<Edit>,
}

impl Helper {
    pub fn new(lines: &'static [&'static str]) -> Self {
        Self {
            lines,
            placed: None,
        }
    }

    /// Whether a bare call of the helper at `call` resolves to it: the helper goes where the
    /// first such call is, and a call in another top-level type of the file cannot name it.
    pub fn reaches(&mut self, call: Node, src: &str) -> bool {
        let Some(here) = append(call, src, self.lines) else {
            return false;
        };
        self.placed.get_or_insert_with(|| here.clone()).range == here.range
    }

    /// The edit that adds the helper, if any call needed it.
    pub fn edit(self) -> Option<Edit> {
        self.placed
    }
}

/// The edits that give every top-level type of `src` holding a bare call of `name` its own
/// copy of the helper `lines`: a declarative rule's fix writes the calls, this their target.
pub fn place_for_calls(src: &str, name: &str, lines: &[&str]) -> Vec<Edit> {
    let Some(parsed) = java_syntax::parse(src) else {
        return Vec::new();
    };
    let mut edits: Vec<Edit> = Vec::new();
    java_syntax::walk(parsed.tree.root_node(), |n| {
        let bare_call = n.kind() == "method_invocation"
            && n.child_by_field_name("object").is_none()
            && java_syntax::field_text(n, "name", src) == name;
        if let Some(e) = bare_call.then(|| append(n, src, lines)).flatten()
            && !edits.iter().any(|p| p.range == e.range)
        {
            edits.push(e);
        }
    });
    edits
}

/// Whether `kind` is a type a helper can go into (not an enum: a method there needs the
/// constants closed by `;`).
pub fn can_hold_helper(kind: &str) -> bool {
    matches!(kind, "class_declaration" | "interface_declaration")
}

/// The edit that appends `lines` (the method, unindented) to the outermost class or
/// interface holding `call`, or `None` where there is none.
fn append(call: Node, src: &str, lines: &[&str]) -> Option<Edit> {
    let top = std::iter::successors(Some(call), |x| x.parent())
        .filter(|x| can_hold_helper(x.kind()))
        .last()?;
    let body = top.child_by_field_name("body")?;
    // The first member's indentation where it starts its line, else the type's plus four.
    let leading = |at: usize| {
        let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = src[line_start..at]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect();
        (line_start + indent.len() == at, indent)
    };
    let indent = match body.named_child(0).map(|m| leading(m.start_byte())) {
        Some((true, indent)) => indent,
        _ => leading(top.start_byte()).1 + "    ",
    };
    // The lines step by four spaces; a file indented with tabs steps by tabs.
    let unit = if indent.contains('\t') { "\t" } else { "    " };
    let method: String = lines
        .iter()
        .map(|l| {
            let body = l.trim_start_matches(' ');
            let steps = (l.len() - body.len()) / 4;
            format!("\n{indent}{}{body}", unit.repeat(steps))
        })
        .collect();
    // Before the blanks ahead of the closing brace, so no line ends in them; a brace that
    // shared its line with code gets its own, indented as the type.
    let close = body.end_byte() - 1;
    let at = src[..close].trim_end_matches([' ', '\t']).len();
    let brace_indent = if at == 0 || src[..at].ends_with('\n') {
        src[at..close].to_string()
    } else {
        leading(top.start_byte()).1
    };
    Some(Edit::replace(
        at..close,
        format!("{method}\n{brace_indent}"),
    ))
}
