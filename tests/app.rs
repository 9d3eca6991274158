//! The GitHub App end to end: signed webhooks into the real server, the real queue (SQLite),
//! real clones and pushes against bare repositories, real offline Maven builds, and a stateful
//! fake GitHub (tests/support/fake_github.rs) whose state the assertions read. The app's
//! setup lives in tests/support/app.rs; tests/scenarios.rs drives every command through it.

mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::app::*;
use support::payloads;
use uplift::github::GitHub;
use uplift::github::api::{Annotation, CheckOutput, CheckRun, CheckStatus, RepoApi};
use uplift::github::client::{ApiError, Sleeper};
use uplift::settings::Settings;

impl App {
    /// The app's GitHub client for REPO, talking to the fake without a server or worker.
    async fn api(&self) -> RepoApi {
        self.api_with(Arc::new(RecordedWaits::default()), |_| {})
            .await
            .unwrap()
    }

    /// As [`App::api`], with rate-limit waits recorded in `waits` instead of slept and the
    /// settings changed by `tweak`.
    async fn api_with(
        &self,
        waits: Arc<RecordedWaits>,
        tweak: impl FnOnce(&mut Settings),
    ) -> anyhow::Result<RepoApi> {
        let mut settings = settings(&self.fake, self.dir.path());
        tweak(&mut settings);
        GitHub::with_sleeper(&settings, waits)?
            .repo(INSTALLATION as i64, REPO)
            .await
    }
}

#[derive(Default)]
struct RecordedWaits(std::sync::Mutex<Vec<Duration>>);

impl Sleeper for RecordedWaits {
    fn sleep(&self, wait: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.0.lock().unwrap().push(wait);
        Box::pin(std::future::ready(()))
    }
}

impl RecordedWaits {
    fn take(&self) -> Vec<Duration> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

/// The whole happy path: command -> job -> clone -> Maven baseline -> recipes -> push -> PR ->
/// validation -> both checks green, status comment final, reactions present.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn migrate_command_opens_a_pr_with_green_checks() {
    let app = start("single-junit4", true).await;
    let comment = app
        .command("dev", "MEMBER", "@uplift migrate --target 17")
        .await;
    let state = app
        .wait_for("the migration to finish", 600, |s| {
            s.check_runs.len() == 2
                && s.check_runs.iter().all(|c| c.status == "completed")
                && bot_comments(s)
                    .iter()
                    .any(|c| c.body.contains("Pull request:"))
        })
        .await;

    assert_eq!(reactions(&state, comment), ["eyes", "rocket"]);
    let pr = state
        .pulls
        .iter()
        .find(|p| p.repo == REPO)
        .expect("a pull request");
    assert_eq!(
        (pr.head_ref.as_str(), pr.base_ref.as_str()),
        ("uplift/java-17", "main")
    );
    let body = pr.body.clone().unwrap();
    assert!(body.contains("SUCCESS"), "{body}");
    assert!(
        body.contains("| Java | 1.8 |") || body.contains("| Java | 8 |"),
        "{body}"
    );
    assert!(body.contains("<!-- uplift:state"), "{body}");
    assert!(body.contains("Commands"), "{body}");

    for name in ["uplift/migration", "uplift/test-invariance"] {
        let check = state.check_runs.iter().find(|c| c.name == name).unwrap();
        assert_eq!(check.conclusion.as_deref(), Some("success"), "{check:#?}");
        assert_eq!(check.head_sha, pr.head_sha, "checks sit on the PR head");
        let statuses: Vec<_> = check.history.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(statuses.first(), Some(&"queued"), "{statuses:?}");
        assert!(statuses.contains(&"in_progress"), "{statuses:?}");
        assert_eq!(statuses.last(), Some(&"completed"), "{statuses:?}");
    }
    let migration = state
        .check_runs
        .iter()
        .find(|c| c.name == "uplift/migration")
        .unwrap();
    assert!(
        migration
            .annotations
            .iter()
            .any(|a| a.path.ends_with("Test.java")),
        "converted test files are annotated: {:?}",
        migration.annotations
    );

    let status: Vec<_> = bot_comments(&state);
    assert_eq!(status.len(), 1, "one status comment, edited in place");
    assert!(status[0].edits > 0);
    assert!(
        status[0].body.contains("SUCCESS") && status[0].body.contains("invariant"),
        "{}",
        status[0].body
    );

    let bare = bare_path(&state);
    let commits = branch_commits(&bare, "uplift/java-17");
    assert_eq!(commits.len(), 1, "{commits:?}");
    assert_eq!(commits[0].1, "uplift[bot]");
    let pom = file_on_branch(&bare, "uplift/java-17", "pom.xml");
    assert!(pom.contains("17"), "{pom}");
    assert!(pom.contains("junit-jupiter"), "{pom}");

    assert_eq!(app.migrate_jobs().await.len(), 1);
    assert_eq!(app.finished_job().await.state, "done");
    assert!(
        state.unrouted().is_empty(),
        "calls the fake does not implement: {:?}",
        state.unrouted()
    );
    // A migration exercises a dozen of GitHub's operations, each checked against GitHub's
    // OpenAPI description (token, repository, contents, comments, reactions, pulls, checks).
    assert!(state.operations().len() >= 10, "{:?}", state.operations());
    // Tokens were scoped to the one repository.
    assert!(
        state
            .tokens
            .iter()
            .all(|t| t.repositories == Some(vec![REPO.to_string()])),
        "{:?}",
        state.tokens
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_signatures_are_rejected_and_record_nothing() {
    let app = start("single-junit4", false).await;
    let payload = payloads::issue_comment_created(
        INSTALLATION,
        REPO,
        1,
        false,
        5,
        "dev",
        "User",
        "MEMBER",
        "@uplift migrate",
    );
    assert_eq!(
        app.deliver("issue_comment", "d-1", &payload, Some("sha256=00".into()))
            .await,
        401
    );
    assert_eq!(
        app.deliver("issue_comment", "d-2", &payload, Some(String::new()))
            .await,
        401
    );
    let wrong = payloads::sign("another-secret", &serde_json::to_vec(&payload).unwrap());
    assert_eq!(
        app.deliver("issue_comment", "d-3", &payload, Some(wrong))
            .await,
        401
    );
    assert!(app.store.job_counts().await.unwrap().is_empty());
    // A correctly signed but malformed payload is a clear 400, also recording nothing.
    assert_eq!(
        app.deliver(
            "issue_comment",
            "d-4",
            &serde_json::json!({"action": "created"}),
            None
        )
        .await,
        400
    );
    assert!(app.store.job_counts().await.unwrap().is_empty());
    // Events Uplift does not handle are acknowledged and ignored; ping is answered.
    assert_eq!(
        app.deliver(
            "star",
            "d-5",
            &serde_json::json!({"action": "created"}),
            None
        )
        .await,
        200
    );
    assert_eq!(
        app.deliver("ping", "d-6", &payloads::ping(1), None).await,
        200
    );
    assert!(app.store.job_counts().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redelivered_webhook_is_processed_once() {
    let app = start("single-junit4", true).await;
    let id = app.fake.add_comment(REPO, 1, "dev", "@uplift help");
    let payload = payloads::issue_comment_created(
        INSTALLATION,
        REPO,
        1,
        false,
        id,
        "dev",
        "User",
        "MEMBER",
        "@uplift help",
    );
    assert_eq!(
        app.deliver("issue_comment", "same", &payload, None).await,
        202
    );
    assert_eq!(
        app.deliver("issue_comment", "same", &payload, None).await,
        200
    );
    // The same comment again under a new delivery id: GitHub's redelivery, or a replay.
    assert_eq!(
        app.deliver("issue_comment", "another-id", &payload, None)
            .await,
        200
    );
    let state = app
        .wait_for("the help reply", 30, |s| !bot_comments(s).is_empty())
        .await;
    app.settle_events(30).await;
    let state2 = app.fake.state();
    assert_eq!(
        bot_comments(&state2).len(),
        1,
        "{:?}",
        bot_comments(&state2)
    );
    assert!(bot_comments(&state)[0].body.contains("@uplift migrate"));
    assert_eq!(reactions(&state2, id), ["eyes"]);
    let events = app.event_jobs().await;
    assert_eq!(events, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_from_users_without_write_access_are_denied() {
    let app = start("single-junit4", true).await;
    // A collaborator with read access: the permission API says no.
    let reader = app
        .command("reader", "CONTRIBUTOR", "@uplift migrate")
        .await;
    // A stranger: the association is no verdict, the permission API says no.
    let stranger = app.command("stranger", "NONE", "@uplift migrate").await;
    let state = app
        .wait_for("both denials", 30, |s| {
            reactions(s, reader).contains(&"confused".to_string())
                && reactions(s, stranger).contains(&"confused".to_string())
                && bot_comments(s).len() >= 2
        })
        .await;
    assert_eq!(bot_comments(&state).len(), 2);
    assert!(
        bot_comments(&state)
            .iter()
            .all(|c| c.body.contains("write access"))
    );
    assert!(app.migrate_jobs().await.is_empty(), "no migration job");
}

/// Webhooks report a private member of the owning organisation as `NONE` (or `CONTRIBUTOR`),
/// and the permission API reports a custom role as the base it extends: a custom role on
/// write may command, one on triage may not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_decides_for_custom_roles_and_private_members() {
    let app = start("single-junit4", true).await;
    app.fake.add_custom_role("release-manager", "write");
    app.fake.add_custom_role("helper", "triage");
    app.fake
        .set_permission(REPO, "private-member", "release-manager");
    app.fake.set_permission(REPO, "helper", "helper");
    let member = app
        .command("private-member", "NONE", "@uplift status")
        .await;
    let helper = app.command("helper", "CONTRIBUTOR", "@uplift status").await;
    let state = app
        .wait_for("both answers", 30, |s| bot_comments(s).len() == 2)
        .await;
    assert!(!reactions(&state, member).contains(&"confused".to_string()));
    assert!(reactions(&state, helper).contains(&"confused".to_string()));
    let texts: Vec<_> = bot_comments(&state)
        .iter()
        .map(|c| c.body.clone())
        .collect();
    assert!(texts.iter().any(|t| t == "No migrations yet."), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t == "Uplift commands need write access to this repository."),
        "{texts:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_verbs_and_bad_arguments_are_answered() {
    let app = start("single-junit4", true).await;
    let unknown = app.command("dev", "MEMBER", "@uplift frobnicate").await;
    let bad = app
        .command("dev", "MEMBER", "/uplift migrate --target 11")
        .await;
    let state = app
        .wait_for("the replies", 30, |s| bot_comments(s).len() == 2)
        .await;
    assert!(reactions(&state, unknown).contains(&"confused".to_string()));
    assert!(reactions(&state, bad).contains(&"confused".to_string()));
    let texts: Vec<_> = bot_comments(&state)
        .iter()
        .map(|c| c.body.clone())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("unknown command `frobnicate`") && t.contains("@uplift plan")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("--target must be 17 or 21")),
        "{texts:?}"
    );
    assert!(app.migrate_jobs().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_pushes_are_validated_on_a_check_run() {
    let app = start("single-junit4", true).await;
    let bare = bare_path(&app.fake.state());
    // Commit an invalid config straight into the bare repository, then announce the push.
    let (before, after) = commit_to_branch(
        &bare,
        "main",
        &[(".github/uplift.yml", "target: 11\nbogus_key: 1\n")],
        "Dev",
    );
    let payload = payloads::push(
        INSTALLATION,
        REPO,
        "refs/heads/main",
        &before,
        &after,
        &[".github/uplift.yml"],
    );
    assert_eq!(app.deliver("push", "push-1", &payload, None).await, 202);
    let state = app
        .wait_for("the config check", 30, |s| {
            s.check_runs.iter().any(|c| c.name == "uplift/config")
        })
        .await;
    let check = state
        .check_runs
        .iter()
        .find(|c| c.name == "uplift/config")
        .unwrap();
    assert_eq!(check.conclusion.as_deref(), Some("failure"));
    assert_eq!(check.head_sha, after);
    assert!(
        check.summary.as_deref().unwrap().contains("bogus_key"),
        "{check:#?}"
    );
    assert!(
        app.migrate_jobs().await.is_empty(),
        "an invalid config proposes nothing"
    );
}

/// A worker process on the app's database whose leases expire after 3 s.
fn spawn_worker(app: &App) -> Process {
    let s = settings(&app.fake, app.dir.path());
    let mut env = process_env(&app.fake, app.dir.path(), &s.database_url);
    env.push(("UPLIFT_LEASE_SECS", "3".into()));
    spawn(&["worker"], &env)
}

/// A worker process killed (SIGKILL) after it pushed: the lease expires, a new worker claims the
/// job, resumes the run from the first attempt's journal (the baseline is not rebuilt), finds
/// the same tree already pushed, and completes without a second push.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_worker_is_replaced_and_nothing_is_pushed_twice() {
    let app = start("single-junit4", false).await;
    let bare = bare_path(&app.fake.state());
    let mut first = spawn_worker(&app);
    app.command("dev", "MEMBER", "@uplift migrate --target 17")
        .await;
    // Killed while validating: branch pushed, PR open, checks in progress.
    app.wait_for("validation to start", 600, |s| {
        s.check_runs.len() == 2 && s.check_runs.iter().all(|c| c.status == "in_progress")
    })
    .await;
    let pushed = branch_commits(&bare, "uplift/java-17");
    assert_eq!(pushed.len(), 1);
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    assert_eq!(
        app.migrate_jobs().await[0].state,
        "running",
        "killed mid-job"
    );

    let _second = spawn_worker(&app);
    let state = app
        .wait_for("the restarted job to finish", 600, |s| {
            s.check_runs.len() >= 2 && s.check_runs.iter().all(|c| c.status == "completed")
        })
        .await;
    let job = app.finished_job().await;
    assert_eq!(job.state, "done", "{job:?}");
    assert_eq!(job.attempts, 2);
    assert_eq!(
        branch_commits(&bare, "uplift/java-17"),
        pushed,
        "the same single commit"
    );
    assert_eq!(state.pulls.len(), 1);
    assert_eq!(
        state.check_runs.len(),
        2,
        "the first attempt's checks were reused"
    );
    assert!(
        state
            .check_runs
            .iter()
            .all(|c| c.conclusion.as_deref() == Some("success")),
        "{:#?}",
        state.check_runs
    );
    assert_eq!(
        bot_comments(&state).len(),
        1,
        "one status comment across both attempts"
    );
    // The second attempt resumed from the first one's journal: same commit, same options,
    // so its baseline was taken over, not rebuilt.
    let runs = app.store.runs(10).await.unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    let first_run = runs.iter().find(|r| r.outcome.is_none()).unwrap();
    let second_run = runs.iter().find(|r| r.outcome.is_some()).unwrap();
    let (_, first_journal) = app.store.journal(&first_run.id).await.unwrap();
    let (_, second_journal) = app.store.journal(&second_run.id).await.unwrap();
    let baseline_entries: Vec<_> = second_journal
        .entries
        .iter()
        .filter(|e| e.stage == uplift::journal::Stage::Baseline)
        .collect();
    assert_eq!(baseline_entries.len(), 1);
    assert!(
        baseline_entries[0].rule.starts_with("R3r:"),
        "{:?}",
        baseline_entries[0].rule
    );
    assert!(baseline_entries[0].known.contains(&first_run.id));
    assert_eq!(second_journal.baseline(), first_journal.baseline());
}

/// `plan` analyses and posts the plan with an estimate; nothing is built or pushed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_posts_an_estimate_and_pushes_nothing() {
    let app = start("single-junit4", true).await;
    let comment = app
        .command("dev", "MEMBER", "@uplift plan --target 17")
        .await;
    let state = app
        .wait_for("the plan", 120, |s| {
            bot_comments(s).iter().any(|c| c.body.contains("Estimate"))
        })
        .await;
    let plan = bot_comments(&state)[0].body.clone();
    assert!(
        plan.contains("Plan — nothing was changed or pushed"),
        "{plan}"
    );
    assert!(plan.contains("Raise the Java level to 17"), "{plan}");
    assert!(plan.contains("by recipes ($0.00, no LLM calls)"), "{plan}");
    assert_eq!(reactions(&state, comment), ["eyes", "rocket"]);
    assert!(state.pulls.is_empty() && state.check_runs.is_empty());
    assert!(branch_commits(&bare_path(&state), "uplift/java-17").is_empty());
    assert_eq!(app.finished_job().await.state, "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_llm_tier_fixes_through_the_app_and_once_merged_its_fix_serves_a_second_repository() {
    use support::fake_llm::{FakeLlm, Recorded};
    let llm = FakeLlm::default();
    let llm_url = llm.start().await;
    llm.push(Recorded::ok(serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content":
            "FILE: src/main/java/com/example/calc/Twice.java\n<<<<<<< SEARCH\n    public static int twice(int _) { return _ * 2; }\n=======\n    public static int twice(int value) { return value * 2; }\n>>>>>>> REPLACE\n"},
            "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 2000, "completion_tokens": 100, "total_tokens": 2100}
    })));
    let app = start_with("underscore-identifier", true, |s| {
        s.llm = Some(uplift::llm::LlmSettings {
            api: uplift::llm::ApiKind::OpenaiCompatible,
            base_url: llm_url.clone(),
            model: "gpt-4o-mini".into(),
            api_key_env: "UPLIFT_APP_TEST_LLM_KEY".into(),
            timeout_secs: 30,
            max_retries: 0,
        });
    })
    .await;
    // A second repository with the same mistake in another class.
    let second = copy_project(&app, "second");
    let pkg = second.join("src/main/java/com/example/calc");
    let text = std::fs::read_to_string(pkg.join("Twice.java")).unwrap();
    std::fs::remove_file(pkg.join("Twice.java")).unwrap();
    std::fs::write(
        pkg.join("Doubler.java"),
        text.replace("class Twice", "class Doubler"),
    )
    .unwrap();
    let test = second.join("src/test/java/com/example/calc/TwiceTest.java");
    let t = std::fs::read_to_string(&test).unwrap();
    std::fs::write(&test, t.replace("Twice.twice", "Doubler.twice")).unwrap();
    app.fake.add_repo(INSTALLATION, "acme/second", &second);
    app.fake.add_issue("acme/second", 1, "Move to Java 17");
    app.fake.set_permission("acme/second", "dev", "write");

    app.command("dev", "MEMBER", "@uplift migrate --target 17")
        .await;
    let state = app
        .wait_for("the first migration", 600, |s| {
            s.check_runs.len() == 4 && s.check_runs.iter().all(|c| c.status == "completed")
        })
        .await;
    let pr = state
        .pulls
        .iter()
        .find(|p| p.repo == REPO)
        .expect("a pull request");
    let body = pr.body.clone().unwrap();
    assert!(body.contains("SUCCESS"), "{body}");
    // A fraction of a cent shows its digits, not "$0.00".
    assert!(body.contains("| LLM | | 1 calls, $0.00036 |"), "{body}");
    // The recipe commit's checks were superseded by the fix commit's, which are green.
    let commits = branch_commits(&bare_path(&state), "uplift/java-17");
    assert_eq!(commits.len(), 2, "recipes, then the fix");
    let head = &commits[0].0;
    for c in &state.check_runs {
        let want = if &c.head_sha == head {
            "success"
        } else {
            "neutral"
        };
        assert_eq!(c.conclusion.as_deref(), Some(want), "{c:#?}");
    }
    let fixed = file_on_branch(
        &bare_path(&state),
        "uplift/java-17",
        "src/main/java/com/example/calc/Twice.java",
    );
    assert!(fixed.contains("int twice(int value)"), "{fixed}");
    assert_eq!(llm.received().len(), 1);
    // Green is not accepted: nothing is learnt until a human merges the PR.
    assert!(app.store.examples().await.unwrap().is_empty());
    let number = pr.number;
    app.fake.close_pull(REPO, number, true);
    let merged = payloads::pull_request_closed(INSTALLATION, REPO, number, "uplift/java-17", true);
    assert_eq!(
        app.deliver("pull_request", "merged-1", &merged, None).await,
        202
    );
    // The worker deposits the example, then records the merge: wait for both.
    let mut examples = Vec::new();
    for _ in 0..600 {
        examples = app.store.examples().await.unwrap();
        if examples.iter().any(|e| e.merged > 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(examples.len(), 1, "the merge taught the fix");
    assert_eq!(examples[0].merged, 1);

    app.command_on(
        "acme/second",
        "dev",
        "MEMBER",
        "@uplift migrate --target 17",
    )
    .await;
    let state = app
        .wait_for("the second migration", 600, |s| {
            s.check_runs.len() == 8 && s.check_runs.iter().all(|c| c.status == "completed")
        })
        .await;
    let pr = state
        .pulls
        .iter()
        .find(|p| p.repo == "acme/second")
        .expect("a second pull request");
    let body = pr.body.clone().unwrap();
    assert!(body.contains("SUCCESS"), "{body}");
    assert!(body.contains("| LLM | | 0 calls"), "{body}");
    assert_eq!(
        llm.received().len(),
        1,
        "the solved example served the second repository"
    );
}

/// A hostile repository through the app: its test looks for the app's private key in every
/// process's environment and in its ancestors' memory, reads the key file and the app's
/// database, writes beside them, connects to PostgreSQL and leaves a `setsid` sleeper. In
/// the sandbox it finds nothing (the test passes before and after) and no process remains.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hostile_repository_cannot_reach_the_apps_secrets() {
    let key = std::fs::read_to_string(manifest("tests/support/app-key.pem")).unwrap();
    // A line of the key's body: it is in the worker's memory as long as the app runs.
    let canary = key.lines().nth(5).unwrap().to_string();
    let sleeper = format!("{}", 40_000 + std::process::id() % 10_000);
    let app = start_prepared(
        "hostile",
        true,
        |source, dir| {
            std::fs::create_dir_all(dir.join("data")).unwrap();
            let resources = source.join("src/test/resources");
            std::fs::create_dir_all(&resources).unwrap();
            std::fs::write(
                resources.join("hostile-targets.properties"),
                format!(
                    "canary={canary}\nsleeper={sleeper}\nread.key={key}\nread.db={db}\n\
                     write.data={data}\nconnect.postgres=127.0.0.1:5432\n",
                    key = manifest("tests/support/app-key.pem").display(),
                    db = dir.join("app.db").display(),
                    data = dir.join("data").display(),
                ),
            )
            .unwrap();
        },
        |_| {},
    )
    .await;
    app.command("dev", "MEMBER", "@uplift migrate --target 17")
        .await;
    let state = app
        .wait_for("the migration to finish", 600, |s| {
            s.check_runs.len() == 2 && s.check_runs.iter().all(|c| c.status == "completed")
        })
        .await;
    let runs = app.store.runs(5).await.unwrap();
    let (_, journal) = app.store.journal(&runs[0].id).await.unwrap();
    let report = uplift::journal::render::json(&journal);
    for side in ["before", "after"] {
        let tests = report["tests"][side].as_object().unwrap();
        let (_, status) = tests
            .iter()
            .find(|(k, _)| k.contains("cannotEscape"))
            .unwrap_or_else(|| panic!("no cannotEscape {side}: {tests:?}"));
        let log = journal
            .baseline()
            .and_then(|b| b.run.as_ref())
            .map(|r| r.tail.join("\n"))
            .unwrap_or_default();
        assert_eq!(
            status, "passed",
            "the hostile test found something ({side}):\n{log}"
        );
    }
    assert!(
        journal
            .baseline()
            .and_then(|b| b.run.as_ref())
            .is_some_and(|r| r.sandbox.is_some()),
        "the build ran in the sandbox"
    );
    assert!(!app.dir.path().join("data/planted-by-hostile-test").exists());
    let invariance = state
        .check_runs
        .iter()
        .find(|c| c.name == "uplift/test-invariance")
        .unwrap();
    assert_eq!(
        invariance.conclusion.as_deref(),
        Some("success"),
        "{invariance:#?}"
    );
    let leftover = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| c == format!("sleep\0{sleeper}\0").as_bytes())
        })
        .count();
    assert_eq!(leftover, 0, "no process outlives the build");
}

/// Sends raw bytes to the app and returns what it answers before closing (or `None` when
/// it gives nothing within `wait`).
async fn raw_exchange(url: &str, request: &[u8], wait: Duration) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = url.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(request).await.unwrap();
    let mut out = Vec::new();
    match tokio::time::timeout(wait, s.read_to_end(&mut out)).await {
        Ok(_) => Some(String::from_utf8_lossy(&out).into_owned()),
        Err(_) => None,
    }
}

/// What an unverified client sends leaves nothing behind: no metric label for a made-up
/// event name; a body over the limit is refused from its Content-Length before it is sent;
/// one without a length is refused; a client that never finishes its headers is cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unverified_and_abusive_requests_are_refused_without_a_trace() {
    let app = start("single-junit4", false).await;
    let body = serde_json::to_vec(&serde_json::json!({"zen": "x"})).unwrap();
    let status = reqwest::Client::new()
        .post(format!("{}/webhook", app.url))
        .header("x-github-event", "made-up-event-7f3a")
        .header("x-github-delivery", "d-unsigned")
        .header("x-hub-signature-256", "sha256=00")
        .body(body)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 401);
    let metrics = reqwest::get(&app.metrics_url)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!metrics.contains("made-up-event-7f3a"), "{metrics}");
    assert!(
        metrics.contains(r#"uplift_webhooks_total{event="unverified",result="bad_signature"}"#),
        "{metrics}"
    );
    let public = reqwest::get(format!("{}/metrics", app.url)).await.unwrap();
    assert_eq!(
        public.status(),
        404,
        "metrics are not on the public listener"
    );

    // 30 MB announced, nothing sent: refused at once, not after reading.
    let answer = raw_exchange(
        &app.url,
        b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 30000000\r\n\r\n",
        Duration::from_secs(5),
    )
    .await
    .expect("an answer without the body");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let answer = raw_exchange(
        &app.url,
        b"POST /webhook HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        Duration::from_secs(5),
    )
    .await
    .expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 411"), "{answer}");

    // Headers that never end: the connection is closed after the header timeout.
    let started = Instant::now();
    let cut = raw_exchange(
        &app.url,
        b"POST /webhook HTTP/1.1\r\nHost: x\r\n",
        Duration::from_secs(30),
    )
    .await;
    assert!(cut.is_some(), "the slow client was not cut within 30 s");
    assert!(
        started.elapsed() >= Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
    let healthz = reqwest::get(format!("{}/healthz", app.url)).await.unwrap();
    assert_eq!(healthz.status(), 200);
}

/// A repository's `.github/uplift.yml` may lower the server's limits, never raise them,
/// and cannot name its own provider or prices: the plan's estimate is bounded by the
/// server's ceilings and the run records what was ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_limits_and_providers_win_over_the_repositorys() {
    let app = start_with("single-junit4", true, |s| {
        s.ceilings.max_llm_calls = 7;
        s.ceilings.max_cost_usd = 1.5;
        s.ceilings.build_timeout_secs = 600;
    })
    .await;
    let greedy = copy_project(&app, "greedy");
    let config = greedy.join(".github/uplift.yml");
    let offline = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{offline}budgets:\n  max_llm_calls: 9999\n  max_cost_usd: 1000\n  build_timeout_secs: 36000\n\
             llm:\n  api: openai_compatible\n  base_url: http://127.0.0.1:9\n  model: m\n  api_key_env: UPLIFT_WEBHOOK_SECRET\n\
             prices:\n  m: {{input_per_mtok: 0, output_per_mtok: 0}}\n"
        ),
    )
    .unwrap();
    app.fake.add_repo(INSTALLATION, "acme/greedy", &greedy);
    app.fake.add_issue("acme/greedy", 1, "Move to Java 17");
    app.fake.set_permission("acme/greedy", "dev", "write");
    app.command_on("acme/greedy", "dev", "MEMBER", "@uplift plan --target 17")
        .await;
    let state = app
        .wait_for("the plan", 120, |s| {
            s.comments.iter().any(|c| c.body.contains("Estimate"))
        })
        .await;
    let plan = &state
        .comments
        .iter()
        .find(|c| c.body.contains("Estimate"))
        .unwrap()
        .body;
    assert!(
        plan.contains("at most 7 LLM calls and $1.50") && plan.contains("each capped at 10 min"),
        "{plan}"
    );
    let run = app.store.runs(1).await.unwrap().remove(0);
    let (_, journal) = app.store.journal(&run.id).await.unwrap();
    let warnings = &journal.analysis().unwrap().warnings;
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("names llm, prices: ignored")),
        "{warnings:?}"
    );
}

/// Nothing the app publishes carries a secret it holds, even a reply that quotes what a
/// user wrote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_the_app_holds_is_never_published() {
    let app = start("single-junit4", true).await;
    app.command("dev", "MEMBER", &format!("@uplift {SECRET}"))
        .await;
    let state = app
        .wait_for("the reply", 30, |s| bot_comments(s).len() == 1)
        .await;
    let reply = &bot_comments(&state)[0].body;
    assert!(reply.contains("unknown command `[REDACTED]`"), "{reply}");
    assert!(!reply.contains(SECRET), "{reply}");
}

/// A queued check run on main's head with `annotations` notices.
fn check_run(app: &App, summary: String, text: String, annotations: u32) -> CheckRun {
    CheckRun {
        name: "uplift/migration".into(),
        head_sha: app.fake.branch_sha(REPO, "main"),
        status: CheckStatus::Queued,
        conclusion: None,
        external_id: "job".into(),
        details_url: None,
        completed_at: None,
        output: CheckOutput {
            title: "Java 17".into(),
            summary,
            text: Some(text),
            annotations: (1..=annotations)
                .map(|n| Annotation {
                    path: format!("src/test/java/T{n}Test.java"),
                    start_line: 1,
                    end_line: 1,
                    annotation_level: "notice",
                    title: "converted".into(),
                    message: "JUnit 4 -> Jupiter".into(),
                })
                .collect(),
        },
        actions: Vec::new(),
    }
}

/// GitHub counts a check run's summary and text in bytes (at most 65,535): 40,000 two-byte
/// characters are cut to fit, at a character boundary, with a visible marker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_run_output_is_cut_to_githubs_byte_limit() {
    let app = start("single-junit4", false).await;
    let api = app.api().await;
    let run = check_run(&app, "é".repeat(40_000), "ü".repeat(40_000), 0);
    let id = api
        .create_check(&run)
        .await
        .expect("GitHub accepts the output");
    api.update_check(id, &run).await.expect("and its update");
    let state = app.fake.state();
    let stored = state.check_run(id).unwrap();
    let summary = stored.summary.as_deref().unwrap();
    let text = stored.text.as_deref().unwrap();
    assert!(summary.len() <= 65_535 && summary.ends_with("(truncated)"));
    assert!(text.len() <= 65_535 && text.ends_with("(truncated; see `uplift report`)"));
    assert!(summary.starts_with("éé") && text.starts_with("üü"));
}

/// More than 50 annotations go in follow-up updates, each of which replaces the output: the
/// text (the tasks table) must survive them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotation_batches_keep_the_check_runs_text() {
    let app = start("single-junit4", false).await;
    let api = app.api().await;
    let run = check_run(&app, "summary".into(), "| task | status |".into(), 120);
    let id = api.create_check(&run).await.unwrap();
    let state = app.fake.state();
    let stored = state.check_run(id).unwrap();
    assert_eq!(stored.annotations.len(), 120);
    assert_eq!(stored.text.as_deref(), Some("| task | status |"));
    assert_eq!(stored.summary.as_deref(), Some("summary"));

    let mut done = check_run(&app, "done".into(), "| task | done |".into(), 60);
    done.head_sha = None;
    api.update_check(id, &done).await.unwrap();
    let state = app.fake.state();
    let stored = state.check_run(id).unwrap();
    assert_eq!(stored.annotations.len(), 180, "annotations accumulate");
    assert_eq!(stored.text.as_deref(), Some("| task | done |"));
}

/// GitHub's rate limits, as its best practices ask: `retry-after` is honoured; a secondary
/// limit without it waits at least a minute; a spent primary limit waits for its reset; and no
/// wait runs past the job's budget (the server's wall-time ceiling).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_wait_as_github_asks_within_the_jobs_budget() {
    let app = start("single-junit4", false).await;
    let waits = Arc::new(RecordedWaits::default());
    let api = app.api_with(waits.clone(), |_| {}).await.unwrap();

    app.fake.throttle_next(1, None);
    api.info().await.expect("retried after the wait");
    assert_eq!(waits.take(), [Duration::from_secs(60)]);

    app.fake.throttle_next(2, Some(7));
    api.comment(1, "hello")
        .await
        .expect("retried after the waits");
    assert_eq!(waits.take(), [Duration::from_secs(7); 2]);

    app.fake.exhaust_next(1, 120);
    api.info().await.expect("retried after the reset");
    let waited = waits.take();
    assert!(
        waited.len() == 1 && (118..=121).contains(&waited[0].as_secs()),
        "{waited:?}"
    );

    let short = app
        .api_with(waits.clone(), |s| s.ceilings.max_wall_secs = 30)
        .await
        .unwrap();
    app.fake.throttle_next(1, None);
    let error = short.info().await.unwrap_err();
    assert!(matches!(error, ApiError::RateLimited(_)), "{error}");
    // An absurd Retry-After is refused like any wait past the budget, without overflowing.
    app.fake.throttle_next(1, Some(u64::MAX));
    let error = api.info().await.unwrap_err();
    assert!(matches!(error, ApiError::RateLimited(_)), "{error}");
    assert!(waits.take().is_empty(), "nothing waited past the budget");
    assert_eq!(app.fake.state().rate_limited, 6);
}

/// A renamed repository answers 301 (GET) or 307 (other methods) with the new location; the
/// client repeats the request there, credentials and body included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_follow_a_renamed_repository() {
    let app = start("single-junit4", false).await;
    let api = app.api().await;
    app.fake.rename_repo(REPO, "acme/calculator");
    let info = api.info().await.expect("GET follows the 301");
    assert_eq!(info.default_branch, "main");
    let id = api.comment(1, "moved").await.expect("POST follows the 307");
    api.edit_comment(id, "moved, edited")
        .await
        .expect("PATCH follows the 307");
    let state = app.fake.state();
    let comments = state.comments_on("acme/calculator", 1);
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0].body, "moved, edited");
    let redirected: Vec<_> = state
        .requests
        .iter()
        .map(|r| (r.method.as_str(), r.status))
        .filter(|(_, status)| (300..400).contains(status))
        .collect();
    assert_eq!(redirected, [("GET", 301), ("POST", 307), ("PATCH", 307)]);
}
