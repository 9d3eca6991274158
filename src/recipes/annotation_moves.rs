//! Annotations that move to another library attribute by attribute, driven by a table:
//! springfox's Swagger 2 annotations -> Swagger 3 (`catalog/springfox-annotations.yml`,
//! from springdoc's migration guide), the code half of recipe `springfox-to-springdoc`.
//!
//! Only annotations the file's imports resolve to a table entry are touched, and a file
//! moves whole or not at all: an attribute the table does not map (a `response` class, an
//! `allowableValues` list ...) keeps every Swagger 2 annotation of the file, reported with
//! its line, since the two libraries' annotations cannot be imported side by side under the
//! same simple names. Edits are made on names, keys and values only, so layout and nested
//! annotations (`@ApiImplicitParams({@ApiImplicitParam(..)})`) keep their own edits.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use serde::Deserialize;
use tree_sitter::Node;

use super::FileResult;
use super::java_rules::apply_code_edits;
use super::java_types::Scope;
use crate::edit::{Edit, whole_line};
use crate::java_syntax::{self, text};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    annotations: Vec<Move>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Move {
    from: String,
    to: String,
    /// `parameter`: only for an annotation on a method parameter.
    #[serde(default, rename = "where")]
    on: Option<String>,
    /// What the bare annotation becomes: `keep` (default) or `drop`.
    #[serde(default)]
    marker: Option<String>,
    #[serde(default)]
    add: Option<String>,
    #[serde(default)]
    attributes: BTreeMap<String, Attribute>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Attribute {
    Rename(String),
    Spec(AttributeSpec),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AttributeSpec {
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    one: bool,
    #[serde(default)]
    quote: bool,
    #[serde(default, rename = "enum")]
    enumeration: Option<String>,
    #[serde(default)]
    drop: bool,
}

static SPRINGFOX: LazyLock<Table> = LazyLock::new(|| {
    serde_saphyr::from_str(include_str!("catalog/springfox-annotations.yml"))
        .expect("catalog/springfox-annotations.yml is valid")
});

fn simple(fqn: &str) -> &str {
    fqn.rsplit('.').next().unwrap_or(fqn)
}

/// springfox / Swagger 2 annotations -> Swagger 3.
pub fn springfox(src: &str) -> FileResult {
    rewrite(src, &SPRINGFOX, "Swagger 2 -> Swagger 3 annotations")
}

fn rewrite(src: &str, table: &Table, label: &str) -> FileResult {
    let mut result = FileResult::default();
    if !table
        .annotations
        .iter()
        .any(|m| src.contains(simple(&m.from)))
    {
        return result;
    }
    let Some(parsed) = java_syntax::parse_clean(src) else {
        return result;
    };
    let root = parsed.tree.root_node();
    let scope = Scope::new(root, src);
    let mut found = Vec::new();
    java_syntax::walk(root, |n| {
        if matches!(n.kind(), "annotation" | "marker_annotation")
            && let Some(m) = entry(n, table, &scope)
        {
            found.push((n, m));
        }
    });
    if found.is_empty() {
        return result;
    }
    let names = Names::new(root, src, table);
    let mut edits = Vec::new();
    // Per moved annotation type, the imports its new forms need, in first-use order.
    let mut needed: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    for (n, m) in &found {
        match annotation_edits(*n, m, src, &names) {
            Ok((mut e, imports)) => {
                edits.append(&mut e);
                let list = needed.entry(m.from.as_str()).or_default();
                for i in imports {
                    if !list.contains(&i) {
                        list.push(i);
                    }
                }
            }
            Err(why) => failures.push(format!(
                "line {}: @{} {why}; springdoc's migration table has no Swagger 3 form for it, so the file keeps its Swagger 2 annotations",
                n.start_position().row + 1,
                simple(&m.from)
            )),
        }
    }
    if !failures.is_empty() {
        result.findings = failures;
        return result;
    }
    // An old import gives its place to the first new one its annotations need; the rest
    // follow the last import.
    let mut placed: BTreeSet<String> = BTreeSet::new();
    for imp in java_syntax::imports(root, src)
        .iter()
        .filter(|i| !i.is_static)
    {
        let in_package = |f: &str| f.rsplit_once('.').is_some_and(|(p, _)| p == imp.path);
        let Some((_, imports)) = needed.iter().find(|(f, _)| {
            if imp.wildcard {
                in_package(f)
            } else {
                imp.path == **f
            }
        }) else {
            continue;
        };
        let line = whole_line(src, imp.range.clone());
        match imports
            .iter()
            .find(|i| !placed.contains(*i))
            .filter(|_| !imp.wildcard)
        {
            Some(new) => {
                edits.push(Edit::replace(imp.range.clone(), format!("import {new};")));
                placed.insert(new.clone());
            }
            None => edits.push(Edit::replace(line, "")),
        }
    }
    let rest: BTreeSet<&str> = needed
        .values()
        .flatten()
        .filter(|i| !placed.contains(*i))
        .map(String::as_str)
        .collect();
    result.changes.push(format!(
        "{label}: {} annotation(s) ({})",
        found.len(),
        needed
            .keys()
            .map(|f| simple(f))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    apply_code_edits(src, &edits, &rest, label, &mut result);
    // A file left without imports does not start with the blank line that followed them.
    if let Some(out) = result.text.as_mut()
        && !src.starts_with(['\n', '\r'])
    {
        *out = out.trim_start_matches(['\n', '\r']).to_string();
    }
    result
}

/// The table entry an annotation node resolves to (a parameter's own entry first).
fn entry<'t>(n: Node, table: &'t Table, scope: &Scope) -> Option<&'t Move> {
    let name = n.child_by_field_name("name")?;
    let on_parameter = n
        .parent()
        .filter(|p| p.kind() == "modifiers")
        .and_then(|p| p.parent())
        .is_some_and(|p| p.kind() == "formal_parameter");
    let mut candidates = table
        .annotations
        .iter()
        .filter(|m| scope.denotes(name, &m.from));
    let all: Vec<&Move> = candidates.by_ref().collect();
    all.iter()
        .find(|m| on_parameter && m.on.as_deref() == Some("parameter"))
        .or_else(|| all.iter().find(|m| m.on.is_none()))
        .copied()
}

/// Simple names the file already gives another type: those targets are written fully
/// qualified instead of imported.
struct Names {
    taken: BTreeSet<String>,
}

impl Names {
    fn new(root: Node, src: &str, table: &Table) -> Self {
        let moving: BTreeSet<&str> = table.annotations.iter().map(|m| m.from.as_str()).collect();
        let mut taken: BTreeSet<String> = java_syntax::declared_type_names(root, src)
            .into_iter()
            .collect();
        for imp in java_syntax::imports(root, src) {
            if !imp.wildcard && !imp.is_static && !moving.contains(imp.path.as_str()) {
                taken.insert(simple(&imp.path).to_string());
            }
        }
        Self { taken }
    }

    /// How to write `fqn` here, and the import that needs (if any).
    fn written<'t>(&self, fqn: &'t str) -> (String, Option<&'t str>) {
        let s = simple(fqn);
        if self.taken.contains(s) {
            (fqn.to_string(), None)
        } else {
            (s.to_string(), Some(fqn))
        }
    }
}

type Edits = (Vec<Edit>, Vec<String>);

fn annotation_edits(n: Node, m: &Move, src: &str, names: &Names) -> Result<Edits, String> {
    let name = n.child_by_field_name("name").ok_or("has no name")?;
    let (to, import) = names.written(&m.to);
    let mut imports: Vec<String> = import.into_iter().map(String::from).collect();
    let args = n.child_by_field_name("arguments");
    let mut c = args.map(|a| a.walk());
    let elements: Vec<Node> = match (args, c.as_mut()) {
        (Some(a), Some(c)) => a
            .named_children(c)
            .filter(|x| x.kind() != "comment")
            .collect(),
        _ => Vec::new(),
    };
    if elements.is_empty() {
        if m.marker.as_deref() == Some("drop") {
            return Ok((vec![drop_annotation(n, src)], Vec::new()));
        }
        let replacement = match &m.add {
            Some(add) => format!("@{to}({add})"),
            None => format!("@{to}"),
        };
        return Ok((vec![Edit::replace(n.byte_range(), replacement)], imports));
    }
    let mut edits = vec![Edit::replace(name.byte_range(), to)];
    let bare = elements.len() == 1 && elements[0].kind() != "element_value_pair";
    for (i, el) in elements.iter().enumerate() {
        let (key, value) = if bare {
            ("value", *el)
        } else {
            let key = el
                .child_by_field_name("key")
                .ok_or("has an unnamed attribute")?;
            let value = el
                .child_by_field_name("value")
                .ok_or("has an attribute without value")?;
            (text(key, src), value)
        };
        let spec = match m.attributes.get(key) {
            Some(Attribute::Rename(to)) => AttributeSpec {
                to: Some(to.clone()),
                ..Default::default()
            },
            Some(Attribute::Spec(s)) => AttributeSpec {
                to: s.to.clone(),
                enumeration: s.enumeration.clone(),
                ..*s
            },
            None => return Err(format!("has {key} =")),
        };
        if spec.drop {
            let range = if let Some(next) = elements.get(i + 1) {
                el.start_byte()..next.start_byte()
            } else if let Some(prev) = i.checked_sub(1).map(|p| elements[p]) {
                prev.end_byte()..el.end_byte()
            } else {
                el.byte_range()
            };
            edits.push(Edit::replace(range, ""));
            continue;
        }
        let new_key = spec.to.as_deref().unwrap_or(key);
        let new_value = value_text(value, &spec, src, names, &mut imports)?;
        if bare {
            if new_key != "value" || new_value.is_some() {
                let v = new_value.unwrap_or_else(|| text(value, src).to_string());
                edits.push(Edit::replace(
                    value.byte_range(),
                    format!("{new_key} = {v}"),
                ));
            }
        } else {
            if new_key != key {
                let k = el
                    .child_by_field_name("key")
                    .ok_or("has an unnamed attribute")?;
                edits.push(Edit::replace(k.byte_range(), new_key));
            }
            if let Some(v) = new_value {
                edits.push(Edit::replace(value.byte_range(), v));
            }
        }
    }
    if let (Some(add), Some(args)) = (&m.add, args) {
        edits.push(Edit::insert(args.end_byte() - 1, format!(", {add}")));
    }
    Ok((edits, imports))
}

/// The value rewritten as `spec` says, or `None` when it stays as written.
fn value_text(
    value: Node,
    spec: &AttributeSpec,
    src: &str,
    names: &Names,
    imports: &mut Vec<String>,
) -> Result<Option<String>, String> {
    let written = text(value, src);
    if spec.one && value.kind() == "element_value_array_initializer" {
        let mut c = value.walk();
        let items: Vec<Node> = value.named_children(&mut c).collect();
        return match items.as_slice() {
            [one] => Ok(Some(text(*one, src).to_string())),
            _ => Err(format!(
                "lists several values where one is taken: {written}"
            )),
        };
    }
    if spec.quote {
        return match value.kind() {
            "string_literal" => Ok(None),
            "decimal_integer_literal" => Ok(Some(format!("\"{written}\""))),
            _ => Err(format!("has a value that is no literal: {written}")),
        };
    }
    if let Some(enumeration) = &spec.enumeration {
        let constant = written
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic()))
            .ok_or_else(|| format!("has a value that is no plain string: {written}"))?;
        let (ty, import) = names.written(enumeration);
        imports.extend(import.map(String::from));
        return Ok(Some(format!("{ty}.{}", constant.to_ascii_uppercase())));
    }
    Ok(None)
}

/// The annotation removed: its whole line when alone on it, else with the space after it.
fn drop_annotation(n: Node, src: &str) -> Edit {
    let line = whole_line(src, n.byte_range());
    if src[line.clone()].trim() == text(n, src) {
        return Edit::replace(line, "");
    }
    let rest = &src[n.end_byte()..];
    let ws = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    Edit::replace(n.start_byte()..n.end_byte() + ws, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_loads_and_every_target_is_swagger_3() {
        assert!(SPRINGFOX.annotations.len() >= 10);
        for m in &SPRINGFOX.annotations {
            assert!(
                m.to.starts_with("io.swagger.v3.oas.annotations."),
                "{}",
                m.to
            );
        }
    }

    #[test]
    fn hostile_input_is_left_alone() {
        for src in [
            "@Api(",
            "import io.swagger.annotations.Api; @Api(tags = ) class",
            "\u{0}@ApiParam",
        ] {
            assert!(springfox(src).text.is_none());
        }
    }
}
