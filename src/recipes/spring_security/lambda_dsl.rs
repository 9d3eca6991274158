//! Spring Security's lambda DSL, the form the Security 6 migration guide shows (`and()` is
//! deprecated since 6.1 and gone in 7):
//!
//! ```text
//! http.authorizeRequests()                    http.authorizeRequests((authorize) -> authorize
//!         .anyRequest().authenticated()   ->          .anyRequest().authenticated()
//!         .and()                              )
//!     .httpBasic().and()                          .httpBasic(Customizer.withDefaults())
//!     .csrf().disable();                          .csrf((csrf) -> csrf.disable());
//! ```
//!
//! A chain on an `HttpSecurity` variable is cut into one segment per configurer call (a
//! zero-argument `csrf()`, `formLogin()` ...), ended by the `and()` that returns to
//! `HttpSecurity`, by `disable()`, or by the end of the chain; each segment becomes the
//! configurer's lambda, its calls kept byte for byte. Nested configurers (`jwt()`,
//! `frameOptions()`, `maximumSessions(1)` ...) stay inside the lambda as written, their own
//! `and()` with them; a `jwt()`/`opaqueToken()` ending the chain unconfigured takes
//! `Customizer.withDefaults()`. WebFlux's `ServerHttpSecurity` chains (`authorizeExchange()`
//! ...) are converted the same way.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::edit::{Edit, indent_at, line_ending};
use crate::java_syntax::{self, text};

/// `HttpSecurity` configurer methods, with the lambda parameter name the guide uses.
const CONFIGURERS: &[(&str, &str)] = &[
    ("authorizeRequests", "authorize"),
    ("authorizeHttpRequests", "authorize"),
    ("csrf", "csrf"),
    ("cors", "cors"),
    ("formLogin", "formLogin"),
    ("httpBasic", "httpBasic"),
    ("logout", "logout"),
    ("sessionManagement", "session"),
    ("exceptionHandling", "exceptions"),
    ("headers", "headers"),
    ("rememberMe", "rememberMe"),
    ("requestCache", "requestCache"),
    ("anonymous", "anonymous"),
    ("securityContext", "securityContext"),
    ("servletApi", "servletApi"),
    ("x509", "x509"),
    ("jee", "jee"),
    ("oauth2Login", "oauth2"),
    ("oauth2Client", "oauth2"),
    ("oauth2ResourceServer", "oauth2"),
    ("saml2Login", "saml2"),
    ("requiresChannel", "channel"),
    ("portMapper", "portMapper"),
    // ServerHttpSecurity (WebFlux): the same DSL, names of its own.
    ("authorizeExchange", "exchanges"),
    ("redirectToHttps", "redirect"),
];

/// Calls inside a configurer that open a nested configurer, and the calls that return from
/// it to the enclosing one.
const NESTED: &[(&str, &[&str])] = &[
    ("jwt", &["and"]),
    ("opaqueToken", &["and"]),
    ("authorizationEndpoint", &["and"]),
    ("redirectionEndpoint", &["and"]),
    ("tokenEndpoint", &["and"]),
    ("userInfoEndpoint", &["and"]),
    ("contentSecurityPolicy", &["and"]),
    ("referrerPolicy", &["and"]),
    ("permissionsPolicy", &["and"]),
    ("maximumSessions", &["and"]),
    ("httpStrictTransportSecurity", &["and", "disable"]),
    ("xssProtection", &["and", "disable"]),
    ("contentTypeOptions", &["and", "disable"]),
    ("cacheControl", &["and", "disable"]),
    ("frameOptions", &["and", "disable", "deny", "sameOrigin"]),
    (
        "sessionFixation",
        &[
            "and",
            "newSession",
            "migrateSession",
            "changeSessionId",
            "none",
        ],
    ),
];

const CUSTOMIZER: &str = "org.springframework.security.config.Customizer";

/// One call of a chain: `.name(args)`.
pub(super) struct Call<'t> {
    node: Node<'t>,
    pub name: &'t str,
    pub args: Node<'t>,
    arg_count: usize,
}

/// The edits turning every `HttpSecurity` (or `ServerHttpSecurity`) chain of the file into
/// the lambda DSL, a line per
/// converted chain, and the imports the result needs.
pub(super) fn edits(root: Node, src: &str) -> (Vec<Edit>, Vec<String>, BTreeSet<&'static str>) {
    let variables = http_security_variables(root, src);
    let mut edits = Vec::new();
    let mut changes = Vec::new();
    let mut imports = BTreeSet::new();
    if variables.is_empty() {
        return (edits, changes, imports);
    }
    java_syntax::walk(root, |n| {
        if n.kind() != "method_invocation" || is_inner_link(n) {
            return;
        }
        let Some((receiver, calls)) = chain(n, src) else {
            return;
        };
        if !variables.contains(receiver) {
            return;
        }
        if let Some(converted) = convert(&calls, src, enclosing_names(n, src)) {
            if converted
                .iter()
                .any(|e| e.replacement.contains("Customizer."))
            {
                imports.insert(CUSTOMIZER);
            }
            let line = n.start_position().row + 1;
            changes.push(format!("line {line}: HttpSecurity chain -> lambda DSL"));
            edits.extend(converted);
        }
    });
    (edits, changes, imports)
}

/// Nested configurers that take a `Customizer` in Security 6 and whose no-argument form 6.1
/// deprecated: ending a segment unconfigured, they get the guide's `withDefaults()`.
const NESTED_DEFAULTS: &[&str] = &["jwt", "opaqueToken"];

/// Names declared with type `HttpSecurity` or WebFlux's `ServerHttpSecurity` (parameters,
/// locals).
fn http_security_variables<'s>(root: Node, src: &'s str) -> BTreeSet<&'s str> {
    let mut out = BTreeSet::new();
    java_syntax::walk(root, |n| {
        if matches!(n.kind(), "formal_parameter" | "local_variable_declaration")
            && n.child_by_field_name("type").is_some_and(|t| {
                let ty = text(t, src);
                matches!(
                    ty.rsplit('.').next(),
                    Some("HttpSecurity" | "ServerHttpSecurity")
                )
            })
        {
            if let Some(name) = n.child_by_field_name("name") {
                out.insert(text(name, src));
            }
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                if let Some(name) = d.child_by_field_name("name") {
                    out.insert(text(name, src));
                }
            }
        }
    });
    out
}

/// `n` is the object of a further call: only the outermost call of a chain is converted.
fn is_inner_link(n: Node) -> bool {
    n.parent().is_some_and(|p| {
        p.kind() == "method_invocation"
            && p.child_by_field_name("object")
                .is_some_and(|o| o.id() == n.id())
    })
}

/// The receiver identifier of a chain and its calls, innermost first.
pub(super) fn chain<'t>(outer: Node<'t>, src: &'t str) -> Option<(&'t str, Vec<Call<'t>>)> {
    let mut calls = Vec::new();
    let mut n = outer;
    loop {
        let args = n.child_by_field_name("arguments")?;
        calls.push(Call {
            node: n,
            name: text(n.child_by_field_name("name")?, src),
            args,
            arg_count: args.named_child_count(),
        });
        let object = n.child_by_field_name("object")?;
        match object.kind() {
            "method_invocation" => n = object,
            "identifier" => {
                calls.reverse();
                return Some((text(object, src), calls));
            }
            _ => return None,
        }
    }
}

/// Names the enclosing method declares (parameters, locals, lambda and catch parameters),
/// which a lambda parameter must not shadow.
fn enclosing_names<'s>(n: Node, src: &'s str) -> BTreeSet<&'s str> {
    let mut scope = n;
    while let Some(p) = scope.parent() {
        scope = p;
        if matches!(
            scope.kind(),
            "method_declaration" | "constructor_declaration"
        ) {
            break;
        }
    }
    let mut names = BTreeSet::new();
    java_syntax::walk(scope, |x| {
        let declared = match x.kind() {
            "formal_parameter" | "catch_formal_parameter" | "variable_declarator" => {
                x.child_by_field_name("name")
            }
            "lambda_expression" => x
                .child_by_field_name("parameters")
                .filter(|p| p.kind() == "identifier"),
            _ => None,
        };
        if let Some(d) = declared {
            names.insert(text(d, src));
        }
        if x.kind() == "inferred_parameters" {
            let mut c = x.walk();
            for p in x.named_children(&mut c) {
                names.insert(text(p, src));
            }
        }
    });
    names
}

/// The edits for one chain, or None when it has no configurer call or its nesting cannot
/// be followed.
fn convert(calls: &[Call], src: &str, taken: BTreeSet<&str>) -> Option<Vec<Edit>> {
    let eol = line_ending(src);
    let mut edits = Vec::new();
    let mut i = 0;
    while i < calls.len() {
        let start = &calls[i];
        let Some(&(_, param)) = CONFIGURERS
            .iter()
            .find(|(m, _)| *m == start.name && start.arg_count == 0)
        else {
            i += 1;
            continue;
        };
        // Walk the segment: `last` is its final call, `end` the call whose end closes it
        // (the `and()` that goes, or `last` itself).
        let mut closers: Vec<&[&str]> = Vec::new();
        let mut j = i + 1;
        let (last, end) = loop {
            // The chain may end inside a nested configurer: it stays in the lambda.
            let Some(c) = calls.get(j) else {
                break (calls.len() - 1, calls.len() - 1);
            };
            if closers.is_empty() && c.arg_count == 0 && c.name == "and" {
                break (j - 1, j);
            }
            if closers.is_empty() && c.arg_count == 0 && c.name == "disable" {
                break (j, j);
            }
            if closers.last().is_some_and(|cl| cl.contains(&c.name)) {
                closers.pop();
            } else if let Some((_, cl)) = NESTED.iter().find(|(m, _)| *m == c.name) {
                closers.push(cl);
            }
            j += 1;
        };
        let replacement = if last == i {
            "(Customizer.withDefaults())".to_string()
        } else {
            let param = if taken.contains(param) {
                format!("{param}Config")
            } else {
                param.to_string()
            };
            let tail = &calls[last];
            let body = if tail.arg_count == 0 && NESTED_DEFAULTS.contains(&tail.name) {
                format!(
                    "{}(Customizer.withDefaults())",
                    &src[start.node.end_byte()..tail.args.start_byte()]
                )
            } else {
                src[start.node.end_byte()..tail.node.end_byte()].to_string()
            };
            let close = if body.contains('\n') {
                format!(
                    "{eol}{})",
                    indent_at(src, start.node.child_by_field_name("name")?.start_byte())
                )
            } else {
                ")".to_string()
            };
            format!("(({param}) -> {param}{body}{close}")
        };
        edits.push(Edit::replace(
            start.args.start_byte()..calls[end].node.end_byte(),
            replacement,
        ));
        i = end + 1;
    }
    (!edits.is_empty()).then_some(edits)
}
