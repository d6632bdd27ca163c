//! The audit log's partitions by month (SPEC §9, migrations/V11): preparing an existing log
//! for the swap without blocking its writers, and keeping the coming months' partitions ready.
//!
//! **Preparing.** V11 turns `job_events` and `destination_events` into partitioned tables and
//! attaches each old table, whole, as the partition `…_legacy` FROM (MINVALUE) TO a bound.
//! Attaching costs nothing under its lock only when the old table already has (a) a unique
//! index on (id, at), the partitioned primary key's, and (b) a validated CHECK (at < bound)
//! proving the range. Both take time on a large log, and neither has to block writers when
//! made apart from the swap: `CREATE UNIQUE INDEX CONCURRENTLY`, then `ADD CONSTRAINT … NOT
//! VALID` (a moment's lock) and `VALIDATE CONSTRAINT` (SHARE UPDATE EXCLUSIVE: inserts go on).
//! None of that can run inside a transaction, and refinery runs every migration in one, so
//! `migrate` does it between the migrations before V11 and V11 itself ([`prepare`]). The bound
//! is written in the constraint's name (`job_events_before_202701`), where V11 finds it.
//!
//! The bound is the start of the month after the next day's: at least a day, usually weeks,
//! ahead. Events keep going into the old table until the swap, and a row at or after the bound
//! would break the CHECK: a `migrate` stopped between this and V11 leaves that much time to be
//! run again (which makes a new bound when the old one is near). An empty log (a new
//! database) needs no preparing: V11 attaches it with the past only, under its lock.
//!
//! **Months ahead.** There is no default partition (V11 says why), so a month's partition must
//! exist before its first event. [`ensure_partitions`] calls V11's
//! `reconctl_ensure_event_partitions()` (SECURITY DEFINER: operators and workers may run it):
//! one look at the catalog when the furthest month is there, else it creates what is missing
//! beside the parent and attaches it (writers do not wait).

use std::time::Duration;

use tokio_postgres::Client;

use crate::error::{Error, Result};

/// The logs V11 partitions.
pub const LOGS: [&str; 2] = ["job_events", "destination_events"];

/// The migration that partitions the logs: `migrate` prepares before it.
pub const PARTITIONING_VERSION: u32 = 11;

/// How many months after the current one have their partitions ready.
pub const MONTHS_AHEAD: i32 = 3;

/// A prepared bound this close to now is too close to be left to V11: make a new one.
const BOUND_MARGIN: &str = "1 hour";

/// Build what V11 needs to attach each non-empty old log without a scan or an index build
/// under its lock (module doc). Runs outside any transaction; idempotent; a no-op once the logs
/// are partitioned. Each statement has the session's statement timeout (a 10M-event log needs
/// minutes for the index: `reconctl migrate --statement-timeout 30m`).
pub async fn prepare(client: &Client) -> Result<()> {
    for t in LOGS {
        let kind: Option<String> = client
            .query_one(
                "SELECT (SELECT c.relkind::text FROM pg_class c WHERE c.oid = to_regclass($1))",
                &[&t],
            )
            .await?
            .get(0);
        if kind.as_deref() != Some("r") {
            continue;
        }
        let nonempty: bool = client
            .query_one(&format!("SELECT EXISTS (SELECT 1 FROM {t})"), &[])
            .await?
            .get(0);
        if !nonempty {
            continue;
        }
        // (a) The unique (id, at) index, built beside the writers. A build that failed
        // earlier leaves an invalid index: drop it and build again.
        let idx = format!("{t}_legacy_id_at");
        let valid: Option<bool> = client
            .query_one(
                "SELECT (SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass($1))",
                &[&idx],
            )
            .await?
            .get(0);
        if valid == Some(false) {
            client
                .batch_execute(&format!("DROP INDEX CONCURRENTLY IF EXISTS {idx}"))
                .await?;
        }
        if valid != Some(true) {
            client
                .batch_execute(&format!(
                    "CREATE UNIQUE INDEX CONCURRENTLY {idx} ON {t} (id, at)"
                ))
                .await?;
        }
        // (b) A validated CHECK (at < bound), bound in its name, far enough ahead.
        let usable: Option<String> = client
            .query_one(
                &format!(
                    "SELECT (SELECT c.conname::text FROM pg_constraint c
                     WHERE c.conrelid = '{t}'::regclass AND c.contype = 'c'
                       AND c.conname ~ '^{t}_before_[0-9]{{6}}$'
                       AND (to_timestamp(right(c.conname, 6), 'YYYYMM')::timestamp AT TIME ZONE 'UTC')
                           > now() + interval '{BOUND_MARGIN}'
                     ORDER BY c.conname DESC LIMIT 1)"
                ),
                &[],
            )
            .await?
            .get(0);
        let name = match usable {
            Some(name) => name,
            None => {
                let row = client
                    .query_one(
                        "SELECT b, to_char(b AT TIME ZONE 'UTC', 'YYYYMM') FROM (SELECT
                            (date_trunc('month', (now() + interval '1 day') AT TIME ZONE 'UTC')
                             + interval '1 month') AT TIME ZONE 'UTC' AS b) x",
                        &[],
                    )
                    .await?;
                let bound: chrono::DateTime<chrono::Utc> = row.get(0);
                let name = format!("{t}_before_{}", row.get::<_, String>(1));
                let bound = bound.to_rfc3339();
                add_not_valid(client, t, &name, &bound).await?;
                name
            }
        };
        let validated: bool = client
            .query_one(
                "SELECT c.convalidated FROM pg_constraint c WHERE c.conrelid = to_regclass($1) AND c.conname = $2",
                &[&t, &name],
            )
            .await?
            .get(0);
        if !validated {
            client
                .batch_execute(&format!("ALTER TABLE {t} VALIDATE CONSTRAINT {name}"))
                .await?;
        }
    }
    Ok(())
}

/// `ADD CONSTRAINT … NOT VALID` takes the table's lock for a moment: try a few times with a
/// short lock timeout, so that writers never queue behind it for long.
async fn add_not_valid(client: &Client, t: &str, name: &str, bound: &str) -> Result<()> {
    let sql = format!(
        "BEGIN; SET LOCAL lock_timeout = '500ms';
         ALTER TABLE {t} DROP CONSTRAINT IF EXISTS {name};
         ALTER TABLE {t} ADD CONSTRAINT {name} CHECK (at < '{bound}'::timestamptz) NOT VALID;
         COMMIT"
    );
    let mut last = None;
    for attempt in 0..10u32 {
        match client.batch_execute(&sql).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                let _ = client.batch_execute("ROLLBACK").await;
                let busy = e.code().is_some_and(|c| c.code() == "55P03");
                if !busy {
                    return Err(e.into());
                }
                last = Some(e);
                tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt + 1))).await;
            }
        }
    }
    Err(Error::busy(format!(
        "could not add the range check to {t}: its writers held it for 10 tries ({})",
        last.map(|e| crate::error::db_error(&e).message().to_string())
            .unwrap_or_default()
    )))
}

/// The partitions of the current month and the [`MONTHS_AHEAD`] after it, those missing
/// (module doc). Returns how many were created. A database before V11 has nothing to do.
pub async fn ensure_partitions<C: tokio_postgres::GenericClient>(client: &C) -> Result<i32> {
    let has: bool = client
        .query_one(
            "SELECT to_regprocedure('reconctl_ensure_event_partitions(integer)') IS NOT NULL",
            &[],
        )
        .await?
        .get(0);
    if !has {
        return Ok(0);
    }
    Ok(client
        .query_one(
            "SELECT reconctl_ensure_event_partitions($1)",
            &[&MONTHS_AHEAD],
        )
        .await?
        .get(0))
}

/// [`ensure_partitions`] for a command about to write events: best effort. The month being
/// written was made months ago; a failure here (busy, no grant) must not stop the command.
pub async fn ensure_partitions_quietly<C: tokio_postgres::GenericClient>(client: &C) {
    let _ = ensure_partitions(client).await;
}
