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

/// `$1` an event id (from [`event_window_sql`]). Finds the jobs accepted after that event
/// through the audit log (`job_events` primary key: there is no index on when an accepted job
/// was accepted, and there need not be one on a table that is 97% accepted), then their
/// accepted siblings (same tenant, article, destination) through
/// `ux_publication_jobs_identity`. The boundary is a separate statement so that the planner
/// knows it, and with it how few events the window holds. A pair is out of order when the job
/// of the lower revision was accepted after the job of the higher one; "accepted" is the
/// job's `state_changed_at` (accepted is terminal, so it is when the job was accepted).
///
/// Revision ids are text. When both are integers they compare numerically, so `10` is newer
/// than `9` (leading zeros stripped, then the longer number is the larger, equal lengths
/// compare digit by digit: no overflow whatever their length); otherwise they compare
/// lexically, byte by byte (`COLLATE "C"`), so the order never depends on the database's
/// locale.
///
/// `prune`: the bounds the window was found with ([`event_window_sql`]); the events after
/// `after_event` are inside them.
pub fn out_of_order_sql(after_event: i64, prune: &Prune) -> Sql {
    let mut sql = Sql::new();
    let after = sql.bind(after_event);
    let (bounded, _, _) = prune.condition(&mut sql, "e.at");
    let accepted = State::Accepted.literal();
    sql.text = format!(
        "WITH recent AS (
            SELECT DISTINCT e.job_id
            FROM job_events e
            WHERE e.id > {after}::bigint AND e.to_state = {accepted} AND {bounded}
        )
        SELECT o.tenant_id, o.article_id, o.destination,
               o.id, o.revision_id, o.state_changed_at,
               n.id, n.revision_id, n.state_changed_at
        FROM recent r
        JOIN publication_jobs o ON o.id = r.job_id
        JOIN publication_jobs n
          ON n.tenant_id = o.tenant_id AND n.article_id = o.article_id
         AND n.destination = o.destination AND n.id <> o.id
        WHERE o.state = {accepted} AND n.state = {accepted}
          AND n.state_changed_at < o.state_changed_at
          AND CASE WHEN n.revision_id ~ '^[0-9]+$' AND o.revision_id ~ '^[0-9]+$'
                   THEN (length(ltrim(n.revision_id, '0')), ltrim(n.revision_id, '0') COLLATE \"C\")
                      > (length(ltrim(o.revision_id, '0')), ltrim(o.revision_id, '0') COLLATE \"C\")
                   ELSE n.revision_id COLLATE \"C\" > o.revision_id COLLATE \"C\"
              END
        ORDER BY o.state_changed_at, o.id, n.id"
    );
    sql
}

/// Out-of-order publications among the jobs accepted in the last `window` (see
/// [`out_of_order_sql`]).
pub async fn out_of_order<C: GenericClient>(
    client: &C,
    window: Duration,
) -> Result<Vec<OutOfOrder>> {
    out_of_order_pruned(client, window, Prune::around(window)).await
}

/// [`out_of_order`] with the pruning bounds given (this machine's clock is one input to them).
pub async fn out_of_order_pruned<C: GenericClient>(
    client: &C,
    window: Duration,
    prune: Prune,
) -> Result<Vec<OutOfOrder>> {
    let (bound, prune) = prune
        .query(client, 1, |p| event_window_sql(window, p))
        .await?;
    let after: i64 = bound
        .first()
        .ok_or_else(|| Error::bug("the event window's statement returned no row"))?
        .try_get(0)?;
    let sql = out_of_order_sql(after, &prune);
    let rows = client.query(&sql.text, &sql.params()).await?;
    rows.iter()
        .map(|row| {
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
        })
        .collect()
}
