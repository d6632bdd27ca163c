//! Job lists in keyset pages: `jobs list`, `jobs uncertain`, `jobs stuck`, and the pages
//! `reconcile` walks.
//!
//! Lists page in keyset order `(created_at, id)` (`jobs uncertain`: `(state_changed_at, id)`,
//! the longest uncertain first), never with OFFSET. A list over several
//! states is one branch per state, each a range scan of `ix_publication_jobs_open_created
//! (state, created_at, id) WHERE state <> 'accepted'` that stops after a page, merged in order
//! (a Merge Append) instead of sorting everything the states hold.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::cursor::{self, Fingerprint, FingerprintBuilder};
use super::sql::{secs, Sql};
use crate::error::Result;
use crate::jobs::model::{Job, JOB_COLUMNS, JOB_COLUMN_COUNT};
use crate::jobs::state::State;

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
    /// `jobs uncertain`: the uncertain jobs, the longest in the state first (keyset order
    /// `(state_changed_at, id)`), so its first job is the one `status` names as the oldest
    /// (SPEC §3). A range of `ix_publication_jobs_open_state_age (state, destination,
    /// state_changed_at)`.
    Uncertain {
        destination: Option<String>,
    },
    /// pending or safe_to_retry for longer than `older_than`, and in_flight jobs whose lease
    /// expired more than `older_than` ago (the rule of `check --stuck-after`).
    Stuck {
        older_than: Duration,
        destination: Option<String>,
    },
}

impl Listing {
    /// Every uncertain job in creation order: the listing of `jobs list --state uncertain`,
    /// and the pages `reconcile` walks.
    pub fn uncertain(destination: Option<String>) -> Listing {
        Listing::Jobs(ListFilter {
            states: vec![State::reconciled()],
            destination,
            ..ListFilter::default()
        })
    }

    /// The destination the listing is filtered by, if any.
    pub fn destination(&self) -> Option<&str> {
        match self {
            Listing::Jobs(f) => f.destination.as_deref(),
            Listing::Uncertain { destination } | Listing::Stuck { destination, .. } => {
                destination.as_deref()
            }
        }
    }

    /// The column a page is ordered by (then `id`).
    fn order_column(&self) -> &'static str {
        match self {
            Listing::Uncertain { .. } => "state_changed_at",
            Listing::Jobs(_) | Listing::Stuck { .. } => "created_at",
        }
    }

    /// Where `job` stands in this listing's keyset order.
    pub fn position(&self, job: &Job) -> Position {
        match self {
            Listing::Uncertain { .. } => Position {
                at: job.state_changed_at,
                id: job.id,
            },
            Listing::Jobs(_) | Listing::Stuck { .. } => Position::of(job),
        }
    }

    /// The same listing always gives the same fingerprint; any change of filter another.
    fn fingerprint(&self) -> Fingerprint {
        match self {
            Listing::Jobs(f) => {
                let states = normalized_states(&f.states)
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(",");
                let older = f.older_than.map(|d| d.as_millis().to_string());
                FingerprintBuilder::new("jobs")
                    .field("states", Some(&states))
                    .field("destination", f.destination.as_deref())
                    .field("tenant", f.tenant.as_deref())
                    .field("article", f.article.as_deref())
                    .field("external_ref", f.external_ref.as_deref())
                    .field("older_than_ms", older.as_deref())
                    .finish()
            }
            Listing::Uncertain { destination } => FingerprintBuilder::new("uncertain")
                .field("destination", destination.as_deref())
                .finish(),
            Listing::Stuck {
                older_than,
                destination,
            } => {
                let older = older_than.as_millis().to_string();
                FingerprintBuilder::new("stuck")
                    .field("older_than_ms", Some(&older))
                    .field("destination", destination.as_deref())
                    .finish()
            }
        }
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
    /// The listing's order column: `created_at` (`state_changed_at` for
    /// [`Listing::Uncertain`]).
    pub at: DateTime<Utc>,
    pub id: Uuid,
}

impl Position {
    /// Where `job` stands in creation order (every listing but [`Listing::Uncertain`]; see
    /// [`Listing::position`]).
    pub fn of(job: &Job) -> Position {
        Position {
            at: job.created_at,
            id: job.id,
        }
    }
}

const POSITION_LEN: usize = 8 + 16;

/// The `next_cursor` after `after` in `listing`.
pub fn encode_cursor(listing: &Listing, after: Position) -> String {
    let mut bytes = Vec::with_capacity(POSITION_LEN);
    bytes.extend_from_slice(&after.at.timestamp_micros().to_be_bytes());
    bytes.extend_from_slice(after.id.as_bytes());
    cursor::encode(listing.fingerprint(), &bytes)
}

/// The position a `--cursor` names, if it was made by this listing and is intact.
pub fn decode_cursor(listing: &Listing, c: &str) -> Result<Position> {
    let body = cursor::decode(listing.fingerprint(), c, POSITION_LEN)?;
    let micros = i64::from_be_bytes(body[..8].try_into().expect("8 bytes"));
    let id = Uuid::from_slice(&body[8..]).expect("16 bytes");
    let at = DateTime::from_timestamp_micros(micros)
        .ok_or_else(|| cursor::invalid("its position is out of range"))?;
    Ok(Position { at, id })
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
pub fn lease_counts_sql() -> String {
    format!(
        "SELECT count(*) FILTER (WHERE lease_expires_at < now()), count(*) \
         FROM publication_jobs WHERE state = {}",
        State::leased().literal()
    )
}

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
        Listing::Uncertain { destination } => {
            if let Some(d) = destination {
                common.push(format!("destination = {}", sql.bind(d.clone())));
            }
            vec![Branch {
                state: Some(State::reconciled()),
                conditions: Vec::new(),
            }]
        }
        Listing::Stuck {
            older_than,
            destination,
        } => {
            if let Some(d) = destination {
                common.push(format!("destination = {}", sql.bind(d.clone())));
            }
            // One meaning of "stuck", shared with `check --stuck-after`: waiting longer
            // than DUR, or holding a lease that expired longer than DUR ago.
            let cutoff = format!(
                "now() - make_interval(secs => {}::float8)",
                sql.bind(secs(*older_than))
            );
            let waiting = format!("state_changed_at < {cutoff}");
            let mut branches: Vec<Branch> = State::waiting()
                .iter()
                .map(|s| Branch {
                    state: Some(*s),
                    conditions: vec![waiting.clone()],
                })
                .collect();
            branches.push(Branch {
                state: Some(State::leased()),
                conditions: vec![match expired {
                    ExpiredLeases::Few => format!("lease_expires_at < {cutoff}"),
                    // The same condition, in a form no index can serve.
                    ExpiredLeases::Many => format!("(lease_expires_at < {cutoff}) IS TRUE"),
                }],
            });
            branches
        }
    };
    let order = listing.order_column();
    if let Some(p) = after {
        common.push(format!(
            "({order}, id) > ({}::timestamptz, {}::uuid)",
            sql.bind(p.at),
            sql.bind(p.id)
        ));
    }
    let limit = sql.bind(i64::from(limit) + 1);
    let branch_sql = |b: &Branch, extra: &str| {
        let mut conds: Vec<String> = Vec::new();
        if let Some(s) = b.state {
            conds.push(format!("state = {}", s.literal()));
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
             ORDER BY {order}, id LIMIT {limit}"
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
            "SELECT page.*, now() FROM ({}) AS page ORDER BY {order}, id LIMIT {limit}",
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
    page_after(client, listing, after, limit).await
}

/// Read one page: at most `limit` jobs after `after` (none: from the first job). Also what
/// `reconcile` walks, a page at a time, from one position to the next.
pub async fn page_after<C: GenericClient>(
    client: &C,
    listing: &Listing,
    after: Option<Position>,
    limit: u32,
) -> Result<JobPage> {
    let expired = match listing {
        Listing::Stuck { .. } => {
            let row = client.query_one(&lease_counts_sql(), &[]).await?;
            ExpiredLeases::choose(row.try_get(0)?, row.try_get(1)?, limit)
        }
        Listing::Jobs(_) | Listing::Uncertain { .. } => ExpiredLeases::Few,
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
        next_cursor = Some(encode_cursor(listing, listing.position(last)));
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

/// The database's clock as seen from here, for a run that compares times without asking the
/// database each time (lookups, marks, messages).
pub async fn db_clock<C: GenericClient>(client: &C) -> Result<crate::clock::DbClock> {
    let db = db_now(client).await?;
    Ok(crate::clock::DbClock::from_reading(db, Utc::now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos() -> Position {
        Position {
            at: DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(),
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
        assert!(err.message().contains("other filters"), "{}", err.message());
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
