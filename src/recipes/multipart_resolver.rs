//! `CommonsMultipartResolver` (Commons FileUpload, removed in Spring Framework 6) ->
//! `StandardServletMultipartResolver`, the code half of recipe `spring-framework-6`.
//!
//! A method is rewritten when the resolver is only created (`new CommonsMultipartResolver()`),
//! given its upload limits (`setMaxUploadSize`, `setMaxUploadSizePerFile`) and returned: the
//! type and constructor are renamed and the limit setters dropped. The servlet container
//! parses the upload from then on, under Boot's `spring.servlet.multipart.*` limits (1MB a
//! file, 10MB a request by default, where Commons FileUpload had none), which live in another
//! file: each rewritten method leaves a finding with the exact keys and values that keep
//! its limits. A resolver used any other way (other setters, passed on, a field) stays for
//! the `commons-multipart-resolver` detector, and so does the whole file when any use of the
//! name is not one of these.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope};
use crate::edit::{Edit, deletion_span, whole_line};
use crate::java_syntax::{self, field_text, text};

const COMMONS: &str = "CommonsMultipartResolver";
const COMMONS_IMPORT: &str = "org.springframework.web.multipart.commons.CommonsMultipartResolver";
const STANDARD: &str = "StandardServletMultipartResolver";
const STANDARD_IMPORT: &str =
    "org.springframework.web.multipart.support.StandardServletMultipartResolver";

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, COMMONS) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, src);
    let Some(import) = imports
        .iter()
        .find(|i| !i.is_static && !i.wildcard && i.path == COMMONS_IMPORT)
    else {
        return result;
    };
    if Scope::new(root, src)
        .in_project(project)
        .import_would_clash(STANDARD_IMPORT)
    {
        return result;
    }
    let mut uses = Vec::new();
    java_syntax::walk(root, |n| {
        if n.kind() == "type_identifier" && text(n, src) == COMMONS {
            uses.push(n);
        }
    });
    let mut edits = vec![Edit::replace(whole_line(src, import.range.clone()), "")];
    let mut covered = 0;
    let mut findings = Vec::new();
    java_syntax::walk(root, |m| {
        if m.kind() != "method_declaration" {
            return;
        }
        let inside = uses
            .iter()
            .filter(|u| m.start_byte() <= u.start_byte() && u.end_byte() <= m.end_byte())
            .count();
        if inside == 0 {
            return;
        }
        if let Some(plan) = method_plan(m, src) {
            covered += inside;
            findings.push(plan.finding(m, src));
            edits.extend(plan.edits);
        }
    });
    if covered == 0 || covered != uses.len() {
        return result;
    }
    result.changes.push(format!("{COMMONS} -> {STANDARD}"));
    result.findings = findings;
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from([STANDARD_IMPORT]),
        "CommonsMultipartResolver",
        &mut result,
    );
    result
}

/// One method's rewrite: its edits and the limits it set (argument text, if any).
struct Plan {
    edits: Vec<Edit>,
    request: Option<String>,
    file: Option<String>,
}

impl Plan {
    fn finding(&self, method: Node, src: &str) -> String {
        let name = method.child_by_field_name("name").unwrap_or(method);
        let line = name.start_position().row + 1;
        let name = text(name, src);
        let key = |limit: &Option<String>| match limit {
            None => "-1".to_string(),
            Some(v) => literal_bytes(v).unwrap_or_else(|| format!("<the bytes of {v}>")),
        };
        format!(
            "spring-framework-6/commons-multipart-resolver-limits line {line}: {name}() now returns a {STANDARD}, so the servlet container parses uploads under Boot's spring.servlet.multipart.* limits (1MB a file, 10MB a request by default; CommonsMultipartResolver's were unlimited unless set); to keep this resolver's limits set spring.servlet.multipart.max-request-size={} and spring.servlet.multipart.max-file-size={} in the application's properties, and keep spring.servlet.multipart.enabled true",
            key(&self.request),
            key(&self.file)
        )
    }
}

/// `10485760`, `10_485_760L`, `-1`, `10 * 1024 * 1024` as a byte count; `None` for any other
/// expression, and for an `int` product that Java would overflow.
fn literal_bytes(arg: &str) -> Option<String> {
    let mut long = false;
    let mut product = 1i64;
    for factor in arg.split('*').map(str::trim) {
        long |= factor.ends_with(['l', 'L']);
        let digits: String = factor
            .trim_end_matches(['l', 'L'])
            .chars()
            .filter(|c| *c != '_')
            .collect();
        product = product.checked_mul(digits.parse().ok()?)?;
        if !long && i32::try_from(product).is_err() {
            return None;
        }
    }
    Some(product.to_string())
}

/// The rewrite of `method` when every use of the resolver in it is one this module knows.
fn method_plan(method: Node, src: &str) -> Option<Plan> {
    let body = method.child_by_field_name("body")?;
    let mut plan = Plan {
        edits: Vec::new(),
        request: None,
        file: None,
    };
    let mut variables: Vec<&str> = Vec::new();
    let mut ok = true;
    // The type's uses: the return type, a local variable's type, `new X()`.
    java_syntax::walk(method, |n| {
        if n.kind() != "type_identifier" || text(n, src) != COMMONS {
            return;
        }
        let parent = n.parent();
        let is_return_type = parent.is_some_and(|p| p.id() == method.id());
        let is_plain_new = parent.is_some_and(|p| {
            p.kind() == "object_creation_expression"
                && field_text(p, "arguments", src) == "()"
                && p.named_child_count() == 2
        });
        let variable = parent
            .filter(|p| p.kind() == "local_variable_declaration")
            .and_then(|decl| java_syntax::sole_plain_new(decl, COMMONS, src))
            .map(|(d, _)| field_text(d, "name", src));
        match variable {
            Some(name) => variables.push(name),
            None => ok &= is_return_type || is_plain_new,
        }
        plan.edits.push(Edit::replace(n.byte_range(), STANDARD));
    });
    // Each variable is only given its limits and returned.
    java_syntax::walk(body, |n| {
        if n.kind() != "identifier" || !variables.contains(&text(n, src)) {
            return;
        }
        let Some(parent) = n.parent() else { return };
        if parent.kind() == "variable_declarator" {
            return;
        }
        if parent.kind() == "return_statement" {
            return;
        }
        let setter = (parent.kind() == "method_invocation"
            && parent
                .child_by_field_name("object")
                .is_some_and(|o| o.id() == n.id()))
        .then(|| field_text(parent, "name", src));
        let statement = parent
            .parent()
            .filter(|s| s.kind() == "expression_statement");
        let argument = parent
            .child_by_field_name("arguments")
            .filter(|a| a.named_child_count() == 1)
            .and_then(|a| a.named_child(0));
        let slot = match setter {
            Some("setMaxUploadSize") => &mut plan.request,
            Some("setMaxUploadSizePerFile") => &mut plan.file,
            _ => {
                ok = false;
                return;
            }
        };
        match (statement, argument) {
            (Some(s), Some(a)) if slot.is_none() => {
                *slot = Some(text(a, src).to_string());
                plan.edits
                    .push(Edit::replace(deletion_span(src, s.byte_range()), ""));
            }
            _ => ok = false,
        }
    });
    ok.then_some(plan)
}

#[cfg(test)]
mod tests {
    use super::literal_bytes;

    #[test]
    fn upload_limits_are_read_as_java_evaluates_them() {
        assert_eq!(literal_bytes("10_485_760L").as_deref(), Some("10485760"));
        assert_eq!(literal_bytes("-1").as_deref(), Some("-1"));
        assert_eq!(
            literal_bytes("10 * 1024 * 1024").as_deref(),
            Some("10485760")
        );
        // An int product past 2^31 overflows in Java: no value is claimed for it.
        assert_eq!(literal_bytes("4 * 1024 * 1024 * 1024"), None);
        assert_eq!(
            literal_bytes("4L * 1024 * 1024 * 1024").as_deref(),
            Some("4294967296")
        );
        assert_eq!(literal_bytes("MAX_UPLOAD"), None);
    }
}
