//! Replay that executes (`uplift replay RUN --execute DIR`): the pipeline runs again on DIR,
//! the project as the run found it, with everything non-deterministic the run consumed
//! served from its journal instead of the world: build results and the class-file versions
//! they produced, model answers and their usage, retrieval's choices, the wall clock's
//! stops, web search results. The new journal is then compared with the recorded one entry
//! by entry, so a change in any decision (rule, plan, rollback round, stop reason) shows as
//! a difference. Embeddings are not recorded: a run that used them replays without.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Mutex;

use crate::journal::{
    BuildOutcome, Entry, FixAttempt, Journal, ModelAnswer, RetrievalRecord, SearchRecord, Stage,
    StepResult,
};
use crate::llm::ChatResponse;
use crate::llm::recorded::Recorded;

/// What a run consumed from outside, in the order it consumed it.
#[derive(Debug, Default)]
pub struct Recording {
    builds: Mutex<VecDeque<BuildOutcome>>,
    majors: Mutex<VecDeque<BTreeMap<u32, usize>>>,
    retrievals: Mutex<VecDeque<RetrievalRecord>>,
    searches: Mutex<VecDeque<SearchRecord>>,
    answers: Vec<Result<ChatResponse, String>>,
    /// Entry numbers at which the run stopped on its wall-clock budget.
    clock_stops: BTreeSet<u32>,
}

impl Recording {
    pub fn from_journal(journal: &Journal) -> Self {
        let mut r = Recording::default();
        let (builds, majors, retrievals, searches) = (
            r.builds.get_mut().expect("fresh"),
            r.majors.get_mut().expect("fresh"),
            r.retrievals.get_mut().expect("fresh"),
            r.searches.get_mut().expect("fresh"),
        );
        for e in &journal.entries {
            match &e.result {
                StepResult::Built(b) if e.stage == Stage::Baseline && !reused(e) => {
                    builds.push_back(b.as_ref().clone())
                }
                StepResult::Validated(v) => {
                    builds.push_back(v.build.clone());
                    majors.push_back(v.class_majors.clone());
                }
                StepResult::Fixed(f) => {
                    retrievals.extend(f.retrieval.clone());
                    searches.extend(f.search.clone());
                    r.answers.extend(answer(f));
                }
                StepResult::LimitReached { .. } if e.rule.starts_with("R0:") => {
                    r.clock_stops.insert(e.seq);
                }
                _ => {}
            }
        }
        r
    }

    /// The next build's outcome, as the run recorded it.
    pub fn next_build(&self) -> BuildOutcome {
        pop(&self.builds).unwrap_or_else(|| BuildOutcome {
            jdk: None,
            raised_level: None,
            run: None,
            tests: Default::default(),
            error: Some("the recording holds no further build".into()),
        })
    }

    /// The class-file versions the next validated build produced.
    pub fn next_majors(&self) -> BTreeMap<u32, usize> {
        pop(&self.majors).unwrap_or_default()
    }

    pub fn next_retrieval(&self) -> Option<RetrievalRecord> {
        pop(&self.retrievals)
    }

    /// The next web search's results and the cache's counts then.
    pub fn next_search(&self) -> Option<SearchRecord> {
        pop(&self.searches)
    }

    /// Whether the run stopped on its wall clock where entry `seq` comes next.
    pub fn clock_stops_at(&self, seq: u32) -> bool {
        self.clock_stops.contains(&seq)
    }

    /// A provider that gives the recorded answers in order.
    pub fn provider(&self, model: &str) -> Recorded {
        Recorded::new(model, self.answers.clone())
    }
}

/// A baseline taken over from an earlier attempt ran no build.
fn reused(e: &Entry) -> bool {
    e.rule.starts_with("R3r:")
}

fn pop<T>(queue: &Mutex<VecDeque<T>>) -> Option<T> {
    queue.lock().ok()?.pop_front()
}

fn answer(f: &FixAttempt) -> Option<Result<ChatResponse, String>> {
    Some(match f.answer.as_ref()? {
        ModelAnswer::Text(text) => Ok(ChatResponse {
            text: text.clone(),
            usage: f.usage.unwrap_or_default(),
            model: f.model.clone().unwrap_or_default(),
            attempts: 1,
        }),
        ModelAnswer::Error(e) => Err(e.clone()),
    })
}

/// The entries where the replayed journal differs from the recorded one: stage, rule,
/// category, cost and result are compared; times, inputs (which name the directory) and
/// what each step knew beforehand are not.
pub fn compare(recorded: &Journal, replayed: &Journal) -> Vec<String> {
    let key = |e: &Entry| {
        serde_json::json!({
            "stage": e.stage, "rule": e.rule, "category": e.category,
            "cost_usd": e.cost_usd, "result": e.result,
        })
    };
    let n = recorded.entries.len().max(replayed.entries.len());
    (0..n)
        .filter_map(|i| {
            let a = recorded.entries.get(i).map(key);
            let b = replayed.entries.get(i).map(key);
            (a != b).then(|| {
                format!(
                    "entry {}:\n  recorded: {}\n  replayed: {}",
                    i + 1,
                    short(a),
                    short(b)
                )
            })
        })
        .collect()
}

fn short(v: Option<serde_json::Value>) -> String {
    const CAP: usize = 600;
    let text = v.map_or_else(|| "(none)".to_string(), |v| v.to_string());
    match text.char_indices().nth(CAP) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u32, rule: &str, result: StepResult) -> Entry {
        Entry::bare(seq, Stage::Classify, rule, result)
    }

    #[test]
    fn the_same_decisions_compare_equal_whatever_the_timing() {
        let a = Journal {
            run_id: "a".into(),
            entries: vec![entry(
                1,
                "R9:validated, classify",
                StepResult::BuildSkipped { reason: "x".into() },
            )],
        };
        let mut b = a.clone();
        b.run_id = "b".into();
        b.entries[0].duration_ms = 999;
        b.entries[0].known = "elsewhere".into();
        assert!(compare(&a, &b).is_empty());
        b.entries[0].rule = "R0:wall-clock budget spent".into();
        let d = compare(&a, &b);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].starts_with("entry 1:") && d[0].contains("R0:"),
            "{d:?}"
        );
        b.entries.push(entry(
            2,
            "R9",
            StepResult::BuildSkipped { reason: "y".into() },
        ));
        assert_eq!(compare(&a, &b).len(), 2, "an extra entry is a difference");
    }

    #[test]
    fn the_wall_clock_stop_is_replayed_where_it_happened() {
        let j = Journal {
            run_id: "a".into(),
            entries: vec![
                entry(1, "R1", StepResult::BuildSkipped { reason: "x".into() }),
                entry(
                    2,
                    "R0:wall-clock budget spent",
                    StepResult::LimitReached {
                        limit: "wall".into(),
                    },
                ),
            ],
        };
        let r = Recording::from_journal(&j);
        assert!(!r.clock_stops_at(1));
        assert!(r.clock_stops_at(2));
        assert!(r.next_build().error.is_some(), "no recorded build");
    }
}
