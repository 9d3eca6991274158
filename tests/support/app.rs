//! The app under test, end to end: the real webhook server and worker (SQLite queue) on
//! free ports against the fake GitHub, with one installation, one repository built from a
//! fixture, issue #1 and collaborators; helpers that deliver signed webhooks, wait on the
//! fake's state and read the bare repositories.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{Notify, watch};
use uplift::settings::{Secret, Settings};
use uplift::store::Store;

use super::fake_github::{FakeGitHub, State};
use super::{copy_dir, payloads};

pub const SECRET: &str = "test-webhook-secret";
pub const APP_ID: u64 = 4242;
pub const SLUG: &str = "uplift";
pub const REPO: &str = "acme/calc";
pub const INSTALLATION: u64 = 77;

pub fn manifest(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A fixture project with the offline catalog as its `.github/uplift.yml`.
pub fn project(dir: &Path, fixture: &str) -> PathBuf {
    let dest = dir.join("source");
    copy_dir(&manifest("tests/fixtures").join(fixture), &dest);
    std::fs::create_dir_all(dest.join(".github")).unwrap();
    std::fs::copy(
        manifest("tests/support/offline.yml"),
        dest.join(".github/uplift.yml"),
    )
    .unwrap();
    dest
}

/// Offline Maven against Debian's repository; tests run in-JVM (no forks to clean up).
pub fn maven_args() -> Vec<String> {
    vec![
        "-s".into(),
        manifest("tests/support/maven-settings-offline.xml")
            .display()
            .to_string(),
        "-DforkCount=0".into(),
    ]
}

pub fn settings(fake: &FakeGitHub, dir: &Path) -> Settings {
    Settings {
        app_id: APP_ID,
        app_slug: SLUG.into(),
        private_key: Secret::new(
            std::fs::read_to_string(manifest("tests/support/app-key.pem")).unwrap(),
        ),
        webhook_secret: Secret::new(SECRET),
        api_url: fake.url.clone(),
        database_url: format!("sqlite://{}?mode=rwc", dir.join("app.db").display()),
        listen: "127.0.0.1:0".parse().unwrap(),
        metrics_listen: "127.0.0.1:0".parse().unwrap(),
        workers: 1,
        installation_concurrency: 2,
        lease: Duration::from_secs(30),
        max_attempts: 3,
        mutation_spacing: Duration::ZERO,
        work_dir: dir.join("work"),
        jdks: Default::default(),
        maven_args: maven_args(),
        json_logs: false,
        unsafe_no_sandbox: false,
        llm: None,
        embeddings: None,
        search: None,
        ceilings: Default::default(),
        prices: Default::default(),
        max_cost_per_installation_day_usd: 50.0,
    }
}

/// What an operator sets to run `uplift serve|worker` against `fake`: the App's identity,
/// the fake's API, `database_url`, a work directory under `dir` and the offline Maven.
pub fn process_env(
    fake: &FakeGitHub,
    dir: &Path,
    database_url: &str,
) -> Vec<(&'static str, String)> {
    vec![
        ("UPLIFT_APP_ID", APP_ID.to_string()),
        ("UPLIFT_APP_SLUG", SLUG.into()),
        (
            "UPLIFT_PRIVATE_KEY_PATH",
            manifest("tests/support/app-key.pem").display().to_string(),
        ),
        ("UPLIFT_WEBHOOK_SECRET", SECRET.into()),
        ("UPLIFT_GITHUB_API_URL", fake.url.clone()),
        ("DATABASE_URL", database_url.into()),
        ("UPLIFT_WORK_DIR", dir.join("work").display().to_string()),
        ("UPLIFT_MUTATION_SPACING_MS", "0".into()),
        ("UPLIFT_MAVEN_ARGS", maven_args().join(" ")),
        ("RUST_LOG", "error".into()),
    ]
}

/// `uplift ARGS` in a process of its own, listening (when it serves) on free loopback ports;
/// killed when dropped.
pub struct Process {
    pub child: std::process::Child,
    /// `http://127.0.0.1:PORT`, where `serve` listens for webhooks.
    pub url: String,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `uplift ARGS` with `env` (later entries win); for `serve`, waits until it listens.
pub fn spawn(args: &[&str], env: &[(&str, String)]) -> Process {
    let port = free_port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_uplift"))
        .args(args)
        .env("UPLIFT_LISTEN", format!("127.0.0.1:{port}"))
        .env(
            "UPLIFT_METRICS_LISTEN",
            format!("127.0.0.1:{}", free_port()),
        )
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let process = Process {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    if args.first() == Some(&"serve") {
        wait_listening(port);
    }
    process
}

/// Waits (up to 30 s) until something listens on loopback `port`.
pub fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `dev` comments `body` on issue #1 of `repo` and the signed `issue_comment` webhook GitHub
/// would send is posted to `webhook`; the HTTP status (0 when nothing answered).
pub async fn send_command(
    client: &reqwest::Client,
    webhook: &str,
    fake: &FakeGitHub,
    repo: &str,
    body: &str,
) -> u16 {
    let id = fake.add_comment(repo, 1, "dev", body);
    let payload = payloads::issue_comment_created(
        INSTALLATION,
        repo,
        1,
        false,
        id,
        "dev",
        "User",
        "MEMBER",
        body,
    );
    let bytes = serde_json::to_vec(&payload).unwrap();
    client
        .post(webhook)
        .header("x-github-event", "issue_comment")
        .header("x-github-delivery", format!("d-{id}"))
        .header("x-hub-signature-256", payloads::sign(SECRET, &bytes))
        .header("content-type", "application/json")
        .body(bytes)
        .send()
        .await
        .map_or(0, |r| r.status().as_u16())
}

pub struct App {
    pub fake: FakeGitHub,
    pub url: String,
    pub metrics_url: String,
    pub store: Store,
    pub dir: tempfile::TempDir,
    stop: watch::Sender<bool>,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// The fake GitHub with one installation, one repository from `fixture`, issue #1, and a
/// collaborator `dev` with write access; the app server on a free port, with or without an
/// in-process worker.
pub async fn start(fixture: &str, with_worker: bool) -> App {
    start_with(fixture, with_worker, |_| {}).await
}

pub async fn start_with(
    fixture: &str,
    with_worker: bool,
    tweak: impl FnOnce(&mut Settings),
) -> App {
    start_prepared(fixture, with_worker, |_, _| {}, tweak).await
}

/// `prepare` edits the fixture's source (given the test's directory) before it is pushed.
pub async fn start_prepared(
    fixture: &str,
    with_worker: bool,
    prepare: impl FnOnce(&Path, &Path),
    tweak: impl FnOnce(&mut Settings),
) -> App {
    let dir = tempfile::tempdir().unwrap();
    let public = std::fs::read(manifest("tests/support/app-key.pub.pem")).unwrap();
    let fake = FakeGitHub::start(APP_ID, SLUG, &public).await;
    fake.add_installation(INSTALLATION, "acme");
    let source = project(dir.path(), fixture);
    prepare(&source, dir.path());
    fake.add_repo(INSTALLATION, REPO, &source);
    fake.add_issue(REPO, 1, "Move to Java 17");
    fake.set_permission(REPO, "dev", "write");
    fake.set_permission(REPO, "reader", "read");
    let mut settings = settings(&fake, dir.path());
    tweak(&mut settings);
    let settings = Arc::new(settings);
    let store = Store::connect(&settings.database_url).await.unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    if with_worker {
        let ctx = uplift::worker::Context {
            store: store.clone(),
            github: uplift::github::GitHub::new(&settings).unwrap(),
            settings: settings.clone(),
            wake: wake.clone(),
            sandbox: Some(
                uplift::build::sandbox::Sandbox::detect(Default::default())
                    .expect("the app tests build in the bubblewrap sandbox"),
            ),
            events: Arc::new(uplift::commands::Events),
        };
        tokio::spawn(uplift::worker::run(ctx, stop_rx.clone()));
    }
    let state = uplift::server::AppState::new(
        store.clone(),
        settings.webhook_secret.clone(),
        SLUG.into(),
        3,
        wake,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(uplift::server::serve(
        listener,
        uplift::server::router(state.clone()),
        stop_rx.clone(),
    ));
    let metrics = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics_url = format!("http://{}/metrics", metrics.local_addr().unwrap());
    tokio::spawn(uplift::server::serve(
        metrics,
        uplift::server::metrics_router(state),
        stop_rx.clone(),
    ));
    App {
        fake,
        url,
        metrics_url,
        store,
        dir,
        stop,
    }
}

impl App {
    pub async fn deliver(
        &self,
        event: &str,
        delivery: &str,
        payload: &Value,
        signature: Option<String>,
    ) -> u16 {
        let body = serde_json::to_vec(payload).unwrap();
        let sig = signature.unwrap_or_else(|| payloads::sign(SECRET, &body));
        reqwest::Client::new()
            .post(format!("{}/webhook", self.url))
            .header("x-github-event", event)
            .header("x-github-delivery", delivery)
            .header("x-hub-signature-256", sig)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// A human comment on issue #1 and its webhook.
    pub async fn command(&self, user: &str, association: &str, body: &str) -> u64 {
        self.command_on(REPO, user, association, body).await
    }

    pub async fn command_on(&self, repo: &str, user: &str, association: &str, body: &str) -> u64 {
        let id = self.fake.add_comment(repo, 1, user, body);
        let payload = payloads::issue_comment_created(
            INSTALLATION,
            repo,
            1,
            false,
            id,
            user,
            "User",
            association,
            body,
        );
        assert_eq!(
            self.deliver("issue_comment", &format!("d-{id}"), &payload, None)
                .await,
            202
        );
        id
    }

    pub async fn wait_for(&self, what: &str, secs: u64, done: impl Fn(&State) -> bool) -> State {
        let start = Instant::now();
        loop {
            let state = self.fake.state();
            if done(&state) {
                return state;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "timed out waiting for {what}: {state:#?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub async fn migrate_jobs(&self) -> Vec<uplift::store::jobs::JobRow> {
        self.store.migrations(REPO, 10).await.unwrap()
    }

    /// The newest migration job once it has left the queue (the GitHub side finishes first).
    pub async fn finished_job(&self) -> uplift::store::jobs::JobRow {
        self.wait_for_job(REPO, 30, |j| {
            !matches!(j.state.as_str(), "queued" | "running")
        })
        .await
    }

    /// Waits up to `secs` until no event job is queued or running.
    pub async fn settle_events(&self, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let counts = self.store.job_counts().await.unwrap();
            let pending = counts.iter().any(|(kind, state, _)| {
                kind == "event" && matches!(state.as_str(), "queued" | "running")
            });
            if !pending {
                return;
            }
            assert!(Instant::now() < deadline, "events pending: {counts:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// How many event jobs were ever queued.
    pub async fn event_jobs(&self) -> i64 {
        self.store
            .job_counts()
            .await
            .unwrap()
            .iter()
            .filter(|(kind, _, _)| kind == "event")
            .map(|(_, _, n)| n)
            .sum()
    }

    /// Waits up to `secs` until the newest migration of `repo` satisfies `done`.
    pub async fn wait_for_job(
        &self,
        repo: &str,
        secs: u64,
        done: impl Fn(&uplift::store::jobs::JobRow) -> bool,
    ) -> uplift::store::jobs::JobRow {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let newest = self.store.migrations(repo, 1).await.unwrap().pop();
            if let Some(job) = newest.filter(|j| done(j)) {
                return job;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for a migration of {repo}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Rate-limit waits the client asked for, none of them slept.
pub fn reactions(state: &State, comment: u64) -> Vec<String> {
    state
        .reactions
        .iter()
        .filter(|r| r.comment_id == comment)
        .map(|r| r.content.clone())
        .collect()
}

pub fn bot_comments(state: &State) -> Vec<&super::fake_github::Comment> {
    state
        .comments
        .iter()
        .filter(|c| c.user == format!("{SLUG}[bot]"))
        .collect()
}

/// Commits on `branch` of the bare repository that are not on main, newest first.
pub fn branch_commits(bare: &Path, branch: &str) -> Vec<(String, String)> {
    let repo = git2::Repository::open_bare(bare).unwrap();
    let Ok(head) = repo.refname_to_id(&format!("refs/heads/{branch}")) else {
        return Vec::new();
    };
    let mut walk = repo.revwalk().unwrap();
    walk.push(head).unwrap();
    walk.hide(repo.refname_to_id("refs/heads/main").unwrap())
        .unwrap();
    walk.map(|oid| {
        let c = repo.find_commit(oid.unwrap()).unwrap();
        (
            c.id().to_string(),
            c.author().name().unwrap_or("").to_string(),
        )
    })
    .collect()
}

pub fn file_on_branch(bare: &Path, branch: &str, path: &str) -> String {
    let repo = git2::Repository::open_bare(bare).unwrap();
    let commit = repo
        .find_reference(&format!("refs/heads/{branch}"))
        .unwrap()
        .peel_to_commit()
        .unwrap();
    let blob = commit
        .tree()
        .unwrap()
        .get_path(Path::new(path))
        .unwrap()
        .to_object(&repo)
        .unwrap();
    String::from_utf8(blob.as_blob().unwrap().content().to_vec()).unwrap()
}

pub fn bare_path(state: &State) -> PathBuf {
    state
        .repos
        .iter()
        .find(|r| r.full_name == REPO)
        .unwrap()
        .bare_path
        .clone()
}

/// Commits `files` (path, content) by `author` on top of `branch` of the bare repository, as a
/// person pushing would; returns (before, after) commit ids.
pub fn commit_to_branch(
    bare: &Path,
    branch: &str,
    files: &[(&str, &str)],
    author: &str,
) -> (String, String) {
    let repo = git2::Repository::open_bare(bare).unwrap();
    let refname = format!("refs/heads/{branch}");
    let parent = repo
        .find_reference(&refname)
        .unwrap()
        .peel_to_commit()
        .unwrap();
    let mut index = git2::Index::new().unwrap();
    index.read_tree(&parent.tree().unwrap()).unwrap();
    for (path, content) in files {
        let blob = repo.blob(content.as_bytes()).unwrap();
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100644,
            uid: 0,
            gid: 0,
            file_size: content.len() as u32,
            id: blob,
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        };
        index.add(&entry).unwrap();
    }
    let tree = repo.find_tree(index.write_tree_to(&repo).unwrap()).unwrap();
    let sig = git2::Signature::now(author, &format!("{author}@example.com")).unwrap();
    let after = repo
        .commit(Some(&refname), &sig, &sig, "edit", &tree, &[&parent])
        .unwrap();
    (parent.id().to_string(), after.to_string())
}

/// A copy of the app's repository source (the fixture with its config) under `name` in the
/// test's directory, for a second repository to edit and add.
pub fn copy_project(app: &App, name: &str) -> PathBuf {
    let dest = app.dir.path().join(name);
    copy_dir(&app.dir.path().join("source"), &dest);
    dest
}
