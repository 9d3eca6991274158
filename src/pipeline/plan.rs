//! Stage 3: the run's TODO list, derived from the fingerprint.

use crate::analyze::Fingerprint;
use crate::analyze::java::JunitGeneration;
use crate::analyze::pom::version_lt;
use crate::journal::{BuildOutcome, Task};
use crate::recipes;

/// Oldest Spring Boot line that runs on Java 17.
const MIN_BOOT_FOR_17: &str = "2.5.0";

pub fn plan(fp: &Fingerprint, target: u32, baseline: Option<&BuildOutcome>) -> Vec<Task> {
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
    if level_below || undeclared {
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
            let (recipes, what) = match f.junit {
                JunitGeneration::Junit4 => (&[recipes::JUNIT4_TO_JUPITER][..], "JUnit 4"),
                JunitGeneration::Junit3 => (
                    &[][..],
                    "JUnit 3 (no core recipe; vintage engine keeps it running)",
                ),
                _ => continue,
            };
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
    let declares_junit4 = fp
        .modules
        .iter()
        .any(|m| m.pom.has_dependency("junit", "junit"));
    if junit_files > 0 || declares_junit4 {
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
    if !fp.removed_modules.is_empty() && !provided_by_classpath {
        add(
            "removed-java-ee-apis".into(),
            "Add API dependencies for Java EE modules removed in Java 11".into(),
            &[recipes::REMOVED_JAVA_EE_APIS],
            Vec::new(),
            format!("code imports {:?}", fp.removed_modules),
        );
    }
    add(
        "build-plugins".into(),
        format!("Compiler and test plugins that support Java {target} and the JUnit Platform"),
        &[recipes::BUILD_PLUGINS],
        Vec::new(),
        "old plugin versions fail on new JDKs or do not run Jupiter tests".into(),
    );
    if let Some(boot) = &fp.spring_boot
        && version_lt(boot, MIN_BOOT_FOR_17)
    {
        add(
            "spring-boot".into(),
            format!("Upgrade Spring Boot {boot} to a line that supports Java {target}"),
            &[],
            Vec::new(),
            format!("Spring Boot {boot} predates Java 17 support ({MIN_BOOT_FOR_17})"),
        );
    }
    tasks
}
