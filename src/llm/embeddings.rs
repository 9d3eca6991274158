//! Semantic vectors from an OpenAI-compatible `/v1/embeddings` endpoint, for the hybrid
//! and deep retrieval plans. Without one configured, retrieval is `semantic_unavailable`.

use serde_json::json;

use super::http::Client;
use super::{LlmError, LlmSettings};

pub struct Embeddings {
    client: Client,
    model: String,
}

impl Embeddings {
    pub fn from_settings(s: &LlmSettings) -> Result<Self, LlmError> {
        let client = Client::new(
            &s.base_url,
            crate::secrets::api_key(&s.api_key_env),
            std::time::Duration::from_secs(s.timeout_secs),
            s.max_retries,
        )?;
        Ok(Self {
            client,
            model: s.model.clone(),
        })
    }

    /// One vector per input, in input order.
    pub async fn embed(&self, inputs: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let headers = self.client.bearer()?;
        let body = json!({"model": self.model, "input": inputs});
        let (answer, _) = self.client.post("/v1/embeddings", headers, &body).await?;
        let data = answer["data"]
            .as_array()
            .ok_or_else(|| LlmError::Malformed("no data array".into()))?;
        let mut out = vec![Vec::new(); inputs.len()];
        for d in data {
            let i = d["index"].as_u64().unwrap_or(0) as usize;
            let v: Vec<f32> = d["embedding"]
                .as_array()
                .ok_or_else(|| LlmError::Malformed("no embedding".into()))?
                .iter()
                .filter_map(|x| x.as_f64().map(|f| f as f32))
                .collect();
            if let Some(slot) = out.get_mut(i) {
                *slot = v;
            }
        }
        if out.iter().any(Vec::is_empty) {
            return Err(LlmError::Malformed("an input got no embedding".into()));
        }
        Ok(out)
    }
}

pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let n = norm(a) * norm(b);
    if n == 0.0 { 0.0 } else { dot / n }
}

/// Hybrid ranking: lexical scores (normalized to the best) and semantic similarity, half
/// and half, over the union of both candidate lists.
pub fn merge(
    lexical: &[(usize, f64)],
    semantic: &[(usize, f64)],
    limit: usize,
) -> Vec<(usize, f64)> {
    let top = lexical.first().map_or(1.0, |h| h.1.max(f64::EPSILON));
    let mut all: Vec<(usize, f64)> = Vec::new();
    for &(i, _) in lexical.iter().chain(semantic) {
        if all.iter().any(|(j, _)| *j == i) {
            continue;
        }
        let lex = lexical.iter().find(|h| h.0 == i).map_or(0.0, |h| h.1 / top);
        let sem = semantic.iter().find(|h| h.0 == i).map_or(0.0, |h| h.1);
        all.push((i, 0.5 * lex + 0.5 * sem));
    }
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(limit);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantic_neighbours_join_the_lexical_ones() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-9);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        let lexical = [(0, 4.0), (1, 2.0)];
        let semantic = [(2, 0.95), (1, 0.9)];
        let merged = merge(&lexical, &semantic, 3);
        assert_eq!(merged.iter().map(|m| m.0).collect::<Vec<_>>(), [1, 0, 2]);
    }
}
