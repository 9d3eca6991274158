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
        vintage_checked: false,
    };
    let planned_tasks = !journal.tasks().is_empty();
    for entry in &journal.entries {
        f.apply(entry, planned_tasks);
    }
    let Folding {
        mut s,
        task_in_progress,
        vintage_checked,
    } = f;
    s.handover_pending = task_in_progress
        || journal.next_tier_tasks().next().is_some()
        || vintage_task(journal, vintage_checked).is_some();
    s
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
    /// The recipe tier's JUnit 5-only pom step was tried after the next tier.
    vintage_checked: bool,
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
                        s.baseline_timed_out = b.timed_out();
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
                    s.baseline_timed_out |= v.build.timed_out();
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
            StepResult::Task(verdict) => {
                self.task_in_progress = false;
                s.handover_written = false;
                s.handover_dirty = false;
                self.vintage_checked |= verdict.tier == RECIPE_TIER;
            }
            StepResult::Fixed(f) => {
                self.task_in_progress = true;
                let applied = matches!(f.result, FixResult::Applied { .. });
                s.handover_written = applied;
                s.handover_dirty |= applied;
                self.vintage_checked |= f.tier == RECIPE_TIER;
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
