//! Stage 3: the run's TODO list, derived from the fingerprint.

use crate::analyze::Fingerprint;
use crate::analyze::java::JunitGeneration;
use crate::analyze::pom::version_lt;
use crate::config::Config;
use crate::journal::{BuildOutcome, Task};
use crate::recipes;
use crate::recipes::registry::Registry;
use crate::recipes::{java_lang_clashes, spring_boot, upgrade_versions};

/// Oldest Spring Boot line that runs on Java 17.
const MIN_BOOT_FOR_17: &str = "2.5.0";

/// The task list and the platform decisions behind it (each with its reason).
#[derive(Debug, Default)]
pub struct Plan {
    pub tasks: Vec<Task>,
    pub decisions: Vec<String>,
}

pub fn plan(
    fp: &Fingerprint,
    config: &Config,
    registry: &Registry,
    baseline: Option<&BuildOutcome>,
) -> Plan {
    let target = config.target;
    let boot_3 = moves_to_boot_3(fp, config);
    let decisions = decisions(fp, config, baseline);
    let mut tasks = Vec::new();
    let mut add = |id: String,
                   title: String,
                   recipes: &[&str],
                   files: Vec<std::path::PathBuf>,
                   reason: String| {
        tasks.push(Task {
            id,
            title,
            recipes: recipes.iter().map(|r| r.to_string()).collect(),
            files,
            reason,
        });
    };
    let level_below = fp
        .level_sites
        .iter()
        .any(|s| s.release.is_some_and(|r| r < target));
    let undeclared = fp.modules_without_level().next().is_some();
    // Pom recipes apply to Maven builds; a Gradle build gets the `gradle-build` task.
    let maven = fp.gradle.is_none();
    if maven && (level_below || undeclared) {
        add(
            "java-level".into(),
            format!("Raise the Java level to {target}"),
            &[recipes::JAVA_LEVEL],
            Vec::new(),
            match fp.java_level {
                Some(l) => format!("declared level is {l}"),
                None => "no level declared; the compiler plugin default applies".into(),
            },
        );
    }
    let mut junit_files = 0;
    for module in fp.modules.iter().filter(|m| !m.skipped) {
        for f in &module.java_files {
            if let Some(e) = &f.syntax_error {
                add(
                    format!("syntax:{}", f.path.display()),
                    format!("Repair {} (not rewritten: {e})", f.path.display()),
                    &[],
                    vec![f.path.clone()],
                    "the parser reports errors; recipes never rewrite such a file".into(),
                );
                continue;
            }
            let what = match f.junit {
                JunitGeneration::Junit4 => "JUnit 4",
                JunitGeneration::Junit3 => "JUnit 3",
                _ => continue,
            };
            let recipes = &[recipes::JUNIT4_TO_JUPITER][..];
            junit_files += 1;
            add(
                format!("junit5:{}", f.path.display()),
                format!("Migrate {} to JUnit 5", f.path.display()),
                recipes,
                vec![f.path.clone()],
                format!(
                    "{what}{}",
                    if f.junit4_constructs.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", f.junit4_constructs.join(", "))
                    }
                ),
            );
        }
    }
    let clashes = java_lang_clashes::in_project(fp, target);
    if !clashes.is_empty() {
        add(
            "java-lang-clashes".into(),
            format!(
                "Import project types java.lang now shadows on demand: {}",
                clashes.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
            &[recipes::JAVA_LANG_CLASHES],
            Vec::new(),
            "java.lang gained a type of that name; an on-demand import of the project's would be ambiguous".into(),
        );
    }
    let declares_junit4 = fp
        .modules
        .iter()
        .any(|m| m.pom.has_dependency("junit", "junit"));
    if maven && (junit_files > 0 || declares_junit4) {
        add(
            "junit-dependencies".into(),
            "Move the build to JUnit Jupiter".into(),
            &[recipes::JUNIT_DEPENDENCIES],
            Vec::new(),
            format!("{junit_files} JUnit 4/3 files; junit:junit declared: {declares_junit4}"),
        );
    }
    let provided_by_classpath =
        baseline.is_some_and(|b| b.compiled() && b.jdk.is_some_and(|j| j >= 11));
    if maven && !fp.removed_modules.is_empty() && !provided_by_classpath {
        add(
            "removed-java-ee-apis".into(),
            "Add API dependencies for Java EE modules removed in Java 11".into(),
            &[recipes::REMOVED_JAVA_EE_APIS],
            Vec::new(),
            format!("code imports {:?}", fp.removed_modules),
        );
    }
    if maven {
        add(
            "build-plugins".into(),
            format!("Compiler and test plugins that support Java {target} and the JUnit Platform"),
            &[recipes::BUILD_PLUGINS],
            Vec::new(),
            "old plugin versions fail on new JDKs or do not run Jupiter tests".into(),
        );
    }
    if maven && upgrade_versions::relevant(fp) {
        add(
            "upgrade-versions".into(),
            format!("Libraries and plugins that break on Java {target}"),
            &[recipes::JAVA_UPGRADE_VERSIONS],
            Vec::new(),
            "declared versions are checked against the catalog's minimum for the target".into(),
        );
    }
    let resources = |keep: fn(&std::path::Path) -> bool| -> Vec<std::path::PathBuf> {
        fp.modules
            .iter()
            .filter(|m| !m.skipped)
            .flat_map(|m| m.resource_files.iter().filter(|p| keep(p)).cloned())
            .collect()
    };
    match &fp.spring_boot {
        Some(boot) if boot_3 => add(
            "spring-boot".into(),
            format!("Spring Boot {boot} -> {}", config.catalog.spring_boot_3),
            &[recipes::SPRING_BOOT_3, recipes::SPRING_SECURITY_FILTER_CHAIN],
            resources(|p| {
                spring_boot::is_config_file(p) || p.ends_with("META-INF/spring.factories")
            }),
            "spring_boot: 3 requested; parent/BOM/plugin, renamed artifacts and configuration keys move".into(),
        ),
        Some(boot) if version_lt(boot, MIN_BOOT_FOR_17) => add(
            "spring-boot".into(),
            format!("Upgrade Spring Boot {boot} to a line that supports Java {target}"),
            &[],
            Vec::new(),
            format!("Spring Boot {boot} predates Java 17 support ({MIN_BOOT_FOR_17})"),
        ),
        _ => {}
    }
    if requires_jakarta(fp) || boot_3 || config.jakarta {
        let why = if requires_jakarta(fp) || boot_3 {
            "the platform (Spring Boot 3 / Jakarta EE 9+) requires the jakarta namespace"
        } else {
            "the jakarta move was requested (`jakarta: true` / `--jakarta`)"
        };
        add(
            "jakarta".into(),
            "Move Jakarta-EE-owned javax.* to jakarta.* (Jakarta EE 10)".into(),
            &[recipes::JAVAX_TO_JAKARTA],
            resources(|_| true),
            format!("{why}; Java sources are scanned project-wide"),
        );
    }
    if let Some(g) = &fp.gradle {
        add(
            "gradle-build".into(),
            format!("Gradle scripts: Java {target}, JUnit Platform, moved coordinates"),
            &[recipes::GRADLE_BUILD],
            g.scripts.clone(),
            "a Gradle build: the script side of the migration, as literal edits".into(),
        );
    }
    let (idioms, java_rules): (Vec<_>, Vec<_>) = registry
        .active(config)
        .partition(|r| r.when.idiom.is_some());
    if !java_rules.is_empty() {
        add(
            "java-apis".into(),
            "Replace removed and deprecated APIs (declarative recipes)".into(),
            &java_rules.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            Vec::new(),
            format!(
                "{} declarative recipes apply to Java {target}; each checks its own preconditions per file",
                java_rules.len()
            ),
        );
    }
    if !idioms.is_empty() {
        let names: Vec<&str> = idioms
            .iter()
            .filter_map(|r| r.when.idiom.as_deref())
            .collect();
        add(
            "modernize".into(),
            format!("Modern idioms: {}", names.join(", ")),
            &idioms.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            Vec::new(),
            "requested (--modernize / modernize:); each idiom keeps the code's meaning or is not applied".into(),
        );
    }
    Plan { tasks, decisions }
}

/// Boot 2 is moved to 3 only when asked (`spring_boot: 3`).
fn moves_to_boot_3(fp: &Fingerprint, config: &Config) -> bool {
    config.spring_boot == Some(3)
        && fp
            .spring_boot
            .as_deref()
            .is_some_and(|v| version_lt(v, "3.0.0"))
}

/// Spring Boot 3 (or any jakarta-namespace API declared) means javax must move.
fn requires_jakarta(fp: &Fingerprint) -> bool {
    fp.spring_boot
        .as_deref()
        .is_some_and(|v| !version_lt(v, "3.0.0"))
        || fp.modules.iter().any(|m| {
            m.pom.dependencies.iter().any(|d| {
                d.group_id.starts_with("jakarta.")
                    && d.version
                        .as_deref()
                        .is_some_and(|v| !version_lt(v, "3.0.0") || d.group_id == "jakarta.servlet")
            })
        })
}

/// The package of an import: the segments before the first capitalised one
/// (`javax.crypto.Cipher` -> `javax.crypto`, `javax.script.*` -> `javax.script`).
fn package_of(import: &str) -> &str {
    let mut end = 0;
    for (i, segment) in import.split('.').enumerate() {
        if segment == "*" || segment.starts_with(|c: char| c.is_ascii_uppercase()) {
            break;
        }
        end += segment.len() + usize::from(i > 0);
    }
    if end == 0 { import } else { &import[..end] }
}

fn decisions(fp: &Fingerprint, config: &Config, baseline: Option<&BuildOutcome>) -> Vec<String> {
    let target = config.target;
    let boot_3 = moves_to_boot_3(fp, config);
    let mut out = Vec::new();
    if fp.gradle.is_some() {
        out.push("Gradle build: scripts are edited in place, but Uplift runs Maven only, so no baseline and no validation build (outcome INCOMPLETE)".into());
    }
    out.push(match fp.java_level {
        Some(l) if l >= target => {
            format!("Java level {l} already at or above {target}: never downgraded")
        }
        Some(l) => format!("Java level {l} -> {target}"),
        None if fp.gradle.is_some() => {
            "no Java level declared in the Gradle scripts: the JDK running Gradle decides".into()
        }
        None => format!("no Java level declared -> maven.compiler.release {target}"),
    });
    let ee = fp.javax_jakarta_ee.len();
    if ee > 0 {
        out.push(if boot_3 {
            format!("javax -> jakarta: required by Spring Boot 3; {ee} Jakarta-EE-owned imports to move")
        } else if requires_jakarta(fp) {
            format!("javax -> jakarta: required by the platform; {ee} Jakarta-EE-owned imports to move")
        } else if config.jakarta {
            format!("javax -> jakarta: requested; {ee} Jakarta-EE-owned imports and their coordinates move to Jakarta EE 10")
        } else {
            format!(
                "javax -> jakarta: not moved; the platform (Spring Boot {}) runs on javax, {ee} Jakarta-EE-owned imports kept (`jakarta: true` or `--jakarta` moves them)",
                fp.spring_boot.as_deref().unwrap_or("none")
            )
        });
    }
    if !fp.javax_jdk.is_empty() {
        let packages: std::collections::BTreeSet<&str> =
            fp.javax_jdk.iter().map(|i| package_of(i)).collect();
        out.push(format!(
            "{} JDK-owned javax imports ({}) are never renamed",
            fp.javax_jdk.len(),
            packages.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    match &fp.spring_boot {
        Some(v) if boot_3 => out.push(format!(
            "Spring Boot {v} -> {} (requested); Java {target} meets Boot 3's Java 17 floor",
            config.catalog.spring_boot_3
        )),
        Some(v) if version_lt(v, MIN_BOOT_FOR_17) => out.push(format!(
            "Spring Boot {v} cannot run on Java {target}: upgrade needed"
        )),
        Some(v) => out.push(format!(
            "Spring Boot {v} runs on Java {target}: not upgraded (ask for it with spring_boot: 3)"
        )),
        None => {}
    }
    if !fp.removed_modules.is_empty()
        && let Some(b) = baseline.filter(|b| b.compiled() && b.jdk.is_some_and(|j| j >= 11))
    {
        out.push(format!(
            "{:?} compiled on JDK {} in the baseline: already on the classpath, no dependency added",
            fp.removed_modules,
            b.jdk.unwrap_or(0)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_for(fp: &Fingerprint, target: u32, boot: Option<u32>) -> Plan {
        let config = Config {
            target,
            spring_boot: boot,
            ..Config::default()
        };
        let registry = Registry::load(None, &config.recipes).unwrap();
        plan(fp, &config, &registry, None)
    }

    fn fingerprint(boot: &str) -> Fingerprint {
        Fingerprint {
            spring_boot: Some(boot.into()),
            javax_jakarta_ee: ["javax.servlet.http.HttpServlet".to_string()].into(),
            javax_jdk: ["javax.crypto.Cipher".to_string()].into(),
            java_level: Some(8),
            ..Default::default()
        }
    }

    #[test]
    fn javax_moves_only_when_the_platform_requires_it() {
        let on_boot2 = plan_for(&fingerprint("2.7.18"), 21, None);
        assert!(!on_boot2.tasks.iter().any(|t| t.id == "jakarta"));
        assert!(
            on_boot2.decisions.iter().any(|d| d.contains("not moved")),
            "{:?}",
            on_boot2.decisions
        );
        assert!(
            on_boot2
                .decisions
                .iter()
                .any(|d| d.contains("never renamed"))
        );
        let on_boot3 = plan_for(&fingerprint("3.2.0"), 21, None);
        assert!(on_boot3.tasks.iter().any(|t| t.id == "jakarta"));
        let moving = plan_for(&fingerprint("2.7.18"), 17, Some(3));
        assert!(moving.tasks.iter().any(|t| t.id == "jakarta"));
        let boot = moving.tasks.iter().find(|t| t.id == "spring-boot").unwrap();
        assert_eq!(
            boot.recipes,
            vec![
                recipes::SPRING_BOOT_3,
                recipes::SPRING_SECURITY_FILTER_CHAIN
            ]
        );
    }

    #[test]
    fn the_decision_names_the_jdk_javax_packages_the_project_imports() {
        let mut fp = fingerprint("2.7.18");
        fp.javax_jdk = [
            "javax.script.ScriptEngine",
            "javax.script.*",
            "javax.crypto.Cipher",
        ]
        .map(String::from)
        .into();
        let p = plan_for(&fp, 17, None);
        assert!(
            p.decisions
                .iter()
                .any(|d| d.contains("3 JDK-owned javax imports (javax.crypto, javax.script)")),
            "{:?}",
            p.decisions
        );
    }

    #[test]
    fn javax_moves_on_request_without_a_platform() {
        let mut fp = fingerprint("none");
        fp.spring_boot = None;
        let config = Config {
            target: 17,
            jakarta: true,
            ..Config::default()
        };
        let registry = Registry::load(None, &config.recipes).unwrap();
        let requested = plan(&fp, &config, &registry, None);
        let task = requested.tasks.iter().find(|t| t.id == "jakarta").unwrap();
        assert!(task.reason.contains("requested"), "{}", task.reason);
        assert!(
            requested
                .decisions
                .iter()
                .any(|d| d.contains("javax -> jakarta: requested")),
            "{:?}",
            requested.decisions
        );
        let unasked = plan_for(&fp, 17, None);
        assert!(!unasked.tasks.iter().any(|t| t.id == "jakarta"));
    }

    #[test]
    fn old_spring_boot_gets_a_task_for_the_next_tier() {
        let p = plan_for(&fingerprint("2.1.0"), 17, None);
        let boot = p.tasks.iter().find(|t| t.id == "spring-boot").unwrap();
        assert!(boot.recipes.is_empty());
    }
}
