//! The only place that prints. Data goes to stdout (table, JSON or JSON lines); status,
//! warnings, hints and prompts go to stderr. A closed stdout (`reconctl jobs list | head`)
//! ends the command quietly with success.

use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Kind, Result};

pub mod destination;
pub mod secret;
mod stream;
pub mod table;
pub mod text;

pub use stream::Stream;
pub use table::{Cell, Column, Note, Table, Tone};
pub use text::{paragraphs, thousands, Fields};
// Below `ui` so that the library's lower layers (a destination's answer in an error) use it too.
pub use crate::escape::escape;

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

/// What a command's result is to `-q` (SPEC §5: "-q prints nothing when a command
/// succeeds; data a command exists to print is never suppressed").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// What the command exists to print (`jobs list`, `status`, `metrics`, `ref`, a lookup):
    /// printed with `-q` too.
    Data,
    /// The account of an action (a sweep's counts, a mark's move, a healthy check): nothing
    /// with `-q` when it succeeded.
    Report,
}

/// Something a command hands to the UI: a JSON shape (its `Serialize`) and a table for people.
pub trait Render: Serialize {
    /// The text `-o table` prints (without a trailing newline).
    fn table(&self, ui: &Ui) -> String;

    /// Data or the report of an action: whether `-q` silences it. Every result says which.
    fn output(&self) -> Output;

    /// When the command exits non-zero with this result: why, for stderr. Printed there with
    /// `-q` (whatever the format), because cron mails stderr and a failure must say why.
    fn failure(&self, _ui: &Ui) -> Option<String> {
        None
    }

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
    err_width: Option<u16>,
}

/// A progress bar shown after a delay ([`Ui::progress_after`]); cleared when dropped.
pub struct Progress {
    pb: indicatif::ProgressBar,
    /// Set once finished, under the lock the delayed reveal takes: a bar is never drawn
    /// after it was cleared.
    done: Arc<Mutex<bool>>,
}

impl Progress {
    pub fn set_message(&self, msg: String) {
        self.pb.set_message(msg);
    }

    pub fn tick(&self) {
        self.pb.tick();
    }

    pub fn inc(&self, n: u64) {
        self.pb.inc(n);
    }

    pub fn set_position(&self, n: u64) {
        self.pb.set_position(n);
    }

    pub fn finish_and_clear(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *done = true;
        self.pb.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish_and_clear();
    }
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
        let width = width_of(&io::stdout());
        let err_width = width_of(&io::stderr());
        Ui {
            format,
            quiet,
            verbose,
            color,
            stdout_tty,
            stdin_tty: io::stdin().is_terminal(),
            stderr_tty: io::stderr().is_terminal(),
            width,
            err_width,
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
            err_width: None,
        }
    }

    /// The same UI fitting tables to `width` columns (tests, and a fixed-width view).
    pub fn with_width(mut self, width: Option<u16>) -> Ui {
        self.width = width;
        self.err_width = width;
        self
    }

    pub fn color(&self) -> bool {
        self.color
    }

    pub fn is_json(&self) -> bool {
        self.format != Format::Table
    }

    /// Print a command's result in the chosen format. With `-q`: nothing for the report of
    /// an action, data as always, and the reason of a failure on stderr.
    pub fn emit<R: Render + ?Sized>(&self, value: &R) -> Result<()> {
        if self.quiet {
            if let Some(why) = value.failure(self) {
                let _ = writeln!(io::stderr(), "{why}");
            }
        }
        match self.format {
            Format::Table => {
                if self.quiet && value.output() == Output::Report {
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

    /// Progress and status for people, on stderr, fitted to its width; silent with `-q`.
    pub fn status(&self, msg: &str) {
        if !self.quiet {
            let text = paragraphs(&escape(msg), self.err_width.map(usize::from));
            let _ = writeln!(io::stderr(), "{text}");
        }
    }

    /// What was asked and how it went (`-v`), on stderr as one line, never wrapped or
    /// shortened (a URL in it is copied whole); escaped; silent with `-q`.
    pub fn trace(&self, msg: &str) {
        if !self.quiet {
            let _ = writeln!(io::stderr(), "{}", escape(msg));
        }
    }

    /// A note of what is happening now ("looking up … at cms-c…"), for a person watching a
    /// terminal: on stderr only when it is a terminal, never with `-q`, in a pipe or in cron
    /// (where it would be mailed as if something had gone wrong).
    pub fn progress_note(&self, msg: &str) {
        if self.shows_progress() {
            self.status(msg);
        }
    }

    pub fn warn(&self, msg: &str) {
        let _ = writeln!(io::stderr(), "{}: {msg}", self.paint("warning", 33));
    }

    pub fn hint(&self, msg: &str) {
        if !self.quiet {
            let _ = writeln!(io::stderr(), "{}: {msg}", self.paint("hint", 36));
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
        // Escaped: a message may carry what the operator typed (a DATABASE_URL ending in a
        // newline), and an error is one line that cron mails and scripts grep.
        let _ = writeln!(e, "{}: {}", self.paint("error", 31), escape(err.message()));
        for hint in err.hints() {
            let _ = writeln!(e, "{}: {}", self.paint("hint", 36), escape(hint));
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

    fn paint(&self, text: &str, color: u8) -> String {
        if !self.color || !self.stderr_tty {
            return text.to_string();
        }
        format!("\x1b[{color}m{text}\x1b[0m")
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

    /// Ask for a secret on the terminal (nothing typed is echoed): `None` when the person
    /// cancelled (Ctrl-C, Ctrl-D) or there is no terminal to ask on.
    pub fn ask_secret(&self, prompt: &str) -> Result<Option<String>> {
        if !self.can_prompt() {
            return Ok(None);
        }
        match secret::ask(prompt) {
            Ok(secret::Answer::Given(s)) => Ok(Some(s)),
            Ok(secret::Answer::Cancelled) => Ok(None),
            Err(e) => Err(Error::runtime(format!(
                "cannot read from the terminal: {e}"
            ))),
        }
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
            Err(e) => {
                // dialoguer restores the terminal; make sure the cursor is back.
                let _ = dialoguer::console::Term::stderr().show_cursor();
                let dialoguer::Error::IO(io) = &e;
                if io.kind() == io::ErrorKind::Interrupted {
                    // Ctrl-C read as a key (the prompt reads raw): an interruption (exit 130)
                    // even where SIGINT is ignored (a job started in the background), never
                    // an answer. Nothing was changed: the move comes only after a "y".
                    return Err(Error::new(
                        crate::error::Code::Interrupted,
                        "interrupted at the prompt: nothing changed",
                    ));
                }
                Ok(false)
            }
        }
    }

    /// A progress bar on stderr when it is a terminal (never in a pipe, in cron or with
    /// `-q`): the label, the count (of `len` when known), the rate and the time left.
    pub fn progress(&self, label: &str, len: Option<u64>) -> indicatif::ProgressBar {
        let pb = self.bar(label, len);
        if self.shows_progress() {
            pb.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        pb
    }

    fn shows_progress(&self) -> bool {
        !self.quiet && self.stderr_tty
    }

    /// The bar, styled and labelled, drawing nowhere yet.
    fn bar(&self, label: &str, len: Option<u64>) -> indicatif::ProgressBar {
        let hidden = indicatif::ProgressDrawTarget::hidden();
        let (pb, template) = match len {
            Some(n) => (
                indicatif::ProgressBar::with_draw_target(Some(n), hidden),
                "{msg} [{bar:30}] {pos}/{len} ({rate}, {eta} left)",
            ),
            None => (
                indicatif::ProgressBar::with_draw_target(None, hidden),
                "{spinner} {msg}: {pos} ({rate}, {elapsed})",
            ),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            pb.set_style(style.progress_chars("=> ").with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate(state.per_sec()));
                },
            ));
        }
        pb.set_message(label.to_string());
        pb
    }

    /// A progress bar that shows itself only once the run has lasted `delay` (a sweep that
    /// is over in a moment draws nothing); never in a pipe, in cron or with `-q`.
    pub fn progress_after(&self, label: &str, len: Option<u64>, delay: Duration) -> Progress {
        let pb = self.bar(label, len);
        let done = Arc::new(Mutex::new(false));
        if self.shows_progress() {
            let (bar, flag) = (pb.clone(), done.clone());
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                let finished = flag.lock().unwrap_or_else(|e| e.into_inner());
                if !*finished {
                    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    bar.enable_steady_tick(Duration::from_millis(100));
                }
            });
        }
        Progress { pb, done }
    }

    /// The width tables fit (`COLUMNS`, else the terminal's); `None` in a pipe without
    /// `COLUMNS`: nothing is cut.
    pub fn width(&self) -> Option<u16> {
        self.width
    }

    /// The width of what goes to stderr (the summary before a question): `COLUMNS`, else
    /// stderr's terminal.
    pub fn err_width(&self) -> Option<u16> {
        self.err_width
    }

    pub fn stdout_is_terminal(&self) -> bool {
        self.stdout_tty
    }
}

/// A progress bar's rate as a person reads it: `5.8/s` below 10 a second, `123/s` above
/// (indicatif's own `{per_sec}` prints `5.7607/s`).
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "0/s".into()
    } else if per_sec < 10.0 {
        format!("{per_sec:.1}/s")
    } else {
        format!("{}/s", per_sec.round() as u64)
    }
}

/// `COLUMNS`, when it holds a width (an empty or wrong one counts as unset).
fn columns_var() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|w| *w >= 20)
}

/// The width what goes to `stream` is laid out for: `COLUMNS` when it holds one, else the
/// terminal's when `stream` is a terminal; `None` in a pipe or a file.
fn width_of(stream: &impl IsTerminal) -> Option<u16> {
    columns_var().or_else(|| {
        stream
            .is_terminal()
            .then(terminal_size)
            .flatten()
            .map(|(width, _)| width)
            .filter(|w| *w >= 20)
    })
}

/// The terminal's columns and rows (`None` without one): the one place reconctl asks, for
/// the tables' width and the live views' screen.
pub fn terminal_size() -> Option<(u16, u16)> {
    crossterm::terminal::size().ok()
}

#[cfg(test)]
mod tests {
    use super::rate;

    /// Issue 23 item 14: the progress rate read "5.7607/s".
    #[test]
    fn item_14_progress_rates_are_rounded() {
        assert_eq!(rate(5.7607), "5.8/s");
        assert_eq!(rate(0.04), "0.0/s");
        assert_eq!(rate(12.6), "13/s");
        assert_eq!(rate(1234.4), "1234/s");
        assert_eq!(rate(0.0), "0/s");
        assert_eq!(rate(f64::INFINITY), "0/s");
    }
}
