//! Every recipe a run can use: the code recipes, the built-in declarative catalog, and the
//! repository's own declarative recipes (`recipes.dir`, default `.uplift/recipes/*.yml`, and
//! `recipes.custom` in the config). `uplift recipes list|show` renders this.

use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use crate::config::{Config, RecipeSettings};
use crate::repo_path::{Gate, Origin, Refusal};

use super::java_rules::{JavaRecipe, Preconditions};
use super::{code_recipes, java_rules};

/// What `uplift recipes` shows about one recipe.
#[derive(Debug, Clone, Serialize)]
pub struct RecipeInfo {
    pub id: String,
    pub description: String,
    /// `code` (a Rust recipe), `java-rules` (ast-grep rules) or `table` (code over a data file).
    pub kind: &'static str,
    /// `builtin`, or the file/config that declared it.
    pub origin: String,
    pub preconditions: Preconditions,
    /// The declaration (YAML) for declarative recipes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

pub struct Registry {
    java: Vec<(String, JavaRecipe)>,
    /// Recipe paths the repository gate refused (outside the root, through a link).
    refused: Vec<Refusal>,
}

const BUILTIN: &str = "builtin";

/// The most rules a repository's own recipes (files and `recipes.custom` together) may hold.
/// Each runs over every Java file in the worker's process, and the run's wall-clock budget is
/// checked between stages, not inside one: 3,000 one-line recipe files took 13 s on four
/// files, so a repository could hold a worker for hours. A project's own migrations are a
/// handful of rules.
pub const MAX_OWN_RULES: usize = 256;

impl Registry {
    /// Built-in recipes plus the repository's own; a broken user recipe is an error that
    /// names its file, never silently skipped. A `recipes.dir` or recipe file the repository
    /// gate refuses is not read, and listed in [`Registry::refused`].
    pub fn load(root: Option<&Path>, settings: &RecipeSettings) -> anyhow::Result<Self> {
        let mut java: Vec<(String, JavaRecipe)> = java_rules::BUILTIN_SOURCES
            .iter()
            .map(|src| JavaRecipe::parse(src).map(|r| (BUILTIN.to_string(), r)))
            .collect::<anyhow::Result<_>>()?;
        let mut refused = Vec::new();
        if let Some(root) = root {
            let gate = Gate::new(root, Origin::Repository);
            match gate.resolve(&settings.dir) {
                Err(r) => refused.push(r),
                Ok(dir) if dir.is_dir() => {
                    let mut files: Vec<_> = std::fs::read_dir(&dir)?
                        .flatten()
                        .map(|e| settings.dir.join(e.file_name()))
                        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
                        .collect();
                    files.sort();
                    anyhow::ensure!(
                        files.len() <= MAX_OWN_RULES,
                        "{}: {} recipe files; a repository's recipes may hold at most {MAX_OWN_RULES} rules",
                        settings.dir.display(),
                        files.len()
                    );
                    for rel in files {
                        if let Err(r) = gate.resolve(&rel) {
                            refused.push(r);
                            continue;
                        }
                        let text = gate.read_to_string(&rel)?;
                        let recipe = JavaRecipe::parse(&text)
                            .with_context(|| format!("recipe file {}", rel.display()))?;
                        java.push((rel.display().to_string(), recipe));
                    }
                }
                Ok(_) => {}
            }
        }
        for (i, value) in settings.custom.iter().enumerate() {
            let text = serde_json::to_string(value)?;
            let recipe = JavaRecipe::parse(&text)
                .with_context(|| format!("recipes.custom[{i}] in the config"))?;
            java.push(("config recipes.custom".to_string(), recipe));
        }
        let own: usize = java
            .iter()
            .filter(|(origin, _)| origin != BUILTIN)
            .map(|(_, r)| r.rule_ids().count())
            .sum();
        anyhow::ensure!(
            own <= MAX_OWN_RULES,
            "the repository's recipes hold {own} rules; at most {MAX_OWN_RULES}"
        );
        let mut ids = std::collections::BTreeSet::new();
        for (origin, r) in &java {
            anyhow::ensure!(
                ids.insert(r.id.clone()) && !code_recipes().iter().any(|c| c.0 == r.id),
                "recipe id {} ({origin}) is already taken",
                r.id
            );
        }
        Ok(Self { java, refused })
    }

    pub fn refused(&self) -> &[Refusal] {
        &self.refused
    }

    /// Whether the recipe came from the repository rather than from Uplift.
    pub fn from_repository(&self, id: &str) -> bool {
        self.java
            .iter()
            .any(|(origin, r)| r.id == id && origin != BUILTIN)
    }

    /// The declarative Java recipes this run uses, in catalog order.
    pub fn active<'a>(&'a self, config: &'a Config) -> impl Iterator<Item = &'a JavaRecipe> {
        self.java
            .iter()
            .map(|(_, r)| r)
            .filter(move |r| enabled(&r.id, &r.when, config))
    }

    pub fn get(&self, id: &str) -> Option<&JavaRecipe> {
        self.java.iter().map(|(_, r)| r).find(|r| r.id == id)
    }

    pub fn describe(&self) -> Vec<RecipeInfo> {
        let mut out: Vec<RecipeInfo> = code_recipes()
            .iter()
            .map(|(id, kind, description)| RecipeInfo {
                id: id.to_string(),
                description: description.to_string(),
                kind,
                origin: BUILTIN.into(),
                preconditions: Preconditions::default(),
                source: None,
            })
            .collect();
        out.extend(self.java.iter().map(|(origin, r)| RecipeInfo {
            id: r.id.clone(),
            description: r.description.clone(),
            kind: "java-rules",
            origin: origin.clone(),
            preconditions: r.when.clone(),
            source: Some(r.source.clone()),
        }));
        out
    }
}

/// Whether a declarative recipe runs under this config.
fn enabled(id: &str, when: &Preconditions, config: &Config) -> bool {
    let listed = |l: &[String]| l.iter().any(|x| x == id);
    !listed(&config.recipes.disable)
        && (!when.opt_in || listed(&config.recipes.enable))
        && when.min_target.is_none_or(|t| config.target >= t)
        && (!when.spring_boot_3 || config.spring_boot == Some(3))
        && when
            .idiom
            .as_ref()
            .is_none_or(|i| config.modernize.includes(i) || listed(&config.recipes.enable))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_recipes_load_and_follow_preconditions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".uplift/recipes")).unwrap();
        std::fs::write(
            dir.path().join(".uplift/recipes/legacy-log.yml"),
            "id: legacy-log\ndescription: LegacyLog.warn -> Log.warn\nwhen: { opt_in: true }\nrules:\n  - id: warn\n    rule: { pattern: LegacyLog.warn($M) }\n    fix: Log.warn($M)\n",
        )
        .unwrap();
        let mut config = Config::default();
        let reg = Registry::load(Some(dir.path()), &config.recipes).unwrap();
        assert!(
            reg.describe()
                .iter()
                .any(|r| r.id == "legacy-log" && r.origin == ".uplift/recipes/legacy-log.yml")
        );
        assert!(!reg.active(&config).any(|r| r.id == "legacy-log"));
        config.recipes.enable.push("legacy-log".into());
        assert!(reg.active(&config).any(|r| r.id == "legacy-log"));
        assert!(!reg.active(&config).any(|r| r.id == "spring-security-6"));
        config.spring_boot = Some(3);
        assert!(reg.active(&config).any(|r| r.id == "spring-security-6"));
    }

    #[test]
    fn modern_idioms_run_only_when_named_and_the_target_has_them() {
        let mut config = Config::default();
        let reg = Registry::load(None, &config.recipes).unwrap();
        let active = |c: &Config| -> Vec<String> {
            reg.active(c)
                .filter(|r| r.when.idiom.is_some())
                .map(|r| r.id.clone())
                .collect()
        };
        assert!(active(&config).is_empty(), "off by default");
        config.modernize = crate::config::Modernize::new(vec!["var".into()]);
        assert_eq!(active(&config), ["modernize-var"]);
        config.modernize = crate::config::Modernize::new(vec!["all".into()]);
        config.target = 17;
        let on_17 = active(&config);
        assert_eq!(on_17.len(), crate::config::IDIOMS.len() - 1, "{on_17:?}");
        assert!(!on_17.iter().any(|r| r == "modernize-sequenced-collections"));
        config.target = 21;
        assert_eq!(active(&config).len(), crate::config::IDIOMS.len());
    }

    /// A `recipes.dir` outside the root (by `..`, absolute, or through a link) and a recipe
    /// file that is a link are refused, never read.
    #[test]
    fn recipes_outside_the_repository_are_refused() {
        use crate::repo_path::Reason;
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        // Would be a broken recipe if read: loading must not even open it.
        std::fs::write(outside.path().join("secret.yml"), "id: secret\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
        std::fs::create_dir_all(dir.path().join("mine")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.yml"),
            dir.path().join("mine/evil.yml"),
        )
        .unwrap();
        let cases = [
            ("../../..", Reason::ParentDir),
            (outside.path().to_str().unwrap(), Reason::Absolute),
            (
                "linked",
                Reason::Symlink {
                    link: "linked".into(),
                },
            ),
            (
                "mine",
                Reason::Symlink {
                    link: "mine/evil.yml".into(),
                },
            ),
        ];
        for (recipes_dir, reason) in cases {
            let settings = RecipeSettings {
                dir: recipes_dir.into(),
                ..Default::default()
            };
            let reg = Registry::load(Some(dir.path()), &settings).unwrap();
            let refused: Vec<_> = reg.refused().iter().map(|r| r.reason.clone()).collect();
            assert_eq!(refused, [reason], "{recipes_dir}");
        }
    }

    /// Thousands of recipe files, or one holding thousands of rules, would hold the worker's
    /// CPU far past the run's wall-clock budget: refused with the limit, before they run.
    #[test]
    fn a_repository_brings_at_most_so_many_rules() {
        let rule = |i: usize| {
            format!("  - id: r{i}\n    rule: {{ pattern: foo{i}($A) }}\n    fix: bar($A)\n")
        };
        let dir = tempfile::tempdir().unwrap();
        let recipes = dir.path().join(".uplift/recipes");
        std::fs::create_dir_all(&recipes).unwrap();
        let one = |n: usize| {
            format!(
                "id: many\ndescription: d\nrules:\n{}",
                (0..n).map(rule).collect::<String>()
            )
        };
        std::fs::write(recipes.join("many.yml"), one(MAX_OWN_RULES)).unwrap();
        assert!(Registry::load(Some(dir.path()), &RecipeSettings::default()).is_ok());
        std::fs::write(recipes.join("many.yml"), one(MAX_OWN_RULES + 1)).unwrap();
        let err = Registry::load(Some(dir.path()), &RecipeSettings::default())
            .err()
            .unwrap();
        assert!(
            format!("{err:#}").contains("257 rules; at most 256"),
            "{err:#}"
        );
        std::fs::remove_file(recipes.join("many.yml")).unwrap();
        for i in 0..=MAX_OWN_RULES {
            std::fs::write(
                recipes.join(format!("r{i}.yml")),
                format!("id: r{i}\ndescription: d\nrules:\n{}", rule(i)),
            )
            .unwrap();
        }
        let err = Registry::load(Some(dir.path()), &RecipeSettings::default())
            .err()
            .unwrap();
        assert!(format!("{err:#}").contains("257 recipe files"), "{err:#}");
    }

    #[test]
    fn a_broken_user_recipe_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".uplift/recipes")).unwrap();
        std::fs::write(dir.path().join(".uplift/recipes/bad.yml"), "id: bad\n").unwrap();
        let err = Registry::load(Some(dir.path()), &RecipeSettings::default())
            .err()
            .unwrap();
        assert!(
            format!("{err:#}").contains(".uplift/recipes/bad.yml"),
            "{err:#}"
        );
    }
}
