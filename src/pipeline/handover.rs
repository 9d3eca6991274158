//! The next tier for what the recipes left. Once the migrated tree is green, each task
//! the recipe tier handed on (a file kept on JUnit 4, a removed API a detector found, a
//! file the never-red tier took back) goes, one at a time, down the same tiers as a red
//! build (`fix::attempt`: a solved example, then the model). Its change is validated
//! like any other and kept only when the build stays green and every test checks what it
//! checked; else it is retried once with the failure, and then given back byte for byte
//! and left for a human with the reason. The tree is never left red by this tier.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use super::Run;
use super::failure::{Failure, FailureKind};
use super::fix::Job;
use super::rollback::write_back;
use crate::analyze::{self, java::JunitGeneration};
use crate::journal::{
    Category, FixAttempt, FixResult, GivenBack, Journal, RECIPE_TIER, Stage, StepResult,
    TaskRecord, TaskStatus,
};
use crate::knowledge::signature::normalize;
use crate::recipes::overlay::{CommitError, Overlay};
use crate::recipes::{
    self, PomContext,
    dependencies::{self, JunitMode},
};
use crate::repo_path::{Gate, Origin};

/// Attempts per task: the change, then one repair of it with the failure it caused.
pub const MAX_TASK_ATTEMPTS: u32 = 2;
/// A task about more files than this is left for a human: one prompt cannot show them.
pub const MAX_TASK_FILES: usize = 6;

/// The task the next tier is working on.
pub(super) struct Current {
    /// The recipe tier's record of it: id, reason and the files it left.
    task: TaskRecord,
    title: String,
    attempts: u32,
    /// The files the tier may edit (the task's own and the build files) with their bytes
    /// before the first attempt (`None`: absent), to give them back exactly.
    before: BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// For a follow-up of the recipe tier's own (the vintage engine dropped): who made the
    /// change, and the record that stands if it is given back.
    follow_up: Option<TaskRecord>,
}

impl Run<'_> {
    /// One handover step: take up the next task, judge the validated change (keep it,
    /// or retry), or give the task's files back. Returns true when files changed on disk.
    pub(super) async fn handover(&mut self, rule: &str) -> anyhow::Result<bool> {
        let t = Instant::now();
        if self.state.limit_reached {
            return self.give_back(rule, "a limit was reached", t).await;
        }
        // Whether its change is written and its files dirty, the journal says (the fold).
        match self.handover.as_ref().map(|c| c.attempts) {
            None => return self.take_up(rule, t).await,
            Some(attempts) if self.state.handover_written => {
                if !self.state.validation_red && !self.state.checks_changed {
                    return self.keep(rule, t).await;
                }
                if attempts >= MAX_TASK_ATTEMPTS {
                    let why = self.red_reason();
                    return self.give_back(rule, &why, t).await;
                }
            }
            Some(attempts) if attempts >= MAX_TASK_ATTEMPTS => {
                return self.give_back(rule, "no answer passed the gate", t).await;
            }
            Some(_) => {}
        }
        self.next_attempt(rule, t).await
    }

    /// Starts the next task of the queue, or leaves it for a human when it is too large.
    async fn take_up(&mut self, rule: &str, t: Instant) -> anyhow::Result<bool> {
        let Some(task) = self.journal.next_tier_tasks().next().cloned() else {
            return self.drop_vintage(rule, t).await;
        };
        let title = self
            .journal
            .tasks()
            .iter()
            .find(|p| p.id == task.task_id)
            .map_or_else(|| task.task_id.clone(), |p| p.title.clone());
        let mut editable = task.left.clone();
        editable.extend(
            self.fingerprint
                .iter()
                .flat_map(|fp| fp.modules.iter().map(|m| m.pom.path.clone())),
        );
        let before = self.snapshot(editable);
        self.handover = Some(Current {
            task,
            title,
            attempts: 0,
            before,
            follow_up: None,
        });
        // A fresh episode: nothing from another task's attempts carries over.
        self.fix.last = None;
        self.fix.guidance = None;
        let files = self.handover.as_ref().map_or(0, |c| c.task.left.len());
        if files > MAX_TASK_FILES {
            let why = format!("{files} files, more than one attempt can hold ({MAX_TASK_FILES})");
            return self.give_back(rule, &why, t).await;
        }
        self.next_attempt(rule, t).await
    }

    /// The task's next attempt: the task itself first, then the failure its last change
    /// caused.
    async fn next_attempt(&mut self, rule: &str, t: Instant) -> anyhow::Result<bool> {
        let names = self.project_names();
        let target = self.opts.config.target;
        let red = self
            .latest_failure()
            .filter(|_| self.state.validation_red && self.state.handover_dirty);
        let Some(c) = self.handover.as_mut() else {
            return Ok(false);
        };
        c.attempts += 1;
        let attempt = c.attempts;
        let reason = c.task.reason.clone().unwrap_or_default();
        let errors: Vec<String> = reason.split("; ").map(str::to_string).collect();
        let failure = red.unwrap_or_else(|| Failure {
            kind: FailureKind::Task,
            signature: names.scrub(&normalize(errors.first().map_or("", String::as_str))),
            errors,
            location: c.task.left.first().map(|p| p.display().to_string()),
        });
        let ask = format!(
            "An automated migration to Java {target} and JUnit 5 left this task, and the build is green now: \
             {}. Why the recipes left it: {reason}. Make the change the migration needs in the files shown \
             (a test file kept on JUnit 4 moves to JUnit 5 completely: imports, annotations, rules, assertions), \
             keeping the build green and every test checking exactly what it checked.",
            c.title
        );
        let job = Job {
            failure,
            files: c.task.left.clone(),
            editable: c.before.keys().cloned().collect(),
            ask,
        };
        self.attempt(rule, attempt, job, t).await
    }

    /// The validated change is green and invariant: the task is done by this tier.
    async fn keep(&mut self, rule: &str, t: Instant) -> anyhow::Result<bool> {
        let Some(c) = self.handover.take() else {
            return Ok(false);
        };
        let gate = Gate::new(&self.opts.root, Origin::Builtin);
        let files: Vec<PathBuf> = c
            .before
            .iter()
            .filter(|(p, bytes)| gate.read(p).ok() != **bytes)
            .map(|(p, _)| p.clone())
            .collect();
        let record = TaskRecord {
            task_id: c.task.task_id.clone(),
            tier: match &c.follow_up {
                Some(previous) => previous.tier.clone(),
                None => self.last_tier(),
            },
            status: TaskStatus::Done,
            changes: files
                .iter()
                .map(|f| format!("{}: changed by the next tier", f.display()))
                .collect(),
            files,
            reason: None,
            left: Vec::new(),
            given_back: None,
        };
        self.task_verdict(rule, &c.title, record, Category::Success, t)
            .await
            .map(|()| false)
    }

    /// Gives the task's files their bytes from before its first attempt and leaves it for
    /// a human; the tree goes back to the last validated one (and is validated again).
    async fn give_back(&mut self, rule: &str, why: &str, t: Instant) -> anyhow::Result<bool> {
        let dirty = self.state.handover_dirty;
        self.give_back_files(rule, why, dirty, t).await
    }

    /// `give_back` when the caller knows whether the task's files changed on disk.
    async fn give_back_files(
        &mut self,
        rule: &str,
        why: &str,
        dirty: bool,
        t: Instant,
    ) -> anyhow::Result<bool> {
        let Some(c) = self.handover.take() else {
            return Ok(false);
        };
        let mut given_back = None;
        if dirty {
            if let Err(CommitError::Partial { failed, source, .. }) =
                write_back(&self.opts.root, &c.before)
            {
                // Never a red tree: recorded as red, so the fold sends the run on to repair
                // or give every file back.
                let why = format!("{why}; giving {} back failed: {source}", failed.display());
                return self
                    .leave(rule, c, &why, Some(GivenBack::Failed), t)
                    .await
                    .map(|()| true);
            }
            given_back = Some(GivenBack::Restored);
        }
        let why = if given_back.is_some() {
            format!("{why}; its change was taken back")
        } else {
            why.to_string()
        };
        self.leave(rule, c, &why, given_back, t)
            .await
            .map(|()| given_back.is_some())
    }

    async fn leave(
        &mut self,
        rule: &str,
        c: Current,
        why: &str,
        given_back: Option<GivenBack>,
        t: Instant,
    ) -> anyhow::Result<()> {
        if let Some(mut previous) = c.follow_up {
            // The follow-up did not hold: the task stands as the recipe tier did it.
            previous
                .changes
                .push(format!("the vintage engine stays: {why}"));
            previous.given_back = given_back;
            return self
                .task_verdict(rule, &c.title, previous, Category::NoMatch, t)
                .await;
        }
        let recipe_reason = c.task.reason.clone().unwrap_or_default();
        let record = TaskRecord {
            task_id: c.task.task_id.clone(),
            tier: if c.attempts == 0 {
                "none".into()
            } else {
                self.last_tier()
            },
            status: TaskStatus::LeftForNextTier,
            files: Vec::new(),
            changes: Vec::new(),
            reason: Some(format!(
                "left for a human after {} attempt(s) of the next tier ({why}): {recipe_reason}",
                c.attempts
            )),
            left: c.task.left.clone(),
            given_back,
        };
        self.task_verdict(rule, &c.title, record, Category::Empty, t)
            .await
    }

    async fn task_verdict(
        &mut self,
        rule: &str,
        title: &str,
        record: TaskRecord,
        category: Category,
        t: Instant,
    ) -> anyhow::Result<()> {
        let inputs = json!({"task": record.task_id, "files": record.left});
        self.record(
            Stage::Fix,
            rule,
            "a task the recipe tier left",
            title,
            inputs,
            StepResult::Task(record),
            category,
            t,
        )
        .await
    }

    /// Once the queue is empty: when the next tier moved the last JUnit 3/4 code to
    /// Jupiter, the recipe tier's pom step runs again in its JUnit 5-only form (junit:junit
    /// and the vintage engine leave, Hamcrest stays available), a change validated and kept
    /// or given back like any other. Runs at most once.
    async fn drop_vintage(&mut self, rule: &str, t: Instant) -> anyhow::Result<bool> {
        let Some(previous) = self.vintage_task().cloned() else {
            return Ok(false);
        };
        let root = self.opts.root.clone();
        let skip = self.opts.config.skip_modules.clone();
        let config = &self.opts.config;
        let edited = tokio::task::block_in_place(|| {
            let fp = analyze::analyze(&root, &skip)
                .map_err(|e| format!("the sources could not be read again: {e}"))?;
            let junit4_left = fp
                .java_files()
                .any(|f| matches!(f.junit, JunitGeneration::Junit3 | JunitGeneration::Junit4));
            if junit4_left {
                return Err("JUnit 3/4 code remains".to_string());
            }
            let ctx = PomContext {
                fingerprint: &fp,
                catalog: &config.catalog,
                target: config.target,
            };
            let mut overlay = Overlay::new(&root);
            let changes = dependencies::junit(&ctx, &mut overlay, |_| JunitMode::Replace)
                .map_err(|e| format!("the poms could not be edited: {e:#}"))?;
            let poms: Vec<PathBuf> = fp.modules.iter().map(|m| m.pom.path.clone()).collect();
            if changes.is_empty() {
                return Err("nothing in the poms to drop".to_string());
            }
            Ok((overlay, changes, poms))
        });
        let (overlay, changes, poms) = match edited {
            Ok(edited) => edited,
            Err(why) => {
                // What the check found is recorded: the JUnit 5-only step was tried.
                let c = self.vintage_current(previous, BTreeMap::new());
                return self.leave(rule, c, &why, None, t).await.map(|()| false);
            }
        };
        let before = self.snapshot(poms);
        let diff = overlay.diff();
        let files = match self.commit(&overlay) {
            Ok(files) => files,
            Err(e) => {
                self.handover = Some(self.vintage_current(previous, before));
                let why = format!("the poms could not be written: {e}");
                // Some poms may be written: they are given back.
                return self.give_back_files(rule, &why, true, t).await;
            }
        };
        self.handover = Some(self.vintage_current(previous.clone(), before));
        let attempt = FixAttempt {
            attempt: 1,
            failure: Failure {
                kind: FailureKind::Task,
                errors: changes.clone(),
                signature: "no JUnit 3/4 code left: drop the vintage engine".into(),
                location: None,
            },
            tier: previous.tier.clone(),
            retrieval: None,
            prompt_chars: 0,
            model: None,
            usage: None,
            search: None,
            result: FixResult::Applied {
                files,
                diff,
                edits: String::new(),
            },
            answer: None,
            gave_up: false,
        };
        self.record(
            Stage::Fix,
            rule,
            "the next tier moved the last JUnit 3/4 code",
            "drop junit:junit and the vintage engine, then validate",
            json!({"changes": changes}),
            StepResult::Fixed(Box::new(attempt)),
            Category::Success,
            t,
        )
        .await
        .map(|()| true)
    }

    fn vintage_task(&self) -> Option<&TaskRecord> {
        vintage_task(&self.journal, super::fold::vintage_checked(&self.journal))
    }

    fn vintage_current(
        &self,
        previous: TaskRecord,
        before: BTreeMap<PathBuf, Option<Vec<u8>>>,
    ) -> Current {
        Current {
            title: "JUnit 5 dependencies, without the vintage engine".into(),
            task: previous.clone(),
            attempts: MAX_TASK_ATTEMPTS,
            before,
            follow_up: Some(previous),
        }
    }

    /// The tier of the latest fix attempt (`llm`, `retrieval`, `retrieval+llm`).
    fn last_tier(&self) -> String {
        self.journal
            .fix_attempts()
            .last()
            .map_or_else(|| "llm".into(), |f| f.tier.clone())
    }

    /// Why the last change could not be kept.
    fn red_reason(&self) -> String {
        if self.state.checks_changed {
            return "its change altered what a test checks".into();
        }
        match self
            .latest_failure()
            .and_then(|f| f.errors.into_iter().next())
        {
            Some(e) => format!(
                "the build stayed red: {}",
                e.trim_start_matches("[ERROR]").trim()
            ),
            None => "the build stayed red".into(),
        }
    }

    /// The bytes of `files` now (`None`: absent), to give them back later.
    fn snapshot(&self, files: Vec<PathBuf>) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let gate = Gate::new(&self.opts.root, Origin::Builtin);
        files
            .into_iter()
            .map(|p| {
                let bytes = gate.read(&p).ok();
                (p, bytes)
            })
            .collect()
    }
}

/// The JUnit dependency task, when the next tier did a JUnit task and the vintage engine
/// was not `checked` yet (its JUnit 5-only form tried).
pub(super) fn vintage_task(journal: &Journal, checked: bool) -> Option<&TaskRecord> {
    let moved = journal.latest_task_records().any(|r| {
        r.tier != RECIPE_TIER && r.status == TaskStatus::Done && r.task_id.starts_with("junit5:")
    });
    if checked || !moved {
        return None;
    }
    let id = &journal
        .tasks()
        .iter()
        .find(|t| t.recipes.iter().any(|r| r == recipes::JUNIT_DEPENDENCIES))?
        .id;
    journal
        .latest_task_records()
        .find(|r| &r.task_id == id && r.status == TaskStatus::Done)
}
