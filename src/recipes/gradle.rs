//! Recipe `gradle-build`: the build-side changes for Gradle scripts (Groovy and Kotlin
//! DSL), as byte-range edits of the literal forms [`crate::analyze::gradle`] reads: Java
//! level, JUnit Platform and Jupiter dependencies, moved coordinates (jakarta, Spring Boot
//! 3, versions that break on the target) and the Spring Boot plugin. Gradle is not run
//! here, so nothing is validated by a build; the journal says so.

use std::sync::LazyLock;

use regex::Regex;

use crate::analyze::gradle::{LEVEL, release};
use crate::analyze::pom::version_lt;
use crate::edit::{self, Edit, line_ending};

use super::FileResult;
use super::coordinates::Move;
use super::dependencies::JunitMode;

/// What the other recipes decided, for the build scripts.
pub struct Inputs<'a> {
    pub target: u32,
    pub jupiter: &'a str,
    /// `None` when the build does not declare JUnit 4.
    pub junit: Option<JunitMode>,
    /// Coordinates to move (jakarta, Spring Boot 3 artifacts, minimum versions).
    pub moves: &'a [Move],
    /// Spring Boot plugin release to move to (Boot 3), if any.
    pub spring_boot: Option<&'a str>,
}

static COORDINATES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(["'])([\w.\-]+):([\w.\-]+)(?::([\w.\-]+))?(["'])"#).expect("valid")
});

static PLUGIN_VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"id\s*\(?\s*["'](org\.springframework\.boot|io\.spring\.dependency-management)["']\s*\)?\s*version\s*\(?\s*["'](?P<v>[^"']+)["']"#)
        .expect("valid")
});

/// Oldest dependency-management plugin that supports Boot 3.
const DEPENDENCY_MANAGEMENT_FOR_BOOT_3: &str = "1.1.6";

/// Whether byte `at` sits in a `//` comment (block comments are rare in build scripts).
fn in_line_comment(src: &str, at: usize) -> bool {
    let line_start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    src[line_start..at].contains("//")
}

pub fn script(src: &str, inputs: &Inputs) -> FileResult {
    let mut result = FileResult::default();
    let mut edits = Vec::new();
    for c in LEVEL
        .captures_iter(src)
        .filter(|c| !in_line_comment(src, c.get(0).expect("match").start()))
    {
        let Some(v) = ["v1", "v2", "v3"].iter().find_map(|k| c.name(k)) else {
            continue;
        };
        if release(v.as_str()).is_some_and(|r| r < inputs.target) {
            edits.push(Edit::replace(v.range(), inputs.target.to_string()));
            result
                .changes
                .push(format!("Java level {} -> {}", v.as_str(), inputs.target));
        }
    }
    for c in COORDINATES
        .captures_iter(src)
        .filter(|c| !in_line_comment(src, c.get(0).expect("match").start()))
    {
        let ga = format!("{}:{}", &c[2], &c[3]);
        if ga == "junit:junit" {
            continue;
        }
        let Some(m) = inputs.moves.iter().find(|m| m.from == ga) else {
            continue;
        };
        let mut to = m.to.rsplitn(2, ':');
        let (tv, tga) = (to.next().unwrap_or(""), to.next().unwrap_or(""));
        let version = c.get(4).map(|v| v.as_str());
        let new_version = match version {
            Some(v) if version_lt(v, tv) => Some(tv),
            other => other,
        };
        let new = match new_version {
            Some(v) => format!("{tga}:{v}"),
            None => tga.to_string(),
        };
        let old = &src[c.get(2).expect("group").start()..c.get(5).expect("quote").start()];
        if new != old {
            result.changes.push(format!("{old} -> {new}"));
            edits.push(Edit::replace(
                c.get(2).expect("group").start()..c.get(5).expect("quote").start(),
                new,
            ));
        }
    }
    if let Some(boot) = inputs.spring_boot {
        for c in PLUGIN_VERSION.captures_iter(src) {
            let v = c.name("v").expect("group");
            let want = if &c[1] == "org.springframework.boot" {
                boot
            } else {
                DEPENDENCY_MANAGEMENT_FOR_BOOT_3
            };
            if version_lt(v.as_str(), want) {
                result
                    .changes
                    .push(format!("plugin {} {} -> {want}", &c[1], v.as_str()));
                edits.push(Edit::replace(v.range(), want));
            }
        }
    }
    if let Some(mode) = inputs.junit {
        junit(src, inputs.jupiter, mode, &mut edits, &mut result);
    }
    if !edits.is_empty() {
        match edit::apply(src, &edits) {
            Ok(out) => result.text = Some(out),
            Err(e) => result
                .findings
                .push(format!("conflicting script edits: {e}")),
        }
    }
    result
}

/// `junit:junit` lines: replaced by Jupiter (or joined by Jupiter and the vintage engine),
/// the launcher added, and the test task moved to the JUnit Platform.
fn junit(
    src: &str,
    jupiter: &str,
    mode: JunitMode,
    edits: &mut Vec<Edit>,
    result: &mut FileResult,
) {
    static LINE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)^(?P<indent>[ \t]*)(?P<conf>\w+)(?P<open>\s*\(?\s*)["']junit:junit(?::[^"']*)?["'](?P<close>\s*\)?)[ \t]*$"#)
            .expect("valid")
    });
    let Some(c) = LINE.captures(src) else {
        return;
    };
    let eol = line_ending(src);
    let indent = &c["indent"];
    let conf = &c["conf"];
    let quote = if src[c.get(0).expect("m").range()].contains('"') {
        '"'
    } else {
        '\''
    };
    let kotlin_call = c["open"].contains('(');
    let dep = |configuration: &str, gav: &str| {
        if kotlin_call {
            format!("{indent}{configuration}({quote}{gav}{quote})")
        } else {
            format!("{indent}{configuration} {quote}{gav}{quote}")
        }
    };
    let platform = jupiter.strip_prefix("5.").map(|rest| format!("1.{rest}"));
    let mut lines = Vec::new();
    if mode == JunitMode::Vintage {
        lines.push(dep(
            conf,
            &format!("org.junit.jupiter:junit-jupiter:{jupiter}"),
        ));
        lines.push(dep(
            "testRuntimeOnly",
            &format!("org.junit.vintage:junit-vintage-engine:{jupiter}"),
        ));
    }
    if let Some(p) = &platform {
        lines.push(dep(
            "testRuntimeOnly",
            &format!("org.junit.platform:junit-platform-launcher:{p}"),
        ));
    }
    let whole = c.get(0).expect("match");
    match mode {
        JunitMode::Replace => {
            let mut text = dep(conf, &format!("org.junit.jupiter:junit-jupiter:{jupiter}"));
            for l in &lines {
                text.push_str(eol);
                text.push_str(l);
            }
            edits.push(Edit::replace(whole.range(), text));
            result
                .changes
                .push("junit:junit -> org.junit.jupiter:junit-jupiter".into());
        }
        JunitMode::Vintage => {
            let text: String = lines.iter().map(|l| format!("{eol}{l}")).collect();
            edits.push(Edit::insert(whole.end(), text));
            result
                .changes
                .push("added junit-jupiter and junit-vintage-engine beside junit:junit".into());
        }
    }
    if src.contains("useJUnitPlatform") {
        return;
    }
    static TEST_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)^[ \t]*(?:test|tasks\.test|tasks\.named<Test>\("test"\)|tasks\.withType<Test>\(?\)?|tasks\.withType\(Test\))\s*\{"#)
            .expect("valid")
    });
    match TEST_BLOCK.find(src) {
        Some(m) => {
            let block_indent: String = m
                .as_str()
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            edits.push(Edit::insert(
                m.end(),
                format!("{eol}{block_indent}    useJUnitPlatform()"),
            ));
        }
        None => {
            let head = if kotlin_call { "tasks.test" } else { "test" };
            let sep = if src.ends_with('\n') { "" } else { eol };
            edits.push(Edit::insert(
                src.len(),
                format!("{sep}{eol}{head} {{{eol}    useJUnitPlatform(){eol}}}{eol}"),
            ));
        }
    }
    result
        .changes
        .push("test task runs on the JUnit Platform".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs<'a>(
        moves: &'a [Move],
        junit: Option<JunitMode>,
        boot: Option<&'a str>,
    ) -> Inputs<'a> {
        Inputs {
            target: 17,
            jupiter: "5.11.4",
            junit,
            moves,
            spring_boot: boot,
        }
    }

    #[test]
    fn groovy_level_junit_and_coordinates() {
        let src = "plugins {\n    id 'java'\n    id 'org.springframework.boot' version '2.7.18'\n    id 'io.spring.dependency-management' version '1.0.15.RELEASE'\n}\n\nsourceCompatibility = '1.8'\n\ndependencies {\n    implementation 'javax.servlet:javax.servlet-api:4.0.1'\n    testImplementation 'junit:junit:4.13.2'\n}\n\ntest {\n    maxParallelForks = 2\n}\n";
        let moves = [Move {
            from: "javax.servlet:javax.servlet-api".into(),
            to: "jakarta.servlet:jakarta.servlet-api:6.0.0".into(),
            below: None,
        }];
        let r = script(
            src,
            &inputs(&moves, Some(JunitMode::Replace), Some("3.3.5")),
        );
        assert_eq!(
            r.text.as_deref(),
            Some(
                "plugins {\n    id 'java'\n    id 'org.springframework.boot' version '3.3.5'\n    id 'io.spring.dependency-management' version '1.1.6'\n}\n\nsourceCompatibility = '17'\n\ndependencies {\n    implementation 'jakarta.servlet:jakarta.servlet-api:6.0.0'\n    testImplementation 'org.junit.jupiter:junit-jupiter:5.11.4'\n    testRuntimeOnly 'org.junit.platform:junit-platform-launcher:1.11.4'\n}\n\ntest {\n    useJUnitPlatform()\n    maxParallelForks = 2\n}\n"
            )
        );
    }

    #[test]
    fn kotlin_toolchain_vintage_and_a_new_test_block() {
        let src = "java {\n    toolchain {\n        languageVersion.set(JavaLanguageVersion.of(11))\n    }\n}\ndependencies {\n    testImplementation(\"junit:junit:4.13.2\")\n}\n";
        let r = script(src, &inputs(&[], Some(JunitMode::Vintage), None));
        assert_eq!(
            r.text.as_deref(),
            Some(
                "java {\n    toolchain {\n        languageVersion.set(JavaLanguageVersion.of(17))\n    }\n}\ndependencies {\n    testImplementation(\"junit:junit:4.13.2\")\n    testImplementation(\"org.junit.jupiter:junit-jupiter:5.11.4\")\n    testRuntimeOnly(\"org.junit.vintage:junit-vintage-engine:5.11.4\")\n    testRuntimeOnly(\"org.junit.platform:junit-platform-launcher:1.11.4\")\n}\n\ntasks.test {\n    useJUnitPlatform()\n}\n"
            )
        );
    }

    #[test]
    fn never_downgrades_and_keeps_versionless_coordinates() {
        let src = "sourceCompatibility = JavaVersion.VERSION_21\ndependencies {\n    compileOnly 'org.projectlombok:lombok'\n    implementation 'org.projectlombok:lombok:1.18.34'\n}\n";
        let moves = [Move {
            from: "org.projectlombok:lombok".into(),
            to: "org.projectlombok:lombok:1.18.30".into(),
            below: None,
        }];
        let r = script(src, &inputs(&moves, None, None));
        assert_eq!(r.text, None, "{:?}", r.changes);
    }
}
