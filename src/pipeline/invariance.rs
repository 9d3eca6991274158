//! The run's whole diff, judged after the write and after every applied fix: each test
//! must still check what it checked in the original sources, whichever tier (recipe,
//! solved example, model) changed the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use super::Run;
use crate::analyze::java::Junit3Bases;
use crate::analyze::test_checks;
use crate::journal::{Category, Stage, StepResult};
use crate::recipes::java_rules::JavaRecipe;
use crate::recipes::java_types::Project;

/// Compares each original Java text with its current text (`None`: deleted). `equivalent`
/// applies to the original the rewrites that keep a check's meaning by construction (the
/// built-in API recipes this run used, e.g. `new Integer(12)` -> `Integer.valueOf(12)`),
/// so only other changes count; a repository's own recipes are never among them.
pub(super) fn judge(
    originals: &BTreeMap<PathBuf, String>,
    current: impl Fn(&Path) -> Option<String>,
    equivalent: impl Fn(&str) -> String,
    junit3_bases: &Junit3Bases,
) -> StepResult {
    let mut tests = 0;
    let mut differences = Vec::new();
    for (path, before) in originals {
        let before = equivalent(before);
        let c = test_checks::compare(path, &before, current(path).as_deref(), junit3_bases);
        tests += c.tests;
        differences.extend(c.differences);
    }
    StepResult::InvarianceChecked {
        files: originals.len(),
        tests,
        differences,
    }
}

/// A Java file's original text, kept the first time any tier changes it.
pub(super) fn remember(originals: &mut BTreeMap<PathBuf, String>, path: &Path, before: &str) {
    if path.extension().is_some_and(|e| e == "java") {
        originals
            .entry(path.to_path_buf())
            .or_insert_with(|| before.to_string());
    }
}

impl Run<'_> {
    /// The sources as they are on disk now, each read in its module's encoding.
    pub(super) fn on_disk(&self) -> impl Fn(&Path) -> Option<String> + use<> {
        let mut overlay = crate::recipes::overlay::Overlay::new(&self.opts.root);
        if let Some(fp) = &self.fingerprint {
            overlay.set_encodings(fp.non_utf8_sources());
        }
        move |p| overlay.text(p).ok()
    }

    /// The project's JUnit 3 classes, as the fingerprint found them.
    pub(super) fn junit3_bases(&self) -> Junit3Bases {
        self.fingerprint
            .as_ref()
            .map(|fp| fp.junit3_classes())
            .unwrap_or_default()
    }

    /// Records the comparison of every changed Java file with its original.
    pub(super) async fn check_invariance(
        &mut self,
        stage: Stage,
        rule: &str,
        current: impl Fn(&Path) -> Option<String>,
    ) -> anyhow::Result<()> {
        let t = Instant::now();
        let builtin: Vec<&JavaRecipe> = match &self.registry {
            Some(registry) => registry
                .active(&self.opts.config)
                .filter(|r| !registry.from_repository(&r.id))
                .collect(),
            None => Vec::new(),
        };
        let equivalent = |src: &str| {
            builtin.iter().fold(src.to_string(), |text, recipe| {
                recipe
                    .apply(&text, &Project::default())
                    .text
                    .unwrap_or(text)
            })
        };
        let bases = self.junit3_bases();
        let result =
            tokio::task::block_in_place(|| judge(&self.originals, current, equivalent, &bases));
        let category = match &result {
            StepResult::InvarianceChecked { differences, .. } if !differences.is_empty() => {
                Category::Error
            }
            StepResult::InvarianceChecked { tests: 0, .. } => Category::Empty,
            _ => Category::Success,
        };
        self.record(
            stage,
            rule,
            &format!("{} changed Java files", self.originals.len()),
            "every test checks what it checked before",
            json!({}),
            result,
            category,
            t,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_every_changed_file_against_its_first_original() {
        let none = Junit3Bases::new();
        let mut originals = BTreeMap::new();
        let test =
            "class ATest {\n  @org.junit.jupiter.api.Test void a() { assertEquals(4, f()); }\n}\n";
        remember(&mut originals, Path::new("ATest.java"), test);
        // A later tier's "before" is not the original: the first one stays.
        remember(&mut originals, Path::new("ATest.java"), "class ATest {}");
        remember(&mut originals, Path::new("pom.xml"), "<project/>");
        assert_eq!(originals.len(), 1);
        let same = judge(
            &originals,
            |_| Some(test.to_string()),
            str::to_string,
            &none,
        );
        assert_eq!(
            same,
            StepResult::InvarianceChecked {
                files: 1,
                tests: 1,
                differences: vec![]
            }
        );
        let weakened = judge(
            &originals,
            |_| Some(test.replace("4,", "30,")),
            str::to_string,
            &none,
        );
        let StepResult::InvarianceChecked { differences, .. } = weakened else {
            panic!("a comparison");
        };
        assert_eq!(differences.len(), 1);
        assert_eq!(differences[0].before, "assertEquals(4, f())");
    }

    /// Built-in API rewrites inside assertions, by a rule (`new Integer(12)`) and by a code
    /// half (`Class.newInstance()`, which also widens the method's throws clause).
    #[test]
    fn a_builtin_api_rewrite_inside_an_assertion_is_not_a_difference() {
        let cases = [
            (
                "wrapper-constructors",
                "class ATest {\n  @org.junit.jupiter.api.Test void a() { assertEquals(\"12\", f(new Integer(12))); }\n}\n",
            ),
            (
                "deprecated-jdk-renames",
                "class ATest {\n  @org.junit.jupiter.api.Test void a() throws InstantiationException, IllegalAccessException {\n    assertNotNull(ATest.class.newInstance());\n  }\n}\n",
            ),
        ];
        let none = Junit3Bases::new();
        for (id, before) in cases {
            let recipe = crate::recipes::java_rules::BUILTIN_SOURCES
                .iter()
                .map(|s| JavaRecipe::parse(s).unwrap())
                .find(|r| r.id == id)
                .unwrap();
            let equivalent = |src: &str| {
                recipe
                    .apply(src, &Project::default())
                    .text
                    .unwrap_or_else(|| src.to_string())
            };
            let after = equivalent(before);
            assert_ne!(after, before, "{id} rewrites the case");
            let mut originals = BTreeMap::new();
            remember(&mut originals, Path::new("ATest.java"), before);
            let plain = judge(&originals, |_| Some(after.clone()), str::to_string, &none);
            assert!(
                matches!(&plain, StepResult::InvarianceChecked { differences, .. } if differences.len() == 1),
                "{id}: without the recipe the change counts: {plain:?}"
            );
            let judged = judge(&originals, |_| Some(after.clone()), equivalent, &none);
            assert!(
                matches!(&judged, StepResult::InvarianceChecked { differences, .. } if differences.is_empty()),
                "{id}: {judged:?}"
            );
        }
    }
}
