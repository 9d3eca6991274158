//! Registering a GitHub App from a manifest, for `uplift setup`: a stand-in for GitHub's
//! "new GitHub App" page (`POST /settings/apps/new?state=..`, or an organization's at
//! `/organizations/{org}/settings/apps/new`), whose "Create GitHub App" button redirects the
//! browser to the manifest's `redirect_url` with a code and the state, and the code exchange
//! `POST /app-manifests/{code}/conversions` (also under `/api/v3`, where a GitHub Enterprise
//! Server serves its API). A code converts once, only after its app was created, as on GitHub.
//!
//! The manifest is checked as GitHub's documentation describes it: a JSON object of the
//! documented keys only, with `url` (and `hook_attributes.url` when there is a hook) an
//! http(s) URL, at most 10 `callback_urls`, `read`/`write` permissions and known events.

use std::sync::Arc;

use axum::Form;
use axum::Router;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path as UrlPath, Query, State as Fake};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Answer, ApiError, Shared, reply};

/// One manifest posted to the stand-in page, and what became of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Registration {
    /// The organization whose page it was posted to; `None` for the signed-in user's.
    pub org: Option<String>,
    pub manifest: Value,
    /// The `state` that came with it (query string, else form field).
    pub state: Option<String>,
    /// The code the redirect carries; issued when "Create GitHub App" is pressed.
    pub code: Option<String>,
    /// Times the code was exchanged (GitHub allows one).
    pub conversions: u32,
    pub client_id: String,
    pub client_secret: String,
    pub webhook_secret: String,
}

const MANIFEST_KEYS: [&str; 12] = [
    "name",
    "url",
    "hook_attributes",
    "redirect_url",
    "callback_urls",
    "setup_url",
    "description",
    "public",
    "default_events",
    "default_permissions",
    "request_oauth_on_install",
    "setup_on_update",
];
/// Events a GitHub App can subscribe to that this fake knows of.
const EVENTS: [&str; 12] = [
    "check_run",
    "check_suite",
    "issue_comment",
    "issues",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "push",
    "release",
    "repository",
    "status",
    "workflow_run",
];

/// Pages of github.com (the new-app page, its stand-in's button, what a browser asks for
/// beside them), not of the REST API.
pub(super) fn is_web_page(path: &str) -> bool {
    path == "/favicon.ico"
        || path == "/settings/apps/new"
        || path.starts_with("/fake/registrations/")
        || (path.starts_with("/organizations/") && path.ends_with("/settings/apps/new"))
}

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/settings/apps/new", post(new_app_page))
        .route(
            "/organizations/{org}/settings/apps/new",
            post(new_org_app_page),
        )
        .route("/fake/registrations/{index}/create", post(create))
        .route("/app-manifests/{code}/conversions", post(convert))
        .route("/api/v3/app-manifests/{code}/conversions", post(convert))
}

fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title></head><body>{body}</body></html>",
        html_escape::encode_text(title)
    );
    (status, Html(page)).into_response()
}

fn refused(message: &str) -> Response {
    html(
        StatusCode::UNPROCESSABLE_ENTITY,
        "Invalid GitHub App configuration",
        &format!("<p id=\"error\">{}</p>", html_escape::encode_text(message)),
    )
}

fn http_url(value: &Value) -> bool {
    value
        .as_str()
        .and_then(|s| reqwest::Url::parse(s).ok())
        .is_some_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
}

/// The manifest's problems, as GitHub's registration page would name them.
fn check_manifest(manifest: &Value) -> Result<(), String> {
    let fields = manifest
        .as_object()
        .ok_or("the manifest is not a JSON object")?;
    if let Some(key) = fields.keys().find(|k| !MANIFEST_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown manifest key {key:?}"));
    }
    if !http_url(&manifest["url"]) {
        return Err("url is required and must be an http(s) URL".into());
    }
    if let Some(hook) = fields.get("hook_attributes") {
        if !http_url(&hook["url"]) {
            return Err("hook_attributes.url must be an http(s) URL".into());
        }
        if let Some(key) = hook
            .as_object()
            .into_iter()
            .flat_map(|h| h.keys())
            .find(|k| *k != "url" && *k != "active")
        {
            return Err(format!("unknown hook_attributes key {key:?}"));
        }
    }
    if !http_url(&manifest["redirect_url"]) {
        return Err("redirect_url must be an http(s) URL (this stand-in redirects there)".into());
    }
    if let Some(urls) = fields.get("callback_urls") {
        let urls = urls.as_array().ok_or("callback_urls must be an array")?;
        if urls.len() > 10 || !urls.iter().all(http_url) {
            return Err("callback_urls: at most 10 http(s) URLs".into());
        }
    }
    for (permission, level) in fields
        .get("default_permissions")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if !matches!(level.as_str(), Some("read" | "write")) {
            return Err(format!("default_permissions.{permission}: {level}"));
        }
    }
    for event in fields
        .get("default_events")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if !event.as_str().is_some_and(|e| EVENTS.contains(&e)) {
            return Err(format!("default_events: unknown event {event}"));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct StateQuery {
    state: Option<String>,
}

#[derive(Deserialize)]
struct ManifestForm {
    manifest: Option<String>,
    state: Option<String>,
}

type PostedForm = Result<Form<ManifestForm>, FormRejection>;

async fn new_app_page(
    fake: Fake<Arc<Shared>>,
    query: Query<StateQuery>,
    form: PostedForm,
) -> Response {
    new_app(fake, None, query, form)
}

async fn new_org_app_page(
    fake: Fake<Arc<Shared>>,
    UrlPath(org): UrlPath<String>,
    query: Query<StateQuery>,
    form: PostedForm,
) -> Response {
    new_app(fake, Some(org), query, form)
}

/// The page GitHub shows for a posted manifest: the app's name and one button.
fn new_app(
    Fake(fake): Fake<Arc<Shared>>,
    org: Option<String>,
    Query(query): Query<StateQuery>,
    form: PostedForm,
) -> Response {
    let Ok(Form(form)) = form else {
        return refused("the form is not application/x-www-form-urlencoded");
    };
    let manifest = form.manifest.as_deref().map(serde_json::from_str::<Value>);
    let Some(Ok(manifest)) = manifest else {
        return refused("the manifest field is missing or not JSON");
    };
    if let Err(problem) = check_manifest(&manifest) {
        return refused(&problem);
    }
    let name = manifest["name"].as_str().unwrap_or("").to_owned();
    let owner = org.clone().unwrap_or_else(|| "octocat".into());
    let mut inner = fake.lock();
    let index = inner.state.registrations.len();
    inner.state.registrations.push(Registration {
        org,
        manifest,
        state: query.state.or(form.state),
        code: None,
        conversions: 0,
        client_id: format!("Iv23li{}", uuid::Uuid::new_v4().simple()),
        client_secret: uuid::Uuid::new_v4().simple().to_string(),
        webhook_secret: format!("whsec{}", uuid::Uuid::new_v4().simple()),
    });
    html(
        StatusCode::OK,
        "Create GitHub App",
        &format!(
            "<h1>Create GitHub App {} for {}</h1>\
             <form method=\"post\" action=\"/fake/registrations/{index}/create\">\
             <button id=\"create\" type=\"submit\">Create GitHub App</button></form>",
            html_escape::encode_text(&name),
            html_escape::encode_text(&owner),
        ),
    )
}

/// "Create GitHub App": issues the code and sends the browser to `redirect_url`.
async fn create(Fake(fake): Fake<Arc<Shared>>, UrlPath(index): UrlPath<usize>) -> Response {
    let mut inner = fake.lock();
    let Some(registration) = inner.state.registrations.get_mut(index) else {
        return html(StatusCode::NOT_FOUND, "Not Found", "no such registration");
    };
    if registration.code.is_some() {
        return refused("this app was already created");
    }
    let code = uuid::Uuid::new_v4().simple().to_string();
    registration.code = Some(code.clone());
    let mut target = reqwest::Url::parse(
        registration.manifest["redirect_url"]
            .as_str()
            .unwrap_or_default(),
    )
    .expect("checked when posted");
    target.query_pairs_mut().append_pair("code", &code);
    if let Some(state) = &registration.state {
        target.query_pairs_mut().append_pair("state", state);
    }
    (StatusCode::FOUND, [(header::LOCATION, target.to_string())]).into_response()
}

/// `POST /app-manifests/{code}/conversions`: the app and its credentials, once per code.
async fn convert(Fake(fake): Fake<Arc<Shared>>, UrlPath(code): UrlPath<String>) -> Answer {
    let mut app = fake.app_json();
    let mut inner = fake.lock();
    let pem = inner.manifest_key.clone().ok_or_else(|| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "fake: call FakeGitHub::accept_manifests first",
        )
    })?;
    let registration = inner
        .state
        .registrations
        .iter_mut()
        .find(|r| r.code.as_deref() == Some(code.as_str()) && r.conversions == 0)
        .ok_or_else(ApiError::not_found)?;
    registration.conversions += 1;
    let manifest = &registration.manifest;
    let (owner, kind) = match &registration.org {
        Some(org) => (org.as_str(), "Organization"),
        None => ("octocat", "User"),
    };
    app["owner"] = fake.user(owner, kind);
    if let Some(name) = manifest["name"].as_str() {
        app["name"] = json!(name);
    }
    app["description"] = manifest["description"].clone();
    app["external_url"] = manifest["url"].clone();
    app["permissions"] = manifest["default_permissions"].clone();
    app["events"] = manifest["default_events"].clone();
    app["client_id"] = json!(registration.client_id);
    app["client_secret"] = json!(registration.client_secret);
    app["webhook_secret"] = json!(registration.webhook_secret);
    app["pem"] = json!(pem);
    reply(StatusCode::CREATED, app)
}
