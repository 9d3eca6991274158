//! `uplift setup`: registers the GitHub App from its manifest, as Probot's first start does.
//!
//! A page on a local address has one button; it posts `app-manifest.yml` (as JSON, URLs set
//! to the public host, `redirect_url` back to this page's server) with a random `state` to
//! GitHub's "new app" page. After the owner confirms, GitHub sends the browser to
//! `/setup/complete?code=..&state=..`; the state is checked (constant time, once), the code
//! exchanged (`POST /app-manifests/{code}/conversions`) and the credentials written to a file
//! only its owner can read, in a form `fly secrets import` and `sh` both read. The values
//! are [`Secret`]s from the moment they are parsed, so no log or page can show them.

use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use reqwest::Url;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use tokio::sync::oneshot;

use crate::secrets::Secret;

/// The manifest shipped with this binary (the repository's `app-manifest.yml`).
pub const MANIFEST: &str = include_str!("../../app-manifest.yml");
/// Where GitHub sends the browser back with the code.
const COMPLETE_PATH: &str = "/setup/complete";
/// A conversion answer is a few kilobytes; anything far larger is not GitHub's.
const MAX_ANSWER_BYTES: usize = 1 << 20;
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);
/// Time the done page gets to reach the browser before the server stops.
const DRAIN: Duration = Duration::from_secs(5);

/// What `uplift setup` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where Uplift will be served; the manifest's `url`, webhook and callback URLs move there.
    pub public_url: String,
    /// Register the app for this organization instead of the signed-in user.
    pub org: Option<String>,
    /// GitHub's web address: `https://github.com` or a GitHub Enterprise Server's.
    pub github_url: String,
    /// The local page's address; GitHub redirects the browser back to it.
    pub listen: SocketAddr,
    /// The credentials file (created with mode 0600; it must not exist).
    pub out: PathBuf,
    /// The manifest's YAML text.
    pub manifest: String,
}

/// The app GitHub created, as `uplift setup` reports it.
#[derive(Debug, Clone)]
pub struct Registered {
    pub name: String,
    pub slug: String,
    pub html_url: String,
    /// The credentials file, absolute.
    pub out: PathBuf,
}

/// The answer of `POST /app-manifests/{code}/conversions`; the secrets are wrapped (and
/// registered for redaction) as they are parsed.
#[derive(Deserialize)]
struct Conversion {
    id: u64,
    slug: String,
    name: String,
    html_url: String,
    client_id: String,
    client_secret: Secret,
    /// Null when the manifest has no webhook; Uplift's always has one.
    webhook_secret: Option<Secret>,
    pem: Secret,
}

/// The `state` the start page sent, accepted once: a wrong value leaves it in place, the
/// right one consumes it, so a replayed redirect is refused.
struct OneTimeState(Mutex<Option<String>>);

impl OneTimeState {
    fn take(&self, given: &str) -> bool {
        let mut expected = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let matches = expected
            .as_deref()
            .is_some_and(|e| bool::from(e.as_bytes().ct_eq(given.as_bytes())));
        if matches {
            *expected = None;
        }
        matches
    }
}

struct Flow {
    start_page: String,
    state: OneTimeState,
    /// `Host` values this server answers: its own address (and `localhost:PORT` on
    /// loopback), so a page of another site cannot reach it by DNS rebinding.
    hosts: Vec<String>,
    api_url: String,
    http: reqwest::Client,
    out: PathBuf,
    done: Mutex<Option<oneshot::Sender<anyhow::Result<Registered>>>>,
}

/// A bound setup server; [`Setup::run`] serves it until the app is registered.
pub struct Setup {
    listener: tokio::net::TcpListener,
    flow: Arc<Flow>,
    done: oneshot::Receiver<anyhow::Result<Registered>>,
    url: String,
}

impl Setup {
    /// Checks the options, renders the manifest and binds the local address.
    pub async fn bind(options: Options) -> anyhow::Result<Self> {
        if options.listen.ip().is_unspecified() {
            bail!(
                "--listen {}: give the address the browser will use (e.g. 127.0.0.1:3000); \
                 GitHub sends the browser back to it",
                options.listen
            );
        }
        let out = absolute(&options.out)?;
        if out.symlink_metadata().is_ok() {
            bail!(
                "{} exists; move it away or choose another --out (setup never overwrites credentials)",
                out.display()
            );
        }
        let github = web_origin(&options.github_url)?;
        let public = base_url(&options.public_url)?;
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .with_context(|| format!("cannot listen on {}", options.listen))?;
        let local = listener.local_addr()?;
        let url = format!("http://{local}");
        let manifest = manifest_json(&options.manifest, &public, &format!("{url}{COMPLETE_PATH}"))?;
        let state = uuid::Uuid::new_v4().simple().to_string();
        let action = form_action(&github, options.org.as_deref(), &state)?;
        let mut hosts = vec![local.to_string()];
        if local.ip().is_loopback() {
            hosts.push(format!("localhost:{}", local.port()));
        }
        let (done_tx, done) = oneshot::channel();
        let flow = Flow {
            start_page: start_page(&action, &manifest, options.org.as_deref()),
            state: OneTimeState(Mutex::new(Some(state))),
            hosts,
            api_url: api_url(&github),
            http: reqwest::Client::builder()
                .timeout(EXCHANGE_TIMEOUT)
                .user_agent(concat!("uplift/", env!("CARGO_PKG_VERSION")))
                .redirect(reqwest::redirect::Policy::none())
                .build()?,
            out,
            done: Mutex::new(Some(done_tx)),
        };
        Ok(Self {
            listener,
            flow: Arc::new(flow),
            done,
            url,
        })
    }

    /// The start page's address, to open in a browser.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves until the code is exchanged and the credentials written (or that failed).
    pub async fn run(self) -> anyhow::Result<Registered> {
        let router = Router::new()
            .route("/", get(start))
            .route(COMPLETE_PATH, get(complete))
            .layer(middleware::from_fn_with_state(self.flow.clone(), own_host))
            .with_state(self.flow.clone());
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let server = tokio::spawn(
            axum::serve(self.listener, router)
                .with_graceful_shutdown(async {
                    let _ = stop_rx.await;
                })
                .into_future(),
        );
        let result = self
            .done
            .await
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the setup server stopped")));
        let _ = stop_tx.send(());
        // The done page is being written; open keep-alive connections do not hold us up.
        let _ = tokio::time::timeout(DRAIN, server).await;
        result
    }
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    })
}

/// An `http(s)` URL without credentials, query or fragment, for `what`.
fn http_url(text: &str, what: &str) -> anyhow::Result<Url> {
    let url = Url::parse(text.trim()).with_context(|| format!("{what} {text:?} is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https")
        || url.host_str().is_none()
        || !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        bail!("{what} {text:?}: expected http(s)://HOST[/PATH] without credentials or query");
    }
    Ok(url)
}

/// GitHub's web origin (`--github-url`), without a trailing slash.
fn web_origin(text: &str) -> anyhow::Result<String> {
    let url = http_url(text, "--github-url")?;
    if url.path() != "/" {
        bail!("--github-url {text:?}: give the host only, e.g. https://github.example.com");
    }
    Ok(url.origin().ascii_serialization())
}

/// The public base URL (`--public-url`), without a trailing slash.
fn base_url(text: &str) -> anyhow::Result<String> {
    let url = http_url(text, "--public-url")?;
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// The REST API of a GitHub web origin: api.github.com for github.com, `/api/v3` on a
/// GitHub Enterprise Server.
fn api_url(github: &str) -> String {
    if github == "https://github.com" {
        "https://api.github.com".into()
    } else {
        format!("{github}/api/v3")
    }
}

/// Where the start page posts the manifest: the signed-in user's or `org`'s new-app page.
fn form_action(github: &str, org: Option<&str>, state: &str) -> anyhow::Result<String> {
    let owner = match org {
        None => String::new(),
        Some(org) => {
            let valid = !org.is_empty()
                && org.len() <= 39
                && org.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if !valid {
                bail!("--org {org:?} is not a GitHub organization name");
            }
            format!("/organizations/{org}")
        }
    };
    Ok(format!("{github}{owner}/settings/apps/new?state={state}"))
}

/// `url` with its scheme and host (and any path prefix) replaced by `base`'s.
fn rebase(url: &str, base: &str) -> anyhow::Result<String> {
    let path = Url::parse(url)
        .with_context(|| format!("manifest URL {url:?}"))?
        .path()
        .to_string();
    Ok(format!("{base}{}", path.trim_end_matches('/')))
}

/// The manifest as GitHub takes it: JSON, with the app's URLs on the public host and
/// `redirect_url` pointing back at this setup server.
fn manifest_json(yaml: &str, public: &str, redirect: &str) -> anyhow::Result<String> {
    let mut manifest: serde_json::Value =
        serde_saphyr::from_str(yaml).context("the manifest is not valid YAML")?;
    let Some(fields) = manifest.as_object_mut() else {
        bail!("the manifest is not a mapping");
    };
    fields.insert("url".into(), public.into());
    fields.insert("redirect_url".into(), redirect.into());
    if let Some(hook) = fields
        .get_mut("hook_attributes")
        .and_then(|h| h.get_mut("url"))
    {
        let url = hook.as_str().context("hook_attributes.url is not a URL")?;
        *hook = rebase(url, public)?.into();
    }
    if let Some(urls) = fields
        .get_mut("callback_urls")
        .and_then(|c| c.as_array_mut())
    {
        for url in urls {
            let text = url.as_str().context("callback_urls holds a non-URL")?;
            *url = rebase(text, public)?.into();
        }
    }
    Ok(manifest.to_string())
}

/// Security headers for every page: nothing cached (the done URL held a code), no referrer
/// sent to GitHub's links, no framing, no scripts.
fn page(status: StatusCode, html: String) -> Response {
    (
        status,
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::REFERRER_POLICY, "no-referrer"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            ),
        ],
        Html(html),
    )
        .into_response()
}

fn layout(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body{{font-family:sans-serif;max-width:42em;margin:3em auto;line-height:1.5}}\
         code{{background:#eee;padding:.1em .3em}}button{{font-size:1.2em;padding:.5em 1em}}</style>\
         </head><body>{body}</body></html>",
        html_escape::encode_text(title)
    )
}

fn start_page(action: &str, manifest: &str, org: Option<&str>) -> String {
    let owner = org.map_or("your account".to_string(), |o| {
        format!("the organization {}", html_escape::encode_text(o))
    });
    layout(
        "Register Uplift",
        &format!(
            "<h1>Register Uplift as a GitHub App</h1>\
             <p>The button sends Uplift's manifest to GitHub, which registers the app for \
             {owner} after you review it. You come back here and the app's credentials are \
             saved on this machine.</p>\
             <form method=\"post\" action=\"{}\">\
             <input type=\"hidden\" name=\"manifest\" value=\"{}\">\
             <button id=\"register\" type=\"submit\">Register GitHub App</button></form>",
            html_escape::encode_double_quoted_attribute(action),
            html_escape::encode_double_quoted_attribute(manifest),
        ),
    )
}

fn error_page(status: StatusCode, message: &str) -> Response {
    page(
        status,
        layout(
            "Uplift setup failed",
            &format!(
                "<h1>Setup failed</h1><p id=\"error\">{}</p>",
                html_escape::encode_text(&crate::redact::redact(message))
            ),
        ),
    )
}

/// Refuses requests addressed to any other host name (see [`Flow::hosts`]).
async fn own_host(State(flow): State<Arc<Flow>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| flow.hosts.iter().any(|own| own == h)) {
        return error_page(StatusCode::MISDIRECTED_REQUEST, "unexpected Host header");
    }
    next.run(request).await
}

async fn start(State(flow): State<Arc<Flow>>) -> Response {
    page(StatusCode::OK, flow.start_page.clone())
}

#[derive(Deserialize)]
struct Redirect {
    code: Option<String>,
    state: Option<String>,
}

/// A code as GitHub issues them; anything else never reaches the API's path.
fn valid_code(code: &str) -> bool {
    (1..=128).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

async fn complete(State(flow): State<Arc<Flow>>, Query(redirect): Query<Redirect>) -> Response {
    let (Some(code), Some(state)) = (redirect.code, redirect.state) else {
        return error_page(StatusCode::BAD_REQUEST, "code and state are required");
    };
    if !valid_code(&code) {
        return error_page(StatusCode::BAD_REQUEST, "malformed code");
    }
    if !flow.state.take(&state) {
        tracing::warn!("setup redirect refused: unknown or already used state");
        return error_page(
            StatusCode::FORBIDDEN,
            "unknown or already used state: start again from the setup page",
        );
    }
    let result = register(&flow, &code).await;
    let response = match &result {
        Ok(app) => page(StatusCode::OK, done_page(app)),
        Err(e) => error_page(StatusCode::BAD_GATEWAY, &format!("{e:#}")),
    };
    if let Some(done) = flow.done.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let _ = done.send(result);
    }
    response
}

fn done_page(app: &Registered) -> String {
    let install = format!("{}/installations/new", app.html_url);
    layout(
        "Uplift registered",
        &format!(
            "<h1 id=\"done\">Uplift is registered</h1>\
             <p>GitHub App <a href=\"{}\">{}</a> exists. Its credentials are in <code>{}</code> \
             (readable only by you); the terminal shows how to hand them to Uplift.</p>\
             <p>Next, <a href=\"{}\">install it</a> on the repositories to migrate. \
             You can close this page.</p>",
            html_escape::encode_double_quoted_attribute(&app.html_url),
            html_escape::encode_text(&app.name),
            html_escape::encode_text(&app.out.display().to_string()),
            html_escape::encode_double_quoted_attribute(&install),
        ),
    )
}

/// Exchanges the code and writes the credentials file.
async fn register(flow: &Flow, code: &str) -> anyhow::Result<Registered> {
    let app = exchange(&flow.http, &flow.api_url, code).await?;
    http_url(&app.html_url, "the app's html_url")?;
    let contents = env_file(&app)?;
    write_private(&flow.out, &contents).with_context(|| {
        format!(
            "GitHub App {} was created, but its credentials could not be saved; generate a \
             private key and a webhook secret in its settings ({})",
            app.slug, app.html_url
        )
    })?;
    tracing::info!(app = %app.slug, file = %flow.out.display(), "GitHub App registered");
    Ok(Registered {
        name: printable(&app.name),
        slug: app.slug,
        html_url: app.html_url,
        out: flow.out.clone(),
    })
}

/// `POST {api}/app-manifests/{code}/conversions` (no authentication: the code is the proof).
async fn exchange(http: &reqwest::Client, api: &str, code: &str) -> anyhow::Result<Conversion> {
    let url = format!("{api}/app-manifests/{code}/conversions");
    let mut response = http
        .post(&url)
        .header(header::ACCEPT, "application/vnd.github+json")
        .header("x-github-api-version", "2022-11-28")
        .send()
        .await
        .with_context(|| format!("cannot reach {api}"))?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            bail!("GitHub's answer to the code exchange exceeds {MAX_ANSWER_BYTES} bytes");
        }
        body.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        let message = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["message"].as_str().map(String::from))
            .unwrap_or_default();
        bail!(
            "GitHub answered {status} to the code exchange: {message} (a code works once and \
             for one hour; start again)"
        );
    }
    serde_json::from_slice(&body).context("GitHub's answer to the code exchange is not an app")
}

/// `text` without control characters, which could rewrite a terminal or a file's comment.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// The bytes a value may have to stay one `"..."` word for both `sh` and `fly secrets import`.
fn quotable(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_graphic() && !b"\"'`$\\#".contains(&b))
}

/// The credentials as `NAME="value"` lines (the key as a `"""` block), read alike by
/// `fly secrets import` and by `sh` (`set -a; . FILE`). Values GitHub would never send
/// (quotes, `$`, control characters, a key that is not an RSA PEM) are refused.
fn env_file(app: &Conversion) -> anyhow::Result<String> {
    let webhook_secret = app
        .webhook_secret
        .as_ref()
        .context("GitHub created the app without a webhook secret")?;
    let safe_slug = !app.slug.is_empty()
        && app
            .slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !safe_slug
        || !quotable(&app.client_id)
        || !quotable(app.client_secret.expose())
        || !quotable(webhook_secret.expose())
    {
        bail!("GitHub's answer holds characters no app id or secret has");
    }
    let pem = app.pem.expose().trim();
    octocrab::jsonwebtoken::EncodingKey::from_rsa_pem(pem.as_bytes())
        .map_err(|e| anyhow::anyhow!("the app's private key is not an RSA PEM key: {e}"))?;
    if !pem
        .lines()
        .all(|l| l.bytes().all(|b| b.is_ascii_graphic() || b == b' ') && !l.contains('"'))
    {
        bail!("the app's private key holds unexpected characters");
    }
    let comment = printable(&format!("{} ({})", app.name, app.html_url));
    Ok(format!(
        "# GitHub App {comment}, registered by `uplift setup`.\n\
         # Private: holds the app's key and secrets. Delete it once they are set.\n\
         #   Fly.io:       fly secrets import --stage < FILE\n\
         #   One machine:  set -a; . ./FILE; set +a\n\
         # OAuth credentials, which Uplift does not use (GitHub shows the secret only once):\n\
         # GITHUB_CLIENT_ID={}\n\
         # GITHUB_CLIENT_SECRET={}\n\
         UPLIFT_APP_ID=\"{}\"\n\
         UPLIFT_APP_SLUG=\"{}\"\n\
         UPLIFT_WEBHOOK_SECRET=\"{}\"\n\
         UPLIFT_PRIVATE_KEY=\"\"\"{pem}\"\"\"\n",
        app.client_id,
        app.client_secret.expose(),
        app.id,
        app.slug,
        webhook_secret.expose(),
    ))
}

/// Creates `path` with mode 0600 from the start (never readable by others, not even
/// briefly; umask can only narrow it) and refuses to follow or replace an existing file.
fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let written = file
        .write_all(contents.as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(path);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_accepted_once_and_a_wrong_one_does_not_use_it_up() {
        let state = OneTimeState(Mutex::new(Some("abc123".into())));
        assert!(!state.take("abc124"));
        assert!(!state.take(""));
        assert!(!state.take("abc1234"));
        assert!(state.take("abc123"));
        assert!(!state.take("abc123"), "a replayed state is refused");
    }

    #[test]
    fn github_com_and_enterprise_server_have_their_api_and_new_app_pages() {
        assert_eq!(api_url("https://github.com"), "https://api.github.com");
        let ghes = web_origin("https://ghe.example.com/").unwrap();
        assert_eq!(api_url(&ghes), "https://ghe.example.com/api/v3");
        assert_eq!(
            form_action(&ghes, Some("acme"), "s1").unwrap(),
            "https://ghe.example.com/organizations/acme/settings/apps/new?state=s1"
        );
        assert_eq!(
            form_action("https://github.com", None, "s1").unwrap(),
            "https://github.com/settings/apps/new?state=s1"
        );
        assert!(form_action("https://github.com", Some("../x"), "s").is_err());
        assert!(web_origin("https://github.com/login").is_err());
        assert!(web_origin("https://user:pw@github.com").is_err());
    }

    #[test]
    fn the_manifest_points_at_the_public_host_and_back_at_setup() {
        let json = manifest_json(
            MANIFEST,
            &base_url("https://uplift.fly.dev/").unwrap(),
            "http://127.0.0.1:3000/setup/complete",
        )
        .unwrap();
        let m: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(m["url"], "https://uplift.fly.dev");
        assert_eq!(
            m["hook_attributes"]["url"],
            "https://uplift.fly.dev/webhook"
        );
        assert_eq!(m["redirect_url"], "http://127.0.0.1:3000/setup/complete");
        assert_eq!(
            m["callback_urls"][0],
            "https://uplift.fly.dev/auth/callback"
        );
        assert_eq!(m["default_permissions"]["contents"], "write");
        assert!(!json.contains("example.com"), "{json}");
    }

    #[test]
    fn codes_that_could_leave_the_api_path_are_refused() {
        assert!(valid_code("a1b2c3_d-e"));
        for bad in ["", "../app", "a/b", "a?b", "a%2fb", &"x".repeat(129)] {
            assert!(!valid_code(bad), "{bad}");
        }
    }

    fn conversion(webhook_secret: &str) -> Conversion {
        serde_json::from_value(serde_json::json!({
            "id": 42, "slug": "uplift-acme", "name": "Uplift\nUPLIFT_APP_ID=1",
            "html_url": "https://github.com/apps/uplift-acme",
            "client_id": "Iv23liTEST", "client_secret": "c0ffee-client-secret",
            "webhook_secret": webhook_secret,
            "pem": std::fs::read_to_string("tests/support/app-key.pem").unwrap(),
        }))
        .unwrap()
    }

    #[test]
    fn the_credentials_file_has_one_quoted_line_per_variable_and_the_key_as_a_block() {
        let app = conversion("whsec-0123456789abcdef");
        let text = env_file(&app).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines[0], "UPLIFT_APP_ID=\"42\"");
        assert_eq!(lines[1], "UPLIFT_APP_SLUG=\"uplift-acme\"");
        assert_eq!(lines[2], "UPLIFT_WEBHOOK_SECRET=\"whsec-0123456789abcdef\"");
        assert!(lines[3].starts_with("UPLIFT_PRIVATE_KEY=\"\"\"-----BEGIN"));
        assert!(text.trim_end().ends_with("PRIVATE KEY-----\"\"\""));
        let ids = text.lines().filter(|l| l.starts_with("UPLIFT_APP_ID="));
        assert_eq!(ids.count(), 1, "a name cannot add a line: {text}");
    }

    #[test]
    fn values_that_would_break_out_of_their_quotes_are_refused() {
        for bad in ["a\"; rm -rf ~; \"", "$(id)", "x`id`", "a b", "x#y", "a\\"] {
            assert!(env_file(&conversion(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_file_is_created_owner_only_and_never_replaced() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("creds.env");
        write_private(&path, "A=1\n").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(write_private(&path, "B=2\n").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "A=1\n");
        let link = dir.path().join("link.env");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &link).unwrap();
        assert!(write_private(&link, "C=3\n").is_err());
        assert!(!dir.path().join("elsewhere").exists());
    }
}
