//! What kind of failure a red build is, from Maven's `[ERROR]` lines and the test
//! reports, so the fix loop knows which gate failed and what to show the next tier.
//! Each failure carries its normalized signature for retrieval and the error history.

use crate::build::maven::BuildRun;
pub use crate::evidence::{Failure, FailureKind};
use crate::knowledge::signature::normalize;

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

/// Classifies a failed run; `newly_failing` are the tests the invariance check lost.
pub fn classify(run: &BuildRun, newly_failing: &[String]) -> Option<Failure> {
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
        (FailureKind::Test, newly_failing.to_vec())
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
        signature: normalize(&first),
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
            timed_out: false,
            duration_ms: 1,
            errors: errors.iter().map(|s| s.to_string()).collect(),
            tail: vec![],
            output_bytes: 0,
            output_truncated: false,
            sandbox: None,
            egress_refused: Vec::new(),
            deprecations: Vec::new(),
            jdk: 17,
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
        )
        .unwrap();
        assert_eq!(p.kind, FailureKind::Pom);
        let t = classify(&run(0, &[]), &["a.B#c (failed)".into()]).unwrap();
        assert_eq!(t.kind, FailureKind::Test);
        let mut slow = run(1, &[]);
        slow.timed_out = true;
        assert_eq!(classify(&slow, &[]).unwrap().kind, FailureKind::Environment);
        assert_eq!(classify(&run(0, &[]), &[]), None);
    }
}
