//! High availability: a primary and a streaming hot standby (pg_basebackup -R) of the test's
//! own. Inspection works on the standby; a change there is refused with a clear message; a
//! multi-host URL with target_session_attrs=read-write finds the primary for changes; and
//! `--read-only` keeps a session from changing anything wherever it lands.

use std::time::{Duration, Instant};

use reconctl::jobs::State;
use tokio_postgres::Client;

use super::cluster::Cluster;
use crate::harness::*;

fn run_at(env: &TestEnv, url: &str, args: &[&str]) -> Run {
    Run(env
        .cmd()
        .env("DATABASE_URL", url)
        .args(args)
        .write_stdin("")
        .output()
        .unwrap())
}

/// Wait until the standby has replayed everything the primary has written so far.
async fn caught_up(primary: &Client, standby: &Client) {
    let lsn: String = primary
        .query_one("SELECT pg_current_wal_lsn()::text", &[])
        .await
        .unwrap()
        .get(0);
    let started = Instant::now();
    loop {
        let done: bool = standby
            .query_one(
                "SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn",
                &[&lsn],
            )
            .await
            .unwrap()
            .get(0);
        if done {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the standby did not catch up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn inspection_runs_on_a_hot_standby_and_changes_find_the_primary() {
    let primary = Cluster::init("wal_level = replica\nmax_wal_senders = 4\n");
    primary.start();
    let purl = primary.url("postgres");
    let mut p = primary.wait_ready(&purl).await;
    reconctl::migrate::migrate(&mut p).await.unwrap();
    // The fixtures, through the harness's seeding against the primary.
    let env = TestEnv::empty().await;
    let seeder = SeedOn(&p);
    let job = seeder.uncertain("a1").await;
    let other = seeder.uncertain("a2").await;
    seeder.expired_lease("a3").await;

    let standby = Cluster::standby_of(&primary);
    standby.start();
    let surl = standby.url("postgres");
    let s = standby.wait_ready(&surl).await;
    let in_recovery: bool = s
        .query_one("SELECT pg_is_in_recovery()", &[])
        .await
        .unwrap()
        .get(0);
    assert!(in_recovery, "the standby is not a standby");
    caught_up(&p, &s).await;

    let id = job.id.to_string();
    // Inspection on the standby, with and without --read-only.
    for ro in [false, true] {
        let extra: &[&str] = if ro { &["--read-only"] } else { &[] };
        let list = run_at(
            &env,
            &surl,
            &[&["jobs", "list", "-o", "json"], extra].concat(),
        )
        .expect(0)
        .json();
        assert_eq!(list["jobs"].as_array().unwrap().len(), 3, "{list}");
        run_at(&env, &surl, &[&["jobs", "show", &id], extra].concat()).expect(0);
        run_at(&env, &surl, &[&["status"], extra].concat()).expect(0);
        run_at(&env, &surl, &[&["jobs", "uncertain"], extra].concat()).expect(0);
        run_at(&env, &surl, &[&["metrics"], extra].concat()).expect(0);
        // The counters of the expired lease's minute are not folded on a standby (the fold
        // finds a read-only session and does nothing), and the readers read them as they are.
        run_at(&env, &surl, &[&["status", "-v"], extra].concat()).expect(0);
        run_at(&env, &surl, &[&["check"], extra].concat()).expect(5);
    }

    // A change on the standby is refused, clearly, and nothing changes.
    let run = run_at(
        &env,
        &surl,
        &[
            "mark",
            "failed",
            &id,
            "--reason",
            "withdrawn",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ],
    )
    .expect(1);
    assert_eq!(run.json()["error"]["code"], "read_only", "{}", run.stdout());
    let err = run.stderr();
    assert!(err.contains("read-only"), "{err}");
    assert!(
        err.contains("target_session_attrs=read-write"),
        "no hint: {err}"
    );
    let run = run_at(&env, &surl, &["sweep", "leases"]).expect(1);
    assert!(run.stderr().contains("read-only"), "{}", run.stderr());

    // The standby listed first: read-write skips it and the change lands on the primary.
    let both = format!(
        "postgresql://postgres@127.0.0.1:{},127.0.0.1:{}/postgres",
        standby.port, primary.port
    );
    let rw = format!("{both}?target_session_attrs=read-write");
    let out = run_at(
        &env,
        &rw,
        &[
            "mark",
            "failed",
            &id,
            "--reason",
            "withdrawn",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ],
    )
    .expect(0)
    .json();
    assert_eq!(out["job"]["state"], "failed");
    caught_up(&p, &s).await;
    let shown = run_at(&env, &surl, &["jobs", "show", &id, "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(shown["state"], "failed", "{shown}");

    // Only the standby, but read-write demanded: no server qualifies.
    let only_standby = format!("{surl}?target_session_attrs=read-write");
    let run = run_at(&env, &only_standby, &["jobs", "list"]).expect(1);
    assert!(run.stderr().contains("cannot connect"), "{}", run.stderr());

    // --read-only accepts the same read-write URL (any server will do) for inspection...
    run_at(&env, &rw, &["jobs", "list", "--read-only"]).expect(0);
    // ...and refuses any change, even where it lands on the primary.
    let primary_only = format!("{purl}?target_session_attrs=read-write");
    let oid = other.id.to_string();
    let run = run_at(
        &env,
        &primary_only,
        &[
            "mark",
            "failed",
            &oid,
            "--reason",
            "x",
            "--no-lookup",
            "--yes",
            "--read-only",
        ],
    )
    .expect(1);
    assert!(run.stderr().contains("read-only"), "{}", run.stderr());
    let now = reconctl::jobs::store::get(&p, &reconctl::jobs::JobRef::Id(other.id))
        .await
        .unwrap();
    assert_eq!((now.state, now.version), (State::Uncertain, other.version));

    let problems = check_invariants(&p).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Seeding on a client that is not a TestEnv's (the primary of a cluster of our own): through
/// the worker API, so the history chains like any real job's.
struct SeedOn<'a>(&'a Client);

impl SeedOn<'_> {
    /// A job reserved and claimed (a lease of a minute).
    async fn claimed(&self, article: &str) -> reconctl::jobs::Job {
        use reconctl::jobs::{payload_hash, worker, BusinessKey};
        let key = BusinessKey::new("t1", article, "1", "cms-a");
        worker::reserve(self.0, &key, &payload_hash(article.as_bytes()), "seed")
            .await
            .unwrap();
        worker::claim(self.0, "w1", Duration::from_secs(60), None)
            .await
            .unwrap()
            .unwrap()
    }

    /// A job claimed ten minutes ago whose lease expired, not swept.
    async fn expired_lease(&self, article: &str) {
        let job = self.claimed(article).await;
        self.0
            .execute(
                "UPDATE publication_jobs SET lease_expires_at = now() - interval '10 minutes' WHERE id = $1",
                &[&job.id],
            )
            .await
            .unwrap();
    }

    async fn uncertain(&self, article: &str) -> reconctl::jobs::Job {
        use reconctl::jobs::worker;
        let job = self.claimed(article).await;
        let job = worker::mark_sent(self.0, &job).await.unwrap();
        worker::timed_out(self.0, &job, "timeout after sending")
            .await
            .unwrap()
    }
}
