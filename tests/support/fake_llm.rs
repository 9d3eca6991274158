//! A fake LLM provider and search API over HTTP on 127.0.0.1: it answers OpenAI's
//! `/v1/chat/completions`, Anthropic's `/v1/messages` and a Tavily-style `/search` with
//! recorded responses, in order, and records every request it receives (path, headers,
//! JSON body) for the assertions.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

/// One recorded answer.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn ok(body: Value) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Value,
}

#[derive(Default)]
struct Inner {
    script: VecDeque<Recorded>,
    received: Vec<Received>,
}

#[derive(Clone, Default)]
pub struct FakeLlm(Arc<Mutex<Inner>>);

impl FakeLlm {
    /// Serves on an ephemeral port; returns the base URL.
    pub async fn start(&self) -> String {
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .route("/v1/messages", post(answer))
            .route("/search", post(answer))
            .route("/v1/embeddings", post(answer))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}")
    }

    pub fn push(&self, r: Recorded) {
        self.0.lock().unwrap().script.push_back(r);
    }

    pub fn received(&self) -> Vec<Received> {
        self.0.lock().unwrap().received.clone()
    }
}

async fn answer(
    State(fake): State<FakeLlm>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let next = {
        let mut inner = fake.0.lock().unwrap();
        inner.received.push(Received {
            path: uri.path().to_string(),
            headers,
            body,
        });
        inner.script.pop_front()
    };
    let Some(r) = next else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "no recorded response left",
        )
            .into_response();
    };
    let mut resp = (StatusCode::from_u16(r.status).unwrap(), axum::Json(r.body)).into_response();
    for (k, v) in r.headers {
        resp.headers_mut().insert(k, v.parse().unwrap());
    }
    resp
}
