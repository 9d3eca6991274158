//! Cost from token counts, priced per model (US dollars per million tokens). The table is
//! configuration; these defaults are list prices and an unknown model is priced at the
//! most expensive entry, so a budget errs on the safe side.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Usage;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable(pub BTreeMap<String, Price>);

impl Default for PriceTable {
    fn default() -> Self {
        let p = |i, o| Price {
            input_per_mtok: i,
            output_per_mtok: o,
        };
        Self(BTreeMap::from([
            ("gpt-4o".into(), p(2.5, 10.0)),
            ("gpt-4o-mini".into(), p(0.15, 0.6)),
            ("gpt-4.1".into(), p(2.0, 8.0)),
            ("gpt-4.1-mini".into(), p(0.4, 1.6)),
            ("claude-3-5-haiku-latest".into(), p(0.8, 4.0)),
            ("claude-sonnet-4-0".into(), p(3.0, 15.0)),
            ("claude-opus-4-0".into(), p(15.0, 75.0)),
        ]))
    }
}

impl PriceTable {
    fn price(&self, model: &str) -> Price {
        self.0.get(model).copied().unwrap_or_else(|| {
            self.0.values().copied().fold(
                Price {
                    input_per_mtok: 0.0,
                    output_per_mtok: 0.0,
                },
                |a, b| Price {
                    input_per_mtok: a.input_per_mtok.max(b.input_per_mtok),
                    output_per_mtok: a.output_per_mtok.max(b.output_per_mtok),
                },
            )
        })
    }

    pub fn cost(&self, model: &str, usage: Usage) -> f64 {
        let p = self.price(model);
        (usage.input_tokens as f64 * p.input_per_mtok
            + usage.output_tokens as f64 * p.output_per_mtok)
            / 1e6
    }

    /// Before a call: about four characters a token for the prompt, and the whole
    /// completion allowance.
    pub fn estimate(&self, model: &str, prompt_chars: usize, max_tokens: u32) -> f64 {
        self.cost(
            model,
            Usage {
                input_tokens: prompt_chars.div_ceil(4) as u64,
                output_tokens: u64::from(max_tokens),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_by_list_price_unknown_at_the_dearest() {
        let t = PriceTable::default();
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
        };
        assert!((t.cost("gpt-4o-mini", u) - 0.75).abs() < 1e-9);
        assert!((t.cost("some-local-model", u) - 90.0).abs() < 1e-9);
        assert!(
            (t.estimate("gpt-4o", 4000, 1000) - (1000.0 * 2.5 + 1000.0 * 10.0) / 1e6).abs() < 1e-12
        );
    }
}
