//! What each test checks, read from source, and how that changed between two versions of
//! a file. "Tests invariant" means every test checks exactly what it checked before: the
//! same assertions with the same expected values, actual expressions, messages and
//! matchers, the same expected exceptions and timeouts, and no `@Disabled`/`@Ignore` or
//! assumption added.
//!
//! Each check is written in one canonical form so that the mechanical JUnit 4 -> Jupiter
//! mappings the recipes perform compare equal: `Assert.`/`Assertions.` qualifiers and static
//! imports, the message moving from first to last argument, `@Test(expected = X.class)` and
//! `ExpectedException` vs `assertThrows`, `@Test(timeout)`, the `Timeout` rule, `@Timeout`
//! and `assertTimeout` as one timeout in nanoseconds, `@Ignore` vs `@Disabled`, the
//! `assumeThat`/`assumeNotNull`/`assumeNoException` rewrites, `TemporaryFolder` and
//! `TestName` calls, casts and literal suffixes the overload fixes add, a rule class's work
//! moving into the callbacks of the extension it becomes. Whitespace and comments never
//! matter.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use tree_sitter::Node;

use super::java::{Junit3Bases, extends_junit3, qualified_class_name, test_kind};
use crate::java_syntax::{self, annotation_name, annotations, field_text, modifiers_of, text};
use crate::journal::TestCheckDifference;

/// What one method (or, under the class's own name, one class) checks.
#[derive(Debug, Clone, Default, PartialEq)]
struct Checks {
    is_test: bool,
    /// Canonical checks in source order.
    items: Vec<String>,
}

/// The result of comparing two versions of one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Test methods the earlier version had (0: nothing was judged).
    pub tests: usize,
    pub differences: Vec<TestCheckDifference>,
}

/// Compares what every test in `before` checks with what it checks in `after` (`None`:
/// the file was deleted). `junit3_bases`: the project's JUnit 3 classes, whose subclasses
/// are JUnit 3 tests that inherit its message-first assertions.
pub fn compare(
    path: &Path,
    before: &str,
    after: Option<&str>,
    junit3_bases: &Junit3Bases,
) -> Comparison {
    let checks_of = |s: &str| read(s, junit3_bases);
    let Some(old) = checks_of(before) else {
        return Comparison::default();
    };
    let tests = old.values().filter(|c| c.is_test).count();
    let new = match after.map(checks_of) {
        Some(Some(new)) => new,
        Some(None) => {
            let difference = TestCheckDifference {
                file: path.to_path_buf(),
                test: "(file)".into(),
                change: "does not parse any more".into(),
                before: format!("{tests} tests"),
                after: "(unparseable)".into(),
            };
            return Comparison {
                tests,
                differences: vec![difference],
            };
        }
        None => BTreeMap::new(),
    };
    let mut differences = Vec::new();
    let mut diff = |test: &str, change: &str, before: String, after: String| {
        differences.push(TestCheckDifference {
            file: path.to_path_buf(),
            test: test.to_string(),
            change: change.to_string(),
            before,
            after,
        })
    };
    for (id, was) in &old {
        let Some(now) = new.get(id) else {
            if !was.is_test && was.items.is_empty() {
                continue;
            }
            let what = if was.is_test {
                "test method removed"
            } else {
                "method with checks removed"
            };
            diff(id, what, summary(&was.items), "(none)".into());
            continue;
        };
        if was.is_test && !now.is_test {
            diff(id, "no longer a test", "test".into(), "not a test".into());
        }
        let (removed, added) = multiset_difference(&was.items, &now.items);
        let mut added: Vec<Option<&String>> = added.into_iter().map(Some).collect();
        for r in removed {
            let partner = added
                .iter_mut()
                .find(|a| a.is_some_and(|a| call_name(a) == call_name(r)))
                .and_then(Option::take);
            match partner {
                Some(a) => diff(id, "changed", r.clone(), a.clone()),
                None => diff(id, "removed", r.clone(), "(none)".into()),
            }
        }
        for a in added.into_iter().flatten() {
            diff(id, "added", "(none)".into(), a.clone());
        }
    }
    Comparison { tests, differences }
}

fn summary(items: &[String]) -> String {
    if items.is_empty() {
        "no checks".into()
    } else {
        items.join("; ")
    }
}

fn call_name(item: &str) -> &str {
    item.split(['(', '.']).next().unwrap_or(item)
}

/// Items of `a` not in `b` and items of `b` not in `a`, counting repeats.
fn multiset_difference<'a>(a: &'a [String], b: &'a [String]) -> (Vec<&'a String>, Vec<&'a String>) {
    let mut left: HashMap<&String, usize> = HashMap::new();
    for x in b {
        *left.entry(x).or_default() += 1;
    }
    let mut removed = Vec::new();
    for x in a {
        match left.get_mut(x) {
            Some(n) if *n > 0 => *n -= 1,
            _ => removed.push(x),
        }
    }
    let mut seen: HashMap<&String, usize> = HashMap::new();
    for x in a {
        *seen.entry(x).or_default() += 1;
    }
    let mut added = Vec::new();
    for x in b {
        match seen.get_mut(x) {
            Some(n) if *n > 0 => *n -= 1,
            _ => added.push(x),
        }
    }
    (removed, added)
}

/// The checks of every method and class in a file; None when it does not parse.
fn read(source: &str, junit3_bases: &Junit3Bases) -> Option<BTreeMap<String, Checks>> {
    let parsed = java_syntax::parse(source)?;
    if parsed.syntax_error.is_some() {
        return None;
    }
    let root = parsed.tree.root_node();
    let file = File::new(root, source, junit3_bases);
    let mut out: BTreeMap<String, Checks> = BTreeMap::new();
    java_syntax::walk(root, |node| {
        if !matches!(
            node.kind(),
            "class_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "interface_declaration"
        ) {
            return;
        }
        let class = qualified_class_name(node, source);
        let junit3 = extends_junit3(node, source, junit3_bases);
        let rule = is_rule_or_extension(node, source);
        let mut class_items = Vec::new();
        if let Some(m) = modifiers_of(node) {
            file.annotation_checks(m, &mut class_items);
        }
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        let mut c = body.walk();
        for member in body.named_children(&mut c) {
            match member.kind() {
                "field_declaration" => file.timeout_rule(member, &mut class_items),
                "method_declaration" => {
                    let name = field_text(member, "name", source);
                    let name = match name {
                        _ if !rule => name,
                        n if RULE_WORK.contains(&n) => "(rule work)",
                        n => n,
                    };
                    let entry = out.entry(format!("{class}#{name}")).or_default();
                    entry.is_test |= test_kind(member, junit3, source).is_some();
                    entry.items.extend(file.method_checks(member));
                }
                _ => {}
            }
        }
        // Always present, so a class-level `@Disabled` added later is seen.
        out.entry(class).or_default().items.extend(class_items);
    });
    Some(out)
}

/// The methods of a JUnit 4 rule class (`apply`, `before`, `after`) and of the Jupiter
/// callback extension the recipes make of it hold the rule's work: a check may move from a
/// TestRule's `apply` to the `before()`/`after()` its callbacks call, so in such a class
/// they are judged as one entry (their checks still compared one by one).
const RULE_WORK: &[&str] = &[
    "apply",
    "before",
    "after",
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
];

/// A class extending `ExternalResource`, implementing `TestRule` or a Jupiter callback.
fn is_rule_or_extension(class: Node, src: &str) -> bool {
    ["superclass", "interfaces"].iter().any(|f| {
        let t = field_text(class, f, src);
        t.contains("ExternalResource") || t.contains("TestRule") || t.contains("Callback")
    })
}

/// Whose assertion API a call belongs to: it decides where the message sits.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dialect {
    /// `org.junit.Assert`, `junit.framework`: message first.
    Junit4,
    /// `org.junit.jupiter.api.Assertions`: message last.
    Jupiter,
    Other,
}

fn owner_dialect(owner: &str) -> Dialect {
    match owner {
        "org.junit.Assert"
        | "org.junit.Assume"
        | "junit.framework.Assert"
        | "junit.framework.TestCase" => Dialect::Junit4,
        "org.junit.jupiter.api.Assertions" | "org.junit.jupiter.api.Assumptions" => {
            Dialect::Jupiter
        }
        _ => Dialect::Other,
    }
}

/// File-wide facts the canonical forms depend on.
struct File<'s> {
    src: &'s str,
    /// Statically imported member -> its dialect.
    static_members: HashMap<String, Dialect>,
    /// Dialects of statically imported `Assert.*`-like classes.
    static_wildcards: Vec<Dialect>,
    /// A class here inherits `junit.framework.Assert`'s methods (`extends TestCase`).
    inherits_junit3: bool,
    jupiter_imported: bool,
    /// Fields of these JUnit 4 rule types, by name.
    expected_exception: HashSet<String>,
    temporary_folder: HashSet<String>,
    test_name: HashSet<String>,
}

impl<'s> File<'s> {
    fn new(root: Node, src: &'s str, junit3_bases: &Junit3Bases) -> Self {
        let mut f = File {
            src,
            static_members: HashMap::new(),
            static_wildcards: Vec::new(),
            inherits_junit3: false,
            jupiter_imported: false,
            expected_exception: HashSet::new(),
            temporary_folder: HashSet::new(),
            test_name: HashSet::new(),
        };
        for imp in java_syntax::imports(root, src) {
            f.jupiter_imported |= imp.path.starts_with("org.junit.jupiter");
            match (imp.is_static, imp.wildcard) {
                (true, false) => {
                    let (owner, member) = imp.path.rsplit_once('.').unwrap_or(("", &imp.path));
                    f.static_members
                        .insert(member.to_string(), owner_dialect(owner));
                }
                (true, true) => f.static_wildcards.push(owner_dialect(&imp.path)),
                _ => {}
            }
        }
        java_syntax::walk(root, |n| match n.kind() {
            "class_declaration" => f.inherits_junit3 |= extends_junit3(n, src, junit3_bases),
            "field_declaration" => {
                let ty = field_text(n, "type", src);
                let set = match ty.rsplit('.').next().unwrap_or(ty) {
                    "ExpectedException" => &mut f.expected_exception,
                    "TemporaryFolder" => &mut f.temporary_folder,
                    "TestName" => &mut f.test_name,
                    _ => return,
                };
                let mut c = n.walk();
                for d in n.children_by_field_name("declarator", &mut c) {
                    set.insert(field_text(d, "name", src).to_string());
                }
            }
            _ => {}
        });
        f
    }

    fn dialect(&self, name: &str, receiver: Option<&str>) -> Dialect {
        if let Some(r) = receiver {
            let simple = r.rsplit('.').next().unwrap_or(r);
            return match simple {
                "Assert" | "Assume" | "TestCase" if !r.contains("jupiter") => Dialect::Junit4,
                "Assertions" | "Assumptions" if r.contains("jupiter") || self.jupiter_imported => {
                    Dialect::Jupiter
                }
                _ => Dialect::Other,
            };
        }
        if let Some(d) = self.static_members.get(name) {
            return *d;
        }
        if let Some(d) = self.static_wildcards.iter().find(|d| **d != Dialect::Other) {
            return *d;
        }
        if self.inherits_junit3 {
            Dialect::Junit4
        } else {
            Dialect::Other
        }
    }

    /// Canonical text of an expression: tokens without comments or layout, casts and
    /// literal suffixes dropped, JUnit 4 rule calls in their Jupiter form.
    fn norm(&self, n: Node) -> String {
        let mut out = String::new();
        self.push_norm(n, &mut out);
        out
    }

    fn push_norm(&self, n: Node, out: &mut String) {
        let t = text(n, self.src);
        match n.kind() {
            "line_comment" | "block_comment" => {}
            "string_literal" | "text_block" | "character_literal" => push_token(out, t),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                push_token(out, t.replace('_', "").trim_end_matches(['l', 'L']))
            }
            "decimal_floating_point_literal" => push_token(
                out,
                t.replace('_', "").trim_end_matches(['f', 'F', 'd', 'D']),
            ),
            "cast_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.push_norm(v, out);
                }
            }
            "method_invocation" if self.rule_call(n).is_some() => {
                push_token(out, &self.rule_call(n).unwrap_or_default())
            }
            _ if n.child_count() == 0 => push_token(out, t),
            _ => {
                let mut c = n.walk();
                for child in n.children(&mut c) {
                    self.push_norm(child, out);
                }
            }
        }
    }

    /// `folder.getRoot()`, `folder.newFile(x)`, `name.getMethodName()` as the recipes
    /// write them for Jupiter.
    fn rule_call(&self, call: Node) -> Option<String> {
        let object = call.child_by_field_name("object")?;
        if object.kind() != "identifier" {
            return None;
        }
        let var = text(object, self.src);
        let name = field_text(call, "name", self.src);
        let args = arguments(call);
        if self.test_name.contains(var) && name == "getMethodName" && args.is_empty() {
            return Some("testInfo.getTestMethod().get().getName()".into());
        }
        if !self.temporary_folder.contains(var) {
            return None;
        }
        let arg = args.first().map(|a| self.norm(*a));
        Some(match (name, arg) {
            ("getRoot", None) => var.to_string(),
            ("newFile", Some(a)) if args.len() == 1 => {
                format!("Files.createFile({var}.toPath().resolve({a})).toFile()")
            }
            ("newFolder", Some(a)) if args.len() == 1 => {
                format!("Files.createDirectories({var}.toPath().resolve({a})).toFile()")
            }
            ("newFile", None) => format!("File.createTempFile(\"junit\",null,{var})"),
            ("newFolder", None) => {
                format!("Files.createTempDirectory({var}.toPath(),\"junit\").toFile()")
            }
            _ => return None,
        })
    }

    /// `@Ignore`/`@Disabled`, conditions, timeouts, repetitions and `expected=` on a
    /// method or class.
    fn annotation_checks(&self, modifiers: Node, out: &mut Vec<String>) {
        for a in annotations(modifiers) {
            let name = annotation_name(a, self.src);
            let simple = name.rsplit('.').next().unwrap_or(name);
            let args = a.child_by_field_name("arguments");
            match simple {
                "Ignore" | "Disabled" => out.push("disabled".into()),
                s if ["Disabled", "Enabled"].iter().any(|p| s.starts_with(p)) => out.push(format!(
                    "condition @{s}{}",
                    args.map_or(String::new(), |x| self.norm(x))
                )),
                "Test" => {
                    for (key, value) in self.pairs(args) {
                        match key.as_str() {
                            "expected" => {
                                let ty = class_literal_type(value, self.src);
                                if ty != "None" {
                                    out.push(format!("assertThrows({ty})"));
                                }
                            }
                            "timeout" => out.push(timeout(&self.norm(value), "MILLISECONDS")),
                            _ => {}
                        }
                    }
                }
                "Timeout" => {
                    let pairs = self.pairs(args);
                    let value = pairs
                        .iter()
                        .find(|(k, _)| k == "value")
                        .map(|(_, v)| self.norm(*v));
                    let unit = pairs
                        .iter()
                        .find(|(k, _)| k == "unit")
                        .map_or("SECONDS".to_string(), |(_, v)| self.norm(*v));
                    let unit = unit.trim_start_matches("TimeUnit.");
                    if let Some(v) = value {
                        out.push(timeout(&v, unit));
                    }
                }
                "RepeatedTest" => out.push(format!(
                    "repeated{}",
                    args.map_or(String::new(), |x| self.norm(x))
                )),
                _ => {}
            }
        }
    }

    /// An annotation's arguments as (key, value); a single unnamed value is `value`.
    fn pairs<'t>(&self, args: Option<Node<'t>>) -> Vec<(String, Node<'t>)> {
        let Some(args) = args else { return vec![] };
        let mut c = args.walk();
        args.named_children(&mut c)
            .filter(|n| !n.kind().ends_with("comment"))
            .filter_map(|n| {
                if n.kind() == "element_value_pair" {
                    Some((
                        field_text(n, "key", self.src).to_string(),
                        n.child_by_field_name("value")?,
                    ))
                } else {
                    Some(("value".to_string(), n))
                }
            })
            .collect()
    }

    /// A JUnit 4 `Timeout` rule field: the class-level timeout it sets.
    fn timeout_rule(&self, field: Node, out: &mut Vec<String>) {
        let ty = field_text(field, "type", self.src);
        if ty.rsplit('.').next() != Some("Timeout") {
            return;
        }
        let Some(value) = field
            .child_by_field_name("declarator")
            .and_then(|d| d.child_by_field_name("value"))
        else {
            return;
        };
        let args = arguments(value);
        let norm_args: Vec<String> = args.iter().map(|a| self.norm(*a)).collect();
        let check = match (
            value.kind(),
            field_text(value, "name", self.src),
            &norm_args[..],
        ) {
            ("method_invocation", "seconds", [v]) => timeout(v, "SECONDS"),
            ("method_invocation", "millis", [v]) => timeout(v, "MILLISECONDS"),
            ("object_creation_expression", _, [v]) => timeout(v, "MILLISECONDS"),
            ("object_creation_expression", _, [v, u]) => {
                timeout(v, u.trim_start_matches("TimeUnit."))
            }
            _ => format!("timeout rule {}", self.norm(value)),
        };
        out.push(check);
    }

    fn method_checks(&self, method: Node) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(m) = modifiers_of(method) {
            self.annotation_checks(m, &mut out);
        }
        let Some(body) = method.child_by_field_name("body") else {
            return out;
        };
        // Variables holding a caught exception: `X thrown = assertThrows(..)`.
        let mut caught = HashSet::new();
        java_syntax::walk(body, |n| {
            if n.kind() == "variable_declarator"
                && n.child_by_field_name("value").is_some_and(|v| {
                    v.kind() == "method_invocation"
                        && field_text(v, "name", self.src).starts_with("assertThrows")
                })
            {
                caught.insert(field_text(n, "name", self.src).to_string());
            }
        });
        let mut expectations = Expectations::default();
        self.collect(body, &caught, &mut expectations, &mut out);
        if expectations.message_or_cause && !expectations.typed {
            out.push("assertThrows(Throwable)".into());
        }
        out
    }

    /// Depth-first over a body: each check once, with the checks inside the executables
    /// it is given (`assertThrows(X.class, () -> { .. })`).
    fn collect(
        &self,
        n: Node,
        caught: &HashSet<String>,
        ex: &mut Expectations,
        out: &mut Vec<String>,
    ) {
        match n.kind() {
            "assert_statement" => {
                out.push(format!(
                    "assert {}",
                    self.norm_children(n, &["assert", ";"])
                ));
                return;
            }
            "method_invocation" if self.invocation(n, caught, ex, out) => return,
            _ => {}
        }
        let mut c = n.walk();
        for child in n.named_children(&mut c) {
            self.collect(child, caught, ex, out);
        }
    }

    fn norm_children(&self, n: Node, skip: &[&str]) -> String {
        let mut out = String::new();
        let mut c = n.walk();
        for child in n.children(&mut c) {
            if !skip.contains(&child.kind()) {
                self.push_norm(child, &mut out);
            }
        }
        out
    }

    /// Records the check this call is, if it is one; false when it is not a check.
    fn invocation(
        &self,
        call: Node,
        caught: &HashSet<String>,
        ex: &mut Expectations,
        out: &mut Vec<String>,
    ) -> bool {
        let src = self.src;
        let mut innermost = call;
        while let Some(o) = innermost
            .child_by_field_name("object")
            .filter(|o| o.kind() == "method_invocation")
        {
            innermost = o;
        }
        let root_name = field_text(innermost, "name", src);
        let receiver = innermost.child_by_field_name("object");
        // ExpectedException: `thrown.expect(X.class)`, `thrown.expectMessage(..)`.
        if innermost.id() == call.id()
            && let Some(r) = receiver.filter(|r| self.expected_exception.contains(text(*r, src)))
        {
            let args = arguments(call);
            let arg = args.first().map_or(String::new(), |a| self.norm(*a));
            match (root_name, args.first().map(|a| a.kind())) {
                ("expect", Some("class_literal")) => {
                    ex.typed = true;
                    out.push(format!(
                        "assertThrows({})",
                        class_literal_type(args[0], src)
                    ));
                }
                ("expect", Some("method_invocation")) if type_matcher(args[0], src).is_some() => {
                    ex.typed = true;
                    let ty = type_matcher(args[0], src).unwrap_or_default();
                    out.push(format!("assertThrows({ty})"));
                }
                ("expect", _) => {
                    ex.message_or_cause = true;
                    out.push(format!("expect({arg})"));
                }
                ("expectCause", Some("method_invocation"))
                    if type_matcher(args[0], src).is_some() =>
                {
                    ex.message_or_cause = true;
                    let ty = type_matcher(args[0], src).unwrap_or_default();
                    out.push(format!("expectCause(instance of {ty})"));
                }
                ("expectCause", _) => {
                    ex.message_or_cause = true;
                    out.push(format!("expectCause({arg})"));
                }
                ("expectMessage", Some("string_literal")) => {
                    ex.message_or_cause = true;
                    out.push(format!("expectMessage(contains {arg})"));
                }
                ("expectMessage", _) => {
                    ex.message_or_cause = true;
                    out.push(format!("expectMessage({arg})"));
                }
                (other, _) => {
                    ex.message_or_cause = true;
                    out.push(format!("{}.{other}({arg})", text(r, src)));
                }
            }
            return true;
        }
        let check_root = root_name.starts_with("assert")
            || root_name.starts_with("assume")
            || root_name.starts_with("verify")
            || root_name == "fail"
            || (root_name == "then" && innermost.id() != call.id());
        if !check_root {
            return false;
        }
        let receiver_text = receiver.map(|r| self.norm(r));
        let class_like = receiver_text.as_deref().is_some_and(is_class_like);
        if innermost.id() != call.id() {
            // A fluent chain (AssertJ, Truth, Mockito `verify(m).call()`), compared whole.
            let mut whole = self.norm(call);
            if let Some(r) = receiver_text.as_deref().filter(|_| class_like) {
                whole = whole
                    .strip_prefix(&format!("{r}."))
                    .map(str::to_string)
                    .unwrap_or(whole);
            }
            out.push(whole);
            return true;
        }
        let dialect = self.dialect(root_name, receiver_text.as_deref());
        let prefix = match receiver_text.as_deref() {
            Some(r) if !class_like => format!("{r}."),
            _ => String::new(),
        };
        let args = arguments(call);
        self.single_check(root_name, &prefix, dialect, &args, caught, out);
        // The checks inside executables (`assertThrows`, `assertAll`, `assumingThat` ...).
        for a in args.iter().filter(|a| is_executable(**a)) {
            if let Some(body) = a.child_by_field_name("body") {
                self.collect(body, caught, &mut Expectations::default(), out);
            }
        }
        true
    }

    fn single_check(
        &self,
        name: &str,
        prefix: &str,
        dialect: Dialect,
        args: &[Node],
        caught: &HashSet<String>,
        out: &mut Vec<String>,
    ) {
        let src = self.src;
        let norm: Vec<String> = args.iter().map(|a| self.norm(*a)).collect();
        // JUnit 4 assumptions without a Jupiter twin, in the form the recipe writes.
        if dialect == Dialect::Junit4 {
            let rewritten = match (name, &norm[..]) {
                ("assumeThat", [x, m]) => Some((format!("{m}.matches({x})"), None)),
                ("assumeThat", [msg, x, m]) => Some((format!("{m}.matches({x})"), Some(msg))),
                ("assumeNoException", [e]) => Some((format!("{e}==null"), None)),
                ("assumeNoException", [msg, e]) => Some((format!("{e}==null"), Some(msg))),
                ("assumeNotNull", all) if !all.is_empty() => Some((
                    all.iter()
                        .map(|a| format!("{a}!=null"))
                        .collect::<Vec<_>>()
                        .join("&&"),
                    None,
                )),
                _ => None,
            };
            if let Some((condition, message)) = rewritten {
                out.push(render(
                    &format!("{prefix}assumeTrue"),
                    &[condition],
                    message,
                ));
                return;
            }
        }
        let message_at = message_index(name, dialect, args, src);
        // Executables are what is checked, not the check: their checks are read inside.
        let mut values: Vec<String> = args
            .iter()
            .zip(&norm)
            .enumerate()
            .filter(|(i, (a, _))| Some(*i) != message_at && !is_executable(**a))
            .map(|(_, (_, v))| v.clone())
            .collect();
        let message = message_at.map(|i| &norm[i]);
        let mut name = match name {
            "assertArrayEquals" => "assertEquals",
            n => n,
        };
        match name {
            "assertThrows" | "assertThrowsExactly" => {
                if let Some(a) = args.iter().find(|a| a.kind() == "class_literal") {
                    values = vec![class_literal_type(*a, src).to_string()];
                }
            }
            "assertTimeout" | "assertTimeoutPreemptively" => {
                out.push(duration(args.first().copied(), self));
                return;
            }
            "assertEquals" | "assertNotEquals" if values.len() == 2 && values[0] == "null" => {
                name = if name == "assertEquals" {
                    "assertNull"
                } else {
                    "assertNotNull"
                };
                values.remove(0);
            }
            "assertTrue" if values.len() == 1 && message.is_none() => {
                // `assertTrue(thrown.getMessage().contains(s))`: ExpectedException's message.
                if let Some(s) = caught.iter().find_map(|v| {
                    values[0]
                        .strip_prefix(&format!("{v}.getMessage().contains("))
                        .and_then(|r| r.strip_suffix(')'))
                }) {
                    out.push(format!("expectMessage(contains {s})"));
                    return;
                }
            }
            // Checks on the exception assertThrows returned, as ExpectedException wrote
            // them: expectMessage(m), expectCause(m), expect(m), expectCause(isA(X.class)).
            "assertThat" | "assertInstanceOf" if values.len() == 2 && message.is_none() => {
                let on = |i: usize, suffix: &str| {
                    caught.iter().any(|v| values[i] == format!("{v}{suffix}"))
                };
                let check = match name {
                    "assertThat" if on(0, ".getMessage()") => {
                        Some(format!("expectMessage({})", values[1]))
                    }
                    "assertThat" if on(0, ".getCause()") => {
                        Some(format!("expectCause({})", values[1]))
                    }
                    "assertThat" if on(0, "") => Some(format!("expect({})", values[1])),
                    "assertInstanceOf" if on(1, ".getCause()") => {
                        args.iter().find(|a| a.kind() == "class_literal").map(|a| {
                            format!("expectCause(instance of {})", class_literal_type(*a, src))
                        })
                    }
                    _ => None,
                };
                if let Some(check) = check {
                    out.push(check);
                    return;
                }
            }
            _ => {}
        }
        out.push(render(&format!("{prefix}{name}"), &values, message));
    }
}

/// `X` of the Hamcrest type matchers `isA(X.class)` / `instanceOf(X.class)` /
/// `any(X.class)`, which `ExpectedException.expect` treats as `expect(X.class)`.
pub(crate) fn type_matcher<'s>(call: Node, src: &'s str) -> Option<&'s str> {
    let name = field_text(call, "name", src);
    let args = call.child_by_field_name("arguments")?;
    let only = args
        .named_child(0)
        .filter(|_| args.named_child_count() == 1)?;
    (matches!(name, "isA" | "instanceOf" | "any") && only.kind() == "class_literal")
        .then(|| class_literal_type(only, src))
}

#[derive(Default)]
struct Expectations {
    /// `expect(X.class)` seen.
    typed: bool,
    /// `expectMessage`/`expectCause` seen: an exception is expected even without a type.
    message_or_cause: bool,
}

fn render(name: &str, values: &[String], message: Option<&String>) -> String {
    let mut s = format!("{name}({})", values.join(", "));
    if let Some(m) = message {
        s.push_str(&format!(" message {m}"));
    }
    s
}

fn push_token(out: &mut String, token: &str) {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    if out.chars().last().is_some_and(word) && token.chars().next().is_some_and(word) {
        out.push(' ');
    }
    out.push_str(token);
}

/// `Assert`, `org.junit.Assert`, `Mockito`: a type, not an object.
fn is_class_like(receiver: &str) -> bool {
    receiver
        .rsplit('.')
        .next()
        .is_some_and(|s| s.chars().next().is_some_and(char::is_uppercase))
}

fn arguments(call: Node) -> Vec<Node> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return vec![];
    };
    let mut c = args.walk();
    args.named_children(&mut c)
        .filter(|n| !n.kind().ends_with("comment"))
        .collect()
}

fn is_executable(n: Node) -> bool {
    n.kind() == "lambda_expression"
}

/// `X.class` -> `X` (simple name; JUnit 3's `ComparisonFailure` and opentest4j's
/// `AssertionFailedError` are the same failure to a test).
fn class_literal_type<'s>(lit: Node, src: &'s str) -> &'s str {
    let ty = lit.named_child(0).map_or("", |t| text(t, src));
    let simple = ty.rsplit('.').next().unwrap_or(ty).trim();
    match simple {
        "ComparisonFailure" => "AssertionFailedError",
        s => s,
    }
}

/// Where the message is among a call's arguments (JUnit 4 puts it first, Jupiter last).
fn message_index(name: &str, dialect: Dialect, args: &[Node], src: &str) -> Option<usize> {
    let n = args.len();
    if name == "fail" && n == 1 {
        return Some(0);
    }
    if name == "assertThat" && n == 3 {
        return Some(0);
    }
    let two = matches!(
        name,
        "assertTrue"
            | "assertFalse"
            | "assertNull"
            | "assertNotNull"
            | "assumeTrue"
            | "assumeFalse"
    );
    let equals = matches!(
        name,
        "assertEquals" | "assertNotEquals" | "assertArrayEquals"
    );
    match dialect {
        Dialect::Junit4 => {
            let first = (two && n == 2)
                || (matches!(name, "assertSame" | "assertNotSame" | "assertThrows") && n == 3)
                || (equals && n == 4)
                || (equals && n == 3 && string_like(args[0], src));
            first.then_some(0)
        }
        Dialect::Jupiter => {
            let last = ((two || name == "assertDoesNotThrow") && n == 2)
                || (matches!(
                    name,
                    "assertSame"
                        | "assertNotSame"
                        | "assertThrows"
                        | "assertThrowsExactly"
                        | "assertTimeout"
                        | "assertTimeoutPreemptively"
                        | "assertInstanceOf"
                        | "assertIterableEquals"
                        | "assertLinesMatch"
                ) && n == 3)
                || (equals && n == 4)
                || (equals && n == 3 && string_like(args[2], src));
            last.then(|| n - 1)
        }
        Dialect::Other => None,
    }
}

/// An expression that is a `String` (or a lambda supplying one), as far as source shows.
fn string_like(n: Node, src: &str) -> bool {
    match n.kind() {
        "string_literal" | "text_block" => true,
        "binary_expression" => {
            let mut c = n.walk();
            n.named_children(&mut c).any(|x| string_like(x, src))
        }
        "parenthesized_expression" => n.named_child(0).is_some_and(|x| string_like(x, src)),
        "lambda_expression" => n
            .child_by_field_name("body")
            .is_some_and(|b| string_like(b, src)),
        "method_invocation" => {
            let name = field_text(n, "name", src);
            let obj = field_text(n, "object", src);
            matches!(name, "toString" | "format" | "formatted") || obj == "String"
        }
        "identifier" => java_syntax::declared_type(n, src)
            .is_some_and(|t| t == "String" || t == "java.lang.String"),
        _ => false,
    }
}

/// `Duration.ofMillis(250)` as a timeout.
fn duration(arg: Option<Node>, file: &File) -> String {
    let Some(arg) = arg else {
        return "timeout()".into();
    };
    let unit = match field_text(arg, "name", file.src) {
        "ofNanos" => "NANOSECONDS",
        "ofMillis" => "MILLISECONDS",
        "ofSeconds" => "SECONDS",
        "ofMinutes" => "MINUTES",
        "ofHours" => "HOURS",
        "ofDays" => "DAYS",
        _ => return format!("timeout({})", file.norm(arg)),
    };
    match &arguments(arg)[..] {
        [v] => timeout(&file.norm(*v), unit),
        _ => format!("timeout({})", file.norm(arg)),
    }
}

/// A timeout in one unit: `timeout(250 ms)` whatever unit it was written in.
fn timeout(value: &str, unit: &str) -> String {
    let nanos: Option<u128> = match unit {
        "NANOSECONDS" => Some(1),
        "MICROSECONDS" => Some(1_000),
        "MILLISECONDS" => Some(1_000_000),
        "SECONDS" => Some(1_000_000_000),
        "MINUTES" => Some(60_000_000_000),
        "HOURS" => Some(3_600_000_000_000),
        "DAYS" => Some(86_400_000_000_000),
        _ => None,
    };
    match (value.parse::<u128>().ok(), nanos) {
        (Some(v), Some(f)) => {
            let ns = v * f;
            if ns % 1_000_000 == 0 {
                format!("timeout({} ms)", ns / 1_000_000)
            } else {
                format!("timeout({ns} ns)")
            }
        }
        _ => format!("timeout({value} {unit})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JUPITER: &str = r#"import static org.junit.jupiter.api.Assertions.*;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import java.util.concurrent.TimeUnit;

class CalcTest {
    @Test
    void adds() {
        assertEquals(4, Calc.add(2, 2), "two and two");
        assertTrue(Calc.ready());
        assertThat(Calc.add(2, 2), equalTo(4));
    }

    @Test
    @Timeout(value = 250, unit = TimeUnit.MILLISECONDS)
    void quick() {
        assertThrows(IllegalStateException.class, () -> Calc.fail());
    }

    @Test
    void other() {
        assertNotNull(Calc.name());
    }
}
"#;

    fn differences(before: &str, after: &str) -> Vec<String> {
        compare(
            Path::new("CalcTest.java"),
            before,
            Some(after),
            &Junit3Bases::new(),
        )
        .differences
        .iter()
        .map(|d| format!("{} {}: {} -> {}", d.test, d.change, d.before, d.after))
        .collect()
    }

    #[test]
    fn catches_every_change_to_what_a_test_checks() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "changed expected value",
                "assertEquals(4, Calc.add(2, 2), \"two and two\");",
                "assertEquals(30, Calc.add(2, 2), \"two and two\");",
                "CalcTest#adds changed: assertEquals(4, Calc.add(2,2)) message \"two and two\" -> assertEquals(30, Calc.add(2,2)) message \"two and two\"",
            ),
            (
                "changed message",
                "\"two and two\");",
                "\"four\");",
                "CalcTest#adds changed",
            ),
            (
                "changed actual expression",
                "assertEquals(4, Calc.add(2, 2),",
                "assertEquals(4, Calc.add(2, 3),",
                "CalcTest#adds changed",
            ),
            (
                "removed assertion",
                "        assertTrue(Calc.ready());\n",
                "",
                "CalcTest#adds removed: assertTrue(Calc.ready()) -> (none)",
            ),
            (
                "assertTrue(x) -> assertTrue(true)",
                "assertTrue(Calc.ready());",
                "assertTrue(true);",
                "CalcTest#adds changed: assertTrue(Calc.ready()) -> assertTrue(true)",
            ),
            (
                "added @Disabled",
                "    @Test\n    void other()",
                "    @Test\n    @org.junit.jupiter.api.Disabled\n    void other()",
                "CalcTest#other added: (none) -> disabled",
            ),
            (
                "added @Disabled on the class",
                "class CalcTest {",
                "@Disabled(\"flaky\")\nclass CalcTest {",
                "CalcTest added: (none) -> disabled",
            ),
            (
                "added assumption",
                "        assertNotNull(Calc.name());",
                "        assumeTrue(Calc.ready());\n        assertNotNull(Calc.name());",
                "CalcTest#other added: (none) -> assumeTrue(Calc.ready())",
            ),
            (
                "changed expected exception type",
                "assertThrows(IllegalStateException.class",
                "assertThrows(RuntimeException.class",
                "CalcTest#quick changed: assertThrows(IllegalStateException) -> assertThrows(RuntimeException)",
            ),
            (
                "loosened timeout",
                "@Timeout(value = 250, unit = TimeUnit.MILLISECONDS)",
                "@Timeout(5)",
                "CalcTest#quick changed: timeout(250 ms) -> timeout(5000 ms)",
            ),
            (
                "removed test method",
                "    @Test\n    void other() {\n        assertNotNull(Calc.name());\n    }\n",
                "",
                "CalcTest#other test method removed: assertNotNull(Calc.name()) -> (none)",
            ),
            (
                "no longer a test",
                "    @Test\n    void other()",
                "    void other()",
                "CalcTest#other no longer a test",
            ),
            (
                "matcher changed",
                "equalTo(4));",
                "org.hamcrest.Matchers.anything());",
                "CalcTest#adds changed: assertThat(Calc.add(2,2), equalTo(4)) -> assertThat(Calc.add(2,2), org.hamcrest.Matchers.anything())",
            ),
            (
                "assertion turned into a plain call",
                "assertNotNull(Calc.name());",
                "Calc.name();",
                "CalcTest#other removed: assertNotNull(Calc.name()) -> (none)",
            ),
        ];
        for (label, from, to, expected) in cases {
            assert!(
                JUPITER.contains(from),
                "{label}: {from:?} not in the source"
            );
            let after = JUPITER.replacen(from, to, 1);
            let found = differences(JUPITER, &after);
            assert!(
                found.iter().any(|d| d.starts_with(expected)),
                "{label}: expected {expected:?}, found {found:?}"
            );
        }
    }

    #[test]
    fn layout_comments_casts_and_literal_suffixes_are_not_differences() {
        let after = JUPITER
            .replace(
                "assertEquals(4, Calc.add(2, 2), \"two and two\");",
                "assertEquals(\n            4L, // expected\n            (long) Calc.add(2,2), /* why */ \"two and two\");",
            )
            .replace("assertTrue(Calc.ready());", "Assertions.assertTrue(Calc.ready());");
        assert_eq!(differences(JUPITER, &after), Vec::<String>::new());
    }

    #[test]
    fn junit4_forms_equal_their_jupiter_mappings() {
        let junit4 = r#"import static org.junit.Assert.*;
import static org.hamcrest.CoreMatchers.equalTo;
import org.junit.Ignore;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.ExpectedException;

public class CalcTest {
    @Rule public ExpectedException thrown = ExpectedException.none();

    @Test
    public void adds() {
        assertEquals("two and two", 4, Calc.add(2, 2));
        org.junit.Assert.assertTrue(Calc.ready());
        assertThat(Calc.add(2, 2), equalTo(4));
    }

    @Test(expected = IllegalStateException.class, timeout = 250)
    public void quick() {
        Calc.fail();
    }

    @Ignore("later") @Test
    public void other() {
        thrown.expect(IllegalArgumentException.class);
        thrown.expectMessage("empty");
        assertNull(Calc.name());
    }
}
"#;
        let jupiter = r#"import static org.junit.jupiter.api.Assertions.*;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.CoreMatchers.equalTo;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

public class CalcTest {
    @Test
    public void adds() {
        assertEquals(4, Calc.add(2, 2), "two and two");
        org.junit.jupiter.api.Assertions.assertTrue(Calc.ready());
        assertThat(Calc.add(2, 2), equalTo(4));
    }

    @Test
    @Timeout(value = 250, unit = TimeUnit.MILLISECONDS)
    public void quick() {
        assertThrows(IllegalStateException.class, () -> {
            Calc.fail();
        });
    }

    @Disabled("later") @Test
    public void other() {
        IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> {
            assertNull(Calc.name());
        });
        assertTrue(thrown.getMessage().contains("empty"));
    }
}
"#;
        assert_eq!(differences(junit4, jupiter), Vec::<String>::new());
        // The message is found whichever end it sits at: moving it the wrong way is caught.
        let swapped = jupiter.replace(
            "assertEquals(4, Calc.add(2, 2), \"two and two\")",
            "assertEquals(\"two and two\", 4, Calc.add(2, 2))",
        );
        assert_eq!(differences(junit4, &swapped).len(), 1);
        // An expected exception dropped with its wrapper is caught.
        let unwrapped = jupiter.replace(
            "assertThrows(IllegalStateException.class, () -> {\n            Calc.fail();\n        });",
            "Calc.fail();",
        );
        assert_eq!(
            differences(junit4, &unwrapped),
            ["CalcTest#quick removed: assertThrows(IllegalStateException) -> (none)"]
        );
    }

    #[test]
    fn nothing_to_judge_without_tests_or_parseable_source() {
        let c = compare(
            Path::new("A.java"),
            "class A { void f() {} }",
            Some("class A {}"),
            &Junit3Bases::new(),
        );
        assert_eq!(c, Comparison::default());
        let broken = compare(
            Path::new("A.java"),
            JUPITER,
            Some("class A {"),
            &Junit3Bases::new(),
        );
        assert_eq!(broken.tests, 3);
        assert_eq!(broken.differences[0].change, "does not parse any more");
        let deleted = compare(Path::new("A.java"), JUPITER, None, &Junit3Bases::new());
        assert_eq!(deleted.differences.len(), 3);
    }

    #[test]
    fn a_subclass_of_a_project_junit3_base_is_judged_as_junit3() {
        let before = "public class PostingTest extends LedgerFixture {\n    public void testRounds() {\n        assertEquals(\"rounded\", \"1.01\", total());\n    }\n}\n";
        let after = "import static org.junit.jupiter.api.Assertions.*;\n\nimport org.junit.jupiter.api.Test;\n\npublic class PostingTest extends LedgerFixture {\n    @Test\n    public void testRounds() {\n        assertEquals(\"1.01\", total(), \"rounded\");\n    }\n}\n";
        let bases = Junit3Bases::from([("LedgerFixture".to_string(), Default::default())]);
        let judged = compare(Path::new("PostingTest.java"), before, Some(after), &bases);
        assert_eq!(judged.tests, 1);
        assert!(judged.differences.is_empty(), "{:?}", judged.differences);
        // Unknown as JUnit 3, its test is no test and its message-first call no assertion.
        let blind = compare(
            Path::new("PostingTest.java"),
            before,
            Some(after),
            &Junit3Bases::new(),
        );
        assert_eq!(blind.tests, 0);
        // A real change is still one.
        let changed = after.replace("\"1.01\"", "\"1.02\"");
        let c = compare(
            Path::new("PostingTest.java"),
            before,
            Some(&changed),
            &bases,
        );
        assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
    }

    /// A TestRule's after-work moves from `apply` into the `after()` its callback calls;
    /// the registering field goes from `@Rule` to `@RegisterExtension`: neither is a change.
    #[test]
    fn a_rule_class_becoming_an_extension_keeps_its_checks() {
        let rule = "public class EmptyRule implements TestRule {
    public Statement apply(Statement base, Description d) {
        return new Statement() {
            public void evaluate() throws Throwable {
                base.evaluate();
                assertTrue(Log.isEmpty());
            }
        };
    }
}
";
        let extension = "public class EmptyRule implements AfterEachCallback {
    private void after() throws Exception {
        assertTrue(Log.isEmpty());
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        after();
    }
}
";
        let none = Junit3Bases::new();
        let same = compare(Path::new("EmptyRule.java"), rule, Some(extension), &none);
        assert!(same.differences.is_empty(), "{:?}", same.differences);
        let weakened = extension.replace("assertTrue(Log.isEmpty());", "");
        let c = compare(Path::new("EmptyRule.java"), rule, Some(&weakened), &none);
        assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
        let test = "import org.junit.Rule;
import org.junit.Test;
import static org.junit.Assert.assertEquals;

public class T {
    @Rule public ServerRule server = new ServerRule();

    @Test public void port() {
        assertEquals(1, server.port());
    }
}
";
        let jupiter = "import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;

public class T {
    @RegisterExtension public ServerRule server = new ServerRule();

    @Test public void port() {
        assertEquals(1, server.port());
    }
}
";
        let c = compare(Path::new("T.java"), test, Some(jupiter), &none);
        assert_eq!(
            (c.tests, c.differences.len()),
            (1, 0),
            "{:?}",
            c.differences
        );
    }
}
