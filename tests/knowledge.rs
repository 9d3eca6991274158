//! The knowledge store on SQLite and PostgreSQL, and retrieval over what it holds.

use uplift::knowledge::bm25::Index;
use uplift::knowledge::signature::normalize;
use uplift::store::Store;
use uplift::store::knowledge::{ExampleEvent, NewExample};

mod support;

async fn examples_are_deposited_once_and_keep_their_standing(store: Store) {
    let signature = normalize(
        "[ERROR] /w/src/main/java/a/Order.java:[14,8] cannot find symbol\n  symbol:   class Generated",
    );
    let fix = NewExample {
        signature: &signature,
        features: "java8 maven boot2.7",
        diff: "-import javax.annotation.Generated;\n+import jakarta.annotation.Generated;\n",
        origin: "run:1",
    };
    let id = store.deposit_example(&fix).await.unwrap();
    let again = store
        .deposit_example(&NewExample {
            origin: "run:2",
            ..fix.clone()
        })
        .await
        .unwrap();
    assert_eq!(id, again, "same signature and diff is one example");
    store
        .example_event(&id, ExampleEvent::Merged)
        .await
        .unwrap();
    let other = store
        .deposit_example(&NewExample {
            signature: "package org.junit does not exist",
            features: "java11 maven",
            diff: "+<artifactId>junit-jupiter</artifactId>",
            origin: "pr:acme/shop#3",
        })
        .await
        .unwrap();
    store
        .example_event(&other, ExampleEvent::Declined)
        .await
        .unwrap();
    let all = store.examples().await.unwrap();
    assert_eq!(all.len(), 2);
    let first = all.iter().find(|e| e.id == id).unwrap();
    assert_eq!(
        (first.validated, first.merged, first.origin.as_str()),
        (2, 1, "run:1")
    );
    let declined = all.iter().find(|e| e.id == other).unwrap();
    assert!(first.standing() > declined.standing());

    // The same error from another project finds the first example.
    let query = normalize(
        "[ERROR] /tmp/b/src/main/java/x/Invoice.java:[3,1] cannot find symbol\n  symbol:   class Generated",
    );
    let docs: Vec<String> = all
        .iter()
        .map(|e| format!("{} {}", e.signature, e.features))
        .collect();
    let index = Index::new(docs.iter().map(String::as_str));
    let hits = index.search(&query, 5);
    assert_eq!(all[hits[0].0].id, id);

    store
        .recipe_succeeded("java8 maven", "junit4-to-jupiter")
        .await
        .unwrap();
    store
        .recipe_succeeded("java8 maven", "junit4-to-jupiter")
        .await
        .unwrap();
    store
        .recipe_succeeded("java8 maven", "java-level")
        .await
        .unwrap();
    assert_eq!(
        store.recipes_for("java8 maven").await.unwrap(),
        vec![
            ("junit4-to-jupiter".to_string(), 2),
            ("java-level".to_string(), 1)
        ]
    );
}

mod learning {
    use uplift::evidence::BuildRun;
    use uplift::journal::{
        BuildOutcome, Category, Entry, FixAttempt, FixResult, Journal, Stage, StepResult,
        Validation,
    };
    use uplift::pipeline::failure::{Failure, FailureKind};

    pub const UNDERSCORE: &str = "as of release N, '_' is a keyword";

    fn entry(result: StepResult) -> Entry {
        Entry {
            seq: 1,
            stage: Stage::Fix,
            known: String::new(),
            intent: String::new(),
            rule: "R8d".into(),
            inputs: serde_json::json!({}),
            result,
            category: Category::Success,
            duration_ms: 0,
            cost_usd: 0.001,
        }
    }

    /// An applied fix for a failure with this signature.
    pub fn fixed(attempt: u32, kind: FailureKind, signature: &str, edits: &str) -> Entry {
        entry(StepResult::Fixed(Box::new(FixAttempt {
            attempt,
            failure: Failure {
                kind,
                errors: vec![],
                signature: signature.into(),
                location: None,
            },
            tier: "llm".into(),
            retrieval: None,
            prompt_chars: 10,
            model: Some("gpt-4o-mini".into()),
            usage: None,
            search: None,
            result: FixResult::Applied {
                files: vec![],
                diff: String::new(),
                edits: edits.into(),
            },
            answer: None,
            gave_up: false,
        })))
    }

    /// The validation after a fix: green, or one test newly failing.
    pub fn validated(green: bool) -> Entry {
        entry(StepResult::Validated(Box::new(Validation {
            build: BuildOutcome {
                jdk: Some(17),
                raised_level: None,
                run: Some(BuildRun {
                    command: "mvn test".into(),
                    jdk: 17,
                    exit_code: Some(0),
                    duration_ms: 1,
                    ..Default::default()
                }),
                tests: Default::default(),
                error: None,
            },
            lost_from_source: vec![],
            newly_failing: if green {
                vec![]
            } else {
                vec!["com.acme.calc.TwiceTest#doubles (failed)".into()]
            },
            newly_skipped: vec![],
            invocations_changed: vec![],
            no_longer_run: vec![],
            executed_before: 1,
            executed_after: 1,
            green_before: 1,
            green_after: usize::from(green),
            class_majors: Default::default(),
            expected_major: 61,
        })))
    }

    pub fn journal(run_id: &str, entries: Vec<Entry>) -> Journal {
        Journal {
            run_id: run_id.into(),
            entries,
        }
    }

    pub fn blocks(from: &str, to: &str) -> String {
        format!("FILE: A.java\n<<<<<<< SEARCH\n{from}\n=======\n{to}\n>>>>>>> REPLACE\n")
    }
}

/// Only a human's acceptance teaches: a merge deposits and counts the fix merged, a closed
/// PR deposits nothing and only lowers what its fix already was.
async fn a_merged_pull_confirms_its_fixes_and_a_closed_one_lowers_them(store: Store) {
    use learning::*;
    use uplift::knowledge::{Verdict, learn};
    use uplift::pipeline::failure::FailureKind;
    let good = journal(
        "r1",
        vec![
            fixed(1, FailureKind::Compile, UNDERSCORE, &blocks("a", "b")),
            validated(true),
        ],
    );
    let n = learn(&store, &good, "target17", "pr:acme/a#1", Verdict::Merged)
        .await
        .unwrap();
    assert_eq!(n, 1);
    let other = journal(
        "r2",
        vec![
            fixed(1, FailureKind::Compile, UNDERSCORE, &blocks("c", "d")),
            validated(true),
        ],
    );
    learn(&store, &other, "target17", "pr:acme/b#2", Verdict::Closed)
        .await
        .unwrap();
    let all = store.examples().await.unwrap();
    assert_eq!(all.len(), 1, "a closed PR deposits nothing: {all:?}");
    assert_eq!((all[0].origin.as_str(), all[0].merged), ("pr:acme/a#1", 1));
    // Closing a PR whose fix is a known example lowers that example.
    learn(&store, &good, "target17", "pr:acme/c#3", Verdict::Closed)
        .await
        .unwrap();
    let all = store.examples().await.unwrap();
    assert_eq!((all[0].merged, all[0].declined), (1, 1));
}

/// A wrong edit turned the compile error into a test failure and a second edit repaired
/// it: the first edit alone never validated green and the second fixed the model's own
/// mistake, so a merge of that run teaches nothing; a fix that was not for the failure
/// the loop started with is never learnt either.
async fn the_repair_of_an_earlier_attempts_mistake_is_never_learnt(store: Store) {
    use learning::*;
    use uplift::knowledge::{Verdict, learn, teachable_fixes};
    use uplift::pipeline::failure::FailureKind;
    let own_mistake = journal(
        "r1",
        vec![
            fixed(
                1,
                FailureKind::Compile,
                UNDERSCORE,
                &blocks("_ * 2", "v * 3"),
            ),
            validated(false),
            fixed(
                2,
                FailureKind::Test,
                "expected: <N> but was: <N>",
                &blocks("v * 3", "v * 2"),
            ),
            validated(true),
        ],
    );
    assert_eq!(teachable_fixes(&own_mistake), vec![]);
    let n = learn(&store, &own_mistake, "target17", "run:r1", Verdict::Passed)
        .await
        .unwrap();
    assert_eq!(n, 0);
    assert!(store.examples().await.unwrap().is_empty());
    // Two steps on the failure the loop started with: the one that went green is learnt.
    let two_steps = journal(
        "r2",
        vec![
            fixed(1, FailureKind::Compile, UNDERSCORE, &blocks("a", "b")),
            validated(false),
            fixed(2, FailureKind::Compile, UNDERSCORE, &blocks("c", "d")),
            validated(true),
        ],
    );
    assert_eq!(
        teachable_fixes(&two_steps),
        vec![(UNDERSCORE, blocks("c", "d").as_str())]
    );
    learn(&store, &two_steps, "target17", "run:r2", Verdict::Passed)
        .await
        .unwrap();
    let all = store.examples().await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!((all[0].signature.as_str(), all[0].merged), (UNDERSCORE, 0));
}

async fn spend_is_summed_per_installation_over_a_window(store: Store) {
    store.record_spend(7, "r1", 0.25).await.unwrap();
    store.record_spend(7, "r2", 0.5).await.unwrap();
    store.record_spend(8, "r3", 9.0).await.unwrap();
    let spent = store.spend_since(7, 0).await.unwrap();
    assert!((spent - 0.75).abs() < 1e-9, "{spent}");
    assert_eq!(store.spend_since(7, i64::MAX).await.unwrap(), 0.0);
    assert_eq!(store.spend_since(99, 0).await.unwrap(), 0.0);
}

on_both_backends!(
    spend_is_summed_per_installation_over_a_window,
    examples_are_deposited_once_and_keep_their_standing,
    a_merged_pull_confirms_its_fixes_and_a_closed_one_lowers_them,
    the_repair_of_an_earlier_attempts_mistake_is_never_learnt
);
