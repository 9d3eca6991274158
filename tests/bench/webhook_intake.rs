//! Webhook intake under load: `uplift serve --no-worker` (release build) in its own process,
//! on SQLite and on this machine's PostgreSQL, and beside them a minimal Probot 14 app
//! (`tests/bench/probot/`, installed from npm into the cache on first use) that verifies the
//! same signatures and answers without storing anything. Every request is a signed
//! `issue_comment` command of GitHub's full payload shape, so Uplift verifies, types,
//! records durably and queues each one. The load comes from `load.rs`: pre-built requests
//! sent open loop at fixed rates from one thread, with a new connection per delivery (as
//! GitHub sends them) and then over keep-alive connections. At each rate the three servers
//! run one after another, so that what else the machine runs weighs on them alike; a
//! server's ladder stops at its first miss above 1,000/s. Prints p50/p99, CPU per delivery
//! (server, database, generator) and the machine's load per step, the highest rate each
//! kept p99 under 20 ms with no errors, and Uplift's ratio to Probot.
//! Last, the same load on `uplift serve` *with* its in-process worker while that worker runs
//! real migrations (sandboxed Maven builds of a fixture, cloned from the fake GitHub of
//! `tests/support`): the edge must keep p99 under 100 ms at 200/s.
//! Run: `cargo bench --bench webhook_intake` (`-- intake` or `-- busy` for one part).

#[path = "../support/mod.rs"]
mod support;

mod load;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use load::{Connections, Step, Target, Watched};
use support::app::{Process, SECRET, manifest, spawn};

const SECONDS_PER_RATE: u64 = 4;
const P99_TARGET_MS: f64 = 20.0;
/// A request unanswered after this counts as an error.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const RATES: &[u64] = &[
    500, 1000, 2000, 3000, 4000, 5000, 6000, 8000, 10_000, 12_000,
];

/// The signed `issue_comment` command of delivery `i`, as bytes on the wire.
fn request(target: &Target, mode: Connections, i: u64) -> Vec<u8> {
    let payload = support::payloads::issue_comment_created(
        1 + i % 50,
        &format!("org/repo{}", i % 500),
        1,
        false,
        i,
        "dev",
        "User",
        "MEMBER",
        "@uplift migrate --target 17",
    );
    let body = serde_json::to_vec(&payload).unwrap();
    let signature = support::payloads::sign(SECRET, &body);
    let delivery = format!("bench-{i}");
    target.request(
        mode,
        &[
            ("user-agent", "GitHub-Hookshot/bench"),
            ("x-github-event", "issue_comment"),
            ("x-github-delivery", delivery.as_str()),
            ("x-hub-signature-256", signature.as_str()),
        ],
        &body,
    )
}

/// `uplift serve --no-worker` on `database_url`.
fn start_uplift(database_url: &str) -> Server {
    let process = spawn(
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
    let target = Target::parse(&format!("{}/webhook", process.url));
    Server::new(process, target)
}

/// The Probot app of `tests/bench/probot/`, its pinned dependencies installed once into
/// the cache with `npm ci`; None (and why) when node or npm is missing.
fn start_probot() -> Result<Server, String> {
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
    let process = Process {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    support::app::wait_listening(port);
    let target = Target::parse(&format!("{}/api/github/webhooks", process.url));
    Ok(Server::new(process, target))
}

/// A server under test and where its CPU time is counted.
struct Server {
    process: Process,
    target: Target,
    /// Processes named so (the database) count beside the server.
    helper: Option<&'static str>,
}

impl Server {
    fn new(process: Process, target: Target) -> Self {
        Server {
            process,
            target,
            helper: None,
        }
    }

    /// `n` deliveries numbered from `first` at `rate`.
    fn drive(&self, mode: Connections, rate: u64, n: u64, first: u64) -> Step {
        let requests = (first..first + n)
            .map(|i| request(&self.target, mode, i))
            .collect();
        let watched = Watched {
            server_pid: self.process.child.id(),
            helper_comm: self.helper,
        };
        load::run(
            &self.target,
            mode,
            rate,
            requests,
            &watched,
            REQUEST_TIMEOUT,
        )
    }
}

fn header(extra: &str) -> String {
    format!(
        "rate/s  requests  errors  p50_ms  p99_ms  max_ms  conns  \
         server_us/req  db_us/req  gen_us/req  machine_busy%  others%{extra}"
    )
}

fn row(rate: u64, s: &Step) -> String {
    let others = s
        .machine_cpu
        .saturating_sub(s.server_cpu + s.helper_cpu + s.generator_cpu);
    format!(
        "{rate:>6}  {:>8}  {:>6}  {:>6.2}  {:>6.2}  {:>6.1}  {:>5}  {:>13.0}  {:>9.0}  {:>10.0}  \
         {:>13.0}  {:>7.0}",
        s.sent,
        s.errors,
        s.p50_ms,
        s.p99_ms,
        s.max_ms,
        s.connections,
        s.per_request_us(s.server_cpu),
        s.per_request_us(s.helper_cpu),
        s.per_request_us(s.generator_cpu),
        s.percent(s.machine_cpu) / 2.0,
        s.percent(others) / 2.0,
    )
}

/// One server's ladder of rates.
struct Ladder<'a> {
    name: &'a str,
    server: &'a Server,
    rows: Vec<String>,
    best: u64,
    stopped: bool,
}

/// Drives every server at each rate in turn (warmed up first) with `mode`; each server's
/// highest rate that kept p99 under the target with no errors, in the order given.
fn measure(
    servers: &[(&str, &Server)],
    mode: Connections,
    offset: &mut u64,
    dir: &std::path::Path,
) -> Vec<u64> {
    println!(
        "
== {} ==",
        mode.describe()
    );
    let mut ladders: Vec<Ladder> = servers
        .iter()
        .map(|&(name, server)| Ladder {
            name,
            server,
            rows: Vec::new(),
            best: 0,
            stopped: false,
        })
        .collect();
    for l in &ladders {
        l.server.drive(mode, 200, 400, *offset);
        *offset += 400;
    }
    for &rate in RATES {
        if ladders.iter().all(|l| l.stopped) {
            break;
        }
        let (p50, p99) = disk_sync_ms(dir);
        println!(
            "{rate}/s (disk fdatasync p50 {p50:.1} ms, p99 {p99:.1} ms; load {})",
            loadavg()
        );
        for l in ladders.iter_mut().filter(|l| !l.stopped) {
            let n = rate * SECONDS_PER_RATE;
            let step = l.server.drive(mode, rate, n, *offset);
            *offset += n;
            let line = row(rate, &step);
            println!("{:<8} {line}", short(l.name));
            l.rows.push(line);
            if step.errors == 0 && step.p99_ms < P99_TARGET_MS {
                l.best = rate;
            } else if rate > 1000 {
                l.stopped = true;
            }
            // The server finishes what it queued (and the kernel its closing connections)
            // before the next one runs.
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    for l in &ladders {
        println!(
            "
{} ({})
{}",
            l.name,
            mode.describe(),
            header("")
        );
        for r in &l.rows {
            println!("{r}");
        }
        println!(
            "{}: max sustained rate with p99 < {P99_TARGET_MS} ms and no errors: {}/s",
            short(l.name),
            l.best
        );
    }
    ladders.iter().map(|l| l.best).collect()
}

/// The disk's commit latency, as the databases pay it: `fdatasync` after a 4 KiB append,
/// 50 times in `dir`; p50 and p99 in ms.
fn disk_sync_ms(dir: &std::path::Path) -> (f64, f64) {
    use std::io::Write;
    let path = dir.join("sync-probe");
    let mut file = std::fs::File::create(&path).unwrap();
    let mut ms: Vec<f64> = (0..50)
        .map(|_| {
            file.write_all(&[0u8; 4096]).unwrap();
            let t = Instant::now();
            file.sync_data().unwrap();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    drop(file);
    let _ = std::fs::remove_file(path);
    ms.sort_by(f64::total_cmp);
    (ms[25], ms[49])
}

/// The 1-minute load average.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split(' ')
        .next()
        .unwrap_or("?")
        .to_string()
}

fn short(name: &str) -> &str {
    name.split(" (").next().unwrap_or(name)
}

async fn measure_intake() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = start_uplift(&format!(
        "sqlite://{}",
        dir.path().join("bench.db").display()
    ));
    let mut postgres = start_uplift(&support::postgres_url().await);
    postgres.helper = Some("postgres");
    let probot = start_probot();
    let mut servers = vec![
        (
            "uplift/sqlite (every delivery recorded and queued)",
            &sqlite,
        ),
        ("uplift/pg (every delivery recorded and queued)", &postgres),
    ];
    match &probot {
        Ok(p) => servers.push(("probot (verifies and answers, stores nothing)", p)),
        Err(why) => println!("\nProbot comparison skipped: {why}"),
    }
    println!(
        "\n{} s per rate; server_us/req, db_us/req, gen_us/req: CPU time per delivery of the \
         server, PostgreSQL's processes and the load generator; machine_busy%: all CPU of the \
         2 cores; others%: CPU of everything else running on the machine",
        SECONDS_PER_RATE
    );
    let modes: Vec<Connections> = [Connections::PerRequest, Connections::KeepAlive]
        .into_iter()
        .filter(|m| {
            let only = |a: &str| std::env::args().any(|x| x == a);
            match m {
                Connections::PerRequest => !only("keep-alive"),
                Connections::KeepAlive => !only("new-connections"),
            }
        })
        .collect();
    let mut offset = 0;
    for mode in modes {
        let best = tokio::task::block_in_place(|| measure(&servers, mode, &mut offset, dir.path()));
        if probot.is_ok() {
            let probot = best[2];
            println!(
                "\nsustained rate at p99 < {P99_TARGET_MS} ms, Uplift / Probot ({}):",
                mode.describe()
            );
            for (name, ours) in [("SQLite", best[0]), ("PostgreSQL", best[1])] {
                // No ratio to a rate Probot never held: that load says nothing of either.
                let ratio = if probot == 0 {
                    "n/a".to_string()
                } else {
                    format!("{:.1}x", ours as f64 / probot as f64)
                };
                println!("  {name}: {ours}/s vs {probot}/s = {ratio}");
            }
        }
    }
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
    let process = spawn(&["serve"], &env);
    let webhook = format!("{}/webhook", process.url);
    let server = Server::new(process, Target::parse(&webhook));
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
    let drive = |rate, n, first| {
        tokio::task::block_in_place(|| server.drive(Connections::PerRequest, rate, n, first))
    };
    drive(100, 400, 40_000_000);
    println!(
        "\nuplift serve with its worker migrating (SQLite; real sandboxed Maven builds)\n\
         {}",
        header("  migrating")
    );
    let mut offset = 50_000_000;
    for rate in [200, 500, 1000] {
        let before = running().await;
        let n = rate * SECONDS_PER_RATE;
        let step = drive(rate, n, offset);
        let after = running().await;
        offset += n;
        let busy = match (before, after) {
            (true, true) => "throughout",
            (false, false) => "no",
            _ => "part",
        };
        println!("{}  {busy}", row(rate, &step));
        if rate == 200 {
            let met = step.errors == 0 && step.p99_ms < BUSY_P99_TARGET_MS;
            let verdict = if met && busy == "throughout" {
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
    let only = |part: &str| std::env::args().any(|a| a == part);
    if !only("busy") {
        measure_intake().await;
    }
    if !only("intake") {
        measure_busy().await;
    }
}
