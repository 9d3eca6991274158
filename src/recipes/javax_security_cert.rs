//! `javax.security.cert` (deprecated in 9, for removal since 17; the JSSE's pre-1.4 copy of
//! `java.security.cert`) moved to `java.security.cert`, a file at a time. Its types have
//! namesakes there with the same methods and exceptions, so the imports change, and the two
//! calls that produced the old types produce the new ones:
//!
//! * `session.getPeerCertificateChain()` (an `SSLSession` or `HandshakeCompletedEvent`)
//!   becomes `Arrays.stream(session.getPeerCertificates()).map(X509Certificate.class::cast)
//!   .toArray(X509Certificate[]::new)`: the same chain, peer first, and the same
//!   `SSLPeerUnverifiedException` (the old call also threw `UnsupportedOperationException`
//!   on TLS 1.3);
//! * `X509Certificate.getInstance(bytes or stream)` becomes
//!   `(X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(stream)`,
//!   which throws the `CertificateException` the handlers now name.
//!
//! Types written with the package move the same way. Only where the move cannot reach
//! another file: every mention of a moved type is inside a method body or a private member's
//! declaration, a value of one is never passed to a method that may declare the old type,
//! and the file neither imports the package on demand, nor names it in an expression, nor
//! calls `getVersion()` (0-based in the old API, 1-based in the new). Otherwise
//! the import stays a task (`removed-jdk-apis/javax-security-cert`).
//!
//! The code half of `removed-jdk-apis`; its rules then rewrite what the new types deprecate
//! (`getSubjectDN().getName()`, ...).

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope};
use crate::edit::Edit;
use crate::java_syntax::{self, field_text, text};

const OLD: &str = "javax.security.cert.";
const NEW: &str = "java.security.cert.";

/// The package's types; each has a namesake in java.security.cert.
const MOVABLE: &[&str] = &[
    "X509Certificate",
    "Certificate",
    "CertificateException",
    "CertificateEncodingException",
    "CertificateExpiredException",
    "CertificateNotYetValidException",
    "CertificateParsingException",
];

/// Calls whose parameter takes any object: a certificate passed there reaches no
/// declaration of the old type.
const OBJECT_SINKS: &[&str] = &[
    "append", "print", "println", "valueOf", "format", "printf", "add", "put", "equals",
    "contains", "trace", "debug", "info", "warn", "error", "log",
];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, OLD) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src).in_project(project);
    let imports = java_syntax::imports(root, src);
    let moved: Vec<_> = imports
        .iter()
        .filter(|i| i.path.starts_with(OLD) || i.path == OLD.trim_end_matches('.'))
        .collect();
    let simple = |path: &str| path.rsplit('.').next().unwrap_or(path).to_string();
    let imported: BTreeSet<String> = moved.iter().map(|i| simple(&i.path)).collect();
    // Types written with the package (`javax.security.cert.X509Certificate[] chain`).
    let mut qualified = Vec::new();
    java_syntax::walk(root, |n| {
        let written = text(n, src);
        if n.kind() == "scoped_type_identifier"
            && written
                .strip_prefix(OLD)
                .is_some_and(|name| MOVABLE.contains(&name))
        {
            qualified.push(n);
        }
    });
    let names: BTreeSet<String> = imported
        .iter()
        .cloned()
        .chain(qualified.iter().map(|n| simple(text(*n, src))))
        .collect();
    let movable = !names.is_empty()
        && moved
            .iter()
            .all(|i| !i.is_static && !i.wildcard && MOVABLE.contains(&simple(&i.path).as_str()))
        && src.matches(OLD).count() == moved.len() + qualified.len()
        && !src.contains("getVersion(")
        && stays_in_file(root, src, &imported, &qualified);
    if !movable {
        return result;
    }
    let mut edits: Vec<Edit> = moved
        .iter()
        .map(|i| Edit::replace(i.name_range.clone(), i.path.replacen(OLD, NEW, 1)))
        .chain(
            qualified
                .iter()
                .map(|n| Edit::replace(n.byte_range(), text(*n, src).replacen(OLD, NEW, 1))),
        )
        .collect();
    let mut needed = BTreeSet::new();
    let x509 = if imported.contains("X509Certificate") {
        "X509Certificate"
    } else {
        "java.security.cert.X509Certificate"
    };
    let mut refused = false;
    java_syntax::walk(root, |n| {
        if n.kind() != "method_invocation" {
            return;
        }
        let object = n.child_by_field_name("object");
        let args = n.child_by_field_name("arguments");
        let arg_count = args.map_or(0, |a| a.named_child_count());
        match field_text(n, "name", src) {
            "getPeerCertificateChain" if arg_count == 0 => {
                // A chain of the old type left in place would no longer fit the moved
                // declarations: an unresolved receiver stops the whole move.
                let Some(object) = object.filter(|o| {
                    scope.denotes(*o, "javax.net.ssl.SSLSession")
                        || scope.denotes(*o, "javax.net.ssl.HandshakeCompletedEvent")
                }) else {
                    refused = true;
                    return;
                };
                needed.insert("java.util.Arrays");
                edits.push(Edit::replace(
                    n.byte_range(),
                    format!(
                        "Arrays.stream({}.getPeerCertificates()).map({x509}.class::cast).toArray({x509}[]::new)",
                        text(object, src)
                    ),
                ));
            }
            "getInstance"
                if arg_count == 1
                    && object.is_some_and(|o| text(o, src) == "X509Certificate")
                    && imported.contains("X509Certificate") =>
            {
                let Some(arg) = args.and_then(|a| a.named_child(0)) else {
                    return;
                };
                let declared = java_syntax::declared_type(arg, src).unwrap_or_default();
                let stream = if declared.ends_with("InputStream") {
                    text(arg, src).to_string()
                } else if declared == "byte[]" {
                    needed.insert("java.io.ByteArrayInputStream");
                    format!("new ByteArrayInputStream({})", text(arg, src))
                } else {
                    refused = true;
                    return;
                };
                needed.insert("java.security.cert.CertificateFactory");
                let created = format!(
                    "(X509Certificate) CertificateFactory.getInstance(\"X.509\").generateCertificate({stream})"
                );
                let receiver = n.parent().is_some_and(|p| {
                    matches!(p.kind(), "method_invocation" | "field_access")
                        && p.child_by_field_name("object")
                            .is_some_and(|o| o.id() == n.id())
                });
                edits.push(Edit::replace(
                    n.byte_range(),
                    if receiver {
                        format!("({created})")
                    } else {
                        created
                    },
                ));
            }
            _ => {}
        }
    });
    if refused {
        return result;
    }
    let first = moved
        .first()
        .map_or_else(|| qualified[0].start_byte(), |i| i.range.start);
    let line = src[..first].matches('\n').count() + 1;
    result.changes.push(format!(
        "line {line}: javax.security.cert -> java.security.cert ({})",
        names.iter().cloned().collect::<Vec<_>>().join(", ")
    ));
    apply_code_edits(src, &edits, &needed, "javax.security.cert", &mut result);
    result
}

/// Whether no mention of the moved types can be seen by another file: each sits in a method
/// body or a private member's declaration, and no value declared with one is handed to a
/// call that may declare the old type.
fn stays_in_file(root: Node, src: &str, imported: &BTreeSet<String>, qualified: &[Node]) -> bool {
    let mut mentions = qualified.to_vec();
    java_syntax::walk(root, |n| {
        if n.kind() == "type_identifier"
            && imported.contains(text(n, src))
            && n.parent()
                .is_none_or(|p| p.kind() != "scoped_type_identifier")
        {
            mentions.push(n);
        }
    });
    let mut ok = true;
    let mut variables = BTreeSet::new();
    for n in mentions {
        ok &= private_or_local(n, src);
        if let Some(decl) = std::iter::successors(n.parent(), |p| p.parent()).find(|p| {
            matches!(
                p.kind(),
                "local_variable_declaration" | "formal_parameter" | "field_declaration"
            )
        }) {
            let mut c = decl.walk();
            let declarators: Vec<Node> = if decl.kind() == "formal_parameter" {
                vec![decl]
            } else {
                decl.children_by_field_name("declarator", &mut c).collect()
            };
            for d in declarators {
                variables.insert(field_text(d, "name", src).to_string());
            }
        }
    }
    java_syntax::walk(root, |n| {
        if n.kind() != "identifier" || !variables.contains(text(n, src)) {
            return;
        }
        let value = match n.parent() {
            Some(p) if p.kind() == "array_access" => p,
            _ => n,
        };
        if let Some(list) = value.parent().filter(|p| p.kind() == "argument_list") {
            let sink = list
                .parent()
                .is_some_and(|call| OBJECT_SINKS.contains(&field_text(call, "name", src)));
            ok &= sink;
        }
    });
    ok
}

/// Whether a type mention is inside a method body (a local, a catch, a cast) or in the
/// declaration of a private method or field.
fn private_or_local(n: Node, src: &str) -> bool {
    for p in std::iter::successors(n.parent(), |p| p.parent()) {
        match p.kind() {
            "block" | "constructor_body" => return true,
            "method_declaration" | "constructor_declaration" | "field_declaration" => {
                return java_syntax::modifiers_of(p)
                    .is_some_and(|m| text(m, src).split_whitespace().any(|w| w == "private"));
            }
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "program" => return false,
            _ => {}
        }
    }
    false
}
