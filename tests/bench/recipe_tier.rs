//! Recipe-tier throughput: a generated reactor of 10,000 Java files (about 1M lines),
//! analyzed (each file parsed once) and migrated (each JUnit 4 file parsed once more by the
//! recipe, files in parallel), then written. Run with `cargo bench --bench recipe_tier`;
//! `UPLIFT_BENCH_FILES` changes the size.
//!
//! Then files that grow (generated code, or a hostile repository): 1,000 to 8,000
//! statements, each a deprecated JDK call a recipe rewrites, and a JUnit 3 `TestCase` of as
//! many test methods. The time per statement must stay flat as the files double; a rule, type
//! lookup or edit that scans the file per match shows up here as a time that quadruples.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use uplift::config::Config;
use uplift::pipeline::{execute, plan};
use uplift::recipes::registry::Registry;

fn main_class(i: usize) -> String {
    let mut s = format!(
        "package com.bench.p{};\n\nimport java.util.List;\nimport java.util.ArrayList;\n\n/** Generated class {i}. */\npublic class C{i} {{\n",
        i % 100
    );
    for m in 0..16 {
        let _ = write!(
            s,
            "    public int m{m}(int a, int b) {{\n        List<Integer> l = new ArrayList<>();\n        for (int k = 0; k < a; k++) {{\n            l.add(k * b + {m});\n        }}\n        return l.size();\n    }}\n\n"
        );
    }
    s.push_str("}\n");
    s
}

fn test_class(i: usize) -> String {
    let mut s = format!(
        "package com.bench.p{};\n\nimport static org.junit.Assert.assertEquals;\nimport static org.junit.Assert.assertTrue;\nimport org.junit.Before;\nimport org.junit.Test;\n\npublic class C{i}Test {{\n    private C{i} c;\n\n    @Before\n    public void setUp() {{\n        c = new C{i}();\n    }}\n\n",
        i % 100
    );
    for m in 0..12 {
        let _ = write!(
            s,
            "    @Test\n    public void m{m}Works() {{\n        int r = c.m{m}(3, 4);\n        assertEquals(\"size of m{m}\", 3, r);\n        assertTrue(\"positive\", r > 0);\n    }}\n\n"
        );
    }
    s.push_str("    @Test(expected = ArithmeticException.class)\n    public void divides() {\n        int z = 0;\n        int x = 1 / z;\n    }\n}\n");
    s
}

fn generate(root: &Path, files: usize) -> (usize, usize) {
    std::fs::write(root.join("pom.xml"), "<project>\n  <artifactId>bench</artifactId>\n  <properties>\n    <maven.compiler.source>1.8</maven.compiler.source>\n  </properties>\n  <dependencies>\n    <dependency>\n      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n      <version>4.13.2</version>\n    </dependency>\n  </dependencies>\n</project>\n").unwrap();
    let (mut bytes, mut lines) = (0, 0);
    for i in 0..files / 2 {
        for (tree, name, text) in [
            ("main", format!("C{i}.java"), main_class(i)),
            ("test", format!("C{i}Test.java"), test_class(i)),
        ] {
            let dir = root.join(format!("src/{tree}/java/com/bench/p{}", i % 100));
            std::fs::create_dir_all(&dir).unwrap();
            bytes += text.len();
            lines += text.lines().count();
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    (bytes, lines)
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// A project of two big files: a class holding `statements` deprecated JDK calls in
/// methods of 500 statements, and a JUnit 3 `TestCase` of as many test methods.
fn generate_big_files(root: &Path, statements: usize) {
    std::fs::write(root.join("pom.xml"), "<project>\n  <artifactId>big</artifactId>\n  <properties>\n    <maven.compiler.source>1.8</maven.compiler.source>\n  </properties>\n  <dependencies>\n    <dependency>\n      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n      <version>3.8.2</version>\n    </dependency>\n  </dependencies>\n</project>\n").unwrap();
    let calls = [
        "Integer a{i} = new Integer({i});",
        "String b{i} = URLEncoder.encode(s);",
        "boolean c{i} = Character.isSpace(ch);",
        "Long d{i} = new Long({i}L);",
        "BigDecimal e{i} = x.setScale(2, BigDecimal.ROUND_HALF_UP);",
        "Object f{i} = new Double(1.5);",
    ];
    let mut s = String::from(
        "package p;\n\nimport java.math.BigDecimal;\nimport java.net.URLEncoder;\n\npublic class Big {\n",
    );
    for i in 0..statements {
        if i % 500 == 0 {
            let _ = writeln!(s, "  void m{i}(String s, char ch, BigDecimal x) {{");
        }
        let _ = writeln!(
            s,
            "    {}",
            calls[i % calls.len()].replace("{i}", &i.to_string())
        );
        if i % 500 == 499 || i + 1 == statements {
            s.push_str("  }\n");
        }
    }
    s.push_str("}\n");
    let dir = root.join("src/main/java/p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Big.java"), s).unwrap();

    let mut t = String::from(
        "package p;\n\nimport junit.framework.TestCase;\n\npublic class BigTest extends TestCase {\n    private int x;\n\n    protected void setUp() {\n        x = 1;\n    }\n",
    );
    for i in 0..statements {
        let _ = write!(
            t,
            "\n    public void test{i}() {{\n        assertEquals(\"m{i}\", {i}, x * {i});\n        assertTrue(\"positive\", x > 0);\n    }}\n"
        );
    }
    t.push_str("}\n");
    let dir = root.join("src/test/java/p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("BigTest.java"), t).unwrap();
}

/// What one migration of a generated tree cost.
struct Timings {
    analyze_s: f64,
    execute_s: f64,
    write_s: f64,
    tasks: usize,
    done: usize,
    written: usize,
}

/// Analyzes, plans and migrates `root` (in memory), then writes the result.
fn migrate(root: &Path, config: &Config) -> Timings {
    let t = Instant::now();
    let fp = uplift::analyze::analyze(root, &[]).unwrap();
    let analyze_s = t.elapsed().as_secs_f64();
    let registry = Registry::load(None, &config.recipes).unwrap();
    let tasks = plan::plan(&fp, config, &registry, None).tasks;
    let inputs = execute::Inputs {
        root,
        fingerprint: &fp,
        config,
        registry: &registry,
        kept: &Default::default(),
    };
    let t = Instant::now();
    let (overlay, records) = execute::execute(&inputs, &tasks, |_| {});
    let execute_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let written = overlay.commit().unwrap().len();
    Timings {
        analyze_s,
        execute_s,
        write_s: t.elapsed().as_secs_f64(),
        tasks: records.len(),
        done: records.iter().filter(|r| r.status.is_done()).count(),
        written,
    }
}

fn big_file_scaling(config: &Config) {
    for statements in [1000, 2000, 4000, 8000] {
        let dir = tempfile::tempdir().unwrap();
        generate_big_files(dir.path(), statements);
        let t = migrate(dir.path(), config);
        assert_eq!(t.written, 3, "both files and the pom are rewritten");
        println!(
            "two files of {statements} statements and test methods: {:.2} s ({:.0} µs per statement)",
            t.execute_s,
            t.execute_s * 1e6 / statements as f64
        );
    }
}

fn main() {
    let files: usize = std::env::var("UPLIFT_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (bytes, lines) = generate(root, files);
    let mb = bytes as f64 / 1e6;
    println!("tree: {files} files, {lines} lines, {mb:.1} MB");

    let config = Config {
        target: 17,
        ..Config::default()
    };
    let Timings {
        analyze_s,
        execute_s,
        write_s,
        tasks,
        done,
        written,
    } = migrate(root, &config);
    assert_eq!(
        written,
        files / 2 + 1,
        "every test file and the pom are rewritten"
    );
    let total = analyze_s + execute_s + write_s;
    println!(
        "analyze: {analyze_s:.2} s ({:.0} files/s, {:.1} MB/s)",
        files as f64 / analyze_s,
        mb / analyze_s
    );
    println!(
        "execute: {execute_s:.2} s ({tasks} tasks, {done} done; {:.0} test files/s)",
        (files / 2) as f64 / execute_s
    );
    println!("write:   {write_s:.2} s ({written} files)");
    println!(
        "total:   {total:.2} s ({:.0} files/s, {:.1} MB/s), peak RSS {:.0} MB",
        files as f64 / total,
        mb / total,
        peak_rss_mb()
    );
    big_file_scaling(&config);
}
