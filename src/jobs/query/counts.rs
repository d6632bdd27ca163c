//! Counts and oldest ages, for `status`, `metrics` and `check`.
//!
//! The counts are exact and cost one small read per (state, destination) group, whatever
//! the table's size or churn: `job_counters` (migrations/V10), kept by triggers in every
//! writer's transaction, summed over its slots. The oldest age of each open group is one
//! probe of `ix_publication_jobs_open_state_age (state, destination, state_changed_at)`: the
//! first entry of the group. Until `migrate` has built the counters for the rows written
//! before V10 (see [`crate::jobs::counters`]), the open states are counted from that index
//! instead, and the accepted count is unknown.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::GenericClient;

use super::sql::{secs, Sql};
use crate::error::{Error, Result};
use crate::jobs::model::Job;
use crate::jobs::state::State;

/// The oldest `state_changed_at` of the group `c.state, c.destination` (an open state): one
/// probe of `ix_publication_jobs_open_state_age`.
fn oldest_probe(group: &str) -> String {
    format!(
        "(SELECT min(j.state_changed_at) FROM publication_jobs j \
          WHERE j.state = {group}.state AND j.destination = {group}.destination AND j.state <> {})",
        State::bulk().literal()
    )
}

/// The statement's clock, whether the counters are built and whether their fold is due
/// (always a first row, see [`crate::jobs::counters::beside_clock`]), then every group's exact
/// count (the sum of its counter slots) and, for an open group, its oldest state change:
/// state, destination, count and oldest from the fourth column on, NULL in the one row of a
/// table without jobs.
pub fn counter_groups_sql() -> String {
    crate::jobs::counters::beside_clock(
        &format!(
            "c.state, c.destination, c.n, CASE WHEN c.state <> {bulk} THEN {probe} END",
            bulk = State::bulk().literal(),
            probe = oldest_probe("c"),
        ),
        "SELECT state, destination, sum(n)::bigint AS n FROM job_counters \
         GROUP BY state, destination HAVING sum(n) <> 0",
        "c",
    )
}

/// Before the counters are built: exact counts and oldest ages of the open states, an
/// index-only scan of `ix_publication_jobs_open_state_age`.
pub fn open_groups_sql() -> String {
    format!(
        "SELECT state, destination, count(*), min(state_changed_at) \
         FROM publication_jobs WHERE state <> {} GROUP BY state, destination",
        State::bulk().literal()
    )
}

/// The open jobs of one state at one destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenGroup {
    pub state: State,
    pub destination: String,
    pub count: i64,
    /// When the job longest in this state entered it.
    pub oldest_state_changed_at: DateTime<Utc>,
}

fn parse_state(state: &str) -> Result<State> {
    state
        .parse()
        .map_err(|e| Error::bug(format!("job row has {e}")))
}

impl OpenGroup {
    /// From a row of `state, destination, count(*), min(state_changed_at)`.
    fn from_row(row: &tokio_postgres::Row) -> Result<OpenGroup> {
        let state: String = row.try_get(0)?;
        Ok(OpenGroup {
            state: parse_state(&state)?,
            destination: row.try_get(1)?,
            count: row.try_get(2)?,
            oldest_state_changed_at: row.try_get(3)?,
        })
    }
}

/// Every state's count, for `status` and `metrics`.
#[derive(Debug, Clone)]
pub struct Overview {
    pub now: DateTime<Utc>,
    /// Sorted by state (most urgent first), then destination.
    pub open: Vec<OpenGroup>,
    /// Exact; `None` until `migrate` has built the counters.
    pub accepted: Option<i64>,
}

/// Most urgent state first, then destination.
fn sort_groups(open: &mut [OpenGroup]) {
    let urgency = |s: State| State::BY_URGENCY.iter().position(|u| *u == s);
    open.sort_by(|a, b| {
        (urgency(a.state), &a.destination).cmp(&(urgency(b.state), &b.destination))
    });
}

pub async fn overview<C: GenericClient>(client: &C) -> Result<Overview> {
    let groups = client.query_typed(&counter_groups_sql(), &[]).await?;
    let clock = groups
        .first()
        .ok_or_else(|| Error::bug("the counts' statement returned no row"))?;
    let now: DateTime<Utc> = clock.try_get(0)?;
    let built: bool = clock.try_get(1)?;
    // The fold after the read, when the read said it is due: it keeps every group's sum, so
    // the counts are the same either way, and the next reader sums fewer rows.
    crate::jobs::counters::fold_counts(client, clock.try_get(2)?).await?;
    if !built {
        let rows = client.query(&open_groups_sql(), &[]).await?;
        let mut open = rows
            .iter()
            .map(OpenGroup::from_row)
            .collect::<Result<Vec<_>>>()?;
        sort_groups(&mut open);
        return Ok(Overview {
            now,
            open,
            accepted: None,
        });
    }
    // Each group's columns after the clock's: state, destination, count, oldest.
    let g = crate::jobs::counters::CLOCK_COLUMNS;
    let mut open = Vec::new();
    let mut accepted = 0;
    for row in &groups {
        // The one row of a table without jobs has no group.
        let Some(state) = row.try_get::<_, Option<String>>(g)? else {
            continue;
        };
        let state = parse_state(&state)?;
        let count: i64 = row.try_get(g + 2)?;
        if state == State::bulk() {
            accepted += count;
            continue;
        }
        // A counter above the table's count (tampered with; `doctor --recount` repairs it)
        // has no job to probe: its age is 0.
        let oldest: Option<DateTime<Utc>> = row.try_get(g + 3)?;
        open.push(OpenGroup {
            state,
            destination: row.try_get(g + 1)?,
            count,
            oldest_state_changed_at: oldest.unwrap_or(now),
        });
    }
    sort_groups(&mut open);
    Ok(Overview {
        now,
        open,
        accepted: Some(accepted),
    })
}

/// The job longest uncertain, as the first of `jobs uncertain` (by `state_changed_at`, then
/// id): per destination with uncertain jobs (their counters), the first entry of
/// `ix_publication_jobs_open_state_age`, then the earliest of those. One probe per
/// destination, where the listing's first page sorts every uncertain job. The first column
/// says whether the counters are built (there is always a row; the job's columns follow, NULL
/// when no job is uncertain), so the statement is sent with the others, not after a question.
pub fn oldest_uncertain_sql() -> String {
    let uncertain = State::Uncertain.literal();
    crate::jobs::counters::beside_built(
        &crate::jobs::model::qualified(crate::jobs::model::JOB_COLUMNS, "j"),
        &format!(
            "SELECT j.* FROM (SELECT destination FROM job_counters WHERE state = {uncertain}
                              GROUP BY destination HAVING sum(n) <> 0) d
             CROSS JOIN LATERAL (
                 SELECT * FROM publication_jobs p
                 WHERE p.state = {uncertain} AND p.destination = d.destination
                 ORDER BY p.state_changed_at, p.id LIMIT 1) j
             ORDER BY j.state_changed_at, j.id LIMIT 1"
        ),
        "j",
    )
}

/// The first job of `jobs uncertain` (the longest uncertain), so `status` and `jobs
/// uncertain` cannot disagree on which job is the oldest: [`oldest_uncertain_sql`]; before
/// the counters are built, the listing's first page of one.
pub async fn oldest_uncertain<C: GenericClient>(client: &C) -> Result<Option<Job>> {
    let row = client.query_typed_one(&oldest_uncertain_sql(), &[]).await?;
    if row.try_get::<_, bool>(0)? {
        if row.try_get::<_, Option<uuid::Uuid>>(1)?.is_none() {
            return Ok(None);
        }
        return Job::from_row_at(&row, 1).map(Some);
    }
    let listing = super::Listing::Uncertain { destination: None };
    let page = super::page_after(client, &listing, None, 1).await?;
    Ok(page.jobs.into_iter().next())
}

/// What `check` compares with its thresholds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    pub now: DateTime<Utc>,
    pub uncertain: i64,
    pub oldest_uncertain: Option<DateTime<Utc>>,
    /// Uncertain for longer than `uncertain_after` (0 without it).
    pub uncertain_overdue: i64,
    pub conflict: i64,
    pub oldest_conflict: Option<DateTime<Utc>>,
    /// pending or safe_to_retry for longer than `stuck_after`.
    pub waiting: i64,
    pub oldest_waiting: Option<DateTime<Utc>>,
    /// in_flight with a lease that expired more than `stuck_after` ago.
    pub expired_leases: i64,
    pub oldest_expired_lease: Option<DateTime<Utc>>,
    /// Of `waiting`: those of a paused destination (waiting because of the pause).
    pub waiting_paused: i64,
}

/// What both forms of `check`'s statement start from: the statement with its two bound
/// windows, the states `check` counts (the unsettled and the waiting ones) as literals, and
/// the stuck and overdue cutoffs, each computed once (an InitPlan).
fn health_terms(
    stuck_after: Duration,
    uncertain_after: Option<Duration>,
) -> (Sql, String, String, String) {
    let mut sql = Sql::new();
    let stuck = sql.bind(secs(stuck_after));
    let overdue = sql.bind(uncertain_after.map(secs));
    let states: Vec<State> = State::unsettled()
        .iter()
        .chain(State::waiting())
        .copied()
        .collect();
    let states = State::literals(&states);
    let stuck_cutoff = format!("(SELECT now() - make_interval(secs => {stuck}::float8))");
    let overdue_cutoff = format!("(SELECT now() - make_interval(secs => {overdue}::float8))");
    (sql, states, stuck_cutoff, overdue_cutoff)
}

/// `$1` stuck_after, `$2` uncertain_after (NULL: none), both in seconds. The statement's
/// clock, whether the counters are built and whether their fold is due (always a first row,
/// see [`crate::jobs::counters::beside_clock`]), then from the fourth column on, one row per group
/// (state, destination) of the states `check` counts (the unsettled and the waiting ones):
/// its exact count from `job_counters`, its oldest state change (one probe of
/// `ix_publication_jobs_open_state_age`), how many of its jobs changed state before the
/// cutoff of its state (stuck for the waiting states, overdue for uncertain; 0 for the
/// others), and for a waiting state whether its destination is paused. A group whose oldest job is younger than a
/// cutoff has none before it, and is not read further; a group with jobs past a cutoff (a
/// problem `check` reports) counts those that are not (the jobs of the last `stuck_after`, a
/// range of the same index) and takes them from its count, so a backlog that grows during an
/// incident is never read. The cutoffs are computed once (InitPlans), not per group.
pub fn health_sql(stuck_after: Duration, uncertain_after: Option<Duration>) -> Sql {
    let (mut sql, states, stuck_cutoff, overdue_cutoff) =
        health_terms(stuck_after, uncertain_after);
    let bulk = State::bulk().literal();
    let waiting = State::literals(State::waiting());
    // The group's count less its jobs that changed state since the cutoff: a range that
    // holds what arrived within the window, however large the backlog before it grows. Only
    // for the groups whose state the cutoff applies to (the waiting states are stuck after
    // one, uncertain is overdue after the other): the rest read 0, and no range.
    let before = |applies: &str, cutoff: &str| {
        format!(
            "CASE WHEN {applies} AND g.oldest < {cutoff} THEN g.n - \
               (SELECT count(*) FROM publication_jobs j WHERE j.state = g.state \
                  AND j.destination = g.destination AND j.state <> {bulk} \
                  AND j.state_changed_at >= {cutoff}) \
             ELSE 0 END"
        )
    };
    let inner = format!(
        "WITH g AS MATERIALIZED (
            SELECT c.state, c.destination, c.n, {probe} AS oldest
            FROM (SELECT state, destination, sum(n)::bigint AS n FROM job_counters
                  WHERE state IN ({states}) GROUP BY state, destination HAVING sum(n) <> 0) c)
         SELECT g.state, g.n, g.oldest, {stuck_count} AS stuck, {overdue_count} AS overdue,
                g.state IN ({waiting}) AND EXISTS (SELECT 1 FROM destination_pauses p
                        WHERE p.destination = g.destination AND (p.until IS NULL OR p.until > now()))
                    AS paused,
                {stuck_cutoff} AS cutoff
         FROM g",
        probe = oldest_probe("c"),
        stuck_count = before(&format!("g.state IN ({waiting})"), &stuck_cutoff),
        overdue_count = before(
            &format!("g.state = {}", State::Uncertain.literal()),
            &overdue_cutoff
        ),
    );
    sql.text = crate::jobs::counters::beside_clock(
        "h.state, h.n, h.oldest, h.stuck, h.overdue, h.paused, h.cutoff",
        &inner,
        "h",
    );
    sql
}

/// Before the counters are built: one pass of an index-only scan of
/// `ix_publication_jobs_open_state_age`, in the columns of [`health_sql`], per group.
pub fn health_scan_sql(stuck_after: Duration, uncertain_after: Option<Duration>) -> Sql {
    let (mut sql, states, stuck_cutoff, overdue_cutoff) =
        health_terms(stuck_after, uncertain_after);
    sql.text = format!(
        "SELECT state, count(*), min(state_changed_at),
                count(*) FILTER (WHERE state_changed_at < {stuck_cutoff}),
                count(*) FILTER (WHERE state_changed_at < {overdue_cutoff}),
                destination IN (
                    SELECT p.destination FROM destination_pauses p
                    WHERE p.until IS NULL OR p.until > now()),
                {stuck_cutoff}
         FROM publication_jobs
         WHERE state IN ({states})
         GROUP BY state, destination"
    );
    sql
}

pub async fn health<C: GenericClient>(
    client: &C,
    stuck_after: Duration,
    uncertain_after: Option<Duration>,
) -> Result<Health> {
    // The counted form is sent at once, and answers whether the counters are built too:
    // they are, but for the moments between V10 and migrate's build, when the scan runs
    // after (one statement planned in the common case, not two, and no round trip first).
    let counted = health_sql(stuck_after, uncertain_after);
    let (counted, (expired_leases, oldest_expired_lease)) = futures::try_join!(
        async { Ok::<_, Error>(counted.query_typed(client).await?) },
        super::moves::expired_lease_total(client, stuck_after),
    )?;
    let clock = counted
        .first()
        .ok_or_else(|| Error::bug("check's statement returned no row"))?;
    let now: DateTime<Utc> = clock.try_get(0)?;
    // After the read, when it said a fold is due (see [`overview`]).
    crate::jobs::counters::fold_counts(client, clock.try_get(2)?).await?;
    // The counted rows' groups start after the clock's columns, the scan's at the first.
    let (rows, first) = if clock.try_get::<_, bool>(1)? {
        (counted, crate::jobs::counters::CLOCK_COLUMNS)
    } else {
        let scan = health_scan_sql(stuck_after, uncertain_after);
        (client.query(&scan.text, &scan.params()).await?, 0)
    };
    let mut h = Health {
        now,
        uncertain: 0,
        oldest_uncertain: None,
        uncertain_overdue: 0,
        conflict: 0,
        oldest_conflict: None,
        waiting: 0,
        oldest_waiting: None,
        expired_leases,
        oldest_expired_lease,
        waiting_paused: 0,
    };
    let earliest = |a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>| match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // One row per group: state, count, oldest, stuck, overdue, paused, the stuck cutoff.
    for row in &rows {
        // The one row of a table without a counted group has none.
        let Some(state) = row.try_get::<_, Option<String>>(first)? else {
            continue;
        };
        let count: i64 = row.try_get(first + 1)?;
        let oldest: Option<DateTime<Utc>> = row.try_get(first + 2)?;
        let stuck: i64 = row.try_get(first + 3)?;
        let overdue: i64 = row.try_get(first + 4)?;
        let paused: bool = row.try_get::<_, Option<bool>>(first + 5)?.unwrap_or(false);
        let stuck_cutoff: DateTime<Utc> = row.try_get(first + 6)?;
        match state.parse::<State>() {
            Ok(State::Uncertain) => {
                h.uncertain += count;
                h.oldest_uncertain = earliest(h.oldest_uncertain, oldest);
                h.uncertain_overdue += overdue;
            }
            Ok(State::Conflict) => {
                h.conflict += count;
                h.oldest_conflict = earliest(h.oldest_conflict, oldest);
            }
            Ok(s) if State::waiting().contains(&s) => {
                h.waiting += stuck;
                if paused {
                    h.waiting_paused += stuck;
                }
                if stuck > 0 {
                    h.oldest_waiting =
                        earliest(h.oldest_waiting, oldest.filter(|o| *o < stuck_cutoff));
                }
            }
            _ => return Err(Error::bug(format!("health counted state {state}"))),
        }
    }
    Ok(h)
}

/// One worker's leases on a destination's in-flight jobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaseHolder {
    pub owner: String,
    pub jobs: i64,
    /// Of those, how many were already sent (a lost lease would make them uncertain).
    pub sent: i64,
    pub first_expiry: DateTime<Utc>,
    pub last_expiry: DateTime<Utc>,
}

/// One destination's open jobs per state and its in-flight leases: what a person sees before
/// pausing or resuming it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DestinationLoad {
    pub now: DateTime<Utc>,
    /// Most urgent state first.
    pub open: Vec<OpenGroup>,
    pub leases: Vec<LeaseHolder>,
}

/// `$1` destination: its open jobs per state (a range of `ix_publication_jobs_open_state_age`).
pub fn destination_open_sql() -> String {
    format!(
        "SELECT state, destination, count(*), min(state_changed_at) \
         FROM publication_jobs WHERE state <> {} AND destination = $1 GROUP BY state, destination",
        State::bulk().literal()
    )
}

/// `$1` destination: its in-flight jobs per lease owner.
pub fn destination_leases_sql() -> String {
    format!(
        "SELECT lease_owner, count(*), count(sent_at), min(lease_expires_at), max(lease_expires_at) \
         FROM publication_jobs WHERE state = {} AND destination = $1 \
         GROUP BY lease_owner ORDER BY lease_owner",
        State::leased().literal()
    )
}

pub async fn destination_load<C: GenericClient>(
    client: &C,
    destination: &str,
) -> Result<DestinationLoad> {
    let (open_sql, leases_sql) = (destination_open_sql(), destination_leases_sql());
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 1] = [&destination];
    let (groups, leases, now) = futures::try_join!(
        client.query(&open_sql, &params),
        client.query(&leases_sql, &params),
        client.query_one("SELECT now()", &[]),
    )?;
    let mut open = groups
        .iter()
        .map(OpenGroup::from_row)
        .collect::<Result<Vec<_>>>()?;
    let urgency = |s: State| State::BY_URGENCY.iter().position(|u| *u == s);
    open.sort_by_key(|g| urgency(g.state));
    let leases = leases
        .iter()
        .map(|r| {
            Ok(LeaseHolder {
                owner: r.try_get::<_, Option<String>>(0)?.unwrap_or_default(),
                jobs: r.try_get(1)?,
                sent: r.try_get(2)?,
                first_expiry: r.try_get(3)?,
                last_expiry: r.try_get(4)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(DestinationLoad {
        now: now.try_get(0)?,
        open,
        leases,
    })
}
