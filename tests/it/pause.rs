//! Pausing a destination (SPEC §6): claims skip it (also racing a pause, also as a foreign
//! worker writes the predicate), a pause ends by itself at its `until`, every pause, change,
//! resume and expiry is recorded exactly once, consent and exit codes are `mark`'s, the roles
//! hold, and everyone sees the pause (status, lists, metrics, check, doctor), at 80 columns.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reconctl::jobs::pause::{self, DestinationEvent, NOT_PAUSED};
use reconctl::jobs::worker;
use reconctl::jobs::{Job, State};
use serde_json::{json, Value};
use tokio_postgres::Client;

use crate::harness::*;
use crate::plan;
use crate::reliability::roles::LoginUser;

use State::*;

/// SPEC §6's predicate, copied from the contract (not from the code).
const SPEC_PREDICATE: &str = "NOT EXISTS (SELECT 1 FROM destination_pauses p WHERE p.destination = j.destination AND (p.until IS NULL OR p.until > now()))";

const LEASE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Pause through the library, committed.
async fn pause_now(c: &mut Client, destination: &str, reason: &str, for_: Option<Duration>) {
    let tx = c.transaction().await.unwrap();
    pause::pause(&tx, destination, reason, for_, "tester")
        .await
        .unwrap();
    tx.commit().await.unwrap();
}

async fn resume_now(c: &Client, destination: &str) {
    pause::resume(c, destination, "back", "tester")
        .await
        .unwrap();
}

/// `n` pending jobs in one statement, each with its creation event (the harness invariants
/// hold): destination `destinations[i % len]`, created and waiting oldest first, interleaved.
async fn bulk_pending(client: &Client, prefix: &str, n: i64, destinations: &[&str]) {
    let ds: Vec<String> = destinations.iter().map(|d| d.to_string()).collect();
    client
        .execute(
            "WITH j AS (
               INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                   external_ref, payload_hash, state, created_at, updated_at, state_changed_at)
               SELECT 'bulk', $1 || i, '1', ($3::text[])[1 + (i % array_length($3::text[], 1))::int],
                      'pub_' || encode(sha256(convert_to($1 || ':' || i, 'UTF8')), 'hex'),
                      encode(sha256(convert_to('payload ' || i, 'UTF8')), 'hex'),
                      'pending', t.at, t.at, t.at
               FROM generate_series(0::bigint, $2::bigint - 1) AS i,
                    LATERAL (SELECT now() - make_interval(secs => ($2::bigint - i)::float8) AS at) t
               RETURNING id, state, version, state_changed_at
             )
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, state_changed_at, 'seed', 'seed', NULL, state, NULL, version, 'bulk fixture'
             FROM j ORDER BY state_changed_at",
            &[&prefix, &n, &ds],
        )
        .await
        .expect("bulk insert");
}

/// Every row of destination_events, oldest first.
async fn destination_events(c: &Client) -> Vec<DestinationEvent> {
    let rows = c
        .query(
            "SELECT id, destination, at, actor, action, reason, until, evidence \
             FROM destination_events ORDER BY id",
            &[],
        )
        .await
        .unwrap();
    rows.iter()
        .map(|r| DestinationEvent {
            id: r.get(0),
            destination: r.get(1),
            at: r.get(2),
            actor: r.get(3),
            action: r.get(4),
            reason: r.get(5),
            until: r.get(6),
            evidence: r.get(7),
        })
        .collect()
}

/// Events as JSON with their ids, times and durations replaced by what they are (ids must
/// grow, times be RFC 3339 UTC), so that the document can be compared exactly.
fn redact_events(events: &[DestinationEvent]) -> Value {
    let mut last = 0;
    let mut out = Vec::new();
    for e in events {
        assert!(e.id > last, "ids grow: {} after {last}", e.id);
        last = e.id;
        let mut v = serde_json::to_value(e).unwrap();
        v["id"] = json!("<id>");
        redact_times(&mut v);
        out.push(v);
    }
    Value::Array(out)
}

fn redact_times(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match (k.as_str(), &*x) {
                    ("at" | "since" | "until", Value::String(s)) => {
                        // Ours end in Z; PostgreSQL's own (in evidence) in +00:00.
                        assert!(
                            chrono::DateTime::parse_from_rfc3339(s).is_ok()
                                && (s.ends_with('Z') || s.ends_with("+00:00")),
                            "{k}: {s}"
                        );
                        *x = json!("<time>");
                    }
                    _ => redact_times(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_times),
        _ => {}
    }
}

async fn pause_rows(c: &Client) -> i64 {
    c.query_one("SELECT count(*) FROM destination_pauses", &[])
        .await
        .unwrap()
        .get(0)
}

/// Wait until some session waits for a lock on `destination_pauses` (or fail after 10s).
async fn until_someone_waits_for_the_pause_lock(c: &Client) {
    for _ in 0..1000 {
        let waiting: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_locks l JOIN pg_class r ON r.oid = l.relation \
                 WHERE r.relname = 'destination_pauses' AND NOT l.granted",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        if waiting > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("nobody waited for the lock on destination_pauses");
}

fn config(env: &TestEnv, names: &[&str]) -> String {
    let mut toml = String::new();
    for n in names {
        toml.push_str(&format!(
            "[destinations.{n}]\nlookup_url = \"http://127.0.0.1:9/articles?ref={{ref}}\"\n\n"
        ));
    }
    env.write_config(&toml)
}

/// Lines with trailing spaces removed (tables pad their last column).
fn tidy(text: &str) -> String {
    crate::harness::mask_uuids(text)
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------------------
// Claims skip a paused destination
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn claim_skips_a_paused_destination_until_it_is_resumed() {
    let env = TestEnv::new().await;
    let mut c = env.connect().await;
    // cms-a's job is the oldest: an unpaused claim would take it first.
    let a = env.seed(Seed::new("a1").aged(600)).await;
    let b = env
        .seed(Seed::new("b1").destination("cms-b").aged(60))
        .await;
    pause_now(&mut c, "cms-a", "CMS answers 503", None).await;

    assert_eq!(
        worker::claim(&env.client, "w1", LEASE, Some("cms-a"))
            .await
            .unwrap(),
        None,
        "a claim for the paused destination gets nothing"
    );
    let got = worker::claim(&env.client, "w1", LEASE, None)
        .await
        .unwrap()
        .expect("the other destination's job");
    assert_eq!(got.id, b.id);
    assert_eq!(
        worker::claim(&env.client, "w1", LEASE, None).await.unwrap(),
        None,
        "nothing else is claimable: the paused job waits"
    );
    assert_eq!(env.job(a.id).await.state, Pending);

    resume_now(&c, "cms-a").await;
    let got = worker::claim(&env.client, "w1", LEASE, None)
        .await
        .unwrap()
        .expect("claimable again");
    assert_eq!(got.id, a.id);
}

#[tokio::test]
async fn the_claim_statement_carries_the_spec_predicate_word_for_word() {
    assert_eq!(NOT_PAUSED, SPEC_PREDICATE);
    let sql = worker::claim_sql();
    assert!(sql.contains(SPEC_PREDICATE), "{sql}");
    // In the one statement that picks, moves and records: no second round trip. (The
    // second mention is the same predicate for a claim of one destination, on `$1`.)
    assert_eq!(sql.matches("destination_pauses").count(), 2, "{sql}");
    assert!(
        sql.contains(&format!("($1::text IS NOT NULL OR {SPEC_PREDICATE})")),
        "{sql}"
    );
    assert!(sql.contains("FOR UPDATE OF j SKIP LOCKED"), "{sql}");
}

/// A worker outside this crate, with its own claim statement and SPEC §6's predicate.
#[tokio::test]
async fn a_foreign_worker_with_the_spec_predicate_never_claims_a_paused_destination() {
    let env = TestEnv::new().await;
    let mut c = env.connect().await;
    bulk_pending(&env.client, "f", 30, &["cms-a", "cms-b", "cms-c"]).await;
    pause_now(&mut c, "cms-b", "maintenance", None).await;
    let foreign = format!(
        "WITH c AS (
            SELECT j.id FROM publication_jobs j
            WHERE j.state IN ('pending', 'safe_to_retry') AND {SPEC_PREDICATE}
            ORDER BY j.state_changed_at LIMIT 1
            FOR UPDATE SKIP LOCKED
         ), m AS (
            UPDATE publication_jobs u SET state = 'in_flight', version = u.version + 1,
                   attempts = u.attempts + 1, lease_owner = 'foreign-1',
                   lease_expires_at = now() + interval '1 minute', sent_at = NULL,
                   updated_at = now(), state_changed_at = now()
            FROM c WHERE u.id = c.id RETURNING u.*
         ), e AS (
            INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
            SELECT id, 'foreign-1', 'claim', 'pending', 'in_flight', version - 1, version FROM m
         )
         SELECT destination FROM m"
    );
    let mut claimed = BTreeMap::new();
    loop {
        let rows = env.client.query(&foreign, &[]).await.unwrap();
        let Some(row) = rows.first() else { break };
        *claimed.entry(row.get::<_, String>(0)).or_insert(0) += 1;
    }
    assert_eq!(
        claimed,
        BTreeMap::from([("cms-a".to_string(), 10), ("cms-c".to_string(), 10)])
    );
    let waiting = env
        .count("SELECT count(*) FROM publication_jobs WHERE destination = 'cms-b' AND state = 'pending'")
        .await;
    assert_eq!(waiting, 10);
}

// ---------------------------------------------------------------------------------------
// Racing a pause
// ---------------------------------------------------------------------------------------

/// A claim in progress when the pause is made commits first (the pause waits for it) and its
/// job finishes as usual; a claim made while the pause is committing waits and then sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_racing_a_pause_commits_before_it_or_sees_it() {
    let env = TestEnv::new().await;
    let a1 = env.seed(Seed::new("a1").aged(900)).await;
    let a2 = env.seed(Seed::new("a2").aged(800)).await;
    let a3 = env.seed(Seed::new("a3").aged(700)).await;
    let b1 = env
        .seed(Seed::new("b1").destination("cms-b").aged(600))
        .await;

    // 1. A claim committed before the pause: in flight, and it finishes normally.
    let before = worker::claim(&env.client, "w-early", LEASE, Some("cms-a"))
        .await
        .unwrap()
        .expect("a1");
    assert_eq!(before.id, a1.id);

    // 2. A claim in progress (its transaction open) when the pause starts: the pause waits
    //    for it, so it commits before the pause.
    let mut worker_conn = env.connect().await;
    let tx = worker_conn.transaction().await.unwrap();
    let racing = worker::claim(&tx, "w-racing", LEASE, Some("cms-a"))
        .await
        .unwrap()
        .expect("a2");
    assert_eq!(racing.id, a2.id);
    let url = env.url.clone();
    let pausing = tokio::spawn(async move {
        let mut c = connect_url(&url).await;
        let tx = c.transaction().await.unwrap();
        let p = pause::pause(&tx, "cms-a", "CMS answers 503", None, "tester")
            .await
            .unwrap();
        tx.commit().await.unwrap();
        p
    });
    until_someone_waits_for_the_pause_lock(&env.client).await;
    assert!(!pausing.is_finished(), "the pause waits for the claim");
    tx.commit().await.unwrap();
    let paused = pausing.await.unwrap();
    let claim_event_id = env
        .events(a2.id)
        .await
        .iter()
        .find(|e| e.action == "claim")
        .unwrap()
        .id;
    assert!(
        claim_event_id < paused.event.id,
        "the racing claim is recorded before the pause"
    );

    // Nothing of cms-a after the pause; cms-b still.
    assert_eq!(
        worker::claim(&env.client, "w-late", LEASE, Some("cms-a"))
            .await
            .unwrap(),
        None
    );

    // 3. A claim made while a pause is committing waits for it, then sees it.
    resume_now(&env.client, "cms-a").await;
    let mut pauser = env.connect().await;
    let ptx = pauser.transaction().await.unwrap();
    pause::pause(&ptx, "cms-a", "again", None, "tester")
        .await
        .unwrap();
    let url = env.url.clone();
    let claiming = tokio::spawn(async move {
        let c = connect_url(&url).await;
        worker::claim(&c, "w-blocked", LEASE, Some("cms-a"))
            .await
            .unwrap()
    });
    until_someone_waits_for_the_pause_lock(&env.client).await;
    assert!(!claiming.is_finished(), "the claim waits for the pause");
    ptx.commit().await.unwrap();
    assert_eq!(
        claiming.await.unwrap(),
        None,
        "its snapshot is taken after the wait: it sees the pause"
    );
    assert_eq!(env.job(a3.id).await.state, Pending);
    let other = worker::claim(&env.client, "w-b", LEASE, None)
        .await
        .unwrap()
        .expect("cms-b is not paused");
    assert_eq!(other.id, b1.id);

    // In-flight jobs of the paused destination finish or time out as usual.
    let j = worker::renew(&env.client, &before, LEASE).await.unwrap();
    let j = worker::mark_sent(&env.client, &j).await.unwrap();
    let j = worker::complete(&env.client, &j, "r-1").await.unwrap();
    assert_eq!(j.state, Accepted);
    let r = env.job(a2.id).await;
    let r = worker::mark_sent(&env.client, &r).await.unwrap();
    assert_eq!(
        worker::timed_out(&env.client, &r, "timeout")
            .await
            .unwrap()
            .state,
        Uncertain
    );
    let o = worker::fail(&env.client, &other, "422").await.unwrap();
    assert_eq!(o.state, Failed);
}

/// 8 workers claiming on their own connections while the pause of cms-a flips 50 times. The
/// claim events and the pause events draw their ids from one sequence, and a pause takes its
/// id only after it holds the lock every claim conflicts with; so a claim whose id falls
/// between a pause's id and the following resume's was granted after that pause committed.
/// There must be none.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_workers_never_get_a_paused_job_while_the_pause_flips_fifty_times() {
    let env = TestEnv::new().await;
    {
        let loader = env.connect().await;
        loader
            .batch_execute("SET statement_timeout = 0")
            .await
            .unwrap();
        bulk_pending(&loader, "flip-", 20_000, &["cms-a", "cms-b", "cms-c"]).await;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let claims = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::new();
    for w in 0..8 {
        let (url, stop, claims) = (env.url.clone(), stop.clone(), claims.clone());
        workers.push(tokio::spawn(async move {
            let c = connect_url(&url).await;
            let owner = format!("worker-{w}");
            while !stop.load(Ordering::Relaxed) {
                match worker::claim(&c, &owner, LEASE, None).await.unwrap() {
                    Some(job) => {
                        claims.fetch_add(1, Ordering::Relaxed);
                        // Whatever was claimed finishes normally, paused or not.
                        worker::complete(&c, &job, "r").await.unwrap();
                    }
                    None => tokio::time::sleep(Duration::from_millis(1)).await,
                }
            }
        }));
    }
    let mut flipper = env.connect().await;
    for i in 0..50 {
        pause_now(&mut flipper, "cms-a", &format!("flip {i}"), None).await;
        tokio::time::sleep(Duration::from_millis(15)).await;
        resume_now(&flipper, "cms-a").await;
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.await.unwrap();
    }

    let events = destination_events(&env.client).await;
    let actions: Vec<&str> = events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions.len(), 100, "one event per pause and per resume");
    assert!(
        actions.chunks(2).all(|p| p == ["pause", "resume"]),
        "{actions:?}"
    );
    // Paused between each pause's id and the next resume's.
    let windows: Vec<(i64, i64)> = events.chunks(2).map(|p| (p[0].id, p[1].id)).collect();
    let rows = env
        .client
        .query(
            "SELECT e.id, j.destination FROM job_events e JOIN publication_jobs j ON j.id = e.job_id \
             WHERE e.action = 'claim' ORDER BY e.id",
            &[],
        )
        .await
        .unwrap();
    let claimed: Vec<(i64, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let violations: Vec<&(i64, String)> = claimed
        .iter()
        .filter(|(id, d)| d == "cms-a" && windows.iter().any(|(p, r)| p < id && id < r))
        .collect();
    assert!(
        violations.is_empty(),
        "claims of cms-a granted while it was paused: {violations:?}"
    );
    // The test means something: workers claimed throughout, cms-a too (between pauses), and
    // other destinations during the pauses.
    let total = claims.load(Ordering::Relaxed) as usize;
    assert_eq!(total, claimed.len());
    let of_a = claimed.iter().filter(|(_, d)| d == "cms-a").count();
    let during = claimed
        .iter()
        .filter(|(id, _)| windows.iter().any(|(p, r)| p < id && id < r))
        .count();
    assert!(total > 300, "only {total} claims");
    assert!(of_a > 20, "only {of_a} claims of cms-a");
    assert!(during > 50, "only {during} claims during pauses");
}

// ---------------------------------------------------------------------------------------
// Expiry
// ---------------------------------------------------------------------------------------

/// `--for` ends a pause by the predicate alone, judged at the claim's transaction start;
/// the first command that notices records the expiry, once, however many notice together.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_pause_for_a_while_ends_at_its_until_and_its_expiry_is_recorded_once() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("a1")).await;
    let mut c = env.connect().await;
    pause_now(
        &mut c,
        "cms-a",
        "short maintenance",
        Some(Duration::from_secs(2)),
    )
    .await;
    let until: chrono::DateTime<chrono::Utc> = env
        .client
        .query_one("SELECT until FROM destination_pauses", &[])
        .await
        .unwrap()
        .get(0);

    // A transaction that began before `until` still sees the pause in force after it.
    let mut early = env.connect().await;
    let tx = early.transaction().await.unwrap();
    let started: chrono::DateTime<chrono::Utc> =
        tx.query_one("SELECT now()", &[]).await.unwrap().get(0);
    assert!(started < until);
    loop {
        let past: bool = env
            .client
            .query_one("SELECT clock_timestamp() > $1", &[&until])
            .await
            .unwrap()
            .get(0);
        if past {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        worker::claim(&tx, "w1", LEASE, Some("cms-a"))
            .await
            .unwrap(),
        None,
        "judged at its transaction's start, before until"
    );
    tx.rollback().await.unwrap();

    // A claim after `until` takes the job, before anyone recorded the expiry.
    assert_eq!(pause_rows(&env.client).await, 1);
    let got = worker::claim(&env.client, "w1", LEASE, Some("cms-a"))
        .await
        .unwrap()
        .expect("the pause is over");
    assert_eq!(got.id, job.id);
    worker::complete(&env.client, &got, "r-1").await.unwrap();

    // Eight commands notice at once: one expiry is recorded.
    let mut noticers = Vec::new();
    for _ in 0..8 {
        let url = env.url.clone();
        noticers.push(tokio::spawn(async move {
            let c = connect_url(&url).await;
            pause::observe(&c, "noticer").await.unwrap()
        }));
    }
    let mut recorded = 0;
    for n in noticers {
        let seen = n.await.unwrap();
        assert!(seen.in_force.is_empty() && seen.expired.is_empty());
        recorded += seen.recorded.len();
    }
    assert_eq!(recorded, 1);
    let events = destination_events(&env.client).await;
    let actions: Vec<&str> = events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["pause", "expire"]);
    assert_eq!(pause_rows(&env.client).await, 0);

    // The same through the commands, five times: status, destination list, metrics and
    // check noticing together record each expiry once.
    for round in 0..5 {
        pause_now(
            &mut c,
            "cms-a",
            &format!("round {round}"),
            Some(Duration::from_secs(1)),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let runs: Vec<std::process::Child> = [
            vec!["status"],
            vec!["destination", "list"],
            vec!["metrics"],
            vec!["check", "--max-uncertain", "100"],
        ]
        .into_iter()
        .map(|args| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("reconctl"))
                .env_clear()
                .env("DATABASE_URL", &env.url)
                .env("RECONCTL_ACTOR", "tester")
                .env("HOME", env.dir.path())
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
        for mut r in runs {
            assert!(r.wait().unwrap().success());
        }
    }
    let expiries = env
        .count("SELECT count(*) FROM destination_events WHERE action = 'expire'")
        .await;
    assert_eq!(expiries, 6);
    assert_eq!(pause_rows(&env.client).await, 0);
}

// ---------------------------------------------------------------------------------------
// The audit record
// ---------------------------------------------------------------------------------------

/// Every pause, change of a pause, resume and expiry is exactly one row, with who, why and
/// what ended; a resume that changes nothing and a dry run write none.
#[tokio::test]
async fn every_pause_change_resume_and_expiry_is_recorded_exactly_once() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    env.seed(Seed::new("b1").destination("cms-b")).await;
    let run = |args: &[&str]| env.run(args);
    run(&[
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "CMS answers 503",
        "--yes",
        "--actor",
        "alice",
    ])
    .expect(0);
    run(&[
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "vendor ticket 4711",
        "--for",
        "2h",
        "--yes",
        "--actor",
        "bob",
    ])
    .expect(0);
    run(&[
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "would be a third",
        "--dry-run",
    ])
    .expect(0);
    run(&[
        "destination",
        "resume",
        "cms-a",
        "--reason",
        "CMS healthy",
        "--yes",
        "--actor",
        "carol",
    ])
    .expect(0);
    run(&[
        "destination",
        "resume",
        "cms-a",
        "--reason",
        "again",
        "--yes",
    ])
    .expect(0);
    run(&[
        "destination",
        "pause",
        "cms-b",
        "--reason",
        "flaky",
        "--for",
        "1s",
        "--yes",
    ])
    .expect(0);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    run(&["status", "--actor", "cron"]).expect(0);
    run(&["status"]).expect(0);

    let events = destination_events(&env.client).await;
    let at_least_2h = events[1].until.unwrap() - events[1].at;
    assert!(at_least_2h >= chrono::Duration::hours(2), "{at_least_2h}");
    assert_eq!(
        redact_events(&events),
        json!([
            {"id": "<id>", "destination": "cms-a", "at": "<time>", "actor": "alice",
             "action": "pause", "reason": "CMS answers 503", "until": null,
             "evidence": {"for_seconds": null}},
            {"id": "<id>", "destination": "cms-a", "at": "<time>", "actor": "bob",
             "action": "repause", "reason": "vendor ticket 4711", "until": "<time>",
             "evidence": {"for_seconds": 7200,
                          "previous": {"actor": "alice", "reason": "CMS answers 503", "until": null}}},
            {"id": "<id>", "destination": "cms-a", "at": "<time>", "actor": "carol",
             "action": "resume", "reason": "CMS healthy", "until": null,
             "evidence": {"paused_by": "bob", "reason": "vendor ticket 4711", "since": "<time>", "until": "<time>"}},
            {"id": "<id>", "destination": "cms-b", "at": "<time>", "actor": "tester",
             "action": "pause", "reason": "flaky", "until": "<time>",
             "evidence": {"for_seconds": 1}},
            {"id": "<id>", "destination": "cms-b", "at": "<time>", "actor": "cron",
             "action": "expire", "reason": null, "until": null,
             "evidence": {"paused_by": "tester", "reason": "flaky", "since": "<time>", "until": "<time>"}},
        ])
    );
    // The log is append-only, pauses included.
    for sql in [
        "UPDATE destination_events SET reason = 'x'",
        "DELETE FROM destination_events",
        "TRUNCATE destination_events",
    ] {
        assert!(env.client.batch_execute(sql).await.is_err(), "{sql}");
    }
}

// ---------------------------------------------------------------------------------------
// Consent, input, exit codes
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn without_a_terminal_pause_and_resume_need_yes_and_change_nothing() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    let out = env
        .run(&[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "503s",
            "-o",
            "json",
        ])
        .expect(2);
    assert_eq!(out.json()["error"]["code"], "confirmation_required");
    assert!(out.stderr().contains("--yes"), "{}", out.stderr());
    assert_eq!(pause_rows(&env.client).await, 0);
    assert!(destination_events(&env.client).await.is_empty());

    env.run(&["destination", "pause", "cms-a", "--reason", "503s", "--yes"])
        .expect(0);
    let out = env
        .run(&[
            "destination",
            "resume",
            "cms-a",
            "--reason",
            "ok",
            "-o",
            "json",
        ])
        .expect(2);
    assert_eq!(out.json()["error"]["code"], "confirmation_required");
    assert_eq!(pause_rows(&env.client).await, 1);
    assert_eq!(destination_events(&env.client).await.len(), 1);
}

#[tokio::test]
async fn resuming_a_destination_that_is_not_paused_is_no_change() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    // No --yes needed: there is nothing to consent to.
    let out = env
        .run(&["destination", "resume", "cms-a", "--reason", "just in case"])
        .expect(0);
    assert_eq!(out.stdout(), "no change: cms-a is not paused\n");
    let v = env
        .run(&[
            "destination",
            "resume",
            "cms-a",
            "--reason",
            "just in case",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(
        v,
        json!({"destination": {"name": "cms-a", "configured": false, "paused": false,
                               "reason": null, "actor": null, "since": null, "until": null},
               "event": null})
    );
    assert!(destination_events(&env.client).await.is_empty());
}

#[tokio::test]
async fn an_unknown_name_is_refused_with_the_known_names() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1").state(Accepted)).await;
    env.seed(Seed::new("b1").destination("cms-b")).await;
    let cfg = config(&env, &["cms-z"]);
    for cmd in ["pause", "resume"] {
        let out = env
            .run(&[
                "--config",
                &cfg,
                "destination",
                cmd,
                "cms-aa",
                "--reason",
                "typo",
                "--yes",
            ])
            .expect(2);
        assert_eq!(
            out.stderr(),
            "error: unknown destination `cms-aa`: it is not configured, not paused, and no job names it\n\
             hint: known destinations: cms-a, cms-b, cms-z\n\
             hint: nothing changed; `reconctl destination list` shows them with their pauses\n"
        );
    }
    assert!(destination_events(&env.client).await.is_empty());
    // Known by the config alone, by an accepted job alone, or by an open one: fine.
    for name in ["cms-z", "cms-a", "cms-b"] {
        env.run(&[
            "--config",
            &cfg,
            "destination",
            "pause",
            name,
            "--reason",
            "x",
            "--yes",
        ])
        .expect(0);
    }
}

#[tokio::test]
async fn bad_input_is_a_usage_error_and_changes_nothing() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    for args in [
        vec!["destination", "pause", "cms-a", "--reason", "  ", "--yes"],
        vec!["destination", "pause", "cms-a", "--yes"],
        vec![
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "x",
            "--for",
            "0s",
            "--yes",
        ],
        vec![
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "x",
            "--for",
            "soon",
            "--yes",
        ],
        vec!["destination", "resume", "cms-a", "--reason", "", "--yes"],
        vec!["destination", "pause", "--reason", "x", "--yes"],
    ] {
        env.run(&args).expect(2);
    }
    assert_eq!(pause_rows(&env.client).await, 0);
    assert!(destination_events(&env.client).await.is_empty());
}

#[tokio::test]
async fn pausing_again_changes_reason_and_until_keeps_since_and_a_dry_run_changes_nothing() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    let first = env
        .run(&[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "503s",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(first["event"]["action"], "pause");
    assert_eq!(first["destination"]["until"], Value::Null);
    let dry = env
        .run(&[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "longer",
            "--for",
            "3h",
            "--dry-run",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["event"]["action"], "repause");
    assert_eq!(dry["destination"]["reason"], "longer");
    let text = env
        .run(&[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "longer",
            "--for",
            "3h",
            "--dry-run",
        ])
        .expect(0)
        .stdout();
    assert!(
        text.starts_with("dry run: would change the pause of cms-a until "),
        "{text}"
    );
    assert!(text.contains("nothing changed"), "{text}");
    let listed = env
        .run(&["destination", "list", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(listed["destinations"][0]["reason"], "503s");

    let again = env
        .run(&[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "longer",
            "--for",
            "3h",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(again["event"]["action"], "repause");
    assert_eq!(again["destination"]["since"], first["destination"]["since"]);
    assert_eq!(again["destination"]["reason"], "longer");
    assert!(again["destination"]["until"].is_string());
    assert_eq!(destination_events(&env.client).await.len(), 2);
}

#[tokio::test]
async fn on_a_terminal_pause_shows_the_destination_and_asks_no_keeps_yes_pauses() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("p1").aged(120)).await;
    env.seed(Seed::new("p2").aged(60)).await;
    env.seed(Seed::new("u1").state(Uncertain).sent_ago(600).aged(600))
        .await;
    env.seed(Seed::new("f1").state(InFlight).lease("worker-7", 300))
        .await;
    let cfg = config(&env, &["cms-a"]);
    let args = [
        "--config",
        &cfg,
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "CMS answers 503",
        "--for",
        "1h",
    ];

    let mut p = env.pty(&args);
    let shown = p
        .exp_string("Pause destination cms-a?")
        .expect("the prompt");
    for line in [
        "Destination  cms-a (configured)",
        "Now          not paused",
        "Open jobs    uncertain 1 (oldest 10m",
        "), in_flight 1 (oldest 1m",
        "), pending 2 (oldest 2m",
        "In flight    worker-7: 1 job (0 sent), lease ends in ",
        "Change       pause until ",
        "(for 1h)",
        "By           tester",
        "Effect       workers claim none of its jobs (2 waiting); the 1 job in flight finishes or times out as usual",
        "Reason       CMS answers 503",
    ] {
        assert!(shown.contains(&pty_text(line)), "missing {line:?} in:\n{shown}");
    }
    p.send_line("n").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 2);
    assert_eq!(pause_rows(&env.client).await, 0);
    assert!(destination_events(&env.client).await.is_empty());

    let mut p = env.pty(&args);
    p.exp_string("Pause destination cms-a?").unwrap();
    p.send_line("y").unwrap();
    p.exp_string("paused cms-a until ").unwrap();
    p.exp_string("in flight: 1 job (worker-7: 1); it finishes or times out as usual")
        .unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 0);
    assert_eq!(pause_rows(&env.client).await, 1);

    // Resume asks too, and says what waits.
    let mut p = env.pty(&[
        "--config",
        &cfg,
        "destination",
        "resume",
        "cms-a",
        "--reason",
        "CMS healthy",
    ]);
    let shown = p.exp_string("Resume destination cms-a?").unwrap();
    assert!(
        shown.contains(&pty_text("Now          paused by tester ")),
        "{shown}"
    );
    assert!(
        shown.contains(&pty_text(
            "Effect       workers claim its jobs again: 2 waiting"
        )),
        "{shown}"
    );
    p.send_line("y").unwrap();
    p.exp_string("resumed cms-a after ").unwrap();
    p.exp_string("1 uncertain or in conflict: `reconctl reconcile --destination cms-a`")
        .unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 0);
    let actions: Vec<String> = destination_events(&env.client)
        .await
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert_eq!(actions, ["pause", "resume"]);
}

// ---------------------------------------------------------------------------------------
// Roles
// ---------------------------------------------------------------------------------------

fn as_user(env: &TestEnv, user: &LoginUser, args: &[&str]) -> Run {
    Run(env
        .cmd()
        .env("DATABASE_URL", user.url(&env.url))
        .args(args)
        .write_stdin("")
        .output()
        .unwrap())
}

#[tokio::test]
async fn a_reader_and_a_worker_see_pauses_only_an_operator_pauses_and_resumes() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    let reader = LoginUser::new("reconctl_reader").await;
    let worker_user = LoginUser::new("reconctl_worker").await;
    let operator = LoginUser::new("reconctl_operator").await;
    let pause_args = ["destination", "pause", "cms-a", "--reason", "503s", "--yes"];

    for user in [&reader, &worker_user] {
        let run = as_user(&env, user, &pause_args).expect(1);
        assert!(
            run.stderr().contains("permission denied"),
            "{}",
            run.stderr()
        );
        assert!(
            run.stderr().contains("reconctl_operator"),
            "{}",
            run.stderr()
        );
    }
    assert_eq!(pause_rows(&env.client).await, 0);

    as_user(
        &env,
        &operator,
        &[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "503s",
            "--for",
            "6s",
            "--yes",
        ],
    )
    .expect(0);
    // Six seconds: the six runs below must all see the pause standing, also on a loaded
    // machine (with 1s, a busy CI ran past the end and a claim got the job).
    let paused_at = std::time::Instant::now();
    for user in [&reader, &worker_user] {
        let v = as_user(&env, user, &["destination", "list", "-o", "json"])
            .expect(0)
            .json();
        assert_eq!(v["destinations"][0]["paused"], true, "{v}");
        as_user(&env, user, &["status"]).expect(0);
        as_user(&env, user, &["jobs", "list"]).expect(0);
        // A worker's claim reads the pauses.
    }
    let c = connect_url(&worker_user.url(&env.url)).await;
    assert_eq!(
        worker::claim(&c, "w", LEASE, Some("cms-a")).await.unwrap(),
        None
    );

    // Expired: a reader shows it as expired and records nothing; an operator records it.
    tokio::time::sleep(Duration::from_millis(6100).saturating_sub(paused_at.elapsed())).await;
    let text = as_user(&env, &reader, &["destination", "list"])
        .expect(0)
        .stdout();
    assert!(text.contains(" expired "), "{text}");
    let v = as_user(&env, &reader, &["destination", "list", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(v["destinations"][0]["paused"], false);
    as_user(&env, &reader, &["metrics"]).expect(0);
    as_user(&env, &worker_user, &["check", "--max-uncertain", "9"]).expect(0);
    assert_eq!(
        pause_rows(&env.client).await,
        1,
        "nobody recorded the expiry yet"
    );
    as_user(&env, &operator, &["status"]).expect(0);
    assert_eq!(pause_rows(&env.client).await, 0);

    as_user(
        &env,
        &operator,
        &[
            "destination",
            "pause",
            "cms-a",
            "--reason",
            "again",
            "--yes",
        ],
    )
    .expect(0);
    as_user(
        &env,
        &reader,
        &["destination", "resume", "cms-a", "--reason", "ok", "--yes"],
    )
    .expect(1);
    as_user(
        &env,
        &operator,
        &["destination", "resume", "cms-a", "--reason", "ok", "--yes"],
    )
    .expect(0);
    let actions: Vec<String> = destination_events(&env.client)
        .await
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert_eq!(actions, ["pause", "expire", "pause", "resume"]);
}

// ---------------------------------------------------------------------------------------
// Visible everywhere
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn status_lists_metrics_check_and_doctor_show_the_pause() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("u1").state(Uncertain).sent_ago(600))
        .await;
    env.seed(Seed::new("p1").aged(3 * 3600)).await;
    env.seed(Seed::new("b1").destination("cms-b").aged(3 * 3600))
        .await;
    let cfg = config(&env, &["cms-z"]);
    env.run(&[
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "CMS answers 503",
        "--yes",
        "--actor",
        "alice",
    ])
    .expect(0);
    env.client
        .batch_execute("UPDATE destination_pauses SET since = now() - interval '3 hours'")
        .await
        .unwrap();

    // status: per destination, and the pauses.
    let v = env.run(&["status", "-o", "json"]).expect(0).json();
    let uncertain = &v["states"][0];
    assert_eq!(uncertain["destinations"][0]["destination"], "cms-a");
    assert_eq!(uncertain["destinations"][0]["paused"], true);
    let pending = &v["states"][3];
    assert_eq!(pending["state"], "pending");
    let paused: Vec<(&str, bool)> = pending["destinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["destination"].as_str().unwrap(),
                d["paused"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(paused, [("cms-a", true), ("cms-b", false)]);
    let mut pauses = v["pauses"].clone();
    let secs = pauses[0]["paused_seconds"].as_i64().unwrap();
    assert!((10_800..10_860).contains(&secs), "{secs}");
    redact_times(&mut pauses);
    pauses[0]["paused_seconds"] = json!(10_800);
    assert_eq!(
        pauses,
        json!([{"destination": "cms-a", "actor": "alice", "reason": "CMS answers 503",
                "since": "<time>", "until": null, "paused_seconds": 10_800}])
    );

    // jobs list / uncertain / stuck: in the destination cell.
    for args in [
        vec!["jobs", "list"],
        vec!["jobs", "uncertain"],
        vec!["jobs", "stuck", "--older-than", "1h"],
    ] {
        let text = env.run(&args).expect(0).stdout();
        assert!(text.contains("cms-a (paused)"), "{args:?}:\n{text}");
        assert!(!text.contains("cms-b (paused)"), "{args:?}:\n{text}");
    }
    let listed = env
        .run(&["jobs", "uncertain", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(listed["jobs"][0]["id"], job.id.to_string());
    assert_eq!(
        listed["jobs"][0]["destination"], "cms-a",
        "JSON keeps the column as it is"
    );

    // metrics: 1/0 for every known destination, and for how long.
    let text = env.run(&["--config", &cfg, "metrics"]).expect(0).stdout();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("reconctl_destination_paused"))
        .collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines.contains(&"reconctl_destination_paused{destination=\"cms-a\"} 1"));
    assert!(lines.contains(&"reconctl_destination_paused{destination=\"cms-b\"} 0"));
    assert!(lines.contains(&"reconctl_destination_paused{destination=\"cms-z\"} 0"));
    assert!(lines.contains(&"reconctl_destination_paused_seconds{destination=\"cms-b\"} 0"));
    let secs: f64 = lines
        .iter()
        .find(|l| l.starts_with("reconctl_destination_paused_seconds{destination=\"cms-a\"}"))
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((10_800.0..10_860.0).contains(&secs), "{secs}");

    // check: --max-pause is optional; a pause older than it is exit 5. Stuck jobs say which
    // of them wait for the pause.
    env.run(&["check", "--max-uncertain", "5", "--stuck-after", "1d"])
        .expect(0);
    let run = env
        .run(&[
            "check",
            "-v",
            "--max-uncertain",
            "5",
            "--stuck-after",
            "1d",
            "--max-pause",
            "4h",
        ])
        .expect(0);
    assert!(
        run.stdout().ends_with("; paused: cms-a for 3h\n"),
        "{}",
        run.stdout()
    );
    let run = env
        .run(&[
            "check",
            "--max-uncertain",
            "5",
            "--stuck-after",
            "1d",
            "--max-pause",
            "2h",
        ])
        .expect(5);
    assert_eq!(
        run.stdout(),
        "paused longer than 2h: cms-a for 3h by alice (CMS answers 503); resume with `reconctl destination resume cms-a --reason TEXT` once it is healthy\n"
    );
    let v = env
        .run(&[
            "check",
            "--max-uncertain",
            "5",
            "--stuck-after",
            "1h",
            "-o",
            "json",
        ])
        .expect(5)
        .json();
    assert_eq!(v["counts"]["stuck_waiting"], 2);
    assert_eq!(v["counts"]["stuck_waiting_paused"], 1);
    let message = v["violations"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("1 of them wait for a paused destination (cms-a)"),
        "{message}"
    );

    // doctor: a pause is information, not a failure.
    let v = env.run(&["doctor", "-o", "json"]).expect(0).json();
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "pause cms-a")
        .expect("the pause is listed");
    assert_eq!(check["ok"], true);
    assert!(check["detail"]
        .as_str()
        .unwrap()
        .starts_with("paused by alice for 3h, until resumed"));
}

#[tokio::test]
async fn destination_list_and_status_fit_80_columns() {
    let env = TestEnv::new().await;
    // Ages whose second unit is minutes: the table reads the same for a minute.
    env.seed(
        Seed::new("u1")
            .state(Uncertain)
            .sent_ago(600)
            .aged(2 * 3600 + 20 * 60),
    )
    .await;
    env.seed(Seed::new("p1").aged(3 * 3600 + 10 * 60)).await;
    env.seed(Seed::new("p2").destination("cms-b").aged(5 * 3600 + 5 * 60))
        .await;
    let cfg = config(&env, &["cms-a", "cms-z"]);
    env.run(&[
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "CMS answers 503 since the deploy, vendor ticket 4711",
        "--yes",
        "--actor",
        "alice@ops1",
    ])
    .expect(0);
    env.run(&[
        "--config",
        &cfg,
        "destination",
        "pause",
        "cms-z",
        "--reason",
        "maintenance window",
        "--for",
        "1h",
        "--yes",
        "--actor",
        "bob",
    ])
    .expect(0);
    env.client
        .batch_execute(
            "UPDATE destination_pauses SET since = now() - interval '2 hours 15 minutes 10 seconds' WHERE destination = 'cms-a';
             UPDATE destination_pauses SET since = now() - interval '1 hour 20 minutes 10 seconds',
                                           until = now() + interval '3 hours 30 minutes 40 seconds' WHERE destination = 'cms-z';",
        )
        .await
        .unwrap();
    let at80 = |args: &[&str]| {
        let out = env
            .cmd()
            .env("COLUMNS", "80")
            .args(args)
            .write_stdin("")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
        }
        tidy(&text)
    };
    insta::assert_snapshot!(at80(&["status"]), @"
    STATE          DESTINATION     JOBS  OLDEST
    uncertain      cms-a (paused)     1  2h 20m
    conflict                          0
    in_flight                         0
    pending        (all)              2  5h 5m
                   cms-a (paused)     1  3h 10m
                   cms-b              1  5h 5m
    safe_to_retry                     0
    failed                            0
    accepted       (all)              0

    PAUSED  SINCE       UNTIL      BY          REASON
    cms-a   2h 15m ago  not set    alice@ops1  CMS answers 503 since the deploy, ve…
    cms-z   1h 20m ago  in 3h 30m  bob         maintenance window

    oldest uncertain job, for 2h 20m at cms-a:
    reconctl remote lookup xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
    ");
    insta::assert_snapshot!(at80(&["--config", &cfg, "destination", "list"]), @"
    DESTINATION  PAUSED  SINCE       UNTIL      BY          REASON
    cms-a        yes     2h 15m ago  not set    alice@ops1  CMS answers 503 since t…
    cms-b        no
    cms-z        yes     1h 20m ago  in 3h 30m  bob         maintenance window
    ");
}

// ---------------------------------------------------------------------------------------
// The claim stays index-driven at production skew
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_claim_walks_the_claimable_index_at_production_skew_with_three_destinations_paused() {
    let env = TestEnv::new().await;
    let loader = env.connect().await;
    loader
        .batch_execute("SET statement_timeout = 0")
        .await
        .unwrap();
    // 60 000 accepted jobs, 6 000 pending and 600 safe_to_retry over 20 destinations (the
    // claimable ones oldest first, interleaved), with statistics.
    let dests: Vec<String> = (0..20).map(|i| format!("cms-{i}")).collect();
    let d: Vec<&str> = dests.iter().map(String::as_str).collect();
    bulk_pending(&loader, "skew-", 6_600, &d).await;
    loader
        .batch_execute(
            "UPDATE publication_jobs SET state = 'safe_to_retry' WHERE article_id LIKE 'skew-%' AND right(article_id, 1) = '7';
             WITH j AS (
               INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref,
                   payload_hash, state, remote_id, sent_at, created_at, updated_at, state_changed_at)
               SELECT 'bulk', 'acc-' || i, '1', 'cms-' || (i % 20),
                      'pub_' || encode(sha256(convert_to('acc:' || i, 'UTF8')), 'hex'),
                      encode(sha256(convert_to('p' || i, 'UTF8')), 'hex'),
                      'accepted', 'r-' || i, now() - interval '30 days',
                      now() - interval '30 days', now() - interval '30 days', now() - interval '30 days'
               FROM generate_series(1, 60000) AS i
               RETURNING id, state, version, state_changed_at)
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT id, state_changed_at, 'seed', 'seed', NULL, state, NULL, version FROM j;",
        )
        .await
        .unwrap();
    // The safe_to_retry rows were rewritten without an event: keep the harness quiet.
    let mut env = env;
    env.skip_invariants = true;
    let mut c = env.connect().await;
    // The three destinations of the oldest claimable jobs: the claim must step over theirs.
    for dest in ["cms-0", "cms-1", "cms-2"] {
        pause_now(&mut c, dest, "outage", None).await;
    }
    env.client
        .batch_execute("VACUUM ANALYZE publication_jobs")
        .await
        .unwrap();
    env.client
        .batch_execute("VACUUM ANALYZE destination_pauses")
        .await
        .unwrap();
    let sql = worker::claim_sql();
    // The claim as it was before pauses existed: the same statement without the predicates.
    let skip = worker::skip_paused();
    assert!(sql.contains(&skip), "{sql}");
    let before = sql.replace(&format!("\n{skip}"), "");
    assert!(!before.contains("destination_pauses"), "{before}");
    let explain = |sql: String, destination: Option<&'static str>| {
        let c = &c;
        async move {
            let plan =
                plan::explain(c, &sql, &[&destination, &"bench-worker", &60.0f64], true).await;
            (plan::nodes(&plan), plan["Actual Rows"].as_f64().unwrap())
        }
    };
    let indexes = |nodes: &[plan::Node]| {
        nodes
            .iter()
            .filter(|n| n.index.starts_with("ix_publication_jobs"))
            .map(|n| n.index.clone())
            .collect::<std::collections::BTreeSet<_>>()
    };
    c.batch_execute("BEGIN").await.unwrap();
    for destination in [None, Some("cms-7"), Some("cms-1")] {
        let (nodes, claimed) = explain(sql.clone(), destination).await;
        let (old_nodes, _) = explain(before.clone(), destination).await;
        for n in &nodes {
            assert!(
                !(n.kind == "Seq Scan" && n.relation == "publication_jobs"),
                "{destination:?}: a sequential scan of publication_jobs:\n{nodes:#?}"
            );
        }
        // The same index as the claim before pauses (for one destination the planner may
        // prefer that destination's range of the open-jobs index: as it did before).
        assert_eq!(
            indexes(&nodes),
            indexes(&old_nodes),
            "{destination:?}:\n{nodes:#?}\n{old_nodes:#?}"
        );
        let read: f64 = nodes
            .iter()
            .filter(|n| {
                n.relation == "publication_jobs" || n.index.starts_with("ix_publication_jobs")
            })
            .map(|n| n.read)
            .fold(0.0, f64::max);
        match destination {
            None => {
                // Oldest first on the claimable index, stopping after a few paused jobs
                // stepped over (3 destinations of 20): never the backlog.
                assert!(
                    indexes(&nodes).contains("ix_publication_jobs_claimable"),
                    "{nodes:#?}"
                );
                assert!(read <= 100.0, "read {read} rows:\n{nodes:#?}");
                assert_eq!(claimed, 1.0);
            }
            Some("cms-1") => {
                // Paused: the one-time check answers before a single job is read.
                assert_eq!(read, 0.0, "read {read} rows:\n{nodes:#?}");
                assert_eq!(claimed, 0.0);
            }
            Some(_) => {
                assert!(read <= 400.0, "read {read} rows:\n{nodes:#?}");
                assert_eq!(claimed, 1.0);
            }
        }
    }
    c.batch_execute("ROLLBACK").await.unwrap();
    // And the real claim agrees: the oldest job of an unpaused destination.
    let job: Job = worker::claim(&env.client, "w", LEASE, None)
        .await
        .unwrap()
        .unwrap();
    assert!(
        !["cms-0", "cms-1", "cms-2"].contains(&job.destination.as_str()),
        "{}",
        job.destination
    );
    assert_eq!(job.article_id, "skew-3");
}

// ---------------------------------------------------------------------------------------
// Issue 24, item 4: a claim in a snapshot older than the pause
// ---------------------------------------------------------------------------------------

/// Whether a claim in `w`'s open transaction handed out a job: `Some(job)`, `None` (nothing
/// claimable), or the refusal's exit code and message.
async fn claim_in(w: &Client, destination: Option<&str>) -> Result<Option<Job>, (u8, String)> {
    worker::claim(w, "worker-rr", LEASE, destination)
        .await
        .map_err(|e| (e.exit_code(), e.message().to_string()))
}

/// A worker that claims inside a REPEATABLE READ or SERIALIZABLE transaction whose snapshot
/// was taken before `destination pause` returned gets no job of the paused destination: the
/// claim is refused (busy, 40001: the pause changed the clock row after its snapshot); a
/// new transaction sees the pause. Also when the pause commits while the claim waits for it.
#[tokio::test]
async fn item_24_4_a_claim_in_a_snapshot_older_than_the_pause_hands_out_nothing() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("rr")).await;
    let mut operator = env.connect().await;
    let w = env.connect().await;
    for iso in ["REPEATABLE READ", "SERIALIZABLE"] {
        // Control: without a pause the same transaction shape claims the job.
        w.batch_execute(&format!(
            "BEGIN ISOLATION LEVEL {iso}; SELECT count(*) FROM publication_jobs"
        ))
        .await
        .unwrap();
        let got = claim_in(&w, None).await.unwrap();
        assert_eq!(got.map(|j| j.id), Some(job.id), "{iso}: the control claim");
        w.batch_execute("ROLLBACK").await.unwrap();

        for round in 0..10 {
            let dest = if round % 2 == 0 { None } else { Some("cms-a") };
            w.batch_execute(&format!(
                "BEGIN ISOLATION LEVEL {iso}; SELECT count(*) FROM publication_jobs"
            ))
            .await
            .unwrap();
            // The pause commits after the worker's snapshot was taken.
            if round == 0 {
                env.run(&["destination", "pause", "cms-a", "--reason", "503s", "--yes"])
                    .expect(0);
            } else {
                pause_now(&mut operator, "cms-a", "503s", None).await;
            }
            match claim_in(&w, dest).await {
                Err((code, message)) => {
                    assert_eq!(code, 6, "{iso}: {message}");
                    assert!(message.contains("paused"), "{iso}: {message}");
                }
                Ok(got) => panic!("{iso}, round {round}: the claim after the pause gave {got:?}"),
            }
            w.batch_execute("ROLLBACK").await.unwrap();
            // A new transaction sees the pause: nothing to claim.
            w.batch_execute(&format!("BEGIN ISOLATION LEVEL {iso}"))
                .await
                .unwrap();
            assert_eq!(
                claim_in(&w, dest).await.unwrap().map(|j| j.id),
                None,
                "{iso}"
            );
            w.batch_execute("ROLLBACK").await.unwrap();
            resume_now(&operator, "cms-a").await;
        }

        // The pause in progress while the claim runs: the claim waits for it, then is
        // refused all the same.
        w.batch_execute(&format!(
            "BEGIN ISOLATION LEVEL {iso}; SELECT count(*) FROM publication_jobs"
        ))
        .await
        .unwrap();
        let tx = operator.transaction().await.unwrap();
        pause::pause(&tx, "cms-a", "503s", None, "tester")
            .await
            .unwrap();
        let (claimed, _) = tokio::join!(claim_in(&w, None), async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            tx.commit().await.unwrap();
        });
        assert_eq!(
            claimed.map_err(|e| e.0).map(|j| j.map(|j| j.id)),
            Err(6),
            "{iso}"
        );
        w.batch_execute("ROLLBACK").await.unwrap();
        resume_now(&operator, "cms-a").await;
    }
    // Nothing was handed out on the way.
    let now = env.job(job.id).await;
    assert_eq!((now.state, now.version, now.attempts), (Pending, 1, 0));
}
