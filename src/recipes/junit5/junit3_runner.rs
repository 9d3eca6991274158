//! What a JUnit 3 `TestCase` carried only for JUnit 3's runners, and Jupiter does without:
//! the default `suite()` (`return new TestSuite(Self.class);`, what the runner does with
//! no suite at all), the test-name constructor (`Self(String name) { super(name); }`) and a
//! `main` that launches `junit.textui.TestRunner` on the class. These members go; any
//! other suite, constructor or `main` keeps the class on the vintage engine.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::Node;

use crate::edit::deletion_span;
use crate::java_syntax::{self, Import, field_text, modifiers_of, text};
use crate::recipes::java_types::Scope;

/// The public types of `junit.framework`: a name the on-demand import may still supply.
const JUNIT3_TYPES: &[&str] = &[
    "Assert",
    "AssertionFailedError",
    "ComparisonCompactor",
    "ComparisonFailure",
    "JUnit4TestAdapter",
    "JUnit4TestAdapterCache",
    "JUnit4TestCaseFacade",
    "Protectable",
    "Test",
    "TestCase",
    "TestFailure",
    "TestListener",
    "TestResult",
    "TestSuite",
];

/// For each simple class name, the project files that gather it into a JUnit 3 suite
/// (`Name.suite()`, `addTestSuite(Name.class)`, `new TestSuite(Name.class)`,
/// `addTest(new Name(..))`): such a class must stay a `TestCase`, suite and all. A file
/// whose suite only gathers classes (see [`gathering_suite`]) becomes a JUnit Platform
/// suite and gathers nothing on JUnit 3.
#[derive(Debug, Default)]
pub struct SuiteMembers {
    gathered_by: BTreeMap<String, BTreeSet<PathBuf>>,
    /// Each file becoming a JUnit Platform suite: its `suite()` method's bytes, and the
    /// project files of the classes it gathers.
    platform_suites: BTreeMap<PathBuf, (Range<usize>, Vec<PathBuf>)>,
    /// The build can be given `junit-platform-suite`: suites may become platform suites.
    platform: bool,
}

impl SuiteMembers {
    /// Reads the references from the sources' text (comments included, which can only keep
    /// a class on JUnit 3 that could have moved). `platform`: the build can be given
    /// `junit-platform-suite` (Maven), so gathering suites may become platform suites.
    pub fn scan<'a>(
        sources: impl IntoIterator<Item = (&'a Path, &'a str)>,
        platform: bool,
    ) -> Self {
        static GATHERED: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(concat!(
                r"([A-Za-z_$][\w$]*)\s*\.\s*suite\s*\(",
                r"|addTestSuite\s*\(\s*(?:[\w$]+\s*\.\s*)*([A-Za-z_$][\w$]*)\s*\.\s*class\b",
                r"|new\s+TestSuite\s*\(\s*(?:[\w$]+\s*\.\s*)*([A-Za-z_$][\w$]*)\s*\.\s*class\b",
                r"|addTest\s*\(\s*new\s+(?:[\w$]+\s*\.\s*)*([A-Za-z_$][\w$]*)\s*\(",
            ))
            .expect("valid regex")
        });
        let sources: Vec<(&Path, &str)> = sources.into_iter().collect();
        let platform_suites = if platform {
            platform_suites(&sources)
        } else {
            BTreeMap::new()
        };
        let mut gathered_by: BTreeMap<String, BTreeSet<PathBuf>> = BTreeMap::new();
        for (path, src) in sources {
            // What the platform suite's own `suite()` gathers no longer counts.
            let converted = platform_suites.get(path).map(|(method, _)| method);
            for c in GATHERED.captures_iter(src) {
                let gone = |m: &regex::Match| converted.is_some_and(|r| r.contains(&m.start()));
                if let Some(name) = c.iter().skip(1).flatten().next()
                    && !c.get(0).is_some_and(|m| gone(&m))
                {
                    gathered_by
                        .entry(name.as_str().to_string())
                        .or_default()
                        .insert(path.to_path_buf());
                }
            }
        }
        SuiteMembers {
            gathered_by,
            platform_suites,
            platform,
        }
    }

    /// Whether the build can be given `junit-platform-suite` (a JUnit 4 `Suite` may become a
    /// JUnit Platform suite).
    pub fn platform(&self) -> bool {
        self.platform
    }

    /// Whether a file other than `path` gathers `class` into a suite.
    pub fn elsewhere(&self, class: &str, path: &Path) -> bool {
        self.gathered_by
            .get(class)
            .is_some_and(|files| files.iter().any(|f| f != path))
    }

    /// Whether the suite in `path` becomes a JUnit Platform suite.
    pub fn platform_suite(&self, path: &Path) -> bool {
        self.platform_suites.contains_key(path)
    }

    /// A platform suite converts with the classes it gathers: one left on JUnit 3 keeps the
    /// suite gathering it there.
    pub fn units(&self) -> Vec<super::Unit> {
        self.platform_suites
            .iter()
            .map(|(suite, (_, members))| super::Unit {
                what: format!("{} and the classes it gathers", suite.display()),
                files: std::iter::once(suite.clone())
                    .chain(members.iter().cloned())
                    .collect(),
            })
            .collect()
    }
}

/// The files whose class's `suite()` only gathers classes, each added as a class or through
/// a `suite()` that is the default one or is itself such a suite (so nothing a suite method
/// did is lost when the class is selected instead).
fn platform_suites(sources: &[(&Path, &str)]) -> BTreeMap<PathBuf, (Range<usize>, Vec<PathBuf>)> {
    let mut defaults = BTreeSet::new();
    let mut declared: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut gathering: BTreeMap<String, (PathBuf, Range<usize>, Gathered)> = BTreeMap::new();
    for (path, src) in sources {
        let Some(parsed) = java_syntax::parse(src).filter(|p| p.syntax_error.is_none()) else {
            continue;
        };
        let root = parsed.tree.root_node();
        let types = Scope::new(root, src);
        let mut c = root.walk();
        for class in root
            .named_children(&mut c)
            .filter(|n| n.kind() == "class_declaration")
        {
            let name = field_text(class, "name", src);
            declared.insert(name.to_string(), path.to_path_buf());
            let Some(body) = class.child_by_field_name("body") else {
                continue;
            };
            let mut b = body.walk();
            let methods: Vec<Node> = body
                .named_children(&mut b)
                .filter(|m| m.kind() == "method_declaration")
                .collect();
            // Tests of its own would start to run beside the suite it describes.
            let own_tests = methods
                .iter()
                .any(|m| field_text(*m, "name", src).starts_with("test"));
            for m in methods {
                if default_suite(m, name, src, &types) {
                    defaults.insert(name.to_string());
                } else if let Some(g) = gathering_suite(m, src, &types).filter(|g| {
                    !own_tests && !g.classes.iter().any(|c| c.rsplit('.').next() == Some(name))
                }) {
                    gathering.insert(name.to_string(), (path.to_path_buf(), m.byte_range(), g));
                }
            }
        }
    }
    // Keep the suites whose every `X.suite()` is a default or a kept suite, until stable.
    loop {
        let keep: BTreeSet<String> = gathering.keys().cloned().collect();
        let before = gathering.len();
        gathering.retain(|_, (_, _, g)| {
            g.through_suite
                .iter()
                .all(|x| defaults.contains(x) || keep.contains(x))
        });
        if gathering.len() == before {
            break;
        }
    }
    gathering
        .into_values()
        .map(|(path, method, g)| {
            let members = g
                .classes
                .iter()
                .filter_map(|c| declared.get(c.rsplit('.').next().unwrap_or(c)).cloned())
                .collect();
            (path, (method, members))
        })
        .collect()
}

/// What a `suite()` that only gathers classes holds.
#[derive(Debug, PartialEq)]
pub(super) struct Gathered {
    /// The TestSuite's name, a string literal as written.
    pub name: Option<String>,
    /// The gathered classes as written, in order.
    pub classes: Vec<String>,
    /// The simple names of the classes added through their own `suite()`.
    pub through_suite: Vec<String>,
}

/// `static Test suite() { TestSuite s = new TestSuite(["name"]); s.add..(..); return s; }`
/// where each statement between adds one class: `addTestSuite(X.class)`,
/// `addTest(new TestSuite(X.class))` or `addTest(X.suite())`.
pub(super) fn gathering_suite(m: Node, src: &str, types: &Scope) -> Option<Gathered> {
    let is_suite_type = |t: Node| types.names(text(t, src), "junit.framework.TestSuite");
    let signature = field_text(m, "name", src) == "suite"
        && is_static(m)
        && no_parameters(m)
        && m.child_by_field_name("type")
            .is_some_and(|t| types.names(text(t, src), "junit.framework.Test") || is_suite_type(t));
    if !signature {
        return None;
    }
    let body = m.child_by_field_name("body")?;
    let mut c = body.walk();
    let statements: Vec<Node> = body.named_children(&mut c).collect();
    let (first, rest) = statements.split_first()?;
    let (last, adds) = rest.split_last()?;
    // `TestSuite s = new TestSuite(["name"]);`
    if first.kind() != "local_variable_declaration"
        || !first.child_by_field_name("type").is_some_and(is_suite_type)
    {
        return None;
    }
    let mut d = first.walk();
    let declarators: Vec<Node> = first.children_by_field_name("declarator", &mut d).collect();
    let [declarator] = declarators[..] else {
        return None;
    };
    let var = field_text(declarator, "name", src);
    let created = declarator
        .child_by_field_name("value")
        .filter(|v| v.kind() == "object_creation_expression")
        .filter(|v| v.child_by_field_name("type").is_some_and(is_suite_type))?;
    let args = created.child_by_field_name("arguments")?;
    let name = match args.named_child_count() {
        0 => None,
        1 => Some(
            args.named_child(0)
                .filter(|a| a.kind() == "string_literal")
                .map(|a| text(a, src).to_string())?,
        ),
        _ => return None,
    };
    // `return s;`
    if last.kind() != "return_statement"
        || !last
            .named_child(0)
            .is_some_and(|e| e.kind() == "identifier" && text(e, src) == var)
    {
        return None;
    }
    let mut gathered = Gathered {
        name,
        classes: Vec::new(),
        through_suite: Vec::new(),
    };
    for add in adds {
        let call = (add.kind() == "expression_statement")
            .then(|| add.named_child(0))
            .flatten()
            .filter(|c| c.kind() == "method_invocation")?;
        if !call
            .child_by_field_name("object")
            .is_some_and(|o| o.kind() == "identifier" && text(o, src) == var)
        {
            return None;
        }
        let args = call.child_by_field_name("arguments")?;
        let arg = args
            .named_child(0)
            .filter(|_| args.named_child_count() == 1)?;
        let class = match (field_text(call, "name", src), arg.kind()) {
            ("addTestSuite", "class_literal") => class_of(arg, src)?,
            ("addTest", "object_creation_expression")
                if arg.child_by_field_name("type").is_some_and(is_suite_type) =>
            {
                let a = arg.child_by_field_name("arguments")?;
                a.named_child(0)
                    .filter(|l| a.named_child_count() == 1 && l.kind() == "class_literal")
                    .and_then(|l| class_of(l, src))?
            }
            ("addTest", "method_invocation")
                if field_text(arg, "name", src) == "suite"
                    && arg
                        .child_by_field_name("arguments")
                        .is_some_and(|a| a.named_child_count() == 0) =>
            {
                let owner = arg
                    .child_by_field_name("object")
                    .filter(|o| matches!(o.kind(), "identifier" | "field_access"))?;
                let written = text(owner, src).to_string();
                gathered.through_suite.push(
                    written
                        .rsplit('.')
                        .next()
                        .unwrap_or(&written)
                        .trim()
                        .to_string(),
                );
                written
            }
            _ => return None,
        };
        gathered.classes.push(class);
    }
    (!gathered.classes.is_empty()).then_some(gathered)
}

/// `X` of `X.class`, as written.
fn class_of(literal: Node, src: &str) -> Option<String> {
    literal
        .named_child(0)
        .filter(|t| matches!(t.kind(), "type_identifier" | "scoped_type_identifier"))
        .map(|t| text(t, src).to_string())
}

/// The source a removed member takes with it: its doc comment and its now empty lines.
pub(super) fn member_span(member: Node, src: &str) -> Range<usize> {
    let mut start = member.start_byte();
    if let Some(doc) = member.prev_sibling().filter(|p| {
        p.kind() == "block_comment"
            && text(*p, src).starts_with("/**")
            && src[p.end_byte()..start].trim().is_empty()
    }) {
        start = doc.start_byte();
    }
    deletion_span(src, start..member.end_byte())
}

/// The single statement of a method or constructor body, if that is all it holds.
fn only_statement<'t>(decl: Node<'t>) -> Option<Node<'t>> {
    let body = decl.child_by_field_name("body")?;
    (body.named_child_count() == 1)
        .then(|| body.named_child(0))
        .flatten()
}

fn is_static(decl: Node) -> bool {
    modifiers_of(decl).is_some_and(|m| {
        let mut c = m.walk();
        m.children(&mut c).any(|k| k.kind() == "static")
    })
}

fn no_parameters(decl: Node) -> bool {
    decl.child_by_field_name("parameters")
        .is_some_and(|p| p.named_child_count() == 0)
}

/// `new TestSuite(Self.class)`.
fn own_suite(e: Node, class: &str, src: &str, types: &Scope) -> bool {
    e.kind() == "object_creation_expression"
        && e.child_by_field_name("type")
            .is_some_and(|t| types.names(text(t, src), "junit.framework.TestSuite"))
        && e.child_by_field_name("arguments").is_some_and(|a| {
            a.named_child_count() == 1
                && a.named_child(0).is_some_and(|l| {
                    l.kind() == "class_literal"
                        && l.named_child(0).is_some_and(|t| text(t, src) == class)
                })
        })
}

/// `public static Test suite() { return new TestSuite(Self.class); }`.
pub(super) fn default_suite(m: Node, class: &str, src: &str, types: &Scope) -> bool {
    field_text(m, "name", src) == "suite"
        && is_static(m)
        && no_parameters(m)
        && m.child_by_field_name("type")
            .is_some_and(|t| types.names(text(t, src), "junit.framework.Test"))
        && only_statement(m).is_some_and(|s| {
            s.kind() == "return_statement"
                && s.named_child(0)
                    .is_some_and(|e| own_suite(e, class, src, types))
        })
}

/// `static void main(String[] args) { junit.textui.TestRunner.run(X); }` where X is
/// `suite()`, `Self.class` or `new TestSuite(Self.class)`, with a default suite.
pub(super) fn runner_main(m: Node, class: &str, src: &str, types: &Scope) -> bool {
    let Some(call) = only_statement(m)
        .filter(|s| s.kind() == "expression_statement")
        .and_then(|s| s.named_child(0))
        .filter(|c| c.kind() == "method_invocation")
    else {
        return false;
    };
    let args = call.child_by_field_name("arguments");
    let arg = args
        .filter(|a| a.named_child_count() == 1)
        .and_then(|a| a.named_child(0));
    let runs_this_class = arg.is_some_and(|a| {
        let t: String = text(a, src).split_whitespace().collect();
        t == "suite()"
            || t == format!("{class}.suite()")
            || t == format!("{class}.class")
            || own_suite(a, class, src, types)
    });
    field_text(m, "name", src) == "main"
        && is_static(m)
        && field_text(call, "name", src) == "run"
        && call
            .child_by_field_name("object")
            .is_some_and(|o| types.names(text(o, src), "junit.textui.TestRunner"))
        && runs_this_class
}

/// `Self(String name) { super(name); }`, when the class keeps a no-argument constructor
/// without it (no other constructor takes arguments or delegates with `this(..)`) and the
/// file creates no instance with arguments.
pub(super) fn test_name_constructor(ctor: Node, class: Node, src: &str) -> bool {
    let Some(params) = ctor.child_by_field_name("parameters") else {
        return false;
    };
    let Some(param) = params
        .named_child(0)
        .filter(|p| params.named_child_count() == 1 && p.kind() == "formal_parameter")
    else {
        return false;
    };
    let ty = field_text(param, "type", src);
    let name = field_text(param, "name", src);
    let delegates = only_statement(ctor).is_some_and(|s| {
        s.kind() == "explicit_constructor_invocation"
            && text(s, src).split_whitespace().collect::<String>() == format!("super({name});")
    });
    if !matches!(ty, "String" | "java.lang.String") || !delegates {
        return false;
    }
    let class_name = field_text(class, "name", src);
    let mut blocked = false;
    java_syntax::walk(class, |n| {
        blocked |= match n.kind() {
            "constructor_declaration" if n != ctor => {
                !no_parameters(n) || text(n, src).contains("this(")
            }
            "object_creation_expression" => {
                field_text(n, "type", src) == class_name
                    && n.child_by_field_name("arguments")
                        .is_some_and(|a| a.named_child_count() > 0)
            }
            _ => false,
        };
    });
    !blocked
}

/// The `junit.framework` imports nothing outside `removed` (byte ranges) names any more:
/// `Test`, `TestSuite` and `junit.textui.TestRunner` singly imported, and the on-demand
/// import of `junit.framework`.
pub(super) fn unused_imports(
    root: Node,
    imports: &[Import],
    removed: &[Range<usize>],
    src: &str,
) -> Vec<String> {
    let used: BTreeSet<&str> = java_syntax::names_used(root, src, removed)
        .into_iter()
        .filter(|name| JUNIT3_TYPES.contains(name) || *name == "TestRunner")
        .collect();
    imports
        .iter()
        .filter(|i| !i.is_static)
        .filter(|i| {
            if i.wildcard {
                i.path == "junit.framework" && used.iter().all(|u| *u == "TestRunner")
            } else {
                matches!(
                    i.path.as_str(),
                    "junit.framework.Test"
                        | "junit.framework.TestSuite"
                        | "junit.textui.TestRunner"
                ) && !used.contains(i.path.rsplit('.').next().unwrap_or(""))
            }
        })
        .map(|i| i.path.clone())
        .collect()
}
