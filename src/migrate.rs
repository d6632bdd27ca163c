//! The embedded migrations (refinery), applied in a transaction each, refusing divergent
//! (edited after being applied) or missing ones; and their status, read without writing.

use std::time::Duration;

use serde::Serialize;
use tokio_postgres::error::SqlState;

use crate::error::{Code, Error, Result};

mod embedded {
    refinery::embed_migrations!("migrations");
}

const HISTORY_TABLE: &str = "refinery_schema_history";
/// Two `migrate`s at once would race on the history table; the second waits, bounded.
const MIGRATE_LOCK: i64 = 0x7265_636f_6e63_746c; // "reconctl"

/// How long `migrate` waits for another migrate's lock by default.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MigrationState {
    Applied,
    Pending,
    /// Applied, but the embedded file has changed since.
    Divergent,
    /// Applied in the database, unknown to this binary (a newer reconctl ran?).
    Missing,
}

#[derive(Debug, Clone, Serialize)]
pub struct MigrationStatus {
    pub version: u32,
    pub name: String,
    pub state: MigrationState,
    pub applied_on: Option<String>,
    pub checksum: String,
}

fn runner() -> refinery::Runner {
    embedded::migrations::runner()
        .set_abort_divergent(true)
        .set_abort_missing(true)
}

/// Applied / pending / divergent / missing, without creating anything (works read-only).
pub async fn status(client: &tokio_postgres::Client) -> Result<Vec<MigrationStatus>> {
    let exists: bool = client
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&HISTORY_TABLE])
        .await?
        .get(0);
    let mut applied: Vec<(i32, String, String, String)> = Vec::new();
    if exists {
        for row in client
            .query(
                &format!("SELECT version, name, applied_on, checksum FROM {HISTORY_TABLE} ORDER BY version"),
                &[],
            )
            .await?
        {
            applied.push((row.get(0), row.get(1), row.get(2), row.get(3)));
        }
    }
    let runner = runner();
    let mut out = Vec::new();
    for m in runner.get_migrations() {
        let found = applied.iter().find(|a| a.0 as u32 == m.version());
        let checksum = m.checksum().to_string();
        out.push(match found {
            Some((_, _, on, sum)) => MigrationStatus {
                version: m.version(),
                name: m.name().to_string(),
                state: if *sum == checksum {
                    MigrationState::Applied
                } else {
                    MigrationState::Divergent
                },
                applied_on: Some(on.clone()),
                checksum,
            },
            None => MigrationStatus {
                version: m.version(),
                name: m.name().to_string(),
                state: MigrationState::Pending,
                applied_on: None,
                checksum,
            },
        });
    }
    for (version, name, on, sum) in &applied {
        if !runner
            .get_migrations()
            .iter()
            .any(|m| m.version() == *version as u32)
        {
            out.push(MigrationStatus {
                version: *version as u32,
                name: name.clone(),
                state: MigrationState::Missing,
                applied_on: Some(on.clone()),
                checksum: sum.clone(),
            });
        }
    }
    out.sort_by_key(|m| m.version);
    Ok(out)
}

/// What a `migrate` did: the migrations it applied, then what it built after them, outside
/// their transactions (the index of the expired leases, the counters of an older table), one
/// sentence each.
#[derive(Debug)]
pub struct Migrated {
    pub applied: Vec<MigrationStatus>,
    pub built: Vec<String>,
}

/// Apply what is pending. Refuses (runtime, exit 1) when any applied migration diverges or
/// is missing, before applying anything. Returns the migrations it applied. Waits at most
/// [`LOCK_WAIT`] for another migrate.
pub async fn migrate(client: &mut tokio_postgres::Client) -> Result<Vec<MigrationStatus>> {
    Ok(
        migrate_waiting(client, LOCK_WAIT, |_: Option<&LockHolder>| {})
            .await?
            .applied,
    )
}

/// Apply the migrations up to `version` only (nothing after it, no counters' build): for tests
/// that need a database as an older reconctl left it.
#[doc(hidden)]
pub async fn migrate_to(client: &mut tokio_postgres::Client, version: u32) -> Result<()> {
    runner()
        .set_target(refinery::Target::Version(version))
        .run_async(client)
        .await
        .map_err(|e| Error::runtime(format!("migration failed: {e}")))?;
    Ok(())
}

/// The session holding the migration lock: another `reconctl migrate`, normally.
#[derive(Debug, Clone, Serialize)]
pub struct LockHolder {
    pub pid: i32,
    pub application_name: String,
    pub user: String,
    pub client_addr: Option<String>,
    pub since: Option<String>,
}

impl std::fmt::Display for LockHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let app = if self.application_name.is_empty() {
            "no application_name".to_string()
        } else {
            format!("\"{}\"", self.application_name)
        };
        write!(f, "pid {} ({app}, user {}", self.pid, self.user)?;
        if let Some(addr) = &self.client_addr {
            write!(f, " from {addr}")?;
        }
        if let Some(since) = &self.since {
            write!(f, ", connected since {since}")?;
        }
        f.write_str(")")
    }
}

/// Who holds the migration lock now, if anyone.
pub async fn lock_holder(client: &tokio_postgres::Client) -> Result<Option<LockHolder>> {
    let row = client
        .query_opt(
            "SELECT a.pid, coalesce(a.application_name, ''), coalesce(a.usename::text, ''),
                    host(a.client_addr),
                    to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
               AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND l.classid = ($1::bigint >> 32)::oid AND l.objid = ($1::bigint & 4294967295)::oid
             LIMIT 1",
            &[&MIGRATE_LOCK],
        )
        .await?;
    Ok(row.map(|r| LockHolder {
        pid: r.get(0),
        application_name: r.get(1),
        user: r.get(2),
        client_addr: r.get(3),
        since: r.get(4),
    }))
}

/// [`migrate`], waiting at most `wait` for the migration lock; `on_wait` hears who holds it
/// (when the server shows it) before the wait begins. A wait that runs out is exit 6 (busy:
/// nothing was applied).
pub async fn migrate_waiting(
    client: &mut tokio_postgres::Client,
    wait: Duration,
    on_wait: impl FnOnce(Option<&LockHolder>),
) -> Result<Migrated> {
    let got: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&MIGRATE_LOCK])
        .await?
        .get(0);
    if !got {
        let holder = lock_holder(client).await?;
        on_wait(holder.as_ref());
        // Bounded: this one statement may wait `wait`, whatever the session's limits.
        let ms = wait.as_millis().max(1);
        client
            .batch_execute(&format!(
                "SET lock_timeout = {ms}; SET statement_timeout = {}",
                ms + 1000
            ))
            .await?;
        let locked = client
            .execute("SELECT pg_advisory_lock($1)", &[&MIGRATE_LOCK])
            .await;
        let _ = client
            .batch_execute("RESET lock_timeout; RESET statement_timeout")
            .await;
        if let Err(e) = locked {
            let code = e.as_db_error().map(|d| d.code().clone());
            if code == Some(SqlState::LOCK_NOT_AVAILABLE) || code == Some(SqlState::QUERY_CANCELED)
            {
                let who = holder.map_or_else(
                    || "another session".to_string(),
                    |h| format!("another migrate, {h},"),
                );
                return Err(Error::new(
                    Code::MigrateLocked,
                    format!(
                        "{who} held the migration lock for longer than {}; nothing was applied",
                        crate::duration::format_duration(wait)
                    ),
                )
                .hinted("let it finish, then run `reconctl migrate` again (it is safe to re-run); --lock-timeout sets how long to wait"));
            }
            return Err(e.into());
        }
    }
    let result = migrate_locked(client).await;
    let _ = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATE_LOCK])
        .await;
    result
}

/// Whether this database holds reconctl's schema (or the start of it).
pub async fn has_schema(client: &tokio_postgres::Client) -> Result<bool> {
    Ok(client
        .query_one(
            "SELECT to_regclass($1) IS NOT NULL OR to_regclass('publication_jobs') IS NOT NULL",
            &[&HISTORY_TABLE],
        )
        .await?
        .get(0))
}

/// Tables of others in this database (outside the system schemas): a database in use for
/// something else, perhaps not the one meant.
pub async fn other_tables(client: &tokio_postgres::Client) -> Result<i64> {
    Ok(client
        .query_one(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm')
               AND n.nspname NOT IN ('pg_catalog', 'information_schema')
               AND n.nspname NOT LIKE 'pg\\_%'",
            &[],
        )
        .await?
        .get(0))
}

/// Where a session really is, as the server says.
#[derive(Debug, Clone, Serialize)]
pub struct ServerSide {
    pub user: String,
    pub database: String,
    /// The server's port setting (also for a Unix-socket session).
    pub port: i32,
    pub application_name: String,
}

pub async fn server_side(client: &tokio_postgres::Client) -> Result<ServerSide> {
    let r = client
        .query_one(
            "SELECT current_user::text, current_database()::text,
                    current_setting('port')::int, current_setting('application_name')",
            &[],
        )
        .await?;
    Ok(ServerSide {
        user: r.get(0),
        database: r.get(1),
        port: r.get(2),
        application_name: r.get(3),
    })
}

async fn migrate_locked(client: &mut tokio_postgres::Client) -> Result<Migrated> {
    let before = status(client).await?;
    refuse_divergent(&before)?;
    let pending: Vec<MigrationStatus> = before
        .into_iter()
        .filter(|m| m.state == MigrationState::Pending)
        .collect();
    if pending.is_empty() {
        // Every migrate keeps the coming months' partitions of the audit log ready.
        crate::retention::ensure_partitions(&*client).await?;
        let built = after_migrations(client).await?;
        return Ok(Migrated {
            applied: Vec::new(),
            built,
        });
    }
    // V11 partitions the audit log: what would make its lock long is built first, outside
    // any transaction and beside the writers (crate::retention).
    let partitioning = pending
        .iter()
        .any(|m| m.version == crate::retention::PARTITIONING_VERSION);
    let result = if partitioning {
        match runner()
            .set_target(refinery::Target::Version(
                crate::retention::PARTITIONING_VERSION - 1,
            ))
            .run_async(client)
            .await
        {
            Ok(_) => {
                crate::retention::prepare(client).await?;
                runner().run_async(client).await
            }
            Err(e) => Err(e),
        }
    } else {
        runner().run_async(client).await
    };
    result.map_err(|e| {
        // refinery's message hides the server's ("db error"): add the causes.
        let mut message = format!("migration failed: {e}");
        // A lock or statement timeout is busy (exit 6), as everywhere: nothing was applied.
        let mut busy = false;
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            let text = match s.downcast_ref::<tokio_postgres::Error>() {
                Some(pg) => {
                    let cause = crate::error::db_error(pg);
                    busy |= cause.kind() == crate::error::Kind::Busy;
                    cause.message().to_string()
                }
                None => s.to_string(),
            };
            if !message.contains(&text) {
                message.push_str(": ");
                message.push_str(&text);
            }
            source = s.source();
        }
        let hint = "each migration runs in its own transaction: the failed one left nothing behind";
        if busy {
            Error::busy(message)
                .rehinted(hint)
                .hinted("run it again when the database is less busy, or raise --statement-timeout / --lock-timeout")
        } else {
            Error::runtime(message).hinted(hint)
        }
    })?;
    crate::retention::ensure_partitions(&*client).await?;
    let built = after_migrations(client).await?;
    let after = status(client).await?;
    let applied = after
        .into_iter()
        .filter(|m| {
            m.state == MigrationState::Applied && pending.iter().any(|p| p.version == m.version)
        })
        .collect();
    Ok(Migrated { applied, built })
}

/// The expired leases per destination (`status -v`, `metrics`, `check`), read from an index
/// only: in-flight jobs by destination, then lease expiry, so each destination's oldest
/// expired lease is one probe, whatever the other destinations hold. Built CONCURRENTLY
/// (writers go on), so not in a migration (refinery runs each in a transaction, where CREATE
/// INDEX holds a lock that stops every writer while it reads the whole table).
pub const LEASE_DESTINATION_INDEX: &str = "ix_publication_jobs_lease_by_destination";

/// Its predecessor, by lease expiry then destination: a destination's oldest expired lease
/// was found by walking every older expired lease of the others (21 ms at 10M jobs with
/// 50 000 expired). Dropped (CONCURRENTLY) once the new one is built.
const LEASE_DESTINATION_INDEX_BEFORE: &str = "ix_publication_jobs_lease_destination";

/// Whether `migrate` builds the index `name` itself after the migrations (so running it again
/// builds one that is missing or invalid), rather than a migration.
pub fn builds_index(name: &str) -> bool {
    name == LEASE_DESTINATION_INDEX
}

/// What `migrate` does after the migrations, outside their transactions, so as not to stop
/// the workers: the index of the expired leases, the counters' build. Each is done once;
/// an interrupted one is finished by the next `migrate`. Returns what it did, one sentence
/// each (nothing when all was in place), so that a `migrate` with no migration to apply
/// does not say "nothing to apply" after building an index for seconds.
async fn after_migrations(client: &mut tokio_postgres::Client) -> Result<Vec<String>> {
    let mut built = Vec::new();
    let present: bool = client
        .query_one("SELECT to_regclass('job_counters_build') IS NOT NULL", &[])
        .await?
        .get(0);
    if !present {
        return Ok(built); // migrated to an older version only
    }
    // An interrupted CREATE INDEX CONCURRENTLY leaves an invalid index: dropped, rebuilt.
    let valid: Option<bool> = client
        .query_opt(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE c.relname = $1 AND pg_table_is_visible(c.oid)",
            &[&LEASE_DESTINATION_INDEX],
        )
        .await?
        .map(|r| r.get(0));
    if valid == Some(false) {
        client
            .batch_execute(&format!(
                "DROP INDEX CONCURRENTLY IF EXISTS {LEASE_DESTINATION_INDEX}"
            ))
            .await?;
        built.push(format!(
            "dropped index {LEASE_DESTINATION_INDEX}: invalid (a build was interrupted)"
        ));
    }
    if valid != Some(true) {
        client
            .batch_execute(&format!(
                "CREATE INDEX CONCURRENTLY IF NOT EXISTS {LEASE_DESTINATION_INDEX}
                     ON publication_jobs (destination, lease_expires_at) WHERE state = 'in_flight'"
            ))
            .await
            .map_err(|e| {
                Error::from(e).hinted("the index of the expired leases is not built yet; run `reconctl migrate` again (with a longer --statement-timeout on a large table)")
            })?;
        built.push(format!(
            "built index {LEASE_DESTINATION_INDEX} CONCURRENTLY"
        ));
    }
    let before: bool = client
        .query_one(
            "SELECT to_regclass($1) IS NOT NULL",
            &[&LEASE_DESTINATION_INDEX_BEFORE],
        )
        .await?
        .get(0);
    if before {
        client
            .batch_execute(&format!(
                "DROP INDEX CONCURRENTLY IF EXISTS {LEASE_DESTINATION_INDEX_BEFORE}"
            ))
            .await?;
        built.push(format!(
            "dropped index {LEASE_DESTINATION_INDEX_BEFORE}: replaced by {LEASE_DESTINATION_INDEX}"
        ));
    }
    if build_counters(client).await? {
        built.push("built the job counters of the jobs written before V10".to_string());
    }
    Ok(built)
}

/// After V10 (job_counters) on a table that already held jobs: count them, concurrently with
/// the workers, into the counters' base (see [`crate::jobs::counters`]). Not part of the
/// migration itself: refinery runs a migration in one transaction, and the triggers' lock
/// would stop every writer for the whole count. Runs on every `migrate` until it has
/// succeeded once, so an interrupted or timed-out build is finished by running `migrate`
/// again; under the migration lock, so two never race. Whether it built them (false: they
/// were built already).
async fn build_counters(client: &mut tokio_postgres::Client) -> Result<bool> {
    if crate::jobs::counters::is_built(&*client).await? {
        return Ok(false);
    }
    crate::jobs::counters::recount(&*client, None)
        .await
        .map_err(|e| {
            e.hinted("the counters of the jobs written before migration V10 are not built yet (status shows accepted as unknown); run `reconctl migrate` again, with a longer --statement-timeout on a large table")
        })?;
    Ok(true)
}

pub fn refuse_divergent(status: &[MigrationStatus]) -> Result<()> {
    if let Some(bad) = status
        .iter()
        .find(|m| matches!(m.state, MigrationState::Divergent | MigrationState::Missing))
    {
        let what = match bad.state {
            MigrationState::Divergent => "was changed after it was applied",
            _ => "is applied in the database but unknown to this reconctl",
        };
        return Err(Error::runtime(format!(
            "migration V{}__{} {what}; refusing to migrate",
            bad.version, bad.name
        ))
        .hinted("run `reconctl migrate status`; use the reconctl release that applied it"));
    }
    Ok(())
}
