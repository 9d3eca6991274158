//! The outcome class: a pure function of the journal, so a replayed journal classifies the
//! same way.

use serde::{Deserialize, Serialize};

use super::{Invariance, Journal, StepResult};

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
    let done = journal
        .latest_task_records()
        .filter(|r| r.status.is_done())
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
            StepResult::Built(b) if b.stopped().is_some() => {
                return record(
                    Outcome::Incomplete,
                    format!(
                        "{} build {}",
                        format!("{:?}", e.stage).to_lowercase(),
                        b.stopped().unwrap_or_default()
                    ),
                );
            }
            StepResult::AnalysisFailed { error } => {
                return record(Outcome::Failure, format!("analysis failed: {error}"));
            }
            StepResult::WriteFailed { error, .. } => {
                return record(Outcome::Failure, format!("writing changes failed: {error}"));
            }
            StepResult::BaselineUnresolvable { cause, remedy } => {
                return record(
                    Outcome::Incomplete,
                    format!("the untouched project cannot be built here: {cause}; {remedy}"),
                );
            }
            StepResult::RolledBack(r) if r.restored_all => {
                return record(
                    Outcome::Failure,
                    format!(
                        "no migrated change could be kept green ({}): every file is restored to exactly what it was",
                        r.reason.as_deref().unwrap_or("the build stayed red")
                    ),
                );
            }
            _ => {}
        }
    }
    let invariance = journal.invariance();
    if let Invariance::Broken(why) = &invariance {
        return record(
            Outcome::Failure,
            format!("test invariance broken: {}", why.join("; ")),
        );
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
    let tests = match &invariance {
        Invariance::NotJudged(why) => format!("test invariance not judged ({why})"),
        _ => "tests invariant".into(),
    };
    if ratio >= SUCCESS_RATIO {
        record(
            Outcome::Success,
            format!("build green, {tests}, >= 90% of tasks done"),
        )
    } else if ratio >= PARTIAL_RATIO {
        record(
            Outcome::PartialSuccess,
            format!("build green, {tests}, >= 50% of tasks done"),
        )
    } else {
        record(Outcome::Failure, "fewer than 50% of tasks done".into())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::evidence::BuildRun;
    use crate::journal::{BuildOutcome, Entry, Stage, TestCheckDifference, Validation};

    fn entry(stage: Stage, result: StepResult) -> Entry {
        Entry::bare(1, stage, "", result)
    }

    /// A journal whose migrated build is green with `executed` tests before and after,
    /// and whose diff changed what tests check by `differences`.
    pub(crate) fn green_run(executed: usize, differences: Vec<TestCheckDifference>) -> Journal {
        let validation = Validation {
            build: BuildOutcome {
                jdk: Some(17),
                raised_level: None,
                run: Some(BuildRun {
                    command: "mvn test".into(),
                    jdk: 17,
                    exit_code: Some(0),
                    duration_ms: 1,
                    ..Default::default()
                }),
                tests: Default::default(),
                error: None,
            },
            lost_from_source: vec![],
            newly_failing: vec![],
            newly_skipped: vec![],
            invocations_changed: vec![],
            no_longer_run: vec![],
            executed_before: executed,
            executed_after: executed,
            green_before: executed,
            green_after: executed,
            class_majors: Default::default(),
            expected_major: 61,
        };
        let checked = StepResult::InvarianceChecked {
            files: 1,
            tests: executed,
            differences,
        };
        Journal {
            run_id: "r".into(),
            entries: vec![
                entry(Stage::Write, checked),
                entry(Stage::Validate, StepResult::Validated(Box::new(validation))),
            ],
        }
    }

    pub(crate) fn changed_expected_value() -> TestCheckDifference {
        TestCheckDifference {
            file: "src/test/java/CalcTest.java".into(),
            test: "CalcTest#adds".into(),
            change: "changed".into(),
            before: "assertEquals(4, add(2,2))".into(),
            after: "assertEquals(30, add(2,2))".into(),
        }
    }

    #[test]
    fn a_changed_check_fails_the_run_even_with_a_green_build() {
        let journal = green_run(3, vec![changed_expected_value()]);
        let o = classify(&journal);
        assert_eq!(o.outcome, Outcome::Failure);
        assert!(
            o.reasons[0].starts_with(
                "test invariance broken: 1 change(s) to what tests check, first: CalcTest#adds"
            ),
            "{:?}",
            o.reasons
        );
        assert!(
            o.reasons[0].contains("`assertEquals(4, add(2,2))` -> `assertEquals(30, add(2,2))`")
        );
    }

    #[test]
    fn invariance_is_not_judged_without_tests_before_and_passed_only_with_them() {
        let none = green_run(0, vec![]);
        assert!(matches!(none.invariance(), Invariance::NotJudged(_)));
        let o = classify(&none);
        assert_eq!(o.outcome, Outcome::Success);
        assert!(
            o.reasons[0].contains("test invariance not judged (no test ran before the migration"),
            "{:?}",
            o.reasons
        );
        assert!(!o.reasons[0].contains("tests invariant"));
        let some = green_run(3, vec![]);
        assert_eq!(some.invariance(), Invariance::Passed);
        assert!(classify(&some).reasons[0].contains("tests invariant"));
    }
}
