//! Webhook intake under load: `uplift serve --no-worker` (release build, SQLite) in its own
//! process, driven by an open-loop local client at fixed rates. Every request is a signed
//! `issue_comment` command, so each one is verified, typed, recorded and queued.
//! Prints p50/p99 acknowledgement latency per rate and the highest rate that kept p99 under
//! 20 ms with no errors. Run: `cargo bench --bench webhook_intake`.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use sha2::Sha256;

const SECRET: &str = "bench-secret";
const SECONDS_PER_RATE: u64 = 5;
const P99_TARGET_MS: f64 = 20.0;

fn sign(body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

fn payload(i: u64) -> Vec<u8> {
    serde_json::json!({
        "action": "created",
        "installation": {"id": 1 + i % 50},
        "repository": {"full_name": format!("org/repo{}", i % 500), "default_branch": "main"},
        "issue": {"number": 1},
        "comment": {"id": i, "body": "@uplift migrate --target 17", "author_association": "MEMBER",
                    "user": {"login": "dev", "type": "User"}},
        "sender": {"login": "dev", "type": "User"}
    })
    .to_string()
    .into_bytes()
}

struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(dir: &std::path::Path) -> (Server, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = Server(
        Command::new(env!("CARGO_BIN_EXE_uplift"))
            .args(["serve", "--no-worker"])
            .env("UPLIFT_WEBHOOK_SECRET", SECRET)
            .env(
                "UPLIFT_PRIVATE_KEY_PATH",
                concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/app-key.pem"),
            )
            .env(
                "DATABASE_URL",
                format!("sqlite://{}?mode=rwc", dir.join("bench.db").display()),
            )
            .env("UPLIFT_LISTEN", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (server, url);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("server did not start");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Sends `rate` requests per second for a few seconds on a fixed schedule (open loop: a slow
/// answer does not slow the sender). Latency is measured from the scheduled send time.
async fn drive(
    client: &reqwest::Client,
    url: &str,
    rate: u64,
    offset: u64,
) -> (f64, f64, usize, usize) {
    let total = rate * SECONDS_PER_RATE;
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let start = Instant::now();
    let mut handles = Vec::with_capacity(total as usize);
    let bodies: Arc<Vec<(Vec<u8>, String)>> = Arc::new(
        (0..total)
            .map(|i| {
                let b = payload(offset + i);
                let s = sign(&b);
                (b, s)
            })
            .collect(),
    );
    for i in 0..total {
        let due = start + interval * i as u32;
        tokio::time::sleep_until(due.into()).await;
        let (client, url, bodies) = (client.clone(), format!("{url}/webhook"), bodies.clone());
        handles.push(tokio::spawn(async move {
            let (body, sig) = &bodies[i as usize];
            let r = client
                .post(url)
                .header("x-github-event", "issue_comment")
                .header("x-github-delivery", format!("bench-{}", offset + i))
                .header("x-hub-signature-256", sig)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await;
            let ok = r.is_ok_and(|r| r.status().as_u16() == 202);
            (due.elapsed().as_secs_f64() * 1000.0, ok)
        }));
    }
    let mut lat = Vec::new();
    let mut errors = 0;
    for h in handles {
        let (ms, ok) = h.await.unwrap();
        lat.push(ms);
        errors += usize::from(!ok);
    }
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (
        percentile(&lat, 0.5),
        percentile(&lat, 0.99),
        lat.len(),
        errors,
    )
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = start_server(dir.path());
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .unwrap();
    // Warm up connections and the database.
    drive(&client, &url, 100, 10_000_000).await;
    let mut offset = 0;
    let mut best = 0;
    println!("rate/s  requests  errors  p50_ms  p99_ms");
    for rate in [200, 1000, 1500, 2000, 3000, 4000] {
        let (p50, p99, n, errors) = drive(&client, &url, rate, offset).await;
        offset += n as u64;
        println!("{rate:>6}  {n:>8}  {errors:>6}  {p50:>6.2}  {p99:>6.2}");
        if errors == 0 && p99 < P99_TARGET_MS {
            best = rate;
        } else if rate > 1000 {
            break;
        }
    }
    println!("max sustained rate with p99 < {P99_TARGET_MS} ms and no errors: {best}/s");
}
