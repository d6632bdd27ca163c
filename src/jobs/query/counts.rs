//! Counts and oldest ages, for `status`, `metrics` and `check`.
//!
//! The open states are counted exactly from the small partial index
//! `ix_publication_jobs_open_state_age (state, destination, state_changed_at)`. The accepted
//! rows (97% of the table) are never counted on a large table: their number is estimated from
//! the planner's statistics and labelled so.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::GenericClient;

use super::sql::{secs, Sql};
use crate::error::{Error, Result};
use crate::jobs::model::Job;
use crate::jobs::state::State;

/// Tables up to this many pages (2 MB, some thousands of jobs) are small enough to count
/// `accepted` exactly: scanning them takes about a millisecond. Above it, the count is
/// estimated (and labelled so), because an exact count reads every accepted row.
pub const EXACT_COUNT_MAX_PAGES: i64 = 256;

/// Exact counts and oldest ages of the open states (every state but the bulk one), per state
/// and destination: an index-only scan of `ix_publication_jobs_open_state_age`.
pub fn open_groups_sql() -> String {
    format!(
        "SELECT state, destination, count(*), min(state_changed_at) \
         FROM publication_jobs WHERE state <> {} GROUP BY state, destination",
        State::bulk().literal()
    )
}

/// The planner's statistics of the table and its size now, for the accepted estimate.
pub const TABLE_STATS_SQL: &str = "SELECT now(), c.reltuples::float8, c.relpages::bigint, \
     (pg_relation_size(c.oid) / current_setting('block_size')::bigint)::bigint \
     FROM pg_class c WHERE c.oid = 'publication_jobs'::regclass";

/// On a small table only (see [`EXACT_COUNT_MAX_PAGES`]): the exact accepted count.
pub fn accepted_exact_sql() -> String {
    format!(
        "SELECT count(*) FROM publication_jobs WHERE state = {}",
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

impl OpenGroup {
    /// From a row of `state, destination, count(*), min(state_changed_at)`.
    fn from_row(row: &tokio_postgres::Row) -> Result<OpenGroup> {
        let state: String = row.try_get(0)?;
        Ok(OpenGroup {
            state: state
                .parse()
                .map_err(|e| Error::bug(format!("job row has {e}")))?,
            destination: row.try_get(1)?,
            count: row.try_get(2)?,
            oldest_state_changed_at: row.try_get(3)?,
        })
    }
}

/// How many jobs are accepted: exact on a small table, else estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AcceptedCount {
    /// `None`: unknown (a large table the planner has no statistics for yet).
    pub count: Option<i64>,
    pub estimated: bool,
}

/// Every state's count, for `status` and `metrics`.
#[derive(Debug, Clone)]
pub struct Overview {
    pub now: DateTime<Utc>,
    /// Sorted by state (most urgent first), then destination.
    pub open: Vec<OpenGroup>,
    pub accepted: AcceptedCount,
}

pub async fn overview<C: GenericClient>(client: &C) -> Result<Overview> {
    // Both statements at once on the one connection (pipelined).
    let groups_sql = open_groups_sql();
    let (groups, stats) = futures::try_join!(
        client.query(&groups_sql, &[]),
        client.query_one(TABLE_STATS_SQL, &[]),
    )?;
    let mut open = groups
        .iter()
        .map(OpenGroup::from_row)
        .collect::<Result<Vec<_>>>()?;
    let urgency = |s: State| State::BY_URGENCY.iter().position(|u| *u == s);
    open.sort_by(|a, b| {
        (urgency(a.state), &a.destination).cmp(&(urgency(b.state), &b.destination))
    });
    let now: DateTime<Utc> = stats.try_get(0)?;
    let reltuples: f64 = stats.try_get(1)?;
    let relpages: i64 = stats.try_get(2)?;
    let pages: i64 = stats.try_get(3)?;
    let open_total: i64 = open.iter().map(|g| g.count).sum();
    let accepted = if pages <= EXACT_COUNT_MAX_PAGES {
        let n: i64 = client
            .query_one(&accepted_exact_sql(), &[])
            .await?
            .try_get(0)?;
        AcceptedCount {
            count: Some(n),
            estimated: false,
        }
    } else if reltuples >= 0.0 && relpages > 0 {
        // As the planner does: the last known density, times the table's size now.
        let total = reltuples / relpages as f64 * pages as f64;
        AcceptedCount {
            count: Some(((total.round() as i64) - open_total).max(0)),
            estimated: true,
        }
    } else {
        AcceptedCount {
            count: None,
            estimated: true,
        }
    };
    Ok(Overview {
        now,
        open,
        accepted,
    })
}

/// The first job of `jobs uncertain` (the longest uncertain): its listing's first page of
/// one, so `status` and `jobs uncertain` cannot disagree on which job is the oldest.
pub async fn oldest_uncertain<C: GenericClient>(client: &C) -> Result<Option<Job>> {
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

/// `$1` stuck_after, `$2` uncertain_after (NULL: none), both in seconds. Per state, one pass
/// of an index-only scan of `ix_publication_jobs_open_state_age` over the states `check`
/// counts (the unsettled and the waiting ones); the cutoffs are computed once (InitPlans), not per row.
/// The last column counts the stuck ones of paused destinations (a hashed subplan over the
/// few rows of `destination_pauses`), so `check` can say why they wait.
pub fn health_sql(stuck_after: Duration, uncertain_after: Option<Duration>) -> Sql {
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
    sql.text = format!(
        "SELECT state, count(*), min(state_changed_at),
                count(*) FILTER (WHERE state_changed_at < {stuck_cutoff}),
                min(state_changed_at) FILTER (WHERE state_changed_at < {stuck_cutoff}),
                count(*) FILTER (WHERE state_changed_at < {overdue_cutoff}),
                count(*) FILTER (WHERE state_changed_at < {stuck_cutoff} AND destination IN (
                    SELECT p.destination FROM destination_pauses p
                    WHERE p.until IS NULL OR p.until > now()))
         FROM publication_jobs
         WHERE state IN ({states})
         GROUP BY state"
    );
    sql
}

/// `$1` seconds: how many in_flight jobs hold a lease that expired more than that long ago,
/// and the oldest expiry (a range of `ix_publication_jobs_lease`); with the clock.
pub fn expired_leases_sql(ago: Duration) -> Sql {
    let mut sql = Sql::new();
    let ago = sql.bind(secs(ago));
    let in_flight = State::leased().literal();
    sql.text = format!(
        "SELECT now(), count(*), min(lease_expires_at) FROM publication_jobs
         WHERE state = {in_flight} AND lease_expires_at < now() - make_interval(secs => {ago}::float8)"
    );
    sql
}

pub async fn health<C: GenericClient>(
    client: &C,
    stuck_after: Duration,
    uncertain_after: Option<Duration>,
) -> Result<Health> {
    let grouped = health_sql(stuck_after, uncertain_after);
    let leases = expired_leases_sql(stuck_after);
    let (grouped_params, lease_params) = (grouped.params(), leases.params());
    let (rows, lease) = futures::try_join!(
        client.query(&grouped.text, &grouped_params),
        client.query_one(&leases.text, &lease_params),
    )?;
    let mut h = Health {
        now: lease.try_get(0)?,
        uncertain: 0,
        oldest_uncertain: None,
        uncertain_overdue: 0,
        conflict: 0,
        oldest_conflict: None,
        waiting: 0,
        oldest_waiting: None,
        expired_leases: lease.try_get(1)?,
        oldest_expired_lease: lease.try_get(2)?,
        waiting_paused: 0,
    };
    for row in &rows {
        let state: String = row.try_get(0)?;
        let count: i64 = row.try_get(1)?;
        let oldest: Option<DateTime<Utc>> = row.try_get(2)?;
        let stuck: i64 = row.try_get(3)?;
        let oldest_stuck: Option<DateTime<Utc>> = row.try_get(4)?;
        let overdue: i64 = row.try_get(5)?;
        let stuck_paused: i64 = row.try_get(6)?;
        match state.parse::<State>() {
            Ok(State::Uncertain) => {
                h.uncertain = count;
                h.oldest_uncertain = oldest;
                h.uncertain_overdue = overdue;
            }
            Ok(State::Conflict) => {
                h.conflict = count;
                h.oldest_conflict = oldest;
            }
            Ok(s) if State::waiting().contains(&s) => {
                h.waiting += stuck;
                h.waiting_paused += stuck_paused;
                h.oldest_waiting = match (h.oldest_waiting, oldest_stuck) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
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
