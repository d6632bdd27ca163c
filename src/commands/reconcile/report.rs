//! What a run did, for scripts and for people: SPEC §5's `reconcile` document (each job, the
//! summary), the destinations whose controls failed (named once, not once per job), and the
//! exit code.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::pipeline::Pipeline;
use super::row::{Judged, Left, Row, RowAction};
use crate::error::{Code, Error, Exit, Result};
use crate::jobs::{store, State};
use crate::remote::{action_for, verdict_action};
use crate::remote::{Controls, Verdict};
use crate::ui::table::StreamTable;
use crate::ui::{escape, paragraphs, Cell, Column, Stream, Table, Tone, Ui};

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub accept: u64,
    pub safe_to_retry: u64,
    pub conflict: u64,
    pub wait: u64,
    pub unknown: u64,
    pub moved: u64,
    pub skipped: u64,
    #[serde(skip)]
    busy: u64,
    #[serde(skip)]
    failed: u64,
    /// Moved, per state reached (for the failure message).
    #[serde(skip)]
    moved_to: BTreeMap<&'static str, u64>,
}

impl Summary {
    pub fn count(&mut self, row: &Row) {
        match row.verdict {
            Verdict::Accept => self.accept += 1,
            Verdict::SafeToRetry => self.safe_to_retry += 1,
            Verdict::Conflict => self.conflict += 1,
            Verdict::Wait => self.wait += 1,
            Verdict::Unknown => self.unknown += 1,
        }
        match row.action {
            RowAction::Moved => {
                self.moved += 1;
                if let Some(s) = row.to_state {
                    *self.moved_to.entry(s.as_str()).or_default() += 1;
                }
            }
            RowAction::Skipped => self.skipped += 1,
            RowAction::Planned | RowAction::None => {}
        }
        match row.left {
            Some(Left::Busy) => self.busy += 1,
            Some(Left::Failed) => self.failed += 1,
            Some(Left::Changed) | None => {}
        }
    }

    pub fn examined(&self) -> u64 {
        self.accept + self.safe_to_retry + self.conflict + self.wait + self.unknown
    }

    pub fn would_move(&self) -> u64 {
        self.accept + self.safe_to_retry + self.conflict
    }

    /// SPEC §5: exit 5 while a job needs a person (conflict, unknown, a move the database
    /// refused); else 6 when jobs were left only because they were busy; else 0.
    pub fn exit(&self) -> Exit {
        if self.conflict > 0 || self.unknown > 0 || self.failed > 0 {
            Exit::Attention
        } else if self.busy > 0 {
            Exit::Busy
        } else {
            Exit::Done
        }
    }

    fn moved_text(&self) -> String {
        if self.moved == 0 {
            return "moved no job".to_string();
        }
        let per: Vec<String> = self
            .moved_to
            .iter()
            .map(|(s, n)| format!("{n} → {s}"))
            .collect();
        format!("moved {} jobs ({})", self.moved, per.join(", "))
    }

    fn line(&self, applied: bool) -> String {
        let tail = if applied {
            let busy = if self.busy > 0 {
                format!(" ({} busy: run reconcile again)", self.busy)
            } else {
                String::new()
            };
            format!("; moved {}, skipped {}{busy}", self.moved, self.skipped)
        } else if self.would_move() > 0 {
            format!(
                "; {} would move: nothing changed, run with --apply to make these moves",
                self.would_move()
            )
        } else {
            "; nothing to move".to_string()
        };
        format!(
            "reconcile: examined {}: accept {}, safe_to_retry {}, conflict {}, wait {}, unknown {}{tail}",
            self.examined(),
            self.accept,
            self.safe_to_retry,
            self.conflict,
            self.wait,
            self.unknown
        )
    }
}

/// Ctrl-C or SIGTERM stopped an applying run (exit 130); [`Report::fail`] adds what it had
/// moved and how to see it.
pub fn interrupted() -> Error {
    Error::new(
        Code::Interrupted,
        "interrupted (Ctrl-C or SIGTERM); the moves under way were finished, no new one was begun",
    )
}

/// `--max` refused: nothing changed.
pub fn too_many(max: u64, summary: &Summary) -> Error {
    Error::new(
        Code::TooManyMoves,
        format!(
            "refusing to apply: more than --max {max} jobs would move (stopped looking after {} examined); nothing changed",
            summary.examined()
        ),
    )
    .hinted("look at the plan (reconcile without --apply), then raise --max or narrow with --destination / --limit")
    .with_detail(json!({ "max": max, "examined": summary.examined(), "would_move_at_least": summary.would_move() }))
}

/// The question's context on the terminal: counts per verdict and a few examples (on stderr,
/// even with `-q`: consent to something unseen is no consent).
pub fn show_plan(ui: &Ui, summary: &Summary, moves: &[Judged], samples: usize, states: &[State]) {
    let width = ui.err_width().map(usize::from);
    let mut counts = Table::new(vec![
        Column::new("VERDICT"),
        Column::new("JOBS").right(),
        Column::new("MOVE"),
    ]);
    for (verdict, n) in [
        (Verdict::Accept, summary.accept),
        (Verdict::SafeToRetry, summary.safe_to_retry),
        (Verdict::Conflict, summary.conflict),
        (Verdict::Wait, summary.wait),
        (Verdict::Unknown, summary.unknown),
    ] {
        let from: Vec<State> = states
            .iter()
            .copied()
            .filter(|s| action_for(verdict, *s).is_some())
            .collect();
        let stay = |states: &[State]| {
            format!(
                "(stay {})",
                states
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("/")
            )
        };
        let what = match verdict_action(verdict) {
            Some(a) if from.len() == states.len() => format!("→ {}", a.to()),
            Some(a) if !from.is_empty() => format!(
                "→ {} from {}",
                a.to(),
                from.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("/")
            ),
            _ => stay(states),
        };
        counts.row(vec![
            Cell::new(verdict.as_str()),
            Cell::new(n.to_string()),
            Cell::new(what),
        ]);
    }
    let mut examples = Table::new(vec![
        Column::id("JOB"),
        // Which destination answered is never dropped (issue 23 item 13).
        Column::new("DESTINATION").truncate(12),
        Column::new("VERDICT"),
        Column::new("TO"),
        Column::new("REASON").truncate(20).priority(1),
    ]);
    for j in moves.iter().take(samples) {
        examples.row(vec![
            Cell::id(j.job.id),
            Cell::new(&j.job.destination),
            Cell::new(j.lookup.verdict.as_str()),
            Cell::new(action_for(j.lookup.verdict, j.job.state).map_or("-", |a| a.to().as_str())),
            Cell::new(&j.lookup.reason),
        ]);
    }
    let mut text = paragraphs(
        &format!(
            "reconcile would move {} of {} examined jobs:",
            summary.would_move(),
            summary.examined()
        ),
        width,
    );
    text.push('\n');
    text.push_str(&counts.render_at(width, false));
    if !examples.is_empty() {
        text.push_str("\nfor example:\n");
        text.push_str(&examples.render_at(width, false));
    }
    ui.before_prompt(&text);
}

/// The report as it is written.
pub struct Report<'a> {
    ui: &'a Ui,
    stream: Stream<'a>,
    table: StreamTable,
    applied: bool,
    /// Jobs left unknown per destination whose controls failed.
    controls_failed: BTreeMap<String, u64>,
}

/// The rows' table, written as the run goes: the job id in full when the width leaves the
/// reason 24 columns (120 columns do), else a prefix unique in the database (8 at least;
/// every JOB argument takes a prefix; see [`Report::ids_unique_in`]);
/// the reason takes what is left, the destination is never dropped (which destination
/// answered is part of every verdict), and the state a job went to (its verdict says it)
/// goes first.
fn rows_table(ui: &Ui) -> StreamTable {
    StreamTable::new(
        vec![
            Column::id("JOB"),
            Column::new("DESTINATION").truncate(12),
            Column::new("VERDICT"),
            Column::new("ACTION"),
            Column::new("TO").priority(3),
            Column::new("REASON").truncate(24).priority(1),
        ],
        vec![36, 12, 13, 7, 13, 24],
        ui.width().map(usize::from),
        ui.color(),
    )
}

fn row_cells(row: &Row) -> Vec<Cell> {
    vec![
        Cell::id(row.id),
        Cell::new(&row.destination),
        Cell::new(row.verdict.as_str()).tone(verdict_tone(row.verdict)),
        Cell::new(row.action.as_str()),
        Cell::new(row.to_state.map_or("-", State::as_str)),
        Cell::new(&row.reason),
    ]
}

fn verdict_tone(v: Verdict) -> Tone {
    match v {
        Verdict::Conflict | Verdict::Unknown => Tone::Bad,
        Verdict::Wait => Tone::Warn,
        Verdict::Accept | Verdict::SafeToRetry => Tone::Good,
    }
}

impl<'a> Report<'a> {
    pub fn new(ui: &'a Ui, applied: bool) -> Report<'a> {
        let table = rows_table(ui);
        Report {
            ui,
            stream: Stream::new(
                ui,
                vec![("applied", applied.into())],
                "jobs",
                table.header(),
            ),
            table,
            applied,
            controls_failed: BTreeMap::new(),
        }
    }

    /// Before `rows` are printed: their ids keep as many characters as the database needs to
    /// tell each from every other job (not only from the rows printed), so an id copied from
    /// the table names one job. Without an answer, ids in full: never an ambiguous one.
    pub async fn ids_unique_in(&mut self, p: &Pipeline<'_>, rows: &[Row]) {
        if self.ui.is_json() || !self.table.shortens_ids() || rows.is_empty() {
            return;
        }
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let len = match p.ctx.db().await {
            Ok(db) => store::unique_prefix_len(&**db, &ids).await.ok(),
            Err(_) => None,
        };
        self.table
            .prefix_at_least(len.unwrap_or(uuid::fmt::Hyphenated::LENGTH));
    }

    pub fn row(&mut self, row: &Row) -> Result<()> {
        if row.controls_failed {
            *self
                .controls_failed
                .entry(row.destination.clone())
                .or_default() += 1;
        }
        let json = serde_json::to_value(row).map_err(|e| Error::bug(e.to_string()))?;
        let table = &mut self.table;
        self.stream
            .item(&json, || table.line(row.id, &row_cells(row)))
    }

    fn controls_json(controls: &BTreeMap<String, Arc<Controls>>) -> Value {
        Value::Object(
            controls
                .iter()
                .map(|(name, c)| {
                    let mut v = serde_json::to_value(&**c).unwrap_or(Value::Null);
                    v["ok"] = c.ok().into();
                    (name.clone(), v)
                })
                .collect(),
        )
    }

    /// Each destination whose controls failed, once, with what it cost.
    fn controls_lines(&self, controls: &BTreeMap<String, Arc<Controls>>) -> Vec<String> {
        controls
            .iter()
            .filter_map(|(name, c)| {
                let failure = c.failure()?;
                let n = self.controls_failed.get(name).copied().unwrap_or(0);
                Some(format!(
                    "destination {}: {}; {n} of its jobs were not looked up or their answers not trusted (unknown: nothing moved on its word)",
                    escape(name),
                    escape(&failure)
                ))
            })
            .collect()
    }

    /// The end of a run that did not fail.
    pub fn finish(
        self,
        summary: &Summary,
        controls: &BTreeMap<String, Arc<Controls>>,
    ) -> Result<()> {
        let mut text = vec![summary.line(self.applied)];
        text.extend(self.controls_lines(controls));
        let text = paragraphs(&text.join("\n"), self.ui.width().map(usize::from));
        let closed = self.stream.stdout_closed();
        let rows = self.stream.items();
        let tail = vec![
            (
                "summary",
                serde_json::to_value(summary).unwrap_or(Value::Null),
            ),
            ("controls", Self::controls_json(controls)),
        ];
        let ui = self.ui;
        let written = self.stream.finish(tail, &text);
        if closed {
            // The run went on after stdout closed: say what it did where it can be read.
            ui.warn(&format!(
                "stdout was closed during the run; it went on to finish what --apply was asked to do: {text}"
            ));
            let _ = rows;
        } else if ui.quiet && summary.exit() != Exit::Done {
            // -q: nothing on success, but a run that needs a person says why (cron mails it).
            ui.warn(&text);
        }
        match written {
            Err(e) if e.kind() == crate::error::Kind::BrokenPipe => Ok(()),
            other => other,
        }
    }

    /// The end of a run that failed midway: the document closed with the error, and an
    /// error that says what the run had already moved and how to see it.
    pub fn fail(
        self,
        summary: &Summary,
        controls: &BTreeMap<String, Arc<Controls>>,
        err: Error,
        p: &Pipeline<'_>,
    ) -> Error {
        let since = p.started.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let moved = summary.moved_text();
        let err = if summary.moved > 0 {
            err.with_message(|m| format!("reconcile stopped: {m}; before that it {moved}, which stand"))
                .hinted(format!(
                    "see what it moved: reconctl events --since {since} --actor {}; run reconcile again to go on (it takes up the jobs still uncertain)",
                    p.ctx.actor
                ))
        } else {
            err.with_message(|m| format!("reconcile stopped: {m}; it moved no job"))
        };
        let tail = vec![
            (
                "summary",
                serde_json::to_value(summary).unwrap_or(Value::Null),
            ),
            ("controls", Self::controls_json(controls)),
        ];
        self.stream.fail(tail, err)
    }
}
