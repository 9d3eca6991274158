//! Which retrieval plan a query gets: a pure function of the query's intent, the lexical
//! confidence, whether semantic search is available, and an override. Rules are applied
//! in order and the first match wins; the rule's name goes into the journal. At run time a
//! plan may only be downgraded (deep -> standard -> fast), with a reason from a fixed set.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanKind {
    LexicalFast,
    HybridStandard,
    SemanticDeep,
}

impl PlanKind {
    /// Candidates considered and the latency budget.
    pub fn limits(self) -> (usize, u64) {
        match self {
            Self::LexicalFast => (10, 50),
            Self::HybridStandard => (30, 300),
            Self::SemanticDeep => (100, 1500),
        }
    }

    fn cheaper(self) -> Option<Self> {
        match self {
            Self::SemanticDeep => Some(Self::HybridStandard),
            Self::HybridStandard => Some(Self::LexicalFast),
            Self::LexicalFast => None,
        }
    }

    fn needs_semantic(self) -> bool {
        self != Self::LexicalFast
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    Symbol,
    Path,
    Error,
    NaturalLanguage,
    Exploratory,
}

/// Why a plan ran cheaper than selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DowngradeReason {
    SemanticUnavailable,
    BudgetExhausted,
    TimeoutGuard,
    ConfigForced,
}

/// Thresholds are configuration; these are the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    pub high_confidence: f64,
    pub low_confidence: f64,
    pub allow_override: bool,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            high_confidence: 0.75,
            low_confidence: 0.55,
            allow_override: true,
        }
    }
}

pub struct Query {
    pub intent: Intent,
    pub lexical_confidence: f64,
    pub semantic_available: bool,
    pub override_plan: Option<PlanKind>,
}

/// The selected plan and the rule that chose it.
pub fn select(q: &Query, t: &Thresholds) -> (PlanKind, &'static str) {
    use Intent::*;
    if let Some(p) = q.override_plan.filter(|_| t.allow_override) {
        return (p, "P1:override allowed by config");
    }
    if !q.semantic_available {
        return if matches!(q.intent, Symbol | Path) {
            (
                PlanKind::LexicalFast,
                "P2:semantic unavailable, symbol/path intent",
            )
        } else {
            (
                PlanKind::HybridStandard,
                "P2:semantic unavailable, other intent",
            )
        };
    }
    if matches!(q.intent, Symbol | Path | Error) && q.lexical_confidence >= t.high_confidence {
        return (
            PlanKind::LexicalFast,
            "P3:precise intent, confident lexical match",
        );
    }
    if matches!(q.intent, NaturalLanguage | Exploratory) && q.lexical_confidence < t.low_confidence
    {
        return (
            PlanKind::SemanticDeep,
            "P4:vague intent, weak lexical match",
        );
    }
    (PlanKind::HybridStandard, "P5:default")
}

/// What the journal and the report carry about one retrieval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanReport {
    pub query_plan_selected: PlanKind,
    pub query_plan_rule: &'static str,
    /// The plan that ran, when cheaper than the one selected.
    pub query_plan_downgraded: Option<PlanKind>,
    pub query_plan_downgrade_reason: Option<DowngradeReason>,
    /// Share of the executed plan's latency budget used, in [0, 1+].
    pub query_plan_budget_used: f64,
}

/// The plan that can actually run, one step cheaper at a time, with the first reason
/// that forced a step. `forced` is a config cap (e.g. lexical only).
pub fn executable(
    selected: PlanKind,
    semantic_available: bool,
    budget_left_ms: u64,
    forced: Option<PlanKind>,
) -> (PlanKind, Option<DowngradeReason>) {
    let mut plan = selected;
    let mut reason = None;
    loop {
        let why = if forced.is_some_and(|f| plan > f) {
            Some(DowngradeReason::ConfigForced)
        } else if plan.needs_semantic() && !semantic_available {
            Some(DowngradeReason::SemanticUnavailable)
        } else if plan.limits().1 > budget_left_ms {
            Some(DowngradeReason::BudgetExhausted)
        } else {
            None
        };
        match (why, plan.cheaper()) {
            (Some(w), Some(cheaper)) => {
                reason = reason.or(Some(w));
                plan = cheaper;
            }
            _ => return (plan, reason),
        }
    }
}

/// The intent of a retrieval query, from its shape.
pub fn intent(query: &str) -> Intent {
    let q = query.trim();
    let lower = q.to_lowercase();
    let one_token = !q.contains(char::is_whitespace);
    if one_token && (q.contains('/') || q.ends_with(".java") || q.ends_with(".xml")) {
        return Intent::Path;
    }
    if one_token
        && q.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '$' | '#' | '(' | ')'))
    {
        return Intent::Symbol;
    }
    let error_words = [
        "error",
        "exception",
        "cannot find symbol",
        "does not exist",
        "incompatible types",
        "failed",
        "cannot be applied",
    ];
    if error_words.iter().any(|w| lower.contains(w)) {
        return Intent::Error;
    }
    let question_words = ["how ", "why ", "what ", "which ", "where "];
    if q.ends_with('?') || question_words.iter().any(|w| lower.starts_with(w)) {
        return Intent::Exploratory;
    }
    Intent::NaturalLanguage
}

#[cfg(test)]
mod tests {
    use super::*;
    use DowngradeReason::*;
    use Intent::*;
    use PlanKind::*;

    #[test]
    fn selector_rules_in_order() {
        let t = Thresholds::default();
        let no_override = Thresholds {
            allow_override: false,
            ..t
        };
        // (intent, confidence, semantic, override, thresholds) -> plan, rule prefix
        let cases = [
            (Error, 0.9, true, Some(SemanticDeep), t, SemanticDeep, "P1"),
            (
                Error,
                0.9,
                true,
                Some(SemanticDeep),
                no_override,
                LexicalFast,
                "P3",
            ),
            (Symbol, 0.1, false, None, t, LexicalFast, "P2"),
            (Path, 0.1, false, None, t, LexicalFast, "P2"),
            (Error, 0.1, false, None, t, HybridStandard, "P2"),
            (NaturalLanguage, 0.1, false, None, t, HybridStandard, "P2"),
            (Symbol, 0.75, true, None, t, LexicalFast, "P3"),
            (Error, 0.80, true, None, t, LexicalFast, "P3"),
            (Error, 0.74, true, None, t, HybridStandard, "P5"),
            (NaturalLanguage, 0.54, true, None, t, SemanticDeep, "P4"),
            (Exploratory, 0.2, true, None, t, SemanticDeep, "P4"),
            (Exploratory, 0.55, true, None, t, HybridStandard, "P5"),
            (NaturalLanguage, 0.9, true, None, t, HybridStandard, "P5"),
        ];
        for (intent, c, sem, ov, th, want, rule) in cases {
            let q = Query {
                intent,
                lexical_confidence: c,
                semantic_available: sem,
                override_plan: ov,
            };
            let (got, r) = select(&q, &th);
            assert_eq!((got, &r[..2]), (want, rule), "{intent:?} {c} {sem} {ov:?}");
        }
    }

    #[test]
    fn downgrades_only_go_cheaper_with_the_first_reason() {
        let cases = [
            (SemanticDeep, true, 10_000, None, SemanticDeep, None),
            (
                SemanticDeep,
                false,
                10_000,
                None,
                LexicalFast,
                Some(SemanticUnavailable),
            ),
            (
                SemanticDeep,
                true,
                400,
                None,
                HybridStandard,
                Some(BudgetExhausted),
            ),
            (
                SemanticDeep,
                true,
                10,
                None,
                LexicalFast,
                Some(BudgetExhausted),
            ),
            (
                HybridStandard,
                true,
                10_000,
                Some(LexicalFast),
                LexicalFast,
                Some(ConfigForced),
            ),
            (LexicalFast, false, 0, None, LexicalFast, None),
        ];
        for (sel, sem, left, forced, want, reason) in cases {
            assert_eq!(
                executable(sel, sem, left, forced),
                (want, reason),
                "{sel:?}"
            );
        }
    }

    #[test]
    fn intent_from_query_shape() {
        for (q, want) in [
            ("javax.annotation.Generated", Symbol),
            ("src/main/java/A.java", Path),
            ("[ERROR] cannot find symbol: class Generated", Error),
            ("how do I move to jakarta?", Exploratory),
            ("servlet filters after the upgrade", NaturalLanguage),
        ] {
            assert_eq!(intent(q), want, "{q}");
        }
    }
}
