//! `status --watch`, `jobs uncertain --watch` (SPEC §7) and the counters that explain an
//! incident (`metrics`' reconctl_moves and expired leases, `status -v`): in a real
//! pseudo-terminal (redraw, changes, `q` and Ctrl-C, the terminal restored as `stty -a` saw
//! it), without one (JSON lines, table blocks), across a backend terminated under it, and
//! the counters exact against seeded events.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use reconctl::jobs::State::{Accepted, InFlight, Pending, Uncertain};
use serde_json::Value;

use crate::harness::{pty_text, uncertain_count, Seed, TestEnv};
use crate::plan;

fn mark_accepted(env: &TestEnv, id: &str) {
    env.run(&[
        "mark",
        "accepted",
        id,
        "--remote-id",
        "r-1",
        "--reason",
        "found in the CMS by hand",
        "--no-lookup",
        "--yes",
    ])
    .expect(0);
}

#[tokio::test]
async fn status_watch_redraws_with_the_changes_since_it_began_and_q_restores_the_terminal() {
    let env = TestEnv::new().await;
    let u1 = env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    env.seed(Seed::new("u2").state(Uncertain).aged(300)).await;
    env.seed(Seed::new("p1").state(Pending).aged(60)).await;
    let mut p = env.pty_watched(&["status", "--watch", "--interval", "1s"]);
    // The header: the command, the database, the interval.
    p.exp_string("reconctl status --watch").unwrap();
    p.exp_string(&format!("/{}", env.db_name)).unwrap();
    p.exp_string("every 1s").unwrap();
    p.exp_regex("uncertain +cms-a +2 ").unwrap();
    // The oldest uncertain job, named in full with the command to look it up.
    p.exp_regex(&format!(
        "oldest uncertain job, for 10m [0-9]+s at cms-a:\r\nreconctl remote lookup {}",
        u1.id
    ))
    .unwrap();
    mark_accepted(&env, &u1.id.to_string());
    // A later refresh: one uncertain fewer, one accepted more, said so.
    p.exp_regex(&format!("uncertain +cms-a +1 +{}", pty_text("▼1")))
        .unwrap();
    p.exp_regex(&format!("accepted +\\(all\\) +1 +{}", pty_text("▲1")))
        .unwrap();
    p.send("q").unwrap();
    p.flush().unwrap();
    let rest = p.exp_string("DONE").unwrap();
    assert!(rest.contains("EXIT=0"), "{rest:?}");
    env.assert_terminal_restored();
}

#[tokio::test]
async fn jobs_uncertain_watch_names_the_new_jobs_and_ctrl_c_ends_it_with_exit_0() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    let mut p = env.pty_watched(&["jobs", "uncertain", "--watch", "--interval", "1s"]);
    p.exp_string("reconctl jobs uncertain --watch").unwrap();
    p.exp_string("1 on this page").unwrap();
    let new = env.seed(Seed::new("u2").state(Uncertain).aged(5)).await;
    p.exp_string(&pty_text("2 on this page (▲1 since the watch began)"))
        .unwrap();
    p.exp_string(&new.id.to_string()).unwrap();
    p.send_control('c').unwrap();
    let rest = p.exp_string("DONE").unwrap();
    assert!(rest.contains("EXIT=0"), "{rest:?}");
    env.assert_terminal_restored();
}

/// The watch's stdout, a line at a time, from a thread (a child's pipe blocks).
struct Lines {
    child: Child,
    rx: mpsc::Receiver<String>,
}

impl Lines {
    fn spawn(env: &TestEnv, args: &[&str]) -> Lines {
        let mut child = env
            .std_cmd()
            .args(args)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines { child, rx }
    }

    fn next(&self) -> String {
        self.rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the next line within 20s")
    }

    /// The next document read (by the database's clock, `as_of`) after `t`, within 30 s.
    fn next_read_after(&self, t: chrono::DateTime<chrono::Utc>) -> Value {
        let started = Instant::now();
        loop {
            let doc: Value = serde_json::from_str(&self.next()).unwrap();
            let as_of: chrono::DateTime<chrono::Utc> =
                doc["as_of"].as_str().unwrap().parse().unwrap();
            if as_of > t {
                return doc;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no document read after {t}"
            );
        }
    }

    /// SIGINT, then its exit code and stderr.
    fn interrupt(self) -> (i32, String) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let out = self.child.wait_with_output().unwrap();
        (
            out.status.code().expect("exited, not killed"),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

#[tokio::test]
async fn without_a_terminal_jsonl_is_one_status_document_a_line_until_interrupted() {
    let env = TestEnv::new().await;
    let u1 = env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    env.seed(Seed::new("u2").state(Uncertain).aged(300)).await;
    let w = Lines::spawn(
        &env,
        &["status", "--watch", "--interval", "1s", "-o", "jsonl"],
    );
    let first: Value = serde_json::from_str(&w.next()).unwrap();
    assert_eq!(uncertain_count(&first), 2);
    // Exactly the document `status -o json` prints (its members, in its shape).
    let status = env.run(&["status", "-o", "json"]).expect(0).json();
    let keys = |v: &Value| {
        v.as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<String>>()
    };
    assert_eq!(keys(&first), keys(&status));
    assert_eq!(first["states"], status["states"]);
    mark_accepted(&env, &u1.id.to_string());
    let started = Instant::now();
    let later = loop {
        let doc: Value = serde_json::from_str(&w.next()).unwrap();
        if uncertain_count(&doc) == 1 || started.elapsed() > Duration::from_secs(15) {
            break doc;
        }
    };
    assert_eq!(uncertain_count(&later), 1);
    let t0 = chrono::DateTime::parse_from_rfc3339(first["as_of"].as_str().unwrap()).unwrap();
    let t1 = chrono::DateTime::parse_from_rfc3339(later["as_of"].as_str().unwrap()).unwrap();
    assert!(t1 > t0);
    let (code, stderr) = w.interrupt();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "");
}

#[tokio::test]
async fn without_a_terminal_a_table_is_one_block_per_refresh_under_its_time() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    let w = Lines::spawn(&env, &["status", "--watch", "--interval", "1s"]);
    let mut heads = 0;
    let mut tables = 0;
    while heads < 2 {
        let line = w.next();
        if line.starts_with("── ") {
            assert!(
                line.ends_with(" · reconctl status --watch · every 1s ──"),
                "{line}"
            );
            heads += 1;
        }
        if line.starts_with("STATE ") {
            tables += 1;
        }
    }
    // The second head comes after the first block's table.
    assert_eq!(tables, 1);
    let (code, _) = w.interrupt();
    assert_eq!(code, 0);
}

#[tokio::test]
async fn a_watch_holds_nothing_between_refreshes_and_survives_its_backend_being_terminated() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    let w = Lines::spawn(
        &env,
        &["status", "-v", "--watch", "--interval", "1s", "-o", "jsonl"],
    );
    w.next();
    let backend = "SELECT pid, state, backend_xmin IS NULL, \
                   (SELECT count(*) FROM pg_locks l WHERE l.pid = a.pid), state_change \
                   FROM pg_stat_activity a WHERE datname = current_database() \
                   AND application_name = 'reconctl status' AND pid <> pg_backend_pid()";
    // Sampled over three refreshes: never inside a transaction; idle, it holds no snapshot
    // and no lock.
    let mut pids = std::collections::BTreeSet::new();
    let mut idle_samples = 0;
    for _ in 0..30 {
        for r in env.client.query(backend, &[]).await.unwrap() {
            let state: Option<String> = r.get(1);
            let state = state.unwrap_or_default();
            pids.insert(r.get::<_, i32>(0));
            assert_ne!(state, "idle in transaction");
            if state == "idle" {
                // pg_stat_activity and pg_locks are not read at one instant: a backend that
                // began its next refresh in between shows "idle" beside that statement's
                // locks. Such a sample is not an idle one: it counts only when the backend
                // is still idle, unchanged, after its locks were read.
                let pid: i32 = r.get(0);
                let since: Option<chrono::DateTime<chrono::Utc>> = r.get(4);
                let again = env
                    .client
                    .query_opt(
                        "SELECT state, state_change FROM pg_stat_activity WHERE pid = $1",
                        &[&pid],
                    )
                    .await
                    .unwrap();
                let unchanged = again.is_some_and(|a| {
                    a.get::<_, Option<String>>(0).as_deref() == Some("idle")
                        && a.get::<_, Option<chrono::DateTime<chrono::Utc>>>(1) == since
                });
                if !unchanged {
                    continue;
                }
                idle_samples += 1;
                assert!(r.get::<_, bool>(2), "an idle watch holds no snapshot");
                assert_eq!(r.get::<_, i64>(3), 0, "an idle watch holds no lock");
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(idle_samples > 10, "{idle_samples}");
    assert_eq!(pids.len(), 1, "one session: {pids:?}");
    let old = *pids.iter().next().unwrap();
    let killed_at: chrono::DateTime<chrono::Utc> = env
        .client
        .query_one(
            "SELECT now() FROM (SELECT pg_terminate_backend($1)) t",
            &[&old],
        )
        .await
        .unwrap()
        .get(0);
    // Refreshes go on: two documents read after the termination, the same numbers.
    for _ in 0..2 {
        assert_eq!(uncertain_count(&w.next_read_after(killed_at)), 1);
    }
    // On a new session (the terminated one is gone).
    let mut now: Vec<i32> = Vec::new();
    for _ in 0..50 {
        now = env
            .client
            .query(backend, &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        if !now.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!now.is_empty() && !now.contains(&old), "{old} → {now:?}");
    let (code, stderr) = w.interrupt();
    assert_eq!(code, 0, "{stderr}");
}

#[tokio::test]
async fn watch_flags_are_checked() {
    let env = TestEnv::new().await;
    let r = env.run(&["status", "--watch", "--interval", "500ms"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("at least 1s"), "{}", r.stderr());
    let r = env.run(&["status", "--interval", "5s"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("--watch"), "{}", r.stderr());
    let r = env.run(&["status", "--watch", "-o", "json"]);
    assert_eq!(r.code(), 2);
    assert!(r.stdout().contains("-o jsonl"), "{}", r.stdout());
}

/// Events of `job` with `action`, `secs` ago.
async fn event(env: &TestEnv, job: uuid::Uuid, action: &str, secs: i64) {
    env.client
        .execute(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version) \
             VALUES ($1, now() - make_interval(secs => $2::bigint), 'tester', $3, 'uncertain', 'accepted', 1, 2)",
            &[&job, &(secs as f64 as i64), &action],
        )
        .await
        .unwrap();
}

/// Two uncertain jobs: `a` at cms-a, `b` at cms-b.
async fn uncertain_at_two_destinations(
    env: &TestEnv,
) -> (reconctl::jobs::Job, reconctl::jobs::Job) {
    let a = env.seed(Seed::new("a").state(Uncertain)).await;
    let b = env
        .seed(Seed::new("b").state(Uncertain).destination("cms-b"))
        .await;
    (a, b)
}

#[tokio::test]
async fn the_move_counters_are_exact_per_action_destination_and_window() {
    let mut env = TestEnv::new().await;
    // The events are written by hand, one per count, not as chained histories.
    env.skip_invariants = true;
    let (a, b) = uncertain_at_two_destinations(&env).await;
    // 30 seconds inside each window's edge: the three commands below run within that on a
    // loaded CI machine (with 10 seconds, one run saw both edge events leave their windows).
    for secs in [10, 60, 270] {
        event(&env, a.id, "sweep_sent", secs).await;
    }
    for secs in [310, 1800, 3570] {
        event(&env, a.id, "sweep_sent", secs).await;
    }
    event(&env, a.id, "sweep_sent", 3700).await; // older than an hour: not counted
    event(&env, b.id, "reconcile_accepted", 20).await;
    event(&env, b.id, "mark_failed", 2000).await;
    event(&env, a.id, "timed_out", 30).await;
    // Routine worker traffic is not counted.
    for _ in 0..5 {
        event(&env, a.id, "claim", 5).await;
    }
    // An event written before V6 (no destination column value): its destination is in
    // job_event_destinations.
    env.client
        .batch_execute(&format!(
            "ALTER TABLE job_events DISABLE TRIGGER job_events_fill;
             INSERT INTO job_events (id, job_id, at, actor, action, from_state, to_state, from_version, to_version, destination)
               VALUES (900001, '{b}', now() - interval '100 seconds', 'old', 'mark_safe_to_retry', 'uncertain', 'safe_to_retry', 1, 2, NULL);
             INSERT INTO job_event_destinations VALUES (900001, now() - interval '100 seconds', 'cms-b');
             ALTER TABLE job_events ENABLE TRIGGER job_events_fill;",
            b = b.id
        ))
        .await
        .unwrap();
    // Expired leases: two at cms-a (2 and 10 minutes ago), one live.
    env.seed(Seed::new("l1").state(InFlight).lease("w1", -120))
        .await;
    env.seed(Seed::new("l2").state(InFlight).lease("w1", -600))
        .await;
    env.seed(Seed::new("l3").state(InFlight).lease("w2", 300))
        .await;

    let out = env.run(&["metrics"]).expect(0).stdout();
    let sample = |name: &str, labels: &str| -> f64 {
        let prefix = format!("{name}{{{labels}}} ");
        out.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {prefix} in\n{out}"))
            .parse()
            .unwrap()
    };
    let moves = |action: &str, d: &str, w: &str| {
        sample(
            "reconctl_moves",
            &format!("action=\"{action}\",destination=\"{d}\",window=\"{w}\""),
        )
    };
    assert_eq!(moves("sweep_sent", "cms-a", "5m"), 3.0);
    assert_eq!(moves("sweep_sent", "cms-a", "1h"), 6.0);
    assert_eq!(moves("reconcile_accepted", "cms-b", "5m"), 1.0);
    assert_eq!(moves("mark_failed", "cms-b", "5m"), 0.0);
    assert_eq!(moves("mark_failed", "cms-b", "1h"), 1.0);
    assert_eq!(moves("timed_out", "cms-a", "5m"), 1.0);
    assert_eq!(moves("mark_safe_to_retry", "cms-b", "5m"), 1.0);
    assert_eq!(moves("sweep_unsent", "cms-b", "1h"), 0.0);
    assert!(!out.contains("action=\"claim\""));
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("reconctl_moves{"))
            .count(),
        10 * 2 * 2,
        "every counted action × destination × window"
    );
    assert_eq!(
        sample("reconctl_expired_leases", "destination=\"cms-a\""),
        2.0
    );
    assert_eq!(
        sample("reconctl_expired_leases", "destination=\"cms-b\""),
        0.0
    );
    let oldest = sample(
        "reconctl_oldest_expired_lease_seconds",
        "destination=\"cms-a\"",
    );
    assert!((600.0..660.0).contains(&oldest), "{oldest}");

    // status -v: the same numbers, only the actions that moved.
    let v = env.run(&["status", "-v", "-o", "json"]).expect(0).json();
    let got: Vec<(String, String, i64, i64)> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["action"].as_str().unwrap().to_string(),
                m["destination"].as_str().unwrap().to_string(),
                m["last_5m"].as_i64().unwrap(),
                m["last_1h"].as_i64().unwrap(),
            )
        })
        .collect();
    let row = |a: &str, d: &str, m5, h1| (a.to_string(), d.to_string(), m5, h1);
    assert_eq!(
        got,
        vec![
            row("timed_out", "cms-a", 1, 1),
            row("sweep_sent", "cms-a", 3, 6),
            row("reconcile_accepted", "cms-b", 1, 1),
            row("mark_safe_to_retry", "cms-b", 1, 1),
            row("mark_failed", "cms-b", 0, 1),
        ]
    );
    assert_eq!(v["expired_leases"][0]["destination"], "cms-a");
    assert_eq!(v["expired_leases"][0]["count"], 2);
    assert_eq!(v["expired_leases"].as_array().unwrap().len(), 1);
    let text = env.run(&["status", "-v"]).expect(0).stdout();
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["sweep_sent", "cms-a", "3", "6"]),
        "{text}"
    );
    assert!(
        text.contains("expired leases: 2 in flight at cms-a"),
        "{text}"
    );
}

/// The recent moves as the pre-V17 statement counted them: every counted event of the last
/// hour read from the log, per action and destination.
async fn moves_from_the_log(client: &tokio_postgres::Client) -> Vec<(String, String, i64, i64)> {
    use reconctl::jobs::query::moves::COUNTED;
    let counted: Vec<String> = COUNTED.iter().map(|a| a.as_str().to_string()).collect();
    client
        .query(
            "SELECT e.action, COALESCE(e.destination, \
                    (SELECT d.destination FROM job_event_destinations d WHERE d.id = e.id)), \
                    count(*) FILTER (WHERE e.at > now() - interval '5 minutes'), count(*) \
             FROM job_events e WHERE e.action = ANY($1) AND e.at > now() - interval '1 hour' \
             GROUP BY 1, 2",
            &[&counted],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
}

/// The move counts (per 10-second tick in job_move_counters, V17, plus the first tick of each
/// window from the log) and the log's own count, in one snapshot with one `now()`.
pub(crate) async fn moves_both_ways(
    env: &TestEnv,
) -> (
    Vec<(String, String, i64, i64)>,
    Vec<(String, String, i64, i64)>,
) {
    use reconctl::jobs::query::moves::moves;
    env.client
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        .await
        .unwrap();
    let mut got: Vec<(String, String, i64, i64)> = moves(&env.client)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.action.to_string(), m.destination, m.last_5m, m.last_1h))
        .collect();
    let mut want = moves_from_the_log(&env.client).await;
    env.client.batch_execute("COMMIT").await.unwrap();
    got.sort();
    want.sort();
    (got, want)
}

/// Thousands of events at fractional seconds across every minute of the last hour and a
/// bit (counted actions and routine ones, two destinations, one statement and many): the
/// move counters give the log's count exactly, before and after a fold, which folds the
/// writers' slots of the past minutes and drops the minutes no window reaches.
#[tokio::test]
async fn the_move_counts_equal_the_logs_count_at_every_window_edge_and_across_a_fold() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let (a, b) = uncertain_at_two_destinations(&env).await;
    env.client
        .batch_execute(&format!(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT CASE WHEN g % 5 = 0 THEN '{b}'::uuid ELSE '{a}'::uuid END,
                    now() - make_interval(secs => g * 1.237), 'w',
                    (ARRAY['sweep_sent','claim','timed_out','mark_failed','complete','reconcile_accepted'])[1 + g % 6],
                    'uncertain', 'accepted', 1, 2
             FROM generate_series(0, 3100) g",
            a = a.id,
            b = b.id
        ))
        .await
        .unwrap();
    // One event per statement, from several transactions: several writer slots per tick.
    for secs in [1, 59, 61, 299, 301, 3599, 3601] {
        event(&env, a.id, "sweep_unsent", secs).await;
        event(&env, b.id, "sweep_unsent", secs).await;
    }
    // A counted move every 2.5 s or so: the tick of each window's start moved, so both are
    // completed from the log.
    let first = reconctl::jobs::query::moves::moves_sql()
        .query_typed(&env.client)
        .await
        .unwrap()
        .remove(0);
    let edges = reconctl::jobs::query::moves::Edge::of_windows(&first).unwrap();
    assert!(edges.iter().all(|(_, moved)| *moved), "{edges:?}");
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want);
    // Every counted action of both destinations moved within the hour.
    assert_eq!(want.len(), 10, "{want:?}");

    // A tick no window reaches (three hours ago), as a crashed fold would leave it: dropped.
    env.client
        .batch_execute(
            "INSERT INTO job_move_counters VALUES
               (floor(extract(epoch FROM now()) / 10)::bigint - 1080, 'sweep_sent', 'cms-a', 3, 7)",
        )
        .await
        .unwrap();
    const UNFOLDED: &str = "SELECT count(*) FROM job_move_counters \
         WHERE slot >= 0 AND tick < floor(extract(epoch FROM now()) / 10)::bigint - 1";
    assert!(env.column::<i64>(UNFOLDED).await[0] > 0);
    let taken: i64 = env
        .client
        .query_one("SELECT job_move_counters_fold()", &[])
        .await
        .unwrap()
        .get(0);
    assert!(taken > 0);
    assert_eq!(env.column::<i64>(UNFOLDED).await, [0]);
    let old = env
        .column::<i64>(
            "SELECT count(*) FROM job_move_counters \
             WHERE tick < floor(extract(epoch FROM now()) / 10)::bigint - 721",
        )
        .await;
    assert_eq!(old, [0]);
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want);
    assert_eq!(want.len(), 10, "{want:?}");
}

/// V21: the move counters' trigger returns at once for a statement of routine events only
/// (a worker's claim, renewal, mark_sent, complete), and a statement whose one counted event
/// comes after routine ones is still counted: the test first looks at every row, not the
/// first.
#[tokio::test]
async fn routine_statements_write_no_move_counter_and_a_late_counted_row_is_counted() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let (a, _) = uncertain_at_two_destinations(&env).await;
    let insert = |actions: &str| {
        format!(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT '{a}'::uuid, now(), 'w', action, 'uncertain', 'accepted', 1, 2
             FROM unnest(ARRAY[{actions}]) WITH ORDINALITY AS x(action, k) ORDER BY k",
            a = a.id
        )
    };
    const ROWS: &str = "SELECT count(*) FROM job_move_counters";
    let before = env.column::<i64>(ROWS).await[0];
    env.client
        .batch_execute(&insert(
            "'reserve', 'claim', 'renew', 'mark_sent', 'complete'",
        ))
        .await
        .unwrap();
    assert_eq!(env.column::<i64>(ROWS).await[0], before);
    env.client
        .batch_execute(&insert(
            "'claim', 'renew', 'mark_sent', 'complete', 'timed_out'",
        ))
        .await
        .unwrap();
    let counted = env
        .column::<i64>(
            "SELECT sum(n)::bigint FROM job_move_counters WHERE action = 'timed_out' AND destination = 'cms-a'",
        )
        .await;
    assert_eq!(counted, [1]);
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want);
}

/// The minutes of `job_move_minutes` (V19) that differ from the sum of their folded ticks.
pub(crate) const MISMATCHED: &str = "SELECT count(*) FROM (
     SELECT tick / 6 AS minute, action, destination, sum(n) AS n FROM job_move_counters
     WHERE slot < 0 GROUP BY 1, 2, 3) t
   FULL JOIN job_move_minutes m USING (minute, action, destination)
   WHERE t.n IS DISTINCT FROM m.n";

/// V19: the fold keeps the folded ticks of every minute as one row of `job_move_minutes`, in
/// the same statement, so a minute's row always equals its folded ticks; the counts read
/// those rows for the minutes after each window's first, and stay the log's count exactly,
/// also after a late event lands in a minute already folded and is folded in turn. An hour
/// of moves at two destinations every 3 seconds is 360 ticks per action and destination; the
/// counters' statement reads the minutes, not the ticks.
#[tokio::test]
async fn the_hour_is_summed_per_minute_and_stays_exact_through_folds_and_late_events() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let (a, b) = uncertain_at_two_destinations(&env).await;
    // A timeout every 3 seconds at each destination over the last hour, from 12 statements
    // (12 transactions, so several writer slots per tick).
    for k in 0..12 {
        env.client
            .batch_execute(&format!(
                "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
                 SELECT j, now() - make_interval(secs => 3 * g + 0.5), 'w', 'timed_out',
                        'in_flight', 'uncertain', 1, 2
                 FROM generate_series({k}, 1199, 12) g, unnest(ARRAY['{a}'::uuid, '{b}'::uuid]) j",
                a = a.id,
                b = b.id
            ))
            .await
            .unwrap();
    }
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want, "before any fold");
    env.client
        .query_one("SELECT job_move_counters_fold()", &[])
        .await
        .unwrap();
    // Every minute's row is its folded ticks' sum.
    assert_eq!(env.column::<i64>(MISMATCHED).await, [0]);
    let minutes = env
        .column::<i64>("SELECT count(*) FROM job_move_minutes")
        .await[0];
    assert!((116..=124).contains(&minutes), "{minutes} minute rows");
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want, "after the fold");
    assert_eq!(want.len(), 2, "{want:?}");
    // What the counters' statement reads: the minutes and the first minutes' ticks, not the
    // 720 ticks of the hour at two destinations.
    let sql = reconctl::jobs::query::moves::sums_sql();
    let doc = plan::explain(&env.client, &sql.text, &sql.params(), true).await;
    let nodes = plan::nodes(&doc);
    let read: f64 = nodes
        .iter()
        .filter(|n| n.relation.starts_with("job_move_"))
        .map(|n| n.read)
        .sum();
    assert!(read < 250.0, "{read} counter rows read: {nodes:?}");
    // Late events, dated in minutes already folded (40 and 3 minutes ago), in a transaction
    // of their own: counted in a writer slot of their tick, exact before and after the fold
    // that takes them into their minutes.
    for secs in [2400, 180] {
        event(&env, a.id, "timed_out", secs).await;
        event(&env, b.id, "mark_failed", secs).await;
    }
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want, "late events, not folded yet");
    assert_eq!(want.len(), 3, "{want:?}");
    env.client
        .query_one("SELECT job_move_counters_fold()", &[])
        .await
        .unwrap();
    assert_eq!(env.column::<i64>(MISMATCHED).await, [0]);
    let (got, want) = moves_both_ways(&env).await;
    assert_eq!(got, want, "late events folded");
}

/// The readers' guard on the move counters' fold ([`MOVES_EXPIRED`]) says it is due exactly
/// when the fold has a minute to drop (V19 drops whole minutes): a tick in the first minute
/// kept does not make it due (else every read would call the fold for most of a minute), a
/// tick before it does, and the fold drops that one and keeps the other. In one transaction,
/// so that `now()` is one instant throughout.
#[tokio::test]
async fn the_move_fold_is_due_exactly_when_it_has_a_minute_to_drop() {
    use reconctl::jobs::counters::MOVES_EXPIRED;
    let env = TestEnv::new().await;
    let kept = "(floor(extract(epoch FROM now()) / 10)::bigint - 721) / 6 * 6";
    let due = format!("SELECT coalesce((SELECT true WHERE {MOVES_EXPIRED}), false)");
    let c = &env.client;
    c.batch_execute("BEGIN").await.unwrap();
    c.batch_execute(&format!(
        "INSERT INTO job_move_counters VALUES ({kept}, 'sweep_sent', 'cms-a', -2, 1);
         INSERT INTO job_move_minutes VALUES ({kept} / 6, 'sweep_sent', 'cms-a', 1);"
    ))
    .await
    .unwrap();
    let first: bool = c.query_one(&due, &[]).await.unwrap().get(0);
    assert!(!first, "a tick of the first minute kept made the fold due");
    c.batch_execute(&format!(
        "INSERT INTO job_move_counters VALUES ({kept} - 1, 'sweep_sent', 'cms-a', -2, 1);
         INSERT INTO job_move_minutes VALUES ({kept} / 6 - 1, 'sweep_sent', 'cms-a', 1);"
    ))
    .await
    .unwrap();
    let before: bool = c.query_one(&due, &[]).await.unwrap().get(0);
    assert!(
        before,
        "a tick of a minute to drop did not make the fold due"
    );
    c.query_one("SELECT job_move_counters_fold()", &[])
        .await
        .unwrap();
    let left: Vec<(i64, i64)> = c
        .query(
            &format!(
                "SELECT (SELECT count(*) FROM job_move_counters WHERE tick = {kept}),
                        (SELECT count(*) FROM job_move_counters WHERE tick < {kept})"
            ),
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        left,
        [(1, 0)],
        "the fold kept the first minute and dropped the one before"
    );
    let minutes: Vec<i64> = c
        .query(
            &format!("SELECT minute - {kept} / 6 FROM job_move_minutes ORDER BY 1"),
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(minutes, [0]);
    let after: bool = c.query_one(&due, &[]).await.unwrap().get(0);
    assert!(!after);
    c.batch_execute("ROLLBACK").await.unwrap();
}

/// With no move in the hour the first statement says so, and the sums over the minutes are
/// neither planned nor read: `moves` answers while another session holds `job_move_minutes`
/// in ACCESS EXCLUSIVE mode. With a move, the sums are read (and wait for that lock into the
/// 2 s lock timeout).
#[tokio::test]
async fn with_no_move_in_the_hour_the_sums_are_not_read() {
    use reconctl::jobs::query::moves::moves;
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let a = env.seed(Seed::new("a").state(Uncertain)).await;
    // A move long before the hour: counted in a tick no window reaches, and folded (a fold
    // that is due writes the minutes, and `moves` sends it when its first statement says so).
    event(&env, a.id, "sweep_sent", 5000).await;
    reconctl::jobs::counters::fold(&env.client).await.unwrap();
    let held = env.hold("job_move_minutes").await;
    let quiet = moves(&env.client).await;
    event(&env, a.id, "sweep_sent", 100).await;
    let moved = moves(&env.client).await;
    held.release().await;
    assert_eq!(quiet.expect("the minutes were read").len(), 0);
    assert!(
        moved.is_err(),
        "a move in the hour and the minutes not read"
    );
    let got = moves(&env.client).await.unwrap();
    assert_eq!(
        got.iter()
            .map(|m| (m.action.to_string(), m.last_5m, m.last_1h))
            .collect::<Vec<_>>(),
        [("sweep_sent".to_string(), 1, 1)]
    );
}

/// The counters' statement says, per window, whether a move fell in the tick of its start
/// (as the server's clock reads it); only then is the log read, and only the partition that
/// holds those seconds is planned. With no move there, the log is not touched at all: with
/// another session holding it locked against every reader, the counts still come at once.
#[tokio::test]
async fn the_move_counts_read_the_log_only_where_a_window_starts_in_a_tick_that_moved() {
    use reconctl::jobs::query::moves::{edges_sql, moves, moves_sql, Edge};
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let a = env.seed(Seed::new("a").state(Uncertain)).await;
    // Moves well inside the windows and one outside the hour, none near a window's start.
    for secs in [10, 60, 1800, 3700] {
        event(&env, a.id, "sweep_sent", secs).await;
    }
    event(&env, a.id, "mark_failed", 200).await;
    let partitions = crate::retention::partitions(&env.client, "job_events").await;
    assert!(partitions.len() >= 3, "{partitions:?}");

    let first = moves_sql()
        .query_typed(&env.client)
        .await
        .unwrap()
        .remove(0);
    let windows = Edge::of_windows(&first).unwrap();
    assert_eq!(windows.len(), 2);
    assert!(windows.iter().all(|(_, moved)| !moved), "{windows:?}");
    let held = env.hold("job_events").await;
    let got = moves(&env.client).await.expect("the log was not read");
    held.release().await;
    let counts: Vec<(String, i64, i64)> = got
        .iter()
        .map(|m| (m.action.to_string(), m.last_5m, m.last_1h))
        .collect();
    assert_eq!(
        counts,
        [("sweep_sent".into(), 2, 3), ("mark_failed".into(), 1, 1)]
    );

    // The partitions a plan holds, and how many more the planner planned that the executor
    // then left out at its start ("Subplans Removed": planned all the same).
    fn removed(plan: &Value) -> u64 {
        plan["Subplans Removed"].as_u64().unwrap_or(0)
            + plan["Plans"]
                .as_array()
                .map_or(0, |p| p.iter().map(removed).sum())
    }
    // Both edges, with the bounds the counters' statement gave: only this month's partition
    // (or the one next to it, within seconds of a month's turn) is planned, never the legacy
    // one or the months made ahead.
    let edges: Vec<Edge> = windows.into_iter().map(|(edge, _)| edge).collect();
    for e in &edges {
        assert!(e.after < e.before && e.before - e.after <= chrono::Duration::seconds(10));
    }
    let sql = edges_sql(&edges);
    let doc = plan::explain(&env.client, &sql.text, &sql.params(), false).await;
    let mut planned: Vec<String> = plan::nodes(&doc)
        .into_iter()
        .map(|n| n.relation)
        .filter(|r| r.starts_with("job_events"))
        .collect();
    planned.sort();
    planned.dedup();
    assert_eq!(removed(&doc), 0);
    assert!(
        !planned.is_empty() && planned.len() <= 2,
        "{planned:?} of {partitions:?}"
    );
    assert!(!planned.iter().any(|p| p.contains("legacy")), "{planned:?}");
    let month = format!("job_events_y{}", chrono::Utc::now().format("%Ym%m"));
    assert!(planned.contains(&month), "{planned:?} lacks {month}");
}

#[tokio::test]
async fn the_counters_read_recent_index_ranges_not_the_log() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let a = env.seed(Seed::new("a").state(Uncertain)).await;
    crate::inspect::bulk(&env.client, "acc", 20_000, Some(Accepted), 3600, 2).await;
    crate::inspect::bulk(&env.client, "fly", 200, Some(InFlight), 3600, 2).await;
    // 20,000 old events and a few recent ones: the counters read the recent ones.
    env.client
        .batch_execute(&format!(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT '{id}', now() - interval '2 hours' - g * interval '1 second', 'w',
                    (ARRAY['sweep_sent','claim','mark_sent','complete'])[1 + g % 4], 'pending', 'in_flight', 1, 2
             FROM generate_series(1, 20000) g;
             ANALYZE job_events; ANALYZE publication_jobs;",
            id = a.id
        ))
        .await
        .unwrap();
    for secs in [5, 50, 500] {
        event(&env, a.id, "sweep_sent", secs).await;
    }
    use reconctl::jobs::query::moves::{edges_sql, moves_sql, sums_sql, Edge};
    // The move counters (V17) hold the whole ticks: the first statement probes them (is there
    // a move after the hour's first tick, and in the tick of each window's start), the sums
    // read three rows here, one per event; neither reads the log.
    for (what, sql) in [("probes", moves_sql()), ("sums", sums_sql())] {
        let doc = plan::explain(&env.client, &sql.text, &sql.params(), true).await;
        let nodes = plan::nodes(&plan::by_parents(&env.client, doc).await);
        let counters: f64 = nodes
            .iter()
            .filter(|n| n.relation.starts_with("job_move_"))
            .map(|n| n.read)
            .sum();
        assert!((1.0..=3.0).contains(&counters), "{what}: {nodes:?}");
        assert!(
            nodes.iter().all(|n| !n.relation.starts_with("job_events")),
            "{what}: {nodes:?}"
        );
    }
    let sql = moves_sql();
    // Of the log, where a window's first tick moved, at most that tick (one index range per
    // counted action, or one of the time index when the planner expects a row or two there):
    // the 20,000 accepted jobs' histories span the hour, 60 or so per tick. Both edges read,
    // as when both moved.
    let first = sql.query_typed(&env.client).await.unwrap().remove(0);
    let edges: Vec<Edge> = Edge::of_windows(&first)
        .unwrap()
        .into_iter()
        .map(|(edge, _)| edge)
        .collect();
    assert_eq!(edges.len(), 2);
    let sql = edges_sql(&edges);
    let doc = plan::explain(&env.client, &sql.text, &sql.params(), true).await;
    let nodes = plan::nodes(&plan::by_parents(&env.client, doc).await);
    let log: f64 = nodes
        .iter()
        .filter(|n| n.relation == "job_events")
        .map(|n| n.read)
        .sum();
    assert!(log < 300.0, "{log} rows of the log read: {nodes:?}");
    assert!(
        nodes
            .iter()
            .all(|n| (n.kind != "Seq Scan" || n.read == 0.0) && n.read < 100.0),
        "{nodes:?}"
    );
    let sql = reconctl::jobs::query::moves::expired_leases_sql(Duration::ZERO);
    let doc = plan::explain(&env.client, &sql.text, &sql.params(), false).await;
    let nodes = plan::nodes(&doc);
    assert!(
        nodes
            .iter()
            .all(|n| n.relation != "publication_jobs" || n.kind != "Seq Scan"),
        "{nodes:?}"
    );
}

#[tokio::test]
async fn a_watch_whose_database_goes_away_says_it_is_reconnecting_and_carries_on() {
    let mut env = TestEnv::new().await;
    // The test's own session is ended with the others.
    env.skip_invariants = true;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    let w = Lines::spawn(
        &env,
        &["status", "--watch", "--interval", "1s", "-o", "jsonl"],
    );
    let first: Value = serde_json::from_str(&w.next()).unwrap();
    assert_eq!(uncertain_count(&first), 1);
    env.go_away().await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    env.come_back().await;
    let back = chrono::Utc::now();
    // Documents again, read after the database came back.
    assert_eq!(uncertain_count(&w.next_read_after(back)), 1);
    let (code, stderr) = w.interrupt();
    assert_eq!(code, 0, "{stderr}");
    // stderr said so, stdout stayed one document a line.
    assert!(stderr.contains("reconnecting in"), "{stderr}");
    assert!(stderr.contains("reconnected"), "{stderr}");
}

#[tokio::test]
async fn on_a_terminal_a_lost_database_shows_reconnecting_over_the_last_numbers() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    let mut p = env.pty_watched(&["status", "--watch", "--interval", "1s"]);
    p.exp_regex("uncertain +cms-a +1 ").unwrap();
    env.go_away().await;
    // While it is away the screen says so, and keeps the last numbers.
    p.exp_string(&pty_text("reconnecting…")).unwrap();
    p.exp_regex("uncertain +cms-a +1 ").unwrap();
    env.come_back().await;
    // Back: the trouble line goes (a header, then straight to the table).
    p.exp_regex("q quits\r\n\r\nSTATE").unwrap();
    p.send("q").unwrap();
    p.flush().unwrap();
    let rest = p.exp_string("DONE").unwrap();
    assert!(rest.contains("EXIT=0"), "{rest:?}");
    env.assert_terminal_restored();
}
