//! A pom.xml read into the facts the migration needs (no Maven model building: only what
//! the file itself says, plus in-repo parents resolved by the caller).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Pom {
    /// Path relative to the project root.
    pub path: PathBuf,
    pub group_id: Option<String>,
    pub artifact_id: String,
    pub packaging: Option<String>,
    pub parent: Option<ParentRef>,
    pub modules: Vec<String>,
    pub properties: BTreeMap<String, String>,
    pub dependencies: Vec<Dependency>,
    pub plugins: Vec<Plugin>,
    /// The module's Java source trees, relative to its directory: `build/sourceDirectory`
    /// and `build/testSourceDirectory`, else Maven's `src/main/java` and `src/test/java`.
    #[serde(default = "default_source_dirs")]
    pub source_dirs: Vec<String>,
}

pub(crate) fn default_source_dirs() -> Vec<String> {
    vec!["src/main/java".into(), "src/test/java".into()]
}

/// A `build` directory as written in the pom, relative to the module (`${basedir}/` and
/// `${project.basedir}/` dropped); the repository gate judges where it leads.
fn build_dir(project: roxmltree::Node, name: &'static str, default: &str) -> String {
    child(project, "build")
        .and_then(|b| child_text(b, name))
        .map(|d| {
            ["${project.basedir}/", "${basedir}/"]
                .iter()
                .fold(d.trim().to_string(), |d, p| {
                    d.strip_prefix(p).map(str::to_string).unwrap_or(d)
                })
        })
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| default.to_string())
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ParentRef {
    pub group_id: String,
    pub artifact_id: String,
    pub version: Option<String>,
    pub relative_path: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Dependency {
    pub group_id: String,
    pub artifact_id: String,
    pub version: Option<String>,
    pub scope: Option<String>,
    /// Declared under `<dependencyManagement>` (a version pin, not a use).
    pub managed: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plugin {
    pub group_id: String,
    pub artifact_id: String,
    pub version: Option<String>,
    /// Declared under `<pluginManagement>`.
    pub managed: bool,
    /// `source`, `target` and `release` from the plugin's `<configuration>`.
    pub level_config: BTreeMap<String, String>,
    /// The same keys set inside an execution's `<configuration>`: (execution id, key, value).
    #[serde(default)]
    pub execution_levels: Vec<(String, String, String)>,
}

/// The `<execution>` with this id under a plugin node.
pub fn execution_node<'a, 'i>(plugin: Node<'a, 'i>, id: &str) -> Option<Node<'a, 'i>> {
    child(plugin, "executions")?
        .children()
        .find(|e| e.has_tag_name("execution") && child_text(*e, "id").as_deref() == Some(id))
}

const LEVEL_KEYS: [&str; 3] = ["source", "target", "release"];

#[derive(Debug, thiserror::Error)]
pub enum PomError {
    #[error("{path}: not well-formed XML: {message}")]
    Xml { path: PathBuf, message: String },
    #[error("{path}: root element is <{found}>, expected <project>")]
    NotAPom { path: PathBuf, found: String },
    #[error("{path}: <project> has no <artifactId>")]
    NoArtifactId { path: PathBuf },
}

/// Children of `node` with local name `name` (namespace-agnostic: poms with and without the
/// Maven namespace are both common).
pub fn children<'a, 'i, 'n>(
    node: Node<'a, 'i>,
    name: &'n str,
) -> impl Iterator<Item = Node<'a, 'i>> + use<'a, 'i, 'n> {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

pub fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    children(node, name).next()
}

/// Follows a path of element names from `node`.
pub fn descend<'a, 'i>(node: Node<'a, 'i>, path: &[&'static str]) -> Option<Node<'a, 'i>> {
    path.iter().try_fold(node, |n, name| child(n, name))
}

pub fn child_text(node: Node, name: &'static str) -> Option<String> {
    child(node, name).map(|c| c.text().unwrap_or("").trim().to_string())
}

/// A pom, read by [`parse_xml`]'s rules.
pub fn parse_document<'i>(path: &Path, text: &'i str) -> Result<Document<'i>, PomError> {
    let doc = parse_xml(path, text)?;
    let root = doc.root_element();
    if root.tag_name().name() != "project" {
        return Err(PomError::NotAPom {
            path: path.to_path_buf(),
            found: root.tag_name().name().to_string(),
        });
    }
    Ok(doc)
}

/// A Maven XML file, whatever its root. It may carry a DOCTYPE, which Maven skips, but no
/// entity declarations: Maven does not expand them, and the parser would, in the worker's
/// memory (a 66 KB pom whose entities each repeat another expands to gigabytes; only the
/// nesting is bounded, not the count).
fn parse_xml<'i>(path: &Path, text: &'i str) -> Result<Document<'i>, PomError> {
    let xml_error = |message: String| PomError::Xml {
        path: path.to_path_buf(),
        message,
    };
    let with_dtd = |allow_dtd| roxmltree::ParsingOptions {
        allow_dtd,
        ..Default::default()
    };
    match Document::parse_with_options(text, with_dtd(false)) {
        Err(roxmltree::Error::DtdDetected) if text.contains("<!ENTITY") => {
            return Err(xml_error(
                "declares entities (<!ENTITY>), which Maven does not expand; not read".into(),
            ));
        }
        Err(roxmltree::Error::DtdDetected) => Document::parse_with_options(text, with_dtd(true)),
        parsed => parsed,
    }
    .map_err(|e| xml_error(e.to_string()))
}

/// What a Maven build file makes Maven fetch and run beyond the project's own code, one
/// entry each: the parent, every plugin (in build, management, profiles and reporting) and
/// whether it extends the build, every execution with its goals, every build extension,
/// every repository by URL. `None` for anything but a pom or `.mvn/extensions.xml`.
pub fn build_surface(text: &str) -> Option<BTreeSet<String>> {
    let doc = parse_xml(Path::new(""), text).ok()?;
    let root = doc.root_element();
    if !matches!(root.tag_name().name(), "project" | "extensions") {
        return None;
    }
    let coordinates = |n: Node, default_group: &str| {
        let group = child_text(n, "groupId").unwrap_or_else(|| default_group.to_string());
        format!(
            "{group}:{}",
            child_text(n, "artifactId").unwrap_or_default()
        )
    };
    let mut surface = BTreeSet::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        match n.tag_name().name() {
            "parent" if n.parent() == Some(root) => {
                surface.insert(format!("parent {}", coordinates(n, "")));
            }
            "plugin" => {
                let plugin = coordinates(n, "org.apache.maven.plugins");
                if child_text(n, "extensions").as_deref() == Some("true") {
                    surface.insert(format!("plugin {plugin} as a build extension"));
                }
                for e in child(n, "executions")
                    .into_iter()
                    .flat_map(|e| children(e, "execution"))
                {
                    let id = child_text(e, "id").unwrap_or_else(|| "default".into());
                    surface.insert(format!("execution {id} of {plugin}"));
                    for goal in child(e, "goals")
                        .into_iter()
                        .flat_map(|g| children(g, "goal"))
                    {
                        let goal = goal.text().unwrap_or("").trim();
                        surface.insert(format!("goal {goal} in execution {id} of {plugin}"));
                    }
                }
                surface.insert(format!("plugin {plugin}"));
            }
            "extension" => {
                surface.insert(format!("extension {}", coordinates(n, "")));
            }
            "repository" | "pluginRepository" | "snapshotRepository" => {
                let url = child_text(n, "url").unwrap_or_default();
                surface.insert(format!("repository {url}"));
            }
            _ => {}
        }
    }
    Some(surface)
}

/// Iterates `<dependency>` elements with whether they are managed.
pub fn dependency_nodes<'a, 'i>(project: Node<'a, 'i>) -> Vec<(Node<'a, 'i>, bool)> {
    let mut out = Vec::new();
    let mut collect = |deps: Option<Node<'a, 'i>>, managed: bool| {
        if let Some(deps) = deps {
            out.extend(children(deps, "dependency").map(|d| (d, managed)));
        }
    };
    collect(child(project, "dependencies"), false);
    collect(
        descend(project, &["dependencyManagement", "dependencies"]),
        true,
    );
    out
}

/// Iterates `<plugin>` elements under build/plugins and build/pluginManagement/plugins.
pub fn plugin_nodes<'a, 'i>(project: Node<'a, 'i>) -> Vec<(Node<'a, 'i>, bool)> {
    let mut out = Vec::new();
    if let Some(build) = child(project, "build") {
        if let Some(p) = child(build, "plugins") {
            out.extend(children(p, "plugin").map(|n| (n, false)));
        }
        if let Some(p) = descend(build, &["pluginManagement", "plugins"]) {
            out.extend(children(p, "plugin").map(|n| (n, true)));
        }
    }
    out
}

/// `<plugin>` elements for `artifact`, under plugins or pluginManagement (`managed`).
pub fn plugin_nodes_for<'a, 'i>(
    project: Node<'a, 'i>,
    artifact: &str,
    managed: bool,
) -> impl Iterator<Item = Node<'a, 'i>> {
    plugin_nodes(project).into_iter().filter_map(move |(p, m)| {
        (m == managed && child_text(p, "artifactId").as_deref() == Some(artifact)).then_some(p)
    })
}

/// Plugin groupId defaults to org.apache.maven.plugins when omitted.
pub fn plugin_group(node: Node) -> String {
    child_text(node, "groupId").unwrap_or_else(|| "org.apache.maven.plugins".into())
}

impl Pom {
    pub fn parse(rel_path: &Path, text: &str) -> Result<Self, PomError> {
        let doc = parse_document(rel_path, text)?;
        let project = doc.root_element();
        let artifact_id =
            child_text(project, "artifactId").ok_or_else(|| PomError::NoArtifactId {
                path: rel_path.to_path_buf(),
            })?;
        let parent = child(project, "parent").map(|p| ParentRef {
            group_id: child_text(p, "groupId").unwrap_or_default(),
            artifact_id: child_text(p, "artifactId").unwrap_or_default(),
            version: child_text(p, "version"),
            relative_path: child_text(p, "relativePath"),
        });
        let modules = child(project, "modules")
            .map(|m| {
                children(m, "module")
                    .filter_map(|n| n.text().map(|t| t.trim().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let properties = child(project, "properties")
            .map(|p| {
                p.children()
                    .filter(|c| c.is_element())
                    .map(|c| {
                        (
                            c.tag_name().name().to_string(),
                            c.text().unwrap_or("").trim().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let dependencies = dependency_nodes(project)
            .into_iter()
            .map(|(d, managed)| Dependency {
                group_id: child_text(d, "groupId").unwrap_or_default(),
                artifact_id: child_text(d, "artifactId").unwrap_or_default(),
                version: child_text(d, "version"),
                scope: child_text(d, "scope"),
                managed,
            })
            .collect();
        let plugins = plugin_nodes(project)
            .into_iter()
            .map(|(p, managed)| Plugin {
                group_id: plugin_group(p),
                artifact_id: child_text(p, "artifactId").unwrap_or_default(),
                version: child_text(p, "version"),
                managed,
                level_config: child(p, "configuration")
                    .map(|c| {
                        LEVEL_KEYS
                            .into_iter()
                            .filter_map(|k| child_text(c, k).map(|v| (k.to_string(), v)))
                            .collect()
                    })
                    .unwrap_or_default(),
                execution_levels: child(p, "executions")
                    .into_iter()
                    .flat_map(|es| es.children().filter(|e| e.has_tag_name("execution")))
                    .flat_map(|e| {
                        let id = child_text(e, "id").unwrap_or_else(|| "default".into());
                        let config = child(e, "configuration");
                        LEVEL_KEYS.into_iter().filter_map(move |k| {
                            config
                                .and_then(|c| child_text(c, k))
                                .map(|v| (id.clone(), k.to_string(), v))
                        })
                    })
                    .collect(),
            })
            .collect();
        Ok(Pom {
            path: rel_path.to_path_buf(),
            group_id: child_text(project, "groupId"),
            artifact_id,
            packaging: child_text(project, "packaging"),
            parent,
            modules,
            properties,
            dependencies,
            plugins,
            source_dirs: vec![
                build_dir(project, "sourceDirectory", "src/main/java"),
                build_dir(project, "testSourceDirectory", "src/test/java"),
            ],
        })
    }

    /// Directory of this pom relative to the project root.
    pub fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    pub fn effective_group_id(&self) -> Option<&str> {
        self.group_id
            .as_deref()
            .or(self.parent.as_ref().map(|p| p.group_id.as_str()))
    }

    pub fn has_dependency(&self, group: &str, artifact: &str) -> bool {
        self.dependencies
            .iter()
            .any(|d| d.group_id == group && d.artifact_id == artifact)
    }

    pub fn plugin(&self, artifact: &str) -> impl Iterator<Item = &Plugin> {
        self.plugins
            .iter()
            .filter(move |p| p.artifact_id == artifact)
    }
}

/// `${name}` if the whole value is one property reference.
pub fn property_reference(value: &str) -> Option<&str> {
    value.trim().strip_prefix("${")?.strip_suffix('}')
}

/// Java feature release of a level string: "1.8" -> 8, "11" -> 11.
pub fn java_release(value: &str) -> Option<u32> {
    let v = value.trim();
    let v = v.strip_prefix("1.").unwrap_or(v);
    v.parse().ok()
}

/// Compares dotted versions numerically ("3.10.1" > "3.8.0"); qualifiers sort before releases.
pub fn version_lt(a: &str, b: &str) -> bool {
    fn parts(v: &str) -> Vec<u64> {
        v.split(['.', '-'])
            .map_while(|p| p.parse::<u64>().ok())
            .collect()
    }
    let (pa, pb) = (parts(a), parts(b));
    let n = pa.len().max(pb.len());
    for i in 0..n {
        let (x, y) = (
            pa.get(i).copied().unwrap_or(0),
            pb.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x < y;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const POM: &str = r#"<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>g</groupId><artifactId>p</artifactId><version>1</version></parent>
  <artifactId>a</artifactId>
  <modules><module>core</module></modules>
  <properties><java.version>1.8</java.version></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId>
    <configuration><source>${java.version}</source></configuration></plugin></plugins></build>
</project>"#;

    #[test]
    fn reads_model() {
        let pom = Pom::parse(Path::new("pom.xml"), POM).unwrap();
        assert_eq!(pom.artifact_id, "a");
        assert_eq!(pom.effective_group_id(), Some("g"));
        assert_eq!(pom.modules, vec!["core"]);
        assert_eq!(pom.properties["java.version"], "1.8");
        assert!(pom.has_dependency("junit", "junit"));
        let compiler = pom.plugin("maven-compiler-plugin").next().unwrap();
        assert_eq!(compiler.group_id, "org.apache.maven.plugins");
        assert_eq!(compiler.level_config["source"], "${java.version}");
    }

    #[test]
    fn rejects_broken_and_foreign_xml() {
        assert!(matches!(
            Pom::parse(Path::new("pom.xml"), "<project><artifactId>x</project>"),
            Err(PomError::Xml { .. })
        ));
        assert!(matches!(
            Pom::parse(Path::new("pom.xml"), "<settings/>"),
            Err(PomError::NotAPom { .. })
        ));
    }

    /// Entities that each repeat another (250 x 64 KiB per reference, 40 references: 640
    /// MiB from a 66 KB file) are refused before anything expands; a plain DOCTYPE, which
    /// Maven skips, still reads.
    #[test]
    fn a_pom_declaring_entities_is_refused_a_doctype_is_not() {
        let lol = "x".repeat(64 << 10);
        let bomb = format!(
            "<?xml version=\"1.0\"?><!DOCTYPE project [<!ENTITY a0 \"{lol}\"><!ENTITY a1 \"{}\">]>\
             <project><artifactId>a</artifactId><description>{}</description></project>",
            "&a0;".repeat(250),
            "&a1;".repeat(40)
        );
        let err = Pom::parse(Path::new("pom.xml"), &bomb).unwrap_err();
        assert!(err.to_string().contains("declares entities"), "{err}");
        let external = "<!DOCTYPE project [<!ENTITY x SYSTEM \"file:///etc/hostname\">]>\
                        <project><artifactId>&x;</artifactId></project>";
        assert!(matches!(
            Pom::parse(Path::new("pom.xml"), external),
            Err(PomError::Xml { .. })
        ));
        let doctype = POM.replacen("<project", "<!DOCTYPE project>\n<project", 1);
        assert_eq!(
            Pom::parse(Path::new("pom.xml"), &doctype)
                .unwrap()
                .artifact_id,
            "a"
        );
    }

    #[test]
    fn versions_and_levels() {
        assert!(version_lt("2.12.4", "2.22.0"));
        assert!(!version_lt("3.10.1", "3.8.0"));
        assert!(version_lt("3.0.0-M5", "3.0.1"));
        assert_eq!(java_release("1.8"), Some(8));
        assert_eq!(java_release("17"), Some(17));
        assert_eq!(property_reference("${java.version}"), Some("java.version"));
    }

    #[test]
    fn source_trees_come_from_the_build_section() {
        let pom = Pom::parse(
            Path::new("pom.xml"),
            "<project><artifactId>x</artifactId><build><sourceDirectory>${basedir}/src</sourceDirectory>\
             <testSourceDirectory>test</testSourceDirectory></build></project>",
        )
        .unwrap();
        assert_eq!(pom.source_dirs, ["src", "test"]);
        let plain = Pom::parse(
            Path::new("pom.xml"),
            "<project><artifactId>x</artifactId></project>",
        );
        assert_eq!(
            plain.unwrap().source_dirs,
            ["src/main/java", "src/test/java"]
        );
    }
}
