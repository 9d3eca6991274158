//! What the app knows about its installations: accounts, repositories (and whether each one
//! opted in), and targets whose migration PR was closed unmerged.

use super::{Store, now_ms};

impl Store {
    pub async fn upsert_installation(&self, id: i64, account: &str) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO installations (id, account, removed, updated_at) VALUES ($1, $2, 0, $3) \
             ON CONFLICT (id) DO UPDATE SET account = $2, removed = 0, updated_at = $3",
        )
        .bind(id)
        .bind(account)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The installation was deleted or suspended: its repositories are forgotten and its
    /// migrations stopped (queued ones cancelled at once, running ones asked to stop), since
    /// no token can be had for it any more. Returns how many were stopped.
    pub async fn remove_installation(&self, id: i64) -> anyhow::Result<u64> {
        sqlx::query("UPDATE installations SET removed = 1, updated_at = $1 WHERE id = $2")
            .bind(now_ms())
            .bind(id)
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "UPDATE repositories SET removed = 1, updated_at = $1 WHERE installation_id = $2",
        )
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?;
        let queued = sqlx::query(
            "UPDATE jobs SET state = 'cancelled', finished_at = $1, \
             result = 'installation removed before start' \
             WHERE kind = 'migrate' AND installation_id = $2 AND state = 'queued'",
        )
        .bind(now_ms())
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        let running = sqlx::query(
            "UPDATE jobs SET cancel_requested = 1 \
             WHERE kind = 'migrate' AND installation_id = $1 AND state = 'running'",
        )
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(queued + running)
    }

    /// Records a repository as installed; it stays inactive until it opts in.
    pub async fn upsert_repository(
        &self,
        installation_id: i64,
        full_name: &str,
    ) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO repositories (full_name, installation_id, active, removed, updated_at) \
             VALUES ($1, $2, 0, 0, $3) ON CONFLICT (full_name) \
             DO UPDATE SET installation_id = $2, removed = 0, updated_at = $3",
        )
        .bind(full_name)
        .bind(installation_id)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn remove_repository(&self, full_name: &str) -> anyhow::Result<()> {
        sqlx::query("UPDATE repositories SET removed = 1, updated_at = $1 WHERE full_name = $2")
            .bind(now_ms())
            .bind(full_name)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Marks a repository active (it has `.github/uplift.yml`, or a collaborator commanded us).
    pub async fn activate_repository(
        &self,
        installation_id: i64,
        full_name: &str,
    ) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO repositories (full_name, installation_id, active, removed, updated_at) \
             VALUES ($1, $2, 1, 0, $3) ON CONFLICT (full_name) \
             DO UPDATE SET installation_id = $2, active = 1, removed = 0, updated_at = $3",
        )
        .bind(full_name)
        .bind(installation_id)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn decline_target(&self, repo: &str, target: u32) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO declined_targets (repo, target, declined_at) VALUES ($1, $2, $3) \
             ON CONFLICT (repo, target) DO UPDATE SET declined_at = $3",
        )
        .bind(repo)
        .bind(i64::from(target))
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// An explicit request lifts a decline.
    pub async fn undecline_target(&self, repo: &str, target: u32) -> anyhow::Result<()> {
        sqlx::query("DELETE FROM declined_targets WHERE repo = $1 AND target = $2")
            .bind(repo)
            .bind(i64::from(target))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn is_declined(&self, repo: &str, target: u32) -> anyhow::Result<bool> {
        let row =
            sqlx::query("SELECT 1 AS one FROM declined_targets WHERE repo = $1 AND target = $2")
                .bind(repo)
                .bind(i64::from(target))
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.is_some())
    }
}
