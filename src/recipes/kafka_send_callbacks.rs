//! Spring Kafka 3's `KafkaTemplate.send` returns a `CompletableFuture`, which has no
//! `addCallback`: the code half of recipe `spring-boot-3-libraries`. A callback object on
//! the send's result becomes the `whenComplete` form Spring Kafka's reference guide shows:
//!
//! ```text
//! future.addCallback(new ListenableFutureCallback<..>() {      future.whenComplete((result, ex) -> {
//!     public void onSuccess(SendResult<..> result) { S }  ->       if (ex == null) { S }
//!     public void onFailure(Throwable ex) { F }                    else { F }
//! });                                                          });
//! ```
//!
//! `addCallback(success, failure)` with two one-parameter lambdas takes the same form. The
//! result is the send call itself or a local variable it initialised (the rules retype
//! that variable). A callback object whose bodies use `this`, or that declares anything
//! besides the two methods, lambdas sharing a parameter name and method references stay
//! for the detector.

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope, visit_calls};
use crate::edit::{Edit, indent_at, line_ending};
use crate::java_syntax::{self, field_text, text};

const KAFKA_TEMPLATE: &str = "org.springframework.kafka.core.KafkaTemplate";
const CALLBACK: &str = "org.springframework.util.concurrent.ListenableFutureCallback";

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    visit_calls(src, project, "addCallback", |n, scope| {
        if let Some(edit) = when_complete(n, src, scope) {
            edits.push(edit);
        }
    });
    if edits.is_empty() {
        return result;
    }
    result.changes.push(format!(
        "{} KafkaTemplate.send callback(s) -> whenComplete",
        edits.len()
    ));
    apply_code_edits(
        src,
        &edits,
        &Default::default(),
        "Kafka send callbacks",
        &mut result,
    );
    if let Some(out) = result.text.take() {
        result.text = Some(drop_unused_callback_import(&out));
    }
    result
}

/// `import ...ListenableFutureCallback;` goes once nothing names the type.
fn drop_unused_callback_import(src: &str) -> String {
    let line = format!("import {CALLBACK};");
    let still_used = src.matches("ListenableFutureCallback").count() > 1;
    match src.find(&line) {
        Some(at) if !still_used => {
            let end = src[at..].find('\n').map_or(src.len(), |i| at + i + 1);
            format!("{}{}", &src[..at], &src[end..])
        }
        _ => src.to_string(),
    }
}

fn when_complete(call: Node, src: &str, scope: &Scope) -> Option<Edit> {
    let object = call.child_by_field_name("object")?;
    if !is_send_result(object, src, scope) {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let (result, ex, on_success, on_failure) = match java_syntax::named_children(args)[..] {
        [creation] => callback_object(creation, src, scope)?,
        [success, failure] => (
            lambda_param(success, src)?,
            lambda_param(failure, src)?,
            lambda_statements(success, src)?,
            lambda_statements(failure, src)?,
        ),
        _ => return None,
    };
    if result == ex {
        return None;
    }
    let eol = line_ending(src);
    let indent = indent_at(src, call.start_byte());
    // Each body re-indented two levels below the call, its own nesting kept.
    let body = |b: Body| -> String {
        match b {
            Body::Expression(e) => format!("{indent}        {e};{eol}"),
            Body::Block(lines) => {
                let lines: Vec<&str> = lines.into_iter().filter(|l| !l.trim().is_empty()).collect();
                let common = lines
                    .iter()
                    .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
                    .min()
                    .unwrap_or(0);
                lines
                    .iter()
                    .map(|l| format!("{indent}        {}{eol}", l[common..].trim_end()))
                    .collect()
            }
        }
    };
    let (on_success, on_failure) = (body(on_success), body(on_failure));
    let replacement = format!(
        "{object}.whenComplete(({result}, {ex}) -> {{{eol}{indent}    if ({ex} == null) {{{eol}{on_success}{indent}    }} else {{{eol}{on_failure}{indent}    }}{eol}{indent}}})",
        object = text(object, src),
    );
    Some(Edit::replace(call.byte_range(), replacement))
}

/// A callback body: the lines inside a block, or one expression to run as a statement.
enum Body<'s> {
    Block(Vec<&'s str>),
    Expression(&'s str),
}

/// `new ListenableFutureCallback<..>() { onSuccess(r) {..} onFailure(ex) {..} }`: the
/// parameter names and bodies, when the class declares nothing else and uses no `this`.
fn callback_object<'s>(
    creation: Node,
    src: &'s str,
    scope: &Scope,
) -> Option<(String, String, Body<'s>, Body<'s>)> {
    if creation.kind() != "object_creation_expression"
        || !scope.denotes(creation.child_by_field_name("type")?, CALLBACK)
    {
        return None;
    }
    let body = java_syntax::named_children(creation)
        .into_iter()
        .find(|c| c.kind() == "class_body")?;
    let members = java_syntax::named_children(body);
    if members.len() != 2 || text(body, src).contains("this") {
        return None;
    }
    let method = |name: &str| {
        members
            .iter()
            .find(|m| m.kind() == "method_declaration" && field_text(**m, "name", src) == name)
            .copied()
    };
    let (success, failure) = (method("onSuccess")?, method("onFailure")?);
    let param = |m: Node| -> Option<String> {
        let params = java_syntax::named_children(m.child_by_field_name("parameters")?);
        match params.as_slice() {
            [p] => Some(field_text(*p, "name", src).to_string()),
            _ => None,
        }
    };
    let statements =
        |m: Node| -> Option<Body<'s>> { block_lines(m.child_by_field_name("body")?, src) };
    Some((
        param(success)?,
        param(failure)?,
        statements(success)?,
        statements(failure)?,
    ))
}

fn block_lines<'s>(b: Node, src: &'s str) -> Option<Body<'s>> {
    (b.kind() == "block")
        .then(|| Body::Block(src[b.start_byte() + 1..b.end_byte() - 1].lines().collect()))
}

/// The one parameter of `r -> ..` or `(r) -> ..` (a `this` inside a lambda means what it
/// meant outside, so the body moves as it is).
fn lambda_param(lambda: Node, src: &str) -> Option<String> {
    if lambda.kind() != "lambda_expression" {
        return None;
    }
    let p = lambda.child_by_field_name("parameters")?;
    match p.kind() {
        "identifier" => Some(text(p, src).to_string()),
        "inferred_parameters" | "formal_parameters" => match java_syntax::named_children(p)[..] {
            [one] if one.kind() == "identifier" => Some(text(one, src).to_string()),
            [one] if one.kind() == "formal_parameter" => {
                Some(field_text(one, "name", src).to_string())
            }
            _ => None,
        },
        _ => None,
    }
}

/// A lambda's block, or its expression where Java accepts it as a statement.
fn lambda_statements<'s>(lambda: Node, src: &'s str) -> Option<Body<'s>> {
    let body = lambda.child_by_field_name("body")?;
    match body.kind() {
        "block" => block_lines(body, src),
        "method_invocation"
        | "assignment_expression"
        | "update_expression"
        | "object_creation_expression" => Some(Body::Expression(text(body, src))),
        _ => None,
    }
}

/// `template.send(..)` on a `KafkaTemplate`, or a local variable such a call initialised.
fn is_send_result(object: Node, src: &str, scope: &Scope) -> bool {
    let is_send = |n: Node| {
        n.kind() == "method_invocation"
            && field_text(n, "name", src) == "send"
            && n.child_by_field_name("object")
                .is_some_and(|o| scope.denotes(o, KAFKA_TEMPLATE))
    };
    if is_send(object) {
        return true;
    }
    if object.kind() != "identifier" {
        return false;
    }
    let name = text(object, src);
    let mut cur = object;
    while let Some(p) = cur.parent() {
        if p.kind() == "block" {
            for decl in java_syntax::named_children(p)
                .into_iter()
                .filter(|d| d.kind() == "local_variable_declaration")
            {
                let mut c = decl.walk();
                for d in decl.children_by_field_name("declarator", &mut c) {
                    if field_text(d, "name", src) == name {
                        return d.child_by_field_name("value").is_some_and(is_send);
                    }
                }
            }
        }
        cur = p;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callback_using_this_is_left() {
        let src = "import org.springframework.kafka.core.KafkaTemplate;\nimport org.springframework.util.concurrent.ListenableFutureCallback;\nclass A {\n  KafkaTemplate<String, String> t;\n  void s() {\n    t.send(\"x\", \"y\").addCallback(new ListenableFutureCallback<Object>() {\n      public void onSuccess(Object r) { this.hashCode(); }\n      public void onFailure(Throwable e) { }\n    });\n  }\n}\n";
        assert!(rewrite(src, &Project::default()).text.is_none());
    }

    #[test]
    fn hostile_input_is_left_alone() {
        for src in [
            "addCallback(",
            "class A { void m() { x.addCallback(new ListenableFutureCallback<>() {}); } }",
        ] {
            assert!(rewrite(src, &Project::default()).text.is_none());
        }
    }
}
