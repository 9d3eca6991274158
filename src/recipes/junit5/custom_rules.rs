//! The project's own JUnit 4 rule classes as Jupiter callback extensions. A rule class and
//! the test files that register it move together or not at all, so the decision is taken
//! for the whole project first ([`ProjectRules::scan`]) and enforced after every file was
//! migrated (`super::convert_together` over [`ProjectRules::units`]).
//!
//! | JUnit 4                                                        | Jupiter                                               |
//! |----------------------------------------------------------------|-------------------------------------------------------|
//! | `class X extends ExternalResource` (`before()`, `after()`)     | `class X implements BeforeEachCallback, AfterEachCallback` whose callbacks call them |
//! | `class X implements TestRule`, `apply` returning `new Statement() { evaluate() { B; try { base.evaluate(); } finally { A; } } }` (or `B; base.evaluate(); A`) | the same, with `B` and `A` as private `before()`/`after()` |
//! | `@Rule public X x = new X(..)`                                 | `@RegisterExtension public X x = new X(..)`            |
//! | `@ClassRule public static X x = new X(..)`                     | `@RegisterExtension public static X x = ..` (`BeforeAllCallback, AfterAllCallback`) |
//!
//! Jupiter runs `BeforeEachCallback`s before `@BeforeEach` methods and `AfterEachCallback`s
//! after `@AfterEach` ones, as JUnit 4 ran rules around `@Before`/`@After`: the order of a
//! test's own fixtures is kept. Jupiter also runs a registered extension's after-callback
//! when its before-work or the test failed, where JUnit 4 skipped the after-work of
//! `B; base.evaluate(); A` (and of an `ExternalResource` whose `before()` threw): only a run
//! that already fails differs. A class registered both ways implements both sets; the
//! instance a `@ClassRule` made learns so in `beforeAll` and leaves the per-test callbacks
//! (which Jupiter also gives a static extension) to the `@Rule` instances. Everything else (a `Description`, a catch or a repeat
//! around `base.evaluate()`, `MethodRule`, the other rule bases, a rule class used other
//! than as a rule field, from main code or from another module) keeps the class and its
//! users on JUnit 4 with the construct named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use tree_sitter::Node;

use super::Unit;
use super::structure::{Structure, removal, simple};
use crate::edit::{Edit, indent_at, line_ending, reindent};
use crate::java_syntax::{
    self, Import, annotation_name, annotations, field_text, modifiers_of, text,
};

/// One Java source of the project as the recipe tier reads it.
pub struct Source<'a> {
    pub path: &'a Path,
    /// Index of its Maven module: a rule class is converted only with users in its module.
    pub module: usize,
    pub test_source: bool,
    pub text: &'a str,
}

/// Where a rule class is registered: per test (`@Rule`) and/or per class (`@ClassRule`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Levels {
    pub each: bool,
    pub all: bool,
}

#[derive(Debug)]
pub struct RuleClass {
    pub path: PathBuf,
    module: usize,
    package: String,
    /// The callbacks to implement, or why the class and its users stay on JUnit 4.
    pub verdict: Result<Levels, String>,
    /// Files with a `@Rule`/`@ClassRule` field of this class.
    pub users: BTreeSet<PathBuf>,
    /// Methods the class declares: a user may call these on its rule field.
    methods: BTreeSet<String>,
}

/// The project's rule classes by simple name.
#[derive(Debug, Default)]
pub struct ProjectRules {
    classes: BTreeMap<String, RuleClass>,
}

/// What a file's text must contain to declare a rule class (a cheap filter before parsing).
const RULE_BASES: &[&str] = &["ExternalResource", "TestRule", "MethodRule"];
const RULES_PACKAGE: &str = "org.junit.rules";
/// The imports a converted rule class no longer needs.
const RULE_IMPORTS: &[&str] = &[
    "org.junit.rules.ExternalResource",
    "org.junit.rules.TestRule",
    "org.junit.runners.model.Statement",
    "org.junit.runner.Description",
];
/// Names a class must not declare itself for the generated members to mean what they say.
const GENERATED: &[&str] = &[
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
    "perClass",
];

impl ProjectRules {
    /// Whether `text` may declare a rule class: only such files are parsed for one.
    pub fn may_declare(text: &str) -> bool {
        RULE_BASES.iter().any(|b| text.contains(b))
    }

    /// The rule classes of `sources` (the project's Java files) and, for each, who uses it
    /// and whether it can convert.
    pub fn scan(sources: &[Source]) -> Self {
        let mut classes: BTreeMap<String, RuleClass> = BTreeMap::new();
        for s in sources.iter().filter(|s| Self::may_declare(s.text)) {
            let Some(parsed) = java_syntax::parse(s.text) else {
                continue;
            };
            let root = parsed.tree.root_node();
            let imports = java_syntax::imports(root, s.text);
            for class in top_level_classes(root) {
                let Some(shape) = Shape::of(class, s.text, &imports) else {
                    continue;
                };
                let name = field_text(class, "name", s.text).to_string();
                let verdict = match shape {
                    _ if !s.test_source => Err(format!(
                        "rule class {name} is main code (Jupiter's extension API is a test dependency)"
                    )),
                    Err(e) => Err(e),
                    Ok(_) => Ok(Levels::default()),
                };
                let duplicate = classes.contains_key(&name);
                let rule = classes.entry(name.clone()).or_insert_with(|| RuleClass {
                    path: s.path.to_path_buf(),
                    module: s.module,
                    package: java_syntax::package_name(root, s.text),
                    verdict,
                    users: BTreeSet::new(),
                    methods: declared_methods(class, s.text),
                });
                if duplicate {
                    rule.verdict = Err(format!("two project classes are named {name}"));
                }
            }
        }
        if classes.is_empty() {
            return Self::default();
        }
        let found: Vec<(PathBuf, Vec<(String, Use)>)> = sources
            .par_iter()
            .map(|s| (s.path.to_path_buf(), uses_in(s, &classes)))
            .collect();
        for (path, uses) in found {
            for (name, u) in uses {
                let Some(rule) = classes.get_mut(&name) else {
                    continue;
                };
                match (u, &mut rule.verdict) {
                    (Use::Rule { class_rule }, verdict) => {
                        if let Ok(levels) = verdict {
                            levels.each |= !class_rule;
                            levels.all |= class_rule;
                        }
                        rule.users.insert(path.clone());
                    }
                    (Use::Other(why), verdict @ Ok(_)) => *verdict = Err(why),
                    (Use::Other(_), Err(_)) => {}
                }
            }
        }
        for (name, rule) in &mut classes {
            if rule.users.is_empty() && rule.verdict.is_ok() {
                rule.verdict = Err(format!(
                    "rule class {name} is not registered by a @Rule field in the project"
                ));
            }
        }
        Self { classes }
    }

    /// Each convertible rule class with its users: the files that convert as one unit.
    pub fn units(&self) -> Vec<Unit> {
        self.classes
            .iter()
            .filter(|(_, r)| r.verdict.is_ok())
            .map(|(name, r)| Unit {
                what: format!("rule class {name} and the tests registering it"),
                files: std::iter::once(r.path.clone())
                    .chain(r.users.iter().cloned())
                    .collect(),
            })
            .collect()
    }

    /// The rule class `name` when `path` declares it.
    pub(super) fn declared_in(&self, name: &str, path: &Path) -> Option<&RuleClass> {
        self.classes.get(name).filter(|r| r.path == path)
    }

    /// The rule class `name` when `path` registers it.
    pub(super) fn registered_in(&self, name: &str, path: &Path) -> Option<&RuleClass> {
        self.classes.get(name).filter(|r| r.users.contains(path))
    }
}

fn top_level_classes<'t>(root: Node<'t>) -> Vec<Node<'t>> {
    let mut c = root.walk();
    root.named_children(&mut c)
        .filter(|n| n.kind() == "class_declaration")
        .collect()
}

fn declared_methods(class: Node, src: &str) -> BTreeSet<String> {
    members(class)
        .into_iter()
        .filter(|m| m.kind() == "method_declaration")
        .map(|m| field_text(m, "name", src).to_string())
        .collect()
}

fn members<'t>(class: Node<'t>) -> Vec<Node<'t>> {
    let Some(body) = class.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut c = body.walk();
    body.named_children(&mut c).collect()
}

/// The simple name of a type written in a file when it is one of `org.junit.rules`.
fn junit_rule_type<'s>(written: &'s str, imports: &[Import]) -> Option<&'s str> {
    let raw = written.split('<').next().unwrap_or(written).trim();
    let name = simple(raw);
    let from_rules = raw == format!("{RULES_PACKAGE}.{name}")
        || imports.iter().any(|i| {
            !i.is_static
                && (i.path == format!("{RULES_PACKAGE}.{name}")
                    || (i.wildcard && i.path == RULES_PACKAGE))
        });
    from_rules.then_some(name)
}

/// How one file uses a rule class.
enum Use {
    /// The type (or `new` of it) of a `@Rule`/`@ClassRule` field.
    Rule { class_rule: bool },
    /// Anything else, described for the reason.
    Other(String),
}

/// Every use of the project's rule classes in one file (their own files excepted).
fn uses_in(s: &Source, classes: &BTreeMap<String, RuleClass>) -> Vec<(String, Use)> {
    let named: Vec<(&String, &RuleClass)> = classes
        .iter()
        .filter(|(name, r)| r.path != s.path && mentions(s.text, name))
        .collect();
    if named.is_empty() {
        return Vec::new();
    }
    let Some(parsed) = java_syntax::parse(s.text) else {
        return Vec::new();
    };
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, s.text);
    let package = java_syntax::package_name(root, s.text);
    let declared = java_syntax::declared_type_names(root, s.text);
    let mut out = Vec::new();
    for (name, rule) in named {
        let fqn = format!("{}.{name}", rule.package);
        let imported = imports
            .iter()
            .find(|i| !i.is_static && !i.wildcard && simple(&i.path) == name.as_str());
        // Which class an unqualified `name` denotes here: an import, then the file's own
        // types and package, then an on-demand import.
        let unqualified_is_ours = match imported {
            Some(i) => i.path == fqn,
            None => {
                !declared.contains(name)
                    && (package == rule.package
                        || imports
                            .iter()
                            .any(|i| !i.is_static && i.wildcard && i.path == rule.package))
            }
        };
        java_syntax::walk(root, |n| {
            if !matches!(n.kind(), "identifier" | "type_identifier") || text(n, s.text) != name {
                return;
            }
            let qualified = n.parent().filter(|p| {
                matches!(p.kind(), "scoped_type_identifier" | "scoped_identifier")
                    && p.child_by_field_name("name").is_none_or(|x| x == n)
                    && p.end_byte() == n.end_byte()
            });
            let ours = match qualified {
                Some(p) => text(p, s.text).split_whitespace().collect::<String>() == fqn,
                None => unqualified_is_ours,
            };
            if !ours || inside(n, "import_declaration").is_some() {
                return;
            }
            let line = n.start_position().row + 1;
            let at = format!("{}:{line}", s.path.display());
            let u = match rule_field_use(n, s.text) {
                _ if s.module != rule.module => Use::Other(format!(
                    "rule class {name} is used from another module ({at})"
                )),
                _ if !s.test_source => {
                    Use::Other(format!("rule class {name} is used from main code ({at})"))
                }
                Some(class_rule) => Use::Rule { class_rule },
                None => Use::Other(format!(
                    "rule class {name} is used other than as a @Rule field ({at})"
                )),
            };
            out.push((name.clone(), u));
        });
    }
    out
}

/// `name` occurs in `text` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name)
        .any(|(i, _)| !text[..i].ends_with(word) && !text[i + name.len()..].starts_with(word))
}

fn inside<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cur = n.parent();
    while let Some(p) = cur {
        if p.kind() == kind {
            return Some(p);
        }
        cur = p.parent();
    }
    None
}

/// Whether `n` (a type name) is the type of a `@Rule`/`@ClassRule` field or of the plain
/// `new` that initializes it; `Some(true)` for a class rule.
fn rule_field_use(n: Node, src: &str) -> Option<bool> {
    let field = inside(n, "field_declaration")?;
    let rule = modifiers_of(field).and_then(|m| {
        annotations(m)
            .into_iter()
            .map(|a| simple(annotation_name(a, src)))
            .find(|a| matches!(*a, "Rule" | "ClassRule"))
    })?;
    let within =
        |outer: Option<Node>| outer.is_some_and(|o| o.byte_range().contains(&n.start_byte()));
    let init = field
        .child_by_field_name("declarator")
        .and_then(|d| d.child_by_field_name("value"))
        .filter(|v| {
            let mut c = v.walk();
            v.kind() == "object_creation_expression"
                && !v.named_children(&mut c).any(|x| x.kind() == "class_body")
        });
    (within(field.child_by_field_name("type"))
        || within(init.and_then(|v| v.child_by_field_name("type"))))
    .then_some(rule == "ClassRule")
}

/// A convertible rule class, as the edits that make it an extension.
struct Shape<'t> {
    /// Whether the class has before-work and after-work.
    before: bool,
    after: bool,
    edits: Vec<Edit>,
    /// Where the new members go: after the last member (ExternalResource) or in place of
    /// `apply` (TestRule).
    place: std::ops::Range<usize>,
    /// The private `before()`/`after()` holding a TestRule's work (none for an
    /// ExternalResource, which has its own).
    methods: Vec<String>,
    /// The JUnit 4 base: `extends ExternalResource`, or `TestRule` in the interfaces.
    base: Node<'t>,
}

impl<'t> Shape<'t> {
    /// None when `class` is not a rule class; Err when it is one that cannot convert.
    fn of(class: Node<'t>, src: &str, imports: &[Import]) -> Option<Result<Self, String>> {
        let name = field_text(class, "name", src);
        let superclass = class
            .child_by_field_name("superclass")
            .map(|s| text(s, src).trim_start_matches("extends").trim());
        let rule_interface = interfaces(class)
            .into_iter()
            .find_map(|i| junit_rule_type(text(i, src), imports).map(|n| (n, i)));
        let unsupported = |how: &str, base: &str| {
            Err(format!(
                "rule class {name} {how} {base}, which has no callback form in the recipe tier"
            ))
        };
        Some(
            match (
                superclass.and_then(|s| junit_rule_type(s, imports)),
                rule_interface,
            ) {
                (Some("ExternalResource"), _) => external_resource(class, src),
                (Some(other), _) => unsupported("extends", other),
                (None, Some(("TestRule", base))) => test_rule(class, base, src),
                (None, Some((other, _))) => unsupported("implements", other),
                (None, None) => return None,
            }
            .and_then(|shape| {
                let text = text(class, src);
                match GENERATED.iter().find(|g| mentions(text, g)) {
                    Some(g) => Err(format!("rule class {name} already has a member named {g}")),
                    None => Ok(shape),
                }
            }),
        )
    }
}

fn interfaces(class: Node) -> Vec<Node> {
    let Some(list) = class.child_by_field_name("interfaces").and_then(|i| {
        let mut c = i.walk();
        i.named_children(&mut c).find(|n| n.kind() == "type_list")
    }) else {
        return Vec::new();
    };
    let mut c = list.walk();
    list.named_children(&mut c).collect()
}

fn methods<'t>(class: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    members(class)
        .into_iter()
        .filter(|m| m.kind() == "method_declaration")
}

fn param_count(m: Node) -> usize {
    m.child_by_field_name("parameters")
        .map_or(0, |p| p.named_child_count())
}

/// Named children that are code, not comments.
fn code_children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|x| !x.kind().ends_with("comment"))
        .collect()
}

/// `class X extends ExternalResource`: its `before()`/`after()` stay (without `@Override`,
/// `throws Throwable` narrowed to what a callback may throw) and the callbacks call them.
fn external_resource<'t>(class: Node<'t>, src: &str) -> Result<Shape<'t>, String> {
    let name = field_text(class, "name", src);
    let mut problem = None;
    java_syntax::walk(class, |n| {
        if n.kind() == "method_invocation" && field_text(n, "object", src) == "super" {
            let m = field_text(n, "name", src);
            if matches!(m, "before" | "after" | "apply") {
                problem = Some(format!("rule class {name} calls ExternalResource's {m}()"));
            }
        }
    });
    if let Some(p) = problem {
        return Err(p);
    }
    let last = members(class).last().map_or(0, |m| m.end_byte());
    let mut shape = Shape {
        before: false,
        after: false,
        edits: Vec::new(),
        place: last..last,
        methods: Vec::new(),
        base: class
            .child_by_field_name("superclass")
            .ok_or("no superclass")?,
    };
    for m in methods(class) {
        match (field_text(m, "name", src), param_count(m)) {
            ("apply", 2) => return Err(format!("rule class {name} overrides apply()")),
            (which @ ("before" | "after"), 0) => {
                if let Some(a) = modifiers_of(m).and_then(|mods| {
                    annotations(mods)
                        .into_iter()
                        .find(|a| simple(annotation_name(*a, src)) == "Override")
                }) {
                    shape.edits.push(removal(src, a));
                }
                let throws = {
                    let mut c = m.walk();
                    m.children(&mut c).find(|x| x.kind() == "throws")
                };
                if let Some(t) = throws.filter(|t| mentions(text(*t, src), "Throwable")) {
                    let body = m.child_by_field_name("body").ok_or("method without body")?;
                    if let Some(why) = wider_than_exception(&[body], class, src) {
                        return Err(format!(
                            "{name}.{which}() may throw a Throwable that is not an Exception ({why})"
                        ));
                    }
                    shape
                        .edits
                        .push(Edit::replace(t.byte_range(), "throws Exception"));
                }
                shape.before |= which == "before";
                shape.after |= which == "after";
            }
            _ => {}
        }
    }
    if !shape.before && !shape.after {
        return Err(format!(
            "rule class {name} overrides neither before() nor after()"
        ));
    }
    Ok(shape)
}

/// `class X implements TestRule` whose `apply` is exactly `return new Statement() { void
/// evaluate() { B; try { base.evaluate(); } finally { A; } } };` (or `B; base.evaluate();
/// A;`) where `B` and `A` use neither `base` nor the `Description`.
fn test_rule<'t>(class: Node<'t>, base: Node<'t>, src: &str) -> Result<Shape<'t>, String> {
    let name = field_text(class, "name", src);
    let all: Vec<Node> = methods(class).collect();
    if let Some(m) = all
        .iter()
        .find(|m| matches!(field_text(**m, "name", src), "before" | "after"))
    {
        return Err(format!(
            "rule class {name} already declares {}()",
            field_text(*m, "name", src)
        ));
    }
    let apply = all
        .iter()
        .copied()
        .find(|m| field_text(*m, "name", src) == "apply" && param_count(*m) == 2)
        .ok_or_else(|| format!("rule class {name} has no apply(Statement, Description)"))?;
    let params = apply
        .child_by_field_name("parameters")
        .map(code_children)
        .unwrap_or_default();
    let [base_name, description] = [0, 1].map(|i| field_text(params[i], "name", src));
    let not_exact = || {
        format!(
            "{name}.apply() is not `return new Statement() {{ evaluate: before; base.evaluate(); after }}`"
        )
    };
    let statements = apply
        .child_by_field_name("body")
        .map(code_children)
        .unwrap_or_default();
    let evaluate = match statements[..] {
        [ret] if ret.kind() == "return_statement" => code_children(ret)
            .first()
            .copied()
            .filter(|v| {
                v.kind() == "object_creation_expression"
                    && simple(field_text(*v, "type", src)) == "Statement"
            })
            .and_then(|v| {
                code_children(v)
                    .into_iter()
                    .find(|c| c.kind() == "class_body")
            })
            .map(code_children)
            .and_then(|members| match members[..] {
                [m] if m.kind() == "method_declaration"
                    && field_text(m, "name", src) == "evaluate"
                    && param_count(m) == 0 =>
                {
                    m.child_by_field_name("body")
                }
                _ => None,
            }),
        _ => None,
    }
    .ok_or_else(not_exact)?;
    let is_base_evaluate = |n: Node| {
        n.kind() == "expression_statement"
            && code_children(n).first().is_some_and(|call| {
                call.kind() == "method_invocation"
                    && field_text(*call, "object", src) == base_name
                    && field_text(*call, "name", src) == "evaluate"
                    && call
                        .child_by_field_name("arguments")
                        .is_some_and(|a| a.named_child_count() == 0)
            })
    };
    let body = code_children(evaluate);
    let (before, after): (Vec<Node>, Vec<Node>) = match body.iter().position(|n| {
        is_base_evaluate(*n)
            || (n.kind() == "try_statement" && {
                let parts = code_children(*n);
                let block = n.child_by_field_name("body").map(code_children);
                matches!(block.as_deref(), Some([only]) if is_base_evaluate(*only))
                    && parts.iter().all(|p| p.kind() != "catch_clause")
            })
    }) {
        Some(i) if body[i].kind() == "try_statement" => {
            if i + 1 != body.len() {
                return Err(not_exact());
            }
            let finally = code_children(body[i])
                .into_iter()
                .find(|p| p.kind() == "finally_clause")
                .and_then(|f| code_children(f).first().copied())
                .ok_or_else(not_exact)?;
            (body[..i].to_vec(), code_children(finally))
        }
        Some(i) => (body[..i].to_vec(), body[i + 1..].to_vec()),
        None => {
            let catches = body.iter().any(|n| n.kind() == "try_statement");
            return Err(if catches {
                format!("{name}.apply() catches around base.evaluate()")
            } else {
                not_exact()
            });
        }
    };
    let mut problem = None;
    let mut declared = BTreeSet::new();
    for n in &before {
        if n.kind() == "local_variable_declaration" {
            let mut c = n.walk();
            for d in n.children_by_field_name("declarator", &mut c) {
                declared.insert(field_text(d, "name", src));
            }
        }
    }
    for (part, stmts) in [("before", &before), ("after", &after)] {
        for s in stmts.iter() {
            java_syntax::walk(*s, |n| {
                let t = text(n, src);
                let found = match n.kind() {
                    "identifier" if t == description => Some("uses its Description".into()),
                    "identifier" if t == base_name => Some(format!("uses {base_name} again")),
                    "identifier" if part == "after" && declared.contains(t) => Some(format!(
                        "uses the local {t} of the work before base.evaluate() after it"
                    )),
                    "this" => Some("uses `this` (the Statement)".into()),
                    "return_statement" => Some("returns early from evaluate()".into()),
                    _ => None,
                };
                problem = problem.take().or(found);
            });
        }
    }
    if let Some(p) = problem {
        return Err(format!("{name}.apply() {p}"));
    }
    if before.is_empty() && after.is_empty() {
        return Err(not_exact());
    }
    let stmt_nodes: Vec<Node> = before.iter().chain(&after).copied().collect();
    if let Some(why) = wider_than_exception(&stmt_nodes, class, src) {
        return Err(format!(
            "{name}.apply() may throw a Throwable that is not an Exception ({why})"
        ));
    }
    let mut leftover = None;
    java_syntax::walk(class, |n| {
        let outside = !apply.byte_range().contains(&n.start_byte()) && n != base;
        if outside
            && matches!(n.kind(), "type_identifier" | "identifier")
            && matches!(text(n, src), "Statement" | "Description" | "TestRule")
        {
            leftover = leftover.or(Some(text(n, src)));
        }
    });
    if let Some(t) = leftover {
        return Err(format!("rule class {name} uses {t} outside apply()"));
    }
    let indent = indent_at(src, apply.start_byte());
    let unit = indent_unit(src, class, apply);
    let eol = line_ending(src);
    let method = |which: &str, stmts: &[Node]| {
        let (first, last) = (stmts.first()?, stmts.last()?);
        let body = reindent(
            &src[first.start_byte()..last.end_byte()],
            indent_at(src, first.start_byte()),
            &format!("{indent}{unit}"),
        );
        Some(format!(
            "private void {which}() throws Exception {{{eol}{indent}{unit}{body}{eol}{indent}}}"
        ))
    };
    Ok(Shape {
        before: !before.is_empty(),
        after: !after.is_empty(),
        edits: Vec::new(),
        place: apply.byte_range(),
        methods: [method("before", &before), method("after", &after)]
            .into_iter()
            .flatten()
            .collect(),
        base,
    })
}

/// One level of indentation: a member's indentation less its class's.
fn indent_unit<'s>(src: &'s str, class: Node, member: Node) -> &'s str {
    let outer = indent_at(src, class.start_byte());
    let inner = indent_at(src, member.start_byte());
    inner
        .strip_prefix(outer)
        .filter(|u| !u.is_empty())
        .unwrap_or("    ")
}

/// Why `nodes` might throw a checked `Throwable` that is not an `Exception` (the callbacks
/// declare `throws Exception`): a `throw` of anything but a new `*Exception`/`*Error`, a
/// `MethodHandle` invocation, a `super` call, or a call of one of the class's own methods
/// declared `throws Throwable`. None: javac accepts the body under `throws Exception`.
fn wider_than_exception(nodes: &[Node], class: Node, src: &str) -> Option<String> {
    let throwing: BTreeSet<&str> = methods(class)
        .filter(|m| {
            let mut c = m.walk();
            m.children(&mut c)
                .any(|x| x.kind() == "throws" && mentions(text(x, src), "Throwable"))
        })
        .map(|m| field_text(m, "name", src))
        .collect();
    let mut found = None;
    for n in nodes {
        java_syntax::walk(*n, |x| {
            let culprit = match x.kind() {
                "throw_statement" => code_children(x).first().copied().filter(|e| {
                    let ty = simple(field_text(*e, "type", src));
                    !(e.kind() == "object_creation_expression"
                        && (ty.ends_with("Exception") || ty.ends_with("Error")))
                }),
                "method_invocation"
                    if field_text(x, "object", src) == "super"
                        || matches!(
                            field_text(x, "name", src),
                            "invoke" | "invokeExact" | "invokeWithArguments"
                        )
                        || (x.child_by_field_name("object").is_none()
                            && throwing.contains(field_text(x, "name", src))) =>
                {
                    Some(x)
                }
                _ => None,
            };
            if let Some(c) = culprit {
                found = found.take().or(Some(text(c, src).to_string()));
            }
        });
    }
    found
}

/// Rewrites the rule class `class` into an extension with the callbacks of `levels`.
pub(super) fn convert(
    s: &mut Structure,
    class: Node,
    levels: Levels,
    src: &str,
) -> Result<(), String> {
    let root = class.parent().ok_or("class without a file")?;
    let imports = java_syntax::imports(root, src);
    let shape = Shape::of(class, src, &imports).ok_or("not a rule class")??;
    let eol = line_ending(src);
    let indent = indent_at(src, shape.place.start);
    let unit = members(class)
        .first()
        .map_or("    ", |m| indent_unit(src, class, *m));
    let mut callbacks = Vec::new();
    let mut members = Vec::new();
    let both = levels.each && levels.all;
    if both {
        // A static @RegisterExtension also gets the per-test callbacks: the instance a
        // @ClassRule made knows it from beforeAll and leaves them to the @Rule instances.
        members.push("private boolean perClass;".to_string());
    }
    members.extend(shape.methods.iter().cloned());
    for (on, level) in [(levels.each, "Each"), (levels.all, "All")] {
        for (present, when, work) in [
            (shape.before, "before", "before();"),
            (shape.after, "after", "after();"),
        ] {
            if !on || !present {
                continue;
            }
            let name = format!("{when}{level}");
            callbacks.push(format!("{}{level}Callback", capitalized(when)));
            let body = match (both, level, when) {
                (true, "All", "before") => format!("perClass = true;{eol}{indent}{unit}{work}"),
                (true, "Each", _) => {
                    format!("if (!perClass) {{{eol}{indent}{unit}{unit}{work}{eol}{indent}{unit}}}")
                }
                _ => work.to_string(),
            };
            members.push(format!(
                "@Override{eol}{indent}public void {name}(ExtensionContext context) throws Exception {{{eol}{indent}{unit}{body}{eol}{indent}}}"
            ));
        }
    }
    let joined = members.join(&format!("{eol}{eol}{indent}"));
    s.edits.extend(shape.edits);
    s.edits.push(if shape.place.is_empty() {
        Edit::insert(shape.place.start, format!("{eol}{eol}{indent}{joined}"))
    } else {
        Edit::replace(shape.place.clone(), joined)
    });
    let list = callbacks.join(", ");
    let existing = interfaces(class);
    let base = match (shape.base.kind(), existing.last()) {
        ("superclass", Some(last)) => vec![
            removal(src, shape.base),
            Edit::insert(last.end_byte(), format!(", {list}")),
        ],
        ("superclass", None) => vec![Edit::replace(
            shape.base.byte_range(),
            format!("implements {list}"),
        )],
        _ => vec![Edit::replace(shape.base.byte_range(), list)],
    };
    s.edits.extend(base);
    for c in callbacks
        .iter()
        .map(String::as_str)
        .chain(["ExtensionContext"])
    {
        s.imports_needed
            .push(format!("org.junit.jupiter.api.extension.{c}"));
    }
    s.imports_removed
        .extend(RULE_IMPORTS.iter().map(|i| i.to_string()));
    let name = field_text(class, "name", src);
    s.changes
        .push(format!("rule class {name} -> {}", callbacks.join(", ")));
    Ok(())
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// `@Rule public X x = new X(..)` (X a converted project rule class) -> `@RegisterExtension`:
/// the field keeps its type, initializer and access (Jupiter only refuses `private`), so
/// the test's own calls on it stay as they are; only calls of X's own methods are allowed.
pub(super) fn register(
    s: &mut Structure,
    class: Node,
    field: Node,
    annotation: Node,
    rule: &RuleClass,
    src: &str,
) -> Result<(), String> {
    rule.verdict.clone()?;
    let ty = simple(field_text(field, "type", src));
    let declarator = field
        .child_by_field_name("declarator")
        .ok_or("no declarator")?;
    let name = field_text(declarator, "name", src);
    let init = declarator
        .child_by_field_name("value")
        .filter(|v| {
            v.kind() == "object_creation_expression"
                && simple(field_text(*v, "type", src)) == ty
                && code_children(*v).iter().all(|c| c.kind() != "class_body")
        })
        .ok_or_else(|| format!("@Rule {ty} {name} is not initialized with new {ty}(..)"))?;
    // Jupiter fills @TempDir and other fields after the initializers ran: an argument naming
    // another rule field would see it unset.
    let rule_fields: BTreeSet<&str> = members(class)
        .into_iter()
        .filter(|m| m.kind() == "field_declaration" && *m != field)
        .filter(|m| {
            modifiers_of(*m).is_some_and(|mods| {
                annotations(mods)
                    .iter()
                    .any(|a| matches!(simple(annotation_name(*a, src)), "Rule" | "ClassRule"))
            })
        })
        .filter_map(|m| m.child_by_field_name("declarator"))
        .map(|d| field_text(d, "name", src))
        .collect();
    let mut shared = None;
    java_syntax::walk(init, |n| {
        if n.kind() == "identifier" && rule_fields.contains(text(n, src)) {
            shared = Some(text(n, src));
        }
    });
    if let Some(other) = shared {
        return Err(format!(
            "@Rule {ty} {name} is built from the rule field {other}"
        ));
    }
    for u in Structure::uses(class, field, name, src) {
        let u = u
            .parent()
            .filter(|p| p.kind() == "field_access" && field_text(*p, "object", src) == "this")
            .unwrap_or(u);
        let call = u.parent().filter(|p| {
            p.kind() == "method_invocation"
                && p.child_by_field_name("object") == Some(u)
                && rule.methods.contains(field_text(*p, "name", src))
        });
        if call.is_none() {
            return Err(format!(
                "@Rule {ty} {name} is used other than through {ty}'s own methods"
            ));
        }
    }
    s.edits
        .push(Edit::replace(annotation.byte_range(), "@RegisterExtension"));
    if let Some(mods) = modifiers_of(field) {
        let mut c = mods.walk();
        for m in mods.children(&mut c).filter(|m| m.kind() == "private") {
            s.edits.push(removal(src, m));
        }
    }
    s.imports_needed
        .push("org.junit.jupiter.api.extension.RegisterExtension".into());
    s.changes.push(format!(
        "@{} {ty} -> @RegisterExtension",
        simple(annotation_name(annotation, src))
    ));
    Ok(())
}
