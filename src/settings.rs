//! App-level settings for `serve` and `worker`, from environment variables (deploy/README.md
//! lists them). Secrets are held in [`Secret`], whose Debug output never shows the value.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::build::jdk;

/// A value that must never reach a log, comment or report.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Self(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret([REDACTED])")
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub app_id: u64,
    /// The app's slug: the `@mention` that commands it and the `[bot]` login it comments as.
    pub app_slug: String,
    pub private_key: Secret,
    pub webhook_secret: Secret,
    pub api_url: String,
    pub database_url: String,
    pub listen: SocketAddr,
    /// Where `/metrics` is served (`UPLIFT_METRICS_LISTEN`, default loopback): never on the
    /// public listener.
    pub metrics_listen: SocketAddr,
    /// Migrations one process runs at once.
    pub workers: usize,
    /// Migrations one installation may have running at once, across all workers.
    pub installation_concurrency: u32,
    pub lease: Duration,
    pub max_attempts: u32,
    /// Minimum gap between mutating GitHub calls (GitHub's secondary-rate-limit advice).
    pub mutation_spacing: Duration,
    /// Where working copies are cloned.
    pub work_dir: PathBuf,
    /// JDKs for builds, by feature release (from UPLIFT_JDKS; /usr/lib/jvm is searched too).
    pub jdks: BTreeMap<u32, PathBuf>,
    /// Extra Maven arguments for every build (e.g. a settings file for a mirror).
    pub maven_args: Vec<String>,
    pub json_logs: bool,
    /// `UPLIFT_UNSAFE_NO_SANDBOX=1`: run builds without the sandbox (development only).
    pub unsafe_no_sandbox: bool,
    /// The LLM tier for every repository (UPLIFT_LLM_API / _BASE_URL / _MODEL, key in
    /// UPLIFT_LLM_API_KEY). A repository's own `llm:` is ignored: it could point the
    /// server's key at any host.
    pub llm: Option<crate::llm::LlmSettings>,
    /// Embeddings for semantic retrieval (UPLIFT_EMBEDDINGS_BASE_URL / _MODEL, key in
    /// UPLIFT_LLM_API_KEY).
    pub embeddings: Option<crate::llm::LlmSettings>,
    /// Web search for the LLM tier (UPLIFT_SEARCH_BASE_URL, key in UPLIFT_SEARCH_API_KEY).
    pub search: Option<crate::llm::search::SearchSettings>,
    /// Ceiling on LLM spend per run; a repository may ask for less, never more.
    pub max_cost_per_run_usd: f64,
    /// Ceiling on LLM spend per installation over the last 24 hours.
    pub max_cost_per_installation_day_usd: f64,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn parsed<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T>
where
    T::Err: std::fmt::Display,
{
    match var(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|e| anyhow::anyhow!("{name}={v:?}: {e}")),
    }
}

fn required(name: &str) -> anyhow::Result<String> {
    var(name).with_context(|| format!("{name} is not set (see deploy/README.md)"))
}

impl Settings {
    pub fn from_env() -> anyhow::Result<Self> {
        let data_dir = var("UPLIFT_DATA_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::store::default_path().with_file_name(""));
        let private_key = match (var("UPLIFT_PRIVATE_KEY"), var("UPLIFT_PRIVATE_KEY_PATH")) {
            (Some(pem), _) => pem,
            (None, Some(path)) => std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read UPLIFT_PRIVATE_KEY_PATH {path}"))?,
            (None, None) => anyhow::bail!(
                "UPLIFT_PRIVATE_KEY or UPLIFT_PRIVATE_KEY_PATH is not set (see deploy/README.md)"
            ),
        };
        let mut jdks = BTreeMap::new();
        for home in var("UPLIFT_JDKS").unwrap_or_default().split(',') {
            let home = PathBuf::from(home.trim());
            if home.as_os_str().is_empty() {
                continue;
            }
            let release = jdk::release_of(&home)
                .with_context(|| format!("UPLIFT_JDKS: {} is not a JDK", home.display()))?;
            jdks.insert(release, home);
        }
        Ok(Self {
            app_id: parsed("UPLIFT_APP_ID", 0)?,
            app_slug: var("UPLIFT_APP_SLUG").unwrap_or_else(|| "uplift".into()),
            private_key: Secret::new(private_key),
            webhook_secret: Secret::new(required("UPLIFT_WEBHOOK_SECRET")?),
            api_url: var("UPLIFT_GITHUB_API_URL")
                .unwrap_or_else(|| "https://api.github.com".into()),
            database_url: var("DATABASE_URL").unwrap_or_else(|| {
                format!("sqlite://{}?mode=rwc", data_dir.join("uplift.db").display())
            }),
            listen: parsed("UPLIFT_LISTEN", SocketAddr::from(([127, 0, 0, 1], 8080)))?,
            metrics_listen: parsed(
                "UPLIFT_METRICS_LISTEN",
                SocketAddr::from(([127, 0, 0, 1], 9091)),
            )?,
            workers: parsed("UPLIFT_WORKERS", 1)?,
            installation_concurrency: parsed("UPLIFT_INSTALLATION_CONCURRENCY", 2)?,
            lease: Duration::from_secs(parsed("UPLIFT_LEASE_SECS", 60)?),
            max_attempts: parsed("UPLIFT_MAX_ATTEMPTS", 3)?,
            mutation_spacing: Duration::from_millis(parsed("UPLIFT_MUTATION_SPACING_MS", 1000)?),
            work_dir: var("UPLIFT_WORK_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| data_dir.join("work")),
            jdks,
            llm: match (var("UPLIFT_LLM_BASE_URL"), var("UPLIFT_LLM_MODEL")) {
                (Some(base_url), Some(model)) => Some(crate::llm::LlmSettings {
                    api: match var("UPLIFT_LLM_API").as_deref() {
                        Some("anthropic") => crate::llm::ApiKind::Anthropic,
                        _ => crate::llm::ApiKind::OpenaiCompatible,
                    },
                    base_url,
                    model,
                    api_key_env: "UPLIFT_LLM_API_KEY".into(),
                    timeout_secs: parsed("UPLIFT_LLM_TIMEOUT_SECS", 120)?,
                    max_retries: parsed("UPLIFT_LLM_MAX_RETRIES", 3)?,
                }),
                _ => None,
            },
            embeddings: match (
                var("UPLIFT_EMBEDDINGS_BASE_URL"),
                var("UPLIFT_EMBEDDINGS_MODEL"),
            ) {
                (Some(base_url), Some(model)) => Some(crate::llm::LlmSettings {
                    api: crate::llm::ApiKind::OpenaiCompatible,
                    base_url,
                    model,
                    api_key_env: "UPLIFT_LLM_API_KEY".into(),
                    timeout_secs: 30,
                    max_retries: 1,
                }),
                _ => None,
            },
            search: var("UPLIFT_SEARCH_BASE_URL").map(|base_url| {
                crate::llm::search::SearchSettings {
                    base_url,
                    api_key_env: "UPLIFT_SEARCH_API_KEY".into(),
                    max_results: 5,
                }
            }),
            max_cost_per_run_usd: parsed("UPLIFT_LLM_MAX_COST_PER_RUN", 10.0)?,
            max_cost_per_installation_day_usd: parsed(
                "UPLIFT_LLM_MAX_COST_PER_INSTALLATION_DAY",
                50.0,
            )?,
            maven_args: var("UPLIFT_MAVEN_ARGS")
                .map(|v| v.split_whitespace().map(String::from).collect())
                .unwrap_or_default(),
            json_logs: var("UPLIFT_LOG_FORMAT").is_some_and(|v| v == "json"),
            unsafe_no_sandbox: var("UPLIFT_UNSAFE_NO_SANDBOX").is_some_and(|v| v == "1"),
        })
    }
}
