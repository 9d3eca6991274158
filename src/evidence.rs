//! What a run observes and its journal keeps: build runs, test results, model usage,
//! classified failures and the test inventory. Plain data at the bottom of the module
//! graph, so the journal records it without depending on the stages that produce it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BuildRun {
    pub command: String,
    pub jdk: u32,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// `[ERROR]` lines (first 30), redacted.
    pub errors: Vec<String>,
    /// Last lines of output, redacted.
    pub tail: Vec<String>,
    pub output_bytes: usize,
    pub output_truncated: bool,
    /// How the build was isolated (`None`: it ran on the host without a sandbox).
    #[serde(default)]
    pub sandbox: Option<String>,
    /// Destinations the build tried to reach and the egress proxy refused.
    #[serde(default)]
    pub egress_refused: Vec<String>,
    /// javac's deprecation and removal warnings (`file:[line,col] what`), first
    /// `build::maven::MAX_DEPRECATIONS`, redacted: the APIs the code still uses that a release dropped
    /// or will drop.
    #[serde(default)]
    pub deprecations: Vec<String>,
    /// `.git` entries the build created in its work tree (relative paths), removed when it
    /// ended: git on the host would run their config and hooks.
    #[serde(default)]
    pub git_removed: Vec<String>,
    /// Set when the build was killed for writing more than its disk budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_exceeded: Option<DiskExceeded>,
}

/// A build killed at its disk budget: what it had written when the watch saw it (the
/// watch polls, so this is above the budget) and the budget.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct DiskExceeded {
    pub written: u64,
    pub budget: u64,
}

impl BuildRun {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && self.stopped().is_none()
    }

    /// Why the engine killed the build, if it did: a limit it hit.
    pub fn stopped(&self) -> Option<String> {
        if self.timed_out {
            return Some("hit the time limit".into());
        }
        self.disk_exceeded.map(|d| {
            format!(
                "exceeded the disk budget ({}): it had written {}",
                mib(d.budget),
                mib(d.written)
            )
        })
    }
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    Passed,
    Failed,
    Errored,
    Skipped,
}

impl TestStatus {
    pub fn is_green(self) -> bool {
        self == TestStatus::Passed
    }
}

/// `class#method` -> status, over every module's reports.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TestResults {
    pub tests: BTreeMap<String, TestStatus>,
    /// Tests that failed in the run and passed when their class ran again on its own:
    /// flaky, so never counted as a regression (`build::flaky`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub flaky: BTreeSet<String>,
    /// How many times each parameterized test ran (JUnit 4 `m[0]`, `m[1]` ..., Jupiter
    /// `m(int)[1]` ...), for the tests that ran more than once: the per-method statuses above
    /// cannot show a lost parameter row.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub invocations: BTreeMap<String, usize>,
    /// Report files that could not be read, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
    pub report_files: usize,
}

impl TestResults {
    /// Test runs with `status`, as Maven counts them: each invocation of a parameterized
    /// test is one (all under the method's worst status).
    pub fn count(&self, status: TestStatus) -> usize {
        self.tests
            .iter()
            .filter(|(_, s)| **s == status)
            .map(|(k, _)| self.invocations_of(k))
            .sum()
    }

    /// How many times test `key` ran (1 unless it is parameterized).
    pub fn invocations_of(&self, key: &str) -> usize {
        self.invocations.get(key).copied().unwrap_or(1)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The pom or dependency resolution (nothing compiled).
    Pom,
    /// javac errors.
    Compile,
    /// Tests ran and some that were green are not.
    Test,
    /// The machine: timeout, missing JDK, out of memory, network.
    Environment,
    /// Nothing is red: a task the recipe tier left (a file kept on JUnit 4, a removed API
    /// a detector found) is the work itself.
    Task,
}

/// One web search result, as plain text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub title: String,
    pub url: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    /// The error lines that matter, redacted already by the runner.
    pub errors: Vec<String>,
    pub signature: String,
    /// `path:line` of the first compiler error, when there is one.
    pub location: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TestMethod {
    pub class: String,
    pub method: String,
    /// The annotation (or `junit3` naming convention) that makes it a test.
    pub kind: String,
}

/// The per-file tests, the static half of the invariance check.
pub type Inventory = BTreeMap<PathBuf, Vec<TestMethod>>;
