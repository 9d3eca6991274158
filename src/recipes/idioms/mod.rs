//! Modern-idiom rewrites that need code: several coordinated edits or a computed text a
//! rule template cannot produce. Each is named by a declarative recipe (`code:` in
//! `catalog/java/modernize-*.yml`), which carries its description and preconditions;
//! [`transform`] also names the code halves of `spring-security-6.yml`,
//! `spring-framework-6.yml`, `spring-batch-5.yml`, `springfox-to-springdoc.yml`, `spring-boot-3-libraries.yml`, `deprecated-jdk-renames.yml`, `removed-jdk-apis.yml`, `base64-from-sun-misc.yml`, `bigdecimal-rounding-mode.yml` and `awt-swing-renames.yml`.

pub mod lookup_factories;
pub mod pattern_instanceof;
pub mod reversed_copies;
pub mod switch_expressions;
pub mod text_blocks;

use tree_sitter::Node;

use super::FileResult;
use super::java_types::Project;
use crate::edit::{self, Edit};
use crate::java_syntax;

/// A code transform: a file's text and the project around it (for the transforms that
/// resolve JDK types, see `java_types::Scope`).
pub type Transform = fn(&str, &Project) -> FileResult;

/// The code transform a recipe's `code:` names.
pub fn transform(name: &str) -> Option<Transform> {
    match name {
        "pattern-instanceof" => Some(|src, _| pattern_instanceof::rewrite(src)),
        "switch-expressions" => Some(|src, _| switch_expressions::rewrite(src)),
        "text-blocks" => Some(text_blocks::rewrite),
        "lookup-factories" => Some(|src, _| lookup_factories::rewrite(src)),
        "sequenced-reversed-copies" => Some(reversed_copies::rewrite),
        "spring-security-6" => Some(|src, _| super::spring_security::rewrite(src)),
        "spring-batch-5" => Some(|src, _| {
            super::spring_batch::rewrite(src).then(src, super::batch_configurer::rewrite)
        }),
        "springfox-annotations" => Some(|src, _| {
            super::annotation_moves::springfox(src).then(src, super::springfox_docket::rewrite)
        }),
        "spring-framework-6" => Some(|src, types| {
            super::multipart_resolver::rewrite(src, types)
                .then(src, |t| super::request_factory_timeout::rewrite(t, types))
        }),
        "kafka-send-callbacks" => Some(super::kafka_send_callbacks::rewrite),
        "class-new-instance-handlers" => Some(super::reflective_new_instance::rewrite),
        "base64-decode-handlers" => Some(super::sun_base64_handlers::rewrite),
        "removed-jdk-api-ports" => Some(|src, types| {
            super::security_manager_checks::rewrite(src, types)
                .then(src, |t| super::javax_security_cert::rewrite(t, types))
                .then(src, |t| super::xml_reader_factory::rewrite(t, types))
                .then(src, |t| super::do_privileged_blocks::rewrite(t, types))
                .then(src, |t| super::sax1_handlers::rewrite(t, types))
        }),
        "bigdecimal-rounding-holders" => Some(super::rounding_mode_holders::rewrite),
        "input-modifier-holders" => Some(super::input_modifier_holders::rewrite),
        _ => None,
    }
}

/// The edits one idiom makes in a file, and a line per change.
#[derive(Default)]
struct Rewrite {
    edits: Vec<Edit>,
    changes: Vec<String>,
}

impl Rewrite {
    /// Whether an edit already touches `range` (nested constructs take one edit).
    fn overlaps(&self, range: &std::ops::Range<usize>) -> bool {
        self.edits
            .iter()
            .any(|e| e.range.start < range.end && range.start < e.range.end)
    }
}

/// Walks a file that parses cleanly, lets `visit` record edits node by node, and applies
/// them; a file with syntax errors is never touched.
fn rewrite_nodes(src: &str, idiom: &str, mut visit: impl FnMut(Node, &mut Rewrite)) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_clean(src) else {
        return result;
    };
    let mut rw = Rewrite::default();
    java_syntax::walk(parsed.tree.root_node(), |n| visit(n, &mut rw));
    if rw.edits.is_empty() {
        return result;
    }
    match edit::apply(src, &rw.edits) {
        Ok(text) => {
            result.text = Some(text);
            result.changes = rw.changes;
        }
        Err(e) => result.findings.push(format!("{idiom}: {e}")),
    }
    result
}
