//! Every command and event end to end, as a person meets them on GitHub: scenarios written
//! with the DSL of tests/support/tester.rs over the real app (server, queue, worker, Maven)
//! and the fake GitHub. What users read (replies, status comments, check runs, PR bodies) is
//! snapshotted with insta under tests/snapshots/, with varying parts redacted.

mod support;

use support::app::{INSTALLATION, REPO, branch_commits, copy_project, file_on_branch, reactions};
use support::payloads;
use support::tester::{Tester, redact};

const MIGRATION: &str = "uplift/migration";
const INVARIANCE: &str = "uplift/test-invariance";
const BRANCH: &str = "uplift/java-17";

/// Snapshots `text` with what varies between runs redacted.
macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        insta::assert_snapshot!($name, redact(&$text))
    };
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_every_command() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment("@uplift help").await;
    let reply = t.wait_for_reply(id).await;
    snapshot!("help", reply.body);
    assert_eq!(reactions(&t.state(), id), ["eyes"]);
    assert!(t.migrations().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_verb_is_answered_with_the_commands() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment("@uplift frobnicate --now").await;
    let reply = t.wait_for_reply(id).await;
    snapshot!("unknown_verb", reply.body);
    t.settle_events().await;
    assert_eq!(reactions(&t.state(), id), ["eyes", "confused"]);
    assert!(t.migrations().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_before_any_migration() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment("@uplift status").await;
    snapshot!("status_nothing_ran", t.wait_for_reply(id).await.body);
}

/// A whole migration, and everything it shows: the status comment edited in place, the PR
/// body, both check runs, then `status` listing the finished job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_after_a_migration() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment("@uplift migrate --target 17").await;
    let migration = t.wait_for_check(MIGRATION).await;
    let invariance = t.wait_for_check(INVARIANCE).await;
    let job = t.wait_for_migration().await;
    assert_eq!(job.state, "done", "{job:?}");
    assert_eq!(reactions(&t.state(), id), ["eyes", "rocket"]);
    let status = t
        .wait_for_comment("the final status comment", |b| b.contains("Pull request:"))
        .await;
    snapshot!("migration_status_comment", status.body);
    let state = t.state();
    assert_eq!(state.pulls.len(), 1);
    snapshot!("migration_pr_body", state.pulls[0].body.clone().unwrap());
    for check in [&migration, &invariance] {
        assert_eq!(check.conclusion.as_deref(), Some("success"), "{check:#?}");
    }
    snapshot!(
        "migration_check_summary",
        format!(
            "{}\n\n{}\n\n---\n\n{}",
            migration.title.clone().unwrap_or_default(),
            migration.summary.clone().unwrap_or_default(),
            migration.text.clone().unwrap_or_default()
        )
    );
    snapshot!(
        "invariance_check_summary",
        format!(
            "{}\n\n{}",
            invariance.title.clone().unwrap_or_default(),
            invariance.summary.clone().unwrap_or_default()
        )
    );
    let asked = t.comment("@uplift status").await;
    snapshot!("status_after_migration", t.wait_for_reply(asked).await.body);
}

/// Only a new comment commands: editing one into a command does nothing, even after the
/// original command was answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_in_an_edited_comment_is_ignored() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment("@uplift status").await;
    t.wait_for_reply(id).await;
    let status = t
        .edit_comment(id, "@uplift status", "@uplift migrate --target 17")
        .await;
    assert_eq!(status, 200, "acknowledged and ignored at the edge");
    let quiet = t.comment_as("dev", "@uplift help").await;
    t.wait_for_reply(quiet).await;
    t.settle_events().await;
    assert!(t.migrations().await.is_empty());
    assert_eq!(
        t.bot_comments().len(),
        2,
        "the status and help replies only"
    );
    assert_eq!(
        reactions(&t.state(), id),
        ["eyes"],
        "not acknowledged again"
    );
}

/// The app's own comments (which quote commands) and any command its bot account writes are
/// ignored: no loop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_from_the_apps_own_bot_is_ignored() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment("@uplift help").await;
    let help = t.wait_for_reply(id).await;
    assert_eq!(t.comment_from_bot(&help.body).await, 200);
    assert_eq!(t.comment_from_bot("@uplift migrate --target 17").await, 200);
    t.settle_events().await;
    assert_eq!(
        t.app.event_jobs().await,
        1,
        "only the person's help command was queued"
    );
    assert!(t.migrations().await.is_empty());
    assert_eq!(
        t.bot_comments().len(),
        3,
        "the help reply and the two bot comments"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_user_is_denied_and_told_so() {
    let t = Tester::start("single-junit4").await;
    let id = t.comment_as("reader", "@uplift migrate --target 17").await;
    snapshot!("denied", t.wait_for_reply(id).await.body);
    t.settle_events().await;
    assert_eq!(reactions(&t.state(), id), ["eyes", "confused"]);
    assert!(t.migrations().await.is_empty(), "no migration job");
}

/// `cancel` before the migration started: it is cancelled at once, and the reply says so
/// (no status comment will come, since the job never ran); nothing is pushed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_while_a_migration_is_queued() {
    let t = Tester::start_without_migrations("single-junit4").await;
    t.comment("@uplift migrate --target 17").await;
    t.wait_for_job(REPO, |j| j.state == "queued").await;
    let status = t.wait_for_reply(t.comment("@uplift status").await).await;
    assert!(status.body.contains("| queued |"), "{}", status.body);
    snapshot!("status_while_queued", status.body);
    let id = t.comment("@uplift cancel").await;
    snapshot!("cancel_queued", t.wait_for_reply(id).await.body);
    let job = t.wait_for_migration().await;
    assert_eq!(job.state, "cancelled", "{job:?}");
    let state = t.state();
    assert!(state.check_runs.is_empty() && state.pulls.is_empty());
    assert!(branch_commits(&t.bare(), BRANCH).is_empty());
}

/// A test that takes 20 s once compiled for Java 17 (class file major 61), never before: the
/// migrated build's validation is running for that long, so a cancel reaches it there.
const SLOW_AFTER_MIGRATION: &str = r#"package com.example.calc;

import java.io.DataInputStream;
import org.junit.Test;

public class SlowAfterMigrationTest {
    @Test
    public void takesItsTimeOnceMigrated() throws Exception {
        try (DataInputStream in = new DataInputStream(
                SlowAfterMigrationTest.class.getResourceAsStream("SlowAfterMigrationTest.class"))) {
            in.readInt();
            in.readUnsignedShort();
            if (in.readUnsignedShort() >= 61) {
                Thread.sleep(20_000);
            }
        }
    }
}
"#;

/// `single-junit4` whose validation lasts (see [`SLOW_AFTER_MIGRATION`]), with heartbeats
/// every 2 s so that a cancel is noticed well within it.
async fn slow_validation() -> Tester {
    Tester::start_prepared(
        "single-junit4",
        |source| {
            std::fs::write(
                source.join("src/test/java/com/example/calc/SlowAfterMigrationTest.java"),
                SLOW_AFTER_MIGRATION,
            )
            .unwrap()
        },
        |s| s.lease = std::time::Duration::from_secs(6),
    )
    .await
}

/// `cancel` while validating: both check runs end `cancelled` with a Re-run button, the
/// status comment says so, and nothing more is pushed; the button then runs it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_while_a_migration_is_running() {
    let t = slow_validation().await;
    t.comment("@uplift migrate --target 17").await;
    t.wait_for_check_status(INVARIANCE, "in_progress").await;
    let pushed = branch_commits(&t.bare(), BRANCH);
    assert_eq!(pushed.len(), 1);
    let status = t.wait_for_reply(t.comment("@uplift status").await).await;
    assert!(status.body.contains("| running |"), "{}", status.body);
    snapshot!("status_while_running", status.body);
    let build = t.build_processes();
    assert!(!build.is_empty(), "the validation build is running");
    let id = t.comment("@uplift cancel").await;
    snapshot!("cancel_running", t.wait_for_reply(id).await.body);
    // The build's whole process tree is gone within 10 s of the reply.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left: Vec<u32> = t
            .build_processes()
            .into_iter()
            .filter(|p| build.contains(p))
            .collect();
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "build processes {left:?} outlived the cancel by 10 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_cancelled(&t, &pushed).await;
    let cancelled = t.wait_for_migration().await;

    // The cancelled check's Re-run button runs the same request again.
    assert_eq!(t.press("rerun").await, 202);
    let again = t
        .wait_for_job(REPO, |j| j.id != cancelled.id && j.state == "done")
        .await;
    assert_eq!(again.payload, cancelled.payload);
    let check = t.wait_for_check(MIGRATION).await;
    assert_eq!(check.conclusion.as_deref(), Some("success"), "{check:#?}");
    assert_eq!(t.state().pulls.len(), 1);
}

/// What a cancelled running migration leaves: cancelled checks offering Re-run, a cancelled
/// job and status comment, and the branch as it was (`pushed`).
async fn assert_cancelled(t: &Tester, pushed: &[(String, String)]) {
    for name in [MIGRATION, INVARIANCE] {
        let check = t.wait_for_check(name).await;
        assert_eq!(check.conclusion.as_deref(), Some("cancelled"), "{check:#?}");
        let buttons: Vec<_> = check
            .actions
            .iter()
            .map(|a| a.identifier.as_str())
            .collect();
        assert_eq!(buttons, ["rerun"]);
    }
    let job = t.wait_for_migration().await;
    assert_eq!(job.state, "cancelled", "{job:?}");
    let status = t
        .wait_for_comment("the cancelled status", |b| b.contains("Cancelled"))
        .await;
    snapshot!("cancelled_status_comment", status.body);
    assert_eq!(branch_commits(&t.bare(), BRANCH), pushed, "nothing pushed");
}

/// The check run's buttons do what the commands do: Cancel stops the running migration like
/// `cancel`; GitHub's Re-run (`rerequested`) runs it again like `retry`, on the same PR.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_run_buttons_cancel_and_rerun() {
    let t = slow_validation().await;
    t.comment("@uplift migrate --target 17").await;
    let running = t.wait_for_check_status(INVARIANCE, "in_progress").await;
    let pushed = branch_commits(&t.bare(), BRANCH);
    let migration = t.newest_check(MIGRATION).unwrap();
    let buttons: Vec<_> = migration
        .actions
        .iter()
        .map(|a| a.identifier.as_str())
        .collect();
    assert_eq!(buttons, ["cancel"], "a running check offers Cancel");
    assert_eq!(t.press("cancel").await, 202);
    assert_cancelled(&t, &pushed).await;
    let first = t.wait_for_migration().await;

    assert_eq!(t.rerequest().await, 202);
    let again = t
        .wait_for_job(REPO, |j| j.id != first.id && j.state == "done")
        .await;
    assert_eq!(again.payload, first.payload, "the same request again");
    let check = t.wait_for_check(MIGRATION).await;
    assert_eq!(check.conclusion.as_deref(), Some("success"), "{check:#?}");
    let state = t.state();
    assert_eq!(state.pulls.len(), 1, "the same PR");
    assert_eq!(
        branch_commits(&t.bare(), BRANCH),
        pushed,
        "the same tree is not pushed again"
    );
    assert_eq!(check.head_sha, running.head_sha);
}

/// `retry` after a run that failed runs the same request again, on the same PR. Its result
/// (nothing kept, like the first run's) is the tree already on the branch: nothing is pushed,
/// the new checks run on the same head and the PR the first run closed stays closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_a_failed_run() {
    let t = Tester::start("underscore-identifier").await;
    t.comment("@uplift migrate --target 17").await;
    // The job first: until it ends, the newest completed check may be one its next commit
    // superseded.
    let first = t.wait_for_migration().await;
    let failed = t.wait_for_check(MIGRATION).await;
    assert_eq!(failed.conclusion.as_deref(), Some("failure"), "{failed:#?}");
    snapshot!(
        "failed_check_summary",
        format!(
            "{}\n\n{}",
            failed.title.clone().unwrap_or_default(),
            failed.summary.clone().unwrap_or_default()
        )
    );
    let pushed = branch_commits(&t.bare(), BRANCH);

    let id = t.comment("@uplift retry").await;
    let again = t
        .wait_for_job(REPO, |j| j.id != first.id && j.state == "done")
        .await;
    assert_eq!(again.payload["target"], 17);
    assert_eq!(again.payload["comment_id"], id);
    let check = t.wait_for_check(MIGRATION).await;
    assert_ne!(check.id, failed.id, "a new run, new checks");
    assert_eq!(check.conclusion.as_deref(), Some("failure"), "{check:#?}");
    let state = t.state();
    assert_eq!(state.pulls.len(), 1, "the PR is reused");
    assert_eq!(state.pulls[0].state, "closed", "nothing kept: not reopened");
    assert_eq!(
        branch_commits(&t.bare(), BRANCH),
        pushed,
        "the same tree is not pushed again"
    );
    assert_eq!(check.head_sha, failed.head_sha, "checks on the same head");
    assert_eq!(reactions(&state, id), ["eyes", "rocket"]);
}

/// A migration where nothing green can be kept gives every file back its original bytes, so
/// the PR it opened would change nothing: the app closes it, its body and the status comment
/// saying why. That close is no person's decline (its webhook is ignored at the edge): the
/// target is still proposed on the next config push, and that run (keeping nothing again)
/// pushes nothing and leaves the PR closed. Once the code is fixed, `retry` keeps the
/// migration and reopens the same PR instead of opening a second one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_that_keeps_nothing_closes_its_pr_and_a_retry_reopens_it() {
    let t = Tester::start("underscore-identifier").await;
    t.comment("@uplift migrate --target 17").await;
    // The job first: until it ends, the newest completed check may be one its next commit
    // superseded.
    let first = t.wait_for_migration().await;
    assert_eq!(first.state, "done", "{first:?}");
    let failed = t.wait_for_check(MIGRATION).await;
    assert_eq!(failed.conclusion.as_deref(), Some("failure"), "{failed:#?}");
    let state = t.state();
    let pull = state.pull(REPO, 2).unwrap();
    assert_eq!((pull.state.as_str(), pull.merged), ("closed", false));
    snapshot!("nothing_kept_pr_body", pull.body.clone().unwrap());
    let status = t
        .wait_for_comment("the nothing-kept status", |b| {
            b.contains("Nothing green could be kept")
        })
        .await;
    snapshot!("nothing_kept_status_comment", status.body);
    let repo = git2::Repository::open_bare(t.bare()).unwrap();
    let main = repo.find_reference("refs/heads/main").unwrap();
    assert_eq!(
        branch_tree(&t),
        main.peel_to_tree().unwrap().id(),
        "the closed PR changes nothing"
    );
    let pushed = branch_commits(&t.bare(), BRANCH);
    assert_eq!(failed.head_sha, pushed[0].0);

    // GitHub reports the app's own close like a person's: it is ignored, nothing is declined.
    let events = t.app.event_jobs().await;
    assert_eq!(t.deliver_closed_by_app(2).await, 200);
    t.settle_events().await;
    assert_eq!(t.app.event_jobs().await, events, "nothing queued for it");
    assert!(!t.app.store.is_declined(REPO, 17).await.unwrap());
    assert_eq!(push_config(&t).await.as_deref(), Some("success"));
    let proposed = t
        .wait_for_job(REPO, |j| j.id != first.id && j.state == "done")
        .await;
    assert_eq!(proposed.payload["requested_by"], "config");
    let check = t.wait_for_check(MIGRATION).await;
    assert_ne!(check.id, failed.id);
    assert_eq!(check.head_sha, failed.head_sha, "checks on the same head");
    assert_eq!(branch_commits(&t.bare(), BRANCH), pushed, "nothing pushed");
    let state = t.state();
    assert_eq!(state.pulls.len(), 1);
    assert_eq!(state.pulls[0].state, "closed");

    // The code is fixed; `retry` keeps the migration and reopens PR #2.
    t.push_to_branch(
        "main",
        &[(
            "src/main/java/com/example/calc/Twice.java",
            "package com.example.calc;\n\npublic class Twice {\n    public static int twice(int n) { return n * 2; }\n}\n",
        )],
        "Dev",
    )
    .await;
    t.comment("@uplift retry").await;
    let kept = t
        .wait_for_job(REPO, |j| {
            j.id != first.id && j.id != proposed.id && j.state == "done"
        })
        .await;
    assert_eq!(kept.payload["target"], 17);
    let check = t.wait_for_check(MIGRATION).await;
    assert_eq!(check.conclusion.as_deref(), Some("success"), "{check:#?}");
    let state = t.state();
    assert_eq!(state.pulls.len(), 1, "no second PR: {:#?}", state.pulls);
    let pull = &state.pulls[0];
    assert_eq!((pull.number, pull.state.as_str()), (2, "open"));
    let body = pull.body.clone().unwrap();
    assert!(!body.contains("Closed by Uplift"), "{body}");
    let head = t.app.fake.branch_sha(REPO, BRANCH).unwrap();
    assert_eq!(check.head_sha, head);
    assert!(file_on_branch(&t.bare(), BRANCH, "pom.xml").contains("junit-jupiter"));
    t.wait_for_comment("the reopened status", |b| {
        b.contains("Pull request: https://github.com/acme/calc/pull/2") && b.contains("SUCCESS")
    })
    .await;
}

/// An open migration PR whose next run keeps nothing (the default branch changed under it,
/// and the push ran the migration again): the PR gets the restore, so it changes nothing, and the app closes it, declining nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_pr_whose_next_run_keeps_nothing_is_closed() {
    let t = migrated().await;
    let first = t.wait_for_migration().await;
    t.push_to_branch(
        "main",
        &[(
            "src/main/java/com/example/calc/Twice.java",
            "package com.example.calc;\n\npublic class Twice {\n    static final int __ = 0;\n    public static int twice(int _) { return _ * 2; }\n}\n",
        )],
        "Dev",
    )
    .await;
    // The push itself runs the migration again, to bring the open PR up to date.
    let again = t
        .wait_for_job(REPO, |j| j.id != first.id && j.state == "done")
        .await;
    let by = again.payload["requested_by"].as_str().unwrap_or_default();
    assert!(by.starts_with("push "), "{by}");
    let check = t.wait_for_check(MIGRATION).await;
    assert_eq!(check.conclusion.as_deref(), Some("failure"), "{check:#?}");
    let state = t.state();
    assert_eq!(state.pulls.len(), 1, "{:#?}", state.pulls);
    let pull = &state.pulls[0];
    assert_eq!((pull.number, pull.state.as_str()), (2, "closed"));
    assert!(
        pull.body
            .as_deref()
            .unwrap()
            .starts_with("> **Closed by Uplift: nothing green could be kept.**")
    );
    let repo = git2::Repository::open_bare(t.bare()).unwrap();
    let main = repo.find_reference("refs/heads/main").unwrap();
    assert_eq!(branch_tree(&t), main.peel_to_tree().unwrap().id());
    assert_eq!(check.head_sha, t.app.fake.branch_sha(REPO, BRANCH).unwrap());
    // The update is quiet: the PR's body (above) and checks say why, no new status comment.
    assert_eq!(t.deliver_closed_by_app(2).await, 200);
    t.settle_events().await;
    assert!(!t.app.store.is_declined(REPO, 17).await.unwrap());
}

/// The tree at the head of the migration branch.
fn branch_tree(t: &Tester) -> git2::Oid {
    git2::Repository::open_bare(t.bare())
        .unwrap()
        .find_reference(&format!("refs/heads/{BRANCH}"))
        .unwrap()
        .peel_to_tree()
        .unwrap()
        .id()
}

/// A person pushed to the migration branch: a new migration never overwrites their commit
/// and says so; `recreate` rebuilds the branch, on the same PR.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recreate_after_a_person_pushed_to_the_migration_branch() {
    let t = Tester::start("single-junit4").await;
    t.comment("@uplift migrate --target 17").await;
    t.wait_for_check(MIGRATION).await;
    let first = t.wait_for_migration().await;
    let human = t
        .push_to_branch(BRANCH, &[("NOTES.md", "mine\n")], "Alice")
        .await;

    t.comment("@uplift migrate --target 17").await;
    let refused = t
        .wait_for_job(REPO, |j| j.id != first.id && j.state == "done")
        .await;
    let told = t
        .wait_for_comment("the branch-edited status", |b| b.contains("did not make"))
        .await;
    snapshot!("branch_edited_status_comment", told.body);
    assert_eq!(
        refused.result.as_deref(),
        Some("branch edited by others; nothing pushed")
    );
    assert_eq!(
        t.app.fake.branch_sha(REPO, BRANCH).as_deref(),
        Some(human.as_str())
    );

    t.comment("@uplift recreate").await;
    let rebuilt = t
        .wait_for_job(REPO, |j| {
            j.id != refused.id && j.id != first.id && j.state == "done"
        })
        .await;
    assert_eq!(rebuilt.payload["recreate"], true);
    let check = t.wait_for_check(MIGRATION).await;
    assert_eq!(check.conclusion.as_deref(), Some("success"), "{check:#?}");
    let commits = branch_commits(&t.bare(), BRANCH);
    assert_eq!(commits.len(), 1, "{commits:?}");
    assert_eq!(commits[0].1, "uplift[bot]");
    assert_eq!(check.head_sha, commits[0].0);
    let repo = git2::Repository::open_bare(t.bare()).unwrap();
    let tree = repo.find_tree(branch_tree(&t)).unwrap();
    assert!(
        tree.get_path(std::path::Path::new("NOTES.md")).is_err(),
        "the person's commit is gone"
    );
    assert!(file_on_branch(&t.bare(), BRANCH, "pom.xml").contains("junit-jupiter"));
    assert_eq!(t.state().pulls.len(), 1, "the same PR");
}

/// `recreate` is about the branch: when the last request was a `plan` (which never touches
/// it), recreate still rebuilds the branch a person pushed to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recreate_after_a_plan_rebuilds_the_branch() {
    let t = Tester::start("single-junit4").await;
    t.comment("@uplift migrate --target 17").await;
    t.wait_for_check(MIGRATION).await;
    t.wait_for_migration().await;
    t.push_to_branch(BRANCH, &[("NOTES.md", "mine\n")], "Alice")
        .await;
    t.comment("@uplift plan --target 17").await;
    let plan = t
        .wait_for_job(REPO, |j| {
            j.payload["plan_only"] == true && j.state == "done"
        })
        .await;

    t.comment("@uplift recreate").await;
    let rebuilt = t
        .wait_for_job(REPO, |j| j.id != plan.id && j.state == "done")
        .await;
    assert_eq!(rebuilt.payload["recreate"], true);
    assert_eq!(rebuilt.payload["plan_only"], false);
    assert_eq!(rebuilt.payload["dry_run"], false);
    let commits = branch_commits(&t.bare(), BRANCH);
    assert_eq!(commits.len(), 1, "{commits:?}");
    assert_eq!(commits[0].1, "uplift[bot]");
    assert_eq!(t.wait_for_check(MIGRATION).await.head_sha, commits[0].0);
}

/// A deleted or suspended installation: its queued migrations are cancelled and nothing is
/// asked of GitHub for it any more.
async fn installation_gone(action: &str) {
    let t = Tester::start_without_migrations("single-junit4").await;
    t.comment("@uplift migrate --target 17").await;
    t.wait_for_job(REPO, |j| j.state == "queued").await;
    let calls = t.state().requests.len();
    let payload = payloads::installation_event(action, INSTALLATION, "acme", &["calc"]);
    assert_eq!(t.deliver("installation", &payload).await, 202);
    let job = t.wait_for_migration().await;
    assert_eq!(job.state, "cancelled", "{job:?}");
    assert_eq!(
        job.result.as_deref(),
        Some("installation removed before start")
    );
    t.settle_events().await;
    assert_eq!(t.state().requests.len(), calls, "no call made for it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_installation_cancels_its_queued_migrations() {
    installation_gone("deleted").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspended_installation_cancels_its_queued_migrations() {
    installation_gone("suspend").await;
}

/// Repositories added to the installation: one with `.github/uplift.yml` opted in and is
/// proposed its migration; one without stays quiet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_added_repository_that_opted_in_is_proposed_its_migration() {
    let t = Tester::start_without_migrations("single-junit4").await;
    let opted = copy_project(&t.app, "opted");
    let quiet = copy_project(&t.app, "quiet");
    std::fs::remove_dir_all(quiet.join(".github")).unwrap();
    t.app.fake.add_repo(INSTALLATION, "acme/opted", &opted);
    t.app.fake.add_repo(INSTALLATION, "acme/quiet", &quiet);
    let payload =
        payloads::installation_repositories_added(INSTALLATION, "acme", &["opted", "quiet"]);
    assert_eq!(t.deliver("installation_repositories", &payload).await, 202);
    let job = t.wait_for_job("acme/opted", |j| j.state == "queued").await;
    assert_eq!(job.target, 17);
    assert_eq!(job.payload["requested_by"], "config");
    t.settle_events().await;
    assert!(
        t.app
            .store
            .migrations("acme/quiet", 1)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A finished migration and its PR (#2).
async fn migrated() -> Tester {
    let t = Tester::start("single-junit4").await;
    t.comment("@uplift migrate --target 17").await;
    t.wait_for_check(MIGRATION).await;
    t.wait_for_migration().await;
    assert_eq!(t.state().pull(REPO, 2).unwrap().head_ref, BRANCH);
    t
}

/// Pushes a valid config to main and returns its `uplift/config` check's conclusion.
async fn push_config(t: &Tester) -> Option<String> {
    let config =
        std::fs::read_to_string(support::app::manifest("tests/support/offline.yml")).unwrap();
    let sha = t
        .push_to_branch(
            "main",
            &[(".github/uplift.yml", &format!("{config}\n# again\n"))],
            "Dev",
        )
        .await;
    let state = t
        .app
        .wait_for("the config check", 60, |s| {
            s.check_runs
                .iter()
                .any(|c| c.name == "uplift/config" && c.head_sha == sha)
        })
        .await;
    t.settle_events().await;
    state
        .check_runs
        .iter()
        .find(|c| c.head_sha == sha)
        .and_then(|c| c.conclusion.clone())
}

/// A migration PR closed unmerged declines its target: the next config push does not
/// propose it again, until someone asks with `migrate`, which opens a new PR.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_pr_closed_unmerged_is_not_proposed_again_unless_asked() {
    let t = migrated().await;
    let first = t.wait_for_migration().await;
    t.close_pull(2, false).await;
    assert_eq!(push_config(&t).await.as_deref(), Some("success"));
    assert_eq!(
        t.wait_for_migration().await.id,
        first.id,
        "declined: not proposed"
    );
    t.comment("@uplift migrate --target 17").await;
    let asked = t
        .wait_for_job(REPO, |j| j.id != first.id && j.state == "done")
        .await;
    assert_eq!(asked.payload["requested_by"], "dev");
    let state = t.state();
    let open: Vec<_> = state.pulls.iter().filter(|p| p.state == "open").collect();
    assert_eq!(open.len(), 1, "{:#?}", state.pulls);
    assert_eq!((open[0].number, open[0].head_ref.as_str()), (3, BRANCH));
}

/// A merged migration PR declines nothing: the next config push proposes the target.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merged_migration_pr_declines_nothing() {
    let t = migrated().await;
    let first = t.wait_for_migration().await;
    t.close_pull(2, true).await;
    assert_eq!(push_config(&t).await.as_deref(), Some("success"));
    let proposed = t.wait_for_job(REPO, |j| j.id != first.id).await;
    assert_eq!(proposed.payload["requested_by"], "config");
}

/// The default branch moves on while the migration PR is open: the migration runs again on
/// the new head and the branch (only the app's commits) is rebuilt on it, in the same PR,
/// with its checks on the new head. Before any migration, such a push queues nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_to_main_brings_the_open_migration_pr_up_to_date() {
    let t = Tester::start("single-junit4").await;
    t.push_to_branch("main", &[("NOTES.md", "early\n")], "Dev")
        .await;
    t.settle_events().await;
    assert!(t.migrations().await.is_empty(), "no PR, nothing to update");

    t.comment("@uplift migrate --target 17").await;
    t.wait_for_check(MIGRATION).await;
    let first = t.wait_for_migration().await;
    let main = t
        .push_to_branch("main", &[("NOTES.md", "moved on\n")], "Dev")
        .await;
    let update = t
        .wait_for_job(REPO, |j| {
            j.id != first.id && !matches!(j.state.as_str(), "queued" | "running")
        })
        .await;
    assert_eq!(update.state, "done", "{update:#?}");

    let bare = git2::Repository::open_bare(t.bare()).unwrap();
    let head = bare
        .find_reference(&format!("refs/heads/{BRANCH}"))
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .id();
    let main = git2::Oid::from_str(&main).unwrap();
    assert!(
        bare.graph_descendant_of(head, main).unwrap(),
        "the migration branch is rebuilt on main's new head"
    );
    assert_eq!(file_on_branch(&t.bare(), BRANCH, "NOTES.md"), "moved on\n");
    let state = t.state();
    let open: Vec<_> = state
        .pulls
        .iter()
        .filter(|p| p.repo == REPO && p.state == "open")
        .collect();
    assert_eq!(open.len(), 1, "still one PR: {open:#?}");
    let check = t.wait_for_check(MIGRATION).await;
    assert_eq!(
        check.head_sha,
        head.to_string(),
        "checks run on the new head"
    );
    assert_eq!(check.conclusion.as_deref(), Some("success"));
    // The update is quiet: the issue keeps its one status comment.
    assert_eq!(
        t.bot_comments()
            .iter()
            .filter(|c| c.body.contains("<!-- uplift:status job="))
            .count(),
        1
    );
}

/// GitHub answers 502 to the PR creation, though the PR was created (the worst case): the
/// job's next attempt finds that PR instead of opening a second, and finishes with one PR,
/// one status comment and one pair of check runs, none left in progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_gateway_on_pr_creation_is_retried_without_a_second_pr() {
    let t = Tester::start("single-junit4").await;
    t.app.fake.fail_after_next("POST", "/pulls", 502);
    t.comment("@uplift migrate --target 17").await;
    let job = t.wait_for_migration().await;
    assert_eq!(job.state, "done", "{job:#?}");
    assert_eq!(job.attempts, 2, "the 502 cost one attempt: {job:#?}");
    let state = t.state();
    let pulls: Vec<_> = state.pulls.iter().filter(|p| p.repo == REPO).collect();
    assert_eq!(pulls.len(), 1, "one PR: {pulls:#?}");
    assert_eq!(pulls[0].state, "open");
    let statuses = t
        .bot_comments()
        .iter()
        .filter(|c| c.body.contains("<!-- uplift:status job="))
        .count();
    assert_eq!(statuses, 1, "one status comment");
    for name in [MIGRATION, INVARIANCE] {
        let runs: Vec<_> = state.check_runs.iter().filter(|c| c.name == name).collect();
        assert_eq!(runs.len(), 1, "one {name} check run: {runs:#?}");
        assert_eq!(runs[0].status, "completed");
        assert_eq!(runs[0].conclusion.as_deref(), Some("success"));
    }
}
