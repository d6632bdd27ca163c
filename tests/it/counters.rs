//! The exact counts per state and destination (migrations/V10): kept by the database with
//! every kind of write, under concurrent writers, through a killed transaction; built for an
//! existing table while writers go on; verified and repaired by `doctor --recount`.

use std::collections::BTreeMap;
use std::time::Duration;

use reconctl::jobs::{payload_hash, sweep, worker, BusinessKey, State};
use serde_json::Value;
use tokio_postgres::Client;

use crate::cms::{found, Cms};
use crate::harness::*;
use crate::inspect::bulk;
use crate::reliability::roles::LoginUser;

type Groups = BTreeMap<(String, String), i64>;

/// What the table holds, counted.
async fn counted(c: &Client) -> Groups {
    c.query(
        "SELECT state, destination, count(*) FROM publication_jobs GROUP BY 1, 2",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| ((r.get(0), r.get(1)), r.get(2)))
    .collect()
}

/// What the counters say (groups summing to 0 left out, as the readers do).
async fn counters(c: &Client) -> Groups {
    c.query(
        "SELECT state, destination, sum(n)::bigint FROM job_counters GROUP BY 1, 2 HAVING sum(n) <> 0",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| ((r.get(0), r.get(1)), r.get(2)))
    .collect()
}

/// The counters equal the table, and `status -o json` says so too (accepted included).
async fn assert_exact(env: &TestEnv, after: &str) {
    let table = counted(&env.client).await;
    assert_eq!(counters(&env.client).await, table, "after {after}");
    let v = env.run(&["status", "-o", "json"]).expect(0).json();
    let mut from_status = Groups::new();
    for s in v["states"].as_array().unwrap() {
        let state = s["state"].as_str().unwrap().to_string();
        if state == "accepted" {
            let n = s["count"].as_i64().unwrap();
            let want: i64 = table
                .iter()
                .filter(|((st, _), _)| st == "accepted")
                .map(|(_, n)| n)
                .sum();
            assert_eq!(n, want, "after {after}: accepted in status");
            continue;
        }
        for d in s["destinations"].as_array().unwrap() {
            from_status.insert(
                (
                    state.clone(),
                    d["destination"].as_str().unwrap().to_string(),
                ),
                d["count"].as_i64().unwrap(),
            );
        }
    }
    let open: Groups = table
        .into_iter()
        .filter(|((s, _), _)| s != "accepted")
        .collect();
    assert_eq!(from_status, open, "after {after}: status");
}

fn total(g: &Groups, state: &str) -> i64 {
    g.iter()
        .filter(|((s, _), _)| s == state)
        .map(|(_, n)| n)
        .sum()
}

#[tokio::test]
async fn counters_are_exact_after_every_kind_of_write() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let c = &env.client;
    let lease = Duration::from_secs(300);
    assert_exact(&env, "migration of an empty table").await;

    // The worker API: reserve (and a reserve of the same intent: no new job), claim, renew
    // (no state change), mark_sent, complete, fail, timed_out.
    let mut ids = Vec::new();
    for article in ["w1", "w2", "w3", "w4"] {
        let key = BusinessKey::new("t1", article, "1", "cms-w");
        let r = worker::reserve(c, &key, &payload_hash(article.as_bytes()), "publisher")
            .await
            .unwrap();
        ids.push(r.job().id);
    }
    let key = BusinessKey::new("t1", "w1", "1", "cms-w");
    worker::reserve(c, &key, &payload_hash(b"w1"), "publisher")
        .await
        .unwrap();
    assert_exact(&env, "reserve").await;
    assert_eq!(total(&counters(c).await, "pending"), 4);
    let j = worker::claim(c, "worker-1", lease, None)
        .await
        .unwrap()
        .unwrap();
    assert_exact(&env, "claim").await;
    let j = worker::renew(c, &j, lease).await.unwrap();
    let j = worker::mark_sent(c, &j).await.unwrap();
    worker::complete(c, &j, "remote-1").await.unwrap();
    assert_exact(&env, "complete").await;
    let j = worker::claim(c, "worker-1", lease, None)
        .await
        .unwrap()
        .unwrap();
    worker::fail(c, &j, "refused").await.unwrap();
    let j = worker::claim(c, "worker-1", lease, None)
        .await
        .unwrap()
        .unwrap();
    let j = worker::mark_sent(c, &j).await.unwrap();
    worker::timed_out(c, &j, "timeout").await.unwrap();
    assert_exact(&env, "fail and timed_out").await;

    // Sweep: leases that ran out (sent: uncertain; not sent: pending).
    for (i, sent) in [(0, true), (1, true), (2, false)] {
        env.seed(
            Seed::new(&format!("s{i}"))
                .state(State::InFlight)
                .destination("cms-s")
                .lease("worker-2", -600),
        )
        .await;
        if sent {
            c.execute(
                "UPDATE publication_jobs SET sent_at = now() - interval '20 minutes' WHERE article_id = $1",
                &[&format!("s{i}")],
            )
            .await
            .unwrap();
        }
    }
    let report = sweep::sweep(c, &sweep::SweepOptions::new("sweeper"))
        .await
        .unwrap();
    assert_eq!(report.to_uncertain + report.to_pending, 3);
    assert_exact(&env, "sweep").await;
    env.run(&["sweep", "leases"]).expect(0);
    assert_exact(&env, "sweep leases (nothing to do)").await;

    // A mark by an operator.
    let u = env
        .seed(Seed::new("m1").state(State::Uncertain).destination("cms-a"))
        .await;
    env.run(&[
        "mark",
        "failed",
        &u.id.to_string(),
        "--reason",
        "given up",
        "--yes",
    ])
    .expect(0);
    assert_exact(&env, "mark failed").await;

    // Reconcile: the destination has it, so uncertain -> accepted.
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let r = env
        .seed(
            Seed::new("r1")
                .state(State::Uncertain)
                .destination("cms-a")
                .sent_ago(600),
        )
        .await;
    cms.answer(&r.external_ref, found("r-1", &r.payload_hash))
        .await;
    let before = total(&counters(c).await, "accepted");
    env.run(&[
        "--config",
        &cfg,
        "reconcile",
        "--destination",
        "cms-a",
        "--apply",
        "--yes",
    ])
    .expect(0);
    assert_eq!(total(&counters(c).await, "accepted"), before + 1);
    assert_exact(&env, "reconcile").await;

    // Plain SQL: state, destination, both, many rows at once, an upsert, COPY.
    c.batch_execute(
        "UPDATE publication_jobs SET state = 'conflict' WHERE state = 'failed';
         UPDATE publication_jobs SET destination = 'cms-moved' WHERE destination = 'cms-s';
         UPDATE publication_jobs SET state = 'safe_to_retry', destination = 'cms-x' WHERE state = 'conflict' AND article_id = 'm1';
         UPDATE publication_jobs SET attempts = attempts + 1;",
    )
    .await
    .unwrap();
    assert_exact(&env, "plain SQL updates").await;
    bulk(c, "bulk-", 2000, None, 86400, 5).await;
    assert_exact(&env, "a set-based insert").await;
    c.batch_execute(
        "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
         SELECT tenant_id, article_id, revision_id, destination, external_ref, payload_hash
         FROM publication_jobs WHERE article_id LIKE 'bulk-1%'
         ON CONFLICT (tenant_id, article_id, revision_id, destination) DO UPDATE SET state = 'pending',
             lease_owner = NULL, lease_expires_at = NULL",
    )
    .await
    .unwrap();
    assert_exact(&env, "INSERT ... ON CONFLICT DO UPDATE").await;

    // Deletes by a superuser, around the audit log (its triggers and foreign key do not
    // fire as a replica): the counters' triggers fire all the same.
    c.batch_execute(
        "SET session_replication_role = replica;
         DELETE FROM publication_jobs WHERE article_id LIKE 'bulk-2%';
         UPDATE publication_jobs SET state = 'failed' WHERE article_id LIKE 'bulk-3%' AND state = 'pending';
         SET session_replication_role = DEFAULT;",
    )
    .await
    .unwrap();
    assert_exact(&env, "deletes and updates as a replica").await;

    // A rolled-back write leaves the counters as they were.
    let before = counters(c).await;
    c.batch_execute(
        "BEGIN; UPDATE publication_jobs SET state = 'failed' WHERE state = 'pending'; ROLLBACK;",
    )
    .await
    .unwrap();
    assert_eq!(counters(c).await, before);

    // TRUNCATE (as a replica, around the audit log's append-only trigger): no jobs, no counts.
    env.client
        .batch_execute(
            "SET session_replication_role = replica;
             TRUNCATE publication_jobs, job_events;
             SET session_replication_role = DEFAULT;",
        )
        .await
        .unwrap();
    assert!(counters(c).await.is_empty());
    assert_exact(&env, "truncate").await;
}

#[tokio::test]
async fn sixteen_concurrent_writers_keep_the_counters_exact() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let c = &env.client;
    // 200 jobs shared by every writer, over 3 destinations: the writers contend on the jobs
    // and on the counters of every group.
    bulk(c, "c-", 200, Some(State::Pending), 3600, 3).await;
    let writers = 16;
    let moves = 1000;
    let mut tasks = Vec::new();
    for w in 0..writers {
        let client = env.connect().await;
        tasks.push(tokio::spawn(async move {
            let states = ["pending", "failed", "safe_to_retry", "uncertain", "conflict"];
            let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ (w as u64 + 1);
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for i in 0..moves {
                let article = format!("c-{}", next() % 200);
                let state = states[(next() % states.len() as u64) as usize];
                if i % 10 == 0 {
                    // A move and a destination change at once.
                    let d = format!("cms-{}", next() % 4);
                    client
                        .execute(
                            "UPDATE publication_jobs SET state = $1, destination = $2 WHERE article_id = $3",
                            &[&state, &d, &article],
                        )
                        .await
                        .unwrap();
                } else if i % 50 == 1 {
                    // A statement moving several jobs across several groups (locking the
                    // jobs in one order, so writers do not deadlock on the jobs themselves).
                    let from = format!("c-{}%", next() % 20);
                    client
                        .execute(
                            "UPDATE publication_jobs SET state = $1 WHERE id IN (
                                 SELECT id FROM publication_jobs WHERE article_id LIKE $2
                                 ORDER BY id FOR UPDATE)",
                            &[&state, &from],
                        )
                        .await
                        .unwrap();
                } else {
                    client
                        .execute(
                            "UPDATE publication_jobs SET state = $1 WHERE article_id = $2",
                            &[&state, &article],
                        )
                        .await
                        .unwrap();
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_exact(&env, "16 writers × 1000 moves").await;
    // The writers spread over several slots (one per transaction id, modulo 16).
    let slots = env
        .count("SELECT count(DISTINCT slot) FROM job_counters WHERE slot >= 0")
        .await;
    assert!(slots > 4, "{slots} slots used by {writers} writers");
}

/// The slot a write counts in is its transaction's id modulo 16 (V12): a session's next
/// transaction writes another row, and eight transactions open at once, each holding its
/// uncommitted count of one group, do not wait for each other on a counter row.
#[tokio::test]
async fn concurrent_transactions_count_in_their_own_slots_without_waiting() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let insert = |article: &str| {
        format!(
            "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
             VALUES ('t', '{article}', '1', 'cms-slots', 'pub_' || encode(sha256('{article}'::bytea), 'hex'), repeat('a', 64))"
        )
    };
    let slot_of = "SELECT (pg_current_xact_id()::text::bigint % 16)::int";
    // One session, two transactions: each counts in its own transaction's slot.
    let c = env.connect().await;
    let mut seen = Vec::new();
    for article in ["s-1", "s-2"] {
        c.batch_execute("BEGIN").await.unwrap();
        c.batch_execute(&insert(article)).await.unwrap();
        let slot: i32 = c.query_one(slot_of, &[]).await.unwrap().get(0);
        c.batch_execute("COMMIT").await.unwrap();
        seen.push(slot);
    }
    let rows: Vec<(i32, i64)> = env
        .client
        .query(
            "SELECT slot::int, n FROM job_counters WHERE destination = 'cms-slots' ORDER BY slot",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut want: Vec<(i32, i64)> = seen.iter().map(|s| (*s, 1)).collect();
    want.sort();
    assert_ne!(
        seen[0], seen[1],
        "one session's two transactions share a slot"
    );
    assert_eq!(rows, want, "each transaction counted in its own slot");

    // Eight transactions open at once, each inserting into the same group and holding its
    // counter row until it ends: none waits (a wait would run into the 2 s lock timeout).
    // Transactions begun one after another get neighbouring ids, so distinct slots, unless
    // the other tests' transactions (one cluster) took ids in between: then begin again.
    let sessions = futures::future::join_all((0..8).map(|_| env.connect())).await;
    let mut attempt = 0;
    loop {
        let mut slots = Vec::new();
        for c in &sessions {
            c.batch_execute("BEGIN; SET LOCAL lock_timeout = '2s'")
                .await
                .unwrap();
            slots.push(c.query_one(slot_of, &[]).await.unwrap().get::<_, i32>(0));
        }
        slots.sort();
        slots.dedup();
        if slots.len() == sessions.len() {
            break;
        }
        for c in &sessions {
            c.batch_execute("ROLLBACK").await.unwrap();
        }
        attempt += 1;
        assert!(attempt < 50, "never got eight neighbouring transaction ids");
    }
    for (w, c) in sessions.iter().enumerate() {
        c.batch_execute(&insert(&format!("w-{w}"))).await.unwrap();
    }
    for c in &sessions {
        c.batch_execute("COMMIT").await.unwrap();
    }
    assert_exact(&env, "eight concurrent transactions").await;
    let used = env
        .count("SELECT count(*) FROM job_counters WHERE destination = 'cms-slots' AND n <> 0")
        .await;
    assert!(used >= 8, "eight open transactions counted in {used} slots");
}

#[tokio::test]
async fn a_transaction_killed_mid_way_leaves_the_counters_unchanged() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let c = &env.client;
    bulk(c, "k-", 500, Some(State::Pending), 3600, 2).await;
    let before = counters(c).await;
    // A psql whose transaction has moved every job and then waits; the backend notices its
    // client is gone within 100 ms.
    let psql = format!(
        "{}/psql",
        std::env::var("PG_BIN").unwrap_or_else(|_| "/usr/lib/postgresql/15/bin".into())
    );
    let mut child = std::process::Command::new(psql)
        .args([
            &env.url,
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            "SET client_connection_check_interval = '100ms'; SET application_name = 'counters-killed'",
            "-c",
            "BEGIN; UPDATE publication_jobs SET state = 'failed', destination = 'cms-dead'; SELECT pg_sleep(60); COMMIT;",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until it has written and sleeps (its counter deltas are written, uncommitted).
    let mut waited = 0;
    loop {
        let sleeping = env
            .count(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'counters-killed' AND query LIKE '%pg_sleep%' AND state = 'active' AND wait_event = 'PgSleep'",
            )
            .await;
        if sleeping == 1 {
            break;
        }
        waited += 1;
        assert!(waited < 200, "the psql transaction never got to its sleep");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Meanwhile, others see the counters as they were.
    assert_eq!(counters(c).await, before);
    // kill -9 (std's kill is SIGKILL on Unix).
    child.kill().unwrap();
    let _ = child.wait();
    let mut waited = 0;
    while env
        .count("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'counters-killed'")
        .await
        > 0
    {
        waited += 1;
        assert!(waited < 200, "the killed session's backend did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(counters(c).await, before, "rolled back: unchanged");
    assert_exact(&env, "a killed transaction").await;
}

/// The build of `migrate` for a table written before V10: counted in a snapshot while
/// other transactions write, some committed before it, one open across it.
#[tokio::test]
async fn the_build_combines_its_snapshot_with_writes_before_during_and_after_it() {
    let mut env = TestEnv::empty().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let mut admin = env.connect().await;
    reconctl::migrate::migrate_to(&mut admin, 8).await.unwrap();
    bulk(&admin, "b-", 3000, None, 86400, 4).await;
    // Every migration (V14 counts the in_flight jobs per lease minute on unbuilt counters
    // too), but not migrate's build.
    reconctl::migrate::migrate_to(&mut admin, 16).await.unwrap();
    let built: Option<chrono::DateTime<chrono::Utc>> = admin
        .query_one("SELECT built_at FROM job_counters_build", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(built, None, "a table with jobs: not built by the migration");
    // Before the build: status counts the open states from their index, accepted unknown.
    let v = env.run(&["status", "-o", "json"]).expect(0).json();
    assert_eq!(v["states"][6]["state"], "accepted");
    assert_eq!(v["states"][6]["count"], Value::Null);
    let text = env.run(&["status"]).expect(0).stdout();
    assert!(text.contains("counters not built"), "{text}");
    // destination list names the destinations with open jobs from the table meanwhile.
    let destinations = |env: &TestEnv| {
        env.run(&["destination", "list", "-o", "json"])
            .expect(0)
            .json()["destinations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(destinations(&env), ["cms-0", "cms-1", "cms-2", "cms-3"]);
    // check works too (its scan of the open states' index).
    env.run(&[
        "check",
        "--max-uncertain",
        "100000",
        "--max-conflict",
        "100000",
        "--stuck-after",
        "100d",
    ])
    .expect(0);

    // Committed after V10, before the build: in the count and in the counters.
    admin
        .batch_execute("UPDATE publication_jobs SET state = 'failed' WHERE article_id LIKE 'b-1%' AND state = 'pending'")
        .await
        .unwrap();
    // Open across the build: in neither; its change arrives when it commits.
    let open = env.connect().await;
    open.batch_execute(
        "BEGIN; UPDATE publication_jobs SET state = 'conflict', destination = 'cms-open' WHERE article_id LIKE 'b-2%' AND state <> 'in_flight';
         INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
         VALUES ('t', 'new', '1', 'cms-open', 'pub_' || repeat('a', 64), repeat('b', 64));",
    )
    .await
    .unwrap();
    let r = reconctl::jobs::counters::recount(&admin, None)
        .await
        .unwrap();
    assert!(!r.was_built);
    open.batch_execute("COMMIT").await.unwrap();
    // After: an ordinary write.
    admin
        .batch_execute("UPDATE publication_jobs SET state = 'pending' WHERE article_id LIKE 'b-3%' AND state = 'failed'")
        .await
        .unwrap();
    assert_exact(&env, "the build").await;
    let jobs: i64 = counters(&env.client).await.values().sum();
    assert_eq!(jobs, 3001);
    // From the counters now: the open destination the transaction across the build added.
    assert_eq!(
        destinations(&env),
        ["cms-0", "cms-1", "cms-2", "cms-3", "cms-open"]
    );
    // Built: a second build has nothing to add, and migrate has nothing to do.
    env.run(&["migrate"]).expect(0);
    assert_exact(&env, "a second migrate").await;
}

/// `reconctl migrate` on a table written before V10, with writers going all through it: the
/// migration stops them only for the triggers' creation, the build not at all, and the
/// counters come out exact.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn migrate_builds_the_counters_while_writers_write() {
    let mut env = TestEnv::empty().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let mut admin = env.connect().await;
    reconctl::migrate::migrate_to(&mut admin, 8).await.unwrap();
    admin
        .batch_execute("SET statement_timeout = 0")
        .await
        .unwrap();
    bulk(&admin, "m-", 100_000, None, 86400, 6).await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut tasks = Vec::new();
    for w in 0..4u64 {
        let client = env.connect().await;
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let states = ["pending", "failed", "safe_to_retry", "uncertain"];
            let (mut i, mut longest) = (w, Duration::ZERO);
            let mut writes = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                i = (i * 7919 + 13) % 100_000;
                let started = std::time::Instant::now();
                // Jobs that are open (not accepted, as the fixture made them) move among
                // the open states and destinations; ones that are accepted stay.
                client
                    .execute(
                        "UPDATE publication_jobs SET state = $1, destination = 'cms-' || ($3::bigint % 7)
                         WHERE article_id = $2 AND state NOT IN ('accepted', 'in_flight')",
                        &[&states[(i % 4) as usize], &format!("m-{i}"), &(i as i64)],
                    )
                    .await
                    .unwrap();
                longest = longest.max(started.elapsed());
                writes.push(std::time::Instant::now());
            }
            (writes, longest)
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let began = std::time::Instant::now();
    let out = env.run(&["migrate", "--yes"]).expect(0);
    let ended = std::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let (mut writes, mut during, mut slowest) = (0, 0, Duration::ZERO);
    for t in tasks {
        let (at, longest) = t.await.unwrap();
        slowest = slowest.max(longest);
        writes += at.len();
        during += at.iter().filter(|t| **t > began && **t < ended).count();
        assert!(
            longest < Duration::from_secs(1),
            "a writer waited {longest:?}: {}",
            out.stdout()
        );
    }
    assert!(writes > 100, "{writes} writes");
    assert!(during > 10, "{during} of {writes} writes while migrate ran");
    // It says it built them, after the migrations it applied.
    let text = out.stdout();
    assert_eq!(
        text.lines().last(),
        Some("built the job counters of the jobs written before V10"),
        "{text}"
    );
    eprintln!(
        "migrate with 4 writers on 100 000 jobs: {:?}; {during} of {writes} writes while it ran, the slowest {slowest:?}",
        ended - began
    );
    // Writes were committed between the migration and the end of the build.
    assert_exact(&env, "migrate with writers").await;
}

#[tokio::test]
async fn doctor_recount_finds_and_repairs_a_tampered_counter() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    let c = &env.client;
    bulk(c, "d-", 1000, None, 86400, 3).await;
    // Agreeing counters: exit 0.
    let v = env
        .run(&["doctor", "--recount", "-o", "json"])
        .expect(0)
        .json();
    let check = counters_check(&v);
    assert_eq!(check["ok"], true);
    assert!(check["detail"]
        .as_str()
        .unwrap()
        .contains("every count matches the table"));
    let table = counted(c).await;
    // Tampered: one group off by 5, a group that does not exist.
    c.batch_execute(
        "UPDATE job_counters SET n = n + 5 WHERE (state, destination, slot) IN
             (SELECT state, destination, slot FROM job_counters WHERE state = 'accepted' AND destination = 'cms-1' LIMIT 1);
         INSERT INTO job_counters VALUES ('uncertain', 'cms-ghost', 3, 2);",
    )
    .await
    .unwrap();
    assert_ne!(counters(c).await, table);
    let run = env.run(&["doctor", "--recount", "-o", "json"]).expect(5);
    let v = run.json();
    let check = counters_check(&v);
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains("2 group(s) disagreed"), "{detail}");
    let accepted = table[&("accepted".to_string(), "cms-1".to_string())];
    assert!(
        detail.contains(&format!(
            "accepted at cms-1: counters said {}, the table holds {accepted}",
            accepted + 5
        )),
        "{detail}"
    );
    assert!(
        detail.contains("uncertain at cms-ghost: counters said 2, the table holds 0"),
        "{detail}"
    );
    assert_exact(&env, "the repair").await;
    // Recorded.
    let rows = c
        .query(
            "SELECT actor, state, destination, counted, counters FROM job_counters_repairs ORDER BY state",
            &[],
        )
        .await
        .unwrap();
    let rows: Vec<(String, String, String, i64, i64)> = rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    let actor = rows[0].0.clone();
    assert_eq!(
        rows,
        vec![
            (
                actor.clone(),
                "accepted".into(),
                "cms-1".into(),
                accepted,
                accepted + 5
            ),
            (actor.clone(), "uncertain".into(), "cms-ghost".into(), 0, 2),
        ]
    );
    // doctor shows the last repair; a second recount finds nothing: exit 0.
    let v = env.run(&["doctor", "-o", "json"]).expect(0).json();
    assert!(
        counters_check(&v)["detail"]
            .as_str()
            .unwrap()
            .contains("last repaired"),
        "{v}"
    );
    env.run(&["doctor", "--recount"]).expect(0);
}

fn counters_check(v: &Value) -> Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "counters")
        .unwrap_or_else(|| panic!("no counters check: {v}"))
        .clone()
}

/// status -v and metrics count a destination's expired leases as its in_flight jobs (the
/// counters) less its live leases: exact beside live leases, and the same as the count of
/// the expired ones that is read before the counters are built.
#[tokio::test]
async fn expired_leases_are_the_in_flight_count_less_the_live_leases() {
    let mut env = TestEnv::new().await;
    // Plain SQL writes jobs without their events, on purpose.
    env.skip_invariants = true;

    // (article, destination, lease expiry relative to now, in seconds)
    let leases = [
        ("x-1", "cms-x", -3600),
        ("x-2", "cms-x", -600),
        ("x-3", "cms-x", -5),
        ("x-4", "cms-x", 300),
        ("x-5", "cms-x", 30),
        ("y-1", "cms-y", 60),
        ("z-1", "cms-z", -120),
    ];
    for (article, destination, secs) in leases {
        env.client
            .execute(
                "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref,
                     payload_hash, state, lease_owner, lease_expires_at)
                 VALUES ('t', $1, '1', $2, 'pub_' || encode(sha256(convert_to($1, 'UTF8')), 'hex'), repeat('b', 64),
                     'in_flight', 'worker-1', now() + make_interval(secs => $3::float8))",
                &[&article, &destination, &(secs as f64)],
            )
            .await
            .unwrap();
    }
    let read = |v: Value| -> Vec<(String, i64, i64)> {
        v["expired_leases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let at =
                    chrono::DateTime::parse_from_rfc3339(g["oldest_expired_at"].as_str().unwrap())
                        .unwrap();
                let ago = (chrono::Utc::now() - at.with_timezone(&chrono::Utc)).num_seconds();
                (
                    g["destination"].as_str().unwrap().to_string(),
                    g["count"].as_i64().unwrap(),
                    ago,
                )
            })
            .collect()
    };
    let near = |got: &[(String, i64, i64)]| -> Vec<(String, i64, bool)> {
        got.iter()
            .map(|(d, n, ago)| {
                let want = if d == "cms-x" { 3600 } else { 120 };
                (d.clone(), *n, (want..want + 60).contains(ago))
            })
            .collect()
    };
    let want = vec![
        ("cms-x".to_string(), 3, true),
        ("cms-z".to_string(), 1, true),
    ];
    let built = read(env.run(&["status", "-v", "-o", "json"]).expect(0).json());
    assert_eq!(near(&built), want, "{built:?}");
    // Before the counters are built: the expired leases counted from their index, the same.
    env.client
        .execute("UPDATE job_counters_build SET built_at = NULL", &[])
        .await
        .unwrap();
    let unbuilt = read(env.run(&["status", "-v", "-o", "json"]).expect(0).json());
    assert_eq!(near(&unbuilt), want, "{unbuilt:?}");
}

/// check reads the counters once they are built, and the table before (the counted form is
/// sent at once; the scan runs only when the counters turn out not to be built): counters
/// that disagree with the table show in check only while they are trusted.
#[tokio::test]
async fn check_counts_from_the_table_until_the_counters_are_built() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // the counters are tampered with on purpose
    for i in 0..3 {
        env.seed(Seed::new(&format!("u{i}")).state(State::Uncertain))
            .await;
    }
    let uncertain = |env: &TestEnv| {
        env.run(&["check", "-o", "json"]).expect(5).json()["counts"]["uncertain"].clone()
    };
    assert_eq!(uncertain(&env), 3);
    // Seven more uncertain jobs in the counters than in the table: a built counter is
    // believed (doctor --recount is what finds it out)...
    env.client
        .batch_execute("INSERT INTO job_counters VALUES ('uncertain', 'cms-a', -1, 7)")
        .await
        .unwrap();
    assert_eq!(uncertain(&env), 10);
    // ...and one not built yet is not read at all.
    env.client
        .execute("UPDATE job_counters_build SET built_at = NULL", &[])
        .await
        .unwrap();
    assert_eq!(uncertain(&env), 3);
}

/// The in_flight counters are kept per minute of lease expiry (V14): after claims' inserts,
/// renewals that move leases across minutes and a fold, every minute's counters equal the
/// table's, and check's stuck leases (counter minutes before the cutoff's minute, plus one
/// side of that minute from the index) equal a count of the table at cutoffs all over the
/// minute.
#[tokio::test]
async fn check_counts_stuck_leases_from_the_lease_minutes() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    in_flight_expiring(&env.client, "a-", 400, 2, "7 * i - 300").await;
    env.client
        .batch_execute(
            "UPDATE publication_jobs SET lease_expires_at = lease_expires_at + interval '137 seconds'
             WHERE state = 'in_flight' AND article_id LIKE '%3';
             SELECT job_counters_fold();",
        )
        .await
        .unwrap();
    let per_minute = |sql: String| {
        let c = &env.client;
        async move {
            let rows = c.query(&sql, &[]).await.unwrap();
            rows.iter()
                .map(|r| {
                    (
                        r.get::<_, String>(0),
                        r.get::<_, i64>(1),
                        r.get::<_, i64>(2),
                    )
                })
                .collect::<Vec<_>>()
        }
    };
    // The recount's expression (MINUTE_EXPR) against what the triggers wrote (the
    // migration's own copy of it): the two must agree.
    let table = per_minute(format!(
        "SELECT destination, {}, count(*)
         FROM publication_jobs WHERE state = 'in_flight' GROUP BY 1, 2 ORDER BY 1, 2",
        reconctl::jobs::counters::MINUTE_EXPR
    ))
    .await;
    let kept = per_minute(
        "SELECT destination, lease_minute, sum(n)::bigint FROM job_counters
         WHERE state = 'in_flight' GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2"
            .to_string(),
    )
    .await;
    assert_eq!(kept, table);
    let slots: i64 = env
        .client
        .query_one(
            "SELECT count(*) FROM job_counters WHERE state = 'in_flight'
             AND lease_minute < floor(extract(epoch FROM now()) / 60)::bigint - 1
             GROUP BY destination, lease_minute ORDER BY count(*) DESC LIMIT 1",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(
        slots <= 2,
        "a past minute folded into its base and one row: {slots}"
    );
    for secs in [60u64, 95, 200, 333, 1000, 2000] {
        let before = stuck_count(&env.client, secs).await;
        let stuck = format!("{secs}s");
        let v = env
            .run(&[
                "check",
                "--max-uncertain",
                "9",
                "--stuck-after",
                &stuck,
                "-o",
                "json",
            ])
            .json();
        let after = stuck_count(&env.client, secs).await;
        let got = v["counts"]["stuck_leases"].as_i64().unwrap();
        assert!(
            (before..=after).contains(&got),
            "--stuck-after {secs}s: check {got}, the table {before}..{after}"
        );
    }
}

/// An incident at one destination (60 000 leases expired an hour ago) does not slow the
/// expired-lease read of another whose one lease expired seconds ago: each destination's
/// oldest expiry is the first of its own entries in the lease index (destination first), not
/// a walk past every older expiry of the others. status -v, metrics and check share the
/// statement; its pages read stay a handful per destination.
#[tokio::test]
async fn expired_leases_of_one_destination_are_read_apart_from_anothers_backlog() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    in_flight_expiring(&env.client, "old-", 60_000, 1, "3600 + i % 600").await;
    in_flight_expiring(&env.client, "new-", 1, 2, "10").await;
    env.client
        .batch_execute("VACUUM ANALYZE publication_jobs")
        .await
        .unwrap();
    let v = env.run(&["status", "-v", "-o", "json"]).expect(0).json();
    let leases: Vec<(String, i64)> = v["expired_leases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["destination"].as_str().unwrap().to_string(),
                g["count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        leases,
        [("cms-0".to_string(), 60_000), ("cms-1".to_string(), 1)]
    );
    for ago in [Duration::ZERO, Duration::from_secs(5)] {
        let sql = reconctl::jobs::query::moves::expired_leases_sql(ago);
        let plan = crate::plan::explain_buffers(&env.client, &sql.text, &sql.params()).await;
        let pages = crate::plan::pages_read(&plan);
        // The counters' pages, and per destination two short descents of the lease index.
        // 14 here; walking cms-0's 60 000 entries to find cms-1's read 80.
        assert!(pages <= 30, "{ago:?}: {pages} pages read\n{plan:#}");
    }
}

/// The part of the cutoff's minute that the expired-lease statement reads is one range of
/// `ix_publication_jobs_lease` for every destination at once, not a range per destination:
/// per destination, the planner (which estimates a lease range at a few rows) at times took
/// it from that index rather than the by-destination one, each of 20 destinations then
/// reading all 20 destinations' part (15 020 buffers at 10M jobs). Each destination's oldest
/// expiry stays a probe of its own. Here 20 destinations' leases expire
/// through the last ten minutes, so the cutoffs below fall among them on either side of
/// their minute's middle; each is counted exactly.
#[tokio::test]
async fn the_part_of_the_cutoffs_minute_is_one_range_for_every_destination() {
    let env = leases_through_the_last_ten_minutes().await;
    // Each scan of publication_jobs: its index, whether its range has both bounds (the part
    // of the minute) or only the cutoff (an oldest expiry), and its loops.
    fn scans(plan: &Value, out: &mut Vec<(String, bool, f64)>) {
        if plan["Relation Name"].as_str() == Some("publication_jobs") {
            let cond = plan["Index Cond"].as_str().unwrap_or("");
            out.push((
                plan["Index Name"].as_str().unwrap_or("").to_string(),
                cond.contains(">="),
                plan["Actual Loops"].as_f64().unwrap_or(0.0),
            ));
        }
        for p in plan["Plans"].as_array().into_iter().flatten() {
            scans(p, out);
        }
    }
    for secs in [100, 115, 130, 145, 160, 175, 190, 205] {
        let ago = Duration::from_secs(secs);
        let sql = reconctl::jobs::query::moves::expired_leases_sql(ago);
        let plan = crate::plan::explain(&env.client, &sql.text, &sql.params(), true).await;
        let mut read = Vec::new();
        scans(&plan, &mut read);
        // The part: one range of the lease index, run once. The oldest expiries: a probe per
        // destination (of whichever lease index the planner prefers for it).
        let part: Vec<_> = read.iter().filter(|(_, both, _)| *both).collect();
        assert_eq!(
            part,
            [&("ix_publication_jobs_lease".to_string(), true, 1.0)],
            "{secs}s: {read:?}\n{plan:#}"
        );
        assert!(
            read.len() == 2 && read.iter().any(|(_, both, loops)| !both && *loops == 20.0),
            "{secs}s: {read:?}\n{plan:#}"
        );
        // Exact, per destination, against the table in the same moment (the leases are
        // minutes from the cutoff's edges only where a second passes between the two reads,
        // so the table is read before and after).
        let counted = "SELECT destination, count(*) FROM publication_jobs
                       WHERE state = 'in_flight' AND lease_expires_at < now() - make_interval(secs => $1::float8)
                       GROUP BY 1 ORDER BY 1";
        let table = |rows: Vec<tokio_postgres::Row>| -> Vec<(String, i64)> {
            rows.iter().map(|r| (r.get(0), r.get(1))).collect()
        };
        let before = table(env.client.query(counted, &[&(secs as f64)]).await.unwrap());
        let got: Vec<(String, i64)> =
            reconctl::jobs::query::moves::expired_leases(&env.client, ago)
                .await
                .unwrap()
                .into_iter()
                .map(|g| (g.destination, g.count))
                .collect();
        let after = table(env.client.query(counted, &[&(secs as f64)]).await.unwrap());
        assert!(
            got == before || got == after,
            "{secs}s: {got:?} against {before:?} / {after:?}"
        );
        assert_eq!(got.len(), 20, "{secs}s: {got:?}");
    }
}

/// `check` reports one figure for the stuck leases, so it reads them without their
/// destinations: of the cutoff's minute, one range of `ix_publication_jobs_lease` counted from
/// the index alone (no visit to the table once its pages are all-visible; per destination each
/// row of the range was one), and the oldest expiry is one probe of the same index, not one per
/// destination. 20 destinations' leases expire through the last ten minutes, so the cutoffs
/// fall among them on either side of their minute's middle; each total is exact.
#[tokio::test]
async fn check_counts_the_stuck_leases_of_every_destination_from_the_lease_index_alone() {
    let env = leases_through_the_last_ten_minutes().await;
    // Whether VACUUM could mark every page all-visible: not while another session of the
    // cluster holds the horizon back (in CI, a standby's feedback or a concurrent test's
    // snapshot). The scans are index-only either way; with every page all-visible they must
    // also visit none (before, each row of the part was a visit, whatever the map said).
    let all_visible: bool = env
        .client
        .query_one(
            "SELECT relallvisible >= relpages FROM pg_class WHERE oid = 'publication_jobs'::regclass",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let index = "ix_publication_jobs_lease".to_string();
    for secs in [100, 115, 130, 145, 160, 175, 190, 205] {
        let ago = Duration::from_secs(secs);
        let sql = reconctl::jobs::query::moves::expired_lease_total_sql(ago);
        let plan = crate::plan::explain(&env.client, &sql.text, &sql.params(), true).await;
        // Each scan of publication_jobs.
        let read: Vec<_> = crate::plan::nodes(&plan)
            .into_iter()
            .filter(|n| n.relation == "publication_jobs")
            .collect();
        let shape: Vec<_> = read
            .iter()
            .map(|n| (n.kind.as_str(), n.index.as_str(), n.loops))
            .collect();
        assert_eq!(
            shape,
            [
                ("Index Only Scan", index.as_str(), 1.0),
                ("Index Only Scan", index.as_str(), 1.0),
            ],
            "{secs}s: the part and the oldest, each one read of the lease index\n{plan:#}"
        );
        if all_visible {
            assert!(
                read.iter().all(|n| n.heap_fetches == Some(0.0)),
                "{secs}s: every page all-visible, yet the table was visited: {read:?}\n{plan:#}"
            );
        }
        let before = stuck_count(&env.client, secs).await;
        let (got, oldest) = reconctl::jobs::query::moves::expired_lease_total(&env.client, ago)
            .await
            .unwrap();
        let after = stuck_count(&env.client, secs).await;
        assert!(
            (before..=after).contains(&got),
            "{secs}s: {got} against the table's {before}..{after}"
        );
        let want: Option<chrono::DateTime<chrono::Utc>> = env
            .client
            .query_one(
                "SELECT min(lease_expires_at) FROM publication_jobs
                 WHERE state = 'in_flight' AND lease_expires_at < now() - make_interval(secs => $1::float8)",
                &[&(secs as f64)],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(oldest, want, "{secs}s: the oldest expiry");
    }
}

/// 4 000 in_flight jobs of 20 destinations whose leases expired through the last ten
/// minutes (one every 0.15 s), vacuumed and analyzed: cutoffs of 100–205 s fall among them on
/// either side of their minute's middle.
async fn leases_through_the_last_ten_minutes() -> TestEnv {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    in_flight_expiring(&env.client, "p-", 4_000, 20, "(i * 0.15) % 600").await;
    env.client
        .batch_execute("VACUUM ANALYZE publication_jobs")
        .await
        .unwrap();
    env
}

/// `n` in_flight jobs `{prefix}1`…`{prefix}n` over `destinations` destinations, job `i`'s
/// lease expired `ago_secs` (SQL of `i`) seconds ago: negative is a live lease.
async fn in_flight_expiring(c: &Client, prefix: &str, n: i64, destinations: i64, ago_secs: &str) {
    // Setup, not the thing under test: tens of thousands of rows through the counters'
    // triggers can outlast the env's 10 s statement timeout on a slow CI machine.
    c.batch_execute("SET statement_timeout = 0").await.unwrap();
    c.execute(
        &format!(
            "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref,
                 payload_hash, state, lease_owner, lease_expires_at)
             SELECT 't', $1 || i, '1', 'cms-' || (i % $3), 'pub_' || encode(sha256(convert_to($1 || i, 'UTF8')), 'hex'),
                    repeat('b', 64), 'in_flight', 'worker-1', now() - make_interval(secs => {ago_secs})
             FROM generate_series(1, $2::bigint) i"
        ),
        &[&prefix, &n, &destinations],
    )
    .await
    .unwrap();
    c.batch_execute("RESET statement_timeout").await.unwrap();
}

async fn stuck_count(c: &Client, secs: u64) -> i64 {
    c.query_one(
        "SELECT count(*) FROM publication_jobs WHERE state = 'in_flight'
         AND lease_expires_at < now() - make_interval(secs => $1::float8)",
        &[&(secs as f64)],
    )
    .await
    .unwrap()
    .get(0)
}

/// The fold (V14's `job_counters_fold()`) racing writers: eight writers move in_flight jobs
/// between past minutes, out of in_flight and back into it, while two sessions fold over and
/// over and a third compares the counters with the table in one snapshot each time. No
/// statement fails (no deadlock, no double-folded row), no snapshot sees a count differ
/// from the table, and afterwards every minute's counters equal the table's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_fold_racing_writers_keeps_every_snapshot_exact() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // plain SQL writes jobs without their events, on purpose
    in_flight_expiring(&env.client, "f-", 600, 3, "3 * i - 120").await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..8u64 {
        let client = env.connect().await;
        writers.push(tokio::spawn(async move {
            let mut seed: u64 = 0x2545_f491_4f6c_dd1d ^ (w + 1);
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for _ in 0..300 {
                let article = format!("f-{}", 1 + next() % 600);
                let minutes = (next() % 30) as f64;
                let sql = match next() % 4 {
                    // A late renewal (or a takeover) into another past minute.
                    0 => "UPDATE publication_jobs SET lease_expires_at = now() - make_interval(secs => 60 * $2::float8)
                          WHERE article_id = $1 AND state = 'in_flight'",
                    // A late worker's completion, a sweep.
                    1 => "UPDATE publication_jobs SET state = CASE WHEN $2::float8 < 15 THEN 'accepted' ELSE 'uncertain' END,
                              remote_id = 'remote-' || id, lease_expires_at = NULL, lease_owner = NULL
                          WHERE article_id = $1 AND state = 'in_flight'",
                    // Claimed again, with a lease that already lapsed, or a live one.
                    2 => "UPDATE publication_jobs SET state = 'in_flight', lease_owner = 'worker-2',
                              lease_expires_at = now() + make_interval(secs => 60 * (2 - $2::float8))
                          WHERE article_id = $1 AND state <> 'in_flight'",
                    // Several jobs of one minute leave it at once.
                    _ => "UPDATE publication_jobs SET lease_expires_at = lease_expires_at - make_interval(secs => 60 * $2::float8)
                          WHERE id IN (SELECT id FROM publication_jobs WHERE article_id LIKE $1 || '%'
                                       AND state = 'in_flight' ORDER BY id FOR UPDATE)",
                };
                client.execute(sql, &[&article, &minutes]).await.unwrap();
            }
        }));
    }
    let mut folders = Vec::new();
    for _ in 0..2 {
        let client = env.connect().await;
        let stop = stop.clone();
        folders.push(tokio::spawn(async move {
            let (mut folds, mut removed) = (0u64, 0i64);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let row = client
                    .query_one("SELECT job_counters_fold()", &[])
                    .await
                    .unwrap();
                removed += row.get::<_, i64>(0);
                folds += 1;
            }
            (folds, removed)
        }));
    }
    let checker = {
        let client = env.connect().await;
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut checks = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let rows = client
                    .query(reconctl::jobs::counters::DIFFERENCES_SQL.as_str(), &[])
                    .await
                    .unwrap();
                let seen: Vec<(String, String, i64, i64, i64)> = rows
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
                    .collect();
                assert!(
                    seen.is_empty(),
                    "a snapshot saw the counters differ: {seen:?}"
                );
                checks += 1;
            }
            checks
        })
    };
    for t in writers {
        t.await.unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut removed = 0;
    for t in folders {
        let (folds, r) = t.await.unwrap();
        assert!(folds > 0, "a folder never ran");
        removed += r;
    }
    let checks = checker.await.unwrap();
    assert!(checks > 0, "the checker never compared");
    assert!(removed > 0, "the folds removed no counter row");
    // One last fold with nobody writing: every past minute is one row at most (its base and
    // the fold's row), and the counters still equal the table, minute by minute.
    let cutoff = env
        .count("SELECT floor(extract(epoch FROM now()) / 60)::bigint - 1")
        .await;
    reconctl::jobs::counters::fold(&env.client).await.unwrap();
    let left = env
        .client
        .query(reconctl::jobs::counters::DIFFERENCES_SQL.as_str(), &[])
        .await
        .unwrap();
    assert!(
        left.is_empty(),
        "{} minute(s) differ after the race",
        left.len()
    );
    let most = env
        .count(&format!(
            "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM job_counters
             WHERE state = 'in_flight' AND lease_minute < {cutoff}
             GROUP BY destination, lease_minute) m"
        ))
        .await;
    assert!(
        most <= 2,
        "a past minute kept {most} counter rows after the fold"
    );
    assert_exact(&env, "the fold racing 8 writers").await;
}

/// The rows of the past in_flight minutes that are not folded yet (slots 0-15).
async fn unfolded_past(c: &Client) -> i64 {
    c.query_one(
        &format!(
            "SELECT count(*) FROM job_counters WHERE {}",
            reconctl::jobs::counters::UNFOLDED
        ),
        &[],
    )
    .await
    .unwrap()
    .get(0)
}

/// Makes `job_counters`' file hundreds of pages long with its rows in the last few, as an
/// incident's folded slots leave it: 40 000 rows written, then the counters' own rows written
/// again after them, then the 40 000 deleted but the last (a count of zero, as a group whose
/// jobs all left keeps until a fold), so VACUUM frees the pages before the rows that stay but
/// cannot cut them. The counts do not change. Returns the file's pages.
async fn counters_file_of_many_pages(env: &TestEnv) -> i64 {
    for sql in [
        "SET statement_timeout = 0",
        "BEGIN",
        "CREATE TEMP TABLE kept ON COMMIT DROP AS SELECT * FROM job_counters",
        "INSERT INTO job_counters (state, destination, lease_minute, slot, n)
         SELECT 'accepted', 'gone-' || i, 0, 0, 0 FROM generate_series(1, 40000) i",
        "DELETE FROM job_counters WHERE destination NOT LIKE 'gone-%'",
        "INSERT INTO job_counters SELECT * FROM kept",
        "DELETE FROM job_counters WHERE destination LIKE 'gone-%' AND destination <> 'gone-40000'",
        "COMMIT",
        "VACUUM ANALYZE job_counters",
        "RESET statement_timeout",
    ] {
        env.client.batch_execute(sql).await.unwrap();
    }
    let pages = env
        .count("SELECT pg_relation_size('job_counters') / 8192")
        .await;
    assert!(pages >= 200, "the file kept {pages} pages");
    pages
}

/// Whether a fold is due (FOLD_DUE, asked by every read of the counters) is one entry of
/// `ix_job_counters_unfolded` (V20), whatever the size of job_counters' file: its rows move
/// to the end of the file as the workers rewrite them and the fold takes them, and the
/// pages left behind stay. Here 40 000 rows written and all but the last deleted leave a
/// file of hundreds of pages; the question reads a handful, and answers as the scan it replaced
/// (`EXISTS … WHERE UNFOLDED`) does: nothing due, a live minute's slot (not due), a
/// writer's slot of a minute that ended two minutes ago (due), the folded row of that minute
/// alone (not due).
#[tokio::test]
async fn a_due_fold_is_read_from_an_index_at_any_size_of_the_counters_file() {
    let env = TestEnv::new().await;
    let c = &env.client;
    let pages = counters_file_of_many_pages(&env).await;

    let due = format!(
        "SELECT coalesce({}, false)",
        reconctl::jobs::counters::FOLD_DUE
    );
    let scan = format!(
        "SELECT EXISTS (SELECT 1 FROM job_counters WHERE {})",
        reconctl::jobs::counters::UNFOLDED
    );
    let minute = "floor(extract(epoch FROM now()) / 60)::bigint";
    // Each case's rows net to zero per group, so the counts stay the table's.
    let cases = [
        ("nothing", "SELECT 1 WHERE false", false),
        (
            "a live minute's slot",
            "INSERT INTO job_counters (state, destination, lease_minute, slot, n)
             VALUES ('in_flight', 'cms-a', {m}, 3, 1), ('in_flight', 'cms-a', {m}, -2, -1)",
            false,
        ),
        (
            "a writer's slot of a minute that ended",
            "INSERT INTO job_counters (state, destination, lease_minute, slot, n)
             VALUES ('in_flight', 'cms-b', {m} - 2, 5, 1), ('in_flight', 'cms-b', {m} - 2, -2, -1)",
            true,
        ),
        (
            "that minute's folded row alone",
            "DELETE FROM job_counters WHERE destination = 'cms-b' AND slot = 5;
             UPDATE job_counters SET n = 0 WHERE destination = 'cms-b'",
            false,
        ),
    ];
    for (what, write, expected) in cases {
        c.batch_execute(&write.replace("{m}", minute))
            .await
            .unwrap();
        let answer: bool = c.query_one(&due, &[]).await.unwrap().get(0);
        let scanned: bool = c.query_one(&scan, &[]).await.unwrap().get(0);
        assert_eq!((answer, scanned), (expected, expected), "{what}");

        let plan = crate::plan::explain_buffers(c, &due, &[]).await;
        let nodes = crate::plan::nodes(&plan);
        assert!(
            nodes.iter().any(|n| n.index == "ix_job_counters_unfolded"),
            "{what}: {plan:#}"
        );
        assert!(
            !nodes
                .iter()
                .any(|n| n.kind == "Seq Scan" && n.relation == "job_counters"),
            "{what}: {plan:#}"
        );
        let read = crate::plan::pages_read(&plan);
        assert!(read <= 5, "{what}: {read} pages read of {pages}\n{plan:#}");
    }
    assert_exact(&env, "the guard's cases").await;
}

/// Pages of `job_counters`' heap that this database's sessions have read (hit or read in),
/// once every session of `reconctl` has ended and its statistics are flushed: a backend
/// flushes them as it exits, which is after the client process has gone, so this waits for
/// the sessions to leave and the figure to hold still.
async fn counter_heap_pages(c: &Client) -> i64 {
    let read = "SELECT coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0),
                       (SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND application_name LIKE 'reconctl%'
                          AND pid <> pg_backend_pid())
                FROM pg_statio_user_tables WHERE relname = 'job_counters'";
    let mut last = -1;
    for _ in 0..100 {
        // This session's own reads are flushed too (at most once a second otherwise).
        c.batch_execute("SELECT pg_stat_force_next_flush()")
            .await
            .unwrap();
        c.batch_execute("SELECT pg_stat_clear_snapshot()")
            .await
            .unwrap();
        let row = c.query_one(read, &[]).await.unwrap();
        let (pages, sessions): (i64, i64) = (row.get(0), row.get(1));
        if sessions == 0 && pages == last {
            return pages;
        }
        last = if sessions == 0 { pages } else { -1 };
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("reconctl's sessions did not end, or their statistics did not settle, within 10 s");
}

/// `status`, `check` and `metrics` read the counters by key, not job_counters' whole file:
/// the file keeps the size of its busiest minute (an incident's slot rows, folded away, leave
/// their pages empty before the rows that stay, which VACUUM then cannot cut off), and each
/// page a sequential scan reads is a first touch for the command's new session. Here the file
/// holds hundreds of pages and its rows sit in the last few; every command reads a handful of
/// heap pages where one sequential scan would read them all, and the counts stay exact.
#[tokio::test]
async fn readers_read_the_counters_by_key_whatever_the_size_of_their_file() {
    let mut env = TestEnv::new().await;
    // Plain SQL writes jobs without their events, on purpose.
    env.skip_invariants = true;

    // Leases that expired 10 to 15 minutes ago, and live ones: in_flight rows for several
    // lease minutes and destinations, the rows status -v, metrics and check sum.
    in_flight_expiring(&env.client, "k-", 300, 3, "600 + i").await;
    in_flight_expiring(&env.client, "l-", 6, 3, "-300").await;
    let c = &env.client;
    // Folded first, so that no reader below has a fold to write: what it reads is all that is
    // measured.
    c.batch_execute("SELECT job_counters_fold()").await.unwrap();
    let pages = counters_file_of_many_pages(&env).await;
    let rows = env.count("SELECT count(*) FROM job_counters").await;
    // What one sequential scan of the file reads, as the planner chooses it unprompted.
    let plan = crate::plan::explain_buffers(
        c,
        "SELECT state, destination, sum(n) FROM job_counters GROUP BY 1, 2",
        &[],
    )
    .await;
    let one_scan = crate::plan::pages_read(&plan);
    assert!(
        one_scan >= pages,
        "a sequential scan read {one_scan} of {pages} pages\n{plan:#}"
    );

    for (args, code) in [
        (&["status", "-o", "json"][..], 0),
        (&["status", "-v", "-o", "json"][..], 0),
        (&["metrics"][..], 0),
        (&["check", "-o", "json"][..], 5),
    ] {
        let before = counter_heap_pages(c).await;
        env.run(args).expect(code);
        let read = counter_heap_pages(c).await - before;
        assert!(
            read <= 40,
            "`{}` read {read} heap pages of job_counters ({rows} rows in a file of {pages} pages)",
            args.join(" ")
        );
    }
    assert_exact(&env, "reading a bloated counters file").await;
}

/// `status` and `check` read no move counters, so their sessions neither fold nor plan them
/// (a new session's catalog entries for `job_move_counters` are 0.3 ms of `status`): with the
/// move counters locked against every reader and a fold of them due, both answer at once;
/// `metrics`, which reads the moves, waits into its lock timeout (exit 6) and answers once
/// the lock is gone, having folded.
#[tokio::test]
async fn status_and_check_neither_fold_nor_read_the_move_counters() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a").state(State::Uncertain)).await;
    // A writer's slot of a tick three hours ago: no window reaches it, so a fold is due.
    env.client
        .batch_execute(
            "INSERT INTO job_move_counters (tick, action, destination, slot, n)
             VALUES (floor(extract(epoch FROM now()) / 10)::bigint - 1080, 'sweep_sent', 'cms-a', 3, 1)",
        )
        .await
        .unwrap();
    let held = env.hold("job_move_counters").await;
    let v = env.run(&["status", "-o", "json"]).expect(0).json();
    assert_eq!(uncertain_count(&v), 1, "{v:#}");
    let v = env.run(&["check", "-o", "json"]).expect(5).json();
    assert_eq!(
        (&v["healthy"], &v["counts"]["uncertain"]),
        (&Value::Bool(false), &Value::from(1)),
        "{v:#}"
    );
    env.cmd()
        .args(["metrics", "--lock-timeout", "500ms"])
        .assert()
        .code(6);
    held.release().await;
    env.run(&["metrics"]).expect(0);
    assert_eq!(
        env.count("SELECT count(*) FROM job_move_counters WHERE slot >= 0")
            .await,
        0,
        "metrics folded the move counters it read"
    );
}

/// `check`, `status` and `metrics` fold the past minutes' slots when their read finds a fold
/// due (V15; they ask in the statement that reads, and fold after it), so what the next
/// reader sums after an hour with no sweep is one row per destination and minute; a fold with nothing new to fold rewrites nothing; a minute whose jobs have all
/// left in_flight loses its row; the counts stay exact throughout.
#[tokio::test]
async fn readers_fold_the_past_minutes_they_read() {
    let mut env = TestEnv::new().await;
    // Plain SQL writes jobs without their events, on purpose.
    env.skip_invariants = true;

    // Leases that expired 20 to 50 minutes ago, written by 12 transactions (12 slots).
    in_flight_expiring(&env.client, "r-", 360, 3, "1200 + 5 * i").await;
    for k in 0..12 {
        env.client
            .execute(
                "UPDATE publication_jobs SET lease_expires_at = lease_expires_at - interval '1 minute'
                 WHERE article_id LIKE 'r-%' AND right(article_id, 1) = ($1::int % 10)::text",
                &[&k],
            )
            .await
            .unwrap();
    }
    assert!(unfolded_past(&env.client).await > 100);
    let table_stuck = stuck_count(&env.client, 900).await;
    let v = env.run(&["check", "-o", "json"]).expect(5).json();
    assert_eq!(v["counts"]["stuck_leases"].as_i64().unwrap(), table_stuck);
    assert_eq!(
        unfolded_past(&env.client).await,
        0,
        "check folded the minutes it read"
    );
    let rows = env
        .count("SELECT count(*) FROM job_counters WHERE state = 'in_flight'")
        .await;
    let minutes = env
        .count(&format!(
            "SELECT count(DISTINCT (destination, {})) FROM publication_jobs WHERE state = 'in_flight'",
            reconctl::jobs::counters::MINUTE_EXPR
        ))
        .await;
    assert_eq!(
        rows, minutes,
        "one counter row per destination and past minute"
    );
    // Nothing new to fold: status and metrics leave every row as it was (no new version).
    let versions =
        "SELECT string_agg(ctid::text || xmin::text, ',' ORDER BY destination, lease_minute)
                    FROM job_counters WHERE state = 'in_flight'";
    let before: String = env.client.query_one(versions, &[]).await.unwrap().get(0);
    env.run(&["status", "-v", "-o", "json"]).expect(0);
    env.run(&["metrics"]).expect(0);
    let after: String = env.client.query_one(versions, &[]).await.unwrap().get(0);
    assert_eq!(before, after, "a fold with nothing to fold rewrote rows");
    // Every job of one destination's past minutes leaves in_flight (a sweep by plain SQL):
    // their counter rows go at the next fold, and the counts stay exact.
    env.client
        .batch_execute(
            "UPDATE publication_jobs SET state = 'uncertain', lease_owner = NULL, lease_expires_at = NULL
             WHERE state = 'in_flight' AND destination = 'cms-1'",
        )
        .await
        .unwrap();
    env.run(&["metrics"]).expect(0);
    let left = env
        .count(
            "SELECT count(*) FROM job_counters WHERE state = 'in_flight' AND destination = 'cms-1'",
        )
        .await;
    assert_eq!(left, 0, "the minutes cms-1 left kept {left} counter rows");
    assert_exact(&env, "the readers' folds").await;
}

/// The most counter rows any group but in_flight's has.
const MOST_ROWS_A_GROUP: &str = "SELECT max(n) FROM (SELECT count(*) AS n FROM job_counters
     WHERE state <> 'in_flight' GROUP BY state, destination) g";

/// The fold takes the writers' slots of every group, not only the in_flight minutes that
/// ended (V18): after writes of many transactions to several states, what `check` sums is
/// one row per group, except the slots an open writer holds, which the fold skips without
/// waiting for it (a wait would run into check's 2 s lock timeout; it answers). The counts are
/// exact before, during and after.
#[tokio::test]
async fn the_fold_takes_every_groups_slots_but_those_a_writer_holds() {
    let mut env = TestEnv::new().await;
    // Plain SQL writes jobs without their events, on purpose.
    env.skip_invariants = true;

    // A fold is due: in_flight slots of minutes that ended.
    in_flight_expiring(&env.client, "x-", 40, 2, "600 + 30 * i").await;
    // 24 jobs, each inserted and moved by transactions of their own: failed, uncertain,
    // accepted and safe_to_retry groups at two destinations, in many slots.
    for i in 0..24 {
        let state = ["failed", "uncertain", "accepted", "safe_to_retry"][i % 4];
        env.client
            .batch_execute(&format!(
                "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
                 VALUES ('t', 'g-{i}', '1', 'cms-{d}', 'pub_' || encode(sha256('g-{i}'::bytea), 'hex'), repeat('a', 64));
                 UPDATE publication_jobs SET state = '{state}', remote_id = 'remote-' || id WHERE article_id = 'g-{i}';",
                d = i % 2
            ))
            .await
            .unwrap();
    }
    let spread = env.count(MOST_ROWS_A_GROUP).await;
    assert!(
        spread > 1,
        "the writes left one row a group before any fold"
    );
    // An open writer moves one failed job to safe_to_retry: it holds both groups' rows of its
    // transaction's slot until it ends.
    let writer = env.connect().await;
    writer
        .batch_execute(
            "BEGIN; UPDATE publication_jobs SET state = 'safe_to_retry' WHERE article_id = 'g-0'",
        )
        .await
        .unwrap();
    let held: i32 = writer
        .query_one("SELECT (pg_current_xact_id()::text::bigint % 16)::int", &[])
        .await
        .unwrap()
        .get(0);
    let table = counted(&env.client).await;
    let v = env.run(&["check", "-o", "json"]).expect(5).json();
    assert_eq!(
        v["counts"]["uncertain"].as_i64().unwrap(),
        total(&table, "uncertain")
    );
    assert_eq!(
        unfolded_past(&env.client).await,
        0,
        "check folded the minutes it read"
    );
    // As the writer sees them (its own rows, new or changed, with what the fold committed).
    let left: Vec<(String, String, i32)> = writer
        .query(
            "SELECT state, destination, slot::int FROM job_counters
             WHERE state <> 'in_flight' AND slot >= 0 ORDER BY 1, 2",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        left,
        vec![
            ("failed".to_string(), "cms-0".to_string(), held),
            ("safe_to_retry".to_string(), "cms-0".to_string(), held),
        ],
        "the fold left the slots the open writer holds, and only those"
    );
    let most = env.count(MOST_ROWS_A_GROUP).await;
    assert!(most <= 2, "a group kept {most} counter rows after the fold");
    assert_eq!(counters(&env.client).await, table, "during the open write");
    writer.batch_execute("COMMIT").await.unwrap();
    assert_exact(&env, "the fold of every group").await;
}

/// V17 on a log written before it: the counted events of the last two hours are counted by
/// the migration (the readers give the log's count at once), older ones are not, and the
/// events written afterwards are counted by its trigger.
#[tokio::test]
async fn the_move_counters_migration_counts_the_last_two_hours_of_the_log() {
    let mut env = TestEnv::empty().await;
    env.skip_invariants = true; // plain SQL writes events without their jobs' moves
    let mut admin = env.connect().await;
    reconctl::migrate::migrate_to(&mut admin, 16).await.unwrap();
    bulk(&admin, "v-", 40, Some(State::Uncertain), 600, 3).await;
    let events = |secs_step: &str, count: i64| {
        format!(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT j.id, now() - make_interval(secs => g * {secs_step}), 'w',
                    (ARRAY['timed_out','claim','sweep_sent','mark_accepted','complete'])[1 + g % 5],
                    'uncertain', 'accepted', 1, 2
             FROM generate_series(0, {count}) g
             JOIN LATERAL (SELECT id FROM publication_jobs ORDER BY id OFFSET g % 37 LIMIT 1) j ON true"
        )
    };
    // Every 2.9 seconds over the last 3 hours and a bit.
    admin.batch_execute(&events("2.9", 3800)).await.unwrap();
    reconctl::migrate::migrate_to(&mut admin, 17).await.unwrap();
    let slots = env
        .column::<i16>("SELECT DISTINCT slot FROM job_move_counters")
        .await;
    assert_eq!(slots, [-1], "counted by the migration only");
    let oldest = env
        .column::<i64>(
            "SELECT (floor(extract(epoch FROM now()) / 10) - min(tick))::bigint FROM job_move_counters",
        )
        .await;
    assert!((718..=720).contains(&oldest[0]), "{oldest:?} ticks of 10 s");
    // V19 sums what V17 counted per minute (the readers read those rows, V18 and V19 on).
    reconctl::migrate::migrate_to(&mut admin, 19).await.unwrap();
    let mismatched = env.column::<i64>(crate::watch::MISMATCHED).await;
    assert_eq!(mismatched, [0], "V19's minutes are V17's ticks, summed");
    assert!(
        env.column::<i64>("SELECT count(*) FROM job_move_minutes")
            .await[0]
            > 0
    );
    let (got, want) = crate::watch::moves_both_ways(&env).await;
    assert_eq!(got, want);
    assert_eq!(
        want.len(),
        9,
        "3 counted actions × 3 destinations: {want:?}"
    );
    // Written after it: counted by the trigger, in the writers' slots.
    admin.batch_execute(&events("0.37", 500)).await.unwrap();
    let (got, want) = crate::watch::moves_both_ways(&env).await;
    assert_eq!(got, want);
    assert!(
        env.column::<i64>("SELECT count(*) FROM job_move_counters WHERE slot >= 0")
            .await[0]
            > 0
    );
}

/// The counters' trigger functions run as the table's owner (SECURITY DEFINER) on every
/// worker statement, and since V22 without a `SET search_path` of their own: every name in
/// them is qualified. A worker owns a schema of look-alikes (`+`, `=`, `%`, `/`, `>`, `-`,
/// `floor`, `now`, `pg_current_xact_id`, `sum`), each of which records who ran it, and puts it
/// first in its search path, ahead of pg_catalog. Its own statements call them (as the worker:
/// the proof that the look-alikes are live on that path); the triggers that its reservations,
/// claims, renewals, mark_sents, completions and timeouts fire never do, and the counts stay
/// exact. (With one `+` in job_counters_update left unqualified, this test fails.)
#[tokio::test]
async fn a_workers_search_path_never_runs_its_code_as_the_counters_owner() {
    let env = TestEnv::new().await;
    let worker_user = LoginUser::new("reconctl_worker").await;
    env.client
        .batch_execute(&format!(
            "CREATE SCHEMA evil AUTHORIZATION {}",
            worker_user.name
        ))
        .await
        .unwrap();
    let c = connect_url(&worker_user.url(&env.url)).await;
    c.batch_execute(
        r#"
        CREATE TABLE evil.calls (who text NOT NULL, what text NOT NULL);
        GRANT INSERT ON evil.calls TO PUBLIC;
        CREATE FUNCTION evil.noted(what text) RETURNS void LANGUAGE sql
            AS $$ INSERT INTO evil.calls VALUES (pg_catalog.current_user(), what) $$;
        CREATE FUNCTION evil.plus(a bigint, b bigint) RETURNS bigint LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('+'); RETURN a OPERATOR(pg_catalog.+) b; END $$;
        CREATE OPERATOR evil.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.plus);
        CREATE FUNCTION evil.eq(a text, b text) RETURNS boolean LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('='); RETURN a OPERATOR(pg_catalog.=) b; END $$;
        CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.eq);
        CREATE FUNCTION evil.modulo(a bigint, b bigint) RETURNS bigint LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('%'); RETURN a OPERATOR(pg_catalog.%) b; END $$;
        CREATE OPERATOR evil.% (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.modulo);
        CREATE FUNCTION evil.div(a numeric, b integer) RETURNS numeric LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('/'); RETURN a OPERATOR(pg_catalog./) b; END $$;
        CREATE OPERATOR evil./ (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = evil.div);
        CREATE FUNCTION evil.later(a timestamptz, b timestamptz) RETURNS boolean LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('>'); RETURN a OPERATOR(pg_catalog.>) b; END $$;
        CREATE OPERATOR evil.> (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = evil.later);
        CREATE FUNCTION evil.minus(a timestamptz, b interval) RETURNS timestamptz LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('-'); RETURN a OPERATOR(pg_catalog.-) b; END $$;
        CREATE OPERATOR evil.- (LEFTARG = timestamptz, RIGHTARG = interval, FUNCTION = evil.minus);
        CREATE FUNCTION evil.floor(a numeric) RETURNS numeric LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('floor'); RETURN pg_catalog.floor(a); END $$;
        CREATE FUNCTION evil.now() RETURNS timestamptz LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('now'); RETURN pg_catalog.now(); END $$;
        CREATE FUNCTION evil.pg_current_xact_id() RETURNS xid8 LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('pg_current_xact_id'); RETURN pg_catalog.pg_current_xact_id(); END $$;
        CREATE FUNCTION evil.sum_step(s bigint, v integer) RETURNS bigint LANGUAGE plpgsql
            AS $$ BEGIN PERFORM evil.noted('sum'); RETURN coalesce(s, 0) OPERATOR(pg_catalog.+) v; END $$;
        CREATE AGGREGATE evil.sum(integer) (SFUNC = evil.sum_step, STYPE = bigint);
        SET search_path = evil, pg_catalog, public;
        "#,
    )
    .await
    .unwrap();

    // Twenty job lives, each write its own transaction: more than the 16 slots, so that the
    // upserts' ON CONFLICT branches (`n = c.n + EXCLUDED.n`) run too, not only their inserts.
    let lease = Duration::from_secs(300);
    for i in 0..20 {
        let article = format!("a{i}");
        let end = if i % 2 == 0 { "complete" } else { "timed_out" };
        let key = BusinessKey::new("t1", &article, "1", "cms-a");
        worker::reserve(&c, &key, &payload_hash(article.as_bytes()), "publisher")
            .await
            .unwrap();
        let job = worker::claim(&c, "w1", Duration::from_secs(60), Some("cms-a"))
            .await
            .unwrap()
            .unwrap();
        let job = worker::renew(&c, &job, lease).await.unwrap();
        let job = worker::mark_sent(&c, &job).await.unwrap();
        match end {
            "complete" => worker::complete(&c, &job, "r1").await.map(drop).unwrap(),
            _ => worker::timed_out(&c, &job, "send timed out")
                .await
                .map(drop)
                .unwrap(),
        }
    }

    let calls: Vec<(String, String, i64)> = env
        .client
        .query(
            "SELECT who, what, count(*) FROM evil.calls GROUP BY 1, 2 ORDER BY 1, 2",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert!(
        calls
            .iter()
            .any(|(who, what, _)| who == &worker_user.name && what == "="),
        "the look-alikes are live on the worker's path (its own statements ran them): {calls:?}"
    );
    let foreign: Vec<_> = calls
        .iter()
        .filter(|(who, _, _)| who != &worker_user.name)
        .collect();
    assert!(
        foreign.is_empty(),
        "the worker's code ran as another role: {foreign:?}"
    );
    assert_exact(&env, "a worker's moves on a hostile search path").await;
    assert_eq!(
        env.count(
            "SELECT coalesce(sum(n), 0)::bigint FROM job_move_counters
             WHERE action = 'timed_out' AND destination = 'cms-a'"
        )
        .await,
        10,
        "the timeouts counted, by the qualified move counters' trigger"
    );
    env.client
        .batch_execute("DROP SCHEMA evil CASCADE")
        .await
        .unwrap();
}
