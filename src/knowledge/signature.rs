//! Error signatures: a compiler or test error with what varies between projects removed
//! (file paths and names, line and column numbers, Maven's markers), so the same mistake
//! in two repositories gets the same signature. Where it happened is not what it is, and
//! whose code it is does not belong in it either: the project's own packages and types are
//! removed (`ProjectNames`), so a signature can key shared knowledge and leave the project
//! in a web search without naming it.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

static MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\[(ERROR|WARNING|INFO)\]\s*").expect("valid"));
static PATH_POSITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:[A-Za-z]:)?[^\s:\[\]]*[/\\]([\w$.-]+\.(?:java|kt|xml|gradle|kts))(?::\[\d+,\d+\]|:\d+(?::\d+)?)?")
        .expect("valid")
});
static STACK_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*at [\w$.<>]+\(.*\)\s*$").expect("valid"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d+\b").expect("valid"));
static SPACE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid"));
/// A (possibly qualified) Java name with an optional `#method` and `:line` (a number, or
/// `N` once normalized).
static NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[\w$][\w$.#]*(?::(?:\d+|N)\b)?").expect("valid"));

/// The packages and top-level type names the project declares.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectNames {
    packages: HashSet<String>,
    types: HashSet<String>,
}

impl ProjectNames {
    pub fn new(
        packages: impl IntoIterator<Item = String>,
        types: impl IntoIterator<Item = String>,
    ) -> Self {
        Self {
            packages: packages.into_iter().filter(|p| !p.is_empty()).collect(),
            types: types.into_iter().filter(|t| !t.is_empty()).collect(),
        }
    }

    /// Whether a name is the project's: in one of its packages, or starting with one of
    /// its types (`SchedulerTest.nextAddsOne`). JDK and library names stay.
    fn owns(&self, name: &str) -> bool {
        let name = name.split([':', '#']).next().unwrap_or(name);
        let segments: Vec<&str> = name.split('.').collect();
        self.types.contains(segments[0])
            || (1..=segments.len()).any(|n| self.packages.contains(&segments[..n].join(".")))
    }

    /// `text` (a signature: one line) without the project's packages and types, with their
    /// members and lines.
    pub fn scrub(&self, text: &str) -> String {
        let out = NAME.replace_all(text, |c: &regex::Captures| {
            if self.owns(&c[0]) {
                String::new()
            } else {
                c[0].to_string()
            }
        });
        SPACE.replace_all(out.trim(), " ").to_string()
    }
}

/// An `at com.x.Y.z(Y.java:12)` line of a stack trace.
fn is_stack_frame(line: &str) -> bool {
    STACK_FRAME.is_match(line)
}

/// The normalized signature of one error (its first lines carry the meaning).
pub fn normalize(error: &str) -> String {
    let lines: Vec<String> = error
        .lines()
        .filter(|l| !is_stack_frame(l))
        .map(|l| MARKER.replace(l, "").to_string())
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .map(|l| {
            let l = PATH_POSITION.replace_all(&l, "");
            let l = NUMBER.replace_all(&l, "N");
            SPACE.replace_all(l.trim(), " ").to_string()
        })
        .collect();
    lines.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_error_in_two_projects_has_one_signature() {
        let a = "[ERROR] /home/ci/shop/src/main/java/com/shop/Order.java:[14,8] cannot find symbol\n  symbol:   class Generated\n  location: package javax.annotation";
        let b = "[ERROR] /tmp/x/app/src/main/java/org/acme/Order.java:[201,3] cannot find symbol\n  symbol:   class Generated\n  location: package javax.annotation";
        assert_eq!(normalize(a), normalize(b));
        assert_eq!(
            normalize(a),
            "cannot find symbol | symbol: class Generated | location: package javax.annotation"
        );
    }

    #[test]
    fn the_projects_own_names_leave_and_library_names_stay() {
        let names = ProjectNames::new(
            ["com.acme.sched".to_string()],
            ["SchedulerTest".to_string(), "Clock".to_string()],
        );
        assert_eq!(
            names.scrub("com.acme.sched.SchedulerTest#nextAddsOne (failed)"),
            "(failed)"
        );
        assert_eq!(
            names.scrub(&normalize(
                "[ERROR]   SchedulerTest.nextAddsOne:14 expected: <2> but was: <3>"
            )),
            "expected: <N> but was: <N>"
        );
        assert_eq!(
            names.scrub("incompatible types: Clock cannot be converted to java.util.Date in package com.acme.sched"),
            "incompatible types: cannot be converted to java.util.Date in package"
        );
        assert_eq!(
            names.scrub("package javax.xml.bind does not exist; org.junit.Assert"),
            "package javax.xml.bind does not exist; org.junit.Assert"
        );
    }

    #[test]
    fn stack_frames_and_counts_do_not_matter() {
        let e = "java.lang.NoSuchMethodError: 'void org.Foo.bar(int)'\n\tat com.x.Y.z(Y.java:12)\n\tat com.x.Y.w(Y.java:40)";
        assert_eq!(
            normalize(e),
            "java.lang.NoSuchMethodError: 'void org.Foo.bar(int)'"
        );
    }
}
