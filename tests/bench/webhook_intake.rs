//! Webhook intake under load: `uplift serve --no-worker` (release build) in its own process,
//! on SQLite and on this machine's PostgreSQL, driven by an open-loop local client at fixed
//! rates. Every request is a signed `issue_comment` command, so each one is verified, typed,
//! recorded durably and queued. Beside it, on the same machine and load, a minimal Probot 14
//! app (`tests/bench/probot/`, installed from npm into the cache on first use) that verifies
//! the same signatures and answers without storing anything. Prints p50/p99 per rate, the
//! highest rate each kept p99 under 20 ms with no errors, and Uplift's ratio to Probot.
//! Run: `cargo bench --bench webhook_intake`.

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

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for(port: u16, server: Server) -> Server {
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return server;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("server on {port} did not start");
}

/// `uplift serve --no-worker` on `database_url`; the webhook URL.
fn start_uplift(database_url: &str) -> (Server, String) {
    let port = free_port();
    let server = Server(
        Command::new(env!("CARGO_BIN_EXE_uplift"))
            .args(["serve", "--no-worker"])
            .env("UPLIFT_WEBHOOK_SECRET", SECRET)
            .env(
                "UPLIFT_PRIVATE_KEY_PATH",
                concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/app-key.pem"),
            )
            .env("DATABASE_URL", database_url)
            .env("UPLIFT_LISTEN", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    (
        wait_for(port, server),
        format!("http://127.0.0.1:{port}/webhook"),
    )
}

/// A fresh schema of the local PostgreSQL, as a URL whose search path is that schema.
async fn postgres_url() -> Option<String> {
    let base = std::env::var("UPLIFT_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://root@127.0.0.1:5432/test".into());
    let schema = format!("uplift_bench_{}", std::process::id());
    let admin = sqlx::PgPool::connect(&base).await.ok()?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&admin)
        .await
        .ok()?;
    let sep = if base.contains('?') { '&' } else { '?' };
    Some(format!("{base}{sep}options=-c%20search_path%3D{schema}"))
}

/// The Probot app of `tests/bench/probot/`, its pinned dependencies installed once into
/// the cache with `npm ci`; None (and why) when node or npm is missing.
fn start_probot() -> Result<(Server, String), String> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bench/probot");
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))
        .ok_or("no cache directory")?
        .join("uplift-bench-probot");
    std::fs::create_dir_all(&cache).map_err(|e| e.to_string())?;
    for f in ["package.json", "package-lock.json", "index.js"] {
        std::fs::copy(src.join(f), cache.join(f)).map_err(|e| e.to_string())?;
    }
    let probot = cache.join("node_modules/.bin/probot");
    if !probot.exists() {
        let ok = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&cache)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("npm: {e}"))?
            .success();
        if !ok {
            return Err("npm ci failed".into());
        }
    }
    let port = free_port();
    let key = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/support/app-key.pem"
    ))
    .map_err(|e| e.to_string())?;
    let server = Server(
        Command::new(probot)
            .args(["run", "./index.js"])
            .current_dir(&cache)
            .env("APP_ID", "1")
            .env("PRIVATE_KEY", key)
            .env("WEBHOOK_SECRET", SECRET)
            .env("PORT", port.to_string())
            .env("LOG_LEVEL", "fatal")
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("probot: {e}"))?,
    );
    Ok((
        wait_for(port, server),
        format!("http://127.0.0.1:{port}/api/github/webhooks"),
    ))
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
        let (client, url, bodies) = (client.clone(), url.to_string(), bodies.clone());
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
            let ok = r.is_ok_and(|r| r.status().is_success());
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

/// Drives one server at rising rates; the highest rate that kept p99 under the target with
/// no errors.
async fn measure(name: &str, url: &str) -> u64 {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .unwrap();
    // Warm up connections and the database.
    drive(&client, url, 100, 10_000_000).await;
    let mut offset = 0;
    let mut best = 0;
    println!("\n{name}\nrate/s  requests  errors  p50_ms  p99_ms");
    for rate in [200, 500, 1000, 1500, 2000, 3000, 4000, 6000] {
        let (p50, p99, n, errors) = drive(&client, url, rate, offset).await;
        offset += n as u64;
        println!("{rate:>6}  {n:>8}  {errors:>6}  {p50:>6.2}  {p99:>6.2}");
        if errors == 0 && p99 < P99_TARGET_MS {
            best = rate;
        } else if rate > 1000 {
            break;
        }
    }
    println!("{name}: max sustained rate with p99 < {P99_TARGET_MS} ms and no errors: {best}/s");
    best
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = {
        let url = format!("sqlite://{}", dir.path().join("bench.db").display());
        let (_server, webhook) = start_uplift(&url);
        measure(
            "uplift serve, SQLite (every delivery recorded and queued)",
            &webhook,
        )
        .await
    };
    let postgres = match postgres_url().await {
        Some(url) => {
            let (_server, webhook) = start_uplift(&url);
            Some(
                measure(
                    "uplift serve, PostgreSQL (every delivery recorded and queued)",
                    &webhook,
                )
                .await,
            )
        }
        None => {
            println!("\nPostgreSQL at 127.0.0.1:5432 not reachable: skipped");
            None
        }
    };
    match start_probot() {
        Ok((_server, webhook)) => {
            let probot =
                measure("Probot 14 (verifies and answers, stores nothing)", &webhook).await;
            println!("\nsustained rate at p99 < {P99_TARGET_MS} ms, Uplift / Probot:");
            let ratio = |ours: u64| ours as f64 / probot.max(1) as f64;
            println!("  SQLite: {sqlite}/s vs {probot}/s = {:.1}x", ratio(sqlite));
            if let Some(pg) = postgres {
                println!("  PostgreSQL: {pg}/s vs {probot}/s = {:.1}x", ratio(pg));
            }
        }
        Err(why) => println!("\nProbot comparison skipped: {why}"),
    }
}
