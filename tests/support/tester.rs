//! A small DSL over the app under test ([`super::app`]) in the style of rust-lang/bors's
//! tests: a scenario says what a person does on GitHub (comments, edits, button presses,
//! pushes) and waits for what Uplift does in answer, without knowing webhook payloads.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use uplift::settings::Settings;
use uplift::store::jobs::JobRow;

use super::app::{self, App, INSTALLATION, REPO, SLUG, bare_path};
use super::fake_github::{CheckRun, Comment, State};
use super::payloads;

/// Migrations are built with real Maven: generous, and still a bound.
const MIGRATION_SECS: u64 = 600;
/// Replies and event handling need no build.
const REPLY_SECS: u64 = 60;

/// The app with a worker, the fake GitHub and repository `acme/calc` with issue #1, where
/// `dev` has write access and `reader` read access.
pub struct Tester {
    pub app: App,
}

impl Tester {
    pub async fn start(fixture: &str) -> Tester {
        Tester::start_with(fixture, |_| {}).await
    }

    pub async fn start_with(fixture: &str, tweak: impl FnOnce(&mut Settings)) -> Tester {
        Tester::start_prepared(fixture, |_| {}, tweak).await
    }

    /// `prepare` edits the repository's source before it is pushed.
    pub async fn start_prepared(
        fixture: &str,
        prepare: impl FnOnce(&Path),
        tweak: impl FnOnce(&mut Settings),
    ) -> Tester {
        Tester {
            app: app::start_prepared(fixture, true, |source, _| prepare(source), tweak).await,
        }
    }

    /// An app whose worker handles events but never starts a migration: queued migrations
    /// stay queued (no installation may run one).
    pub async fn start_without_migrations(fixture: &str) -> Tester {
        Tester::start_with(fixture, |s| s.installation_concurrency = 0).await
    }

    pub fn state(&self) -> State {
        self.app.fake.state()
    }

    pub fn bare(&self) -> PathBuf {
        bare_path(&self.state())
    }

    /// Delivers `payload` as `event` under a fresh delivery id; returns the HTTP status.
    pub async fn deliver(&self, event: &str, payload: &serde_json::Value) -> u16 {
        let delivery = uuid::Uuid::new_v4().to_string();
        self.app.deliver(event, &delivery, payload, None).await
    }

    /// `dev` (write access) comments `body` on issue #1; returns the comment's id.
    pub async fn comment(&self, body: &str) -> u64 {
        self.comment_as("dev", body).await
    }

    /// `user` comments `body` on issue #1 (the webhook is accepted); returns the comment's id.
    pub async fn comment_as(&self, user: &str, body: &str) -> u64 {
        let association = match user {
            "dev" => "MEMBER",
            "reader" => "CONTRIBUTOR",
            _ => "NONE",
        };
        self.app.command(user, association, body).await
    }

    /// The App's own bot account comments `body`; returns the webhook's HTTP status.
    pub async fn comment_from_bot(&self, body: &str) -> u16 {
        let login = self.app.fake.bot_login();
        let id = self.app.fake.add_bot_comment(REPO, 1, body);
        let payload = payloads::issue_comment_created(
            INSTALLATION,
            REPO,
            1,
            false,
            id,
            &login,
            "Bot",
            "NONE",
            body,
        );
        self.deliver("issue_comment", &payload).await
    }

    /// `dev` edits comment `id` (written with `was`) to `body`; returns the webhook's status.
    pub async fn edit_comment(&self, id: u64, was: &str, body: &str) -> u16 {
        self.app.fake.edit_comment(id, body);
        let created = payloads::issue_comment_created(
            INSTALLATION,
            REPO,
            1,
            false,
            id,
            "dev",
            "User",
            "MEMBER",
            was,
        );
        let payload = payloads::issue_comment_edited(created, body);
        self.deliver("issue_comment", &payload).await
    }

    /// Presses button `identifier` (`cancel`, `rerun`) on the newest `uplift/migration` run.
    pub async fn press(&self, identifier: &str) -> u16 {
        self.check_run_event("requested_action", Some(identifier))
            .await
    }

    /// "Re-run" in GitHub's checks UI on the newest `uplift/migration` run.
    pub async fn rerequest(&self) -> u16 {
        self.check_run_event("rerequested", None).await
    }

    async fn check_run_event(&self, action: &str, identifier: Option<&str>) -> u16 {
        let check = self.newest_check("uplift/migration").expect("a check run");
        let payload = payloads::check_run_action(
            INSTALLATION,
            REPO,
            SLUG,
            &check.name,
            action,
            check.id,
            check.external_id.as_deref().unwrap_or_default(),
            identifier,
            &check.head_sha,
        );
        self.deliver("check_run", &payload).await
    }

    /// `author` pushes one commit with `files` onto `branch` (the push webhook is delivered);
    /// returns the new head.
    pub async fn push_to_branch(
        &self,
        branch: &str,
        files: &[(&str, &str)],
        author: &str,
    ) -> String {
        let (before, after) = app::commit_to_branch(&self.bare(), branch, files, author);
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let payload = payloads::push(
            INSTALLATION,
            REPO,
            &format!("refs/heads/{branch}"),
            &before,
            &after,
            &paths,
        );
        let status = self.deliver("push", &payload).await;
        assert!(status == 200 || status == 202, "push answered {status}");
        after
    }

    /// A person closes pull request `number` (merging it or not); the webhook is handled.
    pub async fn close_pull(&self, number: u64, merged: bool) {
        self.app.fake.close_pull(REPO, number, merged);
        let head = self.state().pull(REPO, number).unwrap().head_ref.clone();
        let payload = payloads::pull_request_closed(INSTALLATION, REPO, number, &head, merged);
        assert_eq!(self.deliver("pull_request", &payload).await, 202);
        self.settle_events().await;
    }

    /// The `pull_request` `closed` webhook GitHub sends when the App itself closed pull
    /// request `number` (the fake sends no webhooks); returns the HTTP status.
    pub async fn deliver_closed_by_app(&self, number: u64) -> u16 {
        let state = self.state();
        let pull = state.pull(REPO, number).unwrap();
        assert_eq!(pull.state, "closed", "{pull:#?}");
        let payload = payloads::closed_by_bot(
            payloads::pull_request_closed(INSTALLATION, REPO, number, &pull.head_ref, false),
            &self.app.fake.bot_login(),
        );
        self.deliver("pull_request", &payload).await
    }

    /// The newest check run named `name`, if any.
    pub fn newest_check(&self, name: &str) -> Option<CheckRun> {
        self.state()
            .check_runs
            .into_iter()
            .filter(|c| c.name == name)
            .max_by_key(|c| c.id)
    }

    /// Waits until the newest check run named `name` is completed.
    pub async fn wait_for_check(&self, name: &str) -> CheckRun {
        self.wait_for_check_status(name, "completed").await
    }

    /// Waits until the newest check run named `name` is `status` (e.g. `in_progress`).
    pub async fn wait_for_check_status(&self, name: &str, status: &str) -> CheckRun {
        let newest = |s: &State| {
            s.check_runs
                .iter()
                .filter(|c| c.name == name)
                .max_by_key(|c| c.id)
                .cloned()
        };
        let state = self
            .app
            .wait_for(&format!("{name} {status}"), MIGRATION_SECS, |s| {
                newest(s).is_some_and(|c| c.status == status)
            })
            .await;
        newest(&state).unwrap()
    }

    /// Waits for the bot's first comment written after comment `after` (the reply to it).
    pub async fn wait_for_reply(&self, after: u64) -> Comment {
        let bot = self.app.fake.bot_login();
        let reply = |s: &State| {
            s.comments
                .iter()
                .find(|c| c.id > after && c.user == bot)
                .cloned()
        };
        let state = self
            .app
            .wait_for(&format!("a reply to {after}"), REPLY_SECS, |s| {
                reply(s).is_some()
            })
            .await;
        reply(&state).unwrap()
    }

    /// Waits for a bot comment whose body satisfies `done` (e.g. a status comment's last edit).
    pub async fn wait_for_comment(&self, what: &str, done: impl Fn(&str) -> bool) -> Comment {
        let bot = self.app.fake.bot_login();
        let find = |s: &State| {
            s.comments
                .iter()
                .find(|c| c.user == bot && done(&c.body))
                .cloned()
        };
        let state = self
            .app
            .wait_for(what, MIGRATION_SECS, |s| find(s).is_some())
            .await;
        find(&state).unwrap()
    }

    /// Waits until the newest migration of `acme/calc` has left the queue.
    pub async fn wait_for_migration(&self) -> JobRow {
        self.wait_for_job(REPO, |j| !matches!(j.state.as_str(), "queued" | "running"))
            .await
    }

    /// Waits until the newest migration of `repo` satisfies `done`.
    pub async fn wait_for_job(&self, repo: &str, done: impl Fn(&JobRow) -> bool) -> JobRow {
        self.app.wait_for_job(repo, MIGRATION_SECS, done).await
    }

    /// Waits until every event job has been handled (so an ignored or denied request has
    /// had its chance to do something).
    pub async fn settle_events(&self) {
        self.app.settle_events(REPLY_SECS).await
    }

    pub async fn migrations(&self) -> Vec<JobRow> {
        self.app.migrate_jobs().await
    }

    /// The processes of this app's builds: those whose command line names the app's
    /// directory (the sandbox is given its paths), and all their descendants.
    pub fn build_processes(&self) -> Vec<u32> {
        let dir = self.app.dir.path().display().to_string();
        let mut parents = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // `pid (comm) state ppid ...`: comm may hold spaces, so read after its ')'.
            let mut after = stat
                .rsplit_once(')')
                .map_or("", |(_, a)| a)
                .split_whitespace();
            let (state, ppid) = (after.next(), after.next().and_then(|p| p.parse().ok()));
            if state == Some("Z") {
                continue;
            }
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let named = String::from_utf8_lossy(&cmdline).contains(&dir);
            parents.push((pid, ppid.unwrap_or(0), named));
        }
        let mut found: Vec<u32> = parents.iter().filter(|p| p.2).map(|p| p.0).collect();
        loop {
            let more: Vec<u32> = parents
                .iter()
                .filter(|p| found.contains(&p.1) && !found.contains(&p.0))
                .map(|p| p.0)
                .collect();
            if more.is_empty() {
                return found;
            }
            found.extend(more);
        }
    }

    /// Comments by the bot, oldest first.
    pub fn bot_comments(&self) -> Vec<Comment> {
        app::bot_comments(&self.state())
            .into_iter()
            .cloned()
            .collect()
    }
}

/// What varies between runs, replaced so that snapshots are stable: the checkout's path (in
/// the operator's Maven arguments), commit ids, uuids (run and job ids), short job ids,
/// durations, timestamps and the fake's address.
pub fn redact(text: &str) -> String {
    let text = text.replace(env!("CARGO_MANIFEST_DIR"), "[checkout]");
    static RULES: LazyLock<Vec<(Regex, &str)>> = LazyLock::new(|| {
        [
            (r"http://127\.0\.0\.1:\d+", "[api]"),
            (
                r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                "[uuid]",
            ),
            (r"\b[0-9a-f]{40}\b", "[sha]"),
            (r"\b[0-9a-f]{7,12}\b", "[hex]"),
            (
                r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
                "[time]",
            ),
            (r"\b\d+(\.\d+)? ?(ms|s|min)\b", "[duration]"),
        ]
        .into_iter()
        .map(|(re, by)| (Regex::new(re).unwrap(), by))
        .collect()
    });
    RULES.iter().fold(text.to_string(), |t, (re, by)| {
        re.replace_all(&t, *by).into_owned()
    })
}
