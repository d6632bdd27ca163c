//! Plans (SPEC §8): a durable, reviewable list of guarded moves, and its lifecycle.
//!
//! A plan is written once (`plans`, never changed); its items (`plan_items`) are written
//! `planned` or `refused` and each `planned` one is settled exactly once (moved, skipped or
//! refused); its lifecycle (`plan_events`: created, approved, apply, applied, discarded) is
//! append-only. The moves themselves are the guarded moves of the transition table
//! (`jobs::reconcile::settle_batch`, one statement and one transaction per batch, the COMMIT
//! resolved when its answer is lost), each with its event carrying `"plan": ID`.
//!
//! Resuming is safe because an item's outcome is read from the facts, not from a note taken
//! beside the move: an item is `moved` when the job's event that left the item's version
//! names the plan ([`SETTLE_ITEMS_SQL`]). A run killed between a move's COMMIT and the note
//! of its item, or a second apply of the same plan at the same time, finds the guard missed
//! (the version moved on) and the event there: the item is `moved`, once.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::model::{rfc3339, Job, JOB_COLUMNS};
use super::state::{Action, State};
use crate::error::{Code, Error, Result};

/// The reason of a skipped item whose job is already where the plan would put it: the plan's
/// work is done for it (`plan apply` counts it as done, not as a skip needing a person).
pub const ALREADY: &str = "already ";

/// A new plan id: `p` and 8 hex digits, short enough to copy, random enough not to collide
/// in practice (the primary key refuses the rare collision, and the caller tries again).
pub fn new_id() -> String {
    let u = Uuid::new_v4();
    format!("p{}", &u.simple().to_string()[..8])
}

/// Whether `s` looks like a plan id.
pub fn is_plan_id(s: &str) -> bool {
    s.len() >= 9
        && s.starts_with('p')
        && s[1..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// One approval of a plan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Approval {
    pub actor: String,
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    pub reason: Option<String>,
}

/// A plan as SPEC §8's JSON shows it (`status` is computed: see [`Plan::status`]).
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub id: String,
    pub actor: String,
    #[serde(serialize_with = "rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "rfc3339")]
    pub expires_at: DateTime<Utc>,
    #[serde(rename = "move")]
    pub target: State,
    pub reason: String,
    pub filter: Value,
    pub approvals: Vec<Approval>,
    pub status: String,
    #[serde(skip)]
    pub no_lookup: bool,
    #[serde(skip)]
    pub discarded: Option<Approval>,
    #[serde(skip)]
    pub applies: i64,
    #[serde(skip)]
    pub now: DateTime<Utc>,
}

/// Item counts by status.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub planned: i64,
    pub moved: i64,
    pub skipped: i64,
    pub refused: i64,
    /// Skipped because the job already was where the plan would put it.
    #[serde(skip)]
    pub already: i64,
}

impl Plan {
    /// Approvals that count: by distinct actors other than the creator.
    pub fn counted_approvals(&self) -> usize {
        let mut actors: Vec<&str> = self
            .approvals
            .iter()
            .map(|a| a.actor.as_str())
            .filter(|a| *a != self.actor)
            .collect();
        actors.sort();
        actors.dedup();
        actors.len()
    }

    /// `discarded`, `applied` (applied, nothing left planned), `expired`, `partially_applied`
    /// (an apply ran, items are left), `awaiting_approval` (short of `required`), `ready`.
    pub fn compute_status(&self, summary: &Summary, required: usize) -> &'static str {
        if self.discarded.is_some() {
            "discarded"
        } else if self.applies > 0 && summary.planned == 0 {
            "applied"
        } else if self.now >= self.expires_at {
            "expired"
        } else if self.applies > 0 {
            "partially_applied"
        } else if self.counted_approvals() < required {
            "awaiting_approval"
        } else {
            "ready"
        }
    }
}

/// One item as SPEC §8's JSON shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    #[serde(skip)]
    pub seq: i32,
    pub job_id: Uuid,
    pub external_ref: String,
    pub destination: String,
    pub from_state: State,
    pub version: i64,
    pub to_state: State,
    pub status: String,
    pub reason: Option<String>,
    #[serde(skip)]
    pub action: Action,
    #[serde(skip)]
    pub evidence: Option<Value>,
    #[serde(skip)]
    pub event_id: Option<i64>,
}

const ITEM_COLUMNS: &str = "seq, job_id, external_ref, destination, from_state, version, \
     to_state, status, reason, action, evidence, event_id";

fn parse<T: std::str::FromStr<Err = String>>(s: &str) -> Result<T> {
    s.parse()
        .map_err(|e: String| Error::bug(format!("a plan item holds {e}")))
}

impl Item {
    fn from_row(row: &tokio_postgres::Row) -> Result<Item> {
        Ok(Item {
            seq: row.try_get(0)?,
            job_id: row.try_get(1)?,
            external_ref: row.try_get(2)?,
            destination: row.try_get(3)?,
            from_state: parse(row.try_get::<_, &str>(4)?)?,
            version: row.try_get(5)?,
            to_state: parse(row.try_get::<_, &str>(6)?)?,
            status: row.try_get(7)?,
            reason: row.try_get(8)?,
            action: parse(row.try_get::<_, &str>(9)?)?,
            evidence: row.try_get(10)?,
            event_id: row.try_get(11)?,
        })
    }
}

/// An item to record at plan time.
#[derive(Debug, Clone)]
pub struct NewItem {
    pub job: Job,
    pub action: Action,
    /// `None`: planned; `Some(why)`: refused.
    pub refused: Option<String>,
    pub evidence: Option<Value>,
}

/// What a new plan records.
#[derive(Debug, Clone)]
pub struct NewPlan {
    pub actor: String,
    pub expires_in: std::time::Duration,
    pub target: State,
    pub reason: String,
    pub filter: Value,
    pub no_lookup: bool,
}

/// Insert the plan row and its `created` record; returns the id. Run inside the plan's
/// transaction.
pub async fn insert_plan<C: GenericClient>(client: &C, p: &NewPlan) -> Result<String> {
    for _ in 0..5 {
        let id = new_id();
        let n = client
            .execute(
                "INSERT INTO plans (id, actor, expires_at, move, reason, filter, no_lookup)
                 VALUES ($1, $2, now() + make_interval(secs => $3::float8), $4, $5, $6, $7)
                 ON CONFLICT (id) DO NOTHING",
                &[
                    &id,
                    &p.actor,
                    &p.expires_in.as_secs_f64(),
                    &p.target.as_str(),
                    &p.reason,
                    &p.filter,
                    &p.no_lookup,
                ],
            )
            .await?;
        if n == 1 {
            record(
                client,
                &id,
                &p.actor,
                "created",
                Some(&p.reason),
                &Value::Null,
            )
            .await?;
            return Ok(id);
        }
    }
    Err(Error::bug("five random plan ids were all taken"))
}

/// Record items, numbered after those already recorded.
pub async fn insert_items<C: GenericClient>(
    client: &C,
    plan_id: &str,
    first_seq: i32,
    items: &[NewItem],
) -> Result<u64> {
    if items.is_empty() {
        return Ok(0);
    }
    let seqs: Vec<i32> = (0..items.len() as i32).map(|i| first_seq + i).collect();
    let ids: Vec<Uuid> = items.iter().map(|i| i.job.id).collect();
    let refs: Vec<&str> = items.iter().map(|i| i.job.external_ref.as_str()).collect();
    let dests: Vec<&str> = items.iter().map(|i| i.job.destination.as_str()).collect();
    let from: Vec<&str> = items.iter().map(|i| i.job.state.as_str()).collect();
    let versions: Vec<i64> = items.iter().map(|i| i.job.version).collect();
    let to: Vec<&str> = items.iter().map(|i| i.action.to().as_str()).collect();
    let actions: Vec<&str> = items.iter().map(|i| i.action.as_str()).collect();
    let status: Vec<&str> = items
        .iter()
        .map(|i| {
            if i.refused.is_some() {
                "refused"
            } else {
                "planned"
            }
        })
        .collect();
    let reasons: Vec<Option<&str>> = items.iter().map(|i| i.refused.as_deref()).collect();
    let evidence: Vec<Option<&Value>> = items.iter().map(|i| i.evidence.as_ref()).collect();
    Ok(client
        .execute(
            "INSERT INTO plan_items (plan_id, seq, job_id, external_ref, destination, from_state,
                 version, to_state, action, status, reason, evidence, settled_at)
             SELECT $1, t.*, CASE WHEN t.status = 'refused' THEN now() END
             FROM unnest($2::int[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::bigint[],
                         $8::text[], $9::text[], $10::text[], $11::text[], $12::jsonb[])
                  AS t(seq, job_id, external_ref, destination, from_state, version, to_state,
                       action, status, reason, evidence)",
            &[
                &plan_id, &seqs, &ids, &refs, &dests, &from, &versions, &to, &actions, &status,
                &reasons, &evidence,
            ],
        )
        .await?)
}

/// The selection of `plan mark` by filter: jobs in `states`, filtered, oldest first, at most
/// `limit`. Parameters `$2..`; `$1` is the plan id (see [`insert_selected`]).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub states: Vec<State>,
    pub destination: Option<String>,
    pub tenant: Option<String>,
    pub article: Option<String>,
    pub older_than: Option<std::time::Duration>,
    pub limit: Option<i64>,
}

impl Selection {
    fn where_sql(&self) -> String {
        let mut w = format!("state IN ({})", State::literals(&self.states));
        w.push_str(" AND ($2::text IS NULL OR destination = $2)");
        w.push_str(" AND ($3::text IS NULL OR tenant_id = $3)");
        w.push_str(" AND ($4::text IS NULL OR article_id = $4)");
        w.push_str(
            " AND ($5::float8 IS NULL OR state_changed_at < now() - make_interval(secs => $5))",
        );
        w
    }

    fn older(&self) -> Option<f64> {
        self.older_than.map(|d| d.as_secs_f64())
    }
}

/// Every selected job becomes a planned item in one statement (a move that needs no lookup:
/// `failed`, or `--no-lookup`). Each item's action is the transition table's row for its
/// state (`actions`: state → action).
pub async fn insert_selected<C: GenericClient>(
    client: &C,
    plan_id: &str,
    sel: &Selection,
    actions: &[(State, Action)],
) -> Result<u64> {
    let from: Vec<&str> = actions.iter().map(|(s, _)| s.as_str()).collect();
    let acts: Vec<&str> = actions.iter().map(|(_, a)| a.as_str()).collect();
    let to: Vec<&str> = actions.iter().map(|(_, a)| a.to().as_str()).collect();
    let sql = format!(
        "INSERT INTO plan_items (plan_id, seq, job_id, external_ref, destination, from_state,
             version, to_state, action, status)
         SELECT $1, row_number() OVER (ORDER BY j.created_at, j.id), j.id, j.external_ref,
                j.destination, j.state, j.version, a.to_state, a.action, 'planned'
         FROM (SELECT id, external_ref, destination, state, version, created_at
               FROM publication_jobs WHERE {} ORDER BY created_at, id LIMIT $6) j
         JOIN unnest($7::text[], $8::text[], $9::text[]) AS a(from_state, action, to_state)
           ON a.from_state = j.state",
        sel.where_sql()
    );
    Ok(client
        .execute(
            &sql,
            &[
                &plan_id,
                &sel.destination,
                &sel.tenant,
                &sel.article,
                &sel.older(),
                &sel.limit,
                &from,
                &acts,
                &to,
            ],
        )
        .await?)
}

/// One page of the selection, after `after` (created_at, id), for a plan whose moves need a
/// lookup.
pub async fn select_page<C: GenericClient>(
    client: &C,
    sel: &Selection,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> Result<Vec<Job>> {
    let (at, id) = after.unzip();
    let sql = format!(
        "SELECT {JOB_COLUMNS} FROM publication_jobs WHERE {} \
         AND ($6::timestamptz IS NULL OR (created_at, id) > ($6, $7::uuid)) \
         ORDER BY created_at, id LIMIT $1",
        sel.where_sql()
    );
    let rows = client
        .query(
            &sql,
            &[
                &limit,
                &sel.destination,
                &sel.tenant,
                &sel.article,
                &sel.older(),
                &at,
                &id,
            ],
        )
        .await?;
    rows.iter().map(Job::from_row).collect()
}

/// Record a lifecycle event of a plan.
pub async fn record<C: GenericClient>(
    client: &C,
    plan_id: &str,
    actor: &str,
    action: &str,
    reason: Option<&str>,
    evidence: &Value,
) -> Result<()> {
    let evidence = if evidence.is_null() {
        serde_json::json!({})
    } else {
        evidence.clone()
    };
    client
        .execute(
            "INSERT INTO plan_events (plan_id, actor, action, reason, evidence) VALUES ($1, $2, $3, $4, $5)",
            &[&plan_id, &actor, &action, &reason, &evidence],
        )
        .await?;
    Ok(())
}

/// The plan `id` with its approvals, discard and applies (status not yet computed), or exit 4.
pub async fn load<C: GenericClient>(client: &C, id: &str) -> Result<Plan> {
    let row = client
        .query_opt(
            "SELECT id, actor, created_at, expires_at, move, reason, filter, no_lookup, now()
             FROM plans WHERE id = $1",
            &[&id],
        )
        .await?
        .ok_or_else(|| {
            Error::not_found(format!("no plan {id}"))
                .hinted("list the plans with `reconctl plan list`")
        })?;
    let mut plan = Plan {
        id: row.try_get(0)?,
        actor: row.try_get(1)?,
        created_at: row.try_get(2)?,
        expires_at: row.try_get(3)?,
        target: parse(row.try_get::<_, &str>(4)?)?,
        reason: row.try_get(5)?,
        filter: row.try_get(6)?,
        no_lookup: row.try_get(7)?,
        now: row.try_get(8)?,
        approvals: Vec::new(),
        status: String::new(),
        discarded: None,
        applies: 0,
    };
    let events = client
        .query(
            "SELECT action, actor, at, reason FROM plan_events WHERE plan_id = $1 ORDER BY id",
            &[&id],
        )
        .await?;
    for e in events {
        let action: &str = e.try_get(0)?;
        let a = Approval {
            actor: e.try_get(1)?,
            at: e.try_get(2)?,
            reason: e.try_get(3)?,
        };
        match action {
            "approved" => plan.approvals.push(a),
            "discarded" => plan.discarded = Some(a),
            "apply" => plan.applies += 1,
            _ => {}
        }
    }
    Ok(plan)
}

/// The item counts of a plan.
pub async fn summary<C: GenericClient>(client: &C, id: &str) -> Result<Summary> {
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE status = 'planned'),
                    count(*) FILTER (WHERE status = 'moved'),
                    count(*) FILTER (WHERE status = 'skipped'),
                    count(*) FILTER (WHERE status = 'refused'),
                    count(*) FILTER (WHERE status = 'skipped' AND starts_with(reason, $2))
             FROM plan_items WHERE plan_id = $1",
            &[&id, &ALREADY],
        )
        .await?;
    Ok(Summary {
        planned: row.try_get(0)?,
        moved: row.try_get(1)?,
        skipped: row.try_get(2)?,
        refused: row.try_get(3)?,
        already: row.try_get(4)?,
    })
}

/// Counts per action (move) and destination, for the table.
pub async fn counts_by_move<C: GenericClient>(
    client: &C,
    id: &str,
) -> Result<Vec<(String, String, String, i64)>> {
    let rows = client
        .query(
            "SELECT action, destination, status, count(*) FROM plan_items WHERE plan_id = $1
             GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            &[&id],
        )
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)))
        .collect()
}

/// Items after `after_seq`, in order; `status` filters (None: all).
pub async fn items<C: GenericClient>(
    client: &C,
    id: &str,
    status: Option<&str>,
    after_seq: i32,
    limit: i64,
) -> Result<Vec<Item>> {
    let rows = client
        .query(
            &format!(
                "SELECT {ITEM_COLUMNS} FROM plan_items
                 WHERE plan_id = $1 AND seq > $2 AND ($3::text IS NULL OR status = $3)
                 ORDER BY seq LIMIT $4"
            ),
            &[&id, &after_seq, &status, &limit],
        )
        .await?;
    rows.iter().map(Item::from_row).collect()
}

/// The jobs of `ids` as they are now.
pub async fn jobs_now<C: GenericClient>(client: &C, ids: &[Uuid]) -> Result<Vec<Job>> {
    let rows = client
        .query(
            &format!("SELECT {JOB_COLUMNS} FROM publication_jobs WHERE id = ANY($1)"),
            &[&ids],
        )
        .await?;
    rows.iter().map(Job::from_row).collect()
}

/// What an apply proposes for one item after its move was tried.
#[derive(Debug, Clone)]
pub enum Proposed {
    Moved,
    Skipped(String),
    Refused(String),
    /// Left planned (its row was busy): the next apply tries it again.
    Left,
}

/// Settle items from the facts: an item whose job left the item's version by an event that
/// names this plan is `moved` (with that event), whatever the run proposed; otherwise the
/// proposal stands (a `Left` item stays planned). Only `planned` items change, each once.
///
/// `$2..$4` the batch's outcomes (seq, status, reason), `$5, $6` each item's job and version
/// (an item's row is changed only when they are its own), `$7..$8` the batch's range of seqs.
/// The rows are reached through that range of `ix_plan_items_open`, so a batch costs the same
/// at the start of a plan of 100 000 items as at its end.
pub const SETTLE_ITEMS_SQL: &str = "
UPDATE plan_items p SET
    status = CASE WHEN f.event_id IS NOT NULL THEN 'moved' ELSE f.status END,
    reason = CASE WHEN f.event_id IS NOT NULL THEN NULL ELSE f.reason END,
    event_id = f.event_id,
    settled_at = now()
FROM (
    SELECT i.*, e.id AS event_id
    FROM unnest($2::int[], $3::text[], $4::text[], $5::uuid[], $6::bigint[])
         AS i(seq, status, reason, job_id, version)
    -- each item's event, looked for once
    LEFT JOIN LATERAL (
        SELECT e.id FROM job_events e
        WHERE e.job_id = i.job_id AND e.from_version = i.version AND e.evidence->>'plan' = $1
          -- a move of the plan came after the plan and by now: the log's partitions of those
          -- months only, not every month's index for every item
          AND e.at >= (SELECT created_at FROM plans WHERE id = $1) AND e.at <= now()
        ORDER BY e.id LIMIT 1) e ON true
) f
-- the items' rows: the batch's range ($7..$8) of the plan's open items, never all of them;
-- the job and version looked for are each item's own
WHERE p.plan_id = $1 AND p.seq BETWEEN $7 AND $8
  AND p.seq = f.seq AND p.job_id = f.job_id AND p.version = f.version
  AND p.status = 'planned' AND (f.event_id IS NOT NULL OR f.status <> 'planned')";

/// [`SETTLE_ITEMS_SQL`] for the `outcomes` of a batch of `items` (in seq order).
pub async fn settle_items<C: GenericClient>(
    client: &C,
    plan_id: &str,
    items: &[Item],
    outcomes: &[(i32, Proposed)],
) -> Result<u64> {
    if outcomes.is_empty() {
        return Ok(0);
    }
    let item = |seq: i32| {
        items
            .binary_search_by_key(&seq, |i| i.seq)
            .map(|k| &items[k])
            .map_err(|_| Error::bug(format!("item {seq} is not in its batch")))
    };
    let seqs: Vec<i32> = outcomes.iter().map(|(s, _)| *s).collect();
    let jobs: Vec<Uuid> = seqs
        .iter()
        .map(|s| Ok(item(*s)?.job_id))
        .collect::<Result<_>>()?;
    let versions: Vec<i64> = seqs
        .iter()
        .map(|s| Ok(item(*s)?.version))
        .collect::<Result<_>>()?;
    let (first, last) = (seqs.iter().min(), seqs.iter().max());
    let status: Vec<&str> = outcomes
        .iter()
        .map(|(_, p)| match p {
            Proposed::Moved => "moved",
            Proposed::Skipped(_) => "skipped",
            Proposed::Refused(_) => "refused",
            Proposed::Left => "planned",
        })
        .collect();
    let reasons: Vec<Option<&str>> = outcomes
        .iter()
        .map(|(_, p)| match p {
            Proposed::Skipped(r) | Proposed::Refused(r) => Some(r.as_str()),
            _ => None,
        })
        .collect();
    Ok(client
        .execute(
            SETTLE_ITEMS_SQL,
            &[
                &plan_id, &seqs, &status, &reasons, &jobs, &versions, &first, &last,
            ],
        )
        .await?)
}

/// Plans, newest first.
pub async fn list<C: GenericClient>(client: &C, limit: i64) -> Result<Vec<String>> {
    let rows = client
        .query(
            "SELECT id FROM plans ORDER BY created_at DESC, id DESC LIMIT $1",
            &[&limit],
        )
        .await?;
    rows.iter().map(|r| Ok(r.try_get(0)?)).collect()
}

/// A plan's lifecycle records, as `events --plan` lists them.
#[derive(Debug, Clone, Serialize)]
pub struct PlanEvent {
    pub id: i64,
    pub plan_id: String,
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: String,
    pub reason: Option<String>,
    pub evidence: Value,
}

pub async fn lifecycle<C: GenericClient>(client: &C, plan_id: &str) -> Result<Vec<PlanEvent>> {
    let rows = client
        .query(
            "SELECT id, plan_id, at, actor, action, reason, evidence FROM plan_events
             WHERE plan_id = $1 ORDER BY id",
            &[&plan_id],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(PlanEvent {
                id: r.try_get(0)?,
                plan_id: r.try_get(1)?,
                at: r.try_get(2)?,
                actor: r.try_get(3)?,
                action: r.try_get(4)?,
                reason: r.try_get(5)?,
                evidence: r.try_get(6)?,
            })
        })
        .collect()
}

/// The events of a plan's moves (each names the plan in its evidence), by way of the items
/// that recorded them, oldest first.
pub async fn move_events<C: GenericClient>(
    client: &C,
    plan_id: &str,
) -> Result<Vec<super::model::Event>> {
    let rows = client
        .query(
            &format!(
                "SELECT {} FROM job_events e JOIN plan_items i ON i.event_id = e.id
                 WHERE i.plan_id = $1 AND i.status = 'moved' ORDER BY e.id",
                super::model::qualified(super::model::EVENT_COLUMNS, "e")
            ),
            &[&plan_id],
        )
        .await?;
    rows.iter().map(super::model::Event::from_row).collect()
}

/// The job id → (destination, external_ref) of a plan's moved items.
pub async fn moved_items<C: GenericClient>(
    client: &C,
    plan_id: &str,
) -> Result<std::collections::HashMap<Uuid, (String, String)>> {
    let rows = client
        .query(
            "SELECT job_id, destination, external_ref FROM plan_items
             WHERE plan_id = $1 AND status = 'moved'",
            &[&plan_id],
        )
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?))))
        .collect()
}

/// A plan applied, or being applied, in the last hour: `status -v` names it beside the moves
/// it counts, so the moves that came from plans say so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecentApply {
    pub id: String,
    #[serde(rename = "move")]
    pub target: State,
    /// Who ran its latest apply.
    pub actor: String,
    /// `applied`: its latest apply finished; `applying`: an apply started and has not
    /// finished (still running, or stopped: `plan show` says).
    pub status: &'static str,
    /// Its items moved so far, by every apply.
    pub moved: i64,
    /// When its latest apply finished (`applied`) or started (`applying`).
    #[serde(serialize_with = "rfc3339")]
    pub at: DateTime<Utc>,
}

/// The plans whose latest `apply` or `applied` record is of the last `$1` seconds, newest
/// first: a range of `ix_plan_events_at` (V13), whatever the number of plans ever made. A
/// finished apply's moved count is in its record (the plan's summary when it finished); only
/// a plan still being applied has its moved items counted.
pub const RECENT_APPLIES_SQL: &str = "
SELECT r.plan_id, p.move, r.actor, r.action, r.at,
       COALESCE(CASE WHEN r.action = 'applied' THEN (r.evidence #>> '{summary,moved}')::bigint END,
                (SELECT count(*) FROM plan_items i WHERE i.plan_id = r.plan_id AND i.status = 'moved'))
FROM (SELECT DISTINCT ON (plan_id) plan_id, actor, action, at, evidence
      FROM plan_events
      WHERE at > now() - make_interval(secs => $1::float8) AND action IN ('apply', 'applied')
      ORDER BY plan_id, id DESC) r
JOIN plans p ON p.id = r.plan_id
ORDER BY r.at DESC, r.plan_id";

/// The plans applied, or being applied, in the last `within`, newest first.
pub async fn recent_applies<C: GenericClient>(
    client: &C,
    within: std::time::Duration,
) -> Result<Vec<RecentApply>> {
    let rows = client
        .query_typed(
            RECENT_APPLIES_SQL,
            &[(&within.as_secs_f64(), tokio_postgres::types::Type::FLOAT8)],
        )
        .await?;
    rows.iter()
        .map(|r| {
            let action: &str = r.try_get(3)?;
            Ok(RecentApply {
                id: r.try_get(0)?,
                target: parse(r.try_get::<_, &str>(1)?)?,
                actor: r.try_get(2)?,
                status: if action == "applied" {
                    "applied"
                } else {
                    "applying"
                },
                at: r.try_get(4)?,
                moved: r.try_get(5)?,
            })
        })
        .collect()
}

/// A refusal to apply or approve: exit 2, nothing moved.
pub fn refuse(message: String, hint: &str) -> Error {
    Error::new(Code::Usage, message).hinted(hint.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_ids_are_short_and_recognisable() {
        let id = new_id();
        assert_eq!(id.len(), 9);
        assert!(is_plan_id(&id), "{id}");
        assert!(!is_plan_id("p123"));
        assert!(!is_plan_id("x12345678"));
        assert!(!is_plan_id("p1234567z"));
    }
}
