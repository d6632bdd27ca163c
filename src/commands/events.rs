//! `reconctl events`: the audit trail across jobs, filtered, in keyset pages; `--follow`
//! prints events as they commit (SPEC §7; the queries and the follower: `jobs::events`,
//! which takes the filters parsed: `--action` and `--since`/`--until` are read here).
//!
//! `-o table` is a timeline read top-down, one event a line: time (a heading line for each
//! UTC day), actor, job id prefix, the move, then reason and evidence. It fits the terminal
//! the way an audit view must: who and why outrank everything but when and what, so times,
//! moves and actors are never cut, the job column goes first when space is short (the job's
//! id then starts the line under the event), and a reason (with its evidence) too long for
//! the rest of its line goes whole under it, wrapped. Every string from
//! the database (actors, reasons, evidence: they come from outside) goes through
//! [`crate::ui::escape`], so the terminal shows control characters (`\n`, `\x1b`,
//! `\u{202e}`) instead of obeying them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use dialoguer::console::measure_text_width;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::commands::Exit;
use crate::context::Context;
use crate::db::PooledClient;
use crate::error::{Error, Result};
use crate::jobs::events::{
    self, gave_up, next_poll, EventFilter, EventPage, Follow, FollowError, History, Since, Step,
    TrailEvent, POLL_MIN,
};
use crate::jobs::pause::PauseAction;
use crate::jobs::{store, Action, JobRef};
use crate::ui::{escape, Format, Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  reconctl events --since 2h -o table\n  reconctl events --destination cms-a --since 2024-05-01T09:00:00Z --until 2024-05-01T12:00:00Z\n  reconctl events --actor alice@ops --action mark-accepted --action mark-safe-to-retry\n  reconctl events --job pub_8b8c… -o json\n  reconctl events --follow --destination cms-a\n  reconctl events --last 20 --follow\n  reconctl events --since 1d --until 1h\n\nEvents come oldest first (by at, then id): job events and destination pauses, resumes and expiries in one stream. A page ends with the cursor of the next one; --last N gives the newest N (no cursor). --since and --until take a duration back from now or a time; with --follow, a duration is fixed when the command starts. --follow prints each event once as its transaction commits (also one that took its id before an earlier-committed one, and across a server crash and restart), until Ctrl-C (exit 0); if the database stays away it exits 1."
)]
pub struct Args {
    /// Only the events of this job (its id, a unique prefix of it, or its external_ref)
    #[arg(long, value_name = "JOB")]
    pub job: Option<String>,
    /// Only events of this destination's jobs, and its pauses and resumes
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    /// Only events recorded by this actor, exactly as recorded (a person, a worker's lease
    /// owner, a sweeper)
    #[arg(long, value_name = "NAME")]
    pub actor: Option<String>,
    /// Only events of this action (repeatable): a move (reserve, claim, mark_accepted, …) or
    /// pause, repause, resume, expire
    #[arg(long, value_name = "ACTION", value_parser = crate::cli::one_of::offering(valid_actions))]
    pub action: Vec<String>,
    /// Only events at or after this: a duration back from now (30m, 2h, 1d) or an RFC 3339
    /// time (2024-05-01T09:00:00Z)
    #[arg(long, value_name = "DUR|TIME")]
    pub since: Option<String>,
    /// Only events before this: a duration back from now (1h: an hour ago) or an RFC 3339
    /// time
    #[arg(long, value_name = "DUR|TIME")]
    pub until: Option<String>,
    /// At most this many events (1 to 10000) [default: 50]
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,
    /// Only the newest N events that match (1 to 10000), still printed oldest first, like
    /// `journalctl -n`; with --follow, these and then the new ones
    #[arg(long, value_name = "N")]
    pub last: Option<u32>,
    /// Continue after the last event of a previous page (its `next_cursor`)
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,
    /// Keep printing matching events as they commit, until Ctrl-C; with --since, --cursor or
    /// --last, first the ones already there
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// Read the events of this archive (`events archive`) instead of the database, with the
    /// same filters and output; its checksum is verified first
    #[arg(long, value_name = "FILE")]
    pub archive: Option<std::path::PathBuf>,
    /// Only this plan's lifecycle (created, approved, apply, applied, discarded) and its
    /// moves (`reconctl plan`)
    #[arg(long, value_name = "ID", conflicts_with_all = ["job", "destination", "actor", "action", "since", "until", "last", "cursor", "follow", "archive"])]
    pub plan: Option<String>,
    #[command(subcommand)]
    pub retention: Option<super::events_archive::Retention>,
}

const DEFAULT_LIMIT: u32 = 50;
const MAX_LIMIT: u32 = 10_000;

/// How long `--follow` keeps trying to get the database back before it exits 1.
const RETRY_FOR: Duration = Duration::from_secs(60);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Every action `--action` accepts: each move of the transition table (job_events.action),
/// then what destination_events records (a pause, a change of a pause, a resume, and a pause
/// that ended by itself).
pub fn valid_actions() -> Vec<&'static str> {
    Action::ALL
        .iter()
        .map(|a| a.as_str())
        .chain(PauseAction::ALL.iter().map(|a| a.as_str()))
        .collect()
}

/// An `--action` value (`mark-accepted` is `mark_accepted`), or exit 2 listing the valid ones.
pub fn parse_action(s: &str) -> Result<&'static str> {
    let norm = s.trim().to_ascii_lowercase().replace('-', "_");
    valid_actions()
        .into_iter()
        .find(|a| *a == norm)
        .ok_or_else(|| {
            Error::usage(format!(
                "unknown --action `{}` (expected one of: {})",
                s.chars().take(100).collect::<String>(),
                valid_actions().join(", ")
            ))
        })
}

/// An RFC 3339 time (`2024-05-01T10:00:00Z`, a space for the `T`, any offset), in UTC.
pub fn parse_time(s: &str) -> std::result::Result<DateTime<Utc>, String> {
    let s = s.trim();
    DateTime::parse_from_rfc3339(s)
        .or_else(|_| DateTime::parse_from_rfc3339(&s.replacen(' ', "T", 1)))
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            format!(
                "`{}` is not an RFC 3339 time (e.g. 2024-05-01T10:00:00Z; the offset is required)",
                escape(&s.chars().take(100).collect::<String>())
            )
        })
}

/// A `--since`/`--until` value: a duration back from the database's clock (`90s`, `2h`,
/// `1d`), or an RFC 3339 time.
pub fn parse_since(s: &str) -> std::result::Result<Since, String> {
    if let Ok(d) = crate::duration::parse(s) {
        return Ok(Since::Ago(d));
    }
    parse_time(s).map(Since::At).map_err(|_| {
        format!(
            "`{}` is neither a duration (90s, 15m, 2h, 1d) nor an RFC 3339 time (2024-05-01T10:00:00Z; the offset is required)",
            escape(&s.trim().chars().take(100).collect::<String>())
        )
    })
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    if let Some(cmd) = &args.retention {
        return super::events_archive::run(ctx, cmd).await;
    }
    if let Some(plan) = &args.plan {
        return crate::commands::plan::events(ctx, plan).await;
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::usage(format!(
            "--limit {limit} is out of range (1 to {MAX_LIMIT})"
        )));
    }
    let job: Option<JobRef> = args
        .job
        .as_deref()
        .map(|j| j.parse::<JobRef>())
        .transpose()
        .map_err(|e| Error::usage(format!("--job: {e}")))?;
    let since: Option<Since> = args
        .since
        .as_deref()
        .map(parse_since)
        .transpose()
        .map_err(|e| Error::usage(format!("invalid --since: {e}")))?;
    let until: Option<Since> = args
        .until
        .as_deref()
        .map(parse_since)
        .transpose()
        .map_err(|e| Error::usage(format!("invalid --until: {e}")))?;
    if let Some(n) = args.last {
        if !(1..=MAX_LIMIT).contains(&n) {
            return Err(Error::usage(format!(
                "--last {n} is out of range (1 to {MAX_LIMIT})"
            )));
        }
        for (given, flag) in [
            (args.limit.is_some(), "--limit"),
            (args.cursor.is_some(), "--cursor"),
        ] {
            if given {
                return Err(Error::usage(format!(
                    "--last prints the newest events; {flag} pages from the oldest: give one of them"
                )));
            }
        }
    }
    let actions = args
        .action
        .iter()
        .map(|a| parse_action(a))
        .collect::<Result<Vec<_>>>()?;
    if args.follow {
        if args.limit.is_some() {
            return Err(Error::usage(
                "--limit pages a listing; --follow prints every matching event",
            ));
        }
        if until.is_some() {
            return Err(Error::usage(
                "--until ends a listing; --follow prints events as they commit",
            ));
        }
        if ctx.ui.format == Format::Json {
            return Err(
                Error::usage("--follow prints a stream, not one JSON document")
                    .hinted("use -o jsonl: one event a line, as each commits"),
            );
        }
    }
    let mut filter = EventFilter {
        job: None,
        destination: args.destination.clone(),
        actor: args.actor.clone(),
        actions,
        since,
        until,
    };
    if let Some(file) = &args.archive {
        if args.follow {
            return Err(Error::usage(
                "--follow prints events as they commit; an archive is read whole",
            ));
        }
        return super::events_archive::read(
            ctx,
            super::events_archive::ArchiveRead {
                file,
                filter,
                job: args.job.as_deref(),
                limit,
                cursor: args.cursor.as_deref(),
                last: args.last,
            },
        );
    }
    let db = ctx.db().await?;
    crate::commands::jobs::require_known_destination(ctx, &**db, filter.destination.as_deref())
        .await?;
    if let Some(j) = &job {
        filter.job = Some(store::get(&**db, j).await?.id);
    }
    if args.follow {
        let history = match (&args.cursor, since, args.last) {
            (_, _, Some(n)) => History::Last(n),
            (Some(c), _, None) => History::From(Some(events::decode_cursor(&filter, c)?)),
            (None, Some(_), None) => History::From(None),
            (None, None, None) => History::None,
        };
        drop(db);
        return follow(ctx, filter, history).await;
    }
    let page = match args.last {
        Some(n) => EventPage {
            events: events::last(&**db, &filter, n).await?,
            next_cursor: None,
        },
        None => events::page(&**db, &filter, limit, args.cursor.as_deref()).await?,
    };
    drop(db);
    ctx.ui.emit(&EventList::new(page))?;
    Ok(Exit::Done)
}

// ---------------------------------------------------------------------------------------
// --follow
// ---------------------------------------------------------------------------------------

/// Until Ctrl-C (or SIGTERM): exit 0. Output is written between awaits, so an interrupt
/// never cuts a line.
async fn follow(ctx: &Context, filter: EventFilter, history: History) -> Result<Exit> {
    tokio::select! {
        r = follow_loop(ctx, filter, history) => r,
        _ = super::interrupted() => Ok(Exit::Done),
    }
}

/// A session for the next step. Straight from the pool (not `Context::db`, which remembers a
/// failure for the connect timeout): each retry really tries.
async fn connect(ctx: &Context) -> std::result::Result<PooledClient, FollowError> {
    let pool = ctx.pool().await?;
    crate::db::pool::get(pool)
        .await
        .map_err(|error| FollowError {
            // The server is down, restarting, unreachable, or (a failover) not yet primary.
            transient: error.is_transient(),
            error,
        })
}

async fn follow_loop(ctx: &Context, filter: EventFilter, history: History) -> Result<Exit> {
    let mut timeline = Timeline::for_follow(&ctx.ui);
    let mut client: Option<PooledClient> = None;
    let mut state: Option<Follow> = None;
    let mut wait = POLL_MIN;
    // Since when the database has been away, and the last wait before trying again.
    let mut lost: Option<(Instant, Duration)> = None;
    let mut last: Option<TrailEvent> = None;
    loop {
        let step: std::result::Result<Step, FollowError> = async {
            if client.is_none() {
                client = Some(connect(ctx).await?);
            }
            let c = client.as_ref().expect("connected");
            match &mut state {
                None => {
                    state = Some(Follow::start(&***c, filter.clone(), history).await?);
                    Ok(Step {
                        events: Vec::new(),
                        more: true,
                    })
                }
                Some(f) => f.step(&***c).await,
            }
        }
        .await;
        match step {
            Ok(step) => {
                if lost.take().is_some() {
                    ctx.ui
                        .status("reconnected: resuming after the last event printed");
                }
                if !step.events.is_empty() {
                    ctx.ui.emit(&timeline.chunk(&step.events))?;
                    last = step.events.last().cloned();
                }
                if step.more {
                    continue;
                }
                wait = next_poll(wait, !step.events.is_empty());
                tokio::time::sleep(wait).await;
            }
            Err(f) if f.transient => {
                // A fresh connection next time, whatever state this one is in.
                if let Some(c) = client.take() {
                    drop(deadpool::managed::Object::take(c));
                }
                let (since, backoff) = lost.get_or_insert((Instant::now(), Duration::ZERO));
                if since.elapsed() >= RETRY_FOR {
                    return Err(gave_up(&f.error, RETRY_FOR, last.as_ref()));
                }
                *backoff = (*backoff * 2).clamp(Duration::from_millis(250), BACKOFF_MAX);
                ctx.ui.warn(&format!(
                    "{}; reconnecting in {}",
                    f.error.message(),
                    crate::duration::format_duration(*backoff)
                ));
                tokio::time::sleep(*backoff).await;
            }
            Err(f) => return Err(f.error),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------

/// A page of events, as SPEC §7 shows it.
#[derive(Debug, Serialize)]
pub(crate) struct EventList {
    events: Vec<TrailEvent>,
    next_cursor: Option<String>,
}

impl EventList {
    pub(crate) fn from_parts(events: Vec<TrailEvent>, next_cursor: Option<String>) -> EventList {
        EventList {
            events,
            next_cursor,
        }
    }

    fn new(page: EventPage) -> EventList {
        EventList {
            events: page.events,
            next_cursor: page.next_cursor,
        }
    }
}

impl Render for EventList {
    fn table(&self, ui: &Ui) -> String {
        if self.events.is_empty() {
            return "no events match".into();
        }
        let mut text = Timeline::for_page(ui, &self.events).lines(&self.events);
        if let Some(c) = &self.next_cursor {
            text.push_str(&format!("\nmore: --cursor {c}"));
        }
        text
    }

    fn output(&self) -> Output {
        Output::Data
    }

    fn jsonl(&self) -> Vec<Value> {
        self.events.iter().map(to_value).collect()
    }
}

fn to_value(e: &TrailEvent) -> Value {
    serde_json::to_value(e).unwrap_or(Value::Null)
}

/// What one step of `--follow` prints: timeline lines, or one event a line.
#[derive(Debug, Serialize)]
struct Chunk {
    #[serde(skip)]
    text: String,
    events: Vec<Value>,
}

impl Render for Chunk {
    fn table(&self, _ui: &Ui) -> String {
        self.text.clone()
    }

    fn output(&self) -> Output {
        Output::Data
    }

    fn jsonl(&self) -> Vec<Value> {
        self.events.clone()
    }
}

/// Columns every line has; reason and evidence take the rest of the width.
const TIME: usize = 8;
const GAP: usize = 2;
/// The narrowest terminal the layout plans for (SPEC §5).
const MIN_WIDTH: usize = 60;
/// An id prefix: unique enough to tell the events' jobs apart (and 8+ hex digits, as JOB
/// arguments take them).
const ID_PREFIX: usize = 8;
/// The narrowest reason worth showing beside the line: the job column goes before it.
const DETAIL_MIN: usize = 20;
/// The widest move between two states (`uncertain → safe_to_retry`).
const MOVE_WIDTH: usize = 25;

/// The timeline's layout, and what it printed last (for `--follow`: the header once, a
/// heading line when the day changes).
struct Timeline {
    width: Option<usize>,
    /// The widest id prefix, in hex digits.
    id_digits: usize,
    /// Each job's prefix (a page); jobs not here get [`ID_PREFIX`] digits (a stream).
    digits: HashMap<Uuid, usize>,
    actor: usize,
    moves: usize,
    /// Whether the job column is shown (dropped before actor and reason are cut).
    job: bool,
    /// Width left on the line for reason and evidence: `None` unlimited (not a terminal).
    /// A detail longer than that goes under the line, wrapped.
    detail: Option<usize>,
    header: bool,
    day: Option<NaiveDate>,
}

impl Timeline {
    fn new(ui: &Ui, id_digits: usize, actor_max: usize, moves: usize) -> Timeline {
        let width = ui.width().map(|w| usize::from(w).max(MIN_WIDTH));
        let id = id_digits + usize::from(id_digits > 8);
        // The actor is never cut: one wider than its column starts the line under its event.
        let actor_max = actor_max.max("ACTOR".len());
        let (actor, job, detail) = match width {
            None => (actor_max, true, None),
            Some(w) => {
                let actor = actor_max
                    .min(w.saturating_sub(TIME + 2 * GAP + moves))
                    .max("ACTOR".len());
                // Time, actor and move always; the job when the detail keeps a useful width
                // beside it; the detail takes the rest (or goes under the line).
                let rest = w.saturating_sub(TIME + GAP + actor + GAP + moves);
                let job = rest >= GAP + id + GAP + DETAIL_MIN;
                let rest = rest - if job { GAP + id } else { 0 };
                (actor, job, Some(rest.saturating_sub(GAP)))
            }
        };
        Timeline {
            width,
            id_digits,
            digits: HashMap::new(),
            actor,
            moves,
            job,
            detail,
            header: false,
            day: None,
        }
    }

    /// Sized to a page: the actors and moves it holds, id prefixes long enough to tell its
    /// jobs apart.
    fn for_page(ui: &Ui, events: &[TrailEvent]) -> Timeline {
        let actor = events
            .iter()
            .map(|e| measure_text_width(&escape(&e.actor)))
            .max()
            .unwrap_or(0);
        let moves = events
            .iter()
            .map(|e| measure_text_width(&move_text(e)))
            .max()
            .unwrap_or(0)
            .clamp("MOVE".len(), MOVE_WIDTH);
        // Each job's prefix is as long as it must be to differ from every other job's here.
        let mut ids: Vec<Uuid> = events.iter().filter_map(|e| e.job_id).collect();
        ids.sort();
        ids.dedup();
        let common = |a: &Uuid, b: &Uuid| {
            let (a, b) = (a.simple().to_string(), b.simple().to_string());
            a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
        };
        let mut digits = HashMap::new();
        for (i, id) in ids.iter().enumerate() {
            let before = i.checked_sub(1).map_or(0, |p| common(&ids[p], id));
            let after = ids.get(i + 1).map_or(0, |n| common(id, n));
            digits.insert(*id, (before.max(after) + 1).clamp(ID_PREFIX, 32));
        }
        let mut t = Timeline::new(
            ui,
            digits.values().copied().max().unwrap_or(ID_PREFIX),
            actor,
            moves,
        );
        t.digits = digits;
        t
    }

    /// For a stream: what is to come is unknown, so typical widths.
    fn for_follow(ui: &Ui) -> Timeline {
        Timeline::new(ui, ID_PREFIX, 16, MOVE_WIDTH)
    }

    fn chunk(&mut self, events: &[TrailEvent]) -> Chunk {
        Chunk {
            text: self.lines(events),
            events: events.iter().map(to_value).collect(),
        }
    }

    /// The lines of these events (with the header, the first time).
    fn lines(&mut self, events: &[TrailEvent]) -> String {
        let mut out: Vec<String> = Vec::with_capacity(events.len() + 2);
        if !self.header {
            self.header = true;
            let detail = match self.detail {
                // Every reason goes under its line (with its job's id): no column to head.
                _ if !self.job => "",
                Some(d) if d < "REASON".len() => "",
                Some(d) if d < "REASON · EVIDENCE".len() => "REASON",
                _ => "REASON · EVIDENCE",
            };
            out.extend(self.line("TIME", "ACTOR", "JOB", "MOVE", detail.to_string()));
        }
        for e in events {
            let day = e.at.date_naive();
            if self.day != Some(day) {
                self.day = Some(day);
                out.push(format!("── {day} (UTC)"));
            }
            let job = match e.job_id {
                Some(id) => id_prefix(
                    &id.to_string(),
                    self.digits.get(&id).copied().unwrap_or(ID_PREFIX),
                ),
                None => "-".to_string(),
            };
            out.extend(self.line(
                &e.at.format("%H:%M:%S").to_string(),
                &escape(&e.actor),
                &job,
                &move_text(e),
                detail_text(e),
            ));
        }
        out.join("\n")
    }

    /// One event's line, and under it, when it does not fit beside the rest, its reason and
    /// evidence, wrapped (never cut: why something moved is what an audit view is for).
    fn line(&self, time: &str, actor: &str, job: &str, mv: &str, detail: String) -> Vec<String> {
        let id = self.id_digits + usize::from(self.id_digits > 8);
        let mut line = String::new();
        line.push_str(&pad(time, TIME));
        line.push_str(&" ".repeat(GAP));
        // An actor wider than its column goes whole under the line, before the rest.
        let (shown_actor, actor_under) = match self.width {
            Some(_) if measure_text_width(actor) > self.actor => ("", Some(actor)),
            _ => (actor, None),
        };
        line.push_str(&pad(shown_actor, self.actor));
        if self.job {
            line.push_str(&" ".repeat(GAP));
            line.push_str(&pad(job, id));
        }
        line.push_str(&" ".repeat(GAP));
        // A move is never cut: a longer one (a long destination name) takes from the detail.
        line.push_str(&pad(mv, self.moves));
        // Without a job column the job's id starts the line under the event, whole.
        let mut under_parts: Vec<&str> = Vec::new();
        under_parts.extend(actor_under);
        if !(self.job || job == "-" || job == "JOB") {
            under_parts.push(job);
        }
        let under = !under_parts.is_empty();
        if !detail.is_empty() {
            under_parts.push(&detail);
        }
        let detail = under_parts.join(" · ");
        let budget = self
            .width
            .map(|w| w.saturating_sub(measure_text_width(&line) + GAP));
        let mut below = Vec::new();
        match budget {
            _ if detail.is_empty() => {}
            Some(b) if under || measure_text_width(&detail) > b => {
                let indent = TIME + GAP;
                let w = self.width.unwrap_or(MIN_WIDTH).saturating_sub(indent);
                below = crate::ui::table::wrap_words(&detail, w)
                    .into_iter()
                    .map(|l| format!("{}{l}", " ".repeat(indent)))
                    .collect();
            }
            _ => {
                line.push_str(&" ".repeat(GAP));
                line.push_str(&detail);
            }
        }
        let mut lines = vec![line.trim_end().to_string()];
        lines.extend(below);
        lines
    }
}

fn pad(s: &str, width: usize) -> String {
    let w = measure_text_width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// The first `digits` hex digits of a job id, as its text starts (`1a2b3c4d`, `1a2b3c4d-5`).
fn id_prefix(id: &str, digits: usize) -> String {
    let mut n = 0;
    id.chars()
        .take_while(|c| {
            if *c == '-' {
                return n < digits;
            }
            n += 1;
            n <= digits
        })
        .collect()
}

/// `uncertain → accepted`; `→ pending` for a creation; `in_flight (renew)` for a move that
/// stays in its state; `pause cms-a` for a destination event.
fn move_text(e: &TrailEvent) -> String {
    if !e.is_job_event() {
        return format!("{} {}", escape(&e.action), escape(&e.destination));
    }
    let to = escape(e.to_state.as_deref().unwrap_or("?"));
    match e.from_state.as_deref() {
        None => format!("→ {to}"),
        Some(from) if from == e.to_state.as_deref().unwrap_or("") => {
            format!("{to} ({})", escape(&e.action))
        }
        Some(from) => format!("{} → {to}", escape(from)),
    }
}

/// The reason (or, without one, the action, unless the move column shows it), then a
/// summary of the evidence.
fn detail_text(e: &TrailEvent) -> String {
    let mut parts = Vec::new();
    match e.reason.as_deref().map(str::trim) {
        Some(r) if !r.is_empty() => parts.push(escape(r)),
        _ => {
            let in_move = !e.is_job_event() || e.from_state.is_some() && e.from_state == e.to_state;
            if !in_move {
                parts.push(escape(&e.action));
            }
        }
    }
    let evidence = evidence_summary(&e.evidence, e.at);
    if !evidence.is_empty() {
        parts.push(evidence);
    }
    parts.join(" · ")
}

/// `key=value …` of the evidence's top level, values shortened (times to the clock, long
/// strings to their start); a lookup as its outcome and verdict. `-o json` has all of it.
fn evidence_summary(evidence: &Value, at: DateTime<Utc>) -> String {
    let Value::Object(map) = evidence else {
        return short(&escape(&evidence.to_string()), at);
    };
    let mut parts = Vec::new();
    for (k, v) in map {
        let k = escape(k);
        match (k.as_str(), v) {
            (_, Value::Null) => {}
            ("lookup", Value::Object(l)) => {
                let s = |key: &str| l.get(key).and_then(Value::as_str).map(escape);
                parts.push(format!(
                    "lookup {} → {}",
                    s("outcome").unwrap_or_else(|| "?".into()),
                    s("verdict").unwrap_or_else(|| "?".into())
                ));
            }
            ("lookup", Value::String(s)) => parts.push(format!("lookup {}", escape(s))),
            (_, Value::String(s)) => parts.push(format!("{k}={}", short(&escape(s), at))),
            (_, Value::Array(a)) => parts.push(format!("{k}=[{}]", a.len())),
            (_, Value::Object(o)) if o.is_empty() => {}
            (_, Value::Object(_)) => parts.push(format!("{k}={{…}}")),
            (_, other) => parts.push(format!("{k}={other}")),
        }
    }
    parts.join(" ")
}

/// A time as the clock (its day too when it is not the event's), a long value as its start.
fn short(s: &str, at: DateTime<Utc>) -> String {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        let t = t.with_timezone(&Utc);
        return if t.date_naive() == at.date_naive() {
            t.format("%H:%M:%S").to_string()
        } else {
            t.to_rfc3339_opts(SecondsFormat::Secs, true)
        };
    }
    if s.chars().count() > 24 {
        let mut head: String = s.chars().take(12).collect();
        head.push('…');
        return head;
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_prefixes_keep_the_hyphen_after_eight_digits() {
        let id = "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809";
        assert_eq!(id_prefix(id, 8), "1a2b3c4d");
        assert_eq!(id_prefix(id, 9), "1a2b3c4d-5");
        assert_eq!(id_prefix(id, 12), "1a2b3c4d-5e6f");
    }

    #[test]
    fn actions_are_validated_and_normalised() {
        assert_eq!(parse_action("mark-accepted").unwrap(), "mark_accepted");
        assert_eq!(parse_action(" Pause ").unwrap(), "pause");
        assert_eq!(parse_action("reserve").unwrap(), "reserve");
        let err = parse_action("delete").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.message().contains("claim"), "{}", err.message());
        assert!(err.message().contains("resume"), "{}", err.message());
    }

    #[test]
    fn since_is_a_duration_or_a_time() {
        assert_eq!(
            parse_since("1h").unwrap(),
            Since::Ago(Duration::from_secs(3600))
        );
        let t = parse_since("2024-05-01T10:00:00+02:00").unwrap();
        assert_eq!(
            t,
            Since::At(DateTime::from_timestamp(1_714_550_400, 0).unwrap())
        );
        assert_eq!(
            parse_since("2024-05-01 08:00:00Z").unwrap(),
            Since::At(DateTime::from_timestamp(1_714_550_400, 0).unwrap())
        );
        for bad in ["", "yesterday", "10", "2024-05-01", "2024-05-01T10:00:00"] {
            assert!(parse_since(bad).is_err(), "{bad}");
        }
    }
}
