//! A provider that answers from a recording (`uplift replay --execute`): each call gets the
//! next recorded answer, in order, and nothing goes over the network.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::{ChatRequest, ChatResponse, LlmError, Provider};

pub struct Recorded {
    model: String,
    answers: Mutex<VecDeque<Result<ChatResponse, String>>>,
}

impl Recorded {
    /// `answers`: what each call returned (the response, or the error as it read).
    pub fn new(model: &str, answers: Vec<Result<ChatResponse, String>>) -> Self {
        Self {
            model: model.to_string(),
            answers: Mutex::new(answers.into()),
        }
    }
}

impl Provider for Recorded {
    fn model(&self) -> &str {
        &self.model
    }

    async fn complete(&self, _request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let next = self
            .answers
            .lock()
            .map_err(|_| LlmError::Recorded("the recording is unavailable".into()))?
            .pop_front();
        match next {
            Some(Ok(response)) => Ok(response),
            Some(Err(error)) => Err(LlmError::Recorded(error)),
            None => Err(LlmError::Recorded(
                "the recording holds no further model answer".into(),
            )),
        }
    }
}
