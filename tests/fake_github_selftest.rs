//! Tests of the GitHub fake itself: authentication, validation and state, over plain HTTP, and
//! that octocrab (as production code uses it) understands its answers and the webhook payloads.

mod support;

use std::path::{Path, PathBuf};

use base64::Engine;
use octocrab::jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use octocrab::models::{AppId, InstallationId};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use support::fake_github::{AuthKind, FakeGitHub};
use support::payloads;

const APP_ID: u64 = 4242;
const INSTALLATION: u64 = 77;
const REPO: &str = "acme/shop";

fn support_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(name)
}

fn private_key() -> EncodingKey {
    EncodingKey::from_rsa_pem(&std::fs::read(support_file("app-key.pem")).unwrap()).unwrap()
}

fn jwt(app_id: u64, key: &EncodingKey) -> String {
    octocrab::auth::create_jwt(AppId(app_id), key).unwrap()
}

/// A small Maven project, with a build output directory the fake must leave out.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "pom.xml",
        &format!("<project>{}</project>\n", "x".repeat(200)),
    );
    write("src/main/java/App.java", "class App {}\n");
    write("target/classes/App.class", "compiled");
    write("mvnw", "#!/bin/sh\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mvnw = dir.path().join("mvnw");
        std::fs::set_permissions(mvnw, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// A fake with installation 77 of `acme`, which holds `acme/shop` and `acme/other`, and a
/// second installation 88 of `globex` holding `globex/site`.
async fn fake() -> (FakeGitHub, tempfile::TempDir) {
    let public_key = std::fs::read(support_file("app-key.pub.pem")).unwrap();
    let fake = FakeGitHub::start(APP_ID, "uplift", &public_key).await;
    let source = project();
    fake.add_installation(INSTALLATION, "acme");
    fake.add_installation(88, "globex");
    fake.add_repo(INSTALLATION, REPO, source.path());
    fake.add_repo(INSTALLATION, "acme/other", source.path());
    fake.add_repo(88, "globex/site", source.path());
    (fake, source)
}

async fn token_for(fake: &FakeGitHub, installation: u64, body: Value) -> reqwest::Response {
    Client::new()
        .post(format!(
            "{}/app/installations/{installation}/access_tokens",
            fake.url
        ))
        .bearer_auth(jwt(APP_ID, &private_key()))
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn token(fake: &FakeGitHub) -> String {
    let response = token_for(fake, INSTALLATION, json!({})).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

async fn call(
    fake: &FakeGitHub,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = Client::new()
        .request(method, format!("{}{path}", fake.url))
        .header("authorization", format!("Bearer {token}"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn get(fake: &FakeGitHub, token: &str, path: &str) -> (StatusCode, Value) {
    call(fake, token, reqwest::Method::GET, path, None).await
}

async fn post(fake: &FakeGitHub, token: &str, path: &str, body: Value) -> (StatusCode, Value) {
    call(fake, token, reqwest::Method::POST, path, Some(body)).await
}

async fn patch(fake: &FakeGitHub, token: &str, path: &str, body: Value) -> (StatusCode, Value) {
    call(fake, token, reqwest::Method::PATCH, path, Some(body)).await
}

#[tokio::test]
async fn app_jwt_is_verified_like_github() {
    let (fake, _source) = fake().await;

    let response = token_for(&fake, INSTALLATION, json!({})).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert!(body["token"].as_str().unwrap().starts_with("ghs_"));
    assert_eq!(body["repository_selection"], "all");
    let expires =
        chrono::DateTime::parse_from_rfc3339(body["expires_at"].as_str().unwrap()).unwrap();
    let minutes = (expires.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_minutes();
    assert!((58..=60).contains(&minutes), "expires in {minutes} min");

    let keys = tempfile::tempdir().unwrap();
    let other = keys.path().join("other.pem");
    let status = std::process::Command::new("openssl")
        .args(["genrsa", "-out"])
        .arg(&other)
        .arg("2048")
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    let other_key = EncodingKey::from_rsa_pem(&std::fs::read(&other).unwrap()).unwrap();
    let now = chrono::Utc::now().timestamp();
    let signed = |claims: Value, key: &EncodingKey| {
        encode(&Header::new(Algorithm::RS256), &claims, key).unwrap()
    };
    let refused = [
        jwt(APP_ID, &other_key),
        jwt(APP_ID + 1, &private_key()),
        signed(
            json!({"iss": APP_ID, "iat": now - 30, "exp": now + 900}),
            &private_key(),
        ),
        signed(
            json!({"iss": APP_ID, "iat": now - 700, "exp": now - 100}),
            &private_key(),
        ),
        signed(
            json!({"iss": APP_ID, "iat": now + 300, "exp": now + 600}),
            &private_key(),
        ),
        "not.a.jwt".to_owned(),
    ];
    for jwt in refused {
        let response = Client::new()
            .post(format!(
                "{}/app/installations/{INSTALLATION}/access_tokens",
                fake.url
            ))
            .bearer_auth(&jwt)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{jwt}");
        let body: Value = response.json().await.unwrap();
        assert!(body["message"].is_string());
    }
    let body: Value = Client::new()
        .post(format!(
            "{}/app/installations/{INSTALLATION}/access_tokens",
            fake.url
        ))
        .bearer_auth(jwt(APP_ID, &other_key))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(body["message"], "A JSON web token could not be decoded");

    let string_issuer = signed(
        json!({"iss": APP_ID.to_string(), "iat": now - 60, "exp": now + 540}),
        &private_key(),
    );
    let response = Client::new()
        .get(format!("{}/app", fake.url))
        .bearer_auth(string_issuer)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let app: Value = response.json().await.unwrap();
    assert_eq!(app["slug"], "uplift");

    assert_eq!(
        token_for(&fake, 999, json!({})).await.status(),
        StatusCode::NOT_FOUND
    );
    let state = fake.state();
    assert_eq!(state.tokens.len(), 1);
    assert_eq!(
        state
            .requests
            .iter()
            .filter(|r| r.auth == AuthKind::Invalid)
            .count(),
        7
    );
}

#[tokio::test]
async fn installation_tokens_are_scoped() {
    let (fake, _source) = fake().await;
    let response = token_for(&fake, INSTALLATION, json!({"repositories": ["shop"]})).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["repository_selection"], "selected");
    assert_eq!(body["repositories"][0]["full_name"], REPO);
    let scoped = body["token"].as_str().unwrap().to_owned();

    let (status, repo) = get(&fake, &scoped, "/repos/acme/shop").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(repo["default_branch"], "main");
    assert_eq!(repo["owner"]["login"], "acme");
    assert_eq!(repo["id"], payloads::repo_id(REPO));
    let clone_url = repo["clone_url"].as_str().unwrap();
    assert!(clone_url.starts_with("file:///") && clone_url.ends_with("shop.git"));

    assert_eq!(
        get(&fake, &scoped, "/repos/acme/other").await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&fake, &scoped, "/repos/globex/site").await.0,
        StatusCode::NOT_FOUND
    );
    let (status, body) = get(&fake, "ghs_forged", "/repos/acme/shop").await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("Bad credentials"))
    );
    let bare = Client::new()
        .get(format!("{}/repos/acme/shop", fake.url))
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), StatusCode::UNAUTHORIZED);

    let all = token(&fake).await;
    let with_token_scheme = Client::new()
        .get(format!("{}/repos/acme/other", fake.url))
        .header("authorization", format!("token {all}"))
        .send()
        .await
        .unwrap();
    assert_eq!(with_token_scheme.status(), StatusCode::OK);
    let repo_id = payloads::repo_id("acme/other");
    let by_id = token_for(&fake, INSTALLATION, json!({"repository_ids": [repo_id]})).await;
    assert_eq!(by_id.status(), StatusCode::CREATED);
    for outside in [
        json!({"repositories": ["site"]}),
        json!({"repository_ids": [1]}),
    ] {
        assert_eq!(
            token_for(&fake, INSTALLATION, outside).await.status(),
            StatusCode::UNPROCESSABLE_ENTITY
        );
    }

    fake.expire_tokens();
    assert_eq!(
        get(&fake, &all, "/repos/acme/shop").await.0,
        StatusCode::UNAUTHORIZED
    );
    let state = fake.state();
    assert_eq!(state.tokens[0].repositories, Some(vec![REPO.to_owned()]));
    assert_eq!(state.tokens[1].repositories, None);
    let first = &state
        .requests
        .iter()
        .find(|r| r.path == "/repos/acme/shop")
        .unwrap();
    assert_eq!(
        (first.status, &first.auth),
        (200, &AuthKind::Installation(INSTALLATION))
    );
}

#[tokio::test]
async fn collaborator_permissions_map_roles() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    for (role, permission) in [
        ("admin", "admin"),
        ("maintain", "write"),
        ("write", "write"),
        ("triage", "read"),
        ("read", "read"),
    ] {
        fake.set_permission(REPO, role, role);
        let (status, body) = get(
            &fake,
            &token,
            &format!("/repos/acme/shop/collaborators/{role}/permission"),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            (body["permission"].as_str(), body["role_name"].as_str()),
            (Some(permission), Some(role))
        );
        assert_eq!(body["user"]["login"], role);
    }
    let (_, body) = get(
        &fake,
        &token,
        "/repos/acme/shop/collaborators/stranger/permission",
    )
    .await;
    assert_eq!(
        (body["permission"].as_str(), body["role_name"].as_str()),
        (Some("none"), Some("none"))
    );
    assert_eq!(body["user"]["permissions"]["pull"], false);
}

#[tokio::test]
async fn contents_come_from_the_bare_repository() {
    let (fake, source) = fake().await;
    let token = token(&fake).await;
    let (status, file) = get(&fake, &token, "/repos/acme/shop/contents/pom.xml").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (file["type"].as_str(), file["encoding"].as_str()),
        (Some("file"), Some("base64"))
    );
    let content = file["content"].as_str().unwrap();
    assert!(content.lines().count() > 1 && content.lines().all(|l| l.len() <= 60));
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(content.replace('\n', ""))
        .unwrap();
    assert_eq!(
        decoded,
        std::fs::read(source.path().join("pom.xml")).unwrap()
    );
    assert_eq!(file["size"], decoded.len());
    assert_eq!(file["sha"].as_str().unwrap().len(), 40);

    let (status, nested) = get(
        &fake,
        &token,
        "/repos/acme/shop/contents/src/main/java/App.java?ref=main",
    )
    .await;
    assert_eq!(
        (status, nested["name"].as_str()),
        (StatusCode::OK, Some("App.java"))
    );
    let (status, listing) = get(&fake, &token, "/repos/acme/shop/contents/src").await;
    assert_eq!(
        (status, listing[0]["type"].as_str()),
        (StatusCode::OK, Some("dir"))
    );
    for missing in [
        "/contents/target/classes/App.class",
        "/contents/nope.txt",
        "/contents/pom.xml?ref=nope",
    ] {
        assert_eq!(
            get(&fake, &token, &format!("/repos/acme/shop{missing}"))
                .await
                .0,
            StatusCode::NOT_FOUND,
            "{missing}"
        );
    }

    let bare = git2::Repository::open_bare(&fake.state().repos[0].bare_path).unwrap();
    let tree = bare.head().unwrap().peel_to_tree().unwrap();
    assert_eq!(tree.get_name("mvnw").unwrap().filemode(), 0o100755);
    assert!(tree.get_name("target").is_none());
}

#[tokio::test]
async fn comments_reactions_and_pagination() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    fake.add_issue(REPO, 1, "Migrate to Java 17");
    fake.set_permission(REPO, "alice", "write");
    let human = fake.add_comment(REPO, 1, "alice", "/uplift migrate");

    let path = "/repos/acme/shop/issues/1/comments";
    let (status, made) = post(&fake, &token, path, json!({"body": "a".repeat(65536)})).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        (
            made["user"]["login"].as_str(),
            made["user"]["type"].as_str()
        ),
        (Some("uplift[bot]"), Some("Bot"))
    );
    let (status, error) = post(&fake, &token, path, json!({"body": "é".repeat(65537)})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error["message"], "Validation Failed");
    assert_eq!(
        post(
            &fake,
            &token,
            "/repos/acme/shop/issues/9/comments",
            json!({"body": "hi"})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );

    let id = made["id"].as_u64().unwrap();
    let edit = format!("/repos/acme/shop/issues/comments/{id}");
    assert_eq!(
        patch(&fake, &token, &edit, json!({"body": "b".repeat(65537)}))
            .await
            .0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let (status, edited) = patch(&fake, &token, &edit, json!({"body": "done"})).await;
    assert_eq!(
        (status, edited["body"].as_str()),
        (StatusCode::OK, Some("done"))
    );

    let react = format!("/repos/acme/shop/issues/comments/{human}/reactions");
    let (first_status, first) = post(&fake, &token, &react, json!({"content": "eyes"})).await;
    let (again_status, again) = post(&fake, &token, &react, json!({"content": "eyes"})).await;
    assert_eq!(
        (first_status, again_status),
        (StatusCode::CREATED, StatusCode::OK)
    );
    assert_eq!(first["id"], again["id"]);
    assert_eq!(first["user"]["login"], "uplift[bot]");
    assert_eq!(
        post(&fake, &token, &react, json!({"content": "thumbsup"}))
            .await
            .0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    refused_by_description(&fake, Some(r#""thumbsup" is not one of"#));
    assert_eq!(
        post(
            &fake,
            &token,
            "/repos/acme/shop/issues/comments/5/reactions",
            json!({"content": "eyes"})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );

    for n in 0..3 {
        post(&fake, &token, path, json!({"body": format!("note {n}")})).await;
    }
    let response = Client::new()
        .get(format!("{}{path}?per_page=2&page=2", fake.url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let link = response.headers()["link"].to_str().unwrap().to_owned();
    assert!(
        link.contains(&format!(
            "<{}{path}?per_page=2&page=3>; rel=\"next\"",
            fake.url
        )),
        "{link}"
    );
    let page: Vec<Value> = response.json().await.unwrap();
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["body"], "note 0");

    let state = fake.state();
    let comments = state.comments_on(REPO, 1);
    assert_eq!(comments.len(), 5);
    assert_eq!(
        (
            comments[0].user_type.as_str(),
            comments[0].author_association.as_str()
        ),
        ("User", "COLLABORATOR")
    );
    assert_eq!((comments[1].edits, comments[1].body.as_str()), (1, "done"));
    assert_eq!(state.reactions.len(), 1);
}

/// Clones `repo` from its `file://` URL, commits a change on `branch` and pushes it.
fn push_branch(clone_url: &str, branch: &str) -> String {
    let work = tempfile::tempdir().unwrap();
    let git = git2::Repository::clone(clone_url, work.path()).unwrap();
    std::fs::write(work.path().join("pom.xml"), "<project>17</project>\n").unwrap();
    let mut index = git.index().unwrap();
    index.add_path(Path::new("pom.xml")).unwrap();
    let tree = git.find_tree(index.write_tree().unwrap()).unwrap();
    let parent = git.head().unwrap().peel_to_commit().unwrap();
    let sig = git2::Signature::now("Test", "test@example.invalid").unwrap();
    let commit = git
        .commit(
            Some(&format!("refs/heads/{branch}")),
            &sig,
            &sig,
            "Java 17",
            &tree,
            &[&parent],
        )
        .unwrap();
    git.find_remote("origin")
        .unwrap()
        .push(&[format!("refs/heads/{branch}:refs/heads/{branch}")], None)
        .unwrap();
    commit.to_string()
}

#[tokio::test]
async fn pull_requests_follow_pushed_branches() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    fake.add_issue(REPO, 1, "Existing issue");
    let (_, repo) = get(&fake, &token, "/repos/acme/shop").await;
    let pushed = push_branch(repo["clone_url"].as_str().unwrap(), "uplift/java17");
    assert_eq!(fake.branch_sha(REPO, "uplift/java17"), Some(pushed.clone()));

    let create = |head: &str, body: &str| json!({"title": "Java 17", "head": head, "base": "main", "body": body});
    let (status, pr) = post(
        &fake,
        &token,
        "/repos/acme/shop/pulls",
        create("uplift/java17", "Plan"),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{pr}");
    assert_eq!(pr["number"], 2);
    assert_eq!(
        (pr["head"]["sha"].as_str(), pr["head"]["label"].as_str()),
        (Some(pushed.as_str()), Some("acme:uplift/java17"))
    );
    assert_eq!(
        (
            pr["state"].as_str(),
            pr["merged"].as_bool(),
            pr["user"]["login"].as_str()
        ),
        (Some("open"), Some(false), Some("uplift[bot]"))
    );

    let (status, error) = post(
        &fake,
        &token,
        "/repos/acme/shop/pulls",
        create("acme:uplift/java17", "Plan"),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error["errors"][0]["message"],
        "A pull request already exists for acme:uplift/java17."
    );
    let (status, error) = post(&fake, &token, "/repos/acme/shop/pulls", create("main", "")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error["errors"][0]["message"],
        "No commits between main and main"
    );
    assert_eq!(
        post(&fake, &token, "/repos/acme/shop/pulls", create("nope", ""))
            .await
            .0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    push_branch(repo["clone_url"].as_str().unwrap(), "other");
    assert_eq!(
        post(
            &fake,
            &token,
            "/repos/acme/shop/pulls",
            create("other", &"x".repeat(65537))
        )
        .await
        .0,
        StatusCode::UNPROCESSABLE_ENTITY
    );

    assert_eq!(
        post(
            &fake,
            &token,
            "/repos/acme/shop/issues/2/comments",
            json!({"body": "on the PR"})
        )
        .await
        .0,
        StatusCode::CREATED
    );
    let (_, listed) = get(
        &fake,
        &token,
        "/repos/acme/shop/pulls?head=acme:uplift/java17&state=all",
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let (status, closed) = patch(
        &fake,
        &token,
        "/repos/acme/shop/pulls/2",
        json!({"state": "closed", "body": "Gone"}),
    )
    .await;
    assert_eq!(
        (status, closed["state"].as_str(), closed["body"].as_str()),
        (StatusCode::OK, Some("closed"), Some("Gone"))
    );
    let (_, open) = get(&fake, &token, "/repos/acme/shop/pulls").await;
    assert_eq!(open.as_array().unwrap().len(), 0);

    let state = fake.state();
    let pr = state.pull(REPO, 2).unwrap();
    assert_eq!(
        (
            pr.head_ref.as_str(),
            pr.base_ref.as_str(),
            pr.created_with_token.as_str()
        ),
        ("uplift/java17", "main", token.as_str())
    );
    assert!(
        state
            .issues
            .iter()
            .any(|i| i.number == 2 && i.is_pull_request)
    );
}

/// As on GitHub: a closed pull request no longer follows its branch, and it reopens only
/// while its branch exists and still holds the commit it was closed with (a force-push while
/// closed seals it), and only when no other open one has the same head and base.
#[tokio::test]
async fn a_closed_pull_request_reopens_as_on_github() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    fake.add_issue(REPO, 1, "Existing issue");
    let (_, repo) = get(&fake, &token, "/repos/acme/shop").await;
    let closed_at = push_branch(repo["clone_url"].as_str().unwrap(), "uplift/java17");
    let create = json!({"title": "Java 17", "head": "uplift/java17", "base": "main"});
    let (status, _) = post(&fake, &token, "/repos/acme/shop/pulls", create.clone()).await;
    assert_eq!(status, StatusCode::CREATED);
    let pull = "/repos/acme/shop/pulls/2";
    let (status, _) = patch(&fake, &token, pull, json!({"state": "closed"})).await;
    assert_eq!(status, StatusCode::OK);

    let bare = fake
        .state()
        .repos
        .iter()
        .find(|r| r.full_name == REPO)
        .unwrap()
        .bare_path
        .clone();
    let git = git2::Repository::open_bare(&bare).unwrap();
    let main = git.refname_to_id("refs/heads/main").unwrap();
    let closed = git2::Oid::from_str(&closed_at).unwrap();
    let move_branch = |to: git2::Oid| {
        git.reference("refs/heads/uplift/java17", to, true, "test")
            .unwrap();
    };
    let reopen = || patch(&fake, &token, pull, json!({"state": "open"}));
    let message = |error: &Value| error["errors"][0]["message"].as_str().unwrap().to_owned();

    // Recreated at main while closed (a force-push): sealed; the response keeps the old head.
    move_branch(main);
    let (_, shown) = get(&fake, &token, pull).await;
    assert_eq!(shown["head"]["sha"].as_str(), Some(closed_at.as_str()));
    let (status, error) = reopen().await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        message(&error),
        "state cannot be changed. The uplift/java17 branch was force-pushed or recreated."
    );
    git.find_reference("refs/heads/uplift/java17")
        .unwrap()
        .delete()
        .unwrap();
    let (status, error) = reopen().await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        message(&error),
        "state cannot be changed. The uplift/java17 branch has been deleted."
    );

    // Back at the commit it was closed with: another open PR from the branch blocks it.
    move_branch(closed);
    let (status, _) = post(&fake, &token, "/repos/acme/shop/pulls", create).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, error) = reopen().await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        message(&error),
        "A pull request already exists for acme:uplift/java17."
    );
    let (status, _) = patch(
        &fake,
        &token,
        "/repos/acme/shop/pulls/3",
        json!({"state": "closed"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, reopened) = reopen().await;
    assert_eq!(status, StatusCode::OK, "{reopened}");
    assert_eq!(reopened["state"].as_str(), Some("open"));
    assert_eq!(reopened["head"]["sha"].as_str(), Some(closed_at.as_str()));
}

#[tokio::test]
async fn check_runs_validate_and_record_transitions() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    let sha = fake.branch_sha(REPO, "main").unwrap();
    let runs = "/repos/acme/shop/check-runs";
    let annotation = |line: u64| json!({"path": "pom.xml", "start_line": line, "end_line": line, "annotation_level": "warning", "message": "m"});
    let output = |count: u64| json!({"title": "T", "summary": "S", "annotations": (1..=count).map(annotation).collect::<Vec<_>>()});

    // Each with what GitHub's OpenAPI description says of it (None: only GitHub's checks
    // beyond the schema refuse it, as the fake does).
    let refused = [
        (
            json!({"name": "uplift", "head_sha": sha, "status": "completed"}),
            None,
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "status": "done"}),
            Some(r#""done" is not one of"#),
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "conclusion": "great"}),
            Some(r#""great" is not one of"#),
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "conclusion": "action_required"}),
            None,
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "output": output(51)}),
            Some("has more than 50 items"),
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "output": {"title": "T"}}),
            Some(r#""summary" is a required property"#),
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "output": {"title": "T", "summary": "s".repeat(65536)}}),
            Some("is longer than 65535 characters"),
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "output": {"title": "T", "summary": "S", "annotations": [{"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "error", "message": "m"}]}}),
            Some(r#""error" is not one of"#),
        ),
        (json!({"name": "uplift", "head_sha": "0".repeat(40)}), None),
        (
            json!({"name": "uplift", "head_sha": sha, "actions": [{"label": "a very long label here", "description": "d", "identifier": "i"}]}),
            Some("is longer than 20 characters"),
        ),
        (
            json!({"name": "uplift", "head_sha": sha, "actions": (0..4).map(|i| json!({"label": "l", "description": "d", "identifier": format!("i{i}")})).collect::<Vec<_>>()}),
            Some("has more than 3 items"),
        ),
    ];
    for (body, description_says) in refused {
        let (status, error) = post(&fake, &token, runs, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(error["message"].is_string());
        refused_by_description(&fake, description_says);
    }
    let (_, error) = post(
        &fake,
        &token,
        runs,
        json!({"name": "uplift", "head_sha": "0".repeat(40)}),
    )
    .await;
    assert_eq!(
        error["message"],
        format!("No commit found for SHA: {}", "0".repeat(40))
    );

    let (status, run) = post(
        &fake,
        &token,
        runs,
        json!({"name": "uplift", "head_sha": sha, "external_id": "run-1", "output": output(50)}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        (run["status"].as_str(), run["conclusion"].as_str()),
        (Some("queued"), None)
    );
    assert_eq!(run["output"]["annotations_count"], 50);
    assert_eq!(run["app"]["slug"], "uplift");
    let id = run["id"].as_u64().unwrap();
    let one = format!("{runs}/{id}");

    assert_eq!(
        patch(&fake, &token, &one, json!({"status": "completed"}))
            .await
            .0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    refused_by_description(&fake, Some("is not valid under any of the schemas"));
    let (status, run) = patch(
        &fake,
        &token,
        &one,
        json!({"status": "in_progress", "output": output(2)}),
    )
    .await;
    assert_eq!(
        (status, run["status"].as_str()),
        (StatusCode::OK, Some("in_progress"))
    );
    let actions = json!([{"label": "Open PR", "description": "Open the pull request", "identifier": "open_pr"}]);
    let (status, run) = patch(&fake, &token, &one, json!({"conclusion": "success", "actions": actions, "output": {"title": "Done", "summary": "All good", "text": "details"}})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (run["status"].as_str(), run["conclusion"].as_str()),
        (Some("completed"), Some("success"))
    );
    assert!(run["completed_at"].is_string());
    assert_eq!(run["output"]["annotations_count"], 52);
    let (status, fetched) = get(&fake, &token, &one).await;
    assert_eq!(
        (status, fetched["output"]["title"].as_str()),
        (StatusCode::OK, Some("Done"))
    );

    let state = fake.state();
    let run = state.check_run(id).unwrap();
    let history: Vec<(&str, Option<&str>)> = run
        .history
        .iter()
        .map(|(s, c)| (s.as_str(), c.as_deref()))
        .collect();
    assert_eq!(
        history,
        [
            ("queued", None),
            ("in_progress", None),
            ("completed", Some("success"))
        ]
    );
    assert_eq!(
        (run.annotations.len(), run.actions[0].identifier.as_str()),
        (52, "open_pr")
    );
    assert_eq!(
        (run.external_id.as_deref(), run.summary.as_deref()),
        (Some("run-1"), Some("All good"))
    );
    assert_eq!(state.check_runs.len(), 1);
}

#[tokio::test]
async fn throttling_answers_secondary_rate_limit() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    fake.throttle_next(2, Some(7));
    assert_eq!(
        token_for(&fake, INSTALLATION, json!({})).await.status(),
        StatusCode::CREATED
    );
    for _ in 0..2 {
        let response = Client::new()
            .get(format!("{}/repos/acme/shop", fake.url))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(response.headers()["retry-after"], "7");
        let body: Value = response.json().await.unwrap();
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("secondary rate limit")
        );
    }
    let response = Client::new()
        .get(format!("{}/repos/acme/shop", fake.url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers();
    assert_eq!(headers["x-ratelimit-limit"], "5000");
    assert_eq!(headers["x-ratelimit-remaining"], "4997");
    assert_eq!(headers["x-ratelimit-used"], "3");
    assert!(
        headers.contains_key("x-ratelimit-reset") && headers.contains_key("x-github-request-id")
    );
    assert_eq!(fake.state().rate_limited, 2);
}

/// octocrab, configured as production code configures it, understands every answer.
#[tokio::test]
async fn octocrab_understands_the_fake() {
    use octocrab::models::reactions::ReactionContent;
    use octocrab::params::checks::{CheckRunConclusion, CheckRunOutput, CheckRunStatus};

    let (fake, _source) = fake().await;
    fake.add_issue(REPO, 1, "Migrate");
    fake.set_permission(REPO, "alice", "admin");
    let app = octocrab::Octocrab::builder()
        .base_uri(fake.url.as_str())
        .unwrap()
        .app(AppId(APP_ID), private_key())
        .build()
        .unwrap();
    assert_eq!(
        app.current().app().await.unwrap().slug.as_deref(),
        Some("uplift")
    );
    let (crab, token) = app
        .installation_and_token(InstallationId(INSTALLATION))
        .await
        .unwrap();
    assert!(secrecy_text(&token).starts_with("ghs_"));

    let repo = crab.repos("acme", "shop").get().await.unwrap();
    assert_eq!(repo.default_branch.as_deref(), Some("main"));
    let mut content = crab
        .repos("acme", "shop")
        .get_content()
        .path("pom.xml")
        .r#ref("main")
        .send()
        .await
        .unwrap();
    assert!(
        content.take_items()[0]
            .decoded_content()
            .unwrap()
            .starts_with("<project>")
    );
    let permission: Value = crab
        .get(
            "/repos/acme/shop/collaborators/alice/permission",
            None::<&()>,
        )
        .await
        .unwrap();
    assert_eq!(permission["permission"], "admin");

    let issues = crab.issues("acme", "shop");
    for n in 0..3 {
        issues
            .create_comment(1, format!("comment {n}"))
            .await
            .unwrap();
    }
    let first = issues.list_comments(1).per_page(2).send().await.unwrap();
    // An absolute link, as GitHub sends: octocrab would follow it without credentials to any
    // host but api.github.com, so it is followed here as Uplift pages, with the token.
    let next = first.next.as_ref().expect("a second page").to_string();
    assert!(next.starts_with(&fake.url), "{next}");
    let rest: Vec<octocrab::models::issues::Comment> = Client::new()
        .get(&next)
        .bearer_auth(secrecy_text(&token))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let all: Vec<_> = first.items.into_iter().chain(rest).collect();
    assert_eq!(all.len(), 3);
    let updated: octocrab::models::issues::Comment = crab
        .patch(
            format!("/repos/acme/shop/issues/comments/{}", all[0].id),
            Some(&json!({ "body": "edited" })),
        )
        .await
        .unwrap();
    assert_eq!(updated.body.as_deref(), Some("edited"));
    issues
        .create_comment_reaction(all[0].id, ReactionContent::Rocket)
        .await
        .unwrap();

    let (_, api_repo) = get(&fake, secrecy_text(&token), "/repos/acme/shop").await;
    push_branch(api_repo["clone_url"].as_str().unwrap(), "uplift/java17");
    let pr = crab
        .pulls("acme", "shop")
        .create("Java 17", "uplift/java17", "main")
        .body("Plan")
        .send()
        .await
        .unwrap();
    assert_eq!(pr.number, 2);
    let listed = crab
        .pulls("acme", "shop")
        .list()
        .head("acme:uplift/java17")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.items.len(), 1);
    crab.pulls("acme", "shop")
        .update(2)
        .body("Plan, revised")
        .send()
        .await
        .unwrap();

    let sha = fake.branch_sha(REPO, "main").unwrap();
    let checks = crab.checks("acme", "shop");
    let run = checks
        .create_check_run("uplift", sha)
        .status(CheckRunStatus::InProgress)
        .send()
        .await
        .unwrap();
    let output = CheckRunOutput {
        title: "Done".into(),
        summary: "ok".into(),
        text: None,
        annotations: vec![],
        images: vec![],
    };
    checks
        .update_check_run(run.id)
        .conclusion(CheckRunConclusion::Success)
        .output(output)
        .send()
        .await
        .unwrap();

    let missing = crab
        .get::<Value, _, _>("/repos/acme/shop/branches", None::<&()>)
        .await;
    assert!(missing.is_err());
    let state = fake.state();
    assert_eq!(
        state.check_runs[0].history.last().unwrap().1.as_deref(),
        Some("success")
    );
    let unrouted: Vec<&str> = state.unrouted().iter().map(|r| r.path.as_str()).collect();
    assert_eq!(unrouted, ["/repos/acme/shop/branches"]);
    assert!(state.requests.iter().all(|r| r.auth != AuthKind::Invalid));
}

/// The fake refuses, by GitHub's OpenAPI description, what GitHub would not take: an operation
/// it does not have, a request without a required field, a wrong enum value, a parameter of
/// the wrong type or name.
#[tokio::test]
async fn the_description_refuses_requests_github_would_not_take() {
    let (fake, _source) = fake().await;
    let token = token(&fake).await;
    fake.add_issue(REPO, 1, "Migrate");

    let (status, _) = post(
        &fake,
        &token,
        "/repos/acme/shop/issues/1/migrate",
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    refused_by_description(
        &fake,
        Some("POST /repos/acme/shop/issues/1/migrate: GitHub's REST API has no such operation"),
    );
    // An update is a PATCH: octocrab's `update_comment` POSTs, which GitHub does not describe.
    let (_, comment) = post(
        &fake,
        &token,
        "/repos/acme/shop/issues/1/comments",
        json!({"body": "hi"}),
    )
    .await;
    refused_by_description(&fake, None);
    let edit = format!("/repos/acme/shop/issues/comments/{}", comment["id"]);
    post(&fake, &token, &edit, json!({"body": "edited"})).await;
    refused_by_description(&fake, Some("GitHub's REST API has no such operation"));

    post(
        &fake,
        &token,
        "/repos/acme/shop/pulls",
        json!({"title": "Java 17", "base": "main"}),
    )
    .await;
    refused_by_description(
        &fake,
        Some(
            r#"POST /repos/acme/shop/pulls (pulls/create): request body: "head" is a required property"#,
        ),
    );
    patch(
        &fake,
        &token,
        "/repos/acme/shop/pulls/1",
        json!({"state": "merged"}),
    )
    .await;
    refused_by_description(
        &fake,
        Some(r#""merged" is not one of "open" or "closed" (at `/state`)"#),
    );
    get(&fake, &token, "/repos/acme/shop/check-runs/latest").await;
    refused_by_description(
        &fake,
        Some("parameter `check_run_id`: \"latest\" is not of type \"integer\""),
    );
    get(&fake, &token, "/repos/acme/shop/pulls?colour=red").await;
    refused_by_description(
        &fake,
        Some("query parameter `colour` is not one of the operation's"),
    );
    get(&fake, &token, "/repos/acme/shop/pulls?state=merged").await;
    refused_by_description(&fake, Some("parameter `state`: \"merged\" is not one of"));
    post(
        &fake,
        &token,
        "/repos/acme/shop/check-runs",
        json!({"name": "uplift"}),
    )
    .await;
    refused_by_description(&fake, Some(r#""head_sha" is a required property"#));
}

/// The description refuses answers GitHub would not give: a repository without the fields
/// GitHub always sends, a field of the wrong type, a status the operation never answers with,
/// an error without GitHub's error body. (The fake checks each of its answers this way.)
#[test]
fn the_description_refuses_answers_github_would_not_give() {
    let description = support::openapi::description();
    let request = description.check_request("GET", "/repos/acme/shop", None, b"");
    assert_eq!(
        (request.operation.as_deref(), request.violations.len()),
        (Some("repos/get"), 0)
    );
    let mut repo = payloads::repository("https://api.github.com", "acme/shop", "main");
    repo["network_count"] = json!(0);
    repo["subscribers_count"] = json!(0);
    let answer = |status: u16, body: &Value| {
        let body = if body.is_null() {
            Vec::new()
        } else {
            serde_json::to_vec(body).unwrap()
        };
        description.check_response(&request, status, &body)
    };
    assert_eq!(answer(200, &repo), Vec::<String>::new());

    let mut incomplete = repo.clone();
    incomplete.as_object_mut().unwrap().remove("archive_url");
    assert_eq!(
        answer(200, &incomplete),
        [r#"repos/get answered 200: "archive_url" is a required property (at `/`)"#]
    );
    let mut mistyped = repo.clone();
    mistyped["private"] = json!("no");
    assert_eq!(
        answer(200, &mistyped),
        [r#"repos/get answered 200: "no" is not of type "boolean" (at `/private`)"#]
    );
    let mut visibility = repo.clone();
    visibility["owner"]["type"] = json!(7);
    assert!(answer(200, &visibility)[0].contains("(at `/owner/type`)"));
    assert_eq!(
        answer(202, &repo),
        ["repos/get answered 202: GitHub never answers this operation so"]
    );
    assert_eq!(
        answer(
            404,
            &json!({"message": "Not Found", "documentation_url": "d"})
        ),
        Vec::<String>::new()
    );
    assert!(answer(500, &Value::Null)[0].contains("without GitHub's error body"));
    assert!(answer(404, &json!({"message": 404}))[0].contains(r#"404 is not of type "string""#));
}

/// Without GitHub's descriptions installed, a test fails and says what to run; it never skips.
#[test]
#[should_panic(expected = "run scripts/setup-github-descriptions.sh")]
fn a_missing_description_fails_and_says_what_to_run() {
    let empty = tempfile::tempdir().unwrap();
    support::openapi::installed_package(empty.path(), "openapi");
}

/// Takes what GitHub's OpenAPI description refused of the fake's traffic since the last call:
/// nothing when `says` is None, else at least one refusal that says so.
fn refused_by_description(fake: &FakeGitHub, says: Option<&str>) {
    let refusals = fake.take_violations();
    match says {
        None => assert!(refusals.is_empty(), "{refusals:#?}"),
        Some(says) => assert!(
            refusals.iter().any(|r| r.contains(says)),
            "expected a refusal saying {says:?}, got {refusals:#?}"
        ),
    }
}

fn secrecy_text(token: &octocrab::secrecy::SecretString) -> &str {
    use octocrab::secrecy::ExposeSecret;
    token.expose_secret()
}

/// Every payload builder's output parses as octocrab's webhook event of its kind.
#[test]
fn payloads_parse_as_octocrab_webhook_events() {
    use octocrab::models::webhook_events::{WebhookEvent, WebhookEventPayload as P};

    assert_eq!(
        payloads::sign("It's a Secret to Everybody", b"Hello, World!"),
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    );
    let zero = "0".repeat(40);
    let sha = "a".repeat(40);
    let cases = [
        ("ping", payloads::ping(9)),
        (
            "installation",
            payloads::installation_created(INSTALLATION, "acme", &["shop"]),
        ),
        (
            "installation_repositories",
            payloads::installation_repositories_added(INSTALLATION, "acme", &["other"]),
        ),
        (
            "issue_comment",
            payloads::issue_comment_created(
                INSTALLATION,
                REPO,
                2,
                true,
                5,
                "alice",
                "User",
                "MEMBER",
                "/uplift migrate",
            ),
        ),
        (
            "issue_comment",
            payloads::issue_comment_created(
                INSTALLATION,
                REPO,
                1,
                false,
                6,
                "bot[bot]",
                "Bot",
                "NONE",
                "hi",
            ),
        ),
        (
            "pull_request",
            payloads::pull_request_closed(INSTALLATION, REPO, 2, "uplift/java17", true),
        ),
        (
            "check_run",
            payloads::check_run_action(
                INSTALLATION,
                REPO,
                "uplift",
                "uplift/migration",
                "requested_action",
                11,
                "run-1",
                Some("open_pr"),
                &sha,
            ),
        ),
        (
            "check_run",
            payloads::check_run_action(
                INSTALLATION,
                REPO,
                "uplift",
                "uplift/migration",
                "rerequested",
                11,
                "run-1",
                None,
                &sha,
            ),
        ),
        (
            "push",
            payloads::push(
                INSTALLATION,
                REPO,
                "refs/heads/main",
                &zero,
                &sha,
                &["pom.xml"],
            ),
        ),
    ];
    for (event, payload) in cases {
        let body = serde_json::to_vec(&payload).unwrap();
        let parsed = WebhookEvent::try_from_header_and_body(event, &body)
            .unwrap_or_else(|e| panic!("{event}: {e}"));
        let matches = match &parsed.specific {
            P::Ping(_) => event == "ping",
            P::Installation(_) => event == "installation",
            P::InstallationRepositories(p) => p.repositories_added[0].full_name == "acme/other",
            P::IssueComment(p) => p.issue.pull_request.is_some() == (p.issue.number == 2),
            P::PullRequest(p) => p.pull_request.merged == Some(true),
            P::CheckRun(p) => p.check_run["external_id"] == "run-1",
            P::Push(p) => p.head_commit.as_ref().unwrap().modified == ["pom.xml"],
            _ => false,
        };
        assert!(matches, "{event}: {:?}", parsed.kind);
        if event != "ping" {
            assert_eq!(
                parsed.installation.unwrap().id(),
                InstallationId(INSTALLATION)
            );
        }
        if let Some(repo) = parsed.repository {
            assert_eq!(repo.id.0, payloads::repo_id(REPO));
        }
    }
    let comment = payloads::issue_comment_created(
        INSTALLATION,
        REPO,
        1,
        false,
        6,
        "alice",
        "User",
        "OWNER",
        "x",
    );
    assert!(comment["issue"].get("pull_request").is_none());
    let headers = payloads::delivery_headers("ping", "s", b"{}");
    assert!(headers.contains(&("x-hub-signature-256", payloads::sign("s", b"{}"))));
}
