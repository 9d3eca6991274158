//! Acting on one verified webhook event: the worker's [`EventHandler`].

use std::future::Future;
use std::pin::Pin;

use super::handlers;
use crate::config::{Config, REPO_CONFIG_PATH};
use crate::github::api::{CheckOutput, CheckRun, CheckStatus, Conclusion};
use crate::github::client::ApiError;
use crate::github::webhook::{CheckRunAction, Event};
use crate::store::jobs::{FinalState, JobRow};

use crate::worker::{Context, Ended, EventHandler, MigrateRequest};

/// The event handler the worker is given.
pub struct Events;

impl EventHandler for Events {
    fn handle<'a>(
        &'a self,
        ctx: &'a Context,
        job: &'a JobRow,
    ) -> Pin<Box<dyn Future<Output = anyhow::Result<Ended>> + Send + 'a>> {
        Box::pin(handle(ctx, job))
    }
}

async fn handle(ctx: &Context, job: &JobRow) -> anyhow::Result<Ended> {
    let event: Event = serde_json::from_value(job.payload.clone())?;
    let done = |what: &str| Ok(Ended::Finished(FinalState::Done, what.to_string()));
    let result = match event {
        Event::Ping => return done("pong"),
        Event::Installation {
            action,
            installation,
            account,
            repositories,
        } => {
            // Deleted or suspended: no token can be had for it, so nothing may run for it.
            if matches!(action.as_str(), "deleted" | "suspend") {
                let stopped = ctx.store.remove_installation(installation).await?;
                return done(&format!(
                    "installation {action}; {stopped} migrations stopped"
                ));
            }
            ctx.store
                .upsert_installation(installation, &account)
                .await?;
            // Recorded, not activated: installing on every repository stays quiet.
            for r in repositories {
                ctx.store.upsert_repository(installation, &r).await?;
            }
            return done(&format!("installation {action}"));
        }
        Event::InstallationRepositories {
            installation,
            account,
            added,
            removed,
        } => {
            ctx.store
                .upsert_installation(installation, &account)
                .await?;
            for r in removed {
                ctx.store.remove_repository(&r).await?;
            }
            // Added repositories are recorded; those that opted in are proposed their migration.
            let mut proposed = Vec::new();
            for r in added {
                ctx.store.upsert_repository(installation, &r).await?;
                let key = format!("added-{}", job.id);
                match propose_if_opted_in(ctx, installation, &r, &key).await {
                    Ok(what) => proposed.push(format!("{r}: {what}")),
                    Err(e) if is_transient(&e) => return Ok(Ended::Retry(format!("{e:#}"))),
                    Err(e) => return Err(e),
                }
            }
            return done(&format!("repositories updated; {}", proposed.join("; ")));
        }
        Event::IssueComment(comment) => handlers::on_comment(ctx, &comment).await,
        Event::PullRequestClosed {
            repo,
            number,
            head_ref,
            merged,
            ..
        } => {
            let Some(target) = head_ref
                .strip_prefix(crate::workspace::BRANCH_PREFIX)
                .and_then(|t| t.parse::<u32>().ok())
            else {
                return done("not a migration branch");
            };
            let learned = learn(ctx, &repo, number, target, merged).await?;
            if merged {
                return done(&format!("merged; {learned} solved examples confirmed"));
            }
            ctx.store.decline_target(&repo, target).await?;
            return done(&format!(
                "declined: not proposed again until asked; {learned} solved examples lowered"
            ));
        }
        Event::CheckRun {
            installation,
            repo,
            action,
            external_id,
            ..
        } => {
            let Some(job_id) = external_id else {
                return done("check run without a job id");
            };
            let Some(origin) = ctx.store.job(&job_id).await? else {
                return done("unknown job");
            };
            match action {
                CheckRunAction::Cancel => {
                    ctx.store.request_cancel(&repo, Some(origin.target)).await?;
                    return done("cancel requested");
                }
                CheckRunAction::Rerun => {
                    handlers::requeue(ctx, installation, &origin, &format!("check-{}", job.id))
                        .await
                }
            }
        }
        Event::ConfigPush {
            installation,
            repo,
            after,
        } => on_config_push(ctx, installation, &repo, &after).await,
        Event::DefaultBranchPush {
            installation,
            repo,
            after,
        } => on_default_branch_push(ctx, installation, &repo, &after).await,
    };
    match result {
        Ok(what) => done(&what),
        Err(e) if is_transient(&e) => Ok(Ended::Retry(format!("{e:#}"))),
        Err(e) => Err(e),
    }
}

/// GitHub being unreachable, rate limiting or failing is worth another attempt.
fn is_transient(e: &anyhow::Error) -> bool {
    match e.downcast_ref::<ApiError>() {
        Some(ApiError::Status { status, .. }) => *status >= 500,
        Some(ApiError::RateLimited(_) | ApiError::Transport(_)) => true,
        _ => false,
    }
}

/// A push changed `.github/uplift.yml` on the default branch: validate it, report on a check
/// run of that commit, and (when valid and not declined) propose the migration.
async fn on_config_push(
    ctx: &Context,
    installation: i64,
    repo: &str,
    sha: &str,
) -> anyhow::Result<String> {
    let api = ctx.github.repo(installation, repo).await?;
    let Some(text) = api.file(REPO_CONFIG_PATH, Some(sha)).await? else {
        return Ok("config removed".into());
    };
    let parsed = Config::parse(&text).and_then(|c| c.validate().map(|_| c));
    let (conclusion, summary) = match &parsed {
        Ok(c) => (
            Conclusion::Success,
            format!("`{REPO_CONFIG_PATH}` is valid: target Java {}.", c.target),
        ),
        Err(e) => (
            Conclusion::Failure,
            format!("`{REPO_CONFIG_PATH}` is invalid:\n\n```\n{e:#}\n```"),
        ),
    };
    api.create_check(&CheckRun {
        name: "uplift/config".into(),
        head_sha: Some(sha.into()),
        status: CheckStatus::Completed,
        conclusion: Some(conclusion),
        external_id: String::new(),
        details_url: None,
        completed_at: Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        output: CheckOutput {
            title: if parsed.is_ok() {
                "Uplift config is valid".into()
            } else {
                "Uplift config has errors".into()
            },
            summary,
            text: None,
            annotations: Vec::new(),
        },
        actions: Vec::new(),
    })
    .await?;
    let Ok(config) = parsed else {
        return Ok("invalid config reported".into());
    };
    propose(
        ctx,
        installation,
        repo,
        config.target,
        &format!("config-{sha}"),
    )
    .await
    .map(|r| format!("valid config; {r}"))
}

/// The default branch moved: each open migration PR of the repository is brought up to date
/// by its migration running again on the new head (a branch that holds only the app's
/// commits is rebuilt on it; one a person pushed to is left alone and they are told, as for
/// any run). Repositories with no migration make no GitHub call.
async fn on_default_branch_push(
    ctx: &Context,
    installation: i64,
    repo: &str,
    sha: &str,
) -> anyhow::Result<String> {
    let mut newest_per_target: Vec<JobRow> = Vec::new();
    for job in ctx.store.migrations(repo, 20).await? {
        if !newest_per_target.iter().any(|j| j.target == job.target) {
            newest_per_target.push(job);
        }
    }
    if newest_per_target.is_empty() {
        return Ok("no migration".into());
    }
    let api = ctx.github.repo(installation, repo).await?;
    let mut updated = Vec::new();
    for job in newest_per_target {
        let branch = crate::workspace::branch_for(job.target);
        if api.open_pull(&branch).await?.is_none() {
            continue;
        }
        let mut request: MigrateRequest = serde_json::from_value(job.payload.clone())?;
        // Quietly, on the PR only: no reaction on the old comment, no new status comment.
        request.issue = None;
        request.comment_id = None;
        request.requested_by = format!("push {}", &sha[..sha.len().min(8)]);
        request.recreate = false;
        request.plan_only = false;
        request.dry_run = false;
        let queued = handlers::enqueue_migration(
            ctx,
            installation,
            repo,
            request,
            &format!("update-{}-{sha}", job.target),
        )
        .await?;
        updated.push(format!("{branch}: {queued}"));
    }
    Ok(if updated.is_empty() {
        "no open migration PR".into()
    } else {
        format!("brought up to date: {}", updated.join("; "))
    })
}

/// A repository added to the installation: when its default branch has a valid
/// `.github/uplift.yml` it opted in, and its migration is proposed.
async fn propose_if_opted_in(
    ctx: &Context,
    installation: i64,
    repo: &str,
    key: &str,
) -> anyhow::Result<String> {
    let api = ctx.github.repo(installation, repo).await?;
    let Some(text) = api.file(REPO_CONFIG_PATH, None).await? else {
        return Ok("not opted in".into());
    };
    match Config::parse(&text).and_then(|c| c.validate().map(|_| c)) {
        Ok(config) => propose(ctx, installation, repo, config.target, key).await,
        Err(e) => Ok(format!("invalid config, not proposed: {e:#}")),
    }
}

/// An opted-in repository: activated, and its migration to `target` queued unless that
/// target was declined (a migration PR closed unmerged).
async fn propose(
    ctx: &Context,
    installation: i64,
    repo: &str,
    target: u32,
    key: &str,
) -> anyhow::Result<String> {
    ctx.store.activate_repository(installation, repo).await?;
    if ctx.store.is_declined(repo, target).await? {
        return Ok("target declined earlier, not proposed".into());
    }
    handlers::enqueue_migration(
        ctx,
        installation,
        repo,
        MigrateRequest {
            issue: None,
            comment_id: None,
            requested_by: "config".into(),
            target,
            dry_run: false,
            plan_only: false,
            recreate: false,
        },
        key,
    )
    .await
}

/// The knowledge store learns from the PR's fate: the latest migration of this repository
/// and target names its run, whose teachable fixes are learnt (merged) or lowered
/// (closed). A PR can be merged while its job is still finishing (the PR and checks are
/// published before the job records its end): that job's run counts, not an older one.
async fn learn(
    ctx: &Context,
    repo: &str,
    number: u64,
    target: u32,
    merged: bool,
) -> anyhow::Result<usize> {
    let jobs = ctx.store.migrations(repo, 20).await?;
    let Some(run_id) = jobs
        .iter()
        .filter(|j| j.target == target)
        .find_map(crate::worker::migrate::engine_run)
    else {
        return Ok(0);
    };
    let (_, journal) = ctx.store.journal(&run_id).await?;
    let features = format!("target{target}");
    let origin = format!("pr:{repo}#{number}");
    let verdict = if merged {
        crate::knowledge::Verdict::Merged
    } else {
        crate::knowledge::Verdict::Closed
    };
    crate::knowledge::learn(&ctx.store, &journal, &features, &origin, verdict).await
}
