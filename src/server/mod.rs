//! The HTTP edge: `POST /webhook` (verify, type, record, queue, answer) and `GET /healthz`
//! on the public listener, `GET /metrics` on its own (loopback by default). Everything slow
//! happens in the worker; intake is one transaction. Nothing an unverified request sends is
//! kept: no metric label, log field or database row, and its body is read only within a
//! byte budget shared by all requests in flight.

pub mod setup;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore, watch};

use sha2::Digest;

use crate::github::webhook::{self, Event, Parsed};
use crate::metrics::METRICS;
use crate::secrets::Secret;
use crate::store::Store;
use crate::store::intake::Intake;
use crate::store::jobs::{Delivery, JobKind, NewJob};

/// GitHub caps webhook payloads at 25 MB.
pub const BODY_LIMIT: usize = 25 * 1024 * 1024;
/// Request bodies held in memory at once, across all connections (in KiB permits).
const BODY_BYTES_IN_FLIGHT_KIB: usize = 64 * 1024;
/// A client must send its headers within this, and its body within [`BODY_TIMEOUT`].
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
const BODY_TIMEOUT: Duration = Duration::from_secs(20);
/// Open connections; more wait in the kernel's backlog (file descriptors stay available).
const MAX_CONNECTIONS: usize = 512;
/// The events Uplift handles; any other name is counted as `other`.
const KNOWN_EVENTS: &[&str] = &[
    "issue_comment",
    "installation",
    "installation_repositories",
    "pull_request",
    "check_run",
    "push",
    "ping",
];

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    /// Records verified deliveries by group commit.
    pub intake: Intake,
    pub webhook_secret: Secret,
    pub slug: String,
    pub max_attempts: u32,
    pub wake: Arc<Notify>,
    /// Bytes of request bodies in memory, in KiB permits.
    pub body_budget: Arc<Semaphore>,
}

impl AppState {
    pub fn new(
        store: Store,
        webhook_secret: Secret,
        slug: String,
        max_attempts: u32,
        wake: Arc<Notify>,
    ) -> Self {
        Self {
            intake: Intake::start(store.clone()),
            store,
            webhook_secret,
            slug,
            max_attempts,
            wake,
            body_budget: Arc::new(Semaphore::new(BODY_BYTES_IN_FLIGHT_KIB)),
        }
    }
}

/// The public routes: the webhook and the health check.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/webhook", post(webhook))
        .route("/healthz", get(healthz))
        .with_state(state)
}

/// `/metrics`, for its own listener: it must not be open to the internet.
pub fn metrics_router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .with_state(state)
}

async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Serves `router` until `stop` turns true: at most [`MAX_CONNECTIONS`] open at once, each
/// cut when its headers take longer than [`HEADER_TIMEOUT`].
pub async fn serve(listener: TcpListener, router: Router, mut stop: watch::Receiver<bool>) {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => p.expect("never closed"),
            _ = stopped(&mut stop) => return,
        };
        let stream = tokio::select! {
            a = listener.accept() => match a {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stopped(&mut stop) => return,
        };
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(permit);
        });
    }
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
        }
        | Event::DefaultBranchPush {
            installation, repo, ..
        } => (*installation, repo.clone()),
    }
}

/// Reads a body whose declared length is within the limit, inside the shared byte budget
/// and the body timeout; what does not fit is refused before a byte is read.
async fn read_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<Bytes, (StatusCode, String)> {
    let Some(len) = header(headers, "content-length").and_then(|v| v.parse::<usize>().ok()) else {
        return Err((
            StatusCode::LENGTH_REQUIRED,
            "Content-Length required".into(),
        ));
    };
    if len > BODY_LIMIT {
        return Err((StatusCode::PAYLOAD_TOO_LARGE, "payload too large".into()));
    }
    let kib = u32::try_from(len.div_ceil(1024).max(1)).expect("within BODY_LIMIT");
    let read = async {
        let _permit = state.body_budget.acquire_many(kib).await;
        axum::body::to_bytes(body, len).await
    };
    match tokio::time::timeout(BODY_TIMEOUT, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => Err((
            StatusCode::BAD_REQUEST,
            "body does not match Content-Length".into(),
        )),
        Err(_) => Err((StatusCode::REQUEST_TIMEOUT, "body too slow".into())),
    }
}

/// The metric label of an event name: only names Uplift handles, so no request can grow
/// the label set.
fn event_label(event: &str) -> &str {
    KNOWN_EVENTS
        .iter()
        .find(|&&e| e == event)
        .copied()
        .unwrap_or("other")
}

/// What makes two deliveries the same work: a comment command is handled once per comment
/// and text (an edit is new work), whatever delivery id it comes under; anything else once
/// per delivery.
fn idempotency_key(event: &Event, delivery: &str) -> String {
    match event {
        Event::IssueComment(c) => {
            let digest = sha2::Sha256::digest(c.body.as_bytes());
            format!(
                "comment-{}-{}-{}",
                c.repo,
                c.comment_id,
                hex::encode(&digest[..8])
            )
        }
        _ => format!("delivery-{delivery}"),
    }
}

async fn webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> impl IntoResponse {
    let body = match read_body(&state, &headers, body).await {
        Ok(b) => b,
        Err(refusal) => {
            METRICS
                .webhooks
                .with_label_values(&["unverified", "refused"])
                .inc();
            return refusal;
        }
    };
    if !webhook::verify_signature(
        state.webhook_secret.expose().as_bytes(),
        &body,
        header(&headers, "x-hub-signature-256"),
    ) {
        METRICS
            .webhooks
            .with_label_values(&["unverified", "bad_signature"])
            .inc();
        tracing::warn!("webhook rejected: missing or wrong signature");
        return (StatusCode::UNAUTHORIZED, "bad signature".to_string());
    }
    let event = header(&headers, "x-github-event").unwrap_or("").to_string();
    let label = event_label(&event);
    let count = |result: &str| METRICS.webhooks.with_label_values(&[label, result]).inc();
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
        idempotency_key: idempotency_key(&event_value, &delivery),
        payload: serde_json::to_value(&event_value).expect("events serialise"),
        max_attempts: state.max_attempts,
    };
    let record = Delivery {
        id: delivery.clone(),
        event: event.clone(),
        job: Some(job),
    };
    match state.intake.record(record).await {
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
