//! `HttpComponentsClientHttpRequestFactory.setReadTimeout(ms)` (deprecated in Spring
//! Framework 6.0, removed in 6.1), part of the code half of recipe `spring-framework-6`.
//!
//! Framework 5.3 wrote the read timeout into each request's `RequestConfig` (HttpClient 4's
//! socket timeout); HttpClient 5 calls it the response timeout, and Framework 6 keeps the
//! client's own `RequestConfig` under the factory's connect timeouts. So a factory created
//! with `new HttpComponentsClientHttpRequestFactory()` in a local variable and given its
//! read timeout once is created over the client that constructor built
//! (`HttpClients.createSystem()`, i.e. a builder with `useSystemProperties()`), with the
//! timeout as that client's default response timeout, and the call goes (when only calls on
//! the factory stand between the two, so the timeout's value is the same). A factory created
//! over the caller's own client, a field, or a timeout set twice stays for the
//! `http-components-read-timeout` detector.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope};
use crate::edit::{Edit, deletion_span, indent_at, line_ending};
use crate::java_syntax::{self, field_text, text};

const FACTORY: &str = "HttpComponentsClientHttpRequestFactory";
const FACTORY_IMPORT: &str =
    "org.springframework.http.client.HttpComponentsClientHttpRequestFactory";
/// The HttpClient 5 types the new constructor argument names.
const NEEDED: [&str; 3] = [
    "org.apache.hc.client5.http.impl.classic.HttpClientBuilder",
    "org.apache.hc.client5.http.config.RequestConfig",
    "org.apache.hc.core5.util.Timeout",
];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, "setReadTimeout") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let imported = java_syntax::imports(root, src)
        .iter()
        .any(|i| !i.is_static && !i.wildcard && i.path == FACTORY_IMPORT);
    // A type of one of the new simple names (HttpClient 4's RequestConfig, a project's
    // Timeout) would clash with the imports the rewrite needs.
    let scope = Scope::new(root, src).in_project(project);
    if !imported || NEEDED.iter().any(|n| scope.import_would_clash(n)) {
        return result;
    }
    let mut edits = Vec::new();
    java_syntax::walk(root, |decl| {
        let Some((creation, setter, timeout)) = local_factory(decl, src) else {
            return;
        };
        let eol = line_ending(src);
        let indent = format!("{}        ", indent_at(src, decl.start_byte()));
        let Some(arguments) = creation.child_by_field_name("arguments") else {
            return;
        };
        edits.push(Edit::replace(
            arguments.byte_range(),
            format!(
                "(HttpClientBuilder.create(){eol}{indent}.useSystemProperties(){eol}{indent}.setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofMilliseconds({timeout})).build()){eol}{indent}.build())"
            ),
        ));
        edits.push(Edit::replace(deletion_span(src, setter.byte_range()), ""));
        result.changes.push(format!(
            "{FACTORY}.setReadTimeout({timeout}) -> the HttpClient 5 client's response timeout"
        ));
    });
    if edits.is_empty() {
        return result;
    }
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(NEEDED),
        "setReadTimeout",
        &mut result,
    );
    result
}

/// For `HttpComponentsClientHttpRequestFactory f = new HttpComponentsClientHttpRequestFactory();`
/// in a block where `f` is only used as a receiver (or passed on) and given one
/// `f.setReadTimeout(t);` statement: the creation, that statement and `t`.
fn local_factory<'t>(decl: Node<'t>, src: &'t str) -> Option<(Node<'t>, Node<'t>, &'t str)> {
    if decl.kind() != "local_variable_declaration" || field_text(decl, "type", src) != FACTORY {
        return None;
    }
    let (d, creation) = java_syntax::sole_plain_new(decl, FACTORY, src)?;
    let name = field_text(d, "name", src);
    let scope = decl.parent()?;
    let mut setters = Vec::new();
    let mut reassigned = false;
    java_syntax::walk(scope, |n| {
        if n.kind() != "identifier" || text(n, src) != name {
            return;
        }
        let Some(parent) = n.parent() else { return };
        let is_receiver = parent.kind() == "method_invocation"
            && parent
                .child_by_field_name("object")
                .is_some_and(|o| o.id() == n.id());
        if is_receiver && field_text(parent, "name", src) == "setReadTimeout" {
            setters.push(parent);
        }
        reassigned |= parent.kind() == "assignment_expression"
            && parent
                .child_by_field_name("left")
                .is_some_and(|l| l.id() == n.id());
    });
    let [call] = setters.as_slice() else {
        return None;
    };
    let statement = call
        .parent()
        .filter(|s| s.kind() == "expression_statement")?;
    let arguments = call.child_by_field_name("arguments")?;
    let timeout = (arguments.named_child_count() == 1)
        .then(|| arguments.named_child(0))
        .flatten()?;
    // The timeout is evaluated at the creation now: only calls on the factory may stand
    // between the two, so no statement it could depend on moves after it.
    let mut c = scope.walk();
    let between_only_calls_on_factory = scope
        .named_children(&mut c)
        .skip_while(|s| s.id() != decl.id())
        .skip(1)
        .take_while(|s| s.id() != statement.id())
        .all(|s| {
            s.kind() == "expression_statement"
                && s.named_child(0).is_some_and(|e| {
                    e.kind() == "method_invocation" && field_text(e, "object", src) == name
                })
        });
    let sibling = statement.parent().is_some_and(|p| p.id() == scope.id());
    (!reassigned && sibling && between_only_calls_on_factory).then_some((
        creation,
        statement,
        text(timeout, src),
    ))
}
