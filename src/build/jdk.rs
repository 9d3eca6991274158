//! Installed JDKs and which one can build a given Java level.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Jdk {
    pub release: u32,
    pub home: PathBuf,
}

/// Reads the feature release from `$home/release` (`JAVA_VERSION="17.0.15"`).
pub fn release_of(home: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(home.join("release")).ok()?;
    let line = text.lines().find(|l| l.starts_with("JAVA_VERSION="))?;
    let v = line.trim_start_matches("JAVA_VERSION=").trim_matches('"');
    let v = v.strip_prefix("1.").unwrap_or(v);
    v.split(['.', '_', '-', '+']).next()?.parse().ok()
}

/// Configured JDKs first, then JAVA_HOME, then `/usr/lib/jvm/*`; one per release.
pub fn discover(configured: &BTreeMap<u32, PathBuf>) -> Vec<Jdk> {
    let mut found: BTreeMap<u32, PathBuf> = configured.clone();
    let mut candidates: Vec<PathBuf> = std::env::var_os("JAVA_HOME")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Ok(entries) = std::fs::read_dir("/usr/lib/jvm") {
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| !p.is_symlink())
            .collect();
        dirs.sort();
        candidates.extend(dirs);
    }
    for home in candidates {
        if home.join("bin/javac").is_file()
            && let Some(r) = release_of(&home)
        {
            found.entry(r).or_insert(home);
        }
    }
    found
        .into_iter()
        .map(|(release, home)| Jdk { release, home })
        .collect()
}

/// Oldest `-source`/`--release` a JDK's javac accepts.
pub fn oldest_supported_level(jdk_release: u32) -> u32 {
    match jdk_release {
        0..=8 => 3,
        9..=11 => 6,
        12..=19 => 7,
        _ => 8,
    }
}

/// The JDK to build a project declaring `level` (None: unknown) and the level to build it
/// at: the oldest JDK that accepts the level; if none does, the oldest JDK at the oldest
/// level it accepts (the caller records the raise).
pub fn choose(jdks: &[Jdk], level: Option<u32>) -> Option<(Jdk, Option<u32>)> {
    let level_or_8 = level.unwrap_or(8);
    if let Some(j) = jdks
        .iter()
        .find(|j| j.release >= level_or_8 && oldest_supported_level(j.release) <= level_or_8)
    {
        return Some((j.clone(), None));
    }
    let oldest = jdks.iter().find(|j| j.release >= level_or_8)?;
    Some((oldest.clone(), Some(oldest_supported_level(oldest.release))))
}

/// The JDK to validate a `target` build: the oldest at or above it.
pub fn for_target(jdks: &[Jdk], target: u32) -> Option<Jdk> {
    jdks.iter().find(|j| j.release >= target).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jdks(r: &[u32]) -> Vec<Jdk> {
        r.iter()
            .map(|&release| Jdk {
                release,
                home: PathBuf::from(format!("/jdk{release}")),
            })
            .collect()
    }

    #[test]
    fn picks_oldest_jdk_that_accepts_the_level() {
        let all = jdks(&[8, 17, 21]);
        assert_eq!(choose(&all, Some(8)).unwrap().0.release, 8);
        assert_eq!(choose(&all, Some(11)).unwrap().0.release, 17);
        assert_eq!(
            choose(&jdks(&[17, 21]), Some(8)).unwrap(),
            (all[1].clone(), None)
        );
    }

    #[test]
    fn raises_a_level_no_jdk_accepts() {
        let (jdk, raised) = choose(&jdks(&[17]), Some(6)).unwrap();
        assert_eq!((jdk.release, raised), (17, Some(7)));
        assert!(for_target(&jdks(&[17]), 21).is_none());
        assert_eq!(for_target(&jdks(&[17, 25]), 21).unwrap().release, 25);
    }
}
