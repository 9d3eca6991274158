//! The REST calls Uplift makes for one repository, typed. Paths and bodies follow
//! docs.github.com/rest (issues/comments, reactions, pulls, checks/runs, repos/contents).

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use http::Method;
use octocrab::Octocrab;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::client::{ApiError, GitHub};
use crate::settings::Secret;

/// How long a collaborator permission answer is trusted.
const PERMISSION_TTL: Duration = Duration::from_secs(300);

pub struct RepoApi {
    pub(super) gh: Arc<GitHub>,
    pub(super) client: Octocrab,
    pub repo: String,
    /// The installation token: given to git for clone/push, never to a build.
    pub token: Secret,
    /// When this job's client was made: its rate-limit waits end within the wait budget from
    /// here.
    pub(super) started: Instant,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RepoInfo {
    pub default_branch: String,
    pub clone_url: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Comment {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    pub user: User,
}

#[derive(Debug, Clone, Deserialize)]
pub struct User {
    pub login: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullRequest {
    pub number: u64,
    pub html_url: String,
    pub head: Ref,
    /// `open` or `closed`.
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub body: Option<String>,
    /// Set when the pull request was merged (list responses carry no `merged`).
    #[serde(default)]
    pub merged_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Ref {
    pub sha: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Created {
    id: u64,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Queued,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    Success,
    Neutral,
    Failure,
    Cancelled,
    TimedOut,
    ActionRequired,
    Skipped,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Annotation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub annotation_level: &'static str,
    pub title: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheckOutput {
    pub title: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<Annotation>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheckAction {
    pub label: &'static str,
    pub description: &'static str,
    pub identifier: &'static str,
}

/// Body of a check-run create or update.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRun {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_sha: Option<String>,
    pub status: CheckStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<Conclusion>,
    pub external_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    pub output: CheckOutput,
    pub actions: Vec<CheckAction>,
}

/// GitHub accepts at most this many annotations per request; more go in follow-up updates.
pub const ANNOTATIONS_PER_REQUEST: usize = 50;

/// GitHub refuses a check run whose `output.summary` or `output.text` is longer than this many
/// *bytes* (422 "exceeds a maximum bytesize"), though its docs say characters.
pub const CHECK_OUTPUT_BYTES: usize = 65_535;

/// `text` cut at a char boundary so that it, a gap and `overflow` fit in `limit` bytes; a byte
/// limit also keeps within any character limit of the same number.
pub fn fit(mut text: String, limit: usize, overflow: &str) -> String {
    const GAP: &str = "\n\n…\n\n";
    if text.len() <= limit {
        return text;
    }
    let mut cut = limit.saturating_sub(GAP.len() + overflow.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(GAP);
    text.push_str(overflow);
    text
}

impl GitHub {
    /// A client for one repository, authenticated by an installation token scoped to it; one
    /// per job, whose rate-limit waits end by the job's wait budget.
    pub async fn repo(
        self: &Arc<Self>,
        installation: i64,
        full_name: &str,
    ) -> anyhow::Result<RepoApi> {
        let started = Instant::now();
        let token = self.token(installation, full_name, started).await?;
        let client = Octocrab::builder()
            .base_uri(self.api_url.as_str())?
            .personal_token(token.expose().to_string())
            .build()?;
        Ok(RepoApi {
            gh: self.clone(),
            client,
            repo: full_name.to_string(),
            token,
            started,
        })
    }
}

impl RepoApi {
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<T, ApiError> {
        // Everything the app publishes (comments, PR bodies, check runs) passes here:
        // redacted, and its repository and model text made inert.
        let body = body.map(|b| {
            let mut b = b.clone();
            crate::redact::redact_json(&mut b);
            super::inert::inert_json(&mut b, &self.gh.slug);
            b
        });
        self.gh
            .call(&self.client, method, path, body.as_ref(), self.started)
            .await
    }

    /// A call whose response body Uplift does not need.
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<(), ApiError> {
        let _: serde_json::Value = self.call(method, path, Some(body)).await?;
        Ok(())
    }

    fn path(&self, rest: &str) -> String {
        format!("/repos/{}/{rest}", self.repo)
    }

    pub fn slug(&self) -> &str {
        &self.gh.slug
    }

    pub async fn info(&self) -> Result<RepoInfo, ApiError> {
        self.call(Method::GET, &format!("/repos/{}", self.repo), None)
            .await
    }

    /// The user's base permission on the repository (`admin`, `write`, `read` or `none`),
    /// cached briefly. GitHub folds maintain into write, triage into read and a custom role
    /// into the base it extends; `role_name` (absent on older servers) names the role itself.
    pub async fn permission(&self, user: &str) -> Result<String, ApiError> {
        let key = (self.repo.clone(), user.to_string());
        if let Some((permission, at)) = self.gh.permissions.lock().await.get(&key)
            && at.elapsed() < PERMISSION_TTL
        {
            return Ok(permission.clone());
        }
        #[derive(Deserialize)]
        struct Permission {
            permission: String,
        }
        let p: Permission = self
            .call(
                Method::GET,
                &self.path(&format!("collaborators/{user}/permission")),
                None,
            )
            .await?;
        self.gh
            .permissions
            .lock()
            .await
            .insert(key, (p.permission.clone(), Instant::now()));
        Ok(p.permission)
    }

    pub async fn react(&self, comment_id: u64, content: &str) -> Result<(), ApiError> {
        self.send(
            Method::POST,
            &self.path(&format!("issues/comments/{comment_id}/reactions")),
            &json!({ "content": content }),
        )
        .await
    }

    pub async fn comment(&self, issue: u64, body: &str) -> Result<u64, ApiError> {
        let c: Created = self
            .call(
                Method::POST,
                &self.path(&format!("issues/{issue}/comments")),
                Some(&json!({ "body": body })),
            )
            .await?;
        Ok(c.id)
    }

    pub async fn edit_comment(&self, id: u64, body: &str) -> Result<(), ApiError> {
        self.send(
            Method::PATCH,
            &self.path(&format!("issues/comments/{id}")),
            &json!({ "body": body }),
        )
        .await
    }

    /// Our own comment on `issue` whose body contains `marker` (newest pages are few: the
    /// search stops after 10 pages of 100).
    pub async fn find_comment(&self, issue: u64, marker: &str) -> Result<Option<u64>, ApiError> {
        let bot = format!("{}[bot]", self.gh.slug);
        for page in 1..=10 {
            let comments: Vec<Comment> = self
                .call(
                    Method::GET,
                    &self.path(&format!("issues/{issue}/comments?per_page=100&page={page}")),
                    None,
                )
                .await?;
            if let Some(c) = comments.iter().find(|c| {
                c.user.login == bot && c.body.as_deref().is_some_and(|b| b.contains(marker))
            }) {
                return Ok(Some(c.id));
            }
            if comments.len() < 100 {
                break;
            }
        }
        Ok(None)
    }

    pub async fn open_pull(&self, branch: &str) -> Result<Option<PullRequest>, ApiError> {
        let owner = self.repo.split('/').next().unwrap_or_default();
        let prs: Vec<PullRequest> = self
            .call(
                Method::GET,
                &self.path(&format!("pulls?state=open&head={owner}:{branch}")),
                None,
            )
            .await?;
        Ok(prs.into_iter().next())
    }

    /// The newest closed pull request from `branch`, merged or not.
    pub async fn closed_pull(&self, branch: &str) -> Result<Option<PullRequest>, ApiError> {
        let owner = self.repo.split('/').next().unwrap_or_default();
        let prs: Vec<PullRequest> = self
            .call(
                Method::GET,
                &self.path(&format!(
                    "pulls?state=closed&head={owner}:{branch}&sort=created&direction=desc&per_page=1"
                )),
                None,
            )
            .await?;
        Ok(prs.into_iter().next())
    }

    /// Closes or reopens pull request `number` (`state`: `open` or `closed`).
    pub async fn set_pull_state(&self, number: u64, state: &str) -> Result<(), ApiError> {
        self.send(
            Method::PATCH,
            &self.path(&format!("pulls/{number}")),
            &json!({ "state": state }),
        )
        .await
    }

    pub async fn create_pull(
        &self,
        title: &str,
        head: &str,
        base: &str,
        body: &str,
    ) -> Result<PullRequest, ApiError> {
        self.call(
            Method::POST,
            &self.path("pulls"),
            Some(
                &json!({ "title": title, "head": head, "base": base, "body": body,
                          "maintainer_can_modify": true }),
            ),
        )
        .await
    }

    pub async fn update_pull(&self, number: u64, title: &str, body: &str) -> Result<(), ApiError> {
        self.send(
            Method::PATCH,
            &self.path(&format!("pulls/{number}")),
            &json!({ "title": title, "body": body }),
        )
        .await
    }

    /// Creates a check run (annotations beyond the per-request cap follow in updates).
    pub async fn create_check(&self, run: &CheckRun) -> Result<u64, ApiError> {
        let (first, rest) = requests(run);
        let c: Created = self
            .call(
                Method::POST,
                &self.path("check-runs"),
                Some(&serde_json::to_value(&first).expect("serialisable")),
            )
            .await?;
        self.more_annotations(c.id, &first, rest).await?;
        Ok(c.id)
    }

    pub async fn update_check(&self, id: u64, run: &CheckRun) -> Result<(), ApiError> {
        let (first, rest) = requests(run);
        let mut body = serde_json::to_value(&first).expect("serialisable");
        body.as_object_mut().expect("object").remove("head_sha");
        self.send(
            Method::PATCH,
            &self.path(&format!("check-runs/{id}")),
            &body,
        )
        .await?;
        self.more_annotations(id, &first, rest).await
    }

    async fn more_annotations(
        &self,
        id: u64,
        run: &CheckRun,
        rest: Vec<Annotation>,
    ) -> Result<(), ApiError> {
        for chunk in rest.chunks(ANNOTATIONS_PER_REQUEST) {
            // An update's `output` replaces the last one (only annotations accumulate), so the
            // follow-ups repeat title, summary and text.
            let output = CheckOutput {
                annotations: chunk.to_vec(),
                ..run.output.clone()
            };
            let body = json!({ "output": output });
            self.send(
                Method::PATCH,
                &self.path(&format!("check-runs/{id}")),
                &body,
            )
            .await?;
        }
        Ok(())
    }

    /// A file's text at `git_ref` (default branch when None), or None when it does not exist.
    pub async fn file(
        &self,
        path: &str,
        git_ref: Option<&str>,
    ) -> Result<Option<String>, ApiError> {
        let query = git_ref.map_or(String::new(), |r| format!("?ref={r}"));
        #[derive(Deserialize)]
        struct Contents {
            content: String,
        }
        match self
            .call::<Contents>(
                Method::GET,
                &self.path(&format!("contents/{path}{query}")),
                None,
            )
            .await
        {
            Ok(c) => {
                let raw: String = c.content.split_whitespace().collect();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(raw)
                    .map_err(|e| ApiError::Decode {
                        path: path.into(),
                        error: e.to_string(),
                    })?;
                Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
            }
            Err(e) if e.status() == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The first request of a check-run create or update, and the annotations that follow it.
/// Summary and text are redacted before they are fitted, as a mask can be longer than what it
/// hides.
fn requests(run: &CheckRun) -> (CheckRun, Vec<Annotation>) {
    let mut first = run.clone();
    let output = &mut first.output;
    output.summary = fit(
        crate::redact::redact(&output.summary),
        CHECK_OUTPUT_BYTES,
        "(truncated)",
    );
    output.text = output.text.as_deref().map(|t| {
        fit(
            crate::redact::redact(t),
            CHECK_OUTPUT_BYTES,
            "(truncated; see `uplift report`)",
        )
    });
    let rest = if first.output.annotations.len() > ANNOTATIONS_PER_REQUEST {
        first.output.annotations.split_off(ANNOTATIONS_PER_REQUEST)
    } else {
        Vec::new()
    };
    (first, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_within_the_byte_limit_at_a_char_boundary() {
        // 40,000 characters are within a 65,535-character limit but 80,000 bytes are not.
        let text = "é".repeat(40_000);
        let fitted = fit(text, CHECK_OUTPUT_BYTES, "(truncated)");
        assert!(fitted.len() <= CHECK_OUTPUT_BYTES, "{}", fitted.len());
        assert!(fitted.len() > CHECK_OUTPUT_BYTES - 20, "{}", fitted.len());
        assert!(fitted.ends_with("…\n\n(truncated)"));
        assert_eq!(fit("short".into(), 5, "(truncated)"), "short");
        // A limit smaller than the marker still yields valid UTF-8 and never panics.
        let tiny = fit("ééé".into(), 3, "(truncated)");
        assert!(tiny.ends_with("(truncated)"), "{tiny}");
    }
}
