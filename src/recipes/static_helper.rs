//! A private static helper method a code recipe adds to a file, where one call cannot keep
//! an old API's contract (its checked exceptions) and a few lines can: it goes at the end of
//! the file's top-level type holding the call, indented like that type's members, so a bare
//! call of it resolves from every nested class, lambda and static context in that type.

use tree_sitter::Node;

use crate::edit::Edit;

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

/// The edit that appends `lines` (the method, unindented) to the outermost class or
/// interface holding `call`, or `None` where there is none.
fn append(call: Node, src: &str, lines: &[&str]) -> Option<Edit> {
    let top = std::iter::successors(Some(call), |x| x.parent())
        .filter(|x| {
            // Not an enum: a method there needs the constants closed by `;`.
            matches!(x.kind(), "class_declaration" | "interface_declaration")
        })
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
    Some(Edit::insert(body.end_byte() - 1, format!("{method}\n")))
}
