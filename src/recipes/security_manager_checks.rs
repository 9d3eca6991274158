//! Code that runs only under an installed Security Manager, in a project that installs none:
//!
//! ```java
//! SecurityManager sm = System.getSecurityManager();
//! if (sm != null) {
//!     sm.checkPermission(SHUTDOWN);
//! }
//! ```
//!
//! With no Security Manager the guard's condition is false (`sm != null`, alone or first in
//! an `&&`), so its body never ran: the `if` goes (one without `else`), with the local once
//! nothing else reads it, and `if (System.getSecurityManager() != null) ..` alike. A `private
//! static final` permission that only those checks named goes too. The Security Manager is
//! deprecated for removal (Java 17, JEP 411), off by default from 18 and cannot be enabled
//! from 24; where no file of the project calls `setSecurityManager`, the only one these
//! checks still saw is one given on the JVM's command line, which each listed change names
//! for the reviewer. Other uses stay with the `security-manager` finding.

use std::ops::Range;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits_dropping;
use super::java_types::{Project, local_initialized_by, mentions, mentions_within, visit_calls};
use crate::edit::{Edit, deletion_span};
use crate::java_syntax::{self, ancestors, field_text, has_modifier, named_children, text};

const SYSTEM: &str = "java.lang.System";
/// Imports that only the dropped checks may have used.
const DROPPED: &[&str] = &[
    "java.security.Permission",
    "java.security.AllPermission",
    "java.security.SecurityPermission",
    "java.security.AccessControlException",
    "java.io.FilePermission",
    "java.net.NetPermission",
    "java.net.SocketPermission",
    "java.util.PropertyPermission",
    "java.util.logging.LoggingPermission",
    "java.lang.reflect.ReflectPermission",
];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    if !src.contains("getSecurityManager") || project.may_name("setSecurityManager") {
        return result;
    }
    let mut dropped: Vec<Range<usize>> = Vec::new();
    visit_calls(src, project, "getSecurityManager", |call, scope| {
        if call
            .child_by_field_name("object")
            .is_some_and(|o| scope.denotes(o, SYSTEM))
        {
            dropped.extend(dead_statements(call, src).iter().map(Node::byte_range));
        }
    });
    // A guard inside another dropped one goes with it.
    let outer: Vec<Range<usize>> = dropped
        .iter()
        .filter(|r| {
            !dropped
                .iter()
                .any(|o| o != *r && o.start <= r.start && r.end <= o.end)
        })
        .cloned()
        .collect();
    if outer.is_empty() {
        return result;
    }
    for r in &outer {
        let line = src[..r.start].matches('\n').count() + 1;
        result.changes.push(format!(
            "line {line}: a check that runs only under a Security Manager dropped (no file of the project installs one; it still ran under one given with -Djava.security.manager on Java 17-23)"
        ));
    }
    let mut spans: Vec<Range<usize>> = outer
        .iter()
        .chain(&unused_permissions(src, &outer))
        .map(|r| deletion_span(src, r.clone()))
        .collect();
    // Neighbouring members may share the blank line between them.
    spans.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::new();
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    let edits: Vec<Edit> = merged
        .into_iter()
        .map(|span| Edit::replace(top_of_block_span(src, span), ""))
        .collect();
    apply_code_edits_dropping(src, &edits, DROPPED, "security-manager-checks", &mut result);
    result
}

/// A deletion of whole lines that opens its block takes the blank line after it too, so no
/// gap is left at the top of the class.
fn top_of_block_span(src: &str, span: Range<usize>) -> Range<usize> {
    let opens = src[..span.start].trim_end().ends_with('{');
    let blank = src[span.end..].trim_start_matches([' ', '\t', '\r']);
    if opens && src[..span.start].ends_with('\n') && blank.starts_with('\n') {
        span.start..src.len() - blank.len() + 1
    } else {
        span
    }
}

/// The statements that run only under a Security Manager, given a
/// `System.getSecurityManager()` call: the `if` it guards, or the local it initializes with
/// every `if` guarded by that local, when nothing else names the local.
fn dead_statements<'t>(call: Node<'t>, src: &str) -> Vec<Node<'t>> {
    if let Some(guard) = guarded_if(call, src) {
        return vec![guard];
    }
    let local = || -> Option<Vec<Node<'t>>> {
        let (declarator, declaration) = local_initialized_by(call)?;
        let block = declaration.parent().filter(|b| b.kind() == "block")?;
        let name = declarator.child_by_field_name("name")?;
        let declarators = named_children(declaration)
            .into_iter()
            .filter(|n| n.kind() == "variable_declarator")
            .count();
        let mut statements = vec![declaration];
        for mention in mentions_within(block, name, src) {
            // In a guard on this local (its condition or its body), or the local is kept.
            let guard = ancestors(mention)
                .take_while(|a| a.id() != block.id())
                .filter(|a| a.kind() == "if_statement")
                .find(|g| {
                    statements.iter().any(|s| s.id() == g.id())
                        || in_statement_list(*g)
                            && guard_condition(*g, src)
                                .is_some_and(|c| text(c, src) == text(name, src))
                })?;
            if !statements.iter().any(|s| s.id() == guard.id()) {
                statements.push(guard);
            }
        }
        (declarators == 1 && statements.len() > 1).then_some(statements)
    };
    local().unwrap_or_default()
}

/// The `if` (without `else`) whose condition is `expr != null`, alone or first in an `&&`,
/// and which stands in a list of statements (so nothing is left without a body).
fn guarded_if<'t>(expr: Node<'t>, src: &str) -> Option<Node<'t>> {
    let guard = ancestors(expr).find(|a| a.kind() == "if_statement")?;
    (guard_condition(guard, src).is_some_and(|c| c.id() == expr.id()) && in_statement_list(guard))
        .then_some(guard)
}

fn in_statement_list(statement: Node) -> bool {
    statement.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "block" | "constructor_body" | "switch_block_statement_group"
        )
    })
}

/// For an `if` without `else` whose condition is `X != null` (or `null != X`), alone or the
/// first operand of `&&`: X. With X null the body never runs.
fn guard_condition<'t>(guard: Node<'t>, src: &str) -> Option<Node<'t>> {
    if guard.child_by_field_name("alternative").is_some() {
        return None;
    }
    // Through parentheses and down the left operands of `&&`, to the test first evaluated.
    let mut condition = guard.child_by_field_name("condition")?;
    loop {
        condition = match condition.kind() {
            "parenthesized_expression" => condition.named_child(0)?,
            "binary_expression" if field_text(condition, "operator", src) == "&&" => {
                condition.child_by_field_name("left")?
            }
            _ => break,
        };
    }
    if condition.kind() != "binary_expression" || field_text(condition, "operator", src) != "!=" {
        return None;
    }
    let left = condition.child_by_field_name("left")?;
    let right = condition.child_by_field_name("right")?;
    match (left.kind(), right.kind()) {
        (_, "null_literal") => Some(left),
        ("null_literal", _) => Some(right),
        _ => None,
    }
}

/// The `private static final` permissions (`new RuntimePermission("..")`) that only the
/// dropped statements named.
fn unused_permissions(src: &str, dropped: &[Range<usize>]) -> Vec<Range<usize>> {
    let Some(parsed) = java_syntax::parse(src) else {
        return Vec::new();
    };
    let root = parsed.tree.root_node();
    let mut unused = Vec::new();
    java_syntax::walk(root, |field| {
        if field.kind() != "field_declaration"
            || !["private", "static", "final"]
                .iter()
                .all(|m| has_modifier(field, m))
        {
            return;
        }
        let [declarator] = named_children(field)
            .into_iter()
            .filter(|n| n.kind() == "variable_declarator")
            .collect::<Vec<_>>()[..]
        else {
            return;
        };
        let permission = declarator.child_by_field_name("value").is_some_and(|v| {
            v.kind() == "object_creation_expression"
                && field_text(v, "type", src).ends_with("Permission")
                && !named_children(v).iter().any(|n| n.kind() == "class_body")
        });
        let Some(name) = declarator.child_by_field_name("name") else {
            return;
        };
        let uses = mentions(root, name, src);
        if permission
            && !uses.is_empty()
            && uses.iter().all(|u| {
                dropped
                    .iter()
                    .any(|d| d.start <= u.start_byte() && u.end_byte() <= d.end)
            })
        {
            unused.push(field.byte_range());
        }
    });
    unused
}
