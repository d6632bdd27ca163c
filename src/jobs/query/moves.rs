//! The numbers that explain an incident: how many moves of each kind the audit log recorded
//! per destination in the last 5 minutes and the last hour (sweeps, reconcile verdicts,
//! operator marks, and the worker's timeouts that make jobs uncertain), and the expired leases
//! per destination. For `metrics` and `status -v` (and its watch).
//!
//! Both are index-driven, so their cost follows what happened recently, not the size of the
//! log or the table:
//!
//! * moves: the whole 10-second ticks of each window from the move counters
//!   (`job_move_counters`, migrations/V17, kept by a trigger as the events are written; their
//!   folded ticks also per minute, `job_move_minutes`, V19, so the hour sums 60 rows per
//!   action and destination, not 360), and
//!   only where a counted move fell in the tick of a window's start, the rest of that tick
//!   from the log: one range of `ix_job_events_action (action, at, id)` per counted action,
//!   in the partition holding it. Each event's destination is its own column (filled by V6's
//!   trigger), or for the events written before V6 a primary-key probe of
//!   `job_event_destinations`, made only for those (`COALESCE` evaluates its second argument
//!   only when the first is NULL). The routine traffic of workers (reserve, claim, renew,
//!   mark_sent, complete) is not counted: it is most of the log, and the open states' counts
//!   already show it.
//! * expired leases: per destination, its in_flight jobs whose lease expired before the
//!   cutoff, from the counters, which are kept per minute of lease expiry (migrations/V10,
//!   V14), and of the cutoff's own minute one side: one range of `ix_publication_jobs_lease`
//!   (lease expiry) for all destinations, each row's destination read from the job (at most
//!   half a minute of expiries, however many leases expired; see [`expired_leases_sql`] for
//!   why not a range per destination). Each destination's oldest expiry is its first entry in
//!   `ix_publication_jobs_lease_by_destination (destination, lease_expires_at)`, whatever the
//!   other destinations hold.
//!   Both readings are in one statement, one snapshot, so the sum is exact. Before the
//!   counters are built, the expired leases are counted from the index instead.
//!
//! A worker's write that lost to a concurrent move (fenced by the version check) changes no
//! row and records no event, so there is nothing to count for it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::GenericClient;

use super::sql::Sql;
use crate::error::Result;
use crate::jobs::state::{Action, State};

/// The moves counted, in the order they are shown: how jobs became uncertain, then what
/// settled or re-queued them.
pub const COUNTED: [Action; 10] = [
    Action::TimedOut,
    Action::SweepSent,
    Action::SweepUnsent,
    Action::ReconcileAccepted,
    Action::ReconcileSafeToRetry,
    Action::ReconcileConflict,
    Action::MarkAccepted,
    Action::MarkSafeToRetry,
    Action::MarkFailed,
    Action::Redrive,
];

/// Where `a` stands in [`COUNTED`] (the order moves are shown in); after all of them if it
/// is not counted.
pub fn rank(a: Action) -> usize {
    COUNTED
        .iter()
        .position(|c| *c == a)
        .unwrap_or(COUNTED.len())
}

/// The two windows, as their labels (`metrics`' `window`, `status`'s columns) and in seconds.
pub const WINDOWS: [(&str, i64); 2] = [("5m", 300), ("1h", 3600)];

/// What the move counts read first, from the move counters only (`job_move_counters`,
/// migrations/V17: a few rows per 10-second tick, action and destination): one row, with
/// [`EDGE_COLUMNS`] per window (5 minutes, then the hour: its start and the end of the tick it
/// falls in, both as the server's clock reads them, and whether the counters hold a move in
/// that tick; [`Edge::of_windows`] reads them), then whether any tick after the hour's first
/// holds a move, then whether a fold of the move counters is due (it is sent with the sums,
/// only then; see [`crate::jobs::counters::fold`]). Only then are the windows' whole ticks
/// summed ([`sums_sql`]), and only where a window's first tick moved is the rest of it read
/// from the log ([`edges_sql`]); the two are sent together.
///
/// Three index probes, which a fresh session plans in a fraction of what the sums cost it
/// (1.4 ms against 2.4 for the statement that summed the ticks beside the probes, and 3.4 for
/// the sums over the minutes): most of the time nothing moved in the hour. It reads neither
/// the log (planning a statement over the log costs a fresh session about a millisecond: the
/// catalog entries of its partition and their indexes) nor the minutes.
pub fn moves_sql() -> Sql {
    let edges: Vec<String> = WINDOWS
        .iter()
        .map(|(_, secs)| edge_columns(*secs))
        .collect();
    Sql::from_text(&format!(
        "SELECT {edges}, EXISTS (SELECT 1 FROM job_move_counters c WHERE c.tick > (SELECT {tick_long})), {due}",
        edges = edges.join(", "),
        tick_long = start_tick(WINDOWS[1].1),
        due = *crate::jobs::counters::MOVES_DUE,
    ))
}

/// The start of the window of `secs` seconds, by the server's clock.
fn window_start(secs: i64) -> String {
    format!("(now() - make_interval(secs => {secs}))")
}

/// The 10-second tick the window's start falls in.
fn start_tick(secs: i64) -> String {
    format!(
        "floor(extract(epoch FROM {}) / 10)::bigint",
        window_start(secs)
    )
}

/// A window's [`EDGE_COLUMNS`]: its start, the end of that start's tick, whether the counters
/// hold a move in that tick.
fn edge_columns(secs: i64) -> String {
    format!(
        "{start}, to_timestamp(({tick} + 1) * 10), \
         EXISTS (SELECT 1 FROM job_move_counters e WHERE e.tick = {tick} AND e.n <> 0)",
        start = window_start(secs),
        tick = start_tick(secs),
    )
}

/// The windows' whole ticks, per action and destination (the 5 minutes', the hour's): those of
/// each window's first minute after its start's tick (every slot), then the minutes after it:
/// their folded ticks as one row per minute (`job_move_minutes`, V19) and the writers' slots
/// not folded yet, one range of `ix_job_move_counters_unfolded`. The hour's first minute is
/// long before the 5 minutes' start, so the writers' slots after it are the 5 minutes' too
/// when they are after the 5 minutes' start, and the 5 minutes' first minute is among the
/// hour's minutes. The ticks' bounds are written out where the counters are ranged over (an
/// InitPlan each, so that each range is an index range).
pub fn sums_sql() -> Sql {
    let (short, long) = (WINDOWS[0].1, WINDOWS[1].1);
    let tick = |secs: i64| format!("(SELECT {})", start_tick(secs));
    let next_minute = |secs: i64| format!("(SELECT ({} / 6 + 1) * 6)", start_tick(secs));
    Sql::from_text(&format!(
        "SELECT x.action, x.destination, sum(x.short)::bigint, sum(x.long)::bigint \
         FROM ( \
           SELECT c.action, c.destination, 0::bigint AS short, c.n AS long \
           FROM job_move_counters c \
           WHERE c.tick > {tick_long} AND c.tick < {next_long} \
           UNION ALL \
           SELECT c.action, c.destination, \
                  CASE WHEN c.tick > {tick_short} THEN c.n ELSE 0 END, c.n \
           FROM job_move_counters c WHERE c.slot >= 0 AND c.tick >= {next_long} \
           UNION ALL \
           SELECT c.action, c.destination, c.n, 0 \
           FROM job_move_counters c \
           WHERE c.slot < 0 AND c.tick > {tick_short} AND c.tick < {next_short} \
           UNION ALL \
           SELECT m.action, m.destination, \
                  CASE WHEN m.minute >= {next_short} / 6 THEN m.n ELSE 0 END, m.n \
           FROM job_move_minutes m WHERE m.minute >= {next_long} / 6 \
         ) x \
         GROUP BY 1, 2",
        tick_short = tick(short),
        tick_long = tick(long),
        next_short = next_minute(short),
        next_long = next_minute(long),
    ))
}

/// A window's first tick as [`moves_sql`] read it: the part after the window's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Which of [`WINDOWS`].
    pub window: usize,
    /// Exclusive bounds on the events' `at`: the window's start, the end of its tick.
    pub after: DateTime<Utc>,
    pub before: DateTime<Utc>,
}

/// The columns [`moves_sql`] gives each window, first in its every row: the window's start,
/// the end of that start's tick, whether the counters hold a move in that tick.
pub const EDGE_COLUMNS: usize = 3;

impl Edge {
    /// Every window's edge from a row of [`moves_sql`], each with whether a counted move fell
    /// in it (only then has the log to be read).
    pub fn of_windows(row: &tokio_postgres::Row) -> Result<Vec<(Edge, bool)>> {
        (0..WINDOWS.len())
            .map(|window| {
                let at = window * EDGE_COLUMNS;
                let edge = Edge {
                    window,
                    after: row.try_get(at)?,
                    before: row.try_get(at + 1)?,
                };
                Ok((edge, row.try_get(at + 2)?))
            })
            .collect()
    }
}

/// The counted events of each edge from the log, per action and destination: one row each,
/// with the window's index. Each edge is one range of `ix_job_events_action` per counted
/// action, or where the planner expects a row or two there, one range of `ix_job_events_at`
/// (the tick's events of every action, filtered): at most 10 seconds of events. Its bounds are
/// parameters, known when the statement is planned, so only the partition(s) holding them are
/// planned. (Not written as row comparisons on (action, at), which only the first index could
/// take: a btree scan positions on those rather than on the equality and the tighter bound,
/// and stops at their end only when the action changes, so it read every timeout after the
/// window's start: 2 000 buffers instead of 600 for a tick's, 14 ms instead of 0.8 with
/// 200 000 timeouts in the hour.)
pub fn edges_sql(edges: &[Edge]) -> Sql {
    let mut sql = Sql::new();
    let names: Vec<String> = COUNTED.iter().map(|a| a.as_str().to_string()).collect();
    let names = sql.bind(names);
    let arms: Vec<String> = edges
        .iter()
        .map(|e| {
            let after = sql.bind(e.after);
            let before = sql.bind(e.before);
            format!(
                "SELECT e.action, COALESCE(e.destination, \
                        (SELECT d.destination FROM job_event_destinations d WHERE d.id = e.id)), \
                        {window}::bigint, count(*) \
                 FROM job_events e \
                 WHERE e.action = ANY({names}::text[]) \
                   AND e.at > {after}::timestamptz AND e.at < {before}::timestamptz \
                 GROUP BY 1, 2",
                window = e.window,
            )
        })
        .collect();
    sql.text = arms.join(" UNION ALL ");
    sql
}

/// What both expired-lease statements ([`expired_leases_sql`], [`expired_lease_total_sql`])
/// are written from: the statement with `$1` (seconds) bound, the cutoff as SQL, the cutoff's
/// minute for the counter rows, the in_flight literal, and the shorter side of the cutoff's
/// minute (`from` ≤ expiry < `to`): before the cutoff when it falls in the first half of its
/// minute by this machine's clock (its count is added), else after it (taken from the
/// minute's count).
struct LeaseTerms {
    sql: Sql,
    cutoff: String,
    counted: String,
    leased: String,
    first_half: bool,
    from: String,
    to: String,
}

fn lease_terms(ago: std::time::Duration) -> LeaseTerms {
    let mut sql = Sql::new();
    let secs = sql.bind(ago.as_secs_f64());
    let cutoff = format!("(now() - make_interval(secs => {secs}::float8))");
    let minute = format!("floor(extract(epoch FROM {cutoff}) / 60)");
    // The same minute for the counter rows: computed once (an InitPlan) as a bigint, so each
    // row is compared as it is stored, and only the minutes up to the cutoff's are read.
    let counted = format!("(SELECT {minute}::bigint)");
    let first_half = cutoff_in_first_half(ago, Utc::now());
    let (from, to) = if first_half {
        (format!("to_timestamp({minute} * 60)"), cutoff.clone())
    } else {
        (cutoff.clone(), format!("to_timestamp(({minute} + 1) * 60)"))
    };
    LeaseTerms {
        sql,
        cutoff,
        counted,
        leased: State::leased().literal().to_string(),
        first_half,
        from,
        to,
    }
}

/// `$1` seconds. Per destination: in_flight jobs whose lease expired more than that long ago
/// (0: expired at all, for `status -v` and `metrics`; `--stuck-after`, for `check`, which sums
/// the rows), and when the oldest expired. From the in_flight counters, which are kept per
/// minute of lease expiry (migrations/V14): the minutes before the cutoff's minute are summed,
/// and of the cutoff's own minute only the part on one side of the cutoff is read: the part
/// before it, which is added, when the cutoff falls in the first half of its minute by this
/// machine's clock; else the part after it, taken from the minute's count. Either is exact
/// (one snapshot; the server's clock decides what is counted), and only the side read is
/// written into the statement, so only it is planned: at most half a minute of lease
/// expiries is read, however many leases expired and however recently the rows were
/// written. That part is one range of `ix_publication_jobs_lease` (lease expiry), counted per
/// destination (read from the job's row: at most that half minute's rows), once for all
/// destinations: not a range per destination, which the planner, estimating a lease range at
/// a few rows, at times took from that index rather than the by-destination one, so that each
/// destination read every destination's part. (An index of the lease with the destination
/// included would count it from the index alone, but the planner then walked it in lease
/// order for each destination's oldest expiry, past every other destination's backlog.) A
/// probe of `ix_publication_jobs_lease_by_destination` gives each destination's oldest expiry,
/// whatever the other destinations' leases (that index is by destination first).
///
/// The first column of every row says whether the counters are built (`job_counters_build`);
/// there is always a row (destination NULL when no lease expired), so the answer comes with
/// the counts and no round trip asks first. Until they are built (the moments between V10
/// and migrate's build) the counts are partial and [`expired_leases_scan_sql`] is run instead.
/// The cutoff is written out where it ranges over the jobs' index, not computed once in a
/// subquery: the planner then knows its value when it estimates each range (a subquery's
/// value it would guess at a third of the in_flight jobs). Only the counter rows' minute is
/// computed once (they are few, and read in full).
pub fn expired_leases_sql(ago: std::time::Duration) -> Sql {
    let LeaseTerms {
        mut sql,
        cutoff,
        counted,
        leased,
        first_half,
        from,
        to,
    } = lease_terms(ago);
    // Every destination's expiries in one part of the cutoff's minute: one short range of
    // the lease index, grouped (a destination with none there has no row: 0).
    let side = format!(
        "SELECT j.destination, count(*) AS n FROM publication_jobs j \
         WHERE j.state = {leased} \
           AND j.lease_expires_at >= {from} AND j.lease_expires_at < {to} \
         GROUP BY j.destination"
    );
    let n = if first_half {
        "f.past + coalesce(p.n, 0)"
    } else {
        "f.past + f.now - coalesce(p.n, 0)"
    };
    sql.text = crate::jobs::counters::beside_built(
        "e.destination, e.n, e.oldest",
        &format!(
            "SELECT f.destination, {n} AS n, o.oldest \
             FROM (SELECT destination, \
                          coalesce(sum(n) FILTER (WHERE lease_minute < {counted}), 0)::bigint AS past, \
                          coalesce(sum(n) FILTER (WHERE lease_minute = {counted}), 0)::bigint AS now \
                   FROM job_counters \
                   WHERE state = {leased} AND lease_minute <= {counted} \
                   GROUP BY destination HAVING sum(n) <> 0) f \
             LEFT JOIN ({side}) p ON p.destination = f.destination \
             CROSS JOIN LATERAL ( \
                 SELECT j.lease_expires_at AS oldest FROM publication_jobs j \
                 WHERE j.state = {leased} AND j.destination = f.destination \
                   AND j.lease_expires_at < {cutoff} \
                 ORDER BY j.lease_expires_at LIMIT 1) o \
             WHERE {n} > 0"
        ),
        "e",
    );
    sql
}

/// `$1` seconds. For `check`, which reports one figure: the in_flight jobs whose lease
/// expired more than that long ago, all destinations together, and the oldest such expiry.
/// Read as [`expired_leases_sql`] reads them (the minutes before the cutoff's from the
/// counters, of the cutoff's own minute the shorter side, exact in one snapshot), but without
/// the destination, which the total does not need: the side is counted from
/// `ix_publication_jobs_lease` alone (an index-only scan, where the table's pages are
/// all-visible; per destination each of its rows was a visit to the table, 154 of them at 10M
/// jobs in `scripts/bench-counters`, ten times as many as at 1M), and the oldest expiry is
/// that index's first entry before the cutoff: one probe, not one per destination.
/// The first column says whether the counters are built, as in [`expired_leases_sql`].
pub fn expired_lease_total_sql(ago: std::time::Duration) -> Sql {
    let LeaseTerms {
        mut sql,
        cutoff,
        counted,
        leased,
        first_half,
        from,
        to,
    } = lease_terms(ago);
    let side = format!(
        "(SELECT count(*) FROM publication_jobs j \
          WHERE j.state = {leased} \
            AND j.lease_expires_at >= {from} AND j.lease_expires_at < {to})"
    );
    let n = if first_half {
        format!("f.past + {side}")
    } else {
        format!("f.past + f.now - {side}")
    };
    sql.text = crate::jobs::counters::beside_built(
        "e.n, e.oldest",
        &format!(
            "SELECT {n} AS n, \
                    (SELECT j.lease_expires_at FROM publication_jobs j \
                     WHERE j.state = {leased} AND j.lease_expires_at < {cutoff} \
                     ORDER BY j.lease_expires_at LIMIT 1) AS oldest \
             FROM (SELECT coalesce(sum(n) FILTER (WHERE lease_minute < {counted}), 0)::bigint AS past, \
                          coalesce(sum(n) FILTER (WHERE lease_minute = {counted}), 0)::bigint AS now \
                   FROM job_counters \
                   WHERE state = {leased} AND lease_minute <= {counted}) f"
        ),
        "e",
    );
    sql
}

/// [`expired_leases_sql`] before the counters are built: the expired leases of
/// `ix_publication_jobs_lease_by_destination`, grouped. The same columns, the first `true`.
pub fn expired_leases_scan_sql(ago: std::time::Duration) -> Sql {
    let mut sql = Sql::new();
    let secs = sql.bind(ago.as_secs_f64());
    let leased = State::leased().literal();
    sql.text = format!(
        "SELECT true, destination, count(*), min(lease_expires_at) \
         FROM publication_jobs \
         WHERE state = {leased} AND lease_expires_at < now() - make_interval(secs => {secs}::float8) \
         GROUP BY destination"
    );
    sql
}

/// Whether the cutoff `ago` before `now` falls in the first half of its minute, by this
/// machine's clock: then the part of the minute before it is the shorter read. Only the
/// cost depends on it (the server's clock decides what is counted, exactly, either way).
pub fn cutoff_in_first_half(ago: std::time::Duration, now: DateTime<Utc>) -> bool {
    let cutoff = now - chrono::Duration::from_std(ago).unwrap_or_default();
    cutoff.timestamp().rem_euclid(60) < 30
}

/// How often one action moved one destination's jobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveCount {
    pub action: Action,
    pub destination: String,
    pub last_5m: i64,
    pub last_1h: i64,
}

impl MoveCount {
    /// The count in the window labelled `window` ([`WINDOWS`]).
    pub fn in_window(&self, window: &str) -> i64 {
        if window == WINDOWS[0].0 {
            self.last_5m
        } else {
            self.last_1h
        }
    }
}

/// In-flight jobs of one destination whose lease has expired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExpiredLeaseGroup {
    pub destination: String,
    pub count: i64,
    pub oldest_expired_at: DateTime<Utc>,
}

/// The recent moves, sorted as [`COUNTED`] lists the actions, then by destination: every
/// window exact to the microsecond, whatever the incident's size. The counters' probes
/// ([`moves_sql`]), then, sent together, the windows' whole ticks when a tick after the hour's
/// first moved ([`sums_sql`]) and, only where the counters say a move fell in the tick of a
/// window's start, the rest of that tick from the log ([`edges_sql`], with the first
/// statement's bounds: all read the same windows of the server's clock). The whole ticks and
/// the edges are disjoint ranges of `at`, so no event counts twice; in autocommit each
/// statement has its own snapshot, so an event committed between them counts or not by the
/// snapshot of the statement whose range holds it (it needs a transaction that began more
/// than 5 minutes before to land in an edge, or in a tick the probes saw empty: as if the
/// command had run a moment earlier); in one transaction (REPEATABLE READ), one snapshot.
pub async fn moves<C: GenericClient>(client: &C) -> Result<Vec<MoveCount>> {
    let first = moves_sql().query_typed(client).await?;
    let first = first
        .first()
        .ok_or_else(|| crate::error::Error::bug("the move counts returned no row"))?;
    let edges: Vec<Edge> = Edge::of_windows(first)?
        .into_iter()
        .filter_map(|(edge, moved)| moved.then_some(edge))
        .collect();
    let moved: bool = first.try_get(WINDOWS.len() * EDGE_COLUMNS)?;
    let due: bool = first.try_get(WINDOWS.len() * EDGE_COLUMNS + 1)?;
    // The fold, when due, pipelined before the sums: it keeps every tick's sum (see
    // [`crate::jobs::counters::fold`]).
    let ((), sums, logged) = futures::try_join!(
        crate::jobs::counters::fold_moves(client, due),
        async {
            if moved {
                Ok(sums_sql().query_typed(client).await?)
            } else {
                Ok(Vec::new())
            }
        },
        async {
            if edges.is_empty() {
                Ok(Vec::new())
            } else {
                Ok(edges_sql(&edges).query_typed(client).await?)
            }
        },
    )?;
    let mut counts: std::collections::BTreeMap<(String, String), [i64; 2]> = Default::default();
    for r in &sums {
        let c = counts.entry((r.try_get(0)?, r.try_get(1)?)).or_default();
        c[0] += r.try_get::<_, i64>(2)?;
        c[1] += r.try_get::<_, i64>(3)?;
    }
    for r in &logged {
        // An event with no destination anywhere counts under '' (as V17's trigger does).
        let destination: Option<String> = r.try_get(1)?;
        let c = counts
            .entry((r.try_get(0)?, destination.unwrap_or_default()))
            .or_default();
        c[r.try_get::<_, i64>(2)? as usize] += r.try_get::<_, i64>(3)?;
    }
    let mut out: Vec<MoveCount> = counts
        .into_iter()
        .filter(|(_, [_, last_1h])| *last_1h > 0)
        .filter_map(|((action, destination), [last_5m, last_1h])| {
            Some(MoveCount {
                action: action.parse().ok()?,
                destination,
                last_5m,
                last_1h,
            })
        })
        .collect();
    out.sort_by(|a, b| (rank(a.action), &a.destination).cmp(&(rank(b.action), &b.destination)));
    Ok(out)
}

/// The leases expired more than `ago` ago, per destination, by destination.
pub async fn expired_leases<C: GenericClient>(
    client: &C,
    ago: std::time::Duration,
) -> Result<Vec<ExpiredLeaseGroup>> {
    let mut rows = expired_leases_sql(ago).query_typed(client).await?;
    if !rows.first().map_or(Ok(true), |r| r.try_get::<_, bool>(0))? {
        rows = expired_leases_scan_sql(ago).query_typed(client).await?;
    }
    lease_groups(&rows)
}

/// The groups of [`expired_leases_sql`]'s or [`expired_leases_scan_sql`]'s rows (built,
/// destination, count, oldest), by destination.
fn lease_groups(rows: &[tokio_postgres::Row]) -> Result<Vec<ExpiredLeaseGroup>> {
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        // The row of NULLs: no lease expired.
        if let Some(destination) = r.try_get::<_, Option<String>>(1)? {
            out.push(ExpiredLeaseGroup {
                destination,
                count: r.try_get(2)?,
                oldest_expired_at: r.try_get(3)?,
            });
        }
    }
    out.sort_by(|a, b| a.destination.cmp(&b.destination));
    Ok(out)
}

/// The leases expired more than `ago` ago, all destinations together, and the oldest expiry
/// among them ([`expired_lease_total_sql`]; before the counters are built, the scan of
/// [`expired_leases_scan_sql`], summed).
pub async fn expired_lease_total<C: GenericClient>(
    client: &C,
    ago: std::time::Duration,
) -> Result<(i64, Option<DateTime<Utc>>)> {
    let rows = expired_lease_total_sql(ago).query_typed(client).await?;
    let row = rows
        .first()
        .ok_or_else(|| crate::error::Error::bug("the expired-lease total returned no row"))?;
    if row.try_get::<_, bool>(0)? {
        return Ok((row.try_get(1)?, row.try_get(2)?));
    }
    let groups = lease_groups(&expired_leases_scan_sql(ago).query_typed(client).await?)?;
    Ok((
        groups.iter().map(|g| g.count).sum(),
        groups.iter().map(|g| g.oldest_expired_at).min(),
    ))
}

/// What happened recently: the moves per action and destination, the expired leases.
pub struct Recent {
    pub moves: Vec<MoveCount>,
    pub leases: Vec<ExpiredLeaseGroup>,
}

impl Recent {
    pub async fn read<C: GenericClient>(client: &C) -> Result<Recent> {
        let (moves, leases) = futures::try_join!(
            moves(client),
            expired_leases(client, std::time::Duration::ZERO)
        )?;
        Ok(Recent { moves, leases })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counted_moves_are_the_ones_people_and_cron_make_and_the_timeouts() {
        for a in COUNTED {
            assert!(
                a.command().is_some() || a == Action::TimedOut,
                "{a} is routine worker traffic"
            );
        }
        // Every move a person or cron makes is counted.
        for a in Action::ALL {
            if a.command().is_some() {
                assert!(COUNTED.contains(&a), "{a} is not counted");
            }
        }
    }

    #[test]
    fn the_move_counters_count_exactly_the_counted_actions() {
        // migrations/V17 lists them twice: in the trigger and in the migration's own count.
        let migration = include_str!("../../../migrations/V17__move_counters.sql");
        let list = COUNTED
            .iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let listed: Vec<String> = migration
            .split("action IN (")
            .skip(1)
            .map(|rest| {
                rest[..rest.find(')').unwrap()]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(listed, [list.clone(), list]);
    }

    #[test]
    fn the_short_window_is_inside_the_long_one() {
        assert!(WINDOWS[0].1 < WINDOWS[1].1);
        let sql = moves_sql().text;
        assert!(sql.contains("secs => 300") && sql.contains("secs => 3600"));
    }
}
