//! Test support shared by the integration test crates: a fake of GitHub's REST API,
//! webhook payload builders, and fixture copying.
#![allow(dead_code)]

pub mod app;
pub mod fake_github;
pub mod fake_llm;
pub mod openapi;
pub mod payloads;
pub mod tester;

use std::path::Path;

/// The absolute path of a file in `tests/support/`, as Maven and `uplift` arguments want it.
pub fn support_file(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(file)
        .display()
        .to_string()
}

/// Copies a fixture tree (tests edit their copy, never the checked-in fixture).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A migrated store in a temporary SQLite file.
pub async fn sqlite_store() -> (uplift::store::Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = uplift::store::Store::open(&dir.path().join("q.db"))
        .await
        .unwrap();
    (store, dir)
}

/// The URL of a fresh schema of the real PostgreSQL
/// (`UPLIFT_TEST_DATABASE_URL`, default postgres://root@127.0.0.1:5432/test).
pub async fn postgres_url() -> String {
    let base = std::env::var("UPLIFT_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
    let schema = format!("uplift_test_{}", uuid::Uuid::new_v4().simple());
    let admin = sqlx::PgPool::connect(&base)
        .await
        .expect("PostgreSQL at 127.0.0.1:5432");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&admin)
        .await
        .unwrap();
    let sep = if base.contains('?') { '&' } else { '?' };
    format!("{base}{sep}options=-c%20search_path%3D{schema}")
}

/// A migrated store in a fresh schema of the real PostgreSQL.
pub async fn postgres_store() -> uplift::store::Store {
    uplift::store::Store::connect(&postgres_url().await)
        .await
        .unwrap()
}

/// Runs each named `async fn(Store)` once on SQLite and once on PostgreSQL.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),*) => {
        mod on_sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                let (store, _dir) = super::support::sqlite_store().await;
                super::$name(store).await;
            })*
        }
        mod on_postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                super::$name(super::support::postgres_store().await).await;
            })*
        }
    };
}
