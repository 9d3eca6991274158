//! End-to-end: the `uplift` binary on fixture projects with real Maven and javac, offline
//! against Debian's repository (scripts/setup-java-offline.sh installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use support::copy_dir;

mod support;
use support::support_file;

fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &dest,
    );
    (dir, dest)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    report: Value,
}

/// Runs `uplift migrate` offline with the pinned catalog; extra args are appended.
fn migrate(project: &Path, extra: &[&str]) -> Run {
    migrate_with(project, &support_file("offline.yml"), extra)
}

fn migrate_with(project: &Path, config: &str, extra: &[&str]) -> Run {
    let db = project.parent().unwrap().join("journal.db");
    let report = project.parent().unwrap().join("report.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_uplift"));
    cmd.arg("--db").arg(&db).arg("migrate").arg(project);
    cmd.args(["--config", config]);
    cmd.args([
        "--maven-arg=-s",
        &format!("--maven-arg={}", support_file("maven-settings-offline.xml")),
    ]);
    cmd.arg("--maven-arg=-DforkCount=0");
    cmd.arg("--report-json").arg(&report);
    cmd.args(extra);
    let out = cmd.output().unwrap();
    let report = std::fs::read_to_string(&report)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(Value::Null);
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
        report,
    }
}

fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walkdir(root) {
        if !e.components().any(|c| c.as_os_str() == "target") {
            out.push((
                e.strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(&e).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

fn walkdir(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn java8_junit4_project_migrates_to_java17_and_jupiter_with_tests_invariant() {
    let (_tmp, project) = fixture("single-junit4");
    let run = migrate(&project, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.report);
    let r = &run.report;
    assert_eq!(r["outcome"], "SUCCESS");
    assert_eq!(r["tests"]["invariant"], true);
    // Every test green before is green after, by name.
    let before = r["tests"]["before"].as_object().unwrap();
    let after = r["tests"]["after"].as_object().unwrap();
    assert_eq!(before.len(), 11, "{before:?}");
    for (name, status) in before {
        if status == "passed" {
            assert_eq!(after[name], "passed", "{name}");
        }
    }
    assert_eq!(
        before["com.example.calc.CalculatorTest#ignoredForNow"],
        "skipped"
    );
    // Java 17 class files only.
    assert_eq!(r["class_majors"]["expected"], 61);
    let found = r["class_majors"]["found"].as_object().unwrap();
    assert_eq!(found.keys().collect::<Vec<_>>(), ["61"]);

    let pom = read(&project.join("pom.xml"));
    assert!(pom.contains("<maven.compiler.source>17</maven.compiler.source>"));
    assert!(
        pom.contains("<artifactId>junit-jupiter</artifactId>")
            && !pom.contains("<artifactId>junit</artifactId>")
    );
    assert!(pom.contains("<!-- tests -->"), "comments survive");
    let test = read(&project.join("src/test/java/com/example/calc/CalculatorTest.java"));
    assert!(!test.contains("org.junit.Test") && test.contains("org.junit.jupiter.api.Test"));
    assert!(test.contains("assertThrows(IllegalArgumentException.class, () -> {"));
    assert!(test.contains("assertArrayEquals(expected, calc.split(\"a,b\"));"));
    let wildcard =
        std::fs::read(project.join("src/test/java/com/example/calc/WildcardTest.java")).unwrap();
    let lf_only = wildcard
        .windows(2)
        .filter(|w| w[1] == b'\n' && w[0] != b'\r')
        .count();
    assert_eq!(lf_only, 0, "CRLF kept");
    // JDK-owned javax untouched.
    assert!(
        read(&project.join("src/main/java/com/example/calc/Calculator.java"))
            .contains("import javax.crypto.Cipher;")
    );
}

#[test]
fn multi_module_level_is_raised_in_the_parent_and_unconvertible_runner_keeps_vintage() {
    let (_tmp, project) = fixture("multi-module");
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert_eq!(r["outcome"], "PARTIAL_SUCCESS", "{}", run.stderr);
    assert_eq!(run.code, 2);
    assert_eq!(r["tests"]["invariant"], true);
    assert_eq!(r["tests"]["executed_after"], 4);
    let parent = read(&project.join("pom.xml"));
    assert!(parent.contains("<java.version>17</java.version>"));
    assert!(
        parent.contains("junit-vintage-engine"),
        "JUnit 4 code remains, so vintage stays"
    );
    let core = read(&project.join("core/pom.xml"));
    assert!(
        !core.contains("java.version"),
        "children inherit, not edited"
    );
    // Vintage only where JUnit 4 code remains (app, and the parent it inherits from):
    // core's tests are all on Jupiter, so core moves off junit:junit.
    assert!(
        !core.contains("<artifactId>junit</artifactId>") && core.contains("junit-jupiter"),
        "{core}"
    );
    assert!(read(&project.join("app/pom.xml")).contains("junit-vintage-engine"));
    assert!(
        read(&project.join("app/src/test/java/org/acme/TheoriesAppTest.java"))
            .contains("@RunWith(Theories.class)")
    );
    assert!(
        read(&project.join("core/src/test/java/org/acme/GreeterTest.java")).contains(
            "Assertions.assertEquals(\"Hello, Ada\", new Greeter().greet(\"Ada\"), \"greeting\")"
        )
    );
    let entries = r["entries"].as_array().unwrap();
    let left = entries
        .iter()
        .filter(|e| e["result"]["kind"] == "task" && e["result"]["status"] == "left_for_next_tier")
        .count();
    assert_eq!(left, 1);
}

#[test]
fn red_baseline_is_recorded_and_only_green_tests_are_held_to_invariance() {
    let (_tmp, project) = fixture("red-baseline");
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert_eq!(r["outcome"], "SUCCESS", "{}", run.stderr);
    assert_eq!(r["tests"]["before"]["red.MixedTest#alreadyRed"], "failed");
    assert_eq!(r["tests"]["after"]["red.MixedTest#alreadyRed"], "failed");
    assert_eq!(r["tests"]["green_before"], 1);
}

#[test]
fn broken_pom_fails_with_a_clear_message_and_touches_nothing() {
    let (_tmp, project) = fixture("broken-pom");
    let before = snapshot(&project);
    let run = migrate(&project, &[]);
    assert_eq!(run.code, 3);
    assert_eq!(run.report["outcome"], "FAILURE");
    assert!(run.stderr.contains("not well-formed XML"), "{}", run.stderr);
    assert_eq!(snapshot(&project), before);
}

#[test]
fn file_with_syntax_errors_is_left_byte_identical_and_others_are_migrated() {
    let (_tmp, project) = fixture("syntax-error");
    let broken = project.join("src/test/java/s/BrokenTest.java");
    let original = std::fs::read(&broken).unwrap();
    let run = migrate(&project, &["--no-build"]);
    assert_eq!(run.code, 4, "no build means not validated: INCOMPLETE");
    assert_eq!(run.report["outcome"], "INCOMPLETE");
    assert_eq!(std::fs::read(&broken).unwrap(), original);
    assert!(
        read(&project.join("src/test/java/s/GoodTest.java")).contains("assertTrue(true, \"fine\")")
    );
    // Vintage stays because BrokenTest is still JUnit 4.
    assert!(read(&project.join("pom.xml")).contains("junit-vintage-engine"));
    assert!(
        run.stderr.contains("syntax error at line 9"),
        "{}",
        run.stderr
    );
}

#[test]
fn hanging_build_is_killed_at_the_time_limit_and_the_project_is_untouched() {
    let (tmp, project) = fixture("hanging-build");
    let config = tmp.path().join("slow.yml");
    std::fs::write(
        &config,
        std::fs::read_to_string(support_file("offline.yml")).unwrap()
            + "budgets:\n  build_timeout_secs: 8\n",
    )
    .unwrap();
    let before = snapshot(&project);
    let started = std::time::Instant::now();
    let run = migrate_with(&project, config.to_str().unwrap(), &[]);
    assert!(started.elapsed().as_secs() < 60);
    assert_eq!(run.report["outcome"], "INCOMPLETE", "{}", run.stderr);
    assert_eq!(run.code, 4);
    assert_eq!(snapshot(&project), before);
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let (_tmp, project) = fixture("single-junit4");
    let before = snapshot(&project);
    let run = migrate(&project, &["--dry-run", "--no-build"]);
    assert!(
        run.stdout.contains("+import org.junit.jupiter.api.Test;"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("-        <maven.compiler.source>1.8</maven.compiler.source>")
    );
    assert_eq!(snapshot(&project), before);
}

#[test]
fn second_run_changes_nothing() {
    let (_tmp, project) = fixture("single-junit4");
    migrate(&project, &["--no-build"]);
    let once = snapshot(&project);
    let run = migrate(&project, &["--no-build"]);
    assert_eq!(snapshot(&project), once, "{}", run.stderr);
    let written = run.report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["result"]["kind"] == "written")
        .unwrap();
    assert_eq!(written["result"]["files"].as_array().unwrap().len(), 0);
}

#[test]
fn not_a_maven_project_and_missing_maven_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let run = migrate(tmp.path(), &[]);
    assert_eq!(run.code, 3);
    assert!(
        run.stderr.contains("is not a Maven project"),
        "{}",
        run.stderr
    );

    let (_tmp, project) = fixture("red-baseline");
    let before = snapshot(&project);
    let out = Command::new(env!("CARGO_BIN_EXE_uplift"))
        .env("PATH", "/nonexistent")
        .args([
            "--db",
            project.parent().unwrap().join("j.db").to_str().unwrap(),
            "migrate",
        ])
        .arg(&project)
        .args(["--config", &support_file("offline.yml")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("`mvn` was not found on PATH"), "{stderr}");
    assert_eq!(snapshot(&project), before);
}

#[test]
fn past_runs_are_listed_and_re_rendered_from_the_journal() {
    let (_tmp, project) = fixture("syntax-error");
    let run = migrate(&project, &["--no-build"]);
    let id = run.report["run_id"].as_str().unwrap().to_string();
    let db = project.parent().unwrap().join("journal.db");
    let uplift = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_uplift"))
            .arg("--db")
            .arg(&db)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(uplift(&["runs"]).contains(&id));
    let md = uplift(&["report", &id[..8]]);
    assert!(md.contains("**Outcome: INCOMPLETE**"), "{md}");
    let json: Value = serde_json::from_str(&uplift(&["report", &id, "--format", "json"])).unwrap();
    assert_eq!(
        json["entries"], run.report["entries"],
        "the report is a rendering of the stored journal"
    );
}

#[test]
fn rules_categories_junit3_and_deprecated_apis_migrate_and_still_pass() {
    let (_tmp, project) = fixture("junit4-structure");
    let run = migrate(&project, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.report);
    let r = &run.report;
    assert_eq!(r["outcome"], "SUCCESS");
    assert_eq!(r["tests"]["invariant"], true);
    let before = r["tests"]["before"].as_object().unwrap();
    // LedgerTest 3, CodesTest 2, RoundingTest 1 (three invocations), LedgerNestedTest 2,
    // PostingTest 2 (one inherited from its JUnit 3 base LedgerFixture), BalanceTest 2 and
    // ReportTest 2 (the project's OpenLedgerRule per test and per class).
    assert_eq!(before.len(), 14, "{before:?}");
    let after = r["tests"]["after"].as_object().unwrap();
    for (name, status) in before {
        assert_eq!(status, "passed", "{name}");
        assert_eq!(after[name], "passed", "{name}");
    }
    assert_eq!(
        after["com.example.ledger.RoundingTest#roundsHalfUp"],
        "passed"
    );
    let pom = read(&project.join("pom.xml"));
    assert!(
        !pom.contains("junit-vintage-engine"),
        "every test file converted"
    );
    let t = read(&project.join("src/test/java/com/example/ledger/LedgerTest.java"));
    for expected in [
        "@TestMethodOrder(MethodOrderer.MethodName.class)",
        "@Timeout(value = 30, unit = TimeUnit.SECONDS)",
        "@TempDir\n    public File folder;",
        "@Tag(\"Slow\")",
        "IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> {",
        "Files.createFile(folder.toPath().resolve(\"ledger.txt\")).toFile()",
    ] {
        assert!(t.contains(expected), "{expected} missing from\n{t}");
    }
    assert!(!t.contains("org.junit.Rule") && !t.contains("RunWith"));
    let p = read(&project.join("src/test/java/com/example/ledger/RoundingTest.java"));
    assert!(p.contains("@MethodSource(\"amounts\")"), "{p}");
    let spec = read(&project.join("src/test/java/com/example/ledger/LedgerNestedTest.java"));
    assert!(
        spec.contains("@Nested\n    public class WhenEmpty"),
        "{spec}"
    );
    let j3 = read(&project.join("src/test/java/com/example/ledger/CodesTest.java"));
    assert!(j3.contains("@BeforeEach") && !j3.contains("extends TestCase"));
    // A JUnit 3 hierarchy converts as a unit: the base leaves TestCase, the subclass keeps
    // its base, its super.setUp() (the base's is real) and drops super.tearDown() (TestCase's).
    let sub = read(&project.join("src/test/java/com/example/ledger/PostingTest.java"));
    for expected in [
        "import static org.junit.jupiter.api.Assertions.*;",
        "extends LedgerFixture",
        "@BeforeEach\n    @Override\n    protected void setUp() throws Exception {\n        super.setUp();",
        "@AfterEach\n    protected void tearDown() throws Exception {\n        ledger = null;\n    }",
        "@Test\n    public void testPostingRounds()",
        "assertEquals(\"1.01\", ledger.average().toPlainString(), \"rounded\");",
    ] {
        assert!(sub.contains(expected), "{expected} missing from\n{sub}");
    }
    assert_eq!(
        after["com.example.ledger.PostingTest#testStartsEmpty"],
        "passed"
    );
    // The project's rule class became an extension with both tests registering it, and no
    // JUnit 4 is left in any test source.
    let dir = project.join("src/test/java/com/example/ledger");
    let rule = read(&dir.join("OpenLedgerRule.java"));
    for expected in [
        "public class OpenLedgerRule implements BeforeEachCallback, AfterEachCallback, BeforeAllCallback, AfterAllCallback {",
        "protected void before() throws Exception {",
        "public void beforeAll(ExtensionContext context) throws Exception {",
    ] {
        assert!(rule.contains(expected), "{expected} missing from\n{rule}");
    }
    for (file, field) in [
        (
            "BalanceTest.java",
            "@RegisterExtension\n    public OpenLedgerRule open",
        ),
        (
            "ReportTest.java",
            "@RegisterExtension\n    public static OpenLedgerRule shared",
        ),
    ] {
        let t = read(&dir.join(file));
        assert!(t.contains(field), "{field} missing from\n{t}");
    }
    for f in std::fs::read_dir(&dir).unwrap().flatten() {
        let t = read(&f.path());
        assert!(
            !t.replace("org.junit.jupiter", "").contains("org.junit.")
                && !t.contains("junit.framework"),
            "{}:\n{t}",
            f.path().display()
        );
    }
    let main = read(&project.join("src/main/java/com/example/ledger/Ledger.java"));
    for expected in [
        "setScale(2, RoundingMode.HALF_UP)",
        "2, RoundingMode.HALF_EVEN)",
        "Integer.valueOf(entries.size())",
        "Character.isJavaIdentifierStart(",
        "import java.math.RoundingMode;",
    ] {
        assert!(main.contains(expected), "{expected} missing from\n{main}");
    }
}

#[test]
fn gradle_build_scripts_and_sources_are_migrated_and_reported_unvalidated() {
    let (_tmp, project) = fixture("gradle-multi");
    let run = migrate(&project, &["--target-java", "17"]);
    assert_eq!(run.code, 4, "INCOMPLETE: no build ran\n{}", run.stderr);
    let r = &run.report;
    assert_eq!(r["outcome"], "INCOMPLETE");
    let text = r.to_string();
    assert!(
        text.contains("validation unavailable: a Gradle build"),
        "{text}"
    );
    let root = read(&project.join("build.gradle"));
    assert!(
        root.contains("sourceCompatibility = '17'") && root.contains("targetCompatibility = '17'")
    );
    assert!(root.contains("// Shared settings"), "comments survive");
    let core = read(&project.join("core/build.gradle"));
    assert!(
        core.contains("testImplementation 'org.junit.jupiter:junit-jupiter:5.9.2'"),
        "{core}"
    );
    assert!(
        core.contains("test {\n    useJUnitPlatform()\n    maxHeapSize"),
        "{core}"
    );
    let web = read(&project.join("web/build.gradle.kts"));
    assert!(web.contains("JavaLanguageVersion.of(17)"), "{web}");
    assert!(
        web.contains("compileOnly(\"org.projectlombok:lombok:1.18.22\")"),
        "{web}"
    );
    assert!(
        web.contains("javax.servlet:javax.servlet-api:4.0.1"),
        "javax stays: nothing requires jakarta\n{web}"
    );
    let test = read(&project.join("core/src/test/java/com/example/core/PriceTest.java"));
    assert!(
        test.contains("org.junit.jupiter.api.BeforeEach")
            && test.contains("assertEquals(\"1.50\", String.format("),
        "{test}"
    );
    let hello = read(&project.join("web/src/main/java/com/example/web/Hello.java"));
    assert!(hello.contains("Integer.valueOf(0)"), "{hello}");
}

#[test]
fn a_test_that_fails_once_and_passes_alone_is_flaky_not_a_regression() {
    let (_tmp, project) = fixture("single-junit4");
    // Fails on the second run of its class only (the validation build), as a test that
    // depends on timing or ordering fails now and then.
    std::fs::write(
        project.join("src/test/java/com/example/calc/FlakyTest.java"),
        r#"package com.example.calc;

import static org.junit.Assert.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.Test;

public class FlakyTest {
    @Test
    public void failsOnlyOnTheSecondRun() throws Exception {
        Path count = Paths.get("flaky.count");
        int n = Files.exists(count) ? Integer.parseInt(new String(Files.readAllBytes(count)).trim()) : 0;
        Files.write(count, String.valueOf(n + 1).getBytes());
        if (n == 1) {
            fail("second run");
        }
    }
}
"#,
    )
    .unwrap();
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert_eq!(run.code, 0, "{}\n{r}", run.stderr);
    assert_eq!(r["tests"]["newly_failing"], json!([]));
    assert_eq!(
        r["tests"]["flaky_after"],
        json!(["com.example.calc.FlakyTest#failsOnlyOnTheSecondRun"])
    );
    assert_eq!(r["rolled_back"]["rounds"], 0);
    let test = read(&project.join("src/test/java/com/example/calc/FlakyTest.java"));
    assert!(test.contains("org.junit.jupiter.api.Test"), "{test}");
    assert_eq!(
        read(&project.join("flaky.count")).trim(),
        "3",
        "three runs of the class"
    );
}

#[test]
fn a_jakarta_ee_application_moves_to_jakarta_ee_10_on_request() {
    let (_tmp, project) = fixture("jakarta-ee-app");
    let run = migrate(
        &project,
        &["--no-build", "--jakarta", "--target-java", "17"],
    );
    assert_eq!(run.code, 4, "INCOMPLETE: no build ran\n{}", run.stderr);
    let text = run.report.to_string();
    assert!(text.contains("javax -> jakarta: requested"), "{text}");
    let servlet = read(&project.join("src/main/java/com/example/shop/CartServlet.java"));
    for expected in [
        "import jakarta.servlet.http.HttpServlet;",
        "import javax.crypto.Cipher;",
        "session.getAttribute(\"cart\")",
        "session.setAttribute(\"cart\",",
        "resp.setStatus(302);",
        "resp.encodeRedirectURL(\"/cart\")",
        "resp.encodeURL(\"/checkout\")",
        "new UnavailableException(\"no context\")",
    ] {
        assert!(
            servlet.contains(expected),
            "{expected} missing from\n{servlet}"
        );
    }
    let entity = read(&project.join("src/main/java/com/example/shop/Item.java"));
    assert!(
        entity.contains("import jakarta.persistence.Entity;"),
        "{entity}"
    );
    let pom = read(&project.join("pom.xml"));
    for expected in [
        "<groupId>jakarta.servlet</groupId>",
        "<artifactId>jakarta.servlet-api</artifactId>",
        "<version>6.0.0</version>",
        "<artifactId>jakarta.persistence-api</artifactId>",
        "<version>3.1.0</version>",
    ] {
        assert!(pom.contains(expected), "{expected} missing from\n{pom}");
    }
    let web = read(&project.join("src/main/webapp/WEB-INF/web.xml"));
    assert!(
        web.contains("https://jakarta.ee/xml/ns/jakartaee") && web.contains("version=\"6.0\""),
        "{web}"
    );
}

#[test]
fn a_recipe_that_weakens_a_test_is_taken_back_and_the_run_ends_green() {
    let (_tmp, project) = fixture("single-junit4");
    // The repository's own recipe turns an expected value into the actual expression:
    // the test would still pass, it just would no longer check anything.
    std::fs::create_dir_all(project.join(".uplift/recipes")).unwrap();
    std::fs::write(
        project.join(".uplift/recipes/tautology.yml"),
        "id: tautology\ndescription: a buggy recipe\nrules:\n  - id: same\n    rule: { pattern: 'assertEquals(4, $X)' }\n    fix: 'assertEquals($X, $X)'\n",
    )
    .unwrap();
    let test = project.join("src/test/java/com/example/calc/CalculatorTest.java");
    let original = read(&test);
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert!(
        run.code == 0 || run.code == 2,
        "green after the rollback: {}\n{}",
        run.stderr,
        r["rolled_back"]
    );
    // The weakening was seen, then taken back with the file that carried it.
    let first = r["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["result"]["kind"] == "invariance_checked")
        .unwrap();
    let differences = first["result"]["differences"].as_array().unwrap();
    assert_eq!(differences.len(), 1, "{differences:?}");
    assert_eq!(differences[0]["test"], "CalculatorTest#addsNumbers");
    assert_eq!(differences[0]["before"], "assertEquals(4, calc.add(2,2))");
    let kept = r["rolled_back"]["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        kept[0]["path"],
        "src/test/java/com/example/calc/CalculatorTest.java"
    );
    assert!(
        kept[0]["reason"]
            .as_str()
            .unwrap()
            .contains("assertEquals(calc.add(2,2), calc.add(2,2))"),
        "{kept:?}"
    );
    assert_eq!(read(&test), original, "the file is byte-identical");
    assert_eq!(r["invariance"]["verdict"], "passed", "{}", r["invariance"]);
    // It stays on JUnit 4 through the vintage engine, the other test is on Jupiter.
    let pom = read(&project.join("pom.xml"));
    assert!(pom.contains("junit-vintage-engine"), "{pom}");
    let other = read(&project.join("src/test/java/com/example/calc/WildcardTest.java"));
    assert!(other.contains("org.junit.jupiter"), "{other}");
    assert_eq!(r["tests"]["newly_failing"], serde_json::json!([]));
}

#[test]
fn files_that_break_the_build_or_a_test_are_taken_back_and_the_rest_stays_migrated() {
    let (_tmp, project) = fixture("single-junit4");
    let pkg = "src/main/java/com/example/calc";
    std::fs::write(
        project.join(pkg).join("Joiner.java"),
        "package com.example.calc;\n\npublic class Joiner {\n    public String join(String... parts) {\n        return String.join(\",\", parts);\n    }\n}\n",
    )
    .unwrap();
    std::fs::write(
        project.join("src/test/java/com/example/calc/JoinerTest.java"),
        "package com.example.calc;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\npublic class JoinerTest {\n    @Test\n    public void joinsWithCommas() {\n        assertEquals(\"a,b\", new Joiner().join(\"a\", \"b\"));\n    }\n}\n",
    )
    .unwrap();
    // Two bad rewrites from the repository's own recipes: one leaves Calculator.java
    // calling a method that does not exist, one changes what Joiner.join returns.
    std::fs::create_dir_all(project.join(".uplift/recipes")).unwrap();
    std::fs::write(
        project.join(".uplift/recipes/breaks.yml"),
        "id: breaks\ndescription: two bad rewrites\nrules:\n  - id: no-such-method\n    rule: { pattern: 'Cipher.getInstance($X)' }\n    fix: 'Cipher.instance($X)'\n  - id: other-separator\n    rule: { pattern: 'String.join(\",\", $P)' }\n    fix: 'String.join(\";\", $P)'\n",
    )
    .unwrap();
    let before = snapshot(&project);
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert!(
        run.code == 0 || run.code == 2,
        "{}\n{}",
        run.stderr,
        r["rolled_back"]
    );
    let mut kept: Vec<String> = r["rolled_back"]["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["path"].as_str().unwrap().to_string())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            format!("{pkg}/Calculator.java"),
            format!("{pkg}/Joiner.java"),
            "src/test/java/com/example/calc/JoinerTest.java".to_string(),
        ],
        "{}",
        r["rolled_back"]
    );
    let original = |rel: &str| {
        before
            .iter()
            .find(|(p, _)| p == Path::new(rel))
            .map(|(_, b)| String::from_utf8(b.clone()).unwrap())
            .unwrap()
    };
    for rel in &kept {
        assert_eq!(read(&project.join(rel)), original(rel), "{rel} restored");
    }
    // The rest is migrated and green: the Java level and CalculatorTest on Jupiter.
    let calc_test = read(&project.join("src/test/java/com/example/calc/CalculatorTest.java"));
    assert!(
        calc_test.contains("org.junit.jupiter.api.Test"),
        "{calc_test}"
    );
    assert_eq!(r["tests"]["newly_failing"], serde_json::json!([]));
    assert_eq!(r["invariance"]["verdict"], "passed");
    let md = run.stdout.clone() + &run.stderr;
    assert!(
        md.contains("Calculator.java"),
        "the summary names the kept files:\n{md}"
    );
}

#[test]
fn when_nothing_green_can_be_kept_the_tree_is_byte_identical() {
    // `_` as an identifier compiles at level 8 and not at 17, in a file no recipe
    // touches (`__` is taken there, so the rename stands down): no migrated file can be
    // blamed, so every file is given back.
    let (_tmp, project) = fixture("underscore-identifier");
    let before = snapshot(&project);
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(r["outcome"], "FAILURE");
    assert_eq!(
        r["rolled_back"]["restored_all"], true,
        "{}",
        r["rolled_back"]
    );
    let reasons = r["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|e| e["result"]["reasons"].as_array().cloned())
        .unwrap();
    assert!(
        reasons[0]
            .as_str()
            .unwrap()
            .contains("restored to exactly what it was"),
        "{reasons:?}"
    );
    assert_eq!(snapshot(&project), before);
}

#[test]
fn a_project_whose_dependencies_cannot_be_resolved_is_not_touched() {
    let (_tmp, project) = fixture("single-junit4");
    let pom = project.join("pom.xml");
    let text = read(&pom).replace(
        "    <dependencies>\n",
        "    <dependencies>\n        <dependency><groupId>org.example.nowhere</groupId><artifactId>absent</artifactId><version>9.9</version></dependency>\n",
    );
    std::fs::write(&pom, text).unwrap();
    let before = snapshot(&project);
    let run = migrate(&project, &[]);
    let r = &run.report;
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(r["outcome"], "INCOMPLETE");
    let stop = r["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["result"]["kind"] == "baseline_unresolvable")
        .expect("the stop is in the journal");
    assert!(
        stop["result"]["cause"]
            .as_str()
            .unwrap()
            .contains("org.example.nowhere"),
        "{stop}"
    );
    assert!(
        stop["result"]["remedy"]
            .as_str()
            .unwrap()
            .contains("--maven-arg")
    );
    assert!(
        !r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["result"]["kind"] == "written"),
        "nothing was written"
    );
    assert_eq!(snapshot(&project), before);
}

#[test]
fn removed_and_deprecated_jdk_apis_are_replaced_and_the_rest_named_for_a_human() {
    let (_tmp, project) = fixture("deprecated-jdk-apis");
    let run = migrate(&project, &["--target-java", "17"]);
    let source = project.join("src/main/java/com/example/legacy/Legacy.java");
    let migrated = read(&source);
    assert!(
        matches!(run.code, 0 | 2),
        "exit {}\n{}\n{migrated}",
        run.code,
        run.stderr
    );
    assert_eq!(
        run.report["tests"]["invariant"],
        json!(true),
        "{}",
        run.report
    );
    for expected in [
        "return Character.isSpace(c);",
        "Integer.valueOf(n)",
        "type.getDeclaredConstructor().newInstance()",
        "} catch (InvocationTargetException e) {",
        "throw (RuntimeException) e.getCause();",
        "} catch (InstantiationException | IllegalAccessException | NoSuchMethodException e) {",
        "URLEncoder.encode(value, StandardCharsets.UTF_8)",
        "HttpURLConnection.HTTP_INTERNAL_ERROR",
        "file.toURI().toURL()",
        "counter.weakCompareAndSetPlain(",
        "DriverManager.setLogWriter(null)",
        "Logger.getGlobal()",
    ] {
        assert!(
            migrated.contains(expected),
            "{expected} missing from\n{migrated}"
        );
    }
    let certs = read(&project.join("src/main/java/com/example/legacy/Certs.java"));
    for expected in [
        "import java.security.cert.X509Certificate;",
        "Arrays.stream(session.getPeerCertificates()).map(X509Certificate.class::cast).toArray(X509Certificate[]::new)",
        "chain[0].getSubjectX500Principal().toString()",
        "Instant.ofEpochMilli(d.getTime()).atZone(ZoneId.systemDefault()).getYear() - 1900",
        "Instant.ofEpochMilli(d.getTime()).atZone(ZoneId.systemDefault()).getMonthValue();",
        "return new FileInputStream(path);",
    ] {
        assert!(certs.contains(expected), "{expected} missing from\n{certs}");
    }
    assert!(!certs.contains("AccessController"), "{certs}");
    // What no recipe may rewrite is named with its file and line for a human.
    let text = run.report.to_string();
    assert!(text.contains("thread-stop line 54"), "{text}");
    // The builds' own javac warnings agree: many deprecations before, those two after.
    let tests = &run.report["tests"];
    let before = tests["deprecations_before"].as_array().unwrap();
    let after = tests["deprecations_after"].as_array().unwrap();
    assert!(before.len() >= 8, "{before:?}");
    let after: Vec<&str> = after.iter().filter_map(|w| w.as_str()).collect();
    assert!(
        after.len() == 2
            && after.iter().any(|w| {
                w.starts_with("src/main/java/com/example/legacy/Legacy.java:[54,")
                    && w.contains("stop()")
            })
            && after.iter().any(|w| {
                // isSpace has no successor of the same meaning: kept (conformance names it).
                w.starts_with("src/main/java/com/example/legacy/Legacy.java:[20,")
                    && w.contains("isSpace")
            }),
        "{after:?}"
    );
    // javac on the target finds nothing deprecated left but those two calls.
    let out_dir = tempfile::tempdir().unwrap();
    let javac = Command::new("javac")
        .args(["--release", "17", "-Xlint:deprecation,removal", "-d"])
        .arg(out_dir.path())
        .arg(&source)
        .output()
        .unwrap();
    let warnings = String::from_utf8_lossy(&javac.stderr);
    assert!(javac.status.success(), "{warnings}");
    let flagged: Vec<&str> = warnings
        .lines()
        .filter(|l| l.contains("warning:"))
        .collect();
    assert!(
        flagged.len() == 2
            && flagged.iter().any(|w| w.contains("stop()"))
            && flagged.iter().any(|w| w.contains("isSpace")),
        "{warnings}"
    );
}

#[test]
fn a_project_record_type_stays_unambiguous_after_java_lang_gains_one() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("records");
    let files = [
        (
            "pom.xml",
            read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/single-junit4/pom.xml")),
        ),
        (
            "src/main/java/com/example/model/Record.java",
            "package com.example.model;\n\npublic class Record {\n    public final String id;\n\n    public Record(String id) {\n        this.id = id;\n    }\n}\n".into(),
        ),
        (
            "src/main/java/com/example/app/Store.java",
            "package com.example.app;\n\nimport com.example.model.*;\n\npublic class Store {\n    public Record latest = new Record(\"a\");\n}\n".into(),
        ),
    ];
    for (rel, text) in &files {
        let path = project.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let run = migrate(&project, &["--no-build", "--target-java", "17"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let store = read(&project.join("src/main/java/com/example/app/Store.java"));
    assert!(
        store.contains("import com.example.model.*;\nimport com.example.model.Record;\n"),
        "{store}"
    );
    // javac for 17 agrees: no "reference to Record is ambiguous".
    let out_dir = tempfile::tempdir().unwrap();
    let javac = Command::new("javac")
        .args(["--release", "17", "-d"])
        .arg(out_dir.path())
        .arg(project.join("src/main/java/com/example/model/Record.java"))
        .arg(project.join("src/main/java/com/example/app/Store.java"))
        .output()
        .unwrap();
    assert!(
        javac.status.success(),
        "{}",
        String::from_utf8_lossy(&javac.stderr)
    );
}

/// Java 8 code migrated to 21 and built on a JDK that compiles `--release 21` (found as
/// the engine finds one: `/usr/lib/jvm`, JAVA_HOME). The 21-only successors (`Locale.of`,
/// `threadId()`, `URI.create(..).toURL()`) must compile there, and the tests stay green.
#[test]
fn a_java8_project_migrated_to_21_builds_on_a_jdk_21_with_no_deprecation_left() {
    let jdks = uplift::build::jdk::discover(&std::collections::BTreeMap::new());
    let Some((jdk, None)) = uplift::build::jdk::choose(&jdks, Some(21)) else {
        panic!(
            "no installed JDK compiles --release 21 (found {:?}); install a JDK 21 or later under /usr/lib/jvm or point JAVA_HOME at one",
            jdks.iter().map(|j| j.release).collect::<Vec<_>>()
        );
    };
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("stamp");
    let files = [
        (
            "pom.xml",
            read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/single-junit4/pom.xml")),
        ),
        (
            "src/main/java/com/example/clock/Stamp.java",
            "package com.example.clock;\n\nimport java.net.MalformedURLException;\nimport java.net.URL;\nimport java.util.Locale;\n\npublic class Stamp {\n    public static String label(long n) {\n        Locale locale = new Locale(\"en\", \"US\");\n        Long boxed = new Long(n);\n        return String.format(locale, \"%d@%d\", boxed, Thread.currentThread().getId());\n    }\n\n    public static String host() throws MalformedURLException {\n        return new URL(\"https://example.com/a\").getHost();\n    }\n}\n".into(),
        ),
        (
            "src/test/java/com/example/clock/StampTest.java",
            "package com.example.clock;\n\nimport static org.junit.Assert.assertEquals;\nimport static org.junit.Assert.assertTrue;\n\nimport org.junit.Test;\n\npublic class StampTest {\n    @Test\n    public void labelsWithTheThread() {\n        assertTrue(Stamp.label(7).startsWith(\"7@\"));\n    }\n\n    @Test\n    public void readsTheHost() throws Exception {\n        assertEquals(\"example.com\", Stamp.host());\n    }\n}\n".into(),
        ),
    ];
    for (rel, text) in &files {
        let path = project.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let run = migrate(&project, &["--target-java", "21"]);
    let source = project.join("src/main/java/com/example/clock/Stamp.java");
    let migrated = read(&source);
    assert!(
        matches!(run.code, 0 | 2),
        "exit {}\n{}\n{migrated}",
        run.code,
        run.stderr
    );
    let r = &run.report;
    assert_eq!(r["tests"]["invariant"], json!(true), "{r}");
    assert_eq!(r["class_majors"]["expected"], 65, "{r}");
    for expected in [
        "Locale.of(\"en\", \"US\")",
        "Long.valueOf(n)",
        "Thread.currentThread().threadId()",
        "URI.create(\"https://example.com/a\").toURL()",
    ] {
        assert!(
            migrated.contains(expected),
            "{expected} missing from\n{migrated}"
        );
    }
    // That JDK's javac finds nothing removed or deprecated left.
    let out_dir = tempfile::tempdir().unwrap();
    let javac = Command::new(jdk.home.join("bin/javac"))
        .args(["--release", "21", "-Xlint:deprecation,removal", "-d"])
        .arg(out_dir.path())
        .arg(&source)
        .output()
        .unwrap();
    let warnings = String::from_utf8_lossy(&javac.stderr);
    assert!(
        javac.status.success() && !warnings.contains("warning:"),
        "{warnings}"
    );
}

/// A Boot 2.7 project of five modules (web, security, data, batch, configuration) moved to
/// Boot 3 without a build (no Boot 3 artifact resolves offline): no Boot-2-only name is
/// left, except those no recipe may rewrite, and each of those is listed for a human with
/// its file, line and the migration guide's replacement.
#[test]
fn a_spring_boot_2_multi_module_project_moves_to_boot_3_and_the_rest_is_left_for_a_human() {
    let (tmp, project) = fixture("spring-boot-2-multi");
    let md = tmp.path().join("report.md");
    let run = migrate(
        &project,
        &[
            "--no-build",
            "--spring-boot",
            "3",
            "--report-md",
            md.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 4, "INCOMPLETE: no build ran\n{}", run.stderr);
    let md = read(&md);
    let human = md
        .split("## Left for a human")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("no task left for a human in\n{md}"));
    let files: Vec<(String, String)> = walkdir(&project)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&project).unwrap().display().to_string();
            (rel, read(&p))
        })
        .collect();
    let text_of = |rel: &str| -> &str {
        &files
            .iter()
            .find(|(p, _)| p == rel)
            .unwrap_or_else(|| panic!("{rel} missing"))
            .1
    };
    // Names only Boot 2.7 (Framework 5, Security 5, Batch 4, Hibernate 5, Boot 2's keys and
    // test rules) knows, each of which the fixture uses.
    let gone = [
        "WebMvcConfigurerAdapter",
        "HandlerInterceptorAdapter",
        "WebSecurityConfigurerAdapter",
        "EnableGlobalMethodSecurity",
        "antMatchers",
        "authorizeRequests(",
        "JobBuilderFactory",
        "StepBuilderFactory",
        "write(List<",
        "javax.persistence",
        "javax.servlet",
        "getRawStatusCode",
        "setUseTrailingSlashMatch",
        "OutputCaptureRule",
        "SpringClassRule",
        "SpringMethodRule",
        "SpringRunner",
        "org.junit.Test",
        "org.junit.Rule",
        "context.properties.ConstructorBinding;",
        "\n  redis:",
        "\n  metrics:",
        "max-http-header-size",
        "MySQL5Dialect",
        "initialization-mode",
        "mysql-connector-java",
        "org.springframework.boot.autoconfigure.EnableAutoConfiguration",
        "<version>2.7.18</version>",
        "setReadTimeout",
    ];
    for name in gone {
        for (path, text) in &files {
            assert!(!text.contains(name), "{name:?} left in {path}:\n{text}");
        }
    }
    let pom = text_of("pom.xml");
    assert!(pom.contains("<version>3.3.5</version>"), "{pom}");
    assert!(
        text_of("web/src/test/java/com/example/shop/web/WiringTest.java")
            .contains("@ExtendWith(SpringExtension.class)")
    );
    assert!(
        text_of("web/src/main/java/com/example/shop/web/PriceClient.java")
            .contains(".setResponseTimeout(Timeout.ofMilliseconds(5000))")
    );
    let captured = text_of("web/src/test/java/com/example/shop/web/WebConfigTest.java");
    assert!(
        captured.contains("@ExtendWith(OutputCaptureExtension.class)")
            && captured.contains("public void logsStartup(CapturedOutput output)"),
        "{captured}"
    );
    assert!(
        text_of("config/src/main/resources/application.yml").ends_with(
            "management:\n  prometheus:\n    metrics:\n      export:\n        enabled: true\n"
        ),
        "{}",
        text_of("config/src/main/resources/application.yml")
    );
    assert!(
        text_of("config/src/main/resources/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")
            .contains("com.example.shop.config.ShopAutoConfiguration")
    );
    // What remains is named for a human: file, line, rule and the guide's replacement.
    let left = [
        (
            "web/src/main/java/com/example/shop/web/PriceClient.java",
            "AsyncRestTemplate async",
            "spring-framework-6/async-rest-template",
            "WebClient",
        ),
        (
            "web/src/main/java/com/example/shop/web/MetricsConfig.java",
            "public WebMvcTagsContributor",
            "spring-framework-6/web-mvc-tags-provider",
            "DefaultServerRequestObservationConvention",
        ),
        (
            "config/src/main/resources/application.yml",
            "store-type",
            "spring.session.store-type no longer exists in Spring Boot 3",
            "commented out",
        ),
    ];
    let next = regex::Regex::new(r"; (web|security|data|batch|config)/|\n").unwrap();
    for (file, needle, rule, replacement) in left {
        let text = text_of(file);
        let line = text
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in {file}:\n{text}"))
            + 1;
        // Java findings read `file: recipe/rule line N: message`, configuration ones
        // `file: line N: key ...`; findings of one task are joined by "; ".
        let start = [
            format!("{file}: {rule} line {line}: "),
            format!("{file}: line {line}: {rule}"),
        ]
        .iter()
        .find_map(|head| human.find(head.as_str()))
        .unwrap_or_else(|| panic!("{file}:{line} {rule} not left for a human:\n{human}"));
        let entry = &human[start..];
        let entry = &entry[..next.find(entry).map_or(entry.len(), |m| m.start())];
        assert!(entry.contains(replacement), "{entry}");
    }
}

/// The fixture `name` migrated: exit 0, SUCCESS, tests invariant.
fn migrated_invariant(name: &str) -> (tempfile::TempDir, PathBuf, Run) {
    let (tmp, project) = fixture(name);
    let run = migrate(&project, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.report);
    assert_eq!(run.report["outcome"], "SUCCESS", "{}", run.report);
    assert_eq!(run.report["tests"]["invariant"], true);
    (tmp, project, run)
}

/// JUnit 4 suites (one gathering another) become platform suites, and a test helper that
/// only uses JUnit 3's API (`AssertionFailedError`, no test of its own) moves with the tests:
/// before, it kept `junit.framework` while the module lost the JUnit jar, and the build went
/// red (slf4j's `BogoPerf` in the dev corpus).
#[test]
fn junit4_suites_become_platform_suites_and_a_junit3_helper_moves_too() {
    let (_tmp, project, run) = migrated_invariant("junit4-suites");
    let r = &run.report;
    let before = r["tests"]["before"].as_object().unwrap();
    let after = r["tests"]["after"].as_object().unwrap();
    assert_eq!(before.len(), 3, "{before:?}");
    assert_eq!(before, after);
    let dir = project.join("src/test/java/org/shop");
    let suite = read(&dir.join("AllTests.java"));
    assert!(
        suite.contains(
            "@Suite\n@SelectClasses({ATest.class, BTest.class})\npublic class AllTests {}"
        ),
        "{suite}"
    );
    let outer = read(&dir.join("SuiteOfSuitesTest.java"));
    assert!(
        outer.contains("@SelectClasses({AllTests.class})"),
        "{outer}"
    );
    let helper = read(&dir.join("Perf.java"));
    assert!(
        helper.contains("import org.opentest4j.AssertionFailedError;")
            && !helper.contains("junit.framework"),
        "{helper}"
    );
    let pom = read(&project.join("pom.xml"));
    assert!(
        pom.contains("<artifactId>junit-platform-suite</artifactId>"),
        "{pom}"
    );
    assert!(!pom.contains("<artifactId>junit</artifactId>"), "{pom}");
}

#[test]
fn junit3_suite_of_suites_becomes_a_platform_suite_and_its_members_convert() {
    let (_tmp, project, run) = migrated_invariant("junit3-suites");
    let r = &run.report;
    // CartTest 2 and PriceCheck 1 (run only through the suite), before and after.
    let before = r["tests"]["before"].as_object().unwrap();
    let after = r["tests"]["after"].as_object().unwrap();
    for name in [
        "com.example.shop.CartTest#testAdds",
        "com.example.shop.CartTest#testStartsEmpty",
        "com.example.shop.PriceCheck#testRejectsNegative",
    ] {
        assert_eq!(before[name], "passed", "{name} in {before:?}");
        assert_eq!(after[name], "passed", "{name} in {after:?}");
    }
    assert_eq!(before.len(), after.len());
    let dir = project.join("src/test/java/com/example/shop");
    let suite = read(&dir.join("AllTests.java"));
    for expected in [
        "@Suite\n@SuiteDisplayName(\"Shop tests\")\n@SelectClasses({CartTest.class, PriceCheck.class})\npublic class AllTests {",
        "import org.junit.platform.suite.api.Suite;",
    ] {
        assert!(suite.contains(expected), "{expected} missing from\n{suite}");
    }
    assert!(!suite.contains("junit.framework"), "{suite}");
    for member in ["CartTest.java", "PriceCheck.java"] {
        let t = read(&dir.join(member));
        assert!(
            !t.contains("junit.framework") && t.contains("@Test"),
            "{member}:\n{t}"
        );
    }
    let pom = read(&project.join("pom.xml"));
    assert!(
        pom.contains(
            "<artifactId>junit-platform-suite</artifactId>\n            <version>1.9.1</version>"
        ),
        "{pom}"
    );
    assert!(
        !pom.contains("junit-vintage-engine"),
        "JUnit 5 complete: {pom}"
    );
}
