//! The worker: claims jobs from the shared queue and runs them. Event jobs (a verified webhook:
//! authorise, react, queue a migration) and migration jobs have their own loops so a long
//! migration never delays the acknowledgement of a command. A heartbeat extends each lease;
//! a job whose worker died is claimed again when its lease expires. Event jobs are handled
//! by the layer above (`commands`) through [`EventHandler`]; the worker runs migrations.

pub mod migrate;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, watch};

use crate::build::sandbox::Sandbox;
use crate::github::GitHub;
use crate::metrics::METRICS;
use crate::settings::Settings;
use crate::store::Store;
use crate::store::jobs::{FinalState, JobKind, JobRow, Lease};

/// What a migration job was asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MigrateRequest {
    /// Issue or PR whose status comment reports the run (none for config-triggered runs).
    pub issue: Option<u64>,
    pub comment_id: Option<u64>,
    pub requested_by: String,
    pub target: u32,
    pub dry_run: bool,
    /// `plan`: analysis, plan and cost estimate as a comment; nothing pushed.
    pub plan_only: bool,
    /// Start the branch over even if others added commits to it.
    pub recreate: bool,
}

/// Everything a job handler needs.
#[derive(Clone)]
pub struct Context {
    pub store: Store,
    pub github: Arc<GitHub>,
    pub settings: Arc<Settings>,
    /// Woken when a job is queued, so idle workers need not wait for the next poll.
    pub wake: Arc<Notify>,
    /// The build sandbox, checked at start-up; `None` only with `UPLIFT_UNSAFE_NO_SANDBOX=1`.
    pub sandbox: Option<Sandbox>,
    /// What event jobs do (comments, buttons, installations, pushes).
    pub events: Arc<dyn EventHandler>,
}

/// Handles one event job. The command layer above the worker implements it, so the worker
/// queues, leases and retries event jobs without knowing their handlers.
pub trait EventHandler: Send + Sync {
    fn handle<'a>(
        &'a self,
        ctx: &'a Context,
        job: &'a JobRow,
    ) -> Pin<Box<dyn Future<Output = anyhow::Result<Ended>> + Send + 'a>>;
}

/// How a job ended, as the handler reports it.
pub enum Ended {
    Finished(FinalState, String),
    /// A transient failure (GitHub down, rate limit): try again later.
    Retry(String),
}

const IDLE_POLL: Duration = Duration::from_secs(2);

pub fn worker_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    format!(
        "{}-{}-{}",
        host.trim(),
        std::process::id(),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

/// Runs event and migration loops until `stop` turns true.
pub async fn run(ctx: Context, stop: watch::Receiver<bool>) {
    let mut loops = Vec::new();
    loops.push(tokio::spawn(job_loop(
        ctx.clone(),
        JobKind::Event,
        1000,
        stop.clone(),
    )));
    for _ in 0..ctx.settings.workers.max(1) {
        let limit = ctx.settings.installation_concurrency;
        loops.push(tokio::spawn(job_loop(
            ctx.clone(),
            JobKind::Migrate,
            limit,
            stop.clone(),
        )));
    }
    for l in loops {
        let _ = l.await;
    }
}

async fn job_loop(
    ctx: Context,
    kind: JobKind,
    per_installation: u32,
    mut stop: watch::Receiver<bool>,
) {
    let owner = worker_id();
    while !*stop.borrow() {
        match ctx
            .store
            .claim(kind, &owner, ctx.settings.lease, per_installation)
            .await
        {
            Ok(Some(job)) => run_one(&ctx, job, &owner).await,
            Ok(None) => {
                tokio::select! {
                    _ = ctx.wake.notified() => {}
                    _ = tokio::time::sleep(IDLE_POLL) => {}
                    _ = stop.changed() => {}
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot claim jobs");
                tokio::time::sleep(IDLE_POLL).await;
            }
        }
    }
}

/// Runs one claimed job with a heartbeat beside it. A cancel request reaches the handler
/// through `cancel`; a lost lease abandons the job without touching anything.
async fn run_one(ctx: &Context, job: JobRow, owner: &str) {
    let started = Instant::now();
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let lease = ctx.settings.lease;
    let heartbeat = {
        let store = ctx.store.clone();
        let (id, owner) = (job.id.clone(), owner.to_string());
        async move {
            loop {
                tokio::time::sleep(lease / 3).await;
                match store.heartbeat(&id, &owner, lease).await {
                    Ok(Lease::Held { cancel_requested }) => {
                        if cancel_requested {
                            let _ = cancel_tx.send(true);
                        }
                    }
                    Ok(Lease::Lost) => return,
                    Err(e) => tracing::warn!(error = %e, job = %id, "heartbeat failed"),
                }
            }
        }
    };
    let span = tracing::info_span!("job", id = %job.id, kind = %job.kind, repo = %job.repo);
    let _enter = span.enter();
    tracing::info!(attempt = job.attempts, "job started");
    let work = async {
        match job.kind.as_str() {
            "event" => ctx.events.handle(ctx, &job).await,
            _ => migrate::run(ctx, &job, cancel_rx).await,
        }
    };
    // A handler error is a failed attempt, like an explicit retry.
    let ended = tokio::select! {
        ended = work => Some(ended.unwrap_or_else(|e| Ended::Retry(format!("{e:#}")))),
        _ = heartbeat => None,
    };
    let kind = job.kind.clone();
    let label = match ended {
        None => {
            tracing::warn!("lease lost; abandoning the job to its new owner");
            "lease_lost"
        }
        Some(Ended::Finished(state, result)) => {
            let result = crate::redact::redact(&result);
            if let Err(e) = ctx.store.finish_job(&job.id, owner, state, &result).await {
                tracing::error!(error = %e, "cannot record the job's end");
            }
            match state {
                FinalState::Done => "done",
                FinalState::Failed => "failed",
                FinalState::Cancelled => "cancelled",
            }
        }
        Some(Ended::Retry(why)) => {
            let why = crate::redact::redact(&why);
            tracing::warn!(error = %why, "job attempt failed");
            let delay = Duration::from_secs(5 * u64::from(job.attempts));
            match ctx.store.retry_later(&job.id, owner, &why, delay).await {
                Ok(true) => "retry",
                _ => "failed",
            }
        }
    };
    tracing::info!(
        result = label,
        secs = started.elapsed().as_secs_f64(),
        "job ended"
    );
    METRICS
        .job_seconds
        .with_label_values(&[&kind, label])
        .observe(started.elapsed().as_secs_f64());
}
