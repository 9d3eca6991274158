//! Recipe `spring-security-filter-chain`: a `WebSecurityConfigurerAdapter` subclass (removed
//! in Spring Security 6) becomes plain configuration with beans, for the common shape:
//!
//! * `configure(HttpSecurity http)` -> `@Bean SecurityFilterChain filterChain(HttpSecurity
//!   http)` ending in `return http.build();`
//! * `configure(WebSecurity web)` -> `@Bean WebSecurityCustomizer webSecurityCustomizer()`
//!   returning `web -> { .. }`
//!
//! Anything else the adapter provided (`AuthenticationManagerBuilder`, `super` calls,
//! `authenticationManagerBean()`) has no mechanical equivalent: the class is left alone and
//! the Spring Security detector hands it to the next tier.

use tree_sitter::Node;

use crate::edit::{self, Edit, indent_at, line_ending, whole_line};
use crate::java_syntax::{self, annotation_name, annotations, field_text, modifiers_of, text};

use super::FileResult;

const ADAPTER: &str = "WebSecurityConfigurerAdapter";

pub fn adapter(src: &str) -> FileResult {
    let mut result = FileResult::default();
    if !src.contains(ADAPTER) {
        return result;
    }
    let Some(parsed) = java_syntax::parse(src).filter(|p| p.syntax_error.is_none()) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let mut edits = Vec::new();
    let mut converted = false;
    let mut classes = Vec::new();
    java_syntax::walk(root, |n| {
        if n.kind() == "class_declaration"
            && n.child_by_field_name("superclass").is_some_and(|s| {
                text(s, src)
                    .trim_start_matches("extends")
                    .trim()
                    .ends_with(ADAPTER)
            })
        {
            classes.push(n);
        }
    });
    for class in classes {
        match convert(class, src) {
            Ok(mut e) => {
                edits.append(&mut e);
                converted = true;
            }
            Err(reason) => result
                .findings
                .push(format!("{} kept: {reason}", field_text(class, "name", src))),
        }
    }
    if !converted {
        return result;
    }
    for imp in java_syntax::imports(root, src) {
        if imp.path.ends_with(&format!(".{ADAPTER}")) {
            edits.push(Edit::replace(whole_line(src, imp.range.clone()), ""));
        }
    }
    let eol = line_ending(src);
    let needed = [
        "org.springframework.context.annotation.Bean",
        "org.springframework.security.web.SecurityFilterChain",
        "org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer",
    ];
    let imports = java_syntax::imports(root, src);
    let text_after: String = needed
        .iter()
        .filter(|n| {
            let simple = n.rsplit('.').next().unwrap_or(n);
            edits.iter().any(|e| e.replacement.contains(simple))
                && !imports.iter().any(|i| i.path == **n)
        })
        .map(|n| format!("{eol}import {n};"))
        .collect();
    if let Some(last) = imports.iter().rev().find(|i| !i.path.ends_with(ADAPTER)) {
        edits.push(Edit::insert(last.range.end, text_after));
    }
    match edit::apply(src, &edits) {
        Ok(out) if java_syntax::parse(&out).is_some_and(|p| p.syntax_error.is_none()) => {
            result.text = Some(out);
            result.changes.push(format!(
                "{ADAPTER} -> SecurityFilterChain / WebSecurityCustomizer beans"
            ));
        }
        _ => result
            .findings
            .push(format!("{ADAPTER} rewrite would not parse; left unchanged")),
    }
    result
}

fn convert(class: Node, src: &str) -> Result<Vec<Edit>, String> {
    let body = class.child_by_field_name("body").ok_or("no body")?;
    let sup = class
        .child_by_field_name("superclass")
        .ok_or("no superclass")?;
    let class_text = text(body, src);
    for forbidden in [
        "super.",
        "authenticationManagerBean",
        "userDetailsServiceBean",
    ] {
        if class_text.contains(forbidden) {
            return Err(format!("uses {forbidden}"));
        }
    }
    let mut edits = vec![Edit::replace(
        src[..sup.start_byte()].trim_end().len()..sup.end_byte(),
        "",
    )];
    let mut c = body.walk();
    for m in body
        .named_children(&mut c)
        .filter(|m| m.kind() == "method_declaration" && field_text(*m, "name", src) == "configure")
    {
        let params = m.child_by_field_name("parameters").ok_or("no parameters")?;
        let mut pc = params.walk();
        let list: Vec<Node> = params.named_children(&mut pc).collect();
        let [param] = list.as_slice() else {
            return Err("configure with several parameters".into());
        };
        let ty = field_text(*param, "type", src);
        let var = field_text(*param, "name", src);
        let method_body = m.child_by_field_name("body").ok_or("no body")?;
        let mods = modifiers_of(m);
        // Header: drop @Override, then `@Bean public <Type> <name>(..)`.
        if let Some(mods) = mods {
            for a in annotations(mods) {
                if annotation_name(a, src) == "Override" {
                    let rest = &src[a.end_byte()..];
                    let ws = rest.len() - rest.trim_start().len();
                    edits.push(Edit::replace(a.start_byte()..a.end_byte() + ws, ""));
                }
            }
        }
        let header_start = mods
            .and_then(|mo| {
                let mut mc = mo.walk();
                mo.children(&mut mc)
                    .find(|x| !matches!(x.kind(), "marker_annotation" | "annotation"))
                    .map(|x| x.start_byte())
            })
            .or_else(|| m.child_by_field_name("type").map(|t| t.start_byte()))
            .ok_or("no method header")?;
        let name_node = m.child_by_field_name("name").ok_or("no name")?;
        let eol = line_ending(src);
        let indent = indent_at(src, m.start_byte());
        let inner = format!("{indent}    ");
        match ty {
            "HttpSecurity" => {
                edits.push(Edit::replace(
                    header_start..name_node.end_byte(),
                    format!("@Bean{eol}{indent}public SecurityFilterChain filterChain"),
                ));
                let close = method_body.end_byte() - 1;
                let before_close = src[..close].trim_end().len();
                edits.push(Edit::replace(
                    before_close..close,
                    format!("{eol}{inner}return {var}.build();{eol}{indent}"),
                ));
            }
            "WebSecurity" => {
                edits.push(Edit::replace(
                    header_start..params.end_byte(),
                    format!(
                        "@Bean{eol}{indent}public WebSecurityCustomizer webSecurityCustomizer()"
                    ),
                ));
                // `throws Exception` cannot stay on a method that no longer throws.
                let throws_end = method_body.start_byte();
                let throws = &src[params.end_byte()..throws_end];
                if throws.contains("throws") {
                    edits.push(Edit::replace(params.end_byte()..throws_end, " "));
                }
                let statements: String = src
                    [method_body.start_byte() + 1..method_body.end_byte() - 1]
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| format!("    {}{eol}", l.trim_end()))
                    .collect();
                edits.push(Edit::replace(
                    method_body.byte_range(),
                    format!(
                        "{{{eol}{inner}return {var} -> {{{eol}{statements}{inner}}};{eol}{indent}}}"
                    ),
                ));
            }
            other => return Err(format!("configure({other}) has no bean equivalent")),
        }
    }
    Ok(edits)
}
