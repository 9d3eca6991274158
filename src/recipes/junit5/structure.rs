//! The structural half of JUnit 4 -> Jupiter: runners, rules, categories and method
//! order. Each construct is either converted to its Jupiter equivalent or refused with a
//! reason (the file then stays on the vintage engine); nothing is silently dropped.
//!
//! | JUnit 4                                   | Jupiter                                         |
//! |-------------------------------------------|-------------------------------------------------|
//! | `@RunWith(MockitoJUnitRunner[.Strict])`    | `@ExtendWith(MockitoExtension.class)`           |
//! | `@RunWith(MockitoJUnitRunner.Silent)`      | + `@MockitoSettings(strictness = LENIENT)`      |
//! | `@RunWith(SpringRunner / SpringJUnit4..)`  | `@ExtendWith(SpringExtension.class)`, or removed under a Boot test annotation |
//! | `@RunWith(JUnit4 / BlockJUnit4ClassRunner)`| removed                                         |
//! | `@Category(A.class)`                       | `@Tag("A")`                                     |
//! | `@FixMethodOrder(NAME_ASCENDING)`          | `@TestMethodOrder(MethodOrderer.MethodName.class)` |
//! | `@Rule TemporaryFolder`                    | `@TempDir File` (newFile/newFolder/getRoot rewritten) |
//! | `@Rule Timeout`                            | class-level `@Timeout`                          |
//! | `@Rule ExpectedException`                  | `assertThrows` around the statements after the expectations |
//! | `@Rule`/`@ClassRule` of a project rule class | `@RegisterExtension`, the class a callback extension (`custom_rules`) |
//! | `@ClassRule SpringClassRule`, `@Rule SpringMethodRule` | removed; `@ExtendWith(SpringExtension.class)` unless a Boot test annotation extends with Spring |
//! | `@Rule OutputCaptureRule` (Boot 2.2+)      | `@ExtendWith(OutputCaptureExtension.class)`, a `CapturedOutput` parameter where it is read |
//! | JUnit 3 default `suite()`, test-name constructor, text-runner `main` | removed (`junit3_runner`) |
//! | JUnit 3 `suite()` that only gathers classes | `@Suite @SelectClasses` (`junit3_runner`) |
//! | `@RunWith(Suite) @SuiteClasses` on a top-level class without a superclass, fixtures or tests | `@Suite @SelectClasses` |

use std::collections::{BTreeSet, HashSet};

use tree_sitter::Node;

use super::{Surroundings, custom_rules, junit3_runner};

use crate::recipes::java_types;

use crate::edit::{Edit, indent_at, line_ending, reindent};
use crate::java_syntax::{
    self, annotation_name, annotations, field_text, modifiers_of, superclass_name, text,
};

/// What the structural pass decided.
#[derive(Default)]
pub struct Structure {
    pub edits: Vec<Edit>,
    /// Nodes (annotations, fields) this pass owns; the rename pass skips them.
    pub handled: HashSet<usize>,
    pub imports_needed: Vec<String>,
    /// Imports (paths) that no longer name anything and are deleted.
    pub imports_removed: Vec<String>,
    pub changes: Vec<String>,
    /// A JUnit 3 `TestCase` subclass was converted: its inherited assertions are now
    /// Jupiter's, reached through a static import.
    pub junit3: bool,
    /// Source a JUnit 3 conversion removed (`extends TestCase`, runner members): the
    /// `junit.framework` names in it need no import any more.
    junit3_removed: Vec<std::ops::Range<usize>>,
    /// The tests run on the module path (the module has a `module-info.java`): Jupiter
    /// cannot call a non-public lifecycle method in a package the module does not open.
    module_path: bool,
    /// `@ExtendWith(SpringExtension.class)` is written (or implied by a Boot test
    /// annotation): a second Spring runner or rule adds nothing.
    spring_extension: bool,
}

/// Spring's JUnit 4 rules (spring-test), replaced by `SpringExtension`.
const SPRING_RULES: [&str; 2] = [
    "org.springframework.test.context.junit4.rules.SpringClassRule",
    "org.springframework.test.context.junit4.rules.SpringMethodRule",
];
/// Boot's output capture rule (2.2+, with `OutputCaptureExtension`), and its predecessor
/// (gone in 2.4), whose project may be on a Boot without the extension.
const OUTPUT_CAPTURE_RULE: &str = "org.springframework.boot.test.system.OutputCaptureRule";
const OUTPUT_CAPTURE_LEGACY: &str = "org.springframework.boot.test.rule.OutputCapture";
/// What a `CapturedOutput` parameter answers as the rule did (`OutputCaptureRule`
/// implements `CapturedOutput`, a `CharSequence`).
const CAPTURED_OUTPUT_METHODS: &[&str] = &[
    "getAll",
    "getOut",
    "getErr",
    "toString",
    "length",
    "charAt",
    "subSequence",
    "isEmpty",
    "chars",
    "codePoints",
];

const BOOT_TEST_ANNOTATIONS: &[&str] = &[
    "SpringBootTest",
    "WebMvcTest",
    "WebFluxTest",
    "DataJpaTest",
    "DataJdbcTest",
    "JdbcTest",
    "JsonTest",
    "RestClientTest",
    "DataMongoTest",
    "DataRedisTest",
    "DataLdapTest",
    "DataNeo4jTest",
    "DataR2dbcTest",
    "DataCassandraTest",
    "DataElasticsearchTest",
    "DataCouchbaseTest",
    "JooqTest",
    "GraphQlTest",
    "WebServiceClientTest",
];

pub(super) fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// `X.class` -> `X` for each class literal in an annotation's single value (or array).
fn class_literals(a: Node, src: &str) -> Option<Vec<String>> {
    let args = a.child_by_field_name("arguments")?;
    let mut out = Vec::new();
    java_syntax::walk(args, |n| {
        if n.kind() == "class_literal"
            && let Some(t) = n.named_child(0)
        {
            out.push(text(t, src).to_string());
        }
    });
    Some(out)
}

/// A Boot test annotation on the class: it is meta-annotated with
/// `@ExtendWith(SpringExtension.class)`.
fn under_boot_test(class: Node, src: &str) -> bool {
    modifiers_of(class).is_some_and(|mods| {
        annotations(mods)
            .iter()
            .any(|a| BOOT_TEST_ANNOTATIONS.contains(&simple(annotation_name(*a, src))))
    })
}

/// The test or fixture method (`@Test`, `@Before`, `@After`) around `n`, whose parameters
/// Jupiter resolves; `None` in a helper method or outside any method.
fn junit_method_around<'t>(n: Node<'t>, src: &str) -> Option<Node<'t>> {
    let mut m = n.parent();
    while let Some(x) = m.filter(|x| x.kind() != "method_declaration") {
        m = x.parent();
    }
    let m = m?;
    let annotated = modifiers_of(m).is_some_and(|mods| {
        annotations(mods).iter().any(|a| {
            matches!(
                simple(annotation_name(*a, src)),
                "Test" | "Before" | "After"
            )
        })
    });
    annotated.then_some(m)
}

/// The declaration's annotation with this simple name.
fn annotated_with<'t>(decl: Node<'t>, name: &str, src: &str) -> Option<Node<'t>> {
    modifiers_of(decl)?.children(&mut decl.walk()).find(|a| {
        matches!(a.kind(), "marker_annotation" | "annotation")
            && simple(annotation_name(*a, src)) == name
    })
}

/// The annotation's source range including the whitespace up to the next token, so a
/// removal leaves the following line where the annotation was.
pub(super) fn removal(src: &str, a: Node) -> Edit {
    let rest = &src[a.end_byte()..];
    let ws = rest.len() - rest.trim_start().len();
    Edit::replace(a.start_byte()..a.end_byte() + ws, "")
}

/// Separator between two annotations: a line break plus indentation when the original
/// sits on its own line, else a space.
fn separator(src: &str, a: Node) -> String {
    let indent = indent_at(src, a.start_byte());
    let line_start = src[..a.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    if src[line_start..a.start_byte()].trim().is_empty() {
        format!("{}{indent}", line_ending(src))
    } else {
        " ".into()
    }
}

impl Structure {
    pub fn analyze(root: Node, src: &str, around: Surroundings) -> Result<Self, String> {
        let mut s = Structure {
            module_path: around.module_path,
            ..Structure::default()
        };
        let types = java_types::Scope::new(root, src);
        let mut classes = Vec::new();
        let mut methods = Vec::new();
        java_syntax::walk(root, |n| match n.kind() {
            "class_declaration" => classes.push(n),
            "method_declaration" => methods.push(n),
            _ => {}
        });
        for &class in &classes {
            s.class_annotations(class, src, &types, &around)?;
            s.rules(class, src, around, &types)?;
            if let Some(rule) = class
                .parent()
                .filter(|p| p.kind() == "program")
                .and_then(|_| around.declared_rule(field_text(class, "name", src)))
            {
                custom_rules::convert(&mut s, class, rule.verdict.clone()?, src)?;
            }
            if let Some(sup) = class.child_by_field_name("superclass") {
                if matches!(
                    text(sup, src).trim_start_matches("extends").trim(),
                    "TestCase" | "junit.framework.TestCase"
                ) {
                    s.junit3_class(class, Ok(sup), src, &types, around)?;
                } else if let Some(inherited) = superclass_name(class, src)
                    .and_then(|b| around.junit3_bases.and_then(|bases| bases.get(b)))
                {
                    // Below a project JUnit 3 base converted with it: the superclass stays.
                    s.junit3_class(class, Err(inherited), src, &types, around)?;
                }
            } else if class.parent().is_some_and(|p| p.kind() == "program")
                && around
                    .suite_members
                    .is_some_and(|(members, path)| members.platform_suite(path))
            {
                s.suite_holder(class, src, &types);
            }
        }
        if s.junit3 {
            let imports = java_syntax::imports(root, src);
            for path in junit3_runner::unused_imports(root, &imports, &s.junit3_removed, src) {
                s.remove_import(&path);
            }
        }
        for &m in &methods {
            if let Some(mods) = modifiers_of(m) {
                for a in annotations(mods) {
                    if simple(annotation_name(a, src)) == "Category" {
                        s.category(a, src)?;
                    }
                }
            }
        }
        Ok(s)
    }

    fn take(&mut self, n: Node) {
        java_syntax::walk(n, |x| {
            self.handled.insert(x.id());
        });
    }

    fn remove_import(&mut self, path: &str) {
        self.imports_removed.push(path.to_string());
    }

    fn class_annotations(
        &mut self,
        class: Node,
        src: &str,
        types: &java_types::Scope,
        around: &Surroundings,
    ) -> Result<(), String> {
        let Some(mods) = modifiers_of(class) else {
            return Ok(());
        };
        for a in annotations(mods) {
            match simple(annotation_name(a, src)) {
                "RunWith"
                    if class_literals(a, src).is_some_and(|r| {
                        r.first()
                            .is_some_and(|r| types.names(r, "org.junit.runners.Suite"))
                    }) && around.suite_members.is_some_and(|(m, _)| m.platform()) =>
                {
                    self.junit4_suite(a, class, src)?
                }
                "RunWith" => self.run_with(a, class, src)?,
                "Category" => self.category(a, src)?,
                "FixMethodOrder" => self.fix_method_order(a, src)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn run_with(&mut self, a: Node, class: Node, src: &str) -> Result<(), String> {
        let runner = class_literals(a, src)
            .and_then(|l| l.into_iter().next())
            .ok_or("@RunWith without a runner class")?;
        self.take(a);
        self.remove_import("org.junit.runner.RunWith");
        let extend = |s: &mut Self, ext: &str, import: &str| {
            s.edits.push(Edit::replace(
                a.byte_range(),
                format!("@ExtendWith({ext}.class)"),
            ));
            s.imports_needed
                .push("org.junit.jupiter.api.extension.ExtendWith".into());
            s.imports_needed.push(import.into());
        };
        match runner.as_str() {
            "MockitoJUnitRunner"
            | "MockitoJUnitRunner.Strict"
            | "MockitoJUnitRunner.StrictStubs" => {
                extend(
                    self,
                    "MockitoExtension",
                    "org.mockito.junit.jupiter.MockitoExtension",
                );
                self.remove_import("org.mockito.junit.MockitoJUnitRunner");
                self.remove_import("org.mockito.runners.MockitoJUnitRunner");
            }
            "MockitoJUnitRunner.Silent" => {
                let sep = separator(src, a);
                self.edits.push(Edit::replace(
                    a.byte_range(),
                    format!("@ExtendWith(MockitoExtension.class){sep}@MockitoSettings(strictness = Strictness.LENIENT)"),
                ));
                self.imports_needed.extend([
                    "org.junit.jupiter.api.extension.ExtendWith".into(),
                    "org.mockito.junit.jupiter.MockitoExtension".into(),
                    "org.mockito.junit.jupiter.MockitoSettings".into(),
                    "org.mockito.quality.Strictness".into(),
                ]);
                self.remove_import("org.mockito.junit.MockitoJUnitRunner");
            }
            "SpringRunner" | "SpringJUnit4ClassRunner" => {
                self.remove_import("org.springframework.test.context.junit4.SpringRunner");
                self.remove_import(
                    "org.springframework.test.context.junit4.SpringJUnit4ClassRunner",
                );
                self.spring_extension = true;
                if under_boot_test(class, src) {
                    self.edits.push(removal(src, a));
                    self.changes
                        .push("@RunWith(SpringRunner) removed (the Boot test annotation extends with Spring)".into());
                    return Ok(());
                }
                extend(
                    self,
                    "SpringExtension",
                    "org.springframework.test.context.junit.jupiter.SpringExtension",
                );
            }
            "Enclosed" => {
                self.edits.push(removal(src, a));
                self.remove_import("org.junit.experimental.runners.Enclosed");
                self.enclosed(class, src)?;
                self.changes
                    .push("@RunWith(Enclosed) -> @Nested inner classes".into());
                return Ok(());
            }
            "Parameterized" => {
                self.edits.push(removal(src, a));
                self.remove_import("org.junit.runners.Parameterized");
                self.parameterized(class, src)?;
                self.changes
                    .push("@RunWith(Parameterized) -> @ParameterizedTest + @MethodSource".into());
                return Ok(());
            }
            "JUnitParamsRunner" => {
                self.edits.push(removal(src, a));
                self.remove_import("junitparams.JUnitParamsRunner");
                self.junit_params(class, src)?;
                self.changes.push(
                    "@RunWith(JUnitParamsRunner) -> @ParameterizedTest + @CsvSource/@MethodSource"
                        .into(),
                );
                return Ok(());
            }
            "JUnit4" | "BlockJUnit4ClassRunner" => {
                self.edits.push(removal(src, a));
                self.remove_import("org.junit.runners.JUnit4");
                self.remove_import("org.junit.runners.BlockJUnit4ClassRunner");
                self.changes.push(format!("@RunWith({runner}) removed"));
                return Ok(());
            }
            other => {
                return Err(format!(
                    "@RunWith({other}) has no safe Jupiter equivalent in the recipe tier"
                ));
            }
        }
        self.changes
            .push(format!("@RunWith({runner}) -> @ExtendWith"));
        Ok(())
    }

    fn category(&mut self, a: Node, src: &str) -> Result<(), String> {
        let tags = class_literals(a, src)
            .filter(|t| !t.is_empty())
            .ok_or("@Category without classes")?;
        let sep = separator(src, a);
        let text = tags
            .iter()
            .map(|t| format!("@Tag(\"{}\")", simple(t)))
            .collect::<Vec<_>>()
            .join(&sep);
        self.take(a);
        self.edits.push(Edit::replace(a.byte_range(), text));
        self.imports_needed.push("org.junit.jupiter.api.Tag".into());
        self.remove_import("org.junit.experimental.categories.Category");
        self.changes.push("@Category -> @Tag".into());
        Ok(())
    }

    fn fix_method_order(&mut self, a: Node, src: &str) -> Result<(), String> {
        let args = field_text(a, "arguments", src);
        self.take(a);
        self.remove_import("org.junit.FixMethodOrder");
        self.remove_import("org.junit.runners.MethodSorters");
        if args.contains("NAME_ASCENDING") {
            self.edits.push(Edit::replace(
                a.byte_range(),
                "@TestMethodOrder(MethodOrderer.MethodName.class)",
            ));
            self.imports_needed.extend([
                "org.junit.jupiter.api.TestMethodOrder".into(),
                "org.junit.jupiter.api.MethodOrderer".into(),
            ]);
            self.changes
                .push("@FixMethodOrder(NAME_ASCENDING) -> @TestMethodOrder(MethodName)".into());
        } else {
            // JVM and DEFAULT orders: Jupiter's default order is deterministic too.
            self.edits.push(removal(src, a));
            self.changes
                .push("@FixMethodOrder removed (Jupiter's default order is deterministic)".into());
        }
        Ok(())
    }

    /// `@RunWith(Enclosed)`: static member classes with tests become `@Nested` inner
    /// classes. Class-level fixtures (`@BeforeClass`) cannot live in an inner class on the
    /// Jupiter versions we target, so they keep the file on vintage.
    fn enclosed(&mut self, class: Node, src: &str) -> Result<(), String> {
        let body = class
            .child_by_field_name("body")
            .ok_or("class without body")?;
        let mut c = body.walk();
        for inner in body
            .named_children(&mut c)
            .filter(|n| n.kind() == "class_declaration")
        {
            let inner_text = text(inner, src);
            if !inner_text.contains("@Test") {
                continue;
            }
            if inner_text.contains("@BeforeClass") || inner_text.contains("@AfterClass") {
                return Err("an Enclosed member class has @BeforeClass/@AfterClass".into());
            }
            if let Some(mods) = modifiers_of(inner) {
                let mut mc = mods.walk();
                for m in mods.children(&mut mc).filter(|m| m.kind() == "static") {
                    self.edits.push(removal(src, m));
                }
            }
            let indent = indent_at(src, inner.start_byte());
            self.edits.push(Edit::insert(
                inner.start_byte(),
                format!("@Nested{}{indent}", line_ending(src)),
            ));
        }
        self.imports_needed
            .push("org.junit.jupiter.api.Nested".into());
        Ok(())
    }

    /// `@RunWith(Parameterized)` with a `@Parameters` method and either one constructor or
    /// `@Parameter` fields: each `@Test` becomes `@ParameterizedTest @MethodSource` taking
    /// the parameters, and starts by handing them to the old constructor (now an `init`
    /// method) or the fields. Fixtures that read the parameters keep the file on vintage.
    fn parameterized(&mut self, class: Node, src: &str) -> Result<(), String> {
        let body = class
            .child_by_field_name("body")
            .ok_or("class without body")?;
        let class_name = field_text(class, "name", src);
        let mut c = body.walk();
        let members: Vec<Node> = body.named_children(&mut c).collect();
        let annotated = |m: &Node, name: &str| annotated_with(*m, name, src).is_some();
        let source = members
            .iter()
            .find(|m| m.kind() == "method_declaration" && annotated(m, "Parameters"))
            .ok_or("Parameterized class without a @Parameters method")?;
        let source_name = field_text(*source, "name", src).to_string();
        let parameters =
            annotated_with(*source, "Parameters", src).ok_or("@Parameters annotation not found")?;
        self.take(parameters);
        self.edits.push(removal(src, parameters));
        let name_arg = parameters
            .child_by_field_name("arguments")
            .map(|args| text(args, src).to_string());
        // What each test receives and the statement that hands it over.
        let constructors: Vec<&Node> = members
            .iter()
            .filter(|m| m.kind() == "constructor_declaration")
            .collect();
        let fields: Vec<(i64, String, String, Node)> = members
            .iter()
            .filter(|m| m.kind() == "field_declaration" && annotated(m, "Parameter"))
            .map(|f| {
                let a = annotated_with(*f, "Parameter", src).expect("filtered on it");
                let index = a
                    .child_by_field_name("arguments")
                    .map(|x| {
                        text(x, src)
                            .trim_matches(['(', ')'])
                            .replace("value", "")
                            .replace('=', "")
                    })
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                let ty = field_text(*f, "type", src).to_string();
                let name = f
                    .child_by_field_name("declarator")
                    .map_or("", |d| field_text(d, "name", src))
                    .to_string();
                self.take(a);
                self.edits.push(removal(src, a));
                (index, ty, name, *f)
            })
            .collect();
        let (params, handover, assigned): (String, String, Vec<String>) =
            match (constructors.as_slice(), fields.is_empty()) {
                ([ctor], true) => {
                    let plist = ctor
                        .child_by_field_name("parameters")
                        .ok_or("constructor without parameters")?;
                    let mut pc = plist.walk();
                    let names: Vec<&str> = plist
                        .named_children(&mut pc)
                        .map(|p| field_text(p, "name", src))
                        .collect();
                    let init = format!("init{class_name}");
                    // The constructor becomes `public void initX(..)`.
                    let name_node = ctor
                        .child_by_field_name("name")
                        .ok_or("constructor without name")?;
                    self.edits.push(Edit::replace(
                        name_node.byte_range(),
                        format!("void {init}"),
                    ));
                    let mut assigned = Vec::new();
                    java_syntax::walk(**ctor, |n| {
                        if n.kind() == "assignment_expression"
                            && let Some(l) = n.child_by_field_name("left")
                        {
                            let l = text(l, src);
                            assigned.push(l.strip_prefix("this.").unwrap_or(l).to_string());
                        }
                    });
                    (
                        text(plist, src).trim_matches(['(', ')']).to_string(),
                        format!("{init}({});", names.join(", ")),
                        assigned,
                    )
                }
                ([], false) => {
                    let mut sorted = fields.clone();
                    sorted.sort_by_key(|f| f.0);
                    let params = sorted
                        .iter()
                        .map(|(_, t, n, _)| format!("{t} {n}"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let handover = sorted
                        .iter()
                        .map(|(_, _, n, _)| format!("this.{n} = {n};"))
                        .collect::<Vec<_>>()
                        .join(" ");
                    (
                        params,
                        handover,
                        sorted.iter().map(|f| f.2.clone()).collect(),
                    )
                }
                _ => {
                    return Err(
                        "Parameterized class needs exactly one constructor or @Parameter fields"
                            .into(),
                    );
                }
            };
        // Assigned per invocation now, so not final. An @After that reads them runs after
        // the test set them; a @Before that reads them would run before, so it is called
        // right after the handover instead (JUnit 4 ran it after the constructor).
        let mut deferred: Vec<(String, bool)> = Vec::new();
        for m in &members {
            match m.kind() {
                "field_declaration" => {
                    let name = m
                        .child_by_field_name("declarator")
                        .map_or("", |d| field_text(d, "name", src));
                    if assigned.iter().any(|a| a == name)
                        && let Some(mods) = modifiers_of(*m)
                    {
                        let mut mc = mods.walk();
                        for f in mods.children(&mut mc).filter(|x| x.kind() == "final") {
                            self.edits.push(removal(src, f));
                        }
                    }
                }
                "method_declaration"
                    if ["Before", "BeforeClass", "AfterClass"]
                        .iter()
                        .any(|a| annotated(m, a)) =>
                {
                    let mut reads = false;
                    java_syntax::walk(*m, |n| {
                        reads |=
                            n.kind() == "identifier" && assigned.iter().any(|a| a == text(n, src));
                    });
                    let takes_nothing = m
                        .child_by_field_name("parameters")
                        .is_some_and(|p| p.named_child_count() == 0);
                    match annotated_with(*m, "Before", src) {
                        Some(before) if reads && takes_nothing => {
                            self.take(before);
                            self.edits.push(removal(src, before));
                            let throws = {
                                let mut c = m.walk();
                                m.children(&mut c).any(|k| k.kind() == "throws")
                            };
                            deferred.push((field_text(*m, "name", src).to_string(), throws));
                        }
                        _ if reads => return Err("a fixture method reads the parameters".into()),
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let handover = std::iter::once(handover)
            .chain(deferred.iter().map(|(name, _)| format!("{name}();")))
            .collect::<Vec<_>>()
            .join(" ");
        let fixture_throws = deferred.iter().any(|(_, t)| *t);
        let befores = src.matches("@Before").count() - src.matches("@BeforeClass").count();
        if !deferred.is_empty() && befores == deferred.len() {
            self.remove_import("org.junit.Before");
        }
        let eol = line_ending(src);
        for m in members.iter().filter(|m| m.kind() == "method_declaration") {
            let Some(test) = annotated_with(*m, "Test", src) else {
                continue;
            };
            if test.kind() != "marker_annotation" {
                return Err("@Test(expected/timeout) in a Parameterized class".into());
            }
            let plist = m
                .child_by_field_name("parameters")
                .ok_or("method without parameters")?;
            if plist.named_child_count() > 0 {
                return Err("a Parameterized test method already takes parameters".into());
            }
            let body = m.child_by_field_name("body").ok_or("test without body")?;
            self.take(test);
            let sep = separator(src, test);
            let display = name_arg.as_deref().unwrap_or("");
            self.edits.push(Edit::replace(
                test.byte_range(),
                format!("@ParameterizedTest{display}{sep}@MethodSource(\"{source_name}\")"),
            ));
            // The fixture's checked exceptions now pass through the test method.
            let throws = {
                let mut c = m.walk();
                m.children(&mut c).find(|k| k.kind() == "throws")
            };
            let covers = |t: Node| {
                text(t, src)
                    .trim_start_matches("throws")
                    .split(',')
                    .map(str::trim)
                    .any(|e| {
                        matches!(
                            e,
                            "Exception"
                                | "Throwable"
                                | "java.lang.Exception"
                                | "java.lang.Throwable"
                        )
                    })
            };
            let widened = match throws {
                Some(t) if fixture_throws && !covers(t) => {
                    self.edits
                        .push(Edit::replace(t.byte_range(), "throws Exception"));
                    ""
                }
                None if fixture_throws => " throws Exception",
                _ => "",
            };
            self.edits.push(Edit::replace(
                plist.byte_range(),
                format!("({params}){widened}"),
            ));
            let inner = indent_at(src, m.start_byte()).to_string() + "    ";
            // `{ stmt` on one line: the statement moves to its own line after the handover.
            let open = body.start_byte() + 1;
            let rest = &src[open..];
            let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            let same_line = !rest[spaces..].starts_with(['\n', '\r', '}']);
            let tail = if same_line {
                format!("{eol}{inner}")
            } else {
                String::new()
            };
            self.edits.push(Edit::replace(
                open..open + if same_line { spaces } else { 0 },
                format!("{eol}{inner}{handover}{tail}"),
            ));
        }
        self.imports_needed.extend([
            "org.junit.jupiter.params.ParameterizedTest".into(),
            "org.junit.jupiter.params.provider.MethodSource".into(),
        ]);
        for i in [
            "org.junit.Test",
            "org.junit.runners.Parameterized.Parameters",
            "org.junit.runners.Parameterized.Parameter",
        ] {
            self.remove_import(i);
        }
        Ok(())
    }

    /// `@RunWith(JUnitParamsRunner)`: each `@Test @Parameters(..)` method becomes a
    /// `@ParameterizedTest`. Inline values (`@Parameters({"1, a", "2, b"})`) become
    /// `@CsvSource` when CSV reads them alike (no `|` separator, no quote); provider methods
    /// (`@Parameters(method = "..")`, or `parametersForX()` by convention) become
    /// `@MethodSource`, made `static` as Jupiter requires when they use no instance member.
    /// Providers from other classes, `$(..)`, file parameters and `@TestCaseName` are refused.
    fn junit_params(&mut self, class: Node, src: &str) -> Result<(), String> {
        let body = class
            .child_by_field_name("body")
            .ok_or("class without body")?;
        let mut c = body.walk();
        let members: Vec<Node> = body.named_children(&mut c).collect();
        if src.contains("$(") || src.contains("@FileParameters") || src.contains("@TestCaseName") {
            return Err("JUnitParams $(..), @FileParameters or @TestCaseName".into());
        }
        let is_static = |m: Node| {
            modifiers_of(m).is_some_and(|mods| {
                let mut mc = mods.walk();
                mods.children(&mut mc).any(|k| k.kind() == "static")
            })
        };
        // What a provider may not use once static: the instance's fields and methods.
        let mut instance: HashSet<&str> = HashSet::new();
        for m in members.iter().filter(|m| !is_static(**m)) {
            match m.kind() {
                "method_declaration" => {
                    instance.insert(field_text(*m, "name", src));
                }
                "field_declaration" => {
                    let mut dc = m.walk();
                    for d in m.children_by_field_name("declarator", &mut dc) {
                        instance.insert(field_text(d, "name", src));
                    }
                }
                _ => {}
            }
        }
        let provider = |name: &str| {
            members.iter().copied().find(|m| {
                m.kind() == "method_declaration"
                    && field_text(*m, "name", src) == name
                    && m.child_by_field_name("parameters")
                        .is_some_and(|p| p.named_child_count() == 0)
            })
        };
        let mut made_static: HashSet<usize> = HashSet::new();
        let mut sources = HashSet::new();
        for m in members.iter().filter(|m| m.kind() == "method_declaration") {
            let Some(params) = annotated_with(*m, "Parameters", src) else {
                continue;
            };
            let test = annotated_with(*m, "Test", src)
                .filter(|t| t.kind() == "marker_annotation")
                .ok_or("@Parameters without a plain @Test")?;
            let name = field_text(*m, "name", src);
            let mut providers: Vec<String> = Vec::new();
            let mut values = None;
            if params.kind() == "annotation" {
                let args = params
                    .child_by_field_name("arguments")
                    .ok_or("@Parameters without arguments")?;
                let mut ac = args.walk();
                for arg in args.named_children(&mut ac) {
                    let (key, value) = match arg.kind() {
                        "element_value_pair" => (
                            field_text(arg, "key", src),
                            arg.child_by_field_name("value")
                                .ok_or("pair without value")?,
                        ),
                        _ => ("value", arg),
                    };
                    match key {
                        "value" => values = Some(value),
                        "method" if value.kind() == "string_literal" => providers.extend(
                            text(value, src)
                                .trim_matches('"')
                                .split(',')
                                .map(|p| p.trim().to_string())
                                .filter(|p| !p.is_empty()),
                        ),
                        other => return Err(format!("@Parameters({other} = ..)")),
                    }
                }
            } else {
                let mut chars = name.chars();
                let first = chars.next().map(|c| c.to_uppercase().to_string());
                providers.push(format!(
                    "parametersFor{}{}",
                    first.unwrap_or_default(),
                    chars.as_str()
                ));
            }
            let source = match values {
                Some(v) => {
                    let mut vc = v.walk();
                    let items: Vec<Node> = if v.kind() == "element_value_array_initializer" {
                        v.named_children(&mut vc).collect()
                    } else {
                        vec![v]
                    };
                    if items.is_empty()
                        || items.iter().any(|i| {
                            i.kind() != "string_literal"
                                || text(*i, src).contains(['|', '\'', '\\'])
                        })
                    {
                        return Err("@Parameters values CSV would read differently".into());
                    }
                    sources.insert("org.junit.jupiter.params.provider.CsvSource");
                    format!("@CsvSource({})", text(v, src))
                }
                None => {
                    for p in &providers {
                        let method = provider(p)
                            .ok_or_else(|| format!("parameters provider {p}() not in the class"))?;
                        if is_static(method) {
                            continue;
                        }
                        let mut uses_instance = false;
                        if let Some(b) = method.child_by_field_name("body") {
                            java_syntax::walk(b, |n| {
                                uses_instance |= n.kind() == "this"
                                    || (n.kind() == "identifier" && instance.contains(text(n, src)))
                            });
                        }
                        if uses_instance {
                            return Err(format!("provider {p}() uses the test instance"));
                        }
                        let ty = method
                            .child_by_field_name("type")
                            .ok_or("provider without type")?;
                        if made_static.insert(method.start_byte()) {
                            self.edits.push(Edit::insert(ty.start_byte(), "static "));
                        }
                    }
                    sources.insert("org.junit.jupiter.params.provider.MethodSource");
                    let list = providers
                        .iter()
                        .map(|p| format!("\"{p}\""))
                        .collect::<Vec<_>>()
                        .join(", ");
                    if providers.len() == 1 {
                        format!("@MethodSource({list})")
                    } else {
                        format!("@MethodSource({{{list}}})")
                    }
                }
            };
            self.take(test);
            self.take(params);
            self.edits
                .push(Edit::replace(test.byte_range(), "@ParameterizedTest"));
            self.edits.push(Edit::replace(params.byte_range(), source));
        }
        self.imports_needed
            .push("org.junit.jupiter.params.ParameterizedTest".into());
        self.imports_needed
            .extend(sources.into_iter().map(String::from));
        self.remove_import("junitparams.Parameters");
        let plain_tests = members.iter().any(|m| {
            annotated_with(*m, "Test", src).is_some()
                && annotated_with(*m, "Parameters", src).is_none()
        });
        if !plain_tests {
            self.remove_import("org.junit.Test");
        }
        Ok(())
    }

    /// `class X extends TestCase`: the superclass goes, `test*` methods get `@Test`,
    /// setUp/tearDown become `@BeforeEach`/`@AfterEach` without their `super` calls, and
    /// inherited assertions come from Jupiter. What only JUnit 3's runners needed (the
    /// default suite, the test-name constructor, a `main` launching the text runner) goes
    /// (`junit3_runner`); other suites, constructors with arguments and other TestCase API
    /// (getName, run ...) are refused.
    /// `sup`: the `extends TestCase` clause, which goes; or, for a subclass of a project
    /// JUnit 3 base (whose superclass stays), the fixtures its project ancestors declare.
    fn junit3_class(
        &mut self,
        class: Node,
        sup: Result<Node, &BTreeSet<String>>,
        src: &str,
        types: &java_types::Scope,
        around: Surroundings,
    ) -> Result<(), String> {
        let body = class
            .child_by_field_name("body")
            .ok_or("class without body")?;
        let mut problem = None;
        java_syntax::walk(body, |n| {
            if problem.is_none()
                && n.kind() == "method_invocation"
                && n.child_by_field_name("object")
                    .is_none_or(|o| text(o, src) == "this")
                && let Some(name) = n.child_by_field_name("name")
                && matches!(
                    text(name, src),
                    "getName"
                        | "setName"
                        | "run"
                        | "countTestCases"
                        | "createResult"
                        | "runTest"
                        | "runBare"
                )
            {
                problem = Some(format!("uses TestCase.{}()", text(name, src)));
            }
        });
        if let Some(p) = problem {
            return Err(p);
        }
        let none = BTreeSet::new();
        let inherited = match sup {
            Ok(sup) => {
                let before = src[..sup.start_byte()].trim_end().len();
                self.edits.push(Edit::replace(before..sup.end_byte(), ""));
                self.junit3_removed.push(sup.byte_range());
                self.remove_import("junit.framework.TestCase");
                &none
            }
            Err(inherited) => inherited,
        };
        let class_name = field_text(class, "name", src);
        if around
            .suite_members
            .is_some_and(|(members, path)| members.elsewhere(class_name, path))
        {
            // The suite would no longer compile (addTestSuite takes a TestCase class).
            return Err(format!(
                "another class gathers {class_name} into a JUnit 3 suite()"
            ));
        }
        let platform_suite = class.parent().is_some_and(|p| p.kind() == "program")
            && around
                .suite_members
                .is_some_and(|(members, path)| members.platform_suite(path));
        let mut c = body.walk();
        for member in body.named_children(&mut c) {
            let gathered = platform_suite
                .then(|| junit3_runner::gathering_suite(member, src, types))
                .flatten();
            let removed = match member.kind() {
                "method_declaration" if let Some(g) = gathered => {
                    self.platform_suite(class, &g, src);
                    Some("JUnit 3 suite() -> @Suite @SelectClasses")
                }
                "constructor_declaration" => {
                    let params = member
                        .child_by_field_name("parameters")
                        .map_or(0, |p| p.named_child_count());
                    if params > 0 && !junit3_runner::test_name_constructor(member, class, src) {
                        return Err("JUnit 3 constructor with a test name".into());
                    }
                    (params > 0).then_some("JUnit 3 test-name constructor removed")
                }
                "method_declaration"
                    if junit3_runner::default_suite(member, class_name, src, types) =>
                {
                    Some("JUnit 3 default suite() removed")
                }
                "method_declaration"
                    if junit3_runner::runner_main(member, class_name, src, types) =>
                {
                    Some("main() launching JUnit 3's text runner removed")
                }
                "method_declaration" => {
                    self.junit3_method(member, inherited, src)?;
                    None
                }
                _ => None,
            };
            if let Some(change) = removed {
                let span = junit3_runner::member_span(member, src);
                self.take(member);
                self.edits.push(Edit::replace(span.clone(), ""));
                self.junit3_removed.push(span);
                self.changes.push(change.into());
            }
        }
        self.imports_needed
            .push("static org.junit.jupiter.api.Assertions.*".into());
        self.junit3 = true;
        self.changes.push("JUnit 3 TestCase -> Jupiter".into());
        Ok(())
    }

    /// `@RunWith(Suite.class) @SuiteClasses({..})` -> `@Suite @SelectClasses({..})`: the same
    /// classes, run by the JUnit Platform suite engine (a member left on JUnit 4 runs there
    /// on the vintage engine). JUnit 4's runner also runs the suite class's own
    /// `@BeforeClass`, `@AfterClass` and `@ClassRule` around its members, which a platform
    /// suite does not: such a class stays on JUnit 4, as does one with tests of its own, one
    /// with a superclass (whose fixtures, tests and inherited `@RunWith` JUnit 4 ran too) and
    /// a nested one (the suite engine selects no nested class, and Surefire skips them).
    fn junit4_suite(&mut self, run_with: Node, class: Node, src: &str) -> Result<(), String> {
        if class.parent().is_none_or(|p| p.kind() != "program") {
            return Err("a nested @RunWith(Suite) class".into());
        }
        if class.child_by_field_name("superclass").is_some() {
            return Err("a @RunWith(Suite) class with a superclass".into());
        }
        let root = class.parent().unwrap_or(class);
        if java_syntax::declared_type_names(root, src)
            .iter()
            .any(|t| t == "Suite" || t == "SelectClasses")
        {
            return Err("the file declares its own Suite or SelectClasses type".into());
        }
        let listed = modifiers_of(class)
            .into_iter()
            .flat_map(annotations)
            .find(|a| simple(annotation_name(*a, src)) == "SuiteClasses")
            .ok_or("@RunWith(Suite) without @SuiteClasses")?;
        let args = listed
            .child_by_field_name("arguments")
            .ok_or("@SuiteClasses without classes")?;
        let value = args
            .named_child(0)
            .map(|v| v.child_by_field_name("value").unwrap_or(v))
            .ok_or("@SuiteClasses without classes")?;
        let mut c = value.walk();
        let elements: Vec<Node> = if value.kind() == "element_value_array_initializer" {
            value.named_children(&mut c).collect()
        } else {
            vec![value]
        };
        if elements.is_empty() || elements.iter().any(|e| e.kind() != "class_literal") {
            return Err("@SuiteClasses lists no classes, or more than class literals".into());
        }
        let body = class
            .child_by_field_name("body")
            .ok_or("suite without a body")?;
        let mut b = body.walk();
        let junit_member = body.named_children(&mut b).any(|m| {
            modifiers_of(m).is_some_and(|mods| {
                annotations(mods).iter().any(|a| {
                    matches!(
                        simple(annotation_name(*a, src)),
                        "Test"
                            | "Before"
                            | "After"
                            | "BeforeClass"
                            | "AfterClass"
                            | "Rule"
                            | "ClassRule"
                    )
                })
            })
        });
        if junit_member {
            return Err("@RunWith(Suite) class with fixtures, rules or tests of its own".into());
        }
        if modifiers_of(class).is_some_and(|mods| {
            annotations(mods)
                .iter()
                .any(|a| simple(annotation_name(*a, src)) == "Ignore")
        }) {
            return Err(
                "@Ignore on a @RunWith(Suite) class (a platform suite has no @Disabled)".into(),
            );
        }
        self.take(run_with);
        self.take(listed);
        self.edits
            .push(Edit::replace(run_with.byte_range(), "@Suite"));
        self.edits.push(Edit::replace(
            listed.byte_range(),
            format!("@SelectClasses{}", text(args, src)),
        ));
        for import in [
            "org.junit.runner.RunWith",
            "org.junit.runners.Suite",
            "org.junit.runners.Suite.SuiteClasses",
        ] {
            self.remove_import(import);
        }
        for name in ["Suite", "SelectClasses"] {
            self.imports_needed
                .push(format!("org.junit.platform.suite.api.{name}"));
        }
        self.changes
            .push("@RunWith(Suite) @SuiteClasses -> @Suite @SelectClasses".into());
        Ok(())
    }

    /// A class outside any hierarchy that only holds a gathering `suite()`: the suite method
    /// goes and the class becomes the JUnit Platform suite it described.
    fn suite_holder(&mut self, class: Node, src: &str, types: &java_types::Scope) {
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        let mut c = body.walk();
        for member in body.named_children(&mut c) {
            if let Some(g) = junit3_runner::gathering_suite(member, src, types) {
                self.platform_suite(class, &g, src);
                let span = junit3_runner::member_span(member, src);
                self.take(member);
                self.edits.push(Edit::replace(span.clone(), ""));
                self.junit3_removed.push(span);
                self.changes
                    .push("JUnit 3 suite() -> @Suite @SelectClasses".into());
                self.junit3 = true;
            }
        }
    }

    /// Annotates `class` as the JUnit Platform suite its gathering `suite()` described.
    fn platform_suite(&mut self, class: Node, g: &junit3_runner::Gathered, src: &str) {
        let at = class.start_byte();
        let sep = format!("{}{}", line_ending(src), indent_at(src, at));
        let mut annotations = format!("@Suite{sep}");
        if let Some(name) = &g.name {
            annotations.push_str(&format!("@SuiteDisplayName({name}){sep}"));
            self.imports_needed
                .push("org.junit.platform.suite.api.SuiteDisplayName".into());
        }
        let classes: Vec<String> = g.classes.iter().map(|c| format!("{c}.class")).collect();
        annotations.push_str(&format!("@SelectClasses({{{}}}){sep}", classes.join(", ")));
        self.edits.push(Edit::insert(at, annotations));
        for name in ["Suite", "SelectClasses"] {
            self.imports_needed
                .push(format!("org.junit.platform.suite.api.{name}"));
        }
    }

    /// `inherited`: the fixtures the class's project ancestors declare. An `@Override` of, or
    /// a `super.` call to, any other setUp/tearDown meant TestCase's, which is gone.
    fn junit3_method(
        &mut self,
        m: Node,
        inherited: &BTreeSet<String>,
        src: &str,
    ) -> Result<(), String> {
        let name = field_text(m, "name", src);
        let params = m
            .child_by_field_name("parameters")
            .map_or(0, |p| p.named_child_count());
        let mods = modifiers_of(m);
        let mods_text = mods.map_or("", |x| text(x, src));
        if name == "suite" && mods_text.contains("static") {
            return Err("JUnit 3 suite() method".into());
        }
        let returns_void = m
            .child_by_field_name("type")
            .is_some_and(|t| text(t, src) == "void");
        let is_static = mods.is_some_and(|x| {
            let mut c = x.walk();
            x.children(&mut c).any(|k| k.kind() == "static")
        });
        let annotation = match name {
            "setUp" if params == 0 => "BeforeEach",
            "tearDown" if params == 0 => "AfterEach",
            // JUnit 3 runs public static test* methods too; Jupiter does not run a static
            // @Test, so the method becomes an instance method (it can still do all it did).
            _ if name.starts_with("test")
                && params == 0
                && returns_void
                && mods_text.contains("public") =>
            {
                "Test"
            }
            _ => return Ok(()),
        };
        // The JUnit 4 twin (`@Test`, `@Before`, `@After`) already on the method is renamed
        // by the rename pass; a second one would not compile.
        let twin = match annotation {
            "BeforeEach" => "Before",
            "AfterEach" => "After",
            other => other,
        };
        let mut annotated = false;
        if let Some(mods) = mods {
            for a in annotations(mods) {
                let written = simple(annotation_name(a, src));
                if written == "Override" && annotation != "Test" && !inherited.contains(name) {
                    self.take(a);
                    self.edits.push(removal(src, a));
                }
                annotated |= written == annotation || written == twin;
            }
            if is_static && annotation == "Test" {
                let mut c = mods.walk();
                if let Some(k) = mods.children(&mut c).find(|k| k.kind() == "static") {
                    let end = src[k.end_byte()..]
                        .find(|c: char| !c.is_whitespace())
                        .map_or(k.end_byte(), |i| k.end_byte() + i);
                    self.edits.push(Edit::replace(k.start_byte()..end, ""));
                    self.changes
                        .push("static JUnit 3 test method -> instance @Test".into());
                }
            }
        }
        if !annotated {
            let indent = indent_at(src, m.start_byte());
            self.edits.push(Edit::insert(
                m.start_byte(),
                format!("@{annotation}{}{indent}", line_ending(src)),
            ));
            self.imports_needed
                .push(format!("org.junit.jupiter.api.{annotation}"));
        }
        if annotation != "Test" && self.module_path {
            // JUnit 3 called its protected setUp itself; Jupiter reflects, which a named
            // module refuses for a package it does not open.
            if let Some(mods) = mods {
                let mut c = mods.walk();
                if let Some(k) = mods.children(&mut c).find(|k| k.kind() == "protected") {
                    self.edits.push(Edit::replace(k.byte_range(), "public"));
                    self.changes.push(format!(
                        "{name}: protected -> public (tests run on the module path)"
                    ));
                }
            }
        }
        if annotation != "Test" && !inherited.contains(name) {
            // `super.setUp();` would call a method that no longer exists.
            java_syntax::walk(m, |n| {
                if n.kind() == "expression_statement"
                    && text(n, src)
                        .replace(' ', "")
                        .starts_with(&format!("super.{name}()"))
                {
                    self.edits.push(Edit::replace(
                        crate::edit::whole_line(src, n.byte_range()),
                        "",
                    ));
                }
            });
        }
        Ok(())
    }

    /// `@Rule` / `@ClassRule` fields of one class.
    fn rules(
        &mut self,
        class: Node,
        src: &str,
        around: Surroundings,
        types: &java_types::Scope,
    ) -> Result<(), String> {
        let Some(body) = class.child_by_field_name("body") else {
            return Ok(());
        };
        let mut c = body.walk();
        let fields: Vec<Node> = body
            .named_children(&mut c)
            .filter(|n| n.kind() == "field_declaration")
            .collect();
        for field in fields {
            let Some(mods) = modifiers_of(field) else {
                continue;
            };
            let rule_annotation = annotations(mods)
                .into_iter()
                .find(|a| matches!(simple(annotation_name(*a, src)), "Rule" | "ClassRule"));
            let Some(rule_annotation) = rule_annotation else {
                continue;
            };
            let ty = field_text(field, "type", src);
            let declarator = field
                .child_by_field_name("declarator")
                .ok_or("rule field without a declarator")?;
            let name = field_text(declarator, "name", src).to_string();
            let init = field_text(declarator, "value", src);
            let is = |fqn: &str| {
                field
                    .child_by_field_name("type")
                    .is_some_and(|t| types.denotes(t, fqn))
            };
            let created = init.starts_with("new ") && init.ends_with(&format!("{}()", simple(ty)));
            let method_rule = simple(annotation_name(rule_annotation, src)) == "Rule";
            match simple(ty) {
                "TemporaryFolder" if init == "new TemporaryFolder()" => {
                    self.temporary_folder(class, field, rule_annotation, &name, src)?
                }
                "Timeout" => self.timeout_rule(class, field, init, src)?,
                "ExternalResource" => {
                    let is_class_rule =
                        simple(annotation_name(rule_annotation, src)) == "ClassRule";
                    self.external_resource(class, field, &name, is_class_rule, src)?
                }
                "TestName" if init == "new TestName()" => {
                    self.test_name(class, field, &name, src)?
                }
                "ExpectedException" if init.ends_with("ExpectedException.none()") => {
                    self.expected_exception(class, field, &name, src)?
                }
                "SpringClassRule" | "SpringMethodRule"
                    if created && SPRING_RULES.iter().any(|r| is(r)) =>
                {
                    self.spring_rule(class, field, &name, src)?
                }
                "OutputCaptureRule" if created && method_rule && is(OUTPUT_CAPTURE_RULE) => {
                    self.output_capture(class, field, &name, src)?
                }
                "OutputCapture" if is(OUTPUT_CAPTURE_LEGACY) => {
                    return Err(
                        "Boot's OutputCapture rule predates OutputCaptureExtension (Boot 2.2): \
                         once on Boot 2.2 or later, use OutputCaptureRule's successor, \
                         @ExtendWith(OutputCaptureExtension.class) with a CapturedOutput parameter"
                            .into(),
                    );
                }
                other if let Some(rule) = around.registered_rule(other) => {
                    custom_rules::register(self, class, field, rule_annotation, rule, src)?
                }
                other => {
                    return Err(format!(
                        "@{} {other} has no safe Jupiter equivalent in the recipe tier",
                        simple(annotation_name(rule_annotation, src))
                    ));
                }
            }
            self.take(field);
            self.remove_import("org.junit.Rule");
            self.remove_import("org.junit.ClassRule");
        }
        Ok(())
    }

    /// Every use of the field `name` in the class, as (use node, enclosing invocation).
    pub(super) fn uses<'t>(
        class: Node<'t>,
        field: Node<'t>,
        name: &str,
        src: &str,
    ) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        java_syntax::walk(class, |n| {
            let inside_field =
                n.start_byte() >= field.start_byte() && n.end_byte() <= field.end_byte();
            // A method of the same name is not the field.
            let method_name = n.parent().is_some_and(|p| {
                matches!(p.kind(), "method_invocation" | "method_declaration")
                    && p.child_by_field_name("name") == Some(n)
            });
            if n.kind() == "identifier" && text(n, src) == name && !inside_field && !method_name {
                out.push(n);
            }
        });
        out
    }

    fn temporary_folder(
        &mut self,
        class: Node,
        field: Node,
        rule: Node,
        name: &str,
        src: &str,
    ) -> Result<(), String> {
        let mods = modifiers_of(field).ok_or("rule field without modifiers")?;
        for u in Self::uses(class, field, name, src) {
            // `this.tmp.newFile(..)` as well as `tmp.newFile(..)`.
            let u = u
                .parent()
                .filter(|p| {
                    p.kind() == "field_access"
                        && p.child_by_field_name("field") == Some(u)
                        && p.child_by_field_name("object")
                            .is_some_and(|o| o.kind() == "this")
                })
                .unwrap_or(u);
            let name = text(u, src);
            let call = u
                .parent()
                .filter(|p| {
                    p.kind() == "method_invocation" && p.child_by_field_name("object") == Some(u)
                })
                .ok_or_else(|| {
                    format!("TemporaryFolder {name} is used other than through its methods")
                })?;
            let method = field_text(call, "name", src);
            let args = call
                .child_by_field_name("arguments")
                .ok_or("call without arguments")?;
            let argc = args.named_child_count();
            let arg = args.named_child(0).map_or("", |a| text(a, src));
            let replacement = match (method, argc) {
                ("getRoot", 0) => name.to_string(),
                ("newFile", 1) => {
                    format!("Files.createFile({name}.toPath().resolve({arg})).toFile()")
                }
                ("newFolder", 1) => {
                    format!("Files.createDirectories({name}.toPath().resolve({arg})).toFile()")
                }
                ("newFile", 0) => format!("File.createTempFile(\"junit\", null, {name})"),
                ("newFolder", 0) => {
                    format!("Files.createTempDirectory({name}.toPath(), \"junit\").toFile()")
                }
                _ => {
                    return Err(format!(
                        "TemporaryFolder.{method} with {argc} arguments has no direct @TempDir form"
                    ));
                }
            };
            if replacement.contains("Files.") {
                self.imports_needed.push("java.nio.file.Files".into());
            }
            self.edits
                .push(Edit::replace(call.byte_range(), replacement));
        }
        // `@Rule public TemporaryFolder tmp = new TemporaryFolder();` -> `@TempDir public File tmp;`
        // edited piecewise so the field keeps its layout; @TempDir fields must not be private.
        self.edits
            .push(Edit::replace(rule.byte_range(), "@TempDir"));
        let mut c = mods.walk();
        for m in mods.children(&mut c).filter(|m| m.kind() == "private") {
            self.edits.push(removal(src, m));
        }
        if let Some(ty) = field.child_by_field_name("type") {
            self.edits.push(Edit::replace(ty.byte_range(), "File"));
        }
        if let Some(d) = field.child_by_field_name("declarator")
            && let (Some(n), Some(v)) = (
                d.child_by_field_name("name"),
                d.child_by_field_name("value"),
            )
        {
            self.edits
                .push(Edit::replace(n.end_byte()..v.end_byte(), ""));
        }
        self.imports_needed.extend([
            "org.junit.jupiter.api.io.TempDir".into(),
            "java.io.File".into(),
        ]);
        self.remove_import("org.junit.rules.TemporaryFolder");
        self.changes
            .push("@Rule TemporaryFolder -> @TempDir File".into());
        Ok(())
    }

    /// An anonymous `ExternalResource` whose only members are `before()`/`after()` becomes
    /// `@BeforeEach`/`@AfterEach` methods (`@BeforeAll`/`@AfterAll` for a class rule). The
    /// rule ran around the class's own fixtures; with other fixtures present that order
    /// cannot be kept, so the file stays on vintage.
    fn external_resource(
        &mut self,
        class: Node,
        field: Node,
        name: &str,
        is_class_rule: bool,
        src: &str,
    ) -> Result<(), String> {
        if !Self::uses(class, field, name, src).is_empty() {
            return Err(format!("ExternalResource {name} is referenced elsewhere"));
        }
        let body = field
            .child_by_field_name("declarator")
            .and_then(|d| d.child_by_field_name("value"))
            .filter(|v| v.kind() == "object_creation_expression")
            .and_then(|v| {
                let mut c = v.walk();
                v.named_children(&mut c).find(|n| n.kind() == "class_body")
            })
            .ok_or("ExternalResource is not an anonymous subclass")?;
        let fixtures = if is_class_rule {
            ["BeforeClass", "AfterClass"]
        } else {
            ["Before", "After"]
        };
        let has_fixture = |wanted: &str| {
            let mut found = false;
            java_syntax::walk(class, |n| {
                found |= matches!(n.kind(), "marker_annotation" | "annotation")
                    && simple(annotation_name(n, src)) == wanted;
            });
            found
        };
        let mut c = body.walk();
        let mut methods = Vec::new();
        for m in body.named_children(&mut c) {
            let which = field_text(m, "name", src);
            let params = m
                .child_by_field_name("parameters")
                .map_or(1, |p| p.named_child_count());
            let (annotation, other) = match (m.kind(), which, params) {
                ("method_declaration", "before", 0) => (
                    if is_class_rule {
                        "BeforeAll"
                    } else {
                        "BeforeEach"
                    },
                    fixtures[0],
                ),
                ("method_declaration", "after", 0) => (
                    if is_class_rule {
                        "AfterAll"
                    } else {
                        "AfterEach"
                    },
                    fixtures[1],
                ),
                _ => return Err("ExternalResource with members other than before()/after()".into()),
            };
            if has_fixture(other) {
                return Err(format!(
                    "{name} would run in a different order around @{other}"
                ));
            }
            let method_body = m.child_by_field_name("body").ok_or("method without body")?;
            let throws = src[m
                .child_by_field_name("parameters")
                .map_or(0, |p| p.end_byte())
                ..method_body.start_byte()]
                .trim();
            methods.push((annotation, which, throws.to_string(), method_body));
        }
        let eol = line_ending(src);
        let indent = indent_at(src, field.start_byte());
        let stat = if is_class_rule { "static " } else { "" };
        let mut out = Vec::new();
        for (annotation, which, throws, method_body) in methods {
            let body_text = reindent(
                text(method_body, src),
                indent_at(src, method_body.start_byte()),
                indent,
            );
            let throws = if throws.is_empty() {
                String::new()
            } else {
                format!(" {throws}")
            };
            let method = format!("{name}{}{}", which[..1].to_uppercase(), &which[1..]);
            out.push(format!(
                "@{annotation}{eol}{indent}{stat}void {method}(){throws} {body_text}"
            ));
            self.imports_needed
                .push(format!("org.junit.jupiter.api.{annotation}"));
        }
        self.edits.push(Edit::replace(
            field.byte_range(),
            out.join(&format!("{eol}{eol}{indent}")),
        ));
        self.remove_import("org.junit.rules.ExternalResource");
        self.changes
            .push("ExternalResource rule -> lifecycle methods".into());
        Ok(())
    }

    /// `@ClassRule SpringClassRule` / `@Rule SpringMethodRule`: what they did (load the
    /// context, inject, run Spring's test listeners) is `SpringExtension`'s, which a Boot
    /// test annotation already registers.
    fn spring_rule(
        &mut self,
        class: Node,
        field: Node,
        name: &str,
        src: &str,
    ) -> Result<(), String> {
        if !Self::uses(class, field, name, src).is_empty() {
            return Err(format!("the Spring rule {name} is referenced elsewhere"));
        }
        self.edits.push(removal(src, field));
        for r in SPRING_RULES {
            self.remove_import(r);
        }
        if under_boot_test(class, src) {
            self.changes.push(
                "SpringClassRule/SpringMethodRule removed (the Boot test annotation extends with Spring)"
                    .into(),
            );
        } else if !self.spring_extension {
            self.extend_class(
                class,
                "SpringExtension",
                "org.springframework.test.context.junit.jupiter.SpringExtension",
                src,
            );
            self.changes
                .push("SpringClassRule/SpringMethodRule -> @ExtendWith(SpringExtension)".into());
        }
        self.spring_extension = true;
        Ok(())
    }

    /// `@Rule OutputCaptureRule output` -> `@ExtendWith(OutputCaptureExtension.class)` on the
    /// class and a `CapturedOutput output` parameter on each test or fixture method that
    /// reads it (through `CapturedOutput`'s methods, or as `assertThat(output)`'s
    /// `CharSequence`), Boot's documented JUnit 5 form. `expect(matcher)`, checked after the
    /// test, has no parameter form: such a file stays on JUnit 4.
    fn output_capture(
        &mut self,
        class: Node,
        field: Node,
        name: &str,
        src: &str,
    ) -> Result<(), String> {
        let mut methods: Vec<Node> = Vec::new();
        for u in Self::uses(class, field, name, src) {
            let parent = u.parent();
            let read = parent.is_some_and(|p| {
                if p.kind() == "method_invocation" && p.child_by_field_name("object") == Some(u) {
                    CAPTURED_OUTPUT_METHODS.contains(&field_text(p, "name", src))
                } else {
                    p.kind() == "argument_list"
                        && p.named_child_count() == 1
                        && p.parent().is_some_and(|call| {
                            call.kind() == "method_invocation"
                                && field_text(call, "name", src) == "assertThat"
                        })
                }
            });
            if !read {
                return Err(format!(
                    "OutputCaptureRule {name} is used other than as a CapturedOutput"
                ));
            }
            let m = junit_method_around(u, src)
                .ok_or_else(|| format!("{name} is read in a helper method"))?;
            if !methods.iter().any(|x| x.id() == m.id()) {
                methods.push(m);
            }
        }
        self.add_parameter(&methods, &format!("CapturedOutput {name}"), None)?;
        self.edits.push(removal(src, field));
        self.extend_class(
            class,
            "OutputCaptureExtension",
            "org.springframework.boot.test.system.OutputCaptureExtension",
            src,
        );
        self.imports_needed
            .push("org.springframework.boot.test.system.CapturedOutput".into());
        self.remove_import(OUTPUT_CAPTURE_RULE);
        self.changes.push(
            "@Rule OutputCaptureRule -> OutputCaptureExtension + CapturedOutput parameter".into(),
        );
        Ok(())
    }

    /// `param` declared last in each method's parameters, where Jupiter resolves it; with
    /// `alone`, a method that already takes parameters is refused with that reason.
    fn add_parameter(
        &mut self,
        methods: &[Node],
        param: &str,
        alone: Option<&str>,
    ) -> Result<(), String> {
        for m in methods {
            let params = m
                .child_by_field_name("parameters")
                .ok_or("method without parameters")?;
            let sep = match (params.named_child_count(), alone) {
                (0, _) => "",
                (_, Some(reason)) => return Err(reason.into()),
                (_, None) => ", ",
            };
            self.edits
                .push(Edit::insert(params.end_byte() - 1, format!("{sep}{param}")));
        }
        Ok(())
    }

    /// `@ExtendWith(X.class)` written above the class.
    fn extend_class(&mut self, class: Node, extension: &str, import: &str, src: &str) {
        let indent = indent_at(src, class.start_byte());
        self.edits.push(Edit::insert(
            class.start_byte(),
            format!("@ExtendWith({extension}.class){}{indent}", line_ending(src)),
        ));
        self.imports_needed.extend([
            "org.junit.jupiter.api.extension.ExtendWith".into(),
            import.into(),
        ]);
    }

    /// `@Rule TestName name` -> a `TestInfo testInfo` parameter on each test or fixture
    /// method that asks `name.getMethodName()`.
    fn test_name(&mut self, class: Node, field: Node, name: &str, src: &str) -> Result<(), String> {
        let mut methods: Vec<Node> = Vec::new();
        for u in Self::uses(class, field, name, src) {
            let call = u
                .parent()
                .filter(|p| {
                    p.kind() == "method_invocation"
                        && field_text(*p, "name", src) == "getMethodName"
                })
                .ok_or_else(|| {
                    format!("TestName {name} is used other than as {name}.getMethodName()")
                })?;
            let m = junit_method_around(call, src)
                .ok_or_else(|| format!("{name}.getMethodName() in a helper method"))?;
            self.edits.push(Edit::replace(
                call.byte_range(),
                "testInfo.getTestMethod().get().getName()",
            ));
            if !methods.iter().any(|x| x.id() == m.id()) {
                methods.push(m);
            }
        }
        self.add_parameter(
            &methods,
            "TestInfo testInfo",
            Some("a method using TestName already takes parameters"),
        )?;
        self.edits.push(removal(src, field));
        self.imports_needed
            .push("org.junit.jupiter.api.TestInfo".into());
        self.remove_import("org.junit.rules.TestName");
        self.changes
            .push("@Rule TestName -> TestInfo parameter".into());
        Ok(())
    }

    fn timeout_rule(
        &mut self,
        class: Node,
        field: Node,
        init: &str,
        src: &str,
    ) -> Result<(), String> {
        let inner = |prefix: &str| {
            init.strip_prefix(prefix)
                .and_then(|r| r.strip_suffix(')'))
                .map(str::trim)
        };
        let (value, unit) = if let Some(v) = inner("Timeout.seconds(") {
            (v.to_string(), "SECONDS".to_string())
        } else if let Some(v) =
            inner("Timeout.millis(").or_else(|| inner("new Timeout(").filter(|v| !v.contains(',')))
        {
            (v.to_string(), "MILLISECONDS".to_string())
        } else if let Some(v) = inner("new Timeout(") {
            let (n, u) = v.split_once(',').ok_or("Timeout rule form")?;
            let u = u.trim().trim_start_matches("TimeUnit.");
            (n.trim().to_string(), u.to_string())
        } else {
            return Err(format!(
                "Timeout rule initialised as {init} is not recognised"
            ));
        };
        self.edits.push(removal(src, field));
        let indent = indent_at(src, class.start_byte());
        self.edits.push(Edit::insert(
            class.start_byte(),
            format!(
                "@Timeout(value = {value}, unit = TimeUnit.{unit}){}{indent}",
                line_ending(src)
            ),
        ));
        self.imports_needed.extend([
            "org.junit.jupiter.api.Timeout".into(),
            "java.util.concurrent.TimeUnit".into(),
        ]);
        self.remove_import("org.junit.rules.Timeout");
        self.changes
            .push("@Rule Timeout -> class-level @Timeout".into());
        Ok(())
    }

    fn expected_exception(
        &mut self,
        class: Node,
        field: Node,
        name: &str,
        src: &str,
    ) -> Result<(), String> {
        let uses = Self::uses(class, field, name, src);
        let mut methods: Vec<Node> = Vec::new();
        for u in &uses {
            let stmt = u
                .parent()
                .filter(|p| p.kind() == "method_invocation")
                .and_then(|p| p.parent())
                .filter(|s| s.kind() == "expression_statement")
                .ok_or_else(|| {
                    format!("ExpectedException {name} is used other than in a statement")
                })?;
            let method = stmt
                .parent()
                .filter(|b| b.kind() == "block")
                .and_then(|b| b.parent())
                .filter(|m| m.kind() == "method_declaration")
                .ok_or_else(|| {
                    format!("{name}.expect… must be a statement of the test method body")
                })?;
            if !methods.iter().any(|m| m.id() == method.id()) {
                methods.push(method);
            }
        }
        for m in methods {
            self.expect_in_method(m, name, src)?;
        }
        self.edits.push(removal(src, field));
        self.remove_import("org.junit.rules.ExpectedException");
        self.changes
            .push("@Rule ExpectedException -> assertThrows".into());
        Ok(())
    }

    fn expect_in_method(&mut self, method: Node, name: &str, src: &str) -> Result<(), String> {
        let body = method
            .child_by_field_name("body")
            .ok_or("method without body")?;
        let mut c = body.walk();
        let stmts: Vec<Node> = body
            .named_children(&mut c)
            .filter(|n| n.kind() != "line_comment" && n.kind() != "block_comment")
            .collect();
        let is_expect = |s: &Node| {
            s.kind() == "expression_statement"
                && s.named_child(0).is_some_and(|call| {
                    call.kind() == "method_invocation"
                        && call
                            .child_by_field_name("object")
                            .is_some_and(|o| text(o, src) == name)
                })
        };
        let first = stmts.iter().position(is_expect).ok_or("no expectation")?;
        let last = stmts.iter().rposition(is_expect).ok_or("no expectation")?;
        if !stmts[first..=last].iter().all(is_expect) {
            return Err(format!(
                "{name}.expect… calls are interleaved with other statements"
            ));
        }
        if last + 1 == stmts.len() {
            return Err(format!(
                "{name}.expect… is the last statement: nothing to wrap"
            ));
        }
        let mut exception = "Throwable".to_string();
        let mut checks = Vec::new();
        for s in &stmts[first..=last] {
            let call = s.named_child(0).ok_or("empty statement")?;
            let what = field_text(call, "name", src);
            let args = call
                .child_by_field_name("arguments")
                .ok_or("call without arguments")?;
            let arg = args.named_child(0).ok_or("expectation without argument")?;
            let matched_type = (arg.kind() == "method_invocation")
                .then(|| crate::analyze::test_checks::type_matcher(arg, src))
                .flatten();
            match (what, arg.kind()) {
                ("expect", "class_literal") => {
                    exception = arg
                        .named_child(0)
                        .map_or("Throwable", |t| text(t, src))
                        .to_string();
                }
                // `expect(isA(X.class))` is `expect(X.class)`: X as written.
                ("expect", _) if matched_type.is_some() => {
                    exception = arg
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .and_then(|literal| literal.named_child(0))
                        .map_or("Throwable", |t| text(t, src))
                        .to_string();
                }
                // `expectCause(isA(X.class))`: Hamcrest's typed matcher would not accept
                // the Throwable getCause() returns; Jupiter checks the type itself.
                ("expectCause", _) if matched_type.is_some() => {
                    let written = arg
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .map_or("Throwable.class", |literal| text(literal, src));
                    checks.push(format!("assertInstanceOf({written}, thrown.getCause());"));
                    self.imports_needed
                        .push("static org.junit.jupiter.api.Assertions.assertInstanceOf".into());
                }
                ("expect", _) | ("expectCause", _) => {
                    let subject = if what == "expect" {
                        "thrown"
                    } else {
                        "thrown.getCause()"
                    };
                    checks.push(format!("assertThat({subject}, {});", text(arg, src)));
                    self.imports_needed
                        .push("static org.hamcrest.MatcherAssert.assertThat".into());
                }
                ("expectMessage", "string_literal") => {
                    checks.push(format!(
                        "assertTrue(thrown.getMessage().contains({}));",
                        text(arg, src)
                    ));
                    self.imports_needed
                        .push("static org.junit.jupiter.api.Assertions.assertTrue".into());
                }
                ("expectMessage", _) => {
                    checks.push(format!(
                        "assertThat(thrown.getMessage(), {});",
                        text(arg, src)
                    ));
                    self.imports_needed
                        .push("static org.hamcrest.MatcherAssert.assertThat".into());
                }
                _ => return Err(format!("{name}.{what}(..) has no direct assertThrows form")),
            }
        }
        let outside_expectations = stmts
            .iter()
            .enumerate()
            .filter(|(i, _)| !(first..=last).contains(i))
            .any(|(_, st)| {
                let mut clash = false;
                java_syntax::walk(*st, |n| {
                    clash |= n.kind() == "identifier" && text(n, src) == "thrown"
                });
                clash
            });
        if outside_expectations && !checks.is_empty() {
            return Err("a local named `thrown` would clash with the captured exception".into());
        }
        let eol = line_ending(src);
        let indent = indent_at(src, stmts[first].start_byte()).to_string();
        let close = indent_at(src, body.end_byte() - 1);
        let unit = indent
            .strip_prefix(close)
            .filter(|u| !u.is_empty())
            .unwrap_or("    ")
            .to_string();
        let head = if checks.is_empty() {
            format!("assertThrows({exception}.class, () -> {{")
        } else {
            format!("{exception} thrown = assertThrows({exception}.class, () -> {{")
        };
        let rest_start = stmts[last + 1].start_byte();
        self.edits.push(Edit::replace(
            stmts[first].start_byte()..rest_start,
            format!("{head}{eol}{indent}{unit}"),
        ));
        let rest_end = stmts[stmts.len() - 1].end_byte();
        for (i, _) in src[rest_start..rest_end].match_indices('\n') {
            let at = rest_start + i + 1;
            if !src[at..].starts_with(['\n', '\r']) {
                self.edits.push(Edit::insert(at, unit.clone()));
            }
        }
        let mut tail = format!("{eol}{indent}}});");
        for check in &checks {
            tail.push_str(&format!("{eol}{indent}{check}"));
        }
        self.edits.push(Edit::insert(rest_end, tail));
        self.imports_needed
            .push("static org.junit.jupiter.api.Assertions.assertThrows".into());
        Ok(())
    }
}
