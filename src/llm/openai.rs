//! OpenAI-compatible chat completions (`POST /v1/chat/completions`).

use serde_json::json;

use super::http::Client;
use super::{ChatRequest, ChatResponse, LlmError, Provider, Usage};

pub struct OpenAi {
    client: Client,
    model: String,
}

impl OpenAi {
    pub fn new(client: Client, model: &str) -> Self {
        Self {
            client,
            model: model.to_string(),
        }
    }
}

impl Provider for OpenAi {
    fn model(&self) -> &str {
        &self.model
    }

    async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let headers = self.client.bearer()?;
        let body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
        });
        let (answer, attempts) = self
            .client
            .post("/v1/chat/completions", headers, &body)
            .await?;
        let text = answer["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| LlmError::Malformed("no choices[0].message.content".into()))?;
        let usage = Usage {
            input_tokens: answer["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
            output_tokens: answer["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        };
        Ok(ChatResponse {
            text: text.to_string(),
            usage,
            model: answer["model"].as_str().unwrap_or(&self.model).to_string(),
            attempts,
        })
    }
}
