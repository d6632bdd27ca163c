//! `reconctl destination list | pause | resume` (SPEC §6): stop workers sending to a failing
//! CMS, show everyone who paused it, why and until when, and let them claim again.
//!
//! Pause and resume ask like `mark`: on a terminal they show the destination, its open jobs
//! and in-flight leases, then ask (default No); without a terminal they need `--yes`. A name
//! that is neither configured, paused, nor named by any job is refused (exit 2, with the
//! known names): a typo must not pause nothing and look as if it worked.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use clap::Subcommand;
use serde::Serialize;
use tokio_postgres::GenericClient;

use super::Exit;
use crate::commands::Confirmation;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Code, Error, Result};
use crate::jobs::model::rfc3339_opt;
use crate::jobs::pause::{self, DestinationEvent, Pause, Pauses};
use crate::jobs::query::{self, DestinationLoad};
use crate::jobs::State;
use crate::ui::{
    escape, paragraphs, thousands, Cell, Column, Fields, Output, Render, Table, Tone, Ui,
};

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Examples:\n  reconctl destination list\n  reconctl destination pause cms-a --reason \"CMS answers 503, vendor ticket 4711\" --for 1h\n  reconctl destination resume cms-a --reason \"CMS healthy again\"\n\nWhile a destination is paused, workers claim none of its jobs; jobs already in flight finish\nor time out as usual, and lookups, marks and reconcile still work. Workers outside reconctl\nskip paused destinations with the predicate in SPEC §6."
)]
pub enum DestinationCommand {
    /// Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when
    #[command(
        after_help = "PAUSED is yes, no, or expired (its end passed; shown so to a session that may not record\nthe expiry, e.g. a reader: workers already claim its jobs again). UNTIL \"not set\": paused\nuntil someone resumes it.\n\nExamples:\n  reconctl destination list\n  reconctl destination list -o json | jq -r '.destinations[] | select(.paused) | .name'"
    )]
    List(ListArgs),
    /// Stop workers claiming one destination's jobs (in-flight jobs finish as usual)
    #[command(
        after_help = "Pausing a paused destination changes its reason and end (recorded as a repause).\n\nExamples:\n  reconctl destination pause cms-a --reason \"CMS answers 503\"\n  reconctl destination pause cms-a --reason \"vendor maintenance until 14:00\" --for 2h --yes\n  reconctl destination pause cms-a --reason \"CMS answers 503\" --dry-run -o json"
    )]
    Pause(PauseArgs),
    /// Let workers claim one destination's jobs again
    #[command(
        after_help = "Resuming a destination that is not paused is \"no change\" (exit 0).\nAfterwards, settle what the outage left uncertain: reconctl reconcile --destination NAME.\n\nExamples:\n  reconctl destination resume cms-a --reason \"CMS healthy again\"\n  reconctl destination resume cms-a --reason \"CMS healthy again\" --yes -o json"
    )]
    Resume(ResumeArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {}

#[derive(Debug, clap::Args)]
pub struct PauseArgs {
    /// The destination, as jobs name it (publication_jobs.destination)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Why (recorded, and shown by status, jobs list and destination list)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// End the pause by itself after this long [default: until resumed]
    #[arg(long = "for", value_name = "DUR")]
    pub for_: Option<HumanDuration>,
    #[command(flatten)]
    pub confirm: Confirmation,
}

#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    /// The destination, as jobs name it (publication_jobs.destination)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Why (recorded)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    #[command(flatten)]
    pub confirm: Confirmation,
}

pub async fn run(ctx: &Context, cmd: &DestinationCommand) -> Result<Exit> {
    match cmd {
        DestinationCommand::List(_) => list(ctx).await,
        DestinationCommand::Pause(args) => pause_cmd(ctx, args).await,
        DestinationCommand::Resume(args) => resume_cmd(ctx, args).await,
    }
}

// ---------------------------------------------------------------------------------------
// What a destination looks like (list, status, reports)
// ---------------------------------------------------------------------------------------

/// One destination as `destination list -o json` shows it (SPEC §6), exactly these keys.
#[derive(Debug, Clone, Serialize)]
pub struct DestinationView {
    pub name: String,
    pub configured: bool,
    pub paused: bool,
    pub reason: Option<String>,
    pub actor: Option<String>,
    #[serde(serialize_with = "rfc3339_opt")]
    pub since: Option<DateTime<Utc>>,
    #[serde(serialize_with = "rfc3339_opt")]
    pub until: Option<DateTime<Utc>>,
    /// A pause that ended by its `until` but whose expiry this session may not record (a
    /// reader): shown as expired in tables, not paused in JSON.
    #[serde(skip)]
    pub expired: Option<Pause>,
    /// How it is asked, for tables: its kind and auth scheme (`wordpress, basic`), never a
    /// secret; None when it is not configured.
    #[serde(skip)]
    pub lookup: Option<String>,
}

impl DestinationView {
    pub fn new(name: &str, configured: bool, pauses: &Pauses) -> DestinationView {
        let pause = pauses.of(name);
        DestinationView {
            name: name.to_string(),
            configured,
            paused: pause.is_some(),
            reason: pause.map(|p| p.reason.clone()),
            actor: pause.map(|p| p.actor.clone()),
            since: pause.map(|p| p.since),
            until: pause.and_then(|p| p.until),
            expired: pauses.expired_of(name).cloned(),
            lookup: None,
        }
    }

    fn from_pause(p: &Pause, configured: bool) -> DestinationView {
        DestinationView {
            name: p.destination.clone(),
            configured,
            paused: true,
            reason: Some(p.reason.clone()),
            actor: Some(p.actor.clone()),
            since: Some(p.since),
            until: p.until,
            expired: None,
            lookup: None,
        }
    }

    fn unpaused(name: &str, configured: bool) -> DestinationView {
        DestinationView {
            name: name.to_string(),
            configured,
            paused: false,
            reason: None,
            actor: None,
            since: None,
            until: None,
            expired: None,
            lookup: None,
        }
    }
}

/// Ages and spans to the nearest second (`status`, `check` and `doctor` say pauses the same way).
pub(crate) use crate::duration::humane;

/// The span from `from` to `to` (None under half a second).
fn span(from: DateTime<Utc>, to: DateTime<Utc>) -> Option<String> {
    let ms = (to - from).num_milliseconds().max(0) as u64;
    (ms >= 500).then(|| humane(Duration::from_millis(ms)))
}

/// `12m ago` (`just now` within half a second).
pub(crate) fn ago(now: DateTime<Utc>, t: DateTime<Utc>) -> String {
    span(t, now).map_or_else(|| "just now".into(), |s| format!("{s} ago"))
}

/// A table's UNTIL cell: `in 48m`, `not set` (until someone resumes it), or (an end that
/// passed) `12s ago`.
pub(crate) fn until_text(now: DateTime<Utc>, until: Option<DateTime<Utc>>) -> String {
    match until {
        None => "not set".into(),
        Some(u) if u > now => span(now, u).map_or_else(|| "now".into(), |s| format!("in {s}")),
        Some(u) => ago(now, u),
    }
}

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The table of destinations and their pauses. `PAUSED` says `yes`, `no`, or `expired` (a
/// pause whose end passed, shown to a session that may not record its expiry). Names are
/// typed into the next command: never cut; when space is short SINCE goes first, then who
/// paused it; the reason is cut before it goes.
fn pause_table(ui: &Ui, now: DateTime<Utc>, rows: &[DestinationView]) -> String {
    let mut t = Table::new(
        [Column::new("DESTINATION"), Column::new("PAUSED")]
            .into_iter()
            .chain(pause_columns())
            .chain([Column::new("LOOKUP").priority(5)])
            .collect(),
    );
    for d in rows {
        let mut row = vec![Cell::new(&d.name)];
        row.push(if d.paused {
            Cell::new("yes").tone(Tone::Warn)
        } else if d.expired.is_some() {
            Cell::new("expired")
        } else {
            Cell::new("no")
        });
        row.extend(pause_cells(now, d));
        row.push(Cell::new(d.lookup.as_deref().unwrap_or("not configured")));
        t.row(row);
    }
    t.render(ui)
}

/// SINCE, UNTIL, BY, REASON: a pause's columns, in both pause tables. When space is short
/// SINCE goes first, then who paused it; the reason is cut before it goes.
fn pause_columns() -> [Column; 4] {
    [
        Column::new("SINCE").priority(4),
        Column::new("UNTIL").priority(1),
        Column::new("BY").truncate(10).priority(3),
        Column::new("REASON").truncate(24).priority(2),
    ]
}

/// SINCE, UNTIL, BY, REASON of a destination's pause (empty when not paused).
fn pause_cells(now: DateTime<Utc>, d: &DestinationView) -> Vec<Cell> {
    let texts = if d.paused {
        [
            d.since.map(|s| ago(now, s)).unwrap_or_default(),
            until_text(now, d.until),
            d.actor.clone().unwrap_or_default(),
            d.reason.clone().unwrap_or_default(),
        ]
    } else if let Some(p) = &d.expired {
        [
            ago(now, p.since),
            until_text(now, p.until),
            p.actor.clone(),
            p.reason.clone(),
        ]
    } else {
        Default::default()
    };
    texts.into_iter().map(Cell::new).collect()
}

/// The pauses under `status`: one line a paused destination, who, why, since, until.
pub(crate) fn paused_table(ui: &Ui, now: DateTime<Utc>, rows: &[DestinationView]) -> String {
    let mut t = Table::new(
        std::iter::once(Column::new("PAUSED"))
            .chain(pause_columns())
            .collect(),
    );
    for d in rows {
        let name = Cell::new(&d.name);
        let mut row = vec![if d.paused {
            name
        } else {
            name.tail(" (expired)")
        }];
        row.extend(pause_cells(now, d));
        t.row(row);
    }
    t.render(ui)
}

/// What follows a paused destination's name in a table cell (kept when the name is cut).
pub(crate) const PAUSED_TAIL: &str = " (paused)";

/// The configured destination names; a broken config file is a warning here, not a failure:
/// pausing a failing CMS must not wait for someone to fix a TOML file.
fn configured(ctx: &Context) -> BTreeSet<String> {
    match ctx.config() {
        Ok(c) => c.destinations.keys().cloned().collect(),
        Err(e) => {
            ctx.ui.warn(&format!(
                "config not read, only the destinations in the database are known: {}",
                e.message()
            ));
            BTreeSet::new()
        }
    }
}

// ---------------------------------------------------------------------------------------
// destination list
// ---------------------------------------------------------------------------------------

#[derive(Debug, Serialize)]
struct DestinationList {
    destinations: Vec<DestinationView>,
    #[serde(skip)]
    now: DateTime<Utc>,
}

impl Render for DestinationList {
    fn table(&self, ui: &Ui) -> String {
        if self.destinations.is_empty() {
            return "no destinations: none configured, paused, or with open jobs".into();
        }
        pause_table(ui, self.now, &self.destinations)
    }

    fn output(&self) -> Output {
        Output::Data
    }

    fn jsonl(&self) -> Vec<serde_json::Value> {
        self.destinations
            .iter()
            .map(|d| serde_json::to_value(d).unwrap_or(serde_json::Value::Null))
            .collect()
    }
}

async fn list(ctx: &Context) -> Result<Exit> {
    let configured = configured(ctx);
    let db = ctx.db().await?;
    let (pauses, open) = futures::try_join!(
        pause::observe(&**db, &ctx.actor),
        crate::jobs::query::destinations::with_open_jobs(&**db)
    )?;
    drop(db);
    let mut names = configured.clone();
    names.extend(open);
    names.extend(pauses.in_force.iter().map(|p| p.destination.clone()));
    names.extend(pauses.expired.iter().map(|p| p.destination.clone()));
    let config = ctx.config().ok();
    let destinations = names
        .iter()
        .map(|n| DestinationView {
            lookup: config
                .and_then(|c| c.destination(n))
                .map(|d| format!("{}, auth {}", d.kind.as_str(), d.auth.scheme())),
            ..DestinationView::new(n, configured.contains(n), &pauses)
        })
        .collect();
    ctx.ui.emit(&DestinationList {
        destinations,
        now: pauses.now,
    })?;
    Ok(Exit::Done)
}

// ---------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------

/// Refuse a name nothing knows; returns whether it is configured.
async fn resolve<C: GenericClient>(
    ctx: &Context,
    client: &C,
    name: &str,
    pauses: &Pauses,
) -> Result<bool> {
    let configured = configured(ctx);
    if configured.contains(name)
        || pauses.of(name).is_some()
        || pauses.expired_of(name).is_some()
        || pause::has_jobs(client, name).await?
    {
        return Ok(configured.contains(name));
    }
    let mut known = configured;
    known.extend(pause::destinations_with_jobs(client).await?);
    known.extend(pauses.in_force.iter().map(|p| p.destination.clone()));
    Err(crate::jobs::query::unknown_destination(name, &known, None)
        .hinted("nothing changed; `reconctl destination list` shows them with their pauses"))
}

// ---------------------------------------------------------------------------------------
// Consent
// ---------------------------------------------------------------------------------------

fn open_line(load: &DestinationLoad) -> String {
    if load.open.is_empty() {
        return "none".into();
    }
    load.open
        .iter()
        .map(|g| {
            format!(
                "{} {} (oldest {})",
                g.state,
                thousands(g.count),
                humane(
                    (load.now - g.oldest_state_changed_at)
                        .to_std()
                        .unwrap_or_default()
                )
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// When a worker's leases end, worded for each end's side of now: `lease ends in 5m`,
/// `leases end in 2m–7m 45s`, `leases expired 27m 15s–3m ago`, or (some gone, some not)
/// `the first lease expired 27m 15s ago, the last ends in 7m 45s`.
fn lease_window(now: DateTime<Utc>, first: DateTime<Utc>, last: DateTime<Utc>) -> String {
    let left = |t: DateTime<Utc>| span(now, t).unwrap_or_else(|| "0s".into());
    let gone = |t: DateTime<Utc>| span(t, now).unwrap_or_else(|| "0s".into());
    match (first > now, last > now) {
        _ if first == last && first > now => format!("lease ends in {}", left(first)),
        _ if first == last => format!("lease expired {}", ago(now, first)),
        (true, _) => format!("leases end in {}–{}", left(first), left(last)),
        (false, false) => format!("leases expired {}–{} ago", gone(first), gone(last)),
        (false, true) => format!(
            "the first lease expired {}, the last ends in {}",
            ago(now, first),
            left(last)
        ),
    }
}

fn leases_line(load: &DestinationLoad) -> String {
    if load.leases.is_empty() {
        return "none".into();
    }
    load.leases
        .iter()
        .map(|l| {
            let window = lease_window(load.now, l.first_expiry, l.last_expiry);
            let jobs = if l.jobs == 1 {
                "1 job".to_string()
            } else {
                format!("{} jobs", l.jobs)
            };
            format!("{}: {jobs} ({} sent), {window}", l.owner, l.sent)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn in_flight(load: &DestinationLoad) -> i64 {
    load.leases.iter().map(|l| l.jobs).sum()
}

fn waiting(load: &DestinationLoad) -> i64 {
    load.open
        .iter()
        .filter(|g| State::waiting().contains(&g.state))
        .map(|g| g.count)
        .sum()
}

/// The `Now` lines of a consent summary: paused or not, and if so by whom, why, until when.
fn current_lines(f: &mut Fields, now: DateTime<Utc>, view: &DestinationView) {
    match (&view.paused, &view.expired) {
        (true, _) => {
            f.text(
                "Now",
                format!(
                    "paused by {} {}: {}",
                    view.actor.as_deref().unwrap_or("?"),
                    view.since.map(|s| ago(now, s)).unwrap_or_default(),
                    view.reason.as_deref().unwrap_or("")
                ),
            );
            f.text(
                "Until",
                match view.until {
                    None => "resumed".to_string(),
                    Some(u) => format!("{} ({})", stamp(u), until_text(now, Some(u))),
                },
            );
        }
        (false, Some(p)) => {
            f.text(
                "Now",
                format!(
                    "not paused (the pause by {} ended by itself {})",
                    p.actor,
                    until_text(now, p.until)
                ),
            );
        }
        (false, None) => {
            f.text("Now", "not paused");
        }
    }
}

/// What a person sees before pausing or resuming, fitted to stderr's width.
fn consent_summary(
    ui: &Ui,
    view: &DestinationView,
    load: &DestinationLoad,
    change: &str,
    effect: &str,
    reason: &str,
    actor: &str,
) -> String {
    let mut f = Fields::new();
    f.text(
        "Destination",
        format!(
            "{}{}",
            view.name,
            if view.configured {
                " (configured)"
            } else {
                " (not in the config file)"
            }
        ),
    );
    current_lines(&mut f, load.now, view);
    f.text("Open jobs", open_line(load))
        .text("In flight", leases_line(load))
        .text("Change", change)
        .text("By", actor)
        .text("Effect", effect)
        .text("Reason", reason);
    f.render_at(ui.err_width().map(usize::from), false)
}

/// Without a terminal and without `--yes`, a change is refused before anything is shown.
fn needs_yes(what: &str) -> Error {
    Error::new(
        Code::ConfirmationRequired,
        format!("refusing to {what} without --yes: there is no terminal to ask on"),
    )
    .hinted("nothing changed; pass --yes to confirm from a script, or --dry-run to see what would happen")
}

// ---------------------------------------------------------------------------------------
// destination pause
// ---------------------------------------------------------------------------------------

/// `{"destination": {...}, "event": {...} | null}` (and `"dry_run": true` on a dry run).
#[derive(Debug, Serialize)]
struct ChangeReport {
    destination: DestinationView,
    event: Option<DestinationEvent>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    #[serde(skip)]
    text: String,
}

impl Render for ChangeReport {
    fn table(&self, ui: &Ui) -> String {
        paragraphs(&self.text, ui.width().map(usize::from))
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

fn validate_reason(reason: &str) -> Result<&str> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(Error::usage(
            "--reason must say why (it is recorded, and shown to everyone who looks)",
        ));
    }
    Ok(r)
}

async fn pause_cmd(ctx: &Context, args: &PauseArgs) -> Result<Exit> {
    let reason = validate_reason(&args.reason)?;
    let for_ = args.for_.map(|d| d.0);
    if for_.is_some_and(|d| d < Duration::from_secs(1)) {
        return Err(Error::usage(
            "--for must be at least 1s (omit it to pause until resumed)",
        ));
    }
    let name = args.name.as_str();
    let dry_run = args.confirm.dry_run;
    let ask = !args.confirm.yes && !dry_run;
    let (view, load) = {
        let db = ctx.db().await?;
        let pauses = pause::observe(&**db, &ctx.actor).await?;
        let configured = resolve(ctx, &**db, name, &pauses).await?;
        if ask && !ctx.ui.can_prompt() {
            return Err(needs_yes(&format!("pause {name}")));
        }
        let load = query::destination_load(&**db, name).await?;
        (DestinationView::new(name, configured, &pauses), load)
    };
    if ask {
        let end = match for_ {
            Some(d) => format!(
                "until {} (for {})",
                stamp(load.now + chrono::Duration::from_std(d).unwrap_or_default()),
                humane(d)
            ),
            None => "until resumed".into(),
        };
        let change = if view.paused {
            format!("repause: {end}")
        } else {
            format!("pause {end}")
        };
        let effect = format!(
            "workers claim none of its jobs ({} waiting); {}",
            thousands(waiting(&load)),
            match in_flight(&load) {
                0 => "none is in flight".to_string(),
                1 => "the 1 job in flight finishes or times out as usual".to_string(),
                n => format!("the {n} jobs in flight finish or time out as usual"),
            }
        );
        ctx.ui.before_prompt(&consent_summary(
            &ctx.ui, &view, &load, &change, &effect, reason, &ctx.actor,
        ));
        if !ctx.ui.confirm(&format!("Pause destination {name}?"))? {
            return Err(Error::new(
                Code::Declined,
                format!("not confirmed: {name} was not paused; nothing changed"),
            ));
        }
    }

    let mut db = ctx.db().await?;
    crate::retention::ensure_partitions_quietly(&**db).await;
    let tx = db.transaction().await?;
    let paused = pause::pause(&*tx, name, reason, for_, &ctx.actor).await?;
    if dry_run {
        tx.rollback().await?;
    } else {
        tx.commit().await?;
    }
    // What is still in flight now that no new claim can be granted.
    let after = query::destination_load(&**db, name).await?;
    drop(db);

    let p = &paused.pause;
    let now = after.now;
    let end = match p.until {
        Some(u) => format!("until {} ({})", stamp(u), until_text(now, Some(u))),
        None => "until resumed".into(),
    };
    let verb = match (dry_run, paused.event.action.as_str()) {
        (true, "repause") => "dry run: would change the pause of",
        (true, _) => "dry run: would pause",
        (false, "repause") => "changed the pause of",
        (false, _) => "paused",
    };
    // The report's words are ours; every value from outside in it is escaped.
    let shown = escape(name);
    let mut lines = vec![format!("{verb} {shown} {end}")];
    if dry_run {
        lines.push("  proved against the database now (rolled back); nothing changed".to_string());
    } else {
        lines.push(format!(
            "  event {} by {}: {}",
            paused.event.id,
            escape(&paused.event.actor),
            escape(&p.reason)
        ));
        lines.push("  workers claim none of its jobs".to_string());
    }
    let holders = after
        .leases
        .iter()
        .map(|l| format!("{}: {}", escape(&l.owner), l.jobs))
        .collect::<Vec<_>>()
        .join(", ");
    match in_flight(&after) {
        0 => {}
        1 => lines.push(format!(
            "  in flight: 1 job ({holders}); it finishes or times out as usual"
        )),
        n => lines.push(format!(
            "  in flight: {n} jobs ({holders}); they finish or time out as usual"
        )),
    }
    if !dry_run {
        lines.push(format!(
            "  resume: `reconctl destination resume {shown} --reason TEXT`"
        ));
    }
    ctx.ui.emit(&ChangeReport {
        destination: DestinationView::from_pause(p, view.configured),
        event: Some(paused.event),
        dry_run,
        text: lines.join("\n"),
    })?;
    Ok(Exit::Done)
}

// ---------------------------------------------------------------------------------------
// destination resume
// ---------------------------------------------------------------------------------------

async fn resume_cmd(ctx: &Context, args: &ResumeArgs) -> Result<Exit> {
    let reason = validate_reason(&args.reason)?;
    let name = args.name.as_str();
    let dry_run = args.confirm.dry_run;
    let ask = !args.confirm.yes && !dry_run;
    let (view, load) = {
        let db = ctx.db().await?;
        let pauses = pause::observe(&**db, &ctx.actor).await?;
        let configured = resolve(ctx, &**db, name, &pauses).await?;
        let view = DestinationView::new(name, configured, &pauses);
        if !view.paused {
            // Safe to repeat: nothing to ask about, nothing to record.
            let shown = escape(name);
            let text = match &view.expired {
                Some(p) => format!(
                    "no change: {shown} is not paused (the pause by {} ended by itself {})",
                    escape(&p.actor),
                    until_text(pauses.now, p.until)
                ),
                None => match pauses.recorded.iter().find(|e| e.pause.destination == name) {
                    Some(e) => format!(
                        "no change: {shown} is not paused (the pause by {} ended by itself {}; recorded now)",
                        escape(&e.pause.actor),
                        until_text(pauses.now, e.pause.until)
                    ),
                    None => format!("no change: {shown} is not paused"),
                },
            };
            ctx.ui.emit(&ChangeReport {
                destination: DestinationView::unpaused(name, configured),
                event: None,
                dry_run,
                text,
            })?;
            return Ok(Exit::Done);
        }
        if ask && !ctx.ui.can_prompt() {
            return Err(needs_yes(&format!("resume {name}")));
        }
        let load = query::destination_load(&**db, name).await?;
        (view, load)
    };
    if ask {
        let effect = format!(
            "workers claim its jobs again: {} waiting",
            thousands(waiting(&load))
        );
        ctx.ui.before_prompt(&consent_summary(
            &ctx.ui, &view, &load, "resume", &effect, reason, &ctx.actor,
        ));
        if !ctx.ui.confirm(&format!("Resume destination {name}?"))? {
            return Err(Error::new(
                Code::Declined,
                format!("not confirmed: {name} was not resumed; nothing changed"),
            ));
        }
    }

    let mut db = ctx.db().await?;
    crate::retention::ensure_partitions_quietly(&**db).await;
    let resumed = if dry_run {
        let tx = db.transaction().await?;
        let r = pause::resume(&*tx, name, reason, &ctx.actor).await?;
        tx.rollback().await?;
        r
    } else {
        pause::resume(&**db, name, reason, &ctx.actor).await?
    };
    let after = query::destination_load(&**db, name).await?;
    drop(db);
    let now = after.now;
    let Some((ended, event)) = resumed.ended else {
        // Ended between the look and the change: by itself, or by someone else.
        let by_itself = resumed.expired.iter().any(|e| e.pause.destination == name);
        let shown = escape(name);
        let text = if by_itself {
            format!("no change: {shown} is not paused (its pause ended by itself just now)")
        } else {
            format!("no change: {shown} is not paused (someone resumed it just now)")
        };
        ctx.ui.emit(&ChangeReport {
            destination: DestinationView::unpaused(name, view.configured),
            event: None,
            dry_run,
            text,
        })?;
        return Ok(Exit::Done);
    };
    let verb = if dry_run {
        "dry run: would resume"
    } else {
        "resumed"
    };
    let shown = escape(name);
    let mut lines = vec![
        format!("{verb} {shown} after {}", humane(ended.age(now))),
        format!(
            "  it was paused by {}: {}",
            escape(&ended.actor),
            escape(&ended.reason)
        ),
    ];
    if dry_run {
        lines.push("  proved against the database now (rolled back); nothing changed".to_string());
    } else {
        lines.push(format!(
            "  event {} by {}: {}",
            event.id,
            escape(&event.actor),
            escape(reason)
        ));
        lines.push(format!(
            "  workers claim its jobs again: {} waiting",
            thousands(waiting(&after))
        ));
    }
    let unsettled: i64 = after
        .open
        .iter()
        .filter(|g| State::unsettled().contains(&g.state))
        .map(|g| g.count)
        .sum();
    if unsettled > 0 {
        lines.push(format!(
            "  {} uncertain or in conflict: `reconctl reconcile --destination {shown}`",
            thousands(unsettled)
        ));
    }
    ctx.ui.emit(&ChangeReport {
        destination: DestinationView::unpaused(name, view.configured),
        event: Some(event),
        dry_run,
        text: lines.join("\n"),
    })?;
    Ok(Exit::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 23 item 14: "leases end in 27m 15s ago–7m 45s" read each end on its own side of
    /// now.
    #[test]
    fn item_14_lease_windows_say_each_end_on_its_side_of_now() {
        let now = Utc::now();
        let at = |secs: i64| now + chrono::Duration::seconds(secs);
        assert_eq!(
            lease_window(now, at(-(27 * 60 + 15)), at(7 * 60 + 45)),
            "the first lease expired 27m 15s ago, the last ends in 7m 45s"
        );
        assert_eq!(
            lease_window(now, at(120), at(7 * 60 + 45)),
            "leases end in 2m–7m 45s"
        );
        assert_eq!(
            lease_window(now, at(-(27 * 60 + 15)), at(-180)),
            "leases expired 27m 15s–3m ago"
        );
        assert_eq!(lease_window(now, at(300), at(300)), "lease ends in 5m");
        assert_eq!(
            lease_window(now, at(-300), at(-300)),
            "lease expired 5m ago"
        );
    }

    #[test]
    fn ends_read_as_people_say_them() {
        let now = Utc::now();
        let at = |secs: i64| Some(now + chrono::Duration::milliseconds(secs));
        assert_eq!(until_text(now, None), "not set");
        assert_eq!(until_text(now, at(3_599_800)), "in 1h");
        assert_eq!(until_text(now, at(-12_000)), "12s ago");
        assert_eq!(
            ago(now, now - chrono::Duration::milliseconds(200)),
            "just now"
        );
    }
}
