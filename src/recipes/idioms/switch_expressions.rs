//! A `switch` statement whose every branch returns (or throws), or assigns one variable
//! and breaks, becomes a switch expression (Java 14): `return switch (k) { case A -> 1;
//! ... };` or `v = switch (k) { ... };`.
//!
//! Only where the meaning is the same: the statement has a `default` (a switch expression
//! must be exhaustive, and without the enum's constants we cannot prove it otherwise), no
//! branch falls through into code (labels that share a body become one `case A, B`), and no
//! comment inside would be lost.

use tree_sitter::Node;

use crate::edit::{Edit, indent_at, line_ending};
use crate::java_syntax::{self, text};
use crate::recipes::FileResult;

pub fn rewrite(src: &str) -> FileResult {
    super::rewrite_nodes(src, "switch-expressions", |n, rw| {
        let statement = n.kind() == "switch_expression"
            && n.parent()
                .is_some_and(|p| matches!(p.kind(), "block" | "switch_block_statement_group"));
        if !statement || rw.overlaps(&n.byte_range()) {
            return;
        }
        if let Some((form, text)) = convert(n, src) {
            rw.changes.push(format!(
                "switch-expressions: line {}: {form} switch -> switch expression",
                n.start_position().row + 1
            ));
            let (range, text) = match declared_just_before(n, &text, src) {
                Some(decl) => (
                    decl.start_byte()..n.end_byte(),
                    format!(
                        "{}{text}",
                        &src[decl.byte_range()][..declarator_offset(decl)]
                    ),
                ),
                None => (n.byte_range(), text),
            };
            rw.edits.push(Edit::replace(range, text));
        }
    })
}

/// `T v;` right before a switch that becomes `v = switch ...`: the declaration the
/// assignment can initialize (`T v = switch ...`), when only blanks stand between them.
fn declared_just_before<'t>(switch: Node<'t>, assignment: &str, src: &str) -> Option<Node<'t>> {
    let decl = switch.prev_named_sibling()?;
    let mut c = decl.walk();
    let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
    let [d] = declarators.as_slice() else {
        return None;
    };
    let name = text(d.child_by_field_name("name")?, src);
    let uninitialized = d.child_by_field_name("value").is_none()
        && d.child_by_field_name("dimensions").is_none()
        && text(*d, src) == name;
    (decl.kind() == "local_variable_declaration"
        && uninitialized
        && assignment.starts_with(&format!("{name} = "))
        && src[decl.end_byte()..switch.start_byte()].trim().is_empty())
    .then_some(decl)
}

/// Where a one-declarator declaration's declarator starts, from the declaration's start.
fn declarator_offset(decl: Node) -> usize {
    decl.child_by_field_name("declarator")
        .map_or(0, |d| d.start_byte() - decl.start_byte())
}

/// One arm: its labels (`None` for default) and the statements it runs.
struct Arm<'t> {
    labels: Vec<Option<String>>,
    first_label: Node<'t>,
    body: Vec<Node<'t>>,
}

fn convert(switch: Node, src: &str) -> Option<(&'static str, String)> {
    let condition = switch.child_by_field_name("condition")?;
    let body = switch.child_by_field_name("body")?;
    let mut has_comment = false;
    java_syntax::walk(body, |n| has_comment |= n.kind().contains("comment"));
    if has_comment {
        return None;
    }
    let arms = arms(body, src)?;
    if !arms.iter().any(|a| a.labels.contains(&None)) {
        return None;
    }
    let eol = line_ending(src);
    let close = indent_at(src, switch.start_byte());
    let render = |value: &dyn Fn(&Arm) -> String| -> String {
        let mut out = format!("switch {} {{", text(condition, src));
        for arm in &arms {
            let head = if arm.labels.contains(&None) {
                "default".to_string()
            } else {
                let values: Vec<&str> = arm.labels.iter().flatten().map(String::as_str).collect();
                format!("case {}", values.join(", "))
            };
            let indent = indent_at(src, arm.first_label.start_byte());
            out.push_str(&format!("{eol}{indent}{head} -> {}", value(arm)));
        }
        out.push_str(&format!("{eol}{close}}};"));
        out
    };
    if arms.iter().all(|a| returns(a, src).is_some())
        && arms.iter().any(|a| a.body[0].kind() == "return_statement")
    {
        let text = render(&|a| returns(a, src).unwrap_or_default());
        return Some(("returning", format!("return {text}")));
    }
    let target = arms.iter().find_map(|a| assigns(a, src).map(|(v, _)| v))?;
    if arms.iter().all(|a| {
        a.body[0].kind() == "throw_statement" || assigns(a, src).is_some_and(|(v, _)| v == target)
    }) {
        let text = render(&|a| {
            if a.body[0].kind() == "throw_statement" {
                text(a.body[0], src).to_string()
            } else {
                assigns(a, src)
                    .map(|(_, e)| format!("{e};"))
                    .unwrap_or_default()
            }
        });
        return Some(("assigning", format!("{target} = {text}")));
    }
    None
}

/// The arms of a classic (colon) switch block; a group with labels only falls into the
/// next group and shares its arm. None when it has arrow rules or ends in bare labels.
fn arms<'t>(body: Node<'t>, src: &str) -> Option<Vec<Arm<'t>>> {
    let mut out = Vec::new();
    let mut pending: Vec<Option<String>> = Vec::new();
    let mut first: Option<Node> = None;
    let mut c = body.walk();
    for group in body.named_children(&mut c) {
        if group.kind() != "switch_block_statement_group" {
            return None;
        }
        let mut gc = group.walk();
        let mut stmts = Vec::new();
        for child in group.named_children(&mut gc) {
            if child.kind() == "switch_label" {
                first.get_or_insert(child);
                let t = text(child, src).trim();
                match t.strip_prefix("case") {
                    Some(v) => pending.push(Some(v.trim().to_string())),
                    None => pending.push(None),
                }
            } else {
                stmts.push(child);
            }
        }
        if stmts.is_empty() {
            continue;
        }
        out.push(Arm {
            labels: std::mem::take(&mut pending),
            first_label: first.take()?,
            body: stmts,
        });
    }
    (pending.is_empty() && !out.is_empty()).then_some(out)
}

/// `return e;` gives `e;`, `throw x;` itself: the arm's expression-form body.
fn returns(arm: &Arm, src: &str) -> Option<String> {
    let [stmt] = arm.body.as_slice() else {
        return None;
    };
    match stmt.kind() {
        "return_statement" => {
            let value = stmt.named_child(0)?;
            Some(format!("{};", text(value, src)))
        }
        "throw_statement" => Some(text(*stmt, src).to_string()),
        _ => None,
    }
}

/// `v = e; break;` (the break may be missing on the last arm): the variable and `e`.
fn assigns<'s>(arm: &Arm, src: &'s str) -> Option<(&'s str, &'s str)> {
    let (assign, rest) = arm.body.split_first()?;
    let breaks = match rest {
        [] => true,
        [b] => b.kind() == "break_statement" && b.named_child_count() == 0,
        _ => false,
    };
    if !breaks || assign.kind() != "expression_statement" {
        return None;
    }
    let e = assign.named_child(0)?;
    if e.kind() != "assignment_expression" || text(e.child_by_field_name("operator")?, src) != "=" {
        return None;
    }
    let left = e.child_by_field_name("left")?;
    (left.kind() == "identifier").then(|| {
        (
            text(left, src),
            text(e.child_by_field_name("right").unwrap_or(left), src),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_that_returns_everywhere_returns_a_switch_expression() {
        let src = "class A {\n  String f(int k) {\n    switch (k) {\n      case 1:\n        return \"one\";\n      case 2:\n      case 3:\n        return \"few\";\n      default:\n        throw new IllegalArgumentException();\n    }\n  }\n}\n";
        assert_eq!(
            rewrite(src).text.unwrap(),
            "class A {\n  String f(int k) {\n    return switch (k) {\n      case 1 -> \"one\";\n      case 2, 3 -> \"few\";\n      default -> throw new IllegalArgumentException();\n    };\n  }\n}\n"
        );
    }

    #[test]
    fn a_switch_that_assigns_one_variable_assigns_a_switch_expression() {
        let src = "class A {\n  void f(String k) {\n    int v;\n    switch (k) {\n      case \"a\": v = 1; break;\n      default: v = 2;\n    }\n  }\n}\n";
        assert_eq!(
            rewrite(src).text.unwrap(),
            "class A {\n  void f(String k) {\n    int v = switch (k) {\n      case \"a\" -> 1;\n      default -> 2;\n    };\n  }\n}\n"
        );
        // Declared earlier, or with a value the switch overwrites: the declaration stays.
        let src = "class A {\n  int f(String k) {\n    int v = 0;\n    switch (k) {\n      case \"a\": v = 1; break;\n      default: v = 2;\n    }\n    return v;\n  }\n}\n";
        assert!(
            rewrite(src)
                .text
                .unwrap()
                .contains("    int v = 0;\n    v = switch (k) {")
        );
    }

    #[test]
    fn fall_through_no_default_comments_or_mixed_targets_are_left_alone() {
        for body in [
            "case 1: g(); case 2: return 2; default: return 0;",
            "case 1: return 1; case 2: return 2;",
            "case 1: return 1; // one\n default: return 0;",
            "case 1: a = 1; break; default: b = 2;",
            "case 1: a += 1; break; default: a = 2;",
        ] {
            let src = format!(
                "class A {{ int a, b; int f(int k) {{ switch (k) {{ {body} }} return 0; }} void g() {{}} }}"
            );
            assert_eq!(rewrite(&src).text, None, "{body}");
        }
    }
}
