//! `if (o instanceof T) { T t = (T) o; ... }` -> `if (o instanceof T t) { ... }`, the
//! `equals` shape `if (!(o instanceof T)) return ..; T t = (T) o;` -> `if (!(o instanceof
//! T t)) return ..;`, and `o instanceof T && ((T) o).m()` -> `o instanceof T t && t.m()`
//! (Java 16). Edits a rule cannot pair: the binding goes into the test, the declaration
//! line or the casts go away.
//!
//! Only where the meaning cannot change: the tested operand is a plain local name, the
//! cast declaration is the very next statement the test guards, and its type is the tested
//! type, spelled the same, or the tested raw type with unbounded wildcards (`Map` tested,
//! `Map<?, ?>` declared: the pattern takes the declared type, which tests the same class).
//! In the negated form the guarded branch must end the block
//! (`return`/`throw`), which is what puts the binding in scope after the `if`.

use tree_sitter::Node;

use crate::edit::{Edit, whole_line};
use crate::java_syntax::{self, text};
use crate::recipes::FileResult;

pub fn rewrite(src: &str) -> FileResult {
    super::rewrite_nodes(src, "pattern-instanceof", |n, rw| {
        if matches!(n.kind(), "binary_expression" | "instanceof_expression") {
            conjunction(n, src, rw);
            return;
        }
        if n.kind() != "if_statement" {
            return;
        }
        if let Some((test, binding, decl)) = positive(n, src).or_else(|| negated(n, src)) {
            let line = whole_line(src, decl.byte_range());
            // Nested ifs: each edit stands alone, but never two on one declaration.
            if rw.overlaps(&line) {
                return;
            }
            rw.changes.push(format!(
                "pattern-instanceof: line {}: binds {} in the instanceof test",
                n.start_position().row + 1,
                binding.name
            ));
            rw.edits.push(match binding.ty {
                Some(ty) => {
                    Edit::replace(test.right.byte_range(), format!("{ty} {}", binding.name))
                }
                None => Edit::insert(test.right.end_byte(), format!(" {}", binding.name)),
            });
            rw.edits.push(Edit::replace(line, ""));
        }
    })
}

/// `if (x instanceof T) { T v = (T) x; ...`: the test that takes the binding, the binding,
/// and the declaration to drop.
fn positive<'t>(stmt: Node<'t>, src: &str) -> Option<(Test<'t>, Binding, Node<'t>)> {
    let test = instanceof_test(stmt.child_by_field_name("condition")?.named_child(0)?)?;
    let block = stmt.child_by_field_name("consequence")?;
    (block.kind() == "block").then_some(())?;
    let first = block.named_child(0)?;
    let binding = cast_declaration(first, test, src)?;
    Some((test, binding, first))
}

/// `if (!(x instanceof T)) return ..;` followed by `T v = (T) x;`.
fn negated<'t>(stmt: Node<'t>, src: &str) -> Option<(Test<'t>, Binding, Node<'t>)> {
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
    let binding = cast_declaration(next, test, src)?;
    Some((test, binding, next))
}

/// `x instanceof T && ((T) x).m()`, or a lone `x instanceof T` test: the casts in the
/// conjuncts after the test (and in the branch an `if` or a `?:` takes on it) read a new
/// binding. Only when nothing in there assigns `x`, the casts spell the tested type, and
/// the binding's name is used nowhere in the file.
fn conjunction(n: Node, src: &str, rw: &mut super::Rewrite) {
    // The outermost `&&` of a chain only, or a test that is no conjunct.
    let is_and = |e: Node| {
        e.kind() == "binary_expression"
            && e.child_by_field_name("operator")
                .is_some_and(|o| text(o, src) == "&&")
    };
    if !(is_and(n) || n.kind() == "instanceof_expression") || n.parent().is_some_and(is_and) {
        return;
    }
    let mut conjuncts = Vec::new();
    let mut cur = n;
    while is_and(cur) {
        let (Some(l), Some(r)) = (
            cur.child_by_field_name("left"),
            cur.child_by_field_name("right"),
        ) else {
            return;
        };
        conjuncts.push(r);
        cur = l;
    }
    conjuncts.push(cur);
    conjuncts.reverse();
    let Some(at) = conjuncts.iter().position(|c| instanceof_test(*c).is_some()) else {
        return;
    };
    let Some(test) = instanceof_test(conjuncts[at]) else {
        return;
    };
    let ty = text(test.right, src);
    if test.right.kind() != "type_identifier" && test.right.kind() != "scoped_type_identifier" {
        return;
    }
    let x = text(test.operand, src);
    // A field could change under a call between the test and a cast; a local cannot.
    if !is_local(test.operand, src) {
        return;
    }
    // The `if` or `?:` whose condition this chain is: its consequence may read the binding too.
    let mut cond = n;
    while let Some(p) = cond
        .parent()
        .filter(|p| p.kind() == "parenthesized_expression")
    {
        cond = p;
    }
    let guarded = cond
        .parent()
        .filter(|s| match s.kind() {
            "if_statement" => cond.kind() == "parenthesized_expression",
            "ternary_expression" => s.child_by_field_name("condition") == Some(cond),
            _ => false,
        })
        .and_then(|s| s.child_by_field_name("consequence"));
    let mut scopes: Vec<Node> = conjuncts[at + 1..].to_vec();
    scopes.extend(guarded);
    if scopes.iter().any(|s| assigns(*s, x, src)) {
        return;
    }
    let mut casts = Vec::new();
    // A lone test whose branch declares `T v = (T) x;` later on is left to the reader:
    // `T v = binding;` would only rename.
    let mut declares = false;
    for s in &scopes {
        java_syntax::walk(*s, |c| {
            declares |= c.kind() == "cast_expression"
                && c.parent()
                    .is_some_and(|p| p.kind() == "variable_declarator");
            if c.kind() == "cast_expression"
                && c.child_by_field_name("type")
                    .is_some_and(|t| squash(text(t, src)) == squash(ty))
                && c.child_by_field_name("value")
                    .is_some_and(|v| v.kind() == "identifier" && text(v, src) == x)
            {
                // `((T) x)` goes whole; a bare `(T) x` (an argument) is replaced alone.
                let whole = c
                    .parent()
                    .filter(|p| p.kind() == "parenthesized_expression")
                    .unwrap_or(c);
                casts.push(whole.byte_range());
            }
        });
    }
    if casts.is_empty() || (declares && !is_and(n)) || casts.iter().any(|r| rw.overlaps(r)) {
        return;
    }
    let Some(name) = fresh_name(ty, src) else {
        return;
    };
    rw.changes.push(format!(
        "pattern-instanceof: line {}: binds {name} in the instanceof test of a && chain",
        n.start_position().row + 1
    ));
    rw.edits
        .push(Edit::insert(test.right.end_byte(), format!(" {name}")));
    for r in casts {
        rw.edits.push(Edit::replace(r, name.clone()));
    }
}

/// Whether the name `ident` is a parameter or local variable declared around it.
fn is_local(ident: Node, src: &str) -> bool {
    let name = text(ident, src);
    let names = |n: Option<Node>| n.is_some_and(|n| text(n, src) == name);
    let mut cur = ident;
    while let Some(p) = cur.parent() {
        let mut c = p.walk();
        let found = match p.kind() {
            "class_body" | "program" => return false,
            "block" | "constructor_body" | "switch_block_statement_group" => p
                .named_children(&mut c)
                .filter(|d| {
                    d.kind() == "local_variable_declaration" && d.end_byte() <= ident.start_byte()
                })
                .any(|d| {
                    let mut c2 = d.walk();
                    d.children_by_field_name("declarator", &mut c2)
                        .any(|v| names(v.child_by_field_name("name")))
                }),
            "method_declaration" | "constructor_declaration" | "lambda_expression" => {
                p.child_by_field_name("parameters").is_some_and(|ps| {
                    names(Some(ps))
                        || ps
                            .named_children(&mut c)
                            .any(|q| names(Some(q)) || names(q.child_by_field_name("name")))
                })
            }
            "enhanced_for_statement" | "catch_clause" => {
                let mut hit = names(p.child_by_field_name("name"));
                java_syntax::walk(p, |q| {
                    hit |= q.kind() == "catch_formal_parameter"
                        && names(q.child_by_field_name("name"));
                });
                hit
            }
            _ => false,
        };
        if found {
            return true;
        }
        cur = p;
    }
    false
}

/// Whether `scope` assigns or increments the local `x`.
fn assigns(scope: Node, x: &str, src: &str) -> bool {
    let mut found = false;
    java_syntax::walk(scope, |n| {
        let target = match n.kind() {
            "assignment_expression" => n.child_by_field_name("left"),
            "update_expression" => n.named_child(0),
            _ => None,
        };
        found |= target.is_some_and(|t| t.kind() == "identifier" && text(t, src) == x);
    });
    found
}

/// A binding name for type `ty` that no identifier of the file uses (so it shadows and is
/// shadowed by nothing): `String` -> `string`, else its initial, else numbered.
fn fresh_name(ty: &str, src: &str) -> Option<String> {
    let simple = ty.rsplit('.').next().unwrap_or(ty);
    let mut chars = simple.chars();
    let first = chars.next()?.to_ascii_lowercase();
    let lower = format!("{first}{}", chars.as_str());
    let used = |name: &str| {
        KEYWORDS.contains(&name)
            || src.match_indices(name).any(|(i, _)| {
                let before = src[..i].chars().next_back();
                let after = src[i + name.len()..].chars().next();
                !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
            })
    };
    std::iter::once(lower.clone())
        .chain(std::iter::once(first.to_string()))
        .chain((2..10).map(|i| format!("{lower}{i}")))
        .find(|n| !used(n))
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

const KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "yield",
    "record",
    "_",
];

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

/// The pattern variable a cast declaration becomes.
struct Binding {
    name: String,
    /// The declared type where the pattern must spell it instead of the tested raw type.
    ty: Option<String>,
}

/// `T v = (T) x;` for the test's T and x (or T with unbounded wildcards for a raw T).
fn cast_declaration(decl: Node, test: Test, src: &str) -> Option<Binding> {
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
    let tested = squash(text(test.right, src));
    let declared_node = decl.child_by_field_name("type")?;
    let declared = squash(text(declared_node, src));
    let cast = d.child_by_field_name("value")?;
    let same_class = declared == tested || only_wildcards(&declared, &tested);
    (same_class
        && d.child_by_field_name("dimensions").is_none()
        && cast.kind() == "cast_expression"
        && squash(text(cast.child_by_field_name("type")?, src)) == declared
        && cast
            .child_by_field_name("value")
            .is_some_and(|v| v.kind() == "identifier" && text(v, src) == text(test.operand, src)))
    .then(|| Binding {
        name: text(d.child_by_field_name("name").unwrap_or(*d), src).to_string(),
        ty: (declared != tested).then(|| text(declared_node, src).to_string()),
    })
}

/// `Map<?,?>` for a raw `Map` (whitespace squashed): a reifiable type testing the same class.
fn only_wildcards(declared: &str, raw: &str) -> bool {
    !raw.contains('<')
        && declared
            .strip_prefix(raw)
            .and_then(|args| args.strip_prefix('<')?.strip_suffix('>'))
            .is_some_and(|args| args.split(',').all(|a| a == "?"))
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
    fn a_raw_test_binds_the_declared_wildcard_type() {
        let src = "class A {\n  int f(Object o) {\n    if (o instanceof Map) {\n      Map<?, ?> m = (Map<?, ?>) o;\n      return m.size();\n    }\n    return 0;\n  }\n}\n";
        assert_eq!(
            run(src).unwrap(),
            "class A {\n  int f(Object o) {\n    if (o instanceof Map<?, ?> m) {\n      return m.size();\n    }\n    return 0;\n  }\n}\n"
        );
        // A type argument other than `?` would be an unchecked cast, which a pattern refuses.
        let unchecked = "class A { void f(Object o) { if (o instanceof Map) { Map<String, ?> m = (Map<String, ?>) o; } } }";
        assert_eq!(run(unchecked), None);
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
