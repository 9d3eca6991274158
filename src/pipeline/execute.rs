//! Stage 4: the recipe tier over the planned tasks, into an [`Overlay`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analyze::Fingerprint;
use crate::analyze::java::JunitGeneration;
use crate::config::Config;
use crate::journal::{Task, TaskRecord, TaskStatus};
use crate::recipes::dependencies::JunitMode;
use crate::recipes::junit5::FileOutcome;
use crate::recipes::overlay::Overlay;
use crate::recipes::{self, PomContext, build_plugins, dependencies, java_level, junit5};

/// Runs every task; returns the pending changes and one record per task, in plan order.
pub fn execute(
    root: &Path,
    fp: &Fingerprint,
    config: &Config,
    tasks: &[Task],
    mut on_task: impl FnMut(usize),
) -> (Overlay, Vec<TaskRecord>) {
    let ctx = PomContext {
        fingerprint: fp,
        catalog: &config.catalog,
        target: config.target,
    };
    let mut overlay = Overlay::new(root);

    // Java files first, in parallel: their results decide the pom side (vintage or not).
    let java_files: Vec<PathBuf> = tasks
        .iter()
        .filter(|t| t.recipes.iter().any(|r| r == recipes::JUNIT4_TO_JUPITER))
        .flat_map(|t| t.files.clone())
        .collect();
    let results: HashMap<PathBuf, (String, FileOutcome)> = java_files
        .par_iter()
        .map(|rel| {
            let outcome = match std::fs::read_to_string(root.join(rel)) {
                Ok(src) => {
                    let out = junit5::migrate(&src);
                    (src, out)
                }
                Err(e) => (
                    String::new(),
                    FileOutcome::LeftOnJunit4 {
                        reason: format!("cannot read: {e}"),
                    },
                ),
            };
            (rel.clone(), outcome)
        })
        .collect();
    // JUnit 3 files and JUnit 4 files the recipe did not convert keep the vintage engine.
    let junit4_remains = fp.java_files().any(|f| match f.junit {
        JunitGeneration::Junit3 => true,
        JunitGeneration::Junit4 => !matches!(
            results.get(&f.path),
            Some((_, FileOutcome::Rewritten { .. } | FileOutcome::Unchanged))
        ),
        _ => false,
    });
    let mut jupiter_introduced = false;
    let mut release_roots = Vec::new();

    let mut records = Vec::with_capacity(tasks.len());
    for (i, task) in tasks.iter().enumerate() {
        on_task(i);
        let record = |status, files: Vec<PathBuf>, changes: Vec<String>, reason: Option<String>| {
            TaskRecord {
                task_id: task.id.clone(),
                tier: "recipe".into(),
                status,
                files,
                changes,
                reason,
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
                    Some((src, FileOutcome::Rewritten { text, changes })) => {
                        overlay.write(rel, src.clone(), text.clone());
                        record(TaskStatus::Done, vec![rel.clone()], changes.clone(), None)
                    }
                    Some((_, FileOutcome::Unchanged)) => {
                        record(TaskStatus::NoChange, vec![rel.clone()], vec![], None)
                    }
                    Some((_, FileOutcome::LeftOnJunit4 { reason })) => record(
                        TaskStatus::LeftForNextTier,
                        vec![rel.clone()],
                        vec![],
                        Some(format!("kept on JUnit 4 (vintage engine): {reason}")),
                    ),
                    Some((_, FileOutcome::SyntaxError { message })) => record(
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
                let mode = if junit4_remains {
                    JunitMode::Vintage
                } else {
                    JunitMode::Replace
                };
                jupiter_introduced = true;
                pom_result(dependencies::junit(&ctx, &mut overlay, mode))
            }
            Some(recipes::REMOVED_JAVA_EE_APIS) => {
                pom_result(dependencies::removed_java_ee(&ctx, &mut overlay))
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
    (overlay, records)
}
