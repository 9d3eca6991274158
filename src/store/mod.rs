//! Every database operation: runs and their journals, webhook deliveries, installations and
//! the job queue. One SQL dialect-neutral interface over embedded SQLite (the default: one file,
//! nothing to start) or a shared PostgreSQL (`DATABASE_URL=postgres://...`, several workers).

pub mod app;
pub mod intake;
pub mod jobs;
pub mod knowledge;

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use sqlx::AnyPool;
use sqlx::Row;
use sqlx::any::AnyPoolOptions;

use crate::journal::{Entry, Journal};

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Milliseconds since the epoch: the one clock every table uses.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: String,
    pub project: String,
    pub target: i64,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub outcome: Option<String>,
}

/// `$UPLIFT_DB`, else `$XDG_DATA_HOME/uplift/uplift.db`, else `~/.local/share/uplift/uplift.db`.
/// Uplift's cache directory (`$XDG_CACHE_HOME/uplift`, else `~/.cache/uplift`).
pub fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("."))
        .join("uplift")
}

pub fn default_path() -> PathBuf {
    if let Some(p) = std::env::var_os("UPLIFT_DB") {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("uplift").join("uplift.db")
}

/// An SQLite URL that creates its file: without `mode=rwc`, SQLite opens read-write only an
/// existing file ("unable to open database file"). In-memory URLs and explicit modes stay.
fn creating(url: &str) -> String {
    let query = url.split_once('?').map(|(_, q)| q);
    if url.contains(":memory:")
        || query.is_some_and(|q| q.split('&').any(|p| p.starts_with("mode=")))
    {
        return url.to_string();
    }
    let join = if query.is_some() { '&' } else { '?' };
    format!("{url}{join}mode=rwc")
}

impl Store {
    /// Opens (creating if needed) an SQLite database file.
    pub async fn open(path: &Path) -> anyhow::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        Self::connect(&format!("sqlite://{}", path.display())).await
    }

    /// Opens a database by URL (`sqlite://FILE` or `postgres://...`) and migrates it. An SQLite
    /// file is created when missing, unless the URL names its own `mode`.
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            anyhow::bail!("unsupported database URL (use sqlite:// or postgres://)");
        };
        let url = match backend {
            Backend::Sqlite => creating(url),
            Backend::Postgres => url.to_string(),
        };
        let url = url.as_str();
        // SQLite admits one writer at a time, and a second connection that loses the race
        // sleeps in SQLite's busy handler (milliseconds to seconds). One connection per
        // process queues writers in the pool instead, which is far cheaper.
        let max = if backend == Backend::Sqlite { 1 } else { 10 };
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            .connect(url)
            .await
            .with_context(|| format!("cannot open database {}", crate::redact::redact(url)))?;
        match backend {
            Backend::Sqlite => {
                // Write-ahead logging: a commit appends to the log and syncs it once (with
                // synchronous=FULL, SQLite's default, as durable as before) instead of
                // writing, syncing and deleting a rollback journal; readers never block
                // the writer. The mode is stored in the file.
                sqlx::query("PRAGMA journal_mode = WAL")
                    .execute(&pool)
                    .await?;
                sqlx::migrate!("src/store/migrations/sqlite")
                    .run(&pool)
                    .await?
            }
            Backend::Postgres => {
                sqlx::migrate!("src/store/migrations/postgres")
                    .run(&pool)
                    .await?
            }
        }
        Ok(Self { pool, backend })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub async fn start_run(
        &self,
        id: &str,
        project: &Path,
        target: u32,
        options: &serde_json::Value,
    ) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO runs (id, project, target, started_at, options) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(project.display().to_string())
        .bind(i64::from(target))
        .bind(chrono::Utc::now().to_rfc3339())
        .bind(options.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn append(&self, run_id: &str, entry: &Entry) -> anyhow::Result<()> {
        let stage = serde_json::to_value(entry.stage)?;
        let category = serde_json::to_value(entry.category)?;
        sqlx::query(
            "INSERT INTO journal_entries (run_id, seq, stage, rule, category, duration_ms, cost_usd, entry) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(run_id)
        .bind(i64::from(entry.seq))
        .bind(stage.as_str().unwrap_or_default())
        .bind(&entry.rule)
        .bind(category.as_str().unwrap_or_default())
        .bind(entry.duration_ms as i64)
        .bind(entry.cost_usd)
        .bind(serde_json::to_string(entry)?)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn finish_run(&self, run_id: &str, outcome: &str) -> anyhow::Result<()> {
        sqlx::query("UPDATE runs SET finished_at = $1, outcome = $2 WHERE id = $3")
            .bind(chrono::Utc::now().to_rfc3339())
            .bind(outcome)
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn runs(&self, limit: i64) -> anyhow::Result<Vec<RunRow>> {
        let rows = sqlx::query("SELECT id, project, target, started_at, finished_at, outcome FROM runs ORDER BY started_at DESC LIMIT $1")
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter()
            .map(|r| {
                Ok(RunRow {
                    id: r.try_get("id")?,
                    project: r.try_get("project")?,
                    target: r.try_get("target")?,
                    started_at: r.try_get("started_at")?,
                    finished_at: r.try_get("finished_at")?,
                    outcome: r.try_get("outcome")?,
                })
            })
            .collect()
    }

    /// The options a run was started with (as `start_run` stored them), if the run exists.
    pub async fn run_options(&self, id: &str) -> anyhow::Result<Option<serde_json::Value>> {
        let row = sqlx::query("SELECT options FROM runs WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            let text: String = r.try_get("options")?;
            Ok(serde_json::from_str(&text)?)
        })
        .transpose()
    }

    /// Loads a run's journal; `id` may be a unique prefix.
    pub async fn journal(&self, id: &str) -> anyhow::Result<(RunRow, Journal)> {
        let runs: Vec<RunRow> = self
            .runs(i64::MAX)
            .await?
            .into_iter()
            .filter(|r| r.id.starts_with(id))
            .collect();
        let run = match runs.as_slice() {
            [one] => one.clone(),
            [] => anyhow::bail!("no run with id {id:?} (see `uplift runs`)"),
            _ => anyhow::bail!("{id:?} matches {} runs; give more of the id", runs.len()),
        };
        let rows = sqlx::query("SELECT entry FROM journal_entries WHERE run_id = $1 ORDER BY seq")
            .bind(&run.id)
            .fetch_all(&self.pool)
            .await?;
        let entries = rows
            .into_iter()
            .map(|r| {
                let text: String = r.try_get("entry")?;
                serde_json::from_str::<Entry>(&text)
                    .context("journal entry does not match this version's schema")
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok((
            run.clone(),
            Journal {
                run_id: run.id,
                entries,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_sqlite_url_creates_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("uplift.db");
        // An absolute path: `sqlite:///…`, as operators write DATABASE_URL.
        let store = Store::connect(&format!("sqlite://{}", path.display())).await;
        assert!(store.is_ok(), "{:?}", store.err());
        assert!(path.exists());
        assert_eq!(creating("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(creating("sqlite:///a.db?mode=ro"), "sqlite:///a.db?mode=ro");
        assert_eq!(
            creating("sqlite:///a.db?cache=shared"),
            "sqlite:///a.db?cache=shared&mode=rwc"
        );
    }
}
