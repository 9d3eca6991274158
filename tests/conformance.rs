//! The recipe conformance suite: before/after cases as data in `tests/conformance/*.yml`.
//! Every case is checked three ways: the rewrite equals `after` exactly (or the file is
//! left alone when `after` is absent: a "must not touch" case), a second run changes
//! nothing (idempotency), and the expected findings for the next tier are reported. Every
//! Java rewrite must also leave what each test checks unchanged (`analyze::test_checks`).

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Deserialize;
use uplift::analyze::test_checks;
use uplift::build::jdk;
use uplift::config::RecipeSettings;
use uplift::recipes::dependencies::JunitMode;
use uplift::recipes::registry::Registry;
use uplift::recipes::{
    FileResult, gradle, jakarta, java_types::Project, junit5, spring_boot, spring_security,
    upgrade_versions,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Suite {
    recipe: String,
    /// How the input is read: java (default), xml, properties or yaml.
    #[serde(default)]
    kind: Option<String>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    before: String,
    after: Option<String>,
    #[serde(default)]
    findings: Vec<String>,
    /// A whole compilation unit: `before` must compile against the Spring Boot 2.7 API
    /// stubs and the output against the Boot 3.3 ones (`tests/conformance/stubs/`).
    #[serde(default)]
    compile: bool,
    /// Plain JDK code: `before` must compile with `javac --release` the first release and
    /// the output with the second (`[8, 21]`: Java 8 code migrated to 21), each on an
    /// installed JDK that accepts that release.
    #[serde(default)]
    javac_release: Option<[u32; 2]>,
    /// The other sources of the case's project (path -> text; `before` is
    /// `src/test/java/Case.java`), for recipes that decide across files: the JUnit recipe
    /// migrates them with `before`, a JDK recipe reads their classes to type `before`'s
    /// expressions; `after` is what becomes of `before`.
    #[serde(default)]
    project: BTreeMap<String, String>,
    /// Top-level types the project declares in the case's package in other files (a
    /// same-package `Character` shadows java.lang's): what a JDK recipe must leave alone.
    #[serde(default)]
    package_types: Vec<String>,
}

/// The JUnit recipe over `src` (at `src/test/java/Case.java`) and the rest of its project:
/// what becomes of `src`, and the project's texts afterwards.
fn junit_project(
    src: &str,
    project: &BTreeMap<String, String>,
) -> (FileResult, BTreeMap<String, String>) {
    let case = ("src/test/java/Case.java".to_string(), src.to_string());
    let files: Vec<(String, String)> = std::iter::once(case).chain(project.clone()).collect();
    let sources: Vec<junit5::custom_rules::Source> = files
        .iter()
        .map(|(path, text)| junit5::custom_rules::Source {
            path: Path::new(path),
            module: 0,
            test_source: path.starts_with("src/test/"),
            text,
        })
        .collect();
    let mut outcomes = junit5::migrate_project(&sources).into_iter();
    let first = file_result(outcomes.next().unwrap());
    let after = files[1..]
        .iter()
        .zip(outcomes)
        .map(|((path, text), o)| (path.clone(), file_result(o).text.unwrap_or(text.clone())))
        .collect();
    (first, after)
}

fn file_result(outcome: junit5::FileOutcome) -> FileResult {
    match outcome {
        junit5::FileOutcome::Rewritten { text, changes } => FileResult {
            text: Some(text),
            changes,
            findings: vec![],
        },
        junit5::FileOutcome::LeftOnJunit4 { reason } => FileResult {
            findings: vec![reason],
            ..Default::default()
        },
        _ => FileResult::default(),
    }
}

fn run(registry: &Registry, recipe: &str, kind: &str, src: &str, case: &Case) -> FileResult {
    match (recipe, kind) {
        ("javax-to-jakarta", "java") => jakarta::java_file(src),
        ("javax-to-jakarta", k) => jakarta::resource_file(src, k == "xml"),
        ("spring-boot-3", k) => spring_boot::config_file(src, k == "yaml"),
        ("spring-security-filter-chain", _) => spring_security::adapter(src),
        // Scripts are migrated to 17 with jakarta and Boot 3 planned and every test converted.
        ("gradle-build", _) => {
            let mut moves = upgrade_versions::dependency_moves(17);
            moves.extend(jakarta::TABLE.artifacts.iter().cloned());
            moves.extend(spring_boot::artifacts().iter().cloned());
            gradle::script(
                src,
                &gradle::Inputs {
                    target: 17,
                    jupiter: "5.11.4",
                    junit: src.contains("junit:junit").then_some(JunitMode::Replace),
                    moves: &moves,
                    spring_boot: Some("3.3.5"),
                },
            )
        }
        ("junit4-to-jupiter", _) => file_result(junit5::migrate(src)),
        (id, _) => registry
            .get(id)
            .unwrap_or_else(|| panic!("unknown recipe {id}"))
            .apply(
                src,
                &Project::of_sources(
                    std::iter::once(src)
                        .chain(case.project.values().map(String::as_str))
                        .collect(),
                    &case.package_types,
                ),
            ),
    }
}

#[test]
fn conformance_suite() {
    let registry = Registry::load(None, &RecipeSettings::default()).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        // `CONFORMANCE_ONLY=junit4` runs the suites whose file name contains it (while
        // working on one recipe); unset, every suite runs.
        .filter(|p| {
            std::env::var("CONFORMANCE_ONLY").map_or(true, |only| {
                p.file_stem()
                    .is_some_and(|s| s.to_string_lossy().contains(&only))
            })
        })
        .collect();
    files.sort();
    let (mut cases, mut failures) = (0, Vec::new());
    let mut to_compile: Vec<(String, String, String)> = Vec::new();
    let mut on_jdk: Vec<OnJdk> = Vec::new();
    let mut tests_judged = 0;
    for file in &files {
        let suite: Suite = serde_saphyr::from_str(&std::fs::read_to_string(file).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let kind = suite.kind.as_deref().unwrap_or("java");
        for case in &suite.cases {
            cases += 1;
            let label = format!("{} / {}", suite.recipe, case.name);
            let junit_across_files = !case.project.is_empty() && suite.recipe.starts_with("junit");
            let (first, project_after) = if !junit_across_files {
                let first = run(&registry, &suite.recipe, kind, &case.before, case);
                (first, BTreeMap::new())
            } else {
                junit_project(&case.before, &case.project)
            };
            let output = first.text.clone().unwrap_or_else(|| case.before.clone());
            let expected = case.after.as_ref().unwrap_or(&case.before);
            if &output != expected {
                failures.push(format!(
                    "{label}: output differs\n--- expected\n{expected}\n--- got\n{output}"
                ));
                continue;
            }
            if kind == "java" {
                let c = test_checks::compare(
                    Path::new("Case.java"),
                    &case.before,
                    Some(&output),
                    &Default::default(),
                );
                tests_judged += c.tests;
                for d in c.differences {
                    failures.push(format!(
                        "{label}: the rewrite changes what a test checks: {d}"
                    ));
                }
            }
            if case.compile {
                to_compile.push((label.clone(), case.before.clone(), output.clone()));
            }
            if let Some(releases) = case.javac_release {
                on_jdk.push(OnJdk {
                    label: label.clone(),
                    before: case.before.clone(),
                    after: output.clone(),
                    releases,
                    project: case.project.clone(),
                });
            }
            let second = if !junit_across_files {
                run(&registry, &suite.recipe, kind, &output, case)
            } else {
                junit_project(&output, &project_after).0
            };
            if second.text.is_some_and(|t| t != output) {
                failures.push(format!("{label}: not idempotent"));
            }
            for f in &case.findings {
                if !first.findings.iter().any(|x| x.contains(f.as_str())) {
                    failures.push(format!(
                        "{label}: finding {f:?} missing from {:?}",
                        first.findings
                    ));
                }
            }
            if case.findings.is_empty() && !first.findings.is_empty() {
                failures.push(format!("{label}: unexpected findings {:?}", first.findings));
            }
        }
    }
    failures.extend(compile_against_stubs(&to_compile));
    failures.extend(compile_on_jdk_releases(&on_jdk));
    println!(
        "{} suites, {cases} cases, {tests_judged} test methods judged invariant, {} compiled \
         before and after against the Spring stubs, {} on the JDK releases they name",
        files.len(),
        to_compile.len(),
        on_jdk.len()
    );
    assert!(cases > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if std::env::var_os("CONFORMANCE_ONLY").is_none() {
        assert!(
            to_compile.len() >= 10,
            "the Spring recipes' cases compile against the API stubs"
        );
        assert!(
            tests_judged > 20,
            "the invariance property must judge the JUnit cases"
        );
    }
}

/// Signature stubs of the Spring APIs the cases use, written from the published Javadoc:
/// `boot-2.7` (Security 5.7, Framework 5.3, Batch 4.3, Kafka 2.8) and `boot-3.3` (Security
/// 6.3, Framework 6.1, Batch 5.1, Kafka 3.2), each with `common` (what both versions share),
/// compiled once per run.
fn compiled_stubs(out: &Path) -> [std::path::PathBuf; 2] {
    let stubs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/stubs");
    ["boot-2.7", "boot-3.3"].map(|version| {
        let classes = out.join(version);
        let mut sources = Vec::new();
        java_files(&stubs.join("common"), &mut sources);
        java_files(&stubs.join(version), &mut sources);
        javac(&classes, None, &sources).unwrap_or_else(|e| panic!("stubs {version}: {e}"));
        classes
    })
}

fn java_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            java_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "java") {
            out.push(p);
        }
    }
}

fn javac(
    out: &Path,
    classpath: Option<&Path>,
    sources: &[std::path::PathBuf],
) -> Result<(), String> {
    let javac = std::env::var_os("JAVA_HOME")
        .map(|h| Path::new(&h).join("bin/javac"))
        .filter(|p| p.exists())
        .unwrap_or_else(|| "javac".into());
    javac_with(&javac, &[], out, classpath, sources)
}

fn javac_with(
    javac: &Path,
    args: &[&str],
    out: &Path,
    classpath: Option<&Path>,
    sources: &[std::path::PathBuf],
) -> Result<(), String> {
    let mut cmd = std::process::Command::new(javac);
    cmd.args(args);
    cmd.args(["-nowarn", "-proc:none", "-d"]).arg(out);
    if let Some(cp) = classpath {
        cmd.arg("-cp").arg(cp);
    }
    let result = cmd
        .args(sources)
        .output()
        .map_err(|e| format!("javac: {e}"))?;
    if result.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&result.stderr).into_owned())
    }
}

/// A case compiled on the JDK releases it names, with the other files of its project.
struct OnJdk {
    label: String,
    before: String,
    after: String,
    releases: [u32; 2],
    project: BTreeMap<String, String>,
}

/// Each case's `before` with `javac --release` its first release, its output with the
/// second, on the oldest installed JDK that accepts each (`uplift::build::jdk::choose`),
/// each together with the case's other project files, so a change one file's migration
/// makes for the others (a retyped shared constant, say) is compiled where they read it.
fn compile_on_jdk_releases(cases: &[OnJdk]) -> Vec<String> {
    if cases.is_empty() {
        return Vec::new();
    }
    let jdks = jdk::discover(&BTreeMap::new());
    let tmp = std::env::temp_dir().join(format!("uplift-conformance-jdk-{}", std::process::id()));
    let failures = cases
        .par_iter()
        .enumerate()
        .flat_map(|(i, case)| {
            let label = &case.label;
            let mut failures = Vec::new();
            for (which, source, release) in [
                ("before", &case.before, case.releases[0]),
                ("after", &case.after, case.releases[1]),
            ] {
                let Some((jdk, None)) = jdk::choose(&jdks, Some(release)) else {
                    failures.push(format!(
                        "{label}: no installed JDK compiles --release {release}"
                    ));
                    continue;
                };
                let dir = tmp.join(format!("case{i}-{which}"));
                std::fs::create_dir_all(&dir).unwrap();
                let file = dir.join(format!("{}.java", class_name(source)));
                std::fs::write(&file, source).unwrap();
                let mut files = vec![file];
                for (path, text) in &case.project {
                    let other = dir.join("project").join(path);
                    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
                    std::fs::write(&other, text).unwrap();
                    files.push(other);
                }
                let release_arg = release.to_string();
                let javac = jdk.home.join("bin/javac");
                if let Err(e) = javac_with(&javac, &["--release", &release_arg], &dir, None, &files)
                {
                    failures.push(format!(
                        "{label}: {which} does not compile with javac {} --release {release}:\n{e}",
                        jdk.release
                    ));
                }
            }
            failures
        })
        .collect();
    let _ = std::fs::remove_dir_all(&tmp);
    failures
}

/// The first top-level class or interface a source declares (its file name).
fn class_name(source: &str) -> String {
    let re = regex::Regex::new(
        r"(?m)^(?:public\s+)?(?:final\s+|abstract\s+)*(?:class|interface)\s+(\w+)",
    )
    .unwrap();
    re.captures(source)
        .map_or("Case".to_string(), |c| c[1].to_string())
}

/// Each case's `before` against the 2.7 stubs, its output against the 3.3 stubs.
fn compile_against_stubs(cases: &[(String, String, String)]) -> Vec<String> {
    if cases.is_empty() {
        return Vec::new();
    }
    let tmp = std::env::temp_dir().join(format!("uplift-conformance-{}", std::process::id()));
    let stubs = compiled_stubs(&tmp);
    let failures = cases
        .par_iter()
        .enumerate()
        .flat_map(|(i, (label, before, after))| {
            let mut failures = Vec::new();
            for (version, source, classes) in
                [("2.7", before, &stubs[0]), ("3.3", after, &stubs[1])]
            {
                let dir = tmp.join(format!("case{i}-{version}"));
                std::fs::create_dir_all(&dir).unwrap();
                let file = dir.join(format!("{}.java", class_name(source)));
                std::fs::write(&file, source).unwrap();
                if let Err(e) = javac(&dir, Some(classes), &[file]) {
                    let which = if version == "2.7" { "before" } else { "after" };
                    failures.push(format!(
                        "{label}: {which} does not compile against the Boot {version} stubs:\n{e}"
                    ));
                }
            }
            failures
        })
        .collect();
    let _ = std::fs::remove_dir_all(&tmp);
    failures
}
