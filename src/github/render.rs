//! What users see on GitHub, rendered from the run journal: the PR title and body, the two
//! check runs, and the status comment. Nothing here keeps its own bookkeeping.

use std::fmt::Write;

use super::api::{Annotation, CheckAction, CheckOutput, CheckRun, CheckStatus, Conclusion, fit};
use crate::journal::outcome::Outcome;
use crate::journal::render::{tasks_table, test_counts};
use crate::journal::{Invariance, Journal, StepResult, TaskStatus};
use crate::recipes::JUNIT4_TO_JUPITER;

/// GitHub's limit for PR bodies and comments.
pub const BODY_LIMIT: usize = 65_536;

pub const MIGRATION_CHECK: &str = "uplift/migration";
pub const INVARIANCE_CHECK: &str = "uplift/test-invariance";

const HELP: &str = include_str!("templates/help.md");

pub fn help(slug: &str) -> String {
    HELP.replace("{slug}", slug)
}

/// Facts about the run that are not in the journal: where it happened.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub repo: String,
    pub slug: String,
    pub target: u32,
    pub base_sha: String,
    pub job_id: String,
    pub branch: String,
}

/// Hidden marker the bot reads back later (run id, base sha, target).
pub fn state_marker(ctx: &RunContext, run_id: &str) -> String {
    format!(
        "<!-- uplift:state {} -->",
        serde_json::json!({"run": run_id, "job": ctx.job_id, "base": ctx.base_sha, "target": ctx.target})
    )
}

pub fn status_marker(job_id: &str) -> String {
    format!("<!-- uplift:status job={job_id} -->")
}

/// In the body of a pull request the app closed because nothing green could be kept: the
/// mark by which a later run knows it may reopen it (a person's close is never undone).
pub const CLOSED_MARKER: &str = "<!-- uplift:closed nothing-kept -->";

/// Why nothing could be kept, from the never-red tier's rounds: the reason everything was
/// taken back, and each file taken back before that with the error that named it.
fn nothing_kept_reasons(journal: &Journal) -> String {
    let mut reasons: Vec<String> = journal
        .rollbacks()
        .filter_map(|r| r.reason.clone())
        .collect();
    reasons.extend(
        journal
            .kept_files()
            .iter()
            .map(|(path, why)| format!("`{}`: {why}", path.display())),
    );
    if reasons.is_empty() {
        reasons.push("the migrated build was red".into());
    }
    reasons.join("; ")
}

/// The note heading the body of a pull request closed because nothing green could be kept.
fn closed_note(journal: &Journal, ctx: &RunContext) -> String {
    format!(
        "> **Closed by Uplift: nothing green could be kept.** Every file this run changed is back \
         to exactly what it was, so this pull request changes nothing. Why: {}.\n>\n\
         > `@{slug} retry` (or `@{slug} migrate --target {target}`) runs the migration again; a run \
         that keeps something reopens this pull request.\n\n{CLOSED_MARKER}\n\n",
        nothing_kept_reasons(journal),
        slug = ctx.slug,
        target = ctx.target,
    )
}

pub fn pr_title(target: u32) -> String {
    format!("Migrate to Java {target} (Uplift)")
}

fn outcome_badge(o: Outcome) -> &'static str {
    match o {
        Outcome::Success => "✅ SUCCESS",
        Outcome::PartialSuccess => "🟡 PARTIAL_SUCCESS",
        Outcome::Failure => "❌ FAILURE",
        Outcome::Incomplete => "⏸ INCOMPLETE",
    }
}

/// The fix loop ran and the build is still red: a person takes over from the last attempt.
fn fix_handed_over(journal: &Journal) -> Option<&crate::journal::FixAttempt> {
    let red = journal
        .validation()
        .is_some_and(|v| !(v.invariant() && v.build.compiled()));
    journal.fix_attempts().last().filter(|_| red)
}

fn limit_hit(journal: &Journal) -> Option<&str> {
    journal.entries.iter().find_map(|e| match &e.result {
        StepResult::LimitReached { limit } => Some(limit.as_str()),
        _ => None,
    })
}

pub fn conclusion(journal: &Journal) -> Conclusion {
    let Some(o) = journal.outcome() else {
        return Conclusion::Cancelled;
    };
    match o.outcome {
        Outcome::Success => Conclusion::Success,
        Outcome::PartialSuccess if journal.left_for_human().next().is_some() => {
            Conclusion::ActionRequired
        }
        Outcome::PartialSuccess => Conclusion::Neutral,
        Outcome::Failure if fix_handed_over(journal).is_some() => Conclusion::ActionRequired,
        Outcome::Failure => Conclusion::Failure,
        Outcome::Incomplete
            if limit_hit(journal).is_some()
                || journal.baseline().is_some_and(|b| b.timed_out())
                || journal.validation().is_some_and(|v| v.build.timed_out()) =>
        {
            Conclusion::TimedOut
        }
        // A build killed for filling the disk: the repository's doing, not a cancellation.
        Outcome::Incomplete
            if journal.baseline().is_some_and(|b| b.stopped().is_some())
                || journal
                    .validation()
                    .is_some_and(|v| v.build.stopped().is_some()) =>
        {
            Conclusion::Failure
        }
        Outcome::Incomplete => Conclusion::Cancelled,
    }
}

/// The `uplift/test-invariance` verdict: the runtime comparison with the baseline and
/// the comparison of what each test checks over the run's whole diff.
fn invariance_verdict(journal: &Journal) -> (Conclusion, String) {
    let checks = match journal.test_checks() {
        Some((tests, [])) => format!(
            " what each of the {tests} tests in changed files checks (assertions, expected exceptions, timeouts, `@Disabled`, assumptions) is unchanged;"
        ),
        _ => String::new(),
    };
    match journal.invariance() {
        Invariance::Passed => {
            let (before, after) = journal
                .validation()
                .map_or((0, 0), |v| (v.executed_before, v.executed_after));
            (
                Conclusion::Success,
                format!(
                    "✅ invariant:{checks} {before} tests executed before, {after} after; no test lost, none newly failing"
                ),
            )
        }
        Invariance::NotJudged(why) => (
            if journal.validation().is_some() {
                Conclusion::Neutral
            } else {
                Conclusion::Skipped
            },
            format!("➖ not judged: {why};{checks}"),
        ),
        Invariance::Broken(_) => {
            let mut s = String::from("❌ not invariant:");
            if let Some(v) = journal.validation() {
                for (label, list) in [
                    ("lost from source", &v.lost_from_source),
                    ("newly failing", &v.newly_failing),
                    ("newly skipped", &v.newly_skipped),
                    ("ran a different number of times", &v.invocations_changed),
                    ("red before and no longer run", &v.no_longer_run),
                ] {
                    if !list.is_empty() {
                        let shown: Vec<_> =
                            list.iter().take(10).map(|t| format!("`{t}`")).collect();
                        let _ = write!(s, " {label}: {}{};", shown.join(", "), more(list.len()));
                    }
                }
                if v.executed_after < v.executed_before {
                    let _ = write!(
                        s,
                        " executed {} -> {};",
                        v.executed_before, v.executed_after
                    );
                }
            }
            if let Some((_, differences)) = journal.test_checks().filter(|(_, d)| !d.is_empty()) {
                let shown: Vec<_> = differences
                    .iter()
                    .take(10)
                    .map(|d| {
                        format!("`{}` {} `{}` -> `{}`", d.test, d.change, d.before, d.after)
                            .replace('|', "/")
                    })
                    .collect();
                let _ = write!(
                    s,
                    " what tests check changed: {}{};",
                    shown.join(", "),
                    more(differences.len())
                );
            }
            (Conclusion::Failure, s)
        }
    }
}

fn more(n: usize) -> String {
    if n > 10 {
        format!(" and {} more", n - 10)
    } else {
        String::new()
    }
}

fn build_minutes(journal: &Journal) -> f64 {
    let baseline = journal
        .baseline()
        .and_then(|b| b.run.as_ref())
        .map_or(0, |r| r.duration_ms);
    let validate = journal
        .validation()
        .and_then(|v| v.build.run.as_ref())
        .map_or(0, |r| r.duration_ms);
    (baseline + validate) as f64 / 60_000.0
}

fn tests_cell(t: Option<&crate::build::reports::TestResults>) -> String {
    t.map_or("-".into(), |t| {
        let (p, f, s) = test_counts(t);
        format!("{} ({p} passed, {f} failed, {s} skipped)", t.tests.len())
    })
}

/// The before -> after table shared by the PR body and the migration check.
fn summary_table(journal: &Journal, ctx: &RunContext) -> String {
    let mut md = String::from("| | before | after |\n|---|---|---|\n");
    let a = journal.analysis();
    let v = journal.validation();
    let java_before = a
        .and_then(|a| a.java_level)
        .map_or("not declared".into(), |l| l.to_string());
    let java_after = match v {
        Some(v) if v.wrong_major_classes() == 0 => format!("{} (class files verified)", ctx.target),
        Some(v) => format!(
            "{} ({} class files at another version)",
            ctx.target,
            v.wrong_major_classes()
        ),
        None => format!("{} (not built)", ctx.target),
    };
    let _ = writeln!(md, "| Java | {java_before} | {java_after} |");
    let boot = a
        .and_then(|a| a.spring_boot.clone())
        .unwrap_or_else(|| "none".into());
    let _ = writeln!(md, "| Spring Boot | {boot} | {boot} |");
    let junit_tasks: Vec<_> = journal
        .latest_task_records()
        .filter(|r| {
            journal
                .tasks()
                .iter()
                .any(|t| t.id == r.task_id && t.recipes.iter().any(|x| x == JUNIT4_TO_JUPITER))
        })
        .collect();
    let converted = junit_tasks
        .iter()
        .filter(|r| r.status == TaskStatus::Done)
        .count();
    let junit_before = a
        .map(|a| {
            a.files_by_junit
                .iter()
                .map(|(k, n)| format!("{k}: {n} files"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "no tests".into());
    let _ = writeln!(
        md,
        "| JUnit | {junit_before} | {converted} files converted to Jupiter, {} left on JUnit 4 |",
        junit_tasks.len() - converted
    );
    let _ = writeln!(
        md,
        "| Tests | {} | {} |",
        tests_cell(journal.baseline().map(|b| &b.tests)),
        tests_cell(v.map(|v| &v.build.tests))
    );
    let _ = writeln!(
        md,
        "| Test invariance | | {} |",
        invariance_verdict(journal).1
    );
    let _ = writeln!(md, "| Build time | | {:.1} min |", build_minutes(journal));
    let llm_calls = journal.llm_calls();
    let _ = writeln!(
        md,
        "| LLM | | {llm_calls} calls, {} |",
        crate::money::usd(journal.cost_usd())
    );
    md
}

fn outcome_line(journal: &Journal) -> String {
    match journal.outcome() {
        Some(o) => format!(
            "**Outcome: {}** — {}",
            outcome_badge(o.outcome),
            o.reasons.join("; ")
        ),
        None => "**Outcome: not classified** (the run stopped early)".into(),
    }
}

fn build_errors(run: Option<&crate::build::maven::BuildRun>) -> String {
    let Some(run) = run else {
        return "it did not run".into();
    };
    let lines: Vec<&String> = if run.errors.is_empty() {
        run.tail.iter().rev().take(5).collect()
    } else {
        run.errors.iter().take(5).collect()
    };
    let lines: Vec<&str> = lines.iter().map(|l| l.as_str()).collect();
    format!(
        "`{}` {}\n  ```\n  {}\n  ```",
        run.command,
        run.stopped().unwrap_or_else(|| "failed".into()),
        lines.join("\n  ")
    )
}

fn limits_section(journal: &Journal) -> String {
    let mut md = String::new();
    if let Some(b) = journal.baseline().filter(|b| !b.compiled()) {
        let _ = writeln!(
            md,
            "- 🔴 the baseline build (before any change) is red: {}",
            b.error
                .clone()
                .unwrap_or_else(|| build_errors(b.run.as_ref()))
        );
    }
    if let Some(v) = journal.validation().filter(|v| !v.build.compiled()) {
        let _ = writeln!(
            md,
            "- 🔴 the migrated build is red: {}",
            v.build
                .error
                .clone()
                .unwrap_or_else(|| build_errors(v.build.run.as_ref()))
        );
    }
    if let Some(limit) = limit_hit(journal) {
        let _ = writeln!(md, "- ⏱ stopped by the {limit}");
    }
    if let Some(f) = fix_handed_over(journal) {
        let last = match &f.result {
            crate::journal::FixResult::Applied { .. } => {
                "its edits applied but the build stayed red".to_string()
            }
            crate::journal::FixResult::Rejected { reason } => {
                format!("its edits were refused: {reason}")
            }
            crate::journal::FixResult::NoAnswer { reason } => reason.clone(),
        };
        let _ = writeln!(
            md,
            "- 🙋 the fix loop stopped after {} attempt(s) on a {:?} failure `{}` ({}); a person takes it from here",
            f.attempt, f.failure.kind, f.failure.signature, last
        );
    }
    for r in journal.left_for_human() {
        let _ = writeln!(
            md,
            "- 🙋 `{}` needs a person: {}",
            r.task_id,
            r.reason.as_deref().unwrap_or("no tier could do it safely")
        );
    }
    md
}

/// The PR body; when nothing green could be kept it opens with why the app closes it.
pub fn pr_body(journal: &Journal, ctx: &RunContext) -> String {
    let mut md = String::new();
    if journal.restored_all() {
        md.push_str(&closed_note(journal, ctx));
    }
    let _ = writeln!(md, "{}\n", outcome_line(journal));
    let _ = writeln!(md, "{}", summary_table(journal, ctx));
    let limits = limits_section(journal);
    if !limits.is_empty() {
        let _ = writeln!(md, "### Needs attention\n\n{limits}");
    }
    if let Some(decisions) = journal.decisions().filter(|d| !d.is_empty()) {
        let _ = writeln!(md, "### Decisions\n");
        for d in decisions {
            let _ = writeln!(md, "- {d}");
        }
        md.push('\n');
    }
    let _ = writeln!(md, "### Tasks\n\n{}", tasks_table(journal));
    let _ = writeln!(
        md,
        "<details><summary>Commands</summary>\n\n{}\n</details>\n",
        help(&ctx.slug)
    );
    let overflow = format!(
        "The full report is longer than GitHub allows here: see the `{MIGRATION_CHECK}` check, or run `uplift report {}`.\n\n{}",
        journal.run_id,
        state_marker(ctx, &journal.run_id)
    );
    let body = format!("{md}{}", state_marker(ctx, &journal.run_id));
    fit(body, BODY_LIMIT, &overflow)
}

fn annotations(journal: &Journal) -> Vec<Annotation> {
    let mut out = Vec::new();
    for t in journal
        .tasks()
        .iter()
        .filter(|t| t.recipes.iter().any(|r| r == JUNIT4_TO_JUPITER))
    {
        let (Some(rec), Some(path)) = (
            journal.task_records().filter(|r| r.task_id == t.id).last(),
            t.files.first(),
        ) else {
            continue;
        };
        let (level, title, message) = match rec.status {
            TaskStatus::Done => (
                "notice",
                "Converted to JUnit Jupiter",
                rec.changes.join("\n"),
            ),
            TaskStatus::NoChange => continue,
            _ => (
                "warning",
                "Left on JUnit 4 (vintage engine)",
                rec.reason.clone().unwrap_or_default(),
            ),
        };
        out.push(Annotation {
            path: path.display().to_string(),
            start_line: 1,
            end_line: 1,
            annotation_level: level,
            title: title.into(),
            message: if message.is_empty() {
                title.to_string()
            } else {
                message.chars().take(4000).collect()
            },
        });
    }
    out
}

pub fn buttons(running: bool) -> Vec<CheckAction> {
    let rerun = CheckAction {
        label: "Re-run",
        description: "Run the migration again",
        identifier: "rerun",
    };
    let cancel = CheckAction {
        label: "Cancel",
        description: "Stop the running migration",
        identifier: "cancel",
    };
    if running { vec![cancel] } else { vec![rerun] }
}

/// A check run in progress, with the current stage as its output.
pub fn check_in_progress(
    name: &str,
    ctx: &RunContext,
    head_sha: Option<&str>,
    stage: &str,
    elapsed_secs: u64,
) -> CheckRun {
    CheckRun {
        name: name.into(),
        head_sha: head_sha.map(String::from),
        status: CheckStatus::InProgress,
        conclusion: None,
        external_id: ctx.job_id.clone(),
        details_url: None,
        completed_at: None,
        output: CheckOutput {
            title: format!("Java {}: {stage}", ctx.target),
            summary: format!("Stage **{stage}**, {elapsed_secs} s elapsed."),
            text: None,
            annotations: Vec::new(),
        },
        actions: buttons(true),
    }
}

/// A check run on a commit the fix loop replaced: completed, neutral, pointing onward.
pub fn check_superseded(name: &str, ctx: &RunContext, by: &str) -> CheckRun {
    let mut run = check_in_progress(name, ctx, None, "superseded", 0);
    run.status = crate::github::api::CheckStatus::Completed;
    run.conclusion = Some(crate::github::api::Conclusion::Neutral);
    run.completed_at = Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    run.output.title = format!("Java {}: superseded", ctx.target);
    run.output.summary =
        format!("The fix loop pushed {by} on top of this commit; its checks carry the verdict.");
    run.actions = Vec::new();
    run
}

/// The two completed check runs: (migration, test invariance).
pub fn checks_completed(
    journal: &Journal,
    ctx: &RunContext,
    details_url: &str,
) -> (CheckRun, CheckRun) {
    let done = |name: &str,
                conclusion: Conclusion,
                title: String,
                summary: String,
                text: Option<String>,
                annotations| CheckRun {
        name: name.into(),
        head_sha: None,
        status: CheckStatus::Completed,
        conclusion: Some(conclusion),
        external_id: ctx.job_id.clone(),
        details_url: Some(details_url.into()),
        completed_at: Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        output: CheckOutput {
            title,
            summary,
            text,
            annotations,
        },
        actions: buttons(false),
    };
    let title = journal.outcome().map_or("not classified".to_string(), |o| {
        o.outcome.as_str().to_string()
    });
    let migration = done(
        MIGRATION_CHECK,
        conclusion(journal),
        format!("{title}: Java {}", ctx.target),
        format!(
            "{}\n\n{}\n{}",
            outcome_line(journal),
            summary_table(journal, ctx),
            limits_section(journal)
        ),
        Some(tasks_table(journal)),
        annotations(journal),
    );
    let (c, verdict) = invariance_verdict(journal);
    let invariance = done(
        INVARIANCE_CHECK,
        c,
        // The verdict's head ("✅ invariant", "❌ not invariant", "➖ not judged"); the
        // summary carries the whole sentence.
        verdict.split(':').next().unwrap_or_default().to_string(),
        format!(
            "{verdict}\n\n| | before | after |\n|---|---|---|\n| Tests | {} | {} |\n",
            tests_cell(journal.baseline().map(|b| &b.tests)),
            tests_cell(journal.validation().map(|v| &v.build.tests))
        ),
        None,
        Vec::new(),
    );
    (migration, invariance)
}

/// Where a migration stands, for the one status comment that is edited in place.
#[derive(Debug, Clone)]
pub enum Phase {
    Queued,
    Running {
        stage: String,
        elapsed_secs: u64,
    },
    Finished {
        pr_url: Option<String>,
    },
    DryRun {
        diff: String,
    },
    /// `plan`: what a migration would do and cost.
    Plan {
        estimate: String,
    },
    /// The branch has commits someone else added; nothing was pushed.
    BranchEdited {
        foreign: Vec<String>,
    },
    Cancelled,
    Failed {
        error: String,
    },
}

pub fn status_comment(
    job_id: &str,
    target: u32,
    slug: &str,
    phase: &Phase,
    journal: Option<&Journal>,
) -> String {
    let mut md = format!("{}\n### Uplift · Java {target}\n\n", status_marker(job_id));
    match phase {
        Phase::Queued => md.push_str("⏳ Queued.\n"),
        Phase::Running {
            stage,
            elapsed_secs,
        } => {
            let _ = writeln!(
                md,
                "🚀 Running: **{stage}** ({elapsed_secs} s). `@{slug} cancel` stops it."
            );
        }
        Phase::Finished { pr_url } => {
            if let Some(j) = journal {
                let _ = writeln!(md, "{}\n", outcome_line(j));
                let (_, verdict) = invariance_verdict(j);
                let _ = writeln!(md, "Test invariance: {verdict}\n");
            }
            let nothing_kept = journal.filter(|j| j.restored_all());
            match (pr_url, nothing_kept) {
                (Some(url), Some(j)) => {
                    let _ = writeln!(
                        md,
                        "Nothing green could be kept, so nothing is proposed: pull request {url} is \
                         closed. Why: {}.\n\n`@{slug} retry` runs it again and reopens the pull \
                         request when a run keeps something.",
                        nothing_kept_reasons(j)
                    );
                }
                (None, Some(j)) => {
                    let _ = writeln!(
                        md,
                        "Nothing green could be kept, so no pull request is opened. Why: {}.\n\n\
                         `@{slug} retry` runs it again.",
                        nothing_kept_reasons(j)
                    );
                }
                (Some(url), None) => {
                    let _ = writeln!(md, "Pull request: {url}");
                }
                (None, None) => {}
            }
        }
        Phase::DryRun { diff } => {
            if let Some(j) = journal {
                let _ = writeln!(md, "Dry run — nothing was pushed. {}\n", outcome_line(j));
                let _ = writeln!(md, "{}\n", tasks_table(j));
            }
            let _ = writeln!(
                md,
                "<details><summary>Diff</summary>\n\n```diff\n{diff}\n```\n</details>"
            );
        }
        Phase::Plan { estimate } => {
            let _ = writeln!(md, "📋 Plan — nothing was changed or pushed.\n");
            if let Some(j) = journal {
                for d in j.decisions().unwrap_or_default() {
                    let _ = writeln!(md, "- {d}");
                }
                let _ = writeln!(md, "\n{}", tasks_table(j));
            }
            let _ = writeln!(
                md,
                "**Estimate:** {estimate}\n\n`@{slug} migrate --target {target}` runs it."
            );
        }
        Phase::BranchEdited { foreign } => {
            let _ = writeln!(
                md,
                "⚠ The migration branch has commits Uplift did not make ({}). Nothing was pushed over them.\n\n\
                 `@{slug} recreate` starts the branch over and discards those commits.",
                foreign.join(", ")
            );
        }
        Phase::Cancelled => md.push_str("⏹ Cancelled.\n"),
        Phase::Failed { error } => {
            let _ = writeln!(
                md,
                "💥 Uplift could not finish: {}\n\n`@{slug} retry` tries again.",
                crate::redact::redact(error)
            );
        }
    }
    fit(md, BODY_LIMIT, "(truncated)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::maven::BuildRun;
    use crate::journal::outcome::{Outcome, OutcomeRecord};
    use crate::journal::{BuildOutcome, Category, Entry, FixAttempt, FixResult, Stage, Validation};
    use crate::pipeline::failure::{Failure, FailureKind};

    fn entry(stage: Stage, result: StepResult) -> Entry {
        Entry {
            seq: 1,
            stage,
            known: String::new(),
            intent: String::new(),
            rule: String::new(),
            inputs: serde_json::json!({}),
            result,
            category: Category::Success,
            duration_ms: 0,
            cost_usd: 0.0,
        }
    }

    #[test]
    fn a_fix_loop_that_ends_red_asks_for_a_person() {
        let red = Validation {
            build: BuildOutcome {
                jdk: Some(17),
                raised_level: None,
                run: Some(BuildRun {
                    command: "mvn test".into(),
                    jdk: 17,
                    exit_code: Some(1),
                    duration_ms: 1,
                    errors: vec!["[ERROR] A.java:[1,1] cannot find symbol".into()],
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
            executed_before: 0,
            executed_after: 0,
            green_before: 0,
            green_after: 0,
            class_majors: Default::default(),
            expected_major: 61,
        };
        let fix = FixAttempt {
            attempt: 3,
            failure: Failure {
                kind: FailureKind::Compile,
                errors: vec![],
                signature: "cannot find symbol".into(),
                location: None,
            },
            tier: "llm".into(),
            retrieval: None,
            prompt_chars: 1,
            model: Some("m".into()),
            usage: None,
            search: None,
            result: FixResult::Rejected {
                reason: "weakens tests".into(),
            },
            answer: None,
            gave_up: false,
        };
        let classified = OutcomeRecord {
            outcome: Outcome::Failure,
            tasks_total: 1,
            tasks_done: 1,
            reasons: vec!["migrated build is red".into()],
        };
        let mut journal = Journal {
            run_id: "r".into(),
            entries: vec![
                entry(Stage::Validate, StepResult::Validated(Box::new(red))),
                entry(Stage::Classify, StepResult::Classified(classified)),
            ],
        };
        assert_eq!(conclusion(&journal), Conclusion::Failure, "no fix loop ran");
        journal
            .entries
            .insert(1, entry(Stage::Fix, StepResult::Fixed(Box::new(fix))));
        assert_eq!(conclusion(&journal), Conclusion::ActionRequired);
    }

    #[test]
    fn the_invariance_check_cites_changed_checks_and_never_passes_on_nothing() {
        use crate::journal::outcome::tests::{changed_expected_value, green_run};
        let (c, verdict) = invariance_verdict(&green_run(3, vec![changed_expected_value()]));
        assert_eq!(c, Conclusion::Failure);
        assert!(
            verdict.contains(
                "what tests check changed: `CalcTest#adds` changed `assertEquals(4, add(2,2))` -> `assertEquals(30, add(2,2))`"
            ),
            "{verdict}"
        );
        let (c, verdict) = invariance_verdict(&green_run(0, vec![]));
        assert_eq!(c, Conclusion::Neutral);
        assert!(
            verdict.starts_with("➖ not judged: no test ran before"),
            "{verdict}"
        );
        let (c, verdict) = invariance_verdict(&green_run(3, vec![]));
        assert_eq!(c, Conclusion::Success);
        assert!(
            verdict.contains("what each of the 3 tests in changed files checks"),
            "{verdict}"
        );
    }
}
