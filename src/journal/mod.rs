//! The run journal: the one typed record of a migration. Every report, summary and (later)
//! PR body is a rendering of these entries.

pub mod outcome;
pub mod render;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::evidence::{BuildRun, Failure, FailureKind, Inventory, TestResults, Usage};
use crate::repo_path::Refusal;

/// Integer map keys come back from JSON as strings inside an internally tagged enum
/// (serde buffers the content), so they are parsed here.
fn numeric_keys<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<u32, usize>, D::Error> {
    BTreeMap::<String, usize>::deserialize(d)?
        .into_iter()
        .map(|(k, v)| {
            k.parse()
                .map(|k| (k, v))
                .map_err(|_| serde::de::Error::custom(format!("class-file major {k:?}")))
        })
        .collect()
}

/// One fix-loop attempt as the journal keeps it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FixAttempt {
    pub attempt: u32,
    pub failure: Failure,
    /// `retrieval` (a solved example applied as is), `retrieval+llm` (the example as a
    /// few-shot) or `llm`.
    pub tier: String,
    pub retrieval: Option<RetrievalRecord>,
    pub prompt_chars: usize,
    pub model: Option<String>,
    pub usage: Option<Usage>,
    /// The web search this attempt made, if any.
    #[serde(default)]
    pub search: Option<SearchRecord>,
    pub result: FixResult,
    /// The fix loop has nothing more to try after this attempt (stuck and escalated, no
    /// model, credentials refused); `result` says why.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
    /// What the model answered, verbatim (redacted like every entry), when a model was
    /// called: `replay --execute` serves it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<ModelAnswer>,
}

/// A model call's result as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum ModelAnswer {
    Text(String),
    /// The call failed; the error as it read.
    Error(String),
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SearchRecord {
    pub query: String,
    pub results: usize,
    /// Cache statistics for the run so far.
    pub cache_hits: u64,
    pub cache_misses: u64,
    /// The results, as the prompt got them (`replay --execute` serves them again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hits: Vec<crate::evidence::SearchHit>,
}

/// What retrieval chose and found.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RetrievalRecord {
    pub query_plan_selected: String,
    pub query_plan_rule: String,
    pub query_plan_downgraded: Option<String>,
    pub query_plan_downgrade_reason: Option<String>,
    pub query_plan_budget_used: f64,
    pub candidates: usize,
    /// The example used, with its lexical confidence.
    pub example: Option<(String, f64)>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FixResult {
    Applied {
        files: Vec<PathBuf>,
        diff: String,
        /// The edit blocks, as a solved example stores them.
        #[serde(default)]
        edits: String,
    },
    Rejected {
        reason: String,
    },
    /// The provider or the budget said no.
    NoAnswer {
        reason: String,
    },
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Analyze,
    Baseline,
    Plan,
    Execute,
    Write,
    Validate,
    Fix,
    Rollback,
    Classify,
}

/// Result category of a step.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Success,
    Empty,
    NoMatch,
    Error,
    Exception,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub seq: u32,
    pub stage: Stage,
    /// What was known before the step.
    pub known: String,
    /// What the step is meant to settle.
    pub intent: String,
    /// The router rule that chose the step.
    pub rule: String,
    pub inputs: serde_json::Value,
    pub result: StepResult,
    pub category: Category,
    pub duration_ms: u64,
    pub cost_usd: f64,
}

#[cfg(test)]
impl Entry {
    /// An entry with only what the router and the renderings read, for tests.
    pub(crate) fn bare(seq: u32, stage: Stage, rule: &str, result: StepResult) -> Entry {
        Entry {
            seq,
            stage,
            known: String::new(),
            intent: String::new(),
            rule: rule.into(),
            inputs: serde_json::json!({}),
            result,
            category: Category::Success,
            duration_ms: 0,
            cost_usd: 0.0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepResult {
    Analyzed(Box<Analysis>),
    AnalysisFailed {
        error: String,
    },
    Built(Box<BuildOutcome>),
    BuildSkipped {
        reason: String,
    },
    Planned {
        tasks: Vec<Task>,
        /// Platform decisions and their reasons (javax stays or moves, Boot upgrade ...).
        decisions: Vec<String>,
    },
    Task(TaskRecord),
    Written {
        files: Vec<PathBuf>,
        dry_run: bool,
        diff: String,
    },
    WriteFailed {
        written: Vec<PathBuf>,
        failed: PathBuf,
        error: String,
    },
    Validated(Box<Validation>),
    /// The run's whole diff against the original sources: what each test checks, compared
    /// before and after (`analyze::test_checks`), so no tier (recipe, example, model) can
    /// weaken a test unnoticed. Recorded after the write and after every applied fix.
    InvarianceChecked {
        /// Java files compared.
        files: usize,
        /// Test methods they held before (0: nothing was judged).
        tests: usize,
        differences: Vec<TestCheckDifference>,
    },
    /// A retry never re-reads retrieval: it carries the last failure instead.
    RagSkippedOnRetry {
        attempt: u32,
        last_failure_kind: FailureKind,
    },
    /// One pass of the fix loop: the failure, the tier that answered, and what came of it.
    Fixed(Box<FixAttempt>),
    /// Paths the repository gate refused (outside the root, through a link, `.git`, a
    /// workflow), with the reason; nothing was read from or written to them.
    Refused {
        refusals: Vec<Refusal>,
    },
    /// The never-red tier took migrated files back to their original text because the
    /// migrated build or tests were red. `restored_all`: nothing green could be kept, so
    /// every file the run changed is byte-identical to what it was.
    RolledBack(RollBack),
    /// The untouched project cannot be built for a reason outside it (a dependency,
    /// plugin or parent that cannot be resolved, a repository host that cannot be
    /// reached): nothing is edited, and `remedy` says what the user can do.
    BaselineUnresolvable {
        cause: String,
        remedy: String,
    },
    /// A budget (wall time, build time) ran out; the run stops here.
    LimitReached {
        limit: String,
    },
    Classified(outcome::OutcomeRecord),
}

/// The fingerprint as the journal keeps it: the facts, the test inventory, the problems.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Analysis {
    pub modules: Vec<ModuleSummary>,
    pub java_level: Option<u32>,
    pub level_sites: Vec<String>,
    pub spring_boot: Option<String>,
    pub spring_framework: Option<String>,
    pub junit4_version: Option<String>,
    pub files_by_junit: BTreeMap<String, usize>,
    pub junit4_constructs: BTreeMap<String, usize>,
    pub javax_jakarta_ee: Vec<String>,
    pub javax_jdk: Vec<String>,
    pub removed_java_ee_modules: Vec<String>,
    pub syntax_errors: Vec<(PathBuf, String)>,
    pub warnings: Vec<String>,
    pub java_files: usize,
    pub java_bytes: usize,
    pub inventory: Inventory,
    /// A Gradle build: Uplift runs Maven only, so the run builds nothing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gradle: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModuleSummary {
    pub pom: PathBuf,
    pub artifact_id: String,
    pub parent: Option<PathBuf>,
    pub level: Option<u32>,
    pub skipped: bool,
    pub java_files: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BuildOutcome {
    pub jdk: Option<u32>,
    /// Level the build was forced to because no JDK accepts the declared one.
    pub raised_level: Option<u32>,
    pub run: Option<BuildRun>,
    pub tests: TestResults,
    pub error: Option<String>,
}

impl BuildOutcome {
    pub fn compiled(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.succeeded())
    }
    pub fn timed_out(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.timed_out)
    }
    /// Why the engine killed the build (a time or disk limit), if it did.
    pub fn stopped(&self) -> Option<String> {
        self.run.as_ref().and_then(|r| r.stopped())
    }
}

/// One round of the never-red tier.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RollBack {
    pub round: u32,
    /// Files taken back this round, each with the error that named it.
    pub files: Vec<KeptFile>,
    pub restored_all: bool,
    /// Why everything was taken back, when it was.
    pub reason: Option<String>,
}

/// A migrated file the never-red tier took back, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct KeptFile {
    pub path: PathBuf,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Task {
    pub id: String,
    pub title: String,
    pub recipes: Vec<String>,
    pub files: Vec<PathBuf>,
    /// Why the planner added it (the fingerprint fact behind it).
    pub reason: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Done,
    /// Nothing needed changing.
    NoChange,
    /// The recipe tier could not do it safely; the next tier (or a human) must.
    LeftForNextTier,
    Failed,
}

impl TaskStatus {
    pub fn is_done(self) -> bool {
        matches!(self, TaskStatus::Done | TaskStatus::NoChange)
    }
}

/// The tier name of a task record written by the recipe tier.
pub const RECIPE_TIER: &str = "recipe";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TaskRecord {
    pub task_id: String,
    pub tier: String,
    pub status: TaskStatus,
    pub files: Vec<PathBuf>,
    pub changes: Vec<String>,
    pub reason: Option<String>,
    /// The files a task left for the next tier (or a person) is about: a file kept on
    /// JUnit 4, one a detector found, one the never-red tier took back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<PathBuf>,
    /// A next-tier verdict that gave the task's files back: whether they have their bytes
    /// from before the task again (the tree is validated again) or writing them failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_back: Option<GivenBack>,
}

/// What giving a next-tier task's files back did to the tree.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GivenBack {
    /// Every file has its bytes from before the task.
    Restored,
    /// A file could not be written back: the tree counts as red, so the never-red tier
    /// gives every file back.
    Failed,
}

/// One change to what a test checks (`analyze::test_checks`): an assertion, expected
/// exception, timeout, `@Disabled` or assumption that differs after the migration, beyond
/// the mechanical JUnit 4 -> Jupiter mappings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TestCheckDifference {
    pub file: PathBuf,
    /// `Class#method`, or `Class` for class-level checks (`@Disabled`, `@Timeout`).
    pub test: String,
    /// `changed`, `removed`, `added`, `test method removed`, `no longer a test` ...
    pub change: String,
    pub before: String,
    pub after: String,
}

impl std::fmt::Display for TestCheckDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {} `{}` -> `{}`",
            self.test,
            self.file.display(),
            self.change,
            self.before,
            self.after
        )
    }
}

/// The invariance check: what the migrated build kept of the baseline.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Validation {
    pub build: BuildOutcome,
    /// Test methods in the baseline inventory that no longer exist in source.
    pub lost_from_source: Vec<String>,
    /// Baseline-green tests that are now failing, erroring or absent from the reports.
    pub newly_failing: Vec<String>,
    pub newly_skipped: Vec<String>,
    /// Baseline-green parameterized tests that ran a different number of times (a
    /// parameter row lost or added): `class#method ran N times before, M after`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invocations_changed: Vec<String>,
    /// Baseline tests that ran red and no longer run (absent from the reports or skipped):
    /// a failure the migration would hide.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_longer_run: Vec<String>,
    pub executed_before: usize,
    pub executed_after: usize,
    pub green_before: usize,
    pub green_after: usize,
    #[serde(deserialize_with = "numeric_keys")]
    pub class_majors: BTreeMap<u32, usize>,
    pub expected_major: u32,
}

impl Validation {
    pub fn invariant(&self) -> bool {
        self.lost_from_source.is_empty()
            && self.newly_failing.is_empty()
            && self.newly_skipped.is_empty()
            && self.invocations_changed.is_empty()
            && self.no_longer_run.is_empty()
    }
    pub fn wrong_major_classes(&self) -> usize {
        self.class_majors
            .iter()
            .filter(|(m, _)| **m != self.expected_major)
            .map(|(_, n)| n)
            .sum()
    }
}

/// Whether the tests are the same tests after the run, from the journal's evidence.
#[derive(Debug, Clone, PartialEq)]
pub enum Invariance {
    /// Tests ran before and after, none was lost, failing or skipped, and no test's
    /// checks changed.
    Passed,
    /// Nothing to compare: never "passed".
    NotJudged(String),
    Broken(Vec<String>),
}

impl Invariance {
    pub fn label(&self) -> &'static str {
        match self {
            Invariance::Passed => "passed",
            Invariance::NotJudged(_) => "not judged",
            Invariance::Broken(_) => "FAILED",
        }
    }
}

/// The journal of one run as it is being written.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Journal {
    pub run_id: String,
    pub entries: Vec<Entry>,
}

impl Journal {
    pub fn analysis(&self) -> Option<&Analysis> {
        self.entries.iter().find_map(|e| match &e.result {
            StepResult::Analyzed(a) => Some(a.as_ref()),
            _ => None,
        })
    }
    pub fn baseline(&self) -> Option<&BuildOutcome> {
        self.entries
            .iter()
            .find_map(|e| match (&e.stage, &e.result) {
                (Stage::Baseline, StepResult::Built(b)) => Some(b.as_ref()),
                _ => None,
            })
    }
    pub fn tasks(&self) -> &[Task] {
        self.entries
            .iter()
            .find_map(|e| match &e.result {
                StepResult::Planned { tasks, .. } => Some(tasks.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }
    /// The planner's platform decisions (None before planning).
    pub fn decisions(&self) -> Option<&[String]> {
        self.entries.iter().find_map(|e| match &e.result {
            StepResult::Planned { decisions, .. } => Some(decisions.as_slice()),
            _ => None,
        })
    }
    /// The diff of the rewrite (the latest, after any rollback): written, or pending in a
    /// dry run.
    pub fn diff(&self) -> Option<&str> {
        if self.restored_all() {
            return None;
        }
        self.entries.iter().rev().find_map(|e| match &e.result {
            StepResult::Written { diff, .. } => Some(diff.as_str()),
            _ => None,
        })
    }
    /// Every file the run wrote to disk, by any tier and in any round (a file a rollback
    /// took back is listed too: it is the caller's to stage as it now is). None for a dry
    /// run or before anything was written.
    pub fn written_files(&self) -> Option<Vec<PathBuf>> {
        let mut files: Option<Vec<PathBuf>> = None;
        for e in &self.entries {
            let more = match &e.result {
                StepResult::Written {
                    files,
                    dry_run: false,
                    ..
                } => files,
                StepResult::Fixed(f) => match &f.result {
                    FixResult::Applied { files, .. } => files,
                    _ => continue,
                },
                _ => continue,
            };
            let files = files.get_or_insert_with(Vec::new);
            for m in more {
                if !files.contains(m) {
                    files.push(m.clone());
                }
            }
        }
        files
    }

    /// The rounds of the never-red tier.
    pub fn rollbacks(&self) -> impl Iterator<Item = &RollBack> {
        self.entries.iter().filter_map(|e| match &e.result {
            StepResult::RolledBack(r) => Some(r),
            _ => None,
        })
    }

    /// Files the never-red tier holds at their original text, with the reason.
    pub fn kept_files(&self) -> BTreeMap<PathBuf, String> {
        self.rollbacks()
            .flat_map(|r| &r.files)
            .map(|k| (k.path.clone(), k.reason.clone()))
            .collect()
    }

    /// True when the never-red tier gave every changed file back its original bytes.
    pub fn restored_all(&self) -> bool {
        self.rollbacks().any(|r| r.restored_all)
    }

    /// LLM calls made (each fix attempt that reached a model).
    pub fn llm_calls(&self) -> usize {
        self.fix_attempts().filter(|f| f.model.is_some()).count()
    }

    pub fn fix_attempts(&self) -> impl Iterator<Item = &FixAttempt> {
        self.entries.iter().filter_map(|e| match &e.result {
            StepResult::Fixed(f) => Some(f.as_ref()),
            _ => None,
        })
    }
    pub fn task_records(&self) -> impl Iterator<Item = &TaskRecord> {
        self.entries.iter().filter_map(|e| match &e.result {
            StepResult::Task(t) => Some(t),
            _ => None,
        })
    }
    /// Tasks no tier could do, which now wait for a person (their latest record).
    pub fn left_for_human(&self) -> impl Iterator<Item = &TaskRecord> {
        self.latest_task_records()
            .filter(|r| r.status == TaskStatus::LeftForNextTier)
    }
    /// Tasks the recipe tier left with files to work on that no later tier has taken up
    /// yet, in plan order: the next tier's queue.
    pub fn next_tier_tasks(&self) -> impl Iterator<Item = &TaskRecord> {
        self.latest_task_records().filter(|r| {
            r.status == TaskStatus::LeftForNextTier
                && r.tier == RECIPE_TIER
                && !r.left.is_empty()
                && !self
                    .task_records()
                    .any(|o| o.task_id == r.task_id && o.tier != RECIPE_TIER)
        })
    }
    /// Each planned task's latest record (a rollback round runs the recipes again).
    pub fn latest_task_records(&self) -> impl Iterator<Item = &TaskRecord> {
        self.tasks()
            .iter()
            .filter_map(|t| self.task_records().filter(|r| r.task_id == t.id).last())
    }
    /// The latest validation (the fix loop may validate more than once).
    pub fn validation(&self) -> Option<&Validation> {
        self.entries.iter().rev().find_map(|e| match &e.result {
            StepResult::Validated(v) => Some(v.as_ref()),
            _ => None,
        })
    }
    /// The latest comparison of what each test checks (None: nothing was written).
    pub fn test_checks(&self) -> Option<(usize, &[TestCheckDifference])> {
        self.entries.iter().rev().find_map(|e| match &e.result {
            StepResult::InvarianceChecked {
                tests, differences, ..
            } => Some((*tests, differences.as_slice())),
            _ => None,
        })
    }

    /// The invariance verdict: the validation's runtime comparison and the static
    /// comparison of what each test checks. Both must have had something to compare.
    pub fn invariance(&self) -> Invariance {
        let mut broken = Vec::new();
        let v = self.validation();
        if let Some(v) = v.filter(|v| !v.invariant()) {
            broken.push(format!(
                "{} lost from source, {} newly failing, {} newly skipped, {} ran a different number of times, {} red before and no longer run, executed {} -> {}",
                v.lost_from_source.len(),
                v.newly_failing.len(),
                v.newly_skipped.len(),
                v.invocations_changed.len(),
                v.no_longer_run.len(),
                v.executed_before,
                v.executed_after
            ));
        }
        let checks = self.test_checks();
        if let Some((_, differences)) = checks.filter(|(_, d)| !d.is_empty()) {
            broken.push(format!(
                "{} change(s) to what tests check, first: {}",
                differences.len(),
                differences[0]
            ));
        }
        if !broken.is_empty() {
            return Invariance::Broken(broken);
        }
        match v {
            None => Invariance::NotJudged("not validated".into()),
            Some(v) if v.executed_before == 0 => {
                Invariance::NotJudged("no test ran before the migration: nothing to compare".into())
            }
            Some(_) => Invariance::Passed,
        }
    }

    pub fn outcome(&self) -> Option<&outcome::OutcomeRecord> {
        self.entries.iter().find_map(|e| match &e.result {
            StepResult::Classified(o) => Some(o),
            _ => None,
        })
    }
    /// Every path the repository gate refused during the run.
    pub fn refusals(&self) -> impl Iterator<Item = &Refusal> {
        self.entries.iter().flat_map(|e| match &e.result {
            StepResult::Refused { refusals } => refusals.as_slice(),
            _ => &[],
        })
    }
    pub fn cost_usd(&self) -> f64 {
        self.entries.iter().map(|e| e.cost_usd).sum()
    }

    /// Input and output tokens over every model call of the run.
    pub fn tokens(&self) -> Usage {
        self.fix_attempts()
            .filter_map(|f| f.usage.as_ref())
            .fold(Usage::default(), |sum, u| Usage {
                input_tokens: sum.input_tokens + u.input_tokens,
                output_tokens: sum.output_tokens + u.output_tokens,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Journals stored before the fold's markers existed read back, and a record without
    /// them is written as it always was.
    #[test]
    fn the_folds_markers_are_optional_in_stored_journals() {
        let stored = serde_json::json!({
            "task_id": "junit5:ATest.java", "tier": "llm", "status": "left_for_next_tier",
            "files": [], "changes": [], "reason": null, "left": ["ATest.java"]
        });
        let record: TaskRecord = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(record.given_back, None);
        assert_eq!(serde_json::to_value(&record).unwrap(), stored);
        let given = TaskRecord {
            given_back: Some(GivenBack::Restored),
            ..record
        };
        assert_eq!(
            serde_json::to_value(&given).unwrap()["given_back"],
            "restored"
        );
        let analysis = serde_json::to_value(Analysis::default()).unwrap();
        assert!(analysis.get("gradle").is_none());
        let mut old = analysis.clone();
        old.as_object_mut().unwrap().remove("gradle");
        assert!(!serde_json::from_value::<Analysis>(old).unwrap().gradle);
    }
}
