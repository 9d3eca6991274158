//! Facts about one Java source file: javax usage, JUnit generation, and its tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::evidence::TestMethod;
use tree_sitter::Node;

use crate::java_syntax::{self, annotation_name, annotations, modifiers_of, superclass_name, text};

/// Which JUnit a file is written against.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum JunitGeneration {
    None,
    Junit3,
    Junit4,
    Jupiter,
}

/// Who owns a `javax.*` package: renaming a JDK-owned one breaks the build.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JavaxOwner {
    JakartaEe,
    Jdk,
    /// JSR-305 and friends: neither moves.
    Other,
}

/// Java EE modules the JDK dropped in Java 11; code importing them needs an API dependency.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum RemovedJavaEeModule {
    Annotation,
    XmlBind,
    Activation,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JavaFacts {
    /// Relative to the project root.
    pub path: PathBuf,
    pub is_test_source: bool,
    pub syntax_error: Option<String>,
    pub junit: JunitGeneration,
    /// JUnit 4 constructs seen (e.g. `@Test(expected)`, `@Rule`), for planning.
    pub junit4_constructs: Vec<String>,
    pub javax_jakarta_ee: Vec<String>,
    pub javax_jdk: Vec<String>,
    pub removed_modules: Vec<RemovedJavaEeModule>,
    pub tests: Vec<TestMethod>,
    pub uses_hamcrest: bool,
    pub bytes: usize,
    /// The package and the top-level types declared in it, for name clashes across files.
    #[serde(default)]
    pub package: String,
    #[serde(default)]
    pub top_level_types: Vec<String>,
    /// The simple name the first top-level class extends (generics and package dropped).
    #[serde(default)]
    pub superclass: Option<String>,
    /// The JUnit 3 fixture methods (`setUp`, `tearDown`) the first top-level class declares.
    #[serde(default)]
    pub fixtures: Vec<String>,
}

/// The project's JUnit 3 classes by simple name, each with the fixture methods it and its
/// in-project ancestors declare: what a subclass's `super.setUp()` still reaches once the
/// hierarchy no longer extends `TestCase`.
pub type Junit3Bases = BTreeMap<String, BTreeSet<String>>;

const JAKARTA_EE_PACKAGES: &[&str] = &[
    "javax.servlet",
    "javax.persistence",
    "javax.validation",
    "javax.xml.bind",
    "javax.xml.ws",
    "javax.xml.soap",
    "javax.jws",
    "javax.activation",
    "javax.ws.rs",
    "javax.inject",
    "javax.enterprise",
    "javax.transaction",
    "javax.mail",
    "javax.websocket",
    "javax.json",
    "javax.ejb",
    "javax.faces",
    "javax.el",
    "javax.interceptor",
    "javax.batch",
    "javax.jms",
    "javax.security.enterprise",
    "javax.security.auth.message",
    "javax.security.jacc",
    "javax.resource",
    "javax.decorator",
    "javax.management.j2ee",
    "javax.xml.registry",
    "javax.xml.rpc",
];

const JDK_PACKAGES: &[&str] = &[
    "javax.crypto",
    "javax.net",
    "javax.xml.parsers",
    "javax.xml.transform",
    "javax.xml.xpath",
    "javax.xml.validation",
    "javax.xml.stream",
    "javax.xml.datatype",
    "javax.xml.namespace",
    "javax.xml.catalog",
    "javax.xml.crypto",
    "javax.xml.XMLConstants",
    "javax.sql",
    "javax.swing",
    "javax.imageio",
    "javax.management",
    "javax.naming",
    "javax.print",
    "javax.script",
    "javax.security.auth",
    "javax.security.cert",
    "javax.security.sasl",
    "javax.sound",
    "javax.tools",
    "javax.lang.model",
    "javax.annotation.processing",
    "javax.accessibility",
    "javax.rmi",
    "javax.smartcardio",
    "javax.transaction.xa",
];

/// javax.annotation types owned by Jakarta Annotations (the rest, e.g. JSR-305's
/// `Nonnull`, belong to other libraries).
const JAKARTA_ANNOTATION_TYPES: &[&str] = &[
    "PostConstruct",
    "PreDestroy",
    "Resource",
    "Resources",
    "Generated",
    "ManagedBean",
    "Priority",
    "security",
    "sql",
];

fn has_package_prefix(name: &str, prefix: &str) -> bool {
    name == prefix
        || name
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Classifies a `javax.*` import path (a type, a package or a static member).
pub fn javax_owner(path: &str) -> Option<JavaxOwner> {
    if !path.starts_with("javax.") {
        return None;
    }
    // Longest match wins: javax.transaction.xa is JDK, javax.transaction is Jakarta.
    let jdk = JDK_PACKAGES
        .iter()
        .filter(|p| has_package_prefix(path, p))
        .map(|p| p.len())
        .max();
    let ee = JAKARTA_EE_PACKAGES
        .iter()
        .filter(|p| has_package_prefix(path, p))
        .map(|p| p.len())
        .max();
    if let Some(rest) = path.strip_prefix("javax.annotation.") {
        let first = rest.split('.').next().unwrap_or("");
        return Some(if first == "processing" {
            JavaxOwner::Jdk
        } else if JAKARTA_ANNOTATION_TYPES.contains(&first) {
            JavaxOwner::JakartaEe
        } else {
            JavaxOwner::Other
        });
    }
    Some(match (jdk, ee) {
        (Some(j), Some(e)) if j >= e => JavaxOwner::Jdk,
        (_, Some(_)) => JavaxOwner::JakartaEe,
        (Some(_), None) => JavaxOwner::Jdk,
        (None, None) => JavaxOwner::Other,
    })
}

fn removed_module(path: &str) -> Option<RemovedJavaEeModule> {
    if has_package_prefix(path, "javax.xml.bind") {
        Some(RemovedJavaEeModule::XmlBind)
    } else if has_package_prefix(path, "javax.activation") {
        Some(RemovedJavaEeModule::Activation)
    } else if javax_owner(path) == Some(JavaxOwner::JakartaEe)
        && path.starts_with("javax.annotation.")
        // The JDK recipe moves it to its namesake javax.annotation.processing.Generated.
        && path != "javax.annotation.Generated"
    {
        Some(RemovedJavaEeModule::Annotation)
    } else {
        None
    }
}

const JUPITER_TEST_ANNOTATIONS: &[&str] = &[
    "Test",
    "ParameterizedTest",
    "RepeatedTest",
    "TestFactory",
    "TestTemplate",
];

/// JUnit 4 constructs the core recipe cannot carry to Jupiter one to one.
pub const JUNIT4_UNSUPPORTED: &[&str] = &[
    "org.junit.Rule",
    "org.junit.ClassRule",
    "org.junit.runner",
    "org.junit.rules",
    "org.junit.experimental",
    "org.junit.internal",
    "org.junit.ComparisonFailure",
    "org.junit.AssumptionViolatedException",
    "org.junit.FixMethodOrder",
    "org.junit.runners",
    "org.junit.matchers",
    "org.junit.validator",
];

pub fn analyze(path: PathBuf, source: &str) -> JavaFacts {
    analyze_in(path, source, &Junit3Bases::new())
}

/// [`analyze`], knowing the project's JUnit 3 classes (`junit3_bases`, simple names): a class
/// that extends one is a JUnit 3 test class too.
pub fn analyze_in(path: PathBuf, source: &str, junit3_bases: &Junit3Bases) -> JavaFacts {
    let is_test_source = path.components().any(|c| c.as_os_str() == "test");
    let mut facts = JavaFacts {
        path,
        is_test_source,
        syntax_error: None,
        junit: JunitGeneration::None,
        junit4_constructs: Vec::new(),
        javax_jakarta_ee: Vec::new(),
        javax_jdk: Vec::new(),
        removed_modules: Vec::new(),
        tests: Vec::new(),
        uses_hamcrest: false,
        bytes: source.len(),
        package: String::new(),
        top_level_types: Vec::new(),
        superclass: None,
        fixtures: Vec::new(),
    };
    let Some(parsed) = java_syntax::parse(source) else {
        facts.syntax_error = Some(format!(
            "parser gave up, or the file nests deeper than {} levels",
            java_syntax::MAX_DEPTH
        ));
        return facts;
    };
    facts.syntax_error = parsed.syntax_error;
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, source);
    facts.package = java_syntax::package_name(root, source);
    let mut c = root.walk();
    facts.top_level_types = root
        .named_children(&mut c)
        .filter(|n| {
            n.kind().ends_with("_declaration")
                && n.kind() != "package_declaration"
                && n.kind() != "import_declaration"
        })
        .filter_map(|n| n.child_by_field_name("name"))
        .map(|n| text(n, source).to_string())
        .collect();
    let mut c = root.walk();
    if let Some(class) = root
        .named_children(&mut c)
        .find(|n| n.kind() == "class_declaration")
    {
        facts.superclass = superclass_name(class, source).map(str::to_string);
        facts.fixtures = fixture_methods(class, source);
    }

    let mut junit4 = false;
    let mut jupiter = false;
    // A helper that only imports JUnit 3's API (`junit.framework.AssertionFailedError`) is no
    // test, yet needs the JUnit jar as much as one.
    let mut junit3_api = false;
    for imp in &imports {
        let p = imp.path.as_str();
        match javax_owner(p) {
            Some(JavaxOwner::JakartaEe) => facts.javax_jakarta_ee.push(p.to_string()),
            Some(JavaxOwner::Jdk) => facts.javax_jdk.push(p.to_string()),
            _ => {}
        }
        if let Some(m) = removed_module(p)
            && !facts.removed_modules.contains(&m)
        {
            facts.removed_modules.push(m);
        }
        facts.uses_hamcrest |= has_package_prefix(p, "org.hamcrest");
        junit3_api |= has_package_prefix(p, "junit");
        if has_package_prefix(p, "org.junit.jupiter") {
            jupiter = true;
        } else if has_package_prefix(p, "org.junit") {
            junit4 = true;
            if let Some(u) = JUNIT4_UNSUPPORTED.iter().find(|u| has_package_prefix(p, u)) {
                facts.junit4_constructs.push(u.to_string());
            }
        }
    }
    java_syntax::walk(root, |node| {
        if !matches!(
            node.kind(),
            "class_declaration" | "enum_declaration" | "record_declaration"
        ) {
            return;
        }
        let class_name = qualified_class_name(node, source);
        let is_junit3 = extends_junit3(node, source, junit3_bases);
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        let mut cursor = body.walk();
        for member in body.children(&mut cursor) {
            if member.kind() != "method_declaration" {
                continue;
            }
            let name = member
                .child_by_field_name("name")
                .map_or("", |n| text(n, source));
            if let Some(a) = test_annotation(member, source).filter(|a| {
                a.kind() == "annotation"
                    && annotation_name(*a, source).rsplit('.').next() == Some("Test")
            }) {
                for key in ["expected", "timeout"] {
                    if text(a, source).contains(key) {
                        facts.junit4_constructs.push(format!("@Test({key})"));
                    }
                }
            }
            let Some(kind) = test_kind(member, is_junit3, source) else {
                continue;
            };
            facts.tests.push(TestMethod {
                class: class_name.clone(),
                method: name.to_string(),
                kind,
            });
        }
        if is_junit3 {
            facts.junit = facts.junit.max(JunitGeneration::Junit3);
        }
    });
    if junit4 {
        facts.junit = JunitGeneration::Junit4;
    } else if jupiter {
        facts.junit = JunitGeneration::Jupiter;
    } else if junit3_api {
        facts.junit = facts.junit.max(JunitGeneration::Junit3);
    }
    facts.junit4_constructs.sort();
    facts.junit4_constructs.dedup();
    facts
}

/// The no-argument `setUp` and `tearDown` methods `class` declares.
fn fixture_methods(class: Node, source: &str) -> Vec<String> {
    let Some(body) = class.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut c = body.walk();
    body.named_children(&mut c)
        .filter(|m| m.kind() == "method_declaration")
        .filter(|m| {
            m.child_by_field_name("parameters")
                .is_some_and(|p| p.named_child_count() == 0)
        })
        .filter_map(|m| m.child_by_field_name("name"))
        .map(|n| text(n, source))
        .filter(|n| matches!(*n, "setUp" | "tearDown"))
        .map(str::to_string)
        .collect()
}

/// `class` extends `TestCase` or one of the project's JUnit 3 classes.
pub(crate) fn extends_junit3(class: Node, source: &str, junit3_bases: &Junit3Bases) -> bool {
    is_junit3_class(class, source)
        || superclass_name(class, source).is_some_and(|s| junit3_bases.contains_key(s))
}

/// `extends TestCase`: a JUnit 3 class, whose public no-argument `test*` methods are tests.
pub(crate) fn is_junit3_class(class: Node, source: &str) -> bool {
    class.child_by_field_name("superclass").is_some_and(|s| {
        matches!(
            text(s, source).trim_start_matches("extends").trim(),
            "TestCase" | "junit.framework.TestCase"
        )
    })
}

/// The annotation that makes a method a test (`@Test`, `@ParameterizedTest` ...).
pub(crate) fn test_annotation<'t>(method: Node<'t>, source: &str) -> Option<Node<'t>> {
    modifiers_of(method)
        .map(annotations)
        .unwrap_or_default()
        .into_iter()
        .find(|a| {
            let simple = annotation_name(*a, source).rsplit('.').next().unwrap_or("");
            JUPITER_TEST_ANNOTATIONS.contains(&simple)
        })
}

/// What makes a method a test: its annotation's simple name, or `junit3` for a public
/// no-argument `test*` method of a JUnit 3 class; None for any other method.
pub(crate) fn test_kind(method: Node, in_junit3_class: bool, source: &str) -> Option<String> {
    if let Some(a) = test_annotation(method, source) {
        return Some(
            annotation_name(a, source)
                .rsplit('.')
                .next()
                .unwrap_or("")
                .to_string(),
        );
    }
    let name = method
        .child_by_field_name("name")
        .map_or("", |n| text(n, source));
    (in_junit3_class && name.starts_with("test") && is_public_no_arg(method, source))
        .then(|| "junit3".to_string())
}

fn is_public_no_arg(method: Node, source: &str) -> bool {
    let public = modifiers_of(method)
        .is_some_and(|m| text(m, source).split_whitespace().any(|w| w == "public"));
    let no_params = method
        .child_by_field_name("parameters")
        .is_some_and(|p| p.named_child_count() == 0);
    public && no_params
}

/// `Outer.Inner` for nested classes (the name Surefire reports uses `$`, the inventory
/// keeps source names).
pub(crate) fn qualified_class_name(class: Node, source: &str) -> String {
    let mut names = vec![
        class
            .child_by_field_name("name")
            .map_or("", |n| text(n, source)),
    ];
    let mut cur = class.parent();
    while let Some(n) = cur {
        if matches!(
            n.kind(),
            "class_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "interface_declaration"
        ) && let Some(name) = n.child_by_field_name("name")
        {
            names.push(text(name, source));
        }
        cur = n.parent();
    }
    names.reverse();
    names.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_javax_by_owner() {
        assert_eq!(
            javax_owner("javax.servlet.http.HttpServlet"),
            Some(JavaxOwner::JakartaEe)
        );
        assert_eq!(javax_owner("javax.crypto.Cipher"), Some(JavaxOwner::Jdk));
        assert_eq!(
            javax_owner("javax.transaction.xa.XAResource"),
            Some(JavaxOwner::Jdk)
        );
        assert_eq!(
            javax_owner("javax.transaction.Transactional"),
            Some(JavaxOwner::JakartaEe)
        );
        assert_eq!(
            javax_owner("javax.annotation.PostConstruct"),
            Some(JavaxOwner::JakartaEe)
        );
        assert_eq!(
            javax_owner("javax.annotation.processing.Processor"),
            Some(JavaxOwner::Jdk)
        );
        assert_eq!(
            javax_owner("javax.annotation.Nonnull"),
            Some(JavaxOwner::Other)
        );
        assert_eq!(javax_owner("javax.servletx.Foo"), Some(JavaxOwner::Other));
        assert_eq!(javax_owner("java.util.List"), None);
    }

    #[test]
    fn inventories_junit4_and_junit3_tests() {
        let src = r#"
import org.junit.Test;
import javax.xml.bind.JAXB;
import javax.crypto.Cipher;
public class ATest {
  @Test(expected = IllegalStateException.class) public void a() {}
  @Test public void b() {}
  public void helper() {}
  static class Inner { @org.junit.Test public void c() {} }
}
class Old extends junit.framework.TestCase { public void testX() {} void testHidden() {} }
"#;
        let f = analyze(PathBuf::from("src/test/java/ATest.java"), src);
        assert!(f.is_test_source);
        assert_eq!(f.junit, JunitGeneration::Junit4);
        let names: Vec<_> = f
            .tests
            .iter()
            .map(|t| format!("{}#{}", t.class, t.method))
            .collect();
        assert_eq!(names, ["ATest#a", "ATest#b", "ATest.Inner#c", "Old#testX"]);
        assert_eq!(f.removed_modules, [RemovedJavaEeModule::XmlBind]);
        assert_eq!(f.javax_jdk, ["javax.crypto.Cipher"]);
        assert!(f.junit4_constructs.contains(&"@Test(expected)".to_string()));
    }

    /// `@Generated` alone needs no common-annotations jar: the JDK recipe moves it to
    /// javax.annotation.processing; `@PostConstruct` still does.
    #[test]
    fn javax_annotation_generated_needs_no_removed_module() {
        let generated = "import javax.annotation.Generated;\n@Generated(\"x\") class A {}\n";
        let f = analyze(PathBuf::from("src/main/java/A.java"), generated);
        assert!(f.removed_modules.is_empty());
        let both = "import javax.annotation.Generated;\nimport javax.annotation.PostConstruct;\nclass B {}\n";
        let f = analyze(PathBuf::from("src/main/java/B.java"), both);
        assert_eq!(f.removed_modules, [RemovedJavaEeModule::Annotation]);
    }

    /// A test helper using JUnit 3's API, in no test class, is JUnit 3 code: its module keeps
    /// the JUnit jar unless the helper moves too. A package merely named like it is not.
    #[test]
    fn a_helper_importing_junit3_api_is_junit3_code() {
        let helper = "package p;\nimport junit.framework.AssertionFailedError;\nclass Perf { void f() { throw new AssertionFailedError(\"slow\"); } }\n";
        let f = analyze(PathBuf::from("src/test/java/p/Perf.java"), helper);
        assert_eq!(f.junit, JunitGeneration::Junit3);
        assert!(f.tests.is_empty());
        let other = "package p;\nimport junitx.util.Helper;\nclass Q {}\n";
        let f = analyze(PathBuf::from("src/test/java/p/Q.java"), other);
        assert_eq!(f.junit, JunitGeneration::None);
    }
}
