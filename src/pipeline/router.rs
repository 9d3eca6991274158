//! The router: code, not a model, decides the next step from what the journal knows.

/// The next step of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Analyze,
    Baseline,
    /// An earlier attempt of this job built the same untouched tree: its baseline stands.
    ReuseBaseline,
    SkipBaseline,
    Plan,
    Execute,
    Write,
    Validate,
    SkipValidation,
    Fix,
    /// The next tier takes up a task the recipes left (or judges, keeps or gives back
    /// its change).
    Handover,
    Rollback,
    StopOnLimit,
    Classify,
    Done,
}

/// What the router looks at: folded from the journal each turn (`fold::fold`), never set
/// by a step.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct State {
    pub analyzed: bool,
    pub analysis_failed: bool,
    pub build_enabled: bool,
    pub dry_run: bool,
    pub baseline_done: bool,
    /// An earlier attempt of this job (same commit, same options) recorded a baseline.
    pub baseline_reusable: bool,
    /// A build (the baseline or a validation) was killed at its time or disk limit.
    pub build_stopped: bool,
    /// Maven could not run at all (missing, cannot start): validating would fail the same way.
    pub baseline_unavailable: bool,
    pub planned: bool,
    pub tasks_pending: bool,
    pub written: bool,
    pub write_failed: bool,
    pub validated: bool,
    /// The latest validation is red (build or invariance).
    pub validation_red: bool,
    /// An LLM is configured, so a red validation goes to the fix loop.
    pub fix_enabled: bool,
    pub fix_attempts: u32,
    /// The fix loop has nothing more to try (stuck, escalated, unfixable failure).
    pub fix_done: bool,
    /// The latest comparison of what tests check found a difference.
    pub checks_changed: bool,
    /// Rounds of the never-red tier so far.
    pub rollback_rounds: u32,
    /// The never-red tier gave every changed file its original bytes: nothing more to do.
    pub restored: bool,
    /// A task the recipes left waits for the next tier, or one is in progress.
    pub handover_pending: bool,
    /// The next tier's change to its current task is on disk and awaits its verdict (the
    /// validation runs first).
    pub handover_written: bool,
    /// The current task's attempts changed files on disk (validated or not).
    pub handover_dirty: bool,
    /// The untouched project cannot be built for a reason outside it.
    pub baseline_unresolvable: bool,
    pub limit_reached: bool,
    pub out_of_time: bool,
    pub classified: bool,
}

/// One row of the routing table: the first rule whose condition holds chooses the step.
struct Rule {
    /// `R<n>:why`, recorded in the journal with the step.
    id: &'static str,
    when: fn(&State) -> bool,
    step: Step,
}

const fn rule(id: &'static str, when: fn(&State) -> bool, step: Step) -> Rule {
    Rule { id, when, step }
}

/// The routing table, in order of precedence (`OTHERWISE` after the last row). A run ends
/// when a rule chooses `Done`.
const RULES: &[Rule] = &[
    rule("R9:classified", |s| s.classified, Step::Done),
    rule(
        "R0:wall-clock budget spent",
        |s| s.out_of_time && !s.limit_reached,
        Step::StopOnLimit,
    ),
    rule(
        "R0d:limit reached during a next-tier task, give its files back",
        |s| s.limit_reached && s.handover_dirty,
        Step::Handover,
    ),
    rule(
        "R0e:limit reached with written changes never validated, validate them",
        |s| s.limit_reached && unvalidated_write(s),
        Step::Validate,
    ),
    rule(
        "R0c:limit reached with the build red, give every file back",
        |s| s.limit_reached && red_unrestored(s),
        Step::Rollback,
    ),
    rule(
        "R0b:limit reached, classify what exists",
        |s| s.limit_reached,
        Step::Classify,
    ),
    rule(
        "R1:nothing known yet, analyze",
        |s| !s.analyzed,
        Step::Analyze,
    ),
    rule(
        "R2:analysis failed, nothing safe to do",
        |s| s.analysis_failed,
        Step::Classify,
    ),
    rule(
        "R3r:an earlier attempt built the same untouched tree, reuse its baseline",
        |s| !s.baseline_done && s.build_enabled && s.baseline_reusable,
        Step::ReuseBaseline,
    ),
    rule(
        "R3:no baseline yet, build untouched project",
        |s| !s.baseline_done && s.build_enabled,
        Step::Baseline,
    ),
    rule(
        "R3b:builds disabled, no baseline",
        |s| !s.baseline_done,
        Step::SkipBaseline,
    ),
    rule(
        "R4:a build hit its time or disk limit",
        |s| s.build_stopped,
        Step::Classify,
    ),
    rule(
        "R4c:the untouched project cannot be resolved here; edit nothing",
        |s| s.baseline_unresolvable,
        Step::Classify,
    ),
    rule(
        "R4b:Maven could not run; nothing can be validated",
        |s| s.baseline_unavailable,
        Step::Classify,
    ),
    rule(
        "R5:baseline known, derive tasks from fingerprint",
        |s| !s.planned,
        Step::Plan,
    ),
    rule(
        "R6:pending tasks, run the recipe tier",
        |s| s.tasks_pending,
        Step::Execute,
    ),
    rule(
        "R7:tasks done, write or show changes",
        |s| !s.written,
        Step::Write,
    ),
    rule("R8:write failed", |s| s.write_failed, Step::Classify),
    rule(
        "R8b:changes written, validate against baseline",
        |s| !s.validated && s.build_enabled && !s.dry_run,
        Step::Validate,
    ),
    rule(
        "R8c:builds disabled or dry run, no validation",
        |s| !s.validated,
        Step::SkipValidation,
    ),
    rule(
        "R8g:the next tier's change is validated, keep it if green, else retry or give it back",
        |s| s.handover_written,
        Step::Handover,
    ),
    rule(
        "R8d:validation red, next fix-loop attempt",
        |s| s.validation_red && s.fix_enabled && !s.fix_done && s.fix_attempts < MAX_FIX_ATTEMPTS,
        Step::Fix,
    ),
    rule(
        "R8e:red or a test's checks changed, take back the migrated files that caused it",
        red_unrestored,
        Step::Rollback,
    ),
    rule(
        "R8f:green and the recipes left a task, hand it to the next tier",
        |s| s.handover_pending && s.fix_enabled && s.build_enabled && !s.dry_run,
        Step::Handover,
    ),
];

/// When no rule of the table holds, the run is validated and classified.
const OTHERWISE: (Step, &str) = (Step::Classify, "R9:validated, classify");

/// Returns the step and the id of the rule that chose it (recorded in the journal).
pub fn next(s: &State) -> (Step, &'static str) {
    RULES
        .iter()
        .find(|r| (r.when)(s))
        .map_or(OTHERWISE, |r| (r.step, r.id))
}

/// Changes are on disk that no build has checked yet.
fn unvalidated_write(s: &State) -> bool {
    s.written && !s.validated && !s.write_failed && !s.restored && s.build_enabled && !s.dry_run
}

/// The validated tree is red, or a test no longer checks what it did, and the
/// never-red tier has not given everything back yet.
fn red_unrestored(s: &State) -> bool {
    s.validated && (s.validation_red || s.checks_changed) && !s.restored && !s.dry_run
}

/// Attempts per failing gate before the run ends as it stands.
pub const MAX_FIX_ATTEMPTS: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_the_stages_in_order() {
        let mut s = State {
            build_enabled: true,
            ..Default::default()
        };
        let mut steps = Vec::new();
        loop {
            let (step, _) = next(&s);
            steps.push(step);
            match step {
                Step::Analyze => s.analyzed = true,
                Step::Baseline => s.baseline_done = true,
                Step::Plan => {
                    s.planned = true;
                    s.tasks_pending = true
                }
                Step::Execute => s.tasks_pending = false,
                Step::Write => s.written = true,
                Step::Validate => s.validated = true,
                Step::Classify => s.classified = true,
                Step::Done => break,
                other => panic!("unexpected {other:?}"),
            }
        }
        use Step::*;
        assert_eq!(
            steps,
            [
                Analyze, Baseline, Plan, Execute, Write, Validate, Classify, Done
            ]
        );
    }

    #[test]
    fn a_resumed_run_reuses_the_baseline_an_earlier_attempt_recorded() {
        let mut s = State {
            analyzed: true,
            build_enabled: true,
            baseline_reusable: true,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::ReuseBaseline);
        s.baseline_done = true;
        assert_eq!(next(&s).0, Step::Plan);
        let no_build = State {
            analyzed: true,
            baseline_reusable: true,
            ..Default::default()
        };
        assert_eq!(next(&no_build).0, Step::SkipBaseline);
    }

    #[test]
    fn stops_early_on_failures_and_limits() {
        let s = State {
            analyzed: true,
            analysis_failed: true,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::Classify);
        let s = State {
            analyzed: true,
            out_of_time: true,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::StopOnLimit);
        let s = State {
            analyzed: true,
            baseline_done: true,
            build_stopped: true,
            build_enabled: true,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::Classify);
        let s = State {
            analyzed: true,
            baseline_done: true,
            planned: true,
            written: true,
            dry_run: true,
            build_enabled: true,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::SkipValidation);
    }

    #[test]
    fn a_red_validation_goes_to_the_fix_loop_at_most_three_times() {
        let mut s = State {
            analyzed: true,
            baseline_done: true,
            planned: true,
            written: true,
            validated: true,
            validation_red: true,
            build_enabled: true,
            ..Default::default()
        };
        assert_eq!(
            next(&s).0,
            Step::Rollback,
            "no LLM configured: the never-red tier"
        );
        s.fix_enabled = true;
        for attempt in 0..MAX_FIX_ATTEMPTS {
            s.fix_attempts = attempt;
            assert_eq!(
                next(&s),
                (Step::Fix, "R8d:validation red, next fix-loop attempt")
            );
        }
        s.fix_attempts = MAX_FIX_ATTEMPTS;
        assert_eq!(next(&s).0, Step::Rollback);
        s.fix_attempts = 1;
        s.fix_done = true;
        assert_eq!(next(&s).0, Step::Rollback, "stuck or unfixable");
        s.fix_done = false;
        s.validation_red = false;
        assert_eq!(next(&s).0, Step::Classify, "green after a fix");
    }

    #[test]
    fn a_green_run_hands_the_recipes_leftovers_to_the_next_tier_one_change_at_a_time() {
        let mut s = State {
            analyzed: true,
            baseline_done: true,
            planned: true,
            written: true,
            validated: true,
            build_enabled: true,
            handover_pending: true,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::Classify, "no model: left for a human");
        s.fix_enabled = true;
        assert_eq!(
            next(&s),
            (
                Step::Handover,
                "R8f:green and the recipes left a task, hand it to the next tier"
            )
        );
        // The change is written: validated first, then judged, even when red.
        s.validated = false;
        s.handover_written = true;
        s.handover_dirty = true;
        assert_eq!(next(&s).0, Step::Validate);
        s.validated = true;
        s.validation_red = true;
        assert_eq!(
            next(&s).0,
            Step::Handover,
            "the handover judges its own red change, not the fix loop"
        );
        // A limit gives the task's files back before anything else.
        s.limit_reached = true;
        assert_eq!(next(&s).0, Step::Handover);
        s.handover_written = false;
        s.handover_dirty = false;
        s.validated = false;
        s.validation_red = false;
        assert_eq!(
            next(&s).0,
            Step::Validate,
            "the given-back tree is validated before the run is classified"
        );
        s.validated = true;
        assert_eq!(next(&s).0, Step::Classify);
        let dry = State {
            dry_run: true,
            limit_reached: false,
            ..s.clone()
        };
        assert_eq!(next(&dry).0, Step::Classify, "a dry run hands nothing over");
    }

    #[test]
    fn red_after_the_fix_loop_goes_to_the_never_red_tier_until_restored() {
        let mut s = State {
            analyzed: true,
            baseline_done: true,
            planned: true,
            written: true,
            validated: true,
            validation_red: true,
            build_enabled: true,
            fix_enabled: true,
            fix_attempts: MAX_FIX_ATTEMPTS,
            ..Default::default()
        };
        assert_eq!(next(&s).0, Step::Rollback);
        s.validation_red = false;
        s.checks_changed = true;
        assert_eq!(
            next(&s).0,
            Step::Rollback,
            "a weakened test is taken back too"
        );
        s.limit_reached = true;
        assert_eq!(next(&s).0, Step::Rollback, "a limit never leaves it red");
        s.restored = true;
        assert_eq!(next(&s).0, Step::Classify);
        let unresolvable = State {
            analyzed: true,
            baseline_done: true,
            baseline_unresolvable: true,
            build_enabled: true,
            ..Default::default()
        };
        assert_eq!(
            next(&unresolvable),
            (
                Step::Classify,
                "R4c:the untouched project cannot be resolved here; edit nothing"
            )
        );
    }
}
