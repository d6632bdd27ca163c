//! Reading many jobs at once, for the inspection commands (`jobs list`, `jobs uncertain`,
//! `jobs stuck`, `status`, `check`, `metrics`), on a table of millions of rows where almost
//! every row is `accepted`.
//!
//! Every statement here is shaped for one of the indexes of migrations/V1, so that its cost
//! follows what it returns, not the size of the table:
//!
//! * Lists page in keyset order `(created_at, id)`, never with OFFSET. A list over several
//!   states is one branch per state, each a range scan of `ix_publication_jobs_open_created
//!   (state, created_at, id) WHERE state <> 'accepted'` that stops after a page, merged in
//!   order (a Merge Append) instead of sorting everything the states hold.
//! * Counts and oldest ages of the open states come from the small partial index
//!   `ix_publication_jobs_open_state_age (state, destination, state_changed_at)`. The
//!   accepted rows (97% of the table) are never counted on a large table: their number is
//!   estimated from the planner's statistics and labelled so.
//!
//! State names are written into the statements as literals: they come from [`State::as_str`]
//! (fixed identifiers, never input), and only literals let the planner prove that a query
//! matches a partial index's `WHERE state <> 'accepted'`. Every value that comes from input is
//! a bind parameter.
//!
//! Cursors are opaque: base64 of the position `(created_at, id)`, a fingerprint of the
//! listing that produced it and a checksum, so a cursor from another listing, a truncated or
//! an edited one is refused (exit 2) instead of silently paging from somewhere else.
//!
//! Tests: tests/it/inspect.rs (including an EXPLAIN of each statement on a skewed table).

use std::time::Duration;

use base64::Engine;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio_postgres::types::ToSql;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::model::{Job, JOB_COLUMNS, JOB_COLUMN_COUNT};
use super::state::State;
use crate::error::{Error, Result};

/// A statement and its bind parameters, built here and run (or EXPLAINed) by the caller.
pub struct Sql {
    pub text: String,
    params: Vec<Box<dyn ToSql + Sync + Send>>,
}

impl Sql {
    fn new() -> Sql {
        Sql {
            text: String::new(),
            params: Vec::new(),
        }
    }

    /// A statement without parameters.
    pub fn from_text(text: &str) -> Sql {
        Sql {
            text: text.to_string(),
            params: Vec::new(),
        }
    }

    /// Add a parameter; returns its placeholder (`$3`).
    fn bind<T: ToSql + Sync + Send + 'static>(&mut self, value: T) -> String {
        self.params.push(Box::new(value));
        format!("${}", self.params.len())
    }

    pub fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params
            .iter()
            .map(|p| p.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

impl std::fmt::Debug for Sql {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sql")
            .field("text", &self.text)
            .field("params", &self.params.len())
            .finish()
    }
}

fn literal(state: State) -> String {
    format!("'{}'", state.as_str())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

// ---------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------

/// The filters of `jobs list` (and `jobs uncertain`, which is `--state uncertain`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Any of these states (empty: every state).
    pub states: Vec<State>,
    pub destination: Option<String>,
    pub tenant: Option<String>,
    pub article: Option<String>,
    pub external_ref: Option<String>,
    /// In the current state for longer than this.
    pub older_than: Option<Duration>,
}

/// What a page lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    Jobs(ListFilter),
    /// pending or safe_to_retry for longer than `older_than`, and in_flight jobs whose lease
    /// has expired.
    Stuck {
        older_than: Duration,
        destination: Option<String>,
    },
}

impl Listing {
    /// `jobs uncertain`: the same listing as `jobs list --state uncertain`, so their cursors
    /// are interchangeable.
    pub fn uncertain(destination: Option<String>) -> Listing {
        Listing::Jobs(ListFilter {
            states: vec![State::Uncertain],
            destination,
            ..ListFilter::default()
        })
    }

    /// The same listing always gives the same fingerprint; any change of filter another.
    fn fingerprint(&self) -> [u8; 8] {
        // Length-prefixed fields: no two different listings encode to the same text.
        fn field(out: &mut String, name: &str, value: Option<&str>) {
            match value {
                Some(v) => out.push_str(&format!("{name}={}:{v};", v.len())),
                None => out.push_str(&format!("{name}-;")),
            }
        }
        let mut text = String::new();
        match self {
            Listing::Jobs(f) => {
                text.push_str("jobs;");
                let states = normalized_states(&f.states)
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(",");
                field(&mut text, "states", Some(&states));
                field(&mut text, "destination", f.destination.as_deref());
                field(&mut text, "tenant", f.tenant.as_deref());
                field(&mut text, "article", f.article.as_deref());
                field(&mut text, "external_ref", f.external_ref.as_deref());
                let older = f.older_than.map(|d| d.as_millis().to_string());
                field(&mut text, "older_than_ms", older.as_deref());
            }
            Listing::Stuck {
                older_than,
                destination,
            } => {
                text.push_str("stuck;");
                let older = older_than.as_millis().to_string();
                field(&mut text, "older_than_ms", Some(&older));
                field(&mut text, "destination", destination.as_deref());
            }
        }
        let digest = Sha256::digest(text.as_bytes());
        let mut fp = [0u8; 8];
        fp.copy_from_slice(&digest[..8]);
        fp
    }
}

/// Sorted, without duplicates.
fn normalized_states(states: &[State]) -> Vec<State> {
    let mut s = states.to_vec();
    s.sort();
    s.dedup();
    s
}

/// A position in keyset order: the last job of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

const CURSOR_VERSION: u8 = 1;
const CURSOR_LEN: usize = 1 + 8 + 8 + 16 + 4;
const CURSOR_ENGINE: base64::engine::GeneralPurpose =
    base64::engine::general_purpose::URL_SAFE_NO_PAD;

fn checksum(bytes: &[u8]) -> [u8; 4] {
    let digest = Sha256::digest(bytes);
    [digest[0], digest[1], digest[2], digest[3]]
}

/// The `next_cursor` after `job` in `listing`.
pub fn encode_cursor(listing: &Listing, after: Position) -> String {
    let mut bytes = Vec::with_capacity(CURSOR_LEN);
    bytes.push(CURSOR_VERSION);
    bytes.extend_from_slice(&listing.fingerprint());
    bytes.extend_from_slice(&after.created_at.timestamp_micros().to_be_bytes());
    bytes.extend_from_slice(after.id.as_bytes());
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum);
    CURSOR_ENGINE.encode(bytes)
}

/// The position a `--cursor` names, if it was made by this listing and is intact.
pub fn decode_cursor(listing: &Listing, cursor: &str) -> Result<Position> {
    let invalid = |why: &str| {
        Error::usage(format!("invalid --cursor: {why}")).hinted(
            "pass the next_cursor of the previous page unchanged, with the same filters; or omit --cursor to start from the first page",
        )
    };
    let bytes = CURSOR_ENGINE
        .decode(cursor.trim())
        .map_err(|_| invalid("it is not a cursor reconctl printed"))?;
    if bytes.len() != CURSOR_LEN {
        return Err(invalid("it is not a cursor reconctl printed"));
    }
    let (body, sum) = bytes.split_at(CURSOR_LEN - 4);
    if checksum(body) != sum {
        return Err(invalid("it was altered or truncated"));
    }
    if body[0] != CURSOR_VERSION {
        return Err(invalid("it comes from another version of reconctl"));
    }
    if body[1..9] != listing.fingerprint() {
        return Err(invalid(
            "it belongs to a listing with other filters (or another command)",
        ));
    }
    let micros = i64::from_be_bytes(body[9..17].try_into().expect("8 bytes"));
    let id = Uuid::from_slice(&body[17..33]).expect("16 bytes");
    let created_at = DateTime::from_timestamp_micros(micros)
        .ok_or_else(|| invalid("its position is out of range"))?;
    Ok(Position { created_at, id })
}

/// One branch of a page: a state (or none: every state) and its own conditions.
struct Branch {
    state: Option<State>,
    conditions: Vec<String>,
}

/// How `jobs stuck` reads the in_flight jobs whose lease expired.
///
/// The planner cannot estimate `state = 'in_flight' AND lease_expires_at < now()`: it takes
/// the two for independent, while a lease exists only in flight, and so it always expects a
/// handful of rows and reads them all through `ix_publication_jobs_lease`, then sorts. That
/// is right when few leases expired (`Few`), and reads thousands of rows when the sweep has
/// stopped, exactly when an operator asks (`Many`: walk the in-flight jobs in keyset order
/// through `ix_publication_jobs_open_created` and stop after a page). [`page`] counts first
/// and chooses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExpiredLeases {
    #[default]
    Few,
    Many,
}

impl ExpiredLeases {
    /// Few when reading every expired lease costs fewer rows than walking the in-flight
    /// jobs until a page of expired ones is found (about `page × in_flight / expired`).
    pub fn choose(expired: i64, in_flight: i64, limit: u32) -> ExpiredLeases {
        let page = i64::from(limit) + 1;
        if expired.saturating_mul(expired) <= page.saturating_mul(in_flight) {
            ExpiredLeases::Few
        } else {
            ExpiredLeases::Many
        }
    }
}

/// How many in_flight jobs there are and how many of their leases have expired (an
/// index-only scan of `ix_publication_jobs_lease`).
pub const LEASE_COUNTS_SQL: &str = "SELECT count(*) FILTER (WHERE lease_expires_at < now()), \
     count(*) FROM publication_jobs WHERE state = 'in_flight'";

/// The statement of one page: at most `limit + 1` jobs after `after`, in keyset order, each
/// row followed by the database's `now()` (for ages). The extra row says whether there is a
/// next page.
pub fn list_sql(
    listing: &Listing,
    after: Option<Position>,
    limit: u32,
    expired: ExpiredLeases,
) -> Sql {
    let mut sql = Sql::new();
    let mut common: Vec<String> = Vec::new();
    let branches: Vec<Branch> = match listing {
        Listing::Jobs(f) => {
            if let Some(d) = &f.destination {
                common.push(format!("destination = {}", sql.bind(d.clone())));
            }
            if let Some(t) = &f.tenant {
                common.push(format!("tenant_id = {}", sql.bind(t.clone())));
            }
            if let Some(a) = &f.article {
                common.push(format!("article_id = {}", sql.bind(a.clone())));
            }
            if let Some(r) = &f.external_ref {
                common.push(format!("external_ref = {}", sql.bind(r.clone())));
            }
            if let Some(d) = f.older_than {
                common.push(format!(
                    "state_changed_at < now() - make_interval(secs => {}::float8)",
                    sql.bind(secs(d))
                ));
            }
            let states = normalized_states(&f.states);
            if states.is_empty() {
                vec![Branch {
                    state: None,
                    conditions: Vec::new(),
                }]
            } else {
                states
                    .into_iter()
                    .map(|s| Branch {
                        state: Some(s),
                        conditions: Vec::new(),
                    })
                    .collect()
            }
        }
        Listing::Stuck {
            older_than,
            destination,
        } => {
            if let Some(d) = destination {
                common.push(format!("destination = {}", sql.bind(d.clone())));
            }
            let waiting = format!(
                "state_changed_at < now() - make_interval(secs => {}::float8)",
                sql.bind(secs(*older_than))
            );
            vec![
                Branch {
                    state: Some(State::Pending),
                    conditions: vec![waiting.clone()],
                },
                Branch {
                    state: Some(State::SafeToRetry),
                    conditions: vec![waiting],
                },
                Branch {
                    state: Some(State::InFlight),
                    conditions: vec![match expired {
                        ExpiredLeases::Few => "lease_expires_at < now()".into(),
                        // The same condition, in a form no index can serve.
                        ExpiredLeases::Many => "(lease_expires_at < now()) IS TRUE".into(),
                    }],
                },
            ]
        }
    };
    if let Some(p) = after {
        common.push(format!(
            "(created_at, id) > ({}::timestamptz, {}::uuid)",
            sql.bind(p.created_at),
            sql.bind(p.id)
        ));
    }
    let limit = sql.bind(i64::from(limit) + 1);
    let branch_sql = |b: &Branch, extra: &str| {
        let mut conds: Vec<String> = Vec::new();
        if let Some(s) = b.state {
            conds.push(format!("state = {}", literal(s)));
        }
        conds.extend(b.conditions.iter().cloned());
        conds.extend(common.iter().cloned());
        let conds = if conds.is_empty() {
            "TRUE".to_string()
        } else {
            conds.join(" AND ")
        };
        format!(
            "SELECT {JOB_COLUMNS}{extra} FROM publication_jobs WHERE {conds} \
             ORDER BY created_at, id LIMIT {limit}"
        )
    };
    sql.text = if branches.len() == 1 {
        branch_sql(&branches[0], ", now()")
    } else {
        let parts: Vec<String> = branches
            .iter()
            .map(|b| format!("({})", branch_sql(b, "")))
            .collect();
        format!(
            "SELECT page.*, now() FROM ({}) AS page ORDER BY created_at, id LIMIT {limit}",
            parts.join(" UNION ALL ")
        )
    };
    sql
}

/// One page of a listing.
#[derive(Debug, Clone)]
pub struct JobPage {
    pub jobs: Vec<Job>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<String>,
    /// The database's clock when the page was read (for ages).
    pub now: DateTime<Utc>,
}

/// Read one page: at most `limit` jobs after `cursor` (a `next_cursor` of this listing).
pub async fn page<C: GenericClient>(
    client: &C,
    listing: &Listing,
    limit: u32,
    cursor: Option<&str>,
) -> Result<JobPage> {
    let after = cursor.map(|c| decode_cursor(listing, c)).transpose()?;
    let expired = match listing {
        Listing::Stuck { .. } => {
            let row = client.query_one(LEASE_COUNTS_SQL, &[]).await?;
            ExpiredLeases::choose(row.try_get(0)?, row.try_get(1)?, limit)
        }
        Listing::Jobs(_) => ExpiredLeases::Few,
    };
    let sql = list_sql(listing, after, limit, expired);
    let rows = client.query(&sql.text, &sql.params()).await?;
    let now = match rows.first() {
        Some(row) => row.try_get(JOB_COLUMN_COUNT)?,
        None => db_now(client).await?,
    };
    let mut jobs = rows.iter().map(Job::from_row).collect::<Result<Vec<_>>>()?;
    let mut next_cursor = None;
    if jobs.len() > limit as usize {
        jobs.truncate(limit as usize);
        let last = jobs.last().expect("a full page");
        next_cursor = Some(encode_cursor(
            listing,
            Position {
                created_at: last.created_at,
                id: last.id,
            },
        ));
    }
    Ok(JobPage {
        jobs,
        next_cursor,
        now,
    })
}

/// The database's clock: ages are measured against it, never against this machine's.
pub async fn db_now<C: GenericClient>(client: &C) -> Result<DateTime<Utc>> {
    Ok(client.query_one("SELECT now()", &[]).await?.try_get(0)?)
}

// ---------------------------------------------------------------------------------------
// Counts
// ---------------------------------------------------------------------------------------

/// Tables up to this many pages (2 MB, some thousands of jobs) are small enough to count
/// `accepted` exactly: scanning them takes about a millisecond. Above it, the count is
/// estimated (and labelled so), because an exact count reads every accepted row.
pub const EXACT_COUNT_MAX_PAGES: i64 = 256;

/// Exact counts and oldest ages of the open states, per state and destination: an
/// index-only scan of `ix_publication_jobs_open_state_age`.
pub const OPEN_GROUPS_SQL: &str = "SELECT state, destination, count(*), min(state_changed_at) \
     FROM publication_jobs WHERE state <> 'accepted' GROUP BY state, destination";

/// The planner's statistics of the table and its size now, for the accepted estimate.
pub const TABLE_STATS_SQL: &str = "SELECT now(), c.reltuples::float8, c.relpages::bigint, \
     (pg_relation_size(c.oid) / current_setting('block_size')::bigint)::bigint \
     FROM pg_class c WHERE c.oid = 'publication_jobs'::regclass";

/// On a small table only (see [`EXACT_COUNT_MAX_PAGES`]): the exact accepted count.
pub const ACCEPTED_EXACT_SQL: &str =
    "SELECT count(*) FROM publication_jobs WHERE state = 'accepted'";

/// The open jobs of one state at one destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenGroup {
    pub state: State,
    pub destination: String,
    pub count: i64,
    /// When the job longest in this state entered it.
    pub oldest_state_changed_at: DateTime<Utc>,
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
    let (groups, stats) = futures::try_join!(
        client.query(OPEN_GROUPS_SQL, &[]),
        client.query_one(TABLE_STATS_SQL, &[]),
    )?;
    let mut open = Vec::with_capacity(groups.len());
    for row in &groups {
        let state: String = row.try_get(0)?;
        open.push(OpenGroup {
            state: state
                .parse()
                .map_err(|e| Error::bug(format!("job row has {e}")))?,
            destination: row.try_get(1)?,
            count: row.try_get(2)?,
            oldest_state_changed_at: row.try_get(3)?,
        });
    }
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
            .query_one(ACCEPTED_EXACT_SQL, &[])
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
}

/// `$1` stuck_after, `$2` uncertain_after (NULL: none), both in seconds. Per state, one pass
/// of an index-only scan of `ix_publication_jobs_open_state_age` over the four states `check`
/// counts; the cutoffs are computed once (InitPlans), not per row.
pub fn health_sql(stuck_after: Duration, uncertain_after: Option<Duration>) -> Sql {
    let mut sql = Sql::new();
    let stuck = sql.bind(secs(stuck_after));
    let overdue = sql.bind(uncertain_after.map(secs));
    let states = [
        State::Uncertain,
        State::Conflict,
        State::Pending,
        State::SafeToRetry,
    ]
    .map(literal)
    .join(", ");
    let stuck_cutoff = format!("(SELECT now() - make_interval(secs => {stuck}::float8))");
    let overdue_cutoff = format!("(SELECT now() - make_interval(secs => {overdue}::float8))");
    sql.text = format!(
        "SELECT state, count(*), min(state_changed_at),
                count(*) FILTER (WHERE state_changed_at < {stuck_cutoff}),
                min(state_changed_at) FILTER (WHERE state_changed_at < {stuck_cutoff}),
                count(*) FILTER (WHERE state_changed_at < {overdue_cutoff})
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
    let in_flight = literal(State::InFlight);
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
    };
    for row in &rows {
        let state: String = row.try_get(0)?;
        let count: i64 = row.try_get(1)?;
        let oldest: Option<DateTime<Utc>> = row.try_get(2)?;
        let stuck: i64 = row.try_get(3)?;
        let oldest_stuck: Option<DateTime<Utc>> = row.try_get(4)?;
        let overdue: i64 = row.try_get(5)?;
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
            Ok(State::Pending | State::SafeToRetry) => {
                h.waiting += stuck;
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

// ---------------------------------------------------------------------------------------
// Out-of-order publication
// ---------------------------------------------------------------------------------------

/// One job of an out-of-order pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AcceptedRevision {
    pub id: Uuid,
    pub revision_id: String,
    #[serde(serialize_with = "super::model::rfc3339")]
    pub accepted_at: DateTime<Utc>,
}

/// An older revision accepted after a newer one, for one tenant, article and destination:
/// the destination may now show the older content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutOfOrder {
    pub tenant_id: String,
    pub article_id: String,
    pub destination: String,
    /// The older revision, accepted last.
    pub older: AcceptedRevision,
    /// The newer revision, accepted before it.
    pub newer: AcceptedRevision,
}

/// `$1` window in seconds: the id of the newest event older than the window (0: none). The
/// events after it are the window's. Read backwards along the primary key, it stops at the
/// first event old enough.
pub fn event_window_sql(window: Duration) -> Sql {
    let mut sql = Sql::new();
    let window = sql.bind(secs(window));
    sql.text = format!(
        "SELECT COALESCE((SELECT id FROM job_events
                          WHERE at <= now() - make_interval(secs => {window}::float8)
                          ORDER BY id DESC LIMIT 1), 0)"
    );
    sql
}

/// `$1` an event id (from [`event_window_sql`]). Finds the jobs accepted after that event
/// through the audit log (`job_events` primary key: there is no index on when an accepted job
/// was accepted, and there need not be one on a table that is 97% accepted), then their
/// accepted siblings (same tenant, article, destination) through
/// `ux_publication_jobs_identity`. The boundary is a separate statement so that the planner
/// knows it, and with it how few events the window holds. A pair is out of order when the job
/// of the lower revision was accepted after the job of the higher one; "accepted" is the
/// job's `state_changed_at` (accepted is terminal, so it is when the job was accepted).
///
/// Revision ids are text. When both are integers they compare numerically, so `10` is newer
/// than `9` (leading zeros stripped, then the longer number is the larger, equal lengths
/// compare digit by digit: no overflow whatever their length); otherwise they compare
/// lexically, byte by byte (`COLLATE "C"`), so the order never depends on the database's
/// locale.
pub fn out_of_order_sql(after_event: i64) -> Sql {
    let mut sql = Sql::new();
    let after = sql.bind(after_event);
    let accepted = literal(State::Accepted);
    sql.text = format!(
        "WITH recent AS (
            SELECT DISTINCT e.job_id
            FROM job_events e
            WHERE e.id > {after}::bigint AND e.to_state = {accepted}
        )
        SELECT o.tenant_id, o.article_id, o.destination,
               o.id, o.revision_id, o.state_changed_at,
               n.id, n.revision_id, n.state_changed_at
        FROM recent r
        JOIN publication_jobs o ON o.id = r.job_id
        JOIN publication_jobs n
          ON n.tenant_id = o.tenant_id AND n.article_id = o.article_id
         AND n.destination = o.destination AND n.id <> o.id
        WHERE o.state = {accepted} AND n.state = {accepted}
          AND n.state_changed_at < o.state_changed_at
          AND CASE WHEN n.revision_id ~ '^[0-9]+$' AND o.revision_id ~ '^[0-9]+$'
                   THEN (length(ltrim(n.revision_id, '0')), ltrim(n.revision_id, '0') COLLATE \"C\")
                      > (length(ltrim(o.revision_id, '0')), ltrim(o.revision_id, '0') COLLATE \"C\")
                   ELSE n.revision_id COLLATE \"C\" > o.revision_id COLLATE \"C\"
              END
        ORDER BY o.state_changed_at, o.id, n.id"
    );
    sql
}

/// Out-of-order publications among the jobs accepted in the last `window` (see
/// [`out_of_order_sql`]).
pub async fn out_of_order<C: GenericClient>(
    client: &C,
    window: Duration,
) -> Result<Vec<OutOfOrder>> {
    let bound = event_window_sql(window);
    let after: i64 = client
        .query_one(&bound.text, &bound.params())
        .await?
        .try_get(0)?;
    let sql = out_of_order_sql(after);
    let rows = client.query(&sql.text, &sql.params()).await?;
    rows.iter()
        .map(|row| {
            Ok(OutOfOrder {
                tenant_id: row.try_get(0)?,
                article_id: row.try_get(1)?,
                destination: row.try_get(2)?,
                older: AcceptedRevision {
                    id: row.try_get(3)?,
                    revision_id: row.try_get(4)?,
                    accepted_at: row.try_get(5)?,
                },
                newer: AcceptedRevision {
                    id: row.try_get(6)?,
                    revision_id: row.try_get(7)?,
                    accepted_at: row.try_get(8)?,
                },
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The indexes the commands rely on (`doctor`)
// ---------------------------------------------------------------------------------------

/// The indexes of migrations/V1 and whether each must be unique: the two unique ones decide
/// races (one job per intent, one job per external_ref); the others keep every inspection
/// query off a scan of the whole table.
pub const EXPECTED_INDEXES: &[(&str, bool)] = &[
    ("ux_publication_jobs_identity", true),
    ("ux_publication_jobs_external_ref", true),
    ("ix_publication_jobs_created", false),
    ("ix_publication_jobs_destination_created", false),
    ("ix_publication_jobs_open_created", false),
    ("ix_publication_jobs_open_state_age", false),
    ("ix_publication_jobs_lease", false),
    ("ix_job_events_job", false),
];

/// The server's version string (`SHOW server_version`), for `doctor`.
pub async fn server_version<C: GenericClient>(client: &C) -> Result<String> {
    Ok(client
        .query_one("SHOW server_version", &[])
        .await?
        .try_get(0)?)
}

/// What the catalog says about one expected index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexStatus {
    pub name: String,
    pub present: bool,
    pub unique: bool,
    /// False after a failed `CREATE INDEX CONCURRENTLY`: present but unused.
    pub valid: bool,
    pub must_be_unique: bool,
}

impl IndexStatus {
    pub fn ok(&self) -> bool {
        self.present && self.valid && (self.unique || !self.must_be_unique)
    }
}

pub async fn index_status<C: GenericClient>(client: &C) -> Result<Vec<IndexStatus>> {
    let names: Vec<&str> = EXPECTED_INDEXES.iter().map(|(n, _)| *n).collect();
    let rows = client
        .query(
            "SELECT c.relname::text, i.indisunique, i.indisvalid \
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             WHERE c.relname::text = ANY($1::text[]) AND pg_table_is_visible(c.oid)",
            &[&names],
        )
        .await?;
    Ok(EXPECTED_INDEXES
        .iter()
        .map(|(name, must_be_unique)| {
            let row = rows.iter().find(|r| r.get::<_, String>(0) == *name);
            IndexStatus {
                name: name.to_string(),
                present: row.is_some(),
                unique: row.is_some_and(|r| r.get(1)),
                valid: row.is_some_and(|r| r.get(2)),
                must_be_unique: *must_be_unique,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos() -> Position {
        Position {
            created_at: DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(),
            id: Uuid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0),
        }
    }

    #[test]
    fn expired_leases_choose_the_cheaper_read() {
        use ExpiredLeases::*;
        // A few expired among a few hundred in flight: read them all.
        assert_eq!(ExpiredLeases::choose(3, 200, 50), Few);
        assert_eq!(ExpiredLeases::choose(0, 0, 50), Few);
        // A third of 50 000 expired: walk the in-flight jobs, about 150 rows for a page.
        assert_eq!(ExpiredLeases::choose(16_667, 50_000, 50), Many);
        // 100 of 50 000 expired: reading 100 beats walking 25 000.
        assert_eq!(ExpiredLeases::choose(100, 50_000, 50), Few);
    }

    #[test]
    fn cursors_round_trip() {
        let l = Listing::uncertain(Some("cms-a".into()));
        let c = encode_cursor(&l, pos());
        assert_eq!(decode_cursor(&l, &c).unwrap(), pos());
    }

    #[test]
    fn cursors_refuse_other_listings_and_edits() {
        let l = Listing::uncertain(Some("cms-a".into()));
        let c = encode_cursor(&l, pos());
        let other = Listing::uncertain(Some("cms-b".into()));
        let err = decode_cursor(&other, &c).unwrap_err();
        assert!(err.message.contains("other filters"), "{}", err.message);
        assert_eq!(err.exit_code(), 2);
        // Every single-character edit is refused.
        for i in 0..c.len() {
            let mut edited: Vec<char> = c.chars().collect();
            edited[i] = if edited[i] == 'A' { 'B' } else { 'A' };
            let edited: String = edited.into_iter().collect();
            assert!(decode_cursor(&l, &edited).is_err(), "edit at {i} accepted");
        }
        for bad in ["", "x", "!!!", &c[..c.len() - 1], "' OR 1=1 --"] {
            assert_eq!(decode_cursor(&l, bad).unwrap_err().exit_code(), 2, "{bad}");
        }
    }

    #[test]
    fn state_order_and_duplicates_do_not_change_the_listing() {
        let a = Listing::Jobs(ListFilter {
            states: vec![State::Pending, State::Uncertain, State::Pending],
            ..ListFilter::default()
        });
        let b = Listing::Jobs(ListFilter {
            states: vec![State::Uncertain, State::Pending],
            ..ListFilter::default()
        });
        assert_eq!(a.fingerprint(), b.fingerprint());
        let c = encode_cursor(&a, pos());
        assert!(decode_cursor(&b, &c).is_ok());
    }

    #[test]
    fn lists_bind_every_input_and_write_only_state_literals() {
        let l = Listing::Jobs(ListFilter {
            states: vec![State::Uncertain, State::Conflict],
            destination: Some("cms'; DROP TABLE x; --".into()),
            tenant: Some("t".into()),
            ..ListFilter::default()
        });
        let sql = list_sql(&l, Some(pos()), 50, ExpiredLeases::Few);
        assert!(!sql.text.contains("DROP"), "{}", sql.text);
        assert!(sql.text.contains("state = 'uncertain'"));
        assert!(sql.text.contains("state = 'conflict'"));
        assert!(sql.text.contains("UNION ALL"));
        // destination, tenant, cursor (2), limit
        assert_eq!(sql.params().len(), 5);
    }
}
