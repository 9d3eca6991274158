//! Secret redaction for everything Uplift writes: journal, reports, logs, comments.

use std::sync::LazyLock;

use regex::Regex;

static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // GitHub tokens (classic, fine-grained, app installation, OAuth, refresh).
        r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        // OpenAI/Anthropic style API keys.
        r"\bsk-(?:ant-)?[A-Za-z0-9_\-]{16,}",
        // Credentials in URLs: https://user:secret@host
        r"(?i)\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:[^@\s/]+@",
        // key=value / key: value pairs whose name says secret.
        r#"(?i)\b[\w.\-]*(?:password|passwd|secret|token|api[_-]?key|private[_-]?key)[\w.\-]*\s*[=:]\s*["']?[^\s"']{4,}"#,
        // PEM private keys.
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("valid redaction pattern"))
    .collect()
});

/// Replaces anything that looks like a credential with `[REDACTED]`.
pub fn redact(text: &str) -> String {
    let mut out = std::borrow::Cow::Borrowed(text);
    for re in PATTERNS.iter() {
        if re.is_match(&out) {
            out = std::borrow::Cow::Owned(re.replace_all(&out, "[REDACTED]").into_owned());
        }
    }
    out.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hides_tokens_keys_and_url_credentials() {
        let s = "clone https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz123456@github.com/o/r \
                 OPENAI=sk-proj-ABCDEFGHIJKLMNOPQRST -Dnexus.password=hunter2hunter2";
        let r = redact(s);
        assert!(!r.contains("ghs_abc"), "{r}");
        assert!(!r.contains("sk-proj"), "{r}");
        assert!(!r.contains("hunter2"), "{r}");
        assert!(r.contains("github.com/o/r"));
    }

    #[test]
    fn leaves_ordinary_text() {
        let s = "[ERROR] Failed to execute goal: compilation failure in Foo.java:[12,5]";
        assert_eq!(redact(s), s);
    }
}
