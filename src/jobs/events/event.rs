//! One event of the trail, a job event or a destination event, in one shape.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::Row;
use uuid::Uuid;

use super::page::Position;
use crate::error::{Error, Result};
use crate::jobs::model::rfc3339;

/// One event of the trail: a job event with every `job_events` column plus its job's
/// `destination` and `external_ref`, or a destination event in the same shape (no job, no
/// states or versions; `evidence.until` is the pause's end after it).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct TrailEvent {
    pub id: i64,
    pub job_id: Option<Uuid>,
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: String,
    /// As recorded (text, not checked against the states: foreign writers write here too).
    pub from_state: Option<String>,
    pub to_state: Option<String>,
    pub from_version: Option<i64>,
    pub to_version: Option<i64>,
    pub reason: Option<String>,
    pub evidence: Value,
    pub destination: String,
    pub external_ref: Option<String>,
    /// The writing transaction (`pg_current_xact_id()`); null for events older than V6.
    pub xid: Option<u64>,
}

impl TrailEvent {
    pub fn is_job_event(&self) -> bool {
        self.job_id.is_some()
    }

    pub(super) fn from_row_at(row: &Row, o: usize) -> Result<TrailEvent> {
        let job_id: Option<Uuid> = row.try_get(o + 1)?;
        let mut evidence: Value = row.try_get(o + 10)?;
        if job_id.is_none() {
            let until: Option<DateTime<Utc>> = row.try_get(o + 13)?;
            if let Value::Object(m) = &mut evidence {
                m.insert(
                    "until".into(),
                    until.map_or(Value::Null, |t| {
                        Value::String(t.to_rfc3339_opts(SecondsFormat::Micros, true))
                    }),
                );
            }
        }
        let xid: Option<String> = row.try_get(o + 14)?;
        Ok(TrailEvent {
            id: row.try_get(o)?,
            job_id,
            at: row.try_get(o + 2)?,
            actor: row.try_get(o + 3)?,
            action: row.try_get(o + 4)?,
            from_state: row.try_get(o + 5)?,
            to_state: row.try_get(o + 6)?,
            from_version: row.try_get(o + 7)?,
            to_version: row.try_get(o + 8)?,
            reason: row.try_get(o + 9)?,
            evidence,
            destination: row.try_get(o + 11)?,
            external_ref: row.try_get(o + 12)?,
            xid: xid
                .map(|x| x.parse::<u64>())
                .transpose()
                .map_err(|e| Error::bug(format!("an event's xid is not a number: {e}")))?,
        })
    }

    pub(super) fn position(&self) -> Position {
        Position {
            at: self.at,
            id: self.id,
        }
    }
}
