//! `new BASE64Decoder().decodeBuffer(x)` (sun.misc, removed in 9) as the only statement of a
//! `try` whose one handler is `catch (IOException e)`. `Base64.getMimeDecoder().decode(x)`
//! throws no checked exception, so that handler would no longer compile; it reported
//! malformed input (`CEFormatException` is an `IOException`), which the MIME decoder reports
//! with `IllegalArgumentException`. The handler is narrowed to that exception, keeping the
//! failure handled the same way:
//!
//! ```java
//! try { return new BASE64Decoder().decodeBuffer(s); } catch (IOException e) { return null; }
//! try { return Base64.getMimeDecoder().decode(s); } catch (IllegalArgumentException e) { return null; }
//! ```
//!
//! Only where nothing else in the `try` can throw (its argument is a name, a field or a
//! literal) and the handler uses its exception in ways any exception allows: not at all,
//! `e.getMessage()` and the like, as the cause of a new `RuntimeException`,
//! `IllegalStateException` or `IllegalArgumentException`, or as the last argument of a
//! `log`/`logger` call. Anything else stays a task with its line (the rule's detector).
//!
//! The code half of `base64-from-sun-misc`.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Scope, visit_calls};
use super::reflective_new_instance::{catches, nearest_try};
use crate::edit::{Edit, whole_line};
use crate::java_syntax::{self, field_text, text};

const DECODER: &str = "sun.misc.BASE64Decoder";

pub fn rewrite(src: &str, package_types: &[String]) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    let mut rewritten = 0;
    let imports = visit_calls(src, package_types, "decodeBuffer", |n, scope| {
        let Some(argument) = decode_buffer_argument(n, scope) else {
            return;
        };
        let Some(catch_type) = nearest_try(n).and_then(|t| narrowable_handler(t, src)) else {
            return;
        };
        edits.push(Edit::replace(
            n.byte_range(),
            format!("Base64.getMimeDecoder().decode({})", text(argument, src)),
        ));
        edits.push(Edit::replace(
            catch_type.byte_range(),
            "IllegalArgumentException",
        ));
        rewritten += 1;
        let line = n.start_position().row + 1;
        result.changes.push(format!(
            "line {line}: BASE64Decoder.decodeBuffer -> Base64.getMimeDecoder().decode, catch (IOException) -> catch (IllegalArgumentException)"
        ));
    });
    if edits.is_empty() {
        return result;
    }
    // The import goes with the last use (the rules' import handling sees only their own fixes).
    let uses = src.matches("BASE64Decoder").count();
    let import = imports
        .iter()
        .flatten()
        .find(|i| !i.wildcard && !i.is_static && i.path == DECODER);
    if let Some(i) = import
        && uses == rewritten + 1
    {
        edits.push(Edit::replace(whole_line(src, i.range.clone()), ""));
    }
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(["java.util.Base64"]),
        "BASE64Decoder handlers",
        &mut result,
    );
    result
}

/// The argument `x` of a call `new BASE64Decoder().decodeBuffer(x)` with `x` a name, field
/// or literal.
fn decode_buffer_argument<'t>(n: Node<'t>, scope: &Scope) -> Option<Node<'t>> {
    let object = n.child_by_field_name("object")?;
    if object.kind() != "object_creation_expression"
        || object
            .child_by_field_name("arguments")
            .is_none_or(|a| a.named_child_count() > 0)
        || !scope.denotes(object, DECODER)
    {
        return None;
    }
    let args = n.child_by_field_name("arguments")?;
    if args.named_child_count() != 1 {
        return None;
    }
    let arg = args.named_child(0)?;
    matches!(arg.kind(), "identifier" | "string_literal" | "field_access").then_some(arg)
}

/// The `IOException` catch type to narrow, when the `try` holds nothing but the statement
/// around the call and its one handler is `catch (IOException e)` using `e` safely.
fn narrowable_handler<'t>(try_node: Node<'t>, src: &'t str) -> Option<Node<'t>> {
    if try_node.kind() != "try_statement" {
        return None;
    }
    let body = try_node.child_by_field_name("body")?;
    if body.named_child_count() != 1 {
        return None;
    }
    // Nothing else in the statement may call or construct anything.
    let statement = body.named_child(0)?;
    let mut calls = 0;
    java_syntax::walk(statement, |x| {
        if matches!(
            x.kind(),
            "method_invocation" | "object_creation_expression" | "lambda_expression"
        ) {
            calls += 1;
        }
    });
    if calls != 2 {
        return None;
    }
    let clauses = catches(try_node, src);
    let [only] = clauses.as_slice() else {
        return None;
    };
    if !matches!(
        only.types.as_slice(),
        ["IOException" | "java.io.IOException"]
    ) {
        return None;
    }
    let handler = only.clause.child_by_field_name("body")?;
    let mut safe = true;
    java_syntax::walk(handler, |x| {
        if x.kind() == "identifier" && text(x, src) == only.parameter && !safe_use(x, src) {
            safe = false;
        }
    });
    safe.then_some(only.type_list)
}

/// A use of the caught exception that compiles for any exception type.
fn safe_use(id: Node, src: &str) -> bool {
    let Some(parent) = id.parent() else {
        return false;
    };
    match parent.kind() {
        // e.getMessage(), e.printStackTrace() ...
        "method_invocation"
            if parent
                .child_by_field_name("object")
                .is_some_and(|o| o.id() == id.id()) =>
        {
            matches!(
                field_text(parent, "name", src),
                "getMessage" | "getLocalizedMessage" | "printStackTrace" | "toString" | "getCause"
            )
        }
        "argument_list" => {
            let Some(call) = parent.parent() else {
                return false;
            };
            match call.kind() {
                "object_creation_expression" => matches!(
                    field_text(call, "type", src).trim_start_matches("java.lang."),
                    "RuntimeException" | "IllegalStateException" | "IllegalArgumentException"
                ),
                "method_invocation" => {
                    let last = parent
                        .named_child(parent.named_child_count().saturating_sub(1) as u32)
                        .is_some_and(|l| l.id() == id.id());
                    let logger = call.child_by_field_name("object").is_some_and(|o| {
                        let o = text(o, src).to_ascii_lowercase();
                        o == "log" || o == "logger"
                    });
                    last && logger
                        && matches!(
                            field_text(call, "name", src),
                            "trace"
                                | "debug"
                                | "info"
                                | "warn"
                                | "error"
                                | "fatal"
                                | "log"
                                | "severe"
                                | "warning"
                        )
                }
                _ => false,
            }
        }
        _ => false,
    }
}
