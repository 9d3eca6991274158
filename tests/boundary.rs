//! The repository boundary end to end: the `uplift` binary (`--no-build`) on a repository
//! that names modules and recipes outside itself, links sources outside, and plants links
//! where an older Uplift put its temporary files. Nothing outside the repository changes,
//! and each refusal is in the journal.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod support;

const JUNIT4_TEST: &str = "package org.evil;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertTrue;\n\npublic class EvilTest {\n    @Test\n    public void t() { assertTrue(true); }\n}\n";

/// Every file under `dir` (links recorded as their target, never followed) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let t = e.file_type().unwrap();
        if t.is_symlink() {
            let target = std::fs::read_link(&p).unwrap();
            out.insert(p, target.into_os_string().into_encoded_bytes());
        } else if t.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    out
}

/// The hostile repository and the outside directory it reaches for.
fn hostile(tmp: &Path) -> (PathBuf, PathBuf) {
    let outside = tmp.join("outside");
    let repo = fixture(tmp, "multi-module");
    // A module outside: JUnit 4 code a migration would rewrite.
    let module = outside.join("mod");
    std::fs::create_dir_all(module.join("src/test/java/org/evil")).unwrap();
    std::fs::write(
        module.join("pom.xml"),
        "<project><modelVersion>4.0.0</modelVersion><groupId>org.evil</groupId><artifactId>evil</artifactId><version>1</version>\
         <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target></properties>\
         <dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency></dependencies></project>\n",
    )
    .unwrap();
    std::fs::write(
        module.join("src/test/java/org/evil/EvilTest.java"),
        JUNIT4_TEST,
    )
    .unwrap();
    std::fs::write(outside.join("OutsideTest.java"), JUNIT4_TEST).unwrap();
    std::fs::write(outside.join("victim.txt"), "the user's file\n").unwrap();
    std::fs::create_dir_all(outside.join("recipes")).unwrap();
    std::fs::write(
        outside.join("recipes/evil.yml"),
        "id: evil\ndescription: would rewrite every println\nrules:\n  - id: r\n    rule: { pattern: System.out.println($M) }\n    fix: System.err.println($M)\n",
    )
    .unwrap();

    let pom = std::fs::read_to_string(repo.join("pom.xml")).unwrap();
    let modules = format!(
        "<module>core</module>\n    <module>{}</module>\n    <module>../outside/mod</module>\n    <module>linked</module>",
        module.display()
    );
    std::fs::write(
        repo.join("pom.xml"),
        pom.replacen("<module>core</module>", &modules, 1),
    )
    .unwrap();
    symlink(&module, repo.join("linked")).unwrap();
    let tests = repo.join("app/src/test/java/org/acme");
    symlink(
        outside.join("OutsideTest.java"),
        tests.join("LinkedTest.java"),
    )
    .unwrap();
    // Links where earlier versions wrote their temporary files, next to files that change.
    for planted in [
        tests.join("AppTest.uplift-tmp"),
        tests.join("AppTest.java.uplift-tmp"),
        repo.join("pom.uplift-tmp"),
        repo.join("app/pom.uplift-tmp"),
    ] {
        symlink(outside.join("victim.txt"), planted).unwrap();
    }
    std::fs::create_dir_all(repo.join(".github")).unwrap();
    std::fs::write(
        repo.join(".github/uplift.yml"),
        "target: 17\nrecipes:\n  dir: ../outside/recipes\n",
    )
    .unwrap();
    (repo, outside)
}

/// Fixture `name` whose `.github/uplift.yml` asks for `repo_budgets` (offline settings
/// otherwise), and an XDG config home whose user config sets `user_budgets`: the ceiling.
fn budgets_above_the_users(
    tmp: &Path,
    name: &str,
    repo_budgets: &str,
    user_budgets: &str,
) -> (PathBuf, PathBuf) {
    let repo = fixture(tmp, name);
    std::fs::create_dir_all(repo.join(".github")).unwrap();
    let offline = std::fs::read_to_string(support::support_file("offline.yml")).unwrap();
    std::fs::write(
        repo.join(".github/uplift.yml"),
        format!("{offline}budgets:\n  {repo_budgets}\n"),
    )
    .unwrap();
    let xdg = tmp.join("xdg");
    std::fs::create_dir_all(xdg.join("uplift")).unwrap();
    std::fs::write(
        xdg.join("uplift/config.yml"),
        format!("budgets:\n  {user_budgets}\n"),
    )
    .unwrap();
    (repo, xdg)
}

/// A copy of `tests/fixtures/NAME` at `tmp/repo`.
fn fixture(tmp: &Path, name: &str) -> PathBuf {
    let repo = tmp.join("repo");
    support::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &repo,
    );
    repo
}

/// `uplift migrate REPO` with its journal in `tmp`.
fn migrate(tmp: &Path, repo: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_uplift"));
    cmd.arg("--db")
        .arg(tmp.join("journal.db"))
        .arg("migrate")
        .arg(repo);
    cmd
}

/// `uplift migrate REPO` with builds against the offline Maven settings, writing its JSON
/// report to `report`.
fn migrate_offline(tmp: &Path, repo: &Path, report: &Path) -> Command {
    let mut cmd = migrate(tmp, repo);
    cmd.arg("--maven-arg=-s")
        .arg(format!(
            "--maven-arg={}",
            support::support_file("maven-settings-offline.xml")
        ))
        .arg("--report-json")
        .arg(report);
    cmd
}

/// `uplift migrate REPO --no-build`: its exit code and JSON report.
fn migrate_no_build(tmp: &Path, repo: &Path) -> (Option<i32>, Value) {
    let report_path = tmp.join("report.json");
    let out = migrate(tmp, repo)
        .arg("--no-build")
        .arg("--report-json")
        .arg(&report_path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = serde_json::from_str(
        &std::fs::read_to_string(&report_path).unwrap_or_else(|e| panic!("{e}: {stderr}")),
    )
    .unwrap();
    (out.status.code(), report)
}

fn refusal<'a>(report: &'a Value, path: &str) -> &'a Value {
    report["refused"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("no refusal of {path}: {:#}", report["refused"]))
}

#[test]
fn a_repository_cannot_make_uplift_read_or_write_outside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, outside) = hostile(tmp.path());
    let before = snapshot(&outside);
    let (_, report) = migrate_no_build(tmp.path(), &repo);

    assert_eq!(
        snapshot(&outside),
        before,
        "bytes outside the repository changed"
    );

    let kind = |path: &str| refusal(&report, path)["reason"]["kind"].clone();
    assert_eq!(kind(&outside.join("mod").display().to_string()), "absolute");
    assert_eq!(kind("../outside/mod"), "parent_dir");
    assert_eq!(kind("../outside/recipes"), "parent_dir");
    let linked_module = refusal(&report, "linked/pom.xml");
    assert_eq!(linked_module["reason"]["kind"], "symlink");
    assert_eq!(linked_module["reason"]["link"], "linked");
    let linked_source = "app/src/test/java/org/acme/LinkedTest.java";
    assert_eq!(
        refusal(&report, linked_source)["reason"]["link"],
        linked_source
    );
    // The journal entries carry them, in the analysis stage.
    let entries = report["entries"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["stage"] == "analyze"
        && e["result"]["kind"] == "refused"
        && e["result"]["refusals"].as_array().unwrap().len() >= 5));

    // The run went on inside: the real test moved to Jupiter through a fresh temporary
    // file, and the planted links still point where they did.
    let app_test =
        std::fs::read_to_string(repo.join("app/src/test/java/org/acme/AppTest.java")).unwrap();
    assert!(
        app_test.contains("org.junit.jupiter.api.Test"),
        "{app_test}"
    );
    assert!(
        std::fs::symlink_metadata(repo.join("app/src/test/java/org/acme/AppTest.uplift-tmp"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let analysis = entries
        .iter()
        .find(|e| e["result"]["kind"] == "analyzed")
        .unwrap();
    let modules: Vec<&str> = analysis["result"]["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["pom"].as_str().unwrap())
        .collect();
    assert_eq!(modules, ["app/pom.xml", "core/pom.xml", "pom.xml"]);
    assert!(
        !report.to_string().contains("\"evil\""),
        "the outside recipe was loaded"
    );
}

/// `.github/uplift.yml` that is a link (to a server file, say) is refused, not quoted.
#[test]
fn a_linked_repository_config_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path(), "single-junit4");
    let secret = tmp.path().join("private-key.pem");
    std::fs::write(&secret, "-----BEGIN PRIVATE KEY-----\nsecret: [not yaml\n").unwrap();
    std::fs::create_dir_all(repo.join(".github")).unwrap();
    symlink(&secret, repo.join(".github/uplift.yml")).unwrap();
    let out = migrate(tmp.path(), &repo)
        .arg("--no-build")
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("symbolic link .github/uplift.yml"), "{all}");
    assert!(
        !all.contains("PRIVATE KEY") && !all.contains("not yaml"),
        "{all}"
    );
}

/// A repository's `budgets` may lower the limits, never raise them: in the CLI the user's own
/// config file (else the defaults) is the ceiling, as the server's settings are in the app.
/// The repository asks for a day per build; its hanging build dies at the user's 8 s.
#[test]
fn a_repository_cannot_raise_the_users_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, xdg) = budgets_above_the_users(
        tmp.path(),
        "hanging-build",
        "build_timeout_secs: 86400\n  max_wall_secs: 86400\n  max_llm_calls: 100000\n  max_cost_usd: 100000",
        "build_timeout_secs: 8",
    );
    let report_path = tmp.path().join("report.json");
    let mut child = migrate_offline(tmp.path(), &repo, &report_path)
        .env("XDG_CONFIG_HOME", &xdg)
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(150);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the repository's build timeout was used, not the user's 8 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(status.code(), Some(4));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(report["outcome"], "INCOMPLETE");
    assert!(
        report.to_string().contains("\"timed_out\":true"),
        "{report}"
    );
}

/// A file name that is not UTF-8 (git and tar carry any bytes) is refused with its name shown
/// lossily, and the run goes on with the rest: the journal holds only text.
#[test]
fn a_file_name_that_is_not_utf8_is_refused_not_fatal() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path(), "single-junit4");
    let tests = walkdir::WalkDir::new(repo.join("src/test/java"))
        .into_iter()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "java"))
        .unwrap()
        .into_path();
    let odd = tests
        .parent()
        .unwrap()
        .join(std::ffi::OsStr::from_bytes(b"Odd\xff.java"));
    std::fs::write(&odd, JUNIT4_TEST).unwrap();
    let (code, report) = migrate_no_build(tmp.path(), &repo);
    assert_eq!(code, Some(4), "{report}");
    let refused = report["refused"].as_array().unwrap();
    assert!(
        refused.iter().any(
            |r| r["path"].as_str().unwrap().ends_with("Odd\u{fffd}.java")
                && r["reason"]["kind"] == "not_utf8"
        ),
        "{refused:?}"
    );
    assert!(
        std::fs::read_to_string(&tests)
            .unwrap()
            .contains("org.junit.jupiter"),
        "the rest was migrated"
    );
    assert_eq!(std::fs::read(&odd).unwrap(), JUNIT4_TEST.as_bytes());
}

/// The repository asks for a terabyte of disk per build; its build writing 2 GiB (under
/// `target/` and `/tmp`) is killed at the user's 64 MiB, and the report says why.
#[test]
fn a_build_that_fills_the_disk_is_stopped_at_the_users_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, xdg) = budgets_above_the_users(
        tmp.path(),
        "disk-filler",
        "max_build_disk_bytes: 1099511627776",
        "max_build_disk_bytes: 67108864\n  build_timeout_secs: 300",
    );
    let report_path = tmp.path().join("report.json");
    let out = migrate_offline(tmp.path(), &repo, &report_path)
        .env("XDG_CONFIG_HOME", &xdg)
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&report_path).unwrap_or_else(|e| panic!("{e}: {stderr}")),
    )
    .unwrap();
    assert_eq!(report["outcome"], "INCOMPLETE", "{stderr}");
    let baseline = report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["stage"] == "baseline")
        .unwrap_or_else(|| panic!("{report}"));
    let run = &baseline["result"]["run"];
    assert_eq!(run["timed_out"], false, "{run}");
    let written = run["disk_exceeded"]["written"]
        .as_u64()
        .unwrap_or_else(|| panic!("{run}"));
    assert_eq!(run["disk_exceeded"]["budget"], 64 << 20, "{run}");
    assert!(
        written > 64 << 20 && written < 1 << 30,
        "stopped after {written} bytes"
    );
    let fill = repo.join("target/fill");
    let on_disk: u64 = std::fs::read_dir(&fill)
        .map(|d| d.flatten().map(|e| e.metadata().unwrap().len()).sum())
        .unwrap_or(0);
    assert!(on_disk < 1 << 30, "the build went on writing: {on_disk}");
    assert!(
        report
            .to_string()
            .contains("baseline build exceeded the disk budget (64 MiB)"),
        "{report}"
    );
}

/// A `pom.xml` that is a link to a server file (a pom-shaped one holding a secret, or
/// `/proc/self/environ`) is refused with the reason, never parsed or quoted.
#[test]
fn a_linked_pom_is_not_read() {
    for target in ["key", "/proc/self/environ"] {
        let tmp = tempfile::tempdir().unwrap();
        let repo = fixture(tmp.path(), "single-junit4");
        let canary = format!("canary-{}", uuid::Uuid::new_v4().simple());
        let secret = tmp.path().join("server-pom.xml");
        std::fs::write(
            &secret,
            format!(
                "<project><groupId>{canary}</groupId><artifactId>{canary}</artifactId></project>\n"
            ),
        )
        .unwrap();
        std::fs::remove_file(repo.join("pom.xml")).unwrap();
        let target = if target == "key" {
            secret.as_path()
        } else {
            Path::new(target)
        };
        symlink(target, repo.join("pom.xml")).unwrap();
        let report_path = tmp.path().join("report.json");
        let out = migrate(tmp.path(), &repo)
            .arg("--no-build")
            .arg("--report-json")
            .arg(&report_path)
            .env("UPLIFT_TEST_CANARY", &canary)
            .output()
            .unwrap();
        let all = format!(
            "{}{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&report_path).unwrap_or_default()
        );
        assert!(!all.contains(&canary), "{target:?}: {all}");
        assert!(all.contains("symbolic link pom.xml"), "{target:?}: {all}");
    }
}

/// Files crafted to expand in the process that parses them, which runs outside the sandbox
/// (the app's worker, with every other job): a pom of XML entities repeating each other
/// (66 KB on disk, 640 MiB of text expanded), the repository's own recipe whose fix repeats
/// its match and matches its own output, and sources nesting 50,000 levels deep (a stack
/// overflow aborts the process). Each is refused with the reason, quickly, and the run ends
/// with its report.
#[test]
fn files_crafted_to_expand_are_refused_not_expanded() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path(), "single-junit4");
    let lol = "x".repeat(64 << 10);
    let pom = std::fs::read_to_string(repo.join("pom.xml")).unwrap();
    let bomb = pom
        .replacen(
            "<project ",
            &format!(
                "<!DOCTYPE project [<!ENTITY a0 \"{lol}\"><!ENTITY a1 \"{}\">]>\n<project ",
                "&a0;".repeat(250)
            ),
            1,
        )
        .replacen(
            "</properties>",
            &format!("<lol>{}</lol></properties>", "&a1;".repeat(40)),
            1,
        );
    std::fs::write(repo.join("pom.xml"), bomb).unwrap();
    let started = std::time::Instant::now();
    let (code, report) = migrate_no_build(tmp.path(), &repo);
    assert_eq!(code, Some(3), "{report:#}");
    assert!(
        report
            .to_string()
            .contains("declares entities (<!ENTITY>), which Maven does not expand"),
        "{report:#}"
    );
    std::fs::write(repo.join("pom.xml"), pom).unwrap();

    std::fs::create_dir_all(repo.join(".uplift/recipes")).unwrap();
    std::fs::write(
        repo.join(".uplift/recipes/grow.yml"),
        format!(
            "id: grow\ndescription: d\nrules:\n  - id: r\n    rule:\n      pattern: return $A;\n    fix: \"return {};\"\n",
            vec!["$A"; 60].join(" + ")
        ),
    )
    .unwrap();
    let deep = repo.join("src/main/java/com/example/calc/Deep.java");
    std::fs::write(
        &deep,
        format!(
            "package com.example.calc;\n\nclass Deep {{\n    int f() {{ return {}1{}; }}\n}}\n",
            "(".repeat(50_000),
            ")".repeat(50_000)
        ),
    )
    .unwrap();
    let calculator = repo.join("src/main/java/com/example/calc/Calculator.java");
    let before = std::fs::read_to_string(&calculator).unwrap();
    let (code, report) = migrate_no_build(tmp.path(), &repo);
    assert_eq!(code, Some(4), "{report:#}");
    let text = report.to_string();
    assert!(
        text.contains("grow: the rewrite would make the file larger than"),
        "{report:#}"
    );
    assert!(
        text.contains(
            "Deep.java (not rewritten: parser gave up, or the file nests deeper than 500 levels)"
        ),
        "{report:#}"
    );
    assert_eq!(std::fs::read_to_string(&calculator).unwrap(), before);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
}

/// A terminal obeys the control characters in what it is sent. A file name, a repository
/// recipe's message and a source line carry ESC sequences (clear the screen, set the title
/// and the clipboard, hide text) and carriage returns: the summary shows them as `\u{1b}`.
#[test]
fn repository_text_reaches_the_terminal_inert() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = fixture(tmp.path(), "single-junit4");
    let dir = repo.join("src/test/java/com/example/calc");
    std::fs::write(
        dir.join("Bad\x1b[2J\x1b]0;PWNED\x07Name.java"),
        "package com.example.calc;\nclass Broken { void f( { }\n",
    )
    .unwrap();
    std::fs::create_dir_all(repo.join(".uplift/recipes")).unwrap();
    std::fs::write(
        repo.join(".uplift/recipes/say.yml"),
        "id: say\ndescription: d\nrules:\n  - id: r\n    rule: { pattern: Math.sqrt($X) }\n    message: \"msg \\e]52;c;ZWNobyBwd25lZA==\\a \\e[8mhidden\\e[0m\\rOverwritten\"\n",
    )
    .unwrap();
    let out = migrate(tmp.path(), &repo)
        .arg("--no-build")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Bad\\u{1b}[2J\\u{1b}]0;PWNED\\u{7}Name.java"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "msg \\u{1b}]52;c;ZWNobyBwd25lZA==\\u{7} \\u{1b}[8mhidden\\u{1b}[0m\\u{d}Overwritten"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains(['\x1b', '\x07', '\r']),
        "a control character reached the terminal: {stderr:?}"
    );
}
