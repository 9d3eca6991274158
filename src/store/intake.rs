//! Group commit for the webhook edge. Every delivery must be durable before GitHub is
//! answered, and a transaction per request makes the database's sync the bottleneck (p99
//! in seconds at 1,000 deliveries/s on SQLite). One writer task takes every delivery that
//! arrived while the previous commit ran, records the lot in one transaction, and answers
//! each request when its batch has committed: the same durability, far fewer syncs, and
//! no added wait when the edge is idle (a lone delivery commits at once).

use tokio::sync::{mpsc, oneshot};

use super::Store;
use super::jobs::Delivery;

/// The most deliveries one transaction takes.
const MAX_BATCH: usize = 512;
/// Deliveries waiting for the writer; a full queue makes requests wait their turn.
const QUEUE: usize = 4096;

type Answer = oneshot::Sender<Result<bool, String>>;

/// The handle requests record through; cheap to clone.
#[derive(Clone)]
pub struct Intake {
    queue: mpsc::Sender<(Delivery, Answer)>,
}

impl Intake {
    /// Starts the writer task on the current runtime.
    pub fn start(store: Store) -> Self {
        let (queue, rx) = mpsc::channel(QUEUE);
        tokio::spawn(writer(store, rx));
        Self { queue }
    }

    /// Records the delivery (and queues its job) durably: true when it was new, false for a
    /// delivery id seen before or work already queued.
    pub async fn record(&self, delivery: Delivery) -> anyhow::Result<bool> {
        let (answer, answered) = oneshot::channel();
        self.queue
            .send((delivery, answer))
            .await
            .map_err(|_| anyhow::anyhow!("the delivery writer has stopped"))?;
        answered
            .await
            .map_err(|_| anyhow::anyhow!("the delivery writer has stopped"))?
            .map_err(|e| anyhow::anyhow!(e))
    }
}

async fn writer(store: Store, mut rx: mpsc::Receiver<(Delivery, Answer)>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let (deliveries, answers): (Vec<Delivery>, Vec<Answer>) = batch.drain(..).unzip();
        match store.record_deliveries(&deliveries).await {
            Ok(results) => {
                for (answer, fresh) in answers.into_iter().zip(results) {
                    let _ = answer.send(Ok(fresh));
                }
            }
            Err(e) => {
                // The whole batch rolled back: each request answers 503 and GitHub's
                // redelivery (or the sender's retry) brings it again.
                let why = format!("{e:#}");
                for answer in answers {
                    let _ = answer.send(Err(why.clone()));
                }
            }
        }
    }
}
