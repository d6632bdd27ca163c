//! The embedded migrations (refinery), applied in a transaction each, refusing divergent
//! (edited after being applied) or missing ones; and their status, read without writing.

use serde::Serialize;

use crate::error::{Error, Result};

mod embedded {
    refinery::embed_migrations!("migrations");
}

const HISTORY_TABLE: &str = "refinery_schema_history";
/// Two `migrate`s at once would race on the history table; the second waits (lock_timeout).
const MIGRATE_LOCK: i64 = 0x7265_636f_6e63_746c; // "reconctl"

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

/// Apply what is pending. Refuses (exit 2… no: runtime, exit 1) when any applied migration
/// diverges or is missing, before applying anything. Returns the migrations it applied.
pub async fn migrate(client: &mut tokio_postgres::Client) -> Result<Vec<MigrationStatus>> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATE_LOCK])
        .await?;
    let result = migrate_locked(client).await;
    let _ = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATE_LOCK])
        .await;
    result
}

async fn migrate_locked(client: &mut tokio_postgres::Client) -> Result<Vec<MigrationStatus>> {
    let before = status(client).await?;
    refuse_divergent(&before)?;
    let pending: Vec<MigrationStatus> = before
        .into_iter()
        .filter(|m| m.state == MigrationState::Pending)
        .collect();
    if pending.is_empty() {
        return Ok(Vec::new());
    }
    runner().run_async(client).await.map_err(|e| {
        Error::runtime(format!("migration failed: {e}")).hinted(
            "each migration runs in its own transaction: the failed one left nothing behind",
        )
    })?;
    let after = status(client).await?;
    Ok(after
        .into_iter()
        .filter(|m| {
            m.state == MigrationState::Applied && pending.iter().any(|p| p.version == m.version)
        })
        .collect())
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
