//! What committed since the last look. Event ids come from a sequence at INSERT, not at
//! COMMIT: a transaction that took id 100 can commit after the one that took id 101, so
//! "print what is after the last id" loses id 100. Every event row records the transaction
//! that wrote it (`xid`, V6), and the follower remembers the *snapshot* of its last look
//! (`xmin:xmax:xip…`). What finished since is exactly the transactions the old snapshot saw
//! as running (its `xip`) or not yet started (`>= xmax`); their rows, visible now, are the
//! new events, and all of a transaction's rows become visible at once. So each committed
//! event is printed once, none is skipped, a rolled-back transaction's events are never
//! seen, and events of one transaction, or of one job (each move waits for the previous
//! one's commit), come out in id order.
//!
//! This is finer than a watermark at the snapshot's `xmin` ("print what is older than the
//! oldest running transaction"): `xmin` stops at any writing transaction in the whole
//! cluster (xids are cluster-wide: a long batch job on another database holds it back), and
//! everything committed behind it would wait; the snapshot delta prints a transaction as
//! soon as it commits. `xmin` still bounds the delta: everything below it was finished.

use chrono::{DateTime, Utc};

use super::branch::{branches, where_clause};
use super::filter::EventFilter;
use crate::error::{Error, Result};
use crate::jobs::query::Sql;

/// A snapshot as `pg_current_snapshot()::text` gives it: `xmin:xmax:xip,xip,…`. A
/// transaction is finished in it when its xid is below `xmax` and not in `xip`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    text: String,
    xmin: u64,
    xmax: u64,
    xip: Vec<u64>,
}

impl Snapshot {
    pub fn parse(text: &str) -> Result<Snapshot> {
        let bad = || Error::bug(format!("unexpected snapshot `{text}`"));
        let mut parts = text.split(':');
        let (Some(xmin), Some(xmax), Some(xip), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
        Ok(Snapshot {
            text: text.to_string(),
            xmin: num(xmin)?,
            xmax: num(xmax)?,
            xip: xip
                .split(',')
                .filter(|s| !s.is_empty())
                .map(num)
                .collect::<Result<_>>()?,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `xid` had finished (committed or rolled back) when this snapshot was taken.
    pub fn finished(&self, xid: u64) -> bool {
        xid < self.xmin || (xid < self.xmax && !self.xip.contains(&xid))
    }
}

/// The events of the transactions that finished after `seen` (and, when draining a delta
/// bigger than a batch, before `until`, after the event id `after`), oldest id first, with
/// the snapshot the statement read them in, the server's start time and the statement's
/// time (`snap`, `started`, `ts`: the first columns, in the one row there is when no event
/// matched). `began_after`: after a server restart, also every event whose transaction began
/// at or after this time, whatever its xid (see [`Follow`](super::Follow)'s "Across a restart").
pub fn delta_sql(
    filter: &EventFilter,
    seen: &Snapshot,
    drain: Option<(&Snapshot, i64)>,
    began_after: Option<DateTime<Utc>>,
    limit: u32,
) -> Sql {
    let mut sql = Sql::new();
    let xmax = sql.bind(seen.xmax.to_string());
    let xip = sql.bind(seen.xip.iter().map(u64::to_string).collect::<Vec<_>>());
    let drain = drain.map(|(until, after)| (sql.bind(until.text.clone()), sql.bind(after)));
    let began_after = began_after.map(|t| sql.bind(t));
    // A follower's bounds are times (fixed by `Follow::start`); a duration here would move
    // with the clock at every poll and drop what began before it.
    let since = filter.since.map(|s| s.sql(&mut sql));
    let until = filter.until.map(|u| u.sql(&mut sql));
    let branches = branches(&mut sql, filter, false);
    let limit = sql.bind(i64::from(limit));
    let parts: Vec<String> = branches
        .iter()
        .map(|b| {
            let r = b.source.row();
            let mut c = b.conditions.clone();
            let restarted = began_after
                .as_ref()
                .map(|t| format!(" OR {r}.at >= {t}::timestamptz"))
                .unwrap_or_default();
            c.push(format!(
                "({r}.xid >= {xmax}::text::xid8 OR {r}.xid = ANY({xip}::text[]::xid8[]){restarted})"
            ));
            if let Some((u, a)) = &drain {
                c.push(format!(
                    "pg_visible_in_snapshot({r}.xid, {u}::text::pg_snapshot) AND {r}.id > {a}::bigint"
                ));
            }
            if let Some(s) = &since {
                c.push(format!("{r}.at >= {s}"));
            }
            if let Some(u) = &until {
                c.push(format!("{r}.at < {u}"));
            }
            format!("({}{})", b.source.select(), where_clause(&c))
        })
        .collect();
    let delta = parts.join(" UNION ALL ");
    // The delta is computed whole (few rows: what committed since the last look, found by
    // ix_job_events_xid), then ordered; never a walk of the log in id order.
    sql.text = format!(
        "WITH s AS MATERIALIZED (SELECT pg_current_snapshot()::text AS snap,
                pg_postmaster_start_time() AS started, statement_timestamp() AS ts),
         delta AS MATERIALIZED ({delta})
         SELECT s.snap, s.started, s.ts, p.* FROM s
         LEFT JOIN (SELECT * FROM delta ORDER BY id LIMIT {limit}) AS p ON true
         ORDER BY p.id"
    );
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_parse_and_say_what_had_finished() {
        let s = Snapshot::parse("100:105:100,102").unwrap();
        assert!(s.finished(99));
        assert!(!s.finished(100));
        assert!(s.finished(101));
        assert!(!s.finished(102));
        assert!(s.finished(104));
        assert!(!s.finished(105));
        let empty = Snapshot::parse("7:7:").unwrap();
        assert!(empty.finished(6) && !empty.finished(7));
        for bad in ["", "1:2", "1:2:3:4", "a:2:", "1:2:x"] {
            assert!(Snapshot::parse(bad).is_err(), "{bad}");
        }
    }
}
