//! The audit trail across jobs (`reconctl events`, SPEC §7): every job event and every
//! destination event (pause, repause, resume, expire) as one stream, filtered, in keyset
//! pages; and following that stream as transactions commit.
//!
//! **Listing.** Events come oldest first in keyset order `(at, id)`: a timeline. Every filter
//! is a range of one index of migrations/V6 in that order (`--since`/`--until` bound the same
//! range), so a page costs what it returns, never a sort of the log:
//!
//! | filter | job events | destination events |
//! |---|---|---|
//! | none, `--since`, `--until` | `ix_job_events_at (at, id)` | `ix_destination_events_at` |
//! | `--actor` | `ix_job_events_actor (actor, at, id)` | (few rows: filtered) |
//! | `--action` (each) | `ix_job_events_action (action, at, id)`, one range per action, merged | |
//! | `--destination` | `ix_job_events_destination` + `ix_job_event_destinations_destination` (events older than V6), merged | `ix_destination_events_destination` |
//! | `--job` | `ix_job_events_job (job_id, id)`: one job's few events | none |
//!
//! Each source is one branch (`… ORDER BY at, id LIMIT n`), merged by a Merge Append.
//!
//! **Following.** Event ids come from a sequence at INSERT, not at COMMIT: a transaction that
//! took id 100 can commit after the one that took id 101, so "print what is after the last
//! id" loses id 100. Every event row records the transaction that wrote it (`xid`, V6), and
//! the follower remembers the *snapshot* of its last look (`xmin:xmax:xip…`). What finished
//! since is exactly the transactions the old snapshot saw as running (its `xip`) or not yet
//! started (`>= xmax`); their rows, visible now, are the new events, and all of a
//! transaction's rows become visible at once. So each committed event is printed once, none
//! is skipped, a rolled-back transaction's events are never seen, and events of one
//! transaction, or of one job (each move waits for the previous one's commit), come out in
//! id order.
//!
//! This is finer than a watermark at the snapshot's `xmin` ("print what is older than the
//! oldest running transaction"): `xmin` stops at any writing transaction in the whole
//! cluster (xids are cluster-wide: a long batch job on another database holds it back), and
//! everything committed behind it would wait; the snapshot delta prints a transaction as
//! soon as it commits. `xmin` still bounds the delta: everything below it was finished.
//!
//! **Waking up: polling**, every 250 ms after an event, backing off to every 1.25 s when
//! idle (so ≤ 0.8 statements a second, each an index probe of `ix_job_events_xid` that finds
//! nothing, in one round trip; scripts/bench-events on 10M events: 0.4–0.5 s from commit to
//! print, median of 100, and 0.83 transactions a second idle). LISTEN/NOTIFY would print sooner, but every
//! writer would have to NOTIFY (a trigger on job_events, so foreign workers too), and
//! PostgreSQL serialises the commits of all notifying transactions on one lock: the pipeline's
//! workers would pay for the follower on every move. Polling costs the writers nothing, needs
//! no dedicated connection, and works through a transaction pooler. Nothing is held between
//! polls: each is one statement in its own implicit transaction, with the session's
//! statement and lock timeouts.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{GenericClient, Row};
use uuid::Uuid;

use crate::error::{Code, Error, Result};
use crate::jobs::model::rfc3339;
use crate::jobs::pause::PauseAction;
use crate::jobs::query::cursor::{self, Fingerprint, FingerprintBuilder};
use crate::jobs::Action;

/// Every action `--action` accepts: each move of the transition table (job_events.action),
/// then what destination_events records (a pause, a change of a pause, a resume, and a pause
/// that ended by itself).
pub fn valid_actions() -> Vec<&'static str> {
    Action::ALL
        .iter()
        .map(|a| a.as_str())
        .chain(PauseAction::ALL.iter().map(|a| a.as_str()))
        .collect()
}

/// An `--action` value (`mark-accepted` is `mark_accepted`), or exit 2 listing the valid ones.
pub fn parse_action(s: &str) -> Result<&'static str> {
    let norm = s.trim().to_ascii_lowercase().replace('-', "_");
    valid_actions()
        .into_iter()
        .find(|a| *a == norm)
        .ok_or_else(|| {
            Error::usage(format!(
                "unknown --action `{}` (expected one of: {})",
                s.chars().take(100).collect::<String>(),
                valid_actions().join(", ")
            ))
        })
}

fn is_destination_action(a: &str) -> bool {
    PauseAction::ALL.iter().any(|p| p.as_str() == a)
}

/// A bound in time (`--since`, `--until`): a time, or a duration back from the database's
/// clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    Ago(Duration),
    At(DateTime<Utc>),
}

/// An RFC 3339 time (`2024-05-01T10:00:00Z`, a space for the `T`, any offset), in UTC.
pub fn parse_time(s: &str) -> std::result::Result<DateTime<Utc>, String> {
    let s = s.trim();
    DateTime::parse_from_rfc3339(s)
        .or_else(|_| DateTime::parse_from_rfc3339(&s.replacen(' ', "T", 1)))
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            format!(
                "`{}` is not an RFC 3339 time (e.g. 2024-05-01T10:00:00Z; the offset is required)",
                crate::escape::escape(&s.chars().take(100).collect::<String>())
            )
        })
}

impl FromStr for Since {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        if let Ok(d) = crate::duration::parse(s) {
            return Ok(Since::Ago(d));
        }
        parse_time(s).map(Since::At).map_err(|_| {
            format!(
                "`{}` is neither a duration (90s, 15m, 2h, 1d) nor an RFC 3339 time (2024-05-01T10:00:00Z; the offset is required)",
                crate::escape::escape(&s.trim().chars().take(100).collect::<String>())
            )
        })
    }
}

/// The filters of `events`; all of them hold for every event listed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Only this job's events (no destination events).
    pub job: Option<Uuid>,
    /// Events of this destination's jobs, and its pauses and resumes.
    pub destination: Option<String>,
    pub actor: Option<String>,
    /// Any of these actions (validated by [`parse_action`]; empty: every action).
    pub actions: Vec<&'static str>,
    /// At or after.
    pub since: Option<Since>,
    /// Before (exclusive, so `--until T` and `--since T` split a day without overlap).
    pub until: Option<Since>,
}

impl Since {
    /// This bound as SQL over the database's clock, its parameter bound to `sql`.
    fn sql(self, sql: &mut EventSql) -> String {
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

    fn key(self) -> String {
        match self {
            Since::Ago(d) => format!("ago:{}", d.as_millis()),
            Since::At(t) => format!("at:{}", t.timestamp_micros()),
        }
    }
}

impl EventFilter {
    fn actions(&self) -> Vec<&'static str> {
        let mut a = self.actions.clone();
        a.sort_unstable();
        a.dedup();
        a
    }

    /// The job actions asked for: `None` every one, else these (possibly none).
    fn job_actions(&self) -> Option<Vec<&'static str>> {
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

    fn destination_actions(&self) -> Option<Vec<&'static str>> {
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

    fn wants_job_events(&self) -> bool {
        self.job_actions().map_or(true, |a| !a.is_empty())
    }

    fn wants_destination_events(&self) -> bool {
        self.job.is_none() && self.destination_actions().map_or(true, |a| !a.is_empty())
    }

    /// The same filters always give the same fingerprint; any change another.
    fn fingerprint(&self) -> Fingerprint {
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

    fn from_row_at(row: &Row, o: usize) -> Result<TrailEvent> {
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

    fn position(&self) -> Position {
        Position {
            at: self.at,
            id: self.id,
        }
    }
}

/// A place in keyset order: the last event of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub at: DateTime<Utc>,
    pub id: i64,
}

const POSITION_LEN: usize = 16;

/// The `next_cursor` after `after` in the listing `filter`.
pub fn encode_cursor(filter: &EventFilter, after: Position) -> String {
    let mut bytes = Vec::with_capacity(POSITION_LEN);
    bytes.extend_from_slice(&after.at.timestamp_micros().to_be_bytes());
    bytes.extend_from_slice(&after.id.to_be_bytes());
    cursor::encode(filter.fingerprint(), &bytes)
}

/// The position a `--cursor` names, if this listing made it and it is intact (else exit 2).
pub fn decode_cursor(filter: &EventFilter, c: &str) -> Result<Position> {
    let body = cursor::decode(filter.fingerprint(), c, POSITION_LEN)?;
    let micros = i64::from_be_bytes(body[..8].try_into().expect("8 bytes"));
    let id = i64::from_be_bytes(body[8..].try_into().expect("8 bytes"));
    let at = DateTime::from_timestamp_micros(micros)
        .ok_or_else(|| cursor::invalid("its position is out of range"))?;
    Ok(Position { at, id })
}

/// A statement and its bind parameters, built here, run (or EXPLAINed) by the caller.
///
/// Each parameter carries its type, so a statement runs in one round trip
/// (`query_typed`: parse, bind and execute together) and is one transaction for the server:
/// `--follow`'s idle cost is one of these a poll.
pub struct EventSql {
    pub text: String,
    params: Vec<(Box<dyn ToSql + Sync + Send>, Type)>,
}

/// The PostgreSQL type a parameter is sent as (every placeholder is cast to it as well).
trait Typed {
    const TYPE: Type;
}

impl Typed for String {
    const TYPE: Type = Type::TEXT;
}
impl Typed for Vec<String> {
    const TYPE: Type = Type::TEXT_ARRAY;
}
impl Typed for i64 {
    const TYPE: Type = Type::INT8;
}
impl Typed for f64 {
    const TYPE: Type = Type::FLOAT8;
}
impl Typed for DateTime<Utc> {
    const TYPE: Type = Type::TIMESTAMPTZ;
}
impl Typed for Uuid {
    const TYPE: Type = Type::UUID;
}

impl EventSql {
    fn new() -> EventSql {
        EventSql {
            text: String::new(),
            params: Vec::new(),
        }
    }

    fn bind<T: ToSql + Typed + Sync + Send + 'static>(&mut self, value: T) -> String {
        self.params.push((Box::new(value), T::TYPE));
        format!("${}", self.params.len())
    }

    pub fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params
            .iter()
            .map(|(p, _)| p.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }

    /// The parameters with their types, for `query_typed`.
    pub fn typed_params(&self) -> Vec<(&(dyn ToSql + Sync), Type)> {
        self.params
            .iter()
            .map(|(p, t)| (p.as_ref() as &(dyn ToSql + Sync), t.clone()))
            .collect()
    }

    async fn run<C: GenericClient>(
        &self,
        client: &C,
    ) -> std::result::Result<Vec<Row>, tokio_postgres::Error> {
        client.query_typed(&self.text, &self.typed_params()).await
    }
}

impl std::fmt::Debug for EventSql {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventSql")
            .field("text", &self.text)
            .field("params", &self.params.len())
            .finish()
    }
}

/// Where a branch reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// job_events (with the job, for external_ref and destination).
    Jobs,
    /// Events older than V6, found by destination through job_event_destinations.
    Legacy,
    /// destination_events.
    Destinations,
}

impl Source {
    /// `FROM …` and the select list, in [`TrailEvent::from_row_at`]'s order.
    fn select(self) -> &'static str {
        match self {
            Source::Jobs => {
                "SELECT e.id AS id, e.job_id AS job_id, e.at AS at, e.actor AS actor, e.action AS action, \
                 e.from_state AS from_state, e.to_state AS to_state, e.from_version AS from_version, \
                 e.to_version AS to_version, e.reason AS reason, e.evidence AS evidence, \
                 j.destination AS destination, j.external_ref AS external_ref, \
                 NULL::timestamptz AS until, e.xid::text AS xid \
                 FROM job_events e JOIN publication_jobs j ON j.id = e.job_id"
            }
            Source::Legacy => {
                "SELECT l.id AS id, e.job_id AS job_id, l.at AS at, e.actor AS actor, e.action AS action, \
                 e.from_state AS from_state, e.to_state AS to_state, e.from_version AS from_version, \
                 e.to_version AS to_version, e.reason AS reason, e.evidence AS evidence, \
                 j.destination AS destination, j.external_ref AS external_ref, \
                 NULL::timestamptz AS until, e.xid::text AS xid \
                 FROM job_event_destinations l JOIN job_events e ON e.id = l.id \
                 JOIN publication_jobs j ON j.id = e.job_id"
            }
            Source::Destinations => {
                "SELECT d.id AS id, NULL::uuid AS job_id, d.at AS at, d.actor AS actor, d.action AS action, \
                 NULL::text AS from_state, NULL::text AS to_state, NULL::bigint AS from_version, \
                 NULL::bigint AS to_version, d.reason AS reason, d.evidence AS evidence, \
                 d.destination AS destination, NULL::text AS external_ref, \
                 d.until AS until, d.xid::text AS xid \
                 FROM destination_events d"
            }
        }
    }

    /// The alias whose (at, id) the branch is ordered by.
    fn key(self) -> &'static str {
        match self {
            Source::Jobs => "e",
            Source::Legacy => "l",
            Source::Destinations => "d",
        }
    }

    /// The alias of the event row (actor, action, xid).
    fn row(self) -> &'static str {
        match self {
            Source::Jobs | Source::Legacy => "e",
            Source::Destinations => "d",
        }
    }
}

/// One branch of a statement: a source and its conditions.
struct Branch {
    source: Source,
    conditions: Vec<String>,
}

/// The branches of `filter` and their own conditions (the filter's, in the form each
/// source's index serves). Bind parameters are added to `sql` once and shared.
fn branches(sql: &mut EventSql, filter: &EventFilter, split_actions: bool) -> Vec<Branch> {
    let actor = filter.actor.clone().map(|a| sql.bind(a));
    let destination = filter.destination.clone().map(|d| sql.bind(d));
    let job = filter.job.map(|j| sql.bind(j));
    let mut out = Vec::new();
    let common = |source: Source| {
        let mut c = Vec::new();
        if let Some(a) = &actor {
            c.push(format!("{}.actor = {a}::text", source.row()));
        }
        c
    };
    let mut base = common(Source::Jobs);
    match (&job, &destination) {
        (Some(j), d) => {
            base.push(format!("e.job_id = {j}::uuid"));
            // One job: its destination is the job's, old events and new alike.
            if let Some(d) = d {
                base.push(format!("j.destination = {d}::text"));
            }
        }
        (None, Some(d)) => base.push(format!("e.destination = {d}::text")),
        (None, None) => {}
    }
    if filter.wants_job_events() {
        let job_actions = filter.job_actions();
        match &job_actions {
            // Each action its own range of ix_job_events_action, merged in order.
            Some(actions) if split_actions && job.is_none() => {
                for a in actions {
                    let p = sql.bind(a.to_string());
                    let mut c = base.clone();
                    c.push(format!("e.action = {p}::text"));
                    out.push(Branch {
                        source: Source::Jobs,
                        conditions: c,
                    });
                }
            }
            Some(actions) => {
                let p = sql.bind(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>());
                let mut c = base.clone();
                c.push(format!("e.action = ANY({p}::text[])"));
                out.push(Branch {
                    source: Source::Jobs,
                    conditions: c,
                });
            }
            None => out.push(Branch {
                source: Source::Jobs,
                conditions: base.clone(),
            }),
        }
        // Events older than V6 have no destination of their own (the log is append-only).
        if let (None, Some(d)) = (&job, &destination) {
            if split_actions {
                let mut c = common(Source::Legacy);
                c.push(format!("l.destination = {d}::text"));
                if let Some(actions) = &job_actions {
                    let p = sql.bind(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>());
                    c.push(format!("e.action = ANY({p}::text[])"));
                }
                out.push(Branch {
                    source: Source::Legacy,
                    conditions: c,
                });
            }
        }
    }
    if filter.wants_destination_events() {
        let mut c = common(Source::Destinations);
        if let Some(d) = &destination {
            c.push(format!("d.destination = {d}::text"));
        }
        if let Some(actions) = filter.destination_actions() {
            let p = sql.bind(actions.iter().map(|a| a.to_string()).collect::<Vec<_>>());
            c.push(format!("d.action = ANY({p}::text[])"));
        }
        out.push(Branch {
            source: Source::Destinations,
            conditions: c,
        });
    }
    if out.is_empty() {
        // Nothing can match (`--job` with only destination actions): one branch that says
        // so, and still names every parameter.
        base.push("false".into());
        out.push(Branch {
            source: Source::Jobs,
            conditions: base,
        });
    }
    out
}

fn where_clause(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}

/// One page of the listing: at most `limit` events after `after` (none: from the start),
/// plus one to know whether there is a next page. `visible_in`: only events of transactions
/// that had finished in this snapshot (the history part of `--follow`; see the module doc).
pub fn page_sql(
    filter: &EventFilter,
    after: Option<Position>,
    limit: u32,
    visible_in: Option<&str>,
) -> EventSql {
    keyset_sql(filter, after, i64::from(limit) + 1, visible_in, "")
}

/// The newest `n` events that match, newest first (`--last N`; the caller prints them
/// oldest first), by the same indexes read backwards. `visible_in` as for [`page_sql`].
pub fn last_sql(filter: &EventFilter, n: u32, visible_in: Option<&str>) -> EventSql {
    keyset_sql(filter, None, i64::from(n), visible_in, " DESC")
}

/// [`page_sql`] and [`last_sql`]: `limit` rows in keyset order (`direction` "" or " DESC").
fn keyset_sql(
    filter: &EventFilter,
    after: Option<Position>,
    limit: i64,
    visible_in: Option<&str>,
    direction: &str,
) -> EventSql {
    let mut sql = EventSql::new();
    let mut shared: Vec<(Source, String)> = Vec::new();
    let keyset = after.map(|p| (sql.bind(p.at), sql.bind(p.id)));
    // With a cursor, `--since` is implied (the cursor's event was at or after it) and is not
    // repeated: `--since 1h` would otherwise move with the clock between pages.
    let since = match (after, filter.since) {
        (None, Some(s)) => Some(s.sql(&mut sql)),
        _ => None,
    };
    let until = filter.until.map(|u| u.sql(&mut sql));
    let snapshot = visible_in.map(|s| sql.bind(s.to_string()));
    for source in [Source::Jobs, Source::Legacy, Source::Destinations] {
        let (k, r) = (source.key(), source.row());
        let mut c = Vec::new();
        if let Some((at, id)) = &keyset {
            c.push(format!(
                "({k}.at, {k}.id) > ({at}::timestamptz, {id}::bigint)"
            ));
        }
        if let Some(s) = &since {
            c.push(format!("{k}.at >= {s}"));
        }
        if let Some(u) = &until {
            c.push(format!("{k}.at < {u}"));
        }
        if let Some(s) = &snapshot {
            c.push(format!(
                "({r}.xid IS NULL OR pg_visible_in_snapshot({r}.xid, {s}::text::pg_snapshot))"
            ));
        }
        for cond in c {
            shared.push((source, cond));
        }
    }
    let branches = branches(&mut sql, filter, true);
    let limit = sql.bind(limit);
    let branch_sql = |b: &Branch| {
        let k = b.source.key();
        let mut conds = b.conditions.clone();
        conds.extend(
            shared
                .iter()
                .filter(|(s, _)| *s == b.source)
                .map(|(_, c)| c.clone()),
        );
        format!(
            "{}{} ORDER BY {k}.at{direction}, {k}.id{direction} LIMIT {limit}",
            b.source.select(),
            where_clause(&conds)
        )
    };
    sql.text = match branches.as_slice() {
        [one] => branch_sql(one),
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|b| format!("({})", branch_sql(b)))
                .collect();
            format!(
                "SELECT * FROM ({}) AS ev ORDER BY at{direction}, id{direction} LIMIT {limit}",
                parts.join(" UNION ALL ")
            )
        }
    };
    sql
}

/// One page of the trail.
#[derive(Debug, Clone)]
pub struct EventPage {
    pub events: Vec<TrailEvent>,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Read one page: at most `limit` events after `cursor` (a `next_cursor` of this listing).
pub async fn page<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    limit: u32,
    cursor: Option<&str>,
) -> Result<EventPage> {
    let after = cursor.map(|c| decode_cursor(filter, c)).transpose()?;
    let (events, more) = read_page(client, filter, after, limit, None)
        .await
        .map_err(|f| f.error)?;
    let next_cursor = if more {
        events.last().map(|e| encode_cursor(filter, e.position()))
    } else {
        None
    };
    Ok(EventPage {
        events,
        next_cursor,
    })
}

/// The newest `n` events that match, printed oldest first (`--last N`, like `journalctl -n`).
pub async fn last<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    n: u32,
) -> Result<Vec<TrailEvent>> {
    read_last(client, filter, n, None)
        .await
        .map_err(|f| f.error)
}

async fn read_last<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    n: u32,
    visible_in: Option<&str>,
) -> std::result::Result<Vec<TrailEvent>, FollowError> {
    let rows = last_sql(filter, n, visible_in).run(client).await?;
    let mut events = rows
        .iter()
        .map(|r| TrailEvent::from_row_at(r, 0))
        .collect::<Result<Vec<_>>>()?;
    events.reverse();
    Ok(events)
}

async fn read_page<C: GenericClient>(
    client: &C,
    filter: &EventFilter,
    after: Option<Position>,
    limit: u32,
    visible_in: Option<&str>,
) -> std::result::Result<(Vec<TrailEvent>, bool), FollowError> {
    let sql = page_sql(filter, after, limit, visible_in);
    let rows = sql.run(client).await?;
    if rows.is_empty() {
        return Ok((Vec::new(), false));
    }
    let mut events = rows
        .iter()
        .map(|r| TrailEvent::from_row_at(r, 0))
        .collect::<Result<Vec<_>>>()?;
    let more = events.len() > limit as usize;
    events.truncate(limit as usize);
    Ok((events, more))
}

// ---------------------------------------------------------------------------------------
// Following
// ---------------------------------------------------------------------------------------

/// A snapshot as `pg_current_snapshot()::text` gives it: `xmin:xmax:xip,xip,…`. A
/// transaction is finished in it when its xid is below `xmax` and not in `xip`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    text: String,
    xmin: u64,
    xmax: u64,
    xip: Vec<u64>,
}

impl Snapshot {
    pub fn parse(text: &str) -> Result<Snapshot> {
        let bad = || Error::bug(format!("unexpected snapshot `{text}`"));
        let mut parts = text.split(':');
        let (Some(xmin), Some(xmax), Some(xip), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
        Ok(Snapshot {
            text: text.to_string(),
            xmin: num(xmin)?,
            xmax: num(xmax)?,
            xip: xip
                .split(',')
                .filter(|s| !s.is_empty())
                .map(num)
                .collect::<Result<_>>()?,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `xid` had finished (committed or rolled back) when this snapshot was taken.
    pub fn finished(&self, xid: u64) -> bool {
        xid < self.xmin || (xid < self.xmax && !self.xip.contains(&xid))
    }
}

/// The events of the transactions that finished after `seen` (and, when draining a delta
/// bigger than a batch, before `until`, after the event id `after`), oldest id first, with
/// the snapshot the statement read them in, the server's start time and the statement's
/// time (`snap`, `started`, `ts`: the first columns, in the one row there is when no event
/// matched). `began_after`: after a server restart, also every event whose transaction began
/// at or after this time, whatever its xid (see [`Follow`]'s "Across a restart").
pub fn delta_sql(
    filter: &EventFilter,
    seen: &Snapshot,
    drain: Option<(&Snapshot, i64)>,
    began_after: Option<DateTime<Utc>>,
    limit: u32,
) -> EventSql {
    let mut sql = EventSql::new();
    let xmax = sql.bind(seen.xmax.to_string());
    let xip = sql.bind(seen.xip.iter().map(u64::to_string).collect::<Vec<_>>());
    let drain = drain.map(|(until, after)| (sql.bind(until.text.clone()), sql.bind(after)));
    let began_after = began_after.map(|t| sql.bind(t));
    // A follower's bounds are times (fixed by `Follow::start`); a duration here would move
    // with the clock at every poll and drop what began before it.
    let since = filter.since.map(|s| s.sql(&mut sql));
    let until = filter.until.map(|u| u.sql(&mut sql));
    let branches = branches(&mut sql, filter, false);
    let limit = sql.bind(i64::from(limit));
    let parts: Vec<String> = branches
        .iter()
        .map(|b| {
            let r = b.source.row();
            let mut c = b.conditions.clone();
            let restarted = began_after
                .as_ref()
                .map(|t| format!(" OR {r}.at >= {t}::timestamptz"))
                .unwrap_or_default();
            c.push(format!(
                "({r}.xid >= {xmax}::text::xid8 OR {r}.xid = ANY({xip}::text[]::xid8[]){restarted})"
            ));
            if let Some((u, a)) = &drain {
                c.push(format!(
                    "pg_visible_in_snapshot({r}.xid, {u}::text::pg_snapshot) AND {r}.id > {a}::bigint"
                ));
            }
            if let Some(s) = &since {
                c.push(format!("{r}.at >= {s}"));
            }
            if let Some(u) = &until {
                c.push(format!("{r}.at < {u}"));
            }
            format!("({}{})", b.source.select(), where_clause(&c))
        })
        .collect();
    let delta = parts.join(" UNION ALL ");
    // The delta is computed whole (few rows: what committed since the last look, found by
    // ix_job_events_xid), then ordered; never a walk of the log in id order.
    sql.text = format!(
        "WITH s AS MATERIALIZED (SELECT pg_current_snapshot()::text AS snap,
                pg_postmaster_start_time() AS started, statement_timestamp() AS ts),
         delta AS MATERIALIZED ({delta})
         SELECT s.snap, s.started, s.ts, p.* FROM s
         LEFT JOIN (SELECT * FROM delta ORDER BY id LIMIT {limit}) AS p ON true
         ORDER BY p.id"
    );
    sql
}

/// Why a step of `--follow` failed, and whether trying again on a new connection can help.
#[derive(Debug)]
pub struct FollowError {
    pub error: Error,
    /// The connection was lost, the server is restarting or overloaded, a timeout fired:
    /// reconnect and resume. Otherwise (no such database, no grant, no schema) it is final.
    pub transient: bool,
}

impl From<tokio_postgres::Error> for FollowError {
    fn from(e: tokio_postgres::Error) -> Self {
        FollowError {
            transient: is_transient(&e),
            error: e.into(),
        }
    }
}

impl From<Error> for FollowError {
    fn from(error: Error) -> Self {
        FollowError {
            error,
            transient: false,
        }
    }
}

/// Whether a database error is worth a reconnect (see [`FollowError::transient`]).
pub fn is_transient(e: &tokio_postgres::Error) -> bool {
    match e.code() {
        Some(code) => {
            let c = code.code();
            c.starts_with("08") // connection exception
                || c.starts_with("57P") // admin/crash shutdown, cannot connect now
                || c == "57014" // statement timeout
                || c == "55P03" // lock timeout (a migration holding the log)
                || c == "53300" // too many connections
                || c == "53000" // insufficient resources
                || c.starts_with("40") // serialization failure, deadlock (never expected)
        }
        // No SQLSTATE: the socket closed, an I/O error, a connect timeout.
        None => true,
    }
}

/// Events a step printed, and whether the next step should follow at once (history pages
/// or a large delta still to drain) rather than after the poll interval.
#[derive(Debug, Default)]
pub struct Step {
    pub events: Vec<TrailEvent>,
    pub more: bool,
}

#[derive(Debug, Clone)]
enum Phase {
    /// Paging through the history (events finished in `start`), from `after`.
    History { after: Option<Position> },
    /// The newest `n` events finished in `start` (`--last N`), then live.
    Last(u32),
    /// Printing what finishes after `seen`; `drain`: a delta bigger than a batch, being read
    /// up to its snapshot, after the event id printed last.
    Live { drain: Option<(Snapshot, i64)> },
}

/// What `--follow` prints before the live events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Nothing: only what commits from now on.
    None,
    /// The events already committed that match (from `--since`), or those after a
    /// `--cursor` position.
    From(Option<Position>),
    /// The newest N that match (`--last N`).
    Last(u32),
}

impl From<Option<Option<Position>>> for History {
    fn from(h: Option<Option<Position>>) -> History {
        h.map_or(History::None, History::From)
    }
}

/// How far before the last look a restart's re-read reaches, and how long printed events are
/// remembered to drop a second copy: room for the clocks of two servers of a failover.
const RESTART_MARGIN: Duration = Duration::from_secs(5);

/// The state of `events --follow`: what has been printed, as a snapshot. It lives in
/// memory across reconnections, so a new connection resumes exactly where the old one
/// stopped (no event twice, none lost).
///
/// **Across a restart.** After a crash (or a failover) the server can hand out again the
/// transaction ids of transactions whose WAL it never flushed (`synchronous_commit = off`):
/// `seen` then counts new transactions as finished long ago, and the delta would skip their
/// events. Every look also reads `pg_postmaster_start_time()`; when it changed, the follower
/// reads, besides the delta, every event whose transaction began at or after the last look
/// before the restart (less [`RESTART_MARGIN`]): a transaction of the new server began after
/// it started, so after that look. Events printed meanwhile are remembered by (id, xid, at)
/// for that long and never printed twice. An event printed before the crash whose commit the
/// crash lost cannot be taken back: it is the server's own asynchronous-commit window.
#[derive(Debug, Clone)]
pub struct Follow {
    filter: EventFilter,
    /// Every event of a transaction finished in this snapshot has been printed (or was
    /// before the start): the live phase prints what finishes after it.
    seen: Snapshot,
    /// The server's clock at the statement that took `seen`.
    seen_at: DateTime<Utc>,
    /// The server's start time as last seen (`pg_postmaster_start_time()`).
    server_start: DateTime<Utc>,
    /// After a restart, until a delta has been read whole: events whose transaction began at
    /// or after this are read whatever their xid.
    restarted: Option<DateTime<Utc>>,
    /// Events printed lately (id, xid → at), to drop a second copy after a restart.
    printed: std::collections::HashMap<(i64, Option<u64>), DateTime<Utc>>,
    phase: Phase,
    batch: u32,
}

/// Events per statement while following (history pages and live deltas).
pub const FOLLOW_BATCH: u32 = 1000;

impl Follow {
    /// Start following now. With a history, first print the events already committed that
    /// match (from `--since`, or after a `--cursor` position, or the newest N), then the new
    /// ones; without, only the new ones. A `--since` or `--until` given as a duration is
    /// fixed here to a time on the database's clock: it never moves while following.
    pub async fn start<C: GenericClient>(
        client: &C,
        mut filter: EventFilter,
        history: impl Into<History>,
    ) -> std::result::Result<Follow, FollowError> {
        let row = client
            .query_typed_one(
                "SELECT pg_current_snapshot()::text, statement_timestamp(), pg_postmaster_start_time()",
                &[],
            )
            .await?;
        let seen = Snapshot::parse(row.try_get(0).map_err(FollowError::from)?)?;
        let now: DateTime<Utc> = row.try_get(1).map_err(FollowError::from)?;
        let server_start: DateTime<Utc> = row.try_get(2).map_err(FollowError::from)?;
        filter.since = filter.since.map(|s| s.fixed(now));
        filter.until = filter.until.map(|u| u.fixed(now));
        let phase = match history.into() {
            History::From(after) => Phase::History { after },
            History::Last(n) => Phase::Last(n),
            History::None => Phase::Live { drain: None },
        };
        Ok(Follow {
            filter,
            seen,
            seen_at: now,
            server_start,
            restarted: None,
            printed: std::collections::HashMap::new(),
            phase,
            batch: FOLLOW_BATCH,
        })
    }

    /// Events per statement (tests make it small to exercise draining).
    pub fn with_batch(mut self, batch: u32) -> Follow {
        self.batch = batch.max(1);
        self
    }

    /// The snapshot everything before has been printed in.
    pub fn seen(&self) -> &Snapshot {
        &self.seen
    }

    /// The filter as followed (`--since` and `--until` fixed to times).
    pub fn filter(&self) -> &EventFilter {
        &self.filter
    }

    /// Remember what is printed (see "Across a restart"), and drop what was printed before.
    fn remember(&mut self, events: Vec<TrailEvent>) -> Vec<TrailEvent> {
        let fresh: Vec<TrailEvent> = events
            .into_iter()
            .filter(|e| self.printed.get(&(e.id, e.xid)) != Some(&e.at))
            .collect();
        for e in &fresh {
            self.printed.insert((e.id, e.xid), e.at);
        }
        fresh
    }

    /// One statement: the next history page or the next live delta. The state advances only
    /// when the statement succeeded, so after an error the same step can be run again on a
    /// new connection.
    pub async fn step<C: GenericClient>(
        &mut self,
        client: &C,
    ) -> std::result::Result<Step, FollowError> {
        match self.phase.clone() {
            Phase::History { after } => {
                // A cursor implies --since (see page_sql); the first page without one uses it.
                let (events, more) = read_page(
                    client,
                    &self.filter,
                    after,
                    self.batch,
                    Some(self.seen.as_str()),
                )
                .await?;
                self.phase = if more {
                    Phase::History {
                        after: events.last().map(TrailEvent::position),
                    }
                } else {
                    Phase::Live { drain: None }
                };
                let events = self.remember(events);
                Ok(Step { events, more: true })
            }
            Phase::Last(n) => {
                let events = read_last(client, &self.filter, n, Some(self.seen.as_str())).await?;
                self.phase = Phase::Live { drain: None };
                let events = self.remember(events);
                Ok(Step { events, more: true })
            }
            Phase::Live { drain } => {
                let sql = delta_sql(
                    &self.filter,
                    &self.seen,
                    drain.as_ref().map(|(s, a)| (s, *a)),
                    self.restarted,
                    self.batch,
                );
                let rows = sql.run(client).await?;
                let first = rows
                    .first()
                    .ok_or_else(|| Error::bug("the follow statement returned no row"))?;
                let now = Snapshot::parse(first.try_get(0).map_err(FollowError::from)?)?;
                let started: DateTime<Utc> = first.try_get(1).map_err(FollowError::from)?;
                let ts: DateTime<Utc> = first.try_get(2).map_err(FollowError::from)?;
                if started != self.server_start {
                    // A restart since the last look: this delta read with a snapshot of the
                    // old server. Read again, from before the last look (see "Across a
                    // restart"); what is printed twice is dropped.
                    let from =
                        self.seen_at - chrono::Duration::from_std(RESTART_MARGIN).expect("5s");
                    self.restarted = Some(self.restarted.map_or(from, |r| r.min(from)));
                    self.server_start = started;
                    self.phase = Phase::Live { drain: None };
                    return Ok(Step {
                        events: Vec::new(),
                        more: true,
                    });
                }
                let mut events = Vec::with_capacity(rows.len());
                for row in &rows {
                    let id: Option<i64> = row.try_get(3).map_err(FollowError::from)?;
                    if id.is_some() {
                        events.push(TrailEvent::from_row_at(row, 3)?);
                    }
                }
                let full = events.len() >= self.batch as usize;
                let last = events.last().map(|e| e.id);
                let events = self.remember(events);
                // The delta ends at the snapshot it started in: later commits belong to the
                // next one (their ids may be lower than the last one printed).
                if full {
                    let end = drain.map_or(now, |(s, _)| s);
                    self.phase = Phase::Live {
                        drain: Some((end, last.expect("a full batch"))),
                    };
                } else {
                    if let Some((s, _)) = drain {
                        self.seen = s;
                    } else {
                        self.seen = now;
                        self.seen_at = ts;
                    }
                    self.restarted = None;
                    self.phase = Phase::Live { drain: None };
                    let keep =
                        self.seen_at - chrono::Duration::from_std(RESTART_MARGIN).expect("5s");
                    self.printed.retain(|_, at| *at >= keep);
                }
                Ok(Step { events, more: full })
            }
        }
    }
}

/// How long the poll waits after an empty look, growing from [`POLL_MIN`] after an event
/// to [`POLL_MAX`] when idle (module doc: ≤ 0.8 statements a second when idle).
pub const POLL_MIN: Duration = Duration::from_millis(250);
pub const POLL_MAX: Duration = Duration::from_millis(1250);

/// The next wait, after a look that found `found` events.
pub fn next_poll(previous: Duration, found: bool) -> Duration {
    if found {
        POLL_MIN
    } else {
        (previous * 2).clamp(POLL_MIN, POLL_MAX)
    }
}

/// A `--follow` that lost its database and could not get it back (exit 1).
pub fn gave_up(error: &Error, tried_for: Duration, last: Option<&TrailEvent>) -> Error {
    let mut e = Error::new(
        Code::ConnectionLost,
        format!(
            "lost the database and could not reconnect within {}: {}",
            crate::duration::format_duration(tried_for),
            error.message()
        ),
    );
    if let Some(ev) = last {
        e = e.hinted(format!(
            "to carry on where this stopped, run it again with --since {} (events of that second may print again)",
            ev.at.to_rfc3339_opts(SecondsFormat::Secs, true)
        ));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_parse_and_say_what_had_finished() {
        let s = Snapshot::parse("100:105:100,102").unwrap();
        assert!(s.finished(99));
        assert!(!s.finished(100));
        assert!(s.finished(101));
        assert!(!s.finished(102));
        assert!(s.finished(104));
        assert!(!s.finished(105));
        let empty = Snapshot::parse("7:7:").unwrap();
        assert!(empty.finished(6) && !empty.finished(7));
        for bad in ["", "1:2", "1:2:3:4", "a:2:", "1:2:x"] {
            assert!(Snapshot::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn actions_are_validated_and_normalised() {
        assert_eq!(parse_action("mark-accepted").unwrap(), "mark_accepted");
        assert_eq!(parse_action(" Pause ").unwrap(), "pause");
        assert_eq!(parse_action("reserve").unwrap(), "reserve");
        let err = parse_action("delete").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.message().contains("claim"), "{}", err.message());
        assert!(err.message().contains("resume"), "{}", err.message());
    }

    #[test]
    fn since_is_a_duration_or_a_time() {
        assert_eq!(
            "1h".parse::<Since>().unwrap(),
            Since::Ago(Duration::from_secs(3600))
        );
        let t = "2024-05-01T10:00:00+02:00".parse::<Since>().unwrap();
        assert_eq!(
            t,
            Since::At(DateTime::from_timestamp(1_714_550_400, 0).unwrap())
        );
        assert_eq!(
            "2024-05-01 08:00:00Z".parse::<Since>().unwrap(),
            Since::At(DateTime::from_timestamp(1_714_550_400, 0).unwrap())
        );
        for bad in ["", "yesterday", "10", "2024-05-01", "2024-05-01T10:00:00"] {
            assert!(bad.parse::<Since>().is_err(), "{bad}");
        }
    }

    #[test]
    fn cursors_round_trip_and_are_bound_to_the_filters() {
        let f = EventFilter {
            actor: Some("alice".into()),
            actions: vec!["claim", "pause"],
            ..EventFilter::default()
        };
        let p = Position {
            at: DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(),
            id: 42,
        };
        let c = encode_cursor(&f, p);
        assert_eq!(decode_cursor(&f, &c).unwrap(), p);
        // Order and duplicates of --action do not change the listing.
        let same = EventFilter {
            actions: vec!["pause", "claim", "pause"],
            ..f.clone()
        };
        assert_eq!(decode_cursor(&same, &c).unwrap(), p);
        let other = EventFilter {
            actor: Some("bob".into()),
            ..f.clone()
        };
        let err = decode_cursor(&other, &c).unwrap_err();
        assert!(err.message().contains("other filters"), "{}", err.message());
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn statements_bind_every_input() {
        let f = EventFilter {
            destination: Some("cms'; DROP TABLE job_events; --".into()),
            actor: Some("o'neil".into()),
            actions: vec!["claim", "complete", "pause"],
            since: Some(Since::Ago(Duration::from_secs(60))),
            ..EventFilter::default()
        };
        let sql = page_sql(&f, None, 50, None);
        assert!(!sql.text.contains("DROP"), "{}", sql.text);
        assert!(!sql.text.contains("o'neil"), "{}", sql.text);
        // Two job actions (a branch each), the older events, the destination events.
        assert_eq!(sql.text.matches("UNION ALL").count(), 3, "{}", sql.text);
        let seen = Snapshot::parse("10:12:10").unwrap();
        let delta = delta_sql(&f, &seen, None, None, 100);
        assert!(!delta.text.contains("DROP"), "{}", delta.text);
        assert!(!delta.text.contains("job_event_destinations"));
    }

    #[test]
    fn a_job_filter_reads_no_destination_events() {
        let f = EventFilter {
            job: Some(Uuid::nil()),
            actions: vec!["pause"],
            ..EventFilter::default()
        };
        assert!(!f.wants_job_events() && !f.wants_destination_events());
        let sql = page_sql(&f, None, 50, None);
        assert!(sql.text.contains("AND false"), "{}", sql.text);
        assert!(!sql.text.contains("destination_events"), "{}", sql.text);
    }

    #[test]
    fn polls_back_off_when_idle() {
        let mut d = POLL_MIN;
        for _ in 0..10 {
            d = next_poll(d, false);
        }
        assert_eq!(d, POLL_MAX);
        assert_eq!(next_poll(d, true), POLL_MIN);
    }
}
