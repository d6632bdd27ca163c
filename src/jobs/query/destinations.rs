//! Whether a `--destination` filter names a destination anything knows (SPEC §5): a typo
//! (`cms-x`) is a usage error naming the known ones, never an empty "all clear".
//!
//! Known: configured, paused (now or ever: its pauses are in the audit log), or holding any
//! job. A configured name costs nothing; any other is one statement of three index probes
//! (`ix_publication_jobs_destination_created`, the primary key of `destination_pauses`,
//! `ix_destination_events_destination`), each stopping at the first row. The list of known
//! names is read only when the name is unknown (a loose index scan, one probe per destination).

use std::collections::BTreeSet;

use tokio_postgres::GenericClient;

use crate::error::{Error, Result};

/// `$1` a destination: whether any job, pause or pause record names it.
pub const KNOWN_DESTINATION_SQL: &str =
    "SELECT EXISTS (SELECT 1 FROM publication_jobs WHERE destination = $1) \
     OR EXISTS (SELECT 1 FROM destination_pauses WHERE destination = $1) \
     OR EXISTS (SELECT 1 FROM destination_events WHERE destination = $1)";

/// Every destination paused now or ever (few rows: one per pause and resume).
const PAUSED_EVER_SQL: &str = "SELECT destination FROM destination_pauses \
     UNION SELECT DISTINCT destination FROM destination_events";

/// Refuse a destination filter nothing knows (exit 2), naming the known destinations.
/// `configured` are the config's names; `config_trouble` why the config was not read, if so.
pub async fn require_known_destination<C: GenericClient>(
    client: &C,
    configured: &BTreeSet<String>,
    config_trouble: Option<&str>,
    name: &str,
) -> Result<()> {
    if configured.contains(name) {
        return Ok(());
    }
    let known: bool = client
        .query_one(KNOWN_DESTINATION_SQL, &[&name])
        .await?
        .try_get(0)?;
    if known {
        return Ok(());
    }
    let mut names = configured.clone();
    names.extend(crate::jobs::pause::destinations_with_jobs(client).await?);
    for row in client.query(PAUSED_EVER_SQL, &[]).await? {
        names.insert(row.try_get(0)?);
    }
    Err(unknown_destination(name, &names, config_trouble))
}

/// The error for a destination nothing knows: at most 30 of the known names.
pub fn unknown_destination(
    name: &str,
    known: &BTreeSet<String>,
    config_trouble: Option<&str>,
) -> Error {
    let shown: Vec<&str> = known.iter().take(30).map(String::as_str).collect();
    let list = if shown.is_empty() {
        "none: no destination is configured, and no job names one".to_string()
    } else if known.len() > shown.len() {
        format!("{}, … ({} in all)", shown.join(", "), known.len())
    } else {
        shown.join(", ")
    };
    let mut err = Error::usage(format!(
        "unknown destination `{}`: it is not configured, not paused, and no job names it",
        crate::escape::escape(&name.chars().take(100).collect::<String>())
    ))
    .hinted(format!("known destinations: {list}"));
    if let Some(why) = config_trouble {
        err = err.hinted(format!("the config was not read: {why}"));
    }
    err
}

/// Destinations with open jobs (any state but accepted), for `destination list`: from the
/// counters (a few rows per destination, however many jobs are open); before they are built,
/// from the partial index of the open states.
pub async fn with_open_jobs<C: GenericClient>(client: &C) -> Result<BTreeSet<String>> {
    let bulk = crate::jobs::State::bulk().literal();
    let counted = crate::jobs::counters::beside_built(
        "c.destination",
        &format!(
            "SELECT destination FROM job_counters WHERE state <> {bulk} \
             GROUP BY destination HAVING sum(n) <> 0"
        ),
        "c",
    );
    let rows = client.query_typed(&counted, &[]).await?;
    if rows
        .first()
        .map_or(Ok(false), |r| r.try_get::<_, bool>(0))?
    {
        return rows
            .iter()
            .filter_map(|r| r.try_get::<_, Option<String>>(1).transpose())
            .map(|d| Ok(d?))
            .collect();
    }
    let rows = client
        .query_typed(
            &format!("SELECT DISTINCT destination FROM publication_jobs WHERE state <> {bulk}"),
            &[],
        )
        .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

/// Destinations paused now (one row each; a shell completes their names).
pub async fn paused_now<C: GenericClient>(client: &C) -> Result<Vec<String>> {
    let rows = client
        .query("SELECT destination FROM destination_pauses", &[])
        .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}
