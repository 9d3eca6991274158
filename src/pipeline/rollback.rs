//! The never-red tier: when the migrated build or tests are red, or a test no longer
//! checks what it checked, find the migrated files that caused it so they can be taken
//! back to their original text. Pure functions of the validation and the sources; the run
//! (`pipeline::mod`) restores the tree and re-runs the recipe tier without those files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::time::Instant;

use serde_json::json;

use super::Run;
use crate::journal::{
    Category, KeptFile, RollBack, Stage, StepResult, TestCheckDifference, Validation,
};
use crate::recipes::overlay::{CommitError, Overlay};
use crate::repo_path::{Gate, Origin};

/// Rounds of taking files back before the run gives every file its original text.
pub const MAX_ROUNDS: u32 = 4;

/// What a red validation points at.
#[derive(Debug, Default, PartialEq)]
pub struct Attribution {
    /// Migrated files to take back, each with the first error that named it.
    pub files: Vec<KeptFile>,
    /// Errors that name no migrated file, directly or through a file that uses one.
    pub unattributed: Vec<String>,
}

/// Maps each error of `validation` (javac's `File.java:[line,col]`, a newly failing,
/// skipped or lost test) and each changed test check to the migrated file that caused it.
/// An error in a file the run did not change blames the changed Java files whose type it
/// names (a base class, a helper). `changed` are the files the run changed; `sources` are
/// the project's Java files; `read` returns a file's current text.
pub fn attribute(
    validation: Option<&Validation>,
    checks: &[TestCheckDifference],
    changed: &[PathBuf],
    sources: &[PathBuf],
    read: impl Fn(&Path) -> Option<String>,
) -> Attribution {
    let mut found: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut unattributed = Vec::new();
    // The named file if the run changed it; the changed files it uses (a base class, a
    // helper whose migration changed behaviour) when it was not changed, or when a test
    // in it fails: all in one round, since every round is a build.
    let mut blame = |named: Option<PathBuf>, reason: String, runtime: bool| {
        let Some(named) = named else {
            unattributed.push(reason);
            return;
        };
        let own = changed.contains(&named);
        let mut culprits = if own && !runtime {
            Vec::new()
        } else {
            users_of(&named, changed, &read)
        };
        culprits.retain(|c| c != &named);
        if own {
            culprits.insert(0, named.clone());
        }
        if culprits.is_empty() {
            unattributed.push(reason);
            return;
        }
        for c in culprits {
            let why = if c == named {
                reason.clone()
            } else {
                format!("{} (uses it): {reason}", named.display())
            };
            found.entry(c).or_insert(why);
        }
    };
    for d in checks {
        blame(
            Some(d.file.clone()),
            format!("changes what a test checks: {d}"),
            false,
        );
    }
    if let Some(v) = validation {
        let run = v.build.run.as_ref();
        let compile_errors: Vec<&String> = run
            .map(|r| r.errors.iter().filter(|l| l.contains(".java:[")).collect())
            .unwrap_or_default();
        for line in &compile_errors {
            let named = javac_path(line).and_then(|p| by_suffix(p, sources));
            blame(
                named,
                format!("does not compile: {}", error_text(line)),
                false,
            );
        }
        if !v.build.compiled() && compile_errors.is_empty() {
            let first = run
                .and_then(|r| r.errors.iter().find(|l| !l.trim().is_empty()))
                .cloned()
                .or_else(|| v.build.error.clone())
                .unwrap_or_else(|| "the build failed before any test ran".into());
            blame(None, format!("build red: {}", error_text(&first)), false);
        }
        if v.build.compiled() {
            for t in &v.lost_from_source {
                let file = t.split("::").next().map(PathBuf::from);
                blame(file, format!("test lost from source: {t}"), false);
            }
            for t in v
                .newly_failing
                .iter()
                .chain(&v.newly_skipped)
                .chain(&v.no_longer_run)
            {
                let file = class_path(t).and_then(|p| by_suffix(&p, sources));
                blame(file, format!("test now fails: {t}"), true);
            }
            for t in &v.invocations_changed {
                let file = class_path(t).and_then(|p| by_suffix(&p, sources));
                blame(
                    file,
                    format!("test runs a different number of times: {t}"),
                    true,
                );
            }
        }
    }
    Attribution {
        files: found
            .into_iter()
            .map(|(path, reason)| KeptFile { path, reason })
            .collect(),
        unattributed,
    }
}

/// The `.java` path a javac error line names (`[ERROR] /x/src/A.java:[3,7] msg`).
fn javac_path(line: &str) -> Option<&str> {
    let end = line.find(".java:[")? + ".java".len();
    let start = line[..end]
        .rfind(|c: char| c.is_whitespace())
        .map_or(0, |i| i + 1);
    Some(&line[start..end])
}

/// The message after the location, without Maven's prefix.
fn error_text(line: &str) -> String {
    let text = match line
        .find(".java:[")
        .and_then(|i| line[i..].find("] ").map(|j| i + j + 2))
    {
        Some(i) => format!(
            "{}: {}",
            javac_path(line)
                .unwrap_or_default()
                .rsplit('/')
                .next()
                .unwrap_or_default(),
            &line[i..]
        ),
        None => line.trim_start_matches("[ERROR]").trim().to_string(),
    };
    text.chars().take(300).collect()
}

/// `p.T$Inner#m (failed)` -> `p/T.java`.
fn class_path(test: &str) -> Option<String> {
    let class = test.split('#').next()?.split('$').next()?.trim();
    (!class.is_empty()).then(|| format!("{}.java", class.replace('.', "/")))
}

/// The project file that `path` (absolute, or inside a sandbox mount) ends with.
fn by_suffix(path: &str, sources: &[PathBuf]) -> Option<PathBuf> {
    sources
        .iter()
        .filter(|s| {
            let s = s.to_string_lossy();
            path == s || path.ends_with(&format!("/{s}")) || s.ends_with(&format!("/{path}"))
        })
        .max_by_key(|s| s.as_os_str().len())
        .cloned()
}

/// Changed Java files whose type `file` names as a word (its base class, a helper).
fn users_of(
    file: &Path,
    changed: &[PathBuf],
    read: &impl Fn(&Path) -> Option<String>,
) -> Vec<PathBuf> {
    let Some(text) = read(file) else {
        return Vec::new();
    };
    changed
        .iter()
        .filter(|c| c.extension().is_some_and(|e| e == "java"))
        .filter(|c| {
            c.file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|name| names_word(&text, name))
        })
        .cloned()
        .collect()
}

fn names_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// Writes each file's recorded bytes back (`None`: the file did not exist, so it goes),
/// through the gate: a link the build planted meanwhile is refused, not written through.
pub(super) fn write_back(
    root: &Path,
    bytes: &BTreeMap<PathBuf, Option<Vec<u8>>>,
) -> Result<Vec<PathBuf>, CommitError> {
    let gate = Gate::new(root, Origin::Builtin);
    let mut written = Vec::new();
    for (rel, bytes) in bytes {
        let result = match bytes {
            Some(b) => gate.write(rel, b),
            None => match gate.remove(rel) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        if let Err(source) = result {
            return Err(CommitError::Partial {
                written,
                failed: rel.clone(),
                source,
            });
        }
        written.push(rel.clone());
    }
    Ok(written)
}

impl Run<'_> {
    /// Commits `overlay` after remembering the original bytes of each file it changes
    /// (the first time any tier changes it).
    pub(super) fn commit(&mut self, overlay: &Overlay) -> Result<Vec<PathBuf>, CommitError> {
        for (path, bytes) in overlay.originals_on_disk()? {
            self.pristine.entry(path).or_insert(bytes);
        }
        overlay.commit()
    }

    /// Gives every file any tier wrote its original bytes back.
    fn restore(&self) -> Result<Vec<PathBuf>, CommitError> {
        write_back(&self.opts.root, &self.pristine)
    }

    /// One round of the never-red tier: the files the red validation (or a changed test
    /// check) names are taken back and the recipe tier runs again without them; when
    /// nothing is named, or the rounds are spent, every file gets its original bytes.
    pub(super) async fn rollback(&mut self, rule: &str) -> anyhow::Result<()> {
        let t = Instant::now();
        let round = self.state.rollback_rounds + 1;
        let kept = self.journal.kept_files();
        let changed: Vec<PathBuf> = self
            .pristine
            .keys()
            .filter(|p| !kept.contains_key(*p))
            .cloned()
            .collect();
        let sources: Vec<PathBuf> = self
            .fingerprint
            .iter()
            .flat_map(|fp| fp.java_files().map(|f| f.path.clone()))
            .collect();
        let checks = self
            .journal
            .test_checks()
            .map(|(_, d)| d.to_vec())
            .unwrap_or_default();
        let validation = if self.state.validation_red {
            self.journal.validation()
        } else {
            None
        };
        let attribution = tokio::task::block_in_place(|| {
            attribute(validation, &checks, &changed, &sources, self.on_disk())
        });
        let (files, restored_all, reason) = if self.state.limit_reached {
            let why = "a limit was reached while the build was red".to_string();
            (Vec::new(), true, Some(why))
        } else if round > MAX_ROUNDS {
            let why = format!("still red after {MAX_ROUNDS} rounds of taking files back");
            (Vec::new(), true, Some(why))
        } else if attribution.files.is_empty() {
            let why = attribution
                .unattributed
                .first()
                .map(|e| format!("no migrated file is named by: {e}"))
                .unwrap_or_else(|| "no error names a migrated file".into());
            (Vec::new(), true, Some(why))
        } else {
            (attribution.files, false, None)
        };
        let inputs = json!({
            "round": round,
            "changed": changed.len(),
            "unattributed": attribution.unattributed,
        });
        let known = format!(
            "{} file(s) changed by the run, {} already kept",
            changed.len(),
            kept.len()
        );
        if let Err(CommitError::Partial {
            written,
            failed,
            source,
        }) = self.restore()
        {
            let result = StepResult::WriteFailed {
                written,
                failed,
                error: format!("restoring original text: {source}"),
            };
            return self
                .record(
                    Stage::Rollback,
                    rule,
                    &known,
                    "restore files",
                    inputs,
                    result,
                    Category::Exception,
                    t,
                )
                .await;
        }
        let intent = if restored_all {
            "give every changed file its original bytes"
        } else {
            "take back the files that made the run red, then run the recipes again without them"
        };
        let record = RollBack {
            round,
            files,
            restored_all,
            reason,
        };
        self.record(
            Stage::Rollback,
            rule,
            &known,
            intent,
            inputs,
            StepResult::RolledBack(record),
            Category::Error,
            t,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::maven::BuildRun;
    use crate::journal::BuildOutcome;

    fn validation(exit: i32, errors: &[&str], failing: &[&str]) -> Validation {
        Validation {
            executed_before: 3,
            executed_after: 3,
            green_before: 3,
            green_after: 2,
            lost_from_source: vec![],
            newly_failing: failing.iter().map(|s| s.to_string()).collect(),
            newly_skipped: vec![],
            invocations_changed: vec![],
            no_longer_run: vec![],
            build: BuildOutcome {
                jdk: Some(17),
                raised_level: None,
                run: Some(BuildRun {
                    command: "mvn".into(),
                    jdk: 17,
                    exit_code: Some(exit),
                    duration_ms: 1,
                    errors: errors.iter().map(|s| s.to_string()).collect(),
                    egress_refused: vec![],
                    deprecations: vec![],
                    ..Default::default()
                }),
                tests: Default::default(),
                error: None,
            },
            class_majors: Default::default(),
            expected_major: 61,
        }
    }

    fn paths(p: &[&str]) -> Vec<PathBuf> {
        p.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn compiler_errors_and_failing_tests_name_their_migrated_files() {
        let sources = paths(&[
            "src/test/java/p/ATest.java",
            "src/test/java/p/BTest.java",
            "src/test/java/p/CTest.java",
            "src/main/java/p/A.java",
        ]);
        let changed = paths(&[
            "src/test/java/p/ATest.java",
            "src/test/java/p/BTest.java",
            "src/test/java/p/CTest.java",
            "pom.xml",
        ]);
        let v = validation(
            1,
            &[
                "[ERROR] COMPILATION ERROR : ",
                "[ERROR] /sandbox/work/src/test/java/p/ATest.java:[22,1] cannot find symbol",
                "[ERROR] /sandbox/work/src/test/java/p/ATest.java:[30,5] cannot find symbol",
            ],
            &[],
        );
        let a = attribute(Some(&v), &[], &changed, &sources, |_| None);
        assert_eq!(a.files.len(), 1);
        assert_eq!(a.files[0].path, PathBuf::from("src/test/java/p/ATest.java"));
        assert_eq!(
            a.files[0].reason,
            "does not compile: ATest.java: cannot find symbol"
        );
        assert!(a.unattributed.is_empty());

        let green = validation(0, &[], &["p.BTest$Inner#adds (failed)"]);
        let a = attribute(Some(&green), &[], &changed, &sources, |_| None);
        assert_eq!(a.files[0].path, PathBuf::from("src/test/java/p/BTest.java"));
    }

    #[test]
    fn an_error_in_an_untouched_file_blames_the_migrated_types_it_uses() {
        let sources = paths(&["t/p/BaseTest.java", "t/p/SubTest.java", "t/p/Other.java"]);
        let changed = paths(&["t/p/BaseTest.java", "t/p/Other.java"]);
        let v = validation(
            1,
            &["[ERROR] /w/t/p/SubTest.java:[5,9] method does not override"],
            &[],
        );
        let read = |p: &Path| {
            (p == Path::new("t/p/SubTest.java"))
                .then(|| "class SubTest extends BaseTest { String OtherThing; }".to_string())
        };
        let a = attribute(Some(&v), &[], &changed, &sources, read);
        assert_eq!(a.files.len(), 1, "{a:?}");
        assert_eq!(a.files[0].path, PathBuf::from("t/p/BaseTest.java"));
        assert!(a.files[0].reason.starts_with("t/p/SubTest.java (uses it)"));
    }

    #[test]
    fn errors_naming_no_migrated_file_are_unattributed() {
        let v = validation(
            1,
            &["[ERROR] Failed to execute goal on project x: Could not resolve dependencies"],
            &[],
        );
        let a = attribute(Some(&v), &[], &paths(&["pom.xml"]), &[], |_| None);
        assert!(a.files.is_empty());
        assert_eq!(a.unattributed.len(), 1);
        assert!(a.unattributed[0].contains("Could not resolve dependencies"));
    }

    #[test]
    fn a_changed_test_check_takes_its_file_back() {
        let d = TestCheckDifference {
            file: "t/ATest.java".into(),
            test: "ATest#a".into(),
            change: "changed".into(),
            before: "assertEquals(4, f())".into(),
            after: "assertEquals(30, f())".into(),
        };
        let a = attribute(None, &[d], &paths(&["t/ATest.java"]), &[], |_| None);
        assert_eq!(a.files[0].path, PathBuf::from("t/ATest.java"));
        assert!(a.files[0].reason.contains("assertEquals(30, f())"));
    }

    #[test]
    fn word_match_respects_identifier_boundaries() {
        assert!(names_word("extends BaseTest {", "BaseTest"));
        assert!(!names_word("extends MyBaseTest {", "BaseTest"));
        assert!(!names_word("BaseTests", "BaseTest"));
    }
}
