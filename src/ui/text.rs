//! Text for people that fits the terminal: paragraphs wrapped at spaces (never inside a
//! word, an id or a `command` in backticks), and labelled values, one a line (`jobs show`,
//! `remote lookup`, the summaries shown before a question).

use dialoguer::console::measure_text_width;

use super::table::{wrap_hanging, wrap_words_opt, Cell};

/// The narrowest a wrapped value beside its label may be before it goes below the label.
const NARROWEST: usize = 16;

/// Each line of `text` wrapped to `width` at spaces, its continuation lines indented two
/// more than the line itself (`None`: as it is). `text` is ours: escape the values in it.
pub fn paragraphs(text: &str, width: Option<usize>) -> String {
    let Some(width) = width else {
        return text.to_string();
    };
    let mut out = Vec::new();
    for line in text.split('\n') {
        let body = line.trim_start_matches(' ');
        let lead = line.len() - body.len();
        if body.is_empty() {
            out.push(String::new());
            continue;
        }
        let first = width.saturating_sub(lead).max(NARROWEST);
        let rest = width.saturating_sub(lead + 2).max(NARROWEST);
        for (k, l) in wrap_hanging(body, first, rest).into_iter().enumerate() {
            let indent = if k == 0 { lead } else { lead + 2 };
            out.push(format!("{}{l}", " ".repeat(indent)));
        }
    }
    out.join("\n")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Shown whole on one line (an id, a reference, a hash, a state).
    Token,
    /// Prose, wrapped.
    Text,
}

/// Labelled values, one a line: `label  value`.
#[derive(Debug, Default)]
pub struct Fields {
    rows: Vec<(String, Cell, Kind)>,
}

impl Fields {
    pub fn new() -> Fields {
        Fields::default()
    }

    /// A value shown whole on one line: beside its label when it fits there, else on a line
    /// of its own; never cut (an id, a reference, a hash is whole or useless): wider than the
    /// terminal, it is left out, with a note saying so.
    pub fn token(&mut self, label: &str, value: impl Into<Cell>) -> &mut Fields {
        self.rows
            .push((label.to_string(), value.into(), Kind::Token));
        self
    }

    /// Prose beside its label, wrapped at spaces.
    pub fn text(&mut self, label: &str, value: impl Into<Cell>) -> &mut Fields {
        self.rows
            .push((label.to_string(), value.into(), Kind::Text));
        self
    }

    pub fn render(&self, ui: &super::Ui) -> String {
        self.render_at(ui.width().map(usize::from), ui.color())
    }

    /// At `width` columns (`None`: one line a value, nothing cut).
    pub fn render_at(&self, width: Option<usize>, color: bool) -> String {
        let label_w = self
            .rows
            .iter()
            .map(|(l, _, _)| measure_text_width(l))
            .max()
            .unwrap_or(0)
            + 2;
        let mut out = Vec::new();
        for (label, cell, kind) in &self.rows {
            let pad = " ".repeat(label_w - measure_text_width(label));
            let paint = |t: &str| cell.tone.paint(t, color);
            let value_w = cell.width();
            let Some(width) = width else {
                out.push(
                    format!("{label}{pad}{}", paint(&cell.full()))
                        .trim_end()
                        .to_string(),
                );
                continue;
            };
            match kind {
                Kind::Token if label_w + value_w <= width || value_w == 0 => out.push(
                    format!("{label}{pad}{}", paint(&cell.full()))
                        .trim_end()
                        .to_string(),
                ),
                // Under its label, whole: indented when the line holds it, else from the
                // first column; wider than any line (an external_ref is 68 characters), not
                // shown at all, and said where it is whole (SPEC §5: never cut).
                Kind::Token => {
                    out.push(label.clone());
                    out.push(if value_w + 2 <= width {
                        format!("  {}", paint(&cell.full()))
                    } else if value_w <= width {
                        paint(&cell.full())
                    } else {
                        format!("  [{value_w} characters, wider than this terminal: see -o json]")
                    });
                }
                Kind::Text => {
                    let beside = width.saturating_sub(label_w);
                    if beside >= NARROWEST || label_w + value_w <= width {
                        let lines = wrap_words_opt(&cell.full(), Some(beside.max(1)));
                        for (k, l) in lines.iter().enumerate() {
                            let lead = if k == 0 {
                                format!("{label}{pad}")
                            } else {
                                " ".repeat(label_w)
                            };
                            out.push(format!("{lead}{}", paint(l)).trim_end().to_string());
                        }
                    } else {
                        out.push(label.clone());
                        for l in wrap_words_opt(&cell.full(), Some(width.saturating_sub(2))) {
                            out.push(format!("  {}", paint(&l)));
                        }
                    }
                }
            }
        }
        out.join("\n")
    }
}

/// `9700000` → `9,700,000`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        out.insert(0, '-');
    }
    out
}

/// `1 expired lease`, `3 expired leases`: a count and its noun, singular or plural.
pub fn counted(n: i64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", thousands(n))
    }
}

/// A number's change since an earlier look, for a live view: `▲3`, `▼1,200`, or empty when
/// it did not change.
pub fn change(now: i64, then: i64) -> String {
    match now.saturating_sub(then) {
        0 => String::new(),
        d if d > 0 => format!("▲{}", thousands(d)),
        d => format!("▼{}", thousands(d.saturating_neg())),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_change_shows_its_direction_and_size_and_nothing_when_none() {
        assert_eq!(super::change(15, 12), "▲3");
        assert_eq!(super::change(0, 1200), "▼1,200");
        assert_eq!(super::change(7, 7), "");
    }

    #[test]
    fn thousands_are_grouped_by_three_with_the_sign_kept() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(9_700_000), "9,700,000");
        assert_eq!(super::thousands(-1234567), "-1,234,567");
        assert_eq!(super::thousands(i64::MIN), "-9,223,372,036,854,775,808");
    }

    use super::*;

    #[test]
    fn paragraphs_wrap_at_spaces_with_a_hanging_indent() {
        let text = "moved job 6ce568d4-075a-4d3c-b189-8d55d6202bbd uncertain v3 → accepted v4\n  event 12 by tester: the CMS shows it";
        let out = paragraphs(text, Some(40));
        assert_eq!(
            out,
            "moved job\n  6ce568d4-075a-4d3c-b189-8d55d6202bbd\n  uncertain v3 → accepted v4\n  event 12 by tester: the CMS shows it"
        );
        assert_eq!(paragraphs(text, None), text);
    }

    #[test]
    fn fields_keep_tokens_whole_on_a_line_of_their_own() {
        let r = format!("pub_{}", "a".repeat(64));
        let mut f = Fields::new();
        f.token("external_ref", r.as_str())
            .token("state", "uncertain")
            .text(
                "last_error",
                "the destination timed out after 5s while we waited",
            );
        let at80 = f.render_at(Some(80), false);
        assert_eq!(
            at80,
            format!("external_ref\n  {r}\nstate         uncertain\nlast_error    the destination timed out after 5s while we waited")
        );
        // Issue 23 item 12: at 60 columns the 68 characters of an external_ref are never
        // cut: whole on a line of its own where one holds it, else not shown, saying so.
        let at60 = f.render_at(Some(60), false);
        for line in at60.lines() {
            assert!(measure_text_width(line) <= 60, "{line}");
        }
        assert!(!at60.contains("pub_aaaa"), "{at60}");
        assert!(
            at60.contains("external_ref\n  [68 characters, wider than this terminal: see -o json]"),
            "{at60}"
        );
        assert!(!at60.contains('…'), "{at60}");
        let at68 = f.render_at(Some(68), false);
        assert!(at68.contains(&format!("external_ref\n{r}\n")), "{at68}");
        assert!(
            at60.contains("last_error    the destination timed out after 5s"),
            "{at60}"
        );
    }
}
