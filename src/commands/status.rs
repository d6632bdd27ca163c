//! `reconctl status`: per state and destination, how many and how old.
//!
//! Every count is exact, read from the counters the database keeps per state and destination
//! (migrations/V10); each open group's oldest age is one index probe (see
//! `jobs::query::overview`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::duration::format_duration;
use crate::error::Result;
use crate::jobs::model::{rfc3339, rfc3339_opt};
use crate::jobs::pause::{self, Pauses};
use crate::jobs::plans::{self, RecentApply};
use crate::jobs::query::moves::Recent;
use crate::jobs::query::{self, ExpiredLeaseGroup, MoveCount, Overview};
use crate::jobs::{Action, Job, State};
use crate::ui::destination::{paused_table, DestinationView, PAUSED_TAIL};
use crate::ui::text::change;
use crate::ui::{paragraphs, thousands, Cell, Column, Output, Render, Table, Tone, Ui};
use crate::watch::{self as live, Frame, Source, WatchArgs};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl status\n  reconctl status -o json\n  reconctl status -v --watch\n  reconctl status --watch --interval 10s -o jsonl >> incident.jsonl\n\nStates come most actionable first. Counts are exact (kept by the database with every write).\nA paused destination (workers claim none of its jobs) is marked \"(paused)\", and its pause (who, why, since, until) listed below the counts; JSON: \"paused\" per destination and \"pauses\".\nThe oldest uncertain job (the first of `reconctl jobs uncertain`) is named below; JSON: \"oldest_uncertain\" (a job, or null).\nWith -v: the moves of the last 5 minutes and hour per action and destination (timeouts, sweeps, reconcile verdicts, marks), the expired leases, and the plans applied in the last hour with how many each moved; JSON: \"moves\", \"expired_leases\", \"plans\".\n--watch refreshes it until q or Ctrl-C, showing each count's change since the watch began (up or down arrows)."
)]
pub struct Args {
    #[command(flatten)]
    pub watch: WatchArgs,
}

#[derive(Debug, Clone, Serialize)]
struct DestinationStatus {
    destination: String,
    /// Workers claim none of its jobs (SPEC §6).
    paused: bool,
    count: i64,
    oldest_age_seconds: i64,
    #[serde(serialize_with = "rfc3339")]
    oldest_state_changed_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize)]
struct StateStatus {
    state: State,
    /// `null`: unknown (accepted, before `reconctl migrate` has built the counters).
    count: Option<i64>,
    /// Of the job longest in this state; `null` for accepted (not tracked) or no jobs.
    oldest_age_seconds: Option<i64>,
    destinations: Vec<DestinationStatus>,
}

/// A paused destination: who paused it, why, since and until when (`null`: until resumed).
#[derive(Debug, Clone, Serialize)]
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

#[derive(Debug, Clone, Serialize)]
struct StatusReport {
    #[serde(serialize_with = "rfc3339")]
    as_of: DateTime<Utc>,
    states: Vec<StateStatus>,
    /// The destinations paused now, by name.
    pauses: Vec<PauseStatus>,
    /// The first of `jobs uncertain` (the job longest uncertain), or none.
    oldest_uncertain: Option<Job>,
    /// With -v: the moves of the last 5 minutes / hour, per action and destination.
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveCount>>,
    /// With -v: per destination, in-flight jobs whose lease has expired.
    #[serde(skip_serializing_if = "Option::is_none")]
    expired_leases: Option<Vec<ExpiredLeaseGroup>>,
    /// With -v: the plans applied, or being applied, in the last hour (their moves are among
    /// `moves`), newest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    plans: Option<Vec<RecentApply>>,
    #[serde(skip)]
    pause_rows: Vec<DestinationView>,
    #[serde(skip)]
    pauses_now: DateTime<Utc>,
}

fn age_secs(now: DateTime<Utc>, t: DateTime<Utc>) -> i64 {
    (now - t).num_seconds().max(0)
}

fn report(
    o: Overview,
    pauses: &Pauses,
    oldest: Option<Job>,
    recent: Option<(Recent, Vec<RecentApply>)>,
) -> StatusReport {
    let (recent, plans) = recent.unzip();
    let (moves, expired_leases) = recent.map(|r| (r.moves, r.leases)).unzip();
    let states = State::BY_URGENCY
        .iter()
        .map(|&state| {
            if state == State::Accepted {
                return StateStatus {
                    state,
                    count: o.accepted,
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
        oldest_uncertain: oldest,
        moves,
        expired_leases,
        plans,
        pause_rows,
        pauses_now: pauses.now,
    }
}

fn age(secs: i64) -> String {
    format_duration(std::time::Duration::from_secs(secs.max(0) as u64))
}

impl Render for StatusReport {
    fn table(&self, ui: &Ui) -> String {
        self.render_table(ui, None)
    }

    fn output(&self) -> Output {
        Output::Data
    }
}

impl StatusReport {
    /// A state's count (all destinations with `None`), 0 when it has none.
    fn count_of(&self, state: State, destination: Option<&str>) -> i64 {
        let Some(s) = self.states.iter().find(|s| s.state == state) else {
            return 0;
        };
        match destination {
            None => s.count.unwrap_or(0),
            Some(d) => s
                .destinations
                .iter()
                .find(|x| x.destination == d)
                .map_or(0, |x| x.count),
        }
    }

    /// The counts table (a state's destinations under it, `(all)` first when there are
    /// several), the pauses in force, the oldest uncertain job, and with
    /// -v the recent moves. Built from the report alone, so a live view can redraw it; with
    /// `first` (a watch's first refresh), each count's change since then in a column of its own.
    fn render_table(&self, ui: &Ui, first: Option<&StatusReport>) -> String {
        let mut columns = vec![
            Column::new("STATE"),
            Column::new("DESTINATION").truncate(14).priority(1),
            Column::new("JOBS").right(),
        ];
        if first.is_some() {
            columns.push(Column::new("CHANGE").right().priority(3));
        }
        columns.push(Column::new("OLDEST").priority(2));
        let mut t = Table::new(columns);
        // The change cell of a count, when watching.
        let delta = |row: &mut Vec<Cell>, state: State, destination: Option<&str>, now: i64| {
            if let Some(f) = first {
                row.insert(3, Cell::new(change(now, f.count_of(state, destination))));
            }
        };
        for s in &self.states {
            if s.state == State::Accepted {
                let (count, note) = match s.count {
                    Some(n) => (thousands(n), ""),
                    None => (
                        "unknown".to_string(),
                        "counters not built: run reconctl migrate",
                    ),
                };
                let mut row = vec![
                    Cell::state(s.state),
                    Cell::new("(all)"),
                    Cell::new(count),
                    Cell::new(note),
                ];
                delta(&mut row, s.state, None, s.count.unwrap_or(0));
                t.row(row);
                continue;
            }
            let count = s.count.unwrap_or(0);
            let oldest = s.oldest_age_seconds.map(age).unwrap_or_default();
            match s.destinations.as_slice() {
                [] => {
                    let mut row = vec![
                        Cell::state(s.state),
                        Cell::empty(),
                        Cell::new("0"),
                        Cell::empty(),
                    ];
                    delta(&mut row, s.state, None, 0);
                    t.row(row);
                }
                [d] if first.map_or(true, |f| {
                    f.count_of(s.state, None) == f.count_of(s.state, Some(&d.destination))
                }) =>
                {
                    let mut row = vec![
                        Cell::state(s.state),
                        d.cell(),
                        Cell::new(thousands(d.count)),
                        Cell::new(oldest),
                    ];
                    delta(&mut row, s.state, None, count);
                    t.row(row);
                }
                many => {
                    let mut row = vec![
                        Cell::state(s.state),
                        Cell::new("(all)"),
                        Cell::new(thousands(count)),
                        Cell::new(oldest),
                    ];
                    delta(&mut row, s.state, None, count);
                    t.row(row);
                    // While watching, a destination that had jobs in this state at the start
                    // and has none now keeps its row (0 ▼n).
                    let mut gone: Vec<&DestinationStatus> = first
                        .and_then(|f| f.states.iter().find(|x| x.state == s.state))
                        .map(|x| {
                            x.destinations
                                .iter()
                                .filter(|d| !many.iter().any(|m| m.destination == d.destination))
                                .collect()
                        })
                        .unwrap_or_default();
                    gone.sort_by(|a, b| a.destination.cmp(&b.destination));
                    for d in many {
                        let mut row = vec![
                            Cell::empty(),
                            d.cell(),
                            Cell::new(thousands(d.count)),
                            Cell::new(age(d.oldest_age_seconds)),
                        ];
                        delta(&mut row, s.state, Some(&d.destination), d.count);
                        t.row(row);
                    }
                    for d in gone {
                        let mut row = vec![
                            Cell::empty(),
                            Cell::new(&d.destination),
                            Cell::new("0"),
                            Cell::empty(),
                        ];
                        delta(&mut row, s.state, Some(&d.destination), 0);
                        t.row(row);
                    }
                }
            };
        }
        let mut text = t.render(ui);
        if !self.pause_rows.is_empty() {
            text.push_str("\n\n");
            text.push_str(&paused_table(ui, self.pauses_now, &self.pause_rows));
        }
        if let Some(j) = &self.oldest_uncertain {
            // The command on a line of its own, never broken (SPEC §5).
            text.push_str("\n\n");
            text.push_str(&paragraphs(
                &format!(
                    "oldest uncertain job, for {} at {}:",
                    age(age_secs(self.as_of, j.state_changed_at)),
                    crate::ui::escape(&j.destination),
                ),
                ui.width().map(usize::from),
            ));
            text.push_str(&format!("\nreconctl remote lookup {}", j.id));
        }
        if let Some(moves) = &self.moves {
            text.push_str("\n\n");
            text.push_str(&moves_table(
                ui,
                moves,
                first.and_then(|f| f.moves.as_deref()),
            ));
        }
        for (i, p) in self.plans.iter().flatten().enumerate() {
            text.push_str(if i == 0 { "\n\n" } else { "\n" });
            text.push_str(&paragraphs(
                &plan_line(p, self.as_of),
                ui.width().map(usize::from),
            ));
        }
        if let Some(leases) = &self.expired_leases {
            for (i, l) in leases.iter().enumerate() {
                text.push_str(if i == 0 { "\n\n" } else { "\n" });
                text.push_str(&paragraphs(
                    &format!(
                        "expired leases: {} in flight at {} past their lease, the oldest for {}; reconctl sweep leases moves them",
                        thousands(l.count),
                        l.destination,
                        age(age_secs(self.as_of, l.oldest_expired_at))
                    ),
                    ui.width().map(usize::from),
                ));
            }
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

/// The moves of the last 5 minutes and hour (with -v); while watching, the last hour's
/// change since the watch began.
fn moves_table(ui: &Ui, moves: &[MoveCount], first: Option<&[MoveCount]>) -> String {
    if moves.is_empty() && first.map_or(true, |f| f.is_empty()) {
        return paragraphs(
            "moves: none in the last hour (timeouts, sweeps, reconcile verdicts, marks)",
            ui.width().map(usize::from),
        );
    }
    let mut columns = vec![
        Column::new("MOVE"),
        Column::new("DESTINATION").truncate(14).priority(1),
        Column::new("5M").right(),
        Column::new("1H").right(),
    ];
    if first.is_some() {
        columns.push(Column::new("CHANGE").right().priority(2));
    }
    let mut t = Table::new(columns);
    let mut keys: Vec<(usize, &str, Action)> = moves
        .iter()
        .chain(first.unwrap_or_default())
        .map(|m| {
            (
                query::moves::rank(m.action),
                m.destination.as_str(),
                m.action,
            )
        })
        .collect();
    keys.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    keys.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
    let find = |list: &[MoveCount], a: Action, d: &str| {
        list.iter()
            .find(|m| m.action == a && m.destination == d)
            .map_or((0, 0), |m| (m.last_5m, m.last_1h))
    };
    for (_, d, a) in keys {
        let (m5, h1) = find(moves, a, d);
        let mut row = vec![
            Cell::new(a.as_str()),
            Cell::new(d),
            Cell::new(thousands(m5)),
            Cell::new(thousands(h1)),
        ];
        if let Some(f) = first {
            row.push(Cell::new(change(h1, find(f, a, d).1)));
        }
        t.row(row);
    }
    t.render(ui)
}

/// Which of the moves above came from a plan: the plan, how many it moved, who applied it and
/// when, and where to see its items.
fn plan_line(p: &RecentApply, now: DateTime<Utc>) -> String {
    let ago = match age_secs(now, p.at) {
        0 => "just now".to_string(),
        secs => format!("{} ago", age(secs)),
    };
    let by = crate::ui::escape(&p.actor);
    let (id, moved, to) = (&p.id, thousands(p.moved), p.target);
    if p.status == "applied" {
        format!("from plan {id}: {moved} moved to {to}, applied by {by} {ago} (`reconctl plan show {id}`)")
    } else {
        format!("from plan {id}: {moved} moved to {to} so far; its apply by {by} started {ago} and has not finished (`reconctl plan show {id}`)")
    }
}

/// One look at the table, as `status` prints it: the pauses, the counts, the oldest uncertain
/// job, and with -v the recent moves, the expired leases and the plans applied in the last
/// hour; the statements pipelined on one session, outside a transaction.
async fn read(client: &tokio_postgres::Client, actor: &str, verbose: bool) -> Result<StatusReport> {
    let recent = async {
        if verbose {
            let within = std::time::Duration::from_secs(query::moves::WINDOWS[1].1 as u64);
            let (recent, applies) =
                futures::try_join!(Recent::read(client), plans::recent_applies(client, within))?;
            Ok(Some((recent, applies)))
        } else {
            Ok(None)
        }
    };
    let (pauses, overview, oldest, recent) = futures::try_join!(
        pause::observe(client, actor),
        query::overview(client),
        query::oldest_uncertain(client),
        recent
    )?;
    Ok(report(overview, &pauses, oldest, recent))
}

/// `status --watch`.
struct Watched<'a> {
    actor: &'a str,
    verbose: bool,
}

impl Source for Watched<'_> {
    type Frame = StatusReport;

    fn title(&self) -> String {
        if self.verbose {
            "reconctl status -v --watch".into()
        } else {
            "reconctl status --watch".into()
        }
    }

    async fn read(&self, client: &tokio_postgres::Client) -> Result<StatusReport> {
        read(client, self.actor, self.verbose).await
    }
}

impl Frame for StatusReport {
    fn screen(&self, first: &Self, ui: &Ui) -> String {
        self.render_table(ui, Some(first))
    }

    fn as_of(&self) -> DateTime<Utc> {
        self.as_of
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let verbose = ctx.ui.verbose > 0;
    if args.watch.watch {
        let source = Watched {
            actor: &ctx.actor,
            verbose,
        };
        return live::watch(ctx, &source, &args.watch).await;
    }
    let db = ctx.db().await?;
    let status = read(&db, &ctx.actor, verbose).await?;
    drop(db);
    ctx.ui.emit(&status)?;
    Ok(Exit::Done)
}
