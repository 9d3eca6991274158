//! Moving Maven coordinates: dependencies (plain and managed), plugins and the parent, to
//! new group/artifact ids and at least a given version. Shared by the jakarta, Spring Boot
//! and minimum-version recipes so every version bump follows the same rules: a literal
//! version is edited in place, a `${property}` where the property is defined, a missing
//! version (managed elsewhere) is left alone, and an artifact that keeps its coordinates
//! is never downgraded.

use std::collections::BTreeSet;

use roxmltree::Node;
use serde::Deserialize;

use crate::analyze::pom::{
    child, child_text, dependency_nodes, plugin_nodes, property_reference, version_lt,
};
use crate::recipes::overlay::Overlay;
use crate::recipes::pom_edit::set_text;

use super::PomContext;

/// `from` (group:artifact) moves to `to` (group:artifact:version). The version is raised
/// when the declared one is below `below` (default: below `to`'s version).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub below: Option<String>,
}

/// Which declarations a move applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dependency,
    Plugin,
    Parent,
}

struct Parsed<'a> {
    from: (&'a str, &'a str),
    to: (&'a str, &'a str, &'a str),
    below: &'a str,
}

fn parse(m: &Move) -> anyhow::Result<Parsed<'_>> {
    let from: Vec<&str> = m.from.split(':').collect();
    let to: Vec<&str> = m.to.split(':').collect();
    match (from.as_slice(), to.as_slice()) {
        ([g, a], [tg, ta, tv]) => Ok(Parsed {
            from: (g, a),
            to: (tg, ta, tv),
            below: m.below.as_deref().unwrap_or(tv),
        }),
        _ => anyhow::bail!("move {} -> {}: expected g:a -> g:a:v", m.from, m.to),
    }
}

fn nodes<'a, 'i>(project: Node<'a, 'i>, kind: Kind) -> Vec<Node<'a, 'i>> {
    match kind {
        Kind::Dependency => dependency_nodes(project).into_iter().map(|x| x.0).collect(),
        Kind::Plugin => plugin_nodes(project).into_iter().map(|x| x.0).collect(),
        Kind::Parent => child(project, "parent").into_iter().collect(),
    }
}

fn matches(n: Node, kind: Kind, group: &str, artifact: &str) -> bool {
    let g = child_text(n, "groupId").unwrap_or_else(|| match kind {
        Kind::Plugin => "org.apache.maven.plugins".into(),
        _ => String::new(),
    });
    g == group && child_text(n, "artifactId").as_deref() == Some(artifact)
}

/// Applies every move to every module's pom; returns one line per change.
pub fn apply(
    ctx: &PomContext,
    overlay: &mut Overlay,
    moves: &[Move],
    kind: Kind,
) -> anyhow::Result<Vec<String>> {
    let fp = ctx.fingerprint;
    let parsed = moves
        .iter()
        .map(parse)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut changes = Vec::new();
    let mut properties_done: BTreeSet<(usize, String)> = BTreeSet::new();
    for (i, module) in fp.modules.iter().enumerate().filter(|(_, m)| !m.skipped) {
        let rel = module.pom.path.clone();
        // Property edits land in whichever pom defines the property.
        let mut property_edits: Vec<(usize, String, String)> = Vec::new();
        overlay.edit_pom(&rel, |src, project| {
            let mut edits = Vec::new();
            for n in nodes(project, kind) {
                let Some(m) = parsed.iter().find(|m| matches(n, kind, m.from.0, m.from.1)) else {
                    continue;
                };
                let (tg, ta, tv) = m.to;
                let what = format!("{}:{}", m.from.0, m.from.1);
                // Another artifact's version says nothing about the new one's: it is
                // replaced, never compared.
                let moved = (m.from.0, m.from.1) != (tg, ta);
                if moved {
                    if let Some(g) = child(n, "groupId") {
                        edits.push(set_text(src, g, tg));
                    }
                    if let Some(a) = child(n, "artifactId") {
                        edits.push(set_text(src, a, ta));
                    }
                    changes.push(format!("{}: {what} -> {tg}:{ta}", rel.display()));
                }
                let Some(v) = child(n, "version") else {
                    continue;
                };
                let raw = v.text().unwrap_or("").trim();
                match property_reference(raw) {
                    Some(name) => {
                        if let Some((def, current)) = fp.property(i, name)
                            && (moved || version_lt(current, m.below))
                            && properties_done.insert((def, name.to_string()))
                        {
                            property_edits.push((def, name.to_string(), tv.to_string()));
                            changes.push(format!(
                                "{}: ${{{name}}} {current} -> {tv} (for {ta})",
                                fp.modules[def].pom.path.display()
                            ));
                        }
                    }
                    None if moved || version_lt(raw, m.below) => {
                        edits.push(set_text(src, v, tv));
                        changes.push(format!("{}: {ta} {raw} -> {tv}", rel.display()));
                    }
                    None => {}
                }
            }
            edits
        })?;
        for (def, name, value) in property_edits {
            overlay.edit_pom(&fp.modules[def].pom.path, |src, project| {
                child(project, "properties")
                    .and_then(|p| child(p, &name))
                    .map(|n| vec![set_text(src, n, &value)])
                    .unwrap_or_default()
            })?;
        }
    }
    Ok(changes)
}
