//! An `int` local holding `InputEvent.getModifiers()` (deprecated in 9) that is only tested
//! for modifier keys:
//!
//! ```java
//! int mods = e.getModifiers();
//! if ((mods & InputEvent.CTRL_MASK) != 0) { .. }
//! ```
//!
//! becomes `int mods = e.getModifiersEx();` tested with `CTRL_DOWN_MASK`. The event
//! constructors keep the old bits and the extended ones in step, so each test reads the same
//! key, as for the `input-event-*` rules of `awt-swing-renames` on the call itself. The old
//! ALT and META bits are BUTTON2 and BUTTON3 on a mouse event, so those two only where the
//! event is a `KeyEvent`. Any other use of the local (arithmetic, a call, an assignment, a
//! mask of another kind) leaves it, and its tests, as they are. The code half of
//! `awt-swing-renames`.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::{Project, Scope, local_initialized_by, mentions_within, visit_calls};
use crate::edit::Edit;
use crate::java_syntax::{field_text, named_children, text};

const EVENTS: [&str; 4] = [
    "java.awt.event.InputEvent",
    "java.awt.event.KeyEvent",
    "java.awt.event.MouseEvent",
    "java.awt.event.MouseWheelEvent",
];
const KEY_EVENT: &str = "java.awt.event.KeyEvent";
/// The masks whose bit means the same key in both forms on any input event.
const ANY_EVENT_MASKS: [&str; 3] = ["SHIFT_MASK", "CTRL_MASK", "ALT_GRAPH_MASK"];
/// The masks that do so only on a key event.
const KEY_EVENT_MASKS: [&str; 2] = ["ALT_MASK", "META_MASK"];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    visit_calls(src, project, "getModifiers", |call, scope| {
        if let Some(mut found) = holder(call, src, scope) {
            result.changes.push(format!(
                "line {}: an int holding getModifiers() only tested for modifier keys -> getModifiersEx() and the *_DOWN_MASK constants",
                call.start_position().row + 1
            ));
            edits.append(&mut found);
        }
    });
    if !edits.is_empty() {
        apply_code_edits(
            src,
            &edits,
            &BTreeSet::new(),
            "input-modifier-holders",
            &mut result,
        );
    }
    result
}

/// The edits for `int name = e.getModifiers();` when every use of `name` is such a test.
fn holder(call: Node, src: &str, scope: &Scope) -> Option<Vec<Edit>> {
    let receiver = call.child_by_field_name("object")?;
    let key_event = scope.denotes(receiver, KEY_EVENT);
    if !key_event && !EVENTS.iter().any(|t| scope.denotes(receiver, t))
        || call.child_by_field_name("arguments")?.named_child_count() != 0
    {
        return None;
    }
    let (declarator, declaration) = local_initialized_by(call)?;
    let block = declaration.parent()?;
    if field_text(declaration, "type", src) != "int" {
        return None;
    }
    let name = declarator.child_by_field_name("name")?;
    let mut edits = vec![Edit::replace(
        call.child_by_field_name("name")?.byte_range(),
        "getModifiersEx",
    )];
    for mention in mentions_within(block, name, src) {
        let mask = tested_mask(mention, src, scope, key_event)?;
        let field = mask.child_by_field_name("field")?;
        let down = text(field, src).replace("_MASK", "_DOWN_MASK");
        edits.push(Edit::replace(field.byte_range(), down));
    }
    (edits.len() > 1).then_some(edits)
}

/// The mask constant `mention` is tested against in `(mention & Owner.X_MASK) != 0` (or
/// `== 0`, either operand order), where the mask means the same key in both forms.
fn tested_mask<'t>(
    mention: Node<'t>,
    src: &str,
    scope: &Scope,
    key_event: bool,
) -> Option<Node<'t>> {
    let and = mention
        .parent()
        .filter(|p| p.kind() == "binary_expression" && field_text(*p, "operator", src) == "&")?;
    let [left, right] = named_children(and)[..] else {
        return None;
    };
    let mask = if left.id() == mention.id() {
        right
    } else {
        left
    };
    let compared = and
        .parent()
        .filter(|p| p.kind() == "parenthesized_expression")?
        .parent()
        .filter(|c| {
            c.kind() == "binary_expression"
                && matches!(field_text(*c, "operator", src), "!=" | "==")
        })?;
    let zero = named_children(compared)
        .into_iter()
        .any(|operand| operand.kind() == "decimal_integer_literal" && text(operand, src) == "0");
    let constant = field_text(mask, "field", src);
    let known =
        ANY_EVENT_MASKS.contains(&constant) || key_event && KEY_EVENT_MASKS.contains(&constant);
    let owner = mask.child_by_field_name("object")?;
    (zero
        && mask.kind() == "field_access"
        && known
        && EVENTS.iter().any(|t| scope.denotes(owner, t)))
    .then_some(mask)
}
