//! `reconctl status`: per state and destination, how many and how old.
//!
//! The open states are counted exactly from a small partial index; `accepted`, almost the
//! whole table, is estimated on a large table (labelled so), because counting it exactly
//! means reading every row (see `jobs::query::overview`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::destination::{paused_table, DestinationView, PAUSED_TAIL};
use super::Exit;
use crate::context::Context;
use crate::duration::format_duration;
use crate::error::Result;
use crate::jobs::model::{rfc3339, rfc3339_opt};
use crate::jobs::pause::{self, Pauses};
use crate::jobs::query::{self, Overview};
use crate::jobs::State;
use crate::ui::{paragraphs, thousands, Cell, Column, Output, Render, Table, Tone, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl status\n  reconctl status -o json\n\nStates come most actionable first. Counts are exact, except accepted on a large table: estimated from the planner's statistics (marked ≈, and \"estimated\": true in JSON).\nA paused destination (workers claim none of its jobs) is marked \"(paused)\", and its pause (who, why, since, until) listed below the counts; JSON: \"paused\" per destination and \"pauses\"."
)]
pub struct Args {}

#[derive(Debug, Serialize)]
struct DestinationStatus {
    destination: String,
    /// Workers claim none of its jobs (SPEC §6).
    paused: bool,
    count: i64,
    oldest_age_seconds: i64,
    #[serde(serialize_with = "rfc3339")]
    oldest_state_changed_at: DateTime<Utc>,
}

#[derive(Debug, Serialize)]
struct StateStatus {
    state: State,
    /// `null`: unknown (accepted, on a large table never analyzed).
    count: Option<i64>,
    estimated: bool,
    /// Of the job longest in this state; `null` for accepted (not tracked) or no jobs.
    oldest_age_seconds: Option<i64>,
    destinations: Vec<DestinationStatus>,
}

/// A paused destination: who paused it, why, since and until when (`null`: until resumed).
#[derive(Debug, Serialize)]
struct PauseStatus {
    destination: String,
    actor: String,
    reason: String,
    #[serde(serialize_with = "rfc3339")]
    since: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339_opt")]
    until: Option<DateTime<Utc>>,
    paused_seconds: i64,
}

#[derive(Debug, Serialize)]
struct StatusReport {
    #[serde(serialize_with = "rfc3339")]
    as_of: DateTime<Utc>,
    states: Vec<StateStatus>,
    /// The destinations paused now, by name.
    pauses: Vec<PauseStatus>,
    #[serde(skip)]
    pause_rows: Vec<DestinationView>,
    #[serde(skip)]
    pauses_now: DateTime<Utc>,
}

fn age_secs(now: DateTime<Utc>, t: DateTime<Utc>) -> i64 {
    (now - t).num_seconds().max(0)
}

fn report(o: Overview, pauses: &Pauses) -> StatusReport {
    let states = State::BY_URGENCY
        .iter()
        .map(|&state| {
            if state == State::Accepted {
                return StateStatus {
                    state,
                    count: o.accepted.count,
                    estimated: o.accepted.estimated,
                    oldest_age_seconds: None,
                    destinations: Vec::new(),
                };
            }
            let destinations: Vec<DestinationStatus> = o
                .open
                .iter()
                .filter(|g| g.state == state)
                .map(|g| DestinationStatus {
                    destination: g.destination.clone(),
                    paused: pauses.is_paused(&g.destination),
                    count: g.count,
                    oldest_age_seconds: age_secs(o.now, g.oldest_state_changed_at),
                    oldest_state_changed_at: g.oldest_state_changed_at,
                })
                .collect();
            StateStatus {
                state,
                count: Some(destinations.iter().map(|d| d.count).sum()),
                estimated: false,
                oldest_age_seconds: destinations.iter().map(|d| d.oldest_age_seconds).max(),
                destinations,
            }
        })
        .collect();
    let mut pause_rows: Vec<DestinationView> = pauses
        .in_force
        .iter()
        .map(|p| DestinationView::new(&p.destination, false, pauses))
        .collect();
    pause_rows.extend(
        pauses
            .expired
            .iter()
            .map(|p| DestinationView::new(&p.destination, false, pauses)),
    );
    pause_rows.sort_by(|a, b| a.name.cmp(&b.name));
    StatusReport {
        as_of: o.now,
        states,
        pauses: pauses
            .in_force
            .iter()
            .map(|p| PauseStatus {
                destination: p.destination.clone(),
                actor: p.actor.clone(),
                reason: p.reason.clone(),
                since: p.since,
                until: p.until,
                paused_seconds: p.age(pauses.now).as_secs() as i64,
            })
            .collect(),
        pause_rows,
        pauses_now: pauses.now,
    }
}

fn age(secs: i64) -> String {
    format_duration(std::time::Duration::from_secs(secs.max(0) as u64))
}

impl Render for StatusReport {
    fn table(&self, ui: &Ui) -> String {
        self.render_table(ui)
    }

    fn output(&self) -> Output {
        Output::Data
    }
}

impl StatusReport {
    /// The counts table (a state's destinations under it, `(all)` first when there are
    /// several), the estimate's note, and the pauses in force. Built from the report alone,
    /// so a live view can redraw it.
    fn render_table(&self, ui: &Ui) -> String {
        let mut t = Table::new(vec![
            Column::new("STATE"),
            Column::new("DESTINATION").truncate(14).priority(1),
            Column::new("JOBS").right(),
            Column::new("OLDEST").priority(2),
        ]);
        let mut estimated = false;
        for s in &self.states {
            if s.state == State::Accepted {
                let (count, note) = match (s.count, s.estimated) {
                    (Some(n), true) => {
                        estimated = true;
                        (format!("≈ {}", thousands(n)), "estimated")
                    }
                    (Some(n), false) => (thousands(n), ""),
                    (None, _) => ("unknown".to_string(), "not analyzed yet"),
                };
                t.row(vec![
                    Cell::state(s.state),
                    Cell::new("(all)"),
                    Cell::new(count),
                    Cell::new(note),
                ]);
                continue;
            }
            let count = s.count.unwrap_or(0);
            let oldest = s.oldest_age_seconds.map(age).unwrap_or_default();
            match s.destinations.as_slice() {
                [] => t.row(vec![
                    Cell::state(s.state),
                    Cell::empty(),
                    Cell::new("0"),
                    Cell::empty(),
                ]),
                [d] => t.row(vec![
                    Cell::state(s.state),
                    d.cell(),
                    Cell::new(thousands(d.count)),
                    Cell::new(oldest),
                ]),
                many => {
                    t.row(vec![
                        Cell::state(s.state),
                        Cell::new("(all)"),
                        Cell::new(thousands(count)),
                        Cell::new(oldest),
                    ]);
                    for d in many {
                        t.row(vec![
                            Cell::empty(),
                            d.cell(),
                            Cell::new(thousands(d.count)),
                            Cell::new(age(d.oldest_age_seconds)),
                        ]);
                    }
                    &mut t
                }
            };
        }
        let mut text = t.render(ui);
        if estimated {
            text.push('\n');
            text.push_str(&paragraphs(
                "≈ estimated from the planner's statistics (exact counts would read every accepted row)",
                ui.width().map(usize::from),
            ));
        }
        if !self.pause_rows.is_empty() {
            text.push_str("\n\n");
            text.push_str(&paused_table(ui, self.pauses_now, &self.pause_rows));
        }
        text
    }
}

impl DestinationStatus {
    /// The destination's cell: `cms-a (paused)` for a paused one, the mark kept when the
    /// name is cut.
    fn cell(&self) -> Cell {
        let cell = Cell::new(&self.destination);
        if self.paused {
            cell.tail(PAUSED_TAIL).tone(Tone::Warn)
        } else {
            cell
        }
    }
}

pub async fn run(ctx: &Context, _args: &Args) -> Result<Exit> {
    let db = ctx.db().await?;
    let (pauses, overview) =
        futures::try_join!(pause::observe(&**db, &ctx.actor), query::overview(&**db))?;
    drop(db);
    ctx.ui.emit(&report(overview, &pauses))?;
    Ok(Exit::Done)
}
