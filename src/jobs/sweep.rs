//! The lease sweep: expired `in_flight` jobs back to `pending` (never sent) or to `uncertain`
//! (sent), in short batches, beside live workers and other sweepers.
//!
//! Queues that rescue stuck jobs by time alone re-run work that already happened, or
//! overwrite a job a worker completed a moment earlier because the rescue did not re-check
//! the state. Here each batch is one statement that
//!
//! 1. selects expired in_flight jobs in lease-expiry order, `FOR UPDATE SKIP LOCKED`, so a
//!    job a worker (or another sweeper) is writing right now is left alone, never waited for;
//! 2. moves each selected job with the guard of SPEC §2 (state still one of the action's
//!    from-states, version still the one selected): never sent (`sent_at IS NULL`) →
//!    [`Action::SweepUnsent`]'s to-state, sent → [`Action::SweepSent`]'s to-state, lease
//!    cleared, version + 1;
//! 3. writes one `job_events` row per moved job in the same statement.
//!
//! A worker that completes or renews at the same moment either commits first (the sweep's
//! lock re-check then sees a job that is no longer expired and in flight, and leaves it) or
//! finds the version moved on and is fenced (a conflict, nothing written). Two sweepers never
//! move the same job: the second one skips the row the first holds, and once the first
//! commits the job is no longer in flight.
//!
//! Batches walk the lease-expiry index with a keyset cursor `(lease_expires_at, id)`, so each
//! batch starts where the previous one stopped instead of re-reading the rows it already
//! moved or skipped, and the run ends when a batch finds fewer jobs than it asked for.
//!
//! Tests: tests/it/sweep.rs.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Statement};
use uuid::Uuid;

use super::commit;
use super::state::{Action, State};
use crate::db::Target;
use crate::duration::format_duration;
use crate::error::{Error, Result};

/// What one run sweeps, and how.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// Only leases that expired more than this long before the run started.
    pub grace: Duration,
    /// Jobs per batch (one statement, one transaction).
    pub batch: u32,
    /// Move at most this many jobs in this run.
    pub limit: Option<u64>,
    /// Start no new batch after this long.
    pub max_runtime: Option<Duration>,
    /// Select and lock as a real run would, but move nothing.
    pub dry_run: bool,
    /// The session is read-only (`--read-only`, a hot standby): only a dry run is possible,
    /// and it selects without row locks, so a job another session holds is counted as one
    /// that would move and `skipped` stays 0.
    pub read_only: bool,
    /// Recorded as each event's actor.
    pub actor: String,
    /// Where to ask what became of a batch whose COMMIT answer was lost (`jobs::commit`);
    /// without it such a batch is reported as of unknown outcome.
    pub resolve_with: Option<Target>,
}

/// Jobs per batch unless told otherwise. Each batch holds its jobs' row locks for as long as
/// its statement runs: a worker whose lease expired and that writes to a job of the batch
/// waits that long (at most 91–135 ms at 1 000 on a two-core machine, 52–80 ms at 500, in
/// `scripts/bench-sweep`), and a claiming worker, which skips locked rows, not at all (at most
/// 8.4 ms either way, its own scheduling). Each batch also costs about 19 ms of its own beyond
/// its rows (100 000 leases: 12.8 s in 200 batches of 500, 10.4 s in 100 of 1 000, against
/// 7.5–7.9 s for one set-based statement), so 1 000, not 500: 1.41× that statement (median of
/// three pairs) instead of 1.62×.
pub const DEFAULT_BATCH: u32 = 1000;

impl SweepOptions {
    pub fn new(actor: impl Into<String>) -> SweepOptions {
        SweepOptions {
            grace: Duration::ZERO,
            batch: DEFAULT_BATCH,
            limit: None,
            max_runtime: None,
            dry_run: false,
            read_only: false,
            actor: actor.into(),
            resolve_with: None,
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoppedBy {
    /// No expired lease is left that this run could take.
    Done,
    /// `--limit` jobs were moved.
    Limit,
    /// `--max-runtime` passed; more expired leases may remain.
    MaxRuntime,
}

/// The counts of one run (SPEC §5's `sweep leases` document, plus `batches`, `elapsed_ms`
/// and `stopped_by`).
///
/// * `examined`: distinct expired in_flight jobs the run's batches reached:
///   `to_pending + to_uncertain + skipped`.
/// * `to_pending` / `to_uncertain`: jobs moved (with `dry_run`: jobs that would have moved,
///   selected and locked exactly as a real run selects them, then released).
/// * `skipped`: expired jobs inside the key range a batch scanned that the batch did not
///   move: their row was locked by another session (a worker writing it, another sweeper,
///   an operator's `mark`), so `SKIP LOCKED` passed over them, or they changed after the
///   statement's snapshot and the lock re-check no longer found them expired and in flight,
///   or (never expected, counted all the same) the guarded UPDATE found a version other than
///   the one it locked. Each job is counted at most once per run: batches scan disjoint
///   ranges of `(lease_expires_at, id)`. A skipped job still expired is picked up by the
///   next run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SweepReport {
    pub examined: u64,
    pub to_pending: u64,
    pub to_uncertain: u64,
    pub skipped: u64,
    pub dry_run: bool,
    pub batches: u64,
    pub elapsed_ms: u64,
    pub stopped_by: StoppedBy,
    /// When the run began, on the database's clock (for "see what it moved").
    #[serde(skip)]
    pub started_at: DateTime<Utc>,
}

impl SweepReport {
    pub fn moved(&self) -> u64 {
        self.to_pending + self.to_uncertain
    }
}

/// The states a sweep moves jobs out of: the union of both sweep rows' from-states.
fn sweep_from_states() -> Vec<State> {
    let mut from: Vec<State> = Action::SweepUnsent.from().to_vec();
    for s in Action::SweepSent.from() {
        if !from.contains(s) {
            from.push(*s);
        }
    }
    from
}

/// One batch as one statement. Parameters:
/// `$1` cutoff (leases that expired before it), `$2`/`$3` the keyset cursor (the last job the
/// previous batch locked; NULL for the first batch), `$4` batch size; for the moving
/// statement also `$5` actor, `$6` grace (humane text, for the evidence).
///
/// `cand` locks the batch. `bound` says how far the scan reached (`hi`): to the last locked key
/// when the batch is full, to the cutoff otherwise. `seen` counts the expired jobs in that range,
/// as of the statement's snapshot, that the batch did not lock: the skipped ones.
fn batch_sql(dry_run: bool, lock: bool) -> String {
    let from = State::literals(&sweep_from_states());
    let unsent_from = State::literals(Action::SweepUnsent.from());
    let sent_from = State::literals(Action::SweepSent.from());
    let unsent_to = Action::SweepUnsent.to().as_str();
    let sent_to = Action::SweepSent.to().as_str();
    let unsent_action = Action::SweepUnsent.as_str();
    let sent_action = Action::SweepSent.as_str();
    // The reason each event records: the transition table's own words.
    let unsent_reason = Action::SweepUnsent
        .transition()
        .condition
        .replace('\'', "''");
    let sent_reason = Action::SweepSent.transition().condition.replace('\'', "''");
    let locking = if lock { "FOR UPDATE SKIP LOCKED" } else { "" };
    let head = format!(
        "
WITH cand AS MATERIALIZED (
    SELECT id, version, state AS from_state, lease_owner, lease_expires_at, sent_at
    FROM publication_jobs
    WHERE state IN ({from})
      AND lease_expires_at < $1::timestamptz
      AND lease_expires_at >= COALESCE($2::timestamptz, '-infinity'::timestamptz)
      AND (lease_expires_at, id) > (COALESCE($2::timestamptz, '-infinity'::timestamptz),
                                    COALESCE($3::uuid, '00000000-0000-0000-0000-000000000000'::uuid))
    ORDER BY lease_expires_at, id
    LIMIT $4::int
    {locking}
), last AS (
    SELECT lease_expires_at, id FROM cand ORDER BY lease_expires_at DESC, id DESC LIMIT 1
), bound AS MATERIALIZED (
    SELECT l.locked, l.last_exp, l.last_id,
           CASE WHEN l.locked < $4::int THEN 'infinity'::timestamptz ELSE l.last_exp END AS hi_exp,
           CASE WHEN l.locked < $4::int THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid ELSE l.last_id END AS hi_id
    FROM (SELECT (SELECT count(*) FROM cand) AS locked,
                 (SELECT lease_expires_at FROM last) AS last_exp,
                 (SELECT id FROM last) AS last_id) l
), seen AS (
    SELECT count(*) AS n
    FROM publication_jobs p
    WHERE p.state IN ({from})
      AND p.lease_expires_at < $1::timestamptz
      AND p.lease_expires_at >= COALESCE($2::timestamptz, '-infinity'::timestamptz)
      AND p.lease_expires_at <= (SELECT hi_exp FROM bound)
      AND (p.lease_expires_at, p.id) > (COALESCE($2::timestamptz, '-infinity'::timestamptz),
                                        COALESCE($3::uuid, '00000000-0000-0000-0000-000000000000'::uuid))
      AND (p.lease_expires_at, p.id) <= (SELECT hi_exp, hi_id FROM bound)
      AND NOT EXISTS (SELECT 1 FROM cand c WHERE c.id = p.id)
)"
    );
    let moved = if dry_run {
        // The same selection and the same locks, released when the statement ends.
        "
, moved AS (
    SELECT sent_at IS NULL AS unsent FROM cand
)"
        .to_string()
    } else {
        format!(
            "
, moved AS (
    UPDATE publication_jobs j SET
        state = CASE WHEN j.sent_at IS NULL THEN '{unsent_to}' ELSE '{sent_to}' END,
        version = j.version + 1,
        lease_owner = NULL,
        lease_expires_at = NULL,
        updated_at = now(),
        state_changed_at = now()
    FROM cand c
    WHERE j.id = c.id
      AND j.version = c.version
      AND ((j.sent_at IS NULL AND j.state IN ({unsent_from}))
           OR (j.sent_at IS NOT NULL AND j.state IN ({sent_from})))
    RETURNING j.id, j.state, j.version, j.sent_at, j.sent_at IS NULL AS unsent,
              c.from_state, c.lease_owner, c.lease_expires_at
), ev AS (
    INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
    SELECT id, $5::text,
           CASE WHEN unsent THEN '{unsent_action}' ELSE '{sent_action}' END,
           from_state, state, version - 1, version,
           CASE WHEN unsent THEN '{unsent_reason}' ELSE '{sent_reason}' END,
           jsonb_build_object(
               'lease_owner', lease_owner,
               'lease_expires_at', to_char(lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'),
               'sent_at', to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'),
               'grace', $6::text)
    FROM moved
)"
        )
    };
    format!(
        "{head}{moved}
SELECT b.locked,
       b.last_exp,
       b.last_id,
       (SELECT count(*) FROM moved WHERE unsent) AS to_unsent,
       (SELECT count(*) FROM moved WHERE NOT unsent) AS to_sent,
       (SELECT n FROM seen) AS skipped
FROM bound b"
    )
}

/// The counts of one batch.
#[derive(Debug, Clone, Copy)]
struct Batch {
    locked: u64,
    unsent: u64,
    sent: u64,
    skipped: u64,
    last: Option<(DateTime<Utc>, Uuid)>,
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Sweep expired leases (see the module docs). Each batch commits on its own (the client
/// must not be inside a transaction): a run that fails midway keeps the batches before the
/// failure, and the error says how many jobs they moved.
pub async fn sweep<C: GenericClient>(client: &C, opts: &SweepOptions) -> Result<SweepReport> {
    sweep_with_progress(client, opts, |_| {}).await
}

/// [`sweep`], calling `progress` with the running totals after each batch.
pub async fn sweep_with_progress<C: GenericClient>(
    client: &C,
    opts: &SweepOptions,
    mut progress: impl FnMut(&SweepReport),
) -> Result<SweepReport> {
    if opts.batch == 0 {
        return Err(Error::usage("--batch must be at least 1"));
    }
    if opts.limit == Some(0) {
        return Err(Error::usage("--limit must be at least 1"));
    }
    let started = Instant::now();
    let grace_text = format_duration(opts.grace);
    // One cutoff for the whole run, from the database's clock: the run sweeps the leases that
    // had expired more than `grace` before it started, whatever the client's clock says.
    let cutoff: DateTime<Utc> = client
        .query_one(
            "SELECT now() - make_interval(secs => $1::float8)",
            &[&opts.grace.as_secs_f64()],
        )
        .await?
        .get(0);
    if opts.read_only && !opts.dry_run {
        return Err(Error::usage(
            "sweep leases moves jobs and cannot run on a read-only session (--read-only)",
        )
        .hinted("add --dry-run to count what a sweep would move, or drop --read-only"));
    }
    let stmt = client
        .prepare(&batch_sql(opts.dry_run, !opts.read_only))
        .await?;
    let mut report = SweepReport {
        examined: 0,
        to_pending: 0,
        to_uncertain: 0,
        skipped: 0,
        dry_run: opts.dry_run,
        batches: 0,
        elapsed_ms: 0,
        stopped_by: StoppedBy::Done,
        started_at: cutoff + chrono::Duration::from_std(opts.grace).unwrap_or_default(),
    };
    let mut cursor: Option<(DateTime<Utc>, Uuid)> = None;
    loop {
        let want = match opts.limit {
            Some(limit) => {
                let left = limit.saturating_sub(report.moved());
                if left == 0 {
                    report.stopped_by = StoppedBy::Limit;
                    break;
                }
                left.min(u64::from(opts.batch))
            }
            None => u64::from(opts.batch),
        };
        if let Some(max) = opts.max_runtime {
            if report.batches > 0 && started.elapsed() >= max {
                report.stopped_by = StoppedBy::MaxRuntime;
                break;
            }
        }
        let batch = match run_batch(client, &stmt, opts, &grace_text, cutoff, cursor, want).await {
            Ok(b) => b,
            Err(e) => return Err(partial_failure(e, &mut report, started, Failed::Batch)),
        };
        report.batches += 1;
        report.to_pending += batch.unsent;
        report.to_uncertain += batch.sent;
        // Locked but not moved: the guard found another version (never expected).
        report.skipped += batch.skipped + batch.locked.saturating_sub(batch.unsent + batch.sent);
        report.examined = report.moved() + report.skipped;
        report.elapsed_ms = elapsed_ms(started);
        progress(&report);
        if batch.locked < want {
            report.stopped_by = StoppedBy::Done;
            break;
        }
        cursor = batch.last;
    }
    if !opts.dry_run && !opts.read_only {
        // The in_flight counters of the minutes that are past folded into one row each
        // (migrations/V14), so what status sums stays a few rows per destination.
        // Every batch is committed by now: a failure here (the connection lost, say) must
        // still say what the sweep moved.
        if let Err(e) = crate::jobs::counters::fold(client).await {
            return Err(partial_failure(e, &mut report, started, Failed::Fold));
        }
    }
    report.elapsed_ms = elapsed_ms(started);
    Ok(report)
}

/// One batch: one statement in its own short transaction, whose id is noted first so that a
/// COMMIT whose answer is lost can be asked about (`jobs::commit`): the report then counts
/// the batch as moved when the server committed it, and says so when that cannot be learnt.
///
/// The transaction also pins the plan with `SET LOCAL`: the planner multiplies the
/// selectivity of `state = 'in_flight'` by that of the lease range, though a lease exists only
/// in flight, so with a large backlog it expects a handful of rows and prefers a bitmap scan
/// that reads and sorts every remaining expired lease, in every batch (measured: 140 ms a
/// batch at 50 000 left, where the ordered index scan takes 7 ms). Without bitmap scans it
/// walks `ix_publication_jobs_lease` from the cursor and stops after one batch.
async fn run_batch<C: GenericClient>(
    client: &C,
    stmt: &Statement,
    opts: &SweepOptions,
    grace_text: &str,
    cutoff: DateTime<Utc>,
    cursor: Option<(DateTime<Utc>, Uuid)>,
    want: u64,
) -> Result<Batch> {
    let after_exp = cursor.map(|c| c.0);
    let after_id = cursor.map(|c| c.1);
    let n = i32::try_from(want).map_err(|_| Error::bug("batch size out of range"))?;
    let actor: &(dyn ToSql + Sync) = &opts.actor;
    let grace: &(dyn ToSql + Sync) = &grace_text;
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&cutoff, &after_exp, &after_id, &n];
    if !opts.dry_run {
        params.extend([actor, grace]);
    }
    // BEGIN and the transaction id go out together, then the statement (its counts are in
    // hand before the COMMIT is sent), then the end of the transaction. If the statement
    // fails the transaction is rolled back: the batch changed nothing. A dry run releases
    // its locks without committing anything.
    let (begun, xid) = futures::join!(
        client.batch_execute("BEGIN; SET LOCAL enable_bitmapscan = off"),
        client.query_one("SELECT pg_current_xact_id()::text", &[]),
    );
    let xid = match (begun, xid) {
        (Ok(()), Ok(row)) => commit::XactId(row.try_get(0)?),
        (Err(e), _) | (Ok(()), Err(e)) => {
            commit::rollback(client).await;
            return Err(e.into());
        }
    };
    let row = match client.query_one(stmt, &params).await {
        Ok(row) => row,
        Err(e) => {
            commit::rollback(client).await;
            return Err(e.into());
        }
    };
    if opts.dry_run {
        commit::rollback(client).await;
    } else {
        match &opts.resolve_with {
            Some(target) => {
                commit::commit(client, &xid, target).await?;
            }
            None => client.batch_execute("COMMIT").await?,
        }
    }
    let last_exp: Option<DateTime<Utc>> = row.try_get(1)?;
    let last_id: Option<Uuid> = row.try_get(2)?;
    Ok(Batch {
        locked: count(row.try_get(0)?),
        unsent: count(row.try_get(3)?),
        sent: count(row.try_get(4)?),
        skipped: count(row.try_get(5)?),
        last: last_exp.zip(last_id),
    })
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// What failed after the sweep had begun.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failed {
    /// A batch: it changed nothing, the batches before it are committed.
    Batch,
    /// The counters' fold after the last batch: every batch is committed.
    Fold,
}

/// A batch, or the fold after the last one, failed, and the batches before it are committed.
/// Say so, and carry the counts so far (`-o json` shows them under `detail`).
fn partial_failure(
    err: Error,
    report: &mut SweepReport,
    started: Instant,
    failed: Failed,
) -> Error {
    report.elapsed_ms = elapsed_ms(started);
    if report.batches == 0 {
        return err;
    }
    let verb = match failed {
        _ if report.dry_run => "counted",
        Failed::Batch => "committed",
        Failed::Fold => "committed, every one",
    };
    let detail = serde_json::to_value(&*report).unwrap_or_default();
    let last = if failed == Failed::Fold {
        "the sweep is done: every batch committed, and only the counters' fold after them failed. A fold changes no count (status, check and metrics fold when they read), so nothing needs running again"
    } else if err.code() == crate::error::Code::CommitUnknown {
        "whether the last batch committed could not be learnt (see the hint), the earlier ones stand; look at the jobs before running the sweep again (it is safe: a batch that committed moved its jobs out of in_flight)"
    } else {
        "the failed batch changed nothing and the earlier ones stand; it is safe to run the sweep again"
    };
    let unknown = err.code() == crate::error::Code::CommitUnknown;
    let err = err.with_message(|m| {
        format!(
            "{m} (after {} {} {verb}: {} → {}, {} → {})",
            report.batches,
            if report.batches == 1 {
                "batch"
            } else {
                "batches"
            },
            report.to_pending,
            Action::SweepUnsent.to(),
            report.to_uncertain,
            Action::SweepSent.to(),
        )
    });
    let err = if unknown {
        err.hinted(last)
    } else {
        err.rehinted(last)
    };
    err.hinted(format!(
        "see what it moved: reconctl events --since {} --action {} --action {}",
        report
            .started_at
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        Action::SweepSent,
        Action::SweepUnsent
    ))
    .with_detail(detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_rows_come_from_the_transition_table() {
        assert_eq!(sweep_from_states(), vec![State::InFlight]);
        let sql = batch_sql(false, true);
        assert!(sql.contains("'pending'") && sql.contains("'uncertain'"));
        assert!(sql.contains("'sweep_unsent'") && sql.contains("'sweep_sent'"));
        assert!(sql.contains("FOR UPDATE SKIP LOCKED"));
        assert!(!batch_sql(true, true).contains("UPDATE publication_jobs"));
        assert!(batch_sql(true, true).contains("FOR UPDATE SKIP LOCKED"));
        assert!(!batch_sql(true, false).contains("FOR UPDATE"));
    }
}
