//! Flaky tests: a test that fails is run again, with its class on its own, before anyone
//! blames a change for it (timing, ordering and port clashes are common in real suites). Only
//! a failure that repeats counts; a test that passes the second time is flaky.

use std::collections::BTreeSet;

use super::reports::{TestResults, TestStatus};

/// Above this many failing classes a break is not flakiness; nothing is re-run.
pub const MAX_CLASSES: usize = 10;

/// The test classes to run again (outer class of a nested one), or none when there are
/// too many to be flakiness or nothing failed.
pub fn classes_to_rerun(results: &TestResults) -> Vec<String> {
    let classes: BTreeSet<String> = results
        .tests
        .iter()
        .filter(|(_, s)| matches!(s, TestStatus::Failed | TestStatus::Errored))
        .map(|(key, _)| {
            let class = key.split('#').next().unwrap_or(key);
            class.split('$').next().unwrap_or(class).to_string()
        })
        .collect();
    if classes.len() > MAX_CLASSES {
        return Vec::new();
    }
    classes.into_iter().collect()
}

/// Surefire properties that run just these classes in every module (a module without
/// them is not an error).
pub fn rerun_properties(classes: &[String]) -> Vec<(String, String)> {
    vec![
        ("test".into(), classes.join(",")),
        ("surefire.failIfNoSpecifiedTests".into(), "false".into()),
        ("failIfNoTests".into(), "false".into()),
    ]
}

/// The tests that failed in `first` and passed in `again`.
pub fn flipped(first: &TestResults, again: &TestResults) -> BTreeSet<String> {
    first
        .tests
        .iter()
        .filter(|(_, s)| matches!(s, TestStatus::Failed | TestStatus::Errored))
        .filter(|(key, _)| again.tests.get(*key).is_some_and(|s| s.is_green()))
        .map(|(key, _)| key.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(pairs: &[(&str, TestStatus)]) -> TestResults {
        TestResults {
            tests: pairs.iter().map(|(k, s)| (k.to_string(), *s)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn failing_classes_are_rerun_once_each_outer_class_for_nested_ones() {
        let r = results(&[
            ("p.A#one", TestStatus::Failed),
            ("p.A#two", TestStatus::Errored),
            ("p.B$Inner#three", TestStatus::Failed),
            ("p.C#four", TestStatus::Passed),
            ("p.D#five", TestStatus::Skipped),
        ]);
        assert_eq!(classes_to_rerun(&r), vec!["p.A", "p.B"]);
        assert!(classes_to_rerun(&results(&[("p.A#x", TestStatus::Passed)])).is_empty());
    }

    #[test]
    fn a_wide_break_is_not_rerun() {
        let many: Vec<(String, TestStatus)> = (0..=MAX_CLASSES)
            .map(|i| (format!("p.C{i}#t"), TestStatus::Failed))
            .collect();
        let pairs: Vec<(&str, TestStatus)> = many.iter().map(|(k, s)| (k.as_str(), *s)).collect();
        assert!(classes_to_rerun(&results(&pairs)).is_empty());
    }

    #[test]
    fn only_a_failure_that_passes_again_is_flaky() {
        let first = results(&[
            ("p.A#flips", TestStatus::Failed),
            ("p.A#repeats", TestStatus::Failed),
            ("p.A#green", TestStatus::Passed),
            ("p.B#absent", TestStatus::Errored),
        ]);
        let again = results(&[
            ("p.A#flips", TestStatus::Passed),
            ("p.A#repeats", TestStatus::Errored),
            ("p.A#green", TestStatus::Passed),
        ]);
        assert_eq!(
            flipped(&first, &again).into_iter().collect::<Vec<_>>(),
            vec!["p.A#flips"]
        );
    }
}
