//! Before/after pairs for the JUnit 4 -> Jupiter recipe, plus idempotency, must-not-touch
//! and test invariance (every rewrite leaves what each test checks unchanged).

use std::path::Path;

use uplift::analyze::test_checks;
use uplift::recipes::junit5::{FileOutcome, Surroundings, migrate, migrate_in};

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
