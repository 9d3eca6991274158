//! Security 6's `@Enable*` annotations. `@EnableGlobalMethodSecurity` is replaced by
//! `@EnableMethodSecurity`, whose `prePostEnabled` defaults to true (it defaulted to false):
//! `prePostEnabled = true` goes, its absence becomes `prePostEnabled = false`, and
//! `securedEnabled`, `jsr250Enabled`, `proxyTargetClass` and `mode` carry over. Neither it
//! nor `@EnableWebSecurity` is meta-annotated with `@Configuration` any more, so a class
//! that relied on them gets its own.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::edit::{Edit, indent_at, line_ending, whole_line};
use crate::java_syntax::{self, annotation_name, annotations, modifiers_of, text};

const GLOBAL: &str = "EnableGlobalMethodSecurity";
const METHOD: &str = "EnableMethodSecurity";
const CONFIGURATION: &str = "org.springframework.context.annotation.Configuration";
/// Attributes both annotations have, with the same meaning.
const CARRIED: &[&str] = &[
    "securedEnabled",
    "jsr250Enabled",
    "proxyTargetClass",
    "mode",
];
/// Annotations that made a class configuration through `@Configuration` in Security 5.
const ENABLERS: &[&str] = &[
    "EnableWebSecurity",
    GLOBAL,
    METHOD,
    "EnableWebFluxSecurity",
    "EnableReactiveMethodSecurity",
];
/// Annotations that already make a class configuration.
const CONFIGURATIONS: &[&str] = &[
    "Configuration",
    "SpringBootApplication",
    "SpringBootConfiguration",
    "TestConfiguration",
    "AutoConfiguration",
];

pub(super) struct Found {
    pub edits: Vec<Edit>,
    pub changes: Vec<String>,
    pub findings: Vec<String>,
    pub imports: BTreeSet<&'static str>,
}

pub(super) fn edits(root: Node, src: &str) -> Found {
    let mut found = Found {
        edits: Vec::new(),
        changes: Vec::new(),
        findings: Vec::new(),
        imports: BTreeSet::new(),
    };
    let mut replaced_global = false;
    java_syntax::walk(root, |n| {
        if n.kind() != "class_declaration" {
            return;
        }
        let Some(mods) = modifiers_of(n) else {
            return;
        };
        let list = annotations(mods);
        let simple = |a: Node| {
            let name = annotation_name(a, src);
            name.rsplit('.').next().unwrap_or(name).to_string()
        };
        let enabler = list
            .iter()
            .find(|a| ENABLERS.contains(&simple(**a).as_str()));
        let configured = list
            .iter()
            .any(|a| CONFIGURATIONS.contains(&simple(*a).as_str()));
        // `@Configuration` goes right before the first enabler, in the same edit when that
        // one is rewritten too.
        let prefix = |a: Node| match enabler {
            Some(e) if !configured && e.id() == a.id() => format!(
                "@Configuration{}{}",
                line_ending(src),
                indent_at(src, a.start_byte())
            ),
            _ => String::new(),
        };
        for a in &list {
            let global = simple(*a) == GLOBAL;
            let rewritten = if global {
                match method_security(*a, src) {
                    Ok(new) => {
                        found.changes.push(format!("@{GLOBAL} -> @{METHOD}"));
                        replaced_global = true;
                        Some(new)
                    }
                    Err(why) => {
                        found.findings.push(format!("@{GLOBAL} kept: {why}"));
                        None
                    }
                }
            } else {
                None
            };
            let before = prefix(*a);
            if !before.is_empty() {
                found.imports.insert(CONFIGURATION);
                found.changes.push(format!(
                    "@Configuration added: @{} no longer carries it",
                    simple(*a)
                ));
            }
            match rewritten {
                Some(new) => found
                    .edits
                    .push(Edit::replace(a.byte_range(), format!("{before}{new}"))),
                None if !before.is_empty() => {
                    found.edits.push(Edit::insert(a.start_byte(), before))
                }
                None => {}
            }
        }
    });
    if replaced_global {
        for imp in java_syntax::imports(root, src) {
            if !imp.wildcard && imp.path.ends_with(&format!(".{GLOBAL}")) {
                let new = imp.path.replace(GLOBAL, METHOD);
                found.edits.push(Edit::replace(
                    whole_line(src, imp.range.clone()),
                    format!("import {new};{}", line_ending(src)),
                ));
            }
        }
    }
    found
}

/// The `@EnableMethodSecurity` equivalent of one `@EnableGlobalMethodSecurity`.
fn method_security(a: Node, src: &str) -> Result<String, String> {
    let name = annotation_name(a, src);
    let new_name = name.replace(GLOBAL, METHOD);
    let mut pre_post = false;
    let mut kept = Vec::new();
    if let Some(args) = a.child_by_field_name("arguments") {
        let mut c = args.walk();
        for pair in args.named_children(&mut c) {
            if pair.kind() != "element_value_pair" {
                return Err(format!("unnamed value {}", text(pair, src)));
            }
            let key = pair.child_by_field_name("key").map_or("", |k| text(k, src));
            let value = pair
                .child_by_field_name("value")
                .map_or("", |v| text(v, src));
            match key {
                "prePostEnabled" if matches!(value, "true" | "false") => {
                    pre_post = value == "true";
                }
                k if CARRIED.contains(&k) => kept.push(text(pair, src).to_string()),
                other => return Err(format!("{other} has no @{METHOD} equivalent")),
            }
        }
    }
    if !pre_post {
        kept.push("prePostEnabled = false".into());
    }
    Ok(if kept.is_empty() {
        format!("@{new_name}")
    } else {
        format!("@{new_name}({})", kept.join(", "))
    })
}
