//! The worker side of SPEC §2, so real workers and the tests use the same rules.
//!
//! Every write is fenced by the version the worker holds: a worker whose lease was swept or
//! taken over holds a stale version, and its `renew`/`mark_sent`/`complete`/`fail`/`timed_out`
//! is refused (a conflict carrying the job as it is now) instead of overwriting a newer owner.

use std::time::Duration;

use serde_json::json;
use tokio_postgres::GenericClient;

use super::external_ref::{is_payload_hash, BusinessKey};
use super::model::{Event, Job, JOB_COLUMNS, JOB_COLUMN_COUNT};
use super::pause;
use super::state::{Action, State};
use super::store::{guarded_move_or_conflict, Effects, MoveRequest, SentAt};
use crate::error::{Code, Error, Result};

/// What `reserve` found.
#[derive(Debug, Clone)]
pub enum Reservation {
    /// A new job was created, with its `reserve` event.
    Created { job: Job, event: Event },
    /// The same intent (same key and payload) was already reserved: that job.
    Existing { job: Job },
}

impl Reservation {
    pub fn job(&self) -> &Job {
        match self {
            Reservation::Created { job, .. } | Reservation::Existing { job } => job,
        }
    }
}

/// Creation and its first event, in one statement. The action and the state names are the
/// transition table's (`Action::Reserve`).
static RESERVE_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "
WITH ins AS (
    INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT DO NOTHING
    RETURNING *
), ev AS (
    INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
    SELECT id, $7, {reserve}, NULL, state, NULL, version, NULL, jsonb_build_object('payload_hash', payload_hash)
    FROM ins
    RETURNING *
)
SELECT {job}, {event}
FROM ins, ev",
        reserve = Action::Reserve.literal(),
        job = super::model::qualified(super::model::JOB_COLUMNS, "ins"),
        event = super::model::qualified(super::model::EVENT_COLUMNS, "ev"),
    )
});

/// Reserve the one job of a publishing intent (SPEC §2). The unique business key decides
/// races (`ON CONFLICT DO NOTHING` without a target: external_ref is unique too, and a racing
/// insert can trip either index first); the same key with another payload is a payload conflict (exit 3) and leaves the
/// existing job untouched.
pub async fn reserve<C: GenericClient>(
    client: &C,
    key: &BusinessKey,
    payload_hash: &str,
    actor: &str,
) -> Result<Reservation> {
    if !is_payload_hash(payload_hash) {
        return Err(Error::usage(format!(
            "payload hash `{payload_hash}` is not a lowercase hex SHA-256 (64 characters 0-9a-f)"
        )));
    }
    for (name, value) in [
        ("tenant", &key.tenant_id),
        ("article", &key.article_id),
        ("revision", &key.revision_id),
        ("destination", &key.destination),
    ] {
        if value.trim().is_empty() {
            return Err(Error::usage(format!("--{name} must not be empty")));
        }
    }
    let external_ref = key.external_ref();
    // The INSERT waits for a concurrent inserter of the same key; if that one committed, our
    // statement's snapshot cannot see its row, so the existing job is read by a second
    // statement (a fresh snapshot). A row that vanished in between (never, in practice) is
    // retried a few times rather than reported wrongly.
    for _ in 0..5 {
        let rows = client
            .query(
                RESERVE_SQL.as_str(),
                &[
                    &key.tenant_id,
                    &key.article_id,
                    &key.revision_id,
                    &key.destination,
                    &external_ref,
                    &payload_hash,
                    &actor,
                ],
            )
            .await?;
        if let Some(row) = rows.first() {
            return Ok(Reservation::Created {
                job: Job::from_row(row)?,
                event: Event::from_row_at(row, JOB_COLUMN_COUNT)?,
            });
        }
        let existing = client
            .query_opt(
                &format!(
                    "SELECT {JOB_COLUMNS} FROM publication_jobs
                     WHERE tenant_id = $1 AND article_id = $2 AND revision_id = $3 AND destination = $4"
                ),
                &[&key.tenant_id, &key.article_id, &key.revision_id, &key.destination],
            )
            .await?;
        if let Some(row) = existing {
            let job = Job::from_row(&row)?;
            if job.payload_hash != payload_hash {
                return Err(Error::new(
            Code::PayloadConflict,
                    format!(
                        "payload conflict: job {} ({}/{}/{}/{}) was reserved with payload {}, not {}",
                        job.id, job.tenant_id, job.article_id, job.revision_id, job.destination,
                        job.payload_hash, payload_hash
                    ),
                )
                .hinted("the same publishing intent arrived with different content; the existing job is unchanged. Investigate before publishing: a new revision needs a new revision id")
                .with_current(job));
            }
            return Ok(Reservation::Existing { job });
        }
    }
    Err(Error::runtime(
        "could not reserve the job: it was created and removed repeatedly by someone else",
    ))
}

/// How a claim skips the jobs of paused destinations (SPEC §6), inside its statement (`$1`:
/// the destination asked for, or NULL).
///
/// * Any destination (`$1` NULL): SPEC §6's predicate ([`pause::NOT_PAUSED`]), word for
///   word. The planner makes it a hashed filter over the few rows of `destination_pauses`
///   while it walks `ix_publication_jobs_claimable` oldest first, so a pause costs a claim
///   only the paused jobs it steps over.
/// * One destination: the same predicate with `j.destination` known to be `$1`, asked once
///   (a one-time filter, before any job is read). Written on `$1`, not on `j`, because the
///   planner, seeing `j.destination = $1 = p.destination`, would otherwise guess that the
///   destination may well be paused, give up walking the claim index and read and sort
///   every waiting job of the destination instead; and a claim for a paused destination
///   returns at once instead of walking its whole backlog to find nothing.
///
/// Both read `destination_pauses`, so every claim holds its lock that a pause waits for
/// (see [`pause`]'s "Why a pause takes a lock"). A claim in a REPEATABLE READ or SERIALIZABLE
/// transaction also locks the pause clock's row (`pause_clock`, a one-time filter): refused
/// (40001) when a pause committed after its snapshot (see [`pause`]'s "Claims in REPEATABLE
/// READ or SERIALIZABLE").
pub fn skip_paused() -> String {
    format!(
        "      AND ($1::text IS NOT NULL OR {})
      AND ($1::text IS NULL OR NOT EXISTS (SELECT 1 FROM destination_pauses p
          WHERE p.destination = $1::text AND (p.until IS NULL OR p.until > now())))
      AND (SELECT count(*) FROM pause_clock) >= 0",
        pause::NOT_PAUSED
    )
}

/// The clock row, locked only outside READ COMMITTED (where every statement's snapshot comes
/// after the pause's table lock, and the row would only cost the workers a shared lock each).
const PAUSE_CLOCK_CTE: &str = "pause_clock AS (
    SELECT 1 FROM destination_pause_clock
    WHERE current_setting('transaction_isolation') <> 'read committed'
    FOR SHARE
)";

/// The claim of the oldest claimable job, its move and its event, in one statement (`$1`
/// destination or NULL, `$2` owner, `$3` lease seconds). The states are written as literals
/// from the transition table, so the planner matches `ix_publication_jobs_claimable`. Jobs of
/// a paused destination are skipped in this same statement ([`skip_paused`]).
pub fn claim_sql() -> String {
    let from = State::literals(Action::Claim.from());
    format!(
        "
WITH {PAUSE_CLOCK_CTE}, c AS (
    SELECT j.id, j.state AS from_state FROM publication_jobs j
    WHERE j.state IN ({from}) AND ($1::text IS NULL OR j.destination = $1::text)
{skip_paused}
    ORDER BY j.state_changed_at, j.id
    LIMIT 1
    FOR UPDATE OF j SKIP LOCKED
), moved AS (
    UPDATE publication_jobs j SET
        state = {to},
        version = j.version + 1,
        attempts = j.attempts + 1,
        lease_owner = $2,
        lease_expires_at = now() + make_interval(secs => $3::float8),
        sent_at = NULL,
        updated_at = now(),
        state_changed_at = now()
    FROM c
    WHERE j.id = c.id AND j.state IN ({from})
    RETURNING j.*, c.from_state
), ev AS (
    INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
    SELECT id, $2, {claim}, from_state, state, version - 1, version, NULL,
           jsonb_build_object('lease_expires_at', lease_expires_at, 'attempt', attempts)
    FROM moved
    RETURNING *
)
SELECT {cols} FROM moved, ev",
        to = Action::Claim.to().literal(),
        claim = Action::Claim.literal(),
        skip_paused = skip_paused(),
        cols = JOB_COLUMNS
            .split(", ")
            .map(|c| format!("moved.{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

static CLAIM_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(claim_sql);

/// Claim the oldest claimable job (pending or safe_to_retry), optionally for one destination,
/// skipping rows other workers hold locked and the jobs of paused destinations (SPEC §6).
/// `None` when there is nothing to claim.
pub async fn claim<C: GenericClient>(
    client: &C,
    owner: &str,
    lease: Duration,
    destination: Option<&str>,
) -> Result<Option<Job>> {
    let rows = client
        .query(
            CLAIM_SQL.as_str(),
            &[&destination, &owner, &lease.as_secs_f64()],
        )
        .await
        .map_err(|e| {
            if e.code() == Some(&tokio_postgres::error::SqlState::T_R_SERIALIZATION_FAILURE) {
                return Error::busy(
                    "busy: the claim was refused: a destination was paused (or its pause changed) after this transaction's snapshot was taken, so the snapshot cannot tell which jobs may be claimed",
                )
                .rehinted("nothing was claimed; roll back and claim again in a new transaction, which sees the pause");
            }
            Error::from(e)
        })?;
    rows.first().map(Job::from_row).transpose()
}

fn fenced(job: &Job, action: Action, actor: &str, effects: Effects) -> MoveRequest {
    MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action,
        actor: actor.to_string(),
        reason: None,
        evidence: json!({}),
        effects,
    }
}

fn holder(job: &Job) -> String {
    job.lease_owner.clone().unwrap_or_default()
}

/// Extend the lease of a job this worker holds (at the version it holds).
pub async fn renew<C: GenericClient>(client: &C, job: &Job, lease: Duration) -> Result<Job> {
    let req = fenced(
        job,
        Action::Renew,
        &holder(job),
        Effects {
            lease_ttl: Some(lease),
            ..Effects::default()
        },
    );
    Ok(guarded_move_or_conflict(client, &req).await?.0)
}

/// Record that the request is about to be sent (sent_at = now). After this, a lost lease
/// means `uncertain`, never a blind retry.
pub async fn mark_sent<C: GenericClient>(client: &C, job: &Job) -> Result<Job> {
    let req = fenced(
        job,
        Action::MarkSent,
        &holder(job),
        Effects {
            sent_at: SentAt::Now,
            ..Effects::default()
        },
    );
    Ok(guarded_move_or_conflict(client, &req).await?.0)
}

/// The destination confirmed: accepted, with its remote id.
pub async fn complete<C: GenericClient>(client: &C, job: &Job, remote_id: &str) -> Result<Job> {
    if remote_id.is_empty() {
        return Err(Error::usage("complete needs the destination's remote id"));
    }
    let mut req = fenced(
        job,
        Action::Complete,
        &holder(job),
        Effects {
            remote_id: Some(remote_id.to_string()),
            ..Effects::default()
        },
    );
    req.evidence = json!({ "remote_id": remote_id });
    Ok(guarded_move_or_conflict(client, &req).await?.0)
}

/// The destination rejected it definitively.
pub async fn fail<C: GenericClient>(client: &C, job: &Job, error: &str) -> Result<Job> {
    leave_with_error(client, job, Action::Fail, error).await
}

/// The send timed out after sending: nobody knows whether the destination has it.
pub async fn timed_out<C: GenericClient>(client: &C, job: &Job, error: &str) -> Result<Job> {
    leave_with_error(client, job, Action::TimedOut, error).await
}

/// A worker's move out of in_flight that records what went wrong as reason and last_error.
async fn leave_with_error<C: GenericClient>(
    client: &C,
    job: &Job,
    action: Action,
    error: &str,
) -> Result<Job> {
    let mut req = fenced(
        job,
        action,
        &holder(job),
        Effects {
            last_error: Some(error.to_string()),
            ..Effects::default()
        },
    );
    req.reason = Some(error.to_string());
    Ok(guarded_move_or_conflict(client, &req).await?.0)
}
