//! Recipe `java-level`: the compiler level, edited where it is defined.

use std::collections::{BTreeMap, BTreeSet};

use crate::analyze::pom::{child, execution_node, plugin_nodes_for};
use crate::analyze::{LevelLocation, LevelSite};
use crate::edit::Edit;
use crate::recipes::overlay::Overlay;
use crate::recipes::pom_edit::{append_under, set_text};

use super::PomContext;

/// What the recipe did, for the journal.
#[derive(Debug, Default)]
pub struct LevelChange {
    pub changes: Vec<String>,
    /// Root modules that had no level at all and got `maven.compiler.release`.
    pub added_release_to: Vec<usize>,
}

pub fn apply(ctx: &PomContext, overlay: &mut Overlay) -> anyhow::Result<LevelChange> {
    let fp = ctx.fingerprint;
    let target = ctx.target.to_string();
    let mut out = LevelChange::default();
    let mut by_module: BTreeMap<usize, Vec<&LevelSite>> = BTreeMap::new();
    for site in &fp.level_sites {
        if fp.modules[site.module].skipped {
            out.changes.push(format!(
                "{}: skipped module, level left at {}",
                fp.modules[site.module].pom.path.display(),
                site.raw
            ));
            continue;
        }
        match site.release {
            Some(r) if r < ctx.target => by_module.entry(site.module).or_default().push(site),
            Some(_) => {}
            None => out.changes.push(format!(
                "{}: level {:?} is not a Java version; left alone",
                fp.modules[site.module].pom.path.display(),
                site.raw
            )),
        }
    }
    for (module, sites) in by_module {
        let rel = fp.modules[module].pom.path.clone();
        overlay.edit_pom(&rel, |src, project| {
            sites
                .iter()
                .filter_map(|site| {
                    let node = match &site.location {
                        LevelLocation::Property(name) => {
                            child(project, "properties").and_then(|p| child(p, name))
                        }
                        LevelLocation::CompilerConfig { key, managed } => {
                            plugin_nodes_for(project, "maven-compiler-plugin", *managed)
                                .find_map(|p| child(p, "configuration").and_then(|c| child(c, key)))
                        }
                        LevelLocation::ExecutionConfig {
                            execution,
                            key,
                            managed,
                        } => plugin_nodes_for(project, "maven-compiler-plugin", *managed).find_map(
                            |p| {
                                execution_node(p, execution)
                                    .and_then(|e| child(e, "configuration"))
                                    .and_then(|c| child(c, key))
                            },
                        ),
                    };
                    node.map(|n| set_text(src, n, &target))
                })
                .collect::<Vec<Edit>>()
        })?;
        for s in sites {
            out.changes.push(format!(
                "{}: {} {} -> {}",
                rel.display(),
                describe(&s.location),
                s.raw,
                target
            ));
        }
    }
    // Modules with no level anywhere in their chain compile at the plugin default; give
    // their top in-repo ancestor an explicit release.
    let roots: BTreeSet<usize> = fp
        .modules_without_level()
        .map(|m| *fp.chain(m).last().unwrap_or(&m))
        .filter(|&r| !fp.modules[r].skipped)
        .collect();
    for root in roots {
        let rel = fp.modules[root].pom.path.clone();
        overlay.edit_pom(&rel, |src, project| {
            vec![append_under(
                src,
                project,
                &["properties"],
                &format!("<maven.compiler.release>{target}</maven.compiler.release>"),
            )]
        })?;
        out.changes.push(format!(
            "{}: added maven.compiler.release {target}",
            rel.display()
        ));
        out.added_release_to.push(root);
    }
    Ok(out)
}

fn describe(location: &LevelLocation) -> String {
    match location {
        LevelLocation::Property(p) => format!("property {p}"),
        LevelLocation::CompilerConfig {
            key,
            managed: false,
        } => format!("compiler <{key}>"),
        LevelLocation::CompilerConfig { key, managed: true } => format!("managed compiler <{key}>"),
        LevelLocation::ExecutionConfig { execution, key, .. } => {
            format!("compiler execution {execution} <{key}>")
        }
    }
}
