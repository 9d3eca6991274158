//! A stateful fake of GitHub's REST API, served over HTTP on 127.0.0.1 for one test.
//!
//! It authenticates like GitHub (App JWTs on `/app/...`, installation tokens on `/repos/...`),
//! validates requests as GitHub's REST documents describe, keeps every repository as a real bare
//! git repository (its `clone_url` is a `file://` URL), and records everything in [`State`].
//!
//! Served: `GET /app`, `GET /app/installations/{id}`, `POST /app/installations/{id}/access_tokens`;
//! under `/repos/{owner}/{repo}`: the repository, `collaborators/{user}/permission`,
//! `contents/{path}`, issue comments (list, create, get, update, reactions), pulls (list, create,
//! get, update; a closed one keeps the head it was closed with and reopens only while its branch
//! exists and still holds that commit, as on GitHub) and check runs (create, get, update). Anything else is a 404 marked `unrouted` in
//! the request log. A renamed repository's old name is redirected (301 for GET, 307 otherwise);
//! rate limits are answered on request (`throttle_next`, `exhaust_next`). App registration from a
//! manifest (the new-app page and the code exchange) is in [`manifest_flow`].
//!
//! Every request and answer is checked against GitHub's published OpenAPI description
//! ([`super::openapi`]): a fake dropped after a request or an answer the description refuses
//! fails its test, naming each.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, Query, Request, State as Fake};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use base64::Engine;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use octocrab::jsonwebtoken::{Algorithm, DecodingKey, Validation, decode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::openapi;
use super::payloads::{self, merge, repo_id, split_full_name};

mod manifest_flow;
pub use manifest_flow::Registration;

const DOCS: &str = "https://docs.github.com/rest";
const RATE_LIMIT: u64 = 5000;
const MAX_BODY: usize = 65536;
/// Bytes, not characters: GitHub refuses a longer `output.summary` or `output.text` with 422.
const MAX_CHECK_TEXT: usize = 65535;
const REACTIONS: [&str; 8] = [
    "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes",
];
const ROLES: [&str; 6] = ["admin", "maintain", "write", "triage", "read", "none"];
const CHECK_STATUSES: [&str; 6] = [
    "queued",
    "in_progress",
    "completed",
    "requested",
    "waiting",
    "pending",
];
const CONCLUSIONS: [&str; 8] = [
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "stale",
    "timed_out",
];
const ANNOTATION_LEVELS: [&str; 3] = ["notice", "warning", "failure"];

/// Everything the fake knows and has seen; [`FakeGitHub::state`] hands out a copy.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub installations: Vec<Installation>,
    pub repos: Vec<Repo>,
    /// Role (`admin|maintain|write|triage|read|none` or a custom role) by (repository full
    /// name, user login).
    pub permissions: BTreeMap<(String, String), String>,
    /// Custom repository roles: name -> the base role they extend (`read|triage|write|maintain`).
    pub custom_roles: BTreeMap<String, String>,
    pub issues: Vec<Issue>,
    pub comments: Vec<Comment>,
    pub reactions: Vec<Reaction>,
    pub pulls: Vec<PullRequest>,
    pub check_runs: Vec<CheckRun>,
    pub tokens: Vec<IssuedToken>,
    pub requests: Vec<RequestRecord>,
    /// Requests answered with a secondary rate limit (see [`FakeGitHub::throttle_next`]).
    pub rate_limited: usize,
    /// Requests and answers that break GitHub's OpenAPI description (see [`openapi`]); a
    /// fake dropped with any fails its test.
    pub violations: Vec<String>,
    /// Manifests posted to the new-app page, oldest first.
    pub registrations: Vec<Registration>,
}

impl State {
    /// Comments on issue or pull request `number` of `repo`, oldest first.
    pub fn comments_on(&self, repo: &str, number: u64) -> Vec<&Comment> {
        self.comments
            .iter()
            .filter(|c| c.repo == repo && c.issue == number)
            .collect()
    }

    pub fn check_run(&self, id: u64) -> Option<&CheckRun> {
        self.check_runs.iter().find(|c| c.id == id)
    }

    pub fn pull(&self, repo: &str, number: u64) -> Option<&PullRequest> {
        self.pulls
            .iter()
            .find(|p| p.repo == repo && p.number == number)
    }

    /// Requests no route matched: calls production code should not have made.
    pub fn unrouted(&self) -> Vec<&RequestRecord> {
        self.requests.iter().filter(|r| r.unrouted).collect()
    }

    /// The distinct operations (`operationId`s of GitHub's OpenAPI description) requested.
    pub fn operations(&self) -> BTreeSet<&str> {
        self.requests
            .iter()
            .filter_map(|r| r.operation.as_deref())
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Installation {
    pub id: u64,
    pub account: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Repo {
    pub id: u64,
    pub full_name: String,
    pub installation_id: u64,
    pub default_branch: String,
    pub bare_path: PathBuf,
}

/// An issue; every pull request is one too, with the same number.
#[derive(Clone, Debug, PartialEq)]
pub struct Issue {
    pub repo: String,
    pub number: u64,
    pub title: String,
    pub is_pull_request: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub id: u64,
    pub repo: String,
    pub issue: u64,
    pub user: String,
    /// `User` or `Bot`.
    pub user_type: String,
    pub author_association: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub edits: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reaction {
    pub id: u64,
    pub comment_id: u64,
    pub content: String,
    pub user: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PullRequest {
    pub id: u64,
    pub repo: String,
    pub number: u64,
    pub title: String,
    pub body: Option<String>,
    pub head_ref: String,
    /// Head commit when the pull request was created or last closed: an open pull request's
    /// responses read the branch live, a closed one no longer follows its branch (as on GitHub).
    pub head_sha: String,
    pub base_ref: String,
    /// `open` or `closed`.
    pub state: String,
    pub merged: bool,
    pub draft: bool,
    pub user: String,
    /// The installation token the pull request was created with.
    pub created_with_token: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CheckRun {
    pub id: u64,
    pub repo: String,
    pub name: String,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub details_url: Option<String>,
    pub external_id: Option<String>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub text: Option<String>,
    /// Annotations of every create and update, accumulated as GitHub does.
    pub annotations: Vec<Annotation>,
    pub actions: Vec<Action>,
    /// `(status, conclusion)` after the create and after each update.
    pub history: Vec<(String, Option<String>)>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Annotation {
    pub path: String,
    pub start_line: u64,
    pub end_line: u64,
    pub start_column: Option<u64>,
    pub end_column: Option<u64>,
    pub annotation_level: String,
    pub message: String,
    pub title: Option<String>,
    pub raw_details: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Action {
    pub label: String,
    pub description: String,
    pub identifier: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IssuedToken {
    pub token: String,
    pub installation_id: u64,
    /// Full names of the repositories the token is limited to; `None` for all of the installation's.
    pub repositories: Option<Vec<String>>,
    pub expires_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RequestRecord {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub status: u16,
    pub auth: AuthKind,
    /// No route matched (answered 404 by the catch-all).
    pub unrouted: bool,
    /// The `operationId` GitHub's OpenAPI description names for the request, if any.
    pub operation: Option<String>,
}

/// The credentials a request carried, as the fake judged them.
#[derive(Clone, Debug, PartialEq)]
pub enum AuthKind {
    None,
    AppJwt,
    /// A valid installation token of this installation.
    Installation(u64),
    /// Credentials that were refused (401).
    Invalid,
}

/// A running fake; the server stops when this is dropped.
pub struct FakeGitHub {
    /// `http://127.0.0.1:PORT`, the `base_uri` for octocrab.
    pub url: String,
    shared: Arc<Shared>,
    server: tokio::task::JoinHandle<()>,
}

/// Stops the server and fails the test that made requests or got answers GitHub's OpenAPI
/// description refuses (unless it is failing already), naming each.
impl Drop for FakeGitHub {
    fn drop(&mut self) {
        self.server.abort();
        record_exercised_operations();
        let violations = std::mem::take(&mut self.shared.lock().state.violations);
        if !violations.is_empty() && !std::thread::panicking() {
            panic!(
                "the fake GitHub saw {} request(s) or answer(s) that break GitHub's OpenAPI description:\n{}",
                violations.len(),
                violations.join("\n")
            );
        }
    }
}

/// Writes the operations every fake of this test process was asked for to
/// `$CARGO_TARGET_TMPDIR/github-operations-<test binary>.txt`, one `operationId` a line, so a
/// run of a test suite can be counted.
fn record_exercised_operations() {
    let exe = std::env::current_exe().expect("test binary");
    let stem = exe.file_stem().and_then(|s| s.to_str()).unwrap_or("tests");
    let binary = stem.rsplit_once('-').map_or(stem, |(name, _)| name);
    let operations: Vec<String> = openapi::description().exercised().into_iter().collect();
    let file =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("github-operations-{binary}.txt"));
    // Best effort: the count is a report, not a check.
    let _ = std::fs::write(file, operations.join("\n") + "\n");
}

impl FakeGitHub {
    /// Starts serving on a random port of 127.0.0.1, for App `app_id` whose JWTs verify with
    /// `public_key_pem` (PEM, PKCS#1 or SPKI).
    pub async fn start(app_id: u64, app_slug: &str, public_key_pem: &[u8]) -> FakeGitHub {
        // Every fake is checked against the description: a missing one fails here, first.
        tokio::task::spawn_blocking(openapi::description)
            .await
            .expect("GitHub's OpenAPI description loads");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let shared = Arc::new(Shared {
            url: url.clone(),
            app_id,
            slug: app_slug.to_owned(),
            key: DecodingKey::from_rsa_pem(public_key_pem).expect("RSA public key PEM"),
            dir: tempfile::tempdir().expect("tempdir"),
            reset_at: (Utc::now() + Duration::hours(1)).timestamp(),
            inner: Mutex::default(),
        });
        let router = routes()
            .with_state(shared.clone())
            .layer(middleware::from_fn_with_state(shared.clone(), gate));
        let server = tokio::spawn(async move {
            axum::serve(listener, router)
                .await
                .expect("fake GitHub serves");
        });
        FakeGitHub {
            url,
            shared,
            server,
        }
    }

    /// Lets apps be created from a manifest; each is this fake's app (its id and slug) and
    /// gets `private_key_pem`, which should match the public key [`FakeGitHub::start`] took.
    pub fn accept_manifests(&self, private_key_pem: &str) {
        self.shared.lock().manifest_key = Some(private_key_pem.to_owned());
    }

    /// `login` of the App's bot user: `<slug>[bot]`.
    pub fn bot_login(&self) -> String {
        self.shared.bot()
    }

    pub fn add_installation(&self, installation_id: u64, account: &str) {
        self.shared.lock().state.installations.push(Installation {
            id: installation_id,
            account: account.to_owned(),
        });
    }

    /// Creates a bare git repository (in a tempdir owned by the fake) whose default branch `main`
    /// holds one commit with all files of `source_dir` (recursively, skipping `target/` and `.git/`).
    /// Returns the bare repository's path.
    pub fn add_repo(&self, installation_id: u64, full_name: &str, source_dir: &Path) -> PathBuf {
        split_full_name(full_name);
        let bare_path = self.shared.dir.path().join(format!("{full_name}.git"));
        let git = git2::Repository::init_opts(
            &bare_path,
            git2::RepositoryInitOptions::new()
                .bare(true)
                .initial_head("main"),
        )
        .expect("init bare repository");
        let tree = write_tree(&git, source_dir);
        let tree = git.find_tree(tree).expect("tree just written");
        let sig =
            git2::Signature::now("Fake GitHub", "fake-github@example.invalid").expect("signature");
        git.commit(
            Some("refs/heads/main"),
            &sig,
            &sig,
            "Initial commit",
            &tree,
            &[],
        )
        .expect("initial commit");

        let mut inner = self.shared.lock();
        assert!(
            inner
                .state
                .installations
                .iter()
                .any(|i| i.id == installation_id),
            "add_installation({installation_id}, ..) must come before add_repo"
        );
        inner.state.repos.push(Repo {
            id: repo_id(full_name),
            full_name: full_name.to_owned(),
            installation_id,
            default_branch: "main".to_owned(),
            bare_path: bare_path.clone(),
        });
        bare_path
    }

    /// Adds open issue `number`; issues and pull requests share one numbering per repository.
    pub fn add_issue(&self, full_name: &str, number: u64, title: &str) {
        let mut inner = self.shared.lock();
        assert!(
            !inner
                .state
                .issues
                .iter()
                .any(|i| i.repo == full_name && i.number == number),
            "{full_name}#{number} exists already"
        );
        inner.state.issues.push(Issue {
            repo: full_name.to_owned(),
            number,
            title: title.to_owned(),
            is_pull_request: false,
        });
    }

    /// Gives `user` `role` (`admin|maintain|write|triage|read|none` or a custom role added
    /// before) on `full_name`; users never given one have `none`.
    pub fn set_permission(&self, full_name: &str, user: &str, role: &str) {
        let mut inner = self.shared.lock();
        assert!(
            ROLES.contains(&role) || inner.state.custom_roles.contains_key(role),
            "unknown role {role:?}"
        );
        inner
            .state
            .permissions
            .insert((full_name.to_owned(), user.to_owned()), role.to_owned());
    }

    /// Adds a custom repository role `name` that extends `base` (`read|triage|write|maintain`,
    /// as GitHub allows).
    pub fn add_custom_role(&self, name: &str, base: &str) {
        assert!(
            ["read", "triage", "write", "maintain"].contains(&base),
            "a custom role cannot extend {base:?}"
        );
        self.shared
            .lock()
            .state
            .custom_roles
            .insert(name.to_owned(), base.to_owned());
    }

    /// Adds a comment written by human `user` and returns its id.
    pub fn add_comment(&self, full_name: &str, issue: u64, user: &str, body: &str) -> u64 {
        let mut inner = self.shared.lock();
        assert!(
            inner.issue_exists(full_name, issue),
            "{full_name}#{issue} does not exist"
        );
        let association = match inner.role(full_name, user) {
            "none" => "NONE",
            _ => "COLLABORATOR",
        };
        inner
            .add_comment(full_name, issue, user, "User", association, body)
            .id
    }

    /// Adds a comment written by the App's own bot user (as when it replies) and returns its id.
    pub fn add_bot_comment(&self, full_name: &str, issue: u64, body: &str) -> u64 {
        let bot = self.bot_login();
        let mut inner = self.shared.lock();
        assert!(
            inner.issue_exists(full_name, issue),
            "{full_name}#{issue} does not exist"
        );
        inner
            .add_comment(full_name, issue, &bot, "Bot", "NONE", body)
            .id
    }

    /// A person edits comment `id`: its body becomes `body`.
    pub fn edit_comment(&self, id: u64, body: &str) {
        let mut inner = self.shared.lock();
        let comment = inner
            .state
            .comments
            .iter_mut()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no comment {id}"));
        comment.body = body.to_owned();
        comment.updated_at = Utc::now();
        comment.edits += 1;
    }

    /// Closes pull request `number`, as merged or not (the branches are left as they are).
    pub fn close_pull(&self, full_name: &str, number: u64, merged: bool) {
        let mut inner = self.shared.lock();
        let bare = inner.repo_named(full_name).map(|r| r.bare_path);
        let pr = inner
            .state
            .pulls
            .iter_mut()
            .find(|p| p.repo == full_name && p.number == number)
            .unwrap_or_else(|| panic!("no pull request {full_name}#{number}"));
        if let Some(sha) = bare.and_then(|b| branch_sha(&b, &pr.head_ref)) {
            pr.head_sha = sha;
        }
        pr.state = "closed".to_owned();
        pr.merged = merged;
        pr.updated_at = Utc::now();
    }

    /// The commit that branch `branch` of `full_name` points to, if the branch exists.
    pub fn branch_sha(&self, full_name: &str, branch: &str) -> Option<String> {
        let repo = self.shared.lock().repo_named(full_name)?;
        branch_sha(&repo.bare_path, branch)
    }

    /// Makes every installation token issued so far expired.
    pub fn expire_tokens(&self) {
        let past = Utc::now() - Duration::seconds(1);
        for token in &mut self.shared.lock().state.tokens {
            token.expires_at = past;
        }
    }

    /// The next `n` authenticated requests (except installation token creation) are answered
    /// 403 with a secondary rate limit message, with `retry-after: retry_after_secs` when given
    /// (GitHub names it only sometimes).
    pub fn throttle_next(&self, n: usize, retry_after_secs: Option<u64>) {
        let mut inner = self.shared.lock();
        inner.throttle = n;
        inner.limit = Limit::Secondary(retry_after_secs);
    }

    /// The next `n` authenticated requests (except installation token creation) find the
    /// primary rate limit spent: 403, `x-ratelimit-remaining: 0` and a reset `reset_in_secs`
    /// from now.
    pub fn exhaust_next(&self, n: usize, reset_in_secs: i64) {
        let mut inner = self.shared.lock();
        inner.throttle = n;
        inner.limit = Limit::Primary((Utc::now() + Duration::seconds(reset_in_secs)).timestamp());
    }

    /// The next `method` request whose path ends with `path_suffix` is carried out, then
    /// answered `status` (a 502 from GitHub's edge says nothing of whether the write landed:
    /// the worst case is that it did).
    pub fn fail_after_next(&self, method: &str, path_suffix: &str, status: u16) {
        self.shared.lock().faults.push(Fault {
            method: method.parse().expect("an HTTP method"),
            path_suffix: path_suffix.to_owned(),
            status: StatusCode::from_u16(status).expect("an HTTP status"),
        });
    }

    /// Renames repository `old` to `new` (same owner or not), as GitHub does: the id, contents
    /// and token scopes stay, and requests under the old name are redirected to the new one
    /// (301 for GET, 307 for other methods, which must be repeated verbatim).
    pub fn rename_repo(&self, old: &str, new: &str) {
        split_full_name(new);
        let mut inner = self.shared.lock();
        let repo = inner
            .state
            .repos
            .iter_mut()
            .find(|r| r.full_name == old)
            .unwrap_or_else(|| panic!("no repository {old}"));
        repo.full_name = new.to_owned();
        let state = &mut inner.state;
        let names = state
            .tokens
            .iter_mut()
            .filter_map(|t| t.repositories.as_mut())
            .flatten()
            .chain(state.issues.iter_mut().map(|i| &mut i.repo))
            .chain(state.comments.iter_mut().map(|c| &mut c.repo))
            .chain(state.pulls.iter_mut().map(|p| &mut p.repo))
            .chain(state.check_runs.iter_mut().map(|c| &mut c.repo));
        for name in names.filter(|n| *n == old) {
            *name = new.to_owned();
        }
        state.permissions = std::mem::take(&mut state.permissions)
            .into_iter()
            .map(|((repo, user), role)| {
                let repo = if repo == old { new.to_owned() } else { repo };
                ((repo, user), role)
            })
            .collect();
        inner.renamed.push((old.to_owned(), new.to_owned()));
    }

    /// A copy of everything the fake holds and has seen.
    pub fn state(&self) -> State {
        self.shared.lock().state.clone()
    }

    /// The violations of GitHub's OpenAPI description seen so far, which no longer fail the
    /// test: for tests that break the description on purpose.
    pub fn take_violations(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.lock().state.violations)
    }
}

struct Shared {
    url: String,
    app_id: u64,
    slug: String,
    key: DecodingKey,
    dir: tempfile::TempDir,
    reset_at: i64,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    state: State,
    next_id: u64,
    throttle: usize,
    limit: Limit,
    /// Renamed repositories: (old full name, new full name).
    renamed: Vec<(String, String)>,
    /// Requests made per credential, for the `x-ratelimit-*` headers.
    used: HashMap<String, u64>,
    /// Failures to answer once (see [`FakeGitHub::fail_after_next`]).
    faults: Vec<Fault>,
    /// The private key an app created from a manifest gets (its `pem`).
    manifest_key: Option<String>,
}

struct Fault {
    method: Method,
    path_suffix: String,
    status: StatusCode,
}

/// The rate limit throttled requests are answered with.
#[derive(Clone, Copy, Debug)]
enum Limit {
    /// A secondary limit, with its `retry-after` seconds if any.
    Secondary(Option<u64>),
    /// The primary limit spent until this reset time (seconds since the epoch).
    Primary(i64),
}

impl Default for Limit {
    fn default() -> Self {
        Limit::Secondary(None)
    }
}

/// An installation token that authenticated the request, as a request extension.
#[derive(Clone)]
struct Token {
    token: String,
    installation_id: u64,
    repositories: Option<Vec<String>>,
}

/// Marks a response to a request that found the primary rate limit spent, with its reset.
#[derive(Clone, Copy)]
struct Spent(i64);

/// Marks the catch-all's responses, so the request log can tell them apart.
#[derive(Clone)]
struct Unrouted;

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bot(&self) -> String {
        format!("{}[bot]", self.slug)
    }

    fn user(&self, login: &str, kind: &str) -> Value {
        payloads::user(&self.url, login, kind)
    }

    /// Checks a request's credentials; returns how it was authenticated and its rate-limit key.
    fn authenticate(
        &self,
        path: &str,
        headers: &HeaderMap,
    ) -> Result<(AuthKind, String), ApiError> {
        let credentials = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .map(|(scheme, value)| (scheme.to_ascii_lowercase(), value.trim().to_owned()));
        if path == "/app" || path.starts_with("/app/") {
            return match credentials {
                Some((scheme, jwt)) if scheme == "bearer" => match self.verify_jwt(&jwt) {
                    Ok(()) => Ok((AuthKind::AppJwt, "app".to_owned())),
                    Err(message) => Err(ApiError::new(StatusCode::UNAUTHORIZED, message)),
                },
                _ => Err(ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "A JSON web token could not be decoded",
                )),
            };
        }
        if !path.starts_with("/repos/") {
            return Ok((AuthKind::None, "anonymous".to_owned()));
        }
        let Some((scheme, token)) = credentials else {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "Requires authentication",
            ));
        };
        let inner = self.lock();
        let now = Utc::now();
        match inner.state.tokens.iter().find(|t| t.token == token) {
            Some(t) if (scheme == "bearer" || scheme == "token") && t.expires_at > now => {
                Ok((AuthKind::Installation(t.installation_id), token))
            }
            _ => Err(ApiError::new(StatusCode::UNAUTHORIZED, "Bad credentials")),
        }
    }

    fn verify_jwt(&self, jwt: &str) -> Result<(), &'static str> {
        #[derive(Deserialize)]
        struct Claims {
            iss: Value,
            iat: i64,
            exp: i64,
        }
        const UNDECODABLE: &str = "A JSON web token could not be decoded";
        let mut validation = Validation::new(Algorithm::RS256);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let claims = decode::<Claims>(jwt, &self.key, &validation)
            .map_err(|_| UNDECODABLE)?
            .claims;
        let issuer_matches = match &claims.iss {
            Value::Number(n) => n.as_u64() == Some(self.app_id),
            Value::String(s) => s.parse::<u64>().ok() == Some(self.app_id),
            _ => false,
        };
        let now = Utc::now().timestamp();
        if !issuer_matches {
            Err(UNDECODABLE)
        } else if claims.iat > now + 60 {
            Err(
                "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
            )
        } else if claims.exp - claims.iat > 600 {
            Err("'Expiration time' claim ('exp') is too far in the future")
        } else if claims.exp <= now {
            Err(
                "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
            )
        } else {
            Ok(())
        }
    }

    /// GitHub's answer to a request under a renamed repository's old name: a redirect to the
    /// same path under the new name.
    fn redirect(&self, method: &Method, path: &str, query: Option<&str>) -> Option<Response> {
        let rest = path.strip_prefix("/repos/")?;
        let mut parts = rest.splitn(3, '/');
        let (owner, name) = (parts.next()?, parts.next()?);
        let tail = parts.next().map_or(String::new(), |t| format!("/{t}"));
        let old = format!("{owner}/{name}");
        let inner = self.lock();
        if inner.repo_named(&old).is_some() {
            return None;
        }
        let new = inner
            .renamed
            .iter()
            .rev()
            .find(|(from, _)| from.eq_ignore_ascii_case(&old))
            .map(|(_, to)| to.clone())?;
        let query = query.map_or(String::new(), |q| format!("?{q}"));
        let location = format!("{}/repos/{new}{tail}{query}", self.url);
        let status = if method == Method::GET {
            StatusCode::MOVED_PERMANENTLY
        } else {
            StatusCode::TEMPORARY_REDIRECT
        };
        let message = status.canonical_reason().unwrap_or("Moved Permanently");
        let mut response = ApiError::new(status, message).into_response();
        response.headers_mut().insert(
            header::LOCATION,
            HeaderValue::from_str(&location).expect("ASCII location"),
        );
        Some(response)
    }

    /// The repository `owner/name` if `token` may see it, else GitHub's 404.
    fn repo(&self, token: &Token, owner: &str, name: &str) -> Result<Repo, ApiError> {
        let full_name = format!("{owner}/{name}");
        self.lock()
            .repo_named(&full_name)
            .filter(|r| {
                r.installation_id == token.installation_id
                    && token
                        .repositories
                        .as_ref()
                        .is_none_or(|scope| scope.contains(&r.full_name))
            })
            .ok_or_else(ApiError::not_found)
    }

    fn repo_json(&self, repo: &Repo) -> Value {
        let mut value = payloads::repository(&self.url, &repo.full_name, &repo.default_branch);
        value["id"] = json!(repo.id);
        value["clone_url"] = json!(format!("file://{}", repo.bare_path.display()));
        value["permissions"] =
            json!({"admin": false, "maintain": false, "push": true, "triage": true, "pull": true});
        value["network_count"] = json!(0);
        value["subscribers_count"] = json!(0);
        value
    }

    fn app_json(&self) -> Value {
        json!({
            "id": self.app_id,
            "slug": self.slug,
            "node_id": format!("A_{}", self.app_id),
            "client_id": format!("Iv1.fake{}", self.app_id),
            "owner": self.user("uplift-dev", "Organization"),
            "name": self.slug,
            "description": "",
            "external_url": "https://uplift.example.invalid",
            "html_url": format!("https://github.com/apps/{}", self.slug),
            "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2020-01-01T00:00:00Z",
            "permissions": installation_permissions(),
            "events": ["check_run", "issue_comment", "pull_request", "push"],
        })
    }

    fn installation_json(&self, installation: &Installation) -> Value {
        let account = self.user(&installation.account, "Organization");
        json!({
            "id": installation.id,
            "account": account,
            "access_tokens_url": format!("{}/app/installations/{}/access_tokens", self.url, installation.id),
            "repositories_url": format!("{}/installation/repositories", self.url),
            "html_url": format!("https://github.com/organizations/{}/settings/installations/{}", installation.account, installation.id),
            "app_id": self.app_id,
            "app_slug": self.slug,
            "target_id": account["id"],
            "target_type": "Organization",
            "permissions": installation_permissions(),
            "events": ["check_run", "issue_comment", "pull_request", "push"],
            "repository_selection": "selected",
            "single_file_name": null,
            "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2020-01-01T00:00:00Z",
        })
    }

    fn comment_json(&self, comment: &Comment, is_pull_request: bool) -> Value {
        let api = format!("{}/repos/{}", self.url, comment.repo);
        let kind = if is_pull_request { "pull" } else { "issues" };
        json!({
            "id": comment.id,
            "node_id": format!("IC_{}", comment.id),
            "url": format!("{api}/issues/comments/{}", comment.id),
            "html_url": format!("https://github.com/{}/{kind}/{}#issuecomment-{}", comment.repo, comment.issue, comment.id),
            "issue_url": format!("{api}/issues/{}", comment.issue),
            "body": comment.body,
            "user": self.user(&comment.user, &comment.user_type),
            "created_at": timestamp(comment.created_at),
            "updated_at": timestamp(comment.updated_at),
            "author_association": comment.author_association,
            "performed_via_github_app": null,
        })
    }

    fn reaction_json(&self, reaction: &Reaction) -> Value {
        json!({
            "id": reaction.id,
            "node_id": format!("REA_{}", reaction.id),
            "user": self.user(&reaction.user, "Bot"),
            "content": reaction.content,
            "created_at": timestamp(Utc::now()),
        })
    }

    fn pull_json(&self, pr: &PullRequest, repo: &Repo, comments: usize) -> Value {
        let (owner, _) = split_full_name(&repo.full_name);
        let api = format!("{}/repos/{}", self.url, repo.full_name);
        let html = format!("https://github.com/{}/pull/{}", repo.full_name, pr.number);
        let live = (pr.state == "open")
            .then(|| branch_sha(&repo.bare_path, &pr.head_ref))
            .flatten();
        let head_sha = live.unwrap_or(pr.head_sha.clone());
        let base_sha = branch_sha(&repo.bare_path, &pr.base_ref).unwrap_or_default();
        let repo_json = self.repo_json(repo);
        let side = |branch: &str, sha: &str| {
            json!({
                "label": format!("{owner}:{branch}"),
                "ref": branch,
                "sha": sha,
                "user": self.user(owner, "Organization"),
                "repo": repo_json.clone(),
            })
        };
        let link = |href: String| json!({ "href": href });
        let links = json!({
            "self": link(format!("{api}/pulls/{}", pr.number)),
            "html": link(html.clone()),
            "issue": link(format!("{api}/issues/{}", pr.number)),
            "comments": link(format!("{api}/issues/{}/comments", pr.number)),
            "review_comments": link(format!("{api}/pulls/{}/comments", pr.number)),
            "review_comment": link(format!("{api}/pulls/comments{{/number}}")),
            "commits": link(format!("{api}/pulls/{}/commits", pr.number)),
            "statuses": link(format!("{api}/statuses/{head_sha}")),
        });
        let closed_at = (pr.state == "closed").then(|| timestamp(pr.updated_at));
        let mut value = json!({
            "url": format!("{api}/pulls/{}", pr.number),
            "id": pr.id,
            "node_id": format!("PR_{}", pr.id),
            "html_url": html,
            "diff_url": format!("{html}.diff"),
            "patch_url": format!("{html}.patch"),
            "issue_url": format!("{api}/issues/{}", pr.number),
            "commits_url": format!("{api}/pulls/{}/commits", pr.number),
            "review_comments_url": format!("{api}/pulls/{}/comments", pr.number),
            "review_comment_url": format!("{api}/pulls/comments{{/number}}"),
            "comments_url": format!("{api}/issues/{}/comments", pr.number),
            "statuses_url": format!("{api}/statuses/{head_sha}"),
            "number": pr.number,
            "state": pr.state,
            "locked": false,
            "title": pr.title,
            "user": self.user(&pr.user, "Bot"),
            "body": pr.body,
            "created_at": timestamp(pr.created_at),
            "updated_at": timestamp(pr.updated_at),
            "closed_at": closed_at,
            "merged_at": if pr.merged { closed_at.clone() } else { None },
            "head": side(&pr.head_ref, &head_sha),
            "base": side(&pr.base_ref, &base_sha),
            "_links": links,
        });
        let rest = json!({
            "labels": [],
            "milestone": null,
            "active_lock_reason": null,
            "merge_commit_sha": null,
            "assignee": null,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "author_association": "NONE",
            "auto_merge": null,
            "draft": pr.draft,
            "merged": pr.merged,
            "mergeable": null,
            "rebaseable": null,
            "mergeable_state": "unknown",
            "merged_by": null,
            "comments": comments,
            "review_comments": 0,
            "maintainer_can_modify": false,
            "commits": ahead_of(&repo.bare_path, &pr.head_ref, &pr.base_ref),
            "additions": 0,
            "deletions": 0,
            "changed_files": 0,
        });
        merge(&mut value, rest);
        value
    }

    fn check_run_json(&self, run: &CheckRun) -> Value {
        let url = format!("{}/repos/{}/check-runs/{}", self.url, run.repo, run.id);
        let suite = payloads::stable_id(&format!("suite:{}@{}", run.repo, run.head_sha));
        json!({
            "id": run.id,
            "node_id": format!("CR_{}", run.id),
            "name": run.name,
            "head_sha": run.head_sha,
            "external_id": run.external_id,
            "url": url,
            "html_url": format!("https://github.com/{}/runs/{}", run.repo, run.id),
            "details_url": run.details_url,
            "status": run.status,
            "conclusion": run.conclusion,
            "started_at": run.started_at.map(timestamp),
            "completed_at": run.completed_at.map(timestamp),
            "output": {
                "title": run.title,
                "summary": run.summary,
                "text": run.text,
                "annotations_count": run.annotations.len(),
                "annotations_url": format!("{url}/annotations"),
            },
            "check_suite": { "id": suite },
            "app": self.app_json(),
            "pull_requests": [],
        })
    }
}

impl Inner {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        1000 + self.next_id
    }

    fn repo_named(&self, full_name: &str) -> Option<Repo> {
        self.state
            .repos
            .iter()
            .find(|r| r.full_name.eq_ignore_ascii_case(full_name))
            .cloned()
    }

    fn issue(&self, repo: &str, number: u64) -> Option<&Issue> {
        self.state
            .issues
            .iter()
            .find(|i| i.repo == repo && i.number == number)
    }

    fn issue_exists(&self, repo: &str, number: u64) -> bool {
        self.issue(repo, number).is_some()
    }

    fn role(&self, repo: &str, user: &str) -> &str {
        self.state
            .permissions
            .get(&(repo.to_owned(), user.to_owned()))
            .map_or("none", String::as_str)
    }

    fn add_comment(
        &mut self,
        repo: &str,
        issue: u64,
        user: &str,
        user_type: &str,
        association: &str,
        body: &str,
    ) -> Comment {
        let now = Utc::now();
        let comment = Comment {
            id: self.next_id(),
            repo: repo.to_owned(),
            issue,
            user: user.to_owned(),
            user_type: user_type.to_owned(),
            author_association: association.to_owned(),
            body: body.to_owned(),
            created_at: now,
            updated_at: now,
            edits: 0,
        };
        self.state.comments.push(comment.clone());
        comment
    }
}

/// An error answer in GitHub's shape: `{"message", "errors"?, "documentation_url", "status"}`.
struct ApiError {
    status: StatusCode,
    message: String,
    errors: Vec<Value>,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            errors: Vec::new(),
        }
    }

    fn not_found() -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "Not Found")
    }

    /// 422 with a plain message, as GitHub answers schema violations.
    fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// 422 `Validation Failed` with one error object.
    fn validation(
        resource: &str,
        field: Option<&str>,
        code: &str,
        message: Option<&str>,
    ) -> ApiError {
        let mut error = json!({ "resource": resource, "code": code });
        if let Some(field) = field {
            error["field"] = json!(field);
        }
        if let Some(message) = message {
            error["message"] = json!(message);
        }
        ApiError {
            errors: vec![error],
            ..ApiError::invalid("Validation Failed")
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({
            "message": self.message,
            "documentation_url": DOCS,
            "status": self.status.as_u16().to_string(),
        });
        if !self.errors.is_empty() {
            body["errors"] = Value::Array(self.errors);
        }
        (self.status, Json(body)).into_response()
    }
}

type Answer = Result<Response, ApiError>;

fn reply(status: StatusCode, body: Value) -> Answer {
    Ok((status, Json(body)).into_response())
}

/// Parses a JSON request body: 400 if it is not JSON, 422 if it does not fit the schema.
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    let value: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(body)
            .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "Problems parsing JSON"))?
    };
    serde_json::from_value(value).map_err(|e| ApiError::invalid(format!("Invalid request.\n\n{e}")))
}

fn parse_id(segment: &str) -> Result<u64, ApiError> {
    segment.parse().map_err(|_| ApiError::not_found())
}

fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn installation_permissions() -> Value {
    json!({
        "checks": "write",
        "contents": "write",
        "issues": "write",
        "metadata": "read",
        "pull_requests": "write",
    })
}

/// The served routes: only operations GitHub's OpenAPI description has (an update is a
/// PATCH; octocrab's `update_comment` POSTs, which the description does not name).
fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/app", get(get_app))
        .route(
            "/app/installations/{installation_id}",
            get(get_installation),
        )
        .route(
            "/app/installations/{installation_id}/access_tokens",
            post(create_token),
        )
        .route("/repos/{owner}/{repo}", get(get_repo))
        .route(
            "/repos/{owner}/{repo}/collaborators/{username}/permission",
            get(get_permission),
        )
        .route("/repos/{owner}/{repo}/contents/{*path}", get(get_contents))
        .route(
            "/repos/{owner}/{repo}/issues/comments/{comment_id}",
            get(get_comment).patch(update_comment),
        )
        .route(
            "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
            post(create_reaction),
        )
        .route(
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            get(list_comments).post(create_comment),
        )
        .route(
            "/repos/{owner}/{repo}/pulls",
            get(list_pulls).post(create_pull),
        )
        .route(
            "/repos/{owner}/{repo}/pulls/{pull_number}",
            get(get_pull).patch(update_pull),
        )
        .route("/repos/{owner}/{repo}/check-runs", post(create_check_run))
        .route(
            "/repos/{owner}/{repo}/check-runs/{check_run_id}",
            get(get_check_run).patch(update_check_run),
        )
        .merge(manifest_flow::routes())
        .fallback(unrouted)
        .method_not_allowed_fallback(unrouted)
}

/// Authenticates, throttles, counts and logs every request, and adds GitHub's common headers.
async fn gate(Fake(fake): Fake<Arc<Shared>>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query = request.uri().query().map(str::to_owned);
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let description = openapi::description();
    // The fake also plays github.com's web pages of the manifest flow, which are no REST
    // API, and serves the API under GitHub Enterprise Server's `/api/v3` prefix too.
    let check = (!manifest_flow::is_web_page(&path)).then(|| {
        let api_path = path.strip_prefix("/api/v3").unwrap_or(&path);
        description.check_request(method.as_str(), api_path, query.as_deref(), &body)
    });
    let mut request = Request::from_parts(parts, Body::from(body));
    let (auth, rate_key, early) = match fake.authenticate(&path, request.headers()) {
        Ok((auth, key)) => (auth, key, None),
        Err(error) => (
            AuthKind::Invalid,
            "invalid".to_owned(),
            Some(error.into_response()),
        ),
    };
    let early = early.or_else(|| {
        let throttled = path.starts_with("/repos/")
            || (path.starts_with("/app") && !path.ends_with("/access_tokens"));
        let mut inner = fake.lock();
        if !throttled || inner.throttle == 0 {
            return None;
        }
        inner.throttle -= 1;
        inner.state.rate_limited += 1;
        Some(match inner.limit {
            Limit::Secondary(retry_after) => {
                let mut response = ApiError::new(
                    StatusCode::FORBIDDEN,
                    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                )
                .into_response();
                if let Some(secs) = retry_after {
                    response
                        .headers_mut()
                        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
                }
                response
            }
            Limit::Primary(reset) => {
                let mut response = ApiError::new(
                    StatusCode::FORBIDDEN,
                    "API rate limit exceeded for installation.",
                )
                .into_response();
                response.extensions_mut().insert(Spent(reset));
                response
            }
        })
    });
    let early = early.or_else(|| fake.redirect(&method, &path, query.as_deref()));
    if let AuthKind::Installation(installation_id) = auth {
        let repositories = fake
            .lock()
            .state
            .tokens
            .iter()
            .find(|t| t.token == rate_key)
            .and_then(|t| t.repositories.clone());
        request.extensions_mut().insert(Token {
            token: rate_key.clone(),
            installation_id,
            repositories,
        });
    }
    let response = match early {
        Some(response) => response,
        None => next.run(request).await,
    };
    let (parts, body) = response.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let mut violations = Vec::new();
    if let Some(check) = &check {
        violations.extend(check.violations.iter().cloned());
        violations.extend(description.check_response(check, parts.status.as_u16(), &body));
    }
    let mut response = Response::from_parts(parts, Body::from(body));

    let mut inner = fake.lock();
    if let Some(i) = inner
        .faults
        .iter()
        .position(|f| f.method == method && path.ends_with(&f.path_suffix))
    {
        let fault = inner.faults.remove(i);
        response = ApiError::new(fault.status, "Server Error").into_response();
    }
    let used = inner.used.entry(rate_key).or_default();
    *used += 1;
    let used = *used;
    let spent = response.extensions().get::<Spent>().map(|s| s.0);
    let headers = response.headers_mut();
    headers.insert("x-ratelimit-limit", HeaderValue::from(RATE_LIMIT));
    headers.insert(
        "x-ratelimit-remaining",
        HeaderValue::from(spent.map_or(RATE_LIMIT.saturating_sub(used), |_| 0)),
    );
    headers.insert(
        "x-ratelimit-reset",
        HeaderValue::from(spent.unwrap_or(fake.reset_at)),
    );
    headers.insert("x-ratelimit-used", HeaderValue::from(used));
    headers.insert("x-ratelimit-resource", HeaderValue::from_static("core"));
    let request_id = format!("FAKE:{:08X}", inner.state.requests.len() + 1);
    headers.insert(
        "x-github-request-id",
        HeaderValue::from_str(&request_id).expect("ASCII"),
    );
    headers.insert(
        "x-github-api-version-selected",
        HeaderValue::from_static("2022-11-28"),
    );
    let unrouted = response.extensions().get::<Unrouted>().is_some();
    for violation in &violations {
        eprintln!("fake GitHub: not as GitHub's OpenAPI description says: {violation}");
    }
    inner.state.violations.extend(violations);
    inner.state.requests.push(RequestRecord {
        method: method.to_string(),
        path,
        query,
        status: response.status().as_u16(),
        auth,
        unrouted,
        operation: check.and_then(|c| c.operation),
    });
    response
}

async fn unrouted() -> Response {
    let mut response = ApiError::not_found().into_response();
    response.extensions_mut().insert(Unrouted);
    response
}

async fn get_app(Fake(fake): Fake<Arc<Shared>>) -> Answer {
    let mut app = fake.app_json();
    app["installations_count"] = json!(fake.lock().state.installations.len());
    reply(StatusCode::OK, app)
}

async fn get_installation(
    Fake(fake): Fake<Arc<Shared>>,
    UrlPath(installation_id): UrlPath<String>,
) -> Answer {
    let id = parse_id(&installation_id)?;
    let installation = fake
        .lock()
        .state
        .installations
        .iter()
        .find(|i| i.id == id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    reply(StatusCode::OK, fake.installation_json(&installation))
}

async fn create_token(
    Fake(fake): Fake<Arc<Shared>>,
    UrlPath(installation_id): UrlPath<String>,
    body: Bytes,
) -> Answer {
    #[derive(Deserialize)]
    struct Body {
        repositories: Option<Vec<String>>,
        repository_ids: Option<Vec<u64>>,
    }
    let installation_id = parse_id(&installation_id)?;
    let body: Body = parse(&body)?;
    let mut inner = fake.lock();
    if !inner
        .state
        .installations
        .iter()
        .any(|i| i.id == installation_id)
    {
        return Err(ApiError::not_found());
    }
    let installed: Vec<Repo> = inner
        .state
        .repos
        .iter()
        .filter(|r| r.installation_id == installation_id)
        .cloned()
        .collect();
    let names = body.repositories.unwrap_or_default();
    let ids = body.repository_ids.unwrap_or_default();
    let scope = if names.is_empty() && ids.is_empty() {
        None
    } else {
        let inaccessible = || {
            ApiError::invalid(
                "There is at least one repository that does not exist or is not accessible to the parent installation.",
            )
        };
        let mut selected = Vec::new();
        for name in &names {
            let repo = installed
                .iter()
                .find(|r| split_full_name(&r.full_name).1.eq_ignore_ascii_case(name))
                .ok_or_else(inaccessible)?;
            selected.push(repo.clone());
        }
        for id in &ids {
            selected.push(
                installed
                    .iter()
                    .find(|r| r.id == *id)
                    .ok_or_else(inaccessible)?
                    .clone(),
            );
        }
        selected.sort_by(|a, b| a.full_name.cmp(&b.full_name));
        selected.dedup_by(|a, b| a.full_name == b.full_name);
        Some(selected)
    };
    let token = format!("ghs_{}", uuid::Uuid::new_v4().simple());
    let expires_at = Utc::now() + Duration::hours(1);
    inner.state.tokens.push(IssuedToken {
        token: token.clone(),
        installation_id,
        repositories: scope
            .as_ref()
            .map(|repos| repos.iter().map(|r| r.full_name.clone()).collect()),
        expires_at,
    });
    drop(inner);
    let mut body = json!({
        "token": token,
        "expires_at": timestamp(expires_at),
        "permissions": installation_permissions(),
        "repository_selection": if scope.is_some() { "selected" } else { "all" },
    });
    if let Some(repos) = scope {
        body["repositories"] = repos.iter().map(|r| fake.repo_json(r)).collect();
    }
    reply(StatusCode::CREATED, body)
}

async fn get_repo(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name)): UrlPath<(String, String)>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    reply(StatusCode::OK, fake.repo_json(&repo))
}

async fn get_permission(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, username)): UrlPath<(String, String, String)>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let (role, base) = {
        let inner = fake.lock();
        let role = inner.role(&repo.full_name, &username).to_owned();
        let base = inner.state.custom_roles.get(&role).cloned();
        (role.clone(), base.unwrap_or(role))
    };
    // `permission` is the base level: maintain reads as write, triage as read, and a custom
    // role as the role it extends; `role_name` is the role itself.
    let permission = match base.as_str() {
        "maintain" => "write",
        "triage" => "read",
        other => other,
    };
    let at_least = |roles: &[&str]| roles.contains(&base.as_str());
    let mut user = fake.user(&username, "User");
    user["permissions"] = json!({
        "admin": at_least(&["admin"]),
        "maintain": at_least(&["admin", "maintain"]),
        "push": at_least(&["admin", "maintain", "write"]),
        "triage": at_least(&["admin", "maintain", "write", "triage"]),
        "pull": at_least(&["admin", "maintain", "write", "triage", "read"]),
    });
    user["role_name"] = json!(role);
    reply(
        StatusCode::OK,
        json!({ "permission": permission, "role_name": role, "user": user }),
    )
}

async fn get_contents(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, path)): UrlPath<(String, String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let git = open(&repo.bare_path);
    let reference = query
        .get("ref")
        .cloned()
        .unwrap_or(repo.default_branch.clone());
    let commit = git
        .revparse_single(&reference)
        .and_then(|o| o.peel_to_commit())
        .map_err(|_| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                format!("No commit found for the ref {reference}"),
            )
        })?;
    let path = path.trim_matches('/');
    let tree = commit.tree().expect("commit tree");
    let entry = tree
        .get_path(Path::new(path))
        .map_err(|_| ApiError::not_found())?;
    let api = format!("{}/repos/{}", fake.url, repo.full_name);
    let describe = |path: &str, kind: &str, sha: String, size: usize| {
        let url = format!("{api}/contents/{path}?ref={reference}");
        let git_url = format!(
            "{api}/git/{}/{sha}",
            if kind == "dir" { "trees" } else { "blobs" }
        );
        let html_url = format!(
            "https://github.com/{}/{}/{reference}/{path}",
            repo.full_name,
            if kind == "dir" { "tree" } else { "blob" }
        );
        let download_url = (kind == "file").then(|| {
            format!(
                "https://raw.githubusercontent.com/{}/{reference}/{path}",
                repo.full_name
            )
        });
        json!({
            "type": kind,
            "size": size,
            "name": path.rsplit('/').next().unwrap_or(path),
            "path": path,
            "sha": sha,
            "url": url,
            "git_url": git_url,
            "html_url": html_url,
            "download_url": download_url,
            "_links": { "self": url, "git": git_url, "html": html_url },
        })
    };
    match entry.kind() {
        Some(git2::ObjectType::Blob) => {
            let blob = git.find_blob(entry.id()).expect("blob");
            let encoded = base64::engine::general_purpose::STANDARD.encode(blob.content());
            let mut content: String = encoded
                .as_bytes()
                .chunks(60)
                .map(|line| format!("{}\n", String::from_utf8_lossy(line)))
                .collect();
            if content.is_empty() {
                content.push('\n');
            }
            let mut body = describe(path, "file", entry.id().to_string(), blob.size());
            body["encoding"] = json!("base64");
            body["content"] = json!(content);
            reply(StatusCode::OK, body)
        }
        Some(git2::ObjectType::Tree) => {
            let dir = git.find_tree(entry.id()).expect("tree");
            let listing: Vec<Value> = dir
                .iter()
                .map(|child| {
                    let child_path = format!("{path}/{}", child.name().unwrap_or_default());
                    match child.kind() {
                        Some(git2::ObjectType::Tree) => {
                            describe(&child_path, "dir", child.id().to_string(), 0)
                        }
                        _ => {
                            let size = git.find_blob(child.id()).map_or(0, |b| b.size());
                            describe(&child_path, "file", child.id().to_string(), size)
                        }
                    }
                })
                .collect();
            reply(StatusCode::OK, Value::Array(listing))
        }
        _ => Err(ApiError::not_found()),
    }
}

async fn get_comment(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, comment_id)): UrlPath<(String, String, String)>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let id = parse_id(&comment_id)?;
    let inner = fake.lock();
    let comment = inner
        .state
        .comments
        .iter()
        .find(|c| c.id == id && c.repo == repo.full_name)
        .ok_or_else(ApiError::not_found)?;
    let is_pr = inner
        .issue(&comment.repo, comment.issue)
        .is_some_and(|i| i.is_pull_request);
    reply(StatusCode::OK, fake.comment_json(comment, is_pr))
}

#[derive(Deserialize)]
struct CommentBody {
    body: Option<String>,
}

/// The comment text of a create or update request, checked as GitHub does.
fn comment_text(body: &Bytes) -> Result<String, ApiError> {
    let CommentBody { body } = parse(body)?;
    let body =
        body.ok_or_else(|| ApiError::invalid("Invalid request.\n\n\"body\" wasn't supplied."))?;
    if body.trim().is_empty() {
        return Err(ApiError::validation(
            "IssueComment",
            Some("body"),
            "missing_field",
            None,
        ));
    }
    if body.chars().count() > MAX_BODY {
        return Err(ApiError::validation(
            "IssueComment",
            Some("data"),
            "unprocessable",
            Some("Body is too long (maximum is 65536 characters)"),
        ));
    }
    Ok(body)
}

async fn update_comment(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, comment_id)): UrlPath<(String, String, String)>,
    body: Bytes,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let id = parse_id(&comment_id)?;
    let text = comment_text(&body)?;
    let mut inner = fake.lock();
    let comment = inner
        .state
        .comments
        .iter_mut()
        .find(|c| c.id == id && c.repo == repo.full_name)
        .ok_or_else(ApiError::not_found)?;
    comment.body = text;
    comment.edits += 1;
    comment.updated_at = Utc::now();
    let comment = comment.clone();
    let is_pr = inner
        .issue(&comment.repo, comment.issue)
        .is_some_and(|i| i.is_pull_request);
    reply(StatusCode::OK, fake.comment_json(&comment, is_pr))
}

async fn create_reaction(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, comment_id)): UrlPath<(String, String, String)>,
    body: Bytes,
) -> Answer {
    #[derive(Deserialize)]
    struct Body {
        content: Option<String>,
    }
    let repo = fake.repo(&token, &owner, &name)?;
    let id = parse_id(&comment_id)?;
    let Body { content } = parse(&body)?;
    let content = content
        .ok_or_else(|| ApiError::invalid("Invalid request.\n\n\"content\" wasn't supplied."))?;
    if !REACTIONS.contains(&content.as_str()) {
        return Err(ApiError::invalid(format!(
            "Invalid request.\n\nFor 'properties/content', \"{content}\" is not one of {REACTIONS:?}."
        )));
    }
    let bot = fake.bot();
    let mut inner = fake.lock();
    if !inner
        .state
        .comments
        .iter()
        .any(|c| c.id == id && c.repo == repo.full_name)
    {
        return Err(ApiError::not_found());
    }
    if let Some(existing) = inner
        .state
        .reactions
        .iter()
        .find(|r| r.comment_id == id && r.content == content && r.user == bot)
    {
        return reply(StatusCode::OK, fake.reaction_json(existing));
    }
    let reaction = Reaction {
        id: inner.next_id(),
        comment_id: id,
        content,
        user: bot,
    };
    inner.state.reactions.push(reaction.clone());
    reply(StatusCode::CREATED, fake.reaction_json(&reaction))
}

async fn list_comments(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, issue_number)): UrlPath<(String, String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let number = parse_id(&issue_number)?;
    let inner = fake.lock();
    let issue = inner
        .issue(&repo.full_name, number)
        .ok_or_else(ApiError::not_found)?;
    let comments: Vec<Value> = inner
        .state
        .comments
        .iter()
        .filter(|c| c.repo == repo.full_name && c.issue == number)
        .map(|c| fake.comment_json(c, issue.is_pull_request))
        .collect();
    let link_base = format!(
        "{}/repos/{}/issues/{number}/comments",
        fake.url, repo.full_name
    );
    Ok(paginate(comments, &query, &link_base))
}

async fn create_comment(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, issue_number)): UrlPath<(String, String, String)>,
    body: Bytes,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let number = parse_id(&issue_number)?;
    let text = comment_text(&body)?;
    let mut inner = fake.lock();
    let is_pr = inner
        .issue(&repo.full_name, number)
        .ok_or_else(ApiError::not_found)?
        .is_pull_request;
    let comment = inner.add_comment(&repo.full_name, number, &fake.bot(), "Bot", "NONE", &text);
    reply(StatusCode::CREATED, fake.comment_json(&comment, is_pr))
}

/// One page of `items` as GitHub pages lists (`per_page` 30 by default, 100 at most), with a
/// `link` header naming the other pages by absolute URL, as GitHub does.
///
/// octocrab attaches credentials only to requests for `api.github.com` or relative URIs, so its
/// `get_page`/`all_pages` would follow these links unauthenticated here, as on GitHub
/// Enterprise Server: Uplift pages by number instead.
fn paginate(items: Vec<Value>, query: &HashMap<String, String>, link_base: &str) -> Response {
    let per_page = query
        .get("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let page = query
        .get("page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let last = items.len().div_ceil(per_page).max(1);
    let mut kept: Vec<(&String, &String)> = query
        .iter()
        .filter(|(k, _)| *k != "page" && *k != "per_page")
        .collect();
    kept.sort();
    let prefix: String = kept
        .iter()
        .map(|(k, v)| format!("{}={}&", encode(k), encode(v)))
        .collect();
    let link = |page: usize, rel: &str| {
        format!("<{link_base}?{prefix}per_page={per_page}&page={page}>; rel=\"{rel}\"")
    };
    let mut links = Vec::new();
    if page > 1 {
        links.push(link(page - 1, "prev"));
    }
    if page < last {
        links.push(link(page + 1, "next"));
        links.push(link(last, "last"));
    }
    if page > 1 {
        links.push(link(1, "first"));
    }
    let items: Vec<Value> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    let mut response = (StatusCode::OK, Json(Value::Array(items))).into_response();
    if !links.is_empty() {
        response.headers_mut().insert(
            header::LINK,
            HeaderValue::from_str(&links.join(", ")).expect("ASCII link"),
        );
    }
    response
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b':' | b'/' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn list_pulls(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name)): UrlPath<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let state = query.get("state").map_or("open", String::as_str);
    if !["open", "closed", "all"].contains(&state) {
        return Err(ApiError::invalid(format!(
            "Invalid request.\n\nFor 'state', \"{state}\" is not one of [\"open\", \"closed\", \"all\"]."
        )));
    }
    let (repo_owner, _) = split_full_name(&repo.full_name);
    let head = query.get("head").map(|head| match head.split_once(':') {
        Some((owner, branch)) => (owner.to_owned(), branch.to_owned()),
        None => (repo_owner.to_owned(), head.clone()),
    });
    let inner = fake.lock();
    let mut pulls: Vec<&PullRequest> = inner
        .state
        .pulls
        .iter()
        .filter(|p| p.repo == repo.full_name)
        .filter(|p| state == "all" || p.state == state)
        .filter(|p| {
            head.as_ref().is_none_or(|(owner, branch)| {
                owner.eq_ignore_ascii_case(repo_owner) && *branch == p.head_ref
            })
        })
        .filter(|p| query.get("base").is_none_or(|base| *base == p.base_ref))
        .collect();
    pulls.sort_by_key(|p| std::cmp::Reverse(p.number));
    let items = pulls
        .iter()
        .map(|p| fake.pull_json(p, &repo, count_comments(&inner, p)))
        .collect();
    let link_base = format!("{}/repos/{}/pulls", fake.url, repo.full_name);
    Ok(paginate(items, &query, &link_base))
}

fn count_comments(inner: &Inner, pr: &PullRequest) -> usize {
    inner
        .state
        .comments
        .iter()
        .filter(|c| c.repo == pr.repo && c.issue == pr.number)
        .count()
}

async fn get_pull(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, pull_number)): UrlPath<(String, String, String)>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let number = parse_id(&pull_number)?;
    let inner = fake.lock();
    let pr = inner
        .state
        .pull(&repo.full_name, number)
        .ok_or_else(ApiError::not_found)?;
    reply(
        StatusCode::OK,
        fake.pull_json(pr, &repo, count_comments(&inner, pr)),
    )
}

fn check_pull_body(body: &Option<String>) -> Result<(), ApiError> {
    if body.as_ref().is_some_and(|b| b.chars().count() > MAX_BODY) {
        return Err(ApiError::validation(
            "PullRequest",
            Some("body"),
            "custom",
            Some("body is too long (maximum is 65536 characters)"),
        ));
    }
    Ok(())
}

async fn create_pull(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name)): UrlPath<(String, String)>,
    body: Bytes,
) -> Answer {
    #[derive(Deserialize)]
    struct Body {
        title: Option<String>,
        head: Option<String>,
        base: Option<String>,
        body: Option<String>,
        draft: Option<bool>,
    }
    let repo = fake.repo(&token, &owner, &name)?;
    let request: Body = parse(&body)?;
    let missing =
        |field: &str| ApiError::validation("PullRequest", Some(field), "missing_field", None);
    let title = request.title.ok_or_else(|| missing("title"))?;
    let head = request.head.ok_or_else(|| missing("head"))?;
    let base = request.base.ok_or_else(|| missing("base"))?;
    check_pull_body(&request.body)?;
    let (repo_owner, _) = split_full_name(&repo.full_name);
    let head_ref = match head.split_once(':') {
        Some((owner, branch)) if owner.eq_ignore_ascii_case(repo_owner) => branch.to_owned(),
        Some(_) => {
            return Err(ApiError::validation(
                "PullRequest",
                Some("head"),
                "invalid",
                None,
            ));
        }
        None => head.clone(),
    };
    let head_sha = branch_sha(&repo.bare_path, &head_ref)
        .ok_or_else(|| ApiError::validation("PullRequest", Some("head"), "invalid", None))?;
    if branch_sha(&repo.bare_path, &base).is_none() {
        return Err(ApiError::validation(
            "PullRequest",
            Some("base"),
            "invalid",
            None,
        ));
    }
    if head_ref == base || ahead_of(&repo.bare_path, &head_ref, &base) == 0 {
        return Err(ApiError::validation(
            "PullRequest",
            None,
            "custom",
            Some(&format!("No commits between {base} and {head_ref}")),
        ));
    }
    let mut inner = fake.lock();
    if inner.state.pulls.iter().any(|p| {
        p.repo == repo.full_name
            && p.state == "open"
            && p.head_ref == head_ref
            && p.base_ref == base
    }) {
        return Err(ApiError::validation(
            "PullRequest",
            None,
            "custom",
            Some(&format!(
                "A pull request already exists for {repo_owner}:{head_ref}."
            )),
        ));
    }
    let number = inner
        .state
        .issues
        .iter()
        .filter(|i| i.repo == repo.full_name)
        .map(|i| i.number)
        .max()
        .unwrap_or(0)
        + 1;
    let now = Utc::now();
    let pr = PullRequest {
        id: inner.next_id(),
        repo: repo.full_name.clone(),
        number,
        title: title.clone(),
        body: request.body,
        head_ref,
        head_sha,
        base_ref: base,
        state: "open".to_owned(),
        merged: false,
        draft: request.draft.unwrap_or(false),
        user: fake.bot(),
        created_with_token: token.token.clone(),
        created_at: now,
        updated_at: now,
    };
    inner.state.issues.push(Issue {
        repo: repo.full_name.clone(),
        number,
        title,
        is_pull_request: true,
    });
    inner.state.pulls.push(pr.clone());
    reply(StatusCode::CREATED, fake.pull_json(&pr, &repo, 0))
}

async fn update_pull(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, pull_number)): UrlPath<(String, String, String)>,
    body: Bytes,
) -> Answer {
    #[derive(Deserialize)]
    struct Body {
        title: Option<String>,
        body: Option<String>,
        state: Option<String>,
        base: Option<String>,
    }
    let repo = fake.repo(&token, &owner, &name)?;
    let number = parse_id(&pull_number)?;
    let request: Body = parse(&body)?;
    check_pull_body(&request.body)?;
    if let Some(state) = &request.state
        && state != "open"
        && state != "closed"
    {
        return Err(ApiError::invalid(format!(
            "Invalid request.\n\nFor 'properties/state', \"{state}\" is not one of [\"open\", \"closed\"]."
        )));
    }
    if let Some(base) = &request.base
        && branch_sha(&repo.bare_path, base).is_none()
    {
        return Err(ApiError::validation(
            "PullRequest",
            Some("base"),
            "invalid",
            None,
        ));
    }
    let mut inner = fake.lock();
    let pr = inner
        .state
        .pulls
        .iter_mut()
        .find(|p| p.repo == repo.full_name && p.number == number)
        .ok_or_else(ApiError::not_found)?;
    if pr.merged && request.state.as_deref() == Some("open") {
        return Err(ApiError::validation(
            "PullRequest",
            Some("state"),
            "custom",
            Some(
                "state cannot be changed. The pull request cannot be reopened because it has been merged.",
            ),
        ));
    }
    let head = branch_sha(&repo.bare_path, &pr.head_ref);
    let (number, head_ref, base_ref) = (pr.number, pr.head_ref.clone(), pr.base_ref.clone());
    if pr.state == "closed" && request.state.as_deref() == Some("open") {
        // GitHub reopens a closed pull request only while its head branch exists and still
        // holds the commit it was closed with (a force-push while closed seals it).
        let cannot = |why: String| {
            ApiError::validation(
                "PullRequest",
                Some("state"),
                "custom",
                Some(&format!("state cannot be changed. {why}")),
            )
        };
        let Some(head) = &head else {
            return Err(cannot(format!("The {head_ref} branch has been deleted.")));
        };
        if !descends_from(&repo.bare_path, head, &pr.head_sha) {
            return Err(cannot(format!(
                "The {head_ref} branch was force-pushed or recreated."
            )));
        }
    }
    if request.state.as_deref() == Some("open")
        && inner.state.pulls.iter().any(|p| {
            p.repo == repo.full_name
                && p.number != number
                && p.state == "open"
                && p.head_ref == head_ref
                && p.base_ref == base_ref
        })
    {
        let (repo_owner, _) = split_full_name(&repo.full_name);
        return Err(ApiError::validation(
            "PullRequest",
            None,
            "custom",
            Some(&format!(
                "A pull request already exists for {repo_owner}:{head_ref}."
            )),
        ));
    }
    let pr = inner
        .state
        .pulls
        .iter_mut()
        .find(|p| p.repo == repo.full_name && p.number == number)
        .ok_or_else(ApiError::not_found)?;
    if let Some(title) = request.title {
        pr.title = title;
    }
    if request.body.is_some() {
        pr.body = request.body;
    }
    if let Some(state) = request.state {
        if state == "closed"
            && pr.state == "open"
            && let Some(head) = head
        {
            pr.head_sha = head;
        }
        pr.state = state;
    }
    if let Some(base) = request.base {
        pr.base_ref = base;
    }
    pr.updated_at = Utc::now();
    let pr = pr.clone();
    if let Some(issue) = inner
        .state
        .issues
        .iter_mut()
        .find(|i| i.repo == pr.repo && i.number == pr.number)
    {
        issue.title = pr.title.clone();
    }
    reply(
        StatusCode::OK,
        fake.pull_json(&pr, &repo, count_comments(&inner, &pr)),
    )
}

/// The fields of a check run create or update request.
#[derive(Deserialize)]
struct CheckRunBody {
    name: Option<String>,
    head_sha: Option<String>,
    details_url: Option<String>,
    external_id: Option<String>,
    status: Option<String>,
    started_at: Option<DateTime<Utc>>,
    conclusion: Option<String>,
    completed_at: Option<DateTime<Utc>>,
    output: Option<CheckRunOutput>,
    actions: Option<Vec<Action>>,
}

#[derive(Deserialize)]
struct CheckRunOutput {
    title: Option<String>,
    summary: Option<String>,
    text: Option<String>,
    #[serde(default)]
    annotations: Vec<Annotation>,
}

/// Validates a check run request against the run it updates (`None` when creating) and returns
/// the run's resulting status and conclusion.
fn validate_check_run(
    body: &CheckRunBody,
    existing: Option<&CheckRun>,
) -> Result<(String, Option<String>), ApiError> {
    if let Some(status) = &body.status
        && !CHECK_STATUSES.contains(&status.as_str())
    {
        return Err(ApiError::invalid(format!(
            "Invalid request.\n\nFor 'properties/status', \"{status}\" is not one of {CHECK_STATUSES:?}."
        )));
    }
    if let Some(conclusion) = &body.conclusion {
        if !CONCLUSIONS.contains(&conclusion.as_str()) {
            return Err(ApiError::invalid(format!(
                "Invalid request.\n\nFor 'properties/conclusion', \"{conclusion}\" is not one of {CONCLUSIONS:?}."
            )));
        }
        if conclusion == "stale" {
            return Err(ApiError::invalid(
                "Invalid request.\n\nOnly GitHub can set a check run's conclusion to stale.",
            ));
        }
    }
    let (status, conclusion) = if body.conclusion.is_some() {
        ("completed".to_owned(), body.conclusion.clone())
    } else {
        let status = body
            .status
            .clone()
            .or_else(|| existing.map(|run| run.status.clone()))
            .unwrap_or_else(|| "queued".to_owned());
        let conclusion = existing.and_then(|run| run.conclusion.clone());
        let conclusion = if status == "completed" {
            conclusion
        } else {
            None
        };
        (status, conclusion)
    };
    if (status == "completed" || body.completed_at.is_some()) && conclusion.is_none() {
        return Err(ApiError::invalid(
            "Invalid request.\n\n\"conclusion\" wasn't supplied.",
        ));
    }
    let details_url = body
        .details_url
        .as_ref()
        .or(existing.and_then(|run| run.details_url.as_ref()));
    if conclusion.as_deref() == Some("action_required") && details_url.is_none() {
        return Err(ApiError::invalid(
            "Invalid request.\n\n\"details_url\" wasn't supplied; it is required when the conclusion is action_required.",
        ));
    }
    if let Some(output) = &body.output {
        if output.title.is_none() {
            return Err(ApiError::invalid(
                "Invalid request.\n\n\"title\" wasn't supplied.",
            ));
        }
        let Some(summary) = &output.summary else {
            return Err(ApiError::invalid(
                "Invalid request.\n\n\"summary\" wasn't supplied.",
            ));
        };
        for (field, text) in [("summary", Some(summary)), ("text", output.text.as_ref())] {
            if text.is_some_and(|t| t.len() > MAX_CHECK_TEXT) {
                return Err(ApiError::invalid(format!(
                    "Invalid request.\n\noutput.{field} exceeds a maximum bytesize of {MAX_CHECK_TEXT}."
                )));
            }
        }
        if output.annotations.len() > 50 {
            return Err(ApiError::invalid(
                "Invalid request.\n\nOnly 50 annotations are allowed per request.",
            ));
        }
        for annotation in &output.annotations {
            if !ANNOTATION_LEVELS.contains(&annotation.annotation_level.as_str()) {
                return Err(ApiError::invalid(format!(
                    "Invalid request.\n\nFor 'items', \"{}\" is not one of {ANNOTATION_LEVELS:?}.",
                    annotation.annotation_level
                )));
            }
            if (annotation.start_column.is_some() || annotation.end_column.is_some())
                && annotation.start_line != annotation.end_line
            {
                return Err(ApiError::invalid(
                    "Invalid request.\n\nstart_column and end_column are only allowed when start_line equals end_line.",
                ));
            }
        }
    }
    if let Some(actions) = &body.actions {
        if actions.len() > 3 {
            return Err(ApiError::invalid(
                "Invalid request.\n\nOnly 3 actions are allowed per request.",
            ));
        }
        for action in actions {
            for (field, value, max) in [
                ("label", &action.label, 20),
                ("description", &action.description, 40),
                ("identifier", &action.identifier, 20),
            ] {
                if value.chars().count() > max {
                    return Err(ApiError::invalid(format!(
                        "Invalid request.\n\n{field} is too long (maximum is {max} characters)."
                    )));
                }
            }
        }
    }
    Ok((status, conclusion))
}

/// Applies a validated request to `run` and records the transition.
fn apply_check_run(
    run: &mut CheckRun,
    body: CheckRunBody,
    status: String,
    conclusion: Option<String>,
) {
    let now = Utc::now();
    if let Some(name) = body.name {
        run.name = name;
    }
    if body.details_url.is_some() {
        run.details_url = body.details_url;
    }
    if body.external_id.is_some() {
        run.external_id = body.external_id;
    }
    if body.started_at.is_some() {
        run.started_at = body.started_at;
    }
    run.completed_at = match status.as_str() {
        "completed" => body.completed_at.or(run.completed_at).or(Some(now)),
        _ => None,
    };
    // An `output` replaces the previous one as a whole (text omitted: no text), except that
    // annotations accumulate, as GitHub documents for batches beyond 50.
    if let Some(output) = body.output {
        run.title = output.title;
        run.summary = output.summary;
        run.text = output.text;
        run.annotations.extend(output.annotations);
    }
    if let Some(actions) = body.actions {
        run.actions = actions;
    }
    run.status = status;
    run.conclusion = conclusion;
    run.history
        .push((run.status.clone(), run.conclusion.clone()));
}

async fn create_check_run(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name)): UrlPath<(String, String)>,
    body: Bytes,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let mut body: CheckRunBody = parse(&body)?;
    let run_name = body
        .name
        .take()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ApiError::invalid("Invalid request.\n\n\"name\" wasn't supplied."))?;
    let head_sha = body
        .head_sha
        .clone()
        .ok_or_else(|| ApiError::invalid("Invalid request.\n\n\"head_sha\" wasn't supplied."))?;
    if !commit_exists(&repo.bare_path, &head_sha) {
        return Err(ApiError::invalid(format!(
            "No commit found for SHA: {head_sha}"
        )));
    }
    let (status, conclusion) = validate_check_run(&body, None)?;
    let mut inner = fake.lock();
    let mut run = CheckRun {
        id: inner.next_id(),
        repo: repo.full_name.clone(),
        name: run_name,
        head_sha,
        status: String::new(),
        conclusion: None,
        started_at: Some(Utc::now()),
        completed_at: None,
        details_url: None,
        external_id: None,
        title: None,
        summary: None,
        text: None,
        annotations: Vec::new(),
        actions: Vec::new(),
        history: Vec::new(),
    };
    apply_check_run(&mut run, body, status, conclusion);
    inner.state.check_runs.push(run.clone());
    reply(StatusCode::CREATED, fake.check_run_json(&run))
}

async fn update_check_run(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, check_run_id)): UrlPath<(String, String, String)>,
    body: Bytes,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let id = parse_id(&check_run_id)?;
    let body: CheckRunBody = parse(&body)?;
    let mut inner = fake.lock();
    let run = inner
        .state
        .check_runs
        .iter_mut()
        .find(|r| r.id == id && r.repo == repo.full_name)
        .ok_or_else(ApiError::not_found)?;
    if body.name.as_deref() == Some("") {
        return Err(ApiError::invalid(
            "Invalid request.\n\n\"name\" must not be empty.",
        ));
    }
    let (status, conclusion) = validate_check_run(&body, Some(run))?;
    apply_check_run(run, body, status, conclusion);
    let run = run.clone();
    reply(StatusCode::OK, fake.check_run_json(&run))
}

async fn get_check_run(
    Fake(fake): Fake<Arc<Shared>>,
    Extension(token): Extension<Token>,
    UrlPath((owner, name, check_run_id)): UrlPath<(String, String, String)>,
) -> Answer {
    let repo = fake.repo(&token, &owner, &name)?;
    let id = parse_id(&check_run_id)?;
    let run = fake
        .lock()
        .state
        .check_runs
        .iter()
        .find(|r| r.id == id && r.repo == repo.full_name)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    reply(StatusCode::OK, fake.check_run_json(&run))
}

fn open(bare_path: &Path) -> git2::Repository {
    git2::Repository::open_bare(bare_path).expect("the fake's bare repository opens")
}

fn branch_sha(bare_path: &Path, branch: &str) -> Option<String> {
    open(bare_path)
        .find_reference(&format!("refs/heads/{branch}"))
        .ok()?
        .peel_to_commit()
        .ok()
        .map(|c| c.id().to_string())
}

/// Commits on `head` that are not on `base` (0 if either branch is missing).
fn ahead_of(bare_path: &Path, head: &str, base: &str) -> usize {
    let git = open(bare_path);
    let tip = |branch: &str| {
        git.find_reference(&format!("refs/heads/{branch}"))
            .and_then(|r| r.peel_to_commit())
            .map(|c| c.id())
    };
    match (tip(head), tip(base)) {
        (Ok(head), Ok(base)) => git
            .graph_ahead_behind(head, base)
            .map_or(0, |(ahead, _)| ahead),
        _ => 0,
    }
}

/// True when commit `sha` is `head` or one of its ancestors.
fn descends_from(bare_path: &Path, head: &str, sha: &str) -> bool {
    let git = open(bare_path);
    match (git2::Oid::from_str(head), git2::Oid::from_str(sha)) {
        (Ok(head), Ok(sha)) => head == sha || git.graph_descendant_of(head, sha).unwrap_or(false),
        _ => false,
    }
}

fn commit_exists(bare_path: &Path, sha: &str) -> bool {
    sha.len() == 40
        && git2::Oid::from_str(sha)
            .ok()
            .is_some_and(|oid| open(bare_path).find_commit(oid).is_ok())
}

/// Writes `dir` (without `target/` and `.git/`) as a tree, keeping the executable bit.
fn write_tree(git: &git2::Repository, dir: &Path) -> git2::Oid {
    let mut builder = git.treebuilder(None).expect("treebuilder");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry"))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let path = entry.path();
        let meta = std::fs::metadata(&path).expect("metadata");
        if meta.is_dir() {
            if name == "target" || name == ".git" {
                continue;
            }
            let tree = write_tree(git, &path);
            if git.find_tree(tree).expect("tree").is_empty() {
                continue;
            }
            builder.insert(&name, tree, 0o040000).expect("insert tree");
        } else {
            let blob = git
                .blob(&std::fs::read(&path).expect("read file"))
                .expect("write blob");
            let mode = if is_executable(&meta) {
                0o100755
            } else {
                0o100644
            };
            builder.insert(&name, blob, mode).expect("insert blob");
        }
    }
    builder.write().expect("write tree")
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}
