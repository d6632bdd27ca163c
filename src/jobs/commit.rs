//! A COMMIT whose answer was lost: did it happen?
//!
//! When the connection drops after COMMIT was sent and before the server answered, the
//! client cannot tell whether the change was made. An operator's tool must not leave that
//! doubt behind (it is the very doubt `reconctl` exists to settle for publications). So a
//! change that matters runs in a transaction whose id is noted first
//! (`pg_current_xact_id()`), and if the answer to its COMMIT is lost, a new connection asks
//! the server what became of that transaction (`pg_xact_status()`): committed, or rolled
//! back. Only when even that cannot be learnt is the outcome reported as unknown, with the
//! transaction id to look up by hand.
//!
//! For one guarded move (a `mark`), [`guarded_move_tracked`] does it all:
//!
//! ```ignore
//! let outcome = commit::guarded_move_tracked(&**db, &req, ctx.target()?).await?;
//! ```
//!
//! Tests: tests/it/reliability/faults.rs (a proxy cuts the connection around COMMIT).

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio_postgres::GenericClient;

use super::store::{self, MoveOutcome, MoveRequest};
use crate::db::Target;
use crate::error::{Code, Error, Result};

/// A transaction id (PostgreSQL's xid8, as text: it is a 64-bit counter that never wraps).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct XactId(pub String);

impl std::fmt::Display for XactId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the server says became of a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XactStatus {
    Committed,
    Aborted,
    InProgress,
    /// Too old for the server to remember (or not a transaction id it knows).
    Unknown,
}

/// How a commit ended, when it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Committed {
    /// The server answered the COMMIT.
    Acknowledged,
    /// The answer was lost with the connection; asked afterwards, the server says it committed.
    Recovered,
}

/// How long to keep asking while the server still reports the transaction in progress (its
/// backend has not yet noticed the lost connection), and to keep trying to reconnect (the
/// server may be restarting).
const RESOLVE_FOR: Duration = Duration::from_secs(15);

/// [`store::guarded_move`] in a transaction of its own whose outcome is found out even when
/// the answer to its COMMIT is lost (the `client` must not be inside a transaction already).
/// A lost guard (`Conflict`) is rolled back; a move is committed, and returned only once the
/// server has committed it.
pub async fn guarded_move_tracked<C: GenericClient>(
    client: &C,
    req: &MoveRequest,
    target: &Target,
) -> Result<MoveOutcome> {
    let xid = begin(client).await?;
    let outcome = match store::guarded_move(client, req).await {
        Ok(o) => o,
        Err(e) => {
            rollback(client).await;
            return Err(e);
        }
    };
    match outcome {
        MoveOutcome::Moved { .. } => {
            commit(client, &xid, target).await?;
        }
        MoveOutcome::Conflict { .. } => rollback(client).await,
    }
    Ok(outcome)
}

/// BEGIN, and the id of the new transaction (assigned now, so it can be asked about later).
pub async fn begin<C: GenericClient>(client: &C) -> Result<XactId> {
    client.batch_execute("BEGIN").await?;
    match client
        .query_one("SELECT pg_current_xact_id()::text", &[])
        .await
    {
        Ok(row) => Ok(XactId(row.get(0))),
        Err(e) => {
            rollback(client).await;
            Err(e.into())
        }
    }
}

/// ROLLBACK, best effort (a lost connection has rolled back already).
pub async fn rollback<C: GenericClient>(client: &C) {
    let _ = client.batch_execute("ROLLBACK").await;
}

/// COMMIT the transaction [`begin`] opened. If the connection is lost before the answer,
/// ask the server over a new connection to `target` whether it committed:
/// * committed → `Ok(Committed::Recovered)`;
/// * rolled back → an error saying nothing changed (exit 1, safe to run again);
/// * unknowable → an error naming the transaction id to look up (exit 1).
///
/// An error the server itself answered (a deferred constraint, a serialization failure) is
/// returned as it is: the server rolled the transaction back.
pub async fn commit<C: GenericClient>(
    client: &C,
    xid: &XactId,
    target: &Target,
) -> Result<Committed> {
    commit_within(client, xid, target, RESOLVE_FOR).await
}

/// [`commit`], asking for at most `resolve_for` after a lost answer.
pub async fn commit_within<C: GenericClient>(
    client: &C,
    xid: &XactId,
    target: &Target,
    resolve_for: Duration,
) -> Result<Committed> {
    match client.batch_execute("COMMIT").await {
        Ok(()) => Ok(Committed::Acknowledged),
        Err(e) if e.as_db_error().is_some() => Err(e.into()),
        Err(_) => resolve(target, xid, resolve_for).await,
    }
}

/// Ask, over a new connection, what became of `xid` after its COMMIT's answer was lost;
/// keep trying for `resolve_for` (the server may be restarting).
pub async fn resolve(target: &Target, xid: &XactId, resolve_for: Duration) -> Result<Committed> {
    let started = Instant::now();
    let mut last = XactStatus::Unknown;
    let mut reached = false;
    while started.elapsed() < resolve_for {
        if let Ok(c) = target.connect().await {
            reached = true;
            match status(&c, xid).await {
                Ok(XactStatus::Committed) => return Ok(Committed::Recovered),
                Ok(XactStatus::Aborted) => {
                    return Err(Error::new(
            Code::NotCommitted,
                        format!(
                            "the connection to the database was lost during COMMIT; the server rolled the transaction back (transaction {xid}): nothing changed"
                        ),
                    )
                    .hinted("it is safe to run the command again"))
                }
                Ok(s @ XactStatus::Unknown) => {
                    last = s;
                    break;
                }
                Ok(s) => last = s,
                Err(_) => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let why = if !reached {
        format!(
            "the server could not be reached again within {}s",
            resolve_for.as_secs()
        )
    } else if last == XactStatus::InProgress {
        "the server still reports the transaction in progress".to_string()
    } else {
        "the server no longer knows the transaction".to_string()
    };
    Err(Error::new(
            Code::CommitUnknown,
        format!(
            "the connection to the database was lost during COMMIT, and whether it committed is not known: {why}"
        ),
    )
    .hinted(format!(
        "ask the server: SELECT pg_xact_status('{xid}'); then look at the job with `reconctl jobs show` before doing anything else"
    )))
}

/// What the server says became of `xid` (`pg_xact_status`).
pub async fn status<C: GenericClient>(client: &C, xid: &XactId) -> Result<XactStatus> {
    let row = client
        .query_one("SELECT pg_xact_status($1::text::xid8)", &[&xid.0])
        .await?;
    let s: Option<String> = row.get(0);
    Ok(match s.as_deref() {
        Some("committed") => XactStatus::Committed,
        Some("aborted") => XactStatus::Aborted,
        Some("in progress") => XactStatus::InProgress,
        _ => XactStatus::Unknown,
    })
}
