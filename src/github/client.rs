//! Talking to GitHub as the app: JWT-authenticated app calls (octocrab signs RS256 JWTs with
//! `iat` 60 s in the past and a 9-minute expiry), installation tokens scoped to one repository
//! and cached until 5 minutes before they expire, rate-limit handling (`Retry-After`,
//! `x-ratelimit-reset`, a minute for secondary limits, on 403/429) and spacing between
//! mutating calls.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::Method;
use octocrab::Octocrab;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tokio::sync::Mutex;

use crate::metrics::METRICS;
use crate::settings::{Secret, Settings};

/// GitHub's advice for a secondary rate limit that names no `Retry-After`: wait at least a
/// minute.
const SECONDARY_WAIT: Duration = Duration::from_secs(60);
/// Redirects followed for one call before its answer counts as an error.
const MAX_REDIRECTS: u32 = 5;
const TOKEN_MARGIN: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("GitHub answered {status} to {method} {path}: {message}")]
    Status {
        method: Method,
        path: String,
        status: u16,
        message: String,
    },
    #[error("GitHub rate limit: retry in {0:?}")]
    RateLimited(Duration),
    #[error("GitHub request failed: {0}")]
    Transport(String),
    #[error("unexpected GitHub response to {path}: {error}")]
    Decode { path: String, error: String },
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

#[derive(Clone)]
struct CachedToken {
    token: Secret,
    expires_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Deserialize)]
struct TokenResponse {
    token: String,
    expires_at: chrono::DateTime<chrono::Utc>,
}

/// Who waits out GitHub's rate limits: tokio's clock in production. Tests give one that
/// records each wait and returns at once, so a one-minute wait costs them nothing.
pub trait Sleeper: Send + Sync {
    fn sleep(&self, wait: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

struct TokioSleeper;

impl Sleeper for TokioSleeper {
    fn sleep(&self, wait: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(wait))
    }
}

/// The app's connection to GitHub, shared by every job of a process.
pub struct GitHub {
    app: Octocrab,
    pub(super) api_url: String,
    pub slug: String,
    tokens: Mutex<HashMap<(i64, String), CachedToken>>,
    last_mutation: Mutex<Instant>,
    spacing: Duration,
    pub(super) permissions: Mutex<HashMap<(String, String), (String, Instant)>>,
    sleeper: Arc<dyn Sleeper>,
    /// How long a job may spend waiting for rate limits: the server's wall-time ceiling for a
    /// run, counted from when the job made its client.
    wait_budget: Duration,
}

impl GitHub {
    pub fn new(settings: &Settings) -> anyhow::Result<Arc<Self>> {
        Self::with_sleeper(settings, Arc::new(TokioSleeper))
    }

    /// As [`GitHub::new`], with rate-limit waits handed to `sleeper`.
    pub fn with_sleeper(
        settings: &Settings,
        sleeper: Arc<dyn Sleeper>,
    ) -> anyhow::Result<Arc<Self>> {
        let key = octocrab::jsonwebtoken::EncodingKey::from_rsa_pem(
            settings.private_key.expose().as_bytes(),
        )
        .map_err(|e| anyhow::anyhow!("the app private key is not an RSA PEM key: {e}"))?;
        let app = Octocrab::builder()
            .base_uri(settings.api_url.as_str())?
            .app(settings.app_id.into(), key)
            .build()?;
        Ok(Arc::new(Self {
            app,
            api_url: settings.api_url.clone(),
            slug: settings.app_slug.clone(),
            tokens: Mutex::new(HashMap::new()),
            last_mutation: Mutex::new(Instant::now() - settings.mutation_spacing),
            spacing: settings.mutation_spacing,
            permissions: Mutex::new(HashMap::new()),
            sleeper,
            wait_budget: Duration::from_secs(settings.ceilings.max_wall_secs),
        }))
    }

    pub(super) async fn token(
        &self,
        installation: i64,
        full_name: &str,
        started: Instant,
    ) -> anyhow::Result<Secret> {
        let key = (installation, full_name.to_string());
        if let Some(t) = self.tokens.lock().await.get(&key)
            && t.expires_at - TOKEN_MARGIN > chrono::Utc::now()
        {
            return Ok(t.token.clone());
        }
        let name = full_name.rsplit('/').next().unwrap_or(full_name);
        let body = serde_json::json!({ "repositories": [name] });
        let t: TokenResponse = self
            .call(
                &self.app,
                Method::POST,
                &format!("/app/installations/{installation}/access_tokens"),
                Some(&body),
                started,
            )
            .await?;
        let cached = CachedToken {
            token: Secret::expiring(t.token, t.expires_at.into()),
            expires_at: t.expires_at,
        };
        self.tokens.lock().await.insert(key, cached.clone());
        Ok(cached.token)
    }

    /// One API call with rate-limit waits (none past the wait budget counted from `started`,
    /// when the job began), redirects followed (a
    /// renamed or transferred repository answers 301, or 307 to other methods) and mutation
    /// spacing. Error messages carry GitHub's `message`, never request headers.
    pub(super) async fn call<T: DeserializeOwned>(
        &self,
        client: &Octocrab,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
        started: Instant,
    ) -> Result<T, ApiError> {
        let mut path = path.to_string();
        let mut redirects = 0;
        loop {
            if method != Method::GET {
                let mut last = self.last_mutation.lock().await;
                let due = *last + self.spacing;
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    tokio::time::sleep(wait).await;
                }
                *last = Instant::now();
            }
            let response = match method {
                Method::GET => client._get(&path).await,
                Method::POST => client._post(&path, body).await,
                Method::PATCH => client._patch(&path, body).await,
                Method::PUT => client._put(&path, body).await,
                _ => unreachable!("Uplift uses GET, POST, PATCH and PUT only"),
            }
            .map_err(|e| ApiError::Transport(e.to_string()))?;
            let status = response.status().as_u16();
            METRICS
                .github_calls
                .with_label_values(&[method.as_str(), &status.to_string()])
                .inc();
            let headers = response.headers().clone();
            let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
            if let Some(remaining) = header("x-ratelimit-remaining").and_then(|v| v.parse().ok()) {
                METRICS.github_rate_remaining.set(remaining);
            }
            let text = client
                .body_to_string(response)
                .await
                .map_err(|e| ApiError::Transport(e.to_string()))?;
            if matches!(status, 301 | 302 | 307 | 308)
                && redirects < MAX_REDIRECTS
                && let Some(next) = header("location").and_then(|l| api_path(&self.api_url, l))
            {
                // GitHub: repeat the request verbatim at the new location.
                tracing::info!(from = %path, to = %next, "GitHub redirected");
                redirects += 1;
                path = next;
                continue;
            }
            if !(200..300).contains(&status) {
                let message = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v["message"].as_str().map(String::from))
                    .unwrap_or_else(|| text.chars().take(200).collect());
                if let Some(wait) = rate_limit_wait(
                    status,
                    header("retry-after"),
                    header("x-ratelimit-remaining"),
                    header("x-ratelimit-reset"),
                    &message,
                ) {
                    if started.elapsed().saturating_add(wait) > self.wait_budget {
                        return Err(ApiError::RateLimited(wait));
                    }
                    tracing::warn!(%path, ?wait, "GitHub rate limit; waiting");
                    self.sleeper.sleep(wait).await;
                    continue;
                }
                return Err(ApiError::Status {
                    method,
                    path: path.clone(),
                    status,
                    message,
                });
            }
            let text = if text.trim().is_empty() {
                "null"
            } else {
                &text
            };
            return serde_json::from_str(text).map_err(|e| ApiError::Decode {
                path: path.clone(),
                error: e.to_string(),
            });
        }
    }
}

/// The path a redirect's `Location` names on this API, which octocrab sends with the
/// credentials (it attaches them only to relative paths or api.github.com); None for any
/// other host, so a token never follows a redirect away from the API.
fn api_path(api_url: &str, location: &str) -> Option<String> {
    let rest = location.strip_prefix(api_url.trim_end_matches('/'))?;
    rest.starts_with('/').then(|| rest.to_string())
}

/// How long GitHub asks us to wait before repeating a 403 or 429 (docs: "Best practices for
/// using the REST API", rate limits): `Retry-After` seconds; else, when the primary limit is
/// spent (`x-ratelimit-remaining: 0`), until `x-ratelimit-reset`; else, for a secondary limit
/// (any 429, or a 403 whose message says so), at least a minute. None when the answer is no
/// rate limit (a 403 for a missing permission looks the same but for its message).
fn rate_limit_wait(
    status: u16,
    retry_after: Option<&str>,
    remaining: Option<&str>,
    reset: Option<&str>,
    message: &str,
) -> Option<Duration> {
    if status != 403 && status != 429 {
        return None;
    }
    if let Some(secs) = retry_after.and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some(Duration::from_secs(secs));
    }
    let reset = reset.and_then(|v| v.trim().parse::<i64>().ok());
    if let (Some("0"), Some(reset)) = (remaining.map(str::trim), reset) {
        let wait = reset.saturating_sub(chrono::Utc::now().timestamp()).max(1);
        return Some(Duration::from_secs(wait.unsigned_abs()));
    }
    (status == 429 || message.to_ascii_lowercase().contains("rate limit")).then_some(SECONDARY_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_api() {
        let api = "https://api.github.com";
        assert_eq!(
            api_path(api, "https://api.github.com/repos/acme/new?page=2").as_deref(),
            Some("/repos/acme/new?page=2")
        );
        assert_eq!(
            api_path(api, "https://api.github.com.evil.test/repos/x"),
            None
        );
        assert_eq!(api_path(api, "https://elsewhere.test/repos/x"), None);
        assert_eq!(
            api_path(
                "https://ghe.test/api/v3/",
                "https://ghe.test/api/v3/repos/a/b"
            )
            .as_deref(),
            Some("/repos/a/b")
        );
    }

    #[test]
    fn rate_limit_waits() {
        let secondary = "You have exceeded a secondary rate limit.";
        assert_eq!(
            rate_limit_wait(403, Some("3"), Some("10"), None, secondary),
            Some(Duration::from_secs(3))
        );
        let reset = (chrono::Utc::now().timestamp() + 30).to_string();
        let w = rate_limit_wait(
            403,
            None,
            Some("0"),
            Some(&reset),
            "API rate limit exceeded",
        )
        .unwrap();
        assert!(w >= Duration::from_secs(29) && w <= Duration::from_secs(31));
        // A secondary limit without Retry-After: at least a minute.
        assert_eq!(
            rate_limit_wait(403, None, Some("10"), Some(&reset), secondary),
            Some(SECONDARY_WAIT)
        );
        assert_eq!(
            rate_limit_wait(429, None, Some("10"), Some(&reset), ""),
            Some(SECONDARY_WAIT)
        );
        // A 403 for a missing permission is no rate limit.
        let denied = "Resource not accessible by integration";
        assert_eq!(
            rate_limit_wait(403, None, Some("10"), Some(&reset), denied),
            None
        );
        assert_eq!(rate_limit_wait(500, Some("3"), None, None, ""), None);
    }
}
