//! The recipe tier: deterministic, idempotent byte-range rewrites. Each recipe has an id
//! and a one-line description; the planner names them in tasks and the journal records them.

pub mod annotation_moves;
pub mod batch_configurer;
pub mod build_plugins;
pub mod coordinates;
pub mod dependencies;
pub mod do_privileged_blocks;
pub mod gradle;
pub mod idioms;
pub mod input_modifier_holders;
pub mod jakarta;
pub mod java_lang_clashes;
pub mod java_level;
pub mod java_rules;
pub mod java_types;
pub mod javax_security_cert;
pub mod junit5;
pub mod kafka_send_callbacks;
pub mod multipart_resolver;
pub mod overlay;
pub mod pom_edit;
pub mod reflective_new_instance;
pub mod registry;
pub mod request_factory_timeout;
pub mod rounding_mode_holders;
pub mod sax1_handlers;
pub mod security_manager_checks;
pub mod spring_batch;
pub mod spring_boot;
pub mod spring_security;
pub mod springfox_docket;
pub mod static_helper;
pub mod static_imports;
pub mod sun_base64_handlers;
pub mod upgrade_versions;
pub mod xml_reader_factory;

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

impl FileResult {
    /// This result, then `next` on the text it left (`src` when it changed nothing): one
    /// result for two passes over a file.
    pub fn then(self, src: &str, next: impl FnOnce(&str) -> FileResult) -> FileResult {
        let FileResult {
            text,
            mut changes,
            mut findings,
        } = self;
        let second = next(text.as_deref().unwrap_or(src));
        changes.extend(second.changes);
        findings.extend(second.findings);
        FileResult {
            text: second.text.or(text),
            changes,
            findings,
        }
    }
}

pub const JAVA_LEVEL: &str = "java-level";
pub const BUILD_PLUGINS: &str = "build-plugins";
pub const REMOVED_JAVA_EE_APIS: &str = "removed-java-ee-apis";
pub const JUNIT_DEPENDENCIES: &str = "junit-jupiter-dependencies";
pub const JUNIT4_TO_JUPITER: &str = "junit4-to-jupiter";
pub const JAVAX_TO_JAKARTA: &str = "javax-to-jakarta";
pub const SPRING_BOOT_3: &str = "spring-boot-3";
pub const JAVA_UPGRADE_VERSIONS: &str = "java-upgrade-versions";
pub const GRADLE_BUILD: &str = "gradle-build";
pub const SPRING_SECURITY_FILTER_CHAIN: &str = "spring-security-filter-chain";
pub const JAVA_LANG_CLASHES: &str = "java-lang-clashes";

/// Recipes written in code (over data tables where one exists): id, kind, description.
pub fn code_recipes() -> [(&'static str, &'static str, &'static str); 11] {
    [
        (
            JAVA_LEVEL,
            "code",
            "Raises maven.compiler.release/source/target and compiler <release> to the target where they are defined (never downgrades).",
        ),
        (
            BUILD_PLUGINS,
            "code",
            "Raises maven-compiler-plugin and maven-surefire-plugin to catalog versions that support the target JDK and the JUnit Platform.",
        ),
        (
            REMOVED_JAVA_EE_APIS,
            "code",
            "Adds API dependencies for javax.annotation, javax.xml.bind and javax.activation, which the JDK dropped in Java 11.",
        ),
        (
            JUNIT_DEPENDENCIES,
            "code",
            "Replaces junit:junit with JUnit Jupiter, or adds Jupiter plus the vintage engine where JUnit 4 code remains.",
        ),
        (JUNIT4_TO_JUPITER, "table", &junit5::TABLE.description),
        (JAVAX_TO_JAKARTA, "table", &jakarta::TABLE.description),
        (SPRING_BOOT_3, "table", spring_boot::description()),
        (
            JAVA_UPGRADE_VERSIONS,
            "table",
            &upgrade_versions::TABLE.description,
        ),
        (
            SPRING_SECURITY_FILTER_CHAIN,
            "code",
            "WebSecurityConfigurerAdapter subclasses become SecurityFilterChain / WebSecurityCustomizer beans (common shapes; the rest is handed to the next tier). Runs with spring-boot-3.",
        ),
        (
            JAVA_LANG_CLASHES,
            "code",
            "A project type named like a type java.lang gained after Java 8 (Record, Module, ProcessHandle ...) and reached through an on-demand import gets a single-type import, since the name would be ambiguous with java.lang's.",
        ),
        (
            GRADLE_BUILD,
            "code",
            "Gradle scripts (Groovy and Kotlin DSL): Java level, JUnit Platform and Jupiter dependencies, moved coordinates and the Spring Boot plugin, as literal edits (not validated by a build).",
        ),
    ]
}

/// What pom recipes read: the analysis and the versions to write.
pub struct PomContext<'a> {
    pub fingerprint: &'a Fingerprint,
    pub catalog: &'a Catalog,
    pub target: u32,
}
