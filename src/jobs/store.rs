//! Reading jobs, and the one guarded move every state change goes through.

use std::time::Duration;

use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::external_ref::is_external_ref;
use super::model::{Event, Job, EVENT_COLUMNS, JOB_COLUMNS, JOB_COLUMN_COUNT};
use super::state::{Action, State};
use crate::error::{Code, Error, Result};

/// How a JOB argument names a job: its id, a unique prefix of its id (8 or more hex digits,
/// as tables print ids when they shorten them), or its external_ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRef {
    Id(Uuid),
    /// The first hex digits of an id (lowercase, dashes kept where typed).
    Prefix(String),
    ExternalRef(String),
}

pub use crate::ids::{prefix_len, MIN_PREFIX};

impl std::str::FromStr for JobRef {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if is_external_ref(s) {
            return Ok(JobRef::ExternalRef(s.to_string()));
        }
        if s.len() == 36 {
            if let Ok(id) = Uuid::parse_str(s) {
                return Ok(JobRef::Id(id));
            }
        }
        let lower = s.to_ascii_lowercase();
        if lower.len() < 36 && is_id_prefix(&lower) {
            return Ok(JobRef::Prefix(lower));
        }
        Err(format!(
            "`{}` is neither a job id (a UUID, or its first {MIN_PREFIX} or more hex digits) nor an external_ref (pub_ + 64 hex digits)",
            s.chars().take(100).collect::<String>()
        ))
    }
}

/// The start of an id as its text form has it (`7f0c2a4e`, `7f0c2a4e-1b7d`): hex digits
/// with the dashes where a UUID has them, at least [`MIN_PREFIX`] digits.
fn is_id_prefix(s: &str) -> bool {
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    let digits = s.bytes().filter(|b| *b != b'-').count();
    digits >= MIN_PREFIX
        && s.bytes().enumerate().all(|(i, b)| {
            if DASHES.contains(&i) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// The smallest and largest ids that start with `prefix`: the prefix's range of the primary
/// key, so a lookup by prefix is an index range scan.
fn prefix_range(prefix: &str) -> (Uuid, Uuid) {
    let hex: String = prefix.chars().filter(|c| *c != '-').collect();
    let lo = format!("{hex}{}", "0".repeat(32 - hex.len()));
    let hi = format!("{hex}{}", "f".repeat(32 - hex.len()));
    (
        Uuid::parse_str(&lo).expect("32 hex digits"),
        Uuid::parse_str(&hi).expect("32 hex digits"),
    )
}

impl std::fmt::Display for JobRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobRef::Id(id) => write!(f, "{id}"),
            JobRef::Prefix(p) => f.write_str(p),
            JobRef::ExternalRef(r) => f.write_str(r),
        }
    }
}

/// The prefix length that makes each of `ids` unique in the whole table, not only among
/// themselves: what a table shortens ids to, so any id it prints, typed back as a JOB, names
/// that job (until a job with the same first digits is created). Two index probes per id:
/// its neighbours in the primary key's order are the ids sharing the most digits with it.
pub async fn unique_prefix_len<C: GenericClient>(client: &C, ids: &[Uuid]) -> Result<usize> {
    if ids.is_empty() {
        return Ok(MIN_PREFIX);
    }
    let rows = client
        .query(
            "SELECT j.id,
                    (SELECT p.id FROM publication_jobs p WHERE p.id < j.id ORDER BY p.id DESC LIMIT 1),
                    (SELECT p.id FROM publication_jobs p WHERE p.id > j.id ORDER BY p.id LIMIT 1)
             FROM unnest($1::uuid[]) AS j(id)",
            &[&ids],
        )
        .await?;
    let mut len = MIN_PREFIX;
    for r in rows {
        let id: Uuid = r.try_get(0)?;
        for k in [1, 2] {
            if let Some(n) = r.try_get::<_, Option<Uuid>>(k)? {
                len = len.max(prefix_len(&id, &n));
            }
        }
    }
    Ok(len)
}

/// How many candidates an ambiguous prefix names in its error.
const CANDIDATES: i64 = 5;

pub async fn find<C: GenericClient>(client: &C, job: &JobRef) -> Result<Option<Job>> {
    let row = match job {
        JobRef::Prefix(p) => {
            let (lo, hi) = prefix_range(p);
            let rows = client
                .query(
                    &format!(
                        "SELECT {JOB_COLUMNS} FROM publication_jobs WHERE id BETWEEN $1 AND $2 ORDER BY id LIMIT $3"
                    ),
                    &[&lo, &hi, &(CANDIDATES + 1)],
                )
                .await?;
            let mut jobs = rows.iter().map(Job::from_row).collect::<Result<Vec<_>>>()?;
            return match jobs.len() {
                0 | 1 => Ok(jobs.pop()),
                n => {
                    let shown: Vec<String> = jobs
                        .iter()
                        .take(CANDIDATES as usize)
                        .map(|j| format!("{} ({}, {})", j.id, j.state, j.destination))
                        .collect();
                    let more = if n as i64 > CANDIDATES { ", …" } else { "" };
                    Err(Error::usage(format!(
                        "job id prefix {p} is ambiguous: it starts {}{more}",
                        shown.join(", ")
                    ))
                    .hinted("type more of the id (or all of it, or the external_ref)"))
                }
            };
        }
        JobRef::Id(id) => {
            client
                .query_opt(
                    &format!("SELECT {JOB_COLUMNS} FROM publication_jobs WHERE id = $1"),
                    &[id],
                )
                .await?
        }
        JobRef::ExternalRef(r) => {
            client
                .query_opt(
                    &format!("SELECT {JOB_COLUMNS} FROM publication_jobs WHERE external_ref = $1"),
                    &[r],
                )
                .await?
        }
    };
    row.as_ref().map(Job::from_row).transpose()
}

/// The job, or exit 4.
pub async fn get<C: GenericClient>(client: &C, job: &JobRef) -> Result<Job> {
    find(client, job).await?.ok_or_else(|| {
        Error::not_found(format!("no job {job}"))
            .hinted("check the id or external_ref with `reconctl jobs list`")
    })
}

pub async fn events<C: GenericClient>(client: &C, job_id: Uuid) -> Result<Vec<Event>> {
    let rows = client
        .query(
            &format!("SELECT {EVENT_COLUMNS} FROM job_events WHERE job_id = $1 ORDER BY id"),
            &[&job_id],
        )
        .await?;
    rows.iter().map(Event::from_row).collect()
}

/// What a move writes besides state and version. `None` leaves a column as it is; moves out
/// of `in_flight` always clear the lease.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    pub lease_owner: Option<String>,
    pub lease_ttl: Option<Duration>,
    pub count_attempt: bool,
    pub sent_at: SentAt,
    pub remote_id: Option<String>,
    pub last_error: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SentAt {
    #[default]
    Keep,
    Now,
    Clear,
}

impl SentAt {
    fn as_str(self) -> &'static str {
        match self {
            SentAt::Keep => "keep",
            SentAt::Now => "now",
            SentAt::Clear => "clear",
        }
    }
}

/// One guarded move: the job must still be at `expect_version` and in one of the action's
/// from-states (SPEC §2's table), or nothing changes.
#[derive(Debug, Clone)]
pub struct MoveRequest {
    pub job_id: Uuid,
    pub expect_version: i64,
    pub action: Action,
    pub actor: String,
    pub reason: Option<String>,
    pub evidence: Value,
    pub effects: Effects,
}

/// The result of a guarded move.
#[derive(Debug, Clone)]
pub enum MoveOutcome {
    Moved {
        job: Job,
        event: Event,
    },
    /// The guard matched no row: someone moved the job first. This is the job now.
    Conflict {
        current: Job,
    },
}

/// The guarded UPDATE and its event, in one statement: both happen or neither does.
///
/// `old` reads the job at the expected version within the statement's snapshot; versions
/// only grow, so when the UPDATE matches `version = $2`, `old.state` is the state it left.
/// A move into the leased state sets (or keeps) the lease; any other move clears it.
static MOVE_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "
WITH old AS (
    SELECT id, state AS from_state FROM publication_jobs WHERE id = $1 AND version = $2
), moved AS (
    UPDATE publication_jobs j SET
        state = $4::text,
        version = j.version + 1,
        updated_at = now(),
        state_changed_at = CASE WHEN j.state = $4 THEN j.state_changed_at ELSE now() END,
        attempts = j.attempts + $5::int,
        lease_owner = CASE WHEN $4 = {leased} THEN COALESCE($6, j.lease_owner) END,
        lease_expires_at = CASE WHEN $4 = {leased}
            THEN COALESCE(now() + make_interval(secs => $7::float8), j.lease_expires_at) END,
        sent_at = CASE $8::text WHEN 'now' THEN now() WHEN 'clear' THEN NULL ELSE j.sent_at END,
        remote_id = COALESCE($9, j.remote_id),
        last_error = COALESCE($10, j.last_error)
    FROM old
    WHERE j.id = old.id AND j.version = $2 AND j.state = ANY($3)
    RETURNING j.*, old.from_state
), ev AS (
    INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
    SELECT id, $11, $12, from_state, state, version - 1, version, $13, $14 FROM moved
    RETURNING *
)
SELECT {job}, {event}
FROM moved, ev",
        leased = State::leased().literal(),
        job = super::model::qualified(super::model::JOB_COLUMNS, "moved"),
        event = super::model::qualified(super::model::EVENT_COLUMNS, "ev"),
    )
});

pub async fn guarded_move<C: GenericClient>(client: &C, req: &MoveRequest) -> Result<MoveOutcome> {
    let from: Vec<&str> = req.action.from().iter().map(|s| s.as_str()).collect();
    let to = req.action.to().as_str();
    let attempt: i32 = i32::from(req.effects.count_attempt);
    let ttl: Option<f64> = req.effects.lease_ttl.map(|d| d.as_secs_f64());
    let rows = client
        .query(
            MOVE_SQL.as_str(),
            &[
                &req.job_id,
                &req.expect_version,
                &from,
                &to,
                &attempt,
                &req.effects.lease_owner,
                &ttl,
                &req.effects.sent_at.as_str(),
                &req.effects.remote_id,
                &req.effects.last_error,
                &req.actor,
                &req.action.as_str(),
                &req.reason,
                &req.evidence,
            ],
        )
        .await?;
    match rows.as_slice() {
        [row] => Ok(MoveOutcome::Moved {
            job: Job::from_row(row)?,
            event: Event::from_row_at(row, JOB_COLUMN_COUNT)?,
        }),
        [] => {
            let current = get(client, &JobRef::Id(req.job_id)).await?;
            Ok(MoveOutcome::Conflict { current })
        }
        _ => Err(Error::bug("a guarded move updated more than one row")),
    }
}

/// A guarded move where a lost guard is an error (exit 3) carrying the job as it is now.
pub async fn guarded_move_or_conflict<C: GenericClient>(
    client: &C,
    req: &MoveRequest,
) -> Result<(Job, Event)> {
    match guarded_move(client, req).await? {
        MoveOutcome::Moved { job, event } => Ok((job, event)),
        MoveOutcome::Conflict { current } => Err(version_conflict(req, current)),
    }
}

pub fn version_conflict(req: &MoveRequest, current: Job) -> Error {
    let message = if current.version != req.expect_version {
        format!(
            "job {} is now {} at version {} (you expected version {})",
            current.id, current.state, current.version, req.expect_version
        )
    } else {
        format!(
            "job {} is {} at version {}: {} is only allowed from {}",
            current.id,
            current.state,
            current.version,
            req.action,
            req.action
                .from()
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        )
    };
    Error::new(Code::VersionConflict, message)
        .hinted("nothing changed; look at the job again with `reconctl jobs show`")
        .with_current(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ref_parses_ids_and_refs() {
        let id = Uuid::new_v4();
        assert_eq!(id.to_string().parse::<JobRef>().unwrap(), JobRef::Id(id));
        let r = crate::jobs::external_ref("t", "a", "1", "d");
        assert_eq!(r.parse::<JobRef>().unwrap(), JobRef::ExternalRef(r.clone()));
        for bad in [
            "",
            "42",
            "7f0c2a4",
            "pub_123",
            "7f0c2a4ez",
            "7f0c2a4e1b7d",
            "'; DROP TABLE publication_jobs; --",
        ] {
            assert!(bad.parse::<JobRef>().is_err(), "{bad}");
        }
        let text = id.to_string();
        assert_eq!(
            text[..8].parse::<JobRef>().unwrap(),
            JobRef::Prefix(text[..8].to_string())
        );
        assert_eq!(
            text[..13].to_uppercase().parse::<JobRef>().unwrap(),
            JobRef::Prefix(text[..13].to_string())
        );
        let (lo, hi) = prefix_range(&text[..13]);
        assert!(lo <= id && id <= hi);
        assert_eq!(&lo.to_string()[..13], &text[..13]);
        assert!(lo.to_string().ends_with("0000") && hi.to_string().ends_with("ffff"));
    }
}
