//! Worker throughput with and without the counters' triggers (migrations/V10, V17), for
//! scripts/bench-counters.
//!
//! WORKERS concurrent workers, each on its own session, loop over the library's own
//! `worker::claim` (of the destination `cms-bench`), `worker::mark_sent` and
//! `worker::complete`: a job's whole life after its reservation, three committed writes. The
//! rounds alternate "with" and "without" (the counter triggers disabled by ALTER TABLE, as
//! the table's owner) in ABBA order, so that whatever drifts during the run (the claim
//! index's dead entries, a shared machine's load) drifts for both alike.
//! Prints jobs per second per round, then the ratio: for each block of four rounds (with,
//! without, without, with, or the reverse) the block's jobs with over its jobs without, and
//! the median of those. A block's four rounds are seconds apart, so a drift over the run
//! cancels inside each block; on a two-core machine adjacent rounds of one kind differ by up
//! to 25 %, and the rounds drift by as much over a minute (the claim's walk over dead index
//! entries grows and shrinks), which moved the former figure, the ratio of the two sides'
//! medians, by ±0.1 from run to run. That figure is printed beside it.
//!
//! Where the server runs on this machine, each round also reads its workers' backends' CPU
//! time from /proc (before the first claim and after the last job) and prints it per job:
//! what the triggers add to the database's work for a job's life, without the scheduling
//! noise of a throughput on two cores (one worker, 1M jobs: 3.33 ms a job with the counters,
//! 3.11 without; of that life the statements' planning is 0.76 ms, since the worker API
//! plans each statement anew). The medians over the rounds are printed before the ratio.
//!
//! With `renew`, each job's life has a fourth write: claimed with a one-minute lease, then
//! `worker::renew`ed to five minutes before `mark_sent`. Every renewal moves its job to
//! another minute of lease expiry (V14), the counters' worst case for a renewal: two rows.
//!
//!   cargo run --release --example worker_bench -- DATABASE_URL [WORKERS] [SECONDS] [ROUNDS] [renew]
//!
//! Needs enough pending jobs of `cms-bench` for every round (scripts/bench-counters adds them).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reconctl::db::{SessionLimits, Target};
use reconctl::jobs::worker;

/// The counters' triggers: the job counters' on the jobs (V10), the move counters' on the
/// audit log (V17).
const TRIGGERS: [(&str, &str); 5] = [
    ("publication_jobs", "job_counters_insert"),
    ("publication_jobs", "job_counters_update"),
    ("publication_jobs", "job_counters_delete"),
    ("publication_jobs", "job_counters_truncate"),
    ("job_events", "job_move_counters_insert"),
];

/// The CPU time (user and system, seconds) the backend `pid` has used, from /proc: `None` where
/// no PostgreSQL process of this machine has that pid (a server elsewhere). The benches run
/// their server here; against a remote server a local postgres process that happened to have
/// the same pid would be read instead, so read these figures only from a local server.
fn backend_cpu_seconds(pid: i32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (head, rest) = stat.rsplit_once(") ")?;
    if !head.ends_with("(postgres") {
        return None;
    }
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime: the 14th and 15th fields of stat(5), the 12th and 13th after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf reads a constant of the system and has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| ticks as f64 / hz as f64)
}

async fn set_counters(c: &tokio_postgres::Client, on: bool) -> reconctl::Result<()> {
    for (table, t) in TRIGGERS {
        let how = if on { "ENABLE ALWAYS" } else { "DISABLE" };
        c.batch_execute(&format!("ALTER TABLE {table} {how} TRIGGER {t}"))
            .await?;
    }
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> reconctl::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .expect("usage: worker_bench DATABASE_URL [WORKERS] [SECONDS] [ROUNDS] [renew]");
    let workers: usize = args.next().map_or(8, |n| n.parse().expect("a number"));
    let seconds: u64 = args.next().map_or(5, |n| n.parse().expect("a number"));
    let rounds: usize = args.next().map_or(3, |n| n.parse().expect("a number"));
    let renew = match args.next().as_deref() {
        None => false,
        Some("renew") => true,
        Some(other) => panic!("worker_bench: `{other}` is not `renew`"),
    };
    let life = if renew {
        "claim + renew + mark_sent + complete"
    } else {
        "claim + mark_sent + complete"
    };
    let limits = SessionLimits {
        statement_timeout: Duration::from_secs(60),
        ..SessionLimits::default()
    };
    let target = Target::resolve(Some(&url), &limits)?;
    let admin = target.connect().await?;
    let mut with = Vec::new();
    let mut without = Vec::new();
    // The workers' backends' CPU per job, per round (ms), where this machine runs the server.
    let mut cpu_with: Vec<f64> = Vec::new();
    let mut cpu_without: Vec<f64> = Vec::new();
    // Per ABBA block of four rounds: (jobs with, jobs without).
    let mut blocks: Vec<(f64, f64)> = Vec::new();
    for round in 0..rounds * 2 {
        // ABBA: with, without, without, with, ... so that a drift over the run (the claim
        // index filling with dead entries, a neighbour's load) favours neither side.
        let on = (round % 2 == 0) == (round / 2 % 2 == 0);
        set_counters(&admin, on).await?;
        let done = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let mut tasks: Vec<tokio::task::JoinHandle<reconctl::Result<Option<f64>>>> = Vec::new();
        for w in 0..workers {
            let c = target.connect().await?;
            let (done, stop) = (done.clone(), stop.clone());
            tasks.push(tokio::spawn(async move {
                let pid: i32 = c.query_one("SELECT pg_backend_pid()", &[]).await?.get(0);
                let cpu_at_start = backend_cpu_seconds(pid);
                let owner = format!("bench-worker-{w}");
                let lease = Duration::from_secs(if renew { 60 } else { 300 });
                while !stop.load(Ordering::Relaxed) {
                    let Some(mut job) = worker::claim(&c, &owner, lease, Some("cms-bench")).await?
                    else {
                        panic!("worker_bench: no pending job of cms-bench left to claim");
                    };
                    if renew {
                        job = worker::renew(&c, &job, Duration::from_secs(300)).await?;
                    }
                    let job = worker::mark_sent(&c, &job).await?;
                    worker::complete(&c, &job, &format!("bench-{}", job.id)).await?;
                    done.fetch_add(1, Ordering::Relaxed);
                }
                Ok(cpu_at_start
                    .zip(backend_cpu_seconds(pid))
                    .map(|(a, b)| b - a))
            }));
        }
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        stop.store(true, Ordering::Relaxed);
        // The workers' backends' CPU over the round (None where the server's processes are
        // not this machine's).
        let mut cpu = Some(0.0);
        for t in tasks {
            let used = t.await.expect("a worker panicked")?;
            cpu = cpu.zip(used).map(|(a, b)| a + b);
        }
        let jobs = done.load(Ordering::Relaxed);
        let rate = jobs as f64 / seconds as f64;
        let cpu_per_job = cpu.filter(|_| jobs > 0).map(|s| s * 1000.0 / jobs as f64);
        println!(
            "round {}: {} counters: {rate:.0} jobs/s ({life}, {workers} workers){}",
            round / 2 + 1,
            if on { "with   " } else { "without" },
            cpu_per_job.map_or(String::new(), |ms| format!(", server CPU {ms:.2} ms a job"))
        );
        if let Some(ms) = cpu_per_job {
            if on {
                cpu_with.push(ms);
            } else {
                cpu_without.push(ms);
            }
        }
        if round % 4 == 0 {
            blocks.push((0.0, 0.0));
        }
        let block = blocks.last_mut().expect("a block");
        if on {
            with.push(rate);
            block.0 += rate;
        } else {
            without.push(rate);
            block.1 += rate;
        }
    }
    set_counters(&admin, true).await?;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let (w, wo) = (median(&mut with), median(&mut without));
    // Whole blocks only (an odd ROUNDS leaves a last pair, one round of each side in one
    // order: a drift would count for one side).
    let mut ratios: Vec<f64> = blocks
        .iter()
        .take(rounds / 2)
        .map(|(w, wo)| w / wo)
        .collect();
    let shown: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
    let by_block = if ratios.is_empty() {
        "no whole ABBA block: ROUNDS < 2".to_string()
    } else {
        format!(
            "{:.2}x, the median of {} ABBA blocks ({})",
            median(&mut ratios),
            ratios.len(),
            shown.join(" ")
        )
    };
    if !cpu_with.is_empty() && !cpu_without.is_empty() {
        let (cw, cwo) = (median(&mut cpu_with), median(&mut cpu_without));
        println!(
            "worker server CPU ({life}): {cw:.2} ms a job with counters, {cwo:.2} without (medians of the rounds, the workers' backends): {:+.0} us a job, {:.2}x",
            (cw - cwo) * 1000.0,
            cwo / cw
        );
    }
    println!(
        "worker throughput ({life}): {by_block}; medians with counters {w:.0} jobs/s, without {wo:.0} jobs/s: {:.2}x",
        w / wo
    );
    Ok(())
}
