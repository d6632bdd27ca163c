//! `reconctl jobs show JOB`: every column, the lease, the history, the valid moves.
//!
//! The moves come from the transition table (`jobs::TRANSITIONS`): each row is shown as valid
//! now, or not, with the reason; for the sweep's moves that includes whether the lease has
//! expired and whether the request was sent, which decide where a sweep would take the job.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::commands::Exit;
use crate::context::Context;
use crate::duration::format_duration;
use crate::error::Result;
use crate::jobs::model::rfc3339;
use crate::jobs::query::db_now;
use crate::jobs::state::{Role, Transition};
use crate::jobs::{store, Action, Event, Job, JobRef, State, TRANSITIONS};
use crate::ui::{paragraphs, Cell, Column, Fields, Note, Output, Render, Table, Tone, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs show 7f0c2a4e-1b7d-4c55-9a0e-3f1f6a0f6b11\n  reconctl jobs show pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852 -o json\n\nExit codes: 0 shown, 4 no such job."
)]
pub struct Args {
    /// The job: its id (or a unique prefix of it, 8+ hex digits) or its external_ref
    #[arg(value_name = "JOB")]
    pub job: JobRef,
}

/// The lease of an in-flight job and how long it has left (negative: expired that long ago).
#[derive(Debug, Serialize)]
struct Lease {
    owner: String,
    #[serde(serialize_with = "rfc3339")]
    expires_at: DateTime<Utc>,
    remaining_seconds: f64,
    expired: bool,
}

/// One row of the transition table, judged for this job now.
#[derive(Debug, Serialize)]
struct Move {
    action: Action,
    to: State,
    by: Role,
    valid: bool,
    /// Valid: the condition of the move. Not valid: why not.
    why: String,
    /// The command that makes the move, when a person or cron makes it.
    command: Option<String>,
}

/// SPEC §5: the job (every column under its name), plus its lease, its full history and the
/// moves of the transition table.
#[derive(Debug, Serialize)]
struct JobDetail {
    #[serde(flatten)]
    job: Job,
    lease: Option<Lease>,
    events: Vec<Event>,
    moves: Vec<Move>,
    #[serde(skip)]
    now: DateTime<Utc>,
    /// How many characters of the id are unique in the table (for the commands shown).
    #[serde(skip)]
    id_prefix: usize,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let db = ctx.db().await?;
    let job = store::get(&**db, &args.job).await?;
    let ids = [job.id];
    let (events, now, id_prefix) = futures::try_join!(
        store::events(&**db, job.id),
        db_now(&**db),
        store::unique_prefix_len(&**db, &ids)
    )?;
    drop(db);
    let lease = match (&job.lease_owner, job.lease_expires_at) {
        (Some(owner), Some(expires_at)) => {
            let remaining = (expires_at - now).num_microseconds().unwrap_or(0) as f64 / 1e6;
            Some(Lease {
                owner: owner.clone(),
                expires_at,
                remaining_seconds: remaining,
                expired: expires_at <= now,
            })
        }
        _ => None,
    };
    // Every row a job can take from some state (creation has none, so it is no move).
    let moves = TRANSITIONS
        .iter()
        .filter(|t| !t.from.is_empty())
        .map(|t| move_now(&job, now, t))
        .collect();
    ctx.ui.emit(&JobDetail {
        job,
        lease,
        events,
        moves,
        now,
        id_prefix,
    })?;
    Ok(Exit::Done)
}

/// `a`, `a or b`, `a, b or c`.
fn states_text(states: &[State]) -> String {
    let names: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Whether the transition `t` can be made now, and why (not).
fn move_now(job: &Job, now: DateTime<Utc>, t: &Transition) -> Move {
    let command = t.action.command_line(job);
    let verdict = |valid: bool, why: String| Move {
        action: t.action,
        to: t.to,
        by: t.by,
        valid,
        why,
        command: command.clone(),
    };
    if !t.from.contains(&job.state) {
        let why = if job.state.is_terminal() {
            format!("{} is terminal: no move leaves it", job.state)
        } else {
            format!("only from {}", states_text(t.from))
        };
        return verdict(false, why);
    }
    let expired = job.lease_expires_at.is_some_and(|e| e <= now);
    let left = |e: DateTime<Utc>| format_duration((e - now).to_std().unwrap_or_default());
    match t.action {
        Action::SweepSent | Action::SweepUnsent => {
            let wants_sent = t.action == Action::SweepSent;
            match job.lease_expires_at {
                Some(e) if !expired => {
                    verdict(false, format!("the lease is still valid for {}", left(e)))
                }
                _ if job.sent_at.is_some() != wants_sent => verdict(
                    false,
                    if wants_sent {
                        "the request was never sent (sent_at is empty)".into()
                    } else {
                        "the request was sent (sent_at is set)".into()
                    },
                ),
                _ => verdict(true, t.condition.to_string()),
            }
        }
        Action::Renew | Action::MarkSent | Action::Complete | Action::Fail | Action::TimedOut => {
            let owner = job.lease_owner.as_deref().unwrap_or("?");
            verdict(
                true,
                format!(
                    "by the lease holder {owner}, at version {}: {}",
                    job.version, t.condition
                ),
            )
        }
        _ => verdict(true, t.condition.to_string()),
    }
}

fn when(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let stamp = t.to_rfc3339_opts(SecondsFormat::Secs, true);
    let d = t - now;
    if d.num_milliseconds() >= 0 {
        format!(
            "{stamp} (in {})",
            format_duration(d.to_std().unwrap_or_default())
        )
    } else {
        format!(
            "{stamp} ({} ago)",
            format_duration((-d).to_std().unwrap_or_default())
        )
    }
}

/// A scalar as it reads in one line.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Array(a) => format!("[{} items]", a.len()),
        Value::Object(o) if o.is_empty() => "{}".into(),
        Value::Object(_) => "{…}".into(),
        other => other.to_string(),
    }
}

/// `key=value, …` of an event's evidence, shortened to a line; `-o json` has all of it.
fn summarize(evidence: &Value) -> String {
    const MAX: usize = 60;
    let text = match evidence {
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}={}", scalar(v)))
            .collect::<Vec<_>>()
            .join(", "),
        other => scalar(other),
    };
    if text.chars().count() > MAX {
        let mut short: String = text.chars().take(MAX - 1).collect();
        short.push('…');
        short
    } else {
        text
    }
}

impl Render for JobDetail {
    fn table(&self, ui: &Ui) -> String {
        let j = &self.job;
        let now = self.now;
        let width = ui.width().map(usize::from);
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        let opt_time = |t: Option<DateTime<Utc>>| t.map(|t| when(t, now)).unwrap_or_default();
        let lease = match &self.lease {
            Some(l) if l.expired => format!(
                "held by {}, expired {} ago",
                l.owner,
                format_duration(std::time::Duration::from_secs_f64(-l.remaining_seconds))
            ),
            Some(l) => format!(
                "held by {}, {} left",
                l.owner,
                format_duration(std::time::Duration::from_secs_f64(l.remaining_seconds))
            ),
            None => "none".into(),
        };

        // Every column under its name; ids, references and hashes whole on a line.
        let mut cols = Fields::new();
        cols.token("id", Cell::id(j.id))
            .token("external_ref", j.external_ref.as_str())
            .text("tenant_id", j.tenant_id.as_str())
            .text("article_id", j.article_id.as_str())
            .text("revision_id", j.revision_id.as_str())
            .text("destination", j.destination.as_str())
            .token("payload_hash", j.payload_hash.as_str())
            .token("state", Cell::state(j.state))
            .token("version", j.version.to_string())
            .token("attempts", j.attempts.to_string())
            .text("lease", lease)
            .text("lease_owner", opt(&j.lease_owner))
            .text("lease_expires_at", opt_time(j.lease_expires_at))
            .text("sent_at", opt_time(j.sent_at))
            .text("remote_id", opt(&j.remote_id))
            .text("last_error", opt(&j.last_error))
            .text("created_at", when(j.created_at, now))
            .text("updated_at", when(j.updated_at, now))
            .text("state_changed_at", when(j.state_changed_at, now));

        // The history, an audit view: when and what moved always; then who and why (they
        // outrank everything else, issue 23 item 13); the evidence, the action (the move
        // says it) and the versions go first on a narrow terminal.
        let mut history = Table::new(vec![
            Column::new("AT"),
            Column::new("ACTOR").truncate(12).priority(1),
            Column::new("ACTION").priority(4),
            Column::new("MOVE"),
            Column::new("VERSION").priority(5),
            Column::new("REASON").wrap(20).priority(2),
            Column::new("EVIDENCE").truncate(16).priority(3),
        ]);
        for e in &self.events {
            let from = e.from_state.map_or("∅".to_string(), |s| s.to_string());
            let version = match e.from_version {
                Some(v) => format!("{v} → {}", e.to_version),
                None => e.to_version.to_string(),
            };
            history.row(vec![
                Cell::new(e.at.to_rfc3339_opts(SecondsFormat::Secs, true)),
                Cell::new(&e.actor),
                Cell::new(e.action.as_str()),
                Cell::new(format!("{from} → {}", e.to_state)),
                Cell::new(version),
                Cell::new(e.reason.as_deref().unwrap_or_default()),
                Cell::new(summarize(&e.evidence)),
            ]);
        }

        let mut title = format!("job {} ({} at version {})", j.id, j.state, j.version);
        // A job whose last move came from a plan says which (SPEC §8).
        if let Some(plan) = self
            .events
            .last()
            .and_then(|e| e.evidence.get("plan"))
            .and_then(|p| p.as_str())
        {
            title.push_str(&format!(
                "; its last move came from plan {plan} (`reconctl plan show {plan}`)"
            ));
        }
        let mut out = paragraphs(&title, width);
        out.push('\n');
        out.push_str(&cols.render(ui));
        let n = self.events.len();
        let plural = if n == 1 { "" } else { "s" };
        out.push_str(&format!("\n\nhistory ({n} event{plural})\n"));
        out.push_str(&history.render(ui));
        out.push_str("\n\nmoves");
        if j.state.is_terminal() {
            out.push_str(&format!(" (none: {} is terminal)", j.state));
        } else {
            // Valid moves first, each with the command that makes it on a line of its own:
            // never broken; its id shortened to a prefix when the whole id does not fit.
            let mut moves = Table::new(vec![
                Column::new("MOVE"),
                Column::new("BY").priority(2),
                Column::new("NOW"),
                Column::new("WHY").truncate(20).priority(1).or_below(),
            ])
            .prefix_at_least(self.id_prefix);
            let ordered = self
                .moves
                .iter()
                .filter(|m| m.valid)
                .chain(self.moves.iter().filter(|m| !m.valid));
            for m in ordered {
                moves.row(vec![
                    Cell::new(format!("{} → {}", m.action, m.to)),
                    Cell::new(m.by.as_str()),
                    if m.valid {
                        Cell::new("valid").tone(Tone::Good)
                    } else {
                        Cell::new("not now")
                    },
                    Cell::new(&m.why),
                ]);
                if let (Some(c), true) = (&m.command, m.valid) {
                    moves.note(Note::command(format!("$ {c}"), Some(j.id)));
                }
            }
            out.push('\n');
            out.push_str(&moves.render(ui));
        }
        out.truncate(out.trim_end().len());
        out
    }

    fn output(&self) -> Output {
        Output::Data
    }
}
