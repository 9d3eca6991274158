//! `if (o instanceof T) { T t = (T) o; ... }` -> `if (o instanceof T t) { ... }`, and the
//! `equals` shape `if (!(o instanceof T)) return ..; T t = (T) o;` -> `if (!(o instanceof
//! T t)) return ..;` (Java 16). Two edits a rule cannot pair: the binding goes into the
//! test, the declaration line goes away.
//!
//! Only where the meaning cannot change: the tested operand is a plain local name, the
//! cast declaration is the very next statement the test guards, and its type is the tested
//! type, spelled the same. In the negated form the guarded branch must end the block
//! (`return`/`throw`), which is what puts the binding in scope after the `if`.

use tree_sitter::Node;

use crate::edit::{Edit, whole_line};
use crate::java_syntax::{self, text};
use crate::recipes::FileResult;

pub fn rewrite(src: &str) -> FileResult {
    super::rewrite_nodes(src, "pattern-instanceof", |n, rw| {
        if n.kind() != "if_statement" {
            return;
        }
        if let Some((binding_at, name, decl)) = positive(n, src).or_else(|| negated(n, src)) {
            let line = whole_line(src, decl.byte_range());
            // Nested ifs: each edit stands alone, but never two on one declaration.
            if rw.overlaps(&line) {
                return;
            }
            rw.changes.push(format!(
                "pattern-instanceof: line {}: binds {name} in the instanceof test",
                n.start_position().row + 1
            ));
            rw.edits.push(Edit::insert(binding_at, format!(" {name}")));
            rw.edits.push(Edit::replace(line, ""));
        }
    })
}

/// `if (x instanceof T) { T v = (T) x; ...`: where the binding goes, its name, and the
/// declaration to drop.
fn positive<'t>(stmt: Node<'t>, src: &str) -> Option<(usize, String, Node<'t>)> {
    let test = instanceof_test(stmt.child_by_field_name("condition")?.named_child(0)?)?;
    let block = stmt.child_by_field_name("consequence")?;
    (block.kind() == "block").then_some(())?;
    let first = block.named_child(0)?;
    let name = cast_declaration(first, test, src)?;
    Some((test.right.end_byte(), name, first))
}

/// `if (!(x instanceof T)) return ..;` followed by `T v = (T) x;`.
fn negated<'t>(stmt: Node<'t>, src: &str) -> Option<(usize, String, Node<'t>)> {
    let cond = stmt.child_by_field_name("condition")?.named_child(0)?;
    if cond.kind() != "unary_expression" || text(cond.child(0)?, src) != "!" {
        return None;
    }
    let inner = cond.child_by_field_name("operand")?;
    let inner = if inner.kind() == "parenthesized_expression" {
        inner.named_child(0)?
    } else {
        inner
    };
    let test = instanceof_test(inner)?;
    if stmt.child_by_field_name("alternative").is_some()
        || !ends_abruptly(stmt.child_by_field_name("consequence")?)
    {
        return None;
    }
    let next = stmt.next_named_sibling()?;
    let name = cast_declaration(next, test, src)?;
    Some((test.right.end_byte(), name, next))
}

#[derive(Clone, Copy)]
struct Test<'t> {
    operand: Node<'t>,
    right: Node<'t>,
}

/// `x instanceof T` with a plain name and no binding yet.
fn instanceof_test(n: Node) -> Option<Test> {
    if n.kind() != "instanceof_expression" || n.child_by_field_name("name").is_some() {
        return None;
    }
    let operand = n.child_by_field_name("left")?;
    let right = n.child_by_field_name("right")?;
    (operand.kind() == "identifier" && right.kind() != "record_pattern")
        .then_some(Test { operand, right })
}

/// `T v = (T) x;` for the test's T and x: the declared name.
fn cast_declaration(decl: Node, test: Test, src: &str) -> Option<String> {
    if decl.kind() != "local_variable_declaration" {
        return None;
    }
    // `final T v` is fine (bindings may be final); annotations or several declarators are not.
    let mut c = decl.walk();
    let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
    let [d] = declarators.as_slice() else {
        return None;
    };
    if java_syntax::modifiers_of(decl).is_some_and(|m| text(m, src).trim() != "final") {
        return None;
    }
    let ty = text(test.right, src);
    let cast = d.child_by_field_name("value")?;
    let same = |n: Node| squash(text(n, src)) == squash(ty);
    (same(decl.child_by_field_name("type")?)
        && d.child_by_field_name("dimensions").is_none()
        && cast.kind() == "cast_expression"
        && same(cast.child_by_field_name("type")?)
        && cast
            .child_by_field_name("value")
            .is_some_and(|v| v.kind() == "identifier" && text(v, src) == text(test.operand, src)))
    .then(|| text(d.child_by_field_name("name").unwrap_or(*d), src).to_string())
}

/// Whether a statement cannot complete normally in the simple, visible ways.
fn ends_abruptly(stmt: Node) -> bool {
    match stmt.kind() {
        "return_statement" | "throw_statement" => true,
        "block" => {
            let mut c = stmt.walk();
            let last = stmt.named_children(&mut c).last();
            last.is_some_and(ends_abruptly)
        }
        _ => false,
    }
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Option<String> {
        rewrite(src).text
    }

    #[test]
    fn the_guarded_cast_becomes_a_binding() {
        let src = "class A {\n  int f(Object o) {\n    if (o instanceof String) {\n      String s = (String) o;\n      return s.length();\n    }\n    return 0;\n  }\n}\n";
        assert_eq!(
            run(src).unwrap(),
            "class A {\n  int f(Object o) {\n    if (o instanceof String s) {\n      return s.length();\n    }\n    return 0;\n  }\n}\n"
        );
    }

    #[test]
    fn the_equals_guard_binds_for_the_rest_of_the_method() {
        let src = "class P {\n  int x;\n  public boolean equals(Object obj) {\n    if (!(obj instanceof P)) {\n      return false;\n    }\n    P other = (P) obj;\n    return x == other.x;\n  }\n}\n";
        assert_eq!(
            run(src).unwrap(),
            "class P {\n  int x;\n  public boolean equals(Object obj) {\n    if (!(obj instanceof P other)) {\n      return false;\n    }\n    return x == other.x;\n  }\n}\n"
        );
    }

    #[test]
    fn a_different_type_a_later_cast_or_a_field_operand_is_left_alone() {
        for src in [
            "class A { void f(Object o) { if (o instanceof CharSequence) { String s = (String) o; } } }",
            "class A { void f(Object o) { if (o instanceof String) { g(); String s = (String) o; } } }",
            "class A { Object o; void f() { if (this.o instanceof String) { String s = (String) this.o; } } }",
            "class A { boolean f(Object o) { if (!(o instanceof String)) { g(); } String s = (String) o; return true; } }",
        ] {
            assert_eq!(run(src), None, "{src}");
        }
    }
}
