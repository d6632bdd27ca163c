//! Strings from outside made safe for a terminal. Below `ui`, so that the worker library's own
//! messages (a destination's answer quoted in an error) escape the same way as the tables.

/// A string from outside (a destination's answer, a job column a worker wrote, a reason, an
/// actor) as a terminal may show it: one line, control characters and the bidirectional
/// overrides that can disguise a line written out visibly (`\n`, `\x1b`, `\u{202e}`), so
/// no value can retitle the terminal, clear the screen or forge a line of output. JSON output
/// stays exact; only tables and messages go through here.
pub fn escape(s: &str) -> String {
    if !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x100 && needs_escape(c) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        // Bidirectional marks and overrides, which can make a line read as another.
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}')
        // Zero-width characters (invisible differences between two ids that look alike)
        // and the Unicode line and paragraph separators.
        || matches!(c, '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_shows_control_characters_visibly() {
        assert_eq!(escape("art-17"), "art-17");
        assert_eq!(escape("a\nb"), "a\\nb");
        assert_eq!(escape("\u{1b}]0;pwned\u{7}"), "\\x1b]0;pwned\\x07");
        assert_eq!(escape("\u{1b}[2J"), "\\x1b[2J");
        assert_eq!(escape("x\u{0}y"), "x\\x00y");
        assert_eq!(escape("\u{202e}evil"), "\\u{202e}evil");
        assert_eq!(escape("\u{9b}"), "\\x9b");
        assert_eq!(escape("café → ok"), "café → ok");
        assert_eq!(escape("a\u{200b}b\u{2028}c"), "a\\u{200b}b\\u{2028}c");
    }
}
