//! `Class.newInstance()` (deprecated in 9) inside a `try` that catches exactly the old
//! checked exceptions. `getDeclaredConstructor().newInstance()` also throws
//! `NoSuchMethodException` and `InvocationTargetException`, so the handler is extended to
//! keep the file compiling and the failure handled the same way:
//!
//! * `catch (InstantiationException | IllegalAccessException e)` gains
//!   `| NoSuchMethodException | InvocationTargetException`;
//! * separate `catch (InstantiationException e) {..} catch (IllegalAccessException e) {..}`
//!   are followed by `catch (NoSuchMethodException | InvocationTargetException e) {..}` with
//!   the `IllegalAccessException` handler's body.
//!
//! The code half of `deprecated-jdk-renames`; where the handler already takes a supertype
//! the rule rewrites the call alone, and anywhere else it stays a task with its line.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::visit_calls;
use crate::edit::Edit;
use crate::java_syntax::{field_text, text};

const NEW: &str = "NoSuchMethodException | InvocationTargetException";

pub fn rewrite(src: &str, package_types: &[String]) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    let mut extended: BTreeSet<usize> = BTreeSet::new();
    visit_calls(src, package_types, "newInstance", |n, scope| {
        if n.child_by_field_name("arguments")
            .is_none_or(|a| a.named_child_count() > 0)
        {
            return;
        }
        let Some(object) = n.child_by_field_name("object") else {
            return;
        };
        if !matches!(
            object.kind(),
            "identifier" | "field_access" | "class_literal" | "method_invocation"
        ) || !scope.denotes(object, "java.lang.Class")
        {
            return;
        }
        let Some(handler) = nearest_try(n).and_then(|t| handler_edit(t, src)) else {
            return;
        };
        edits.push(Edit::insert(
            n.child_by_field_name("name").map_or(0, |m| m.start_byte()),
            "getDeclaredConstructor().",
        ));
        // One extension per try, however many calls it holds.
        if extended.insert(handler.range.start) {
            edits.push(handler);
        }
        let line = src[..n.start_byte()].matches('\n').count() + 1;
        result.changes.push(format!(
            "line {line}: Class.newInstance() -> getDeclaredConstructor().newInstance(), handler extended"
        ));
    });
    if edits.is_empty() {
        return result;
    }
    let needed = BTreeSet::from(["java.lang.reflect.InvocationTargetException"]);
    apply_code_edits(
        src,
        &edits,
        &needed,
        "Class.newInstance handlers",
        &mut result,
    );
    result
}

/// The `try` whose block holds `n`, unless a lambda, class body or method comes first.
pub(super) fn nearest_try(n: Node) -> Option<Node> {
    let mut child = n;
    while let Some(p) = child.parent() {
        match p.kind() {
            "lambda_expression" | "class_body" | "method_declaration" => return None,
            "try_statement" | "try_with_resources_statement"
                if p.child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id()) =>
            {
                return Some(p);
            }
            _ => {}
        }
        child = p;
    }
    None
}

/// One catch clause of a `try`.
pub(super) struct Catch<'t> {
    pub(super) clause: Node<'t>,
    /// The `A | B` type list.
    pub(super) type_list: Node<'t>,
    /// Its exception types, without `java.lang.`.
    pub(super) types: Vec<&'t str>,
    pub(super) parameter: &'t str,
}

pub(super) fn catches<'t>(try_node: Node<'t>, src: &'t str) -> Vec<Catch<'t>> {
    let mut c = try_node.walk();
    try_node
        .named_children(&mut c)
        .filter(|x| x.kind() == "catch_clause")
        .filter_map(|clause| {
            let mut cc = clause.walk();
            let param = clause
                .named_children(&mut cc)
                .find(|x| x.kind() == "catch_formal_parameter")?;
            let mut pc = param.walk();
            let type_list = param
                .named_children(&mut pc)
                .find(|x| x.kind() == "catch_type")?;
            let types = text(type_list, src)
                .split('|')
                .map(|t| t.trim().trim_start_matches("java.lang."))
                .collect();
            Some(Catch {
                clause,
                type_list,
                types,
                parameter: field_text(param, "name", src),
            })
        })
        .collect()
}

/// The edit that makes the try's handlers take the new exceptions, when they take exactly
/// the old ones (a broader handler needs none; anything else is not ours to guess).
fn handler_edit(try_node: Node, src: &str) -> Option<Edit> {
    let clauses = catches(try_node, src);
    let all: Vec<&str> = clauses
        .iter()
        .flat_map(|c| c.types.iter().copied())
        .collect();
    let broad = ["Exception", "ReflectiveOperationException", "Throwable"];
    if all.iter().any(|t| broad.contains(t))
        || all
            .iter()
            .any(|t| matches!(*t, "NoSuchMethodException" | "InvocationTargetException"))
        || !all.contains(&"InstantiationException")
        || !all.contains(&"IllegalAccessException")
    {
        return None;
    }
    let access = clauses
        .iter()
        .find(|c| c.types.contains(&"IllegalAccessException"))?;
    if access.types.contains(&"InstantiationException") {
        // One multi-catch: extend its type list.
        return Some(Edit::insert(
            access.type_list.end_byte(),
            format!(" | {NEW}"),
        ));
    }
    let body = access.clause.child_by_field_name("body")?;
    let last = clauses.last()?.clause;
    Some(Edit::insert(
        last.end_byte(),
        format!(" catch ({NEW} {}) {}", access.parameter, text(body, src)),
    ))
}
