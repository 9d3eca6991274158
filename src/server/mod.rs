//! The HTTP edge: `POST /webhook` (verify, type, record, queue, answer), `GET /healthz` and
//! `GET /metrics`. Everything slow happens in the worker; intake is one transaction.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use tokio::sync::Notify;

use crate::github::webhook::{self, Event, Parsed};
use crate::metrics::METRICS;
use crate::settings::Secret;
use crate::store::Store;
use crate::store::jobs::{JobKind, NewJob};

/// GitHub caps webhook payloads at 25 MB.
pub const BODY_LIMIT: usize = 25 * 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub webhook_secret: Secret,
    pub slug: String,
    pub max_attempts: u32,
    pub wake: Arc<Notify>,
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/webhook", post(webhook))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    match state.store.job_counts().await {
        Ok(_) => (StatusCode::OK, "ok"),
        Err(_) => (StatusCode::SERVICE_UNAVAILABLE, "database unavailable"),
    }
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    let counts = state.store.job_counts().await.unwrap_or_default();
    (
        [("content-type", "text/plain; version=0.0.4")],
        METRICS.render(&counts),
    )
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The installation and repository a job is about (for limits and one-at-a-time rules).
fn job_scope(event: &Event) -> (i64, String) {
    match event {
        Event::Ping => (0, String::new()),
        Event::Installation { installation, .. }
        | Event::InstallationRepositories { installation, .. } => (*installation, String::new()),
        Event::IssueComment(c) => (c.installation, c.repo.clone()),
        Event::PullRequestClosed {
            installation, repo, ..
        }
        | Event::CheckRun {
            installation, repo, ..
        }
        | Event::ConfigPush {
            installation, repo, ..
        } => (*installation, repo.clone()),
    }
}

async fn webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let event = header(&headers, "x-github-event").unwrap_or("").to_string();
    let count = |result: &str| METRICS.webhooks.with_label_values(&[&event, result]).inc();
    if !webhook::verify_signature(
        state.webhook_secret.expose().as_bytes(),
        &body,
        header(&headers, "x-hub-signature-256"),
    ) {
        count("bad_signature");
        tracing::warn!(event, "webhook rejected: missing or wrong signature");
        return (StatusCode::UNAUTHORIZED, "bad signature".to_string());
    }
    let Some(delivery) = header(&headers, "x-github-delivery").map(String::from) else {
        count("malformed");
        return (StatusCode::BAD_REQUEST, "missing X-GitHub-Delivery".into());
    };
    let parsed = match webhook::parse(&event, &body, &state.slug) {
        Ok(p) => p,
        Err(e) => {
            count("malformed");
            tracing::warn!(delivery, error = %e, "malformed webhook");
            return (StatusCode::BAD_REQUEST, e.to_string());
        }
    };
    let event_value = match parsed {
        Parsed::Ignored(why) => {
            count("ignored");
            tracing::debug!(delivery, why, "webhook ignored");
            return (StatusCode::OK, format!("ignored: {why}"));
        }
        Parsed::Event(Event::Ping) => {
            count("pong");
            return (StatusCode::OK, "pong".into());
        }
        Parsed::Event(e) => e,
    };
    let (installation, repo) = job_scope(&event_value);
    let job = NewJob {
        kind: JobKind::Event,
        installation_id: installation,
        repo,
        target: 0,
        idempotency_key: format!("delivery-{delivery}"),
        payload: serde_json::to_value(&event_value).expect("events serialise"),
        max_attempts: state.max_attempts,
    };
    match state
        .store
        .record_delivery(&delivery, &event, Some(&job))
        .await
    {
        Ok(true) => {
            count("queued");
            state.wake.notify_waiters();
            (StatusCode::ACCEPTED, "queued".into())
        }
        Ok(false) => {
            count("duplicate");
            (StatusCode::OK, "duplicate delivery".into())
        }
        Err(e) => {
            count("error");
            tracing::error!(delivery, error = %e, "cannot record webhook");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "cannot record the delivery; redeliver later".into(),
            )
        }
    }
}
