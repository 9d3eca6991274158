//! Webhook intake under load: `uplift serve --no-worker` (release build) in its own process,
//! on SQLite and on this machine's PostgreSQL, driven by an open-loop local client at fixed
//! rates. Every request is a signed `issue_comment` command, so each one is verified, typed,
//! recorded durably and queued. Beside it, on the same machine and load, a minimal Probot 14
//! app (`tests/bench/probot/`, installed from npm into the cache on first use) that verifies
//! the same signatures and answers without storing anything. Prints p50/p99 per rate, the
//! highest rate each kept p99 under 20 ms with no errors, and Uplift's ratio to Probot.
//! Last, the same load on `uplift serve` *with* its in-process worker while that worker runs
//! real migrations (sandboxed Maven builds of a fixture, cloned from the fake GitHub of
//! `tests/support`): the edge must keep p99 under 100 ms at 200/s.
//! Run: `cargo bench --bench webhook_intake`.

#[path = "../support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::app::{Process, SECRET, manifest, spawn};
const SECONDS_PER_RATE: u64 = 5;
const P99_TARGET_MS: f64 = 20.0;

fn sign(body: &[u8]) -> String {
    support::payloads::sign(SECRET, body)
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

/// `uplift serve --no-worker` on `database_url`; the webhook URL.
fn start_uplift(database_url: &str) -> (Process, String) {
    let server = spawn(
        &["serve", "--no-worker"],
        &[
            ("UPLIFT_WEBHOOK_SECRET", SECRET.into()),
            (
                "UPLIFT_PRIVATE_KEY_PATH",
                manifest("tests/support/app-key.pem").display().to_string(),
            ),
            ("DATABASE_URL", database_url.into()),
            ("RUST_LOG", "error".into()),
        ],
    );
    let webhook = format!("{}/webhook", server.url);
    (server, webhook)
}

/// The Probot app of `tests/bench/probot/`, its pinned dependencies installed once into
/// the cache with `npm ci`; None (and why) when node or npm is missing.
fn start_probot() -> Result<(Process, String), String> {
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
    let port = support::app::free_port();
    let key = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/support/app-key.pem"
    ))
    .map_err(|e| e.to_string())?;
    let child = Command::new(probot)
        .args(["run", "./index.js"])
        .current_dir(&cache)
        .env("APP_ID", "1")
        .env("PRIVATE_KEY", key)
        .env("WEBHOOK_SECRET", SECRET)
        .env("PORT", port.to_string())
        .env("LOG_LEVEL", "fatal")
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("probot: {e}"))?;
    let server = Process {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    support::app::wait_listening(port);
    let webhook = format!("{}/api/github/webhooks", server.url);
    Ok((server, webhook))
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

/// Repositories the busy worker migrates, one after another, so that one is always running.
const BUSY_REPOS: u64 = 4;
const BUSY_P99_TARGET_MS: f64 = 100.0;

/// `uplift serve` with its in-process worker, against the fake GitHub, measured while the
/// worker migrates copies of the multi-module fixture. Each rate's window says whether a
/// migration was running at its start and at its end.
async fn measure_busy() {
    use support::app::{APP_ID, INSTALLATION, SLUG, process_env, project};
    let dir = tempfile::tempdir().unwrap();
    let public = std::fs::read(manifest("tests/support/app-key.pub.pem")).unwrap();
    let fake = support::fake_github::FakeGitHub::start(APP_ID, SLUG, &public).await;
    fake.add_installation(INSTALLATION, "acme");
    let source = project(dir.path(), "multi-module");
    let repos: Vec<String> = (0..BUSY_REPOS).map(|i| format!("acme/calc{i}")).collect();
    for repo in &repos {
        fake.add_repo(INSTALLATION, repo, &source);
        fake.add_issue(repo, 1, "Move to Java 17");
        fake.set_permission(repo, "dev", "write");
    }
    let db = format!("sqlite://{}?mode=rwc", dir.path().join("busy.db").display());
    let mut env = process_env(&fake, dir.path(), &db);
    env.push(("UPLIFT_INSTALLATION_CONCURRENCY", "1".into()));
    let server = spawn(&["serve"], &env);
    let webhook = format!("{}/webhook", server.url);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .unwrap();
    for repo in &repos {
        let status = support::app::send_command(
            &client,
            &webhook,
            &fake,
            repo,
            "@uplift migrate --target 17",
        )
        .await;
        assert_eq!(status, 202, "the migrate command was not accepted");
    }
    let store = uplift::store::Store::connect(&db).await.unwrap();
    let running = || async {
        let mut n = 0;
        for repo in &repos {
            let jobs = store.migrations(repo, 1).await.unwrap_or_default();
            n += jobs.iter().filter(|j| j.state == "running").count();
        }
        n > 0
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while !running().await {
        assert!(
            Instant::now() < deadline,
            "no migration started within 120 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Let the first build start, and warm up connections as for the other servers.
    tokio::time::sleep(Duration::from_secs(3)).await;
    drive(&client, &webhook, 100, 40_000_000).await;
    println!(
        "\nuplift serve with its worker migrating (SQLite; real sandboxed Maven builds)\n\
         rate/s  requests  errors  p50_ms  p99_ms  migrating"
    );
    let mut offset = 50_000_000;
    for rate in [200, 500, 1000] {
        let before = running().await;
        let (p50, p99, n, errors) = drive(&client, &webhook, rate, offset).await;
        let after = running().await;
        offset += n as u64;
        let busy = match (before, after) {
            (true, true) => "throughout",
            (false, false) => "no",
            _ => "part",
        };
        println!("{rate:>6}  {n:>8}  {errors:>6}  {p50:>6.2}  {p99:>6.2}  {busy}");
        if rate == 200 {
            let verdict = if errors == 0 && p99 < BUSY_P99_TARGET_MS && busy == "throughout" {
                "met"
            } else {
                "NOT met"
            };
            println!("target p99 < {BUSY_P99_TARGET_MS} ms at 200/s while migrating: {verdict}");
        }
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    if std::env::args().any(|a| a == "busy") {
        return measure_busy().await;
    }
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
    let postgres = {
        let (_server, webhook) = start_uplift(&support::postgres_url().await);
        measure(
            "uplift serve, PostgreSQL (every delivery recorded and queued)",
            &webhook,
        )
        .await
    };
    match start_probot() {
        Ok((_server, webhook)) => {
            let probot =
                measure("Probot 14 (verifies and answers, stores nothing)", &webhook).await;
            println!("\nsustained rate at p99 < {P99_TARGET_MS} ms, Uplift / Probot:");
            let ratio = |ours: u64| ours as f64 / probot.max(1) as f64;
            println!("  SQLite: {sqlite}/s vs {probot}/s = {:.1}x", ratio(sqlite));
            println!(
                "  PostgreSQL: {postgres}/s vs {probot}/s = {:.1}x",
                ratio(postgres)
            );
        }
        Err(why) => println!("\nProbot comparison skipped: {why}"),
    }
    measure_busy().await;
}
