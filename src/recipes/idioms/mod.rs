//! Modern-idiom rewrites that need code: several coordinated edits or a computed text a
//! rule template cannot produce. Each is named by a declarative recipe (`code:` in
//! `catalog/java/modernize-*.yml`), which carries its description and preconditions.

pub mod pattern_instanceof;
pub mod switch_expressions;
pub mod text_blocks;

use super::FileResult;

/// The code transform a recipe's `code:` names.
pub fn transform(name: &str) -> Option<fn(&str) -> FileResult> {
    match name {
        "pattern-instanceof" => Some(pattern_instanceof::rewrite),
        "switch-expressions" => Some(switch_expressions::rewrite),
        "text-blocks" => Some(text_blocks::rewrite),
        _ => None,
    }
}
