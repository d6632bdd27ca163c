//! What `reconcile` (and `remote lookup`) need from the job table: uncertain jobs in keyset
//! pages, the database's clock, and the guarded move a lookup's verdict justifies.
//!
//! Pages are read in (created_at, id) order from the partial index on open jobs, one short
//! statement each, so no transaction or row lock is held while the destinations are asked.
//! A job reconcile moves leaves `uncertain`, and the keyset starts after the last job read,
//! so a page never repeats a job and never skips one that was there when the run began.

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::model::{Job, JOB_COLUMNS};
use super::state::Action;
use super::store::{guarded_move, Effects, MoveOutcome, MoveRequest};
use crate::error::{Error, Result};
use crate::remote::{Lookup, Verdict};

/// Where the next page starts: after this (created_at, id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct After {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

impl After {
    pub fn of(job: &Job) -> After {
        After {
            created_at: job.created_at,
            id: job.id,
        }
    }
}

/// Up to `limit` uncertain jobs after `after`, oldest first, optionally for one destination.
pub async fn uncertain_page<C: GenericClient>(
    client: &C,
    destination: Option<&str>,
    after: Option<After>,
    limit: i64,
) -> Result<Vec<Job>> {
    // Only the conditions in use are written, so the planner sees a plain range on the
    // (state, created_at, id) index; the row comparison is what keeps it a range scan.
    let mut sql = format!("SELECT {JOB_COLUMNS} FROM publication_jobs WHERE state = 'uncertain'");
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&limit];
    if let Some(d) = &destination {
        params.push(d);
        sql.push_str(&format!(" AND destination = ${}", params.len()));
    }
    if let Some(a) = &after {
        params.push(&a.created_at);
        params.push(&a.id);
        sql.push_str(&format!(
            " AND (created_at, id) > (${}, ${})",
            params.len() - 1,
            params.len()
        ));
    }
    sql.push_str(" ORDER BY created_at, id LIMIT $1");
    let rows = client.query(&sql, &params).await?;
    rows.iter().map(Job::from_row).collect()
}

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

/// How many uncertain jobs there are (for the progress bar), optionally for one destination.
pub async fn count_uncertain<C: GenericClient>(
    client: &C,
    destination: Option<&str>,
) -> Result<u64> {
    let row = match destination {
        Some(d) => {
            client
                .query_one(
                    "SELECT count(*) FROM publication_jobs WHERE state = 'uncertain' AND destination = $1",
                    &[&d],
                )
                .await?
        }
        None => {
            client
                .query_one(
                    "SELECT count(*) FROM publication_jobs WHERE state = 'uncertain'",
                    &[],
                )
                .await?
        }
    };
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
    Moved(Job),
    /// The guard matched no row: someone changed the job after it was read. The job now.
    ChangedConcurrently(Job),
}

/// The guarded move a lookup justifies, at the version the job was read with, with the
/// lookup as the event's evidence. `None` when the verdict moves nothing.
pub async fn settle<C: GenericClient>(
    client: &C,
    job: &Job,
    lookup: &Lookup,
    actor: &str,
) -> Result<Option<Settled>> {
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
    let req = MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action,
        actor: actor.to_string(),
        reason: Some(lookup.reason.clone()),
        evidence: lookup.evidence.clone(),
        effects,
    };
    Ok(Some(match guarded_move(client, &req).await? {
        MoveOutcome::Moved { job, .. } => Settled::Moved(job),
        MoveOutcome::Conflict { current } => Settled::ChangedConcurrently(current),
    }))
}
