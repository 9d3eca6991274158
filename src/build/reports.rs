//! Surefire/Failsafe XML reports (`TEST-*.xml`) read into per-test results.

use std::path::{Path, PathBuf};

pub use crate::evidence::{TestResults, TestStatus};

/// Largest report read. Surefire's reports are kilobytes to megabytes; a build can write
/// one of gigabytes, which must not land in the worker's memory.
pub const MAX_REPORT_BYTES: u64 = 128 << 20;

fn report_dirs(root: &Path) -> Vec<PathBuf> {
    super::output_tree(root)
        .filter(|e| {
            e.file_type().is_dir()
                && matches!(
                    e.file_name().to_str(),
                    Some("surefire-reports" | "failsafe-reports")
                )
        })
        .map(|e| e.into_path())
        .collect()
}

/// Removes what a previous build left in every module's `target/` (classes, test classes,
/// reports) so a run only sees its own output. This is `mvn clean` without needing the
/// clean plugin, which offline or locked-down builds may not have.
pub fn clear_outputs(root: &Path) -> std::io::Result<()> {
    clear(
        root,
        &[
            "classes",
            "test-classes",
            "surefire-reports",
            "failsafe-reports",
        ],
    )
}

/// Removes only the test reports, so a re-run of some tests over compiled classes reports
/// those tests alone.
pub fn clear_reports(root: &Path) -> std::io::Result<()> {
    clear(root, &["surefire-reports", "failsafe-reports"])
}

fn clear(root: &Path, subdirs: &[&str]) -> std::io::Result<()> {
    let targets = super::output_tree(root)
        .filter(|e| {
            e.file_type().is_dir()
                && e.file_name() == "target"
                && e.path()
                    .parent()
                    .is_some_and(|p| p.join("pom.xml").is_file())
        })
        .map(|e| e.into_path())
        .collect::<Vec<_>>();
    for target in targets {
        for sub in subdirs {
            let dir = target.join(sub);
            if dir.is_dir() {
                std::fs::remove_dir_all(dir)?;
            }
        }
    }
    Ok(())
}

pub fn collect(root: &Path) -> TestResults {
    let mut results = TestResults::default();
    for dir in report_dirs(root) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        // The build wrote these: a link it planted must not make Uplift read a host file.
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"))
            })
            .collect();
        files.sort();
        for file in files {
            results.report_files += 1;
            // Shown lossily: the build names these files, and the journal holds text.
            let rel = PathBuf::from(
                file.strip_prefix(root)
                    .unwrap_or(&file)
                    .to_string_lossy()
                    .into_owned(),
            );
            match read_report(&file)
                .map_err(|e| e.to_string())
                .and_then(|t| parse(&t))
            {
                Ok(tests) => {
                    // One file reports a class once; the same class in two files (two
                    // suites) ran its invocations in each, so the larger count stands.
                    let mut runs = std::collections::BTreeMap::<&str, usize>::new();
                    for (k, _) in &tests {
                        *runs.entry(k.as_str()).or_default() += 1;
                    }
                    for (k, n) in runs.into_iter().filter(|(_, n)| *n > 1) {
                        let e = results.invocations.entry(k.to_string()).or_default();
                        *e = (*e).max(n);
                    }
                    for (k, s) in tests {
                        // A test reported twice (reruns, two suites) counts by its worst status.
                        let e = results.tests.entry(k).or_insert(s);
                        if severity(s) > severity(*e) {
                            *e = s;
                        }
                    }
                }
                Err(e) => results.unreadable.push((rel, e)),
            }
        }
    }
    results
}

/// A report's text, unless it is larger than [`MAX_REPORT_BYTES`].
fn read_report(file: &Path) -> std::io::Result<String> {
    let bytes = crate::repo_path::read_capped(std::fs::File::open(file)?, MAX_REPORT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

fn severity(s: TestStatus) -> u8 {
    match s {
        TestStatus::Passed => 0,
        TestStatus::Skipped => 1,
        TestStatus::Failed => 2,
        TestStatus::Errored => 3,
    }
}

/// Parses one report. Errors name what is malformed instead of guessing.
pub fn parse(text: &str) -> Result<Vec<(String, TestStatus)>, String> {
    let doc = roxmltree::Document::parse(text).map_err(|e| format!("malformed XML: {e}"))?;
    let root = doc.root_element();
    if !matches!(root.tag_name().name(), "testsuite" | "testsuites") {
        return Err(format!("unexpected root <{}>", root.tag_name().name()));
    }
    let mut out = Vec::new();
    for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
        let name = case.attribute("name").ok_or("testcase without name")?;
        let class = case.attribute("classname").unwrap_or("");
        let status = if case.children().any(|c| c.has_tag_name("error")) {
            TestStatus::Errored
        } else if case.children().any(|c| c.has_tag_name("failure")) {
            TestStatus::Failed
        } else if case.children().any(|c| c.has_tag_name("skipped")) {
            TestStatus::Skipped
        } else {
            TestStatus::Passed
        };
        // One key per test method: JUnit 5 names end in "(params)", parameterized runs add
        // an index or parameter types (JUnit 4 `m[0]`, Jupiter `m(int)[1]` or, through
        // Surefire 2.22, `m{int}`). A Java method name never holds '(', '[' or '{', so the
        // prefix is the method; invocations merge by their worst status.
        let method = name.split(['(', '[', '{']).next().unwrap_or(name);
        out.push((format!("{class}#{method}"), status));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_statuses() {
        let xml = r#"<testsuite name="s"><testcase name="a" classname="p.T"/>
            <testcase name="b()" classname="p.T"><failure message="x"/></testcase>
            <testcase name="c" classname="p.T"><skipped/></testcase>
            <testcase name="d" classname="p.T"><error type="E"/></testcase>
            <testcase name="e[0: fib(1)]" classname="p.T"/>
            <testcase name="e(int, int)[2]" classname="p.T"/>
            <testcase name="e{int, int}" classname="p.T"/></testsuite>"#;
        let r = parse(xml).unwrap();
        assert_eq!(
            r,
            vec![
                ("p.T#a".into(), TestStatus::Passed),
                ("p.T#b".into(), TestStatus::Failed),
                ("p.T#c".into(), TestStatus::Skipped),
                ("p.T#d".into(), TestStatus::Errored),
                ("p.T#e".into(), TestStatus::Passed),
                ("p.T#e".into(), TestStatus::Passed),
                ("p.T#e".into(), TestStatus::Passed),
            ]
        );
    }

    /// Parameterized invocations fold into one status per method and are counted; the same
    /// class in two report files is counted once.
    #[test]
    fn invocations_of_parameterized_tests_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pom.xml"), "<project/>").unwrap();
        let xml = r#"<testsuite name="s"><testcase name="a" classname="p.T"/>
            <testcase name="e[0: 1]" classname="p.T"/><testcase name="e[1: 2]" classname="p.T"/>
            <testcase name="e[2: 3]" classname="p.T"><failure/></testcase></testsuite>"#;
        for sub in ["surefire-reports", "failsafe-reports"] {
            let reports = dir.path().join("target").join(sub);
            std::fs::create_dir_all(&reports).unwrap();
            std::fs::write(reports.join("TEST-p.T.xml"), xml).unwrap();
        }
        let r = collect(dir.path());
        assert_eq!(r.tests["p.T#e"], TestStatus::Failed);
        assert_eq!(r.invocations_of("p.T#e"), 3);
        assert_eq!(r.invocations_of("p.T#a"), 1);
        assert_eq!(r.invocations.len(), 1);
    }

    #[test]
    fn malformed_reports_are_errors() {
        assert!(
            parse("<testsuite><testcase name=")
                .unwrap_err()
                .contains("malformed")
        );
        assert!(parse("<html/>").is_err());
    }

    #[test]
    fn reports_the_build_linked_to_host_files_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let reports = dir.path().join("project/target/surefire-reports");
        std::fs::create_dir_all(&reports).unwrap();
        std::fs::write(dir.path().join("project/pom.xml"), "<project/>").unwrap();
        let xml = r#"<testsuite name="s"><testcase name="a" classname="p.T"/></testsuite>"#;
        std::fs::write(reports.join("TEST-p.T.xml"), xml).unwrap();
        let outside = dir.path().join("host-secret.xml");
        std::fs::write(&outside, xml.replace("p.T", "host.Secret")).unwrap();
        std::os::unix::fs::symlink(&outside, reports.join("TEST-host.xml")).unwrap();
        let r = collect(&dir.path().join("project"));
        assert_eq!(r.report_files, 1);
        assert_eq!(r.tests.keys().cloned().collect::<Vec<_>>(), ["p.T#a"]);
    }

    /// A build can write a report of gigabytes (up to the sandbox's file size limit): it is
    /// named unreadable, not read into the worker's memory.
    #[test]
    fn an_oversized_report_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let reports = dir.path().join("target/surefire-reports");
        std::fs::create_dir_all(&reports).unwrap();
        std::fs::write(dir.path().join("pom.xml"), "<project/>").unwrap();
        std::fs::File::create(reports.join("TEST-big.xml"))
            .unwrap()
            .set_len(MAX_REPORT_BYTES + 1)
            .unwrap();
        let r = collect(dir.path());
        assert_eq!(r.report_files, 1);
        assert_eq!(r.unreadable.len(), 1);
        assert!(
            r.unreadable[0].1.contains("larger than"),
            "{:?}",
            r.unreadable
        );
    }
}
