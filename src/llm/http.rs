//! JSON over HTTP for the providers: a timeout per request, and retries with backoff on
//! 429 and 5xx that honour `Retry-After` (capped, so a hostile header cannot stall a run).

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::secrets::Secret;

use super::LlmError;

/// Longest wait a `Retry-After` header may ask for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

pub struct Client {
    http: reqwest::Client,
    pub base_url: String,
    pub key: Secret,
    max_retries: u32,
}

impl Client {
    pub fn new(
        base_url: &str,
        key: Secret,
        timeout: Duration,
        max_retries: u32,
    ) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| LlmError::Transport(e.to_string()))?;
        Ok(Self {
            http,
            base_url: base_url.trim_end_matches('/').to_string(),
            key,
            max_retries,
        })
    }

    /// `Authorization: Bearer <key>` (none when no key is set, e.g. a local model).
    pub fn bearer(&self) -> Result<HeaderMap, LlmError> {
        let mut headers = HeaderMap::new();
        if !self.key.expose().is_empty() {
            let value =
                reqwest::header::HeaderValue::from_str(&format!("Bearer {}", self.key.expose()))
                    .map_err(|e| LlmError::Transport(format!("API key: {e}")))?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        Ok(headers)
    }

    /// POSTs `body` to `{base}{path}` with `headers`; returns the JSON answer and the
    /// number of attempts it took.
    pub async fn post(
        &self,
        path: &str,
        headers: HeaderMap,
        body: &Value,
    ) -> Result<(Value, u32), LlmError> {
        let url = format!("{}{path}", self.base_url);
        let mut last = String::new();
        for attempt in 1..=self.max_retries + 1 {
            let sent = self
                .http
                .post(&url)
                .headers(headers.clone())
                .json(body)
                .send()
                .await;
            let wait = match sent {
                Ok(resp) => {
                    let status = resp.status();
                    let retry_after = retry_after(resp.headers());
                    let text = resp
                        .text()
                        .await
                        .map_err(|e| LlmError::Transport(e.to_string()))?;
                    if status.is_success() {
                        let json = serde_json::from_str(&text)
                            .map_err(|e| LlmError::Malformed(format!("{e}: {}", cap(&text))))?;
                        return Ok((json, attempt));
                    }
                    if status.as_u16() != 429 && !status.is_server_error() {
                        return Err(LlmError::Status {
                            status: status.as_u16(),
                            body: cap(&text),
                        });
                    }
                    last = format!("{status}: {}", cap(&text));
                    retry_after
                }
                Err(e) if e.is_timeout() || e.is_connect() => {
                    last = e.to_string();
                    None
                }
                Err(e) => return Err(LlmError::Transport(e.to_string())),
            };
            if attempt <= self.max_retries {
                let backoff = FIRST_BACKOFF * 2u32.pow(attempt - 1);
                tokio::time::sleep(wait.unwrap_or(backoff).min(MAX_RETRY_AFTER)).await;
            }
        }
        Err(LlmError::RetriesExhausted {
            attempts: self.max_retries + 1,
            last,
        })
    }
}

/// `Retry-After` in seconds (the HTTP-date form is treated as absent).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

/// Error bodies go into errors and the journal: keep them short and redacted.
fn cap(text: &str) -> String {
    let redacted = crate::redact::redact(text);
    match redacted.char_indices().nth(500) {
        Some((i, _)) => format!("{}…", &redacted[..i]),
        None => redacted,
    }
}
