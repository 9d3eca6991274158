//! Renderings of a journal: terminal summary, Markdown report, JSON report.

use std::fmt::Write;

use serde_json::json;

use crate::money::usd;

use super::{BuildOutcome, FixResult, Invariance, Journal, Stage, StepResult, TaskStatus};

/// The JSON report: the journal itself plus a computed summary for quick reading.
pub fn json(journal: &Journal) -> serde_json::Value {
    let outcome = journal.outcome();
    let v = journal.validation();
    let invariance = journal.invariance();
    json!({
        "run_id": journal.run_id,
        "outcome": outcome.map(|o| o.outcome.as_str()),
        "tasks_total": outcome.map(|o| o.tasks_total),
        "tasks_done": outcome.map(|o| o.tasks_done),
        "cost_usd": journal.cost_usd(),
        "tokens": journal.tokens(),
        "refused": journal.refusals().collect::<Vec<_>>(),
        "invariance": json!({
            "verdict": invariance.label(),
            "why": match &invariance {
                Invariance::Passed => vec![],
                Invariance::NotJudged(why) => vec![why.clone()],
                Invariance::Broken(why) => why.clone(),
            },
            "tests_compared": journal.test_checks().map(|(t, _)| t),
            "test_check_differences": journal.test_checks().map(|(_, d)| d),
        }),
        "tests": v.map(|v| json!({
            "invariant": invariance == Invariance::Passed,
            "executed_before": v.executed_before,
            "executed_after": v.executed_after,
            "green_before": v.green_before,
            "green_after": v.green_after,
            "lost_from_source": v.lost_from_source,
            "newly_failing": v.newly_failing,
            "newly_skipped": v.newly_skipped,
            "invocations_changed": v.invocations_changed,
            "no_longer_run": v.no_longer_run,
            "flaky_before": journal.baseline().map(|b| &b.tests.flaky),
            "flaky_after": &v.build.tests.flaky,
            "deprecations_before": journal.baseline().and_then(|b| b.run.as_ref()).map(|r| &r.deprecations),
            "deprecations_after": v.build.run.as_ref().map(|r| &r.deprecations),
            "before": journal.baseline().map(|b| &b.tests.tests),
            "after": &v.build.tests.tests,
        })),
        "rolled_back": json!({
            "rounds": journal.rollbacks().count(),
            "kept": journal.rollbacks().flat_map(|r| &r.files).collect::<Vec<_>>(),
            "restored_all": journal.restored_all(),
        }),
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
        "Cost: {} ({} LLM calls, {} input and {} output tokens)\n",
        usd(journal.cost_usd()),
        journal.llm_calls(),
        journal.tokens().input_tokens,
        journal.tokens().output_tokens
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
    let refused: Vec<String> = journal.refusals().map(|r| format!("- {r}")).collect();
    if !refused.is_empty() {
        let _ = writeln!(
            md,
            "\n## Refused at the repository boundary\n\n{}",
            refused.join("\n")
        );
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
        if let Some(r) = run {
            let _ = writeln!(md, "\nBuilds: {}", isolation(r));
        }
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
    let human: Vec<String> = journal
        .left_for_human()
        .map(|r| {
            let files = r
                .left
                .iter()
                .map(|f| format!("`{}`", f.display()))
                .collect::<Vec<_>>()
                .join(", ");
            let files = if files.is_empty() { "-".into() } else { files };
            format!(
                "- `{}` ({files}): {}",
                r.task_id,
                r.reason.as_deref().unwrap_or("no tier could do it safely")
            )
        })
        .collect();
    if !human.is_empty() {
        let _ = writeln!(md, "\n## Left for a human\n\n{}", human.join("\n"));
    }
    if journal.fix_attempts().next().is_some() {
        let _ = writeln!(md, "\n## Fix loop\n");
        let _ = writeln!(
            md,
            "| # | failure | tier | result | cost |\n|---|---|---|---|---|"
        );
        for e in &journal.entries {
            if let StepResult::Fixed(f) = &e.result {
                let result = match &f.result {
                    FixResult::Applied { files, .. } => {
                        format!("applied to {} file(s)", files.len())
                    }
                    FixResult::Rejected { reason } => format!("rejected: {reason}"),
                    FixResult::NoAnswer { reason } => format!("no answer: {reason}"),
                };
                let _ = writeln!(
                    md,
                    "| {} | {:?}: `{}` | {} | {} | {} |",
                    f.attempt,
                    f.failure.kind,
                    f.failure.signature.replace('|', "/"),
                    f.tier,
                    result.replace('|', "/"),
                    usd(e.cost_usd)
                );
            }
        }
    }
    for e in &journal.entries {
        match &e.result {
            StepResult::Validated(v) => {
                let _ = writeln!(md, "\n## Test invariance\n");
                let _ = writeln!(
                    md,
                    "- Invariance: **{}**",
                    match journal.invariance() {
                        Invariance::NotJudged(why) => format!("not judged ({why})"),
                        other => other.label().to_string(),
                    }
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
                let flaky: Vec<String> = journal
                    .baseline()
                    .into_iter()
                    .flat_map(|b| b.tests.flaky.iter().map(|t| format!("{t} (before)")))
                    .chain(v.build.tests.flaky.iter().map(|t| format!("{t} (after)")))
                    .collect();
                for (label, list) in [
                    ("Lost from source", &v.lost_from_source),
                    ("Newly failing", &v.newly_failing),
                    ("Newly skipped", &v.newly_skipped),
                    ("Ran a different number of times", &v.invocations_changed),
                    ("Red before, no longer run", &v.no_longer_run),
                    ("Flaky (failed, then passed when run again)", &flaky),
                ] {
                    for t in list.iter().take(50) {
                        let _ = writeln!(md, "- {label}: `{t}`");
                    }
                }
                let deprecated = |b: Option<&BuildOutcome>| {
                    b.and_then(|b| b.run.as_ref())
                        .map_or(0, |r| r.deprecations.len())
                };
                let (before, after) = (deprecated(journal.baseline()), deprecated(Some(&v.build)));
                if before + after > 0 {
                    let _ = writeln!(
                        md,
                        "- javac deprecation warnings: {before} before → {after} after"
                    );
                    for d in v.build.run.iter().flat_map(|r| &r.deprecations).take(50) {
                        let _ = writeln!(md, "- Still deprecated, left for a human: `{d}`");
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
            StepResult::InvarianceChecked {
                files,
                tests,
                differences,
            } => {
                let _ = writeln!(
                    md,
                    "\n## What tests check (after {:?})\n\n{tests} test methods in {files} changed Java files compared with the original sources: {}",
                    e.stage,
                    if differences.is_empty() {
                        "every test checks what it checked before".to_string()
                    } else {
                        format!("**{} difference(s)**", differences.len())
                    }
                );
                for d in differences.iter().take(50) {
                    let _ = writeln!(md, "- {}", d.to_string().replace('|', "/"));
                }
            }
            StepResult::BuildSkipped { reason } if e.stage == Stage::Validate => {
                let _ = writeln!(md, "\n## Test invariance\n\nNot validated: {reason}");
            }
            StepResult::RolledBack(r) => {
                let _ = writeln!(md, "\n## Rolled back (round {})\n", r.round);
                if r.restored_all {
                    let _ = writeln!(
                        md,
                        "Nothing green could be kept ({}): every file the run changed is restored to exactly what it was.",
                        r.reason.as_deref().unwrap_or("the build stayed red")
                    );
                } else {
                    let _ = writeln!(
                        md,
                        "{} file(s) kept as they were (JUnit 4/3 stays on the vintage engine where they need it):",
                        r.files.len()
                    );
                }
                for k in &r.files {
                    let _ = writeln!(
                        md,
                        "- `{}`: {}",
                        k.path.display(),
                        k.reason.replace('|', "/")
                    );
                }
            }
            StepResult::BaselineUnresolvable { cause, remedy } => {
                let _ = writeln!(
                    md,
                    "\n## Not migrated: the project cannot be built here\n\n{cause}\n\n{remedy}"
                );
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

/// `uplift replay`: the run step by step — what was known, what was chosen and by which
/// rule, the evidence, the cost — and why it stopped.
pub fn replay(journal: &Journal) -> String {
    let mut out = format!("Run {}\n", journal.run_id);
    for e in &journal.entries {
        let _ = writeln!(
            out,
            "\n#{} {:?} — {}\n   rule:     {}\n   known:    {}\n   evidence: {}",
            e.seq,
            e.stage,
            e.intent,
            e.rule,
            if e.known.is_empty() { "-" } else { &e.known },
            evidence(&e.result)
        );
        if e.cost_usd > 0.0 {
            let _ = writeln!(out, "   cost:     {}", usd(e.cost_usd));
        }
    }
    let _ = writeln!(
        out,
        "\nTotal cost {} in {} LLM calls.",
        usd(journal.cost_usd()),
        journal.llm_calls()
    );
    match journal.outcome() {
        Some(o) => {
            let _ = writeln!(
                out,
                "Stopped: {} — {}",
                o.outcome.as_str(),
                o.reasons.join("; ")
            );
        }
        None => {
            let _ = writeln!(
                out,
                "Stopped before classification (the run was interrupted)."
            );
        }
    }
    out
}

fn evidence(result: &StepResult) -> String {
    match result {
        StepResult::Analyzed(a) => format!(
            "{} modules, {} Java files, Java level {:?}, Spring Boot {:?}",
            a.modules.len(),
            a.java_files,
            a.java_level,
            a.spring_boot
        ),
        StepResult::AnalysisFailed { error } => format!("analysis failed: {error}"),
        StepResult::Built(b) => format!(
            "JDK {:?}: {}, {} tests reported{}",
            b.jdk,
            if b.compiled() { "green" } else { "red" },
            b.tests.tests.len(),
            b.error
                .as_ref()
                .map_or(String::new(), |e| format!(" ({e})"))
        ),
        StepResult::BuildSkipped { reason } => format!("skipped: {reason}"),
        StepResult::Planned { tasks, decisions } => {
            format!("{} tasks; decisions: {}", tasks.len(), decisions.join("; "))
        }
        StepResult::Task(t) => format!(
            "{}: {} by the {} tier{}",
            t.task_id,
            status_mark(t.status),
            t.tier,
            t.reason
                .as_ref()
                .map_or(String::new(), |r| format!(" — {r}"))
        ),
        StepResult::Written { files, dry_run, .. } => {
            format!(
                "{} files {}",
                files.len(),
                if *dry_run {
                    "in the dry-run diff"
                } else {
                    "written"
                }
            )
        }
        StepResult::WriteFailed { failed, error, .. } => {
            format!("write failed at {}: {error}", failed.display())
        }
        StepResult::Validated(v) => format!(
            "build {}, runtime invariance {}, executed {} -> {}, newly failing {}",
            if v.build.compiled() { "green" } else { "red" },
            match (v.invariant(), v.executed_before) {
                (false, _) => "FAILED",
                (true, 0) => "not judged",
                (true, _) => "passed",
            },
            v.executed_before,
            v.executed_after,
            v.newly_failing.len()
        ),
        StepResult::InvarianceChecked {
            files,
            tests,
            differences,
        } => format!(
            "{tests} tests in {files} changed Java files: {} change(s) to what they check",
            differences.len()
        ),
        StepResult::RagSkippedOnRetry {
            attempt,
            last_failure_kind,
        } => format!("attempt {attempt}: retrieval skipped; last failure {last_failure_kind:?}"),
        StepResult::Fixed(f) => format!(
            "attempt {} by {}: {:?} `{}` -> {}{}",
            f.attempt,
            f.tier,
            f.failure.kind,
            f.failure.signature,
            match &f.result {
                FixResult::Applied { files, .. } => format!("applied to {files:?}"),
                FixResult::Rejected { reason } => format!("rejected ({reason})"),
                FixResult::NoAnswer { reason } => format!("no answer ({reason})"),
            },
            f.retrieval.as_ref().map_or(String::new(), |r| format!(
                "; plan {} ({}){}",
                r.query_plan_selected,
                r.query_plan_rule,
                r.query_plan_downgraded
                    .as_ref()
                    .map_or(String::new(), |d| format!(", ran {d}"))
            ))
        ),
        StepResult::Refused { refusals } => format!(
            "refused: {}",
            refusals
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        ),
        StepResult::RolledBack(r) => format!(
            "round {}: {}{}",
            r.round,
            if r.restored_all {
                "everything restored".to_string()
            } else {
                format!("{} file(s) taken back", r.files.len())
            },
            r.files
                .iter()
                .map(|k| format!("; {}: {}", k.path.display(), k.reason))
                .collect::<String>()
        ),
        StepResult::BaselineUnresolvable { cause, remedy } => format!("{cause} ({remedy})"),
        StepResult::LimitReached { limit } => format!("limit reached: {limit}"),
        StepResult::Classified(o) => format!("{}: {}", o.outcome.as_str(), o.reasons.join("; ")),
    }
}

/// Text in one table cell: titles and details carry the repository's file names, which may
/// hold `|` and line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\r', '\n'], " ")
}

/// One row per planned task: what it is, which tier handled it, its status and what changed.
pub fn tasks_table(journal: &Journal) -> String {
    let mut md =
        String::from("| task | recipes | tier | status | detail |\n|---|---|---|---|---|\n");
    for t in journal.tasks() {
        let rec = journal.task_records().filter(|r| r.task_id == t.id).last();
        let status = rec.map_or("not run", |r| status_mark(r.status));
        let detail = cell(
            &rec.map(|r| r.reason.clone().unwrap_or_else(|| r.changes.join("; ")))
                .unwrap_or_default(),
        );
        let _ = writeln!(
            md,
            "| {} | {} | {} | {status} | {detail} |",
            cell(&t.title),
            t.recipes.join(", "),
            rec.map_or("-", |r| r.tier.as_str()),
        );
    }
    md
}

/// (passed, failed or errored, skipped)
pub fn test_counts(t: &crate::evidence::TestResults) -> (usize, usize, usize) {
    use crate::evidence::TestStatus;
    (
        t.count(TestStatus::Passed),
        t.count(TestStatus::Failed) + t.count(TestStatus::Errored),
        t.count(TestStatus::Skipped),
    )
}

/// The terminal summary printed at the end of `uplift migrate`.
/// Whether a build ran in the sandbox: a user must know when untrusted code ran unconfined.
/// A build that planted git directories in the work tree (their config and hooks would run
/// on the host) is named as hostile too.
fn isolation(run: &crate::evidence::BuildRun) -> String {
    let how = match &run.sandbox {
        Some(how) => format!("sandboxed ({how})"),
        None => {
            "NOT sandboxed: the project's build and tests ran with this machine's access".into()
        }
    };
    if run.git_removed.is_empty() {
        how
    } else {
        format!(
            "{how}; it planted git directories, removed: {}",
            run.git_removed.join(", ")
        )
    }
}

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
            journal.invariance().label()
        );
    }
    if let Some(run) = journal.baseline().and_then(|b| b.run.as_ref()) {
        let _ = writeln!(s, "Builds: {}", isolation(run));
    }
    if let Some((_, differences)) = journal.test_checks().filter(|(_, d)| !d.is_empty()) {
        let _ = writeln!(
            s,
            "  ! {} change(s) to what tests check:",
            differences.len()
        );
        for d in differences.iter().take(10) {
            let _ = writeln!(s, "    {d}");
        }
    }
    for r in journal
        .latest_task_records()
        .filter(|r| !r.status.is_done())
    {
        let _ = writeln!(
            s,
            "  ! {}: {}",
            r.task_id,
            r.reason.as_deref().unwrap_or("")
        );
    }
    let kept = journal.kept_files();
    if journal.restored_all() {
        let _ = writeln!(
            s,
            "Rolled back: every file the run changed is restored to what it was"
        );
    } else if !kept.is_empty() {
        let _ = writeln!(
            s,
            "Rolled back: {} file(s) kept as they were (left for the next tier):",
            kept.len()
        );
        for (path, reason) in &kept {
            let _ = writeln!(s, "    {}: {reason}", path.display());
        }
    }
    let _ = writeln!(
        s,
        "Run id: {} (uplift report {})",
        journal.run_id, journal.run_id
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Entry, Stage, Task};

    /// A repository names its files, newlines and pipes included: each task stays one row
    /// of the table, and no line of the PR body is the repository's.
    #[test]
    fn a_file_name_cannot_break_out_of_its_table_row() {
        let journal = Journal {
            run_id: "r".into(),
            entries: vec![Entry::bare(
                1,
                Stage::Plan,
                "R5",
                StepResult::Planned {
                    tasks: vec![Task {
                        id: "t".into(),
                        title: "Migrate src/Nl\r\n## Injected | x.java to JUnit 5".into(),
                        recipes: vec!["junit4-to-jupiter".into()],
                        files: vec![],
                        reason: String::new(),
                    }],
                    decisions: vec![],
                },
            )],
        };
        let table = tasks_table(&journal);
        assert_eq!(table.lines().count(), 3, "{table}");
        assert!(
            table.contains("| Migrate src/Nl  ## Injected \\| x.java to JUnit 5 |"),
            "{table}"
        );
    }
}
