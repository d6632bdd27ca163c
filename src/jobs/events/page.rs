//! Listing: events come oldest first in keyset order `(at, id)`: a timeline. Every filter
//! is a range of one index of migrations/V6 in that order (`--since`/`--until` bound the same
//! range), so a page costs what it returns, never a sort of the log:
//!
//! | filter | job events | destination events |
//! |---|---|---|
//! | none, `--since`, `--until` | `ix_job_events_at (at, id)` | `ix_destination_events_at` |
//! | `--actor` | `ix_job_events_actor (actor, at, id)` | (few rows: filtered) |
//! | `--action` (each) | `ix_job_events_action (action, at, id)`, one range per action, merged | |
//! | `--destination` | `ix_job_events_destination` + `ix_job_event_destinations_destination` (events older than V6), merged | `ix_destination_events_destination` |
//! | `--job` | `ix_job_events_job (job_id, id)`: one job's few events | none |
//!
//! Each source is one branch (`… ORDER BY at, id LIMIT n`), merged by a Merge Append.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

use super::branch::{branches, where_clause, Branch, Source};
use super::event::TrailEvent;
use super::filter::EventFilter;
use super::follow::FollowError;
use crate::error::Result;
use crate::jobs::query::cursor;
use crate::jobs::query::Sql;

/// A place in keyset order: the last event of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub at: DateTime<Utc>,
    pub id: i64,
}

const POSITION_LEN: usize = 16;

/// The `next_cursor` after `after` in the listing `filter`.
pub fn encode_cursor(filter: &EventFilter, after: Position) -> String {
    let mut bytes = Vec::with_capacity(POSITION_LEN);
    bytes.extend_from_slice(&after.at.timestamp_micros().to_be_bytes());
    bytes.extend_from_slice(&after.id.to_be_bytes());
    cursor::encode(filter.fingerprint(), &bytes)
}

/// The position a `--cursor` names, if this listing made it and it is intact (else exit 2).
pub fn decode_cursor(filter: &EventFilter, c: &str) -> Result<Position> {
    let body = cursor::decode(filter.fingerprint(), c, POSITION_LEN)?;
    let micros = i64::from_be_bytes(body[..8].try_into().expect("8 bytes"));
    let id = i64::from_be_bytes(body[8..].try_into().expect("8 bytes"));
    let at = DateTime::from_timestamp_micros(micros)
        .ok_or_else(|| cursor::invalid("its position is out of range"))?;
    Ok(Position { at, id })
}

/// One page of the listing: at most `limit` events after `after` (none: from the start),
/// plus one to know whether there is a next page. `visible_in`: only events of transactions
/// that had finished in this snapshot (the history part of `--follow`; see `snapshot`).
pub fn page_sql(
    filter: &EventFilter,
    after: Option<Position>,
    limit: u32,
    visible_in: Option<&str>,
) -> Sql {
    keyset_sql(filter, after, i64::from(limit) + 1, visible_in, "")
}

/// The newest `n` events that match, newest first (`--last N`; the caller prints them
/// oldest first), by the same indexes read backwards. `visible_in` as for [`page_sql`].
pub fn last_sql(filter: &EventFilter, n: u32, visible_in: Option<&str>) -> Sql {
    keyset_sql(filter, None, i64::from(n), visible_in, " DESC")
}

/// [`page_sql`] and [`last_sql`]: `limit` rows in keyset order (`direction` "" or " DESC").
fn keyset_sql(
    filter: &EventFilter,
    after: Option<Position>,
    limit: i64,
    visible_in: Option<&str>,
    direction: &str,
) -> Sql {
    let mut sql = Sql::new();
    let mut shared: Vec<(Source, String)> = Vec::new();
    let keyset = after.map(|p| (sql.bind(p.at), sql.bind(p.id)));
    // With a cursor, `--since` is implied (the cursor's event was at or after it) and is not
    // repeated: `--since 1h` would otherwise move with the clock between pages.
    let since = match (after, filter.since) {
        (None, Some(s)) => Some(s.sql(&mut sql)),
        _ => None,
    };
    let until = filter.until.map(|u| u.sql(&mut sql));
    let snapshot = visible_in.map(|s| sql.bind(s.to_string()));
    for source in [Source::Jobs, Source::Legacy, Source::Destinations] {
        let (k, r) = (source.key(), source.row());
        let mut c = Vec::new();
        if let Some((at, id)) = &keyset {
            c.push(format!(
                "({k}.at, {k}.id) > ({at}::timestamptz, {id}::bigint)"
            ));
        }
        if let Some(s) = &since {
            c.push(format!("{k}.at >= {s}"));
        }
        if let Some(u) = &until {
            c.push(format!("{k}.at < {u}"));
        }
        if let Some(s) = &snapshot {
            c.push(format!(
                "({r}.xid IS NULL OR pg_visible_in_snapshot({r}.xid, {s}::text::pg_snapshot))"
            ));
        }
        for cond in c {
            shared.push((source, cond));
        }
    }
    let branches = branches(&mut sql, filter, true);
    let limit = sql.bind(limit);
    let branch_sql = |b: &Branch| {
        let k = b.source.key();
        let mut conds = b.conditions.clone();
        conds.extend(
            shared
                .iter()
                .filter(|(s, _)| *s == b.source)
                .map(|(_, c)| c.clone()),
        );
        format!(
            "{}{} ORDER BY {k}.at{direction}, {k}.id{direction} LIMIT {limit}",
            b.source.select(),
            where_clause(&conds)
        )
    };
    sql.text = match branches.as_slice() {
        [one] => branch_sql(one),
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|b| format!("({})", branch_sql(b)))
                .collect();
            format!(
                "SELECT * FROM ({}) AS ev ORDER BY at{direction}, id{direction} LIMIT {limit}",
                parts.join(" UNION ALL ")
            )
        }
    };
    sql
}

/// One page of the trail.
#[derive(Debug, Clone)]
pub struct EventPage {
    pub events: Vec<TrailEvent>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Read one page: at most `limit` events after `cursor` (a `next_cursor` of this listing).
pub async fn page<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    limit: u32,
    cursor: Option<&str>,
) -> Result<EventPage> {
    let after = cursor.map(|c| decode_cursor(filter, c)).transpose()?;
    let (events, more) = read_page(client, filter, after, limit, None)
        .await
        .map_err(|f| f.error)?;
    let next_cursor = if more {
        events.last().map(|e| encode_cursor(filter, e.position()))
    } else {
        None
    };
    Ok(EventPage {
        events,
        next_cursor,
    })
}

/// The newest `n` events that match, printed oldest first (`--last N`, like `journalctl -n`).
pub async fn last<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    n: u32,
) -> Result<Vec<TrailEvent>> {
    read_last(client, filter, n, None)
        .await
        .map_err(|f| f.error)
}

pub(super) async fn read_last<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    n: u32,
    visible_in: Option<&str>,
) -> std::result::Result<Vec<TrailEvent>, FollowError> {
    let rows = last_sql(filter, n, visible_in).query_typed(client).await?;
    let mut events = rows
        .iter()
        .map(|r| TrailEvent::from_row_at(r, 0))
        .collect::<Result<Vec<_>>>()?;
    events.reverse();
    Ok(events)
}

pub(super) async fn read_page<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    after: Option<Position>,
    limit: u32,
    visible_in: Option<&str>,
) -> std::result::Result<(Vec<TrailEvent>, bool), FollowError> {
    let sql = page_sql(filter, after, limit, visible_in);
    let rows = sql.query_typed(client).await?;
    if rows.is_empty() {
        return Ok((Vec::new(), false));
    }
    let mut events = rows
        .iter()
        .map(|r| TrailEvent::from_row_at(r, 0))
        .collect::<Result<Vec<_>>>()?;
    let more = events.len() > limit as usize;
    events.truncate(limit as usize);
    Ok((events, more))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_are_bound_to_the_filters() {
        let f = EventFilter {
            actor: Some("alice".into()),
            actions: vec!["claim", "pause"],
            ..EventFilter::default()
        };
        let p = Position {
            at: DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(),
            id: 42,
        };
        let c = encode_cursor(&f, p);
        assert_eq!(decode_cursor(&f, &c).unwrap(), p);
        // Order and duplicates of --action do not change the listing.
        let same = EventFilter {
            actions: vec!["pause", "claim", "pause"],
            ..f.clone()
        };
        assert_eq!(decode_cursor(&same, &c).unwrap(), p);
        let other = EventFilter {
            actor: Some("bob".into()),
            ..f.clone()
        };
        let err = decode_cursor(&other, &c).unwrap_err();
        assert!(err.message().contains("other filters"), "{}", err.message());
        assert_eq!(err.exit_code(), 2);
    }
}
