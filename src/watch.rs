//! `--watch`: a command's report refreshed every interval (SPEC §7), for incidents.
//!
//! On a terminal (stdout and stdin, `-o table`): the alternate screen, redrawn in place, with
//! a header (the time, the database, the interval) and what changed since the watch began;
//! `q` or Ctrl-C ends it with exit 0 and the terminal as it was (raw mode, the alternate
//! screen and the hidden cursor are undone on every way out: a key, Ctrl-C or SIGTERM, an
//! error, a panic). Without one: one report per interval, `-o jsonl` one document a line (the command's
//! `-o json` document), a table one block per interval under a line with the time; until
//! interrupted (exit 0).
//!
//! Each refresh is the command's own read on a pooled session (for `status` its 5 statements,
//! 8 with -v (the recent moves, the expired leases, the plans applied), pipelined: sent together, not one after another's answer),
//! outside any transaction; the session goes back to the pool between refreshes, so nothing
//! (no transaction, snapshot, lock or cursor) is held while the view waits. A lost database
//! is shown ("reconnecting…") and tried again with a growing wait (up to 10 s), never fatal;
//! what is missing for good (the schema, a grant, the database) ends the watch with its error.

use std::io::{self, Write};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::StreamExt;

use crate::commands::Exit;
use crate::context::Context;
use crate::duration::{format_duration, HumanDuration};
use crate::error::{Error, Result};
use crate::ui::{paragraphs, Format, Render, Ui};

/// The flags every watchable command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct WatchArgs {
    /// Refresh every --interval until q or Ctrl-C: on a terminal in place, with what changed since it began; otherwise one report per interval (-o jsonl: one document a line)
    #[arg(long)]
    pub watch: bool,
    /// How often --watch refreshes, at least 1s [default: 2s]
    #[arg(long, value_name = "DUR", requires = "watch", value_parser = crate::duration::parse_watch_interval)]
    pub interval: Option<HumanDuration>,
}

/// The default refresh, and the shortest allowed: a live view must not become a load test.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(2);
/// The longest wait between two tries to get a lost database back.
const BACKOFF_MAX: Duration = Duration::from_secs(10);

impl WatchArgs {
    pub fn interval(&self) -> Duration {
        self.interval.map_or(DEFAULT_INTERVAL, |d| d.0)
    }
}

/// One refresh's result, printed like the command's own (its table, its JSON), and on a
/// terminal as a screen that shows the changes since the first refresh.
pub trait Frame: Render + Clone {
    /// The screen's body: the report, with each number's change since `first` (▲3 / ▼12).
    fn screen(&self, first: &Self, ui: &Ui) -> String;

    /// The database's clock when it was read.
    fn as_of(&self) -> DateTime<Utc>;
}

/// What a watch reads on each refresh.
pub trait Source {
    type Frame: Frame;
    /// The command line, for the header (`reconctl status --watch`).
    fn title(&self) -> String;
    fn read(
        &self,
        client: &tokio_postgres::Client,
    ) -> impl std::future::Future<Output = Result<Self::Frame>>;
}

/// Runs the watch until `q`, Ctrl-C or a signal (exit 0), or an error that is not transient.
pub async fn watch<S: Source>(ctx: &Context, source: &S, args: &WatchArgs) -> Result<Exit> {
    let interval = args.interval();
    if ctx.ui.format == Format::Json {
        return Err(Error::usage(
            "--watch prints one report per refresh: use -o jsonl (one JSON document a line) or the table; -o json is one document",
        ));
    }
    let on_terminal = ctx.ui.format == Format::Table
        && ctx.ui.stdout_is_terminal()
        && io::IsTerminal::is_terminal(&io::stdin());
    if on_terminal {
        on_screen(ctx, source, interval).await
    } else {
        tokio::select! {
            r = stream(ctx, source, interval) => r,
            _ = crate::commands::interrupted() => Ok(Exit::Done),
        }
    }
}

/// One refresh: a session from the pool (a fresh one after a loss: the pool drops a closed
/// one), the read, the session back.
async fn refresh<S: Source>(ctx: &Context, source: &S) -> Result<S::Frame> {
    let pool = ctx.pool().await?;
    let db = crate::db::pool::get(pool).await?;
    let result = source.read(&db).await;
    if result.as_ref().is_err_and(|e| e.is_transient()) {
        // Whatever state this session is in, the next refresh starts on a new one.
        drop(deadpool::managed::Object::take(db));
    }
    result.map_err(|e| ctx.explain(e))
}

/// The next wait after a failed refresh: the interval at first, doubling up to 10 s.
fn backoff(previous: Option<Duration>, interval: Duration) -> Duration {
    match previous {
        None => interval.min(BACKOFF_MAX),
        Some(d) => (d * 2).min(BACKOFF_MAX.max(interval)),
    }
}

/// Without a terminal: one report per interval, on stdout; the losses and recoveries on
/// stderr (so a JSON lines recording stays one document a line).
async fn stream<S: Source>(ctx: &Context, source: &S, interval: Duration) -> Result<Exit> {
    let mut lost: Option<Duration> = None;
    let mut first = true;
    loop {
        let wait = match refresh(ctx, source).await {
            Ok(frame) => {
                if lost.take().is_some() {
                    ctx.ui.warn("reconnected");
                }
                let text = match ctx.ui.format {
                    Format::Table => {
                        let head = format!(
                            "── {} · {} · every {} ──",
                            clock(frame.as_of()),
                            source.title(),
                            format_duration(interval)
                        );
                        let gap = if first { "" } else { "\n" };
                        format!("{gap}{head}\n{}\n", frame.table(&ctx.ui))
                    }
                    _ => format!("{}\n", serde_json::to_string(&frame).unwrap_or_default()),
                };
                first = false;
                ctx.ui.out_raw(&text)?;
                interval
            }
            Err(e) if e.is_transient() => {
                let wait = backoff(lost, interval);
                lost = Some(wait);
                ctx.ui.warn(&format!(
                    "{}; reconnecting in {}",
                    e.message(),
                    format_duration(wait)
                ));
                wait
            }
            Err(e) => return Err(e),
        };
        tokio::time::sleep(wait).await;
    }
}

/// `2026-12-01 12:00:05 UTC`.
fn clock(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// The line over a live view whose database is away: why, when the next try is, and how old
/// the numbers below are, or that there are none yet (a watch started while it was away).
fn trouble_line(why: &str, wait: Duration, last: Option<DateTime<Utc>>) -> String {
    let shown = match last {
        Some(t) => format!("the numbers below are from {}", clock(t)),
        None => "no numbers yet: the database has not answered since the watch began".into(),
    };
    format!(
        "reconnecting… {why} (next try in {}; {shown})",
        format_duration(wait)
    )
}

/// The terminal in raw mode on the alternate screen, the cursor hidden; all undone when
/// dropped, however the watch ends.
struct Screen;

impl Screen {
    fn enter() -> Result<Screen> {
        use crossterm::{cursor, execute, terminal};
        terminal::enable_raw_mode()
            .map_err(|e| Error::runtime(format!("cannot set up the terminal: {e}")))?;
        let screen = Screen;
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)
            .map_err(|e| Error::runtime(format!("cannot set up the terminal: {e}")))?;
        Ok(screen)
    }

    /// Draws `text` from the top left, cut to the terminal's height.
    fn draw(&self, text: &str, height: u16) -> Result<()> {
        use crossterm::{cursor, queue, terminal};
        let mut out = io::stdout().lock();
        let rows = usize::from(height.max(2));
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.len() > rows {
            lines.truncate(rows - 1);
            lines.push("… (more below: make the terminal taller)");
        }
        queue!(
            out,
            cursor::MoveTo(0, 0),
            terminal::Clear(terminal::ClearType::All)
        )
        .and_then(|()| {
            // Raw mode: a newline does not return the carriage.
            out.write_all(lines.join("\r\n").as_bytes())?;
            out.flush()
        })
        .map_err(|e| Error::runtime(format!("cannot write output: {e}")))
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        use crossterm::{cursor, execute, terminal};
        let _ = execute!(io::stdout(), cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }
}

/// What the screen shows now: the first frame (for the changes), the last one, and the
/// trouble, if the last refresh failed.
struct View<F> {
    first: Option<F>,
    last: Option<F>,
    trouble: Option<String>,
}

impl<F: Frame> View<F> {
    fn text<S: Source<Frame = F>>(
        &self,
        source: &S,
        ctx: &Context,
        interval: Duration,
        width: u16,
    ) -> String {
        let ui = ctx.ui.clone().with_width(Some(width));
        let database = ctx
            .target()
            .map(|t| t.describe())
            .unwrap_or_else(|_| "?".into());
        let when = self
            .last
            .as_ref()
            .map(|f| clock(f.as_of()))
            .unwrap_or_else(|| "connecting…".into());
        let head = format!(
            "{} · {when} · {database} · every {} · q quits",
            source.title(),
            format_duration(interval)
        );
        let mut text = paragraphs(&head, Some(usize::from(width)));
        if let Some(t) = &self.trouble {
            text.push('\n');
            text.push_str(&paragraphs(t, Some(usize::from(width))));
        }
        if let (Some(first), Some(last)) = (&self.first, &self.last) {
            text.push_str("\n\n");
            text.push_str(&last.screen(first, &ui));
        }
        text
    }
}

/// Whether a key ends the watch: `q`, `Q`, Ctrl-C, Ctrl-D.
fn quits(key: &crossterm::event::KeyEvent) -> bool {
    use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
    if key.kind == KeyEventKind::Release {
        return false;
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Char('Q') => true,
        KeyCode::Char('c') | KeyCode::Char('d') => key.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

async fn on_screen<S: Source>(ctx: &Context, source: &S, interval: Duration) -> Result<Exit> {
    use crossterm::event::{Event, EventStream};
    // The target is resolved (and its warnings printed) before the screen hides stderr.
    ctx.target()?;
    let screen = Screen::enter()?;
    let mut keys = EventStream::new();
    let mut view: View<S::Frame> = View {
        first: None,
        last: None,
        trouble: None,
    };
    let mut lost: Option<Duration> = None;
    let size = || crate::ui::terminal_size().unwrap_or((80, 24));
    let stop = crate::commands::interrupted();
    tokio::pin!(stop);
    loop {
        if view.last.is_none() && view.trouble.is_none() {
            let (width, height) = size();
            screen.draw(&view.text(source, ctx, interval, width), height)?;
        }
        let refreshed = tokio::select! {
            r = refresh(ctx, source) => r,
            _ = &mut stop => return Ok(Exit::Done),
        };
        let wait = match refreshed {
            Ok(frame) => {
                lost = None;
                view.trouble = None;
                if view.first.is_none() {
                    view.first = Some(frame.clone());
                }
                view.last = Some(frame);
                interval
            }
            Err(e) if e.is_transient() => {
                let wait = backoff(lost, interval);
                lost = Some(wait);
                view.trouble = Some(trouble_line(
                    e.message(),
                    wait,
                    view.last.as_ref().map(|f| f.as_of()),
                ));
                wait
            }
            Err(e) => {
                drop(screen);
                return Err(e);
            }
        };
        let (width, height) = size();
        screen.draw(&view.text(source, ctx, interval, width), height)?;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => break,
                _ = &mut stop => return Ok(Exit::Done),
                ev = keys.next() => match ev {
                    Some(Ok(Event::Key(key))) if quits(&key) => return Ok(Exit::Done),
                    Some(Ok(Event::Resize(w, h))) => {
                        screen.draw(&view.text(source, ctx, interval, w), h)?;
                    }
                    Some(Ok(_)) => {}
                    // stdin closed or unreadable: no key can end the watch but a signal.
                    Some(Err(_)) | None => {
                        std::future::pending::<()>().await;
                    }
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23 item 14: a watch started with the database down said "the numbers below
    /// are from never".
    #[test]
    fn item_14_a_watch_without_numbers_yet_says_so() {
        let line = trouble_line("connection refused", Duration::from_secs(2), None);
        assert_eq!(
            line,
            "reconnecting… connection refused (next try in 2s; no numbers yet: the database has not answered since the watch began)"
        );
        assert!(!line.contains("never"));
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        assert!(trouble_line("x", Duration::from_secs(2), Some(t))
            .ends_with("the numbers below are from 2027-01-15 08:00:00 UTC)"));
    }

    #[test]
    fn reconnecting_waits_longer_each_time_up_to_ten_seconds() {
        let i = Duration::from_secs(2);
        let mut d = None;
        let mut seen = Vec::new();
        for _ in 0..5 {
            let next = backoff(d, i);
            seen.push(next.as_secs());
            d = Some(next);
        }
        assert_eq!(seen, vec![2, 4, 8, 10, 10]);
        // An interval longer than the cap is never shortened.
        assert_eq!(
            backoff(Some(Duration::from_secs(30)), Duration::from_secs(30)).as_secs(),
            30
        );
    }
}
