//! Text for a terminal. What the CLI prints quotes the repository, the build and the model
//! (file and test names, build output, detector messages, diffs), and a terminal obeys
//! control characters wherever they stand: ESC sequences clear the screen, move the cursor
//! over earlier lines, set the window title or the clipboard (OSC 52), a carriage return
//! overwrites the line it ends, and bidirectional overrides reorder what is shown. So every
//! such character is shown as an escape (`\u{1b}`) instead; line feeds, tabs and the carriage
//! return of a CRLF line end stay.

use std::fmt::Write;

/// Characters a terminal acts on rather than shows: C0 controls but line feed and tab, DEL,
/// C1 controls, and the bidirectional embedding, override and isolate controls.
fn acts(c: char) -> bool {
    (c.is_control() && !matches!(c, '\n' | '\t'))
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character a terminal would act on shown as `\u{..}`.
pub fn inert(text: &str) -> String {
    let mut chars = text.chars().peekable();
    let mut out = String::with_capacity(text.len());
    while let Some(c) = chars.next() {
        if acts(c) && !(c == '\r' && chars.peek() == Some(&'\n')) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_not_obeyed() {
        assert_eq!(
            inert("a\x1b[2J\x1b]0;title\x07b\rc\u{9b}31m\u{202e}d\x7f"),
            "a\\u{1b}[2J\\u{1b}]0;title\\u{7}b\\u{d}c\\u{9b}31m\\u{202e}d\\u{7f}"
        );
        let plain = "Outcome: SUCCESS\r\n\t- src/A.java: ünïcode kept";
        assert_eq!(inert(plain), plain);
    }
}
