//! Java sources in the encoding the pom declares: a Latin-1 project migrates and builds
//! (real Maven, offline) with every byte outside the edits kept; a file that does not
//! decode is skipped with a reason instead of aborting the run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod support;
use support::support_file;

const ACCENT_TEST: &str = "package com.example.calc;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\n// Prüfung der Größe: café, naïve, Ångström\npublic class AccentTest {\n    @Test\n    public void keepsAccents() {\n        assertEquals(4, \"café\".length());\n    }\n}\n";

fn latin1(text: &str) -> Vec<u8> {
    text.chars().map(|c| u8::try_from(c).unwrap()).collect()
}

/// single-junit4 with `AccentTest.java` in Latin-1 and the pom declaring `encoding`.
fn project(tmp: &Path, encoding: &str) -> PathBuf {
    let repo = tmp.join("repo");
    support::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/single-junit4"),
        &repo,
    );
    let pom = std::fs::read_to_string(repo.join("pom.xml")).unwrap();
    let pom = pom.replace(
        "<project.build.sourceEncoding>UTF-8<",
        &format!("<project.build.sourceEncoding>{encoding}<"),
    );
    std::fs::write(repo.join("pom.xml"), pom).unwrap();
    std::fs::write(accent_path(&repo), latin1(ACCENT_TEST)).unwrap();
    repo
}

fn accent_path(repo: &Path) -> PathBuf {
    repo.join("src/test/java/com/example/calc/AccentTest.java")
}

fn migrate(repo: &Path, extra: &[&str]) -> (i32, Value, String) {
    let tmp = repo.parent().unwrap();
    let report = tmp.join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_uplift"))
        .arg("--db")
        .arg(tmp.join("journal.db"))
        .arg("migrate")
        .arg(repo)
        .args(["--config", &support_file("offline.yml")])
        .args([
            "--maven-arg=-s",
            &format!("--maven-arg={}", support_file("maven-settings-offline.xml")),
            "--maven-arg=-DforkCount=0",
        ])
        .arg("--report-json")
        .arg(&report)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let report = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), report, stderr)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_latin1_project_migrates_and_builds_byte_exact_outside_the_edits() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = project(tmp.path(), "ISO-8859-1");
    let (code, report, stderr) = migrate(&repo, &[]);
    assert_eq!(code, 0, "{stderr}\n{report:#}");
    assert_eq!(report["outcome"], "SUCCESS", "{report:#}");
    assert_eq!(report["tests"]["invariant"], true);
    assert_eq!(
        report["tests"]["after"]["com.example.calc.AccentTest#keepsAccents"],
        "passed"
    );
    let after = std::fs::read(accent_path(&repo)).unwrap();
    assert!(std::str::from_utf8(&after).is_err(), "re-encoded as UTF-8");
    assert!(contains(&after, b"import org.junit.jupiter.api.Test;"));
    // Every line the migration had no reason to touch is there, byte for byte.
    for line in ACCENT_TEST.lines().filter(|l| !l.contains("junit")) {
        assert!(
            contains(&after, &latin1(&format!("{line}\n"))),
            "{line:?} changed"
        );
    }
}

#[test]
fn a_file_that_does_not_decode_is_skipped_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = project(tmp.path(), "UTF-8");
    let (_, report, stderr) = migrate(&repo, &["--no-build"]);
    // Without a build the run is INCOMPLETE, but every task was done.
    assert_eq!(
        report["tasks_done"], report["tasks_total"],
        "{stderr}\n{report:#}"
    );
    let analysis = report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["result"]["kind"] == "analyzed")
        .unwrap_or_else(|| panic!("{report:#}"));
    let warnings = analysis["result"]["warnings"].to_string();
    assert!(
        warnings.contains(
            "AccentTest.java: not valid UTF-8 text (project.build.sourceEncoding); skipped"
        ),
        "{warnings}"
    );
    assert_eq!(
        std::fs::read(accent_path(&repo)).unwrap(),
        latin1(ACCENT_TEST)
    );
    let calculator =
        std::fs::read_to_string(repo.join("src/test/java/com/example/calc/CalculatorTest.java"))
            .unwrap();
    assert!(calculator.contains("org.junit.jupiter.api.Test"));
}
