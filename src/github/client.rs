//! Talking to GitHub as the app: JWT-authenticated app calls (octocrab signs RS256 JWTs with
//! `iat` 60 s in the past and a 9-minute expiry), installation tokens scoped to one repository
//! and cached until 5 minutes before they expire, rate-limit handling (`Retry-After`,
//! `x-ratelimit-reset` on 403/429) and spacing between mutating calls.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::Method;
use octocrab::Octocrab;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tokio::sync::Mutex;

use crate::metrics::METRICS;
use crate::settings::{Secret, Settings};

/// Longest wait for a rate limit before the call fails and the job retries later.
const MAX_RATE_WAIT: Duration = Duration::from_secs(90);
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

/// The app's connection to GitHub, shared by every job of a process.
pub struct GitHub {
    app: Octocrab,
    api_url: String,
    pub slug: String,
    tokens: Mutex<HashMap<(i64, String), CachedToken>>,
    last_mutation: Mutex<Instant>,
    spacing: Duration,
    pub(super) permissions: Mutex<HashMap<(String, String), (String, Instant)>>,
}

impl GitHub {
    pub fn new(settings: &Settings) -> anyhow::Result<Arc<Self>> {
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
        }))
    }

    /// A client for one repository, authenticated by an installation token scoped to it.
    pub async fn repo(
        self: &Arc<Self>,
        installation: i64,
        full_name: &str,
    ) -> anyhow::Result<super::api::RepoApi> {
        let token = self.token(installation, full_name).await?;
        let client = Octocrab::builder()
            .base_uri(self.api_url.as_str())?
            .personal_token(token.expose().to_string())
            .build()?;
        Ok(super::api::RepoApi {
            gh: self.clone(),
            client,
            repo: full_name.to_string(),
            token,
        })
    }

    async fn token(&self, installation: i64, full_name: &str) -> anyhow::Result<Secret> {
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
            )
            .await?;
        let cached = CachedToken {
            token: Secret::new(t.token),
            expires_at: t.expires_at,
        };
        self.tokens.lock().await.insert(key, cached.clone());
        Ok(cached.token)
    }

    /// One API call with rate-limit waits and mutation spacing. Error messages carry GitHub's
    /// `message`, never request headers.
    pub(super) async fn call<T: DeserializeOwned>(
        &self,
        client: &Octocrab,
        method: Method,
        path: &str,
        body: Option<&serde_json::Value>,
    ) -> Result<T, ApiError> {
        let started = Instant::now();
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
                Method::GET => client._get(path).await,
                Method::POST => client._post(path, body).await,
                Method::PATCH => client._patch(path, body).await,
                Method::PUT => client._put(path, body).await,
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
            if (status == 403 || status == 429)
                && let Some(wait) = rate_limit_wait(
                    header("retry-after"),
                    header("x-ratelimit-remaining"),
                    header("x-ratelimit-reset"),
                )
            {
                if started.elapsed() + wait > MAX_RATE_WAIT {
                    return Err(ApiError::RateLimited(wait));
                }
                tracing::warn!(path, ?wait, "GitHub rate limit; waiting");
                tokio::time::sleep(wait).await;
                continue;
            }
            if !(200..300).contains(&status) {
                let message = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v["message"].as_str().map(String::from))
                    .unwrap_or_else(|| text.chars().take(200).collect());
                return Err(ApiError::Status {
                    method,
                    path: path.to_string(),
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
                path: path.to_string(),
                error: e.to_string(),
            });
        }
    }
}

/// How long GitHub asks us to wait: `Retry-After` seconds, else the primary limit's reset
/// time when `x-ratelimit-remaining` is 0. None when the 403 is not a rate limit.
fn rate_limit_wait(
    retry_after: Option<&str>,
    remaining: Option<&str>,
    reset: Option<&str>,
) -> Option<Duration> {
    if let Some(secs) = retry_after.and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some(Duration::from_secs(secs));
    }
    if remaining == Some("0") {
        let reset = reset?.trim().parse::<i64>().ok()?;
        let wait = (reset - chrono::Utc::now().timestamp()).max(1) as u64;
        return Some(Duration::from_secs(wait));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_waits() {
        assert_eq!(
            rate_limit_wait(Some("3"), None, None),
            Some(Duration::from_secs(3))
        );
        let reset = (chrono::Utc::now().timestamp() + 30).to_string();
        let w = rate_limit_wait(None, Some("0"), Some(&reset)).unwrap();
        assert!(w >= Duration::from_secs(29) && w <= Duration::from_secs(31));
        assert_eq!(rate_limit_wait(None, Some("10"), Some(&reset)), None);
    }
}
