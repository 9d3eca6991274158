//! What the app publishes on GitHub is made inert here, once, at the one door every comment,
//! PR body and check run goes through ([`super::api`]). Their text quotes the repository and
//! the model (file and test names, commit subjects, build output, answers), and GitHub acts on
//! some text wherever it stands: `@user` and `@org/team` notify, `#123` and `owner/repo#123`
//! cross-reference (a timeline entry on that issue), HTML ends a code span or table,
//! `<!--` hides the rest of a body, and a Markdown link shows text of its choosing over any
//! address (build output that closes the code block it is quoted in: "Re-authorize Uplift").
//! A code span cannot be trusted to hold them, since the text can close it with backticks of
//! its own; escaping at each of the renderers' insertions would miss the next one added.
//!
//! So a WORD JOINER (U+2060, invisible, never a line break) goes between the character that
//! starts such text and what follows: `@\u{2060}user` pings no one, `#\u{2060}123` links
//! nowhere, `<\u{2060}img` is no tag, `]\u{2060}(` no link. The app's own markup is kept:
//! its `@slug` commands, and `<details>`/`<summary>` and its `<!-- uplift:... -->` markers at
//! the start of a line.

use serde_json::Value;

const JOINER: char = '\u{2060}';
/// The app's own HTML.
const OWN_TAGS: &[&str] = &[
    "<details>",
    "</details>",
    "<summary>",
    "</summary>",
    "<!-- uplift:",
];
/// Fields of a GitHub request that are shown as text; the others (paths, branch names, ids,
/// states) are identifiers GitHub must receive exactly.
const TEXT_FIELDS: &[&str] = &["body", "title", "summary", "text", "message"];

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// The app writes its tags and markers at the start of a line, or after a tag of its own
/// that starts the line (`<details><summary>Commands</summary>`); repository text quoted
/// in a line of the app's prose cannot pass for them.
fn own_line_start(text: &str, i: usize) -> bool {
    let line = &text[text[..i].rfind('\n').map_or(0, |n| n + 1)..i];
    line.is_empty()
        || OWN_TAGS
            .iter()
            .any(|t| !t.starts_with("<!--") && line.starts_with(t))
}

/// `text` with every mention, issue reference and HTML tag but the app's own made inert.
pub fn inert(text: &str, slug: &str) -> String {
    let own_mention = format!("@{}", slug.to_ascii_lowercase());
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        out.push(c);
        let rest = &text[i + c.len_utf8()..];
        let next = rest.chars().next();
        let active = match c {
            '@' => {
                let own = text[i..].to_ascii_lowercase().starts_with(&own_mention)
                    && !text[i + own_mention.len()..]
                        .chars()
                        .next()
                        .is_some_and(|n| name_char(n) || n == '-' || n == '/');
                next.is_some_and(name_char) && !own
            }
            '#' => next.is_some_and(|n| n.is_ascii_digit()),
            // `[text](url)`, `[text][ref]`, `[ref]: url`: a link whose text hides where it
            // leads, in the app's voice. A bare URL still shows itself.
            ']' => matches!(next, Some('(' | '[' | ':')),
            '-' => {
                next.is_some_and(|n| n.is_ascii_digit())
                    && text[..i].to_ascii_uppercase().ends_with("GH")
            }
            '<' => {
                next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?'))
                    && !(own_line_start(text, i)
                        && OWN_TAGS.iter().any(|t| text[i..].starts_with(t)))
            }
            _ => false,
        };
        if active {
            out.push(JOINER);
        }
    }
    out
}

/// [`inert`] over the text fields of a request body (`body`, `title`, a check run's
/// `summary` and `text`, an annotation's `message` and `title`).
pub fn inert_json(value: &mut Value, slug: &str) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s) if TEXT_FIELDS.contains(&key.as_str()) => {
                        *s = inert(s, slug);
                    }
                    _ => inert_json(v, slug),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| inert_json(v, slug)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything GitHub would act on, as a hostile repository names its files and tests.
    #[test]
    fn mentions_references_and_html_from_data_are_inert() {
        let hostile = "Left `src/@org/team/A.java` `a`b@admin`; fixes #123, acme/app#7, GH-42; \
                       see <img src=x onerror=alert(1)> </details><!-- hide --> cc @Someone\n\
                       ```\n[Re-authorize Uplift](https://evil.example) ![x](https://t.example/p) \
                       [ref][1] [also]\n[also]: https://evil.example";
        let out = inert(hostile, "uplift");
        for active in [
            "@org",
            "@admin",
            "@Someone",
            "#123",
            "app#7",
            "GH-42",
            "<img",
            "</details>",
            "<!--",
            "](",
            "][",
            "]:",
        ] {
            assert!(!out.contains(active), "{active} left in {out}");
        }
        assert_eq!(
            out.replace(JOINER, ""),
            hostile,
            "only invisible joiners are added"
        );
    }

    #[test]
    fn the_apps_own_markup_and_plain_text_are_kept() {
        let own = "<details><summary>Commands</summary>\n\n| `@Uplift migrate [--target 17\\|21]` |\n\
                   </details>\n<!-- uplift:state run=1 -->\n### Tasks\nmail a@b.c, C# 1.0 x#y, 3 < 4, a-1";
        let out = inert(own, "uplift");
        assert!(
            out.contains("<details><summary>Commands</summary>"),
            "{out}"
        );
        assert!(out.contains("`@Uplift migrate"), "{out}");
        assert!(out.contains("<!-- uplift:state run=1 -->"), "{out}");
        assert!(out.contains("### Tasks"), "{out}");
        assert!(out.contains("3 < 4, a-1"), "{out}");
        // Another account whose name starts with the slug is still a mention.
        assert_eq!(inert("@uplift-evil", "uplift"), "@\u{2060}uplift-evil");
        assert_eq!(inert("@uplifted", "uplift"), "@\u{2060}uplifted");
    }

    #[test]
    fn only_the_text_fields_of_a_request_change() {
        let mut body = serde_json::json!({
            "head": "uplift/java-21",
            "title": "Migrate @everyone",
            "output": {"summary": "#1", "text": "<b>x</b>",
                       "annotations": [{"path": "src/@x/#1/A.java", "message": "@x", "title": "#2"}]},
        });
        inert_json(&mut body, "uplift");
        assert_eq!(body["head"], "uplift/java-21");
        assert_eq!(body["title"], "Migrate @\u{2060}everyone");
        assert_eq!(body["output"]["summary"], "#\u{2060}1");
        assert_eq!(body["output"]["text"], "<\u{2060}b>x<\u{2060}/b>");
        let a = &body["output"]["annotations"][0];
        assert_eq!(a["path"], "src/@x/#1/A.java");
        assert_eq!(a["message"], "@\u{2060}x");
        assert_eq!(a["title"], "#\u{2060}2");
    }
}
