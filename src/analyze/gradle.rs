//! Gradle builds (Groovy `build.gradle` and Kotlin `build.gradle.kts`): the projects from
//! `settings.gradle[.kts]` and what their scripts declare. There is no Groovy/Kotlin model
//! here, only the common literal forms, so anything computed stays unknown rather than
//! guessed; the recipes edit the same literal forms.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::pom::{Dependency, Pom};
use crate::repo_path::{Gate, Origin};

/// What the scripts of a Gradle build say.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GradleBuild {
    /// Kotlin DSL (`.kts`) rather than Groovy.
    pub kotlin: bool,
    /// Build scripts, relative to the root (settings first when present).
    pub scripts: Vec<PathBuf>,
    /// Lowest Java release a script declares (compatibility, toolchain or `release`).
    pub java_level: Option<u32>,
    /// Version of the `org.springframework.boot` plugin.
    pub spring_boot: Option<String>,
}

/// `group:artifact[:version]` in a string dependency notation.
static DEPENDENCY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)^\s*(\w+)\s*\(?\s*["']([\w.\-]+):([\w.\-]+)(?::([^"':@]+))?["']"#)
        .expect("valid")
});

static BOOT_PLUGIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"id\s*\(?\s*["']org\.springframework\.boot["']\s*\)?\s*version\s*\(?\s*["']([^"']+)["']"#,
    )
    .expect("valid")
});

/// Java level literals: `sourceCompatibility = 1.8`, `JavaVersion.VERSION_11`,
/// `JavaLanguageVersion.of(8)`, `options.release = 8` / `.set(8)`.
pub static LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?x)
        (?: (?:source|target)Compatibility \s* (?:=|\.set\() \s* (?:JavaVersion\.VERSION_)? ["']? (?P<v1>1[._]\d+|\d+) ["']?
          | JavaLanguageVersion\.of\( \s* (?P<v2>\d+) \s* \)
          | release \s* (?:=|\.set\() \s* (?P<v3>\d+) )"#,
    )
    .expect("valid")
});

/// `1.8`, `1_8`, `8`, `17` as a feature release.
pub fn release(v: &str) -> Option<u32> {
    let v = v.replace('_', ".");
    let v = v.strip_prefix("1.").unwrap_or(&v);
    v.parse().ok()
}

/// The build script of a project directory, if it has one.
pub fn script_in(root: &Path, dir: &Path) -> Option<PathBuf> {
    ["build.gradle.kts", "build.gradle"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| root.join(p).is_file())
}

/// Project directories from `settings.gradle[.kts]`: `include 'a', ':b:c'` or
/// `include("a")`; `:b:c` is the directory `b/c`.
fn included(settings: &str) -> Vec<PathBuf> {
    static INCLUDE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"(?m)^\s*include\s*\(?([^\n)]*)"#).expect("valid"));
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"["']:?([^"']+)["']"#).expect("valid"));
    INCLUDE
        .captures_iter(settings)
        .flat_map(|c| {
            NAME.captures_iter(c.get(1).map_or("", |m| m.as_str()))
                .map(|n| PathBuf::from(n[1].replace(':', "/")))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The projects of a Gradle build as modules (the "pom" carries the script path, the
/// project name and its string-notation dependencies), and the build's facts; `None`
/// when `root` has no Gradle build.
pub fn detect(root: &Path) -> Option<(GradleBuild, Vec<Pom>)> {
    let gate = Gate::new(root, Origin::Repository);
    let settings = ["settings.gradle.kts", "settings.gradle"]
        .iter()
        .map(PathBuf::from)
        .find(|p| root.join(p).is_file());
    let root_script = script_in(root, Path::new(""));
    if settings.is_none() && root_script.is_none() {
        return None;
    }
    let mut dirs = vec![PathBuf::new()];
    if let Some(s) = &settings {
        dirs.extend(included(&gate.read_to_string(s).unwrap_or_default()));
    }
    let mut build = GradleBuild {
        kotlin: settings
            .iter()
            .chain(root_script.iter())
            .any(|p| p.extension().is_some_and(|e| e == "kts")),
        scripts: settings.into_iter().collect(),
        ..Default::default()
    };
    let mut poms = Vec::new();
    for dir in dirs {
        let script = script_in(root, &dir);
        let text = script
            .as_ref()
            .and_then(|s| gate.read_to_string(s).ok())
            .unwrap_or_default();
        for c in LEVEL.captures_iter(&text) {
            let v = ["v1", "v2", "v3"].iter().find_map(|k| c.name(k));
            if let Some(r) = v.and_then(|v| release(v.as_str())) {
                build.java_level = Some(build.java_level.map_or(r, |l: u32| l.min(r)));
            }
        }
        if let Some(c) = BOOT_PLUGIN.captures(&text) {
            build.spring_boot = Some(c[1].to_string());
        }
        let dependencies = DEPENDENCY
            .captures_iter(&text)
            .map(|c| Dependency {
                group_id: c[2].to_string(),
                artifact_id: c[3].to_string(),
                version: c.get(4).map(|v| v.as_str().to_string()),
                scope: Some(c[1].to_string()),
                managed: false,
            })
            .collect();
        let name = dir
            .file_name()
            .map_or_else(|| root_name(root), |n| n.to_string_lossy().into_owned());
        let path = script.clone().unwrap_or_else(|| dir.join("build.gradle"));
        build.scripts.extend(script);
        poms.push(Pom {
            path,
            group_id: None,
            artifact_id: name,
            packaging: None,
            parent: None,
            modules: Vec::new(),
            properties: Default::default(),
            dependencies,
            plugins: Vec::new(),
            source_dirs: super::pom::default_source_dirs(),
        });
    }
    Some((build, poms))
}

fn root_name(root: &Path) -> String {
    root.file_name()
        .map_or_else(|| "root".into(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_projects_levels_boot_and_dependencies() {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let p = dir.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w(
            "settings.gradle",
            "rootProject.name = 'shop'\ninclude 'api', ':core:model'\n",
        );
        w(
            "build.gradle",
            "plugins {\n    id 'org.springframework.boot' version '2.7.18'\n}\njava {\n    sourceCompatibility = JavaVersion.VERSION_11\n}\n",
        );
        w(
            "api/build.gradle",
            "sourceCompatibility = '1.8'\ndependencies {\n    testImplementation 'junit:junit:4.13.2'\n    implementation \"javax.servlet:javax.servlet-api:4.0.1\"\n}\n",
        );
        let (build, poms) = detect(dir.path()).unwrap();
        assert!(!build.kotlin);
        assert_eq!(build.java_level, Some(8));
        assert_eq!(build.spring_boot.as_deref(), Some("2.7.18"));
        let dirs: Vec<_> = poms.iter().map(|p| p.path.clone()).collect();
        assert_eq!(
            dirs,
            [
                PathBuf::from("build.gradle"),
                PathBuf::from("api/build.gradle"),
                PathBuf::from("core/model/build.gradle")
            ]
        );
        assert!(poms[1].has_dependency("junit", "junit"));
        assert_eq!(poms[1].dependencies[1].version.as_deref(), Some("4.0.1"));
    }

    #[test]
    fn kotlin_dsl_forms() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("build.gradle.kts"),
            "java {\n    toolchain {\n        languageVersion.set(JavaLanguageVersion.of(17))\n    }\n}\ntasks.withType<JavaCompile> { options.release.set(11) }\ndependencies {\n    testImplementation(\"junit:junit:4.13.2\")\n}\n",
        )
        .unwrap();
        let (build, poms) = detect(dir.path()).unwrap();
        assert!(build.kotlin);
        assert_eq!(build.java_level, Some(11));
        assert!(poms[0].has_dependency("junit", "junit"));
    }
}
