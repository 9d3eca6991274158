//! The knowledge store, beside the journal: solved examples (error signature, features,
//! the fixing diff, origin, acceptance counts) and recipes that worked per fingerprint.

use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::Row;

use super::{Store, now_ms};

/// A fix worth remembering.
#[derive(Debug, Clone, PartialEq)]
pub struct NewExample<'a> {
    pub signature: &'a str,
    pub features: &'a str,
    pub diff: &'a str,
    /// `run:<id>` or `pr:<owner/repo>#<n>`.
    pub origin: &'a str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    pub id: String,
    pub signature: String,
    pub features: String,
    pub diff: String,
    pub origin: String,
    pub applied: i64,
    pub validated: i64,
    pub merged: i64,
    pub declined: i64,
}

impl Example {
    /// Standing used to rank equally relevant examples: merges count most, declines
    /// subtract, and an example never applied starts neutral.
    pub fn standing(&self) -> f64 {
        let good = self.validated as f64 + 2.0 * self.merged as f64;
        let bad = 2.0 * self.declined as f64 + (self.applied - self.validated).max(0) as f64;
        (1.0 + good) / (1.0 + good + bad)
    }
}

/// What happened to an example after it was deposited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExampleEvent {
    Applied,
    Validated,
    Merged,
    Declined,
}

/// An example's id: the same signature and diff are one example.
pub fn example_id(signature: &str, diff: &str) -> String {
    hex::encode(Sha256::digest(format!("{signature}\0{diff}")))
}

impl Store {
    /// Deposits a fix a human accepted (`knowledge::learn`); the same signature and diff
    /// deposited again counts as one more validation.
    pub async fn deposit_example(&self, e: &NewExample<'_>) -> anyhow::Result<String> {
        let id = example_id(e.signature, e.diff);
        sqlx::query(
            "INSERT INTO solved_examples (id, signature, features, diff, origin, validated, created_at) \
             VALUES ($1, $2, $3, $4, $5, 1, $6) \
             ON CONFLICT (id) DO UPDATE SET validated = solved_examples.validated + 1",
        )
        .bind(&id)
        .bind(e.signature)
        .bind(e.features)
        .bind(e.diff)
        .bind(e.origin)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    pub async fn examples(&self) -> anyhow::Result<Vec<Example>> {
        let rows = sqlx::query(
            "SELECT id, signature, features, diff, origin, applied, validated, merged, declined \
             FROM solved_examples ORDER BY created_at, id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Example {
                    id: r.try_get("id")?,
                    signature: r.try_get("signature")?,
                    features: r.try_get("features")?,
                    diff: r.try_get("diff")?,
                    origin: r.try_get("origin")?,
                    applied: r.try_get("applied")?,
                    validated: r.try_get("validated")?,
                    merged: r.try_get("merged")?,
                    declined: r.try_get("declined")?,
                })
            })
            .collect()
    }

    pub async fn example_event(&self, id: &str, event: ExampleEvent) -> anyhow::Result<()> {
        let column = match event {
            ExampleEvent::Applied => "applied",
            ExampleEvent::Validated => "validated",
            ExampleEvent::Merged => "merged",
            ExampleEvent::Declined => "declined",
        };
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE solved_examples SET {column} = {column} + 1 WHERE id = $1"
        )))
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn recipe_succeeded(&self, features: &str, recipe: &str) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO fingerprint_recipes (features, recipe, succeeded) VALUES ($1, $2, 1) \
             ON CONFLICT (features, recipe) DO UPDATE SET succeeded = fingerprint_recipes.succeeded + 1",
        )
        .bind(features)
        .bind(recipe)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Recipes that worked for these features, most successful first.
    pub async fn recipes_for(&self, features: &str) -> anyhow::Result<Vec<(String, i64)>> {
        let rows = sqlx::query(
            "SELECT recipe, succeeded FROM fingerprint_recipes WHERE features = $1 \
             ORDER BY succeeded DESC, recipe",
        )
        .bind(features)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("recipe")?, r.try_get("succeeded")?)))
            .collect()
    }
}

impl Store {
    /// Books a run's LLM spend against its installation.
    pub async fn record_spend(
        &self,
        installation_id: i64,
        run_id: &str,
        cost_usd: f64,
    ) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO llm_spend (installation_id, run_id, cost_usd, at_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(installation_id)
        .bind(run_id)
        .bind(cost_usd)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// What the installation spent since `since_ms`.
    pub async fn spend_since(&self, installation_id: i64, since_ms: i64) -> anyhow::Result<f64> {
        let row = sqlx::query(
            "SELECT CAST(COALESCE(SUM(cost_usd), 0) AS DOUBLE PRECISION) AS spent FROM llm_spend \
             WHERE installation_id = $1 AND at_ms >= $2",
        )
        .bind(installation_id)
        .bind(since_ms)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("spent")?)
    }
}
