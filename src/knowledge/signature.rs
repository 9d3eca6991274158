//! Error signatures: a compiler or test error with what varies between projects removed
//! (file paths and names, line and column numbers, Maven's markers), so the same mistake
//! in two repositories gets the same signature. Where it happened is not what it is.

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

/// An `at com.x.Y.z(Y.java:12)` line of a stack trace.
pub fn is_stack_frame(line: &str) -> bool {
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
    fn stack_frames_and_counts_do_not_matter() {
        let e = "java.lang.NoSuchMethodError: 'void org.Foo.bar(int)'\n\tat com.x.Y.z(Y.java:12)\n\tat com.x.Y.w(Y.java:40)";
        assert_eq!(
            normalize(e),
            "java.lang.NoSuchMethodError: 'void org.Foo.bar(int)'"
        );
    }
}
