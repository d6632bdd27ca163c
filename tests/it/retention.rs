//! Retention of the audit log (SPEC §9, migrations/V11, src/retention.rs, src/jobs/archive.rs):
//! the partitioned layout and its append-only guard on every partition; an existing log
//! migrated under writers; archive → prune → read back giving exactly what `events` gave;
//! refusals (a month not archived, a tampered or partial archive); `--follow` across a month
//! boundary and a prune; a reservation after a prune; who may prune.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_postgres::Client;

use crate::harness::*;
use crate::reliability::roles::LoginUser;

/// The current month (UTC, on the database's clock) as `YYYY-MM`, and the next one.
async fn months(c: &Client) -> (String, String) {
    let r = c
        .query_one(
            "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM'),
                    to_char((now() AT TIME ZONE 'UTC') + interval '1 month', 'YYYY-MM')",
            &[],
        )
        .await
        .unwrap();
    (r.get(0), r.get(1))
}

/// Partitions of `parent`, oldest first.
pub(crate) async fn partitions(c: &Client, parent: &str) -> Vec<String> {
    c.query(
        "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = $1::text::regclass
         ORDER BY (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz",
        &[&parent],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

/// A job with one event, at `ago` before now (SQL interval), written directly.
async fn old_job(c: &Client, article: &str, ago: &str) -> uuid::Uuid {
    let key = reconctl::jobs::external_ref("t", article, "1", "cms-a");
    let hash = reconctl::jobs::payload_hash(article.as_bytes());
    c.query_one(
        &format!(
            "WITH j AS (
               INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref,
                   payload_hash, state, remote_id, created_at, updated_at, state_changed_at)
               VALUES ('t', $1, '1', 'cms-a', $2, $3, 'accepted', 'r-' || $1,
                       now() - interval '{ago}', now() - interval '{ago}', now() - interval '{ago}')
               RETURNING id)
             INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, now() - interval '{ago}', 'worker-' || $1, 'complete', 'in_flight', 'accepted', 3, 4, 'old'
             FROM j RETURNING job_id"
        ),
        &[&article, &key, &hash],
    )
    .await
    .unwrap()
    .get(0)
}

/// Events of every kind in past months (the legacy partition on a new database): job
/// events by several actors and actions, on two destinations, and pauses.
async fn seed_past(env: &TestEnv) -> Vec<uuid::Uuid> {
    let mut jobs = Vec::new();
    for (i, ago) in ["70 days", "45 days", "40 days", "35 days"]
        .iter()
        .enumerate()
    {
        jobs.push(old_job(&env.client, &format!("old-{i}"), ago).await);
    }
    env.client
        .batch_execute(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version, reason, evidence)
             SELECT j.id, now() - interval '60 days' + make_interval(mins => g),
                    (ARRAY['alice', 'bob', 'worker-9'])[1 + g % 3],
                    (ARRAY['claim', 'mark_sent', 'mark_accepted'])[1 + g % 3],
                    'pending', 'in_flight', 1, 2, 'r' || g, jsonb_build_object('n', g)
             FROM generate_series(1, 300) g, LATERAL (SELECT id FROM publication_jobs ORDER BY article_id OFFSET g % 4 LIMIT 1) j;
             INSERT INTO destination_events (destination, at, actor, action, reason)
             SELECT 'cms-a', now() - interval '50 days' + make_interval(hours => g), 'alice',
                    (ARRAY['pause', 'resume'])[1 + g % 2], 'drill'
             FROM generate_series(1, 6) g;",
        )
        .await
        .unwrap();
    jobs
}

fn sha256_hex(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

fn gunzip(path: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn gzip(path: &std::path::Path, bytes: &[u8]) {
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::default(),
    );
    e.write_all(bytes).unwrap();
    e.finish().unwrap();
}

// ---------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------

/// After migrate: both logs partitioned by month, the legacy partition (the old table) then
/// one a month from the current one to three ahead; each partition with the parent's indexes
/// and the append-only triggers; row UPDATE, DELETE and TRUNCATE refused on the parents and on
/// a partition alike; the id sequence belongs to the parent.
#[tokio::test]
async fn layout_after_migrate_is_partitioned_and_append_only_everywhere() {
    let mut env = TestEnv::new().await;
    // A raw event is written into the legacy partition below, outside the job's history.
    env.skip_invariants = true;
    let job = env.seed(Seed::new("l1")).await;
    let months: Vec<String> = env
        .client
        .query(
            "SELECT to_char((now() AT TIME ZONE 'UTC') + make_interval(months => g), 'YYYY\"m\"MM')
             FROM generate_series(0, 3) g",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for log in ["job_events", "destination_events"] {
        let kind: String = env
            .client
            .query_one(
                "SELECT relkind::text FROM pg_class WHERE oid = $1::text::regclass",
                &[&log],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(kind, "p", "{log} is partitioned");
        let mut expected = vec![format!("{log}_legacy")];
        expected.extend(months.iter().map(|m| format!("{log}_y{m}")));
        assert_eq!(partitions(&env.client, log).await, expected);
        let parent_indexes = env
            .count(&format!(
                "SELECT count(*) FROM pg_index WHERE indrelid = '{log}'::regclass"
            ))
            .await;
        for p in &expected {
            // Every index of the parent has its partition here (the legacy one may have more:
            // its old primary key on id).
            let attached = env
                .count(&format!(
                    "SELECT count(*) FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
                     WHERE x.indrelid = '{p}'::regclass
                       AND i.inhparent IN (SELECT indexrelid FROM pg_index WHERE indrelid = '{log}'::regclass)"
                ))
                .await;
            assert_eq!(attached, parent_indexes, "{p}: the parent's indexes");
            let triggers: Vec<String> = env
                .client
                .query(
                    "SELECT tgname::text FROM pg_trigger WHERE tgrelid = $1::text::regclass AND NOT tgisinternal ORDER BY 1",
                    &[&p],
                )
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect();
            assert_eq!(
                triggers,
                vec![
                    format!("{log}_fill"),
                    format!("{log}_no_truncate"),
                    format!("{log}_no_update_delete")
                ],
                "{p}"
            );
        }
        // The parent's indexes are all valid (doctor's check).
        assert_eq!(
            env.count(&format!(
                "SELECT count(*) FROM pg_index WHERE indrelid = '{log}'::regclass AND NOT indisvalid"
            ))
            .await,
            0
        );
    }
    // The sequence goes with the parent, not with a partition a prune may drop.
    let owner: String = env
        .client
        .query_one(
            "SELECT d.refobjid::regclass::text FROM pg_depend d
             WHERE d.objid = 'job_events_id_seq'::regclass AND d.deptype = 'a'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(owner, "job_events");
    // An event of this month is in this month's partition.
    let current = format!("job_events_y{}", months[0]);
    assert_eq!(
        env.count(&format!(
            "SELECT count(*) FROM {current} WHERE job_id = '{}'",
            job.id
        ))
        .await,
        1
    );
    env.client
        .batch_execute(
            "INSERT INTO destination_events (destination, actor, action, reason) VALUES ('cms-a', 'x', 'pause', 'y');
             INSERT INTO destination_events (destination, at, actor, action, reason) VALUES ('cms-a', now() - interval '90 days', 'x', 'pause', 'y');
             INSERT INTO job_events (job_id, at, actor, action, to_state, to_version)
             SELECT id, now() - interval '90 days', 'x', 'reserve', 'pending', 1 FROM publication_jobs",
        )
        .await
        .unwrap();
    let dcurrent = format!("destination_events_y{}", months[0]);
    for table in [
        "job_events",
        "job_events_legacy",
        current.as_str(),
        "destination_events",
        "destination_events_legacy",
        dcurrent.as_str(),
    ] {
        for sql in [
            format!("UPDATE {table} SET actor = 'mallory'"),
            format!("DELETE FROM {table}"),
            format!("TRUNCATE {table}"),
        ] {
            let err = env.client.batch_execute(&sql).await;
            let code = err.as_ref().err().and_then(|e| e.code().cloned());
            assert_eq!(
                code,
                Some(tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
                "{sql}: {err:?}"
            );
        }
    }
    assert_eq!(
        env.count("SELECT count(*) FROM job_events WHERE actor = 'mallory'")
            .await,
        0
    );
    assert_eq!(env.count("SELECT count(*) FROM job_events").await, 2);
    assert_eq!(
        env.count("SELECT count(*) FROM destination_events").await,
        2
    );
    // A second migrate changes nothing; doctor is content with the indexes.
    env.run(&["migrate", "--yes"]).expect(0);
    assert_eq!(partitions(&env.client, "job_events").await.len(), 5);
    let doctor = env.run(&["doctor", "-o", "json"]).expect(0).json();
    let indexes: Vec<&Value> = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"].as_str().unwrap().starts_with("index "))
        .collect();
    assert_eq!(indexes.len(), reconctl::schema::EXPECTED_INDEXES.len());
    assert!(indexes.iter().all(|c| c["ok"] == true), "{doctor}");
}

// ---------------------------------------------------------------------------------------
// Migrating an existing log
// ---------------------------------------------------------------------------------------

/// One event a transaction, as fast as it goes, until stopped: the ids written and the
/// longest time one insert took.
async fn event_writer(c: Client, job: uuid::Uuid, stop: Arc<AtomicBool>) -> (Vec<i64>, Duration) {
    let mut ids = Vec::new();
    let mut worst = Duration::ZERO;
    while !stop.load(Ordering::SeqCst) {
        let t = Instant::now();
        let id: i64 = c
            .query_one(
                "INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
                 VALUES ($1, 'writer', 'renew', 'in_flight', 'in_flight', 1, 2) RETURNING id",
                &[&job],
            )
            .await
            .expect("an event write never fails across the migration")
            .get(0);
        worst = worst.max(t.elapsed());
        ids.push(id);
    }
    (ids, worst)
}

/// A log written under V10 (thousands of events over past months, pauses) is migrated while
/// two writers keep adding events: no write fails, none waits long, every event is kept with
/// its id, and `events` lists exactly what it listed before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_existing_log_is_migrated_under_writers_keeping_every_event() {
    let mut env = TestEnv::empty().await;
    // The writers' events are load, not a job's history.
    env.skip_invariants = true;
    let mut c = env.connect().await;
    crate::events::migrate_to(&mut c, 10).await;
    seed_past(&env).await;
    let job = env.seed(Seed::new("live")).await;
    env.client
        .batch_execute(
            "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
             SELECT id, now() - make_interval(secs => g * 37), 'bulk', 'renew', 'in_flight', 'in_flight', 1, 2
             FROM publication_jobs, generate_series(1, 1000) g",
        )
        .await
        .unwrap();
    let t0: String = env
        .client
        .query_one(
            "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let listings: Vec<Vec<String>> = [
        vec!["events", "--limit", "10000", "-o", "json"],
        vec![
            "events", "--actor", "alice", "--limit", "10000", "-o", "json",
        ],
        vec![
            "events",
            "--destination",
            "cms-a",
            "--action",
            "claim",
            "--action",
            "pause",
            "--limit",
            "10000",
            "-o",
            "json",
        ],
        vec!["events", "--last", "25", "--until", &t0, "-o", "json"],
        vec!["events", "--job", &job.external_ref, "-o", "json"],
    ]
    .into_iter()
    .map(|l| l.into_iter().map(String::from).collect())
    .collect();
    let run = |args: &Vec<String>| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        env.run(&a).expect(0).stdout()
    };
    let before: Vec<String> = listings.iter().map(run).collect();
    let old_rows: Vec<(i64, String)> = env
        .client
        .query(
            "SELECT id, to_jsonb(e)::text FROM job_events e ORDER BY id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert!(old_rows.len() > 5000, "{}", old_rows.len());

    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for _ in 0..2 {
        writers.push(tokio::spawn(event_writer(
            env.connect().await,
            job.id,
            stop.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let migrated = env
        .run(&["migrate", "--yes", "-o", "json"])
        .expect(0)
        .json();
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::SeqCst);
    let mut written = Vec::new();
    let mut worst = Duration::ZERO;
    for w in writers {
        let (ids, slowest) = w.await.unwrap();
        written.extend(ids);
        worst = worst.max(slowest);
    }
    assert!(
        migrated["applied"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["version"] == 11),
        "{migrated}"
    );
    assert!(
        written.len() > 20,
        "the writers kept writing: {}",
        written.len()
    );
    // The swap blocks writers only for catalog work (a bound, on a loaded shared machine).
    assert!(worst < Duration::from_secs(2), "a write waited {worst:?}");
    // Partitioned, the old table attached whole (its bound at least a day ahead).
    assert_eq!(
        partitions(&env.client, "job_events").await[0],
        "job_events_legacy"
    );
    // Every old event kept, with its id and every column; every written one there.
    let after_rows: Vec<(i64, String)> = env
        .client
        .query(
            "SELECT id, to_jsonb(e)::text FROM job_events e WHERE id <= $1 ORDER BY id",
            &[&old_rows.last().unwrap().0],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(after_rows, old_rows);
    let present = env
        .count(&format!(
            "SELECT count(*) FROM job_events WHERE id IN ({})",
            written
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ))
        .await;
    assert_eq!(present, written.len() as i64);
    // `events` gives what it gave: to the byte where the writers' events do not show; where
    // they do, the same events, then only theirs.
    let after: Vec<String> = listings.iter().map(run).collect();
    for i in [1, 2, 3] {
        assert_eq!(after[i], before[i], "{:?}", listings[i]);
    }
    for i in [0, 4] {
        let b: Value = serde_json::from_str(&before[i]).unwrap();
        let a: Value = serde_json::from_str(&after[i]).unwrap();
        let (b, a) = (
            b["events"].as_array().unwrap(),
            a["events"].as_array().unwrap(),
        );
        assert_eq!(&a[..b.len()], &b[..], "{:?}", listings[i]);
        assert!(a[b.len()..].iter().all(|e| e["actor"] == "writer"));
    }
    env.run(&["doctor", "-o", "json"]);
}

// ---------------------------------------------------------------------------------------
// Archive, prune, read back
// ---------------------------------------------------------------------------------------

/// The listings compared before and after: every filter of `events`, paging and --last.
fn listings(job: &str, month: &str) -> Vec<Vec<String>> {
    let until = format!("{month}-01T00:00:00Z");
    let l: Vec<Vec<&str>> = vec![
        vec!["--until", &until, "--limit", "10000", "-o", "jsonl"],
        vec!["--until", &until, "--limit", "10000", "-o", "json"],
        vec![
            "--until", &until, "--actor", "bob", "--limit", "10000", "-o", "jsonl",
        ],
        vec![
            "--until",
            &until,
            "--action",
            "mark-accepted",
            "--action",
            "resume",
            "--limit",
            "10000",
            "-o",
            "jsonl",
        ],
        vec![
            "--until",
            &until,
            "--destination",
            "cms-a",
            "--limit",
            "10000",
            "-o",
            "jsonl",
        ],
        vec!["--until", &until, "--job", job, "-o", "jsonl"],
        vec![
            "--until", &until, "--since", "55d", "--limit", "10000", "-o", "jsonl",
        ],
        vec!["--until", &until, "--limit", "7", "-o", "json"],
        vec!["--until", &until, "--last", "9", "-o", "jsonl"],
        vec![
            "--until", &until, "--actor", "alice", "--limit", "40", "-o", "table",
        ],
    ];
    l.into_iter()
        .map(|a| a.into_iter().map(String::from).collect())
        .collect()
}

fn events_run(env: &TestEnv, archive: Option<&str>, args: &[String]) -> Run {
    let mut a: Vec<&str> = vec!["events"];
    if let Some(f) = archive {
        a.extend(["--archive", f]);
    }
    a.extend(args.iter().map(String::as_str));
    env.run(&a)
}

/// archive → prune → `events --archive` gives exactly what `events` gave (every filter, both
/// JSON outputs, a table, paging with the cursor); the archive's lines are `events -o
/// jsonl`'s; the manifest's checksum and rows are the lines'; archive and prune are recorded;
/// the partitions are gone, not emptied; a job whose events were all pruned is still
/// reserved, not created again.
#[tokio::test]
async fn archive_prune_and_read_back_give_exactly_what_events_gave() {
    let mut env = TestEnv::new().await;
    // Pruned jobs keep no event in the database (they are in the archive): the harness's
    // "every job has its events" does not hold after a prune, by design.
    env.skip_invariants = true;
    let jobs = seed_past(&env).await;
    let live = env.seed(Seed::new("live")).await;
    let (month, _) = months(&env.client).await;
    let job = jobs[1].to_string();
    let ls = listings(&job, &month);
    let before: Vec<String> = ls
        .iter()
        .map(|a| events_run(&env, None, a).expect(0).stdout())
        .collect();
    let total = env
        .count(&format!(
            "SELECT (SELECT count(*) FROM job_events WHERE at < '{month}-01T00:00:00Z')
                  + (SELECT count(*) FROM destination_events WHERE at < '{month}-01T00:00:00Z')"
        ))
        .await;
    assert_eq!(total, 310);
    // A page and the next one, by the cursor.
    let page: Value = serde_json::from_str(&before[7]).unwrap();
    let cursor = page["next_cursor"].as_str().unwrap().to_string();
    let mut next_args = ls[7].clone();
    next_args.extend(["--cursor".to_string(), cursor]);
    let next_before = events_run(&env, None, &next_args).expect(0).stdout();

    let file = env.dir.path().join("events-before.jsonl.gz");
    let f = file.to_str().unwrap();
    let archived = env
        .run(&[
            "events", "archive", "--before", &month, "--to", f, "-o", "json",
        ])
        .expect(0)
        .json();
    let a = &archived["archive"];
    assert_eq!(a["rows"], total);
    // The file: a manifest, then exactly `events -o jsonl`'s lines.
    let raw = gunzip(&file);
    let nl = raw.iter().position(|b| *b == b'\n').unwrap();
    let manifest: Value = serde_json::from_slice(&raw[..nl]).unwrap();
    let body = &raw[nl + 1..];
    assert_eq!(
        manifest["archive"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["first_id", "last_id", "months", "rows", "sha256"]
    );
    assert_eq!(manifest["archive"]["sha256"], sha256_hex(body));
    assert_eq!(manifest["archive"]["rows"], total);
    assert_eq!(manifest["archive"]["sha256"], a["sha256"]);
    assert_eq!(String::from_utf8_lossy(body), before[0]);
    let (min, max): (i64, i64) = {
        let r = env
            .client
            .query_one(
                &format!(
                    "SELECT min(id), max(id) FROM (SELECT id FROM job_events WHERE at < '{month}-01T00:00:00Z'
                     UNION ALL SELECT id FROM destination_events WHERE at < '{month}-01T00:00:00Z') x"
                ),
                &[],
            )
            .await
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(manifest["archive"]["first_id"], min);
    assert_eq!(manifest["archive"]["last_id"], max);
    // Recorded.
    let rec = env
        .client
        .query_one(
            "SELECT actor, file_name, rows, sha256, months FROM event_archives",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(rec.get::<_, String>(0), "tester");
    assert_eq!(
        rec.get::<_, String>(1),
        std::fs::canonicalize(&file).unwrap().display().to_string()
    );
    assert_eq!(rec.get::<_, i64>(2), total);
    assert_eq!(Value::String(rec.get(3)), manifest["archive"]["sha256"]);
    assert_eq!(
        serde_json::to_value(rec.get::<_, Vec<String>>(4)).unwrap(),
        manifest["archive"]["months"]
    );

    // Without a terminal and without --yes: refused, nothing dropped.
    let refused = env.run(&["events", "prune", "--before", &month]).expect(2);
    assert!(refused.stderr().contains("--yes"), "{}", refused.stderr());
    assert_eq!(partitions(&env.client, "job_events").await.len(), 5);
    // The dry run names what would go.
    let dry = env
        .run(&[
            "events",
            "prune",
            "--before",
            &month,
            "--dry-run",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(dry["pruned"], false);
    assert_eq!(dry["rows"], total);
    // Two suspects of out-of-order publication (V16): one accepted before the month, one in it.
    env.client
        .execute(
            &format!(
                "INSERT INTO job_order_suspects (job_id, accepted_at)
                 VALUES ($1, '{month}-01T00:00:00Z'::timestamptz - interval '1 second'),
                        ($2, '{month}-01T00:00:00Z')"
            ),
            &[&jobs[0], &jobs[1]],
        )
        .await
        .unwrap();
    let pruned = env
        .run(&["events", "prune", "--before", &month, "--yes", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(pruned["pruned"], true);
    let parts: Vec<&str> = pruned["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["partition"].as_str().unwrap())
        .collect();
    assert_eq!(
        parts,
        vec!["destination_events_legacy", "job_events_legacy"]
    );
    for log in ["job_events", "destination_events"] {
        assert_eq!(
            env.count(&format!(
                "SELECT count(*) FROM pg_class WHERE relname = '{log}_legacy'"
            ))
            .await,
            0,
            "{log}_legacy dropped"
        );
        assert_eq!(partitions(&env.client, log).await.len(), 4);
    }
    let rec = env
        .client
        .query_one(
            "SELECT p.actor, p.rows, p.months, p.archive_id = a.id FROM event_prunes p JOIN event_archives a ON true",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(rec.get::<_, String>(0), "tester");
    assert_eq!(rec.get::<_, i64>(1), total);
    assert_eq!(
        serde_json::to_value(rec.get::<_, Vec<String>>(2)).unwrap(),
        manifest["archive"]["months"]
    );
    assert!(rec.get::<_, bool>(3));
    let kept: Vec<uuid::Uuid> = env
        .client
        .query("SELECT job_id FROM job_order_suspects", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        kept,
        vec![jobs[1]],
        "the suspect accepted before the month went with it"
    );
    // The database has none of them now; the current month's events stay.
    assert_eq!(
        events_run(&env, None, &ls[0]).expect(0).stdout(),
        "",
        "pruned"
    );
    assert_eq!(
        env.count(&format!(
            "SELECT count(*) FROM job_events WHERE job_id = '{}'",
            live.id
        ))
        .await,
        1
    );
    // The archive gives exactly what `events` gave, filter by filter.
    for (args, expected) in ls.iter().zip(&before) {
        let got = events_run(&env, Some(f), args).expect(0).stdout();
        assert_eq!(&got, expected, "events --archive {args:?}");
    }
    assert_eq!(
        events_run(&env, Some(f), &next_args).expect(0).stdout(),
        next_before,
        "the next page by the cursor"
    );
    // A reservation of a pruned job's business key finds the job: jobs are never deleted.
    let hash = reconctl::jobs::payload_hash(b"old-1");
    let reserved = env
        .run(&[
            "jobs",
            "reserve",
            "--tenant",
            "t",
            "--article",
            "old-1",
            "--revision",
            "1",
            "--destination",
            "cms-a",
            "--payload-hash",
            &hash,
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(reserved["created"], false, "{reserved}");
    assert_eq!(reserved["job"]["id"], job);
    assert_eq!(reserved["job"]["state"], "accepted");
    assert_eq!(
        env.count("SELECT count(*) FROM publication_jobs WHERE article_id = 'old-1'")
            .await,
        1
    );
    // Pruning again: nothing left before the month.
    let again = env
        .run(&["events", "prune", "--before", &month, "--yes", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(again["pruned"], false);
    assert_eq!(env.count("SELECT count(*) FROM event_prunes").await, 1);
}

/// zstd by the name, read back the same; a month not archived, a month written to after its
/// archive, a tampered archive, a cut archive, an archive missing its last line, a month not
/// over, an existing file and an unknown extension are refused, each with its reason and
/// nothing dropped or written.
#[tokio::test]
async fn unarchived_months_and_damaged_archives_are_refused() {
    let mut env = TestEnv::new().await;
    // Pruned jobs keep no event in the database (they are in the archive): the harness's
    // "every job has its events" does not hold after a prune, by design.
    env.skip_invariants = true;
    seed_past(&env).await;
    let (month, next) = months(&env.client).await;
    let legacy_rows = "SELECT count(*) FROM job_events_legacy";
    // Nothing archived yet.
    let r = env
        .run(&["events", "prune", "--before", &month, "--yes"])
        .expect(2);
    assert!(
        r.stderr().contains("no archive covers it"),
        "{}",
        r.stderr()
    );
    assert_eq!(env.count(legacy_rows).await, 304);
    // A month still being written to cannot be archived.
    let z = env.dir.path().join("a.jsonl.zst");
    let zs = z.to_str().unwrap();
    let r = env
        .run(&["events", "archive", "--before", &next, "--to", zs])
        .expect(2);
    assert!(r.stderr().contains("not over"), "{}", r.stderr());
    assert!(!z.exists());
    let r = env
        .run(&["events", "archive", "--before", &month, "--to", "x.jsonl"])
        .expect(2);
    assert!(r.stderr().contains(".gz"), "{}", r.stderr());
    env.run(&["events", "archive", "--before", &month, "--to", zs])
        .expect(0);
    assert!(zstd::decode_all(std::fs::File::open(&z).unwrap()).is_ok());
    let r = env
        .run(&["events", "archive", "--before", &month, "--to", zs])
        .expect(1);
    assert!(r.stderr().contains("exists"), "{}", r.stderr());
    let whole = events_run(
        &env,
        None,
        &[
            "--until".into(),
            format!("{month}-01T00:00:00Z"),
            "--limit".into(),
            "10000".into(),
            "-o".into(),
            "jsonl".into(),
        ],
    )
    .expect(0)
    .stdout();
    assert_eq!(
        env.run(&["events", "--archive", zs, "--limit", "10000", "-o", "jsonl"])
            .expect(0)
            .stdout(),
        whole
    );
    // An event written into an archived month afterwards: the month is no longer archived
    // in full.
    env.client
        .batch_execute(
            "INSERT INTO job_events (job_id, at, actor, action, to_state, to_version)
             SELECT id, now() - interval '41 days', 'late', 'reserve', 'pending', 1 FROM publication_jobs LIMIT 1",
        )
        .await
        .unwrap();
    let r = env
        .run(&["events", "prune", "--before", &month, "--yes"])
        .expect(2);
    assert!(
        r.stderr().contains("305 event(s) now, 304 in the archive"),
        "{}",
        r.stderr()
    );
    assert_eq!(env.count(legacy_rows).await, 305);

    // Damaged archives, from a good gzip one.
    let good = env.dir.path().join("b.jsonl.gz");
    env.run(&[
        "events",
        "archive",
        "--before",
        &month,
        "--to",
        good.to_str().unwrap(),
    ])
    .expect(0);
    let raw = gunzip(&good);
    let text = String::from_utf8(raw.clone()).unwrap();
    let tampered = env.dir.path().join("tampered.jsonl.gz");
    gzip(
        &tampered,
        text.replacen("\"actor\":\"bob\"", "\"actor\":\"eve\"", 1)
            .as_bytes(),
    );
    let short = env.dir.path().join("short.jsonl.gz");
    let cut = text.trim_end_matches('\n');
    let cut = &cut[..cut.rfind('\n').unwrap() + 1];
    gzip(&short, cut.as_bytes());
    let truncated = env.dir.path().join("truncated.jsonl.gz");
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() * 2 / 3]).unwrap();
    for (file, why) in [
        (&tampered, "checksum"),
        (&short, "partial"),
        (&truncated, "cut short"),
    ] {
        for format in ["jsonl", "json", "table"] {
            let r = env
                .run(&["events", "--archive", file.to_str().unwrap(), "-o", format])
                .expect(1);
            assert!(r.stderr().contains(why), "{why}: {}", r.stderr());
            // Nothing of the archive printed: for people nothing, for programs the error.
            if format == "table" {
                assert_eq!(r.stdout(), "", "nothing printed from a refused archive");
            } else {
                assert_eq!(r.json()["error"]["kind"], "runtime", "{}", r.stdout());
            }
        }
    }
    // The good one still reads; the last archive covers the late event: now it prunes.
    env.run(&["events", "--archive", good.to_str().unwrap()])
        .expect(0);
    env.run(&["events", "prune", "--before", &month, "--yes"])
        .expect(0);
}

// ---------------------------------------------------------------------------------------
// --follow across a month boundary and a prune
// ---------------------------------------------------------------------------------------

struct Follower {
    child: Child,
    lines: Arc<Mutex<Vec<Value>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Follower {
    fn start(env: &TestEnv) -> Follower {
        let mut child = env
            .std_cmd()
            .args(["events", "--follow", "-o", "jsonl"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = lines.clone();
        let reader = std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                sink.lock()
                    .unwrap()
                    .push(serde_json::from_str(&line).unwrap());
            }
        });
        Follower {
            child,
            lines,
            reader,
        }
    }

    async fn wait_for(&self, n: usize) {
        let start = Instant::now();
        while self.lines.lock().unwrap().len() < n && start.elapsed() < Duration::from_secs(30) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn stop(mut self) -> (i32, String, Vec<Value>) {
        std::process::Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        let status = self.child.wait().unwrap();
        self.reader.join().unwrap();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let lines = self.lines.lock().unwrap().clone();
        (status.code().unwrap_or(-1), err, lines)
    }
}

/// A follower sees every event committed while writers write into this month, into the next
/// month's partition (the boundary: events routed to another partition), while the old months
/// are archived and pruned, and after: each exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_loses_nothing_across_a_month_boundary_and_a_prune() {
    let mut env = TestEnv::new().await;
    // Pruned jobs keep no event in the database (they are in the archive): the harness's
    // "every job has its events" does not hold after a prune, by design.
    env.skip_invariants = true;
    seed_past(&env).await;
    let job = env.seed(Seed::new("f")).await;
    let (month, next) = months(&env.client).await;
    let start_id: i64 = env
        .client
        .query_one("SELECT max(id) FROM job_events", &[])
        .await
        .unwrap()
        .get(0);
    let follower = Follower::start(&env);
    tokio::time::sleep(Duration::from_millis(800)).await;
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..2 {
        let c = env.connect().await;
        let stop = stop.clone();
        let (job, next) = (job.id, next.clone());
        writers.push(tokio::spawn(async move {
            let mut n = 0u32;
            while !stop.load(Ordering::SeqCst) || n < 40 {
                // Alternately now and in the next month (its own partition).
                let at = if n % 2 == w {
                    "now()".to_string()
                } else {
                    format!("'{next}-01T00:00:00Z'::timestamptz + make_interval(secs => {n})")
                };
                c.execute(
                    &format!(
                        "INSERT INTO job_events (job_id, at, actor, action, from_state, to_state, from_version, to_version)
                         VALUES ($1, {at}, 'w{w}', 'renew', 'in_flight', 'in_flight', 1, 2)"
                    ),
                    &[&job],
                )
                .await
                .unwrap();
                n += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let file = env.dir.path().join("f.jsonl.gz");
    env.run(&[
        "events",
        "archive",
        "--before",
        &month,
        "--to",
        file.to_str().unwrap(),
    ])
    .expect(0);
    env.run(&["events", "prune", "--before", &month, "--yes"])
        .expect(0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        w.await.unwrap();
    }
    let committed: Vec<i64> = env
        .client
        .query(
            "SELECT id FROM job_events WHERE id > $1 ORDER BY id",
            &[&start_id],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(committed.len() >= 80, "{}", committed.len());
    let next_part = format!("job_events_y{}", next.replace('-', "m"));
    assert!(
        env.count(&format!("SELECT count(*) FROM {next_part}"))
            .await
            >= 40,
        "events landed in the next month's partition"
    );
    follower.wait_for(committed.len()).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (code, err, lines) = follower.stop();
    assert_eq!(code, 0, "{err}");
    let mut printed: Vec<i64> = lines.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    printed.sort();
    assert_eq!(printed, committed, "each committed event exactly once");
}

// ---------------------------------------------------------------------------------------
// Who may prune
// ---------------------------------------------------------------------------------------

/// The reader role reads the archive and prune records; neither it nor the operator role may
/// prune (nothing is dropped); the owner may.
#[tokio::test]
async fn the_reader_reads_archive_records_but_cannot_prune() {
    let mut env = TestEnv::new().await;
    // Pruned jobs keep no event in the database (they are in the archive): the harness's
    // "every job has its events" does not hold after a prune, by design.
    env.skip_invariants = true;
    seed_past(&env).await;
    let (month, _) = months(&env.client).await;
    let file = env.dir.path().join("r.jsonl.gz");
    env.run(&[
        "events",
        "archive",
        "--before",
        &month,
        "--to",
        file.to_str().unwrap(),
    ])
    .expect(0);
    for role in ["reconctl_reader", "reconctl_operator"] {
        let user = LoginUser::new(role).await;
        let c = connect_url(&user.url(&env.url)).await;
        let n: i64 = c
            .query_one("SELECT count(*) FROM event_archives", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(n, 1, "{role} reads the archive records");
        c.query_one("SELECT count(*) FROM event_prunes", &[])
            .await
            .unwrap();
        let r = Run(env
            .cmd()
            .env("DATABASE_URL", user.url(&env.url))
            .args(["events", "prune", "--before", &month, "--yes"])
            .output()
            .unwrap());
        assert_ne!(r.code(), 0, "{role} pruned: {}", r.stdout());
        assert!(
            r.stderr().contains("permission denied") || r.stderr().contains("must be owner"),
            "{role}: {}",
            r.stderr()
        );
        assert_eq!(
            env.count("SELECT count(*) FROM job_events_legacy").await,
            304
        );
        assert_eq!(env.count("SELECT count(*) FROM event_prunes").await, 0);
        // Nor DROP the partition itself.
        assert!(c
            .batch_execute("DROP TABLE job_events_legacy")
            .await
            .is_err());
    }
    env.run(&["events", "prune", "--before", &month, "--yes"])
        .expect(0);
}
