//! `reconctl destination list`: every destination that is configured, paused, or has open
//! jobs, paused or not, by whom, why, until when.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::configured;
use crate::commands::Exit;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::pause;
use crate::ui::destination::{pause_cells, pause_columns, DestinationView};
use crate::ui::{Cell, Column, Output, Render, Table, Tone, Ui};

#[derive(Debug, clap::Args)]
pub struct ListArgs {}

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

pub async fn run(ctx: &Context) -> Result<Exit> {
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
