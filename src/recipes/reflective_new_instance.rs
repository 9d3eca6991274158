//! `Class.newInstance()` (deprecated in 9) inside a `try` that catches exactly the old
//! checked exceptions. `getDeclaredConstructor().newInstance()` also throws
//! `NoSuchMethodException`, and wraps what the constructor throws in
//! `InvocationTargetException`, where `Class.newInstance()` threw it as it was. So the try
//! keeps compiling and every failure reaches the handler it reached before:
//!
//! * a `catch (InvocationTargetException e)` goes ahead of the handlers, rethrowing the
//!   constructor's unchecked exception (a checked one, which `Class.newInstance()` threw
//!   undeclared, in an `UndeclaredThrowableException`, as the helper below does);
//! * `catch (InstantiationException | IllegalAccessException e)` gains
//!   `| NoSuchMethodException`;
//! * separate `catch (InstantiationException e) {..} catch (IllegalAccessException e) {..}`
//!   are followed by `catch (NoSuchMethodException e) {..}` with the
//!   `IllegalAccessException` handler's body.
//!
//! Anywhere else (outside a `try`, under a broader handler such as `catch (Exception e)`,
//! a `throws` clause, a lambda) the call becomes `newInstanceOf(c)`, a private static
//! helper added once to the file's top-level type with `Class.newInstance()`'s contract: the
//! same two checked exceptions, a missing no-argument constructor as the same
//! `InstantiationException`, and the constructor's unchecked exceptions unwrapped. A
//! checked one (which `Class.newInstance` threw undeclared) arrives wrapped in
//! `UndeclaredThrowableException`. Rewritten in place there, a `catch (Exception e)`, a
//! caller or a test's expected exception would meet the constructor's exception wrapped in
//! `InvocationTargetException`, and a `catch (ReflectiveOperationException e)` would take
//! what used to pass it.
//!
//! The code half of `deprecated-jdk-renames`; where the helper cannot go (an enum, a file
//! naming `newInstanceOf` or clashing with its imports) the call stays a task with its line.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, visit_calls};
use super::static_helper::Helper;
use crate::edit::{self, Edit};
use crate::java_syntax::{field_text, text};

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    let mut extended: BTreeSet<usize> = BTreeSet::new();
    let mut helper = Helper::new(&HELPER_LINES);
    let mut blocked = src.contains(HELPER);
    visit_calls(src, project, "newInstance", |n, scope| {
        blocked |= HELPER_IMPORTS.iter().any(|t| scope.import_would_clash(t));
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
            if !blocked {
                through_helper(n, object, src, &mut helper, &mut edits, &mut result);
            }
            return;
        };
        edits.push(Edit::insert(
            n.child_by_field_name("name").map_or(0, |m| m.start_byte()),
            "getDeclaredConstructor().",
        ));
        // One extension per try, however many calls it holds.
        if extended.insert(handler[0].range.start) {
            edits.extend(handler);
        }
        let line = n.start_position().row + 1;
        result.changes.push(format!(
            "line {line}: Class.newInstance() -> getDeclaredConstructor().newInstance(), handler extended"
        ));
    });
    if edits.is_empty() {
        return result;
    }
    // Both the helper and a try's unwrapping catch name both exceptions.
    let needed = BTreeSet::from(HELPER_IMPORTS);
    if let Some(helper) = helper.edit() {
        edits.push(helper);
    }
    apply_code_edits(
        src,
        &edits,
        &needed,
        "Class.newInstance handlers",
        &mut result,
    );
    result
}

const HELPER: &str = "newInstanceOf";
const HELPER_IMPORTS: [&str; 2] = [
    "java.lang.reflect.InvocationTargetException",
    "java.lang.reflect.UndeclaredThrowableException",
];
/// `Class.newInstance()`'s contract: the same two checked exceptions, a missing no-argument
/// constructor as the `InstantiationException` it threw (with the same message and cause),
/// and the constructor's own unchecked exceptions unwrapped.
const HELPER_LINES: [&str; 16] = [
    "private static <T> T newInstanceOf(Class<T> type) throws InstantiationException, IllegalAccessException {",
    "    try {",
    "        return type.getDeclaredConstructor().newInstance();",
    "    } catch (NoSuchMethodException e) {",
    "        throw (InstantiationException) new InstantiationException(type.getName()).initCause(e);",
    "    } catch (InvocationTargetException e) {",
    "        Throwable cause = e.getCause();",
    "        if (cause instanceof RuntimeException) {",
    "            throw (RuntimeException) cause;",
    "        }",
    "        if (cause instanceof Error) {",
    "            throw (Error) cause;",
    "        }",
    "        throw new UndeclaredThrowableException(cause);",
    "    }",
    "}",
];

/// `c.newInstance()` -> `newInstanceOf(c)`, the helper added once, to the top-level type of
/// the first such call (a call in another top-level type of the file could not name it).
fn through_helper(
    call: Node,
    object: Node,
    src: &str,
    helper: &mut Helper,
    edits: &mut Vec<Edit>,
    result: &mut FileResult,
) {
    if !helper.reaches(call, src) {
        return;
    }
    edits.push(Edit::replace(
        call.byte_range(),
        format!("{HELPER}({})", text(object, src)),
    ));
    result.changes.push(format!(
        "line {}: Class.newInstance() -> {HELPER}(..), a helper with its exceptions",
        call.start_position().row + 1
    ));
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

const BROAD: [&str; 3] = ["Exception", "ReflectiveOperationException", "Throwable"];

/// Whether `types` (one try's handlers) take `InstantiationException` and
/// `IllegalAccessException` but neither a supertype nor the new exceptions.
fn exactly_the_old_exceptions(types: &[&str]) -> bool {
    types.contains(&"InstantiationException")
        && types.contains(&"IllegalAccessException")
        && !types.iter().any(|t| {
            BROAD.contains(t) || matches!(*t, "NoSuchMethodException" | "InvocationTargetException")
        })
}

/// The types a method's `throws` clause declares, without `java.lang.`.
fn thrown<'t>(method: Node, src: &'t str) -> Vec<&'t str> {
    let mut c = method.walk();
    method
        .children(&mut c)
        .find(|x| x.kind() == "throws")
        .map(|t| {
            text(t, src)
                .trim_start_matches("throws")
                .split(',')
                .map(|t| t.trim().trim_start_matches("java.lang."))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a checked exception thrown at `n` reaches, before any lambda or class body, a
/// `catch` or a method's or constructor's `throws` naming one of `types`.
pub(super) fn handled_by(n: Node, src: &str, types: &[&str]) -> bool {
    let mut child = n;
    while let Some(p) = child.parent() {
        match p.kind() {
            "lambda_expression" | "class_body" => return false,
            "method_declaration" | "constructor_declaration" => {
                return thrown(p, src).iter().any(|t| types.contains(t));
            }
            "try_statement" | "try_with_resources_statement"
                if p.child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id())
                    && catches(p, src)
                        .iter()
                        .any(|c| c.types.iter().any(|t| types.contains(t))) =>
            {
                return true;
            }
            _ => {}
        }
        child = p;
    }
    false
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

/// The edits that make the try's handlers take the new exceptions, when they take exactly
/// the old ones (a broader handler needs none; anything else is not ours to guess): a
/// missing constructor goes to the `IllegalAccessException` handler, and a catch put ahead
/// of them gives the constructor's own exceptions back as `Class.newInstance()` threw them,
/// so they reach no handler they did not reach before.
fn handler_edit(try_node: Node, src: &str) -> Option<Vec<Edit>> {
    let clauses = catches(try_node, src);
    let all: Vec<&str> = clauses
        .iter()
        .flat_map(|c| c.types.iter().copied())
        .collect();
    if !exactly_the_old_exceptions(&all) {
        return None;
    }
    let access = clauses
        .iter()
        .find(|c| c.types.contains(&"IllegalAccessException"))?;
    let unwrap = unwrapping_catch(try_node, clauses.first()?, src);
    if access.types.contains(&"InstantiationException") {
        // One multi-catch: extend its type list.
        return Some(vec![
            unwrap,
            Edit::insert(access.type_list.end_byte(), " | NoSuchMethodException"),
        ]);
    }
    let body = access.clause.child_by_field_name("body")?;
    let last = clauses.last()?.clause;
    Some(vec![
        unwrap,
        Edit::insert(
            last.end_byte(),
            format!(
                " catch (NoSuchMethodException {}) {}",
                access.parameter,
                text(body, src)
            ),
        ),
    ])
}

/// `catch (InvocationTargetException e) {..} ` to go before `first`: the constructor's
/// unchecked exceptions rethrown as they are, a checked one (which `Class.newInstance()`
/// threw undeclared) in an `UndeclaredThrowableException`, as the helper does. It takes
/// `first`'s parameter name, which no variable in scope there can clash with.
fn unwrapping_catch(try_node: Node, first: &Catch, src: &str) -> Edit {
    let indent = edit::indent_at(src, first.clause.start_byte());
    // The file's own indentation step: the try's first statement's, past the try's.
    let step = try_node
        .child_by_field_name("body")
        .and_then(|b| b.named_child(0))
        .and_then(|s| edit::indent_at(src, s.start_byte()).strip_prefix(indent))
        .filter(|step| !step.is_empty())
        .unwrap_or("    ");
    let inner = format!("{indent}{step}");
    let eol = edit::line_ending(src);
    let e = first.parameter;
    let lines = [
        format!("catch (InvocationTargetException {e}) {{"),
        format!("{inner}if ({e}.getCause() instanceof RuntimeException) {{"),
        format!("{inner}{step}throw (RuntimeException) {e}.getCause();"),
        format!("{inner}}}"),
        format!("{inner}if ({e}.getCause() instanceof Error) {{"),
        format!("{inner}{step}throw (Error) {e}.getCause();"),
        format!("{inner}}}"),
        format!("{inner}throw new UndeclaredThrowableException({e}.getCause());"),
        format!("{indent}}} "),
    ];
    Edit::insert(first.clause.start_byte(), lines.join(eol))
}
