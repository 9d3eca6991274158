//! The edge: verify `X-Hub-Signature-256` and turn a payload into one typed [`Event`].
//! Nothing past this module sees raw webhook JSON.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::config::REPO_CONFIG_PATH;

/// Constant-time check of `sha256=<hex>` against HMAC-SHA256(secret, body).
pub fn verify_signature(secret: &[u8], body: &[u8], header: Option<&str>) -> bool {
    let Some(hex_sig) = header.and_then(|h| h.strip_prefix("sha256=")) else {
        return false;
    };
    let Ok(sig) = hex::decode(hex_sig.trim()) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any size");
    mac.update(body);
    mac.verify_slice(&sig).is_ok()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Ping,
    Installation {
        action: String,
        installation: i64,
        account: String,
        repositories: Vec<String>,
    },
    InstallationRepositories {
        installation: i64,
        account: String,
        added: Vec<String>,
        removed: Vec<String>,
    },
    IssueComment(CommentEvent),
    PullRequestClosed {
        installation: i64,
        repo: String,
        number: u64,
        head_ref: String,
        merged: bool,
    },
    CheckRun {
        installation: i64,
        repo: String,
        /// `rerequested`, or the identifier of the button pressed (`requested_action`).
        action: CheckRunAction,
        external_id: Option<String>,
        head_sha: String,
    },
    /// A push to the default branch that touched the repository's Uplift config.
    ConfigPush {
        installation: i64,
        repo: String,
        after: String,
    },
    /// Any other push to the default branch: an open migration PR may have fallen behind.
    DefaultBranchPush {
        installation: i64,
        repo: String,
        after: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckRunAction {
    Rerun,
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommentEvent {
    pub installation: i64,
    pub repo: String,
    pub issue_number: u64,
    pub is_pull_request: bool,
    pub comment_id: u64,
    pub author: String,
    pub body: String,
}

/// What the edge decided about a delivery.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Event(Event),
    /// A well-formed delivery Uplift has nothing to do with (the reason is logged).
    Ignored(String),
}

#[derive(Debug, thiserror::Error)]
#[error("malformed {event} payload: {reason}")]
pub struct Malformed {
    pub event: String,
    pub reason: String,
}

#[derive(Deserialize)]
struct Account {
    login: String,
}
#[derive(Deserialize)]
struct InstallationRef {
    id: i64,
    account: Option<Account>,
}
#[derive(Deserialize)]
struct RepoRef {
    full_name: String,
    #[serde(default)]
    default_branch: Option<String>,
}
#[derive(Deserialize)]
struct User {
    login: String,
    #[serde(rename = "type", default)]
    kind: String,
}

#[derive(Deserialize)]
struct InstallationPayload {
    action: String,
    installation: InstallationRef,
    #[serde(default)]
    repositories: Vec<RepoRef>,
}
#[derive(Deserialize)]
struct InstallationReposPayload {
    installation: InstallationRef,
    #[serde(default)]
    repositories_added: Vec<RepoRef>,
    #[serde(default)]
    repositories_removed: Vec<RepoRef>,
}
#[derive(Deserialize)]
struct IssueCommentPayload {
    action: String,
    installation: Option<InstallationRef>,
    repository: RepoRef,
    issue: Issue,
    comment: Comment,
}
#[derive(Deserialize)]
struct Issue {
    number: u64,
    pull_request: Option<serde_json::Value>,
}
#[derive(Deserialize)]
struct Comment {
    id: u64,
    body: Option<String>,
    user: User,
}
#[derive(Deserialize)]
struct PullRequestPayload {
    action: String,
    installation: Option<InstallationRef>,
    repository: RepoRef,
    pull_request: PullRequest,
    /// Who closed it.
    sender: Option<User>,
}
#[derive(Deserialize)]
struct PullRequest {
    number: u64,
    #[serde(default)]
    merged: bool,
    head: Head,
}
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "ref")]
    git_ref: String,
}
#[derive(Deserialize)]
struct CheckRunPayload {
    action: String,
    installation: Option<InstallationRef>,
    repository: RepoRef,
    check_run: CheckRun,
    requested_action: Option<RequestedAction>,
}
#[derive(Deserialize)]
struct CheckRun {
    head_sha: String,
    external_id: Option<String>,
    app: Option<App>,
}
#[derive(Deserialize)]
struct App {
    slug: Option<String>,
}
#[derive(Deserialize)]
struct RequestedAction {
    identifier: String,
}
#[derive(Deserialize)]
struct PushPayload {
    #[serde(rename = "ref")]
    git_ref: String,
    after: String,
    installation: Option<InstallationRef>,
    repository: RepoRef,
    #[serde(default)]
    commits: Vec<PushCommit>,
}
#[derive(Deserialize)]
struct PushCommit {
    #[serde(default)]
    added: Vec<String>,
    #[serde(default)]
    modified: Vec<String>,
    #[serde(default)]
    removed: Vec<String>,
}

fn names(repos: Vec<RepoRef>) -> Vec<String> {
    repos.into_iter().map(|r| r.full_name).collect()
}

fn installation_id(i: Option<InstallationRef>, event: &str) -> Result<i64, Malformed> {
    i.map(|i| i.id).ok_or_else(|| Malformed {
        event: event.into(),
        reason: "no installation (not delivered to a GitHub App?)".into(),
    })
}

/// Parses one delivery. `app_slug` identifies our own check runs and comments.
pub fn parse(event: &str, body: &[u8], app_slug: &str) -> Result<Parsed, Malformed> {
    fn de<T: for<'a> Deserialize<'a>>(event: &str, body: &[u8]) -> Result<T, Malformed> {
        serde_json::from_slice(body).map_err(|e| Malformed {
            event: event.into(),
            reason: e.to_string(),
        })
    }
    let ignored = |why: &str| Ok(Parsed::Ignored(format!("{event}: {why}")));
    Ok(Parsed::Event(match event {
        "ping" => Event::Ping,
        "installation" => {
            let p: InstallationPayload = de(event, body)?;
            Event::Installation {
                action: p.action,
                installation: p.installation.id,
                account: p.installation.account.map(|a| a.login).unwrap_or_default(),
                repositories: names(p.repositories),
            }
        }
        "installation_repositories" => {
            let p: InstallationReposPayload = de(event, body)?;
            Event::InstallationRepositories {
                installation: p.installation.id,
                account: p.installation.account.map(|a| a.login).unwrap_or_default(),
                added: names(p.repositories_added),
                removed: names(p.repositories_removed),
            }
        }
        "issue_comment" => {
            let p: IssueCommentPayload = de(event, body)?;
            if p.action != "created" {
                return ignored(&format!("action {}", p.action));
            }
            // Bots, this app included, never command Uplift.
            if p.comment.user.kind == "Bot" || p.comment.user.login.ends_with("[bot]") {
                return ignored("comment by a bot");
            }
            let body = p.comment.body.unwrap_or_default();
            if !super::command::mentions_command(&body, app_slug) {
                return ignored("no command");
            }
            Event::IssueComment(CommentEvent {
                installation: installation_id(p.installation, event)?,
                repo: p.repository.full_name,
                issue_number: p.issue.number,
                is_pull_request: p.issue.pull_request.is_some(),
                comment_id: p.comment.id,
                author: p.comment.user.login,
                body,
            })
        }
        "pull_request" => {
            let p: PullRequestPayload = de(event, body)?;
            if p.action != "closed" {
                return ignored(&format!("action {}", p.action));
            }
            if !p
                .pull_request
                .head
                .git_ref
                .starts_with(crate::workspace::BRANCH_PREFIX)
            {
                return ignored("not a migration branch");
            }
            // The app closes a PR whose run kept nothing; that is no person's decline.
            if p.sender
                .is_some_and(|u| u.login == format!("{app_slug}[bot]"))
            {
                return ignored("closed by this app");
            }
            Event::PullRequestClosed {
                installation: installation_id(p.installation, event)?,
                repo: p.repository.full_name,
                number: p.pull_request.number,
                head_ref: p.pull_request.head.git_ref,
                merged: p.pull_request.merged,
            }
        }
        "check_run" => {
            let p: CheckRunPayload = de(event, body)?;
            // GitHub sends `rerequested` and `requested_action` only to the app that owns the
            // check run, and real deliveries of them may name no app slug: those are ours
            // unless they name another app.
            let owner_only = matches!(p.action.as_str(), "rerequested" | "requested_action");
            let ours = match p.check_run.app.and_then(|a| a.slug) {
                Some(slug) => slug == app_slug,
                None => owner_only,
            };
            if !ours {
                return ignored("check run of another app");
            }
            let action = match (p.action.as_str(), p.requested_action) {
                ("rerequested", _) => CheckRunAction::Rerun,
                ("requested_action", Some(a)) if a.identifier == "rerun" => CheckRunAction::Rerun,
                ("requested_action", Some(a)) if a.identifier == "cancel" => CheckRunAction::Cancel,
                (other, _) => return ignored(&format!("action {other}")),
            };
            Event::CheckRun {
                installation: installation_id(p.installation, event)?,
                repo: p.repository.full_name,
                action,
                external_id: p.check_run.external_id,
                head_sha: p.check_run.head_sha,
            }
        }
        "push" => {
            let p: PushPayload = de(event, body)?;
            let default = p.repository.default_branch.as_deref().unwrap_or("main");
            if p.git_ref != format!("refs/heads/{default}") {
                return ignored("not the default branch");
            }
            let touched = p.commits.iter().any(|c| {
                c.added
                    .iter()
                    .chain(&c.modified)
                    .chain(&c.removed)
                    .any(|f| f == REPO_CONFIG_PATH)
            });
            let (installation, repo) = (
                installation_id(p.installation, event)?,
                p.repository.full_name,
            );
            if touched {
                Event::ConfigPush {
                    installation,
                    repo,
                    after: p.after,
                }
            } else {
                Event::DefaultBranchPush {
                    installation,
                    repo,
                    after: p.after,
                }
            }
        }
        other => return ignored(&format!("event {other} not handled")),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(secret: &[u8], body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap();
        mac.update(body);
        format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
    }

    #[test]
    fn a_rerun_naming_no_app_is_ours_and_one_naming_another_app_is_not() {
        let delivery = |action: &str, app: serde_json::Value| {
            serde_json::json!({"action": action, "installation": {"id": 1},
                "repository": {"full_name": "o/r"},
                "check_run": {"app": app, "external_id": "j", "head_sha": "abc"}})
            .to_string()
        };
        let rerun = parse(
            "check_run",
            delivery("rerequested", serde_json::json!({})).as_bytes(),
            "uplift",
        );
        assert!(matches!(
            rerun.unwrap(),
            Parsed::Event(Event::CheckRun { .. })
        ));
        for (action, app) in [
            ("rerequested", serde_json::json!({"slug": "other"})),
            ("created", serde_json::json!({})),
        ] {
            let parsed = parse("check_run", delivery(action, app).as_bytes(), "uplift");
            assert!(matches!(parsed.unwrap(), Parsed::Ignored(_)), "{action}");
        }
    }

    #[test]
    fn signatures() {
        let body = br#"{"zen":"hi"}"#;
        let good = sign(b"s3cret", body);
        assert!(verify_signature(b"s3cret", body, Some(&good)));
        assert!(!verify_signature(b"other", body, Some(&good)));
        assert!(!verify_signature(b"s3cret", b"{}", Some(&good)));
        assert!(!verify_signature(b"s3cret", body, None));
        assert!(!verify_signature(b"s3cret", body, Some("sha1=abcd")));
        assert!(!verify_signature(b"s3cret", body, Some("sha256=zz")));
    }

    fn comment(user_type: &str, login: &str, body: &str) -> Vec<u8> {
        serde_json::json!({
            "action": "created",
            "installation": {"id": 7},
            "repository": {"full_name": "o/r", "default_branch": "main"},
            "issue": {"number": 3},
            "comment": {"id": 99, "body": body, "author_association": "MEMBER",
                        "user": {"login": login, "type": user_type}},
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn comments_become_typed_events_only_when_they_command() {
        let p = parse(
            "issue_comment",
            &comment("User", "ann", "@uplift migrate"),
            "uplift",
        );
        match p.unwrap() {
            Parsed::Event(Event::IssueComment(c)) => {
                assert_eq!((c.installation, c.comment_id, c.issue_number), (7, 99, 3));
                assert!(!c.is_pull_request);
            }
            other => panic!("{other:?}"),
        }
        let bot = parse(
            "issue_comment",
            &comment("Bot", "uplift[bot]", "@uplift migrate"),
            "uplift",
        );
        assert!(matches!(bot.unwrap(), Parsed::Ignored(_)));
        let chat = parse(
            "issue_comment",
            &comment("User", "ann", "looks good"),
            "uplift",
        );
        assert!(matches!(chat.unwrap(), Parsed::Ignored(_)));
    }

    #[test]
    fn malformed_payloads_are_errors_not_panics() {
        let err = parse("issue_comment", b"{not json", "uplift").unwrap_err();
        assert!(err.to_string().contains("malformed issue_comment"));
        assert!(parse("installation", br#"{"action":"created"}"#, "uplift").is_err());
        assert!(matches!(
            parse("star", b"{}", "uplift").unwrap(),
            Parsed::Ignored(_)
        ));
    }

    fn closed(head_ref: &str, sender: &str, sender_type: &str) -> Vec<u8> {
        serde_json::json!({
            "action": "closed",
            "number": 2,
            "installation": {"id": 7},
            "repository": {"full_name": "o/r", "default_branch": "main"},
            "pull_request": {"number": 2, "state": "closed", "merged": false,
                             "head": {"ref": head_ref, "sha": "abc"}},
            "sender": {"login": sender, "type": sender_type},
        })
        .to_string()
        .into_bytes()
    }

    #[test]
    fn a_migration_pr_closed_by_the_app_itself_is_no_decline() {
        let own = parse(
            "pull_request",
            &closed("uplift/java-17", "uplift[bot]", "Bot"),
            "uplift",
        );
        match own.unwrap() {
            Parsed::Ignored(why) => assert!(why.contains("closed by this app"), "{why}"),
            other => panic!("{other:?}"),
        }
        let person = parse(
            "pull_request",
            &closed("uplift/java-17", "ann", "User"),
            "uplift",
        );
        assert!(matches!(
            person.unwrap(),
            Parsed::Event(Event::PullRequestClosed {
                number: 2,
                merged: false,
                ..
            })
        ));
        // Another app's bot closing our PR is not us.
        let other = parse(
            "pull_request",
            &closed("uplift/java-17", "stale[bot]", "Bot"),
            "uplift",
        );
        assert!(matches!(
            other.unwrap(),
            Parsed::Event(Event::PullRequestClosed { .. })
        ));
        let feature = parse(
            "pull_request",
            &closed("feature", "uplift[bot]", "Bot"),
            "uplift",
        );
        assert!(matches!(feature.unwrap(), Parsed::Ignored(_)));
    }

    #[test]
    fn pushes_matter_only_on_the_default_branch_and_config_pushes_are_told_apart() {
        let push = |git_ref: &str, file: &str| {
            serde_json::json!({"ref": git_ref, "after": "abc", "installation": {"id": 1},
                "repository": {"full_name": "o/r", "default_branch": "main"},
                "commits": [{"added": [], "modified": [file], "removed": []}]})
            .to_string()
        };
        let hit = parse(
            "push",
            push("refs/heads/main", REPO_CONFIG_PATH).as_bytes(),
            "uplift",
        );
        assert!(matches!(
            hit.unwrap(),
            Parsed::Event(Event::ConfigPush { .. })
        ));
        let other = parse(
            "push",
            push("refs/heads/dev", REPO_CONFIG_PATH).as_bytes(),
            "uplift",
        );
        assert!(matches!(other.unwrap(), Parsed::Ignored(_)));
        let readme = parse(
            "push",
            push("refs/heads/main", "README.md").as_bytes(),
            "uplift",
        );
        assert!(matches!(
            readme.unwrap(),
            Parsed::Event(Event::DefaultBranchPush { .. })
        ));
    }
}
