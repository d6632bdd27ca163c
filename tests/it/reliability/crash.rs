//! Crash safety: `sweep leases` and `reconcile --apply` killed with SIGKILL at random moments.
//! After each kill the invariants hold (every change has its one event, no lease outside
//! in_flight, accepted has a remote_id), only whole sweep batches moved, and a rerun converges
//! to exactly the end state of an uninterrupted run: the same state, version, remote_id and
//! number of events for every job (so nothing moved twice).
//!
//! 5 trials of each by default; `RECONCTL_LONG_TESTS=1` runs 50 of each
//! (`RECONCTL_CRASH_TRIALS=N` to choose; `RECONCTL_CRASH_SEED` to replay a run's moments).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reconctl::jobs::{external_ref, payload_hash};
use reconctl::sandbox::devserver::{DevServer, Options};
use tokio_postgres::Client;

use super::faults::{bulk_in_flight, bulk_in_flight_sent, spawn};
use crate::harness::*;

/// SIGKILLs delivered by this module (reported with the other figures).
pub static KILLS: AtomicU64 = AtomicU64::new(0);
pub static TRIALS: AtomicU64 = AtomicU64::new(0);

fn trials() -> u64 {
    if let Some(n) = std::env::var("RECONCTL_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if long_tests() {
        50
    } else {
        5
    }
}

/// A small xorshift generator: the moments of the kills, reproducible from the printed seed.
struct Moments(u64);

impl Moments {
    fn new(what: &str) -> Moments {
        let seed = std::env::var("RECONCTL_CRASH_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("{what}: RECONCTL_CRASH_SEED={seed}");
        Moments(seed)
    }

    /// Uniform in [0, max).
    fn within(&mut self, max: Duration) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let micros = max.as_micros().max(1) as u64;
        Duration::from_micros(self.0 % micros)
    }
}

/// Per job (by article): state, version, remote_id, holds a lease, number of events.
type EndState = BTreeMap<String, (String, i64, Option<String>, bool, i64)>;

async fn end_state(c: &Client) -> EndState {
    c.query(
        "SELECT j.article_id, j.state, j.version, j.remote_id, j.lease_owner IS NOT NULL,
                (SELECT count(*) FROM job_events e WHERE e.job_id = j.id)
         FROM publication_jobs j",
        &[],
    )
    .await
    .unwrap()
    .into_iter()
    .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
    .collect()
}

fn diff(a: &EndState, b: &EndState) -> Vec<String> {
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}: uninterrupted {v:?}, after the crash {:?}", b.get(k)))
        .take(10)
        .collect()
}

fn assert_invariants_hold(problems: Vec<String>, when: &str) {
    assert!(
        problems.is_empty(),
        "{when}: invariants broken:\n{}",
        problems.join("\n")
    );
}

/// Run `args` to completion (again and again while it reports rows it skipped as locked:
/// the killed run's backend may not have gone yet), as cron would.
fn rerun_until_settled(env: &TestEnv, args: &[&str], ok: &[i32]) {
    for _ in 0..20 {
        let run = env.run(args);
        assert!(
            ok.contains(&run.code()),
            "rerun {args:?}: exit {}\n{}",
            run.code(),
            run.stderr()
        );
        let doc = run.json();
        let skipped =
            doc["skipped"].as_u64().unwrap_or(0) + doc["summary"]["skipped"].as_u64().unwrap_or(0);
        if skipped == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{args:?} kept skipping locked rows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sweep_killed_at_random_moments_converges_to_the_uninterrupted_end_state() {
    const N: i64 = 3_000;
    const BATCH: i64 = 200;
    let batch = BATCH.to_string();
    let args = ["sweep", "leases", "--batch", &batch, "-o", "json"];

    let reference = TestEnv::new().await;
    bulk_in_flight(&reference.client, "t1", "cms-a", N).await;
    let started = Instant::now();
    reference.run(&args).expect(0);
    let took = started.elapsed();
    let want = end_state(&reference.client).await;
    assert_eq!(want.len() as i64, N);

    let mut moments = Moments::new("sweep crash");
    let mut partial = 0;
    for trial in 0..trials() {
        TRIALS.fetch_add(1, Ordering::Relaxed);
        let env = TestEnv::new().await;
        bulk_in_flight(&env.client, "t1", "cms-a", N).await;
        let mut child = spawn(&env, &env.url, &args);
        // Somewhere in the run, from its very start to a little after its usual end.
        std::thread::sleep(moments.within(took + took / 5));
        let _ = child.kill();
        KILLS.fetch_add(1, Ordering::Relaxed);
        let _ = child.wait();

        assert_invariants_hold(
            check_invariants(&env.client).await,
            &format!("trial {trial}"),
        );
        let moved = N - env
            .count("SELECT count(*) FROM publication_jobs WHERE state = 'in_flight'")
            .await;
        assert!(
            moved % BATCH == 0 || moved == N,
            "trial {trial}: a partial batch ({moved} moved)"
        );
        if moved > 0 && moved < N {
            partial += 1;
        }
        rerun_until_settled(&env, &args, &[0]);
        let got = end_state(&env.client).await;
        let d = diff(&want, &got);
        assert!(
            d.is_empty(),
            "trial {trial}: the rerun did not converge:\n{}",
            d.join("\n")
        );
    }
    eprintln!("sweep crash: {} trials, {partial} killed mid-run", trials());
}

/// `n` uncertain jobs, sent two hours ago, real external_refs: in flight and sent, then
/// swept (so each history is the one a real job would have).
async fn bulk_uncertain(c: &Client, n: i64) {
    bulk_in_flight_sent(c, "t1", "cms-a", n, true).await;
    let swept = reconctl::jobs::sweep::sweep(c, &reconctl::jobs::sweep::SweepOptions::new("seed"))
        .await
        .unwrap();
    assert_eq!(swept.to_uncertain as i64, n);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconcile_killed_at_random_moments_converges_to_the_uninterrupted_end_state() {
    const N: i64 = 240;
    const HOSTILE: i64 = N / 12;
    let dest = DevServer::start(
        "127.0.0.1:0".parse::<SocketAddr>().unwrap(),
        Options::default(),
    )
    .unwrap();
    // A third is at the destination as sent (accept), a sixth with other content and a sixth
    // twice (conflict), a quarter not at all (safe_to_retry: sent long ago), and a twelfth
    // under a hostile id (a NUL and a terminal escape): unknown, left uncertain, whatever
    // moment the run is killed at.
    for g in 1..=N {
        let article = format!("a{g}");
        let r = external_ref("t1", &article, "1", "cms-a");
        let h = payload_hash(format!("payload of {article}").as_bytes());
        match g % 6 {
            0 | 1 => {
                dest.publish(&r, &h);
            }
            2 => {
                dest.publish(&r, &payload_hash(b"something else"));
            }
            3 => {
                dest.publish(&r, &h);
                dest.publish(&r, &h);
            }
            5 if g % 12 == 5 => dest.publish_as(&r, &h, "art\u{0}\u{1b}[2J"),
            _ => {}
        }
    }
    // The destination's canary: a publication it holds (its positive control).
    let canary = external_ref("canary", "c", "1", "cms-a");
    dest.publish(&canary, &payload_hash(b"canary"));
    let config = dest.config_toml("cms-a", "1m", Some(&canary));
    let args = [
        "reconcile",
        "--apply",
        "--yes",
        "--concurrency",
        "4",
        "-o",
        "json",
    ];

    let reference = TestEnv::new().await;
    let cfg = reference.write_config(&config);
    bulk_uncertain(&reference.client, N).await;
    let sample = reference
        .client
        .query_one(
            "SELECT external_ref FROM publication_jobs WHERE article_id = 'a1'",
            &[],
        )
        .await
        .unwrap()
        .get::<_, String>(0);
    assert_eq!(
        sample,
        external_ref("t1", "a1", "1", "cms-a"),
        "the bulk fixture's refs are real"
    );
    let run_ref = |env: &TestEnv, cfg: &str| {
        Run(env
            .cmd()
            .env("RECONCTL_CONFIG", cfg)
            .args(args)
            .write_stdin("")
            .output()
            .unwrap())
    };
    let started = Instant::now();
    let first = run_ref(&reference, &cfg);
    let took = started.elapsed();
    assert_eq!(
        first.code(),
        5,
        "conflicts remain: exit 5\n{}",
        first.stderr()
    );
    let want = end_state(&reference.client).await;
    let states: BTreeMap<&str, usize> = want.values().fold(BTreeMap::new(), |mut m, v| {
        *m.entry(v.0.as_str()).or_default() += 1;
        m
    });
    assert_eq!(
        states,
        BTreeMap::from([
            ("accepted", 80),
            ("conflict", 80),
            ("safe_to_retry", 60),
            ("uncertain", 20)
        ]),
        "the uninterrupted run"
    );

    let mut moments = Moments::new("reconcile crash");
    let mut partial = 0;
    for trial in 0..trials() {
        TRIALS.fetch_add(1, Ordering::Relaxed);
        let env = TestEnv::new().await;
        let cfg = env.write_config(&config);
        bulk_uncertain(&env.client, N).await;
        let mut child = env.std_cmd();
        child
            .env("RECONCTL_CONFIG", &cfg)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = child.spawn().unwrap();
        std::thread::sleep(moments.within(took + took / 5));
        let _ = child.kill();
        KILLS.fetch_add(1, Ordering::Relaxed);
        let _ = child.wait();

        assert_invariants_hold(
            check_invariants(&env.client).await,
            &format!("trial {trial}"),
        );
        let open = env
            .count("SELECT count(*) FROM publication_jobs WHERE state = 'uncertain'")
            .await;
        if open > HOSTILE && open < N {
            partial += 1;
        }
        // Rerun as an operator would.
        for _ in 0..10 {
            let run = run_ref(&env, &cfg);
            let last = run.code();
            // 5 when this rerun itself left conflicts; 0 when the killed run had already set
            // them aside (reconcile looks at uncertain jobs only).
            assert!(
                last == 0 || last == 5,
                "trial {trial}: rerun exit {last}\n{}",
                run.stderr()
            );
            // Only the hostile answers' jobs stay uncertain.
            if env
                .count("SELECT count(*) FROM publication_jobs WHERE state = 'uncertain'")
                .await
                == HOSTILE
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let got = end_state(&env.client).await;
        let d = diff(&want, &got);
        assert!(
            d.is_empty(),
            "trial {trial}: the rerun did not converge:\n{}",
            d.join("\n")
        );
    }
    eprintln!(
        "reconcile crash: {} trials, {partial} killed mid-run",
        trials()
    );
}
