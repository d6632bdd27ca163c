//! The worker's `claim` with and without paused destinations (SPEC §6), for scripts/bench.
//!
//! Each claim is the library's own `worker::claim` (one statement) in a transaction that is
//! rolled back, so every claim meets the same table; only the claim statement is timed. The
//! scenarios take turns, round after round, so that whatever drifts (caches, dead tuples of
//! the rolled-back claims) drifts for all of them alike. Prints the median and the 90th
//! percentile of each, and its ratio to the same claim with nothing paused.
//!
//!   cargo run --release --example claim_bench -- DATABASE_URL [CLAIMS_PER_SCENARIO]

use std::time::{Duration, Instant};

use reconctl::db::{SessionLimits, Target};
use reconctl::jobs::{pause, worker};

struct Scenario {
    name: String,
    /// The claim as it was before pauses existed (the statement without the pause
    /// predicates), for the cost of the feature itself.
    before_pauses: bool,
    /// Destinations paused while it runs.
    paused: Vec<String>,
    /// The destination asked for (None: any).
    destination: Option<String>,
    micros: Vec<u128>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> reconctl::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .expect("usage: claim_bench DATABASE_URL [CLAIMS_PER_SCENARIO]");
    let claims: usize = args.next().map_or(2000, |n| n.parse().expect("a number"));
    let limits = SessionLimits {
        statement_timeout: Duration::from_secs(60),
        ..SessionLimits::default()
    };
    let mut c = Target::resolve(Some(&url), &limits)?.connect().await?;
    let jobs: i64 = c
        .query_one("SELECT count(*) FROM publication_jobs", &[])
        .await?
        .get(0);
    c.batch_execute("DELETE FROM destination_pauses").await?;
    // The destinations in the order their oldest claimable job comes: pausing the first three
    // makes every claim step over their waiting jobs; the last three are paused "elsewhere".
    let rows = c
        .query(
            "SELECT destination FROM publication_jobs WHERE state IN ('pending', 'safe_to_retry')
             ORDER BY state_changed_at, id LIMIT 5000",
            &[],
        )
        .await?;
    let mut order: Vec<String> = Vec::new();
    for r in &rows {
        let d: String = r.get(0);
        if !order.contains(&d) {
            order.push(d);
        }
    }
    assert!(order.len() >= 8, "the bench table has too few destinations");
    let oldest: Vec<String> = order[..3].to_vec();
    let elsewhere: Vec<String> = order[order.len() - 3..].to_vec();
    let one = order[4].clone();
    let mut scenarios = [
        Scenario {
            name: "claim, nothing paused".into(),
            paused: vec![],
            destination: None,
            micros: vec![],
            before_pauses: false,
        },
        Scenario {
            name: "claim as before pauses existed (no pause predicate)".into(),
            paused: vec![],
            destination: None,
            micros: vec![],
            before_pauses: true,
        },
        Scenario {
            name: format!(
                "claim, 3 of {} paused ({})",
                order.len(),
                elsewhere.join(", ")
            ),
            paused: elsewhere.clone(),
            destination: None,
            micros: vec![],
            before_pauses: false,
        },
        Scenario {
            name: format!(
                "claim, 3 paused holding the oldest jobs ({})",
                oldest.join(", ")
            ),
            paused: oldest.clone(),
            destination: None,
            micros: vec![],
            before_pauses: false,
        },
        Scenario {
            name: format!("claim for {one}, nothing paused"),
            paused: vec![],
            destination: Some(one.clone()),
            micros: vec![],
            before_pauses: false,
        },
        Scenario {
            name: format!("claim for {one}, 3 others paused"),
            paused: oldest.clone(),
            destination: Some(one.clone()),
            micros: vec![],
            before_pauses: false,
        },
        Scenario {
            name: format!("claim for {}, which is paused", oldest[0]),
            paused: oldest.clone(),
            destination: Some(oldest[0].clone()),
            micros: vec![],
            before_pauses: false,
        },
    ];
    let claim_sql = worker::claim_sql();
    let before_sql = claim_sql.replace(&format!("\n{}", worker::skip_paused()), "");
    assert!(!before_sql.contains("destination_pauses"));
    let rounds = 20;
    let per_round = claims.div_ceil(rounds);
    let n = scenarios.len();
    for round in 0..rounds {
        // A different scenario goes first each round.
        for k in 0..n {
            let s = &mut scenarios[(round + k) % n];
            c.batch_execute("DELETE FROM destination_pauses").await?;
            for d in &s.paused {
                let tx = c.transaction().await?;
                pause::pause(&tx, d, "bench", None, "bench").await?;
                tx.commit().await?;
            }
            for _ in 0..per_round {
                let tx = c.transaction().await?;
                let started = Instant::now();
                let got = if s.before_pauses {
                    let rows = tx
                        .query(
                            &before_sql,
                            &[&s.destination.as_deref(), &"bench-worker", &60.0f64],
                        )
                        .await?;
                    rows.first()
                        .map(reconctl::jobs::Job::from_row)
                        .transpose()?
                } else {
                    worker::claim(
                        &tx,
                        "bench-worker",
                        Duration::from_secs(60),
                        s.destination.as_deref(),
                    )
                    .await?
                };
                s.micros.push(started.elapsed().as_micros());
                tx.rollback().await?;
                if let Some(job) = got {
                    assert!(
                        !s.paused.contains(&job.destination),
                        "claimed a job of paused {}",
                        job.destination
                    );
                }
            }
        }
    }
    c.batch_execute("DELETE FROM destination_pauses").await?;
    let pct = |v: &mut Vec<u128>, p: f64| {
        v.sort_unstable();
        v[((v.len() - 1) as f64 * p).round() as usize]
    };
    println!(
        "{jobs} jobs: worker::claim, {} claims per line (each rolled back; median, p90)",
        per_round * rounds
    );
    let mut base_any = 0;
    let mut base_one = 0;
    for s in scenarios.iter_mut() {
        let median = pct(&mut s.micros, 0.5);
        let p90 = pct(&mut s.micros, 0.9);
        let base = match (&s.destination, s.paused.is_empty() && !s.before_pauses) {
            (None, true) => {
                base_any = median;
                median
            }
            (Some(_), true) => {
                base_one = median;
                median
            }
            (None, false) => base_any,
            (Some(_), false) => base_one,
        };
        println!(
            "  {:<62} {:>6} µs  p90 {:>6} µs  {:>5.2}×",
            s.name,
            median,
            p90,
            median as f64 / base as f64
        );
    }
    Ok(())
}
