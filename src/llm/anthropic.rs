//! Anthropic Messages API (`POST /v1/messages`).

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::json;

use super::http::Client;
use super::{ChatRequest, ChatResponse, LlmError, Provider, Usage};

/// The API version this client speaks.
const API_VERSION: &str = "2023-06-01";

pub struct Anthropic {
    client: Client,
    model: String,
}

impl Anthropic {
    pub fn new(client: Client, model: &str) -> Self {
        Self {
            client,
            model: model.to_string(),
        }
    }
}

impl Provider for Anthropic {
    fn model(&self) -> &str {
        &self.model
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut headers = HeaderMap::new();
        let key = HeaderValue::from_str(self.client.key.expose())
            .map_err(|e| LlmError::Transport(format!("API key: {e}")))?;
        headers.insert("x-api-key", key);
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        let body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "system": request.system,
            "messages": [{"role": "user", "content": request.user}],
        });
        let (answer, attempts) = self.client.post("/v1/messages", headers, &body).await?;
        let text: String = answer["content"]
            .as_array()
            .ok_or_else(|| LlmError::Malformed("no content array".into()))?
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        let usage = Usage {
            input_tokens: answer["usage"]["input_tokens"].as_u64().unwrap_or(0),
            output_tokens: answer["usage"]["output_tokens"].as_u64().unwrap_or(0),
        };
        Ok(ChatResponse {
            text,
            usage,
            model: answer["model"].as_str().unwrap_or(&self.model).to_string(),
            attempts,
        })
    }
}
