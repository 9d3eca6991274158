//! A `switch` statement whose every branch returns (or throws), or assigns one variable
//! and breaks, becomes a switch expression (Java 14): `return switch (k) { case A -> 1;
//! ... };` or `v = switch (k) { ... };`.
//!
//! Only where the meaning is the same: the statement has a `default` (a switch expression
//! must be exhaustive, and without the enum's constants we cannot prove it otherwise), no
//! branch falls through into code (labels that share a body become one `case A, B`), and no
//! comment inside would be lost.
//!
//! Any other `switch` statement whose branches end in `break` (at least one), `return`,
//! `throw` or `continue` (the last one may end as it likes) keeps being a statement, with
//! arrow labels (Java 14): `case A: f(); break;` -> `case A -> f();`, several statements
//! in a block. Without fall-through, an arrow rule runs exactly the statements its colon
//! group ran; a `break` left inside a rule still leaves the switch. Not where a branch
//! names a local variable another branch declares (the colon groups share one scope, the
//! rules do not), nor where a comment sits between a label and the code or before the
//! dropped `break`.

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
        } else if let Some(edits) = arrows(n, src) {
            rw.changes.push(format!(
                "switch-expressions: line {}: switch statement -> arrow labels",
                n.start_position().row + 1
            ));
            rw.edits.extend(edits);
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

/// The edits giving a switch statement arrow labels, one per arm (see the module doc).
fn arrows(switch: Node, src: &str) -> Option<Vec<Edit>> {
    let body = switch.child_by_field_name("body")?;
    let arms = arms(body, src)?;
    // Comments are extras among the statements: kept where they sit, never a statement.
    let arms: Vec<Arm> = arms
        .into_iter()
        .map(|a| Arm {
            body: a
                .body
                .into_iter()
                .filter(|s| !s.kind().contains("comment"))
                .collect(),
            ..a
        })
        .collect();
    if arms.iter().any(|a| a.body.is_empty()) {
        return None;
    }
    let ends = |a: &Arm, kinds: &[&str]| a.body.last().is_some_and(|s| kinds.contains(&s.kind()));
    let last = arms.len() - 1;
    if !arms[..last].iter().all(|a| {
        ends(
            a,
            &[
                "break_statement",
                "return_statement",
                "throw_statement",
                "continue_statement",
            ],
        )
    }) || !arms.iter().any(|a| ends(a, &["break_statement"]))
        || shares_locals(&arms, src)
    {
        return None;
    }
    let mut comments = Vec::new();
    java_syntax::walk(body, |n| {
        if n.kind().contains("comment") {
            comments.push((n.byte_range(), n.kind() == "line_comment"));
        }
    });
    let eol = line_ending(src);
    let mut edits = Vec::new();
    for arm in &arms {
        let plain_break = |s: &Node| s.kind() == "break_statement" && s.named_child_count() == 0;
        let kept = match arm.body.split_last() {
            Some((b, rest)) if plain_break(b) => rest,
            _ => arm.body.as_slice(),
        };
        let start = arm.first_label.start_byte();
        let end = arm.body.last()?.end_byte();
        // The kept statements, with a comment that ends the last one's line.
        let slice = kept.first().zip(kept.last()).map(|(f, l)| {
            let trailing = comments
                .iter()
                .filter(|(c, _)| {
                    c.start >= l.end_byte()
                        && c.end <= end
                        && !src[l.end_byte()..c.start].contains('\n')
                })
                .map(|(c, _)| c.end)
                .max();
            f.start_byte()..trailing.unwrap_or(l.end_byte())
        });
        if comments.iter().any(|(c, _)| {
            c.start >= start
                && c.end <= end
                && !slice
                    .as_ref()
                    .is_some_and(|k| k.start <= c.start && c.end <= k.end)
        }) {
            return None;
        }
        let head = if arm.labels.contains(&None) {
            "default".to_string()
        } else {
            let values: Vec<&str> = arm.labels.iter().flatten().map(String::as_str).collect();
            format!("case {}", values.join(", "))
        };
        let rule = match kept {
            [] => "{}".to_string(),
            [one]
                if matches!(
                    one.kind(),
                    "expression_statement" | "throw_statement" | "block"
                ) =>
            {
                src[slice.clone()?].to_string()
            }
            [first, ..] => {
                let k = slice.clone()?;
                let line_comment = comments
                    .iter()
                    .any(|(c, line)| *line && k.start <= c.start && c.end <= k.end);
                if !src[k.clone()].contains('\n') && !line_comment {
                    format!("{{ {} }}", &src[k])
                } else if first.start_position().row == arm.first_label.start_position().row {
                    return None;
                } else {
                    let line_start = src[..k.start].rfind('\n').map_or(0, |i| i + 1);
                    let indent = indent_at(src, start);
                    format!("{{{eol}{}{eol}{indent}}}", &src[line_start..k.end])
                }
            }
        };
        edits.push(Edit::replace(start..end, format!("{head} -> {rule}")));
    }
    Some(edits)
}

/// Whether one arm names a local variable another declares at its top level.
fn shares_locals(arms: &[Arm], src: &str) -> bool {
    arms.iter().enumerate().any(|(i, arm)| {
        let mut declared = Vec::new();
        for stmt in arm
            .body
            .iter()
            .filter(|s| s.kind() == "local_variable_declaration")
        {
            let mut c = stmt.walk();
            for d in stmt.children_by_field_name("declarator", &mut c) {
                declared.extend(d.child_by_field_name("name").map(|n| text(n, src)));
            }
        }
        arms.iter().enumerate().any(|(j, other)| {
            let mut named = false;
            for stmt in other.body.iter().filter(|_| i != j) {
                java_syntax::walk(*stmt, |n| {
                    named |= n.kind() == "identifier" && declared.contains(&text(n, src));
                });
            }
            named
        })
    })
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
    fn a_switch_statement_without_fall_through_takes_arrow_labels() {
        let src = "class A {\n  void f(int k) {\n    switch (k) {\n      case 1:\n        a();\n        break;\n      case 2:\n      case 3:\n        a();\n        // twice\n        b();\n        break;\n      case 4: b(); return;\n      case 5:\n        b(); // only b\n        break;\n      default:\n        throw new IllegalStateException();\n    }\n  }\n  void a() {}\n  void b() {}\n}\n";
        assert_eq!(
            rewrite(src).text.unwrap(),
            "class A {\n  void f(int k) {\n    switch (k) {\n      case 1 -> a();\n      case 2, 3 -> {\n        a();\n        // twice\n        b();\n      }\n      case 4 -> { b(); return; }\n      case 5 -> b(); // only b\n      default -> throw new IllegalStateException();\n    }\n  }\n  void a() {}\n  void b() {}\n}\n"
        );
    }

    #[test]
    fn fall_through_no_default_comments_or_mixed_targets_are_left_alone() {
        for body in [
            "case 1: g(); case 2: return 2; default: return 0;",
            "case 1: return 1; case 2: return 2;",
            "case 1: return 1; // one\n default: return 0;",
            "case 1: int x = 1; g(); break; case 2: x = 2; g(); break;",
            "case 1: g(); h(); // done\n break; default: g();",
            "case 1: g();\n // done\n break; default: g();",
            "case 1: g(); break; case 2: g(); default: g();",
        ] {
            let src = format!(
                "class A {{ int a, b; int f(int k) {{ switch (k) {{ {body} }} return 0; }} void g() {{}} void h() {{}} }}"
            );
            assert_eq!(rewrite(&src).text, None, "{body}");
        }
        // Not one expression, but no fall-through: a statement with arrow labels.
        for (body, arrows) in [
            (
                "case 1: a = 1; break; default: b = 2;",
                "case 1 -> a = 1; default -> b = 2;",
            ),
            (
                "case 1: a += 1; break; default: a = 2;",
                "case 1 -> a += 1; default -> a = 2;",
            ),
        ] {
            let src =
                format!("class A {{ int a, b; void f(int k) {{ switch (k) {{ {body} }} }} }}");
            assert_eq!(
                rewrite(&src).text.unwrap(),
                format!("class A {{ int a, b; void f(int k) {{ switch (k) {{ {arrows} }} }} }}")
            );
        }
    }
}
