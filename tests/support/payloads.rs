//! Webhook payloads shaped like GitHub's webhook documents, their signature, and the user and
//! repository objects that the fake REST API shares with them.
//!
//! Ids are derived from names ([`repo_id`], [`stable_id`]), so a payload names the same
//! repository id as [`super::fake_github::FakeGitHub`] serves for that repository.

use chrono::{SecondsFormat, Utc};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// API root written into the URLs of webhook payloads.
pub const API: &str = "https://api.github.com";

/// A stable id in 1..=999_999_999 derived from `key` (FNV-1a).
pub fn stable_id(key: &str) -> u64 {
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % 999_999_999 + 1
}

/// The id of repository `full_name` (`owner/name`), the same in payloads and in the fake.
pub fn repo_id(full_name: &str) -> u64 {
    stable_id(&format!("repo:{}", full_name.to_ascii_lowercase()))
}

/// GitHub's `simple-user` object; `kind` is `User`, `Bot` or `Organization`.
pub fn user(api: &str, login: &str, kind: &str) -> Value {
    let id = stable_id(&format!("user:{login}"));
    let escaped = login.replace('[', "%5B").replace(']', "%5D");
    let url = format!("{api}/users/{escaped}");
    let html_url = match login.strip_suffix("[bot]") {
        Some(slug) => format!("https://github.com/apps/{slug}"),
        None => format!("https://github.com/{escaped}"),
    };
    json!({
        "login": login,
        "id": id,
        "node_id": format!("U_{id}"),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{id}?v=4"),
        "gravatar_id": "",
        "url": url,
        "html_url": html_url,
        "followers_url": format!("{url}/followers"),
        "following_url": format!("{url}/following{{/other_user}}"),
        "gists_url": format!("{url}/gists{{/gist_id}}"),
        "starred_url": format!("{url}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{url}/subscriptions"),
        "organizations_url": format!("{url}/orgs"),
        "repos_url": format!("{url}/repos"),
        "events_url": format!("{url}/events{{/privacy}}"),
        "received_events_url": format!("{url}/received_events"),
        "type": kind,
        "site_admin": false,
    })
}

/// GitHub's full `repository` object for public repository `full_name`, owned by an organization.
pub fn repository(api: &str, full_name: &str, default_branch: &str) -> Value {
    let (owner, name) = split_full_name(full_name);
    let id = repo_id(full_name);
    let url = format!("{api}/repos/{full_name}");
    let html_url = format!("https://github.com/{full_name}");
    let mut repo = json!({
        "id": id,
        "node_id": format!("R_{id}"),
        "name": name,
        "full_name": full_name,
        "private": false,
        "owner": user(api, owner, "Organization"),
        "html_url": html_url,
        "description": null,
        "fork": false,
        "url": url,
        "branches_url": format!("{url}/branches{{/branch}}"),
        "collaborators_url": format!("{url}/collaborators{{/collaborator}}"),
        "comments_url": format!("{url}/comments{{/number}}"),
        "commits_url": format!("{url}/commits{{/sha}}"),
        "contents_url": format!("{url}/contents/{{+path}}"),
        "git_refs_url": format!("{url}/git/refs{{/sha}}"),
        "hooks_url": format!("{url}/hooks"),
        "issue_comment_url": format!("{url}/issues/comments{{/number}}"),
        "issues_url": format!("{url}/issues{{/number}}"),
        "pulls_url": format!("{url}/pulls{{/number}}"),
        "statuses_url": format!("{url}/statuses/{{sha}}"),
        "git_url": format!("git://github.com/{full_name}.git"),
        "ssh_url": format!("git@github.com:{full_name}.git"),
        "clone_url": format!("{html_url}.git"),
        "svn_url": html_url,
    });
    let templates = json!({
        "archive_url": format!("{url}/{{archive_format}}{{/ref}}"),
        "assignees_url": format!("{url}/assignees{{/user}}"),
        "blobs_url": format!("{url}/git/blobs{{/sha}}"),
        "compare_url": format!("{url}/compare/{{base}}...{{head}}"),
        "contributors_url": format!("{url}/contributors"),
        "deployments_url": format!("{url}/deployments"),
        "downloads_url": format!("{url}/downloads"),
        "events_url": format!("{url}/events"),
        "forks_url": format!("{url}/forks"),
        "git_commits_url": format!("{url}/git/commits{{/sha}}"),
        "git_tags_url": format!("{url}/git/tags{{/sha}}"),
        "issue_events_url": format!("{url}/issues/events{{/number}}"),
        "keys_url": format!("{url}/keys{{/key_id}}"),
        "labels_url": format!("{url}/labels{{/name}}"),
        "languages_url": format!("{url}/languages"),
        "merges_url": format!("{url}/merges"),
        "milestones_url": format!("{url}/milestones{{/number}}"),
        "notifications_url": format!("{url}/notifications{{?since,all,participating}}"),
        "releases_url": format!("{url}/releases{{/id}}"),
        "stargazers_url": format!("{url}/stargazers"),
        "subscribers_url": format!("{url}/subscribers"),
        "subscription_url": format!("{url}/subscription"),
        "tags_url": format!("{url}/tags"),
        "teams_url": format!("{url}/teams"),
        "trees_url": format!("{url}/git/trees{{/sha}}"),
    });
    merge(&mut repo, templates);
    let counts_and_flags = json!({
        "homepage": null,
        "size": 0,
        "stargazers_count": 0,
        "watchers_count": 0,
        "language": "Java",
        "has_issues": true,
        "has_projects": false,
        "has_downloads": true,
        "has_wiki": false,
        "has_pages": false,
        "forks_count": 0,
        "forks": 0,
        "watchers": 0,
        "open_issues": 0,
        "mirror_url": null,
        "license": null,
        "has_discussions": false,
        "archived": false,
        "disabled": false,
        "open_issues_count": 0,
        "topics": [],
        "visibility": "public",
        "default_branch": default_branch,
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-01T00:00:00Z",
        "pushed_at": "2020-01-01T00:00:00Z",
    });
    merge(&mut repo, counts_and_flags);
    repo
}

/// Adds the fields of object `more` to object `value` (keeps each `json!` call small enough
/// for the macro recursion limit).
pub fn merge(value: &mut Value, more: Value) {
    if let (Value::Object(value), Value::Object(more)) = (value, more) {
        value.extend(more);
    }
}

/// Splits `owner/name`; panics on anything else, since tests pass literal names.
pub fn split_full_name(full_name: &str) -> (&str, &str) {
    full_name
        .split_once('/')
        .unwrap_or_else(|| panic!("repository name {full_name:?} is not owner/name"))
}

/// `X-Hub-Signature-256` of `body` under webhook secret `secret`: `sha256=<hex>`.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The headers GitHub sends with a delivery of `event`: event name, delivery id, signature.
pub fn delivery_headers(event: &str, secret: &str, body: &[u8]) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", "application/json".to_owned()),
        ("user-agent", "GitHub-Hookshot/fake".to_owned()),
        ("x-github-event", event.to_owned()),
        ("x-github-delivery", uuid::Uuid::new_v4().to_string()),
        ("x-github-hook-id", "1".to_owned()),
        ("x-hub-signature-256", sign(secret, body)),
    ]
}

/// `ping`, sent when an App's webhook is created.
pub fn ping(hook_id: u64) -> Value {
    json!({
        "zen": "Keep it logically awesome.",
        "hook_id": hook_id,
        "hook": {
            "type": "App",
            "id": hook_id,
            "name": "web",
            "active": true,
            "events": ["check_run", "installation", "issue_comment", "pull_request", "push"],
            "config": {
                "content_type": "json",
                "insecure_ssl": "0",
                "url": "https://uplift.example.invalid/webhook",
            },
            "updated_at": now(),
            "created_at": now(),
            "deliveries_url": format!("{API}/app/hook/deliveries"),
        },
    })
}

/// `installation` with action `created` for an organization `account` that selected `repos`
/// (repository names without owner).
pub fn installation_created(installation_id: u64, account: &str, repos: &[&str]) -> Value {
    installation_event("created", installation_id, account, repos)
}

/// `installation` with `action` (`created`, `deleted`, `suspend`, `unsuspend`, ...) for an
/// organization `account` whose selected repositories are `repos` (names without owner).
pub fn installation_event(
    action: &str,
    installation_id: u64,
    account: &str,
    repos: &[&str],
) -> Value {
    let mut installation = installation(installation_id, account);
    if action == "suspend" {
        installation["suspended_by"] = user(API, &format!("{account}-admin"), "User");
        installation["suspended_at"] = json!(now());
    }
    json!({
        "action": action,
        "installation": installation,
        "repositories": installation_repos(account, repos),
        "requester": null,
        "sender": user(API, &format!("{account}-admin"), "User"),
    })
}

/// `installation_repositories` with action `added`.
pub fn installation_repositories_added(
    installation_id: u64,
    account: &str,
    added: &[&str],
) -> Value {
    json!({
        "action": "added",
        "installation": installation(installation_id, account),
        "repository_selection": "selected",
        "repositories_added": installation_repos(account, added),
        "repositories_removed": [],
        "requester": null,
        "sender": user(API, &format!("{account}-admin"), "User"),
    })
}

/// `issue_comment` with action `created`: comment `comment_id` by `user_login` on issue (or pull
/// request, when `is_pull_request`) `issue_number` of `full_name`.
#[allow(clippy::too_many_arguments)]
pub fn issue_comment_created(
    installation_id: u64,
    full_name: &str,
    issue_number: u64,
    is_pull_request: bool,
    comment_id: u64,
    user_login: &str,
    user_type: &str,
    author_association: &str,
    body: &str,
) -> Value {
    let repo_url = format!("{API}/repos/{full_name}");
    let issue_url = format!("{repo_url}/issues/{issue_number}");
    let html_kind = if is_pull_request { "pull" } else { "issues" };
    let issue_html = format!("https://github.com/{full_name}/{html_kind}/{issue_number}");
    let issue_id = stable_id(&format!("issue:{full_name}#{issue_number}"));
    let mut issue = json!({
        "url": issue_url,
        "repository_url": repo_url,
        "labels_url": format!("{issue_url}/labels{{/name}}"),
        "comments_url": format!("{issue_url}/comments"),
        "events_url": format!("{issue_url}/events"),
        "html_url": issue_html,
        "id": issue_id,
        "node_id": format!("I_{issue_id}"),
        "number": issue_number,
        "title": format!("Issue {issue_number}"),
        "user": user(API, user_login, user_type),
        "labels": [],
        "state": "open",
        "locked": false,
        "assignee": null,
        "assignees": [],
        "milestone": null,
        "comments": 1,
        "created_at": now(),
        "updated_at": now(),
        "closed_at": null,
        "author_association": author_association,
        "active_lock_reason": null,
        "body": null,
    });
    if is_pull_request {
        issue["pull_request"] = json!({
            "url": format!("{repo_url}/pulls/{issue_number}"),
            "html_url": issue_html,
            "diff_url": format!("{issue_html}.diff"),
            "patch_url": format!("{issue_html}.patch"),
            "merged_at": null,
        });
    }
    json!({
        "action": "created",
        "issue": issue,
        "comment": {
            "url": format!("{repo_url}/issues/comments/{comment_id}"),
            "html_url": format!("{issue_html}#issuecomment-{comment_id}"),
            "issue_url": issue_url,
            "id": comment_id,
            "node_id": format!("IC_{comment_id}"),
            "user": user(API, user_login, user_type),
            "created_at": now(),
            "updated_at": now(),
            "author_association": author_association,
            "body": body,
            "performed_via_github_app": null,
        },
        "repository": repository(API, full_name, "main"),
        "installation": installation_ref(installation_id),
        "sender": user(API, user_login, user_type),
    })
}

/// `issue_comment` with action `edited`: comment `created` (from [`issue_comment_created`])
/// whose body changed to `body`, with the old one under `changes`.
pub fn issue_comment_edited(mut created: Value, body: &str) -> Value {
    let from = created["comment"]["body"].clone();
    created["action"] = json!("edited");
    created["changes"] = json!({ "body": { "from": from } });
    created["comment"]["body"] = json!(body);
    created["comment"]["updated_at"] = json!(now());
    created
}

/// `pull_request` with action `closed` (merged or not) for a pull request from branch `head_ref`
/// into `main`, opened by `octocat`, who also closes it.
pub fn pull_request_closed(
    installation_id: u64,
    full_name: &str,
    number: u64,
    head_ref: &str,
    merged: bool,
) -> Value {
    let (owner, _) = split_full_name(full_name);
    let repo = repository(API, full_name, "main");
    let url = format!("{API}/repos/{full_name}/pulls/{number}");
    let html_url = format!("https://github.com/{full_name}/pull/{number}");
    let id = stable_id(&format!("pull:{full_name}#{number}"));
    let closer = user(API, "octocat", "User");
    let side = |branch: &str| {
        json!({
            "label": format!("{owner}:{branch}"),
            "ref": branch,
            "sha": fake_sha(&format!("{full_name}:{branch}")),
            "user": user(API, owner, "Organization"),
            "repo": repo.clone(),
        })
    };
    let mut pull_request = json!({
            "url": url,
            "id": id,
            "node_id": format!("PR_{id}"),
            "html_url": html_url,
            "diff_url": format!("{html_url}.diff"),
            "patch_url": format!("{html_url}.patch"),
            "issue_url": format!("{API}/repos/{full_name}/issues/{number}"),
            "number": number,
            "state": "closed",
            "locked": false,
            "title": format!("Pull request {number}"),
            "user": closer.clone(),
            "body": null,
            "created_at": now(),
            "updated_at": now(),
            "closed_at": now(),
            "merged_at": if merged { json!(now()) } else { Value::Null },
            "merge_commit_sha": if merged { json!(fake_sha(&format!("{full_name}#{number}"))) } else { Value::Null },
            "assignee": null,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "labels": [],
            "milestone": null,
            "draft": false,
            "head": side(head_ref),
            "base": side("main"),
    });
    let details = json!({
            "author_association": "MEMBER",
            "auto_merge": null,
            "active_lock_reason": null,
            "merged": merged,
            "mergeable": null,
            "rebaseable": null,
            "mergeable_state": "unknown",
            "merged_by": if merged { closer.clone() } else { Value::Null },
            "comments": 0,
            "review_comments": 0,
            "maintainer_can_modify": false,
            "commits": 1,
            "additions": 0,
            "deletions": 0,
            "changed_files": 0,
    });
    merge(&mut pull_request, details);
    json!({
        "action": "closed",
        "number": number,
        "pull_request": pull_request,
        "repository": repo,
        "installation": installation_ref(installation_id),
        "sender": closer,
    })
}

/// [`pull_request_closed`] for a pull request the App opened and closed itself: `login` (its
/// bot account, `{slug}[bot]`) is both the author and the `sender`.
pub fn closed_by_bot(mut payload: Value, login: &str) -> Value {
    let bot = user(API, login, "Bot");
    payload["pull_request"]["user"] = bot.clone();
    payload["sender"] = bot;
    payload
}

/// `check_run` with `action` `requested_action` (then `identifier` names the button pressed) or
/// `rerequested`, for check run `check_run_id` named `name` of App `app_slug`.
#[allow(clippy::too_many_arguments)]
pub fn check_run_action(
    installation_id: u64,
    full_name: &str,
    app_slug: &str,
    name: &str,
    action: &str,
    check_run_id: u64,
    external_id: &str,
    identifier: Option<&str>,
    head_sha: &str,
) -> Value {
    let url = format!("{API}/repos/{full_name}/check-runs/{check_run_id}");
    let suite_id = stable_id(&format!("suite:{full_name}@{head_sha}"));
    let mut payload = json!({
        "action": action,
        "check_run": {
            "id": check_run_id,
            "node_id": format!("CR_{check_run_id}"),
            "name": name,
            "head_sha": head_sha,
            "external_id": external_id,
            "url": url,
            "html_url": format!("https://github.com/{full_name}/runs/{check_run_id}"),
            "details_url": null,
            "status": "completed",
            "conclusion": "action_required",
            "started_at": now(),
            "completed_at": now(),
            "output": {
                "title": null,
                "summary": null,
                "text": null,
                "annotations_count": 0,
                "annotations_url": format!("{url}/annotations"),
            },
            "check_suite": {
                "id": suite_id,
                "node_id": format!("CS_{suite_id}"),
                "head_branch": "main",
                "head_sha": head_sha,
                "status": "completed",
                "conclusion": "action_required",
                "before": null,
                "after": head_sha,
                "pull_requests": [],
                "created_at": now(),
                "updated_at": now(),
            },
            "pull_requests": [],
            "app": app(app_slug),
        },
        "repository": repository(API, full_name, "main"),
        "installation": installation_ref(installation_id),
        "sender": user(API, "octocat", "User"),
    });
    if let Some(identifier) = identifier {
        payload["requested_action"] = json!({ "identifier": identifier });
    }
    payload
}

/// `push` of `git_ref` (e.g. `refs/heads/main`) from `before` to `after`: one commit that
/// modifies `modified_files`. An all-zero `before`/`after` marks a created/deleted ref.
pub fn push(
    installation_id: u64,
    full_name: &str,
    git_ref: &str,
    before: &str,
    after: &str,
    modified_files: &[&str],
) -> Value {
    const ZERO: &str = "0000000000000000000000000000000000000000";
    let (owner, _) = split_full_name(full_name);
    let pusher = json!({ "name": "octocat", "email": "octocat@users.noreply.github.com" });
    let commit = json!({
        "id": after,
        "tree_id": fake_sha(&format!("tree:{after}")),
        "distinct": true,
        "message": "Update files",
        "timestamp": now(),
        "url": format!("https://github.com/{full_name}/commit/{after}"),
        "author": { "name": "octocat", "email": "octocat@users.noreply.github.com", "username": "octocat" },
        "committer": { "name": "GitHub", "email": "noreply@github.com", "username": "web-flow" },
        "added": [],
        "removed": [],
        "modified": modified_files,
    });
    let deleted = after == ZERO;
    let mut repo = repository(API, full_name, "main");
    repo["owner"]["name"] = json!(owner);
    repo["owner"]["email"] = Value::Null;
    repo["master_branch"] = json!("main");
    json!({
        "ref": git_ref,
        "before": before,
        "after": after,
        "created": before == ZERO,
        "deleted": deleted,
        "forced": false,
        "base_ref": null,
        "compare": format!("https://github.com/{full_name}/compare/{}...{}", &before[..12.min(before.len())], &after[..12.min(after.len())]),
        "commits": if deleted { json!([]) } else { json!([commit]) },
        "head_commit": if deleted { Value::Null } else { commit },
        "pusher": pusher,
        "repository": repo,
        "installation": installation_ref(installation_id),
        "sender": user(API, "octocat", "User"),
    })
}

fn installation(installation_id: u64, account: &str) -> Value {
    let account = user(API, account, "Organization");
    json!({
        "id": installation_id,
        "node_id": format!("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u{installation_id}"),
        "account": account,
        "repository_selection": "selected",
        "access_tokens_url": format!("{API}/app/installations/{installation_id}/access_tokens"),
        "repositories_url": format!("{API}/installation/repositories"),
        "html_url": format!("https://github.com/organizations/{}/settings/installations/{installation_id}", account["login"].as_str().unwrap_or_default()),
        "target_id": account["id"],
        "target_type": "Organization",
        "permissions": {
            "checks": "write",
            "contents": "write",
            "issues": "write",
            "metadata": "read",
            "pull_requests": "write",
        },
        "events": ["check_run", "issue_comment", "pull_request", "push"],
        "created_at": now(),
        "updated_at": now(),
        "single_file_name": null,
    })
}

/// GitHub's `app` object (the owner of a check run) for App `slug`.
fn app(slug: &str) -> Value {
    let id = stable_id(&format!("app:{slug}"));
    json!({
        "id": id,
        "slug": slug,
        "node_id": format!("A_{id}"),
        "owner": user(API, "acme", "Organization"),
        "name": slug,
        "description": null,
        "external_url": format!("https://{slug}.example.invalid"),
        "html_url": format!("https://github.com/apps/{slug}"),
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-01T00:00:00Z",
        "permissions": { "checks": "write", "contents": "write" },
        "events": ["check_run"],
    })
}

fn installation_ref(installation_id: u64) -> Value {
    json!({
        "id": installation_id,
        "node_id": format!("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u{installation_id}"),
    })
}

fn installation_repos(account: &str, names: &[&str]) -> Value {
    names
        .iter()
        .map(|name| {
            let full_name = format!("{account}/{name}");
            let id = repo_id(&full_name);
            json!({ "id": id, "node_id": format!("R_{id}"), "name": name, "full_name": full_name, "private": false })
        })
        .collect()
}

/// A 40-hex-digit stand-in for a commit id that a payload must name but no test checks.
fn fake_sha(key: &str) -> String {
    (0..5)
        .map(|i| format!("{:08x}", stable_id(&format!("{i}:{key}")) as u32))
        .collect()
}

fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true)
}
