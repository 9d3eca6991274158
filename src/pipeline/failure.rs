//! What kind of failure a red build is, from Maven's `[ERROR]` lines and the test
//! reports, so the fix loop knows which gate failed and what to show the next tier.
//! Each failure carries its normalized signature for retrieval and the error history:
//! for a test failure that is the assertion message, never the project's test id.

use crate::build::maven::BuildRun;
pub use crate::evidence::{Failure, FailureKind};
use crate::knowledge::signature::{ProjectNames, normalize};

const ENVIRONMENT: &[&str] = &[
    "OutOfMemoryError",
    "Could not transfer artifact",
    "Connection refused",
    "No space left on device",
    "timed out",
    "Unknown host",
];

const POM: &[&str] = &[
    "Non-resolvable parent POM",
    "Could not resolve dependencies",
    "Could not find artifact",
    "Non-parseable POM",
    "The build could not read",
    "Plugin ",
    "Unknown packaging",
    "'dependencies.dependency.version' for",
];

/// Maven's words for a build that cannot start for a reason outside the project: what
/// it needs cannot be fetched from where it looks.
const UNRESOLVABLE: &[&str] = &[
    "Could not resolve dependencies",
    "Could not find artifact",
    "Non-resolvable parent POM",
    "Non-resolvable import POM",
    "Could not transfer artifact",
    "Failed to read artifact descriptor",
    "or one of its dependencies could not be resolved",
    "Cannot access central",
    "Unknown host",
    "UnknownHostException",
    "Connect to repo",
    "resolution is not reattempted",
];

/// The first line of a failed build that says something it needs cannot be resolved.
pub fn unresolvable(run: &BuildRun) -> Option<&str> {
    if run.succeeded() {
        return None;
    }
    run.errors
        .iter()
        .chain(run.tail.iter())
        .find(|l| UNRESOLVABLE.iter().any(|w| l.contains(w)))
        .map(|l| l.trim_start_matches("[ERROR]").trim())
}

/// Surefire's lines about the failing tests (`TwiceTest.doubles:10 expected: <8> but was:
/// <12>`), without the per-class summaries: what each failing test reported.
fn assertion_lines(run: &BuildRun, newly_failing: &[String]) -> Vec<String> {
    let keys: Vec<String> = newly_failing
        .iter()
        .filter_map(|t| {
            let (class, method) = t.split_whitespace().next()?.split_once('#')?;
            Some(format!("{}.{method}", class.rsplit('.').next()?))
        })
        .collect();
    let mut lines: Vec<String> = Vec::new();
    for l in &run.errors {
        let l = l.trim_start_matches("[ERROR]").trim();
        if keys.iter().any(|k| l.contains(k.as_str()))
            && !l.contains("Time elapsed")
            && !lines.iter().any(|seen| seen == l)
        {
            lines.push(l.to_string());
        }
    }
    lines
}

/// Classifies a failed run; `newly_failing` are the tests the invariance check lost, and
/// `names` what the signature must not carry.
pub fn classify(run: &BuildRun, newly_failing: &[String], names: &ProjectNames) -> Option<Failure> {
    let errors = &run.errors;
    let has = |words: &[&str]| {
        errors
            .iter()
            .chain(run.tail.iter())
            .any(|l| words.iter().any(|w| l.contains(w)))
    };
    let (kind, lines): (FailureKind, Vec<String>) = if run.timed_out || has(ENVIRONMENT) {
        (FailureKind::Environment, errors.clone())
    } else if let Some(i) = errors.iter().position(|l| l.contains("COMPILATION ERROR")) {
        let detail: Vec<String> = errors[i + 1..]
            .iter()
            .filter(|l| l.contains(".java"))
            .cloned()
            .collect();
        (FailureKind::Compile, detail)
    } else if errors.iter().any(|l| l.contains(".java:[")) {
        let detail = errors
            .iter()
            .filter(|l| l.contains(".java:["))
            .cloned()
            .collect();
        (FailureKind::Compile, detail)
    } else if has(POM) {
        (FailureKind::Pom, errors.clone())
    } else if !newly_failing.is_empty() {
        let assertions = assertion_lines(run, newly_failing);
        // The assertion says what went wrong; the test's id only where it failed.
        let detail = assertions.iter().chain(newly_failing).cloned().collect();
        (FailureKind::Test, detail)
    } else if run.succeeded() {
        return None;
    } else {
        (FailureKind::Environment, errors.clone())
    };
    let first = lines.first().cloned().unwrap_or_default();
    let location = first
        .split_whitespace()
        .find(|w| w.contains(".java:["))
        .map(|w| w.trim_start_matches("[ERROR]").to_string());
    Some(Failure {
        kind,
        signature: names.scrub(&normalize(&first)),
        errors: lines,
        location,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(exit: i32, errors: &[&str]) -> BuildRun {
        BuildRun {
            command: "mvn test".into(),
            exit_code: Some(exit),
            duration_ms: 1,
            errors: errors.iter().map(|s| s.to_string()).collect(),
            jdk: 17,
            ..Default::default()
        }
    }

    #[test]
    fn compile_pom_test_and_environment() {
        let c = classify(
            &run(
                1,
                &[
                    "[ERROR] COMPILATION ERROR : ",
                    "[ERROR] /w/src/main/java/a/A.java:[3,8] cannot find symbol",
                ],
            ),
            &[],
            &ProjectNames::default(),
        )
        .unwrap();
        assert_eq!(c.kind, FailureKind::Compile);
        assert_eq!(
            c.location.as_deref(),
            Some("/w/src/main/java/a/A.java:[3,8]")
        );
        assert_eq!(c.signature, "cannot find symbol");
        let p = classify(
            &run(1, &["[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project"]),
            &[],
            &ProjectNames::default(),
        )
        .unwrap();
        assert_eq!(p.kind, FailureKind::Pom);
        let none = ProjectNames::default();
        let t = classify(&run(0, &[]), &["a.B#c (failed)".into()], &none).unwrap();
        assert_eq!(t.kind, FailureKind::Test);
        let mut slow = run(1, &[]);
        slow.timed_out = true;
        assert_eq!(
            classify(&slow, &[], &none).unwrap().kind,
            FailureKind::Environment
        );
        assert_eq!(classify(&run(0, &[]), &[], &none), None);
    }

    /// A test failure is known by its assertion, not by the project's test id.
    #[test]
    fn a_test_failure_is_signed_by_its_assertion_without_the_projects_names() {
        let names = ProjectNames::new(
            ["com.acme.sched".to_string()],
            ["SchedulerTest".to_string()],
        );
        let surefire = run(
            0,
            &[
                "[ERROR] Tests run: 1, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in com.acme.sched.SchedulerTest",
                "[ERROR] com.acme.sched.SchedulerTest.nextAddsOne  Time elapsed: 0.01 s  <<< FAILURE!",
                "[ERROR] Failures: ",
                "[ERROR]   SchedulerTest.nextAddsOne:14 expected: <2> but was: <3>",
            ],
        );
        let failing = ["com.acme.sched.SchedulerTest#nextAddsOne (failed)".to_string()];
        let t = classify(&surefire, &failing, &names).unwrap();
        assert_eq!(t.kind, FailureKind::Test);
        assert_eq!(t.signature, "expected: <N> but was: <N>");
        assert_eq!(
            t.errors,
            [
                "SchedulerTest.nextAddsOne:14 expected: <2> but was: <3>",
                "com.acme.sched.SchedulerTest#nextAddsOne (failed)"
            ]
        );
        // Without Surefire's line the id is all there is, and it still leaves.
        let bare = classify(&run(0, &[]), &failing, &names).unwrap();
        assert_eq!(bare.signature, "(failed)");
    }
}
