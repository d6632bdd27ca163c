//! Following the trail (`events --follow`): the events already there (a history), then each
//! as its transaction commits (the delta of `snapshot`), across reconnections and a server
//! restart.
//!
//! **Waking up: polling**, every 250 ms after an event, backing off to every 1.25 s when
//! idle (so ≤ 0.8 statements a second, each an index probe of `ix_job_events_xid` that finds
//! nothing, in one round trip; scripts/bench-events on 10M events: 0.4–0.5 s from commit to
//! print, median of 100, and 0.83 transactions a second idle). LISTEN/NOTIFY would print sooner, but every
//! writer would have to NOTIFY (a trigger on job_events, so foreign workers too), and
//! PostgreSQL serialises the commits of all notifying transactions on one lock: the pipeline's
//! workers would pay for the follower on every move. Polling costs the writers nothing, needs
//! no dedicated connection, and works through a transaction pooler. Nothing is held between
//! polls: each is one statement in its own implicit transaction, with the session's
//! statement and lock timeouts.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use tokio_postgres::GenericClient;

use super::event::TrailEvent;
use super::filter::EventFilter;
use super::page::{read_last, read_page, Position};
use super::snapshot::{delta_sql, Snapshot};
use crate::error::{Code, Error};

/// Why a step of `--follow` failed, and whether trying again on a new connection can help.
#[derive(Debug)]
pub struct FollowError {
    pub error: Error,
    /// The connection was lost, the server is restarting or overloaded, a timeout fired:
    /// reconnect and resume. Otherwise (no such database, no grant, no schema) it is final.
    pub transient: bool,
}

impl From<tokio_postgres::Error> for FollowError {
    fn from(e: tokio_postgres::Error) -> Self {
        FollowError {
            transient: is_transient(&e),
            error: e.into(),
        }
    }
}

impl From<Error> for FollowError {
    fn from(error: Error) -> Self {
        FollowError {
            error,
            transient: false,
        }
    }
}

/// Whether a database error is worth a reconnect (see [`FollowError::transient`]).
pub fn is_transient(e: &tokio_postgres::Error) -> bool {
    match e.code() {
        Some(code) => {
            let c = code.code();
            c.starts_with("08") // connection exception
                || c.starts_with("57P") // admin/crash shutdown, cannot connect now
                || c == "57014" // statement timeout
                || c == "55P03" // lock timeout (a migration holding the log)
                || c == "53300" // too many connections
                || c == "53000" // insufficient resources
                || c.starts_with("40") // serialization failure, deadlock (never expected)
        }
        // No SQLSTATE: the socket closed, an I/O error, a connect timeout.
        None => true,
    }
}

/// Events a step printed, and whether the next step should follow at once (history pages
/// or a large delta still to drain) rather than after the poll interval.
#[derive(Debug, Default)]
pub struct Step {
    pub events: Vec<TrailEvent>,
    pub more: bool,
}

#[derive(Debug, Clone)]
enum Phase {
    /// Paging through the history (events finished in `start`), from `after`.
    History { after: Option<Position> },
    /// The newest `n` events finished in `start` (`--last N`), then live.
    Last(u32),
    /// Printing what finishes after `seen`; `drain`: a delta bigger than a batch, being read
    /// up to its snapshot, after the event id printed last.
    Live { drain: Option<(Snapshot, i64)> },
}

/// What `--follow` prints before the live events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Nothing: only what commits from now on.
    None,
    /// The events already committed that match (from `--since`), or those after a
    /// `--cursor` position.
    From(Option<Position>),
    /// The newest N that match (`--last N`).
    Last(u32),
}

impl From<Option<Option<Position>>> for History {
    fn from(h: Option<Option<Position>>) -> History {
        h.map_or(History::None, History::From)
    }
}

/// How far before the last look a restart's re-read reaches, and how long printed events are
/// remembered to drop a second copy: room for the clocks of two servers of a failover.
const RESTART_MARGIN: Duration = Duration::from_secs(5);

/// The state of `events --follow`: what has been printed, as a snapshot. It lives in
/// memory across reconnections, so a new connection resumes exactly where the old one
/// stopped (no event twice, none lost).
///
/// **Across a restart.** After a crash (or a failover) the server can hand out again the
/// transaction ids of transactions whose WAL it never flushed (`synchronous_commit = off`):
/// `seen` then counts new transactions as finished long ago, and the delta would skip their
/// events. Every look also reads `pg_postmaster_start_time()`; when it changed, the follower
/// reads, besides the delta, every event whose transaction began at or after the last look
/// before the restart (less [`RESTART_MARGIN`]): a transaction of the new server began after
/// it started, so after that look. Events printed meanwhile are remembered by (id, xid, at)
/// for that long and never printed twice. An event printed before the crash whose commit the
/// crash lost cannot be taken back: it is the server's own asynchronous-commit window.
#[derive(Debug, Clone)]
pub struct Follow {
    filter: EventFilter,
    /// Every event of a transaction finished in this snapshot has been printed (or was
    /// before the start): the live phase prints what finishes after it.
    seen: Snapshot,
    /// The server's clock at the statement that took `seen`.
    seen_at: DateTime<Utc>,
    /// The server's start time as last seen (`pg_postmaster_start_time()`).
    server_start: DateTime<Utc>,
    /// After a restart, until a delta has been read whole: events whose transaction began at
    /// or after this are read whatever their xid.
    restarted: Option<DateTime<Utc>>,
    /// Events printed lately (id, xid → at), to drop a second copy after a restart.
    printed: std::collections::HashMap<(i64, Option<u64>), DateTime<Utc>>,
    phase: Phase,
    batch: u32,
}

/// Events per statement while following (history pages and live deltas).
pub const FOLLOW_BATCH: u32 = 1000;

impl Follow {
    /// Start following now. With a history, first print the events already committed that
    /// match (from `--since`, or after a `--cursor` position, or the newest N), then the new
    /// ones; without, only the new ones. A `--since` or `--until` given as a duration is
    /// fixed here to a time on the database's clock: it never moves while following.
    pub async fn start<C: GenericClient>(
        client: &C,
        mut filter: EventFilter,
        history: impl Into<History>,
    ) -> std::result::Result<Follow, FollowError> {
        let row = client
            .query_typed_one(
                "SELECT pg_current_snapshot()::text, statement_timestamp(), pg_postmaster_start_time()",
                &[],
            )
            .await?;
        let seen = Snapshot::parse(row.try_get(0).map_err(FollowError::from)?)?;
        let now: DateTime<Utc> = row.try_get(1).map_err(FollowError::from)?;
        let server_start: DateTime<Utc> = row.try_get(2).map_err(FollowError::from)?;
        filter.since = filter.since.map(|s| s.fixed(now));
        filter.until = filter.until.map(|u| u.fixed(now));
        let phase = match history.into() {
            History::From(after) => Phase::History { after },
            History::Last(n) => Phase::Last(n),
            History::None => Phase::Live { drain: None },
        };
        Ok(Follow {
            filter,
            seen,
            seen_at: now,
            server_start,
            restarted: None,
            printed: std::collections::HashMap::new(),
            phase,
            batch: FOLLOW_BATCH,
        })
    }

    /// Events per statement (tests make it small to exercise draining).
    pub fn with_batch(mut self, batch: u32) -> Follow {
        self.batch = batch.max(1);
        self
    }

    /// The snapshot everything before has been printed in.
    pub fn seen(&self) -> &Snapshot {
        &self.seen
    }

    /// The filter as followed (`--since` and `--until` fixed to times).
    pub fn filter(&self) -> &EventFilter {
        &self.filter
    }

    /// Remember what is printed (see "Across a restart"), and drop what was printed before.
    fn remember(&mut self, events: Vec<TrailEvent>) -> Vec<TrailEvent> {
        let fresh: Vec<TrailEvent> = events
            .into_iter()
            .filter(|e| self.printed.get(&(e.id, e.xid)) != Some(&e.at))
            .collect();
        for e in &fresh {
            self.printed.insert((e.id, e.xid), e.at);
        }
        fresh
    }

    /// One statement: the next history page or the next live delta. The state advances only
    /// when the statement succeeded, so after an error the same step can be run again on a
    /// new connection.
    pub async fn step<C: GenericClient>(
        &mut self,
        client: &C,
    ) -> std::result::Result<Step, FollowError> {
        match self.phase.clone() {
            Phase::History { after } => {
                // A cursor implies --since (see page_sql); the first page without one uses it.
                let (events, more) = read_page(
                    client,
                    &self.filter,
                    after,
                    self.batch,
                    Some(self.seen.as_str()),
                )
                .await?;
                self.phase = if more {
                    Phase::History {
                        after: events.last().map(TrailEvent::position),
                    }
                } else {
                    Phase::Live { drain: None }
                };
                let events = self.remember(events);
                Ok(Step { events, more: true })
            }
            Phase::Last(n) => {
                let events = read_last(client, &self.filter, n, Some(self.seen.as_str())).await?;
                self.phase = Phase::Live { drain: None };
                let events = self.remember(events);
                Ok(Step { events, more: true })
            }
            Phase::Live { drain } => {
                let sql = delta_sql(
                    &self.filter,
                    &self.seen,
                    drain.as_ref().map(|(s, a)| (s, *a)),
                    self.restarted,
                    self.batch,
                );
                let rows = sql.query_typed(client).await?;
                let first = rows
                    .first()
                    .ok_or_else(|| Error::bug("the follow statement returned no row"))?;
                let now = Snapshot::parse(first.try_get(0).map_err(FollowError::from)?)?;
                let started: DateTime<Utc> = first.try_get(1).map_err(FollowError::from)?;
                let ts: DateTime<Utc> = first.try_get(2).map_err(FollowError::from)?;
                if started != self.server_start {
                    // A restart since the last look: this delta read with a snapshot of the
                    // old server. Read again, from before the last look (see "Across a
                    // restart"); what is printed twice is dropped.
                    let from =
                        self.seen_at - chrono::Duration::from_std(RESTART_MARGIN).expect("5s");
                    self.restarted = Some(self.restarted.map_or(from, |r| r.min(from)));
                    self.server_start = started;
                    self.phase = Phase::Live { drain: None };
                    return Ok(Step {
                        events: Vec::new(),
                        more: true,
                    });
                }
                let mut events = Vec::with_capacity(rows.len());
                for row in &rows {
                    let id: Option<i64> = row.try_get(3).map_err(FollowError::from)?;
                    if id.is_some() {
                        events.push(TrailEvent::from_row_at(row, 3)?);
                    }
                }
                let full = events.len() >= self.batch as usize;
                let last = events.last().map(|e| e.id);
                let events = self.remember(events);
                // The delta ends at the snapshot it started in: later commits belong to the
                // next one (their ids may be lower than the last one printed).
                if full {
                    let end = drain.map_or(now, |(s, _)| s);
                    self.phase = Phase::Live {
                        drain: Some((end, last.expect("a full batch"))),
                    };
                } else {
                    if let Some((s, _)) = drain {
                        self.seen = s;
                    } else {
                        self.seen = now;
                        self.seen_at = ts;
                    }
                    self.restarted = None;
                    self.phase = Phase::Live { drain: None };
                    let keep =
                        self.seen_at - chrono::Duration::from_std(RESTART_MARGIN).expect("5s");
                    self.printed.retain(|_, at| *at >= keep);
                }
                Ok(Step { events, more: full })
            }
        }
    }
}

/// How long the poll waits after an empty look, growing from [`POLL_MIN`] after an event
/// to [`POLL_MAX`] when idle (module doc: ≤ 0.8 statements a second when idle).
pub const POLL_MIN: Duration = Duration::from_millis(250);
pub const POLL_MAX: Duration = Duration::from_millis(1250);

/// The next wait, after a look that found `found` events.
pub fn next_poll(previous: Duration, found: bool) -> Duration {
    if found {
        POLL_MIN
    } else {
        (previous * 2).clamp(POLL_MIN, POLL_MAX)
    }
}

/// A `--follow` that lost its database and could not get it back (exit 1).
pub fn gave_up(error: &Error, tried_for: Duration, last: Option<&TrailEvent>) -> Error {
    let mut e = Error::new(
        Code::ConnectionLost,
        format!(
            "lost the database and could not reconnect within {}: {}",
            crate::duration::format_duration(tried_for),
            error.message()
        ),
    );
    if let Some(ev) = last {
        e = e.hinted(format!(
            "to carry on where this stopped, run it again with --since {} (events of that second may print again)",
            ev.at.to_rfc3339_opts(SecondsFormat::Secs, true)
        ));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_back_off_when_idle() {
        let mut d = POLL_MIN;
        for _ in 0..10 {
            d = next_poll(d, false);
        }
        assert_eq!(d, POLL_MAX);
        assert_eq!(next_poll(d, true), POLL_MIN);
    }
}
