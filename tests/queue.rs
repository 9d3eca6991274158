//! The job queue against both real backends: embedded SQLite and this machine's PostgreSQL
//! (`UPLIFT_TEST_DATABASE_URL`, default postgres://root@127.0.0.1:5432/test), each test in a
//! schema of its own.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::json;
use uplift::store::Store;
use uplift::store::intake::Intake;
use uplift::store::jobs::{Delivery, Enqueued, FinalState, JobKind, Lease, NewJob};

mod support;

const LONG: Duration = Duration::from_secs(60);

fn migrate(repo: &str, key: &str, installation: i64) -> NewJob {
    NewJob {
        kind: JobKind::Migrate,
        installation_id: installation,
        repo: repo.into(),
        target: 17,
        idempotency_key: key.into(),
        payload: json!({"k": key}),
        max_attempts: 3,
    }
}

async fn deliveries_are_recorded_once(store: Store) {
    let job = NewJob {
        kind: JobKind::Event,
        target: 0,
        ..migrate("o/r", "delivery-1", 1)
    };
    assert!(
        store
            .record_delivery("d-1", "issue_comment", Some(&job))
            .await
            .unwrap()
    );
    assert!(
        !store
            .record_delivery("d-1", "issue_comment", Some(&job))
            .await
            .unwrap()
    );
    let claimed = store.claim(JobKind::Event, "w", LONG, 10).await.unwrap();
    assert!(claimed.is_some());
    assert!(
        store
            .claim(JobKind::Event, "w", LONG, 10)
            .await
            .unwrap()
            .is_none()
    );
}

/// One batch (one statement per table): a delivery id twice, the same work under two
/// delivery ids, an id recorded by an earlier batch, and one without a job. Each answer
/// is the one a delivery alone would get, and every job is queued once.
async fn a_batch_answers_each_delivery_as_alone(store: Store) {
    let event = |key: &str| NewJob {
        kind: JobKind::Event,
        target: 0,
        ..migrate("o/r", key, 1)
    };
    let delivery = |id: &str, job: Option<NewJob>| Delivery {
        id: id.into(),
        event: "issue_comment".into(),
        job,
    };
    let earlier = [delivery("seen", Some(event("k-seen")))];
    assert_eq!(store.record_deliveries(&earlier).await.unwrap(), [true]);
    let batch = [
        delivery("a", Some(event("k-a"))),
        delivery("a", Some(event("k-a2"))),
        delivery("b", Some(event("k-b"))),
        delivery("c", Some(event("k-b"))),
        delivery("seen", Some(event("k-new"))),
        delivery("ping", None),
    ];
    assert_eq!(
        store.record_deliveries(&batch).await.unwrap(),
        [true, false, true, false, false, true]
    );
    // A batch longer than one statement takes: repeats across its statements count once.
    let mut long: Vec<Delivery> = (0..70)
        .map(|i| delivery(&format!("l{i}"), Some(event(&format!("k-l{i}")))))
        .collect();
    long[68] = delivery("l68", Some(event("k-l1")));
    long[69] = delivery("l0", Some(event("k-l69")));
    let answers = store.record_deliveries(&long).await.unwrap();
    let refused: Vec<usize> = (0..70).filter(|&i| !answers[i]).collect();
    assert_eq!(refused, [68, 69]);
    let mut keys = Vec::new();
    while let Some(job) = store.claim(JobKind::Event, "w", LONG, 1000).await.unwrap() {
        keys.push(job.payload["k"].as_str().unwrap().to_string());
    }
    assert_eq!(keys.len(), 3 + 68);
    keys.sort();
    assert_eq!(keys[..3], ["k-a", "k-b", "k-l0"]);
    assert!(keys.contains(&"k-seen".to_string()));
}

async fn one_active_migration_per_repo_and_target(store: Store) {
    assert!(matches!(
        store.enqueue(&migrate("o/r", "c1", 1)).await.unwrap(),
        Enqueued::Created(_)
    ));
    assert!(matches!(
        store.enqueue(&migrate("o/r", "c1", 1)).await.unwrap(),
        Enqueued::Duplicate
    ));
    match store.enqueue(&migrate("o/r", "c2", 1)).await.unwrap() {
        Enqueued::Busy(active) => assert_eq!(active.payload["k"], "c1"),
        other => panic!("expected Busy, got {other:?}"),
    }
    // Another target of the same repository is independent.
    let mut other = migrate("o/r", "c3", 1);
    other.target = 21;
    assert!(matches!(
        store.enqueue(&other).await.unwrap(),
        Enqueued::Created(_)
    ));
    // Once the first finishes, a new one may be queued.
    let job = store
        .claim(JobKind::Migrate, "w", LONG, 10)
        .await
        .unwrap()
        .unwrap();
    store
        .finish_job(&job.id, "w", FinalState::Done, "ok")
        .await
        .unwrap();
    assert!(matches!(
        store.enqueue(&migrate("o/r", "c4", 1)).await.unwrap(),
        Enqueued::Created(_)
    ));
}

async fn expired_leases_are_reclaimed_and_capped(store: Store) {
    let mut job = migrate("o/r", "c1", 1);
    job.max_attempts = 2;
    store.enqueue(&job).await.unwrap();
    let short = Duration::from_millis(400);
    let first = store
        .claim(JobKind::Migrate, "dead", short, 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.attempts, 1);
    assert!(
        store
            .claim(JobKind::Migrate, "w2", LONG, 10)
            .await
            .unwrap()
            .is_none(),
        "lease held"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = store
        .claim(JobKind::Migrate, "w2", short, 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (second.id.as_str(), second.attempts),
        (first.id.as_str(), 2)
    );
    assert_eq!(
        store.heartbeat(&first.id, "dead", LONG).await.unwrap(),
        Lease::Lost
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The cap is reached: the job is failed, not handed out a third time.
    assert!(
        store
            .claim(JobKind::Migrate, "w3", LONG, 10)
            .await
            .unwrap()
            .is_none()
    );
    let row = store.job(&first.id).await.unwrap().unwrap();
    assert_eq!(row.state, "failed");
    assert!(row.result.unwrap().contains("attempt cap"));
}

async fn per_installation_limit(store: Store) {
    store.enqueue(&migrate("o/a", "a", 1)).await.unwrap();
    store.enqueue(&migrate("o/b", "b", 1)).await.unwrap();
    store.enqueue(&migrate("p/c", "c", 2)).await.unwrap();
    let first = store
        .claim(JobKind::Migrate, "w", LONG, 1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.installation_id, 1);
    let second = store
        .claim(JobKind::Migrate, "w", LONG, 1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(second.installation_id, 2, "installation 1 is at its limit");
    assert!(
        store
            .claim(JobKind::Migrate, "w", LONG, 1)
            .await
            .unwrap()
            .is_none()
    );
}

async fn cancel_and_retry(store: Store) {
    store.enqueue(&migrate("o/r", "c1", 1)).await.unwrap();
    let job = store
        .claim(JobKind::Migrate, "w", LONG, 10)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store.heartbeat(&job.id, "w", LONG).await.unwrap(),
        Lease::Held {
            cancel_requested: false
        }
    );
    assert_eq!(
        store.request_cancel("o/r", None).await.unwrap(),
        uplift::store::jobs::Cancelled {
            queued: 0,
            running: 1
        }
    );
    assert_eq!(
        store.heartbeat(&job.id, "w", LONG).await.unwrap(),
        Lease::Held {
            cancel_requested: true
        }
    );
    store
        .finish_job(&job.id, "w", FinalState::Cancelled, "cancelled")
        .await
        .unwrap();

    let mut flaky = migrate("o/r", "c2", 1);
    flaky.max_attempts = 2;
    store.enqueue(&flaky).await.unwrap();
    let j = store
        .claim(JobKind::Migrate, "w", LONG, 10)
        .await
        .unwrap()
        .unwrap();
    assert!(
        store
            .retry_later(&j.id, "w", "network", Duration::ZERO)
            .await
            .unwrap()
    );
    let j = store
        .claim(JobKind::Migrate, "w", LONG, 10)
        .await
        .unwrap()
        .unwrap();
    assert!(
        !store
            .retry_later(&j.id, "w", "network again", Duration::ZERO)
            .await
            .unwrap()
    );
    assert_eq!(store.job(&j.id).await.unwrap().unwrap().state, "failed");
}

/// Many workers claiming at once: every job is handed out exactly once.
/// An attempt that fails after a cancel request (e.g. it could not report the cancel) ends
/// the job cancelled; it is not queued again to run for nobody.
async fn a_cancelled_job_is_not_retried(store: Store) {
    let mut job = migrate("o/r", "c1", 1);
    job.max_attempts = 3;
    store.enqueue(&job).await.unwrap();
    let j = store
        .claim(JobKind::Migrate, "w", LONG, 10)
        .await
        .unwrap()
        .unwrap();
    store.request_cancel("o/r", None).await.unwrap();
    assert!(
        !store
            .retry_later(&j.id, "w", "GitHub unreachable", Duration::ZERO)
            .await
            .unwrap()
    );
    let j = store.job(&j.id).await.unwrap().unwrap();
    assert_eq!(j.state, "cancelled");
    assert!(j.finished_at.is_some());
    assert!(
        store
            .claim(JobKind::Migrate, "w", LONG, 10)
            .await
            .unwrap()
            .is_none()
    );
}

async fn concurrent_claims_are_exclusive(store: Store) {
    for i in 0..30 {
        store
            .enqueue(&migrate(&format!("o/r{i}"), &format!("k{i}"), i))
            .await
            .unwrap();
    }
    let mut handles = Vec::new();
    for w in 0..6 {
        let store = store.clone();
        handles.push(tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(job) = store
                .claim(JobKind::Migrate, &format!("w{w}"), LONG, 10)
                .await
                .unwrap()
            {
                got.push(job.id);
            }
            got
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    let unique: HashSet<_> = all.iter().collect();
    assert_eq!(all.len(), 30);
    assert_eq!(unique.len(), 30);
}

/// Concurrent deliveries go through the group-commit writer: each is recorded once (a
/// redelivery inside the same batch included) and every fresh one queues its job.
async fn group_commit_records_each_delivery_once(store: Store) {
    let intake = Intake::start(store.clone());
    let mut handles = Vec::new();
    for i in 0..200u32 {
        let intake = intake.clone();
        // Deliveries 0..150, the first 50 of them sent twice.
        let id = i % 150;
        let job = NewJob {
            kind: JobKind::Event,
            target: 0,
            ..migrate(&format!("o/r{id}"), &format!("event-{id}"), 1)
        };
        handles.push(tokio::spawn(async move {
            let d = Delivery {
                id: format!("d-{id}"),
                event: "issue_comment".into(),
                job: Some(job),
            };
            intake.record(d).await.unwrap()
        }));
    }
    let mut fresh = 0;
    for h in handles {
        fresh += usize::from(h.await.unwrap());
    }
    assert_eq!(fresh, 150);
    let mut claimed = 0;
    while store
        .claim(JobKind::Event, "w", LONG, 1000)
        .await
        .unwrap()
        .is_some()
    {
        claimed += 1;
    }
    assert_eq!(claimed, 150);
}

on_both_backends!(
    group_commit_records_each_delivery_once,
    a_batch_answers_each_delivery_as_alone,
    deliveries_are_recorded_once,
    one_active_migration_per_repo_and_target,
    expired_leases_are_reclaimed_and_capped,
    per_installation_limit,
    cancel_and_retry,
    a_cancelled_job_is_not_retried,
    concurrent_claims_are_exclusive
);
