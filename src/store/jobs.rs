//! The job queue: leased claims (`FOR UPDATE SKIP LOCKED` on PostgreSQL, a single atomic
//! `UPDATE ... RETURNING` on SQLite, whose writers are serialised), heartbeats, retries with an
//! attempt cap, and cancellation requests that the running worker notices at its next heartbeat.

use std::time::Duration;

use anyhow::Context;
use serde::Serialize;
// Dynamic SQL here only splices the constant column list, the backend's lock clause and
// numbered placeholder lists.
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use super::{Backend, Store, now_ms};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A verified webhook event to act on (authorise, react, enqueue a migration ...).
    Event,
    Migrate,
}

impl JobKind {
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Event => "event",
            JobKind::Migrate => "migrate",
        }
    }
}

#[derive(Debug, Clone)]
pub struct NewJob {
    pub kind: JobKind,
    pub installation_id: i64,
    pub repo: String,
    pub target: u32,
    /// Unique per request: a redelivered webhook or a repeated command is not queued twice.
    pub idempotency_key: String,
    pub payload: serde_json::Value,
    pub max_attempts: u32,
}

/// A verified webhook delivery to record, with the event job it queues.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub id: String,
    pub event: String,
    pub job: Option<NewJob>,
}

#[derive(Debug, Clone, Serialize)]
pub struct JobRow {
    pub id: String,
    pub kind: String,
    pub installation_id: i64,
    pub repo: String,
    pub target: u32,
    pub payload: serde_json::Value,
    pub state: String,
    pub attempts: u32,
    pub max_attempts: u32,
    pub cancel_requested: bool,
    pub checkpoint: serde_json::Value,
    pub result: Option<String>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
}

#[derive(Debug)]
pub enum Enqueued {
    Created(String),
    /// The idempotency key was seen before.
    Duplicate,
    /// Another migration of this repository and target is queued or running.
    Busy(Box<JobRow>),
}

/// What a cancel request reached: queued jobs (cancelled at once) and running ones (asked to
/// stop; their worker notices at its next heartbeat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled {
    pub queued: u64,
    pub running: u64,
}

/// What a heartbeat learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    Held {
        cancel_requested: bool,
    },
    /// Another worker owns the job now (ours expired): stop without touching anything.
    Lost,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinalState {
    Done,
    Failed,
    Cancelled,
}

impl FinalState {
    fn as_str(self) -> &'static str {
        match self {
            FinalState::Done => "done",
            FinalState::Failed => "failed",
            FinalState::Cancelled => "cancelled",
        }
    }
}

const COLUMNS: &str = "id, kind, installation_id, repo, target, payload, state, attempts, \
     max_attempts, cancel_requested, checkpoint, result, created_at, started_at, finished_at";

fn job_row(r: &AnyRow) -> anyhow::Result<JobRow> {
    let payload: String = r.try_get("payload")?;
    let checkpoint: String = r.try_get("checkpoint")?;
    Ok(JobRow {
        id: r.try_get("id")?,
        kind: r.try_get("kind")?,
        installation_id: r.try_get("installation_id")?,
        repo: r.try_get("repo")?,
        target: r.try_get::<i64, _>("target")? as u32,
        payload: serde_json::from_str(&payload).context("job payload")?,
        state: r.try_get("state")?,
        attempts: r.try_get::<i64, _>("attempts")? as u32,
        max_attempts: r.try_get::<i64, _>("max_attempts")? as u32,
        cancel_requested: r.try_get::<i64, _>("cancel_requested")? != 0,
        checkpoint: serde_json::from_str(&checkpoint).context("job checkpoint")?,
        result: r.try_get("result")?,
        created_at: r.try_get("created_at")?,
        started_at: r.try_get("started_at")?,
        finished_at: r.try_get("finished_at")?,
    })
}

fn ms(d: Duration) -> i64 {
    d.as_millis() as i64
}

impl Store {
    /// Records a webhook delivery and, in the same transaction, queues its job. Returns false
    /// (and queues nothing) when the delivery id was recorded before.
    pub async fn record_delivery(
        &self,
        delivery_id: &str,
        event: &str,
        job: Option<&NewJob>,
    ) -> anyhow::Result<bool> {
        let one = [Delivery {
            id: delivery_id.to_string(),
            event: event.to_string(),
            job: job.cloned(),
        }];
        Ok(self.record_deliveries(&one).await?[0])
    }

    /// Records deliveries and queues their jobs in one transaction (one sync for the lot:
    /// the webhook edge's group commit), a few multi-row statements per table for the whole
    /// batch. Each answer is [`Store::record_delivery`]'s; a delivery id twice in one batch
    /// counts once.
    pub async fn record_deliveries(&self, batch: &[Delivery]) -> anyhow::Result<Vec<bool>> {
        let mut tx = self.pool.begin().await?;
        let mut answers = insert_deliveries(&mut tx, batch).await?;
        // A fresh delivery of work already queued (the same comment under a new delivery
        // id) is a duplicate too.
        let jobs: Vec<(usize, &NewJob)> = batch
            .iter()
            .enumerate()
            .filter(|(i, _)| answers[*i])
            .filter_map(|(i, d)| d.job.as_ref().map(|job| (i, job)))
            .collect();
        let created = insert_jobs(&mut tx, jobs.iter().map(|(_, job)| *job)).await?;
        for ((i, _), id) in jobs.iter().zip(created) {
            answers[*i] = id.is_some();
        }
        tx.commit().await?;
        Ok(answers)
    }

    pub async fn enqueue(&self, job: &NewJob) -> anyhow::Result<Enqueued> {
        let mut tx = self.pool.begin().await?;
        let created = insert_jobs(&mut tx, [job]).await?.pop().flatten();
        tx.commit().await?;
        if let Some(id) = created {
            return Ok(Enqueued::Created(id));
        }
        let seen = sqlx::query("SELECT id FROM jobs WHERE idempotency_key = $1")
            .bind(&job.idempotency_key)
            .fetch_optional(&self.pool)
            .await?;
        if seen.is_none()
            && job.kind == JobKind::Migrate
            && let Some(active) = self.active_migration(&job.repo, job.target).await?
        {
            return Ok(Enqueued::Busy(Box::new(active)));
        }
        Ok(Enqueued::Duplicate)
    }

    /// Claims the oldest runnable job of `kind`: queued and due, or running with an expired
    /// lease (its worker died). Respects the per-installation limit of running jobs.
    pub async fn claim(
        &self,
        kind: JobKind,
        owner: &str,
        lease: Duration,
        per_installation: u32,
    ) -> anyhow::Result<Option<JobRow>> {
        let now = now_ms();
        // Jobs whose workers died too often are given up, not retried forever.
        sqlx::query(
            "UPDATE jobs SET state = 'failed', finished_at = $1, \
             result = 'worker lost ' || attempts || ' times; attempt cap reached' \
             WHERE state = 'running' AND lease_until < $1 AND attempts >= max_attempts",
        )
        .bind(now)
        .execute(&self.pool)
        .await?;
        let lock = match self.backend {
            Backend::Postgres => "FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE jobs SET state = 'running', lease_owner = $1, lease_until = $2, \
             attempts = attempts + 1, started_at = COALESCE(started_at, $3) \
             WHERE id = (SELECT j.id FROM jobs j WHERE j.kind = $4 AND j.attempts < j.max_attempts \
               AND ((j.state = 'queued' AND j.not_before <= $3) \
                 OR (j.state = 'running' AND j.lease_until < $3)) \
               AND (SELECT count(*) FROM jobs o WHERE o.installation_id = j.installation_id \
                 AND o.kind = j.kind AND o.state = 'running' AND o.lease_until >= $3) < $5 \
               ORDER BY j.created_at, j.id LIMIT 1 {lock}) \
             RETURNING {COLUMNS}"
        );
        let row = sqlx::query(AssertSqlSafe(sql))
            .bind(owner)
            .bind(now + ms(lease))
            .bind(now)
            .bind(kind.as_str())
            .bind(i64::from(per_installation))
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(job_row).transpose()
    }

    /// Extends the lease; tells whether a cancel was requested or the lease was lost.
    pub async fn heartbeat(&self, id: &str, owner: &str, lease: Duration) -> anyhow::Result<Lease> {
        let row = sqlx::query(
            "UPDATE jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND state = 'running' \
             RETURNING cancel_requested",
        )
        .bind(now_ms() + ms(lease))
        .bind(id)
        .bind(owner)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(r) => Lease::Held {
                cancel_requested: r.try_get::<i64, _>("cancel_requested")? != 0,
            },
            None => Lease::Lost,
        })
    }

    /// Progress a restarted attempt can resume from (comment ids, pushed commit ...).
    pub async fn save_checkpoint(
        &self,
        id: &str,
        checkpoint: &serde_json::Value,
    ) -> anyhow::Result<()> {
        sqlx::query("UPDATE jobs SET checkpoint = $1 WHERE id = $2")
            .bind(checkpoint.to_string())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn finish_job(
        &self,
        id: &str,
        owner: &str,
        state: FinalState,
        result: &str,
    ) -> anyhow::Result<()> {
        sqlx::query(
            "UPDATE jobs SET state = $1, result = $2, finished_at = $3, lease_until = NULL \
             WHERE id = $4 AND lease_owner = $5",
        )
        .bind(state.as_str())
        .bind(result)
        .bind(now_ms())
        .bind(id)
        .bind(owner)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// An attempt failed: queue the job again after `delay`, or fail it at the attempt cap.
    /// A job someone asked to cancel ends cancelled instead of running again. Returns true
    /// when it was queued again.
    pub async fn retry_later(
        &self,
        id: &str,
        owner: &str,
        error: &str,
        delay: Duration,
    ) -> anyhow::Result<bool> {
        let row = sqlx::query(
            "UPDATE jobs SET \
               state = CASE WHEN cancel_requested = 1 THEN 'cancelled' \
                 WHEN attempts < max_attempts THEN 'queued' ELSE 'failed' END, \
               not_before = $1, result = $2, lease_until = NULL, \
               finished_at = CASE WHEN cancel_requested = 0 AND attempts < max_attempts \
                 THEN NULL ELSE $3 END \
             WHERE id = $4 AND lease_owner = $5 RETURNING state",
        )
        .bind(now_ms() + ms(delay))
        .bind(error)
        .bind(now_ms())
        .bind(id)
        .bind(owner)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(r) => r.try_get::<String, _>("state")? == "queued",
            None => false,
        })
    }

    /// Asks queued and running migrations of `repo` to stop. Queued ones are cancelled at once.
    pub async fn request_cancel(
        &self,
        repo: &str,
        target: Option<u32>,
    ) -> anyhow::Result<Cancelled> {
        let target = target.map(i64::from).unwrap_or(-1);
        let queued = sqlx::query(
            "UPDATE jobs SET state = 'cancelled', finished_at = $1, result = 'cancelled before start' \
             WHERE kind = 'migrate' AND repo = $2 AND ($3 < 0 OR target = $3) AND state = 'queued'",
        )
        .bind(now_ms())
        .bind(repo)
        .bind(target)
        .execute(&self.pool)
        .await?
        .rows_affected();
        let running = sqlx::query(
            "UPDATE jobs SET cancel_requested = 1 \
             WHERE kind = 'migrate' AND repo = $1 AND ($2 < 0 OR target = $2) AND state = 'running'",
        )
        .bind(repo)
        .bind(target)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(Cancelled { queued, running })
    }

    pub async fn active_migration(
        &self,
        repo: &str,
        target: u32,
    ) -> anyhow::Result<Option<JobRow>> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM jobs WHERE kind = 'migrate' AND repo = $1 AND target = $2 \
             AND state IN ('queued', 'running')"
        )))
        .bind(repo)
        .bind(i64::from(target))
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(job_row).transpose()
    }

    /// The most recent migrations of a repository, newest first.
    pub async fn migrations(&self, repo: &str, limit: i64) -> anyhow::Result<Vec<JobRow>> {
        let rows = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM jobs WHERE kind = 'migrate' AND repo = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2"
        )))
        .bind(repo)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(job_row).collect()
    }

    pub async fn job(&self, id: &str) -> anyhow::Result<Option<JobRow>> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM jobs WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(job_row).transpose()
    }

    /// Job counts by (kind, state), for metrics.
    pub async fn job_counts(&self) -> anyhow::Result<Vec<(String, String, i64)>> {
        let rows = sqlx::query("SELECT kind, state, count(*) AS n FROM jobs GROUP BY kind, state")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("kind")?, r.try_get("state")?, r.try_get("n")?)))
            .collect()
    }
}

/// Rows per statement: a batch is cut greedily into chunks of these sizes, so each table
/// sees a handful of statement texts (prepared once, then cached) and no statement carries
/// thousands of placeholders (SQLite looks each one up by a linear scan).
const ROWS_PER_STATEMENT: [usize; 4] = [64, 16, 4, 1];

fn chunked<T>(mut items: &[T]) -> impl Iterator<Item = &[T]> {
    std::iter::from_fn(move || {
        let size = ROWS_PER_STATEMENT
            .into_iter()
            .find(|&size| size <= items.len())?;
        let (chunk, rest) = items.split_at(size);
        items = rest;
        Some(chunk)
    })
}

/// `VALUES` rows of `width` numbered placeholders each (`$1, $2 ...`, which both
/// backends read), with `row(first)` writing one row's list from its first placeholder's
/// number.
fn values_rows(rows: usize, width: usize, row: impl Fn(usize) -> String) -> String {
    (0..rows)
        .map(|r| row(r * width + 1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first column of each row a statement returned.
fn returned_ids(rows: &[AnyRow]) -> anyhow::Result<std::collections::HashSet<String>> {
    Ok(rows
        .iter()
        .map(|r| r.try_get::<String, _>(0))
        .collect::<Result<_, _>>()?)
}

/// Records deliveries, a few statements for the lot: true for each one whose id is new
/// (only the first of an id repeated within the batch).
async fn insert_deliveries(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    batch: &[Delivery],
) -> anyhow::Result<Vec<bool>> {
    let now = now_ms();
    let mut fresh = Vec::with_capacity(batch.len());
    for chunk in chunked(batch) {
        let rows = values_rows(chunk.len(), 3, |n| {
            format!("(${n}, ${}, ${})", n + 1, n + 2)
        });
        let sql = format!(
            "INSERT INTO deliveries (id, event, received_at) VALUES {rows} \
             ON CONFLICT DO NOTHING RETURNING id"
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for d in chunk {
            query = query.bind(&d.id).bind(&d.event).bind(now);
        }
        let mut inserted = returned_ids(&query.fetch_all(&mut **tx).await?)?;
        fresh.extend(chunk.iter().map(|d| inserted.remove(&d.id)));
    }
    Ok(fresh)
}

/// Queues jobs, a few statements for the lot: each one's new id, or None when its
/// idempotency key (or the one-active-migration rule) says it exists, from before or
/// earlier in `jobs`.
async fn insert_jobs<'j>(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    jobs: impl IntoIterator<Item = &'j NewJob>,
) -> anyhow::Result<Vec<Option<String>>> {
    let jobs: Vec<(String, &NewJob)> = jobs
        .into_iter()
        .map(|job| (uuid::Uuid::new_v4().to_string(), job))
        .collect();
    let now = now_ms();
    let mut created = Vec::with_capacity(jobs.len());
    for chunk in chunked(&jobs) {
        let rows = values_rows(chunk.len(), 9, |n| {
            let p: Vec<String> = (n..n + 9).map(|i| format!("${i}")).collect();
            format!(
                "({}, 'queued', {}, {}, {})",
                p[..7].join(", "),
                p[7],
                p[8],
                p[8]
            )
        });
        let sql = format!(
            "INSERT INTO jobs (id, kind, installation_id, repo, target, idempotency_key, \
             payload, state, max_attempts, not_before, created_at) VALUES {rows} \
             ON CONFLICT DO NOTHING RETURNING id"
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for (id, job) in chunk {
            query = query
                .bind(id)
                .bind(job.kind.as_str())
                .bind(job.installation_id)
                .bind(&job.repo)
                .bind(i64::from(job.target))
                .bind(&job.idempotency_key)
                .bind(job.payload.to_string())
                .bind(i64::from(job.max_attempts))
                .bind(now);
        }
        let inserted = returned_ids(&query.fetch_all(&mut **tx).await?)?;
        created.extend(
            chunk
                .iter()
                .map(|(id, _)| inserted.contains(id).then(|| id.clone())),
        );
    }
    Ok(created)
}
