//! How a destination and its pause look, wherever they are shown: the shape
//! `destination list -o json` gives (SPEC §6), which `status` lists its pauses with; a
//! pause's age and end as people say them (to the nearest second, as `status`, `check` and
//! `doctor` say them); and a pause's columns in the tables of `destination list` and
//! `status`.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use super::{Cell, Column, Table, Ui};
use crate::duration::humane;
use crate::jobs::model::rfc3339_opt;
use crate::jobs::pause::{Pause, Pauses};

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

    pub(crate) fn from_pause(p: &Pause, configured: bool) -> DestinationView {
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

    pub(crate) fn unpaused(name: &str, configured: bool) -> DestinationView {
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

/// The span from `from` to `to` (None under half a second).
pub(crate) fn span(from: DateTime<Utc>, to: DateTime<Utc>) -> Option<String> {
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

pub(crate) fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// SINCE, UNTIL, BY, REASON: a pause's columns, in both pause tables. When space is short
/// SINCE goes first, then who paused it; the reason is cut before it goes.
pub(crate) fn pause_columns() -> [Column; 4] {
    [
        Column::new("SINCE").priority(4),
        Column::new("UNTIL").priority(1),
        Column::new("BY").truncate(10).priority(3),
        Column::new("REASON").truncate(24).priority(2),
    ]
}

/// SINCE, UNTIL, BY, REASON of a destination's pause (empty when not paused).
pub(crate) fn pause_cells(now: DateTime<Utc>, d: &DestinationView) -> Vec<Cell> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
