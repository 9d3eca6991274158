//! Uplift: migrates Java/Maven projects (Java 8/11 -> 17/21, JUnit 4 -> 5) and proves the
//! result with a test baseline, an invariance check and a typed run journal.

pub mod analyze;
pub mod build;
pub mod cli;
pub mod config;
pub mod edit;
pub mod java_syntax;
pub mod journal;
pub mod pipeline;
pub mod progress;
pub mod recipes;
pub mod redact;
pub mod store;
