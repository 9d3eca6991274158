//! Before/after pairs for the JUnit 4 -> Jupiter recipe, plus idempotency, must-not-touch
//! and test invariance (every rewrite leaves what each test checks unchanged).

use std::path::Path;
use std::process::Command;

use uplift::analyze::test_checks;
use uplift::recipes::junit5::custom_rules::Source;
use uplift::recipes::junit5::{FileOutcome, Surroundings, migrate, migrate_in, migrate_project};

fn rewritten(src: &str) -> String {
    match migrate(src) {
        FileOutcome::Rewritten { text, .. } => {
            assert_eq!(
                migrate(&text),
                FileOutcome::Unchanged,
                "second run must change nothing:\n{text}"
            );
            let checks =
                test_checks::compare(Path::new("T.java"), src, Some(&text), &Default::default());
            assert_eq!(
                checks.differences,
                vec![],
                "the rewrite changes what tests check"
            );
            text
        }
        other => panic!("expected a rewrite, got {other:?}"),
    }
}

#[test]
fn lifecycle_annotations_and_imports() {
    let before = "import org.junit.Before;\nimport org.junit.After;\nimport org.junit.BeforeClass;\nimport org.junit.AfterClass;\nimport org.junit.Ignore;\nimport org.junit.Test;\n\nclass T {\n  @BeforeClass static void a() {}\n  @AfterClass static void b() {}\n  @Before void c() {}\n  @After void d() {}\n  @Ignore @Test void e() {}\n}\n";
    let after = "import org.junit.jupiter.api.BeforeEach;\nimport org.junit.jupiter.api.AfterEach;\nimport org.junit.jupiter.api.BeforeAll;\nimport org.junit.jupiter.api.AfterAll;\nimport org.junit.jupiter.api.Disabled;\nimport org.junit.jupiter.api.Test;\n\nclass T {\n  @BeforeAll static void a() {}\n  @AfterAll static void b() {}\n  @BeforeEach void c() {}\n  @AfterEach void d() {}\n  @Disabled @Test void e() {}\n}\n";
    assert_eq!(rewritten(before), after);
}

#[test]
fn assertion_messages_move_last_except_two_argument_forms() {
    let before = r#"import static org.junit.Assert.*;
import org.junit.Test;
class T {
  @Test void t() {
    String a = "x";
    assertEquals("msg", 1, 2);
    assertEquals(a, "x");
    assertNotEquals("a", "b");
    assertSame("m" + a, a, a);
    assertTrue("cond", true);
    assertNull(null);
    assertEquals(1.0, 2.0, 0.1);
    assertEquals(String.format("%d", 1), 1L, 1L);
    fail("boom");
  }
}
"#;
    let after = r#"import static org.junit.jupiter.api.Assertions.*;
import org.junit.jupiter.api.Test;
class T {
  @Test void t() {
    String a = "x";
    assertEquals(1, 2, "msg");
    assertEquals(a, "x");
    assertNotEquals("a", "b");
    assertSame(a, a, "m" + a);
    assertTrue(true, "cond");
    assertNull(null);
    assertEquals(1.0, 2.0, 0.1);
    assertEquals(1L, 1L, String.format("%d", 1));
    fail("boom");
  }
}
"#;
    assert_eq!(rewritten(before), after);
}

#[test]
fn expected_and_timeout_become_assert_throws_and_timeout() {
    let before = "import org.junit.Test;\n\nclass T {\n    @Test(expected = IllegalStateException.class)\n    public void throwsIt() {\n        Object o = null;\n\n        o.hashCode();\n    }\n\n    @Test(timeout = 250)\n    public void quick() {\n    }\n}\n";
    let after = "import org.junit.jupiter.api.Test;\nimport java.util.concurrent.TimeUnit;\nimport org.junit.jupiter.api.Timeout;\nimport static org.junit.jupiter.api.Assertions.assertThrows;\n\nclass T {\n    @Test\n    public void throwsIt() {\n        assertThrows(IllegalStateException.class, () -> {\n            Object o = null;\n\n            o.hashCode();\n        });\n    }\n\n    @Test\n    @Timeout(value = 250, unit = TimeUnit.MILLISECONDS)\n    public void quick() {\n    }\n}\n";
    assert_eq!(rewritten(before), after);
}

#[test]
fn hamcrest_assert_that_and_assume() {
    let before = "import org.junit.Assert;\nimport org.junit.Assume;\nimport org.junit.Test;\nimport static org.hamcrest.CoreMatchers.is;\nclass T {\n  @Test void t() {\n    Assert.assertThat(1, is(1));\n    Assume.assumeTrue(\"why\", true);\n  }\n}\n";
    let after = "import org.junit.jupiter.api.Assertions;\nimport org.junit.jupiter.api.Assumptions;\nimport org.junit.jupiter.api.Test;\nimport static org.hamcrest.CoreMatchers.is;\nimport org.hamcrest.MatcherAssert;\nclass T {\n  @Test void t() {\n    MatcherAssert.assertThat(1, is(1));\n    Assumptions.assumeTrue(true, \"why\");\n  }\n}\n";
    assert_eq!(rewritten(before), after);
}

#[test]
fn object_array_equals_becomes_assert_array_equals_by_declared_type() {
    let before = "import org.junit.Test;\nimport static org.junit.Assert.assertEquals;\nclass T {\n  @Test void t() {\n    { String x = \"\"; assertEquals(x, x); }\n    String[] x = {};\n    assertEquals(x, new String[0]);\n  }\n}\n";
    let out = rewritten(before);
    assert!(
        out.contains("{ String x = \"\"; assertEquals(x, x); }"),
        "{out}"
    );
    assert!(
        out.contains("assertArrayEquals(x, new String[0]);"),
        "{out}"
    );
    assert!(
        out.contains("import static org.junit.jupiter.api.Assertions.assertArrayEquals;"),
        "{out}"
    );
}

#[test]
fn crlf_comments_and_untouched_lines_survive_byte_for_byte() {
    let before = "// header\r\nimport org.junit.Test;\r\n\r\n/** doc */\r\nclass T {\r\n\t@Test   // odd spacing\r\n\tpublic void t() { int  x = 1 ; }\r\n}\r\n";
    let out = rewritten(before);
    assert_eq!(
        out,
        before.replace(
            "import org.junit.Test;",
            "import org.junit.jupiter.api.Test;"
        )
    );
}

#[test]
fn rules_runners_and_junit3_are_left_on_junit4_with_a_reason() {
    for (src, why) in [
        (
            "import org.junit.Rule;\nimport org.junit.Test;\nimport org.junit.rules.ErrorCollector;\nclass T { @Rule public ErrorCollector c = new ErrorCollector(); @Test public void t() {} }\n",
            "ErrorCollector has no safe Jupiter equivalent",
        ),
        (
            "import org.junit.Test;\nimport org.junit.runner.RunWith;\n@RunWith(X.class) class T { @Test public void t() {} }\n",
            "RunWith",
        ),
        (
            "import junit.framework.Test;\nimport junit.framework.TestCase;\nclass T extends TestCase { public static Test suite() { return null; } public void testA() {} }\n",
            "suite()",
        ),
        (
            "import static org.junit.Assert.assertEquals;\nimport org.junit.Test;\nclass T { @Test public void t(Object a, Object b, Object c) { assertEquals(a, b, c); } }\n",
            "first argument",
        ),
    ] {
        match migrate(src) {
            FileOutcome::LeftOnJunit4 { reason } => {
                assert!(reason.contains(why), "{reason} / {why}")
            }
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn must_not_touch_jupiter_files_other_frameworks_or_broken_files() {
    assert_eq!(
        migrate("import org.junit.jupiter.api.Test;\nclass T { @Test void t() {} }\n"),
        FileOutcome::Unchanged
    );
    assert_eq!(
        migrate("import org.testng.annotations.Test;\nclass T { @Test void t() {} }\n"),
        FileOutcome::Unchanged
    );
    assert!(matches!(
        migrate("import org.junit.Test;\nclass T { @Test void t( { }\n"),
        FileOutcome::SyntaxError { .. }
    ));
}

/// Jupiter calls lifecycle methods reflectively; inside a named module (module-info.java)
/// it may not call a protected one in a package the module does not open, where JUnit 3
/// called it directly. There, and only there, setUp/tearDown become public.
#[test]
fn junit3_lifecycle_methods_become_public_only_on_the_module_path() {
    let src = "import junit.framework.TestCase;\n\npublic class ATest extends TestCase {\n    protected void setUp() throws Exception {\n        super.setUp();\n    }\n\n    public void testIt() {\n        assertTrue(true);\n    }\n}\n";
    let around = Surroundings {
        module_path: true,
        ..Surroundings::default()
    };
    let on_module_path = match migrate_in(src, around) {
        FileOutcome::Rewritten { text, .. } => text,
        other => panic!("{other:?}"),
    };
    assert!(
        on_module_path.contains("@BeforeEach\n    public void setUp() throws Exception {"),
        "{on_module_path}"
    );
    assert!(
        rewritten(src).contains("@BeforeEach\n    protected void setUp() throws Exception {"),
        "{}",
        rewritten(src)
    );
}

/// A Javadoc `@see junit.framework.TestCase#setUp()` is documentation, not a reference: the
/// file converts (corpus: args4j).
#[test]
fn a_junit_name_in_a_comment_does_not_keep_the_file_on_junit4() {
    let src = "import junit.framework.TestCase;\n\npublic class ATest extends TestCase {\n    /** @see junit.framework.TestCase#setUp() */\n    protected void setUp() throws Exception {\n        super.setUp();\n    }\n\n    public void testIt() {\n        assertTrue(true);\n    }\n}\n";
    let out = rewritten(src);
    assert!(out.contains("@BeforeEach"), "{out}");
    assert!(
        out.contains("@see junit.framework.TestCase#setUp()"),
        "{out}"
    );
}

/// A project's own rule classes convert with the tests that register them, and the result
/// compiles and runs the same: each source set is compiled with javac and run with the JUnit
/// Platform console launcher (JUnit 4 through the vintage engine before, Jupiter after;
/// Debian's jars). The tests themselves check the order: a rule's before-work ran once per
/// test (`@Rule`) or once per class (`@ClassRule`, here the same class used both ways),
/// before the test's own fixtures, its after-work only after them.
#[test]
fn project_rule_classes_become_extensions_that_compile_and_run_the_same() {
    let files = [
        (
            "src/test/java/app/CountingRule.java",
            r#"package app;

import org.junit.rules.ExternalResource;

public class CountingRule extends ExternalResource {
    private int befores;
    private int afters;

    @Override
    protected void before() throws Throwable {
        befores++;
    }

    @Override
    protected void after() {
        afters++;
    }

    public int befores() {
        return befores;
    }

    public int afters() {
        return afters;
    }
}
"#,
        ),
        (
            "src/test/java/app/FrozenRule.java",
            r#"package app;

import org.junit.rules.TestRule;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

public class FrozenRule implements TestRule {
    private boolean frozen;

    @Override
    public Statement apply(final Statement base, Description description) {
        return new Statement() {
            @Override
            public void evaluate() throws Throwable {
                frozen = true;
                try {
                    base.evaluate();
                } finally {
                    frozen = false;
                }
            }
        };
    }

    public boolean frozen() {
        return frozen;
    }
}
"#,
        ),
        (
            "src/test/java/app/PerTestTest.java",
            r#"package app;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;

public class PerTestTest {
    @Rule
    public CountingRule counting = new CountingRule();

    @Rule
    public FrozenRule clock = new FrozenRule();

    @Before
    public void rulesRanFirst() {
        assertEquals(1, counting.befores());
        assertTrue(clock.frozen());
    }

    @After
    public void rulesFinishLast() {
        assertEquals(0, counting.afters());
        assertTrue(clock.frozen());
    }

    @Test
    public void one() {
        assertEquals(1, counting.befores());
    }

    @Test
    public void two() {
        assertEquals(1, counting.befores());
    }
}
"#,
        ),
        (
            "src/test/java/app/PerClassTest.java",
            r#"package app;

import static org.junit.Assert.assertEquals;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

public class PerClassTest {
    @ClassRule
    public static CountingRule counting = new CountingRule();

    @BeforeClass
    public static void ruleRanFirst() {
        assertEquals(1, counting.befores());
    }

    @AfterClass
    public static void ruleFinishesLast() {
        assertEquals(0, counting.afters());
    }

    @Test
    public void one() {
        assertEquals(1, counting.befores());
    }

    @Test
    public void two() {
        assertEquals(1, counting.befores());
    }
}
"#,
        ),
    ];
    let sources: Vec<Source> = files
        .iter()
        .map(|(path, text)| Source {
            path: Path::new(path),
            module: 0,
            test_source: true,
            text,
        })
        .collect();
    let after: Vec<(&str, String)> = files
        .iter()
        .zip(migrate_project(&sources))
        .map(|((path, before), outcome)| match outcome {
            FileOutcome::Rewritten { text, .. } => {
                let checks =
                    test_checks::compare(Path::new(path), before, Some(&text), &Default::default());
                assert_eq!(checks.differences, vec![], "{path}");
                assert!(!text.contains("org.junit.Rule"), "{text}");
                (*path, text)
            }
            other => panic!("{path}: {other:?}"),
        })
        .collect();
    let rule = &after[0].1;
    assert!(
        rule.contains(
            "implements BeforeEachCallback, AfterEachCallback, BeforeAllCallback, AfterAllCallback"
        ) && rule.contains("protected void before() throws Exception {"),
        "{rule}"
    );
    let before: Vec<(&str, String)> = files.iter().map(|(p, t)| (*p, t.to_string())).collect();
    let tmp = tempfile::tempdir().unwrap();
    for (name, sources, jars) in [
        ("junit4", &before, &["junit4.jar", "hamcrest-core.jar"][..]),
        (
            "jupiter",
            &after,
            &[
                "junit-jupiter-api.jar",
                "opentest4j.jar",
                "apiguardian-api.jar",
                "junit-platform-commons.jar",
            ][..],
        ),
    ] {
        let dir = tmp.path().join(name);
        let mut paths = Vec::new();
        for (path, text) in sources {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            paths.push(p);
        }
        let classes = dir.join("classes");
        let cp = std::iter::once(classes.clone())
            .chain(jars.iter().map(|j| Path::new("/usr/share/java").join(j)))
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
        let javac = Command::new("javac")
            .args(["-nowarn", "-proc:none", "-d"])
            .arg(&classes)
            .args(["-cp", &cp])
            .args(&paths)
            .output()
            .unwrap();
        assert!(
            javac.status.success(),
            "{name} does not compile:\n{}",
            String::from_utf8_lossy(&javac.stderr)
        );
        let run = Command::new("java")
            .args([
                "-jar",
                "/usr/share/java/junit-platform-console-standalone.jar",
            ])
            .args(["--disable-banner", "--details=tree", "--fail-if-no-tests"])
            .args(["-cp", &cp, "--select-package", "app"])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && out.contains("4 tests successful"),
            "{name}:\n{out}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}
