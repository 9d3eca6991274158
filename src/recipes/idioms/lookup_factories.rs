//! Constant lookup tables built the Java 8 way become `Set.of` / `Map.of` (Java 9):
//!
//! ```java
//! private static final Set<String> RESERVED =
//!     Collections.unmodifiableSet(new HashSet<>(Arrays.asList("select", "from")));
//! private static final Map<String, Long> FACTORS;
//! static {
//!     Map<String, Long> m = new HashMap<>();
//!     m.put("KB", 1024L);
//!     FACTORS = Collections.unmodifiableMap(m);
//! }
//! ```
//!
//! The factories' collections iterate in an order of their own and throw on a duplicate
//! element or key, so this applies only where nothing can tell: the field is `private static
//! final` and every use of it in the file is a lookup (`contains`, `get`, `getOrDefault`,
//! `containsKey`, `size`, `isEmpty`), never an iteration, a copy or a hand-over; the elements
//! and keys are distinct plain literals and the values can never be null (literals, their
//! arithmetic, new objects). A static block goes only when it holds nothing else.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::edit::{Edit, deletion_span, indent_at};
use crate::java_syntax::{self, field_text, has_modifier, named_children, text};
use crate::recipes::FileResult;
use crate::recipes::java_rules::apply_code_edits_dropping;

/// The reads that neither iterate nor hand the collection on.
const LOOKUPS: &[&str] = &[
    "contains",
    "containsAll",
    "get",
    "getOrDefault",
    "containsKey",
    "size",
    "isEmpty",
];
/// Map.of takes at most this many pairs; more go through Map.ofEntries.
const MAP_OF_PAIRS: usize = 10;
const DROPPED: [&str; 5] = [
    "java.util.Arrays",
    "java.util.Collections",
    "java.util.HashMap",
    "java.util.HashSet",
    "java.util.LinkedHashMap",
];

pub fn rewrite(src: &str) -> FileResult {
    let mut result = FileResult::default();
    let Some(parsed) = java_syntax::parse_clean(src) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let mut edits = Vec::new();
    java_syntax::walk(root, |field| {
        if let Some((mut found, what)) = table(field, src, root) {
            result.changes.push(format!(
                "collection-factories: line {}: a lookup-only {what}",
                field.start_position().row + 1
            ));
            edits.append(&mut found);
        }
    });
    if edits.is_empty() {
        return result;
    }
    apply_code_edits_dropping(src, &edits, &DROPPED, "collection-factories", &mut result);
    result
}

/// The edits turning `field` into a factory-made table, and what it became.
fn table(field: Node, src: &str, root: Node) -> Option<(Vec<Edit>, &'static str)> {
    if field.kind() != "field_declaration"
        || !["private", "static", "final"]
            .iter()
            .all(|m| has_modifier(field, m))
    {
        return None;
    }
    let ty = field.child_by_field_name("type")?;
    let raw = ty.named_child(0).filter(|_| ty.kind() == "generic_type")?;
    let kind = text(raw, src);
    let imported = |name: &str| {
        src.contains(&format!("import java.util.{name};")) || src.contains("import java.util.*;")
    };
    if !matches!(kind, "Set" | "Map") || !imported(kind) || !imported("Collections") {
        return None;
    }
    let [declarator] = declarators(field)[..] else {
        return None;
    };
    let name = field_text(declarator, "name", src);
    let (edits, what) = match declarator.child_by_field_name("value") {
        Some(value) => (vec![set_initializer(value, src)?], "Set -> Set.of"),
        None => static_block(field, declarator, kind, src)?,
    };
    lookups_only(root, declarator, name, src, &edits).then_some((edits, what))
}

/// `Collections.unmodifiableSet(new HashSet<>(Arrays.asList(literals)))` -> `Set.of(..)`.
fn set_initializer(value: Node, src: &str) -> Option<Edit> {
    let copy = sole_argument(value, "Collections", "unmodifiableSet", src)?;
    let listed = (copy.kind() == "object_creation_expression"
        && created(copy, src) == "HashSet"
        && copy.child_by_field_name("arguments")?.named_child_count() == 1)
        .then(|| copy.child_by_field_name("arguments")?.named_child(0))??;
    let args = listed
        .child_by_field_name("arguments")
        .filter(|_| is_call(listed, "Arrays", "asList", src))?;
    let elements = named_children(args);
    distinct_literals(&elements, src)?;
    let inner = &src[args.start_byte() + 1..args.end_byte() - 1];
    Some(Edit::replace(
        value.byte_range(),
        format!("Set.of({inner})"),
    ))
}

/// A static block of this class holding only `T t = new HashMap<>()` (a HashSet for a set),
/// `t.put(k, v);` (`t.add(e);`) and `FIELD = Collections.unmodifiableMap(t);`: the edits
/// moving its entries into the field's initializer and removing the block.
fn static_block(
    field: Node,
    declarator: Node,
    kind: &str,
    src: &str,
) -> Option<(Vec<Edit>, &'static str)> {
    let name = field_text(declarator, "name", src);
    let (made, add, wrap) = if kind == "Map" {
        (&["HashMap", "LinkedHashMap"][..], "put", "unmodifiableMap")
    } else {
        (&["HashSet"][..], "add", "unmodifiableSet")
    };
    let body = field.parent()?;
    let block = named_children(body).into_iter().find_map(|member| {
        let block = member.named_child(0)?;
        (member.kind() == "static_initializer" && text(block, src).contains(&format!("{name} =")))
            .then_some(block)
    })?;
    let statements = named_children(block);
    let [first, entries @ .., last] = &statements[..] else {
        return None;
    };
    // `Map<K, V> t = new HashMap<>();`
    let [local] = declarators(*first)[..] else {
        return None;
    };
    let temp = field_text(local, "name", src);
    let creation = local.child_by_field_name("value")?;
    let empty = first.kind() == "local_variable_declaration"
        && creation.kind() == "object_creation_expression"
        && made.contains(&created(creation, src))
        && creation
            .child_by_field_name("arguments")?
            .named_child_count()
            == 0;
    // `FIELD = Collections.unmodifiableMap(t);`
    let assignment = last.named_child(0)?;
    let assigned = last.kind() == "expression_statement"
        && assignment.kind() == "assignment_expression"
        && field_text(assignment, "left", src) == name
        && sole_argument(
            assignment.child_by_field_name("right")?,
            "Collections",
            wrap,
            src,
        )
        .is_some_and(|t| text(t, src) == temp);
    if !empty || !assigned || entries.is_empty() {
        return None;
    }
    let mut keys = Vec::new();
    let mut pairs = Vec::new();
    for statement in entries {
        let call = statement.named_child(0)?;
        let receiver = call.child_by_field_name("object")?;
        if statement.kind() != "expression_statement"
            || !is_call(call, temp, add, src)
            || text(receiver, src) != temp
        {
            return None;
        }
        let args = named_children(call.child_by_field_name("arguments")?);
        match (kind, &args[..]) {
            ("Map", [key, value]) if never_null(*value) => {
                pairs.push(format!("{}, {}", text(*key, src), text(*value, src)));
                keys.push(*key);
            }
            ("Set", [element]) => {
                pairs.push(text(*element, src).to_string());
                keys.push(*element);
            }
            _ => return None,
        }
    }
    distinct_literals(&keys, src)?;
    let indent = indent_at(src, field.start_byte());
    let initializer = if kind == "Set" {
        format!("Set.of({})", pairs.join(", "))
    } else if pairs.len() > MAP_OF_PAIRS {
        let entries: Vec<String> = pairs.iter().map(|p| format!("Map.entry({p})")).collect();
        format!(
            "Map.ofEntries(\n{indent}        {})",
            entries.join(&format!(",\n{indent}        "))
        )
    } else if pairs.len() <= 2 {
        format!("Map.of({})", pairs.join(", "))
    } else {
        format!(
            "Map.of(\n{indent}        {})",
            pairs.join(&format!(",\n{indent}        "))
        )
    };
    let what = if kind == "Set" {
        "Set built in a static block -> Set.of"
    } else {
        "Map built in a static block -> Map.of"
    };
    let block_member = block.parent()?;
    Some((
        vec![
            Edit::insert(declarator.end_byte(), format!(" = {initializer}")),
            Edit::replace(deletion_span(src, block_member.byte_range()), ""),
        ],
        what,
    ))
}

/// Whether every mention of the field `name` in the file, but its declaration and the
/// parts `edits` replace, is a lookup on it (`NAME.get(k)`, `Owner.NAME.contains(x)`).
fn lookups_only(root: Node, declarator: Node, name: &str, src: &str, edits: &[Edit]) -> bool {
    let declared = declarator.child_by_field_name("name");
    let mut only = true;
    java_syntax::walk(root, |n| {
        if n.kind() != "identifier" || text(n, src) != name || Some(n) == declared {
            return;
        }
        if edits
            .iter()
            .any(|e| e.range.start <= n.start_byte() && n.end_byte() <= e.range.end)
        {
            return;
        }
        let read = match n.parent() {
            Some(p) if p.kind() == "field_access" && p.child_by_field_name("field") == Some(n) => p,
            _ => n,
        };
        only &= read.parent().is_some_and(|call| {
            call.kind() == "method_invocation"
                && call.child_by_field_name("object") == Some(read)
                && LOOKUPS.contains(&field_text(call, "name", src))
        });
    });
    only
}

fn declarators(declaration: Node) -> Vec<Node> {
    let mut c = declaration.walk();
    declaration
        .children_by_field_name("declarator", &mut c)
        .collect()
}

/// The one argument of `owner.method(x)`.
fn sole_argument<'t>(call: Node<'t>, owner: &str, method: &str, src: &str) -> Option<Node<'t>> {
    let args = call.child_by_field_name("arguments")?;
    (is_call(call, owner, method, src) && args.named_child_count() == 1)
        .then(|| args.named_child(0))?
}

fn is_call(call: Node, owner: &str, method: &str, src: &str) -> bool {
    call.kind() == "method_invocation"
        && field_text(call, "object", src) == owner
        && field_text(call, "name", src) == method
}

/// The simple name a creation constructs, without type arguments (`HashMap` for
/// `new HashMap<String, Long>()`).
fn created<'s>(creation: Node, src: &'s str) -> &'s str {
    let ty = field_text(creation, "type", src);
    let raw = ty.split('<').next().unwrap_or(ty).trim();
    raw.strip_prefix("java.util.").unwrap_or(raw)
}

/// `Some` when `nodes` are string literals without escapes, or decimal integers, none
/// spelled twice (`1L` and `1l` alike): plain literals whose text says their value, so no
/// two are equal.
fn distinct_literals(nodes: &[Node], src: &str) -> Option<()> {
    let mut seen = BTreeSet::new();
    nodes
        .iter()
        .all(|n| {
            let t = text(*n, src);
            let plain = match n.kind() {
                "string_literal" => !t.contains('\\') && !t.starts_with("\"\"\""),
                "decimal_integer_literal" => !t.contains('_') && (t == "0" || !t.starts_with('0')),
                _ => false,
            };
            plain && seen.insert(t.to_ascii_lowercase())
        })
        .then_some(())
}

/// Whether an expression can never be null: a literal, arithmetic or concatenation of
/// such, a new object, a class literal.
fn never_null(n: Node) -> bool {
    match n.kind() {
        "string_literal"
        | "character_literal"
        | "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal"
        | "decimal_floating_point_literal"
        | "hex_floating_point_literal"
        | "true"
        | "false"
        | "object_creation_expression"
        | "array_creation_expression"
        | "class_literal" => true,
        "binary_expression" | "unary_expression" | "parenthesized_expression" => {
            let mut c = n.walk();
            let operands: Vec<Node> = n.named_children(&mut c).collect();
            !operands.is_empty() && operands.into_iter().all(never_null)
        }
        _ => false,
    }
}
