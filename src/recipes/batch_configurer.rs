//! Spring Batch 4's "no-op `setDataSource`" trick, part of recipe `spring-batch-5`: a
//! `DefaultBatchConfigurer` subclass whose only member is an empty `setDataSource` override
//! kept the DataSource from the configurer so Batch 4 fell back to its Map-based job
//! repository. Batch 5 removed both the configurer and the Map repository (its migration
//! guide: use the JDBC repository over an embedded database), so the class has nothing left
//! to do: it loses its base class and the override (the file compiles against Batch 5), and a
//! finding asks a human to delete it and make sure a DataSource is there. Any other
//! subclass is left to the `default-batch-configurer` detector.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use crate::edit::{Edit, deletion_span, whole_line};
use crate::java_syntax::{self, field_text, text};

const CONFIGURER: &str =
    "org.springframework.batch.core.configuration.annotation.DefaultBatchConfigurer";
const DATA_SOURCE: &str = "javax.sql.DataSource";

pub fn rewrite(src: &str) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_naming(src, "DefaultBatchConfigurer") else {
        return result;
    };
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, src);
    let imported = imports
        .iter()
        .any(|i| !i.is_static && !i.wildcard && i.path == CONFIGURER);
    let mut edits = Vec::new();
    java_syntax::walk(root, |class| {
        let Some((sup, setter)) = noop_subclass(class, src, imported) else {
            return;
        };
        // `class C extends DefaultBatchConfigurer` -> `class C`, and the override goes.
        let Some(before) = sup.prev_sibling() else {
            return;
        };
        edits.push(Edit::replace(before.end_byte()..sup.end_byte(), ""));
        edits.push(Edit::replace(deletion_span(src, setter.byte_range()), ""));
        let name = class.child_by_field_name("name").unwrap_or(class);
        let line = name.start_position().row + 1;
        let name = text(name, src);
        result.changes.push(format!(
            "{name}: no-op DefaultBatchConfigurer subclass emptied"
        ));
        result.findings.push(format!(
            "spring-batch-5/no-op-batch-configurer line {line}: {name} only kept the DataSource from DefaultBatchConfigurer to get Spring Batch 4's Map-based job repository; Batch 5 removed both, so its base class and setDataSource override were removed - delete the class, and give Batch 5's JDBC job repository a DataSource (Boot uses the application's; an embedded H2/HSQLDB with spring.batch.jdbc.initialize-schema=embedded keeps the metadata in memory)"
        ));
    });
    if edits.is_empty() {
        return result;
    }
    let removed: Vec<_> = edits.iter().map(|e| e.range.clone()).collect();
    for imp in &imports {
        let dropped = imp.path == CONFIGURER
            || (imp.path == DATA_SOURCE
                && !java_syntax::names_used(root, src, &removed).contains("DataSource"));
        if dropped && !imp.is_static && !imp.wildcard {
            edits.push(Edit::replace(whole_line(src, imp.range.clone()), ""));
        }
    }
    apply_code_edits(src, &edits, &BTreeSet::new(), "Spring Batch", &mut result);
    result
}

/// The `extends DefaultBatchConfigurer` clause and the empty `setDataSource(DataSource)`
/// override of a class that declares nothing else.
fn noop_subclass<'t>(class: Node<'t>, src: &str, imported: bool) -> Option<(Node<'t>, Node<'t>)> {
    if class.kind() != "class_declaration" {
        return None;
    }
    let sup = class.child_by_field_name("superclass")?;
    let written = text(sup, src).trim_start_matches("extends").trim();
    if !(written == CONFIGURER || (imported && written == "DefaultBatchConfigurer")) {
        return None;
    }
    let body = class.child_by_field_name("body")?;
    let mut c = body.walk();
    let members: Vec<Node> = body
        .named_children(&mut c)
        .filter(|m| !m.kind().ends_with("comment"))
        .collect();
    let [setter] = members.as_slice() else {
        return None;
    };
    let params = setter.child_by_field_name("parameters")?;
    let empty_body = setter.child_by_field_name("body").is_some_and(|b| {
        let mut c = b.walk();
        b.named_children(&mut c)
            .all(|s| s.kind().ends_with("comment"))
    });
    let one_data_source = params.named_child_count() == 1
        && params
            .named_child(0)
            .is_some_and(|p| matches!(field_text(p, "type", src), "DataSource" | DATA_SOURCE));
    (setter.kind() == "method_declaration"
        && field_text(*setter, "name", src) == "setDataSource"
        && one_data_source
        && empty_body)
        .then_some((sup, *setter))
}
