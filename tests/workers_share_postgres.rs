//! The deployment of deploy/README.md, end to end: one `uplift serve --no-worker` and two
//! `uplift worker` processes on one PostgreSQL database, against the fake GitHub. Twenty
//! repositories each ask for their migration; each is migrated exactly once (one job, one
//! attempt, one pushed commit, one PR, one pair of check runs), and both workers took part.
//! (A file of its own: it runs twenty migrations with real Maven.)

mod support;

use std::time::{Duration, Instant};

use support::app::{INSTALLATION, manifest, process_env, project, send_command, spawn};
use support::fake_github::FakeGitHub;

const REPOS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_and_a_server_on_postgres_migrate_each_repository_once() {
    let dir = tempfile::tempdir().unwrap();
    let public = std::fs::read(manifest("tests/support/app-key.pub.pem")).unwrap();
    let fake = FakeGitHub::start(support::app::APP_ID, support::app::SLUG, &public).await;
    fake.add_installation(INSTALLATION, "acme");
    let source = project(dir.path(), "single-junit4");
    let repos: Vec<String> = (0..REPOS).map(|i| format!("acme/lib{i:02}")).collect();
    for repo in &repos {
        fake.add_repo(INSTALLATION, repo, &source);
        fake.add_issue(repo, 1, "Move to Java 17");
        fake.set_permission(repo, "dev", "write");
    }
    let database = support::postgres_url().await;
    let env = |name: &str| {
        let mut env = process_env(&fake, &dir.path().join(name), &database);
        // Two migrations at a time per worker: the installation's limit is what bounds them.
        env.push(("UPLIFT_INSTALLATION_CONCURRENCY", "4".into()));
        env
    };
    let server = spawn(&["serve", "--no-worker"], &env("server"));
    let _workers = [spawn(&["worker"], &env("a")), spawn(&["worker"], &env("b"))];

    let client = reqwest::Client::new();
    let webhook = format!("{}/webhook", server.url);
    for repo in &repos {
        let status = send_command(
            &client,
            &webhook,
            &fake,
            repo,
            "@uplift migrate --target 17",
        )
        .await;
        assert_eq!(status, 202);
    }

    let store = uplift::store::Store::connect(&database).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(1800);
    let jobs = loop {
        let mut jobs = Vec::new();
        for repo in &repos {
            jobs.extend(store.migrations(repo, 10).await.unwrap());
        }
        let finished = jobs
            .iter()
            .filter(|j| !matches!(j.state.as_str(), "queued" | "running"))
            .count();
        if jobs.len() >= REPOS && finished == jobs.len() {
            break jobs;
        }
        assert!(
            Instant::now() < deadline,
            "{finished} of {} migrations finished",
            jobs.len()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };

    assert_eq!(jobs.len(), REPOS, "one job per repository");
    for job in &jobs {
        assert_eq!((job.state.as_str(), job.attempts), ("done", 1), "{job:#?}");
    }
    let state = fake.state();
    for repo in &repos {
        let pulls: Vec<_> = state.pulls.iter().filter(|p| &p.repo == repo).collect();
        assert_eq!(pulls.len(), 1, "{repo}: one PR");
        let checks: Vec<_> = state
            .check_runs
            .iter()
            .filter(|c| &c.repo == repo)
            .collect();
        assert_eq!(checks.len(), 2, "{repo}: one pair of check runs");
        assert!(
            checks
                .iter()
                .all(|c| c.conclusion.as_deref() == Some("success")),
            "{repo}: {checks:#?}"
        );
        let bare = state
            .repos
            .iter()
            .find(|r| &r.full_name == repo)
            .unwrap()
            .bare_path
            .clone();
        assert_eq!(
            support::app::branch_commits(&bare, "uplift/java-17").len(),
            1,
            "{repo}: one pushed commit"
        );
    }
    // Both workers took part: a job keeps the id of the worker that finished it.
    let pool = sqlx::PgPool::connect(&database).await.unwrap();
    let owners: Vec<(String,)> = sqlx::query_as(
        "SELECT DISTINCT lease_owner FROM jobs WHERE kind = 'migrate' AND lease_owner IS NOT NULL",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(owners.len(), 2, "both workers migrated: {owners:?}");
}
