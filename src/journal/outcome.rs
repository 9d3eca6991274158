//! The outcome class: a pure function of the journal, so a replayed journal classifies the
//! same way.

use serde::{Deserialize, Serialize};

use super::{Journal, StepResult};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    Success,
    PartialSuccess,
    Failure,
    Incomplete,
}

impl Outcome {
    /// Process exit code of `uplift migrate` (documented in the README).
    pub fn exit_code(self) -> i32 {
        match self {
            Outcome::Success => 0,
            Outcome::PartialSuccess => 2,
            Outcome::Failure => 3,
            Outcome::Incomplete => 4,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "SUCCESS",
            Outcome::PartialSuccess => "PARTIAL_SUCCESS",
            Outcome::Failure => "FAILURE",
            Outcome::Incomplete => "INCOMPLETE",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OutcomeRecord {
    pub outcome: Outcome,
    pub tasks_total: usize,
    pub tasks_done: usize,
    /// The rule that decided, then supporting facts.
    pub reasons: Vec<String>,
}

pub const SUCCESS_RATIO: f64 = 0.9;
pub const PARTIAL_RATIO: f64 = 0.5;

pub fn classify(journal: &Journal) -> OutcomeRecord {
    let tasks = journal.tasks();
    let done = tasks
        .iter()
        .filter(|t| {
            journal
                .task_records()
                .filter(|r| r.task_id == t.id)
                .last()
                .is_some_and(|r| r.status.is_done())
        })
        .count();
    let ratio = if tasks.is_empty() {
        1.0
    } else {
        done as f64 / tasks.len() as f64
    };
    let record = |outcome, reason: String| {
        let mut reasons = vec![reason];
        reasons.push(format!(
            "{done}/{} tasks done ({:.0}%)",
            tasks.len(),
            ratio * 100.0
        ));
        OutcomeRecord {
            outcome,
            tasks_total: tasks.len(),
            tasks_done: done,
            reasons,
        }
    };
    for e in &journal.entries {
        match &e.result {
            StepResult::LimitReached { limit } => {
                return record(Outcome::Incomplete, format!("limit reached: {limit}"));
            }
            StepResult::Built(b) if b.timed_out() => {
                return record(
                    Outcome::Incomplete,
                    format!("{:?} build hit the time limit", e.stage).to_lowercase(),
                );
            }
            StepResult::AnalysisFailed { error } => {
                return record(Outcome::Failure, format!("analysis failed: {error}"));
            }
            StepResult::WriteFailed { error, .. } => {
                return record(Outcome::Failure, format!("writing changes failed: {error}"));
            }
            _ => {}
        }
    }
    let Some(v) = journal.validation() else {
        let why = journal
            .entries
            .iter()
            .rev()
            .find_map(|e| match &e.result {
                StepResult::BuildSkipped { reason } => Some(reason.clone()),
                StepResult::Built(b) => b.error.clone(),
                _ => None,
            })
            .unwrap_or_else(|| "no validation build".into());
        return record(Outcome::Incomplete, format!("not validated: {why}"));
    };
    if !v.invariant() {
        return record(
            Outcome::Failure,
            format!(
                "test invariance broken: {} lost from source, {} newly failing, {} newly skipped, executed {} -> {}",
                v.lost_from_source.len(),
                v.newly_failing.len(),
                v.newly_skipped.len(),
                v.executed_before,
                v.executed_after
            ),
        );
    }
    if !v.build.compiled() {
        return record(Outcome::Failure, "migrated build is red".into());
    }
    if v.wrong_major_classes() > 0 {
        return record(
            Outcome::Failure,
            format!(
                "{} class files are not major version {}",
                v.wrong_major_classes(),
                v.expected_major
            ),
        );
    }
    if ratio >= SUCCESS_RATIO {
        record(
            Outcome::Success,
            "build green, tests invariant, >= 90% of tasks done".into(),
        )
    } else if ratio >= PARTIAL_RATIO {
        record(
            Outcome::PartialSuccess,
            "build green, tests invariant, >= 50% of tasks done".into(),
        )
    } else {
        record(Outcome::Failure, "fewer than 50% of tasks done".into())
    }
}
