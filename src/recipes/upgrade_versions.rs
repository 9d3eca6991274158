//! Recipe `java-upgrade-versions`: libraries and plugins that break on the target JDK are
//! raised to the oldest release that works there (data: `catalog/java-upgrade-versions.yml`;
//! the edits are [`coordinates`] moves, so properties and never-downgrade apply).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::recipes::overlay::Overlay;

use super::PomContext;
use super::coordinates::{self, Kind, Move};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    pub id: String,
    pub description: String,
    dependencies: Vec<Minimum>,
    plugins: Vec<Minimum>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Minimum {
    coordinates: String,
    min: BTreeMap<u32, String>,
}

pub static TABLE: LazyLock<Table> = LazyLock::new(|| {
    serde_saphyr::from_str(include_str!("catalog/java-upgrade-versions.yml"))
        .expect("built-in java-upgrade-versions table is valid YAML")
});

fn moves(list: &[Minimum], target: u32) -> Vec<Move> {
    list.iter()
        .filter_map(|m| {
            let (_, v) = m.min.range(..=target).next_back()?;
            Some(Move {
                from: m.coordinates.clone(),
                to: format!("{}:{v}", m.coordinates),
                below: None,
            })
        })
        .collect()
}

/// The dependency moves for `target` (Gradle scripts apply them to string notations).
pub fn dependency_moves(target: u32) -> Vec<Move> {
    moves(&TABLE.dependencies, target)
}

pub fn apply(ctx: &PomContext, overlay: &mut Overlay) -> anyhow::Result<Vec<String>> {
    let mut changes = coordinates::apply(
        ctx,
        overlay,
        &moves(&TABLE.dependencies, ctx.target),
        Kind::Dependency,
    )?;
    changes.extend(coordinates::apply(
        ctx,
        overlay,
        &moves(&TABLE.plugins, ctx.target),
        Kind::Plugin,
    )?);
    Ok(changes)
}

/// Whether any module declares something the table covers (the plan skips the task
/// otherwise).
pub fn relevant(fp: &crate::analyze::Fingerprint) -> bool {
    let listed = |list: &[Minimum], g: &str, a: &str| {
        list.iter().any(|m| m.coordinates == format!("{g}:{a}"))
    };
    fp.modules.iter().filter(|m| !m.skipped).any(|m| {
        m.pom
            .dependencies
            .iter()
            .any(|d| listed(&TABLE.dependencies, &d.group_id, &d.artifact_id))
            || m.pom
                .plugins
                .iter()
                .any(|p| listed(&TABLE.plugins, &p.group_id, &p.artifact_id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_at_or_below_the_target_applies() {
        let lombok = |t| {
            moves(&TABLE.dependencies, t)
                .into_iter()
                .find(|m| m.from == "org.projectlombok:lombok")
                .map(|m| m.to)
        };
        assert_eq!(
            lombok(17).as_deref(),
            Some("org.projectlombok:lombok:1.18.22")
        );
        assert_eq!(
            lombok(21).as_deref(),
            Some("org.projectlombok:lombok:1.18.30")
        );
        let war = moves(&TABLE.plugins, 21)
            .into_iter()
            .find(|m| m.from.ends_with("maven-war-plugin"))
            .unwrap();
        assert!(war.to.ends_with(":3.3.2"));
    }
}
