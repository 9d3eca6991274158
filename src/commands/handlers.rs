//! One handler per verb. Every command is acknowledged (eyes), authorised (the collaborator
//! permission API: write or admin, which covers maintain and custom roles built on them), and
//! answered: a reaction, a reply, or a queued migration whose status comment follows.

use crate::config::{Config, REPO_CONFIG_PATH};
use crate::github::api::RepoApi;
use crate::github::render;
use crate::github::webhook::CommentEvent;
use crate::store::jobs::{Enqueued, JobKind, JobRow, NewJob};
use crate::worker::{Context, MigrateRequest};

use super::{Command, ParseError};

/// Base permissions that may command Uplift (GitHub reports maintain as write).
const WRITE_PERMISSIONS: &[&str] = &["admin", "write"];

pub async fn on_comment(ctx: &Context, c: &CommentEvent) -> anyhow::Result<String> {
    let Some(parsed) = super::parse(&c.body, &ctx.github.slug) else {
        return Ok("no command".into());
    };
    let api = ctx.github.repo(c.installation, &c.repo).await?;
    api.react(c.comment_id, "eyes").await?;
    if !may_command(&api, c).await? {
        api.react(c.comment_id, "confused").await?;
        // No `@author`: what the app publishes mentions no one (`github::inert`); the author
        // follows the thread they commented in.
        api.comment(
            c.issue_number,
            "Uplift commands need write access to this repository.",
        )
        .await?;
        return Ok(format!("denied {}", c.author));
    }
    ctx.store
        .activate_repository(c.installation, &c.repo)
        .await?;
    let command = match parsed {
        Ok(command) => command,
        Err(e) => {
            api.react(c.comment_id, "confused").await?;
            let help = render::help(&ctx.github.slug);
            let reply = match &e {
                ParseError::UnknownVerb(_) => format!("{e}.\n\n{help}"),
                ParseError::BadArgument(_) => {
                    format!("{e}. `@{} help` lists the commands.", ctx.github.slug)
                }
            };
            api.comment(c.issue_number, &reply).await?;
            return Ok(format!("parse error: {e}"));
        }
    };
    let key = format!("comment-{}", c.comment_id);
    let request = |target, dry_run, plan_only, recreate| MigrateRequest {
        issue: Some(c.issue_number),
        comment_id: Some(c.comment_id),
        requested_by: c.author.clone(),
        target,
        dry_run,
        plan_only,
        recreate,
    };
    match command {
        Command::Help => {
            api.comment(c.issue_number, &render::help(&ctx.github.slug))
                .await?;
            Ok("help".into())
        }
        Command::Migrate { target, dry_run } => {
            let target = match target {
                Some(t) => t,
                None => configured_target(&api).await?,
            };
            ctx.store.undecline_target(&c.repo, target).await?;
            let r = request(target, dry_run, false, false);
            reply_enqueued(ctx, &api, c, r, &key).await
        }
        Command::Plan { target } => {
            let target = match target {
                Some(t) => t,
                None => configured_target(&api).await?,
            };
            reply_enqueued(ctx, &api, c, request(target, true, true, false), &key).await
        }
        Command::Recreate | Command::Retry => {
            let Some(last) = ctx.store.migrations(&c.repo, 1).await?.into_iter().next() else {
                api.comment(
                    c.issue_number,
                    &format!(
                        "There is no earlier migration here; `@{} migrate` starts one.",
                        ctx.github.slug
                    ),
                )
                .await?;
                return Ok("nothing to retry".into());
            };
            let mut r: MigrateRequest = serde_json::from_value(last.payload)?;
            r.issue = Some(c.issue_number);
            r.comment_id = Some(c.comment_id);
            r.requested_by = c.author.clone();
            if command == Command::Recreate {
                // The branch is what recreate is about: after a `plan` or a dry run it still
                // rebuilds the branch rather than repeating what never touched it.
                r.recreate = true;
                r.dry_run = false;
                r.plan_only = false;
            } else {
                r.recreate = false;
            }
            reply_enqueued(ctx, &api, c, r, &key).await
        }
        Command::Cancel => {
            let n = ctx.store.request_cancel(&c.repo, None).await?;
            // A queued migration never wrote a status comment: only a running one will say
            // when it stopped.
            let text = match (n.queued, n.running) {
                (0, 0) => "Nothing is running.",
                (_, 0) => "Cancelled before it started; nothing was pushed.",
                _ => "Cancelling: the status comment will say when it stopped.",
            };
            api.comment(c.issue_number, text).await?;
            Ok(format!(
                "cancel: {} queued, {} running",
                n.queued, n.running
            ))
        }
        Command::Status => {
            let jobs = ctx.store.migrations(&c.repo, 5).await?;
            api.comment(c.issue_number, &status_reply(&jobs)).await?;
            Ok("status".into())
        }
    }
}

/// Always asks the permission API: a webhook's `author_association` is no verdict (a private
/// member of the owning organisation is reported as `NONE` or `CONTRIBUTOR`).
async fn may_command(api: &RepoApi, c: &CommentEvent) -> anyhow::Result<bool> {
    let permission = api.permission(&c.author).await?;
    Ok(WRITE_PERMISSIONS.contains(&permission.as_str()))
}

/// The repository's configured target on its default branch (the default when it has none).
async fn configured_target(api: &RepoApi) -> anyhow::Result<u32> {
    Ok(match api.file(REPO_CONFIG_PATH, None).await? {
        Some(text) => Config::parse(&text)
            .map(|c| c.target)
            .unwrap_or(Config::default().target),
        None => Config::default().target,
    })
}

async fn reply_enqueued(
    ctx: &Context,
    api: &RepoApi,
    c: &CommentEvent,
    request: MigrateRequest,
    key: &str,
) -> anyhow::Result<String> {
    let outcome = enqueue_migration(ctx, c.installation, &c.repo, request, key).await?;
    if let Some(busy) = outcome.strip_prefix("busy:") {
        api.comment(
            c.issue_number,
            &format!("A migration to the same target is already {busy}. `@{} status` shows where it stands; `@{} cancel` stops it.", ctx.github.slug, ctx.github.slug),
        )
        .await?;
    }
    Ok(outcome)
}

/// Queues a migration; the result says whether it was queued, seen before, or busy.
pub async fn enqueue_migration(
    ctx: &Context,
    installation: i64,
    repo: &str,
    request: MigrateRequest,
    key: &str,
) -> anyhow::Result<String> {
    let job = NewJob {
        kind: JobKind::Migrate,
        installation_id: installation,
        repo: repo.to_string(),
        target: request.target,
        idempotency_key: format!("{installation}/{repo}/{key}"),
        payload: serde_json::to_value(&request)?,
        max_attempts: ctx.settings.max_attempts,
    };
    Ok(match ctx.store.enqueue(&job).await? {
        Enqueued::Created(id) => {
            ctx.wake.notify_waiters();
            format!("queued {id}")
        }
        Enqueued::Duplicate => "duplicate request".into(),
        Enqueued::Busy(active) => format!("busy:{}", active.state),
    })
}

/// Queues `origin`'s request again (Re-run button, retry).
pub async fn requeue(
    ctx: &Context,
    installation: i64,
    origin: &JobRow,
    key: &str,
) -> anyhow::Result<String> {
    let request: MigrateRequest = serde_json::from_value(origin.payload.clone())?;
    enqueue_migration(ctx, installation, &origin.repo, request, key).await
}

fn status_reply(jobs: &[JobRow]) -> String {
    if jobs.is_empty() {
        return "No migrations yet.".into();
    }
    let mut md =
        String::from("| job | target | state | attempts | result |\n|---|---|---|---|---|\n");
    for j in jobs {
        md.push_str(&format!(
            "| `{}` | Java {} | {} | {}/{} | {} |\n",
            &j.id[..8],
            j.target,
            j.state,
            j.attempts,
            j.max_attempts,
            j.result
                .as_deref()
                .unwrap_or("")
                .replace('|', "\\|")
                .replace('\n', " ")
        ));
    }
    md
}
