//! Stage 5: compare the migrated build with the baseline (the invariance check).

use std::collections::BTreeSet;

use crate::analyze::Inventory;
use crate::build::reports::{TestResults, TestStatus};
use crate::journal::{BuildOutcome, Validation};

fn inventory_keys(inv: &Inventory) -> BTreeSet<String> {
    inv.iter()
        .flat_map(|(file, tests)| {
            tests
                .iter()
                .map(move |t| format!("{}::{}#{}", file.display(), t.class, t.method))
        })
        .collect()
}

fn executed(r: &TestResults) -> usize {
    [TestStatus::Passed, TestStatus::Failed, TestStatus::Errored]
        .into_iter()
        .map(|s| r.count(s))
        .sum()
}

/// Static inventory (no test method lost) and executed results (every baseline-green test
/// still green, as often, none newly skipped; every baseline-red test still run). A red
/// baseline test's status is not held against the migration, nor is a test that failed
/// and then passed on its own (flaky). Counts of runs are reported, not compared: a test
/// framework may report one red test more than once.
pub fn compare(
    before_inventory: &Inventory,
    after_inventory: &Inventory,
    baseline: Option<&BuildOutcome>,
    after: BuildOutcome,
    class_majors: std::collections::BTreeMap<u32, usize>,
    expected_major: u32,
) -> Validation {
    let after_keys = inventory_keys(after_inventory);
    let lost_from_source = inventory_keys(before_inventory)
        .into_iter()
        .filter(|k| !after_keys.contains(k))
        .collect();
    let empty = TestResults::default();
    let before = baseline.map_or(&empty, |b| &b.tests);
    let mut newly_failing = Vec::new();
    let mut newly_skipped = Vec::new();
    let mut invocations_changed = Vec::new();
    let mut no_longer_run = Vec::new();
    for (name, status) in &before.tests {
        if !status.is_green() {
            // A red test is not held to passing, but it must still run: its failure may
            // not vanish from the reports. How often it is reported may change (JUnit 4
            // reports a test whose @Before and @After both throw twice, Jupiter once).
            let runs = |s: &TestStatus| *s != TestStatus::Skipped;
            if runs(status) && !after.tests.tests.get(name).is_some_and(runs) {
                no_longer_run.push(name.clone());
            }
            continue;
        }
        match after.tests.tests.get(name) {
            Some(s) if s.is_green() => {
                let (was, is) = (
                    before.invocations_of(name),
                    after.tests.invocations_of(name),
                );
                if was != is && !after.tests.flaky.contains(name) {
                    invocations_changed.push(format!("{name} ran {was} times before, {is} after"));
                }
            }
            // Failed, then passed on its own: flaky, reported with the build, not blamed.
            Some(_) if after.tests.flaky.contains(name) => {}
            Some(TestStatus::Skipped) => newly_skipped.push(name.clone()),
            Some(s) => newly_failing.push(format!("{name} ({})", format!("{s:?}").to_lowercase())),
            None => newly_failing.push(format!("{name} (not run)")),
        }
    }
    Validation {
        executed_before: executed(before),
        executed_after: executed(&after.tests),
        green_before: before.count(TestStatus::Passed),
        green_after: after.tests.count(TestStatus::Passed),
        lost_from_source,
        newly_failing,
        newly_skipped,
        invocations_changed,
        no_longer_run,
        build: after,
        class_majors,
        expected_major,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::java::TestMethod;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn results(pairs: &[(&str, TestStatus)]) -> BuildOutcome {
        BuildOutcome {
            jdk: Some(17),
            raised_level: None,
            run: None,
            tests: TestResults {
                tests: pairs.iter().map(|(k, s)| (k.to_string(), *s)).collect(),
                ..Default::default()
            },
            error: None,
        }
    }

    fn inv(methods: &[&str]) -> Inventory {
        BTreeMap::from([(
            PathBuf::from("T.java"),
            methods
                .iter()
                .map(|m| TestMethod {
                    class: "T".into(),
                    method: m.to_string(),
                    kind: "Test".into(),
                })
                .collect(),
        )])
    }

    #[test]
    fn red_baseline_tests_are_excused_but_green_ones_must_stay() {
        use TestStatus::*;
        let base = results(&[
            ("T#a", Passed),
            ("T#b", Failed),
            ("T#c", Passed),
            ("T#d", Passed),
        ]);
        let after = results(&[("T#a", Passed), ("T#b", Failed), ("T#c", Skipped)]);
        let v = compare(
            &inv(&["a", "b", "c", "d"]),
            &inv(&["a", "b", "c"]),
            Some(&base),
            after,
            BTreeMap::new(),
            61,
        );
        assert_eq!(v.lost_from_source, ["T.java::T#d"]);
        assert_eq!(v.newly_failing, ["T#d (not run)"]);
        assert_eq!(v.newly_skipped, ["T#c"]);
        assert!(!v.invariant());
        let same = compare(
            &inv(&["a"]),
            &inv(&["a"]),
            Some(&base),
            results(&[
                ("T#a", Passed),
                ("T#b", Passed),
                ("T#c", Passed),
                ("T#d", Passed),
            ]),
            BTreeMap::new(),
            61,
        );
        assert!(same.invariant());
    }

    #[test]
    fn a_test_that_passed_on_its_own_is_flaky_not_a_regression() {
        use TestStatus::*;
        let base = results(&[("T#a", Passed), ("T#b", Passed)]);
        let mut after = results(&[("T#a", Failed), ("T#b", Failed)]);
        after.tests.flaky.insert("T#a".into());
        let v = compare(
            &inv(&["a", "b"]),
            &inv(&["a", "b"]),
            Some(&base),
            after,
            BTreeMap::new(),
            61,
        );
        assert_eq!(v.newly_failing, ["T#b (failed)"]);
    }

    /// A parameterized test green before and after, but over fewer parameter rows, does not
    /// check what it checked before.
    #[test]
    fn a_lost_parameter_row_breaks_invariance() {
        use TestStatus::*;
        let mut base = results(&[("T#a", Passed), ("T#p", Passed)]);
        base.tests.invocations.insert("T#p".into(), 3);
        let mut after = results(&[("T#a", Passed), ("T#p", Passed)]);
        after.tests.invocations.insert("T#p".into(), 2);
        let v = compare(
            &inv(&["a", "p"]),
            &inv(&["a", "p"]),
            Some(&base),
            after.clone(),
            BTreeMap::new(),
            61,
        );
        assert_eq!(v.invocations_changed, ["T#p ran 3 times before, 2 after"]);
        assert_eq!((v.executed_before, v.executed_after), (4, 3));
        assert!(!v.invariant());
        after.tests.invocations.insert("T#p".into(), 3);
        let same = compare(
            &inv(&["a", "p"]),
            &inv(&["a", "p"]),
            Some(&base),
            after,
            BTreeMap::new(),
            61,
        );
        assert!(same.invariant(), "{:?}", same.invocations_changed);
    }

    /// A red test may be reported a different number of times (JUnit 4 reports a test
    /// whose @Before and @After both throw twice, Jupiter once), but it must still run:
    /// a migration that makes a failure vanish hides it.
    #[test]
    fn a_red_test_must_still_run_however_often_it_is_reported() {
        use TestStatus::*;
        let mut base = results(&[("T#a", Passed), ("T#r", Errored), ("T#s", Failed)]);
        base.tests.invocations.insert("T#r".into(), 2);
        let after = results(&[("T#a", Passed), ("T#r", Errored), ("T#s", Errored)]);
        let v = compare(
            &inv(&["a", "r", "s"]),
            &inv(&["a", "r", "s"]),
            Some(&base),
            after,
            BTreeMap::new(),
            61,
        );
        assert_eq!((v.executed_before, v.executed_after), (4, 3));
        assert!(v.invariant(), "{v:?}");
        for gone in [
            results(&[("T#a", Passed), ("T#r", Errored)]),
            results(&[("T#a", Passed), ("T#r", Errored), ("T#s", Skipped)]),
        ] {
            let v = compare(
                &inv(&["a", "r", "s"]),
                &inv(&["a", "r", "s"]),
                Some(&base),
                gone,
                BTreeMap::new(),
                61,
            );
            assert_eq!(v.no_longer_run, ["T#s"]);
            assert!(!v.invariant());
        }
    }
}
