//! `plan apply` killed at random points and run again, and two applies of one plan at once:
//! every item moved exactly once, one event per move, every item accounted for.

use std::time::{Duration, Instant};

use crate::harness::*;

use super::flow::{mark, plan_events};

/// `n` pending jobs of destination `dest`, each with its creation event, in one statement.
async fn seed_many(env: &TestEnv, dest: &str, n: i32) {
    env.client
        .execute(
            "WITH j AS (
               INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                   external_ref, payload_hash, state)
               SELECT 't1', 'a' || g, '1', $1,
                      'pub_' || encode(sha256(convert_to($1 || ':' || g, 'UTF8')), 'hex'),
                      encode(sha256(convert_to('p' || g, 'UTF8')), 'hex'), 'pending'
               FROM generate_series(1, $2) g
               RETURNING id, state, version
             )
             INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, 'seed', 'seed', NULL, state, NULL, version, 'test fixture' FROM j",
            &[&dest, &n],
        )
        .await
        .unwrap();
}

/// Every item of `plan` moved exactly once: the job left the item's version by one event that
/// names the plan, the item records that event, and there are no other events of the plan.
async fn assert_each_moved_once(env: &TestEnv, plan: &str, n: i64) {
    let c = &env.client;
    let row = c
        .query_one(
            "SELECT count(*) FILTER (WHERE i.status = 'moved'),
                    count(*) FILTER (WHERE i.status <> 'moved'),
                    count(*) FILTER (WHERE j.state = 'failed' AND j.version = i.version + 1),
                    count(*) FILTER (WHERE e.job_id = i.job_id AND e.from_version = i.version
                                       AND e.evidence->>'plan' = i.plan_id)
             FROM plan_items i JOIN publication_jobs j ON j.id = i.job_id
             LEFT JOIN job_events e ON e.id = i.event_id
             WHERE i.plan_id = $1",
            &[&plan],
        )
        .await
        .unwrap();
    let (moved, other, at_next, recorded): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(
        (moved, other, at_next, recorded),
        (n, 0, n, n),
        "plan {plan}"
    );
    assert_eq!(plan_events(env, plan).await, n, "events = moves for {plan}");
    let twice: i64 = c
        .query_one(
            "SELECT count(*) FROM (SELECT job_id FROM job_events WHERE evidence->>'plan' = $1
                                   GROUP BY job_id HAVING count(*) > 1) d",
            &[&plan],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(twice, 0, "a job of {plan} moved twice");
}

/// A pseudo-random number below `n` (the clock's nanoseconds mixed; no seed to keep).
fn random_below(n: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    let x = nanos
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (x >> 33) % n.max(1)
}

#[tokio::test]
async fn killed_applies_resume_and_move_every_item_exactly_once() {
    let env = TestEnv::new().await;
    let runs = if long_tests() { 60 } else { 20 };
    let n: i64 = 2500;
    // How long one whole apply takes here, so the kills land anywhere in it.
    seed_many(&env, "cms-probe", n as i32).await;
    let (probe, _) = mark(
        &env,
        &["failed", "--destination", "cms-probe", "--reason", "probe"],
    );
    let started = Instant::now();
    env.run(&["plan", "apply", &probe, "--yes"]).expect(0);
    let whole = started.elapsed().as_millis() as u64;
    assert_each_moved_once(&env, &probe, n).await;

    let mut killed_midway = 0;
    for run in 0..runs {
        let dest = format!("cms-k{run}");
        seed_many(&env, &dest, n as i32).await;
        let (id, _) = mark(
            &env,
            &["failed", "--destination", &dest, "--reason", "retired"],
        );
        let mut child = env
            .std_cmd()
            .args(["plan", "apply", &id, "--yes", "-q"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(random_below(whole + 50)));
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        if !status.success() {
            killed_midway += 1;
        }
        // Sometimes a second kill before the run that finishes.
        if run % 3 == 0 {
            let mut again = env
                .std_cmd()
                .args(["plan", "apply", &id, "--yes", "-q"])
                .spawn()
                .unwrap();
            std::thread::sleep(Duration::from_millis(random_below(whole / 2 + 20)));
            let _ = again.kill();
            again.wait().unwrap();
        }
        // The killed client's transaction lives on in the server until its backend notices
        // the lost connection: rows it still holds are left as busy (exit 6, "apply again").
        let mut out = env.run(&["plan", "apply", &id, "--yes", "-o", "json"]);
        for _ in 0..20 {
            if out.code() != 6 {
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
            out = env.run(&["plan", "apply", &id, "--yes", "-o", "json"]);
        }
        let out = out.expect(0).json();
        assert_eq!(out["summary"]["moved"], n, "run {run}");
        assert_eq!(out["summary"]["planned"], 0, "run {run}");
        assert_eq!(out["plan"]["status"], "applied");
        assert_each_moved_once(&env, &id, n).await;
    }
    assert!(
        killed_midway >= runs / 4,
        "only {killed_midway} of {runs} applies were killed before they finished"
    );
    env.assert_invariants().await;
}

#[tokio::test]
async fn two_applies_of_one_plan_at_once_move_each_job_once() {
    let env = TestEnv::new().await;
    let rounds = if long_tests() { 20 } else { 6 };
    let n: i64 = 1500;
    for round in 0..rounds {
        let dest = format!("cms-r{round}");
        seed_many(&env, &dest, n as i32).await;
        let (id, _) = mark(
            &env,
            &["failed", "--destination", &dest, "--reason", "retired"],
        );
        let spawn = || {
            let mut c = env.tokio_cmd();
            c.args(["plan", "apply", &id, "--yes", "-o", "json"]);
            c.output()
        };
        let (a, b) = tokio::join!(spawn(), spawn());
        let (a, b) = (a.unwrap(), b.unwrap());
        for o in [&a, &b] {
            // 0, or 6 when its share was busy (the other apply held those rows): never a
            // skip, a refusal or a failure.
            let code = o.status.code().unwrap();
            assert!(
                code == 0 || code == 6,
                "exit {code}: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let moved_a: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
        let moved_b: serde_json::Value = serde_json::from_slice(&b.stdout).unwrap();
        // Both report the whole plan once both are done, and no item is skipped.
        for doc in [&moved_a, &moved_b] {
            assert_eq!(doc["summary"]["skipped"], 0, "{doc}");
            assert_eq!(doc["summary"]["refused"], 0, "{doc}");
        }
        assert_each_moved_once(&env, &id, n).await;
    }
    env.assert_invariants().await;
}
