//! What `reconcile` needs from the job table besides the pages of uncertain jobs
//! (`jobs::query::page_after`, one short statement each, so no transaction or row lock is
//! held while the destinations are asked): how many jobs it will examine, and the guarded
//! moves the evidence justifies ([`Settlement`]), many at once.
//!
//! Every batch commits through the lost-COMMIT resolver (`jobs::commit`), so what the run
//! reports moved is what the database has, even when the answer to a COMMIT is lost; and one
//! job whose move the database refuses never keeps the others of its batch from moving.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::commit;
use super::model::Job;
use super::query::Sql;
use super::state::{Action, Role, State};
use super::store::{self, Effects, MoveOutcome, MoveRequest};
use crate::db::Target;
use crate::error::{Error, Kind, Result};

/// How many jobs reconcile will examine (for the progress bar): those in `states`,
/// optionally for one destination; a count over the open-job index, like `status`'s.
pub fn count_sql(states: &[State], destination: Option<&str>) -> Sql {
    let mut sql = Sql::new();
    let mut text = format!(
        "SELECT count(*) FROM publication_jobs WHERE state IN ({})",
        State::literals(states)
    );
    if let Some(d) = destination {
        text.push_str(&format!(" AND destination = {}", sql.bind(d.to_string())));
    }
    sql.text = text;
    sql
}

pub async fn count_examined<C: GenericClient>(
    client: &C,
    states: &[State],
    destination: Option<&str>,
) -> Result<u64> {
    let sql = count_sql(states, destination);
    let row = client.query_one(&sql.text, &sql.params()).await?;
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
    /// The destination gave a remote id that belongs to another article at the destination
    /// (recorded for one of its jobs, or given in the same batch for one): a conflict, never
    /// an accept (SPEC §4). The conflict move made, when the table allows one from the job's
    /// state, and why.
    RemoteIdClash {
        moved: Option<State>,
        reason: String,
    },
}

/// Another article's job at the same destination that holds (or is being given) a remote id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    pub job_id: Uuid,
    pub tenant_id: String,
    pub article_id: String,
    pub remote_id: String,
    /// Recorded in the job table (else: given for it in the same batch).
    pub recorded: bool,
}

impl Clash {
    pub fn reason(&self) -> String {
        format!(
            "the destination gives remote_id {} for this job, but that id {} job {} (tenant {}, article {}): one publication cannot be two articles",
            self.remote_id,
            if self.recorded { "is recorded for" } else { "was given in the same run for" },
            self.job_id,
            self.tenant_id,
            self.article_id
        )
    }

    fn evidence(&self) -> Value {
        serde_json::json!({
            "remote_id": self.remote_id,
            "job_id": self.job_id,
            "tenant_id": self.tenant_id,
            "article_id": self.article_id,
            "recorded": self.recorded,
        })
    }
}

/// The accepting moves among `items` whose remote id belongs to another (tenant, article) at
/// the same destination, by index: recorded for such a job in the table, or given for one in
/// the same batch. Run inside the moves' transaction: it first takes a transaction-scoped
/// advisory lock per (destination, remote id), in one order, so two batches (or runs) that
/// accept the same id for two articles cannot both miss each other.
async fn clashes<C: GenericClient>(
    client: &C,
    items: &[(&Job, &Settlement)],
) -> Result<HashMap<usize, Clash>> {
    let accepting: Vec<(usize, &Job, &str)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, (job, s))| Some((i, *job, s.remote_id.as_deref()?)))
        .collect();
    let mut out = HashMap::new();
    if accepting.is_empty() {
        return Ok(out);
    }
    let keys: Vec<String> = accepting
        .iter()
        .map(|(_, j, r)| format!("{}\n{r}", j.destination))
        .collect();
    client
        .query(
            "SELECT pg_advisory_xact_lock(k) FROM (
                 SELECT DISTINCT hashtextextended(key, 0) AS k FROM unnest($1::text[]) key ORDER BY 1
             ) s",
            &[&keys],
        )
        .await?;
    let ids: Vec<Uuid> = accepting.iter().map(|(_, j, _)| j.id).collect();
    let remote_ids: Vec<&str> = accepting.iter().map(|(_, _, r)| *r).collect();
    let rows = client
        .query(
            "SELECT i.n, o.id, o.tenant_id, o.article_id,
                    (o.tenant_id, o.article_id) = (j.tenant_id, j.article_id) AS same_article
             FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS i(id, remote_id, n)
             JOIN publication_jobs j ON j.id = i.id
             JOIN publication_jobs o ON o.destination = j.destination AND o.remote_id = i.remote_id
                                    AND o.id <> j.id
             ORDER BY i.n, o.updated_at",
            &[&ids, &remote_ids],
        )
        .await?;
    // Items whose id is recorded for their own article (another revision): theirs.
    let mut owned = std::collections::HashSet::new();
    for row in rows {
        let n: i64 = row.try_get(0)?;
        let (i, _, r) = accepting[usize::try_from(n - 1).unwrap_or(0)];
        if row.try_get::<_, bool>(4)? {
            owned.insert(i);
        } else if let std::collections::hash_map::Entry::Vacant(e) = out.entry(i) {
            e.insert(Clash {
                job_id: row.try_get(1)?,
                tenant_id: row.try_get(2)?,
                article_id: row.try_get(3)?,
                remote_id: r.to_string(),
                recorded: true,
            });
        }
    }
    // The same id given in this batch for two articles, neither of which it is recorded for:
    // neither is trusted.
    for (i, job, r) in &accepting {
        if out.contains_key(i) || owned.contains(i) {
            continue;
        }
        let other = accepting.iter().find(|(_, o, r2)| {
            r2 == r
                && o.destination == job.destination
                && (&o.tenant_id, &o.article_id) != (&job.tenant_id, &job.article_id)
        });
        if let Some((_, o, _)) = other {
            out.insert(
                *i,
                Clash {
                    job_id: o.id,
                    tenant_id: o.tenant_id.clone(),
                    article_id: o.article_id.clone(),
                    remote_id: r.to_string(),
                    recorded: false,
                },
            );
        }
    }
    Ok(out)
}

/// The remote id `remote_id`, accepted for `job`, clashes with another article's job at the
/// same destination (SPEC §4): for `mark accepted`, checked just before its move.
pub async fn remote_id_clash<C: GenericClient>(
    client: &C,
    job: &Job,
    remote_id: &str,
) -> Result<Option<Clash>> {
    let row = client
        .query_opt(
            "SELECT o.id, o.tenant_id, o.article_id FROM publication_jobs o
             WHERE o.destination = $1 AND o.remote_id = $2
               AND (o.tenant_id, o.article_id) <> ($3::text, $4::text)
             ORDER BY o.updated_at LIMIT 1",
            &[
                &job.destination,
                &remote_id,
                &job.tenant_id,
                &job.article_id,
            ],
        )
        .await?;
    row.map(|row| {
        Ok(Clash {
            job_id: row.try_get(0)?,
            tenant_id: row.try_get(1)?,
            article_id: row.try_get(2)?,
            remote_id: remote_id.to_string(),
            recorded: true,
        })
    })
    .transpose()
}

/// What a batch's item becomes once its remote id is checked: the move to make (an accept
/// that clashes becomes the conflict move where the table allows one, else no move).
fn checked<'s>(job: &Job, s: &'s Settlement, clash: Option<&Clash>) -> Option<Cow<'s, Settlement>> {
    let Some(c) = clash else {
        return Some(Cow::Borrowed(s));
    };
    // An operator's move (from a plan) is not turned into another move: it does not happen.
    if s.action.transition().by == Role::Operator {
        return None;
    }
    let conflict = Action::ReconcileConflict;
    conflict.from().contains(&job.state).then(|| {
        let mut evidence = s.evidence.clone();
        if let Value::Object(o) = &mut evidence {
            o.insert("remote_id_clash".into(), c.evidence());
        }
        Cow::Owned(Settlement {
            action: conflict,
            remote_id: None,
            reason: c.reason(),
            evidence,
        })
    })
}

/// Whether the batch may make the move a settlement asks for (a broken invariant
/// otherwise): reconcile's moves, and an operator's moves applied from a plan (`plan apply`).
fn allowed(s: &Settlement) -> Result<()> {
    if !matches!(s.action.transition().by, Role::Reconcile | Role::Operator) {
        return Err(Error::bug(format!("reconcile asked to make {}", s.action)));
    }
    if s.action.to() == State::bulk() && s.remote_id.is_none() {
        return Err(Error::bug("an accepting settlement without a remote id"));
    }
    Ok(())
}

/// The guarded move a settlement asks for, at the version the job was read with.
fn request(job: &Job, s: &Settlement, actor: &str) -> Result<MoveRequest> {
    allowed(s)?;
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

/// One job's move in a transaction of its own, its COMMIT resolved if the answer is lost. A
/// row another session holds locked is not waited for (`NOWAIT`, like the sweep's `SKIP
/// LOCKED`): it is `Busy` at once, so a hundred rows a worker holds cost no lock timeout each.
pub async fn settle<C: GenericClient>(
    client: &C,
    job: &Job,
    s: &Settlement,
    actor: &str,
    target: &Target,
) -> Result<Settled> {
    request(job, s, actor)?;
    let xid = commit::begin(client).await?;
    let made = async {
        client
            .query(
                "SELECT 1 FROM publication_jobs WHERE id = $1 FOR UPDATE NOWAIT",
                &[&job.id],
            )
            .await?;
        let clash = clashes(client, &[(job, s)]).await?.remove(&0);
        let Some(effective) = checked(job, s, clash.as_ref()) else {
            return Ok((None, clash));
        };
        let req = request(job, &effective, actor)?;
        Ok::<_, Error>((Some(store::guarded_move(client, &req).await?), clash))
    }
    .await;
    let settled = match made {
        Ok((Some(MoveOutcome::Moved { job: moved, .. }), clash)) => {
            commit::commit(client, &xid, target).await?;
            match clash {
                Some(c) => Settled::RemoteIdClash {
                    moved: Some(moved.state),
                    reason: c.reason(),
                },
                None => Settled::Moved(moved.state),
            }
        }
        Ok((Some(MoveOutcome::Conflict { current }), _)) => {
            commit::rollback(client).await;
            Settled::ChangedConcurrently(Box::new(current))
        }
        Ok((None, clash)) => {
            commit::rollback(client).await;
            Settled::RemoteIdClash {
                moved: None,
                reason: clash.map(|c| c.reason()).unwrap_or_default(),
            }
        }
        Err(e) => {
            commit::rollback(client).await;
            match e.kind() {
                Kind::Busy => Settled::Busy(e.message().to_string()),
                _ if refused_row(&e) => Settled::Failed(e.message().to_string()),
                _ => return Err(e),
            }
        }
    };
    Ok(settled)
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
/// then tried one by one with [`settle`], which does not wait for them either and reports a
/// lost guard with the job as it is now.
pub const SETTLE_BATCH_SQL: &str = "
WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                         $6::text[], $7::text[], $8::jsonb[])
        AS t(id, expect_version, action, to_state, from_states, remote_id, reason, evidence)
), old AS (
    SELECT j.id, j.state AS from_state, i.expect_version, i.action, i.to_state, i.remote_id,
           i.reason, i.evidence
    FROM publication_jobs j JOIN input i ON j.id = i.id
    -- the primary key's probes for the batch's ids, never a scan of the table
    WHERE j.id = ANY($1::uuid[])
      AND j.version = i.expect_version AND j.state = ANY(string_to_array(i.from_states, ','))
    FOR UPDATE OF j SKIP LOCKED
), moved AS (
    UPDATE publication_jobs j SET
        state = old.to_state,
        version = j.version + 1,
        updated_at = now(),
        state_changed_at = CASE WHEN j.state = old.to_state THEN j.state_changed_at ELSE now() END,
        lease_owner = NULL,
        lease_expires_at = NULL,
        remote_id = COALESCE(old.remote_id, j.remote_id),
        -- giving up (a plan's `failed`) records why, like `mark failed`
        last_error = CASE WHEN old.to_state = 'failed' THEN old.reason ELSE j.last_error END
    FROM old
    WHERE j.id = old.id AND j.version = old.expect_version
    RETURNING j.id, j.state, j.version, old.from_state, old.action, old.reason, old.evidence
), ev AS (
    INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
    SELECT id, $9, action, from_state, state, version - 1, version, reason, evidence FROM moved
    RETURNING job_id
)
-- ev runs to completion whether or not it is read (a data-modifying CTE always does): one
-- event per moved row, in this statement. Not joined to it: a join of two CTE scans is a
-- nested loop over both, quadratic in the batch.
SELECT moved.id, moved.state FROM moved";

/// [`settle`] for many jobs at once, in one statement and one transaction; the result is in
/// the order of `items`.
///
/// * Rows another session holds locked, and rows whose guard no longer matches, are left by
///   the statement and then settled one by one ([`settle`]), which does not wait for a lock
///   (`Busy` at once) and reports a lost guard with the job as it is now.
/// * An accept whose remote id belongs to another article at the destination becomes the
///   conflict move (or no move, where the table has none from the job's state): [`Clash`].
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
    for (_, s) in items {
        allowed(s)?;
    }
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let xid = commit::begin(client).await?;
    let clashes = match clashes(client, items).await {
        Ok(c) => c,
        Err(e) => {
            commit::rollback(client).await;
            if e.kind() == Kind::Busy {
                return Ok(items
                    .iter()
                    .map(|_| Settled::Busy(e.message().to_string()))
                    .collect());
            }
            return Err(e);
        }
    };
    // What each item moves to once its remote id is checked (None: it does not move),
    // borrowed where the check changed nothing: an item's evidence (its lookup and both
    // control runs) is the bulk of a batch, and is not copied to be sent.
    let effective: Vec<Option<Cow<Settlement>>> = items
        .iter()
        .enumerate()
        .map(|(i, (job, s))| checked(job, s, clashes.get(&i)))
        .collect();
    let moving: Vec<(&Job, &Settlement)> = items
        .iter()
        .zip(&effective)
        .filter_map(|((job, _), s)| Some((*job, s.as_deref()?)))
        .collect();
    for (_, s) in &moving {
        allowed(s)?;
    }
    let ids: Vec<Uuid> = moving.iter().map(|(j, _)| j.id).collect();
    let versions: Vec<i64> = moving.iter().map(|(j, _)| j.version).collect();
    let actions: Vec<&str> = moving.iter().map(|(_, s)| s.action.as_str()).collect();
    let to: Vec<&str> = moving.iter().map(|(_, s)| s.action.to().as_str()).collect();
    let from: Vec<String> = moving
        .iter()
        .map(|(_, s)| {
            s.action
                .from()
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let remote_ids: Vec<Option<&str>> =
        moving.iter().map(|(_, s)| s.remote_id.as_deref()).collect();
    let reasons: Vec<Option<&str>> = moving
        .iter()
        .map(|(_, s)| Some(s.reason.as_str()))
        .collect();
    let evidence: Vec<&Value> = moving.iter().map(|(_, s)| &s.evidence).collect();
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
                return Ok(items
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
    let mut out: Vec<Option<Settled>> = Vec::with_capacity(items.len());
    let mut again = Vec::new();
    for (i, ((job, _), effective)) in items.iter().zip(&effective).enumerate() {
        let clash = clashes.get(&i);
        out.push(match (moved.remove(&job.id), clash, effective) {
            (Some(state), None, _) => Some(Settled::Moved(state)),
            (Some(state), Some(c), _) => Some(Settled::RemoteIdClash {
                moved: Some(state),
                reason: c.reason(),
            }),
            (None, clash, None) => Some(Settled::RemoteIdClash {
                moved: None,
                reason: clash.map(Clash::reason).unwrap_or_default(),
            }),
            // Guard lost or row locked: one by one below.
            (None, _, Some(_)) => {
                again.push(i);
                None
            }
        });
    }
    // One by one, which tells a lost guard from a lock (and checks the remote id again in
    // its own transaction). A row still locked is tried once more after a short pause, for
    // all of them together (another reconciler's batch commits within it; a worker's long
    // hold does not), and then left as busy: never a lock timeout per row.
    for round in 0..2 {
        if round > 0 {
            if again.is_empty() {
                break;
            }
            tokio::time::sleep(LOCKED_PAUSE).await;
        }
        let mut locked = Vec::new();
        for i in again {
            let (job, s) = items[i];
            let settled = settle(client, job, s, actor, target).await?;
            if matches!(settled, Settled::Busy(_)) {
                locked.push(i);
            }
            out[i] = Some(settled);
        }
        again = locked;
    }
    out.into_iter()
        .map(|s| s.ok_or_else(|| Error::bug("a batch item was not settled")))
        .collect()
}

/// How long a batch waits, once for all its locked rows together, before trying them again.
const LOCKED_PAUSE: std::time::Duration = std::time::Duration::from_millis(250);
