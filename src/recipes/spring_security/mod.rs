//! Spring Security 5 -> 6 in code. [`rewrite`] is the code half of the declarative recipe
//! `spring-security-6` (lambda DSL, `@Enable*` annotations); [`adapter`] is recipe
//! `spring-security-filter-chain`.
//!
//! Recipe `spring-security-filter-chain`: a `WebSecurityConfigurerAdapter` subclass (removed
//! in Spring Security 6) becomes plain configuration with beans, for the common shape:
//!
//! * `configure(HttpSecurity http)` -> `@Bean SecurityFilterChain filterChain(HttpSecurity
//!   http)` ending in `return http.build();`
//! * `configure(WebSecurity web)` -> `@Bean WebSecurityCustomizer webSecurityCustomizer()`
//!   returning `web -> { .. }`
//! * `configure(AuthenticationManagerBuilder auth)` -> the user details or provider bean
//!   global authentication picks up (see [`auth_builder`])
//! * `authenticationManagerBean()` returning the adapter's -> a bean taken from
//!   `AuthenticationConfiguration`
//!
//! Anything else the adapter provided (other builder settings, `super` calls,
//! `userDetailsServiceBean()`) has no mechanical equivalent: the class is left alone and
//! the Spring Security detector hands it to the next tier.

mod annotations;
mod auth_builder;
mod lambda_dsl;

use tree_sitter::Node;

use crate::edit::{self, Edit, indent_at, line_ending, whole_line};
use crate::java_syntax::{self, annotation_name, annotations, field_text, modifiers_of, text};

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::Scope;

/// `HttpSecurity` chains in the lambda DSL, `@EnableGlobalMethodSecurity` ->
/// `@EnableMethodSecurity`, and `@Configuration` where Security's annotations carried it.
pub fn rewrite(src: &str) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_clean(src) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let (mut edits, mut changes, mut imports) = lambda_dsl::edits(root, src);
    let found = annotations::edits(root, src);
    edits.extend(found.edits);
    changes.extend(found.changes);
    imports.extend(found.imports);
    result.findings = found.findings;
    if edits.is_empty() {
        return result;
    }
    result.changes = changes;
    apply_code_edits(src, &edits, &imports, "Spring Security", &mut result);
    result
}

const ADAPTER: &str = "WebSecurityConfigurerAdapter";
const ADAPTER_FQN: &str =
    "org.springframework.security.config.annotation.web.configuration.WebSecurityConfigurerAdapter";
const MANAGER_BEAN: &str = "authenticationManagerBean";

pub fn adapter(src: &str) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, ADAPTER) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let mut edits = Vec::new();
    let mut converted = false;
    // Only Spring's adapter, as the file's imports resolve it: a project class of that
    // name is no business of this recipe.
    let scope = Scope::new(root, src);
    let mut classes = Vec::new();
    java_syntax::walk(root, |n| {
        if n.kind() == "class_declaration"
            && n.child_by_field_name("superclass")
                .and_then(|s| s.named_child(0))
                .is_some_and(|t| scope.denotes(t, ADAPTER_FQN))
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
        if imp.path == ADAPTER_FQN {
            edits.push(Edit::replace(whole_line(src, imp.range.clone()), ""));
        }
    }
    let eol = line_ending(src);
    let needed = [
        "org.springframework.context.annotation.Bean",
        "org.springframework.security.web.SecurityFilterChain",
        "org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer",
        "org.springframework.security.config.annotation.authentication.configuration.AuthenticationConfiguration",
        "org.springframework.security.provisioning.InMemoryUserDetailsManager",
        "org.springframework.security.core.userdetails.User",
        "org.springframework.security.authentication.dao.DaoAuthenticationProvider",
        "org.springframework.security.provisioning.UserDetailsManager",
        "org.springframework.security.provisioning.JdbcUserDetailsManager",
    ];
    let imports = java_syntax::imports(root, src);
    let text_after: String = needed
        .iter()
        .filter(|n| {
            let simple = n.rsplit('.').next().unwrap_or(n);
            edits.iter().any(|e| mentions(&e.replacement, simple))
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
    let mut edits = vec![Edit::replace(
        src[..sup.start_byte()].trim_end().len()..sup.end_byte(),
        "",
    )];
    // The adapter's exposed AuthenticationManager: the guide takes it from
    // AuthenticationConfiguration instead. The override is the only use allowed.
    let mut exposed = None;
    let mut c = body.walk();
    for m in body
        .named_children(&mut c)
        .filter(|m| m.kind() == "method_declaration" && field_text(*m, "name", src) == MANAGER_BEAN)
    {
        let returns = m
            .child_by_field_name("body")
            .map(|b| text(b, src).split_whitespace().collect::<String>());
        if returns.as_deref() != Some("{returnsuper.authenticationManagerBean();}") {
            return Err(format!(
                "{MANAGER_BEAN}() does more than return the adapter's"
            ));
        }
        exposed = Some(m);
    }
    let mut class_text = text(body, src).to_string();
    if let Some(m) = exposed {
        class_text = class_text.replace(text(m, src), "");
        let eol = line_ending(src);
        let indent = indent_at(src, m.start_byte());
        let inner = format!("{indent}    ");
        edits.push(Edit::replace(
            m.byte_range(),
            format!(
                "@Bean{eol}{indent}public AuthenticationManager {MANAGER_BEAN}(AuthenticationConfiguration authenticationConfiguration) throws Exception {{{eol}{inner}return authenticationConfiguration.getAuthenticationManager();{eol}{indent}}}"
            ),
        ));
    }
    for forbidden in ["super.", MANAGER_BEAN, "userDetailsServiceBean"] {
        if class_text.contains(forbidden) {
            return Err(format!("uses {forbidden}"));
        }
    }
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
        let override_edits = edits.len();
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
            "AuthenticationManagerBuilder" => {
                let replacement = match auth_builder::bean(method_body, var, body, src)? {
                    Some(bean) => {
                        let statements: String = bean
                            .statements
                            .iter()
                            .flat_map(|s| s.lines())
                            .map(|l| format!("{inner}{l}{eol}"))
                            .collect();
                        format!(
                            "@Bean{eol}{indent}public {} {}() {{{eol}{statements}{indent}}}",
                            bean.type_name, bean.name
                        )
                    }
                    None => {
                        // The method goes with its annotations and the blank line before it.
                        edits.truncate(override_edits);
                        let lines = whole_line(src, m.byte_range());
                        let before = src[..lines.start].trim_end_matches([' ', '\t']);
                        let start = if before.ends_with("\n\n") || before.ends_with("\r\n\r\n") {
                            before.len() - eol.len()
                        } else {
                            lines.start
                        };
                        edits.push(Edit::replace(start..lines.end, ""));
                        continue;
                    }
                };
                edits.push(Edit::replace(
                    header_start..method_body.end_byte(),
                    replacement,
                ));
            }
            other => return Err(format!("configure({other}) has no bean equivalent")),
        }
    }
    Ok(edits)
}

/// Whether `code` names the type `simple` (not merely a longer name ending in it).
fn mentions(code: &str, simple: &str) -> bool {
    code.match_indices(simple).any(|(at, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        !code[..at].ends_with(word) && !code[at + simple.len()..].starts_with(word)
    })
}
