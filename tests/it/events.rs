//! `reconctl events`: the audit trail across jobs (SPEC §7). Exact JSON of job and destination
//! events, every filter alone and combined, keyset pages under concurrent appends, the
//! timeline at 80 and 60 columns, `--follow` under a writer storm (held-open transactions,
//! rollbacks), across a killed connection and a dropped database, a closed pipe, an EXPLAIN
//! of every statement on a skewed log, and the events written before V6.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reconctl::jobs::events::{self, EventFilter, Follow, History, Since, Snapshot};
use reconctl::jobs::{payload_hash, sweep, worker, BusinessKey, Job};
use serde_json::{json, Value};
use tokio_postgres::Client;
use uuid::Uuid;

use crate::harness::*;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Where the crafted events of a test start: minute `n` is `BASE + n minutes`.
const BASE: &str = "2024-05-01T10:00:00Z";

fn at(minute: i64) -> String {
    let base = chrono::DateTime::parse_from_rfc3339(BASE).unwrap();
    (base + chrono::Duration::minutes(minute))
        .with_timezone(&chrono::Utc)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A job event written directly, at minute `minute`; its id.
#[allow(clippy::too_many_arguments)]
async fn job_event(
    c: &Client,
    job: &Job,
    minute: i64,
    actor: &str,
    action: &str,
    from: Option<&str>,
    to: &str,
    reason: Option<&str>,
    evidence: Value,
) -> i64 {
    let (from_version, to_version): (Option<i64>, i64) = match from {
        None => (None, 1),
        Some(_) => (Some(1), 2),
    };
    c.query_one(
        "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
         VALUES ($1, $2::text::timestamptz, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        &[&job.id, &at(minute), &actor, &action, &from, &to, &from_version, &to_version, &reason, &evidence],
    )
    .await
    .unwrap()
    .get(0)
}

/// A destination event written directly (as `destination pause/resume` records them).
async fn destination_event(
    c: &Client,
    destination: &str,
    minute: i64,
    actor: &str,
    action: &str,
    reason: &str,
    until_minute: Option<i64>,
) -> i64 {
    c.query_one(
        "INSERT INTO destination_events (destination, at, actor, action, reason, until)
         VALUES ($1, $2::text::timestamptz, $3, $4, $5, $6::text::timestamptz) RETURNING id",
        &[
            &destination,
            &at(minute),
            &actor,
            &action,
            &reason,
            &until_minute.map(at),
        ],
    )
    .await
    .unwrap()
    .get(0)
}

/// An event as SPEC §7 shows it, built by SQL from the tables (an independent path to the
/// same document: every job_events column, the job's destination and external_ref).
async fn db_event(c: &Client, id: i64) -> Value {
    let utc = |col: &str| {
        format!("to_char({col} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
    };
    let row = c
        .query_one(
            &format!(
                "SELECT json_build_object('id', e.id, 'job_id', e.job_id, 'at', {}, 'actor', e.actor,
                    'action', e.action, 'from_state', e.from_state, 'to_state', e.to_state,
                    'from_version', e.from_version, 'to_version', e.to_version, 'reason', e.reason,
                    'evidence', e.evidence, 'destination', j.destination,
                    'external_ref', j.external_ref, 'xid', e.xid::text::numeric)::text
                 FROM job_events e JOIN publication_jobs j ON j.id = e.job_id WHERE e.id = $1
                 UNION ALL
                 SELECT json_build_object('id', d.id, 'job_id', NULL, 'at', {}, 'actor', d.actor,
                    'action', d.action, 'from_state', NULL, 'to_state', NULL,
                    'from_version', NULL, 'to_version', NULL, 'reason', d.reason,
                    'evidence', d.evidence || jsonb_build_object('until', {}),
                    'destination', d.destination, 'external_ref', NULL,
                    'xid', d.xid::text::numeric)::text
                 FROM destination_events d WHERE d.id = $1",
                utc("e.at"),
                utc("d.at"),
                utc("d.until")
            ),
            &[&id],
        )
        .await
        .unwrap();
    serde_json::from_str(&row.get::<_, String>(0)).unwrap()
}

fn events_of(v: &Value) -> Vec<Value> {
    v["events"].as_array().expect("an events array").clone()
}

fn ids_of(events: &[Value]) -> Vec<i64> {
    events.iter().map(|e| e["id"].as_i64().unwrap()).collect()
}

/// The binary as a child that keeps running (the harness's clean environment), at `url`.
fn spawn(env: &TestEnv, url: &str, args: &[&str]) -> Child {
    env.std_cmd()
        .env("DATABASE_URL", url)
        .args(args)
        .spawn()
        .expect("spawn reconctl")
}

/// A running `events --follow -o jsonl`, its lines collected as they come.
struct Follower {
    child: Child,
    lines: Arc<Mutex<Vec<Value>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Follower {
    fn start(env: &TestEnv, url: &str, args: &[&str]) -> Follower {
        let mut full = vec!["events", "--follow", "-o", "jsonl"];
        full.extend_from_slice(args);
        let mut child = spawn(env, url, &full);
        let out = BufReader::new(child.stdout.take().unwrap());
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let reader = std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
                sink.lock().unwrap().push(v);
            }
        });
        Follower {
            child,
            lines,
            reader: Some(reader),
        }
    }

    fn count(&self) -> usize {
        self.lines.lock().unwrap().len()
    }

    /// Wait until `n` events were printed (or `limit` passed).
    async fn wait_for(&self, n: usize, limit: Duration) {
        let start = Instant::now();
        while self.count() < n && start.elapsed() < limit {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Ctrl-C; the exit code, stderr and every line printed.
    fn interrupt(self) -> (i32, String, Vec<Value>) {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-INT", &pid]).status().unwrap();
        self.finish()
    }

    fn finish(mut self) -> (i32, String, Vec<Value>) {
        let status = self.child.wait().unwrap();
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            std::io::Read::read_to_string(&mut e, &mut err).unwrap();
        }
        let lines = self.lines.lock().unwrap().clone();
        (status.code().unwrap_or(-1), err, lines)
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// `url` with an application_name, to find the follower's session in pg_stat_activity.
fn named(url: &str, name: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}application_name={name}")
}

// ---------------------------------------------------------------------------------------
// JSON, filters, pages
// ---------------------------------------------------------------------------------------

/// The fixture of the filter tests: three jobs (two at cms-a, one at cms-b), their moves by
/// workers, a sweeper and two operators, and pauses of both destinations, at known minutes.
struct Trail {
    a: Job,
    b: Job,
    c: Job,
    events: Vec<Recorded>,
}

/// One event of the fixture, as the test wrote it.
#[derive(Debug, Clone)]
struct Recorded {
    id: i64,
    job: Option<Uuid>,
    destination: String,
    actor: String,
    action: String,
    /// When it was written (minutes after BASE); None: the seed event, written now.
    minute: Option<i64>,
}

async fn trail(env: &TestEnv) -> Trail {
    let a = env.seed(Seed::new("a1")).await;
    let b = env.seed(Seed::new("a2")).await;
    let c = env.seed(Seed::new("a3").destination("cms-b")).await;
    let mut events = Vec::new();
    for job in [&a, &b, &c] {
        for e in env.events(job.id).await {
            events.push(Recorded {
                id: e.id,
                job: Some(job.id),
                destination: job.destination.clone(),
                actor: e.actor.clone(),
                action: e.action.to_string(),
                minute: None,
            });
        }
    }
    let cl = &env.client;
    let lookup = json!({"lookup": {"outcome": "found", "verdict": "accept", "destination": "cms-a"}, "remote_id": "r-1"});
    let crafted: Vec<(Option<&Job>, &str, i64, &str, &str)> = vec![
        (Some(&a), "cms-a", 0, "worker-1", "claim"),
        (Some(&b), "cms-a", 1, "worker-2", "claim"),
        (Some(&c), "cms-b", 2, "worker-1", "claim"),
        (None, "cms-a", 3, "alice", "pause"),
        (Some(&a), "cms-a", 4, "worker-1", "timed_out"),
        (Some(&c), "cms-b", 5, "worker-1", "complete"),
        (Some(&a), "cms-a", 6, "alice", "mark_accepted"),
        (None, "cms-a", 7, "alice", "resume"),
        (Some(&b), "cms-a", 8, "sweeper", "sweep_unsent"),
        (None, "cms-b", 9, "bob", "pause"),
        (Some(&b), "cms-a", 10, "bob", "mark_failed"),
    ];
    for (job, dest, minute, actor, action) in crafted {
        let id = match job {
            Some(j) => {
                let (from, to, reason, evidence) = match action {
                    "claim" => ("pending", "in_flight", None, json!({"attempt": 1})),
                    "timed_out" => ("in_flight", "uncertain", Some("read timeout"), json!({})),
                    "complete" => ("in_flight", "accepted", None, json!({"remote_id": "r-3"})),
                    "mark_accepted" => (
                        "uncertain",
                        "accepted",
                        Some("CMS shows it"),
                        lookup.clone(),
                    ),
                    "sweep_unsent" => (
                        "in_flight",
                        "pending",
                        Some("lease expired, never sent"),
                        json!({}),
                    ),
                    _ => (
                        "pending",
                        "failed",
                        Some("gave up"),
                        json!({"lookup": "not_needed"}),
                    ),
                };
                job_event(
                    cl,
                    j,
                    minute,
                    actor,
                    action,
                    Some(from),
                    to,
                    reason,
                    evidence,
                )
                .await
            }
            None => {
                let until = (action == "pause").then_some(minute + 30);
                destination_event(cl, dest, minute, actor, action, "CMS down", until).await
            }
        };
        events.push(Recorded {
            id,
            job: job.map(|j| j.id),
            destination: dest.to_string(),
            actor: actor.to_string(),
            action: action.to_string(),
            minute: Some(minute),
        });
    }
    Trail { a, b, c, events }
}

#[tokio::test]
async fn json_is_every_column_of_job_and_destination_events_oldest_first() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true; // the crafted moves do not chain with the jobs
    let t = trail(&env).await;
    // RECONCTL_ACTOR (set for every run of the tests) names who acts; it filters nothing.
    let v = env.run(&["events", "-o", "json"]).expect(0).json();
    assert_eq!(v["next_cursor"], Value::Null);
    let listed = events_of(&v);
    assert_eq!(listed.len(), t.events.len());
    for e in &listed {
        let id = e["id"].as_i64().unwrap();
        assert_eq!(e, &db_event(&env.client, id).await, "event {id}");
    }
    // Oldest first: the crafted minutes, then the seed events written now.
    let mut expected = t.events.clone();
    expected.sort_by_key(|e| (e.minute.map_or(i64::MAX, |m| m), e.id));
    assert_eq!(
        ids_of(&listed),
        expected.iter().map(|e| e.id).collect::<Vec<_>>()
    );
    // A destination event: no job, no states or versions; its pause's end in evidence.
    let pause = listed
        .iter()
        .find(|e| e["action"] == "pause" && e["destination"] == "cms-a")
        .unwrap();
    assert_eq!(
        pause,
        &json!({
            "id": pause["id"], "job_id": null, "at": "2024-05-01T10:03:00.000000Z",
            "actor": "alice", "action": "pause", "from_state": null, "to_state": null,
            "from_version": null, "to_version": null, "reason": "CMS down",
            "evidence": {"until": "2024-05-01T10:33:00.000000Z"}, "destination": "cms-a",
            "external_ref": null, "xid": pause["xid"],
        })
    );
    assert!(pause["xid"].as_u64().unwrap() > 0);
    let claim = listed.iter().find(|e| e["action"] == "claim").unwrap();
    assert_eq!(claim["job_id"], t.a.id.to_string());
    assert_eq!(claim["external_ref"], t.a.external_ref);
    assert_eq!(claim["destination"], "cms-a");

    // jsonl: one event a line, the same objects, no cursor line.
    let run = env
        .run(&["events", "-o", "jsonl", "--limit", "3"])
        .expect(0);
    let lines: Vec<Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, listed[..3].to_vec());
}

#[tokio::test]
async fn every_filter_alone_and_combined() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let t = trail(&env).await;
    let all = events_of(
        &env.run(&["events", "-o", "json", "--limit", "1000"])
            .expect(0)
            .json(),
    );
    let by_id: BTreeMap<i64, Value> = all
        .iter()
        .map(|e| (e["id"].as_i64().unwrap(), e.clone()))
        .collect();
    let (a, b, c) = (t.a.id.to_string(), t.b.id.to_string(), t.c.id.to_string());
    type Pred = Box<dyn Fn(&Recorded) -> bool>;
    let job = |j: Uuid| -> Pred { Box::new(move |e| e.job == Some(j)) };
    let minute = |lo: i64, hi: i64| -> Pred {
        Box::new(move |e| e.minute.is_some_and(|m| m >= lo && m < hi))
    };
    let cases: Vec<(Vec<String>, Pred)> = vec![
        (vec![], Box::new(|_| true)),
        (vec!["--job".into(), a.clone()], job(t.a.id)),
        (vec!["--job".into(), t.a.external_ref.clone()], job(t.a.id)),
        // A prefix, as the table shows ids.
        (vec!["--job".into(), a[..8].to_string()], job(t.a.id)),
        (
            vec!["--destination".into(), "cms-a".into()],
            Box::new(|e| e.destination == "cms-a"),
        ),
        // (`--destination cms-nowhere`, a name nothing knows, is exit 2: issue 23 item 5.)
        (
            vec!["--actor".into(), "alice".into()],
            Box::new(|e| e.actor == "alice"),
        ),
        (
            vec!["--actor".into(), "tester".into()],
            Box::new(|e| e.actor == "tester"),
        ),
        (
            vec!["--action".into(), "claim".into()],
            Box::new(|e| e.action == "claim"),
        ),
        (
            vec!["--action".into(), "mark-accepted".into()],
            Box::new(|e| e.action == "mark_accepted"),
        ),
        (
            vec!["--action".into(), "pause".into()],
            Box::new(|e| e.action == "pause"),
        ),
        (
            vec![
                "--action".into(),
                "claim".into(),
                "--action".into(),
                "pause".into(),
                "--action".into(),
                "resume".into(),
            ],
            Box::new(|e| ["claim", "pause", "resume"].contains(&e.action.as_str())),
        ),
        (
            vec![
                "--action".into(),
                "seed".into(),
                "--action".into(),
                "claim".into(),
            ],
            Box::new(|_| unreachable!()),
        ),
        (
            vec!["--since".into(), at(4)],
            Box::new(|e| e.minute.is_none_or(|m| m >= 4)),
        ),
        (vec!["--until".into(), at(4)], minute(i64::MIN, 4)),
        (
            vec!["--since".into(), at(2), "--until".into(), at(8)],
            minute(2, 8),
        ),
        // A duration back from the database's clock: only what was written now.
        (
            vec!["--since".into(), "1h".into()],
            Box::new(|e| e.minute.is_none()),
        ),
        (
            vec!["--since".into(), "2024-05-01 12:04:00+02:00".into()],
            Box::new(|e| e.minute.is_none_or(|m| m >= 4)),
        ),
        (
            vec![
                "--destination".into(),
                "cms-a".into(),
                "--actor".into(),
                "alice".into(),
            ],
            Box::new(|e| e.destination == "cms-a" && e.actor == "alice"),
        ),
        (
            vec![
                "--destination".into(),
                "cms-b".into(),
                "--action".into(),
                "claim".into(),
                "--action".into(),
                "pause".into(),
            ],
            Box::new(|e| e.destination == "cms-b" && (e.action == "claim" || e.action == "pause")),
        ),
        (
            vec!["--job".into(), b.clone(), "--actor".into(), "bob".into()],
            Box::new(move |e| e.job == Some(t.b.id) && e.actor == "bob"),
        ),
        (
            vec!["--job".into(), a.clone(), "--action".into(), "pause".into()],
            Box::new(|_| false),
        ),
        (
            vec![
                "--job".into(),
                c.clone(),
                "--destination".into(),
                "cms-a".into(),
            ],
            Box::new(|_| false),
        ),
        (
            vec![
                "--job".into(),
                c.clone(),
                "--destination".into(),
                "cms-b".into(),
            ],
            job(t.c.id),
        ),
        (
            vec![
                "--actor".into(),
                "worker-1".into(),
                "--since".into(),
                at(1),
                "--until".into(),
                at(5),
            ],
            Box::new(|e| e.actor == "worker-1" && e.minute.is_some_and(|m| (1..5).contains(&m))),
        ),
        (
            vec![
                "--destination".into(),
                "cms-a".into(),
                "--actor".into(),
                "alice".into(),
                "--action".into(),
                "pause".into(),
                "--action".into(),
                "mark_accepted".into(),
                "--since".into(),
                at(3),
                "--until".into(),
                at(7),
            ],
            Box::new(|e| {
                e.destination == "cms-a"
                    && e.actor == "alice"
                    && e.minute.is_some_and(|m| (3..7).contains(&m))
            }),
        ),
    ];
    for (args, pred) in cases {
        let mut full: Vec<&str> = vec!["events", "-o", "json", "--limit", "1000"];
        full.extend(args.iter().map(String::as_str));
        if args.iter().any(|a| a == "seed") {
            // Not an action anything records: refused, with the valid ones.
            let run = env.run(&full).expect(2);
            assert!(
                run.stderr().contains("unknown --action `seed`"),
                "{}",
                run.stderr()
            );
            continue;
        }
        let got = events_of(&env.run(&full).expect(0).json());
        let mut want: Vec<_> = t.events.iter().filter(|e| pred(e)).collect();
        want.sort_by_key(|e| (e.minute.map_or(i64::MAX, |m| m), e.id));
        assert_eq!(
            ids_of(&got),
            want.iter().map(|e| e.id).collect::<Vec<_>>(),
            "{args:?}"
        );
        for e in &got {
            assert_eq!(e, &by_id[&e["id"].as_i64().unwrap()], "{args:?}");
        }
    }
}

#[tokio::test]
async fn bad_input_is_exit_2_with_a_clear_message() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let t = trail(&env).await;
    let page = env
        .run(&["events", "--actor", "alice", "--limit", "1", "-o", "json"])
        .expect(0)
        .json();
    let cursor = page["next_cursor"].as_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--action", "delete"],
            "unknown --action `delete` (expected one of: reserve, claim,",
        ),
        (
            vec!["--since", "yesterday"],
            "invalid --since: `yesterday` is neither a duration",
        ),
        (vec!["--since", "10"], "invalid --since"),
        (
            vec!["--until", "yesterday"],
            "invalid --until: `yesterday` is neither a duration",
        ),
        (vec!["--last", "0"], "--last 0 is out of range (1 to 10000)"),
        (
            vec!["--last", "3", "--limit", "2"],
            "--last prints the newest events; --limit pages from the oldest",
        ),
        (
            vec!["--until", "2024-05-01T10:00:00"],
            "the offset is required",
        ),
        (
            vec!["--limit", "0"],
            "--limit 0 is out of range (1 to 10000)",
        ),
        (vec!["--limit", "10001"], "--limit 10001 is out of range"),
        (vec!["--job", "1a2b"], "--job: `1a2b` is neither a job id"),
        (
            vec!["--actor", "bob", "--cursor", &cursor],
            "invalid --cursor: it belongs to a listing with other filters",
        ),
        (
            vec!["--cursor", "garbage"],
            "invalid --cursor: it is not a cursor reconctl printed",
        ),
        (
            vec!["--follow", "--until", "2024-05-01T10:00:00Z"],
            "--until ends a listing",
        ),
        (vec!["--follow", "--limit", "5"], "--limit pages a listing"),
    ];
    for (args, message) in cases {
        let mut full = vec!["events"];
        full.extend(&args);
        let run = env.run(&full).expect(2);
        assert!(run.stderr().contains(message), "{args:?}: {}", run.stderr());
        assert_eq!(run.stdout(), "", "{args:?}");
        full.extend(["-o", "json"]);
        let json = env.run(&full).expect(2).json();
        assert_eq!(json["error"]["kind"], "usage", "{args:?}: {json}");
        assert!(
            json["error"]["message"].as_str().unwrap().contains(message),
            "{args:?}: {json}"
        );
    }
    // -o json --follow: a stream is not one document.
    let json = env
        .run(&["events", "--follow", "-o", "json"])
        .expect(2)
        .json();
    assert!(
        json["error"]["hint"].as_str().unwrap().contains("-o jsonl"),
        "{json}"
    );
    // A job that does not exist: exit 4, like every JOB argument.
    let missing = Uuid::new_v4().to_string();
    let json = env
        .run(&["events", "--job", &missing, "-o", "json"])
        .expect(4)
        .json();
    assert_eq!(json["error"]["kind"], "not_found");
    // The same cursor with the same filters carries on (in another order of flags, with the
    // job named by external_ref instead of id for --job listings).
    let next = env
        .run(&[
            "events", "--limit", "1", "--cursor", &cursor, "--actor", "alice", "-o", "json",
        ])
        .expect(0)
        .json();
    assert_eq!(events_of(&next).len(), 1);
    assert_ne!(next["events"][0]["id"], page["events"][0]["id"]);
    let by_id = env
        .run(&[
            "events",
            "--job",
            &t.a.id.to_string(),
            "--limit",
            "1",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    let c = by_id["next_cursor"].as_str().unwrap();
    env.run(&["events", "--job", &t.a.external_ref, "--cursor", c])
        .expect(0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_walk_5000_events_exactly_once_while_others_append() {
    let mut env = TestEnv::new().await;
    // 5 000 renewals of one job, one a second (written directly, so they do not chain the
    // way the harness checks).
    env.skip_invariants = true;
    let job = env.seed(Seed::new("busy")).await;
    env.client
        .execute(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT $1, now() - make_interval(secs => 6000 - i), 'w' || (i % 7), 'renew',
                    'pending', 'pending', 1, 2
             FROM generate_series(1, 5000) AS i",
            &[&job.id],
        )
        .await
        .unwrap();
    let seeded: BTreeSet<i64> = env
        .client
        .query("SELECT id FROM job_events WHERE action = 'renew'", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(seeded.len(), 5000);
    let stop = Arc::new(AtomicBool::new(false));
    let appended = Arc::new(AtomicU64::new(0));
    let appender = {
        let client = env.connect().await;
        let (stop, appended) = (stop.clone(), appended.clone());
        let id = job.id;
        tokio::spawn(async move {
            let mut i = 0i64;
            while !stop.load(Ordering::SeqCst) {
                // Now, and back inside the range being walked.
                client
                    .execute(
                        "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
                         VALUES ($1, now() - make_interval(secs => $2::float8), 'racer', 'renew', 'pending', 'pending', 1, 2)",
                        &[&id, &(((i * 37) % 6000) as f64)],
                    )
                    .await
                    .unwrap();
                appended.fetch_add(1, Ordering::SeqCst);
                i += 1;
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
        })
    };
    while appended.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let before = appended.load(Ordering::SeqCst);
    let walk = |args: &[&str], limit: u32| {
        let mut seen: Vec<Value> = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let limit = limit.to_string();
            let mut full = vec!["events", "-o", "json", "--limit", &limit];
            full.extend_from_slice(args);
            if let Some(c) = &cursor {
                full.extend(["--cursor", c.as_str()]);
            }
            let v = env.run(&full).expect(0).json();
            pages += 1;
            seen.extend(events_of(&v));
            match v["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => return (seen, pages),
            }
        }
    };
    let (all, pages) = tokio::task::block_in_place(|| walk(&["--action", "renew"], 250));
    let (since, _) = tokio::task::block_in_place(|| walk(&["--since", "2h", "--actor", "w3"], 97));
    let during = appended.load(Ordering::SeqCst) - before;
    stop.store(true, Ordering::SeqCst);
    appender.await.unwrap();
    assert!(
        during > 20,
        "the appender ran during the walk ({during} events)"
    );
    assert!(pages >= 20, "{pages} pages");
    for (walked, want) in [
        (&all, seeded.clone()),
        (
            &since,
            seeded
                .iter()
                .copied()
                .filter(|id| {
                    all.iter()
                        .find(|e| e["id"] == *id)
                        .is_some_and(|e| e["actor"] == "w3")
                })
                .collect(),
        ),
    ] {
        let keys: Vec<(String, i64)> = walked
            .iter()
            .map(|e| {
                (
                    e["at"].as_str().unwrap().to_string(),
                    e["id"].as_i64().unwrap(),
                )
            })
            .collect();
        for w in keys.windows(2) {
            assert!(
                w[0] < w[1],
                "out of keyset order: {:?} then {:?}",
                w[0],
                w[1]
            );
        }
        let seen: Vec<i64> = ids_of(walked)
            .into_iter()
            .filter(|id| want.contains(id))
            .collect();
        assert_eq!(seen.len(), want.len(), "every seeded event, once");
        assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), want.len());
    }
}

// ---------------------------------------------------------------------------------------
// The timeline
// ---------------------------------------------------------------------------------------

/// A job with a fixed id (so the table's prefixes are stable).
async fn fixed_job(env: &TestEnv, id: &str, article: &str, destination: &str) -> Job {
    let ext = reconctl::jobs::external_ref("t1", article, "1", destination);
    env.client
        .execute(
            "INSERT INTO publication_jobs (id, tenant_id, article_id, revision_id, destination,
                 external_ref, payload_hash, state)
             VALUES ($1::text::uuid, 't1', $2, '1', $3, $4, $5, 'pending')",
            &[
                &id,
                &article,
                &destination,
                &ext,
                &payload_hash(article.as_bytes()),
            ],
        )
        .await
        .unwrap();
    env.job(id.parse().unwrap()).await
}

async fn timeline_fixture(env: &TestEnv) {
    let a = fixed_job(env, "1a2b3c4d-0000-4000-8000-000000000001", "a1", "cms-a").await;
    // Shares its first 8 hex digits with the next one: the prefixes must grow to tell them
    // apart.
    let b = fixed_job(env, "5e6f7081-1111-4000-8000-000000000002", "a2", "cms-a").await;
    let c = fixed_job(env, "5e6f7081-2222-4000-8000-000000000003", "a3", "cms-b").await;
    let cl = &env.client;
    job_event(
        cl,
        &a,
        0,
        "w-res",
        "reserve",
        None,
        "pending",
        None,
        json!({"payload_hash": payload_hash(b"a1")}),
    )
    .await;
    job_event(
        cl,
        &a,
        1,
        "worker-7",
        "claim",
        Some("pending"),
        "in_flight",
        None,
        json!({"attempt": 1, "lease_expires_at": at(6)}),
    )
    .await;
    job_event(
        cl,
        &a,
        2,
        "worker-7",
        "mark_sent",
        Some("in_flight"),
        "in_flight",
        None,
        json!({}),
    )
    .await;
    job_event(
        cl,
        &b,
        3,
        "worker-7",
        "claim",
        Some("pending"),
        "in_flight",
        None,
        json!({"attempt": 2}),
    )
    .await;
    job_event(
        cl,
        &a,
        4,
        "worker-7",
        "timed_out",
        Some("in_flight"),
        "uncertain",
        Some("read timeout after 30s"),
        json!({}),
    )
    .await;
    destination_event(
        cl,
        "cms-a",
        5,
        "alice@ops-laptop.example.com",
        "pause",
        "CMS answers 502\n\x1b[2Jrm -rf",
        Some(35),
    )
    .await;
    job_event(
        cl,
        &c,
        6,
        "reconcile@cron",
        "reconcile_accepted",
        Some("uncertain"),
        "accepted",
        Some("the destination has it"),
        json!({"lookup": {"outcome": "found", "verdict": "accept"}, "remote_id": "r-99"}),
    )
    .await;
    job_event(
        cl,
        &b,
        7,
        "sweeper",
        "sweep_sent",
        Some("in_flight"),
        "uncertain",
        Some("lease expired after the request was sent"),
        json!({"lease_owner": "worker-7", "sent_at": at(3)}),
    )
    .await;
    job_event(
        cl,
        &a,
        24 * 60 + 2,
        "bob\u{202e}evil",
        "mark_safe_to_retry",
        Some("uncertain"),
        "safe_to_retry",
        Some("not in the CMS after 2h"),
        json!({"lookup": {"outcome": "not_found", "verdict": "safe_to_retry"}}),
    )
    .await;
    destination_event(
        cl,
        "cms-a",
        24 * 60 + 3,
        "alice@ops-laptop.example.com",
        "resume",
        "fixed upstream",
        None,
    )
    .await;
}

fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[tokio::test]
async fn the_timeline_fits_80_columns_and_escapes_what_it_shows() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    timeline_fixture(&env).await;
    let table = env
        .cmd()
        .env("COLUMNS", "80")
        .args(["events"])
        .output()
        .unwrap();
    assert_eq!(table.status.code(), Some(0));
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(widest(&text) <= 80, "{text}");
    assert!(
        !text.contains('\x1b') && !text.contains('\u{202e}'),
        "{text}"
    );
    insta::assert_snapshot!(text, @r#"
    TIME      ACTOR                         MOVE
    ── 2024-05-01 (UTC)
    10:00:00  w-res                         → pending
              1a2b3c4d · reserve · payload_hash=f55ff16f66f4…
    10:01:00  worker-7                      pending → in_flight
              1a2b3c4d · claim · attempt=1 lease_expires_at=10:06:00
    10:02:00  worker-7                      in_flight (mark_sent)
              1a2b3c4d
    10:03:00  worker-7                      pending → in_flight
              5e6f7081-1 · claim · attempt=2
    10:04:00  worker-7                      in_flight → uncertain
              1a2b3c4d · read timeout after 30s
    10:05:00  alice@ops-laptop.example.com  pause cms-a
              CMS answers 502\n\x1b[2Jrm -rf · until=10:35:00
    10:06:00  reconcile@cron                uncertain → accepted
              5e6f7081-2 · the destination has it · lookup found → accept
              remote_id=r-99
    10:07:00  sweeper                       in_flight → uncertain
              5e6f7081-1 · lease expired after the request was sent ·
              lease_owner=worker-7 sent_at=10:03:00
    ── 2024-05-02 (UTC)
    10:02:00  bob\u{202e}evil               uncertain → safe_to_retry
              1a2b3c4d · not in the CMS after 2h · lookup not_found → safe_to_retry
    10:03:00  alice@ops-laptop.example.com  resume cms-a
              fixed upstream
    "#);
}

#[tokio::test]
async fn the_timeline_at_60_columns_keeps_ids_and_states_whole() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    timeline_fixture(&env).await;
    let out = env
        .cmd()
        .env("COLUMNS", "60")
        .args(["events"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(widest(&text) <= 60, "{text}");
    for whole in [
        "1a2b3c4d ",
        "5e6f7081-1 ",
        "5e6f7081-2 ",
        "uncertain → safe_to_retry",
        "pending → in_flight",
        "pause cms-a",
        "resume cms-a",
    ] {
        assert!(text.contains(whole), "{whole} is cut:\n{text}");
    }
    // The cursor of a page is printed whole, on its own line, however narrow.
    let out = env
        .cmd()
        .env("COLUMNS", "60")
        .args(["events", "--limit", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("more: --cursor "), "{text}");
    let cursor = last.trim_start_matches("more: --cursor ");
    env.run(&["events", "--limit", "2", "--cursor", cursor])
        .expect(0);
}

// ---------------------------------------------------------------------------------------
// The worker API and the sweep write into the same stream
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn worker_and_sweep_events_are_in_the_stream_with_their_actors() {
    let env = TestEnv::new().await;
    let c = &env.client;
    let lease = Duration::from_secs(300);
    let mut jobs = Vec::new();
    for article in ["w1", "w2"] {
        let key = BusinessKey::new("t1", article, "1", "cms-w");
        let r = worker::reserve(c, &key, &payload_hash(article.as_bytes()), "publisher-1")
            .await
            .unwrap();
        jobs.push(r.job().clone());
    }
    let j1 = worker::claim(c, "worker-9", lease, Some("cms-w"))
        .await
        .unwrap()
        .unwrap();
    let j1 = worker::mark_sent(c, &j1).await.unwrap();
    worker::complete(c, &j1, "remote-1").await.unwrap();
    let j2 = worker::claim(c, "worker-8", lease, Some("cms-w"))
        .await
        .unwrap()
        .unwrap();
    let j2 = worker::renew(c, &j2, lease).await.unwrap();
    let j2 = worker::mark_sent(c, &j2).await.unwrap();
    // Its lease runs out: the sweep takes it.
    c.execute(
        "UPDATE publication_jobs SET lease_expires_at = now() - interval '1 minute' WHERE id = $1",
        &[&j2.id],
    )
    .await
    .unwrap();
    let report = sweep::sweep(c, &sweep::SweepOptions::new("sweeper-3"))
        .await
        .unwrap();
    assert_eq!(report.to_uncertain, 1);

    let listed = events_of(
        &env.run(&["events", "--destination", "cms-w", "-o", "json"])
            .expect(0)
            .json(),
    );
    // Exactly each job's own history (as `jobs show` reads it), with its actors.
    let mut history = Vec::new();
    for j in &jobs {
        for e in env.events(j.id).await {
            history.push(e);
        }
    }
    history.sort_by_key(|e| (e.at, e.id));
    let got: Vec<(i64, &str, &str)> = listed
        .iter()
        .map(|e| {
            (
                e["id"].as_i64().unwrap(),
                e["actor"].as_str().unwrap(),
                e["action"].as_str().unwrap(),
            )
        })
        .collect();
    let want: Vec<(i64, &str, &str)> = history
        .iter()
        .map(|e| (e.id, e.actor.as_str(), e.action.as_str()))
        .collect();
    assert_eq!(got, want);
    let actors: BTreeSet<&str> = got.iter().map(|e| e.1).collect();
    assert_eq!(
        actors,
        ["publisher-1", "sweeper-3", "worker-8", "worker-9"]
            .into_iter()
            .collect()
    );
    for e in &listed {
        assert_eq!(e, &db_event(c, e["id"].as_i64().unwrap()).await);
        assert_eq!(e["destination"], "cms-w");
        assert!(e["xid"].as_u64().is_some(), "{e}");
    }
    assert_eq!(
        listed
            .iter()
            .filter(|e| e["action"] == "sweep_sent")
            .count(),
        1
    );
    // Each call of the worker API is its own transaction: as many xids as events.
    let xids: BTreeSet<u64> = listed.iter().map(|e| e["xid"].as_u64().unwrap()).collect();
    assert_eq!(xids.len(), listed.len());

    // A writer cannot forge the destination or the transaction of an event.
    let tx = env.connect().await;
    tx.batch_execute("BEGIN").await.unwrap();
    let row = tx
        .query_one(
            "INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, destination, xid)
             VALUES ($1, 'forger', 'renew', 'accepted', 'accepted', 4, 5, 'elsewhere', '1')
             RETURNING destination, xid::text, pg_current_xact_id()::text",
            &[&j1.id],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "cms-w");
    assert_eq!(row.get::<_, String>(1), row.get::<_, String>(2));
    tx.batch_execute("ROLLBACK").await.unwrap();
    // Nor write an event for a job that does not exist.
    let err = c
        .execute(
            "INSERT INTO job_events (job_id, actor, action, to_state, to_version) VALUES ($1, 'x', 'reserve', 'pending', 1)",
            &[&Uuid::new_v4()],
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Some(&tokio_postgres::error::SqlState::FOREIGN_KEY_VIOLATION)
    );
}

// ---------------------------------------------------------------------------------------
// Events written before V6
// ---------------------------------------------------------------------------------------

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Apply the migrations up to `version` only (a database as an older release left it).
pub(crate) async fn migrate_to(c: &mut Client, version: u32) {
    embedded::migrations::runner()
        .set_target(refinery::Target::Version(version))
        .run_async(c)
        .await
        .unwrap();
}

#[tokio::test]
async fn events_written_before_v6_keep_their_destination_after_it() {
    let env = TestEnv::empty().await;
    let mut c = env.connect().await;
    migrate_to(&mut c, 5).await;
    // History under V5: no xid, no destination on the events.
    let old_a = env.seed(Seed::new("old-a")).await;
    let old_b = env.seed(Seed::new("old-b").destination("cms-b")).await;
    // Today's claim also names V7's pause clock (see jobs::pause): lend it one for this
    // claim under V5, gone again before the later migrations run.
    c.batch_execute(
        "CREATE TABLE destination_pause_clock (one boolean PRIMARY KEY DEFAULT true); INSERT INTO destination_pause_clock DEFAULT VALUES",
    )
    .await
    .unwrap();
    let claimed = worker::claim(&c, "worker-old", Duration::from_secs(300), Some("cms-a"))
        .await
        .unwrap()
        .unwrap();
    c.batch_execute("DROP TABLE destination_pause_clock")
        .await
        .unwrap();
    assert_eq!(claimed.id, old_a.id);
    let before: Vec<i64> = env
        .client
        .query("SELECT id FROM job_events ORDER BY id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(before.len(), 3);

    let applied = env.run(&["migrate", "-o", "json"]).expect(0).json();
    assert_eq!(applied["applied"][0]["name"], "event_trail", "{applied}");
    let recorded: Vec<(i64, String)> = env
        .client
        .query(
            "SELECT id, destination FROM job_event_destinations ORDER BY id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let events_a: Vec<i64> = env.events(old_a.id).await.iter().map(|e| e.id).collect();
    let events_b: Vec<i64> = env.events(old_b.id).await.iter().map(|e| e.id).collect();
    let mut want: Vec<(i64, String)> = events_a
        .iter()
        .map(|id| (*id, "cms-a".to_string()))
        .chain(events_b.iter().map(|id| (*id, "cms-b".to_string())))
        .collect();
    want.sort();
    assert_eq!(recorded, want);
    // The log itself was not rewritten: those rows have no destination or xid of their own.
    assert_eq!(
        env.count("SELECT count(*) FROM job_events WHERE destination IS NULL AND xid IS NULL")
            .await,
        3
    );

    // New events, at both destinations.
    env.seed(Seed::new("new-a")).await;
    let j = worker::mark_sent(&c, &claimed).await.unwrap();
    worker::timed_out(&c, &j, "timeout").await.unwrap();
    let v = env
        .run(&["events", "--destination", "cms-a", "-o", "json"])
        .expect(0)
        .json();
    let listed = events_of(&v);
    let mut ids_a: Vec<i64> = env
        .client
        .query(
            "SELECT e.id FROM job_events e JOIN publication_jobs j ON j.id = e.job_id
             WHERE j.destination = 'cms-a' ORDER BY e.at, e.id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(ids_of(&listed), ids_a);
    assert_eq!(ids_a.len(), 2 + 1 + 2);
    for e in &listed {
        assert_eq!(e, &db_event(&env.client, e["id"].as_i64().unwrap()).await);
    }
    assert_eq!(listed[0]["xid"], Value::Null, "an event from before V6");
    assert!(listed.last().unwrap()["xid"].is_u64());
    // Combined with other filters, old and new alike.
    let v = env
        .run(&[
            "events",
            "--destination",
            "cms-a",
            "--actor",
            "worker-old",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    let worker_old: Vec<String> = events_of(&v)
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(worker_old, ["claim", "mark_sent", "timed_out"]);
    let v = env
        .run(&["events", "--destination", "cms-b", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(ids_of(&events_of(&v)), events_b);
    // --follow's history reads them too.
    let f = Follower::start(&env, &env.url, &["--since", "1h", "--destination", "cms-a"]);
    f.wait_for(ids_a.len(), Duration::from_secs(20)).await;
    let (code, _, lines) = f.interrupt();
    assert_eq!(code, 0);
    ids_a.sort();
    let mut printed = ids_of(&lines);
    printed.sort();
    assert_eq!(printed, ids_a);
}

// ---------------------------------------------------------------------------------------
// --follow
// ---------------------------------------------------------------------------------------

/// The follow state machine itself: a transaction that took its ids before the follower
/// started and commits last is printed (after the ones that committed before it), a large
/// transaction comes in batches, a rolled-back one never.
#[tokio::test]
async fn follow_prints_late_commits_drains_large_ones_and_never_rollbacks() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let job = env.seed(Seed::new("f1")).await;
    let insert = |actor: &str, n: i64| {
        format!(
            "INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
             SELECT '{}', '{actor}', 'renew', 'pending', 'pending', 1, 2 FROM generate_series(1, {n})",
            job.id
        )
    };
    let early = env.connect().await;
    early.batch_execute("BEGIN").await.unwrap();
    early.batch_execute(&insert("early", 2)).await.unwrap();

    let c = env.connect().await;
    let mut f = Follow::start(&c, EventFilter::default(), History::None)
        .await
        .unwrap()
        .with_batch(3);
    let mut steps = Vec::new();
    env.client
        .batch_execute(&insert("middle", 7))
        .await
        .unwrap();
    let rolled = env.connect().await;
    rolled
        .batch_execute(&format!("BEGIN; {}; ROLLBACK", insert("rolled", 5)))
        .await
        .unwrap();
    loop {
        let s = f.step(&c).await.unwrap();
        steps.push((
            s.events.iter().map(|e| e.actor.clone()).collect::<Vec<_>>(),
            s.more,
        ));
        if !s.more {
            break;
        }
    }
    let m = "middle".to_string();
    assert_eq!(
        steps,
        vec![
            (vec![m.clone(), m.clone(), m.clone()], true),
            (vec![m.clone(), m.clone(), m.clone()], true),
            (vec![m.clone()], false),
        ]
    );
    assert!(f.step(&c).await.unwrap().events.is_empty());
    early.batch_execute("COMMIT").await.unwrap();
    let late = f.step(&c).await.unwrap();
    assert_eq!(
        late.events
            .iter()
            .map(|e| e.actor.as_str())
            .collect::<Vec<_>>(),
        ["early", "early"]
    );
    let max_middle = env
        .count("SELECT max(id) FROM job_events WHERE actor = 'middle'")
        .await;
    assert!(
        late.events.iter().all(|e| e.id < max_middle),
        "they took their ids first"
    );
    assert!(f.step(&c).await.unwrap().events.is_empty());
    let seen: &Snapshot = f.seen();
    assert!(!seen.as_str().is_empty());

    // The same with a filter: only what matches, the rest is never read.
    let mut f = Follow::start(
        &c,
        EventFilter {
            actor: Some("late".into()),
            since: Some(Since::Ago(Duration::from_secs(60))),
            ..EventFilter::default()
        },
        History::None,
    )
    .await
    .unwrap();
    env.client.batch_execute(&insert("other", 3)).await.unwrap();
    env.client.batch_execute(&insert("late", 2)).await.unwrap();
    let s = f.step(&c).await.unwrap();
    assert_eq!(s.events.len(), 2);
    assert!(s.events.iter().all(|e| e.actor == "late"));
}

/// One writer of the storm: transactions of four moves each (reserve, claim, mark_sent, then
/// complete or timed_out) on jobs of its own destination; every 17th held open a second while
/// the others commit, every 11th rolled back (its actor says so).
async fn storm_writer(mut client: Client, w: usize, moves: usize) -> usize {
    let dest = format!("cms-w{w}");
    let lease = Duration::from_secs(300);
    let (mut done, mut i) = (0, 0);
    while done < moves {
        let rollback = i % 11 == 3;
        let hold = i % 17 == 5;
        let actor = if rollback {
            format!("rollback-{w}")
        } else {
            format!("worker-{w}")
        };
        let tx = client.transaction().await.unwrap();
        let key = BusinessKey::new(&format!("t{w}"), &format!("a{i}"), "1", &dest);
        worker::reserve(
            &tx,
            &key,
            &payload_hash(format!("{w}/{i}").as_bytes()),
            &actor,
        )
        .await
        .unwrap();
        let job = worker::claim(&tx, &actor, lease, Some(&dest))
            .await
            .unwrap()
            .expect("the job just reserved");
        let job = worker::mark_sent(&tx, &job).await.unwrap();
        if i % 2 == 0 {
            worker::complete(&tx, &job, "remote").await.unwrap();
        } else {
            worker::timed_out(&tx, &job, "timeout").await.unwrap();
        }
        done += 4;
        if hold {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        if rollback {
            tx.rollback().await.unwrap();
        } else {
            tx.commit().await.unwrap();
        }
        i += 1;
    }
    done
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn follow_prints_each_committed_event_once_under_a_writer_storm() {
    let env = TestEnv::new().await;
    let start: String = env
        .client
        .query_one(
            "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let follower = Follower::start(&env, &env.url, &["--since", &start]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut writers = Vec::new();
    for w in 0..4 {
        let client = env.connect().await;
        writers.push(tokio::spawn(storm_writer(client, w, 500)));
    }
    let mut moves = 0;
    for h in writers {
        moves += h.await.unwrap();
    }
    assert_eq!(moves, 2000);
    let committed: Vec<(i64, u64)> = env
        .client
        .query(
            "SELECT id, xid::text::bigint FROM job_events ORDER BY id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get::<_, i64>(1) as u64))
        .collect();
    assert!(
        committed.len() > 1500 && committed.len() < 2000,
        "{}",
        committed.len()
    );
    follower
        .wait_for(committed.len(), Duration::from_secs(30))
        .await;
    // Anything printed twice would come now.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (code, err, lines) = follower.interrupt();
    assert_eq!(code, 0, "{err}");
    let printed = ids_of(&lines);
    let mut sorted = printed.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        committed.iter().map(|c| c.0).collect::<Vec<_>>(),
        "each committed event exactly once"
    );
    assert!(lines
        .iter()
        .all(|e| !e["actor"].as_str().unwrap().starts_with("rollback-")));
    // A valid order: each transaction's events, and each job's, in id order (a job's moves
    // wait for each other's commits).
    let mut last_of: HashMap<String, i64> = HashMap::new();
    for e in &lines {
        let id = e["id"].as_i64().unwrap();
        for key in [format!("xid {}", e["xid"]), format!("job {}", e["job_id"])] {
            if let Some(prev) = last_of.insert(key.clone(), id) {
                assert!(prev < id, "{key}: {prev} printed before {id}");
            }
        }
    }
    // And the storm did make transactions commit after others that took later ids.
    assert!(
        printed.windows(2).any(|w| w[0] > w[1]),
        "no event was printed after one with a higher id"
    );
    assert_eq!(err, "");
}

async fn wait_for_session(env: &TestEnv, name: &str) {
    let start = Instant::now();
    loop {
        let n = env
            .count(&format!(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = '{name}'
                 AND query LIKE '%pg_current_snapshot%'"
            ))
            .await;
        if n > 0 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{name} never connected"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_resumes_after_its_backend_is_terminated() {
    let env = TestEnv::new().await;
    let lease = Duration::from_secs(300);
    env.seed(Seed::new("r1")).await;
    env.seed(Seed::new("r2")).await;
    let c = &env.client;
    let mut j1 = worker::claim(c, "worker-1", lease, None)
        .await
        .unwrap()
        .unwrap();
    let j2 = worker::claim(c, "worker-2", lease, None)
        .await
        .unwrap()
        .unwrap();
    let name = "events-follow-under-test";
    let follower = Follower::start(&env, &named(&env.url, name), &[]);
    wait_for_session(&env, name).await;
    let held = env.connect().await;
    let mut committed = Vec::new();
    for i in 0..30 {
        if i == 5 {
            // Takes its id now, commits after both reconnections.
            held.batch_execute("BEGIN").await.unwrap();
            let moved = worker::renew(&held, &j2, lease).await.unwrap();
            committed.push(moved.version);
        }
        if i == 10 || i == 20 {
            wait_for_session(&env, name).await;
            let killed = env
                .count(&format!(
                    "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE application_name = '{name}') t"
                ))
                .await;
            assert_eq!(killed, 1);
        }
        if i == 25 {
            held.batch_execute("COMMIT").await.unwrap();
        }
        j1 = worker::renew(c, &j1, lease).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let expected: Vec<i64> = env
        .client
        .query(
            "SELECT id FROM job_events WHERE action = 'renew' ORDER BY id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(expected.len(), 31);
    follower.wait_for(31, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (code, err, lines) = follower.interrupt();
    assert_eq!(code, 0, "{err}");
    let mut printed = ids_of(&lines);
    printed.sort();
    assert_eq!(printed, expected, "each event once across reconnections");
    assert_eq!(err.matches("reconnecting in").count(), 2, "{err}");
    assert_eq!(err.matches("reconnected").count(), 2, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_exits_1_when_the_database_is_gone_for_good() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let name = "events-follow-doomed";
    let follower = Follower::start(&env, &named(&env.url, name), &[]);
    wait_for_session(&env, name).await;
    let admin = connect_url(&admin_url()).await;
    admin
        .batch_execute(&format!("DROP DATABASE {} WITH (FORCE)", env.db_name))
        .await
        .unwrap();
    let (code, err, lines) = tokio::task::block_in_place(|| follower.finish());
    assert_eq!(code, 1, "{err}");
    // Nothing but the error, as every failure with -o jsonl prints it.
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["error"]["kind"], "runtime", "{lines:?}");
    assert!(err.contains("does not exist"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_ends_quietly_with_success_when_stdout_is_closed() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let job = env.seed(Seed::new("p1")).await;
    for format in ["jsonl", "table"] {
        let mut child = spawn(
            &env,
            &env.url,
            &["events", "--follow", "--since", "1h", "-o", format],
        );
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        drop(out); // `| head -1`
        env.client
            .execute(
                "INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
                 SELECT $1, 'after', 'renew', 'pending', 'pending', 1, 2 FROM generate_series(1, 50)",
                &[&job.id],
            )
            .await
            .unwrap();
        let output = tokio::task::block_in_place(|| child.wait_with_output().unwrap());
        assert_eq!(output.status.code(), Some(0), "{format}: {output:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{format}");
    }
}

/// A TCP proxy to the test server that can be cut and restored, to take the database away
/// from a follower without touching the server.
struct Proxy {
    addr: std::net::SocketAddr,
    tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Proxy {
    async fn start(addr: Option<std::net::SocketAddr>, upstream: String) -> Proxy {
        let listener =
            tokio::net::TcpListener::bind(addr.unwrap_or_else(|| "127.0.0.1:0".parse().unwrap()))
                .await
                .unwrap();
        let addr = listener.local_addr().unwrap();
        let tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let inner = tasks.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut down, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let conn = tokio::spawn(async move {
                    if let Ok(mut up) = tokio::net::TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut down, &mut up).await;
                    }
                });
                inner.lock().unwrap().push(conn);
            }
        });
        tasks.lock().unwrap().push(accept);
        Proxy { addr, tasks }
    }

    /// Every connection cut, and nothing listening.
    fn cut(&self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_rides_out_a_network_cut_and_exits_1_when_it_lasts() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("n1")).await;
    let c = &env.client;
    let mut j = worker::claim(c, "worker-1", Duration::from_secs(300), None)
        .await
        .unwrap()
        .unwrap();
    let server = url::Url::parse(&env.url).unwrap();
    let upstream = format!(
        "{}:{}",
        server.host_str().unwrap(),
        server.port().unwrap_or(5432)
    );
    let proxy = Proxy::start(None, upstream.clone()).await;
    let mut via = server.clone();
    via.set_port(Some(proxy.addr.port())).unwrap();
    let name = "events-follow-cut";
    let follower = Follower::start(&env, &named(via.as_str(), name), &[]);
    wait_for_session(&env, name).await;
    j = worker::renew(c, &j, Duration::from_secs(300))
        .await
        .unwrap();
    follower.wait_for(1, Duration::from_secs(10)).await;
    assert_eq!(follower.count(), 1);

    // Cut for three seconds; what commits meanwhile comes once it is back.
    proxy.cut();
    for _ in 0..3 {
        j = worker::renew(c, &j, Duration::from_secs(300))
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let restored = Proxy::start(Some(proxy.addr), upstream).await;
    follower.wait_for(4, Duration::from_secs(20)).await;
    assert_eq!(follower.count(), 4);

    // Cut for good: it tries for a minute, then says so and exits 1.
    restored.cut();
    let started = Instant::now();
    let (code, err, lines) = tokio::task::block_in_place(|| follower.finish());
    let took = started.elapsed();
    assert_eq!(code, 1, "{err}");
    // The four events, then the error (as -o jsonl prints every failure).
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[4]["error"]["code"], "connection_lost", "{lines:?}");
    assert!(
        took >= Duration::from_secs(55) && took < Duration::from_secs(80),
        "{took:?}"
    );
    assert!(err.contains("could not reconnect within 1m"), "{err}");
    assert!(err.contains("--since"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Every statement is an index range scan
// ---------------------------------------------------------------------------------------

/// Each Sort node of a plan: the rows the planner expects it to sort, and the relations
/// read below it.
fn sorts(plan: &Value, out: &mut Vec<(f64, Vec<String>)>) {
    if plan["Node Type"] == "Sort" {
        out.push((
            plan["Plan Rows"].as_f64().unwrap_or(f64::MAX),
            crate::plan::nodes(plan)
                .into_iter()
                .map(|n| n.relation)
                .filter(|r| !r.is_empty())
                .collect(),
        ));
    }
    if let Some(children) = plan["Plans"].as_array() {
        for c in children {
            sorts(c, out);
        }
    }
}

async fn explain(client: &Client, sql: &reconctl::jobs::query::Sql) -> Value {
    crate::plan::explain(client, &sql.text, &sql.params(), false).await
}

#[tokio::test]
async fn every_events_statement_is_an_index_range_scan_on_a_skewed_log() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let loader = env.connect().await;
    loader
        .batch_execute(
            "SET statement_timeout = 0;
             -- 40 000 jobs over 20 destinations, and 3 at a rare one (a log holds a few events
             -- per job: with fewer jobs, reading them all is a plan as good as any).
             INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
             SELECT 't', 'a' || i, '1', CASE WHEN i < 3 THEN 'cms-rare' ELSE 'cms-' || (i % 20) END,
                    'pub_' || encode(sha256(convert_to('j' || i, 'UTF8')), 'hex'),
                    encode(sha256(convert_to('p' || i, 'UTF8')), 'hex')
             FROM generate_series(0, 39999) AS i;
             CREATE TEMP TABLE ids AS SELECT row_number() OVER (ORDER BY article_id) - 1 AS n, id FROM publication_jobs;
             -- 60 000 events over 30 days as production has them: mostly worker moves by 40
             -- workers, a few thousand per other action (the sweep, reconcile, two operators).
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT ids.id, now() - make_interval(secs => (60000 - i) * 43.2),
                    CASE WHEN a.action LIKE 'mark%' THEN (ARRAY['alice', 'bob'])[1 + i % 2]
                         WHEN a.action LIKE 'sweep%' THEN 'sweeper'
                         WHEN a.action LIKE 'reconcile%' THEN 'reconcile'
                         ELSE 'worker-' || (i % 40) END,
                    a.action, 'pending', 'pending', 1, 2, NULL
             FROM generate_series(0, 59999) AS i
             JOIN ids ON ids.n = (i * 7919) % 40000,
             LATERAL (SELECT CASE
                 WHEN i % 100 < 30 THEN 'claim' WHEN i % 100 < 55 THEN 'renew'
                 WHEN i % 100 < 75 THEN 'mark_sent' WHEN i % 100 < 90 THEN 'complete'
                 WHEN i % 100 < 93 THEN 'timed_out' WHEN i % 100 < 95 THEN 'sweep_sent'
                 WHEN i % 100 < 97 THEN 'mark_accepted' WHEN i % 100 < 98 THEN 'reconcile_accepted'
                 WHEN i % 100 < 99 THEN 'mark_safe_to_retry' ELSE 'mark_failed' END AS action) a;
             -- 20 000 events from before V6, as a migrated database has them: no destination
             -- or xid of their own, their destination in job_event_destinations.
             SET session_replication_role = replica;
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, destination, xid)
             SELECT ids.id, now() - interval '40 days' - make_interval(secs => i * 60), 'worker-' || (i % 40),
                    'claim', 'pending', 'in_flight', 1, 2, NULL, NULL
             FROM generate_series(0, 19999) AS i JOIN ids ON ids.n = (i * 31) % 40000;
             SET session_replication_role = DEFAULT;
             DROP TABLE ids;
             INSERT INTO job_event_destinations (id, at, destination)
             SELECT e.id, e.at, j.destination FROM job_events e JOIN publication_jobs j ON j.id = e.job_id
             WHERE e.destination IS NULL;
             -- Pauses and resumes.
             INSERT INTO destination_events (destination, at, actor, action, reason)
             SELECT 'cms-' || (i % 20), now() - make_interval(secs => i * 3600),
                    'alice', (ARRAY['pause', 'resume'])[1 + i % 2], 'drill'
             FROM generate_series(0, 199) AS i;
",
        )
        .await
        .unwrap();
    for table in [
        "publication_jobs",
        "job_events",
        "job_event_destinations",
        "destination_events",
    ] {
        loader
            .batch_execute(&format!("VACUUM ANALYZE {table}"))
            .await
            .unwrap();
    }
    let some_job: Uuid = env
        .client
        .query_one("SELECT job_id FROM job_events LIMIT 1", &[])
        .await
        .unwrap()
        .get(0);
    let after = Some(events::Position {
        at: chrono::Utc::now() - chrono::Duration::days(20),
        id: 0,
    });
    let f = |edit: &dyn Fn(&mut EventFilter)| {
        let mut filter = EventFilter::default();
        edit(&mut filter);
        filter
    };
    let filters: Vec<(&str, EventFilter, &[&str])> = vec![
        ("events", f(&|_| {}), &["ix_job_events_at"]),
        (
            "--since 1h",
            f(&|x| x.since = Some(Since::Ago(Duration::from_secs(3600)))),
            &["ix_job_events_at"],
        ),
        (
            "--since --until",
            f(&|x| {
                x.since = Some(Since::At(chrono::Utc::now() - chrono::Duration::days(3)));
                x.until = Some(Since::At(chrono::Utc::now() - chrono::Duration::days(2)));
            }),
            &["ix_job_events_at"],
        ),
        (
            "--actor worker-3",
            f(&|x| x.actor = Some("worker-3".into())),
            &["ix_job_events_actor"],
        ),
        (
            "--actor alice",
            f(&|x| x.actor = Some("alice".into())),
            &["ix_job_events_actor"],
        ),
        // A third of the log: walking it in order and skipping the rest is as good.
        ("--action claim", f(&|x| x.actions = vec!["claim"]), &[]),
        (
            "--action mark_failed",
            f(&|x| x.actions = vec!["mark_failed"]),
            &["ix_job_events_action"],
        ),
        (
            "--action renew --action mark_failed --action pause",
            f(&|x| x.actions = vec!["renew", "mark_failed", "pause"]),
            &["ix_job_events_action"],
        ),
        (
            "--destination cms-3",
            f(&|x| x.destination = Some("cms-3".into())),
            &[
                "ix_job_events_destination",
                "ix_job_event_destinations_destination",
            ],
        ),
        (
            "--destination cms-rare",
            f(&|x| x.destination = Some("cms-rare".into())),
            &[
                "ix_job_events_destination",
                "ix_job_event_destinations_destination",
            ],
        ),
        (
            "--destination cms-3 --actor worker-3 --since 1d",
            f(&|x| {
                x.destination = Some("cms-3".into());
                x.actor = Some("worker-3".into());
                x.since = Some(Since::Ago(Duration::from_secs(86_400)));
            }),
            &[],
        ),
        (
            "--job",
            f(&|x| x.job = Some(some_job)),
            &["ix_job_events_job"],
        ),
    ];
    let snapshot: String = env
        .client
        .query_one("SELECT pg_current_snapshot()::text", &[])
        .await
        .unwrap()
        .get(0);
    let seen = Snapshot::parse(&snapshot).unwrap();
    for (name, filter, indexes) in &filters {
        let mut statements = vec![
            (
                name.to_string(),
                events::page_sql(filter, None, 50, None),
                true,
            ),
            (
                format!("{name} (page 2)"),
                events::page_sql(filter, after, 50, None),
                true,
            ),
            (
                format!("{name} (--follow history)"),
                events::page_sql(filter, after, 50, Some(&snapshot)),
                true,
            ),
            (
                format!("{name} (--follow)"),
                events::delta_sql(filter, &seen, None, None, 1000),
                false,
            ),
        ];
        if filter.job.is_some() {
            // One job's few events, sorted: never more than that job has.
            for s in &mut statements {
                s.2 = false;
            }
        }
        for (label, sql, no_sort) in &statements {
            let plan = crate::plan::by_parents(&env.client, explain(&env.client, sql).await).await;
            let nodes = crate::plan::nodes(&plan);
            for crate::plan::Node {
                kind: node,
                relation,
                ..
            } in &nodes
            {
                assert!(
                    !(node == "Seq Scan"
                        && ["publication_jobs", "job_events", "job_event_destinations"]
                            .contains(&relation.as_str())),
                    "{label}: a sequential scan of {relation}:\n{plan:#}\n{}",
                    sql.text
                );
            }
            if *no_sort {
                // A range read in order; or, when the planner knows the range holds only a
                // few rows (a rare destination), those rows sorted: never the log.
                let mut found = Vec::new();
                sorts(&plan, &mut found);
                for (rows, relations) in &found {
                    assert!(
                        *rows <= 200.0 || relations.iter().all(|r| r == "destination_events"),
                        "{label}: sorts {rows} rows of {relations:?}:\n{plan:#}"
                    );
                }
                for ix in *indexes {
                    assert!(
                        nodes.iter().any(|n| n.index == *ix),
                        "{label}: {ix} not used:\n{plan:#}"
                    );
                }
            } else if label.ends_with("(--follow)") {
                // (One job's few events may as well be read by job, and a rare
                // destination's few by destination: what matters is that no index range
                // the planner reads holds more than a few rows.)
                assert!(
                    nodes.iter().any(|n| n.index == "ix_job_events_xid"
                        || (filter.job.is_some() && n.index == "ix_job_events_job"))
                        || nodes
                            .iter()
                            .filter(|n| !n.index.is_empty())
                            .all(|n| n.rows <= 200.0),
                    "{label}: the delta is not read by xid:\n{plan:#}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// --last, --until DUR (issue 23, item 15); --since fixed while following (issue 24, item 3)
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn item_23_15_last_n_is_the_newest_n_oldest_first_and_until_takes_a_duration() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let t = trail(&env).await;
    let all = events_of(
        &env.run(&["events", "--limit", "100", "-o", "json"])
            .expect(0)
            .json(),
    );
    assert_eq!(all.len(), t.events.len());
    let tail = |events: &[Value], n: usize| events[events.len().saturating_sub(n)..].to_vec();

    // The newest 3, printed oldest first; no cursor (there is nothing newer to page to).
    let v = env
        .run(&["events", "--last", "3", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": tail(&all, 3), "next_cursor": null}));
    // More than there are: all of them.
    let v = env
        .run(&["events", "--last", "500", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": all, "next_cursor": null}));
    // With filters: the newest that match.
    let alice: Vec<Value> = all
        .iter()
        .filter(|e| e["actor"] == "alice")
        .cloned()
        .collect();
    let v = env
        .run(&["events", "--last", "2", "--actor", "alice", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": tail(&alice, 2), "next_cursor": null}));
    let pauses: Vec<Value> = all
        .iter()
        .filter(|e| e["action"] == "pause" || e["action"] == "mark_failed")
        .cloned()
        .collect();
    let v = env
        .run(&[
            "events",
            "--last",
            "2",
            "--action",
            "pause",
            "--action",
            "mark-failed",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": tail(&pauses, 2), "next_cursor": null}));
    // jsonl: one event a line, the same ones.
    let lines: Vec<Value> = env
        .run(&["events", "--last", "4", "-o", "jsonl"])
        .expect(0)
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, tail(&all, 4));

    // --until 1h: the crafted events (2024) only, not the seeds' (written now); --since 1h
    // the other way round; together they are the whole log.
    let crafted: Vec<Value> = all
        .iter()
        .filter(|e| e["at"].as_str().unwrap().starts_with("2024-"))
        .cloned()
        .collect();
    let recent: Vec<Value> = all
        .iter()
        .filter(|e| !e["at"].as_str().unwrap().starts_with("2024-"))
        .cloned()
        .collect();
    assert!(!crafted.is_empty() && !recent.is_empty());
    let v = env
        .run(&["events", "--until", "1h", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": crafted, "next_cursor": null}));
    let v = env
        .run(&["events", "--since", "1h", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": recent, "next_cursor": null}));
    let v = env
        .run(&["events", "--until", "1h", "--last", "2", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v, json!({"events": tail(&crafted, 2), "next_cursor": null}));
    // A time still works as before.
    let v = env
        .run(&["events", "--until", "2024-05-01T10:03:00Z", "-o", "json"])
        .expect(0)
        .json();
    let before: Vec<Value> = crafted
        .iter()
        .filter(|e| e["at"].as_str().unwrap() < "2024-05-01T10:03:00")
        .cloned()
        .collect();
    assert_eq!(v, json!({"events": before, "next_cursor": null}));

    // --follow --last 2: those two, then what commits.
    let f = Follower::start(&env, &env.url, &["--last", "2"]);
    f.wait_for(2, Duration::from_secs(10)).await;
    let fresh = env.seed(Seed::new("after-last")).await;
    f.wait_for(3, Duration::from_secs(10)).await;
    let (code, err, printed) = f.interrupt();
    assert_eq!(code, 0, "{err}");
    assert_eq!(printed.len(), 3, "{printed:?}");
    assert_eq!(printed[..2], tail(&all, 2)[..]);
    assert_eq!(printed[2]["job_id"], json!(fresh.id.to_string()));
}

/// `--follow --since 2s` fixed its bound when it started: an event whose transaction began
/// after the start, but committed more than 2s after it began, is printed (it was dropped when
/// the bound moved with every poll).
#[tokio::test]
async fn item_24_3_follow_since_is_fixed_when_the_command_starts() {
    let mut env = TestEnv::new().await;
    env.skip_invariants = true;
    let job = env.seed(Seed::new("slow")).await;
    let f = Follower::start(&env, &env.url, &["--since", "2s"]);
    // Let the follower start (and print the seed's reserve event, from its history).
    f.wait_for(1, Duration::from_secs(10)).await;
    let writer = env.connect().await;
    writer.batch_execute("BEGIN").await.unwrap();
    writer
        .execute(
            "INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
             VALUES ($1, 'slow-writer', 'renew', 'pending', 'pending', 1, 2)",
            &[&job.id],
        )
        .await
        .unwrap();
    // The transaction (and so the event's `at`) began now; it commits 3.5s later.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    writer.batch_execute("COMMIT").await.unwrap();
    f.wait_for(2, Duration::from_secs(10)).await;
    let (code, err, printed) = f.interrupt();
    assert_eq!(code, 0, "{err}");
    let actors: Vec<&str> = printed
        .iter()
        .map(|e| e["actor"].as_str().unwrap())
        .collect();
    assert_eq!(actors, ["seed", "slow-writer"], "{printed:?}");
}
