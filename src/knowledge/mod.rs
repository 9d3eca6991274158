//! Solved-example retrieval: error signatures, a lexical (BM25) index over the stored
//! examples, and the deterministic choice of retrieval plan. The examples themselves live
//! in the store (`store/knowledge.rs`).

pub mod bm25;
pub mod plan;
pub mod signature;

use crate::evidence::FailureKind;
use crate::journal::{FixResult, Journal, StepResult};
use crate::store::Store;
use crate::store::knowledge::{ExampleEvent, NewExample, example_id};

/// Who judged a run's success, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A human merged the migration PR (the app).
    Merged,
    /// A human closed the PR unmerged: what it taught before loses standing, nothing new
    /// is learnt.
    Closed,
    /// A CLI run ended SUCCESS with test invariance passed: the operator ran it and the
    /// gate checked it.
    Passed,
}

/// The fixes a run can teach, as (signature, edit blocks): only a fix for the failure the
/// fix loop was started for, or the first change for a task the recipes left, (the break from baseline to migration, never the repair of an
/// earlier attempt's own mistake) and only when the validation right after it was green.
/// The signature is normalized and free of the project's names (`signature`), never a
/// test id.
pub fn teachable_fixes(journal: &Journal) -> Vec<(&str, &str)> {
    let first = journal
        .fix_attempts()
        .next()
        .map(|f| f.failure.signature.as_str());
    let mut teachable = Vec::new();
    let mut pending = None;
    for e in &journal.entries {
        match &e.result {
            StepResult::Fixed(f) => {
                if let FixResult::Applied { edits, .. } = &f.result {
                    // A task the recipes left is a first failure of its own.
                    let for_first = Some(f.failure.signature.as_str()) == first
                        || f.failure.kind == FailureKind::Task;
                    pending = (for_first && !edits.is_empty())
                        .then_some((f.failure.signature.as_str(), edits.as_str()));
                }
            }
            StepResult::Validated(v) => {
                if let Some(fix) = pending.take()
                    && v.invariant()
                    && v.build.compiled()
                {
                    teachable.push(fix);
                }
            }
            _ => {}
        }
    }
    teachable
}

/// The learning hook, called only on a success someone accepted (`Verdict`): the run's
/// teachable fixes are deposited (or re-confirmed) as solved examples and the recipes that
/// did their task are remembered for these features; a merge also counts each example
/// merged. A closed PR only lowers the examples its fixes already were. Returns how many
/// examples were touched.
pub async fn learn(
    store: &Store,
    journal: &Journal,
    features: &str,
    origin: &str,
    verdict: Verdict,
) -> anyhow::Result<usize> {
    let fixes = teachable_fixes(journal);
    if verdict == Verdict::Closed {
        for (signature, edits) in &fixes {
            store
                .example_event(&example_id(signature, edits), ExampleEvent::Declined)
                .await?;
        }
        return Ok(fixes.len());
    }
    for (signature, edits) in &fixes {
        let id = store
            .deposit_example(&NewExample {
                signature,
                features,
                diff: edits,
                origin,
            })
            .await?;
        if verdict == Verdict::Merged {
            store.example_event(&id, ExampleEvent::Merged).await?;
        }
    }
    let mut recipes: Vec<&String> = journal
        .latest_task_records()
        .filter(|r| r.status.is_done())
        .filter_map(|r| journal.tasks().iter().find(|t| t.id == r.task_id))
        .flat_map(|t| &t.recipes)
        .collect();
    recipes.sort();
    recipes.dedup();
    for recipe in recipes {
        store.recipe_succeeded(features, recipe).await?;
    }
    Ok(fixes.len())
}
