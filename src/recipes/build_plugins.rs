//! Recipe `build-plugins`: compiler and test plugins new enough for the target JDK and
//! the JUnit Platform.

use std::collections::BTreeSet;

use crate::recipes::overlay::Overlay;
use crate::recipes::pom_edit::append_under;

use super::PomContext;
use super::coordinates::{self, Kind, Move};

/// Oldest compiler plugin that knows `release` and JDK 17+ class files.
const MIN_COMPILER: &str = "3.8.0";
/// Oldest Surefire/Failsafe with the JUnit Platform provider.
const MIN_SUREFIRE_FOR_PLATFORM: &str = "2.22.0";

/// Why plugins must move, from the other recipes' results.
#[derive(Debug, Default)]
pub struct Needs {
    /// Jupiter is being introduced.
    pub junit_platform: bool,
    /// Root modules that got `maven.compiler.release` and must honour it.
    pub release_roots: Vec<usize>,
}

pub fn apply(
    ctx: &PomContext,
    overlay: &mut Overlay,
    needs: &Needs,
) -> anyhow::Result<Vec<String>> {
    let fp = ctx.fingerprint;
    // Raised (literal or through its property) only when below the minimum that works.
    let raise = |artifact: &str, min: &str, new: &str| Move {
        from: format!("org.apache.maven.plugins:{artifact}"),
        to: format!("org.apache.maven.plugins:{artifact}:{new}"),
        below: Some(min.to_string()),
    };
    let mut wanted = vec![raise(
        "maven-compiler-plugin",
        MIN_COMPILER,
        &ctx.catalog.compiler_plugin,
    )];
    if needs.junit_platform {
        for artifact in ["maven-surefire-plugin", "maven-failsafe-plugin"] {
            wanted.push(raise(
                artifact,
                MIN_SUREFIRE_FOR_PLATFORM,
                &ctx.catalog.surefire,
            ));
        }
    }
    let mut changes = coordinates::apply(ctx, overlay, &wanted, Kind::Plugin)?;
    let versioned = |artifact: &str| {
        fp.modules
            .iter()
            .any(|m| m.pom.plugin(artifact).any(|p| p.version.is_some()))
    };
    let spring_boot_parent = fp.spring_boot.is_some();
    let mut additions: BTreeSet<(usize, &str, &str)> = BTreeSet::new();
    if needs.junit_platform && !versioned("maven-surefire-plugin") && !spring_boot_parent {
        for (i, m) in fp.modules.iter().enumerate() {
            if m.parent.is_none() && !m.skipped {
                additions.insert((i, "maven-surefire-plugin", ctx.catalog.surefire.as_str()));
            }
        }
    }
    for &root in &needs.release_roots {
        let chain_declares = fp.modules.iter().enumerate().any(|(i, m)| {
            fp.chain(i).contains(&root)
                && m.pom
                    .plugin("maven-compiler-plugin")
                    .any(|p| p.version.is_some())
        });
        if !chain_declares && !spring_boot_parent {
            additions.insert((
                root,
                "maven-compiler-plugin",
                ctx.catalog.compiler_plugin.as_str(),
            ));
        }
    }
    for (module, artifact, version) in additions {
        let rel = &fp.modules[module].pom.path;
        overlay.edit_pom(rel, |src, project| {
            let xml = format!(
                "<plugin>\n  <groupId>org.apache.maven.plugins</groupId>\n  <artifactId>{artifact}</artifactId>\n  <version>{version}</version>\n</plugin>"
            );
            vec![append_under(src, project, &["build", "plugins"], &xml)]
        })?;
        changes.push(format!("{}: added {artifact} {version}", rel.display()));
    }
    Ok(changes)
}
