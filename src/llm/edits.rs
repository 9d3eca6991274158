//! The structured answer a model must give: search/replace blocks per file.
//!
//! ```text
//! FILE: src/main/java/com/acme/A.java
//! <<<<<<< SEARCH
//! old lines
//! =======
//! new lines
//! >>>>>>> REPLACE
//! ```
//!
//! Blocks are validated before anything is written: the path passes the repository gate
//! ([`crate::repo_path`]: inside the project, no link, no `.git`, no workflow), each search
//! text occurs exactly once, a Java file still parses, and every test checks exactly what it
//! checked before (`analyze::test_checks`: a fix may not weaken a test).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::analyze::java::Junit3Bases;
use crate::analyze::{pom, test_checks};
use crate::java_syntax;
use crate::journal::TestCheckDifference;
use crate::repo_path::{Gate, Refusal};

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub path: PathBuf,
    pub search: String,
    pub replace: String,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Rejected {
    #[error("answer has no edit blocks")]
    Empty,
    #[error("malformed edit block at line {line}: {why}")]
    Malformed { line: usize, why: String },
    #[error("{0}")]
    Refused(Refusal),
    #[error("{path}: cannot read it")]
    Unreadable { path: PathBuf },
    #[error("{path}: search text found {found} times (must be exactly once)")]
    NotUnique { path: PathBuf, found: usize },
    #[error("{path}: the edited file does not parse")]
    Unparseable { path: PathBuf },
    #[error(
        "{path}: adds to what the build fetches or runs ({}); a fix may change versions and \
         configuration, never add plugins, executions, extensions, repositories or a parent",
        added.join(", ")
    )]
    ExtendsBuild { path: PathBuf, added: Vec<String> },
    #[error("{path}: weakens tests: {}", describe(.differences))]
    WeakensTests {
        path: PathBuf,
        differences: Vec<TestCheckDifference>,
    },
}

/// The first differences, enough for the model's retry and the report.
fn describe(differences: &[TestCheckDifference]) -> String {
    let mut shown: Vec<String> = differences
        .iter()
        .take(5)
        .map(|d| format!("{} {} `{}` -> `{}`", d.test, d.change, d.before, d.after))
        .collect();
    if differences.len() > 5 {
        shown.push(format!("and {} more", differences.len() - 5));
    }
    shown.join("; ")
}

pub fn parse(answer: &str) -> Result<Vec<Block>, Rejected> {
    let mut blocks = Vec::new();
    let mut lines = answer.lines().enumerate().peekable();
    let mut path: Option<PathBuf> = None;
    while let Some((i, line)) = lines.next() {
        if let Some(p) = line.strip_prefix("FILE:") {
            path = Some(PathBuf::from(p.trim()));
            continue;
        }
        if line.trim_end() != "<<<<<<< SEARCH" {
            continue;
        }
        let path = path.clone().ok_or(Rejected::Malformed {
            line: i + 1,
            why: "SEARCH before any FILE: line".into(),
        })?;
        let mut search = Vec::new();
        let mut replace = Vec::new();
        let mut in_replace = false;
        let mut closed = false;
        for (_, l) in lines.by_ref() {
            match l.trim_end() {
                "=======" if !in_replace => in_replace = true,
                ">>>>>>> REPLACE" if in_replace => {
                    closed = true;
                    break;
                }
                _ if in_replace => replace.push(l),
                _ => search.push(l),
            }
        }
        if !closed {
            return Err(Rejected::Malformed {
                line: i + 1,
                why: "block not closed by >>>>>>> REPLACE".into(),
            });
        }
        blocks.push(Block {
            path,
            search: join(&search),
            replace: join(&replace),
        });
    }
    if blocks.is_empty() {
        return Err(Rejected::Empty);
    }
    Ok(blocks)
}

fn join(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Applies the blocks to the files they name, read through `gate`; the new texts, or why
/// not. `junit3_bases`: the project's JUnit 3 classes, for judging what a test checks.
pub fn apply(
    blocks: &[Block],
    gate: &Gate,
    junit3_bases: &Junit3Bases,
) -> Result<BTreeMap<PathBuf, String>, Rejected> {
    let mut files: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    for b in blocks {
        gate.resolve(&b.path).map_err(Rejected::Refused)?;
        if !files.contains_key(&b.path) {
            let text = gate
                .read_to_string(&b.path)
                .map_err(|_| Rejected::Unreadable {
                    path: b.path.clone(),
                })?;
            files.insert(b.path.clone(), (text.clone(), text));
        }
        let current = &mut files.get_mut(&b.path).expect("inserted").1;
        let found = current.matches(b.search.as_str()).count();
        if found != 1 || b.search.is_empty() {
            return Err(Rejected::NotUnique {
                path: b.path.clone(),
                found,
            });
        }
        *current = current.replacen(b.search.as_str(), &b.replace, 1);
    }
    for (path, (before, after)) in &files {
        if path.extension().is_some_and(|e| e == "xml" || e == "pom") {
            build_unextended(path, before, after)?;
        }
        if path.extension().is_none_or(|e| e != "java") {
            continue;
        }
        if java_syntax::parse(after).is_none_or(|p| p.syntax_error.is_some()) {
            return Err(Rejected::Unparseable { path: path.clone() });
        }
        let differences = test_checks::compare(path, before, Some(after), junit3_bases).differences;
        if !differences.is_empty() {
            return Err(Rejected::WeakensTests {
                path: path.clone(),
                differences,
            });
        }
    }
    Ok(files
        .into_iter()
        .map(|(p, (_, after))| (p, after))
        .collect())
}

/// A model's or a solved example's edit to a Maven build file adds nothing Maven would
/// fetch or run ([`pom::build_surface`]): on the pushed branch that runs in the repository's
/// CI with its secrets, and text the prompt quoted (repository files, web pages, another
/// project's example) can ask for it. The tier is trusted with the project's code, which a
/// reviewer reads; a new plugin, execution or repository is a supply-chain change.
fn build_unextended(path: &Path, before: &str, after: &str) -> Result<(), Rejected> {
    let was = pom::build_surface(before);
    let is = pom::build_surface(after);
    if was.is_none() && is.is_none() {
        return Ok(());
    }
    let Some(is) = is else {
        return Err(Rejected::Unparseable {
            path: path.to_path_buf(),
        });
    };
    let added: Vec<String> = is.difference(&was.unwrap_or_default()).cloned().collect();
    if added.is_empty() {
        Ok(())
    } else {
        Err(Rejected::ExtendsBuild {
            path: path.to_path_buf(),
            added,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_path::{Origin, Reason};
    use std::path::Path;

    const TEST: &str = "import org.junit.jupiter.api.Test;\nclass ATest {\n    @Test\n    void a() {\n        assertEquals(1, one());\n    }\n    @Test\n    void b() {\n        assertTrue(ok());\n    }\n}\n";

    /// A project holding only `src/test/java/ATest.java`.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/test/java")).unwrap();
        std::fs::write(dir.path().join("src/test/java/ATest.java"), TEST).unwrap();
        dir
    }

    fn check(answer: &str) -> Result<BTreeMap<PathBuf, String>, Rejected> {
        let dir = project();
        apply(
            &parse(answer)?,
            &Gate::new(dir.path(), Origin::Model),
            &Junit3Bases::new(),
        )
    }

    #[test]
    fn applies_a_clean_fix() {
        let answer = "Here is the fix.\nFILE: src/test/java/ATest.java\n<<<<<<< SEARCH\n        assertEquals(1, one());\n=======\n        assertEquals(1L, one());\n>>>>>>> REPLACE\n";
        let out = check(answer).unwrap();
        assert!(out[Path::new("src/test/java/ATest.java")].contains("assertEquals(1L, one());"));
    }

    #[test]
    fn refuses_a_fix_that_deletes_a_test_or_an_assertion() {
        let delete_test = "FILE: src/test/java/ATest.java\n<<<<<<< SEARCH\n    @Test\n    void b() {\n        assertTrue(ok());\n    }\n=======\n>>>>>>> REPLACE\n";
        let Err(Rejected::WeakensTests { differences, .. }) = check(delete_test) else {
            panic!("a deleted test must be refused");
        };
        assert_eq!(differences[0].test, "ATest#b");
        assert_eq!(differences[0].change, "test method removed");
        let drop_assert = "FILE: src/test/java/ATest.java\n<<<<<<< SEARCH\n        assertTrue(ok());\n=======\n        ok();\n>>>>>>> REPLACE\n";
        assert!(matches!(
            check(drop_assert),
            Err(Rejected::WeakensTests { .. })
        ));
        // The issue's case: the expected value changed, as many assertions as before.
        let change_expected = "FILE: src/test/java/ATest.java\n<<<<<<< SEARCH\n        assertEquals(1, one());\n=======\n        assertEquals(30, one());\n>>>>>>> REPLACE\n";
        let refused = check(change_expected).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "src/test/java/ATest.java: weakens tests: ATest#a changed `assertEquals(1, one())` -> `assertEquals(30, one())`"
        );
    }

    #[test]
    fn refuses_paths_outside_ambiguous_search_and_broken_java() {
        let outside = "FILE: ../etc/passwd\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
        assert!(matches!(
            check(outside),
            Err(Rejected::Refused(Refusal {
                reason: Reason::ParentDir,
                ..
            }))
        ));
        let twice = "FILE: src/test/java/ATest.java\n<<<<<<< SEARCH\n    @Test\n=======\n    @Test\n>>>>>>> REPLACE\n";
        assert!(matches!(
            check(twice),
            Err(Rejected::NotUnique { found: 2, .. })
        ));
        let broken = "FILE: src/test/java/ATest.java\n<<<<<<< SEARCH\n        assertTrue(ok());\n=======\n        assertTrue(ok();\n>>>>>>> REPLACE\n";
        assert!(matches!(check(broken), Err(Rejected::Unparseable { .. })));
        assert_eq!(parse("no blocks here"), Err(Rejected::Empty));
    }

    const POM: &str = "<project>\n  <artifactId>a</artifactId>\n  <dependencies>\n  </dependencies>\n  <build>\n    <plugins>\n      <plugin>\n        <artifactId>maven-surefire-plugin</artifactId>\n        <version>2.12</version>\n      </plugin>\n    </plugins>\n  </build>\n</project>\n";

    /// A model (or an example) asked by text in its prompt to add a plugin that runs code,
    /// an execution, a repository, a build extension or another parent is refused by code;
    /// a version, configuration or dependency change goes through.
    #[test]
    fn refuses_edits_that_extend_what_the_build_runs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pom.xml"), POM).unwrap();
        std::fs::create_dir_all(dir.path().join(".mvn")).unwrap();
        std::fs::write(
            dir.path().join(".mvn/extensions.xml"),
            "<extensions>\n</extensions>\n",
        )
        .unwrap();
        let gate = Gate::new(dir.path(), Origin::Model);
        let edit = |path: &str, search: &str, replace: &str| {
            let answer = format!(
                "FILE: {path}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"
            );
            apply(&parse(&answer).unwrap(), &gate, &Junit3Bases::new())
        };
        let plugins = "    <plugins>";
        for (path, search, replace, added) in [
            (
                "pom.xml",
                plugins,
                "    <plugins><plugin><groupId>org.codehaus.mojo</groupId><artifactId>exec-maven-plugin</artifactId></plugin>",
                "plugin org.codehaus.mojo:exec-maven-plugin",
            ),
            (
                "pom.xml",
                "        <version>2.12</version>",
                "        <version>2.12</version>\n        <executions><execution><goals><goal>test</goal></goals></execution></executions>",
                "execution default of org.apache.maven.plugins:maven-surefire-plugin",
            ),
            (
                "pom.xml",
                "  <dependencies>",
                "  <repositories><repository><id>x</id><url>https://evil.example/m2</url></repository></repositories>\n  <dependencies>",
                "repository https://evil.example/m2",
            ),
            (
                "pom.xml",
                "  <artifactId>a</artifactId>",
                "  <parent><groupId>evil</groupId><artifactId>parent</artifactId><version>1</version></parent>\n  <artifactId>a</artifactId>",
                "parent evil:parent",
            ),
            (
                "pom.xml",
                "  <build>",
                "  <profiles><profile><build><plugins><plugin><artifactId>maven-antrun-plugin</artifactId></plugin></plugins></build></profile></profiles>\n  <build>",
                "plugin org.apache.maven.plugins:maven-antrun-plugin",
            ),
            (
                ".mvn/extensions.xml",
                "<extensions>",
                "<extensions><extension><groupId>evil</groupId><artifactId>ext</artifactId></extension>",
                "extension evil:ext",
            ),
        ] {
            match edit(path, search, replace) {
                Err(Rejected::ExtendsBuild { added: a, .. }) => {
                    assert!(a.iter().any(|x| x == added), "{added}: {a:?}")
                }
                other => panic!("{added}: {other:?}"),
            }
        }
        assert!(matches!(
            edit("pom.xml", "  </build>", "  </build"),
            Err(Rejected::Unparseable { .. })
        ));
        for (search, replace) in [
            (
                "        <version>2.12</version>",
                "        <version>2.22.2</version>\n        <configuration><trimStackTrace>false</trimStackTrace></configuration>",
            ),
            (
                "  <dependencies>",
                "  <dependencies>\n    <dependency><groupId>javax.annotation</groupId><artifactId>javax.annotation-api</artifactId><version>1.3.2</version></dependency>",
            ),
        ] {
            assert!(edit("pom.xml", search, replace).is_ok(), "{replace}");
        }
    }

    /// Paths a model answer may try: up out of the project into git, absolute, and
    /// a `.git` planted in a subdirectory; each is refused before anything is read.
    #[test]
    fn refuses_model_paths_into_git_or_out_of_the_project() {
        for (path, why) in [
            ("src/../../.git/config", Reason::ParentDir),
            ("src/../.git/config", Reason::ParentDir),
            ("/etc/passwd", Reason::Absolute),
            ("/proc/self/environ", Reason::Absolute),
            ("src/.git/hooks/pre-commit", Reason::GitDir),
            ("./.git/config", Reason::GitDir),
        ] {
            let answer = format!("FILE: {path}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
            let err = check(&answer).unwrap_err();
            assert!(
                matches!(&err, Rejected::Refused(r) if r.reason == why),
                "{path}: {err}"
            );
        }
    }

    /// A model's edit through a symlinked directory, or into `.git`, is refused with the
    /// reason and nothing outside the project changes.
    #[test]
    fn refuses_links_and_git_with_the_reason() {
        let dir = project();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("README.txt"), "outside\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("notes")).unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
        let gate = Gate::new(dir.path(), Origin::Model);
        let through_link =
            "FILE: notes/README.txt\n<<<<<<< SEARCH\noutside\n=======\npwned\n>>>>>>> REPLACE\n";
        let err = apply(&parse(through_link).unwrap(), &gate, &Junit3Bases::new()).unwrap_err();
        assert!(
            matches!(&err, Rejected::Refused(r) if r.reason == Reason::Symlink { link: "notes".into() }),
            "{err}"
        );
        assert!(err.to_string().contains("symbolic link notes"), "{err}");
        let git = "FILE: .git/config\n<<<<<<< SEARCH\n[core]\n=======\n[core]\n\thooksPath = /tmp/h\n>>>>>>> REPLACE\n";
        let err = apply(&parse(git).unwrap(), &gate, &Junit3Bases::new()).unwrap_err();
        assert!(
            matches!(&err, Rejected::Refused(r) if r.reason == Reason::GitDir),
            "{err}"
        );
        assert!(err.to_string().contains(".git directory"), "{err}");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("README.txt")).unwrap(),
            "outside\n"
        );
    }
}
