//! `uplift setup` end to end: the real binary against the fake GitHub, clicked through in a
//! real headless Chromium (Debian's `chromium` and `chromium-driver`, installed by
//! scripts/setup-browser.sh) driven over WebDriver.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use fantoccini::{ClientBuilder, Locator};
use support::fake_github::FakeGitHub;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

const APP_ID: u64 = 4242;
const SLUG: &str = "uplift-acme";
const PUBLIC_URL: &str = "https://uplift.example.org";

async fn fake_github() -> FakeGitHub {
    let fake = FakeGitHub::start(
        APP_ID,
        SLUG,
        &std::fs::read(support::support_file("app-key.pub.pem")).unwrap(),
    )
    .await;
    fake.accept_manifests(&std::fs::read_to_string(support::support_file("app-key.pem")).unwrap());
    fake
}

/// A running `uplift setup`: the page's URL it printed, and everything else it prints
/// (stdout and stderr, read as it comes so the pipes never fill).
struct Setup {
    child: Child,
    page: String,
    output: tokio::task::JoinHandle<String>,
}

/// `uplift setup` for `--org acme` against `fake` (as a GitHub Enterprise Server: its web
/// pages at the fake's root, its API at /api/v3).
async fn start_setup(fake: &FakeGitHub, out: &Path) -> Setup {
    let mut child = Command::new(env!("CARGO_BIN_EXE_uplift"))
        .args(["setup", "--public-url", PUBLIC_URL, "--org", "acme"])
        .args(["--github-url", &fake.url, "--listen", "127.0.0.1:0"])
        .arg("--out")
        .arg(out)
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("run uplift setup");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let mut first = String::new();
    tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut first))
        .await
        .expect("uplift setup prints its page's address")
        .unwrap();
    let page = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {first:?}"))
        .trim_end_matches('/')
        .to_string();
    let output = tokio::spawn(async move {
        let (mut out, mut err) = (first, String::new());
        let _ = tokio::join!(
            stdout.read_to_string(&mut out),
            stderr.read_to_string(&mut err)
        );
        out + &err
    });
    Setup {
        child,
        page,
        output,
    }
}

impl Setup {
    /// Waits for the exit; whether it succeeded, and all it printed.
    async fn finish(mut self) -> (bool, String) {
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .expect("uplift setup exits once the exchange is done")
            .unwrap();
        (status.success(), self.output.await.unwrap())
    }
}

/// Chromedriver on a free port, or a failure that says what to install: a missing browser
/// fails the test, it never skips it.
struct Driver {
    process: std::process::Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

async fn chromedriver() -> Driver {
    for program in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
        assert!(
            Path::new(program).exists(),
            "{program} is missing: this test needs Debian's chromium and chromium-driver \
             (run scripts/setup-browser.sh as root)"
        );
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let process = std::process::Command::new("/usr/bin/chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver {
        process,
        url: format!("http://127.0.0.1:{port}"),
    };
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return driver;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not listen on port {port} within 10 s");
}

async fn browser(driver: &Driver, profile: &Path) -> fantoccini::Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": "/usr/bin/chromium",
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    ClientBuilder::native()
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a Chromium session through chromedriver")
}

/// The credentials as `sh` reads them (`set -a; . FILE`), the way deploy/README.md uses them.
fn sourced(file: &Path, name: &str) -> String {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(". \"$1\"; printf %s \"${name}\""))
        .arg("sh")
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_registers_the_app_in_a_real_browser_and_saves_its_credentials_owner_only() {
    let fake = fake_github().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("uplift-app.env");
    let setup = start_setup(&fake, &out).await;
    let page = setup.page.clone();

    // A redirect with a state the page never sent is refused before any exchange, and does
    // not use up the real one.
    let http = reqwest::Client::new();
    let forged = http
        .get(format!("{page}/setup/complete?code=forged1&state=0123abcd"))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 403);

    let driver = chromedriver().await;
    let client = browser(&driver, &dir.path().join("profile")).await;
    client.goto(&page).await.unwrap();
    client
        .find(Locator::Id("register"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // The stand-in for GitHub's page, which names the organization.
    let create = client
        .wait()
        .for_element(Locator::Id("create"))
        .await
        .unwrap();
    let heading = client
        .find(Locator::Css("h1"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(heading, "Create GitHub App Uplift for acme");
    create.click().await.unwrap();
    let done = client
        .wait()
        .for_element(Locator::Id("done"))
        .await
        .unwrap();
    assert_eq!(done.text().await.unwrap(), "Uplift is registered");
    let landed = client.current_url().await.unwrap();
    assert!(
        landed
            .as_str()
            .starts_with(&format!("{page}/setup/complete?code=")),
        "{landed}"
    );
    client.close().await.unwrap();

    let (success, output) = setup.finish().await;
    assert!(success, "{output}");

    let state = fake.state();
    assert_eq!(state.registrations.len(), 1);
    let app = &state.registrations[0];
    assert_eq!(app.org.as_deref(), Some("acme"));
    assert_eq!(app.conversions, 1);
    assert_eq!(app.manifest["url"], PUBLIC_URL);
    assert_eq!(
        app.manifest["hook_attributes"]["url"],
        format!("{PUBLIC_URL}/webhook")
    );
    assert_eq!(
        app.manifest["redirect_url"],
        format!("{page}/setup/complete")
    );
    assert_eq!(app.state.as_deref().map(str::len), Some(32));
    let exchanges: Vec<_> = state
        .requests
        .iter()
        .filter(|r| r.path.contains("/app-manifests/"))
        .map(|r| (r.method.as_str(), r.path.as_str(), r.status))
        .collect();
    let code = app.code.as_deref().unwrap();
    assert_eq!(
        exchanges,
        [(
            "POST",
            format!("/api/v3/app-manifests/{code}/conversions").as_str(),
            201
        )],
        "one exchange, of the code GitHub issued, at the Enterprise Server's API"
    );

    let mode = std::fs::metadata(&out).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o600,
        "the credentials file is the owner's only"
    );
    let pem = std::fs::read_to_string(support::support_file("app-key.pem")).unwrap();
    assert_eq!(sourced(&out, "UPLIFT_APP_ID"), APP_ID.to_string());
    assert_eq!(sourced(&out, "UPLIFT_APP_SLUG"), SLUG);
    assert_eq!(sourced(&out, "UPLIFT_WEBHOOK_SECRET"), app.webhook_secret);
    assert_eq!(sourced(&out, "UPLIFT_PRIVATE_KEY"), pem.trim());
    let file = std::fs::read_to_string(&out).unwrap();
    assert!(file.contains(&format!("# GITHUB_CLIENT_SECRET={}", app.client_secret)));

    let quoted = out.display().to_string();
    assert!(
        output.contains(&format!("fly secrets import --stage < {quoted}")),
        "{output}"
    );
    let key_lines = pem.lines().filter(|l| !l.starts_with("-----"));
    for secret in [app.webhook_secret.as_str(), app.client_secret.as_str()]
        .into_iter()
        .chain(key_lines)
    {
        assert!(
            !output.contains(secret),
            "a secret in the output:\n{output}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_refuses_forged_redirects_and_other_hosts_without_exchanging_a_code() {
    let fake = fake_github().await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("uplift-app.env");
    let setup = start_setup(&fake, &out).await;
    let page = setup.page.clone();
    let http = reqwest::Client::new();
    let start = http.get(format!("{page}/")).send().await.unwrap();
    assert_eq!(start.status(), 200);
    let html = start.text().await.unwrap();
    let state = html
        .split("state=")
        .nth(1)
        .and_then(|s| s.get(..32))
        .expect("the page posts a state");
    let complete = format!("{page}/setup/complete");
    for (query, status) in [
        ("code=abc".to_string(), 400),
        (format!("code=..%2Fapp&state={state}"), 400),
        ("code=abc&state=".to_string(), 403),
        (format!("code=abc&state={}x", state), 403),
        (format!("code=abc&state={}", &state[..31]), 403),
    ] {
        let response = http
            .get(format!("{complete}?{query}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status, "{query}");
    }
    // A page of another site that reaches this port by DNS rebinding names its own host.
    let rebound = http
        .get(format!("{complete}?code=abc&state={state}"))
        .header("host", "evil.example:80")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 421);
    // The right state with a code GitHub never issued: exchanged once, refused by GitHub,
    // and the state is used up.
    let unknown = http
        .get(format!("{complete}?code=neverissued&state={state}"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 502);
    let (success, output) = setup.finish().await;
    assert!(!success, "a failed exchange fails setup:\n{output}");
    assert!(output.contains("GitHub answered 404"), "{output}");
    assert!(!out.exists(), "nothing is written without credentials");
    let exchanges: Vec<String> = fake
        .state()
        .requests
        .iter()
        .filter(|r| r.path.contains("/app-manifests/"))
        .map(|r| format!("{} {}", r.path, r.status))
        .collect();
    assert_eq!(
        exchanges,
        ["/api/v3/app-manifests/neverissued/conversions 404"]
    );
}
