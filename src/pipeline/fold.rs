//! The router's input is a fold of the journal: what the run knows is what its entries
//! say, read in order, plus the few facts fixed for the whole run (builds on, dry run, a
//! model configured, an earlier attempt's baseline) and the clock. Nothing else sets a
//! router flag, so the same entries always give the same next step and rule.

use crate::journal::{
    Entry, FixResult, GivenBack, Journal, RECIPE_TIER, Stage, StepResult, TaskRecord,
};

use super::handover::vintage_task;
use super::router::State;

/// What the router needs that no entry can say: the run's fixed inputs and the clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunFacts {
    /// Builds are on (`--no-build` not given).
    pub build: bool,
    pub dry_run: bool,
    /// An LLM is configured: a red validation goes to the fix loop, leftovers to the next tier.
    pub model: bool,
    /// An earlier attempt of this job (same commit, same options) recorded a baseline that
    /// stands.
    pub reusable_baseline: bool,
    /// The wall-clock budget is spent (read from the clock, or the recording, each turn).
    pub out_of_time: bool,
}

/// The router's input after `journal`'s entries.
pub fn fold(journal: &Journal, facts: &RunFacts) -> State {
    let mut f = Folding {
        s: State {
            build_enabled: facts.build,
            dry_run: facts.dry_run,
            fix_enabled: facts.model,
            baseline_reusable: facts.reusable_baseline,
            out_of_time: facts.out_of_time,
            ..State::default()
        },
        task_in_progress: false,
    };
    let planned_tasks = !journal.tasks().is_empty();
    for entry in &journal.entries {
        f.apply(entry, planned_tasks);
    }
    let Folding {
        mut s,
        task_in_progress,
    } = f;
    s.handover_pending = task_in_progress
        || journal.next_tier_tasks().next().is_some()
        || vintage_task(journal, vintage_checked(journal)).is_some();
    s
}

/// Whether the recipe tier's JUnit 5-only pom step was tried after the next tier: its
/// change, or its verdict, is a recipe-tier record in a next-tier turn.
pub(super) fn vintage_checked(journal: &Journal) -> bool {
    journal.entries.iter().any(|e| {
        turn(&e.rule) == Turn::Handover
            && match &e.result {
                StepResult::Fixed(f) => f.tier == RECIPE_TIER,
                StepResult::Task(r) => r.tier == RECIPE_TIER,
                _ => false,
            }
    })
}

/// Which step's turn wrote an entry, from the id of the rule that chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    Fix,
    Handover,
    Other,
}

fn turn(rule: &str) -> Turn {
    match rule.split(':').next() {
        Some("R8d") => Turn::Fix,
        Some("R8f" | "R8g" | "R0d") => Turn::Handover,
        _ => Turn::Other,
    }
}

struct Folding {
    s: State,
    /// The next tier has taken up a task and not given its verdict yet.
    task_in_progress: bool,
}

impl Folding {
    fn apply(&mut self, e: &Entry, planned_tasks: bool) {
        let s = &mut self.s;
        match &e.result {
            StepResult::LimitReached { .. } => s.limit_reached = true,
            StepResult::Classified(_) => s.classified = true,
            StepResult::InvarianceChecked { differences, .. } => {
                s.checks_changed = !differences.is_empty()
            }
            _ => {}
        }
        match e.stage {
            Stage::Analyze => {
                s.analyzed = true;
                match &e.result {
                    StepResult::AnalysisFailed { .. } => s.analysis_failed = true,
                    StepResult::Analyzed(a) if a.gradle => s.build_enabled = false,
                    _ => {}
                }
            }
            Stage::Baseline => {
                s.baseline_done = true;
                match &e.result {
                    StepResult::Built(b) => {
                        s.build_stopped = b.stopped().is_some();
                        s.baseline_unavailable = b.run.is_none();
                    }
                    StepResult::BaselineUnresolvable { .. } => s.baseline_unresolvable = true,
                    _ => {}
                }
            }
            Stage::Plan => {
                if let StepResult::Planned { tasks, .. } = &e.result {
                    s.planned = true;
                    s.tasks_pending = !tasks.is_empty();
                }
            }
            Stage::Execute => s.tasks_pending = false,
            Stage::Write => {
                s.written = true;
                if let StepResult::WriteFailed { .. } = e.result {
                    s.write_failed = true;
                }
            }
            Stage::Validate => {
                s.validated = true;
                if let StepResult::Validated(v) = &e.result {
                    s.validation_red = !(v.invariant() && v.build.compiled());
                    s.build_stopped |= v.build.stopped().is_some();
                }
            }
            Stage::Fix => self.fix(e),
            Stage::Rollback => {
                s.rollback_rounds += 1;
                match &e.result {
                    StepResult::WriteFailed { .. } => {
                        s.write_failed = true;
                        s.restored = true;
                    }
                    StepResult::RolledBack(r) if r.restored_all => s.restored = true,
                    StepResult::RolledBack(_) => {
                        // The tree is back to its original: the recipes run again without
                        // the files taken back, then the write and validation.
                        s.tasks_pending = planned_tasks;
                        s.written = false;
                        s.validated = false;
                        s.validation_red = false;
                        s.checks_changed = false;
                    }
                    _ => {}
                }
            }
            Stage::Classify => {}
        }
    }

    /// An entry of the fix loop's or the next tier's turn.
    fn fix(&mut self, e: &Entry) {
        let s = &mut self.s;
        let turn = turn(&e.rule);
        match &e.result {
            StepResult::Fixed(f) => {
                if matches!(f.result, FixResult::Applied { .. }) {
                    s.validated = false;
                    s.validation_red = false;
                }
                s.fix_done |= f.gave_up;
            }
            // The loop found nothing it can act on.
            StepResult::BuildSkipped { .. } => s.fix_done = true,
            StepResult::Task(verdict) => given_back(s, verdict),
            _ => {}
        }
        // Every fix-loop turn ends in one attempt, skip or limit.
        if turn == Turn::Fix
            && matches!(
                e.result,
                StepResult::Fixed(_)
                    | StepResult::BuildSkipped { .. }
                    | StepResult::LimitReached { .. }
            )
        {
            s.fix_attempts += 1;
        }
        if turn != Turn::Handover {
            return;
        }
        match &e.result {
            StepResult::Task(_) => {
                self.task_in_progress = false;
                s.handover_written = false;
                s.handover_dirty = false;
            }
            StepResult::Fixed(f) => {
                self.task_in_progress = true;
                let applied = matches!(f.result, FixResult::Applied { .. });
                s.handover_written = applied;
                s.handover_dirty |= applied;
            }
            // Judged after the change it follows: the change stays written.
            StepResult::InvarianceChecked { .. } => {}
            _ => {
                self.task_in_progress = true;
                s.handover_written = false;
            }
        }
    }
}

/// A next-tier verdict that gave its task's files back changed the tree.
fn given_back(s: &mut State, verdict: &TaskRecord) {
    match verdict.given_back {
        Some(GivenBack::Restored) => {
            s.validated = false;
            s.validation_red = false;
            s.checks_changed = false;
        }
        Some(GivenBack::Failed) => {
            s.validated = true;
            s.validation_red = true;
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::evidence::{BuildRun, Failure, FailureKind};
    use crate::journal::outcome::{Outcome, OutcomeRecord};
    use crate::journal::{
        Analysis, BuildOutcome, FixAttempt, RollBack, Task, TaskStatus, TestCheckDifference,
        Validation,
    };
    use crate::pipeline::router::{Step, next};
    use crate::recipes::JUNIT_DEPENDENCIES;

    /// A journal written step by step, as the run loop would.
    #[derive(Clone, Default)]
    struct Entries(Vec<Entry>);

    fn outcome(exit: Option<i32>, timed_out: bool) -> BuildOutcome {
        BuildOutcome {
            jdk: Some(17),
            raised_level: None,
            run: Some(BuildRun {
                exit_code: exit,
                timed_out,
                ..BuildRun::default()
            }),
            tests: Default::default(),
            error: None,
        }
    }

    fn task(id: &str, recipes: &[&str]) -> Task {
        Task {
            id: id.into(),
            title: id.into(),
            recipes: recipes.iter().map(|r| r.to_string()).collect(),
            files: vec![],
            reason: String::new(),
        }
    }

    fn record(id: &str, tier: &str, status: TaskStatus, left: &[&str]) -> TaskRecord {
        TaskRecord {
            task_id: id.into(),
            tier: tier.into(),
            status,
            files: vec![],
            changes: vec![],
            reason: None,
            left: left.iter().map(PathBuf::from).collect(),
            given_back: None,
        }
    }

    fn attempt(tier: &str, result: FixResult, gave_up: bool) -> StepResult {
        StepResult::Fixed(Box::new(FixAttempt {
            attempt: 1,
            failure: Failure {
                kind: FailureKind::Compile,
                errors: vec![],
                signature: "cannot find symbol".into(),
                location: None,
            },
            tier: tier.into(),
            retrieval: None,
            prompt_chars: 0,
            model: None,
            usage: None,
            search: None,
            result,
            gave_up,
            answer: None,
        }))
    }

    fn applied() -> FixResult {
        FixResult::Applied {
            files: vec![PathBuf::from("A.java")],
            diff: String::new(),
            edits: String::new(),
        }
    }

    fn rejected() -> FixResult {
        FixResult::Rejected {
            reason: "weakens a test".into(),
        }
    }

    const FIX: &str = "R8d:validation red, next fix-loop attempt";
    const TAKE_UP: &str = "R8f:green and the recipes left a task, hand it to the next tier";
    const JUDGE: &str = "R8g:the next tier's change is validated";
    const GIVE_BACK: &str = "R0d:limit reached during a next-tier task, give its files back";

    impl Entries {
        fn then(mut self, stage: Stage, rule: &str, result: StepResult) -> Self {
            self.0
                .push(Entry::bare(self.0.len() as u32 + 1, stage, rule, result));
            self
        }
        fn analyzed(self) -> Self {
            self.analysis(false)
        }
        fn analysis(self, gradle: bool) -> Self {
            let a = Analysis {
                gradle,
                ..Analysis::default()
            };
            self.then(Stage::Analyze, "R1", StepResult::Analyzed(Box::new(a)))
        }
        fn baseline(self, outcome: BuildOutcome) -> Self {
            self.analyzed()
                .then(Stage::Baseline, "R3", StepResult::Built(Box::new(outcome)))
        }
        fn green_baseline(self) -> Self {
            self.baseline(outcome(Some(0), false))
        }
        fn planned(self, tasks: Vec<Task>) -> Self {
            self.green_baseline().then(
                Stage::Plan,
                "R5",
                StepResult::Planned {
                    tasks,
                    decisions: vec![],
                },
            )
        }
        fn executed(self, stage: Stage, rule: &str, r: TaskRecord) -> Self {
            self.then(stage, rule, StepResult::Task(r))
        }
        /// Planned, one task done by the recipes, written and judged unchanged.
        fn written(self) -> Self {
            self.planned(vec![task("java-level", &[])])
                .executed(
                    Stage::Execute,
                    "R6",
                    record("java-level", RECIPE_TIER, TaskStatus::Done, &[]),
                )
                .write()
        }
        fn write(self) -> Self {
            self.then(
                Stage::Write,
                "R7",
                StepResult::Written {
                    files: vec![PathBuf::from("pom.xml")],
                    dry_run: false,
                    diff: String::new(),
                },
            )
            .checks(Stage::Write, "R7", false)
        }
        fn checks(self, stage: Stage, rule: &str, changed: bool) -> Self {
            let differences = if changed {
                vec![TestCheckDifference {
                    file: PathBuf::from("ATest.java"),
                    test: "ATest#a".into(),
                    change: "changed".into(),
                    before: "assertEquals(4, f())".into(),
                    after: "assertEquals(5, f())".into(),
                }]
            } else {
                vec![]
            };
            self.then(
                stage,
                rule,
                StepResult::InvarianceChecked {
                    files: 1,
                    tests: 1,
                    differences,
                },
            )
        }
        fn validated(self, green: bool) -> Self {
            let v = Validation {
                build: outcome(Some(if green { 0 } else { 1 }), false),
                lost_from_source: vec![],
                newly_failing: vec![],
                newly_skipped: vec![],
                invocations_changed: vec![],
                no_longer_run: vec![],
                executed_before: 1,
                executed_after: 1,
                green_before: 1,
                green_after: 1,
                class_majors: Default::default(),
                expected_major: 61,
            };
            self.then(Stage::Validate, "R8b", StepResult::Validated(Box::new(v)))
        }
        fn fix(self, result: FixResult, gave_up: bool) -> Self {
            let applied = matches!(result, FixResult::Applied { .. });
            let e = self.then(Stage::Fix, FIX, attempt("llm", result, gave_up));
            if applied {
                e.checks(Stage::Fix, FIX, false)
            } else {
                e
            }
        }
        fn limit(self, stage: Stage, rule: &str) -> Self {
            let limit = "LLM budget: calls".to_string();
            self.then(stage, rule, StepResult::LimitReached { limit })
        }
        fn rolled_back(self, restored_all: bool) -> Self {
            let r = RollBack {
                round: 1,
                files: vec![],
                restored_all,
                reason: None,
            };
            self.then(Stage::Rollback, "R8e", StepResult::RolledBack(r))
        }
        /// Green, with a JUnit task the recipes left on one file, and the JUnit dependency
        /// task done.
        fn green_with_leftover(self) -> Self {
            self.planned(vec![
                task("junit5:ATest.java", &[]),
                task("junit-dependencies", &[JUNIT_DEPENDENCIES]),
            ])
            .executed(
                Stage::Execute,
                "R6",
                record(
                    "junit5:ATest.java",
                    RECIPE_TIER,
                    TaskStatus::LeftForNextTier,
                    &["ATest.java"],
                ),
            )
            .executed(
                Stage::Execute,
                "R6",
                record("junit-dependencies", RECIPE_TIER, TaskStatus::Done, &[]),
            )
            .write()
            .validated(true)
        }
        fn handed_over(self, result: FixResult) -> Self {
            let applied = matches!(result, FixResult::Applied { .. });
            let e = self.then(Stage::Fix, TAKE_UP, attempt("llm", result, false));
            if applied {
                e.checks(Stage::Fix, TAKE_UP, false)
            } else {
                e
            }
        }
        fn verdict(self, rule: &str, r: TaskRecord) -> Self {
            self.executed(Stage::Fix, rule, r)
        }
        fn classified(self) -> Self {
            let o = OutcomeRecord {
                outcome: Outcome::Success,
                tasks_total: 1,
                tasks_done: 1,
                reasons: vec![],
            };
            self.then(Stage::Classify, "R9", StepResult::Classified(o))
        }
        fn journal(&self) -> Journal {
            Journal {
                run_id: "r".into(),
                entries: self.0.clone(),
            }
        }
    }

    fn given_back(mut r: TaskRecord, how: GivenBack) -> TaskRecord {
        r.given_back = Some(how);
        r
    }

    fn facts(build: bool, dry_run: bool, model: bool) -> RunFacts {
        RunFacts {
            build,
            dry_run,
            model,
            ..RunFacts::default()
        }
    }

    /// Entry sequences -> the step and rule id the router picks from their fold.
    #[test]
    fn the_journal_alone_decides_the_next_step_and_rule() {
        let e = Entries::default;
        let build = facts(true, false, false);
        let model = facts(true, false, true);
        let dry = facts(true, true, false);
        let no_build = facts(false, false, false);
        let resume = RunFacts {
            reusable_baseline: true,
            ..build
        };
        let late = RunFacts {
            out_of_time: true,
            ..model
        };
        let red_loop = e().written().validated(false);
        let left_done = record("junit5:ATest.java", "llm", TaskStatus::Done, &[]);
        let left_human = record(
            "junit5:ATest.java",
            "llm",
            TaskStatus::LeftForNextTier,
            &["ATest.java"],
        );
        let vintage_stays = record("junit-dependencies", RECIPE_TIER, TaskStatus::Done, &[]);
        #[rustfmt::skip]
        let cases: Vec<(&str, RunFacts, Entries, Step, &str)> = vec![
            ("nothing yet", build, e(), Step::Analyze, "R1"),
            ("out of time before anything", late, e(), Step::StopOnLimit, "R0"),
            ("analysis failed", build,
                e().then(Stage::Analyze, "R1", StepResult::AnalysisFailed { error: "x".into() }),
                Step::Classify, "R2"),
            ("analyzed", build, e().analyzed(), Step::Baseline, "R3"),
            ("analyzed, no build", no_build, e().analyzed(), Step::SkipBaseline, "R3b"),
            ("a Gradle build builds nothing", build, e().analysis(true), Step::SkipBaseline, "R3b"),
            ("resumed: the earlier baseline stands", resume, e().analyzed(), Step::ReuseBaseline, "R3r"),
            ("resumed, but no build", RunFacts { build: false, ..resume }, e().analyzed(),
                Step::SkipBaseline, "R3b"),
            ("baseline timed out", build, e().baseline(outcome(None, true)), Step::Classify, "R4"),
            ("baseline unresolvable", build,
                e().baseline(outcome(Some(1), false)).then(Stage::Baseline, "R3",
                    StepResult::BaselineUnresolvable { cause: "c".into(), remedy: "r".into() }),
                Step::Classify, "R4c"),
            ("Maven could not run", build,
                e().analyzed().then(Stage::Baseline, "R3", StepResult::Built(Box::new(BuildOutcome {
                    run: None, error: Some("no mvn".into()), ..outcome(None, false) }))),
                Step::Classify, "R4b"),
            ("baseline skipped", no_build,
                e().analyzed().then(Stage::Baseline, "R3b", StepResult::BuildSkipped { reason: "off".into() }),
                Step::Plan, "R5"),
            ("baseline green", build, e().green_baseline(), Step::Plan, "R5"),
            ("planned", build, e().planned(vec![task("a", &[])]), Step::Execute, "R6"),
            ("planned nothing", build, e().planned(vec![]), Step::Write, "R7"),
            ("executed", build,
                e().planned(vec![task("a", &[])]).executed(Stage::Execute, "R6",
                    record("a", RECIPE_TIER, TaskStatus::Done, &[])),
                Step::Write, "R7"),
            ("write failed", build,
                e().planned(vec![]).then(Stage::Write, "R7", StepResult::WriteFailed {
                    written: vec![], failed: PathBuf::from("pom.xml"), error: "disk".into() }),
                Step::Classify, "R8"),
            ("written", build, e().written(), Step::Validate, "R8b"),
            ("written, dry run", dry, e().written(), Step::SkipValidation, "R8c"),
            ("written, no build", no_build, e().written(), Step::SkipValidation, "R8c"),
            ("validated green", build, e().written().validated(true), Step::Classify, "R9"),
            ("red, no model", build, red_loop.clone(), Step::Rollback, "R8e"),
            ("red, model: the fix loop", model, red_loop.clone(), Step::Fix, "R8d"),
            ("a refused fix: another attempt", model, red_loop.clone().fix(rejected(), false),
                Step::Fix, "R8d"),
            ("a second refused fix: the third", model,
                red_loop.clone().fix(rejected(), false).fix(rejected(), false), Step::Fix, "R8d"),
            ("three attempts: the never-red tier", model,
                red_loop.clone().fix(rejected(), false).fix(rejected(), false).fix(rejected(), false),
                Step::Rollback, "R8e"),
            ("the loop gave up", model, red_loop.clone().fix(rejected(), true), Step::Rollback, "R8e"),
            ("nothing the loop can act on", model,
                red_loop.clone().then(Stage::Fix, FIX, StepResult::BuildSkipped { reason: "env".into() }),
                Step::Rollback, "R8e"),
            ("a fix applied: validate again", model, red_loop.clone().fix(applied(), false),
                Step::Validate, "R8b"),
            ("the fix made it green", model, red_loop.clone().fix(applied(), false).validated(true),
                Step::Classify, "R9"),
            ("still red after a retry skipped retrieval", model,
                red_loop.clone().fix(applied(), false).validated(false)
                    .then(Stage::Fix, FIX, StepResult::RagSkippedOnRetry {
                        attempt: 2, last_failure_kind: FailureKind::Compile })
                    .fix(applied(), false).validated(false)
                    .then(Stage::Fix, FIX, StepResult::RagSkippedOnRetry {
                        attempt: 3, last_failure_kind: FailureKind::Compile })
                    .fix(rejected(), false),
                Step::Rollback, "R8e"),
            ("a test's checks changed", build,
                e().written().checks(Stage::Write, "R7", true).validated(true), Step::Rollback, "R8e"),
            ("a round took files back: the recipes run again", build,
                red_loop.clone().rolled_back(false), Step::Execute, "R6"),
            ("red again after a round: the next round", build,
                red_loop.clone().rolled_back(false)
                    .executed(Stage::Execute, "R6", record("java-level", RECIPE_TIER, TaskStatus::Done, &[]))
                    .write().validated(false),
                Step::Rollback, "R8e"),
            ("every file given back", build, red_loop.clone().rolled_back(true), Step::Classify, "R9"),
            ("giving back failed", build,
                red_loop.clone().then(Stage::Rollback, "R8e", StepResult::WriteFailed {
                    written: vec![], failed: PathBuf::from("A.java"), error: "disk".into() }),
                Step::Classify, "R8"),
            ("the LLM budget stopped a red run", model, red_loop.clone().limit(Stage::Fix, FIX),
                Step::Rollback, "R0c"),
            ("limit, then everything given back", model,
                red_loop.clone().limit(Stage::Fix, FIX).rolled_back(true), Step::Classify, "R0b"),
            ("limit while green", model, e().written().validated(true).limit(Stage::Fix, FIX),
                Step::Classify, "R0b"),
            ("out of time, stop recorded", late,
                e().written().limit(Stage::Classify, "R0"), Step::Validate, "R0e"),
            ("out of time, stopped and validated", late,
                e().written().limit(Stage::Classify, "R0").validated(true), Step::Classify, "R0b"),
            ("out of time mid-run", late, e().written(), Step::StopOnLimit, "R0"),
            ("green, a task left, no model", build, e().green_with_leftover(), Step::Classify, "R9"),
            ("green, a task left, dry run", RunFacts { dry_run: true, ..model },
                e().green_with_leftover(), Step::Classify, "R9"),
            ("green, a task left: the next tier", model, e().green_with_leftover(),
                Step::Handover, "R8f"),
            ("the next tier's answer refused: its second attempt", model,
                e().green_with_leftover().handed_over(rejected()), Step::Handover, "R8f"),
            ("the next tier's change written: validate it", model,
                e().green_with_leftover().handed_over(applied()), Step::Validate, "R8b"),
            ("the change validated red: the next tier judges it, not the fix loop", model,
                e().green_with_leftover().handed_over(applied()).validated(false),
                Step::Handover, "R8g"),
            ("the change validated green: kept next", model,
                e().green_with_leftover().handed_over(applied()).validated(true),
                Step::Handover, "R8g"),
            ("a limit during the task: its files go back first", model,
                e().green_with_leftover().handed_over(applied()).validated(false)
                    .then(Stage::Fix, JUDGE, StepResult::RagSkippedOnRetry {
                        attempt: 2, last_failure_kind: FailureKind::Compile })
                    .limit(Stage::Fix, JUDGE),
                Step::Handover, "R0d"),
            ("the files given back under a limit: validate before classifying", model,
                e().green_with_leftover().handed_over(applied()).limit(Stage::Fix, TAKE_UP)
                    .verdict(GIVE_BACK, given_back(left_human.clone(), GivenBack::Restored)),
                Step::Validate, "R0e"),
            ("given back for a human: validate the restored tree", model,
                e().green_with_leftover().handed_over(applied()).validated(false)
                    .verdict(JUDGE, given_back(left_human.clone(), GivenBack::Restored)),
                Step::Validate, "R8b"),
            ("given back and validated: nothing left", model,
                e().green_with_leftover().handed_over(applied()).validated(false)
                    .verdict(JUDGE, given_back(left_human.clone(), GivenBack::Restored))
                    .validated(true),
                Step::Classify, "R9"),
            ("giving the task back failed: the tree counts as red", model,
                e().green_with_leftover().handed_over(applied()).validated(false)
                    .verdict(JUDGE, given_back(left_human.clone(), GivenBack::Failed)),
                Step::Fix, "R8d"),
            ("a JUnit task kept: the JUnit 5-only pom step follows", model,
                e().green_with_leftover().handed_over(applied()).validated(true)
                    .verdict(JUDGE, left_done.clone()),
                Step::Handover, "R8f"),
            ("the vintage engine stays", model,
                e().green_with_leftover().handed_over(applied()).validated(true)
                    .verdict(JUDGE, left_done.clone()).verdict(TAKE_UP, vintage_stays.clone()),
                Step::Classify, "R9"),
            ("the vintage engine dropped: validate", model,
                e().green_with_leftover().handed_over(applied()).validated(true)
                    .verdict(JUDGE, left_done.clone())
                    .then(Stage::Fix, TAKE_UP, attempt(RECIPE_TIER, applied(), false)),
                Step::Validate, "R8b"),
            ("the vintage engine dropped and green: kept next", model,
                e().green_with_leftover().handed_over(applied()).validated(true)
                    .verdict(JUDGE, left_done.clone())
                    .then(Stage::Fix, TAKE_UP, attempt(RECIPE_TIER, applied(), false))
                    .validated(true),
                Step::Handover, "R8g"),
            ("the vintage change kept", model,
                e().green_with_leftover().handed_over(applied()).validated(true)
                    .verdict(JUDGE, left_done.clone())
                    .then(Stage::Fix, TAKE_UP, attempt(RECIPE_TIER, applied(), false))
                    .validated(true).verdict(JUDGE, vintage_stays.clone()),
                Step::Classify, "R9"),
            ("classified", build, e().written().validated(true).classified(), Step::Done, "R9"),
        ];
        for (name, facts, entries, step, rule) in cases {
            let journal = entries.journal();
            let state = fold(&journal, &facts);
            let (got, got_rule) = next(&state);
            assert_eq!(
                (got, got_rule.split(':').next().unwrap()),
                (step, rule),
                "{name}: {got_rule}\n{state:#?}"
            );
            // The same entries always give the same step and rule.
            assert_eq!(fold(&journal.clone(), &facts), state, "{name}");
            assert_eq!(next(&fold(&journal, &facts)), (got, got_rule), "{name}");
            // The fold reads an entry's turn from its rule: the fix loop's and the next
            // tier's rules are the ones it knows.
            let expected = match got {
                Step::Fix => Turn::Fix,
                Step::Handover => Turn::Handover,
                _ => Turn::Other,
            };
            assert_eq!(turn(got_rule), expected, "{name}: {got_rule}");
        }
    }

    /// The run loop's walk: each step appends what it learnt, the fold decides again.
    #[test]
    fn a_run_walks_from_analysis_through_the_fix_loop_and_a_rollback_round_to_its_outcome() {
        let facts = facts(true, false, true);
        let mut entries = Entries::default();
        let mut validations = [false, false, true].into_iter();
        let mut steps = Vec::new();
        for _ in 0..40 {
            let (step, rule) = next(&fold(&entries.journal(), &facts));
            steps.push(rule.split(':').next().unwrap().to_string());
            let e = std::mem::take(&mut entries);
            entries = match step {
                Step::Analyze => e.analyzed(),
                Step::Baseline => e.then(
                    Stage::Baseline,
                    rule,
                    StepResult::Built(Box::new(outcome(Some(0), false))),
                ),
                Step::Plan => e.then(
                    Stage::Plan,
                    rule,
                    StepResult::Planned {
                        tasks: vec![task("a", &[])],
                        decisions: vec![],
                    },
                ),
                Step::Execute => e.executed(
                    Stage::Execute,
                    rule,
                    record("a", RECIPE_TIER, TaskStatus::Done, &[]),
                ),
                Step::Write => e.write(),
                Step::Validate => e.validated(validations.next().unwrap_or(true)),
                Step::Fix if steps.iter().filter(|r| *r == "R8d").count() == 1 => {
                    e.fix(applied(), false)
                }
                Step::Fix => e.fix(rejected(), false),
                Step::Rollback => e.rolled_back(false),
                Step::Classify => e.classified(),
                Step::Done => break,
                other => panic!("unexpected {other:?}"),
            };
        }
        assert_eq!(
            steps.join(" "),
            "R1 R3 R5 R6 R7 R8b R8d R8b R8d R8d R8e R6 R7 R8b R9 R9"
        );
    }
}
