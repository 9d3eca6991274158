//! Secret redaction for everything Uplift writes: journal, reports, logs, comments.
//!
//! Two nets: patterns for anything shaped like a credential, and the values of every secret
//! this process has learned ([`register`]), whatever their length or shape — a short key a
//! provider echoes back matches no pattern.

use std::io::Write;
use std::sync::{LazyLock, RwLock};
use std::time::{Duration, SystemTime};

use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;

const MASK: &str = "[REDACTED]";

/// Shorter values are not registered: they would mask ordinary words and numbers.
pub const MIN_SECRET_LEN: usize = 3;

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

/// The registered secret values (each with the time after which it is forgotten, for
/// credentials that expire) and one automaton over all of them.
#[derive(Default)]
struct Values {
    values: Vec<(String, Option<SystemTime>)>,
    matcher: Option<AhoCorasick>,
}

/// How long an expiring credential stays registered after it expired: text written while it
/// was valid may still be redacted a little later (a build log read after the job).
const KEEP_AFTER_EXPIRY: Duration = Duration::from_secs(3600);

static VALUES: LazyLock<RwLock<Values>> = LazyLock::new(Default::default);

/// Adds a secret value to the process-wide registry, so [`redact`] hides it from then on.
/// A multi-line value (a PEM key) also registers each line and its joined body, since a
/// single line of it can be quoted alone.
pub fn register(value: &str) {
    register_until(value, None);
}

/// [`register`] for a credential that stops working at `expires` (an installation token):
/// it is forgotten [`KEEP_AFTER_EXPIRY`] later, so a server issued a new token every hour
/// per repository keeps a registry (and an automaton) of the tokens alive, not of every
/// token it was ever issued. An expired token opens nothing, and its raw form still
/// matches the token pattern.
pub fn register_until(value: &str, expires: Option<SystemTime>) {
    let mut parts = vec![value.trim().to_string()];
    if value.trim().contains('\n') {
        let lines: Vec<&str> = value
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("-----"))
            .collect();
        parts.extend(lines.iter().map(|l| l.to_string()));
        parts.push(lines.concat());
    }
    let encoded: Vec<String> = parts.iter().flat_map(|p| encodings(p)).collect();
    parts.extend(encoded);
    let forget_after = expires.map(|e| e + KEEP_AFTER_EXPIRY);
    let now = SystemTime::now();
    let mut reg = VALUES.write().unwrap_or_else(|e| e.into_inner());
    let before = reg.values.len();
    reg.values
        .retain(|(_, forget)| forget.is_none_or(|forget| forget > now));
    let mut changed = reg.values.len() != before;
    for p in parts {
        if p.chars().count() < MIN_SECRET_LEN || forget_after.is_some_and(|f| f <= now) {
            continue;
        }
        match reg.values.iter_mut().find(|(v, _)| *v == p) {
            // A value registered for good stays so; an expiring one takes the later time.
            Some((_, forget)) => {
                *forget = forget.zip(forget_after).map(|(a, b)| a.max(b));
            }
            None => {
                reg.values.push((p, forget_after));
                changed = true;
            }
        }
    }
    if changed {
        // Leftmost-longest: a key that contains another registered key is masked whole.
        reg.matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(reg.values.iter().map(|(v, _)| v))
            .ok();
    }
}

/// Shorter values get no encoded forms: a few base64 or hex characters occur in ordinary text.
const MIN_ENCODED_LEN: usize = 8;

/// The forms a secret takes when code that can read it prints it encoded: base64 (standard
/// and URL-safe) at each of the three alignments it can have inside a longer encoded text
/// (`user:password` in a Basic authorization header), hex, and percent-encoding. Each
/// base64 form covers the secret's whole 3-byte groups at that alignment, so at most two
/// bytes at either end stay visible. A secret split up or encoded otherwise is not caught.
fn encodings(value: &str) -> Vec<String> {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let bytes = value.as_bytes();
    if bytes.len() < MIN_ENCODED_LEN {
        return Vec::new();
    }
    let mut out = Vec::new();
    for skip in 0..3 {
        let groups = &bytes[skip..];
        let whole = &groups[..groups.len() / 3 * 3];
        out.push(STANDARD_NO_PAD.encode(whole));
        out.push(URL_SAFE_NO_PAD.encode(whole));
    }
    out.push(hex::encode(bytes));
    out.push(hex::encode_upper(bytes));
    for upper in [true, false] {
        out.push(
            bytes
                .iter()
                .map(|&b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                        char::from(b).to_string()
                    }
                    _ if upper => format!("%{b:02X}"),
                    _ => format!("%{b:02x}"),
                })
                .collect(),
        );
    }
    out
}

/// The password of a `scheme://user:password@host` URL, registered as a secret.
pub fn register_url_password(url: &str) {
    let Some((_, rest)) = url.split_once("://") else {
        return;
    };
    let authority = rest.split(['/', '?']).next().unwrap_or(rest);
    if let Some((userinfo, _)) = authority.rsplit_once('@')
        && let Some((_, password)) = userinfo.split_once(':')
    {
        register(password);
    }
}

/// Replaces every registered secret value and anything that looks like a credential with
/// `[REDACTED]`.
pub fn redact(text: &str) -> String {
    let mut out = {
        let reg = VALUES.read().unwrap_or_else(|e| e.into_inner());
        match &reg.matcher {
            Some(m) if m.is_match(text) => {
                std::borrow::Cow::Owned(m.replace_all(text, &vec![MASK; reg.values.len()]))
            }
            _ => std::borrow::Cow::Borrowed(text),
        }
    };
    for re in PATTERNS.iter() {
        if re.is_match(&out) {
            out = std::borrow::Cow::Owned(re.replace_all(&out, MASK).into_owned());
        }
    }
    out.into_owned()
}

/// Redacts every string inside a JSON value in place; true when anything changed.
pub fn redact_json(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => {
            let r = redact(s);
            let changed = r != *s;
            *s = r;
            changed
        }
        serde_json::Value::Array(items) => items.iter_mut().fold(false, |c, v| redact_json(v) | c),
        serde_json::Value::Object(map) => map.values_mut().fold(false, |c, v| redact_json(v) | c),
        _ => false,
    }
}

/// A serialisable value with every string inside it redacted (a journal entry, a config).
pub fn redacted<T>(value: T) -> serde_json::Result<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let mut json = serde_json::to_value(&value)?;
    if redact_json(&mut json) {
        serde_json::from_value(json)
    } else {
        Ok(value)
    }
}

/// Log output through [`redact`]: wraps a tracing `MakeWriter` (stderr in `main`). The
/// formatter writes each event with one `write_all`, so a secret is never split across
/// two writes.
pub struct Logs<M>(pub M);

pub struct LogWriter<W>(W);

impl<W: Write> Write for LogWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .write_all(redact(&String::from_utf8_lossy(buf)).as_bytes())?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl<'a, M: tracing_subscriber::fmt::MakeWriter<'a>> tracing_subscriber::fmt::MakeWriter<'a>
    for Logs<M>
{
    type Writer = LogWriter<M::Writer>;
    fn make_writer(&'a self) -> Self::Writer {
        LogWriter(self.0.make_writer())
    }
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

    #[test]
    fn registered_values_are_hidden_whatever_their_shape() {
        // Shapes no pattern knows: a short key, one with spaces and quotes, a unicode one.
        for (secret, text) in [
            ("k3y9", "provider answered 401: invalid key k3y9 (x)"),
            ("a b\"c", "echo: a b\"c;"),
            ("pässwörd", "login pässwörd failed"),
        ] {
            assert!(redact(text).contains(secret), "not registered yet: {text}");
            register(secret);
            let r = redact(text);
            assert!(!r.contains(secret), "{r}");
            assert!(r.contains(MASK), "{r}");
        }
        register("k3y9-longer");
        assert_eq!(redact("k3y9-longer k3y9"), "[REDACTED] [REDACTED]");
    }

    /// A build that can read a secret (the operator's Maven settings) prints it encoded: as
    /// base64 alone or inside a Basic authorization header at any alignment, as hex, or
    /// percent-encoded. None of those forms reaches a report.
    #[test]
    fn encoded_forms_of_a_secret_are_hidden_too() {
        use base64::Engine;
        use base64::engine::general_purpose::STANDARD;
        let secret = "Nx+9f2Q/pass word";
        register(secret);
        let mut printed = vec![
            STANDARD.encode(secret),
            hex::encode(secret),
            hex::encode_upper(secret),
            "Nx%2B9f2Q%2Fpass%20word".to_string(),
            "Nx%2b9f2Q%2fpass%20word".to_string(),
        ];
        for user in ["", "a:", "ab:", "abc:"] {
            printed.push(STANDARD.encode(format!("{user}{secret}")));
        }
        for text in printed {
            let r = redact(&format!("Authorization: Basic {text}"));
            assert!(r.contains(MASK), "{text} -> {r}");
            // Visible stay at most the 4-character groups the secret's first and last two
            // bytes share with their neighbours, and the user name's.
            let visible = r.replace("Authorization: Basic ", "").replace(MASK, "");
            assert!(visible.len() <= 12, "{text} -> {r}");
        }
        assert_eq!(redact("plain words stay"), "plain words stay");
    }

    #[test]
    fn an_expired_credential_is_forgotten_and_a_live_one_kept() {
        let long_ago = SystemTime::now() - KEEP_AFTER_EXPIRY - Duration::from_secs(60);
        let soon = SystemTime::now() + Duration::from_secs(60);
        register_until("expired-tok3n-value", Some(long_ago));
        register_until("live-tok3n-value", Some(soon));
        let text = "a expired-tok3n-value b live-tok3n-value";
        assert_eq!(redact(text), "a expired-tok3n-value b [REDACTED]");
        // Registered for good later, a value stays registered whatever expired before.
        register_until("kept-tok3n-value", Some(long_ago));
        register("kept-tok3n-value");
        register("other-tok3n-value");
        assert_eq!(redact("kept-tok3n-value"), MASK);
    }

    #[test]
    fn too_short_values_are_not_registered() {
        register("zq");
        register("   ");
        assert_eq!(redact("zq is a word"), "zq is a word");
    }

    #[test]
    fn a_pem_key_is_hidden_line_by_line_and_as_its_body() {
        let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIBAAKCAQEAqpem1Line\nX9xZbodyLine2Two\n-----END RSA PRIVATE KEY-----\n";
        register(pem);
        for text in [
            "line: MIIEpQIBAAKCAQEAqpem1Line",
            "X9xZbodyLine2Two",
            "MIIEpQIBAAKCAQEAqpem1LineX9xZbodyLine2Two",
        ] {
            let r = redact(text);
            assert!(!r.contains("pem1Line") && !r.contains("Line2Two"), "{r}");
        }
        assert_eq!(
            redact("-----BEGIN RSA PRIVATE KEY-----"),
            "-----BEGIN RSA PRIVATE KEY-----"
        );
    }

    #[test]
    fn a_database_url_password_is_registered() {
        register_url_password("postgres://app:pw7Q@db.internal:5432/uplift?sslmode=require");
        register_url_password("sqlite:///var/lib/uplift.db?mode=rwc");
        assert_eq!(redact("auth failed for pw7Q"), "auth failed for [REDACTED]");
        assert_eq!(redact("/var/lib/uplift.db"), "/var/lib/uplift.db");
    }

    #[test]
    fn json_and_typed_values_are_redacted_inside() {
        register("j50nK3y");
        let mut v = serde_json::json!({"a": ["x j50nK3y", {"b": "j50nK3y"}], "n": 1});
        assert!(redact_json(&mut v));
        assert!(!v.to_string().contains("j50nK3y"), "{v}");
        let typed: Vec<String> = redacted(vec!["j50nK3y".to_string()]).unwrap();
        assert_eq!(typed, vec![MASK.to_string()]);
        assert!(!redact_json(&mut serde_json::json!({"a": "plain"})));
    }

    #[test]
    fn the_log_writer_redacts_each_write() {
        register("l0gK3y");
        let mut out = Vec::new();
        let mut w = LogWriter(&mut out);
        let line = b"WARN provider said l0gK3y is wrong\n";
        assert_eq!(w.write(line).unwrap(), line.len());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "WARN provider said [REDACTED] is wrong\n"
        );
    }
}
