//! `configure(AuthenticationManagerBuilder auth)` of a `WebSecurityConfigurerAdapter` as
//! the beans Spring Security's global authentication picks up by itself (the blog post
//! "Spring Security without the WebSecurityConfigurerAdapter" and the 5.8 migration guide):
//!
//! * `auth.inMemoryAuthentication().withUser(..)...` -> an `InMemoryUserDetailsManager`
//!   bean of `User.withUsername(..)...build()` users;
//! * `auth.jdbcAuthentication().dataSource(ds)[.usersByUsernameQuery(q)]...` -> a
//!   `UserDetailsManager` bean built on `JdbcUserDetailsManager` with the same queries;
//! * `auth.userDetailsService(uds)[.passwordEncoder(enc)]` -> a `DaoAuthenticationProvider`
//!   bean given the same service and encoder;
//! * `auth.authenticationProvider(provider())` of a `@Bean` method of the class -> nothing:
//!   the single provider bean is used already.
//!
//! A password encoder handed to the in-memory or JDBC builder is kept only when it is a
//! `@Bean` method of the class (which global authentication then uses); anything else
//! the builder was told has no bean equivalent here and keeps the adapter.

use tree_sitter::Node;

use super::lambda_dsl::{self, Call};
use crate::java_syntax::{annotation_name, annotations, field_text, modifiers_of, text};

/// A bean replacing the `configure` method: its return type, name and body statements.
pub(super) struct Bean {
    pub type_name: &'static str,
    pub name: &'static str,
    pub statements: Vec<String>,
}

/// The bean replacing `configure(AuthenticationManagerBuilder <auth>)` whose body is
/// `body`, or `None` when the method just goes; `class` is the class body.
pub(super) fn bean(body: Node, auth: &str, class: Node, src: &str) -> Result<Option<Bean>, String> {
    let mut c = body.walk();
    let statements: Vec<Node> = body.named_children(&mut c).collect();
    let [statement] = statements.as_slice() else {
        return Err("configure(AuthenticationManagerBuilder) does more than one thing".into());
    };
    let expr = statement
        .named_child(0)
        .filter(|e| statement.kind() == "expression_statement" && e.kind() == "method_invocation")
        .ok_or("configure(AuthenticationManagerBuilder) is not one builder chain")?;
    let (receiver, calls) =
        lambda_dsl::chain(expr, src).ok_or("the chain does not start at the builder")?;
    if receiver != auth {
        return Err("the chain does not start at the builder".into());
    }
    let Some((first, rest)) = calls.split_first() else {
        return Err("empty chain".into());
    };
    let bean = match first.name {
        "inMemoryAuthentication" => Bean {
            type_name: "InMemoryUserDetailsManager",
            name: "userDetailsService",
            statements: vec![in_memory_users(rest, src)?],
        },
        "jdbcAuthentication" => jdbc_users(rest, class, src)?,
        "userDetailsService" => provider(first, rest, src)?,
        "authenticationProvider"
            if rest.is_empty() && is_bean_call(arg(first, src)?, class, src) =>
        {
            return Ok(None);
        }
        other => {
            return Err(format!(
                "AuthenticationManagerBuilder.{other}() has no bean equivalent here"
            ));
        }
    };
    if declares_method(class, bean.name, src) {
        return Err(format!("the class already declares {}()", bean.name));
    }
    Ok(Some(bean))
}

/// The single argument of `call`, as written.
fn arg<'s>(call: &Call, src: &'s str) -> Result<&'s str, String> {
    match call.args.named_child_count() {
        1 => Ok(text(call.args.named_child(0).ok_or("no argument")?, src)),
        _ => Err(format!("{}() takes one argument here", call.name)),
    }
}

/// `uds` and its encoder in a `DaoAuthenticationProvider`.
fn provider(first: &Call, rest: &[Call], src: &str) -> Result<Bean, String> {
    const VAR: &str = "authenticationProvider";
    let mut statements = vec![
        format!("DaoAuthenticationProvider {VAR} = new DaoAuthenticationProvider();"),
        format!("{VAR}.setUserDetailsService({});", arg(first, src)?),
    ];
    match rest {
        [] => {}
        [encoder] if encoder.name == "passwordEncoder" => {
            statements.push(format!("{VAR}.setPasswordEncoder({});", arg(encoder, src)?));
        }
        _ => {
            return Err("userDetailsService(..) is configured beyond its password encoder".into());
        }
    }
    statements.push(format!("return {VAR};"));
    Ok(Bean {
        type_name: "DaoAuthenticationProvider",
        name: VAR,
        statements,
    })
}

/// `jdbcAuthentication().dataSource(ds)` and its queries on a `JdbcUserDetailsManager`.
fn jdbc_users(calls: &[Call], class: Node, src: &str) -> Result<Bean, String> {
    const VAR: &str = "users";
    let mut data_source = None;
    let mut setters = Vec::new();
    for call in calls {
        let value = arg(call, src)?;
        match call.name {
            "dataSource" => data_source = Some(value),
            "usersByUsernameQuery" => {
                setters.push(format!("{VAR}.setUsersByUsernameQuery({value});"))
            }
            "authoritiesByUsernameQuery" => {
                setters.push(format!("{VAR}.setAuthoritiesByUsernameQuery({value});"));
            }
            "groupAuthoritiesByUsername" => {
                setters.push(format!(
                    "{VAR}.setGroupAuthoritiesByUsernameQuery({value});"
                ));
            }
            "rolePrefix" => setters.push(format!("{VAR}.setRolePrefix({value});")),
            "passwordEncoder" if is_bean_call(value, class, src) => {}
            other => {
                return Err(format!(
                    "jdbcAuthentication().{other}() has no bean equivalent here"
                ));
            }
        }
    }
    let data_source = data_source.ok_or("jdbcAuthentication() without a data source")?;
    let mut statements = vec![format!(
        "JdbcUserDetailsManager {VAR} = new JdbcUserDetailsManager({data_source});"
    )];
    statements.extend(setters);
    statements.push(format!("return {VAR};"));
    Ok(Bean {
        type_name: "UserDetailsManager",
        name: VAR,
        statements,
    })
}

/// Whether `expr` is `m()` for a `@Bean` method `m` the class declares without parameters.
fn is_bean_call(expr: &str, class: Node, src: &str) -> bool {
    let Some(name) = expr.strip_suffix("()") else {
        return false;
    };
    methods(class, src).any(|m| {
        field_text(m, "name", src) == name
            && m.child_by_field_name("parameters")
                .is_some_and(|p| p.named_child_count() == 0)
            && modifiers_of(m).is_some_and(|mo| {
                annotations(mo)
                    .iter()
                    .any(|a| annotation_name(*a, src) == "Bean")
            })
    })
}

fn declares_method(class: Node, name: &str, src: &str) -> bool {
    methods(class, src).any(|m| field_text(m, "name", src) == name)
}

fn methods<'t>(class: Node<'t>, _src: &str) -> impl Iterator<Item = Node<'t>> {
    let mut c = class.walk();
    let all: Vec<Node<'t>> = class.named_children(&mut c).collect();
    all.into_iter().filter(|m| m.kind() == "method_declaration")
}

/// `new InMemoryUserDetailsManager(..)` of the users of `inMemoryAuthentication()
/// .withUser("u").password(..).roles(..).and().withUser(..)...` (the calls after the
/// first), each as a `User.withUsername("u")...build()` expression.
fn in_memory_users(calls: &[Call], src: &str) -> Result<String, String> {
    const USER_CALLS: &[&str] = &[
        "password",
        "roles",
        "authorities",
        "accountExpired",
        "accountLocked",
        "credentialsExpired",
        "disabled",
    ];
    let mut users: Vec<String> = Vec::new();
    for call in calls {
        let args = call.args;
        let args_text = text(args, src);
        match call.name {
            "withUser" => {
                let arg = args.named_child(0).ok_or("withUser without a user")?;
                users.push(if arg.kind() == "string_literal" {
                    format!("User.withUsername{args_text}")
                } else {
                    text(arg, src).to_string()
                });
            }
            "and" => {}
            call if USER_CALLS.contains(&call) => match users.last_mut() {
                Some(u) if u.starts_with("User.withUsername") => {
                    u.push_str(&format!(".{call}{args_text}"));
                }
                _ => return Err(format!("{call}() outside a user")),
            },
            other => {
                return Err(format!(
                    "inMemoryAuthentication().{other}() has no bean equivalent here"
                ));
            }
        }
    }
    if users.is_empty() {
        return Err("no users".into());
    }
    let users: Vec<String> = users
        .into_iter()
        .map(|u| {
            if u.starts_with("User.withUsername") {
                format!("{u}.build()")
            } else {
                u
            }
        })
        .collect();
    // One user per line, the layout the guide shows.
    Ok(format!(
        "return new InMemoryUserDetailsManager(\n{});",
        users
            .iter()
            .map(|u| format!("        {u}"))
            .collect::<Vec<_>>()
            .join(",\n")
    ))
}
