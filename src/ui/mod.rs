//! The only place that prints. Data goes to stdout (table, JSON or JSON lines); status,
//! warnings, hints and prompts go to stderr. A closed stdout (`reconctl jobs list | head`)
//! ends the command quietly with success.

use std::io::{self, IsTerminal, Write};

use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Kind, Result};
use crate::jobs::State;

mod stream;

pub use stream::Stream;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum Format {
    #[default]
    Table,
    Json,
    Jsonl,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// Something a command hands to the UI: a JSON shape (its `Serialize`) and a table for people.
pub trait Render: Serialize {
    /// The text `-o table` prints (without a trailing newline).
    fn table(&self, ui: &Ui) -> String;

    /// The objects `-o jsonl` prints, one a line. Lists override this to print one item a line.
    fn jsonl(&self) -> Vec<Value> {
        vec![serde_json::to_value(self).unwrap_or(Value::Null)]
    }
}

#[derive(Debug, Clone)]
pub struct Ui {
    pub format: Format,
    pub quiet: bool,
    pub verbose: u8,
    color: bool,
    stdout_tty: bool,
    stdin_tty: bool,
    stderr_tty: bool,
    width: Option<u16>,
}

fn write_err(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Error::broken_pipe()
    } else {
        Error::runtime(format!("cannot write output: {e}"))
    }
}

impl Ui {
    pub fn new(format: Format, color: ColorChoice, quiet: bool, verbose: u8) -> Ui {
        let stdout_tty = io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stdout_tty && !no_color,
        };
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse::<u16>().ok())
            .filter(|w| *w >= 20)
            .or_else(|| if stdout_tty { crossterm_width() } else { None });
        Ui {
            format,
            quiet,
            verbose,
            color,
            stdout_tty,
            stdin_tty: io::stdin().is_terminal(),
            stderr_tty: io::stderr().is_terminal(),
            width,
        }
    }

    /// A UI for tests and library use: no terminal, no color.
    pub fn plain(format: Format) -> Ui {
        Ui {
            format,
            quiet: false,
            verbose: 0,
            color: false,
            stdout_tty: false,
            stdin_tty: false,
            stderr_tty: false,
            width: None,
        }
    }

    pub fn color(&self) -> bool {
        self.color
    }

    pub fn is_json(&self) -> bool {
        self.format != Format::Table
    }

    /// Print a command's result in the chosen format.
    pub fn emit<R: Render + ?Sized>(&self, value: &R) -> Result<()> {
        match self.format {
            Format::Table => {
                if self.quiet {
                    return Ok(());
                }
                let text = value.table(self);
                if text.is_empty() {
                    return Ok(());
                }
                self.out(&text)
            }
            Format::Json => {
                let v = serde_json::to_value(value)
                    .map_err(|e| Error::bug(format!("cannot serialise output: {e}")))?;
                self.out(&serde_json::to_string_pretty(&v).unwrap_or_default())
            }
            Format::Jsonl => {
                let mut text = String::new();
                for item in value.jsonl() {
                    text.push_str(&serde_json::to_string(&item).unwrap_or_default());
                    text.push('\n');
                }
                self.out_raw(&text)
            }
        }
    }

    /// A line (or lines) of data on stdout, newline added.
    pub fn out(&self, text: &str) -> Result<()> {
        let mut s = String::with_capacity(text.len() + 1);
        s.push_str(text);
        s.push('\n');
        self.out_raw(&s)
    }

    /// Data on stdout exactly as given.
    pub fn out_raw(&self, text: &str) -> Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes()).map_err(write_err)?;
        out.flush().map_err(write_err)
    }

    /// Progress and status for people, on stderr; silent with `-q`.
    pub fn status(&self, msg: &str) {
        if !self.quiet {
            let _ = writeln!(io::stderr(), "{msg}");
        }
    }

    pub fn warn(&self, msg: &str) {
        let _ = writeln!(
            io::stderr(),
            "{}: {msg}",
            self.paint("warning", Color::Yellow)
        );
    }

    pub fn hint(&self, msg: &str) {
        if !self.quiet {
            let _ = writeln!(io::stderr(), "{}: {msg}", self.paint("hint", Color::Cyan));
        }
    }

    /// Report a failure: on stderr for people; with `-o json`/`jsonl`, also the error object
    /// on stdout for scripts.
    pub fn error(&self, err: &Error) {
        if err.kind() == Kind::BrokenPipe {
            return;
        }
        if self.is_json() && !err.is_in_output() {
            self.json_error(err);
        }
        let mut e = io::stderr().lock();
        let _ = writeln!(e, "{}: {}", self.paint("error", Color::Red), err.message());
        for hint in err.hints() {
            let _ = writeln!(e, "{}: {hint}", self.paint("hint", Color::Cyan));
        }
    }

    /// The `{"error": …}` document alone, on stdout (for errors reported on stderr by someone
    /// else, as clap reports a usage error).
    pub fn json_error(&self, err: &Error) {
        let doc = err.to_json();
        let text = if self.format == Format::Json {
            serde_json::to_string_pretty(&doc)
        } else {
            serde_json::to_string(&doc)
        };
        let _ = self.out(&text.unwrap_or_default());
    }

    fn paint(&self, text: &str, color: Color) -> String {
        if !self.color || !self.stderr_tty {
            return text.to_string();
        }
        let code = match color {
            Color::Red => 31,
            Color::Green => 32,
            Color::Yellow => 33,
            Color::Cyan => 36,
            _ => 39,
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }

    /// What a person must see before answering a prompt (the job, the move, the evidence):
    /// on stderr, even with `-q`, because consent to something unseen is no consent.
    pub fn before_prompt(&self, text: &str) {
        let _ = writeln!(io::stderr(), "{text}");
    }

    /// Whether a person can answer a question: stdin and stderr are terminals.
    pub fn can_prompt(&self) -> bool {
        self.stdin_tty && self.stderr_tty
    }

    /// Ask yes/no on the terminal, default No. Ctrl-C or an error is a No.
    pub fn confirm(&self, prompt: &str) -> Result<bool> {
        if !self.can_prompt() {
            return Ok(false);
        }
        let answer = dialoguer::Confirm::new()
            .with_prompt(prompt)
            .default(false)
            .show_default(true)
            .wait_for_newline(true)
            .interact_opt();
        match answer {
            Ok(Some(yes)) => Ok(yes),
            Ok(None) => Ok(false),
            Err(_) => {
                // Interrupted: dialoguer restores the terminal; make sure the cursor is back.
                let _ = dialoguer::console::Term::stderr().show_cursor();
                Ok(false)
            }
        }
    }

    /// A table sized to the terminal (or `COLUMNS`), styled only when color is on.
    pub fn table(&self) -> Table {
        let mut t = Table::new();
        t.load_preset(presets::UTF8_HORIZONTAL_ONLY);
        t.set_content_arrangement(ContentArrangement::Dynamic);
        if let Some(w) = self.width {
            t.set_width(w);
        }
        if self.color {
            t.enforce_styling();
        } else {
            t.force_no_tty();
        }
        t
    }

    /// A cell for a state, colored by urgency when color is on.
    pub fn state_cell(&self, state: State) -> Cell {
        let cell = Cell::new(state.as_str());
        if !self.color {
            return cell;
        }
        if State::unsettled().contains(&state) {
            cell.fg(Color::Red)
        } else if State::waiting().contains(&state) || state == State::leased() {
            cell.fg(Color::Yellow)
        } else if state == State::bulk() {
            cell.fg(Color::Green)
        } else {
            cell.fg(Color::DarkGrey)
        }
    }

    /// A progress bar on stderr when it is a terminal (never in a pipe, in cron or with
    /// `-q`): the label, the count (of `len` when known), the rate and the time left.
    pub fn progress(&self, label: &str, len: Option<u64>) -> indicatif::ProgressBar {
        if self.quiet || !self.stderr_tty {
            return indicatif::ProgressBar::hidden();
        }
        let (pb, template) = match len {
            Some(n) => (
                indicatif::ProgressBar::new(n),
                "{msg} [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)",
            ),
            None => (
                indicatif::ProgressBar::new_spinner(),
                "{spinner} {msg}: {pos} ({per_sec}, {elapsed})",
            ),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        pb.set_message(label.to_string());
        pb
    }

    /// The width tables fit (`COLUMNS`, else the terminal's); `None` in a pipe without
    /// `COLUMNS`: nothing is cut.
    pub fn width(&self) -> Option<u16> {
        self.width
    }

    pub fn stdout_is_terminal(&self) -> bool {
        self.stdout_tty
    }
}

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

fn crossterm_width() -> Option<u16> {
    // comfy-table already depends on crossterm; reuse it for the terminal size.
    comfy_table::Table::new().width()
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
