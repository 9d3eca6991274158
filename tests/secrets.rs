//! Secrets stay secret, end to end with the real binary: a repository's own config cannot
//! point the LLM tier at its host or at another key, a provider that refuses the key and
//! echoes it is asked once, and neither the key nor a build error quoting it reaches a
//! report, the journal or the terminal; `uplift serve` keeps no secret in its environment
//! and is not dumpable.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::copy_dir;
use support::fake_llm::{FakeLlm, Recorded};

mod support;

fn manifest(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Every file of `dir` whose name starts with `prefix` (the SQLite journal and its WAL).
fn bytes_of(dir: &Path, prefix: &str) -> Vec<u8> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().starts_with(prefix) {
            all.extend(std::fs::read(e.path()).unwrap());
        }
    }
    all
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn providers_come_from_the_operator_and_a_refused_key_is_asked_once_and_never_written() {
    // The operator's key: short, no known shape. The variable the repository names holds
    // another secret that must never leave the machine.
    const KEY: &str = "k3y9Q";
    const OTHER: &str = "zz-0ther-v4lue";
    let dir = tempfile::tempdir().unwrap();
    let operator = FakeLlm::default();
    let operator_url = operator.start().await;
    operator.push(Recorded {
        status: 401,
        headers: Vec::new(),
        body: json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}}),
    });
    let repo_host = FakeLlm::default();
    let repo_url = repo_host.start().await;
    // The key also sits in the project's path, so Maven's compile errors quote it.
    let repo = dir.path().join(format!("calc-{KEY}"));
    copy_dir(&manifest("tests/fixtures/underscore-identifier"), &repo);
    std::fs::create_dir_all(repo.join(".github")).unwrap();
    let offline = std::fs::read_to_string(manifest("tests/support/offline.yml")).unwrap();
    std::fs::write(
        repo.join(".github/uplift.yml"),
        format!(
            "{offline}llm:\n  api: openai_compatible\n  base_url: {repo_url}\n  model: gpt-4o-mini\n  api_key_env: SOME_OTHER_VAR\n\
             search:\n  base_url: {repo_url}\n  api_key_env: SOME_OTHER_VAR\n\
             prices:\n  gpt-4o-mini: {{input_per_mtok: 0, output_per_mtok: 0}}\n"
        ),
    )
    .unwrap();
    // The operator's own config file names the real provider.
    let xdg = dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("uplift")).unwrap();
    std::fs::write(
        xdg.join("uplift/config.yml"),
        format!(
            "llm:\n  api: openai_compatible\n  base_url: {operator_url}\n  model: gpt-4o-mini\n  api_key_env: UPLIFT_TEST_OPERATOR_KEY\n  max_retries: 3\n"
        ),
    )
    .unwrap();
    let (json_path, md_path) = (dir.path().join("r.json"), dir.path().join("r.md"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_uplift"));
    cmd.arg("--db")
        .arg(dir.path().join("journal.db"))
        .arg("migrate")
        .arg(&repo)
        .arg("--maven-arg=-s")
        .arg(format!(
            "--maven-arg={}",
            manifest("tests/support/maven-settings-offline.xml").display()
        ))
        .arg("--maven-arg=-DforkCount=0")
        .arg("--report-json")
        .arg(&json_path)
        .arg("--report-md")
        .arg(&md_path)
        .env("XDG_CONFIG_HOME", &xdg)
        .env("UPLIFT_TEST_OPERATOR_KEY", KEY)
        .env("SOME_OTHER_VAR", OTHER)
        .env("RUST_LOG", "info");
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let report_json = std::fs::read_to_string(&json_path).unwrap();
    let report_md = std::fs::read_to_string(&md_path).unwrap();
    let report: Value = serde_json::from_str(&report_json).unwrap();

    // Nothing reached the repository's host; the operator's provider was asked once, with
    // the operator's key, and the other variable's value went nowhere.
    assert!(
        repo_host.received().is_empty(),
        "{:?}",
        repo_host.received()
    );
    let sent = operator.received();
    assert_eq!(sent.len(), 1, "a 401 is not retried: {sent:?}");
    assert_eq!(sent[0].headers["authorization"], format!("Bearer {KEY}"));
    for r in &sent {
        assert!(!format!("{:?} {}", r.headers, r.body).contains(OTHER));
    }
    // The run says what it ignored and why the tier stopped.
    assert!(
        stderr.contains("names llm, search, prices: ignored"),
        "{stderr}"
    );
    assert!(
        report_md.contains("names llm, search, prices: ignored"),
        "{report_md}"
    );
    let attempts: Vec<&Value> = report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["result"]["kind"] == "fixed")
        .collect();
    assert_eq!(attempts.len(), 1, "{report_json}");
    let reason = attempts[0]["result"]["result"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("refused the credentials") && reason.contains("401"),
        "{reason}"
    );
    assert!(
        reason.contains("[REDACTED]"),
        "the echo is kept, masked: {reason}"
    );
    // The build error quoting the key was recorded, masked.
    assert!(
        report_json.contains("[REDACTED]/src/main/java/com/example/calc/Twice.java"),
        "{report_json}"
    );
    // Neither secret in any rendering or in the stored journal.
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let journal = bytes_of(dir.path(), "journal.db");
    assert!(!journal.is_empty());
    for secret in [KEY, OTHER] {
        for (what, text) in [
            ("report.json", &report_json),
            ("report.md", &report_md),
            ("stderr", &stderr),
            ("stdout", &stdout),
        ] {
            assert!(!text.contains(secret), "{secret} in {what}: {text}");
        }
        assert!(
            !contains(&journal, secret),
            "{secret} in the journal database"
        );
    }
    let run_id = report["run_id"].as_str().unwrap();
    for args in [
        vec!["report", run_id, "--format", "json"],
        vec!["replay", run_id],
    ] {
        let again = Command::new(env!("CARGO_BIN_EXE_uplift"))
            .arg("--db")
            .arg(dir.path().join("journal.db"))
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&again.stdout);
        assert!(again.status.success() && text.contains("refused"), "{text}");
        assert!(!text.contains(KEY), "{args:?}: {text}");
    }
}

/// `cat /proc/<pid>/environ` as `uid` (None: as this process): its bytes, or None when the
/// kernel refuses.
fn read_environ(pid: u32, uid: Option<u32>) -> Option<Vec<u8>> {
    let mut cat = Command::new("cat");
    cat.arg(format!("/proc/{pid}/environ"));
    if let Some(uid) = uid {
        cat.uid(uid).gid(uid);
    }
    let out = cat.output().unwrap();
    out.status.success().then_some(out.stdout)
}

#[test]
fn serve_keeps_no_secret_in_its_environment_and_is_not_dumpable() {
    const WEBHOOK: &str = "wh-k3y9W";
    const LLM_KEY: &str = "llm-k3y9L";
    let dir = tempfile::tempdir().unwrap();
    // As root, both the server and the reader run as `nobody`: the same user, no privilege.
    let as_user = (unsafe { libc::geteuid() } == 0).then_some(65534u32);
    if let Some(uid) = as_user {
        std::os::unix::fs::chown(dir.path(), Some(uid), Some(uid)).unwrap();
    }
    let pem = std::fs::read_to_string(manifest("tests/support/app-key.pem")).unwrap();
    let env = [
        ("UPLIFT_WEBHOOK_SECRET", WEBHOOK),
        ("UPLIFT_LLM_API_KEY", LLM_KEY),
        ("UPLIFT_PRIVATE_KEY", pem.as_str()),
    ];
    let spawn = |program: &str, args: &[&str]| {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(env)
            .env("UPLIFT_DATA_DIR", dir.path())
            .env("UPLIFT_LISTEN", "127.0.0.1:0")
            .env("UPLIFT_GITHUB_API_URL", "http://127.0.0.1:9")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(uid) = as_user {
            cmd.uid(uid).gid(uid);
        }
        cmd.spawn().unwrap()
    };
    let mut server = spawn(env!("CARGO_BIN_EXE_uplift"), &["serve"]);
    let mut control = spawn("sleep", &["60"]);
    // Wait for the server to listen: its settings were read before the environment was cleared.
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = server.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut log = Vec::new();
    let addr = loop {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("serve did not start: {log:#?}"));
        if line.contains("uplift serving") {
            // `addr=127.0.0.1:PORT`, possibly with colour codes around the `=`.
            let at = line.find("127.0.0.1:").unwrap();
            let port: String = line[at + 10..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            break format!("127.0.0.1:{port}");
        }
        log.push(line);
    };

    // The control: a process of the same user with the same environment is readable, and
    // shows the secrets — the check below could fail.
    let shown = read_environ(control.id(), as_user).expect("control environ readable");
    assert!(contains(&shown, WEBHOOK) && contains(&shown, LLM_KEY));
    // The server: the same reader is refused.
    assert_eq!(
        read_environ(server.id(), as_user),
        None,
        "serve is dumpable"
    );
    // Even a privileged reader finds no secret left in the environment block.
    if let Some(environ) = read_environ(server.id(), None) {
        assert!(contains(&environ, "UPLIFT_WEBHOOK_SECRET="));
        for secret in [WEBHOOK, LLM_KEY, pem.lines().nth(1).unwrap()] {
            assert!(!contains(&environ, secret), "{secret} still in environ");
        }
    }
    // And the server still knows its webhook secret.
    let body = br#"{"zen":"hello","hook_id":1}"#;
    let status = |signature: String| {
        let out = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"])
            .args(["-H", "x-github-event: ping", "-H", "x-github-delivery: d-1"])
            .args(["-H", &format!("x-hub-signature-256: {signature}")])
            .args(["--data-binary", std::str::from_utf8(body).unwrap()])
            .arg(format!("http://{addr}/webhook"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert_eq!(status(support::payloads::sign("wrong", body)), "401");
    assert_ne!(status(support::payloads::sign(WEBHOOK, body)), "401");
    server.kill().unwrap();
    control.kill().unwrap();
    let _ = server.wait();
    let _ = control.wait();
}
