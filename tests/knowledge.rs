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

async fn a_merged_pull_confirms_its_fixes_and_a_closed_one_lowers_them(store: Store) {
    use uplift::journal::{Category, Entry, FixAttempt, FixResult, Journal, Stage, StepResult};
    use uplift::pipeline::failure::{Failure, FailureKind};
    let fixed = |edits: &str| Entry {
        seq: 1,
        stage: Stage::Fix,
        known: String::new(),
        intent: String::new(),
        rule: "R8d".into(),
        inputs: serde_json::json!({}),
        result: StepResult::Fixed(Box::new(FixAttempt {
            attempt: 1,
            failure: Failure {
                kind: FailureKind::Compile,
                errors: vec![],
                signature: "as of release N, '_' is a keyword".into(),
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
        })),
        category: Category::Success,
        duration_ms: 0,
        cost_usd: 0.001,
    };
    let merged = Journal {
        run_id: "r1".into(),
        entries: vec![fixed(
            "FILE: A.java\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
        )],
    };
    let n = uplift::knowledge::learn_from_pull(&store, &merged, "target17", "pr:acme/a#1", true)
        .await
        .unwrap();
    assert_eq!(n, 1);
    let closed = Journal {
        run_id: "r2".into(),
        entries: vec![fixed(
            "FILE: B.java\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n",
        )],
    };
    uplift::knowledge::learn_from_pull(&store, &closed, "target17", "pr:acme/b#2", false)
        .await
        .unwrap();
    let all = store.examples().await.unwrap();
    let good = all.iter().find(|e| e.origin == "pr:acme/a#1").unwrap();
    let bad = all.iter().find(|e| e.origin == "pr:acme/b#2").unwrap();
    assert_eq!((good.merged, good.declined), (1, 0));
    assert_eq!((bad.merged, bad.declined), (0, 1));
    assert!(good.standing() > bad.standing());
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
    a_merged_pull_confirms_its_fixes_and_a_closed_one_lowers_them
);
