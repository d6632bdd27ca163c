//! What `reconcile` (and `remote lookup`) need from the job table besides the pages of
//! uncertain jobs (`jobs::query::page_after`, one short statement each, so no transaction or
//! row lock is held while the destinations are asked): the database's clock, and the guarded
//! move a lookup's verdict justifies.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::model::Job;
use super::state::{Action, State};
use super::store::{guarded_move, Effects, MoveOutcome, MoveRequest};
use crate::error::{Error, Kind, Result};
use crate::remote::{Lookup, Verdict};

/// How far the local clock is ahead of the database's (local − database).
///
/// `sent_at` is written with the database's clock and a lookup is timed with ours; adding
/// this offset to `sent_at` puts both on one clock, so a skewed host cannot make a "not
/// found" look settled early.
pub async fn clock_offset<C: GenericClient>(client: &C) -> Result<chrono::Duration> {
    let row = client.query_one("SELECT now()", &[]).await?;
    let db_now: DateTime<Utc> = row.try_get(0)?;
    // Read our clock after the round trip: the offset can then only over-state how far
    // ahead we are, which makes `sent_at` look more recent, never settled too early.
    Ok(Utc::now() - db_now)
}

/// How many jobs reconcile will examine (for the progress bar), optionally for one destination.
pub async fn count_uncertain<C: GenericClient>(
    client: &C,
    destination: Option<&str>,
) -> Result<u64> {
    let sql = format!(
        "SELECT count(*) FROM publication_jobs WHERE state = {} AND ($1::text IS NULL OR destination = $1::text)",
        State::reconciled().literal()
    );
    let row = client.query_one(&sql, &[&destination]).await?;
    let n: i64 = row.try_get(0)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The move a verdict justifies, if any (SPEC §3: only these three ever move a job).
pub fn action_for(verdict: Verdict) -> Option<Action> {
    match verdict {
        Verdict::Accept => Some(Action::ReconcileAccepted),
        Verdict::SafeToRetry => Some(Action::ReconcileSafeToRetry),
        Verdict::Conflict => Some(Action::ReconcileConflict),
        Verdict::Wait | Verdict::Unknown => None,
    }
}

/// What applying a lookup to a job did.
#[derive(Debug, Clone)]
pub enum Settled {
    /// Moved, with its event; the state it is in now.
    Moved(State),
    /// The guard matched no row: someone changed the job after it was read. The job now.
    ChangedConcurrently(Box<Job>),
    /// Its row stayed locked by another session past the lock timeout; nothing changed.
    Busy(String),
}

/// The guarded move a lookup justifies, at the version the job was read with, with the
/// lookup as the event's evidence. `None` when the verdict moves nothing.
fn request(job: &Job, lookup: &Lookup, actor: &str) -> Result<Option<MoveRequest>> {
    let Some(action) = action_for(lookup.verdict) else {
        return Ok(None);
    };
    let mut effects = Effects::default();
    if action == Action::ReconcileAccepted {
        let [only] = lookup.matches.as_slice() else {
            return Err(Error::bug("an accept verdict without exactly one match"));
        };
        let Some(remote_id) = only.remote_id.clone() else {
            return Err(Error::bug("an accept verdict without a remote id"));
        };
        effects.remote_id = Some(remote_id);
    }
    Ok(Some(MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action,
        actor: actor.to_string(),
        reason: Some(lookup.reason.clone()),
        evidence: lookup.evidence.clone(),
        effects,
    }))
}

/// One job's move through [`guarded_move`]: waits for a row lock up to the lock timeout.
pub async fn settle<C: GenericClient>(
    client: &C,
    job: &Job,
    lookup: &Lookup,
    actor: &str,
) -> Result<Option<Settled>> {
    let Some(req) = request(job, lookup, actor)? else {
        return Ok(None);
    };
    match guarded_move(client, &req).await {
        Ok(MoveOutcome::Moved { job, .. }) => Ok(Some(Settled::Moved(job.state))),
        Ok(MoveOutcome::Conflict { current }) => {
            Ok(Some(Settled::ChangedConcurrently(Box::new(current))))
        }
        Err(e) if e.kind() == Kind::Busy => Ok(Some(Settled::Busy(e.message().to_string()))),
        Err(e) => Err(e),
    }
}

/// Many guarded moves in one statement (one commit for the lot, where one statement per job
/// would pay a WAL flush each). Each row keeps the guard of SPEC §2 — the version it was read
/// at and its action's from-states, from the transition table — and gets its own event, in
/// the same statement. Rows another session holds locked are skipped by the statement and
/// then moved one by one with [`settle`], which waits for them (up to the lock timeout) and
/// reports a lost guard with the job as it is now.
const SETTLE_BATCH_SQL: &str = "
WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                         $6::text[], $7::text[], $8::jsonb[])
        AS t(id, expect_version, action, to_state, from_states, remote_id, reason, evidence)
), old AS (
    SELECT j.id, j.state AS from_state, i.expect_version, i.action, i.to_state, i.remote_id,
           i.reason, i.evidence
    FROM publication_jobs j JOIN input i ON j.id = i.id
    WHERE j.version = i.expect_version AND j.state = ANY(string_to_array(i.from_states, ','))
    FOR UPDATE OF j SKIP LOCKED
), moved AS (
    UPDATE publication_jobs j SET
        state = old.to_state,
        version = j.version + 1,
        updated_at = now(),
        state_changed_at = CASE WHEN j.state = old.to_state THEN j.state_changed_at ELSE now() END,
        lease_owner = NULL,
        lease_expires_at = NULL,
        remote_id = COALESCE(old.remote_id, j.remote_id)
    FROM old
    WHERE j.id = old.id AND j.version = old.expect_version
    RETURNING j.id, j.state, j.version, old.from_state, old.action, old.reason, old.evidence
), ev AS (
    INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
    SELECT id, $9, action, from_state, state, version - 1, version, reason, evidence FROM moved
    RETURNING job_id
)
SELECT moved.id, moved.state FROM moved JOIN ev ON ev.job_id = moved.id";

/// [`settle`] for many jobs at once; the result is in the order of `items`.
pub async fn settle_batch<C: GenericClient>(
    client: &C,
    items: &[(&Job, &Lookup)],
    actor: &str,
) -> Result<Vec<Option<Settled>>> {
    let mut out: Vec<Option<Settled>> = vec![None; items.len()];
    let mut reqs = Vec::new();
    for (i, (job, lookup)) in items.iter().enumerate() {
        if let Some(req) = request(job, lookup, actor)? {
            if req.action.to() == State::InFlight {
                return Err(Error::bug("a reconcile move into in_flight"));
            }
            reqs.push((i, req));
        }
    }
    if reqs.is_empty() {
        return Ok(out);
    }
    let ids: Vec<Uuid> = reqs.iter().map(|(_, r)| r.job_id).collect();
    let versions: Vec<i64> = reqs.iter().map(|(_, r)| r.expect_version).collect();
    let actions: Vec<&str> = reqs.iter().map(|(_, r)| r.action.as_str()).collect();
    let to: Vec<&str> = reqs.iter().map(|(_, r)| r.action.to().as_str()).collect();
    let from: Vec<String> = reqs
        .iter()
        .map(|(_, r)| {
            r.action
                .from()
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let remote_ids: Vec<Option<&str>> = reqs
        .iter()
        .map(|(_, r)| r.effects.remote_id.as_deref())
        .collect();
    let reasons: Vec<Option<&str>> = reqs.iter().map(|(_, r)| r.reason.as_deref()).collect();
    let evidence: Vec<&serde_json::Value> = reqs.iter().map(|(_, r)| &r.evidence).collect();
    let rows = client
        .query(
            SETTLE_BATCH_SQL,
            &[
                &ids,
                &versions,
                &actions,
                &to,
                &from,
                &remote_ids,
                &reasons,
                &evidence,
                &actor,
            ],
        )
        .await?;
    let mut moved: std::collections::HashMap<Uuid, State> =
        std::collections::HashMap::with_capacity(rows.len());
    for row in &rows {
        let id: Uuid = row.try_get(0)?;
        let state: String = row.try_get(1)?;
        let state = state
            .parse()
            .map_err(|e| Error::bug(format!("moved row has {e}")))?;
        moved.insert(id, state);
    }
    for (i, req) in &reqs {
        out[*i] = match moved.remove(&req.job_id) {
            Some(state) => Some(Settled::Moved(state)),
            // Guard lost or row locked: one by one, which tells the two apart.
            None => settle(client, items[*i].0, items[*i].1, actor).await?,
        };
    }
    Ok(out)
}
