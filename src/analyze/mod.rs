//! Stage 1: read the project into a typed [`Fingerprint`].

pub mod gradle;
pub mod java;
pub mod pom;
pub mod test_checks;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use self::java::{JavaFacts, JunitGeneration, RemovedJavaEeModule};
use self::pom::{Pom, java_release, property_reference};
pub use crate::evidence::Inventory;
use crate::repo_path::{self, Gate, Origin, Reason, Refusal};
use crate::source_encoding;
use encoding_rs::Encoding;

/// One reactor module: its pom and its Java sources.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Module {
    pub pom: Pom,
    /// Index of the in-repo parent module, if the parent pom lives in this project.
    pub parent: Option<usize>,
    pub skipped: bool,
    #[serde(skip)]
    pub java_files: Vec<JavaFacts>,
    /// Resources a migration may rewrite: XML descriptors, properties and YAML,
    /// `META-INF/services` entries and `spring.factories` (relative to the project root).
    #[serde(skip)]
    pub resource_files: Vec<PathBuf>,
}

/// Where a Java level is written, so the recipe edits the definition and not a use.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LevelSite {
    /// Module whose pom holds the value.
    pub module: usize,
    pub location: LevelLocation,
    pub raw: String,
    pub release: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum LevelLocation {
    Property(String),
    /// `<configuration><key>` of maven-compiler-plugin (`managed`: in pluginManagement).
    CompilerConfig {
        key: String,
        managed: bool,
    },
    /// The same key in one `<execution>`'s configuration (e.g. a `release` for
    /// module-info.java alone), which overrides the plugin's for that execution.
    ExecutionConfig {
        execution: String,
        key: String,
        managed: bool,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Fingerprint {
    pub modules: Vec<Module>,
    /// Lowest declared Java release over the modules (None: nothing declared).
    pub java_level: Option<u32>,
    pub level_sites: Vec<LevelSite>,
    pub spring_boot: Option<String>,
    pub spring_framework: Option<String>,
    pub junit4_version: Option<String>,
    pub files_by_junit: BTreeMap<String, usize>,
    pub junit4_constructs: BTreeMap<String, usize>,
    pub javax_jakarta_ee: BTreeSet<String>,
    pub javax_jdk: BTreeSet<String>,
    pub removed_modules: BTreeSet<RemovedJavaEeModule>,
    pub syntax_errors: Vec<(PathBuf, String)>,
    pub warnings: Vec<String>,
    pub java_files: usize,
    pub java_bytes: usize,
    /// Set for a Gradle build: its modules' "poms" only carry the script path, the project
    /// name and string-notation dependencies, and Maven-only recipes do not apply.
    pub gradle: Option<gradle::GradleBuild>,
    /// Paths the build named or the walk met that the repository gate refused (modules
    /// outside the root, symbolic links): never read, never rewritten.
    pub refused: Vec<Refusal>,
}

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error("{0} is not a Maven project (no pom.xml at its root) nor a Gradle build")]
    NotMaven(PathBuf),
    #[error(transparent)]
    Pom(#[from] pom::PomError),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn read(root: &Path, rel: &Path) -> Result<String, AnalyzeError> {
    Gate::new(root, Origin::Repository)
        .read_to_string(rel)
        .map_err(|source| AnalyzeError::Io {
            path: rel.to_path_buf(),
            source,
        })
}

impl Fingerprint {
    pub fn inventory(&self) -> Inventory {
        self.java_files()
            .filter(|f| f.is_test_source && !f.tests.is_empty())
            .map(|f| (f.path.clone(), f.tests.clone()))
            .collect()
    }

    pub fn java_files(&self) -> impl Iterator<Item = &JavaFacts> {
        self.modules.iter().flat_map(|m| m.java_files.iter())
    }

    /// Modules from `index` up through its in-repo parents.
    pub fn chain(&self, index: usize) -> Vec<usize> {
        let mut out = vec![index];
        while let Some(p) = self.modules[*out.last().unwrap_or(&index)].parent {
            if out.contains(&p) {
                break;
            }
            out.push(p);
        }
        out
    }

    /// Resolves a property through the module's parent chain: (defining module, value).
    pub fn property(&self, module: usize, name: &str) -> Option<(usize, &str)> {
        self.chain(module).into_iter().find_map(|m| {
            self.modules[m]
                .pom
                .properties
                .get(name)
                .map(|v| (m, v.as_str()))
        })
    }

    fn resolve_site(&self, module: usize, location: LevelLocation, raw: &str) -> LevelSite {
        if let Some(name) = property_reference(raw)
            && let Some((def, value)) = self.property(module, name)
        {
            return self.resolve_site(def, LevelLocation::Property(name.to_string()), value);
        }
        LevelSite {
            module,
            location,
            raw: raw.to_string(),
            release: java_release(raw),
        }
    }

    /// The project's JUnit 3 classes: those extending `TestCase`, and transitively those
    /// extending one of them, each with the fixtures it and its in-project ancestors declare.
    pub fn junit3_classes(&self) -> java::Junit3Bases {
        let files: Vec<&JavaFacts> = self.java_files().collect();
        let mut out = java::Junit3Bases::new();
        loop {
            let mut grew = false;
            for f in &files {
                let Some(name) = f.top_level_types.first() else {
                    continue;
                };
                let inherited = match f.superclass.as_deref() {
                    Some("TestCase") => BTreeSet::new(),
                    Some(s) => match out.get(s) {
                        Some(fixtures) => fixtures.clone(),
                        None => continue,
                    },
                    None => continue,
                };
                // Two classes of one simple name (in different packages or modules) merge:
                // the sets only grow, so the loop ends.
                let new_key = !out.contains_key(name);
                let known = out.entry(name.clone()).or_default();
                let before = known.len();
                known.extend(inherited);
                known.extend(f.fixtures.iter().cloned());
                grew |= new_key || known.len() > before;
            }
            if !grew {
                return out;
            }
        }
    }

    /// The files of each JUnit 3 class hierarchy rooted in the project (a base extending
    /// `TestCase` and every class below it), which convert as a unit.
    pub fn junit3_families(&self) -> Vec<Vec<PathBuf>> {
        let files: Vec<&JavaFacts> = self.java_files().collect();
        let parent: BTreeMap<&str, &str> = files
            .iter()
            .filter_map(|f| {
                Some((
                    f.top_level_types.first()?.as_str(),
                    f.superclass.as_deref()?,
                ))
            })
            .collect();
        fn root_of<'a>(parent: &BTreeMap<&'a str, &'a str>, mut name: &'a str) -> Option<String> {
            let mut seen = BTreeSet::new();
            while let Some(&p) = parent.get(name) {
                if p == "TestCase" || !seen.insert(name) {
                    return Some(name.to_string());
                }
                name = p;
            }
            None
        }
        let mut families: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for f in &files {
            if let Some(root) = f.top_level_types.first().and_then(|t| root_of(&parent, t)) {
                families.entry(root).or_default().push(f.path.clone());
            }
        }
        families.into_values().filter(|f| f.len() > 1).collect()
    }

    /// Every place that sets the Java level seen by `module`.
    pub fn level_sites_for(&self, module: usize) -> Vec<LevelSite> {
        let chain = self.chain(module);
        let mut sites = Vec::new();
        for key in ["release", "source", "target"] {
            let from_plugin = chain.iter().find_map(|&m| {
                self.modules[m]
                    .pom
                    .plugin("maven-compiler-plugin")
                    .find_map(|p| p.level_config.get(key).map(|v| (m, p.managed, v)))
            });
            let site = match from_plugin {
                Some((m, managed, raw)) => Some(self.resolve_site(
                    m,
                    LevelLocation::CompilerConfig {
                        key: key.into(),
                        managed,
                    },
                    raw,
                )),
                None => {
                    let prop = format!("maven.compiler.{key}");
                    self.property(module, &prop)
                        .map(|(m, raw)| self.resolve_site(m, LevelLocation::Property(prop), raw))
                }
            };
            sites.extend(site);
        }
        // Executions configure their own level; each id counts once, nearest module first.
        let mut seen = BTreeSet::new();
        for &m in &chain {
            for p in self.modules[m].pom.plugin("maven-compiler-plugin") {
                for (execution, key, raw) in &p.execution_levels {
                    if seen.insert((execution.clone(), key.clone())) {
                        sites.push(self.resolve_site(
                            m,
                            LevelLocation::ExecutionConfig {
                                execution: execution.clone(),
                                key: key.clone(),
                                managed: p.managed,
                            },
                            raw,
                        ));
                    }
                }
            }
        }
        sites
    }

    /// Modules that compile Java and inherit no level from anywhere (`pom` packaging
    /// aggregates only, so it needs none).
    pub fn modules_without_level(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.modules.len()).filter(|&m| {
            let pom = &self.modules[m].pom;
            let aggregator = pom.packaging.as_deref() == Some("pom") || !pom.modules.is_empty();
            !aggregator && self.level_sites_for(m).is_empty()
        })
    }

    pub fn module_level(&self, module: usize) -> Option<u32> {
        self.level_sites_for(module)
            .iter()
            .filter_map(|s| s.release)
            .min()
    }

    /// The encoding of the module's Java sources: `project.build.sourceEncoding` through
    /// its parents, UTF-8 when unset; `Err(label)` for one Uplift cannot read and write.
    pub fn source_encoding(&self, module: usize) -> Result<&'static Encoding, String> {
        match self.property(module, "project.build.sourceEncoding") {
            None => Ok(encoding_rs::UTF_8),
            Some((_, label)) => source_encoding::from_label(label).ok_or_else(|| label.to_string()),
        }
    }

    /// Java sources whose encoding is not UTF-8, with it.
    pub fn non_utf8_sources(&self) -> BTreeMap<PathBuf, &'static Encoding> {
        (0..self.modules.len())
            .filter_map(|m| Some((m, self.source_encoding(m).ok()?)))
            .filter(|(_, e)| *e != encoding_rs::UTF_8)
            .flat_map(|(m, e)| {
                self.modules[m]
                    .java_files
                    .iter()
                    .map(move |f| (f.path.clone(), e))
            })
            .collect()
    }

    fn module_index_of(&self, path: &Path) -> Option<usize> {
        self.modules.iter().position(|m| m.pom.path == path)
    }
}

/// Reads the build (the Maven reactor from `root/pom.xml`, or the projects of a Gradle
/// build), then every module's `src/{main,test}/java` tree (files in parallel, each parsed
/// once) and its rewritable resources.
pub fn analyze(root: &Path, skip_modules: &[String]) -> Result<Fingerprint, AnalyzeError> {
    let skipped = |dir: &Path| {
        skip_modules
            .iter()
            .any(|s| Path::new(s.trim_end_matches('/')) == dir)
    };
    let mut fp = if root.join("pom.xml").is_file() {
        maven_reactor(root, &skipped)?
    } else if let Some((build, poms)) = gradle::detect(root) {
        Fingerprint {
            modules: poms
                .into_iter()
                .map(|pom| Module {
                    skipped: skipped(&pom.dir()),
                    pom,
                    parent: None,
                    java_files: Vec::new(),
                    resource_files: Vec::new(),
                })
                .collect(),
            gradle: Some(build),
            ..Default::default()
        }
    } else {
        return Err(AnalyzeError::NotMaven(root.to_path_buf()));
    };
    let mut refused = std::mem::take(&mut fp.refused);
    let mut sources: Vec<(usize, PathBuf)> = Vec::new();
    for (i, m) in fp.modules.iter().enumerate() {
        let trees: Vec<&str> = m.pom.source_dirs.iter().map(String::as_str).collect();
        let files = files_under(
            root,
            &m.pom.dir(),
            &trees,
            |p| p.extension().is_some_and(|e| e == "java"),
            &mut refused,
        );
        sources.extend(files.into_iter().map(|p| (i, p)));
    }
    let encodings: Vec<_> = (0..fp.modules.len())
        .map(|m| fp.source_encoding(m))
        .collect();
    let gate = Gate::new(root, Origin::Repository);
    let none = java::Junit3Bases::new();
    let facts: Vec<(usize, Result<SourceFacts, AnalyzeError>)> = sources
        .into_par_iter()
        .map(|(i, rel)| (i, analyze_source(&gate, rel, &encodings[i], &none)))
        .collect();
    for (i, f) in facts {
        match f? {
            Ok(facts) => fp.modules[i].java_files.push(facts),
            Err(skipped) => fp.warnings.push(skipped),
        }
    }
    // Subclasses of the project's own JUnit 3 classes are JUnit 3 tests as well: read them
    // again knowing their bases (their test* methods, their JUnit generation).
    let bases = fp.junit3_classes();
    for (i, m) in fp.modules.iter_mut().enumerate() {
        for f in m.java_files.iter_mut().filter(|f| {
            f.junit == JunitGeneration::None
                && f.superclass.as_ref().is_some_and(|s| bases.contains_key(s))
        }) {
            if let Ok(Ok(again)) = analyze_source(&gate, f.path.clone(), &encodings[i], &bases) {
                *f = again;
            }
        }
    }
    for m in &mut fp.modules {
        m.resource_files = files_under(
            root,
            &m.pom.dir(),
            &[
                "src/main/resources",
                "src/test/resources",
                "src/main/webapp",
            ],
            is_rewritable_resource,
            &mut refused,
        );
    }
    refused.sort_by(|a, b| a.path.cmp(&b.path));
    refused.dedup();
    fp.refused = refused;
    summarize(&mut fp);
    if let Some(g) = &fp.gradle {
        fp.java_level = g.java_level;
        fp.spring_boot = g.spring_boot.clone();
    }
    Ok(fp)
}

/// A source's facts, or why it was skipped.
type SourceFacts = Result<JavaFacts, String>;

/// Reads one Java source in its module's encoding; one that does not decode is skipped.
fn analyze_source(
    gate: &Gate,
    rel: PathBuf,
    encoding: &Result<&'static Encoding, String>,
    junit3_bases: &java::Junit3Bases,
) -> Result<SourceFacts, AnalyzeError> {
    let bytes = gate.read(&rel).map_err(|source| AnalyzeError::Io {
        path: rel.clone(),
        source,
    })?;
    let text = match encoding {
        Ok(e) => {
            source_encoding::decode(e, &bytes).ok_or_else(|| format!("not valid {} text", e.name()))
        }
        Err(label) => Err(format!("unsupported source encoding {label:?}")),
    };
    Ok(text
        .map(|t| java::analyze_in(rel.clone(), &t, junit3_bases))
        .map_err(|why| {
            format!(
                "{}: {why} (project.build.sourceEncoding); skipped",
                rel.display()
            )
        }))
}

/// Reads the reactor from `root/pom.xml`, following `<modules>`.
fn maven_reactor(
    root: &Path,
    skipped: &dyn Fn(&Path) -> bool,
) -> Result<Fingerprint, AnalyzeError> {
    let mut fp = Fingerprint::default();
    let mut queue = vec![PathBuf::from("pom.xml")];
    let mut seen = BTreeSet::new();
    while let Some(rel) = queue.pop() {
        if !seen.insert(rel.clone()) {
            continue;
        }
        let pom = Pom::parse(&rel, &read(root, &rel)?)?;
        let dir = pom.dir();
        for m in &pom.modules {
            let Some(candidate) = repo_path::join_inside(&dir, Path::new(m)) else {
                let reason = if Path::new(m).is_absolute() {
                    Reason::Absolute
                } else {
                    Reason::ParentDir
                };
                fp.refused.push(Refusal {
                    path: PathBuf::from(m),
                    origin: Origin::Repository,
                    reason,
                });
                continue;
            };
            let pom_path = if candidate.extension().is_some_and(|e| e == "xml") {
                candidate
            } else {
                candidate.join("pom.xml")
            };
            match Gate::new(root, Origin::Repository).resolve(&pom_path) {
                Err(r) => fp.refused.push(r),
                Ok(abs) if abs.is_file() => queue.push(pom_path),
                Ok(_) => fp.warnings.push(format!(
                    "{}: module {m:?} has no pom at {}",
                    rel.display(),
                    pom_path.display()
                )),
            }
        }
        fp.modules.push(Module {
            skipped: skipped(&dir),
            pom,
            parent: None,
            java_files: Vec::new(),
            resource_files: Vec::new(),
        });
    }
    fp.modules.sort_by(|a, b| a.pom.path.cmp(&b.pom.path));
    link_parents(&mut fp);
    Ok(fp)
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn link_parents(fp: &mut Fingerprint) {
    for i in 0..fp.modules.len() {
        let Some(parent) = fp.modules[i].pom.parent.clone() else {
            continue;
        };
        let rel = parent
            .relative_path
            .clone()
            .unwrap_or_else(|| "../pom.xml".into());
        let mut candidate = normalize(&fp.modules[i].pom.dir().join(&rel));
        if !candidate.as_os_str().to_string_lossy().ends_with(".xml") {
            candidate = candidate.join("pom.xml");
        }
        let by_path = fp
            .module_index_of(&candidate)
            .filter(|&p| fp.modules[p].pom.artifact_id == parent.artifact_id);
        let by_coordinates = || {
            fp.modules.iter().position(|m| {
                m.pom.artifact_id == parent.artifact_id
                    && m.pom.effective_group_id() == Some(parent.group_id.as_str())
            })
        };
        fp.modules[i].parent = by_path.or_else(by_coordinates).filter(|&p| p != i);
    }
}

fn is_rewritable_resource(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(
        ext,
        "xml" | "properties" | "yml" | "yaml" | "imports" | "factories"
    ) || path
        .parent()
        .is_some_and(|p| p.ends_with("META-INF/services"))
}

/// Files under the module's `trees` that pass `keep`, sorted, relative to `root`. No
/// symbolic link is followed: a tree reached through one, and each link met in a tree,
/// is added to `refused` instead.
fn files_under(
    root: &Path,
    module_dir: &Path,
    trees: &[&str],
    keep: impl Fn(&Path) -> bool,
    refused: &mut Vec<Refusal>,
) -> Vec<PathBuf> {
    let gate = Gate::new(root, Origin::Repository);
    let mut out = Vec::new();
    for tree in trees {
        let base = match gate.resolve(&module_dir.join(tree)) {
            Ok(base) => base,
            Err(r) => {
                refused.push(r);
                continue;
            }
        };
        for entry in walkdir::WalkDir::new(&base)
            .follow_root_links(false)
            .sort_by_file_name()
            .into_iter()
            .flatten()
        {
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            if rel.to_str().is_none() {
                refused.push(Refusal::not_utf8(rel, Origin::Repository));
            } else if entry.path_is_symlink() {
                refused.push(Refusal {
                    path: rel.to_path_buf(),
                    origin: Origin::Repository,
                    reason: Reason::Symlink {
                        link: rel.to_path_buf(),
                    },
                });
            } else if entry.file_type().is_file() && keep(entry.path()) {
                out.push(rel.to_path_buf());
            }
        }
    }
    out
}

fn summarize(fp: &mut Fingerprint) {
    fp.level_sites = (0..fp.modules.len())
        .flat_map(|m| fp.level_sites_for(m))
        .collect::<Vec<_>>();
    fp.level_sites
        .sort_by(|a, b| (a.module, &a.location).cmp(&(b.module, &b.location)));
    fp.level_sites.dedup();
    fp.java_level = (0..fp.modules.len())
        .filter_map(|m| fp.module_level(m))
        .min();

    let (mut boot, mut spring, mut junit4) = (None, None, None);
    for (i, m) in fp.modules.iter().enumerate() {
        if let Some(p) = &m.pom.parent
            && p.artifact_id == "spring-boot-starter-parent"
        {
            boot = p.version.clone();
        }
        for d in &m.pom.dependencies {
            let resolved = || {
                d.version.as_deref().map(|v| {
                    property_reference(v)
                        .and_then(|name| fp.property(i, name))
                        .map_or(v.to_string(), |(_, v)| v.to_string())
                })
            };
            match (d.group_id.as_str(), d.artifact_id.as_str()) {
                ("org.springframework.boot", "spring-boot-dependencies") => {
                    boot = boot.or_else(resolved)
                }
                (
                    "org.springframework",
                    "spring-framework-bom" | "spring-core" | "spring-context",
                ) => spring = spring.or_else(resolved),
                ("junit", "junit") => junit4 = junit4.or_else(resolved),
                _ => {}
            }
        }
    }
    fp.spring_boot = boot;
    fp.spring_framework = spring;
    fp.junit4_version = junit4;
    let mut files_by_junit = BTreeMap::new();
    let mut constructs = BTreeMap::new();
    let (mut n, mut bytes) = (0, 0);
    let mut syntax_errors = Vec::new();
    let (mut ee, mut jdk, mut removed) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for f in fp.java_files() {
        n += 1;
        bytes += f.bytes;
        if f.junit != JunitGeneration::None {
            *files_by_junit
                .entry(format!("{:?}", f.junit).to_lowercase())
                .or_insert(0) += 1;
        }
        for c in &f.junit4_constructs {
            *constructs.entry(c.clone()).or_insert(0) += 1;
        }
        ee.extend(f.javax_jakarta_ee.iter().cloned());
        jdk.extend(f.javax_jdk.iter().cloned());
        removed.extend(f.removed_modules.iter().copied());
        if let Some(e) = &f.syntax_error {
            syntax_errors.push((f.path.clone(), e.clone()));
        }
    }
    fp.javax_jakarta_ee = ee;
    fp.javax_jdk = jdk;
    fp.removed_modules = removed;
    fp.files_by_junit = files_by_junit;
    fp.junit4_constructs = constructs;
    fp.java_files = n;
    fp.java_bytes = bytes;
    fp.syntax_errors = syntax_errors;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pom.xml"),
            "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId>\
             <artifactId>a</artifactId><version>1</version></project>",
        )
        .unwrap();
        for (path, text) in files {
            let p = dir.path().join("src/test/java").join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn junit3_classes_follow_hierarchies_and_merge_same_named_bases() {
        let dir = project(&[
            (
                "a/BaseTest.java",
                "package a; import junit.framework.TestCase;\npublic abstract class BaseTest extends TestCase { protected void setUp() {} }",
            ),
            (
                "b/BaseTest.java",
                "package b; import junit.framework.TestCase;\npublic abstract class BaseTest extends TestCase { protected void tearDown() {} }",
            ),
            (
                "a/SubTest.java",
                "package a;\npublic class SubTest extends BaseTest { public void testIt() {} }",
            ),
            (
                "a/LeafTest.java",
                "package a;\npublic class LeafTest extends SubTest { public void testMore() {} }",
            ),
            (
                "a/Plain.java",
                "package a;\npublic class Plain extends Object {}",
            ),
        ]);
        let fp = analyze(dir.path(), &[]).unwrap();
        let bases = fp.junit3_classes();
        let both: BTreeSet<String> = ["setUp", "tearDown"].map(String::from).into();
        assert_eq!(bases.get("BaseTest"), Some(&both));
        assert_eq!(bases.get("LeafTest"), Some(&both));
        assert!(!bases.contains_key("Plain"));
        // The subclasses' test* methods are tests, found by the second pass.
        let leaf = fp
            .java_files()
            .find(|f| f.path.ends_with("LeafTest.java"))
            .unwrap();
        assert_eq!(leaf.junit, JunitGeneration::Junit3);
        assert_eq!(leaf.tests.len(), 1);
        let families = fp.junit3_families();
        assert!(
            families.iter().any(|f| f.len() >= 3),
            "BaseTest, SubTest and LeafTest convert together: {families:?}"
        );
    }
}
