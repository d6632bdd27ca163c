//! A publication a destination must hold, for its positive control (SPEC §4): its
//! `canary_ref` (with what the job table records of it, when it is one of ours), else the most
//! recent job accepted there whose send is older than `settle_after`.

use std::time::Duration;

use tokio_postgres::GenericClient;
use uuid::Uuid;

use super::sql::{secs, Sql};
use crate::error::Result;
use crate::jobs::state::State;

/// What the job table knows of a publication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publication {
    pub external_ref: String,
    /// The job, when the reference is one of ours.
    pub job_id: Option<Uuid>,
    pub remote_id: Option<String>,
    pub payload_hash: Option<String>,
}

/// `$1` destination, `$2` settle_after in seconds: the most recently created job of the
/// destination that is accepted and was sent more than settle_after ago. A backward walk of
/// `ix_publication_jobs_destination_created` that stops at the first such job: almost every
/// job is accepted, so it reads a handful of rows (those still fresh), never the table.
pub fn accepted_publication_sql(destination: &str, settle_after: Duration) -> Sql {
    let mut sql = Sql::new();
    let d = sql.bind(destination.to_string());
    let settle = sql.bind(secs(settle_after));
    sql.text = format!(
        "SELECT external_ref, id, remote_id, payload_hash FROM publication_jobs
         WHERE destination = {d} AND state = {accepted}
           AND sent_at < now() - make_interval(secs => {settle}::float8)
         ORDER BY created_at DESC, id DESC LIMIT 1",
        accepted = State::bulk().literal()
    );
    sql
}

/// The positive control's publication for `destination` (see the module docs); `None` when
/// there is none.
pub async fn known_publication<C: GenericClient>(
    client: &C,
    destination: &str,
    settle_after: Duration,
    canary_ref: Option<&str>,
) -> Result<Option<Publication>> {
    let row = match canary_ref {
        Some(r) => {
            let row = client
                .query_opt(
                    "SELECT external_ref, id, remote_id, payload_hash FROM publication_jobs WHERE external_ref = $1",
                    &[&r],
                )
                .await?;
            if row.is_none() {
                return Ok(Some(Publication {
                    external_ref: r.to_string(),
                    job_id: None,
                    remote_id: None,
                    payload_hash: None,
                }));
            }
            row
        }
        None => {
            let sql = accepted_publication_sql(destination, settle_after);
            client.query_opt(&sql.text, &sql.params()).await?
        }
    };
    row.map(|row| {
        Ok(Publication {
            external_ref: row.try_get(0)?,
            job_id: Some(row.try_get(1)?),
            remote_id: row.try_get(2)?,
            payload_hash: Some(row.try_get(3)?),
        })
    })
    .transpose()
}
