//! Renderings of a journal: terminal summary, Markdown report, JSON report.

use std::fmt::Write;

use serde_json::json;

use super::{Journal, Stage, StepResult, TaskStatus};

/// The JSON report: the journal itself plus a computed summary for quick reading.
pub fn json(journal: &Journal) -> serde_json::Value {
    let outcome = journal.outcome();
    let v = journal.validation();
    json!({
        "run_id": journal.run_id,
        "outcome": outcome.map(|o| o.outcome.as_str()),
        "tasks_total": outcome.map(|o| o.tasks_total),
        "tasks_done": outcome.map(|o| o.tasks_done),
        "cost_usd": journal.cost_usd(),
        "tests": v.map(|v| json!({
            "invariant": v.invariant(),
            "executed_before": v.executed_before,
            "executed_after": v.executed_after,
            "green_before": v.green_before,
            "green_after": v.green_after,
            "lost_from_source": v.lost_from_source,
            "newly_failing": v.newly_failing,
            "newly_skipped": v.newly_skipped,
            "before": journal.baseline().map(|b| &b.tests.tests),
            "after": &v.build.tests.tests,
        })),
        "class_majors": v.map(|v| json!({"expected": v.expected_major, "found": v.class_majors})),
        "entries": journal.entries,
    })
}

fn status_mark(s: TaskStatus) -> &'static str {
    match s {
        TaskStatus::Done => "done",
        TaskStatus::NoChange => "no change needed",
        TaskStatus::LeftForNextTier => "left for next tier",
        TaskStatus::Failed => "failed",
    }
}

/// Markdown: what a reviewer reads (and, later, the PR body).
pub fn markdown(journal: &Journal) -> String {
    let mut md = String::new();
    let outcome = journal.outcome();
    let _ = writeln!(md, "# Uplift migration report\n");
    let _ = writeln!(md, "Run `{}`", journal.run_id);
    if let Some(o) = outcome {
        let _ = writeln!(
            md,
            "\n**Outcome: {}** — {}\n",
            o.outcome.as_str(),
            o.reasons.join("; ")
        );
    }
    let _ = writeln!(
        md,
        "Cost: ${:.2} (recipe tier only, no LLM calls)\n",
        journal.cost_usd()
    );
    if let Some(a) = journal.analysis() {
        let _ = writeln!(md, "## Analysis\n");
        let _ = writeln!(
            md,
            "- Modules: {}",
            a.modules
                .iter()
                .map(|m| m.pom.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(
            md,
            "- Java level: {}",
            a.java_level
                .map_or("not declared".into(), |l| l.to_string())
        );
        let _ = writeln!(
            md,
            "- Spring Boot: {}; JUnit 4: {}",
            a.spring_boot.as_deref().unwrap_or("none"),
            a.junit4_version.as_deref().unwrap_or("none")
        );
        let _ = writeln!(
            md,
            "- Java files: {} ({} by JUnit generation: {:?})",
            a.java_files,
            a.files_by_junit.values().sum::<usize>(),
            a.files_by_junit
        );
        if !a.javax_jakarta_ee.is_empty() {
            let _ = writeln!(
                md,
                "- Jakarta-EE-owned javax imports: {}",
                a.javax_jakarta_ee.len()
            );
        }
        for (p, e) in &a.syntax_errors {
            let _ = writeln!(md, "- ⚠ {}: {e} (not rewritten)", p.display());
        }
        for w in &a.warnings {
            let _ = writeln!(md, "- ⚠ {w}");
        }
    }
    if let Some(b) = journal.baseline() {
        let _ = writeln!(md, "\n## Baseline\n");
        let run = b.run.as_ref();
        let _ = writeln!(
            md,
            "JDK {}{}: build {}, {} tests ({} passed, {} failed/errored, {} skipped)",
            b.jdk.unwrap_or(0),
            b.raised_level.map_or(String::new(), |l| format!(
                ", level raised to {l} because no JDK accepts the declared one"
            )),
            if b.compiled() { "green" } else { "red" },
            b.tests.tests.len(),
            test_counts(&b.tests).0,
            test_counts(&b.tests).1,
            test_counts(&b.tests).2,
        );
        if let Some(e) = &b.error {
            let _ = writeln!(md, "\nError: {e}");
        }
        if let Some(r) = run.filter(|r| !r.succeeded()) {
            let _ = writeln!(
                md,
                "\n```\n{}\n```",
                r.errors
                    .iter()
                    .take(10)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
    if let Some(decisions) = journal.decisions() {
        let _ = writeln!(md, "\n## Decisions\n");
        for d in decisions {
            let _ = writeln!(md, "- {d}");
        }
    }
    if !journal.tasks().is_empty() {
        let _ = writeln!(md, "\n## Tasks\n\n{}", tasks_table(journal));
    }
    for e in &journal.entries {
        match &e.result {
            StepResult::Validated(v) => {
                let _ = writeln!(md, "\n## Test invariance\n");
                let _ = writeln!(
                    md,
                    "- Invariance: **{}**",
                    if v.invariant() { "passed" } else { "FAILED" }
                );
                let _ = writeln!(
                    md,
                    "- Executed tests: {} before, {} after; green {} -> {}",
                    v.executed_before, v.executed_after, v.green_before, v.green_after
                );
                let _ = writeln!(
                    md,
                    "- Build on JDK {}: {}",
                    v.build.jdk.unwrap_or(0),
                    if v.build.compiled() { "green" } else { "red" }
                );
                let _ = writeln!(
                    md,
                    "- Class files: {:?} (expected major {})",
                    v.class_majors, v.expected_major
                );
                for (label, list) in [
                    ("Lost from source", &v.lost_from_source),
                    ("Newly failing", &v.newly_failing),
                    ("Newly skipped", &v.newly_skipped),
                ] {
                    for t in list.iter().take(50) {
                        let _ = writeln!(md, "- {label}: `{t}`");
                    }
                }
                if let Some(r) = v.build.run.as_ref().filter(|r| !r.succeeded()) {
                    let _ = writeln!(
                        md,
                        "\n```\n{}\n```",
                        r.errors
                            .iter()
                            .take(20)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                }
            }
            StepResult::BuildSkipped { reason } if e.stage == Stage::Validate => {
                let _ = writeln!(md, "\n## Test invariance\n\nNot validated: {reason}");
            }
            StepResult::WriteFailed {
                written,
                failed,
                error,
            } => {
                let _ = writeln!(
                    md,
                    "\n## ⚠ Write failed\n\n{} failed: {error}. Already written: {written:?}",
                    failed.display()
                );
            }
            StepResult::Written { files, dry_run, .. } => {
                let _ = writeln!(
                    md,
                    "\n## Files {}\n",
                    if *dry_run {
                        "that would change (dry run)"
                    } else {
                        "changed"
                    }
                );
                for f in files {
                    let _ = writeln!(md, "- `{}`", f.display());
                }
            }
            _ => {}
        }
    }
    md
}

/// One row per planned task: what it is, which tier handled it, its status and what changed.
pub fn tasks_table(journal: &Journal) -> String {
    let mut md =
        String::from("| task | recipes | tier | status | detail |\n|---|---|---|---|---|\n");
    for t in journal.tasks() {
        let rec = journal.task_records().filter(|r| r.task_id == t.id).last();
        let status = rec.map_or("not run", |r| status_mark(r.status));
        let detail = rec
            .map(|r| r.reason.clone().unwrap_or_else(|| r.changes.join("; ")))
            .unwrap_or_default()
            .replace('|', "\\|")
            .replace('\n', " ");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {status} | {detail} |",
            t.title.replace('|', "\\|"),
            t.recipes.join(", "),
            rec.map_or("-", |r| r.tier.as_str()),
        );
    }
    md
}

/// (passed, failed or errored, skipped)
pub fn test_counts(t: &crate::build::reports::TestResults) -> (usize, usize, usize) {
    use crate::build::reports::TestStatus;
    (
        t.count(TestStatus::Passed),
        t.count(TestStatus::Failed) + t.count(TestStatus::Errored),
        t.count(TestStatus::Skipped),
    )
}

/// The terminal summary printed at the end of `uplift migrate`.
pub fn summary(journal: &Journal) -> String {
    let mut s = String::new();
    if let Some(o) = journal.outcome() {
        let _ = writeln!(
            s,
            "Outcome: {} ({}/{} tasks done)",
            o.outcome.as_str(),
            o.tasks_done,
            o.tasks_total
        );
        for r in &o.reasons {
            let _ = writeln!(s, "  - {r}");
        }
    }
    if let Some(v) = journal.validation() {
        let _ = writeln!(
            s,
            "Tests: {} executed before, {} after; invariance {}",
            v.executed_before,
            v.executed_after,
            if v.invariant() { "passed" } else { "FAILED" }
        );
    }
    for r in journal.task_records().filter(|r| !r.status.is_done()) {
        let _ = writeln!(
            s,
            "  ! {}: {}",
            r.task_id,
            r.reason.as_deref().unwrap_or("")
        );
    }
    let _ = writeln!(
        s,
        "Run id: {} (uplift report {})",
        journal.run_id, journal.run_id
    );
    s
}
