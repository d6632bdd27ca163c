//! A job and an event as the database holds them, and as JSON shows them (SPEC §5: every
//! column under its column name, timestamps RFC 3339 UTC).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Serialize, Serializer};
use tokio_postgres::Row;
use uuid::Uuid;

use super::{Action, State};
use crate::error::{Error, Result};

/// The columns of `publication_jobs`, in SPEC §1 order; every query selects exactly these.
pub const JOB_COLUMNS: &str = "id, tenant_id, article_id, revision_id, destination, external_ref, \
     payload_hash, state, version, attempts, lease_owner, lease_expires_at, sent_at, remote_id, \
     last_error, created_at, updated_at, state_changed_at";

/// The columns of `job_events`, in SPEC §1 order.
pub const EVENT_COLUMNS: &str = "id, job_id, at, actor, action, from_state, to_state, \
     from_version, to_version, reason, evidence";

/// `columns` (one of the lists above) each qualified by `alias`: `moved.id, moved.tenant_id, …`,
/// for a statement that returns a job and its event side by side.
pub fn qualified(columns: &str, alias: &str) -> String {
    columns
        .split(',')
        .map(|c| format!("{alias}.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn rfc3339<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::Micros, true))
}

pub fn rfc3339_opt<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => rfc3339(t, s),
        None => s.serialize_none(),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    pub id: Uuid,
    pub tenant_id: String,
    pub article_id: String,
    pub revision_id: String,
    pub destination: String,
    pub external_ref: String,
    pub payload_hash: String,
    pub state: State,
    pub version: i64,
    pub attempts: i32,
    pub lease_owner: Option<String>,
    #[serde(serialize_with = "rfc3339_opt")]
    pub lease_expires_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "rfc3339_opt")]
    pub sent_at: Option<DateTime<Utc>>,
    pub remote_id: Option<String>,
    pub last_error: Option<String>,
    #[serde(serialize_with = "rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339")]
    pub updated_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339")]
    pub state_changed_at: DateTime<Utc>,
}

impl Job {
    /// Reads a job from a row whose first columns are [`JOB_COLUMNS`] (from `offset`).
    pub fn from_row_at(row: &Row, offset: usize) -> Result<Job> {
        let state: String = row.try_get(offset + 7)?;
        Ok(Job {
            id: row.try_get(offset)?,
            tenant_id: row.try_get(offset + 1)?,
            article_id: row.try_get(offset + 2)?,
            revision_id: row.try_get(offset + 3)?,
            destination: row.try_get(offset + 4)?,
            external_ref: row.try_get(offset + 5)?,
            payload_hash: row.try_get(offset + 6)?,
            state: state
                .parse()
                .map_err(|e| Error::bug(format!("job row has {e}")))?,
            version: row.try_get(offset + 8)?,
            attempts: row.try_get(offset + 9)?,
            lease_owner: row.try_get(offset + 10)?,
            lease_expires_at: row.try_get(offset + 11)?,
            sent_at: row.try_get(offset + 12)?,
            remote_id: row.try_get(offset + 13)?,
            last_error: row.try_get(offset + 14)?,
            created_at: row.try_get(offset + 15)?,
            updated_at: row.try_get(offset + 16)?,
            state_changed_at: row.try_get(offset + 17)?,
        })
    }

    pub fn from_row(row: &Row) -> Result<Job> {
        Job::from_row_at(row, 0)
    }

    /// Seconds since the job entered its current state, as of `now`.
    pub fn age_in_state(&self, now: DateTime<Utc>) -> std::time::Duration {
        (now - self.state_changed_at).to_std().unwrap_or_default()
    }
}

pub const JOB_COLUMN_COUNT: usize = 18;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub id: i64,
    pub job_id: Uuid,
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: EventAction,
    pub from_state: Option<State>,
    pub to_state: State,
    pub from_version: Option<i64>,
    pub to_version: i64,
    pub reason: Option<String>,
    pub evidence: serde_json::Value,
}

/// What an event's `job_events.action` says: a move of the transition table, or a name this
/// version does not know (written by a worker outside this crate, a newer version, or a
/// fixture), kept as written: the history of such a job is still read and shown, never refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventAction {
    Move(Action),
    Other(String),
}

impl EventAction {
    pub fn as_str(&self) -> &str {
        match self {
            EventAction::Move(a) => a.as_str(),
            EventAction::Other(s) => s,
        }
    }

    /// The move, when it is one of the table's.
    pub fn action(&self) -> Option<Action> {
        match self {
            EventAction::Move(a) => Some(*a),
            EventAction::Other(_) => None,
        }
    }
}

impl From<String> for EventAction {
    fn from(s: String) -> Self {
        match s.parse::<Action>() {
            Ok(a) => EventAction::Move(a),
            Err(_) => EventAction::Other(s),
        }
    }
}

impl From<Action> for EventAction {
    fn from(a: Action) -> Self {
        EventAction::Move(a)
    }
}

impl std::fmt::Display for EventAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventAction {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl PartialEq<str> for EventAction {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EventAction {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Action> for EventAction {
    fn eq(&self, other: &Action) -> bool {
        self.action() == Some(*other)
    }
}

impl Event {
    /// Reads an event from a row whose columns from `offset` are [`EVENT_COLUMNS`].
    pub fn from_row_at(row: &Row, offset: usize) -> Result<Event> {
        let parse = |s: String| {
            s.parse::<State>()
                .map_err(|e| Error::bug(format!("event row has {e}")))
        };
        let from_state: Option<String> = row.try_get(offset + 5)?;
        Ok(Event {
            id: row.try_get(offset)?,
            job_id: row.try_get(offset + 1)?,
            at: row.try_get(offset + 2)?,
            actor: row.try_get(offset + 3)?,
            action: EventAction::from(row.try_get::<_, String>(offset + 4)?),
            from_state: from_state.map(parse).transpose()?,
            to_state: parse(row.try_get(offset + 6)?)?,
            from_version: row.try_get(offset + 7)?,
            to_version: row.try_get(offset + 8)?,
            reason: row.try_get(offset + 9)?,
            evidence: row.try_get(offset + 10)?,
        })
    }

    pub fn from_row(row: &Row) -> Result<Event> {
        Event::from_row_at(row, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_action_is_a_move_of_the_table_or_kept_as_written() {
        for a in Action::ALL {
            let e = EventAction::from(a.as_str().to_string());
            assert_eq!(e, EventAction::Move(a));
            assert_eq!(e, a);
            assert_eq!(serde_json::to_value(&e).unwrap(), a.as_str());
        }
        let other = EventAction::from("seed".to_string());
        assert_eq!(other, EventAction::Other("seed".into()));
        assert_eq!(other.action(), None);
        assert_eq!(other, "seed");
        assert_eq!(serde_json::to_value(&other).unwrap(), "seed");
    }

    #[test]
    fn qualified_columns_keep_every_column_in_order() {
        let q = qualified(JOB_COLUMNS, "moved");
        let cols: Vec<&str> = q.split(", ").collect();
        assert_eq!(cols.len(), JOB_COLUMN_COUNT);
        assert_eq!(cols[0], "moved.id");
        assert_eq!(cols[JOB_COLUMN_COUNT - 1], "moved.state_changed_at");
        assert_eq!(
            qualified(EVENT_COLUMNS, "ev"),
            "ev.id, ev.job_id, ev.at, ev.actor, ev.action, ev.from_state, ev.to_state, \
             ev.from_version, ev.to_version, ev.reason, ev.evidence"
        );
    }
}
