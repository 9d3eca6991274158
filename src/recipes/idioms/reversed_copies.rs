//! A reversed copy made only to be iterated becomes the collection's reversed view (Java 21):
//!
//! ```java
//! List<String> copy = new ArrayList<>(frames);
//! Collections.reverse(copy);
//! for (String f : copy) { .. }
//! ```
//!
//! becomes `for (String f : frames.reversed()) { .. }`. The view reads the list as the loop
//! runs where the copy was taken before it, so this applies only where nothing can tell:
//! the copy is a local named nowhere else, the statements between the reversal and the loop
//! only declare locals without calling anything, the source is a variable typed as a JDK
//! sequenced collection (a list, a deque, a linked or sorted set), and the loop's body neither
//! names it nor calls a method of this object.

use tree_sitter::Node;

use crate::edit::{Edit, deletion_span};
use crate::java_syntax::{self, field_text, named_children, text};
use crate::recipes::FileResult;
use crate::recipes::java_rules::apply_code_edits_dropping;
use crate::recipes::java_types::{Project, Scope, visit_calls};

/// The JDK's sequenced collections (Java 21): each has `reversed()`, a view in the reverse of
/// the order its iterator, and so a copy, walks.
const SEQUENCED: [&str; 17] = [
    "java.util.SequencedCollection",
    "java.util.List",
    "java.util.ArrayList",
    "java.util.LinkedList",
    "java.util.Vector",
    "java.util.Stack",
    "java.util.concurrent.CopyOnWriteArrayList",
    "java.util.Deque",
    "java.util.ArrayDeque",
    "java.util.concurrent.LinkedBlockingDeque",
    "java.util.concurrent.ConcurrentLinkedDeque",
    "java.util.SequencedSet",
    "java.util.LinkedHashSet",
    "java.util.SortedSet",
    "java.util.NavigableSet",
    "java.util.TreeSet",
    "java.util.concurrent.ConcurrentSkipListSet",
];

pub fn rewrite(src: &str, project: &Project) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    visit_calls(src, project, "reverse", |call, scope| {
        if let Some(mut found) = reversed_view(call, src, scope) {
            result.changes.push(format!(
                "sequenced-collections: line {}: a reversed copy only iterated -> reversed()",
                call.start_position().row + 1
            ));
            edits.append(&mut found);
        }
    });
    if edits.is_empty() {
        return result;
    }
    apply_code_edits_dropping(
        src,
        &edits,
        &[
            "java.util.Collections",
            "java.util.ArrayList",
            "java.util.LinkedList",
        ],
        "sequenced-collections",
        &mut result,
    );
    result
}

/// The edits for the `Collections.reverse(copy)` call, when the copy, the call and the loop
/// make the idiom.
fn reversed_view(call: Node, src: &str, scope: &Scope) -> Option<Vec<Edit>> {
    if !scope.denotes(call.child_by_field_name("object")?, "java.util.Collections") {
        return None;
    }
    let [copy] = named_children(call.child_by_field_name("arguments")?)[..] else {
        return None;
    };
    let reverse = call
        .parent()
        .filter(|s| s.kind() == "expression_statement")?;
    let made = reverse
        .prev_named_sibling()
        .filter(|d| d.kind() == "local_variable_declaration")?;
    let name = text(copy, src);
    let looped = loop_after(reverse, name, src)?;
    let [declarator] = named_children(made)
        .into_iter()
        .filter(|n| n.kind() == "variable_declarator")
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let creation = declarator.child_by_field_name("value")?;
    let [source] = named_children(creation.child_by_field_name("arguments")?)[..] else {
        return None;
    };
    let created = field_text(creation, "type", src);
    let raw = created.split('<').next().unwrap_or(created).trim();
    let value = looped.child_by_field_name("value")?;
    let fits = copy.kind() == "identifier"
        && field_text(declarator, "name", src) == name
        && creation.kind() == "object_creation_expression"
        && matches!(
            raw.strip_prefix("java.util.").unwrap_or(raw),
            "ArrayList" | "LinkedList"
        )
        && !named_children(creation)
            .iter()
            .any(|n| n.kind() == "class_body")
        && source.kind() == "identifier"
        && SEQUENCED.iter().any(|l| scope.denotes(source, l))
        && value.kind() == "identifier"
        && text(value, src) == name;
    if !fits {
        return None;
    }
    // The copy is named only by these three statements; the loop does not name the source.
    let block = reverse.parent()?;
    let mut mentions = 0;
    java_syntax::walk(block, |n| {
        mentions += usize::from(n.kind() == "identifier" && text(n, src) == name);
    });
    // Nor does the loop call a method of this object, which might change a field it is.
    let mut names_source = false;
    java_syntax::walk(looped.child_by_field_name("body")?, |n| {
        names_source |= n.kind() == "identifier" && text(n, src) == text(source, src)
            || n.kind() == "method_invocation"
                && n.child_by_field_name("object")
                    .is_none_or(|o| o.kind() == "this");
    });
    (mentions == 3 && !names_source).then(|| {
        vec![
            Edit::replace(deletion_span(src, made.byte_range()), ""),
            Edit::replace(deletion_span(src, reverse.byte_range()), ""),
            Edit::replace(
                value.byte_range(),
                format!("{}.reversed()", text(source, src)),
            ),
        ]
    })
}

/// The for-each loop over `copy` after `reverse`, past statements that only declare locals
/// without a call (`StringBuilder sb = new StringBuilder();`).
fn loop_after<'t>(reverse: Node<'t>, copy: &str, src: &str) -> Option<Node<'t>> {
    let mut next = reverse.next_named_sibling();
    while let Some(statement) = next {
        if statement.kind() == "enhanced_for_statement" {
            return Some(statement);
        }
        let mut inert = statement.kind() == "local_variable_declaration";
        java_syntax::walk(statement, |n| {
            inert &= n.kind() != "method_invocation"
                && !(n.kind() == "identifier" && text(n, src) == copy);
        });
        if !inert {
            return None;
        }
        next = statement.next_named_sibling();
    }
    None
}
