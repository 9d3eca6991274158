//! Java sources in the encoding the build declares (`project.build.sourceEncoding`):
//! decoded strictly and encoded back, so every byte outside an edit survives.

use encoding_rs::{Encoding, UTF_8};

/// The encoding a `project.build.sourceEncoding` value names (Java's `Cp1252`-style
/// aliases included); `None` when unknown or when it cannot be written back (UTF-16).
pub fn from_label(label: &str) -> Option<&'static Encoding> {
    let label = label.trim();
    let java_alias = label
        .strip_prefix("Cp")
        .or_else(|| label.strip_prefix("cp"))
        .filter(|n| n.starts_with("125"))
        .map(|n| format!("windows-{n}"));
    let label = java_alias.unwrap_or_else(|| label.replace("ISO8859_", "ISO-8859-"));
    Encoding::for_label(label.as_bytes()).filter(|e| e.output_encoding() == *e)
}

/// The text of `bytes`, or `None` when they are not valid in `encoding` (nothing is
/// replaced, and a byte-order mark stays part of the text).
pub fn decode(encoding: &'static Encoding, bytes: &[u8]) -> Option<String> {
    encoding
        .decode_without_bom_handling_and_without_replacement(bytes)
        .map(|t| t.into_owned())
}

/// The bytes of `text` in `encoding`, or `None` when a character has no encoding there.
pub fn encode(encoding: &'static Encoding, text: &str) -> Option<Vec<u8>> {
    if encoding == UTF_8 {
        return Some(text.as_bytes().to_vec());
    }
    let (bytes, _, unmappable) = encoding.encode(text);
    (!unmappable).then(|| bytes.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_round_trips_every_byte() {
        let enc = from_label("ISO-8859-1").unwrap();
        assert_eq!(from_label("ISO8859_1"), Some(enc));
        assert_eq!(from_label("Cp1252"), Some(enc));
        let bytes: Vec<u8> = (0..=255).collect();
        let text = decode(enc, &bytes).unwrap();
        assert!(text.contains('é'));
        assert_eq!(encode(enc, &text).unwrap(), bytes);
        assert_eq!(encode(enc, "日本"), None);
    }

    #[test]
    fn utf8_is_strict_and_utf16_is_not_writable() {
        assert_eq!(decode(UTF_8, b"caf\xe9"), None);
        assert_eq!(
            decode(UTF_8, "\u{feff}café".as_bytes()).unwrap(),
            "\u{feff}café"
        );
        assert_eq!(from_label("UTF-16"), None);
        assert_eq!(from_label("no-such-charset"), None);
    }
}
