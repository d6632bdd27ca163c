//! The exact counts per state and destination (`job_counters`, migrations/V10), and the two
//! things that write their base: `migrate` building them for the rows written before V10,
//! and `doctor --recount` verifying them against a real count and repairing them.
//!
//! The triggers of V10 add every write's change to the slots 0..15 in the writer's own
//! transaction. Both operations here work the same way, without stopping any writer: in one
//! REPEATABLE READ snapshot they count the table (C) and sum the counters (K). Every
//! transaction visible in that snapshot is in both C and (when it wrote after V10) K; every
//! transaction not visible is in neither, and adds its change to the counters when it
//! commits. So the counters are exact once `C - K` is added to them; it goes into the base
//! slot -1, which no trigger writes, so the insert cannot wait for or conflict with a writer.
//! (For a table with writes before V10, K holds only the later writes' changes and `C - K`
//! is exactly the count the triggers never saw.) The migration lock serializes the two.

use std::time::Duration;

use serde::Serialize;
use tokio_postgres::Client;

use crate::error::{Error, Result};

/// Serializes builds and recounts (`pg_try_advisory_lock`): "counters".
const COUNTERS_LOCK: i64 = 0x636f_756e_7465_7273;

/// The base slot: written only here.
pub const BASE_SLOT: i16 = -1;

/// Is `job_counters` complete (built by the migration on an empty table, by `migrate` or
/// by `doctor --recount`)?
pub const BUILT_SQL: &str = "SELECT built_at IS NOT NULL FROM job_counters_build";

/// [`BUILT_SQL`] as an expression, for a statement that asks it beside its own work.
pub const BUILT_EXPR: &str =
    "coalesce((SELECT built_at IS NOT NULL FROM job_counters_build), false)";

/// `inner` (a whole SELECT, aliased `alias`) beside whether the counters are built: the
/// first column is that answer, `columns` (of `alias`) follow, and there is always a row
/// (`columns` NULL when `inner` has none). For a statement that reads the counters and is
/// sent with the others, not after the question; when they are not built, its caller reads
/// the table instead.
pub fn beside_built(columns: &str, inner: &str, alias: &str) -> String {
    format!("SELECT b.yes, {columns} FROM (SELECT {BUILT_EXPR} AS yes) b LEFT JOIN ({inner}) {alias} ON true")
}

/// [`beside_built`] with the statement's `now()` first: the clock, whether the counters are
/// built and whether a fold of them is due ([`FOLD_DUE`]; the reader then folds after
/// reading, [`fold_counts`]), then `columns`, for the statement whose answer a command
/// reports "as of". One statement where a separate `SELECT now(), …` cost a fresh session a
/// third of a millisecond more.
pub fn beside_clock(columns: &str, inner: &str, alias: &str) -> String {
    format!("SELECT b.now, b.yes, b.due, {columns} FROM (SELECT now() AS now, {BUILT_EXPR} AS yes, coalesce({FOLD_DUE}, false) AS due) b LEFT JOIN ({inner}) {alias} ON true")
}

/// The columns [`beside_clock`] puts before the caller's: the clock, built, fold due.
pub const CLOCK_COLUMNS: usize = 3;

/// A job row's counter minute (migrations/V14): for an in_flight job the minute its lease
/// expires, 0 for every other state. The triggers write the same expression (a test holds
/// the two together).
pub const MINUTE_EXPR: &str = "CASE WHEN state = 'in_flight' THEN coalesce(floor(extract(epoch FROM lease_expires_at) / 60)::bigint, 0) ELSE 0 END";

/// In one snapshot: every group (and in_flight minute) whose real count differs from its
/// counters.
pub static DIFFERENCES_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "WITH counted AS (SELECT state, destination, {MINUTE_EXPR} AS lease_minute, count(*)::bigint AS n
                         FROM publication_jobs GROUP BY 1, 2, 3),
             kept AS (SELECT state, destination, lease_minute, sum(n)::bigint AS n
                      FROM job_counters GROUP BY 1, 2, 3)
        SELECT coalesce(c.state, k.state), coalesce(c.destination, k.destination),
               coalesce(c.lease_minute, k.lease_minute), coalesce(c.n, 0), coalesce(k.n, 0)
        FROM counted c FULL JOIN kept k ON k.state = c.state AND k.destination = c.destination
                                        AND k.lease_minute = c.lease_minute
        WHERE coalesce(c.n, 0) <> coalesce(k.n, 0)
        ORDER BY 1, 2, 3"
    )
});

/// `$1` state, `$2` destination, `$3` minute, `$4` the change: added to the base slot.
const ADD_TO_BASE_SQL: &str = "\
    INSERT INTO job_counters AS c (state, destination, lease_minute, slot, n) VALUES ($1, $2, $3, -1, $4)
    ON CONFLICT (state, destination, lease_minute, slot) DO UPDATE SET n = c.n + EXCLUDED.n";

/// The counters' fold: the slots of the in_flight minutes that are past into one row each,
/// and every other group's slots into one row (`job_counters_fold()`, migrations/V14, V15 and
/// V18). Sent after `status`, `metrics` and `check` read the counts, when their statement said
/// a fold is due ([`beside_clock`]), and by [`fold`]. It asks the same index probe first, in
/// plain SQL, so that a session with nothing left to fold (another reader folded meanwhile)
/// does not call (nor compile) the function; in a read-only session (a standby) it folds
/// nothing. One row, whatever was done.
pub static FOLD_COUNTS_SQL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("SELECT (SELECT job_counters_fold() WHERE {FOLD_DUE})"));

/// The move counters' fold: their past ticks folded likewise, those no window reaches dropped
/// (`job_move_counters_fold()`, V17), asked the same way. Sent with the sums of `status -v`
/// and `metrics` when their first statement over the moves said it is due ([`MOVES_DUE`]),
/// and by [`fold`]. `status` and `check` read no moves, so their new session does not load
/// the move counters' catalog entries (0.3 ms of the 11 a new session's statements of
/// `status` took).
pub static FOLD_MOVES_SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT (SELECT job_move_counters_fold() WHERE {MOVES_UNFOLDED} OR {MOVES_EXPIRED})")
});

/// Whether a fold of the move counters is due, as a column of the statement that reads them
/// first (never NULL).
pub static MOVES_DUE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("coalesce({MOVES_UNFOLDED} OR {MOVES_EXPIRED}, false)"));

/// Whether a fold of the move counters has rows to take (migrations/V19 writes the same
/// conditions in `job_move_counters_fold()`): the writers' slots of a 10-second tick that is
/// over... Written as the oldest tick, which the planner takes from the first entry of an
/// index whether or not the table was analyzed (an `EXISTS` of the same condition it planned
/// as a sequential scan of the whole table until autovacuum's first ANALYZE of it: 5 ms of
/// every `status` right after an incident's first minutes).
pub const MOVES_UNFOLDED: &str = "(SELECT min(tick) FROM job_move_counters WHERE slot >= 0) \
     < floor(extract(epoch FROM now()) / 10)::bigint - 1";

/// ...or a tick of a minute the fold drops: every minute before the one that holds the tick
/// two hours ago (no window reaches them; V19 drops whole minutes, its `kept`). Not "a tick
/// over two hours old": the ticks of that minute before it stay, and the readers would then
/// call the fold on every read for up to 50 seconds of every minute.
pub const MOVES_EXPIRED: &str = "(SELECT min(tick) FROM job_move_counters) \
     < (floor(extract(epoch FROM now()) / 10)::bigint - 721) / 6 * 6";

/// Whether a fold of the counters has rows to take: the smallest minute that still has a
/// writer's slot, one entry of `ix_job_counters_unfolded` (V20), is one that ended more than
/// a minute ago ([`UNFOLDED`]). Asked as the oldest entry, like [`MOVES_UNFOLDED`], so that
/// the planner takes it from the index at any size of job_counters' file (an `EXISTS` of
/// [`UNFOLDED`] was a sequential scan of all of it: 434 pages for 903 rows after a worker
/// bench, read again by every command before its sums).
pub const FOLD_DUE: &str =
    "(SELECT min(lease_minute) FROM job_counters WHERE state = 'in_flight' AND slot >= 0) \
     < floor(extract(epoch FROM now()) / 60)::bigint - 1";

/// The counter rows that make a fold due: the writers' slots of the in_flight minutes that
/// ended more than a minute ago (migrations/V15 writes the same condition in
/// `job_counters_fold()`). The fold then also takes every other state's writer slots (V18),
/// so on a table that workers write the readers fold about once a minute, and sum one row per
/// quiet group.
pub const UNFOLDED: &str = "state = 'in_flight' AND slot >= 0 \
    AND lease_minute < floor(extract(epoch FROM now()) / 60)::bigint - 1";

/// Both folds, pipelined: what `sweep leases` and `doctor --recount` run. The readers ask
/// whether the half they read is due in the statement that reads it ([`beside_clock`]'s
/// `due`, [`MOVES_DUE`]) and fold after reading, only then ([`fold_counts`],
/// [`fold_moves`]): a fold keeps every group's (and minute's, and tick's) sum, so what they
/// read is the same before or after it, and most reads have nothing to fold (a separate
/// guard statement before each read cost a new session 0.3-0.6 ms). Every reconctl role may
/// fold (V15); a role granted none of them but SELECT is refused the function, and reads
/// without folding: the counts are exact either way, only the sum reads more rows.
pub async fn fold<C: tokio_postgres::GenericClient>(client: &C) -> Result<()> {
    futures::try_join!(fold_counts(client, true), fold_moves(client, true))?;
    Ok(())
}

/// [`FOLD_COUNTS_SQL`] when `due` (a read's `due` column, [`beside_clock`]; nothing is sent
/// otherwise), with [`fold`]'s handling of a database that cannot fold.
pub async fn fold_counts<C: tokio_postgres::GenericClient>(client: &C, due: bool) -> Result<()> {
    run_fold(client, &FOLD_COUNTS_SQL, due).await
}

/// [`FOLD_MOVES_SQL`] when `due` (a read's [`MOVES_DUE`] column; nothing is sent otherwise),
/// with [`fold`]'s handling of a database that cannot fold.
pub async fn fold_moves<C: tokio_postgres::GenericClient>(client: &C, due: bool) -> Result<()> {
    run_fold(client, &FOLD_MOVES_SQL, due).await
}

async fn run_fold<C: tokio_postgres::GenericClient>(
    client: &C,
    sql: &str,
    due: bool,
) -> Result<()> {
    if !due {
        return Ok(());
    }
    use tokio_postgres::error::SqlState;
    match client.query_typed_opt(sql, &[]).await {
        // A database without the schema (or before V14): the reads that follow say what is
        // missing, in the words every other command uses.
        Err(e)
            if [
                SqlState::INSUFFICIENT_PRIVILEGE,
                SqlState::UNDEFINED_FUNCTION,
                SqlState::UNDEFINED_TABLE,
            ]
            .iter()
            .any(|c| e.code() == Some(c)) =>
        {
            Ok(())
        }
        Err(e) => Err(e.into()),
        Ok(_) => Ok(()),
    }
}

/// One group whose counters disagreed with the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub state: String,
    pub destination: String,
    /// For in_flight, the minute of lease expiry (epoch minutes); 0 for other states.
    pub lease_minute: i64,
    /// What the table holds, counted.
    pub counted: i64,
    /// What the counters said.
    pub counters: i64,
}

impl Difference {
    /// For an in_flight minute, which leases it holds (", leases expiring at 20:51Z");
    /// empty for the other states.
    pub fn minute_label(&self) -> String {
        if self.state != "in_flight" {
            return String::new();
        }
        match chrono::DateTime::from_timestamp(self.lease_minute.saturating_mul(60), 0) {
            Some(t) => format!(", leases expiring {}", t.format("%Y-%m-%dT%H:%MZ")),
            None => format!(", lease minute {}", self.lease_minute),
        }
    }
}

/// What a build or a recount did.
#[derive(Debug, Clone, Serialize)]
pub struct Recount {
    /// The counters were incomplete (before `migrate` built them).
    pub was_built: bool,
    /// The groups corrected (for a build: every group, its base added).
    pub differences: Vec<Difference>,
    pub took: Duration,
}

pub async fn is_built<C: tokio_postgres::GenericClient>(client: &C) -> Result<bool> {
    Ok(client
        .query_typed_opt(BUILT_SQL, &[])
        .await?
        .map(|r| r.get::<_, bool>(0))
        .unwrap_or(false))
}

/// Count the table and the counters in one snapshot and add the differences to the base
/// slot, marking the counters built. `record`: the actor to record each difference under
/// (`doctor --recount`); `None` for the build, whose differences are the base, not a
/// repair. Writers go on meanwhile: the snapshot holds no lock they wait for.
pub async fn recount(client: &Client, record: Option<&str>) -> Result<Recount> {
    let started = std::time::Instant::now();
    // Taken before the snapshot: a build or recount that commits while this one waits for
    // the lock is then visible to this one's snapshot (else its base would be added twice).
    let got: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&COUNTERS_LOCK])
        .await?
        .get(0);
    if !got {
        return Err(Error::busy(
            "another `reconctl migrate` or `doctor --recount` is counting the jobs now; nothing was changed",
        )
        .hinted("let it finish, then run this again (it is safe to re-run)"));
    }
    client
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        .await?;
    let result = recount_in_snapshot(client, record).await;
    let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
    let ended = client.batch_execute(end).await;
    let _ = client
        .execute("SELECT pg_advisory_unlock($1)", &[&COUNTERS_LOCK])
        .await;
    let (was_built, differences) = result?;
    ended?;
    // The past minutes' slots folded (what sweep does too), now that the counts are exact.
    fold(client).await?;
    Ok(Recount {
        was_built,
        differences,
        took: started.elapsed(),
    })
}

async fn recount_in_snapshot(tx: &Client, record: Option<&str>) -> Result<(bool, Vec<Difference>)> {
    // The snapshot is taken by this first statement: the counters and the table read in it.
    let was_built = is_built(tx).await?;
    let rows = tx.query(DIFFERENCES_SQL.as_str(), &[]).await?;
    let differences: Vec<Difference> = rows
        .iter()
        .map(|r| Difference {
            state: r.get(0),
            destination: r.get(1),
            lease_minute: r.get(2),
            counted: r.get(3),
            counters: r.get(4),
        })
        .collect();
    for d in &differences {
        tx.execute(
            ADD_TO_BASE_SQL,
            &[
                &d.state,
                &d.destination,
                &d.lease_minute,
                &(d.counted - d.counters),
            ],
        )
        .await?;
        if let Some(actor) = record {
            tx.execute(
                "INSERT INTO job_counters_repairs (actor, state, destination, lease_minute, counted, counters)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[
                    &actor,
                    &d.state,
                    &d.destination,
                    &d.lease_minute,
                    &d.counted,
                    &d.counters,
                ],
            )
            .await?;
        }
    }
    if !was_built {
        tx.execute(
            "UPDATE job_counters_build SET built_at = now(), built_by = $1",
            &[&record.unwrap_or("migrate")],
        )
        .await?;
    }
    Ok((was_built, differences))
}

/// The last repair `doctor --recount` recorded, for `doctor` to show.
#[derive(Debug, Clone, Serialize)]
pub struct LastRepair {
    pub at: chrono::DateTime<chrono::Utc>,
    pub actor: String,
    pub groups: i64,
}

/// When the counters were built, and the last repair (groups corrected in that recount).
pub async fn last_repair<C: tokio_postgres::GenericClient>(
    client: &C,
) -> Result<Option<LastRepair>> {
    let row = client
        .query_opt(
            "SELECT at, actor, count(*) FROM job_counters_repairs
             WHERE at = (SELECT max(at) FROM job_counters_repairs) GROUP BY at, actor
             ORDER BY actor LIMIT 1",
            &[],
        )
        .await?;
    Ok(row.map(|r| LastRepair {
        at: r.get(0),
        actor: r.get(1),
        groups: r.get(2),
    }))
}
