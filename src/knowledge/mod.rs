//! Solved-example retrieval: error signatures, a lexical (BM25) index over the stored
//! examples, and the deterministic choice of retrieval plan. The examples themselves live
//! in the store (`store/knowledge.rs`).

pub mod bm25;
pub mod plan;
pub mod signature;

use crate::journal::{FixResult, Journal};
use crate::store::Store;
use crate::store::knowledge::{ExampleEvent, NewExample};

/// The learning hook for a migration PR: a merge deposits (or re-confirms) every fix the
/// run applied and counts it merged; closing unmerged lowers their standing. Returns how
/// many examples were touched.
pub async fn learn_from_pull(
    store: &Store,
    journal: &Journal,
    features: &str,
    origin: &str,
    merged: bool,
) -> anyhow::Result<usize> {
    let mut touched = 0;
    for f in journal.fix_attempts() {
        let FixResult::Applied { edits, .. } = &f.result else {
            continue;
        };
        if edits.is_empty() {
            continue;
        }
        let id = store
            .deposit_example(&NewExample {
                signature: &f.failure.signature,
                features,
                diff: edits,
                origin,
            })
            .await?;
        let event = if merged {
            ExampleEvent::Merged
        } else {
            ExampleEvent::Declined
        };
        store.example_event(&id, event).await?;
        touched += 1;
    }
    Ok(touched)
}
