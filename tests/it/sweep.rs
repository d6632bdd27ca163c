//! `sweep leases`: expired leases go back to pending (never sent) or to uncertain (sent),
//! in batches, beside live workers and other sweepers, each job moved once, each move with
//! exactly one event.

use std::collections::BTreeSet;
use std::sync::Arc;

use reconctl::error::Kind;
use reconctl::jobs::sweep::{sweep, StoppedBy, SweepOptions};
use reconctl::jobs::worker;
use reconctl::jobs::{Job, State};
use serde_json::{json, Value};

use crate::harness::*;

use State::*;

/// An in_flight job whose lease (held by `worker-1`) expired `ago` seconds ago; `sent` says
/// whether the worker recorded sending it.
fn expired(article: &str, ago: i64, sent: bool) -> Seed {
    let seed = Seed::new(article)
        .state(InFlight)
        .lease("worker-1", -ago)
        .aged(ago + 60);
    if sent {
        seed.sent_ago(ago + 30)
    } else {
        seed
    }
}

/// `n` in_flight jobs with leases that expired 10 to 11 minutes ago (distinct expiries),
/// every other one sent, each with its creation event, in one statement.
async fn seed_expired_bulk(env: &TestEnv, n: i64) {
    env.client
        .execute(
            "WITH j AS (
               INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                   external_ref, payload_hash, state, attempts, lease_owner, lease_expires_at,
                   sent_at, created_at, updated_at, state_changed_at)
               SELECT 'bulk', 'a' || i, '1', 'cms-a',
                      'pub_' || encode(sha256(convert_to('bulk:' || i, 'UTF8')), 'hex'),
                      encode(sha256(convert_to('payload ' || i, 'UTF8')), 'hex'),
                      'in_flight', 1, 'worker-' || (i % 7),
                      now() - interval '11 minutes' + i * interval '1 ms',
                      CASE WHEN i % 2 = 0 THEN now() - interval '12 minutes' END,
                      now() - interval '1 hour', now() - interval '15 minutes',
                      now() - interval '15 minutes'
               FROM generate_series(1, $1::bigint) AS i
               RETURNING id, state, version
             )
             INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, 'seed', 'seed', NULL, state, NULL, version, 'test fixture' FROM j",
            &[&n],
        )
        .await
        .expect("seed expired jobs");
}

fn sweep_json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["sweep", "leases", "-o", "json"];
    all.extend_from_slice(args);
    env.run(&all).expect(0).json()
}

/// The SPEC §5 counts of a `sweep leases -o json` document.
fn counts(v: &Value) -> (u64, u64, u64, u64, bool) {
    (
        v["examined"].as_u64().unwrap(),
        v["to_pending"].as_u64().unwrap(),
        v["to_uncertain"].as_u64().unwrap(),
        v["skipped"].as_u64().unwrap(),
        v["dry_run"].as_bool().unwrap(),
    )
}

fn assert_untouched(before: &Job, now: &Job) {
    assert_eq!(before, now, "job {} must not change", before.article_id);
}

async fn assert_swept(env: &TestEnv, before: &Job, to: State, action: &str) {
    let now = env.job(before.id).await;
    assert_eq!(now.state, to, "{}", before.article_id);
    assert_eq!(now.version, before.version + 1);
    assert_eq!(now.lease_owner, None);
    assert_eq!(now.lease_expires_at, None);
    assert_eq!(now.sent_at, before.sent_at, "sent_at is kept as evidence");
    assert_eq!(now.attempts, before.attempts);
    assert!(now.state_changed_at > before.state_changed_at);
    let events = env.events(before.id).await;
    assert_eq!(events.len(), 2, "seed + exactly one sweep event");
    let ev = &events[1];
    assert_eq!(ev.action, action);
    assert_eq!(ev.actor, "tester");
    assert_eq!(ev.from_state, Some(InFlight));
    assert_eq!(ev.to_state, to);
    assert_eq!(ev.from_version, Some(before.version));
    assert_eq!(ev.to_version, before.version + 1);
    assert_eq!(ev.evidence["lease_owner"], json!("worker-1"));
    let expiry = before.lease_expires_at.unwrap();
    let recorded = ev.evidence["lease_expires_at"].as_str().unwrap();
    assert_eq!(
        chrono::DateTime::parse_from_rfc3339(recorded).unwrap(),
        expiry,
        "evidence records the lease's expiry"
    );
    match before.sent_at {
        Some(sent) => assert_eq!(
            chrono::DateTime::parse_from_rfc3339(ev.evidence["sent_at"].as_str().unwrap()).unwrap(),
            sent
        ),
        None => assert_eq!(ev.evidence["sent_at"], Value::Null),
    }
    assert!(ev.evidence["grace"].is_string());
}

#[tokio::test]
async fn expired_lease_never_sent_goes_back_to_pending() {
    let env = TestEnv::new().await;
    let job = env.seed(expired("a", 600, false)).await;
    let out = sweep_json(&env, &[]);
    assert_eq!(counts(&out), (1, 1, 0, 0, false));
    assert_swept(&env, &job, Pending, "sweep_unsent").await;
    assert_eq!(env.events(job.id).await[1].evidence["grace"], json!("0ms"));
}

#[tokio::test]
async fn expired_lease_after_sending_goes_to_uncertain_never_to_a_retry() {
    let env = TestEnv::new().await;
    let job = env.seed(expired("a", 600, true)).await;
    let out = sweep_json(&env, &["--grace", "1m"]);
    assert_eq!(counts(&out), (1, 0, 1, 0, false));
    assert_swept(&env, &job, Uncertain, "sweep_sent").await;
    assert_eq!(env.events(job.id).await[1].evidence["grace"], json!("1m"));
}

#[tokio::test]
async fn lease_not_yet_expired_is_untouched() {
    let env = TestEnv::new().await;
    let live = env
        .seed(
            Seed::new("live")
                .state(InFlight)
                .lease("worker-1", 300)
                .sent_ago(5),
        )
        .await;
    let unsent = env
        .seed(Seed::new("fresh").state(InFlight).lease("worker-2", 2))
        .await;
    let out = sweep_json(&env, &[]);
    assert_eq!(counts(&out), (0, 0, 0, 0, false));
    assert_untouched(&live, &env.job(live.id).await);
    assert_untouched(&unsent, &env.job(unsent.id).await);
}

#[tokio::test]
async fn lease_expired_less_than_grace_ago_is_untouched() {
    let env = TestEnv::new().await;
    let recent_unsent = env.seed(expired("recent-unsent", 30, false)).await;
    let recent_sent = env.seed(expired("recent-sent", 30, true)).await;
    let old = env.seed(expired("old", 600, true)).await;
    let out = sweep_json(&env, &["--grace", "2m"]);
    assert_eq!(counts(&out), (1, 0, 1, 0, false));
    assert_untouched(&recent_unsent, &env.job(recent_unsent.id).await);
    assert_untouched(&recent_sent, &env.job(recent_sent.id).await);
    assert_swept(&env, &old, Uncertain, "sweep_sent").await;
    // Without the grace, they are swept too.
    let out = sweep_json(&env, &[]);
    assert_eq!(counts(&out), (2, 1, 1, 0, false));
    assert_swept(&env, &recent_unsent, Pending, "sweep_unsent").await;
    assert_swept(&env, &recent_sent, Uncertain, "sweep_sent").await;
}

#[tokio::test]
async fn terminal_and_other_states_are_untouched() {
    let env = TestEnv::new().await;
    let mut others = Vec::new();
    for (i, state) in [Pending, Uncertain, Accepted, SafeToRetry, Failed, Conflict]
        .into_iter()
        .enumerate()
    {
        // Old and sent long ago: everything a time-only rescue would look at.
        others.push(
            env.seed(
                Seed::new(&format!("other-{i}"))
                    .state(state)
                    .aged(86_400)
                    .sent_ago(86_400),
            )
            .await,
        );
    }
    let out = sweep_json(&env, &["--batch", "1"]);
    assert_eq!(counts(&out), (0, 0, 0, 0, false));
    for job in &others {
        assert_untouched(job, &env.job(job.id).await);
        assert_eq!(
            env.events(job.id).await.len(),
            1,
            "no event for {}",
            job.state
        );
    }
}

#[tokio::test]
async fn batches_walk_the_leases_oldest_first_and_stop_at_the_limit() {
    let env = TestEnv::new().await;
    let mut jobs = Vec::new();
    for i in 0..10 {
        jobs.push(
            env.seed(expired(&format!("j{i}"), 1000 - i * 10, i % 3 == 0))
                .await,
        );
    }
    let out = sweep_json(&env, &["--batch", "2", "--limit", "5"]);
    assert_eq!(
        out["to_pending"].as_u64().unwrap() + out["to_uncertain"].as_u64().unwrap(),
        5
    );
    assert_eq!(out["batches"], json!(3), "2 + 2 + 1");
    assert_eq!(out["stopped_by"], json!("limit"));
    for (i, job) in jobs.iter().enumerate() {
        let now = env.job(job.id).await;
        // j0 expired first (1000s ago): the five oldest leases go first.
        assert_eq!(now.state != InFlight, i < 5, "j{i} is {}", now.state);
    }
    let out = sweep_json(&env, &["--batch", "2"]);
    assert_eq!(counts(&out).0, 5);
    assert_eq!(
        out["batches"],
        json!(3),
        "2 + 2 + 1, the last one finding nothing more"
    );
    assert_eq!(out["stopped_by"], json!("done"));
    for (i, job) in jobs.iter().enumerate() {
        let to = if i % 3 == 0 { Uncertain } else { Pending };
        assert_eq!(env.job(job.id).await.state, to, "j{i}");
        assert_eq!(env.events(job.id).await.len(), 2, "j{i}: moved once");
    }
}

#[tokio::test]
async fn max_runtime_stops_after_the_current_batch() {
    let env = TestEnv::new().await;
    for i in 0..5 {
        env.seed(expired(&format!("j{i}"), 600, false)).await;
    }
    let out = sweep_json(&env, &["--batch", "2", "--max-runtime", "0s"]);
    assert_eq!(counts(&out), (2, 2, 0, 0, false));
    assert_eq!(out["stopped_by"], json!("max_runtime"));
    assert_eq!(
        env.count("SELECT count(*) FROM publication_jobs WHERE state = 'in_flight'")
            .await,
        3
    );
}

#[tokio::test]
async fn json_has_exactly_the_documented_fields() {
    let env = TestEnv::new().await;
    env.seed(expired("a", 600, false)).await;
    let out = sweep_json(&env, &[]);
    let keys: BTreeSet<&str> = out
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            // SPEC §5
            "examined",
            "to_pending",
            "to_uncertain",
            "skipped",
            "dry_run",
            // and how the run went
            "batches",
            "elapsed_ms",
            "stopped_by",
        ])
    );
    assert_eq!(counts(&out), (1, 1, 0, 0, false));
    assert_eq!(out["batches"], json!(1));
    assert!(out["elapsed_ms"].is_u64());
    assert_eq!(out["stopped_by"], json!("done"));
}

#[tokio::test]
async fn table_summary_names_each_count() {
    let env = TestEnv::new().await;
    env.seed(expired("a", 600, false)).await;
    env.seed(expired("b", 600, true)).await;
    let out = env.run(&["sweep", "leases"]).expect(0).stdout();
    assert!(
        out.starts_with("moved 2 expired leases (1 batch, "),
        "{out}"
    );
    for line in [
        "examined  ",
        "→ pending  ",
        "→ uncertain  ",
        "skipped as locked  ",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    let out = env.run(&["sweep", "leases"]).expect(0).stdout();
    assert!(out.starts_with("no expired leases to sweep"), "{out}");
}

#[tokio::test]
async fn quiet_prints_nothing_on_success() {
    let env = TestEnv::new().await;
    let job = env.seed(expired("a", 600, true)).await;
    let run = env
        .run(&["sweep", "leases", "-q", "--grace", "30s"])
        .expect(0);
    assert_eq!(run.stdout(), "");
    assert_eq!(run.stderr(), "");
    assert_eq!(env.job(job.id).await.state, Uncertain, "and it did sweep");
}

#[tokio::test]
async fn default_actor_is_sweep_at_host() {
    let env = TestEnv::new().await;
    let job = env.seed(expired("a", 600, false)).await;
    let run = env
        .cmd()
        .env_remove("RECONCTL_ACTOR")
        .env("USER", "cronuser")
        .args(["sweep", "leases", "-q"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let actor = env.events(job.id).await[1].actor.clone();
    assert!(actor.starts_with("sweep@") && actor.len() > 6, "{actor}");
    // --actor wins when given.
    let other = env.seed(expired("b", 600, false)).await;
    env.run(&["sweep", "leases", "-q", "--actor", "ops-cron"])
        .expect(0);
    assert_eq!(env.events(other.id).await[1].actor, "ops-cron");
}

/// `--dry-run` locks and counts exactly what a real run selects (a job another session holds
/// is counted as skipped by both), changes nothing and writes no event.
#[tokio::test]
async fn dry_run_moves_nothing_and_reports_what_the_real_run_then_does() {
    let env = TestEnv::new().await;
    let mut jobs = Vec::new();
    for i in 0..7 {
        jobs.push(env.seed(expired(&format!("u{i}"), 600 + i, false)).await);
    }
    for i in 0..5 {
        jobs.push(env.seed(expired(&format!("s{i}"), 700 + i, true)).await);
    }
    for i in 0..3 {
        jobs.push(env.seed(expired(&format!("recent{i}"), 10, true)).await);
    }
    let held = env.seed(expired("held", 650, true)).await;
    // A worker (or an operator) is writing `held` right now.
    let holder = env.connect().await;
    holder
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM publication_jobs WHERE id = '{}' FOR UPDATE",
            held.id
        ))
        .await
        .unwrap();

    let args = ["--batch", "4", "--grace", "1m"];
    let dry = sweep_json(&env, &[&args[..], &["--dry-run"]].concat());
    assert_eq!(counts(&dry), (13, 7, 5, 1, true));
    for job in jobs.iter().chain([&held]) {
        assert_untouched(job, &env.job(job.id).await);
    }
    assert_eq!(
        env.count("SELECT count(*) FROM job_events").await,
        16,
        "no new events"
    );

    let real = sweep_json(&env, &args);
    assert_eq!(counts(&real), (13, 7, 5, 1, false));
    assert_eq!(real["batches"], dry["batches"]);
    assert_eq!(
        env.count("SELECT count(*) FROM job_events WHERE action LIKE 'sweep%'")
            .await,
        12
    );
    assert_untouched(&held, &env.job(held.id).await);

    // Released, the held job is the next run's.
    holder.batch_execute("ROLLBACK").await.unwrap();
    let again = sweep_json(&env, &args);
    assert_eq!(counts(&again), (1, 0, 1, 0, false));
    assert_eq!(env.job(held.id).await.state, Uncertain);
}

#[tokio::test]
async fn a_locked_table_is_busy_exit_6_and_nothing_moves() {
    let env = TestEnv::new().await;
    let job = env.seed(expired("a", 600, false)).await;
    let locker = env.connect().await;
    locker
        .batch_execute("BEGIN; LOCK TABLE publication_jobs IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    let run = env
        .run(&["sweep", "leases", "-o", "json", "--lock-timeout", "200ms"])
        .expect(6);
    assert_eq!(run.json()["error"]["kind"], json!("busy"));
    locker.batch_execute("ROLLBACK").await.unwrap();
    assert_untouched(&job, &env.job(job.id).await);
}

/// The counters' fold after the last batch fails (here the fold function raises; in the field
/// a connection terminated at that moment did it, in `reliability::faults`): every batch is
/// committed, so the error carries the counts, says that every batch committed, and that
/// nothing needs running again.
#[tokio::test]
async fn a_fold_that_fails_after_the_last_batch_still_reports_what_the_batches_moved() {
    let env = TestEnv::new().await;
    seed_expired_bulk(&env, 30).await;
    env.client
        .batch_execute(
            "CREATE OR REPLACE FUNCTION job_counters_fold() RETURNS bigint LANGUAGE plpgsql
             AS $$ BEGIN RAISE EXCEPTION 'the fold refused by the test'; END $$",
        )
        .await
        .unwrap();
    let run = env
        .run(&["sweep", "leases", "-o", "json", "--batch", "20"])
        .expect(1);
    let doc = run.json();
    let error = &doc["error"];
    assert_eq!(counts(&error["detail"]), (30, 15, 15, 0, false), "{doc}");
    assert_eq!(error["detail"]["batches"], json!(2), "{doc}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("the fold refused by the test"),
        "{message}"
    );
    assert!(
        message.contains("(after 2 batches committed, every one: 15 → pending, 15 → uncertain)"),
        "{message}"
    );
    let hints = error["hints"].to_string();
    assert!(hints.contains("nothing needs running again"), "{hints}");
    assert!(
        !hints.contains("the failed batch changed nothing"),
        "{hints}"
    );
    // The batches did move every job, each with its event.
    let left: i64 = env
        .client
        .query_one(
            "SELECT count(*) FROM publication_jobs WHERE state = 'in_flight'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
    env.assert_invariants().await;
}

/// 4 sweeper processes at once over 2 000 expired leases, 25 a batch: every job is moved
/// exactly once, with exactly one event, and the runs' counts add up.
#[tokio::test]
async fn four_concurrent_sweepers_move_every_job_exactly_once() {
    let env = TestEnv::new().await;
    seed_expired_bulk(&env, 2000).await;
    let start = Arc::new(std::sync::Barrier::new(4));
    let runs: Vec<_> = (0..4)
        .map(|i| {
            let mut cmd = env.cmd();
            cmd.args(["sweep", "leases", "--batch", "25", "-o", "json"])
                .args(["--actor", &format!("sweeper-{i}")])
                .write_stdin("");
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                cmd.output().unwrap()
            })
        })
        .collect();
    let mut total = (0, 0, 0);
    for run in runs {
        let run = Run(run.join().unwrap()).expect(0);
        let (examined, pending, uncertain, skipped, dry) = counts(&run.json());
        assert!(!dry);
        assert_eq!(examined, pending + uncertain + skipped);
        total.0 += pending;
        total.1 += uncertain;
        total.2 += skipped;
    }
    assert_eq!(
        (total.0, total.1),
        (1000, 1000),
        "each job counted by exactly one sweeper"
    );
    assert_eq!(
        env.count("SELECT count(*) FROM job_events WHERE action LIKE 'sweep%'")
            .await,
        2000
    );
    assert_eq!(
        env.count("SELECT count(DISTINCT job_id) FROM job_events WHERE action LIKE 'sweep%'")
            .await,
        2000
    );
    assert_eq!(
        env.count(
            "SELECT count(*) FROM publication_jobs
             WHERE version = 2 AND lease_owner IS NULL
               AND state = CASE WHEN sent_at IS NULL THEN 'pending' ELSE 'uncertain' END"
        )
        .await,
        2000
    );
    // The actor of each event is the sweeper that counted it.
    let per_actor = env
        .client
        .query(
            "SELECT actor, count(*) FROM job_events WHERE action LIKE 'sweep%' GROUP BY actor",
            &[],
        )
        .await
        .unwrap();
    let sum: i64 = per_actor.iter().map(|r| r.get::<_, i64>(1)).sum();
    assert_eq!(sum, 2000);
    eprintln!(
        "sweepers: {:?}, skipped in total {}",
        per_actor
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1)))
            .collect::<Vec<_>>(),
        total.2
    );
    env.assert_invariants().await;
}

fn race_rounds() -> usize {
    if long_tests() {
        500
    } else {
        40
    }
}

/// What the worker does in a race round.
#[derive(Clone, Copy, Debug)]
enum WorkerMove {
    Complete,
    Renew,
}

/// A worker completing (or renewing) a job at the moment its lease expired and a sweep runs:
/// exactly one of the two writes wins, the loser changes nothing, and one event is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn worker_and_sweep_racing_on_one_job_have_exactly_one_winner() {
    let env = TestEnv::new().await;
    let worker_db = Arc::new(env.connect().await);
    let sweep_db = Arc::new(env.connect().await);
    let mut wins = [0usize; 2];
    for round in 0..race_rounds() {
        let sent = round % 2 == 0;
        let how = if round % 4 < 2 {
            WorkerMove::Complete
        } else {
            WorkerMove::Renew
        };
        let job = env.seed(expired(&format!("race-{round}"), 1, sent)).await;
        let barrier = Arc::new(tokio::sync::Barrier::new(2));
        let worker_task = {
            let (db, barrier, job) = (worker_db.clone(), barrier.clone(), job.clone());
            // The sweep needs a few round trips before its UPDATE, the worker one: in every
            // other group of rounds the worker starts up to 2 ms late, so that both orders
            // (and the overlaps between) occur.
            let stagger = if (round / 4) % 2 == 0 {
                std::time::Duration::ZERO
            } else {
                std::time::Duration::from_micros((round as u64 * 397) % 2000)
            };
            tokio::spawn(async move {
                barrier.wait().await;
                tokio::time::sleep(stagger).await;
                match how {
                    WorkerMove::Complete => worker::complete(&*db, &job, "remote-9").await,
                    WorkerMove::Renew => {
                        worker::renew(&*db, &job, std::time::Duration::from_secs(300)).await
                    }
                }
            })
        };
        let sweep_task = {
            let (db, barrier) = (sweep_db.clone(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                sweep(&*db, &SweepOptions::new("sweep@test")).await
            })
        };
        let worker_result = worker_task.await.unwrap();
        let report = sweep_task.await.unwrap().unwrap();
        let now = env.job(job.id).await;
        let events = env.events(job.id).await;
        assert_eq!(events.len(), 2, "round {round}: seed + exactly one write");
        assert_eq!(now.version, job.version + 1, "round {round}");
        match worker_result {
            Ok(written) => {
                wins[0] += 1;
                assert_eq!(
                    report.moved(),
                    0,
                    "round {round}: the worker won; the sweep moved it too"
                );
                assert_eq!(written, now);
                match how {
                    WorkerMove::Complete => assert_eq!(now.state, Accepted),
                    WorkerMove::Renew => {
                        assert_eq!(now.state, InFlight);
                        assert!(now.lease_expires_at > job.lease_expires_at);
                    }
                }
            }
            Err(e) => {
                wins[1] += 1;
                assert_eq!(e.kind(), Kind::Conflict, "round {round}: {e}");
                assert_eq!(report.moved(), 1, "round {round}: neither won");
                assert_eq!(now.state, if sent { Uncertain } else { Pending });
                assert_eq!(e.current(), Some(&now), "the conflict shows the job now");
                assert_eq!(events[1].actor, "sweep@test");
            }
        }
        assert_eq!(report.examined, report.moved() + report.skipped);
    }
    eprintln!("worker won {} rounds, sweep won {}", wins[0], wins[1]);
    assert!(
        wins[0] > 0 && wins[1] > 0,
        "both orders must occur for the race to test anything: {wins:?}"
    );
    env.assert_invariants().await;
}

/// A worker that comes back after the sweep, still holding the old version, is fenced: its
/// complete, renew and mark_sent are conflicts, and the job stays where the sweep put it.
#[tokio::test]
async fn worker_writing_with_its_old_version_after_the_sweep_is_fenced() {
    let env = TestEnv::new().await;
    let unsent = env.seed(expired("unsent", 600, false)).await;
    let sent = env.seed(expired("sent", 600, true)).await;
    env.run(&["sweep", "leases", "-q"]).expect(0);
    for (job, swept_to) in [(&unsent, Pending), (&sent, Uncertain)] {
        let after_sweep = env.job(job.id).await;
        assert_eq!(after_sweep.state, swept_to);
        let attempts = [
            worker::complete(&env.client, job, "remote-1").await,
            worker::renew(&env.client, job, std::time::Duration::from_secs(60)).await,
            worker::mark_sent(&env.client, job).await,
            worker::timed_out(&env.client, job, "read timeout").await,
        ];
        for result in attempts {
            let err = result.expect_err("a stale worker must be fenced");
            assert_eq!(err.kind(), Kind::Conflict);
            assert_eq!(err.code(), "version_conflict");
            assert_eq!(err.current(), Some(&after_sweep));
        }
        assert_eq!(
            env.job(job.id).await,
            after_sweep,
            "the fenced writes changed nothing"
        );
        assert_eq!(env.events(job.id).await.len(), 2);
    }
}

#[tokio::test]
async fn library_sweep_reports_the_same_counts() {
    let env = TestEnv::new().await;
    env.seed(expired("a", 600, false)).await;
    env.seed(expired("b", 600, true)).await;
    let mut opts = SweepOptions::new("lib");
    opts.dry_run = true;
    let dry = sweep(&env.client, &opts).await.unwrap();
    opts.dry_run = false;
    let real = sweep(&env.client, &opts).await.unwrap();
    assert_eq!(
        (dry.examined, dry.to_pending, dry.to_uncertain, dry.skipped),
        (
            real.examined,
            real.to_pending,
            real.to_uncertain,
            real.skipped
        )
    );
    assert_eq!((real.to_pending, real.to_uncertain), (1, 1));
    assert_eq!(real.stopped_by, StoppedBy::Done);
}

/// On a read-only session (`--read-only`, or a hot standby) only a dry run is possible; it
/// counts without row locks, so it cannot see what other sessions hold.
#[tokio::test]
async fn read_only_session_can_dry_run_but_not_sweep() {
    let env = TestEnv::new().await;
    let unsent = env.seed(expired("a", 600, false)).await;
    let sent = env.seed(expired("b", 600, true)).await;
    let run = env
        .run(&["--read-only", "sweep", "leases", "-o", "json"])
        .expect(2);
    assert_eq!(run.json()["error"]["kind"], json!("usage"));
    let holder = env.connect().await;
    holder
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM publication_jobs WHERE id = '{}' FOR UPDATE",
            sent.id
        ))
        .await
        .unwrap();
    let dry = sweep_json(&env, &["--read-only", "--dry-run"]);
    assert_eq!(
        counts(&dry),
        (2, 1, 1, 0, true),
        "no locks: the held job counts too"
    );
    holder.batch_execute("ROLLBACK").await.unwrap();
    assert_untouched(&unsent, &env.job(unsent.id).await);
    assert_untouched(&sent, &env.job(sent.id).await);
}
