//! A `BigDecimal.ROUND_*` constant held in an `int` (a private field or a local) whose every
//! use is the rounding argument of `setScale` or `divide` on a `BigDecimal`: the variable
//! becomes a `RoundingMode`, so those calls take the overloads that are not deprecated:
//!
//! ```java
//! private final int mode = BigDecimal.ROUND_HALF_UP;           ... v.setScale(2, mode)
//! private final RoundingMode mode = RoundingMode.HALF_UP;      ... v.setScale(2, mode)
//! ```
//!
//! A field may also be blank and get its constant from plain assignments (in its
//! constructors, say). The value may also choose between such constants (`up ? BigDecimal.ROUND_UP :
//! BigDecimal.ROUND_DOWN`). Each `ROUND_X` equals `RoundingMode.X`'s old int, and the int overloads compute with
//! `RoundingMode.valueOf(int)`, so the result is the same. Any other use (arithmetic,
//! another call, an assignment) leaves the variable to the rule's
//! detector. The code half of `bigdecimal-rounding-mode`.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Scope, mentions};
use crate::edit::Edit;
use crate::java_syntax::{self, field_text, text};

const BIG_DECIMAL: &str = "java.math.BigDecimal";
const MODES: [&str; 8] = [
    "UP",
    "DOWN",
    "CEILING",
    "FLOOR",
    "HALF_UP",
    "HALF_DOWN",
    "HALF_EVEN",
    "UNNECESSARY",
];

pub fn rewrite(src: &str, package_types: &[String]) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, "ROUND_") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src).in_package_with(package_types);
    if scope.import_would_clash("java.math.RoundingMode") {
        return result;
    }
    let mut edits = Vec::new();
    java_syntax::walk(root, |decl| {
        let private = || {
            java_syntax::modifiers_of(decl)
                .is_some_and(|m| text(m, src).split_whitespace().any(|w| w == "private"))
        };
        let held = match decl.kind() {
            "local_variable_declaration" => true,
            "field_declaration" => private(),
            _ => false,
        };
        let Some(ty) = decl.child_by_field_name("type").filter(|_| held) else {
            return;
        };
        let mut c = decl.walk();
        let declarators: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
        let [d] = declarators.as_slice() else {
            return;
        };
        let Some(name) = d.child_by_field_name("name") else {
            return;
        };
        // Its values: the initializer and what plain assignments (a blank final's in its
        // constructors, say) store; every other use must be a rounding argument.
        let (stores, reads): (Vec<Node>, Vec<Node>) = mentions(root, name, src)
            .into_iter()
            .map(|u| this_qualified(u, src))
            .partition(|u| assigned_value(*u, src).is_some());
        let values: Vec<Node> = d
            .child_by_field_name("value")
            .into_iter()
            .chain(stores.iter().filter_map(|u| assigned_value(*u, src)))
            .collect();
        let Some(constants) = values
            .iter()
            .map(|v| rounding_constants(*v, &scope, src))
            .collect::<Option<Vec<_>>>()
            .map(|all| all.concat())
        else {
            return;
        };
        if text(ty, src) != "int"
            || values.is_empty()
            || reads.is_empty()
            || !reads.iter().all(|u| rounding_argument(*u, &scope, src))
        {
            return;
        }
        edits.push(Edit::replace(ty.byte_range(), "RoundingMode"));
        for (constant, mode) in &constants {
            edits.push(Edit::replace(
                constant.byte_range(),
                format!("RoundingMode.{mode}"),
            ));
        }
        let modes: Vec<&str> = constants.iter().map(|(_, m)| *m).collect();
        result.changes.push(format!(
            "line {}: int {} = BigDecimal.ROUND_{} -> RoundingMode",
            decl.start_position().row + 1,
            text(name, src),
            modes.join(" / ROUND_")
        ));
    });
    if edits.is_empty() {
        return result;
    }
    apply_code_edits(
        src,
        &edits,
        &BTreeSet::from(["java.math.RoundingMode"]),
        "RoundingMode variables",
        &mut result,
    );
    result
}

/// The `BigDecimal.ROUND_*` constants `value` is made of, with their modes: one constant,
/// or a conditional (in parentheses or not) choosing between such values.
fn rounding_constants<'t, 's>(
    value: Node<'t>,
    scope: &Scope,
    src: &'s str,
) -> Option<Vec<(Node<'t>, &'s str)>> {
    match value.kind() {
        "parenthesized_expression" => rounding_constants(value.named_child(0)?, scope, src),
        "ternary_expression" => {
            let mut both =
                rounding_constants(value.child_by_field_name("consequence")?, scope, src)?;
            both.extend(rounding_constants(
                value.child_by_field_name("alternative")?,
                scope,
                src,
            )?);
            Some(both)
        }
        _ => Some(vec![(value, rounding_constant(value, scope, src)?)]),
    }
}

/// `HALF_UP` for `BigDecimal.ROUND_HALF_UP`, its owner resolved to java.math.BigDecimal.
fn rounding_constant<'s>(value: Node, scope: &Scope, src: &'s str) -> Option<&'s str> {
    if value.kind() != "field_access" {
        return None;
    }
    let object = value.child_by_field_name("object")?;
    let mode = field_text(value, "field", src).strip_prefix("ROUND_")?;
    (MODES.contains(&mode) && scope.denotes(object, BIG_DECIMAL)).then_some(mode)
}

/// The value `target = value` stores, where `target` is the left side of a plain `=`.
fn assigned_value<'t>(target: Node<'t>, src: &str) -> Option<Node<'t>> {
    let assignment = target
        .parent()
        .filter(|p| p.kind() == "assignment_expression")?;
    (assignment.child_by_field_name("left")?.id() == target.id()
        && field_text(assignment, "operator", src) == "=")
        .then(|| assignment.child_by_field_name("right"))?
}

/// `this.name` where `name` is read that way, else `name`.
fn this_qualified<'t>(name: Node<'t>, src: &str) -> Node<'t> {
    name.parent()
        .filter(|p| {
            p.kind() == "field_access"
                && p.child_by_field_name("field")
                    .is_some_and(|f| f.id() == name.id())
                && p.child_by_field_name("object")
                    .is_some_and(|o| text(o, src) == "this")
        })
        .unwrap_or(name)
}

/// Whether `ident` is the last argument, the rounding mode, of `setScale(int, int)`,
/// `divide(BigDecimal, int)` or `divide(BigDecimal, int, int)` on a `BigDecimal`.
fn rounding_argument(ident: Node, scope: &Scope, src: &str) -> bool {
    let Some(args) = ident.parent().filter(|p| p.kind() == "argument_list") else {
        return false;
    };
    let Some(call) = args.parent().filter(|c| c.kind() == "method_invocation") else {
        return false;
    };
    let n = args.named_child_count();
    let last = args
        .named_child(n.saturating_sub(1) as u32)
        .is_some_and(|l| l.id() == ident.id());
    let shape = match field_text(call, "name", src) {
        "setScale" => n == 2,
        "divide" => n == 2 || n == 3,
        _ => false,
    };
    last && shape
        && call
            .child_by_field_name("object")
            .is_some_and(|o| scope.denotes(o, BIG_DECIMAL))
}
