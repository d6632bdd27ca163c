//! Out-of-order publication, for `check`: an older revision accepted after a newer one.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::sql::{secs, Prune, Sql};
use crate::error::{Error, Result};
use crate::jobs::state::State;

/// One job of an out-of-order pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AcceptedRevision {
    pub id: Uuid,
    pub revision_id: String,
    #[serde(serialize_with = "crate::jobs::model::rfc3339")]
    pub accepted_at: DateTime<Utc>,
}

/// An older revision accepted after a newer one, for one tenant, article and destination:
/// the destination may now show the older content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutOfOrder {
    pub tenant_id: String,
    pub article_id: String,
    pub destination: String,
    /// The older revision, accepted last.
    pub older: AcceptedRevision,
    /// The newer revision, accepted before it.
    pub newer: AcceptedRevision,
}

/// `$1` window in seconds: the id of the last event written before the window began (0:
/// none); the events after it are the window's. One probe of `ix_job_events_at (at, id)`
/// per month's partition, at the window's start. (Read backwards along the primary key
/// instead, it visited every event of the window before finding one old enough.) Ids and
/// times agree but for transactions that straddle the boundary, and the id found is never
/// above the largest id older than the window, so the window can only hold a few events
/// more, never fewer. Second column: whether the server's clock agreed with `prune`'s bounds
/// (see [`Prune`]; the probe looks back no further than the bounds: an event older than a
/// day before the window is as good as none, the window then starting at the first event
/// after the bound, which is older than the window).
pub fn event_window_sql(window: Duration, prune: &Prune) -> Sql {
    let mut sql = Sql::new();
    let secs_bound = sql.bind(secs(window));
    let (bounded, lo, hi) = prune.condition(&mut sql, "at");
    sql.text = format!(
        "SELECT COALESCE((SELECT id FROM job_events
                          WHERE at <= now() - make_interval(secs => {secs_bound}::float8)
                            AND {bounded}
                          ORDER BY at DESC, id DESC LIMIT 1), 0), {guard}",
        guard = prune.guard(&lo, &hi),
    );
    sql
}

/// The pairs whose older job is one of `recent` (a CTE yielding `job_id`), as rows of
/// (tenant, article, destination, older id, revision, accepted, newer id, revision,
/// accepted). The pair is decided on the table: each job by its primary key, then its
/// siblings (same tenant, article, destination) through `ux_publication_jobs_identity`, one
/// probe each whatever the planner guesses of `recent` (`LATERAL … OFFSET 0`: the suspects'
/// table is small and may never have been analyzed, and a join planned as a hash over
/// `publication_jobs` would read the whole table); a pair is out of order when the job of
/// the lower revision was accepted after the job of the higher one; "accepted" is the job's
/// `state_changed_at` (accepted is terminal, so it is when the job was accepted). Revisions
/// compare as V16's `job_revision_newer` says (numerically when both are integers, so `10`
/// is newer than `9`; otherwise byte by byte, never by the database's locale).
fn pairs_sql(recent: &str) -> String {
    let accepted = State::Accepted.literal();
    format!(
        "WITH recent AS ({recent})
        SELECT o.tenant_id, o.article_id, o.destination,
               o.id, o.revision_id, o.state_changed_at,
               n.id, n.revision_id, n.state_changed_at
        FROM recent r
        CROSS JOIN LATERAL (
            SELECT * FROM publication_jobs o
            WHERE o.id = r.job_id AND o.state = {accepted} OFFSET 0) o
        CROSS JOIN LATERAL (
            SELECT * FROM publication_jobs n
            WHERE n.tenant_id = o.tenant_id AND n.article_id = o.article_id
              AND n.destination = o.destination AND n.id <> o.id AND n.state = {accepted}
              AND n.state_changed_at < o.state_changed_at
              AND job_revision_newer(n.revision_id, o.revision_id)
            OFFSET 0) n
        ORDER BY o.state_changed_at, o.id, n.id"
    )
}

/// `$1` window in seconds: the out-of-order pairs among the suspects (V16's
/// `job_order_suspects`: the jobs accepted while a newer revision existed beside them) accepted
/// within the window. One range of `ix_job_order_suspects_accepted`, then each suspect's
/// siblings: what it reads grows with the suspects of the window, not with the acceptances.
pub fn out_of_order_sql(window: Duration) -> Sql {
    let mut sql = Sql::new();
    let secs_bound = sql.bind(secs(window));
    sql.text = pairs_sql(&format!(
        "SELECT job_id FROM job_order_suspects
         WHERE accepted_at > now() - make_interval(secs => {secs_bound}::float8)"
    ));
    sql
}

/// `$1` window in seconds: whether any suspect (V16's `job_order_suspects`) was accepted
/// within the window, and the last audit event before V16 was installed when that was within
/// the window (NULL otherwise, and always for a table that held no job then: the acceptances
/// before it were made before the triggers, and are looked for in the audit log,
/// [`logged_out_of_order_sql`]). Two probes of two small tables, sent first: the pairs'
/// statement ([`out_of_order_sql`], two joins over `publication_jobs`) costs a fresh session
/// most of a millisecond to plan, and most of the time there is no suspect to pair.
pub const SUSPECTS_SQL: &str = "SELECT EXISTS (SELECT 1 FROM job_order_suspects
         WHERE accepted_at > now() - make_interval(secs => $1::float8)),
     (SELECT before_event FROM job_order_watch
         WHERE since > now() - make_interval(secs => $1::float8))";

/// `$1` an event id (from [`event_window_sql`]), `$2` the last event before V16
/// ([`SUSPECTS_SQL`], its second column): the pairs whose older job was accepted between the
/// two, found through the audit log (`job_events` primary key). The boundary is a separate statement so that the
/// planner knows it, and with it how few events the window holds.
///
/// `prune`: the bounds the window was found with ([`event_window_sql`]); the events after
/// `after_event` are inside them.
pub fn logged_out_of_order_sql(after_event: i64, before_event: i64, prune: &Prune) -> Sql {
    let mut sql = Sql::new();
    let after = sql.bind(after_event);
    let before = sql.bind(before_event);
    let (bounded, _, _) = prune.condition(&mut sql, "e.at");
    let accepted = State::Accepted.literal();
    sql.text = pairs_sql(&format!(
        "SELECT DISTINCT e.job_id
         FROM job_events e
         WHERE e.id > {after}::bigint AND e.id <= {before}::bigint
           AND e.to_state = {accepted} AND {bounded}"
    ));
    sql
}

/// Out-of-order publications among the jobs accepted in the last `window`: the suspects'
/// pairs ([`out_of_order_sql`], planned and run only when [`SUSPECTS_SQL`] finds a suspect in
/// the window: one more round trip then, none planned over the table otherwise); within the first `window` after V16 was installed on a table
/// that held jobs, also those of the acceptances before it ([`logged_out_of_order_sql`]).
pub async fn out_of_order<C: GenericClient>(
    client: &C,
    window: Duration,
) -> Result<Vec<OutOfOrder>> {
    let window_secs = secs(window);
    let params = [(
        &window_secs as &(dyn tokio_postgres::types::ToSql + Sync),
        tokio_postgres::types::Type::FLOAT8,
    )];
    let found = client.query_typed_one(SUSPECTS_SQL, &params).await?;
    let (suspects, watch): (bool, Option<i64>) = (found.try_get(0)?, found.try_get(1)?);
    let mut pairs = if suspects {
        let rows = out_of_order_sql(window).query_typed(client).await?;
        rows.iter().map(pair).collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    if let Some(before) = watch {
        let logged = logged_out_of_order(client, window, Prune::around(window), before).await?;
        pairs.extend(logged);
        pairs.sort_by(|a, b| {
            (a.older.accepted_at, a.older.id, a.newer.id).cmp(&(
                b.older.accepted_at,
                b.older.id,
                b.newer.id,
            ))
        });
        pairs.dedup_by_key(|p| (p.older.id, p.newer.id));
    }
    Ok(pairs)
}

/// The pairs of the acceptances logged up to `before_event` within the last `window`
/// ([`logged_out_of_order_sql`]), with the pruning bounds given (this machine's clock is one
/// input to them).
pub async fn logged_out_of_order<C: GenericClient>(
    client: &C,
    window: Duration,
    prune: Prune,
    before_event: i64,
) -> Result<Vec<OutOfOrder>> {
    let (bound, prune) = prune
        .query(client, 1, |p| event_window_sql(window, p))
        .await?;
    let after: i64 = bound
        .first()
        .ok_or_else(|| Error::bug("the event window's statement returned no row"))?
        .try_get(0)?;
    let sql = logged_out_of_order_sql(after, before_event, &prune);
    let rows = client.query(&sql.text, &sql.params()).await?;
    rows.iter().map(pair).collect()
}

fn pair(row: &tokio_postgres::Row) -> Result<OutOfOrder> {
    Ok(OutOfOrder {
        tenant_id: row.try_get(0)?,
        article_id: row.try_get(1)?,
        destination: row.try_get(2)?,
        older: AcceptedRevision {
            id: row.try_get(3)?,
            revision_id: row.try_get(4)?,
            accepted_at: row.try_get(5)?,
        },
        newer: AcceptedRevision {
            id: row.try_get(6)?,
            revision_id: row.try_get(7)?,
            accepted_at: row.try_get(8)?,
        },
    })
}
