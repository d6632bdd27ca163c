//! What the migrations create, as the rest of the code needs to know it: the names of the
//! indexes `doctor` checks, and how to read their state from the catalog. Kept beside
//! `migrate` (and tested against a freshly migrated catalog in tests/it/inspect/doctor.rs),
//! so the knowledge of the schema lives in one place next to the SQL that makes it.

use serde::Serialize;
use tokio_postgres::GenericClient;

use crate::error::Result;

/// The tables the migrations create: a command that finds none of them is pointed at the
/// wrong database, or one never migrated.
pub const TABLES: &[&str] = &[
    "publication_jobs",
    "job_events",
    "destination_pauses",
    "destination_events",
    // V6: the destinations of the events written before it.
    "job_event_destinations",
    // V7: what a claim in REPEATABLE READ or SERIALIZABLE locks to learn of a later pause.
    "destination_pause_clock",
    // V9: plans, their items and their lifecycle (SPEC §8).
    "plans",
    "plan_items",
    "plan_events",
    // V10: exact counts per state and destination, whether they are built, their repairs.
    "job_counters",
    "job_counters_build",
    "job_counters_repairs",
    // V11: what `events archive` wrote and what `events prune` dropped (the logs' monthly
    // partitions are not listed: they come and go).
    "event_archives",
    "event_prunes",
    // V16: the acceptances check's out-of-order search reads, and since when they are kept.
    "job_order_suspects",
    "job_order_watch",
    // V17: the recent moves per 10-second tick, action and destination (status -v, metrics).
    "job_move_counters",
    // V19: the same per minute, of the folded ticks.
    "job_move_minutes",
];

/// Every index the migrations create and whether it must be unique: the two unique ones
/// decide races (one job per intent, one job per external_ref); the others keep every
/// inspection query, claim and sweep off a scan of the whole table. A test compares this list
/// with the catalog of a freshly migrated database, so a new migration's index cannot be
/// forgotten here.
pub const EXPECTED_INDEXES: &[(&str, bool)] = &[
    ("ux_publication_jobs_identity", true),
    ("ux_publication_jobs_external_ref", true),
    ("ix_publication_jobs_created", false),
    ("ix_publication_jobs_destination_created", false),
    ("ix_publication_jobs_open_created", false),
    ("ix_publication_jobs_open_state_age", false),
    ("ix_publication_jobs_lease", false),
    ("ix_job_events_job", false),
    // V3
    ("ix_publication_jobs_claimable", false),
    // V4
    ("ix_publication_jobs_tenant_created", false),
    ("ix_publication_jobs_article_created", false),
    // V5
    ("ix_destination_events_destination", false),
    // V6
    ("ix_job_events_at", false),
    ("ix_job_events_actor", false),
    ("ix_job_events_action", false),
    ("ix_job_events_destination", false),
    ("ix_job_events_xid", false),
    ("ix_job_event_destinations_destination", false),
    ("ix_destination_events_at", false),
    ("ix_destination_events_xid", false),
    // V8
    ("ix_publication_jobs_destination_remote_id", false),
    // V9
    ("plan_items_job_unique", true),
    ("ix_plans_created", false),
    ("ix_plan_items_open", false),
    ("ix_plan_events_plan", false),
    // Built concurrently by `migrate` after the migrations (src/migrate.rs; since V10, by
    // destination first since V16).
    ("ix_publication_jobs_lease_by_destination", false),
    // V13
    ("ix_plan_events_at", false),
    // V16
    ("ix_job_order_suspects_accepted", false),
    // V17
    ("ix_job_move_counters_unfolded", false),
    // V20
    ("ix_job_counters_unfolded", false),
];

/// The server's version string (`SHOW server_version`), for `doctor`.
pub async fn server_version<C: GenericClient>(client: &C) -> Result<String> {
    Ok(client
        .query_one("SHOW server_version", &[])
        .await?
        .try_get(0)?)
}

/// What the catalog says about one expected index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexStatus {
    pub name: String,
    pub present: bool,
    pub unique: bool,
    /// False after a failed `CREATE INDEX CONCURRENTLY`: present but unused.
    pub valid: bool,
    pub must_be_unique: bool,
}

impl IndexStatus {
    pub fn ok(&self) -> bool {
        self.present && self.valid && (self.unique || !self.must_be_unique)
    }
}

pub async fn index_status<C: GenericClient>(client: &C) -> Result<Vec<IndexStatus>> {
    let names: Vec<&str> = EXPECTED_INDEXES.iter().map(|(n, _)| *n).collect();
    let rows = client
        .query(
            "SELECT c.relname::text, i.indisunique, i.indisvalid \
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             WHERE c.relname::text = ANY($1::text[]) AND pg_table_is_visible(c.oid)",
            &[&names],
        )
        .await?;
    Ok(EXPECTED_INDEXES
        .iter()
        .map(|(name, must_be_unique)| {
            let row = rows.iter().find(|r| r.get::<_, String>(0) == *name);
            IndexStatus {
                name: name.to_string(),
                present: row.is_some(),
                unique: row.is_some_and(|r| r.get(1)),
                valid: row.is_some_and(|r| r.get(2)),
                must_be_unique: *must_be_unique,
            }
        })
        .collect())
}
