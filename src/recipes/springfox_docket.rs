//! A springfox `Docket` bean's selection chain -> springdoc's `GroupedOpenApi` builder, the
//! code half of recipe `springfox-to-springdoc` (springdoc's "Migrating from SpringFox":
//! one group per Docket, `packagesToScan` and `pathsToMatch` for its selectors). Only a
//! chain made wholly of calls with a springdoc equivalent moves; any other call (`apiInfo`,
//! a regex or predicate selector) leaves the bean for the detector. The rules retype the
//! method and drop springfox's imports.

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::Scope;
use crate::edit::{Edit, indent_at};
use crate::java_syntax::{self, field_text, text};

const DOCKET: &str = "springfox.documentation.spring.web.plugins.Docket";
const HANDLERS: &str = "springfox.documentation.builders.RequestHandlerSelectors";
const PATHS: &str = "springfox.documentation.builders.PathSelectors";
const GROUPED_OPEN_API: &str = "org.springdoc.core.models.GroupedOpenApi";
/// springfox's name for a Docket without `groupName`; springdoc requires a group.
const DEFAULT_GROUP: &str = "\"default\"";

pub fn rewrite(src: &str) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, "Docket") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src);
    let mut edits = Vec::new();
    java_syntax::walk(root, |n| {
        if n.kind() == "return_statement"
            && let Some(chain) = n.named_child(0)
            && let Some(calls) = builder_calls(chain, src, &scope)
        {
            let indent = indent_at(src, n.start_byte());
            let lines: String = calls
                .iter()
                .map(|c| format!("\n{indent}    .{c}"))
                .collect();
            edits.push(Edit::replace(
                chain.byte_range(),
                format!("GroupedOpenApi.builder(){lines}"),
            ));
        }
    });
    if edits.is_empty() {
        return result;
    }
    result.changes.push(format!(
        "{} springfox Docket(s) -> GroupedOpenApi",
        edits.len()
    ));
    apply_code_edits(
        src,
        &edits,
        &[GROUPED_OPEN_API].into(),
        "springfox Docket",
        &mut result,
    );
    result
}

/// The GroupedOpenApi builder calls for `new Docket(..)...build()`, when every call of the
/// chain has an equivalent.
fn builder_calls(chain: Node, src: &str, scope: &Scope) -> Option<Vec<String>> {
    let mut calls = Vec::new();
    let mut cur = chain;
    while cur.kind() == "method_invocation" {
        calls.push(cur);
        cur = cur.child_by_field_name("object")?;
    }
    if cur.kind() != "object_creation_expression"
        || !scope.denotes(cur.child_by_field_name("type")?, DOCKET)
    {
        return None;
    }
    calls.reverse();
    if calls.last().map(|c| field_text(*c, "name", src)) != Some("build") {
        return None;
    }
    let mut group = None;
    let mut out = Vec::new();
    for call in &calls[..calls.len() - 1] {
        let args = arguments(*call);
        match (field_text(*call, "name", src), args.as_slice()) {
            ("select", []) => {}
            ("groupName", [g]) => group = Some(text(*g, src).to_string()),
            ("apis", [sel]) => match selector(*sel, src, scope, HANDLERS)? {
                ("any", None) => {}
                ("basePackage", Some(p)) => out.push(format!("packagesToScan({p})")),
                _ => return None,
            },
            ("paths", [sel]) => match selector(*sel, src, scope, PATHS)? {
                ("any", None) => {}
                ("ant", Some(p)) => out.push(format!("pathsToMatch({p})")),
                _ => return None,
            },
            _ => return None,
        }
    }
    out.insert(
        0,
        format!("group({})", group.as_deref().unwrap_or(DEFAULT_GROUP)),
    );
    out.push("build()".to_string());
    Some(out)
}

/// `Owner.name()` or `Owner.name(arg)` on the springfox selector class `owner`.
fn selector<'s>(
    n: Node,
    src: &'s str,
    scope: &Scope,
    owner: &str,
) -> Option<(&'s str, Option<&'s str>)> {
    if n.kind() != "method_invocation" || !scope.denotes(n.child_by_field_name("object")?, owner) {
        return None;
    }
    let name = field_text(n, "name", src);
    match arguments(n).as_slice() {
        [] => Some((name, None)),
        [a] => Some((name, Some(text(*a, src)))),
        _ => None,
    }
}

fn arguments(call: Node) -> Vec<Node> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut c = args.walk();
    args.named_children(&mut c)
        .filter(|x| x.kind() != "comment")
        .collect()
}
