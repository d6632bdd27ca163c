//! What `reconcile` needs from the job table besides the pages of uncertain jobs
//! (`jobs::query::page_after`, one short statement each, so no transaction or row lock is
//! held while the destinations are asked): how many jobs it will examine, and the guarded
//! moves the evidence justifies ([`Settlement`]), many at once.
//!
//! Every batch commits through the lost-COMMIT resolver (`jobs::commit`), so what the run
//! reports moved is what the database has, even when the answer to a COMMIT is lost; and one
//! job whose move the database refuses never keeps the others of its batch from moving.

use std::collections::HashMap;

use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::commit;
use super::model::Job;
use super::state::{Action, Role, State};
use super::store::{Effects, MoveOutcome, MoveRequest};
use crate::db::Target;
use crate::error::{Error, Kind, Result};

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

/// A move the evidence justifies, as the job table sees it: the transition (a reconcile
/// action of the table), the remote id an accepted job records, why, and the evidence (the
/// lookup and the controls it relied on) its event stores.
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    pub action: Action,
    pub remote_id: Option<String>,
    pub reason: String,
    pub evidence: Value,
}

/// What applying a settlement to a job did.
#[derive(Debug, Clone)]
pub enum Settled {
    /// Moved, with its event; the state it is in now.
    Moved(State),
    /// The guard matched no row: someone changed the job after it was read. The job now.
    ChangedConcurrently(Box<Job>),
    /// Its row stayed locked by another session past the lock timeout (or a statement
    /// timeout fired); nothing changed.
    Busy(String),
    /// The database refused this job's move (and only this job's); nothing changed for it.
    Failed(String),
}

/// The guarded move a settlement asks for, at the version the job was read with.
fn request(job: &Job, s: &Settlement, actor: &str) -> Result<MoveRequest> {
    if s.action.transition().by != Role::Reconcile {
        return Err(Error::bug(format!("reconcile asked to make {}", s.action)));
    }
    if s.action.to() == State::bulk() && s.remote_id.is_none() {
        return Err(Error::bug("an accepting settlement without a remote id"));
    }
    Ok(MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action: s.action,
        actor: actor.to_string(),
        reason: Some(s.reason.clone()),
        evidence: s.evidence.clone(),
        effects: Effects {
            remote_id: s.remote_id.clone(),
            ..Effects::default()
        },
    })
}

/// One job's move in a transaction of its own (waits for a row lock up to the lock timeout),
/// its COMMIT resolved if the answer is lost.
pub async fn settle<C: GenericClient>(
    client: &C,
    job: &Job,
    s: &Settlement,
    actor: &str,
    target: &Target,
) -> Result<Settled> {
    let req = request(job, s, actor)?;
    match commit::guarded_move_tracked(client, &req, target).await {
        Ok(MoveOutcome::Moved { job, .. }) => Ok(Settled::Moved(job.state)),
        Ok(MoveOutcome::Conflict { current }) => {
            Ok(Settled::ChangedConcurrently(Box::new(current)))
        }
        Err(e) if e.kind() == Kind::Busy => Ok(Settled::Busy(e.message().to_string())),
        Err(e) if refused_row(&e) => Ok(Settled::Failed(e.message().to_string())),
        Err(e) => Err(e),
    }
}

/// Whether the database refused the data of a move (a data exception, a constraint, a value
/// too large), as opposed to failing as a whole (connection, permission, timeouts): a
/// refusal belongs to the rows of the statement, and is isolated to the one row it concerns.
fn refused_row(e: &Error) -> bool {
    matches!(e.sql_state_class(), Some("22" | "23" | "54"))
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

/// [`settle`] for many jobs at once, in one statement and one transaction; the result is in
/// the order of `items`.
///
/// * Rows another session holds locked, and rows whose guard no longer matches, are left by
///   the statement and then settled one by one ([`settle`]), which waits for a lock (up to the
///   lock timeout) and reports a lost guard with the job as it is now.
/// * If the database refuses the statement because of one row's data, the batch changed
///   nothing; every job is then settled one by one, and only the refused one fails.
/// * The COMMIT goes through `jobs::commit`: when its answer is lost, the server is asked
///   what became of the transaction before anything is reported.
pub async fn settle_batch<C: GenericClient>(
    client: &C,
    items: &[(&Job, &Settlement)],
    actor: &str,
    target: &Target,
) -> Result<Vec<Settled>> {
    let reqs = items
        .iter()
        .map(|(job, s)| request(job, s, actor))
        .collect::<Result<Vec<_>>>()?;
    if reqs.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = reqs.iter().map(|r| r.job_id).collect();
    let versions: Vec<i64> = reqs.iter().map(|r| r.expect_version).collect();
    let actions: Vec<&str> = reqs.iter().map(|r| r.action.as_str()).collect();
    let to: Vec<&str> = reqs.iter().map(|r| r.action.to().as_str()).collect();
    let from: Vec<String> = reqs
        .iter()
        .map(|r| {
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
        .map(|r| r.effects.remote_id.as_deref())
        .collect();
    let reasons: Vec<Option<&str>> = reqs.iter().map(|r| r.reason.as_deref()).collect();
    let evidence: Vec<&Value> = reqs.iter().map(|r| &r.evidence).collect();
    let xid = commit::begin(client).await?;
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
        .await;
    let rows = match rows {
        Ok(rows) => rows,
        Err(e) => {
            commit::rollback(client).await;
            let e = Error::from(e);
            if e.kind() == Kind::Busy {
                return Ok(reqs
                    .iter()
                    .map(|_| Settled::Busy(e.message().to_string()))
                    .collect());
            }
            if !refused_row(&e) {
                return Err(e);
            }
            // One row's data was refused and the batch changed nothing: each on its own.
            let mut out = Vec::with_capacity(items.len());
            for (job, s) in items {
                out.push(settle(client, job, s, actor, target).await?);
            }
            return Ok(out);
        }
    };
    commit::commit(client, &xid, target).await?;
    let mut moved: HashMap<Uuid, State> = HashMap::with_capacity(rows.len());
    for row in &rows {
        let id: Uuid = row.try_get(0)?;
        let state: String = row.try_get(1)?;
        let state = state
            .parse()
            .map_err(|e| Error::bug(format!("moved row has {e}")))?;
        moved.insert(id, state);
    }
    let mut out = Vec::with_capacity(items.len());
    for (job, s) in items {
        out.push(match moved.remove(&job.id) {
            Some(state) => Settled::Moved(state),
            // Guard lost or row locked: one by one, which tells the two apart.
            None => settle(client, job, s, actor, target).await?,
        });
    }
    Ok(out)
}
