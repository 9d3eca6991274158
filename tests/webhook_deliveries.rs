//! Real deliveries: every event and action Uplift handles, parsed by the app's own parser from
//! the deliveries GitHub's community keeps as examples (npm `@octokit/webhooks-examples`, pinned
//! in `tests/openapi/`, installed by `scripts/setup-github-descriptions.sh`), each into the typed
//! event it means or a deliberate ignore; not only from our own payload builders.
//!
//! Where an example cannot mean anything to Uplift as captured (a comment without a command, a
//! branch that is not a migration's), the test also parses it with only that field changed, so
//! the rest of GitHub's real shape still goes through the parser.

mod support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use uplift::config::REPO_CONFIG_PATH;
use uplift::github::webhook::{CheckRunAction, CommentEvent, Event, Parsed, parse};
use uplift::workspace::BRANCH_PREFIX;

const SLUG: &str = "uplift";
/// The installation a delivery to the App names where the example (captured from a
/// repository's webhook) has none.
const INSTALLATION: i64 = 77;

/// The examples of `event`, at least one, as (action, payload).
fn examples(event: &str) -> Vec<(String, Value)> {
    let index =
        support::openapi::package_dir("webhooks-examples").join("api.github.com/index.json");
    let all: Vec<Value> = serde_json::from_slice(
        &std::fs::read(&index).unwrap_or_else(|e| panic!("{}: {e}", index.display())),
    )
    .expect("the examples are JSON");
    let examples: Vec<(String, Value)> = all
        .into_iter()
        .find(|e| e["name"] == event)
        .unwrap_or_else(|| panic!("no examples of {event}"))["examples"]
        .as_array()
        .expect("examples")
        .iter()
        .map(|p| {
            (
                p["action"].as_str().unwrap_or_default().to_owned(),
                p.clone(),
            )
        })
        .collect();
    assert!(!examples.is_empty(), "no examples of {event}");
    examples
}

/// Asserts the examples of `event` include every action in `handled`.
fn assert_actions(event: &str, examples: &[(String, Value)], handled: &[&str]) {
    let actions: BTreeSet<&str> = examples.iter().map(|(a, _)| a.as_str()).collect();
    for action in handled {
        assert!(
            actions.contains(action),
            "no {event}.{action} example: {actions:?}"
        );
    }
}

fn parsed(event: &str, payload: &Value) -> Result<Parsed, String> {
    parse(event, &serde_json::to_vec(payload).unwrap(), SLUG).map_err(|e| e.to_string())
}

fn ignored(event: &str, why: &str) -> Result<Parsed, String> {
    Ok(Parsed::Ignored(format!("{event}: {why}")))
}

/// The delivery as the App receives it: with its installation.
fn to_app(payload: &Value) -> Value {
    let mut payload = payload.clone();
    if payload.get("installation").is_none() {
        payload["installation"] =
            json!({ "id": INSTALLATION, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNzc=" });
    }
    payload
}

fn installation(payload: &Value) -> i64 {
    payload["installation"]["id"]
        .as_i64()
        .expect("installation id")
}

fn full_name(payload: &Value) -> String {
    payload["repository"]["full_name"]
        .as_str()
        .expect("full_name")
        .to_owned()
}

/// Without an installation a delivery cannot be acted on: refused, not guessed.
fn assert_needs_installation(event: &str, payload: &Value) {
    if payload.get("installation").is_none() {
        let error = parsed(event, payload).expect_err("no installation");
        assert!(error.contains("no installation"), "{error}");
    }
}

#[test]
fn ping_examples() {
    for (_, payload) in examples("ping") {
        assert_eq!(parsed("ping", &payload), Ok(Parsed::Event(Event::Ping)));
    }
}

#[test]
fn installation_examples() {
    let examples = examples("installation");
    assert_actions(
        "installation",
        &examples,
        &["created", "deleted", "suspend", "unsuspend"],
    );
    for (action, payload) in examples {
        let repositories = payload["repositories"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|r| r["full_name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            parsed("installation", &payload),
            Ok(Parsed::Event(Event::Installation {
                action,
                installation: installation(&payload),
                account: payload["installation"]["account"]["login"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
                repositories,
            }))
        );
    }
}

#[test]
fn installation_repositories_examples() {
    let examples = examples("installation_repositories");
    assert_actions(
        "installation_repositories",
        &examples,
        &["added", "removed"],
    );
    let names = |payload: &Value, key: &str| -> Vec<String> {
        payload[key]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|r| r["full_name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    for (action, payload) in examples {
        let added = names(&payload, "repositories_added");
        let removed = names(&payload, "repositories_removed");
        assert!(!(if action == "added" { &added } else { &removed }).is_empty());
        assert_eq!(
            parsed("installation_repositories", &payload),
            Ok(Parsed::Event(Event::InstallationRepositories {
                installation: installation(&payload),
                account: payload["installation"]["account"]["login"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
                added,
                removed,
            }))
        );
    }
}

#[test]
fn issue_comment_examples() {
    let event = "issue_comment";
    let examples = examples(event);
    assert_actions(event, &examples, &["created", "edited", "deleted"]);
    for (action, payload) in examples {
        if action != "created" {
            // An edited comment is never a command (nor a deleted one).
            assert_eq!(
                parsed(event, &payload),
                ignored(event, &format!("action {action}"))
            );
            continue;
        }
        assert_eq!(parsed(event, &payload), ignored(event, "no command"));
        let mut command = payload.clone();
        command["comment"]["body"] = json!("@uplift status");
        assert_needs_installation(event, &command);
        let command = to_app(&command);
        let comment = &command["comment"];
        assert_eq!(
            parsed(event, &command),
            Ok(Parsed::Event(Event::IssueComment(CommentEvent {
                installation: installation(&command),
                repo: full_name(&command),
                issue_number: command["issue"]["number"].as_u64().unwrap(),
                is_pull_request: command["issue"].get("pull_request").is_some(),
                comment_id: comment["id"].as_u64().unwrap(),
                author: comment["user"]["login"].as_str().unwrap().to_owned(),
                body: "@uplift status".to_owned(),
            })))
        );
        let mut from_bot = command.clone();
        from_bot["comment"]["user"]["login"] = json!("uplift[bot]");
        from_bot["comment"]["user"]["type"] = json!("Bot");
        assert_eq!(parsed(event, &from_bot), ignored(event, "comment by a bot"));
    }
}

#[test]
fn pull_request_examples() {
    let event = "pull_request";
    let examples = examples(event);
    assert_actions(event, &examples, &["closed", "opened", "synchronize"]);
    for (action, payload) in examples {
        if action != "closed" {
            assert_eq!(
                parsed(event, &payload),
                ignored(event, &format!("action {action}"))
            );
            continue;
        }
        assert_eq!(
            parsed(event, &payload),
            ignored(event, "not a migration branch")
        );
        let head_ref = format!("{BRANCH_PREFIX}17");
        for merged in [false, true] {
            let mut ours = to_app(&payload);
            ours["pull_request"]["head"]["ref"] = json!(head_ref);
            ours["pull_request"]["merged"] = json!(merged);
            assert_eq!(
                parsed(event, &ours),
                Ok(Parsed::Event(Event::PullRequestClosed {
                    installation: installation(&ours),
                    repo: full_name(&ours),
                    number: ours["pull_request"]["number"].as_u64().unwrap(),
                    head_ref: head_ref.clone(),
                    merged,
                }))
            );
            ours["sender"]["login"] = json!("uplift[bot]");
            assert_eq!(parsed(event, &ours), ignored(event, "closed by this app"));
        }
    }
}

#[test]
fn check_run_examples() {
    let event = "check_run";
    let examples = examples(event);
    assert_actions(
        event,
        &examples,
        &["created", "completed", "rerequested", "requested_action"],
    );
    for (action, payload) in examples {
        // As captured: another app's check run, or one naming no app slug, which is ours
        // only for the actions GitHub sends to the owning app alone.
        let slug = payload["check_run"]["app"]["slug"].as_str();
        let owner_only = matches!(action.as_str(), "rerequested" | "requested_action");
        if slug.is_some() || !owner_only {
            assert_eq!(
                parsed(event, &payload),
                ignored(event, "check run of another app")
            );
        } else {
            assert_ne!(
                parsed(event, &payload),
                ignored(event, "check run of another app"),
                "{action} without a slug is the owner's"
            );
        }
        let mut as_captured = payload.clone();
        as_captured["check_run"]["app"]["slug"] = json!(SLUG);
        let ours = to_app(&as_captured);
        let expected = |action: CheckRunAction| {
            Ok(Parsed::Event(Event::CheckRun {
                installation: installation(&ours),
                repo: full_name(&ours),
                action,
                external_id: ours["check_run"]["external_id"].as_str().map(str::to_owned),
                head_sha: ours["check_run"]["head_sha"].as_str().unwrap().to_owned(),
            }))
        };
        match action.as_str() {
            "rerequested" => {
                assert_needs_installation(event, &as_captured);
                assert_eq!(parsed(event, &ours), expected(CheckRunAction::Rerun));
            }
            "requested_action" => {
                // A button Uplift never offered is ignored; its own buttons act.
                assert_eq!(
                    parsed(event, &ours),
                    ignored(event, "action requested_action")
                );
                for (button, meant) in [
                    ("rerun", CheckRunAction::Rerun),
                    ("cancel", CheckRunAction::Cancel),
                ] {
                    let mut pressed = ours.clone();
                    pressed["requested_action"]["identifier"] = json!(button);
                    assert_eq!(parsed(event, &pressed), expected(meant));
                }
            }
            other => assert_eq!(
                parsed(event, &ours),
                ignored(event, &format!("action {other}"))
            ),
        }
    }
}

#[test]
fn push_examples() {
    let event = "push";
    for (_, payload) in examples(event) {
        let default = payload["repository"]["default_branch"].as_str().unwrap();
        let to_default = payload["ref"] == format!("refs/heads/{default}");
        if to_default {
            // Any other push to the default branch may leave a migration PR behind.
            let app = to_app(&payload);
            assert_eq!(
                parsed(event, &app),
                Ok(Parsed::Event(Event::DefaultBranchPush {
                    installation: installation(&app),
                    repo: full_name(&app),
                    after: app["after"].as_str().unwrap().to_owned(),
                }))
            );
        } else {
            assert_eq!(
                parsed(event, &payload),
                ignored(event, "not the default branch")
            );
        }

        let mut config = payload.clone();
        config["ref"] = json!(format!("refs/heads/{default}"));
        match config["commits"].as_array_mut().and_then(|c| c.first_mut()) {
            Some(commit) => commit["modified"]
                .as_array_mut()
                .expect("a commit's modified files")
                .push(json!(REPO_CONFIG_PATH)),
            None => {
                config["commits"] = json!([{ "id": payload["after"], "added": [], "removed": [], "modified": [REPO_CONFIG_PATH] }]);
            }
        }
        assert_needs_installation(event, &config);
        let config = to_app(&config);
        assert_eq!(
            parsed(event, &config),
            Ok(Parsed::Event(Event::ConfigPush {
                installation: installation(&config),
                repo: full_name(&config),
                after: config["after"].as_str().unwrap().to_owned(),
            }))
        );
    }
}
