//! The circuit breaker every LLM call passes first: calls per run, cost per run, and wall
//! time. A stop is a value the router turns into an INCOMPLETE (or PARTIAL_SUCCESS)
//! outcome with the state kept, never a crash.

use std::time::{Duration, Instant};

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BudgetStop {
    #[error("LLM call limit of {limit} reached")]
    Calls { limit: u32 },
    #[error(
        "cost limit {} would be passed (spent {}, next call up to {})",
        crate::money::usd(*limit),
        crate::money::usd(*spent),
        crate::money::usd(*estimate)
    )]
    Cost {
        limit: f64,
        spent: f64,
        estimate: f64,
    },
    #[error("wall-clock limit of {limit_secs} s reached")]
    Time { limit_secs: u64 },
}

#[derive(Debug, Clone)]
pub struct Budget {
    max_calls: u32,
    max_cost_usd: f64,
    max_wall: Duration,
    started: Instant,
    calls: u32,
    spent_usd: f64,
}

impl Budget {
    pub fn new(max_calls: u32, max_cost_usd: f64, max_wall: Duration) -> Self {
        Self {
            max_calls,
            max_cost_usd,
            max_wall,
            started: Instant::now(),
            calls: 0,
            spent_usd: 0.0,
        }
    }

    /// May a call estimated at `estimate_usd` go ahead?
    pub fn check(&self, estimate_usd: f64) -> Result<(), BudgetStop> {
        if self.calls >= self.max_calls {
            return Err(BudgetStop::Calls {
                limit: self.max_calls,
            });
        }
        if self.spent_usd + estimate_usd > self.max_cost_usd {
            return Err(BudgetStop::Cost {
                limit: self.max_cost_usd,
                spent: self.spent_usd,
                estimate: estimate_usd,
            });
        }
        if self.started.elapsed() >= self.max_wall {
            return Err(BudgetStop::Time {
                limit_secs: self.max_wall.as_secs(),
            });
        }
        Ok(())
    }

    /// Books a finished call at its measured cost.
    pub fn record(&mut self, cost_usd: f64) {
        self.calls += 1;
        self.spent_usd += cost_usd;
    }

    pub fn calls(&self) -> u32 {
        self.calls
    }

    pub fn spent_usd(&self) -> f64 {
        self.spent_usd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_on_calls_cost_and_time() {
        let mut b = Budget::new(2, 1.0, Duration::from_secs(3600));
        assert_eq!(b.check(0.4), Ok(()));
        b.record(0.4);
        assert!(matches!(b.check(0.7), Err(BudgetStop::Cost { .. })));
        b.record(0.1);
        assert_eq!(b.check(0.0), Err(BudgetStop::Calls { limit: 2 }));
        let late = Budget::new(10, 1.0, Duration::ZERO);
        assert_eq!(late.check(0.0), Err(BudgetStop::Time { limit_secs: 0 }));
    }
}
