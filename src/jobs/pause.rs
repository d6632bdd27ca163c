//! Pausing a destination (SPEC §6): while a CMS is failing, workers claim none of its jobs,
//! and everyone can see who paused it, why, since when and until when.
//!
//! Each change is one statement that writes the change and its `destination_events` row
//! together (pause and repause: an upsert; resume and expiry: a `DELETE … RETURNING` feeding
//! the INSERT), so the audit log can never miss or double a change: two resumes, or two
//! commands noticing the same expiry at once, delete the row once and record it once.
//!
//! **Why a pause takes a lock.** A worker's claim is one statement whose snapshot is taken
//! when it starts; a claim that started just before a pause committed would not see the pause
//! and could still hand out a job of the paused destination, after the operator was told
//! "paused". So a pause first takes `ACCESS EXCLUSIVE` on `destination_pauses` (held until its
//! commit): every claim reads that table (the SPEC predicate), so the pause waits for the
//! claims in progress to commit, and claims that start meanwhile wait for the pause; their
//! snapshot is taken after that wait, so they see it. Every claim therefore either committed
//! before the pause or sees it: none is granted after it. The wait is as long as the slowest
//! claim in progress (milliseconds), bounded by the lock timeout (exit 6, nothing changed).
//! Resumes and expiries need no lock: a claim that misses one only waits for the next claim.
//!
//! **Claims in REPEATABLE READ or SERIALIZABLE.** Such a claim reads in its transaction's
//! snapshot, which may predate the pause: the lock above cannot help it. So a pause also
//! updates the one row of `destination_pause_clock` (migrations/V7), and such a claim locks
//! that row `FOR SHARE` ([`crate::jobs::worker::claim_sql`]): PostgreSQL refuses to lock a row
//! updated after the transaction's snapshot (SQLSTATE 40001), so the claim is refused rather
//! than blind; its worker claims again in a new transaction, which sees the pause. Refusing
//! is the only choice: inside that transaction no statement can see the pause, so a re-check
//! there would read the same old snapshot.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::{GenericClient, Row};

use super::model::{rfc3339, rfc3339_opt};
use crate::error::{Error, Result};

/// SPEC §6's predicate, for a claim over `publication_jobs j`: no pause of the job's
/// destination is in force. Workers outside this crate use exactly this text; the library's
/// claim does too ([`crate::jobs::worker::claim_sql`]).
pub const NOT_PAUSED: &str = "NOT EXISTS (SELECT 1 FROM destination_pauses p WHERE p.destination = j.destination AND (p.until IS NULL OR p.until > now()))";

/// What `destination_events.action` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseAction {
    /// A destination that was not paused is paused.
    Pause,
    /// A paused destination's reason or end changed.
    Repause,
    /// Someone ended a pause.
    Resume,
    /// A pause's `until` passed; recorded by the first command that noticed.
    Expire,
}

impl PauseAction {
    pub const ALL: [PauseAction; 4] = [
        PauseAction::Pause,
        PauseAction::Repause,
        PauseAction::Resume,
        PauseAction::Expire,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PauseAction::Pause => "pause",
            PauseAction::Repause => "repause",
            PauseAction::Resume => "resume",
            PauseAction::Expire => "expire",
        }
    }

    /// As an SQL string literal (see [`crate::jobs::State::literal`]).
    pub fn literal(self) -> String {
        format!("'{}'", self.as_str())
    }
}

impl std::fmt::Display for PauseAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The columns of `destination_pauses`.
pub const PAUSE_COLUMNS: &str = "destination, reason, actor, since, until, updated_at";
const PAUSE_COLUMN_COUNT: usize = 6;

/// The columns of `destination_events`.
pub const DESTINATION_EVENT_COLUMNS: &str =
    "id, destination, at, actor, action, reason, until, evidence";

/// One paused destination, as `destination_pauses` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pause {
    pub destination: String,
    pub reason: String,
    /// Who paused it (or last changed the pause).
    pub actor: String,
    #[serde(serialize_with = "rfc3339")]
    pub since: DateTime<Utc>,
    /// `None`: until someone resumes it.
    #[serde(serialize_with = "rfc3339_opt")]
    pub until: Option<DateTime<Utc>>,
    #[serde(serialize_with = "rfc3339")]
    pub updated_at: DateTime<Utc>,
}

impl Pause {
    fn from_row_at(row: &Row, offset: usize) -> Result<Pause> {
        Ok(Pause {
            destination: row.try_get(offset)?,
            reason: row.try_get(offset + 1)?,
            actor: row.try_get(offset + 2)?,
            since: row.try_get(offset + 3)?,
            until: row.try_get(offset + 4)?,
            updated_at: row.try_get(offset + 5)?,
        })
    }

    /// In force at `now`: the predicate's `until IS NULL OR until > now()`.
    pub fn in_force(&self, now: DateTime<Utc>) -> bool {
        self.until.map_or(true, |u| u > now)
    }

    /// How long it has been paused, as of `now`.
    pub fn age(&self, now: DateTime<Utc>) -> Duration {
        (now - self.since).to_std().unwrap_or_default()
    }
}

/// One row of `destination_events`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DestinationEvent {
    pub id: i64,
    pub destination: String,
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: String,
    pub reason: Option<String>,
    /// The pause's end as it is after this event (`None` after a resume or an expiry, and
    /// for a pause until resumed).
    #[serde(serialize_with = "rfc3339_opt")]
    pub until: Option<DateTime<Utc>>,
    pub evidence: Value,
}

impl DestinationEvent {
    fn from_row_at(row: &Row, offset: usize) -> Result<DestinationEvent> {
        Ok(DestinationEvent {
            id: row.try_get(offset)?,
            destination: row.try_get(offset + 1)?,
            at: row.try_get(offset + 2)?,
            actor: row.try_get(offset + 3)?,
            action: row.try_get(offset + 4)?,
            reason: row.try_get(offset + 5)?,
            until: row.try_get(offset + 6)?,
            evidence: row.try_get(offset + 7)?,
        })
    }
}

/// The pause a resume or an expiry ended, as its event's evidence records it.
fn ended_evidence(alias: &str) -> String {
    format!(
        "jsonb_build_object('paused_by', {alias}.actor, 'since', {alias}.since, 'until', {alias}.until, 'reason', {alias}.reason)"
    )
}

/// `$1` actor. Every pause whose `until` has passed ends: its row is deleted and its `expire`
/// event written, in one statement. Two commands running it at once delete each row once
/// (the second waits for the first's row lock, then finds the row gone), so each expiry is
/// recorded exactly once.
pub fn expire_sql() -> String {
    format!(
        "WITH gone AS (
            DELETE FROM destination_pauses WHERE until IS NOT NULL AND until <= now()
            RETURNING {PAUSE_COLUMNS}
        ), ev AS (
            INSERT INTO destination_events (destination, actor, action, reason, until, evidence)
            SELECT g.destination, $1, {expire}, NULL, NULL, {evidence}
            FROM gone g ORDER BY g.destination
            RETURNING {DESTINATION_EVENT_COLUMNS}
        )
        SELECT {gone}, {ev} FROM gone g JOIN ev ON ev.destination = g.destination
        ORDER BY g.destination",
        expire = PauseAction::Expire.literal(),
        evidence = ended_evidence("g"),
        gone = prefixed("g", PAUSE_COLUMNS),
        ev = prefixed("ev", DESTINATION_EVENT_COLUMNS),
    )
}

/// `$1` destination, `$2` reason, `$3` actor, `$4` seconds until it ends (NULL: until
/// resumed). Pauses, or changes the pause of, one destination; `since` stays when the pause
/// only changes. Run after [`LOCK_SQL`] in the same transaction: under that lock no other
/// change of `destination_pauses` can interleave, so `prev` is the row the upsert meets.
pub fn pause_sql() -> String {
    format!(
        "WITH prev AS (
            SELECT {PAUSE_COLUMNS} FROM destination_pauses WHERE destination = $1
        ), up AS (
            INSERT INTO destination_pauses AS p (destination, reason, actor, until)
            VALUES ($1, $2, $3, now() + make_interval(secs => $4::float8))
            ON CONFLICT (destination) DO UPDATE
                SET reason = EXCLUDED.reason, actor = EXCLUDED.actor, until = EXCLUDED.until,
                    updated_at = now()
            RETURNING {PAUSE_COLUMNS}
        ), ev AS (
            INSERT INTO destination_events (destination, actor, action, reason, until, evidence)
            SELECT up.destination, $3,
                   CASE WHEN EXISTS (SELECT 1 FROM prev) THEN {repause} ELSE {pause} END,
                   up.reason, up.until,
                   COALESCE((SELECT jsonb_build_object('previous', jsonb_build_object(
                                 'reason', prev.reason, 'actor', prev.actor, 'until', prev.until))
                             FROM prev), '{{}}'::jsonb)
                   || jsonb_build_object('for_seconds', $4::float8)
            FROM up
            RETURNING {DESTINATION_EVENT_COLUMNS}
        )
        SELECT {up}, {ev} FROM up, ev",
        pause = PauseAction::Pause.literal(),
        repause = PauseAction::Repause.literal(),
        up = prefixed("up", PAUSE_COLUMNS),
        ev = prefixed("ev", DESTINATION_EVENT_COLUMNS),
    )
}

/// See the module's "Why a pause takes a lock" and "Claims in REPEATABLE READ or
/// SERIALIZABLE": the table lock, then the clock row a claim in a snapshot transaction locks.
pub const LOCK_SQL: &str = "LOCK TABLE destination_pauses IN ACCESS EXCLUSIVE MODE; \
    UPDATE destination_pause_clock SET pauses = pauses + 1, changed_at = now()";

/// `$1` destination, `$2` reason, `$3` actor. Ends a pause in force and records the resume,
/// in one statement; nothing (no row) when the destination is not paused.
pub fn resume_sql() -> String {
    format!(
        "WITH gone AS (
            DELETE FROM destination_pauses
            WHERE destination = $1 AND (until IS NULL OR until > now())
            RETURNING {PAUSE_COLUMNS}
        ), ev AS (
            INSERT INTO destination_events (destination, actor, action, reason, until, evidence)
            SELECT g.destination, $3, {resume}, $2, NULL, {evidence}
            FROM gone g
            RETURNING {DESTINATION_EVENT_COLUMNS}
        )
        SELECT {gone}, {ev} FROM gone g, ev",
        resume = PauseAction::Resume.literal(),
        evidence = ended_evidence("g"),
        gone = prefixed("g", PAUSE_COLUMNS),
        ev = prefixed("ev", DESTINATION_EVENT_COLUMNS),
    )
}

fn prefixed(alias: &str, columns: &str) -> String {
    columns
        .split(", ")
        .map(|c| format!("{alias}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The database's clock, whether this session may record an expiry (a reader or a worker,
/// or a read-only session such as a standby or `--read-only`, only shows it), then every
/// pause row (in force or expired but not yet recorded), by destination. One statement:
/// there is always a row, its pause columns NULL when no destination is paused. The
/// privileges are asked only when an expiry is due (`until` at or before the same `now()`
/// that [`Pause::in_force`] is given), false otherwise: asking costs a fresh session a lookup
/// of `destination_events` that nothing else in `status`, `check` or `metrics` reads.
const OBSERVE_SQL: &str = "SELECT f.now, f.may_record, \
     p.destination, p.reason, p.actor, p.since, p.until, p.updated_at \
     FROM (SELECT now() AS now, \
                  CASE WHEN EXISTS (SELECT 1 FROM destination_pauses e WHERE e.until <= now()) \
                       THEN has_table_privilege('destination_pauses', 'DELETE') \
                            AND has_table_privilege('destination_events', 'INSERT') \
                            AND current_setting('transaction_read_only') = 'off' \
                       ELSE false END AS may_record) f \
     LEFT JOIN destination_pauses p ON true ORDER BY p.destination";

/// [`OBSERVE_SQL`]: the clock, whether this session may record, every pause row.
async fn read_pauses<C: GenericClient>(client: &C) -> Result<(DateTime<Utc>, bool, Vec<Pause>)> {
    let rows = client.query_typed(OBSERVE_SQL, &[]).await?;
    let first = rows
        .first()
        .ok_or_else(|| Error::bug("the pauses' statement returned no row"))?;
    let mut pauses = Vec::with_capacity(rows.len());
    for r in &rows {
        if r.try_get::<_, Option<&str>>(2)?.is_some() {
            pauses.push(Pause::from_row_at(r, 2)?);
        }
    }
    Ok((first.try_get(0)?, first.try_get(1)?, pauses))
}

/// A pause that ended by itself, and its `expire` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expiry {
    pub pause: Pause,
    pub event: DestinationEvent,
}

/// Record every expiry that is due (`$1` actor); returns those this call recorded.
pub async fn record_expiries<C: GenericClient>(client: &C, actor: &str) -> Result<Vec<Expiry>> {
    let rows = client.query(&expire_sql(), &[&actor]).await?;
    rows.iter()
        .map(|r| {
            Ok(Expiry {
                pause: Pause::from_row_at(r, 0)?,
                event: DestinationEvent::from_row_at(r, PAUSE_COLUMN_COUNT)?,
            })
        })
        .collect()
}

/// The pauses as a command sees them, after recording any expiry it noticed (when it may).
#[derive(Debug, Clone)]
pub struct Pauses {
    /// The database's clock when they were read.
    pub now: DateTime<Utc>,
    /// In force: workers claim none of these destinations' jobs. By destination.
    pub in_force: Vec<Pause>,
    /// Ended by their `until` but still in the table: this session may not record the
    /// expiry (a reader, a standby). Over all the same.
    pub expired: Vec<Pause>,
    /// Expiries this call recorded.
    pub recorded: Vec<Expiry>,
}

impl Pauses {
    /// The pause in force for `destination`, if any.
    pub fn of(&self, destination: &str) -> Option<&Pause> {
        self.in_force.iter().find(|p| p.destination == destination)
    }

    /// The expired, unrecorded pause of `destination`, if any.
    pub fn expired_of(&self, destination: &str) -> Option<&Pause> {
        self.expired.iter().find(|p| p.destination == destination)
    }

    pub fn is_paused(&self, destination: &str) -> bool {
        self.of(destination).is_some()
    }
}

/// Read the pauses; when some have expired and this session may write, record their expiry
/// first (exactly once, whoever else notices at the same moment). What `status`,
/// `destination list`, `check` and `metrics` call.
pub async fn observe<C: GenericClient>(client: &C, actor: &str) -> Result<Pauses> {
    let (mut now, may_record, mut all) = read_pauses(client).await?;
    let mut recorded = Vec::new();
    if may_record && all.iter().any(|p| !p.in_force(now)) {
        recorded = record_expiries(client, actor).await?;
        // Read again: the expiry statement's clock is later, and another command may have
        // changed a pause meanwhile.
        (now, _, all) = read_pauses(client).await?;
    }
    let (in_force, expired) = all.into_iter().partition(|p| p.in_force(now));
    Ok(Pauses {
        now,
        in_force,
        expired,
        recorded,
    })
}

/// The pauses in force now (read only; nothing recorded): for the lists that mark a paused
/// destination's jobs.
pub async fn in_force<C: GenericClient>(client: &C) -> Result<Vec<Pause>> {
    let rows = client
        .query(
            &format!(
                "SELECT {PAUSE_COLUMNS} FROM destination_pauses \
                 WHERE until IS NULL OR until > now() ORDER BY destination"
            ),
            &[],
        )
        .await?;
    rows.iter().map(|r| Pause::from_row_at(r, 0)).collect()
}

/// What a pause did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paused {
    pub pause: Pause,
    pub event: DestinationEvent,
    /// Expiries recorded on the way (a leftover expired pause of this destination is
    /// recorded as expired before the new pause starts).
    pub expired: Vec<Expiry>,
}

/// Pause `destination` (or change its pause): `reason`, and `for_` how long (None: until
/// resumed). Must run inside a transaction (it locks `destination_pauses` until the commit,
/// see the module's comment; outside one PostgreSQL refuses the LOCK); the caller commits,
/// or rolls back for a dry run.
pub async fn pause<C: GenericClient>(
    tx: &C,
    destination: &str,
    reason: &str,
    for_: Option<Duration>,
    actor: &str,
) -> Result<Paused> {
    let reason = validate_reason(reason)?;
    if let Some(d) = for_ {
        if d < Duration::from_secs(1) {
            return Err(Error::usage(
                "--for must be at least 1s (omit it to pause until resumed)",
            ));
        }
    }
    tx.batch_execute(LOCK_SQL).await?;
    let expired = record_expiries(tx, actor).await?;
    let secs = for_.map(|d| d.as_secs_f64());
    let row = tx
        .query_one(&pause_sql(), &[&destination, &reason, &actor, &secs])
        .await?;
    Ok(Paused {
        pause: Pause::from_row_at(&row, 0)?,
        event: DestinationEvent::from_row_at(&row, PAUSE_COLUMN_COUNT)?,
        expired,
    })
}

/// What a resume did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resumed {
    /// The pause it ended and its `resume` event; `None`: the destination was not paused
    /// (no change, no event).
    pub ended: Option<(Pause, DestinationEvent)>,
    /// Expiries recorded on the way: a pause of this destination that had already ended by
    /// itself is recorded as expired, not as resumed.
    pub expired: Vec<Expiry>,
}

/// Resume `destination`. Resuming one that is not paused changes nothing (no event).
pub async fn resume<C: GenericClient>(
    client: &C,
    destination: &str,
    reason: &str,
    actor: &str,
) -> Result<Resumed> {
    let reason = validate_reason(reason)?;
    let expired = record_expiries(client, actor).await?;
    let rows = client
        .query(&resume_sql(), &[&destination, &reason, &actor])
        .await?;
    let ended = match rows.first() {
        Some(row) => Some((
            Pause::from_row_at(row, 0)?,
            DestinationEvent::from_row_at(row, PAUSE_COLUMN_COUNT)?,
        )),
        None => None,
    };
    Ok(Resumed { ended, expired })
}

fn validate_reason(reason: &str) -> Result<&str> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::usage(
            "--reason must say why (it is recorded, and shown to everyone who looks)",
        ));
    }
    Ok(reason)
}

/// Every destination that has jobs in the table, in any state: a loose index scan of
/// `ix_publication_jobs_destination_created` (one probe per destination), not a scan of
/// millions of rows.
pub const DESTINATIONS_WITH_JOBS_SQL: &str = "WITH RECURSIVE d AS (
        (SELECT destination FROM publication_jobs ORDER BY destination LIMIT 1)
        UNION ALL
        SELECT (SELECT j.destination FROM publication_jobs j WHERE j.destination > d.destination
                ORDER BY j.destination LIMIT 1)
        FROM d WHERE d.destination IS NOT NULL
    )
    SELECT destination FROM d WHERE destination IS NOT NULL";

pub async fn destinations_with_jobs<C: GenericClient>(client: &C) -> Result<Vec<String>> {
    let rows = client.query(DESTINATIONS_WITH_JOBS_SQL, &[]).await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

/// Whether any job (in any state) names `destination`.
pub async fn has_jobs<C: GenericClient>(client: &C, destination: &str) -> Result<bool> {
    Ok(client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM publication_jobs WHERE destination = $1)",
            &[&destination],
        )
        .await?
        .try_get(0)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_predicate_is_spec_section_6_word_for_word() {
        assert_eq!(
            NOT_PAUSED,
            "NOT EXISTS (SELECT 1 FROM destination_pauses p WHERE p.destination = j.destination AND (p.until IS NULL OR p.until > now()))"
        );
    }

    #[test]
    fn actions_are_the_schema_check_constraint() {
        let v5 = include_str!("../../migrations/V5__destination_pauses.sql");
        let names: Vec<String> = PauseAction::ALL.iter().map(|a| a.literal()).collect();
        assert!(
            v5.contains(&format!("CHECK (action IN ({}))", names.join(", "))),
            "{names:?}"
        );
    }

    #[test]
    fn statements_render_the_action_names() {
        assert!(pause_sql().contains("'repause'") && pause_sql().contains("'pause'"));
        assert!(resume_sql().contains("'resume'"));
        assert!(expire_sql().contains("'expire'"));
    }
}
