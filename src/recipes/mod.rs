//! The recipe tier: deterministic, idempotent byte-range rewrites. Each recipe has an id
//! and a one-line description; the planner names them in tasks and the journal records them.

pub mod build_plugins;
pub mod coordinates;
pub mod dependencies;
pub mod jakarta;
pub mod java_level;
pub mod java_rules;
pub mod junit5;
pub mod overlay;
pub mod pom_edit;

use serde::Serialize;

use crate::analyze::Fingerprint;
use crate::config::Catalog;

/// What a source-level recipe did to one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileResult {
    /// The new text, when anything changed.
    pub text: Option<String>,
    /// One line per change.
    pub changes: Vec<String>,
    /// Detector hits and refused rewrites: work for the next tier.
    pub findings: Vec<String>,
}

/// What the catalog says about a recipe.
#[derive(Debug, Clone, Serialize)]
pub struct RecipeInfo {
    pub id: &'static str,
    pub description: &'static str,
}

pub const JAVA_LEVEL: &str = "java-level";
pub const BUILD_PLUGINS: &str = "build-plugins";
pub const REMOVED_JAVA_EE_APIS: &str = "removed-java-ee-apis";
pub const JUNIT_DEPENDENCIES: &str = "junit-jupiter-dependencies";
pub const JUNIT4_TO_JUPITER: &str = "junit4-to-jupiter";

pub fn catalog() -> Vec<RecipeInfo> {
    vec![
        RecipeInfo {
            id: JAVA_LEVEL,
            description: "Raises maven.compiler.release/source/target and compiler <release> to the target where they are defined (never downgrades).",
        },
        RecipeInfo {
            id: BUILD_PLUGINS,
            description: "Raises maven-compiler-plugin and maven-surefire-plugin to catalog versions that support the target JDK and the JUnit Platform.",
        },
        RecipeInfo {
            id: REMOVED_JAVA_EE_APIS,
            description: "Adds API dependencies for javax.annotation, javax.xml.bind and javax.activation, which the JDK dropped in Java 11.",
        },
        RecipeInfo {
            id: JUNIT_DEPENDENCIES,
            description: "Replaces junit:junit with JUnit Jupiter, or adds Jupiter plus the vintage engine where JUnit 4 code remains.",
        },
        RecipeInfo {
            id: JUNIT4_TO_JUPITER,
            description: "Rewrites JUnit 4 test sources to JUnit Jupiter (imports, lifecycle annotations, assertions, expected/timeout).",
        },
    ]
}

/// What pom recipes read: the analysis and the versions to write.
pub struct PomContext<'a> {
    pub fingerprint: &'a Fingerprint,
    pub catalog: &'a Catalog,
    pub target: u32,
}
