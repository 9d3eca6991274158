//! `AccessController.doPrivileged(PrivilegedExceptionAction)` in its usual idiom: the call
//! returned from a `try` whose one handler unwraps the one checked exception the action
//! declares.
//!
//! ```java
//! try {
//!     return AccessController.doPrivileged(new PrivilegedExceptionAction<T>() {
//!         public T run() throws X { BODY }
//!     });
//! } catch (PrivilegedActionException e) {
//!     throw (X) e.getException();
//! }
//! ```
//!
//! With no Security Manager (JEP 411: for removal in 17, off by default from 18) the call
//! runs the action with the caller's own permissions, returns what it returns and rethrows
//! its checked exception unwrapped by the handler (unchecked ones passed through already), so
//! the statement is BODY itself: each `return` in it returns the same value from the
//! method, and `X` is thrown directly. A cast lambda action
//! (`(PrivilegedExceptionAction<T>) () -> ..`) is the same.
//!
//! Left to the `access-controller` finding where the file names `SecurityManager`, where an
//! anonymous action's BODY names `this` or `super` or calls `run()` (the action itself), or
//! where BODY declares a name its method also uses outside the `try` (Java would see it
//! declared twice).

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits_dropping;
use super::java_types::{Project, Scope, visit_calls};
use crate::edit::{Edit, indent_at, reindent};
use crate::java_syntax::{self, text};

const CONTROLLER: &str = "java.security.AccessController";
const ACTION: &str = "java.security.PrivilegedExceptionAction";
const WRAPPER: &str = "java.security.PrivilegedActionException";

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    if src.contains("SecurityManager") {
        return result;
    }
    let mut edits = Vec::new();
    visit_calls(src, project, "doPrivileged", |call, scope| {
        if let Some(edit) = inline(call, src, scope) {
            result.changes.push(format!(
                "line {}: AccessController.doPrivileged(PrivilegedExceptionAction) and its PrivilegedActionException handler -> the action's body (no Security Manager: the same result, its exception thrown directly)",
                call.start_position().row + 1
            ));
            edits.push(edit);
        }
    });
    if edits.is_empty() {
        return result;
    }
    apply_code_edits_dropping(
        src,
        &edits,
        &[CONTROLLER, ACTION, WRAPPER],
        "doPrivileged",
        &mut result,
    );
    result
}

/// The edit replacing the `try` around `call` with the action's body, when the idiom and
/// its preconditions hold.
fn inline(call: Node, src: &str, scope: &Scope) -> Option<Edit> {
    if !scope.denotes(call.child_by_field_name("object")?, CONTROLLER) {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let [action] = java_syntax::named_children(args)[..] else {
        return None;
    };
    let returned = call.parent().filter(|p| p.kind() == "return_statement")?;
    let block = returned
        .parent()
        .filter(|b| b.kind() == "block" && b.named_child_count() == 1)?;
    let attempt = block
        .parent()
        .filter(|t| t.kind() == "try_statement" && t.child_by_field_name("body") == Some(block))?;
    let thrown = unwrapped_type(attempt, src, scope)?;
    let body = action_body(action, &thrown, src, scope)?;
    if declares_name_used_elsewhere(body, attempt, src) {
        return None;
    }
    Some(Edit::replace(
        attempt.byte_range(),
        body_statements(body, attempt, src)?,
    ))
}

/// The type `X` of a `try`'s only handler, `catch (PrivilegedActionException e) { throw (X)
/// e.getException(); }` (or `getCause()`), with no `finally`.
fn unwrapped_type(attempt: Node, src: &str, scope: &Scope) -> Option<String> {
    let clauses = java_syntax::named_children(attempt);
    let [_, catch] = clauses[..] else {
        return None;
    };
    if catch.kind() != "catch_clause" {
        return None;
    }
    let param = java_syntax::named_children(catch)
        .into_iter()
        .find(|n| n.kind() == "catch_formal_parameter")?;
    let caught = java_syntax::named_children(param)
        .into_iter()
        .find(|n| n.kind() == "catch_type")?;
    let [caught_type] = java_syntax::named_children(caught)[..] else {
        return None;
    };
    if !scope.denotes(caught_type, WRAPPER) {
        return None;
    }
    let name = java_syntax::field_text(param, "name", src);
    let handler = catch.child_by_field_name("body")?;
    let [throw] = java_syntax::named_children(handler)[..] else {
        return None;
    };
    let cast = throw
        .named_child(0)
        .filter(|c| throw.kind() == "throw_statement" && c.kind() == "cast_expression")?;
    let unwrap = cast.child_by_field_name("value")?;
    let getter = java_syntax::field_text(unwrap, "name", src);
    let plain = unwrap.kind() == "method_invocation"
        && matches!(getter, "getException" | "getCause")
        && unwrap
            .child_by_field_name("object")
            .is_some_and(|o| text(o, src) == name)
        && unwrap
            .child_by_field_name("arguments")
            .is_some_and(|a| a.named_child_count() == 0);
    plain.then(|| java_syntax::field_text(cast, "type", src).to_string())
}

/// The block that runs as the action: the body of an anonymous `PrivilegedExceptionAction`
/// declaring only `run() throws X` that names neither `this` nor `super` nor calls `run()`
/// itself, or the block of a lambda cast to that type.
fn action_body<'t>(action: Node<'t>, thrown: &str, src: &str, scope: &Scope) -> Option<Node<'t>> {
    match action.kind() {
        "object_creation_expression" => {
            let ty = action.child_by_field_name("type")?;
            let members = java_syntax::named_children(
                java_syntax::named_children(action)
                    .into_iter()
                    .find(|n| n.kind() == "class_body")?,
            );
            let [run] = members[..] else {
                return None;
            };
            let parameters = run.child_by_field_name("parameters")?;
            let throws = java_syntax::named_children(run)
                .into_iter()
                .find(|n| n.kind() == "throws")?;
            let declared = java_syntax::named_children(throws);
            let fits = is_action(ty, scope)
                && run.kind() == "method_declaration"
                && java_syntax::field_text(run, "name", src) == "run"
                && parameters.named_child_count() == 0
                && declared.len() == 1
                && text(declared[0], src) == thrown;
            let body = run.child_by_field_name("body").filter(|_| fits)?;
            let mut names_self = false;
            java_syntax::walk(body, |n| {
                names_self |= matches!(n.kind(), "this" | "super")
                    || n.kind() == "method_invocation"
                        && n.child_by_field_name("object").is_none()
                        && java_syntax::field_text(n, "name", src) == "run";
            });
            (!names_self).then_some(body)
        }
        "cast_expression" => {
            let lambda = action.child_by_field_name("value")?;
            let fits = is_action(action.child_by_field_name("type")?, scope)
                && lambda.kind() == "lambda_expression"
                && lambda
                    .child_by_field_name("parameters")
                    .is_some_and(|p| p.kind() == "formal_parameters" && p.named_child_count() == 0);
            lambda
                .child_by_field_name("body")
                .filter(|b| fits && b.kind() == "block")
        }
        _ => None,
    }
}

fn is_action(ty: Node, scope: &Scope) -> bool {
    let base = if ty.kind() == "generic_type" {
        ty.named_child(0)
    } else {
        Some(ty)
    };
    base.is_some_and(|b| scope.denotes(b, ACTION))
}

/// Whether `body` declares a variable, parameter or class whose name the method around
/// `attempt` also spells outside it: inlined, the two would meet in one scope.
fn declares_name_used_elsewhere(body: Node, attempt: Node, src: &str) -> bool {
    let mut declared = BTreeSet::new();
    java_syntax::walk(body, |n| {
        let name = match n.kind() {
            "variable_declarator"
            | "formal_parameter"
            | "catch_formal_parameter"
            | "resource"
            | "enhanced_for_statement"
            | "class_declaration" => n.child_by_field_name("name"),
            "lambda_expression" => n
                .child_by_field_name("parameters")
                .filter(|p| p.kind() == "identifier"),
            _ => None,
        };
        declared.extend(name.map(|x| text(x, src)));
        if n.kind() == "inferred_parameters" {
            declared.extend(java_syntax::named_children(n).iter().map(|x| text(*x, src)));
        }
    });
    // An anonymous class's method may redeclare its outer method's names; one member may not.
    let Some(member) = java_syntax::ancestors(attempt).find(|a| {
        matches!(
            a.kind(),
            "method_declaration" | "constructor_declaration" | "static_initializer"
        ) || a.kind() == "block" && a.parent().is_some_and(|p| p.kind() == "class_body")
    }) else {
        return true;
    };
    let outside = attempt.byte_range();
    let mut clash = false;
    java_syntax::walk(member, |n| {
        clash |= n.kind() == "identifier"
            && !(outside.start <= n.start_byte() && n.end_byte() <= outside.end)
            && declared.contains(text(n, src));
    });
    clash
}

/// The statements of `body`, re-indented from its depth to the depth of `attempt`.
fn body_statements(body: Node, attempt: Node, src: &str) -> Option<String> {
    let mut c = body.walk();
    let statements: Vec<Node> = body.named_children(&mut c).collect();
    let (first, last) = (statements.first()?, statements.last()?);
    Some(reindent(
        &src[first.start_byte()..last.end_byte()],
        indent_at(src, first.start_byte()),
        indent_at(src, attempt.start_byte()),
    ))
}
