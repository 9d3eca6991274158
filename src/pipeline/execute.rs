//! Stage 4: the recipe tier over the planned tasks, into an [`Overlay`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analyze::Fingerprint;
use crate::analyze::java::JunitGeneration;
use crate::config::Config;
use crate::journal::{RECIPE_TIER, Task, TaskRecord, TaskStatus};
use crate::recipes::coordinates::{self, Kind};
use crate::recipes::dependencies::JunitMode;
use crate::recipes::java_types::Project;
use crate::recipes::junit5::FileOutcome;
use crate::recipes::junit5::custom_rules::{ProjectRules, Source};
use crate::recipes::overlay::Overlay;
use crate::recipes::registry::Registry;
use crate::recipes::{
    self, FileResult, PomContext, build_plugins, dependencies, gradle, jakarta, java_lang_clashes,
    java_level, junit5, spring_boot, spring_security, upgrade_versions,
};
use crate::repo_path::Origin;

/// What the recipe tier reads.
pub struct Inputs<'a> {
    pub root: &'a Path,
    pub fingerprint: &'a Fingerprint,
    pub config: &'a Config,
    pub registry: &'a Registry,
    /// Files the never-red tier took back, with the reason: they keep their original
    /// text (JUnit 4/3 ones stay on the vintage engine).
    pub kept: &'a BTreeMap<PathBuf, String>,
}

/// Runs every task; returns the pending changes and one record per task, in plan order.
pub fn execute(
    inputs: &Inputs,
    tasks: &[Task],
    mut on_task: impl FnMut(usize),
) -> (Overlay, Vec<TaskRecord>) {
    let Inputs {
        root,
        fingerprint: fp,
        config,
        registry,
        kept,
    } = *inputs;
    let ctx = PomContext {
        fingerprint: fp,
        catalog: &config.catalog,
        target: config.target,
    };
    let mut overlay = Overlay::new(root);
    overlay.set_encodings(fp.non_utf8_sources());

    // Modules whose tests run inside a named module (module-info.java in main sources).
    let module_path: HashSet<&Path> = fp
        .modules
        .iter()
        .filter(|m| {
            let dir = m.pom.path.parent().unwrap_or(Path::new(""));
            root.join(dir)
                .join("src/main/java/module-info.java")
                .is_file()
        })
        .flat_map(|m| m.java_files.iter().map(|f| f.path.as_path()))
        .collect();
    let junit3_bases = fp.junit3_classes();
    // Java files first, in parallel: their results decide the pom side (vintage or not).
    let java_files: Vec<PathBuf> = tasks
        .iter()
        .filter(|t| t.recipes.iter().any(|r| r == recipes::JUNIT4_TO_JUPITER))
        .flat_map(|t| t.files.clone())
        .collect();
    let texts: HashMap<PathBuf, Result<String, String>> = java_files
        .par_iter()
        .map(|rel| {
            let text = match kept.get(rel) {
                Some(reason) => Err(format!("rolled back: {reason}")),
                None => overlay.text(rel).map_err(|e| format!("cannot read: {e}")),
            };
            (rel.clone(), text)
        })
        .collect();
    let rules = project_rules(fp, &overlay, &texts);
    // A file kept out (rolled back) still gathers the suites it gathered.
    let kept_texts: Vec<(&Path, String)> = texts
        .iter()
        .filter(|(_, t)| t.is_err())
        .filter_map(|(rel, _)| Some((rel.as_path(), overlay.text(rel).ok()?)))
        .collect();
    let suite_members = junit5::junit3_runner::SuiteMembers::scan(
        texts
            .iter()
            .filter_map(|(rel, t)| Some((rel.as_path(), t.as_deref().ok()?)))
            .chain(kept_texts.iter().map(|(rel, t)| (*rel, t.as_str()))),
        // The Gradle recipe adds no junit-platform-suite.
        fp.gradle.is_none(),
    );
    let mut results: HashMap<PathBuf, FileOutcome> = texts
        .par_iter()
        .map(|(rel, text)| {
            let outcome = match text {
                Ok(src) => junit5::migrate_in(
                    src,
                    junit5::Surroundings {
                        module_path: module_path.contains(rel.as_path()),
                        junit3_bases: Some(&junit3_bases),
                        rules: Some((&rules, rel)),
                        suite_members: Some((&suite_members, rel)),
                    },
                ),
                Err(reason) => FileOutcome::LeftOnJunit4 {
                    reason: reason.clone(),
                },
            };
            (rel.clone(), outcome)
        })
        .collect();
    // A JUnit 3 hierarchy converts as a unit: a base that no longer extends TestCase would
    // leave a subclass still on JUnit 3 without its test runner, and the other way round.
    // So does a project rule class with the tests that register it.
    let units: Vec<junit5::Unit> = fp
        .junit3_families()
        .into_iter()
        .map(|files| junit5::Unit {
            what: "its JUnit 3 hierarchy".into(),
            files,
        })
        .chain(rules.units())
        .chain(suite_members.units())
        .collect();
    junit5::convert_together(&mut results, &units);
    // JUnit 3 files and JUnit 4 files the recipe did not convert keep the vintage engine,
    // in their module and in every in-repository ancestor their JUnit may come from.
    let left_on_junit4 = |f: &&crate::analyze::java::JavaFacts| match f.junit {
        JunitGeneration::Junit3 | JunitGeneration::Junit4 => !matches!(
            results.get(&f.path),
            Some(FileOutcome::Rewritten { .. } | FileOutcome::Unchanged)
        ),
        _ => false,
    };
    let vintage_modules: HashSet<usize> = fp
        .modules
        .iter()
        .enumerate()
        .filter(|(_, m)| m.java_files.iter().any(|f| left_on_junit4(&f)))
        .flat_map(|(i, _)| fp.chain(i))
        .collect();
    let junit4_remains = !vintage_modules.is_empty();
    let mode_of = |i: usize| {
        if vintage_modules.contains(&i) {
            JunitMode::Vintage
        } else {
            JunitMode::Replace
        }
    };
    let mut jupiter_introduced = false;
    let mut release_roots = Vec::new();

    let mut records = Vec::with_capacity(tasks.len());
    for (i, task) in tasks.iter().enumerate() {
        on_task(i);
        let record = |status, files: Vec<PathBuf>, changes: Vec<String>, reason: Option<String>| {
            // What is left is about the task's files.
            let left = if status == TaskStatus::LeftForNextTier {
                if files.is_empty() {
                    task.files.clone()
                } else {
                    files.clone()
                }
            } else {
                Vec::new()
            };
            TaskRecord {
                task_id: task.id.clone(),
                tier: RECIPE_TIER.into(),
                status,
                files,
                changes,
                reason,
                left,
                given_back: None,
            }
        };
        let pom_result = |r: anyhow::Result<Vec<String>>| match r {
            Ok(changes) if changes.is_empty() => record(TaskStatus::NoChange, vec![], vec![], None),
            Ok(changes) => record(TaskStatus::Done, vec![], changes, None),
            Err(e) => record(TaskStatus::Failed, vec![], vec![], Some(format!("{e:#}"))),
        };
        let rec = match task.recipes.first().map(String::as_str) {
            None => record(
                TaskStatus::LeftForNextTier,
                task.files.clone(),
                vec![],
                Some(format!("{}: no recipe in this tier", task.title)),
            ),
            Some(recipes::JAVA_LEVEL) => match java_level::apply(&ctx, &mut overlay) {
                Ok(c) => {
                    release_roots = c.added_release_to;
                    pom_result(Ok(c.changes))
                }
                Err(e) => pom_result(Err(e)),
            },
            Some(recipes::JUNIT4_TO_JUPITER) => {
                let rel = &task.files[0];
                match results.get(rel) {
                    Some(FileOutcome::Rewritten { text, changes }) => {
                        let src = texts[rel].clone().unwrap_or_default();
                        overlay.write(rel, src, text.clone());
                        record(TaskStatus::Done, vec![rel.clone()], changes.clone(), None)
                    }
                    Some(FileOutcome::Unchanged) => {
                        record(TaskStatus::NoChange, vec![rel.clone()], vec![], None)
                    }
                    Some(FileOutcome::LeftOnJunit4 { reason }) => record(
                        TaskStatus::LeftForNextTier,
                        vec![rel.clone()],
                        vec![],
                        Some(format!("kept on JUnit 4 (vintage engine): {reason}")),
                    ),
                    Some(FileOutcome::SyntaxError { message }) => record(
                        TaskStatus::LeftForNextTier,
                        vec![rel.clone()],
                        vec![],
                        Some(format!("not rewritten: {message}")),
                    ),
                    None => record(
                        TaskStatus::Failed,
                        vec![rel.clone()],
                        vec![],
                        Some("no result".into()),
                    ),
                }
            }
            Some(recipes::JUNIT_DEPENDENCIES) => {
                jupiter_introduced = true;
                let mockito = results.values().any(|o| {
                    matches!(o, FileOutcome::Rewritten { text, .. } if text.contains("org.mockito.junit.jupiter"))
                });
                let mut result = dependencies::junit(&ctx, &mut overlay, mode_of);
                let suite_modules: Vec<usize> = fp
                    .modules
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| {
                        m.java_files.iter().any(|f| {
                            matches!(results.get(&f.path), Some(FileOutcome::Rewritten { text, .. }) if text.contains("org.junit.platform.suite.api.Suite;"))
                        })
                    })
                    .map(|(i, _)| i)
                    .collect();
                if let Ok(changes) = &mut result {
                    match dependencies::platform_suite(&ctx, &mut overlay, &suite_modules) {
                        Ok(more) => changes.extend(more),
                        Err(e) => result = Err(e),
                    }
                }
                if mockito && let Ok(changes) = &mut result {
                    match dependencies::mockito_extension(&ctx, &mut overlay) {
                        Ok(more) => changes.extend(more),
                        Err(e) => result = Err(e),
                    }
                }
                pom_result(result)
            }
            Some(recipes::REMOVED_JAVA_EE_APIS) => {
                pom_result(dependencies::removed_java_ee(&ctx, &mut overlay))
            }
            Some(recipes::GRADLE_BUILD) => {
                let planned = |id: &str| tasks.iter().any(|t| t.recipes.iter().any(|r| r == id));
                let mut moves = upgrade_versions::dependency_moves(config.target);
                if planned(recipes::JAVAX_TO_JAKARTA) {
                    moves.extend(jakarta::TABLE.artifacts.iter().cloned());
                }
                let boot = planned(recipes::SPRING_BOOT_3)
                    .then_some(config.catalog.spring_boot_3.as_str());
                if boot.is_some() {
                    moves.extend(spring_boot::artifacts().iter().cloned());
                }
                let declares_junit4 = fp
                    .modules
                    .iter()
                    .any(|m| m.pom.has_dependency("junit", "junit"));
                let inputs = gradle::Inputs {
                    target: config.target,
                    jupiter: &config.catalog.junit_jupiter,
                    junit: declares_junit4.then_some(if junit4_remains {
                        JunitMode::Vintage
                    } else {
                        JunitMode::Replace
                    }),
                    moves: &moves,
                    spring_boot: boot,
                };
                rewrite_resources(&mut overlay, &task.files, |_, src| {
                    gradle::script(src, &inputs)
                })
                .record(task)
            }
            Some(recipes::JAVA_LANG_CLASHES) => {
                let clashes = java_lang_clashes::in_project(fp, config.target);
                rewrite_java_files(fp, &mut overlay, |src, _| {
                    java_lang_clashes::imports(src, &clashes)
                })
                .record(task)
            }
            Some(recipes::JAVA_UPGRADE_VERSIONS) => {
                pom_result(upgrade_versions::apply(&ctx, &mut overlay))
            }
            Some(recipes::JAVAX_TO_JAKARTA) => {
                let mut done =
                    rewrite_java_files(fp, &mut overlay, |src, _| jakarta::java_file(src));
                done.merge(rewrite_resources(&mut overlay, &task.files, |rel, src| {
                    let xml = rel.extension().is_some_and(|e| e == "xml");
                    jakarta::resource_file(src, xml)
                }));
                for rel in &task.files {
                    if let Some(new) = jakarta::services_rename(rel)
                        && let Ok(text) = overlay.text(rel)
                    {
                        let (edits, _) = jakarta::rename_names(&text);
                        let text = crate::edit::apply(&text, &edits).unwrap_or(text);
                        overlay.create(&new, text);
                        overlay.delete(rel);
                        done.files.extend([rel.clone(), new.clone()]);
                        done.changes
                            .push(format!("{} -> {}", rel.display(), new.display()));
                    }
                }
                if fp.gradle.is_none() {
                    done.pom(coordinates::apply(
                        &ctx,
                        &mut overlay,
                        &jakarta::TABLE.artifacts,
                        Kind::Dependency,
                    ));
                }
                done.record(task)
            }
            Some(recipes::SPRING_BOOT_3) => {
                let config_files: Vec<PathBuf> = task
                    .files
                    .iter()
                    .filter(|p| spring_boot::is_config_file(p))
                    .cloned()
                    .collect();
                let mut done = rewrite_resources(&mut overlay, &config_files, |rel, src| {
                    let yaml = rel.extension().is_some_and(|e| e != "properties");
                    spring_boot::config_file(src, yaml)
                });
                done.merge(rewrite_java_files(fp, &mut overlay, |src, _| {
                    spring_security::adapter(src)
                }));
                for rel in task
                    .files
                    .iter()
                    .filter(|p| p.ends_with("spring.factories"))
                {
                    done.pom(spring_boot::move_auto_configuration(&mut overlay, rel));
                }
                if fp.gradle.is_none() {
                    done.pom(spring_boot::pom(&ctx, &mut overlay));
                    match spring_boot::pom_findings(&ctx, &mut overlay) {
                        Ok(found) => {
                            for (rel, finding) in found {
                                done.findings.push(finding);
                                done.found_in.push(rel);
                            }
                        }
                        Err(e) => done.error = Some(format!("{e:#}")),
                    }
                }
                done.record(task)
            }
            Some(id) if registry.get(id).is_some() => {
                let active: Vec<_> = task
                    .recipes
                    .iter()
                    .filter_map(|r| registry.get(r))
                    .collect();
                if task.recipes.iter().any(|r| registry.from_repository(r)) {
                    overlay.set_author(Origin::Repository);
                }
                let done = rewrite_java_files(fp, &mut overlay, |src, project| {
                    let mut all = FileResult::default();
                    let mut current = src.to_string();
                    for recipe in &active {
                        let r = recipe.apply(&current, project);
                        all.changes.extend(r.changes);
                        all.findings.extend(r.findings);
                        if let Some(t) = r.text {
                            current = t;
                        }
                    }
                    all.text = (current != src).then_some(current);
                    all
                });
                overlay.set_author(Origin::Builtin);
                done.record(task)
            }
            Some(recipes::BUILD_PLUGINS) => {
                let needs = build_plugins::Needs {
                    junit_platform: jupiter_introduced,
                    release_roots: release_roots.clone(),
                };
                pom_result(build_plugins::apply(&ctx, &mut overlay, &needs))
            }
            Some(other) => record(
                TaskStatus::Failed,
                vec![],
                vec![],
                Some(format!("unknown recipe {other}")),
            ),
        };
        records.push(rec);
    }
    for (rel, reason) in kept {
        overlay.discard(rel);
        for rec in &mut records {
            keep_out(rec, rel, reason);
        }
    }
    (overlay, records)
}

/// The project's own JUnit 4 rule classes and their users. Only when a JUnit file may
/// declare one are the project's other Java files read, to find every use of it.
fn project_rules(
    fp: &Fingerprint,
    overlay: &Overlay,
    texts: &HashMap<PathBuf, Result<String, String>>,
) -> ProjectRules {
    if !texts
        .values()
        .any(|t| t.as_ref().is_ok_and(|t| ProjectRules::may_declare(t)))
    {
        return ProjectRules::default();
    }
    let files: Vec<(usize, &crate::analyze::java::JavaFacts)> = fp
        .modules
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.skipped)
        .flat_map(|(i, m)| m.java_files.iter().map(move |f| (i, f)))
        .collect();
    // A file taken back still registers its rules in its original text: read it too.
    let read: Vec<Option<String>> = files
        .par_iter()
        .map(|(_, f)| match texts.get(&f.path) {
            Some(Ok(t)) => Some(t.clone()),
            _ => overlay.text(&f.path).ok(),
        })
        .collect();
    let sources: Vec<Source> = files
        .iter()
        .zip(&read)
        .filter_map(|((module, f), text)| {
            Some(Source {
                path: &f.path,
                module: *module,
                test_source: f.is_test_source,
                text: text.as_deref()?,
            })
        })
        .collect();
    ProjectRules::scan(&sources)
}

/// A task's record without a file the never-red tier took back: its changes there are
/// gone, and a task left with nothing done is work for the next tier.
fn keep_out(rec: &mut TaskRecord, rel: &Path, reason: &str) {
    let prefix = format!("{}: ", rel.display());
    let touched = rec.changes.iter().any(|c| c.starts_with(&prefix));
    let Some(i) = rec.files.iter().position(|f| f == rel) else {
        return;
    };
    if rec.status != TaskStatus::Done && !touched {
        return;
    }
    rec.files.remove(i);
    rec.changes.retain(|c| !c.starts_with(&prefix));
    if rec.status == TaskStatus::Done && rec.changes.is_empty() {
        rec.status = TaskStatus::LeftForNextTier;
        rec.reason = Some(format!("{} rolled back: {reason}", rel.display()));
        rec.left.push(rel.to_path_buf());
    }
}

/// What a project-wide recipe did, gathered over many files.
#[derive(Default)]
struct Gathered {
    files: Vec<PathBuf>,
    changes: Vec<String>,
    findings: Vec<String>,
    /// Files with findings.
    found_in: Vec<PathBuf>,
    error: Option<String>,
}

impl Gathered {
    fn merge(&mut self, other: Gathered) {
        self.files.extend(other.files);
        self.changes.extend(other.changes);
        self.findings.extend(other.findings);
        self.found_in.extend(other.found_in);
        self.error = self.error.take().or(other.error);
    }

    fn pom(&mut self, result: anyhow::Result<Vec<String>>) {
        match result {
            Ok(changes) => self.changes.extend(changes),
            Err(e) => self.error = Some(format!("{e:#}")),
        }
    }

    /// Findings are work left for the next tier even when other files changed.
    fn record(self, task: &Task) -> TaskRecord {
        let (status, reason) = if let Some(e) = self.error {
            (TaskStatus::Failed, Some(e))
        } else if !self.findings.is_empty() {
            (TaskStatus::LeftForNextTier, Some(self.findings.join("; ")))
        } else if self.changes.is_empty() {
            (TaskStatus::NoChange, None)
        } else {
            (TaskStatus::Done, None)
        };
        let left = if status == TaskStatus::LeftForNextTier {
            self.found_in
        } else {
            Vec::new()
        };
        TaskRecord {
            task_id: task.id.clone(),
            tier: RECIPE_TIER.into(),
            status,
            files: self.files,
            changes: self.changes,
            reason,
            left,
            given_back: None,
        }
    }
}

/// Applies `f` to every parseable Java file of the modules being migrated, in parallel,
/// on the text earlier tasks left in the overlay, with the project around the file: the
/// top-level types of every package (a same-package `Character` shadows java.lang's) and
/// the classes of the migrated files, for typing across files.
fn rewrite_java_files(
    fp: &Fingerprint,
    overlay: &mut Overlay,
    f: impl Fn(&str, &Project) -> FileResult + Sync,
) -> Gathered {
    let mut package_types: HashMap<String, Vec<String>> = HashMap::new();
    for j in fp.java_files() {
        package_types
            .entry(j.package.clone())
            .or_default()
            .extend(j.top_level_types.iter().cloned());
    }
    let texts: Vec<(PathBuf, String)> = fp
        .modules
        .iter()
        .filter(|m| !m.skipped)
        .flat_map(|m| &m.java_files)
        .filter(|j| j.syntax_error.is_none())
        .filter_map(|j| overlay.text(&j.path).ok().map(|t| (j.path.clone(), t)))
        .collect();
    let project = Project::new(
        package_types,
        texts.iter().map(|(_, t)| t.as_str()).collect(),
    );
    let results: Vec<(PathBuf, String, FileResult)> = texts
        .par_iter()
        .map(|(rel, src)| (rel.clone(), src.clone(), f(src, &project)))
        .collect();
    gather(overlay, results)
}

/// Applies `f` to each listed resource file (sequentially: there are few).
fn rewrite_resources(
    overlay: &mut Overlay,
    files: &[PathBuf],
    f: impl Fn(&Path, &str) -> FileResult,
) -> Gathered {
    let results = files
        .iter()
        .filter_map(|rel| {
            let src = overlay.text(rel).ok()?;
            let r = f(rel, &src);
            Some((rel.clone(), src, r))
        })
        .collect();
    gather(overlay, results)
}

fn gather(overlay: &mut Overlay, results: Vec<(PathBuf, String, FileResult)>) -> Gathered {
    let mut g = Gathered::default();
    for (rel, src, r) in results {
        let p = rel.display();
        g.changes
            .extend(r.changes.iter().map(|c| format!("{p}: {c}")));
        g.findings
            .extend(r.findings.iter().map(|c| format!("{p}: {c}")));
        if !r.findings.is_empty() {
            g.found_in.push(rel.clone());
        }
        if let Some(text) = r.text {
            overlay.write(&rel, src, text);
            g.files.push(rel);
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::plan;

    const POM: &str = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version><dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency></dependencies></project>\n";
    const RULE: &str = "package app;\n\nimport org.junit.rules.ExternalResource;\n\npublic class ServerRule extends ExternalResource {\n    @Override\n    protected void before() {}\n}\n";

    fn src_rel(name: &str) -> PathBuf {
        PathBuf::from("src/test/java/app").join(name)
    }

    fn user(name: &str) -> String {
        format!(
            "package app;\n\nimport org.junit.Rule;\nimport org.junit.Test;\n\npublic class {name} {{\n    @Rule\n    public ServerRule server = new ServerRule();\n\n    @Test\n    public void runs() {{}}\n}}\n"
        )
    }

    /// A project rule class and the tests registering it move together: all converted, or,
    /// once the never-red tier took one test back, none (the rule class would no longer be
    /// a rule for the test left on JUnit 4).
    #[test]
    fn a_rule_class_converts_with_all_its_users_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let src = root.join("src/test/java/app");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(root.join("pom.xml"), POM).unwrap();
        std::fs::write(src.join("ServerRule.java"), RULE).unwrap();
        for name in ["ATest", "BTest"] {
            std::fs::write(src.join(format!("{name}.java")), user(name)).unwrap();
        }
        let fp = crate::analyze::analyze(root, &[]).unwrap();
        let config = Config::default();
        let registry = Registry::load(None, &config.recipes).unwrap();
        let tasks = plan::plan(&fp, &config, &registry, None).tasks;
        let java_changed = |kept: &BTreeMap<PathBuf, String>| {
            let inputs = Inputs {
                root,
                fingerprint: &fp,
                config: &config,
                registry: &registry,
                kept,
            };
            let (overlay, records) = execute(&inputs, &tasks, |_| {});
            let changed: Vec<PathBuf> = overlay
                .changed()
                .map(|(p, _, _)| p.to_path_buf())
                .filter(|p| p.extension().is_some_and(|e| e == "java"))
                .collect();
            (changed, records)
        };
        let (all, _) = java_changed(&BTreeMap::new());
        assert_eq!(all.len(), 3, "{all:?}");
        let a = PathBuf::from("src/test/java/app/ATest.java");
        let kept = BTreeMap::from([(a.clone(), "a test failed".to_string())]);
        let (none, records) = java_changed(&kept);
        assert!(none.is_empty(), "{none:?}");
        // What the never-red tier took back is the next tier's work, file by file.
        for (name, file) in [("ATest.java", a), ("BTest.java", src_rel("BTest.java"))] {
            let r = records.iter().find(|r| r.task_id.ends_with(name)).unwrap();
            assert_eq!(r.status, TaskStatus::LeftForNextTier, "{r:?}");
            assert_eq!(r.left, vec![file], "{r:?}");
        }
        let b = records
            .iter()
            .find(|r| r.task_id.ends_with("BTest.java"))
            .and_then(|r| r.reason.clone())
            .unwrap_or_default();
        assert!(
            b.contains("rule class ServerRule and the tests registering it stay on JUnit 4")
                && b.contains("ATest.java: rolled back: a test failed"),
            "{b}"
        );
    }
}
