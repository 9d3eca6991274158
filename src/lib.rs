//! Uplift: migrates Java/Maven projects (Java 8/11 -> 17/21, JUnit 4 -> 5) and proves the
//! result with a test baseline, an invariance check and a typed run journal; locally from
//! the CLI or as a GitHub App (webhook server, job queue, worker, PR with check runs).

pub mod analyze;
pub mod build;
pub mod cli;
pub mod commands;
pub mod config;
pub mod edit;
pub mod evidence;
pub mod github;
pub mod java_syntax;
pub mod journal;
pub mod knowledge;
pub mod llm;
pub mod metrics;
pub mod money;
pub mod pipeline;
pub mod progress;
pub mod recipes;
pub mod redact;
pub mod repo_path;
pub mod secrets;
pub mod server;
pub mod settings;
pub mod source_encoding;
pub mod store;
pub mod terminal;
pub mod worker;
pub mod workspace;
