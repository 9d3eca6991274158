//! The LLM tier's provider layer: one trait with HTTP clients for OpenAI-compatible chat
//! completions (OpenAI, Azure, vLLM, Ollama, gateways) and Anthropic's Messages API; token
//! and cost accounting from the providers' usage fields; the per-run budget checked before
//! every call; prompts whose repository and build-log text sits inside data fences; and
//! the structured edits a model must answer with.

pub mod anthropic;
pub mod budget;
pub mod edits;
pub mod embeddings;
pub mod http;
pub mod openai;
pub mod pricing;
pub mod prompt;
pub mod recorded;
pub mod search;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use crate::evidence::Usage;

/// One completion: the prompt is compiled fresh for every call, never a growing chat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
    pub max_tokens: u32,
    pub temperature: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatResponse {
    pub text: String,
    pub usage: Usage,
    pub model: String,
    /// Attempts the call took (retries included).
    pub attempts: u32,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LlmError {
    #[error("provider answered {status}: {body}")]
    Status { status: u16, body: String },
    #[error("transport: {0}")]
    Transport(String),
    #[error("malformed provider response: {0}")]
    Malformed(String),
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted { attempts: u32, last: String },
    /// A recorded call's error, replayed as it read.
    #[error("{0}")]
    Recorded(String),
}

impl LlmError {
    /// The provider refused the credentials (401/403): asking again cannot help, and the
    /// key may belong to someone else.
    pub fn is_auth(&self) -> bool {
        matches!(
            self,
            LlmError::Status {
                status: 401 | 403,
                ..
            }
        )
    }
}

/// A chat model behind HTTP.
pub trait Provider: Send + Sync {
    /// The model name used for pricing and the journal.
    fn model(&self) -> &str;
    fn complete(
        &self,
        request: &ChatRequest,
    ) -> impl std::future::Future<Output = Result<ChatResponse, LlmError>> + Send;
}

/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiKind {
    /// `POST {base}/v1/chat/completions` with a Bearer key.
    OpenaiCompatible,
    /// `POST {base}/v1/messages` with `x-api-key` and `anthropic-version`.
    Anthropic,
}

/// Where and how to call the model. The key comes from the environment (`api_key_env`),
/// never from a file in the repository.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSettings {
    pub api: ApiKind,
    pub base_url: String,
    pub model: String,
    #[serde(default = "default_key_env")]
    pub api_key_env: String,
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    #[serde(default = "default_retries")]
    pub max_retries: u32,
}

fn default_key_env() -> String {
    "UPLIFT_LLM_API_KEY".into()
}
fn default_timeout() -> u64 {
    120
}
fn default_retries() -> u32 {
    3
}

/// The configured provider, whichever API it speaks.
pub enum AnyProvider {
    OpenAi(openai::OpenAi),
    Anthropic(anthropic::Anthropic),
    Recorded(recorded::Recorded),
}

impl AnyProvider {
    pub fn from_settings(s: &LlmSettings) -> Result<Self, LlmError> {
        let client = http::Client::new(
            &s.base_url,
            crate::secrets::api_key(&s.api_key_env),
            Duration::from_secs(s.timeout_secs),
            s.max_retries,
        )?;
        Ok(match s.api {
            ApiKind::OpenaiCompatible => Self::OpenAi(openai::OpenAi::new(client, &s.model)),
            ApiKind::Anthropic => Self::Anthropic(anthropic::Anthropic::new(client, &s.model)),
        })
    }
}

impl Provider for AnyProvider {
    fn model(&self) -> &str {
        match self {
            Self::OpenAi(p) => p.model(),
            Self::Anthropic(p) => p.model(),
            Self::Recorded(p) => p.model(),
        }
    }
    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        match self {
            Self::OpenAi(p) => p.complete(request).await,
            Self::Anthropic(p) => p.complete(request).await,
            Self::Recorded(p) => p.complete(request).await,
        }
    }
}

/// A call that went through: the answer and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metered {
    pub response: ChatResponse,
    pub cost_usd: f64,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CallError {
    /// The budget said no before anything was sent.
    #[error(transparent)]
    Budget(#[from] budget::BudgetStop),
    #[error(transparent)]
    Llm(#[from] LlmError),
}

/// Every LLM call goes through here: the budget is checked against an estimate first,
/// then the measured cost is booked and counted in the metrics.
pub async fn metered<P: Provider>(
    provider: &P,
    prices: &pricing::PriceTable,
    budget: &mut budget::Budget,
    request: &ChatRequest,
) -> Result<Metered, CallError> {
    let chars = request.system.len() + request.user.len();
    budget.check(prices.estimate(provider.model(), chars, request.max_tokens))?;
    let response = provider.complete(request).await?;
    let cost_usd = prices.cost(provider.model(), response.usage);
    budget.record(cost_usd);
    let m = &crate::metrics::METRICS;
    m.llm_calls.inc();
    m.llm_tokens
        .inc_by(response.usage.input_tokens + response.usage.output_tokens);
    m.llm_cost_usd.add(cost_usd);
    Ok(Metered { response, cost_usd })
}
