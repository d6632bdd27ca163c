//! What `events` is asked for: every condition holds for every event listed. The bounds in
//! time are the database's clock's, and the filters have a fingerprint that a cursor is bound
//! to (a cursor of one listing is refused by another).

use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::jobs::pause::PauseAction;
use crate::jobs::query::cursor::{Fingerprint, FingerprintBuilder};
use crate::jobs::query::Sql;

/// Whether `a` is an action of destination_events (a pause, repause, resume, expire).
pub(crate) fn is_destination_action(a: &str) -> bool {
    PauseAction::ALL.iter().any(|p| p.as_str() == a)
}

/// A bound in time (`--since`, `--until`): a time, or a duration back from the database's
/// clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    Ago(Duration),
    At(DateTime<Utc>),
}

/// The filters of `events`; all of them hold for every event listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Only this job's events (no destination events).
    pub job: Option<Uuid>,
    /// Events of this destination's jobs, and its pauses and resumes.
    pub destination: Option<String>,
    pub actor: Option<String>,
    /// Any of these actions (each a name of [`Action::ALL`](crate::jobs::Action::ALL) or
    /// [`PauseAction::ALL`]; empty: every action).
    pub actions: Vec<&'static str>,
    /// At or after.
    pub since: Option<Since>,
    /// Before (exclusive, so `--until T` and `--since T` split a day without overlap).
    pub until: Option<Since>,
}

impl Since {
    /// This bound as SQL over the database's clock, its parameter bound to `sql`.
    pub(super) fn sql(self, sql: &mut Sql) -> String {
        match self {
            Since::Ago(d) => format!(
                "now() - make_interval(secs => {}::float8)",
                sql.bind(d.as_secs_f64())
            ),
            Since::At(t) => format!("{}::timestamptz", sql.bind(t)),
        }
    }

    /// The same bound as a time, `now` being the database's clock now.
    pub fn fixed(self, now: DateTime<Utc>) -> Since {
        match self {
            Since::At(t) => Since::At(t),
            Since::Ago(d) => Since::At(
                chrono::Duration::from_std(d)
                    .ok()
                    .and_then(|d| now.checked_sub_signed(d))
                    .unwrap_or(DateTime::<Utc>::MIN_UTC),
            ),
        }
    }

    pub(super) fn key(self) -> String {
        match self {
            Since::Ago(d) => format!("ago:{}", d.as_millis()),
            Since::At(t) => format!("at:{}", t.timestamp_micros()),
        }
    }
}

impl EventFilter {
    pub(super) fn actions(&self) -> Vec<&'static str> {
        let mut a = self.actions.clone();
        a.sort_unstable();
        a.dedup();
        a
    }

    /// The job actions asked for: `None` every one, else these (possibly none).
    pub(super) fn job_actions(&self) -> Option<Vec<&'static str>> {
        if self.actions.is_empty() {
            return None;
        }
        Some(
            self.actions()
                .into_iter()
                .filter(|a| !is_destination_action(a))
                .collect(),
        )
    }

    pub(super) fn destination_actions(&self) -> Option<Vec<&'static str>> {
        if self.actions.is_empty() {
            return None;
        }
        Some(
            self.actions()
                .into_iter()
                .filter(|a| is_destination_action(a))
                .collect(),
        )
    }

    pub(super) fn wants_job_events(&self) -> bool {
        self.job_actions().map_or(true, |a| !a.is_empty())
    }

    pub(super) fn wants_destination_events(&self) -> bool {
        self.job.is_none() && self.destination_actions().map_or(true, |a| !a.is_empty())
    }

    /// The same filters always give the same fingerprint; any change another.
    pub(super) fn fingerprint(&self) -> Fingerprint {
        let job = self.job.map(|j| j.to_string());
        let actions = self.actions().join(",");
        let since = self.since.map(Since::key);
        // A time keeps the key it had when --until took only a time (cursors stay valid).
        let until = self.until.map(|u| match u {
            Since::At(t) => t.timestamp_micros().to_string(),
            ago => ago.key(),
        });
        FingerprintBuilder::new("events")
            .field("job", job.as_deref())
            .field("destination", self.destination.as_deref())
            .field("actor", self.actor.as_deref())
            .field("actions", Some(&actions))
            .field("since", since.as_deref())
            .field("until", until.as_deref())
            .finish()
    }
}
