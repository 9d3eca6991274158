//! JUnit 4 -> Jupiter for one source file. Renames come from the declarative table in
//! `catalog/junit4-to-jupiter.yml`; this code handles what a table cannot say.
//!
//! A file is either converted completely or left untouched on the vintage engine with a
//! reason: half-converted files would silently drop rules or runners.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use tree_sitter::Node;

use crate::edit::{self, Edit, indent_at, line_ending, whole_line};

pub mod custom_rules;
pub mod junit3_runner;
mod structure;
use crate::java_syntax::{self, Import, annotation_name, field_text, superclass_name, text};
use custom_rules::{ProjectRules, RuleClass};
use structure::Structure;

#[derive(Debug, Deserialize)]
pub struct Junit5Table {
    pub id: String,
    pub description: String,
    pub type_renames: BTreeMap<String, String>,
    /// Classes whose static members (only) move to another class.
    #[serde(default)]
    pub static_owners: BTreeMap<String, String>,
    pub member_renames: BTreeMap<String, String>,
    pub call_rewrites: BTreeMap<String, CallRewrite>,
    pub unsupported_members: Vec<String>,
    pub unsupported_annotations: Vec<String>,
}

/// A JUnit 4 member rewritten as a call to another member (see the table's comments).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallRewrite {
    pub owner: String,
    pub member: String,
    pub forms: Vec<CallForm>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallForm {
    pub args: Option<usize>,
    pub text: Option<String>,
    pub each: Option<String>,
    pub join: Option<String>,
}

impl CallRewrite {
    /// The new argument text for these arguments, if a form fits.
    fn arguments(&self, args: &[&str]) -> Option<String> {
        self.forms
            .iter()
            .find_map(|f| match (f.args, &f.text, &f.each) {
                (Some(n), Some(t), _) if n == args.len() => {
                    // Highest index first so `$1` never eats the prefix of `$10`.
                    Some((1..=n).rev().fold(t.clone(), |acc, i| {
                        acc.replace(&format!("${i}"), args[i - 1])
                    }))
                }
                (None, _, Some(each)) if !args.is_empty() => Some(
                    args.iter()
                        .map(|a| each.replace('$', a))
                        .collect::<Vec<_>>()
                        .join(f.join.as_deref().unwrap_or(", ")),
                ),
                _ => None,
            })
    }
}

pub static TABLE: LazyLock<Junit5Table> = LazyLock::new(|| {
    serde_saphyr::from_str(include_str!("../catalog/junit4-to-jupiter.yml"))
        .expect("built-in recipe table is valid YAML")
});

#[derive(Debug, Clone, PartialEq)]
pub enum FileOutcome {
    /// No JUnit 4 in the file.
    Unchanged,
    Rewritten {
        text: String,
        changes: Vec<String>,
    },
    /// Left on JUnit 4 (vintage engine) for the reason given.
    LeftOnJunit4 {
        reason: String,
    },
    /// Not rewritten because the file does not parse.
    SyntaxError {
        message: String,
    },
}

const JUNIT4_PACKAGE: &str = "org.junit";
/// JUnit 3's packages, which junit:junit carries and Jupiter does not.
const JUNIT3_PACKAGES: [&str; 4] = [
    "junit.framework",
    "junit.textui",
    "junit.extensions",
    "junit.runner",
];
const JUPITER_PACKAGE: &str = "org.junit.jupiter";

fn is_junit4(path: &str) -> bool {
    (path == JUNIT4_PACKAGE || path.starts_with("org.junit.")) && !path.starts_with(JUPITER_PACKAGE)
        || is_junit3_name(path)
}

/// A JUnit 3 type the table renames, or a static member of one (`junit.framework.Assert`,
/// `junit.framework.TestCase.assertFalse`).
fn is_junit3_name(path: &str) -> bool {
    path.starts_with("junit.framework.")
        && (TABLE.type_renames.contains_key(path)
            || path.rsplit_once('.').is_some_and(|(owner, _)| {
                TABLE.type_renames.contains_key(owner) || TABLE.static_owners.contains_key(owner)
            }))
}

fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// What a simple type name refers to in this file, from its JUnit 4 imports.
struct Scope {
    /// simple name -> JUnit 4 FQN, for types imported singly or via `org.junit.*`.
    types: HashMap<String, String>,
    /// statically imported member -> owning JUnit 4 class (`assertEquals` -> org.junit.Assert).
    static_members: HashMap<String, String>,
    /// classes whose members are all statically imported.
    static_wildcards: Vec<String>,
}

impl Scope {
    fn new(imports: &[Import]) -> Self {
        let mut types = HashMap::new();
        let mut static_members = HashMap::new();
        let mut static_wildcards = Vec::new();
        for imp in imports.iter().filter(|i| is_junit4(&i.path)) {
            match (imp.is_static, imp.wildcard) {
                (false, false) => {
                    types.insert(simple(&imp.path).to_string(), imp.path.clone());
                }
                (false, true) if imp.path == JUNIT4_PACKAGE => {
                    for fqn in TABLE.type_renames.keys() {
                        types
                            .entry(simple(fqn).to_string())
                            .or_insert_with(|| fqn.clone());
                    }
                }
                (true, false) => {
                    let (owner, member) = imp.path.rsplit_once('.').unwrap_or(("", &imp.path));
                    static_members.insert(member.to_string(), owner.to_string());
                }
                (true, true) => static_wildcards.push(imp.path.clone()),
                _ => {}
            }
        }
        Self {
            types,
            static_members,
            static_wildcards,
        }
    }

    /// The JUnit 4 class an unqualified call like `assertEquals(..)` resolves to.
    fn static_owner(&self, member: &str) -> Option<String> {
        if let Some(o) = self.static_members.get(member) {
            return Some(o.clone());
        }
        // Only Assert/Assume members are resolvable without type information.
        self.static_wildcards
            .iter()
            .find(|w| {
                (w.ends_with(".Assert") && (member.starts_with("assert") || member == "fail"))
                    || (w.ends_with(".Assume") && member.starts_with("assume"))
            })
            .cloned()
    }

    /// FQN of a type written as `name` (simple or qualified) if it is JUnit 4.
    fn resolve(&self, name: &str) -> Option<String> {
        if name.contains('.') {
            return is_junit4(name).then(|| name.to_string());
        }
        self.types.get(name).cloned()
    }
}

struct Rewriter<'a> {
    src: &'a str,
    scope: Scope,
    /// Nodes the structural pass rewrote; the rename pass leaves them alone.
    owned: HashSet<usize>,
    imports_removed: Vec<String>,
    edits: Vec<Edit>,
    /// Method bodies to wrap in `assertThrows` (body range, exception class), applied last
    /// over the rewrites inside them.
    wraps: Vec<(std::ops::Range<usize>, String)>,
    changes: Vec<String>,
    imports_needed: Vec<String>,
}

/// What the recipe knows of the project around a file.
#[derive(Debug, Default, Clone, Copy)]
pub struct Surroundings<'a> {
    /// The file's Maven module has a `module-info.java`: its tests run inside the module.
    pub module_path: bool,
    /// The project's JUnit 3 classes: extending one makes a JUnit 3 test.
    pub junit3_bases: Option<&'a crate::analyze::java::Junit3Bases>,
    /// The project's own rule classes, and where this file sits among them.
    pub rules: Option<(&'a ProjectRules, &'a Path)>,
    /// The classes the project gathers into JUnit 3 suites, and this file's path.
    pub suite_members: Option<(&'a junit3_runner::SuiteMembers, &'a Path)>,
}

impl Surroundings<'_> {
    /// The project rule class `name` when this file declares it.
    fn declared_rule(&self, name: &str) -> Option<&RuleClass> {
        self.rules.and_then(|(r, path)| r.declared_in(name, path))
    }

    /// The project rule class `name` when this file registers it as a rule.
    fn registered_rule(&self, name: &str) -> Option<&RuleClass> {
        self.rules.and_then(|(r, path)| r.registered_in(name, path))
    }
}

/// Files that convert as one unit: if one stays on JUnit 4 (or is not migrated at all),
/// so do the others, for the reason given (`what` names the unit).
pub struct Unit {
    pub what: String,
    pub files: Vec<PathBuf>,
}

/// Keeps every unit whole, until nothing changes: a file kept by one unit may belong to
/// another (a test registering two rule classes, a rule user in a JUnit 3 hierarchy).
pub fn convert_together(results: &mut HashMap<PathBuf, FileOutcome>, units: &[Unit]) {
    loop {
        let mut changed = false;
        for unit in units {
            let stays = unit.files.iter().find_map(|f| {
                let why = match results.get(f) {
                    Some(FileOutcome::Rewritten { .. } | FileOutcome::Unchanged) => return None,
                    Some(FileOutcome::LeftOnJunit4 { reason }) => reason.clone(),
                    Some(FileOutcome::SyntaxError { message }) => message.clone(),
                    None => "not migrated".into(),
                };
                Some(format!("{}: {why}", f.display()))
            });
            let Some(why) = stays else { continue };
            for f in &unit.files {
                if let Some(out @ FileOutcome::Rewritten { .. }) = results.get_mut(f) {
                    *out = FileOutcome::LeftOnJunit4 {
                        reason: format!("{} stay on JUnit 4 ({why})", unit.what),
                    };
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Migrates the sources of one project together: each file as [`migrate_in`] knowing the
/// project's rule classes, then every rule class kept whole with its users.
pub fn migrate_project(sources: &[custom_rules::Source]) -> Vec<FileOutcome> {
    let rules = ProjectRules::scan(sources);
    let suite_members =
        junit3_runner::SuiteMembers::scan(sources.iter().map(|s| (s.path, s.text)), true);
    let mut results: HashMap<PathBuf, FileOutcome> = sources
        .iter()
        .map(|s| {
            let around = Surroundings {
                rules: Some((&rules, s.path)),
                suite_members: Some((&suite_members, s.path)),
                ..Surroundings::default()
            };
            (s.path.to_path_buf(), migrate_in(s.text, around))
        })
        .collect();
    let units: Vec<Unit> = rules
        .units()
        .into_iter()
        .chain(suite_members.units())
        .collect();
    convert_together(&mut results, &units);
    sources
        .iter()
        .map(|s| results.remove(s.path).unwrap_or(FileOutcome::Unchanged))
        .collect()
}

/// Runs the recipe on one file, knowing nothing of the project around it.
pub fn migrate(src: &str) -> FileOutcome {
    migrate_in(src, Surroundings::default())
}

/// A top-level class of the file extends one of the project's JUnit 3 classes: it is a
/// JUnit 3 test without importing anything of JUnit.
fn extends_junit3_base(root: Node, src: &str, around: Surroundings) -> bool {
    let Some(bases) = around.junit3_bases else {
        return false;
    };
    let mut c = root.walk();
    root.named_children(&mut c).any(|n| {
        n.kind() == "class_declaration"
            && superclass_name(n, src).is_some_and(|b| bases.contains_key(b))
    })
}

/// Runs the recipe on one file of a project.
pub fn migrate_in(src: &str, around: Surroundings) -> FileOutcome {
    let Some(parsed) = java_syntax::parse(src) else {
        return FileOutcome::SyntaxError {
            message: "parser gave up".into(),
        };
    };
    if let Some(message) = parsed.syntax_error {
        return FileOutcome::SyntaxError { message };
    }
    let root = parsed.tree.root_node();
    let imports = java_syntax::imports(root, src);
    let uses_junit4 = imports
        .iter()
        .any(|i| is_junit4(&i.path) || i.path.starts_with("junit.framework"))
        || [
            "@org.junit.Test",
            "junit.framework.TestCase",
            "org.junit.Assert.",
        ]
        .iter()
        .any(|needle| in_code(root, src, needle).next().is_some())
        || extends_junit3_base(root, src, around);
    if !uses_junit4 {
        return FileOutcome::Unchanged;
    }
    let structure = match Structure::analyze(root, src, around) {
        Ok(s) => s,
        Err(reason) => return FileOutcome::LeftOnJunit4 { reason },
    };
    let mut scope = Scope::new(&imports);
    if structure.junit3 {
        // Inherited junit.framework.Assert methods behave like org.junit.Assert's.
        scope.static_wildcards.push("org.junit.Assert".into());
    }
    let mut rw = Rewriter {
        src,
        scope,
        owned: structure.handled,
        imports_removed: structure.imports_removed,
        edits: structure.edits,
        wraps: Vec::new(),
        changes: structure.changes,
        imports_needed: structure.imports_needed,
    };
    let result = rw
        .rewrite_imports(&imports)
        .and_then(|()| rw.check_class_shape(root))
        .and_then(|()| rw.rewrite_nodes(root));
    if let Err(reason) = result {
        return FileOutcome::LeftOnJunit4 { reason };
    }
    rw.qualify_shadowed(root);
    rw.add_imports(&imports, root);
    if let Err(reason) = rw.wrap_bodies() {
        return FileOutcome::LeftOnJunit4 { reason };
    }
    let out = match edit::apply(src, &rw.edits) {
        Ok(out) => out,
        Err(e) => {
            return FileOutcome::LeftOnJunit4 {
                reason: format!("conflicting rewrites: {e}"),
            };
        }
    };
    if let Some(reason) = verify(src, parsed.tree.clone(), &rw.edits, &out) {
        return FileOutcome::LeftOnJunit4 { reason };
    }
    rw.changes.sort();
    rw.changes.dedup();
    FileOutcome::Rewritten {
        text: out,
        changes: rw.changes,
    }
}

/// Where `needle` occurs outside comments.
fn in_code<'a>(
    root: tree_sitter::Node<'a>,
    src: &'a str,
    needle: &'a str,
) -> impl Iterator<Item = usize> + 'a {
    src.match_indices(needle).map(|(i, _)| i).filter(move |&i| {
        root.descendant_for_byte_range(i, i + 1)
            .is_none_or(|n| !n.kind().contains("comment"))
    })
}

/// The output must parse and must not reference JUnit 4 any more (in code: a comment such
/// as `@see junit.framework.TestCase#setUp()` is documentation, not a reference).
fn verify(src: &str, tree: tree_sitter::Tree, edits: &[Edit], out: &str) -> Option<String> {
    let parsed = match java_syntax::reparse(src, tree, edits, out) {
        Some(p) if p.syntax_error.is_none() => p,
        _ => return Some("rewrite would not parse; left unchanged".into()),
    };
    let root = parsed.tree.root_node();
    let leftover = in_code(root, out, "org.junit.")
        .find(|i| {
            !["org.junit.jupiter", "org.junit.platform.suite.api"]
                .iter()
                .any(|p| out[*i..].starts_with(p))
        })
        .or_else(|| {
            // `junit.runner` but not `org.junit.runner`.
            JUNIT3_PACKAGES.iter().find_map(|p| {
                in_code(root, out, p).find(|&i| {
                    !out[..i].ends_with(|c: char| c == '.' || c == '_' || c.is_alphanumeric())
                })
            })
        });
    leftover.map(|i| {
        let line = out[..i].matches('\n').count() + 1;
        format!("JUnit 4 reference remains at line {line}")
    })
}

impl Rewriter<'_> {
    /// An import the structural pass made obsolete.
    fn deleted(&self, i: &Import) -> bool {
        !i.is_static && self.imports_removed.contains(&i.path)
    }

    fn rewrite_imports(&mut self, imports: &[Import]) -> Result<(), String> {
        let deletions: Vec<Edit> = imports
            .iter()
            .filter(|i| self.deleted(i))
            .map(|i| Edit::replace(whole_line(self.src, i.range.clone()), ""))
            .collect();
        self.edits.extend(deletions);
        let renamed: Vec<&Import> = imports
            .iter()
            .filter(|i| is_junit4(&i.path) && !self.deleted(i))
            .collect();
        for imp in renamed {
            let new = if imp.wildcard && !imp.is_static {
                (imp.path == JUNIT4_PACKAGE).then(|| "org.junit.jupiter.api".to_string())
            } else if imp.is_static && !imp.wildcard {
                let member = member_rename(&imp.path)?;
                Some(member)
            } else {
                TABLE.type_renames.get(&imp.path).cloned()
            };
            let Some(new) = new else {
                return Err(format!("no Jupiter equivalent for import {}", imp.path));
            };
            self.edits.push(Edit::replace(imp.name_range.clone(), new));
        }
        Ok(())
    }

    fn check_class_shape(&self, root: Node) -> Result<(), String> {
        let mut problem = None;
        java_syntax::walk(root, |n| {
            if problem.is_some() || self.owned.contains(&n.id()) {
                return;
            }
            if matches!(n.kind(), "marker_annotation" | "annotation") {
                let name = annotation_name(n, self.src);
                if TABLE
                    .unsupported_annotations
                    .iter()
                    .any(|u| u == simple(name))
                {
                    problem = Some(format!(
                        "@{} has no safe core-recipe equivalent",
                        simple(name)
                    ));
                }
            }
        });
        problem.map_or(Ok(()), Err)
    }

    fn rewrite_nodes(&mut self, root: Node) -> Result<(), String> {
        let mut nodes = Vec::new();
        java_syntax::walk(root, |n| {
            if matches!(
                n.kind(),
                "marker_annotation"
                    | "annotation"
                    | "method_invocation"
                    | "identifier"
                    | "type_identifier"
                    | "scoped_identifier"
                    | "scoped_type_identifier"
                    | "field_access"
            ) {
                nodes.push(n);
            }
        });
        // Receivers renamed by a call-specific rule are skipped by the generic type rename.
        let mut handled: HashSet<usize> = HashSet::new();
        nodes.retain(|n| !self.owned.contains(&n.id()));
        for &n in &nodes {
            match n.kind() {
                "marker_annotation" | "annotation" => self.annotation(n, &mut handled)?,
                "method_invocation" => self.invocation(n, &mut handled)?,
                _ => {}
            }
        }
        for &n in &nodes {
            if handled.contains(&n.id()) || java_syntax::in_import(n) {
                continue;
            }
            self.type_reference(n, &mut handled);
        }
        Ok(())
    }

    /// Renames a JUnit 4 type used as a name (`Assert`, `org.junit.Assert`).
    fn type_reference(&mut self, n: Node, handled: &mut HashSet<usize>) {
        let kind = n.kind();
        let t = text(n, self.src);
        let fqn = match kind {
            "identifier" | "type_identifier" => self.scope.types.get(t).cloned(),
            _ if is_junit4(t) => Some(t.to_string()),
            _ => None,
        };
        let Some(fqn) = fqn else { return };
        let Some(new) = TABLE.type_renames.get(&fqn) else {
            return;
        };
        let replacement = if t.contains('.') {
            new.as_str()
        } else {
            simple(new)
        };
        mark_subtree(n, handled);
        self.edits.push(Edit::replace(n.byte_range(), replacement));
        self.changes
            .push(format!("{} -> {}", simple(&fqn), simple(new)));
    }

    fn annotation(&mut self, a: Node, handled: &mut HashSet<usize>) -> Result<(), String> {
        let name_node = a
            .child_by_field_name("name")
            .ok_or("annotation without name")?;
        let name = text(name_node, self.src);
        let Some(fqn) = self.scope.resolve(name) else {
            return Ok(());
        };
        let Some(new_fqn) = TABLE.type_renames.get(&fqn) else {
            return Err(format!("@{name} has no Jupiter equivalent"));
        };
        let new_name = if name.contains('.') {
            new_fqn.as_str()
        } else {
            simple(new_fqn)
        };
        mark_subtree(a, handled);
        if fqn != "org.junit.Test" || a.kind() == "marker_annotation" {
            self.edits
                .push(Edit::replace(name_node.byte_range(), new_name));
            if simple(&fqn) != simple(new_fqn) {
                self.changes
                    .push(format!("@{} -> @{}", simple(&fqn), simple(new_fqn)));
            }
            return Ok(());
        }
        // @Test(expected = X.class, timeout = n)
        let args = a
            .child_by_field_name("arguments")
            .ok_or("@Test without arguments")?;
        let mut expected = None;
        let mut timeout = None;
        let mut c = args.walk();
        for pair in args.named_children(&mut c) {
            if pair.kind() != "element_value_pair" {
                return Err("@Test with an unnamed argument".into());
            }
            let key = field_text(pair, "key", self.src);
            let value = field_text(pair, "value", self.src);
            match key {
                "expected" => expected = Some(value.to_string()),
                "timeout" => timeout = Some(value.to_string()),
                other => return Err(format!("@Test({other}) is not supported")),
            }
        }
        let mut replacement = format!("@{new_name}");
        if let Some(ms) = timeout {
            let sep = annotation_separator(self.src, a);
            replacement.push_str(&format!(
                "{sep}@Timeout(value = {ms}, unit = TimeUnit.MILLISECONDS)"
            ));
            self.imports_needed
                .push("org.junit.jupiter.api.Timeout".into());
            self.imports_needed
                .push("java.util.concurrent.TimeUnit".into());
            self.changes.push("@Test(timeout) -> @Timeout".into());
        }
        self.edits.push(Edit::replace(a.byte_range(), replacement));
        if let Some(exception) = expected {
            let method = a
                .parent()
                .and_then(|m| m.parent())
                .filter(|m| m.kind() == "method_declaration");
            let body = method
                .and_then(|m| m.child_by_field_name("body"))
                .ok_or("@Test(expected) outside a method")?;
            self.wraps.push((body.byte_range(), exception));
            self.imports_needed
                .push("static org.junit.jupiter.api.Assertions.assertThrows".into());
            self.changes.push("@Test(expected) -> assertThrows".into());
        }
        Ok(())
    }

    /// Wraps each recorded body in `assertThrows`, over the body's own rewrites (an
    /// assertion inside it keeps its message move).
    fn wrap_bodies(&mut self) -> Result<(), String> {
        for (body, exception) in std::mem::take(&mut self.wraps) {
            let inner_range = body.start + 1..body.end - 1;
            let nested = edit::take_within(&mut self.edits, inner_range.clone());
            let inner = edit::apply(&self.src[inner_range], &nested)
                .map_err(|e| format!("conflicting rewrites: {e}"))?;
            let wrapped = wrap_in_assert_throws(self.src, body.clone(), &inner, &exception);
            self.edits.push(wrapped);
        }
        Ok(())
    }

    fn invocation(&mut self, call: Node, handled: &mut HashSet<usize>) -> Result<(), String> {
        let src = self.src;
        let Some(name_node) = call.child_by_field_name("name") else {
            return Ok(());
        };
        let name = text(name_node, src);
        let object = call.child_by_field_name("object");
        let owner = match object {
            Some(o) => self.scope.resolve(text(o, src)),
            None => self.scope.static_owner(name),
        };
        let Some(owner) = owner else { return Ok(()) };
        let member = format!("{owner}.{name}");
        if let Some(rw) = TABLE.call_rewrites.get(&member) {
            return self.call_rewrite(call, name_node, object, &member, rw);
        }
        if TABLE.unsupported_members.contains(&member) {
            return Err(format!(
                "{}.{name} has no Jupiter equivalent",
                simple(&owner)
            ));
        }
        if let Some(target) = TABLE.member_renames.get(&member) {
            // Assert.assertThat(..) -> MatcherAssert.assertThat(..), same argument order.
            if let Some(o) = object {
                let (class, _) = target.rsplit_once('.').unwrap_or((target, ""));
                let written = if text(o, src).contains('.') {
                    class
                } else {
                    simple(class)
                };
                mark_subtree(o, handled);
                self.edits.push(Edit::replace(o.byte_range(), written));
                if !written.contains('.') {
                    self.imports_needed.push(class.to_string());
                }
            } else {
                // Called unqualified through `import static org.junit.Assert.*`: Jupiter's
                // Assertions has no such member, so it is imported from its new owner.
                self.imports_needed.push(format!("static {target}"));
            }
            self.changes.push(format!(
                "{}.{name} -> {}",
                simple(&owner),
                simple(target.rsplit_once('.').map_or(target.as_str(), |x| x.0))
            ));
            return Ok(());
        }
        let Some(args) = call.child_by_field_name("arguments") else {
            return Ok(());
        };
        let mut c = args.walk();
        let argv: Vec<Node> = args
            .named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect();
        let position = self.message_position(name, &argv);
        match position {
            Message::None => {}
            Message::First => {
                let (first, second, last) = (argv[0], argv[1], argv[argv.len() - 1]);
                self.edits
                    .push(Edit::replace(first.start_byte()..second.start_byte(), ""));
                self.edits.push(Edit::insert(
                    last.end_byte(),
                    format!(", {}", text(first, src)),
                ));
                self.changes.push("assertion message moved last".into());
            }
            Message::Ambiguous => {
                return Err(format!(
                    "cannot tell whether the first argument of {name} at line {} is a message",
                    call.start_position().row + 1
                ));
            }
        }
        let values = if argv.len() == 3 && matches!(position, Message::First) {
            &argv[1..]
        } else {
            &argv[..]
        };
        if name == "assertEquals"
            && values.len() == 2
            && values.iter().any(|v| self.looks_array(*v))
        {
            self.edits
                .push(Edit::replace(name_node.byte_range(), "assertArrayEquals"));
            self.changes
                .push("assertEquals(Object[],Object[]) -> assertArrayEquals".into());
            if object.is_none()
                && !self
                    .scope
                    .static_wildcards
                    .iter()
                    .any(|w| w.ends_with(".Assert"))
            {
                self.imports_needed
                    .push("static org.junit.jupiter.api.Assertions.assertArrayEquals".into());
            }
        }
        Ok(())
    }

    /// `assumeThat(x, m)` -> `assumeTrue(m.matches(x))` and the like: the name and the
    /// arguments are replaced; a receiver (`Assume.`) is renamed by the type pass.
    fn call_rewrite(
        &mut self,
        call: Node,
        name_node: Node,
        object: Option<Node>,
        member: &str,
        rw: &CallRewrite,
    ) -> Result<(), String> {
        let args = call
            .child_by_field_name("arguments")
            .ok_or("call without arguments")?;
        let mut c = args.walk();
        let argv: Vec<&str> = args
            .named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .map(|n| text(n, self.src))
            .collect();
        let new_args = rw.arguments(&argv).ok_or_else(|| {
            format!(
                "{} with {} arguments has no Jupiter form",
                simple(member),
                argv.len()
            )
        })?;
        self.edits.push(Edit::replace(
            name_node.start_byte()..call.end_byte(),
            format!("{}({new_args})", rw.member),
        ));
        if object.is_none() {
            self.imports_needed
                .push(format!("static {}.{}", rw.owner, rw.member));
        }
        self.changes
            .push(format!("{} -> {}", simple(member), rw.member));
        Ok(())
    }

    fn message_position(&self, name: &str, args: &[Node]) -> Message {
        let n = args.len();
        match name {
            "assertTrue" | "assertFalse" | "assertNull" | "assertNotNull" | "assumeTrue"
            | "assumeFalse"
                if n == 2 =>
            {
                Message::First
            }
            "assertSame" | "assertNotSame" | "assertThrows" if n == 3 => Message::First,
            "assertEquals" | "assertNotEquals" | "assertArrayEquals" if n == 4 => Message::First,
            "assertEquals" | "assertNotEquals" | "assertArrayEquals" if n == 3 => {
                if self.looks_string(args[0]) {
                    Message::First
                } else if self.looks_numeric(args[2])
                    || self.looks_numeric(args[0])
                    || self.looks_array(args[0])
                {
                    Message::None
                } else {
                    Message::Ambiguous
                }
            }
            _ => Message::None,
        }
    }

    fn declared(&self, n: Node) -> Option<String> {
        (n.kind() == "identifier")
            .then(|| java_syntax::declared_type(n, self.src))
            .flatten()
    }

    fn looks_string(&self, n: Node) -> bool {
        match n.kind() {
            "string_literal" | "text_block" => true,
            "binary_expression" => {
                let mut c = n.walk();
                n.named_children(&mut c).any(|x| self.looks_string(x))
            }
            "parenthesized_expression" => n.named_child(0).is_some_and(|x| self.looks_string(x)),
            "method_invocation" => {
                let name = field_text(n, "name", self.src);
                let obj = field_text(n, "object", self.src);
                matches!(name, "toString" | "format" | "formatted") || obj == "String"
            }
            _ => self
                .declared(n)
                .is_some_and(|t| t == "String" || t == "java.lang.String"),
        }
    }

    fn looks_numeric(&self, n: Node) -> bool {
        match n.kind() {
            "decimal_floating_point_literal"
            | "decimal_integer_literal"
            | "hex_integer_literal" => true,
            "unary_expression" | "parenthesized_expression" => {
                n.named_child(0).is_some_and(|x| self.looks_numeric(x))
            }
            _ => self.declared(n).is_some_and(|t| {
                matches!(
                    t.as_str(),
                    "double" | "float" | "long" | "int" | "short" | "byte" | "char"
                )
            }),
        }
    }

    fn looks_array(&self, n: Node) -> bool {
        n.kind() == "array_creation_expression"
            || self.declared(n).is_some_and(|t| t.ends_with("[]"))
    }

    /// A Jupiter type whose simple name a type of this file already declares (a JUnit 3
    /// class named `Test`) cannot be imported: the annotations the rewrite inserts name it
    /// fully qualified instead.
    fn qualify_shadowed(&mut self, root: Node) {
        let declared = java_syntax::declared_type_names(root, self.src);
        let (shadowed, kept): (Vec<String>, Vec<String>) =
            self.imports_needed.drain(..).partition(|path| {
                !path.starts_with("static ")
                    && path
                        .rsplit_once('.')
                        .is_some_and(|(_, name)| declared.iter().any(|d| d == name))
            });
        self.imports_needed = kept;
        for path in shadowed {
            let simple = path.rsplit_once('.').map_or(path.as_str(), |(_, n)| n);
            let annotation = Regex::new(&format!(r"@{}\b", regex::escape(simple))).expect("valid");
            for e in &mut self.edits {
                e.replacement = annotation
                    .replace_all(&e.replacement, format!("@{path}").as_str())
                    .into_owned();
            }
        }
    }

    /// Adds needed imports after the last import (or after the package line).
    fn add_imports(&mut self, imports: &[Import], root: Node) {
        let src = self.src;
        let after_mapping: Vec<String> = imports
            .iter()
            .map(|i| {
                let path = if is_junit4(&i.path) {
                    if i.is_static {
                        member_rename(&i.path).unwrap_or_default()
                    } else {
                        TABLE.type_renames.get(&i.path).cloned().unwrap_or_default()
                    }
                } else {
                    i.path.clone()
                };
                format!(
                    "{}{}{}",
                    if i.is_static { "static " } else { "" },
                    path,
                    if i.wildcard { ".*" } else { "" }
                )
            })
            .collect();
        let covered = |needed: &str| {
            after_mapping.iter().any(|have| {
                have == needed || {
                    let (owner, _) = needed.rsplit_once('.').unwrap_or(("", ""));
                    have.strip_suffix(".*") == Some(owner)
                }
            })
        };
        let mut needed: Vec<String> = self
            .imports_needed
            .drain(..)
            .filter(|n| !covered(n))
            .collect();
        needed.sort();
        needed.dedup();
        if needed.is_empty() {
            return;
        }
        let eol = line_ending(src);
        let text: String = needed.iter().map(|n| format!("{eol}import {n};")).collect();
        let kept = imports.iter().rev().find(|i| !self.deleted(i));
        // After the last surviving import; before the first one when all are deleted (an
        // insertion inside a deleted line would collide with the deletion).
        let edit = match (kept, imports.first()) {
            (Some(i), _) => Edit::insert(i.range.end, text),
            (None, Some(first)) => Edit::insert(
                whole_line(src, first.range.clone()).start,
                format!("{}{eol}", text.trim_start()),
            ),
            (None, None) => {
                let mut c = root.walk();
                match root
                    .children(&mut c)
                    .find(|n| n.kind() == "package_declaration")
                {
                    Some(p) => Edit::insert(p.end_byte(), text),
                    None => Edit::insert(0, format!("{}{eol}", text.trim_start())),
                }
            }
        };
        self.edits.push(edit);
    }
}

enum Message {
    None,
    First,
    Ambiguous,
}

fn member_rename(path: &str) -> Result<String, String> {
    if let Some(m) = TABLE.member_renames.get(path) {
        return Ok(m.clone());
    }
    if let Some(rw) = TABLE.call_rewrites.get(path) {
        return Ok(format!("{}.{}", rw.owner, rw.member));
    }
    if TABLE.unsupported_members.iter().any(|u| u == path) {
        return Err(format!("no Jupiter equivalent for {path}"));
    }
    let (owner, member) = path
        .rsplit_once('.')
        .ok_or_else(|| format!("bad import {path}"))?;
    TABLE
        .type_renames
        .get(owner)
        .or_else(|| TABLE.static_owners.get(owner))
        .map(|new_owner| format!("{new_owner}.{member}"))
        .ok_or_else(|| format!("no Jupiter equivalent for import static {path}"))
}

fn mark_subtree(n: Node, handled: &mut HashSet<usize>) {
    java_syntax::walk(n, |x| {
        handled.insert(x.id());
    });
}

/// A new annotation goes on its own line when the old one was, else after a space.
fn annotation_separator(src: &str, a: Node) -> String {
    let line_start = src[..a.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let before = &src[line_start..a.start_byte()];
    let after = &src[a.end_byte()..];
    let own_line = before.trim().is_empty()
        && after
            .trim_start_matches([' ', '\t'])
            .starts_with(['\n', '\r']);
    if own_line {
        format!("{}{before}", line_ending(src))
    } else {
        " ".into()
    }
}

/// `{ body }` -> `{ assertThrows(X.class, () -> { body }); }`, body re-indented one level;
/// `inner` is the text between the braces, its own rewrites applied.
fn wrap_in_assert_throws(
    src: &str,
    body: std::ops::Range<usize>,
    inner: &str,
    exception: &str,
) -> Edit {
    let eol = line_ending(src);
    let call = format!("assertThrows({exception}, () -> {{");
    if !inner.contains('\n') {
        return Edit::replace(body, format!("{{ {call}{inner}}}); }}"));
    }
    let close_indent = indent_at(src, body.end - 1);
    let first_stmt = inner
        .lines()
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let stmt_indent: String = first_stmt
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let unit = stmt_indent
        .strip_prefix(close_indent)
        .filter(|u| !u.is_empty())
        .unwrap_or("    ")
        .to_string();
    let mut lines: Vec<&str> = inner.split('\n').collect();
    let last = lines.pop().unwrap_or("");
    let head = if lines.is_empty() {
        ""
    } else {
        lines.remove(0)
    };
    let mut out = String::from("{");
    out.push_str(head.trim_end_matches('\r'));
    out.push_str(eol);
    out.push_str(&format!("{close_indent}{unit}{call}"));
    for l in lines {
        let l = l.trim_end_matches('\r');
        out.push_str(eol);
        if !l.trim().is_empty() {
            out.push_str(&unit);
        }
        out.push_str(l);
    }
    out.push_str(&format!(
        "{eol}{close_indent}{unit}}});{eol}{}",
        last.trim_end_matches('\r')
    ));
    out.push('}');
    Edit::replace(body, out)
}
