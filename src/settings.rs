//! App-level settings for `serve` and `worker`, from environment variables (deploy/README.md
//! lists them). Secrets are held in [`Secret`], whose Debug output never shows the value and
//! whose value is redacted from everything Uplift writes.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::build::jdk;
use crate::config::{Budgets, Config};
use crate::llm::pricing::PriceTable;
use crate::llm::search::SearchSettings;
use crate::llm::{ApiKind, LlmSettings};
use crate::redact;
use crate::secrets;

pub use crate::secrets::Secret;

/// The variables that hold the app's secrets: `serve` and `worker` take them out of their
/// environment at start-up (`secrets::take_from_env`), so builds cannot read them.
pub const SECRET_VARS: &[&str] = &[
    "UPLIFT_PRIVATE_KEY",
    "UPLIFT_WEBHOOK_SECRET",
    "UPLIFT_LLM_API_KEY",
    "UPLIFT_SEARCH_API_KEY",
    "DATABASE_URL",
];

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
    /// The server's limits per run (`UPLIFT_MAX_WALL_SECS`, `UPLIFT_BUILD_TIMEOUT_SECS`,
    /// `UPLIFT_MAX_BUILD_OUTPUT_BYTES`, `UPLIFT_MAX_BUILD_DISK_BYTES`, `UPLIFT_LLM_MAX_CALLS`, `UPLIFT_LLM_MAX_COST_PER_RUN`):
    /// a repository may ask for less, never more.
    pub ceilings: Budgets,
    /// LLM prices (defaults, overridden per model by `UPLIFT_LLM_PRICES`, JSON); a
    /// repository's own `prices` are ignored, since a price of 0 would disable the spend limits.
    pub prices: PriceTable,
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

/// `UPLIFT_LLM_PRICES`: a JSON object of model -> `{input_per_mtok, output_per_mtok}`
/// laid over the default table.
fn prices_from_env() -> anyhow::Result<PriceTable> {
    let mut prices = PriceTable::default();
    if let Some(json) = var("UPLIFT_LLM_PRICES") {
        let more: PriceTable =
            serde_json::from_str(&json).context("UPLIFT_LLM_PRICES is not a price table")?;
        prices.0.extend(more.0);
    }
    Ok(prices)
}

/// The model providers an operator configured in the environment; the app's only source,
/// and the CLI's first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Providers {
    /// UPLIFT_LLM_API / _BASE_URL / _MODEL / _TIMEOUT_SECS / _MAX_RETRIES, key in
    /// UPLIFT_LLM_API_KEY.
    pub llm: Option<LlmSettings>,
    /// UPLIFT_EMBEDDINGS_BASE_URL / _MODEL, key in UPLIFT_LLM_API_KEY.
    pub embeddings: Option<LlmSettings>,
    /// UPLIFT_SEARCH_BASE_URL, key in UPLIFT_SEARCH_API_KEY.
    pub search: Option<SearchSettings>,
}

impl Providers {
    pub fn from_env() -> anyhow::Result<Self> {
        Ok(Self {
            llm: match (var("UPLIFT_LLM_BASE_URL"), var("UPLIFT_LLM_MODEL")) {
                (Some(base_url), Some(model)) => Some(LlmSettings {
                    api: match var("UPLIFT_LLM_API").as_deref() {
                        Some("anthropic") => ApiKind::Anthropic,
                        _ => ApiKind::OpenaiCompatible,
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
                (Some(base_url), Some(model)) => Some(LlmSettings {
                    api: ApiKind::OpenaiCompatible,
                    base_url,
                    model,
                    api_key_env: "UPLIFT_LLM_API_KEY".into(),
                    timeout_secs: 30,
                    max_retries: 1,
                }),
                _ => None,
            },
            search: var("UPLIFT_SEARCH_BASE_URL").map(|base_url| SearchSettings {
                base_url,
                api_key_env: "UPLIFT_SEARCH_API_KEY".into(),
                max_results: 5,
            }),
        })
    }
}

impl Settings {
    pub fn from_env() -> anyhow::Result<Self> {
        let data_dir = var("UPLIFT_DATA_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::store::default_path().with_file_name(""));
        let private_key = match (
            secrets::from_env("UPLIFT_PRIVATE_KEY"),
            var("UPLIFT_PRIVATE_KEY_PATH"),
        ) {
            (Some(pem), _) => pem,
            (None, Some(path)) => Secret::new(
                std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read UPLIFT_PRIVATE_KEY_PATH {path}"))?,
            ),
            (None, None) => anyhow::bail!(
                "UPLIFT_PRIVATE_KEY or UPLIFT_PRIVATE_KEY_PATH is not set (see deploy/README.md)"
            ),
        };
        // Every secret variable is registered for redaction now, not at its first use.
        for name in SECRET_VARS {
            secrets::from_env(name);
        }
        let providers = Providers::from_env()?;
        let limits = Budgets::default();
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
            private_key,
            webhook_secret: secrets::from_env("UPLIFT_WEBHOOK_SECRET")
                .context("UPLIFT_WEBHOOK_SECRET is not set (see deploy/README.md)")?,
            api_url: var("UPLIFT_GITHUB_API_URL")
                .unwrap_or_else(|| "https://api.github.com".into()),
            database_url: match secrets::from_env("DATABASE_URL") {
                Some(url) => {
                    redact::register_url_password(url.expose());
                    url.expose().to_string()
                }
                None => format!("sqlite://{}", data_dir.join("uplift.db").display()),
            },
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
            llm: providers.llm,
            embeddings: providers.embeddings,
            search: providers.search,
            ceilings: Budgets {
                max_wall_secs: parsed("UPLIFT_MAX_WALL_SECS", limits.max_wall_secs)?,
                build_timeout_secs: parsed("UPLIFT_BUILD_TIMEOUT_SECS", limits.build_timeout_secs)?,
                max_build_output_bytes: parsed(
                    "UPLIFT_MAX_BUILD_OUTPUT_BYTES",
                    limits.max_build_output_bytes,
                )?,
                max_build_disk_bytes: parsed(
                    "UPLIFT_MAX_BUILD_DISK_BYTES",
                    limits.max_build_disk_bytes,
                )?,
                max_llm_calls: parsed("UPLIFT_LLM_MAX_CALLS", limits.max_llm_calls)?,
                max_cost_usd: parsed("UPLIFT_LLM_MAX_COST_PER_RUN", limits.max_cost_usd)?,
            },
            prices: prices_from_env()?,
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

    /// The run settings for a repository: its own file where it may choose (target
    /// aside, the migration itself), the server's where it may not. JDKs, providers and
    /// prices are the server's; every limit is the lower of the repository's and the
    /// server's, and spend also stays within what the installation has left today.
    pub fn govern(&self, repo: Config, spent_today_usd: f64) -> Config {
        let mut config = repo;
        config.maven_args.extend(self.maven_args.iter().cloned());
        config.jdks = self.jdks.clone();
        config.llm = self.llm.clone();
        config.search = self.search.clone();
        config.embeddings = self.embeddings.clone();
        config.prices = self.prices.clone();
        config.budgets = config.budgets.within(&self.ceilings);
        let left_today = (self.max_cost_per_installation_day_usd - spent_today_usd).max(0.0);
        config.budgets.max_cost_usd = config.budgets.max_cost_usd.min(left_today);
        config
    }
}
