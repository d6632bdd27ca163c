//! Database faults: a busy row or table (exit 6 within the lock timeout, nothing changed); the
//! backend terminated mid-batch and the server restarted mid-run (exit 1 with a clear message,
//! no partial batch); a connection lost during COMMIT (the outcome is found out, not guessed:
//! src/jobs/commit.rs).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reconctl::db::{SessionLimits, Target};
use reconctl::jobs::commit::{self, Committed, XactStatus};
use reconctl::jobs::store::{self, Effects, MoveOutcome, MoveRequest};
use reconctl::jobs::{Action, State};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_postgres::Client;

use super::cluster::Cluster;
use crate::harness::*;

/// Faults injected by this module's tests (reported with the other figures).
pub static FAULTS: AtomicU64 = AtomicU64::new(0);

fn fault() {
    FAULTS.fetch_add(1, Ordering::Relaxed);
}

/// `n` jobs in flight whose leases expired an hour ago, every other one sent, with real
/// external_refs and a creation event each (so the invariants hold): one statement.
pub async fn bulk_in_flight(c: &Client, tenant: &str, destination: &str, n: i64) {
    bulk_in_flight_sent(c, tenant, destination, n, false).await
}

/// [`bulk_in_flight`]; with `all_sent` every job was sent (else every other one).
pub async fn bulk_in_flight_sent(
    c: &Client,
    tenant: &str,
    destination: &str,
    n: i64,
    all_sent: bool,
) {
    c.execute(
        "WITH k AS (
             SELECT g, $1::text AS t, 'a' || g AS a, '1' AS r, $2::text AS d FROM generate_series(1, $3::bigint) g
         ), j AS (
             INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref,
                 payload_hash, state, attempts, lease_owner, lease_expires_at, sent_at)
             SELECT t, a, r, d,
                    'pub_' || encode(sha256(convert_to(
                        octet_length(t) || ':' || t || ',' || octet_length(a) || ':' || a || ',' ||
                        octet_length(r) || ':' || r || ',' || octet_length(d) || ':' || d || ',', 'UTF8')), 'hex'),
                    encode(sha256(convert_to('payload of ' || a, 'UTF8')), 'hex'),
                    'in_flight', 1, 'worker-' || (g % 7), now() - interval '1 hour',
                    CASE WHEN $4 OR g % 2 = 0 THEN now() - interval '2 hours' END
             FROM k
             RETURNING id, state, version
         )
         INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
         SELECT id, 'seed', 'seed', NULL, state, NULL, version, 'bulk fixture' FROM j",
        &[&tenant, &destination, &n, &all_sent],
    )
    .await
    .expect("bulk seed");
}

async fn count(c: &Client, sql: &str) -> i64 {
    c.query_one(sql, &[]).await.unwrap().get(0)
}

// ---------------------------------------------------------------------------------------
// Busy
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_locked_table_makes_reads_and_changes_busy_within_the_lock_timeout() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    env.seed(Seed::new("a2").state(State::InFlight).lease("w1", -60))
        .await;
    let events = env.count("SELECT count(*) FROM job_events").await;

    let holder = env.connect().await;
    holder
        .batch_execute("BEGIN; LOCK TABLE publication_jobs IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    fault();
    let id = job.id.to_string();
    for args in [
        vec!["jobs", "list"],
        vec!["status"],
        vec!["jobs", "show", &id],
        vec![
            "mark",
            "failed",
            &id,
            "--reason",
            "r",
            "--no-lookup",
            "--yes",
        ],
        vec!["sweep", "leases"],
    ] {
        let mut full = args.clone();
        full.extend(["--lock-timeout", "300ms", "-o", "json"]);
        let started = Instant::now();
        let run = env.run(&full);
        let took = started.elapsed();
        assert_eq!(
            run.code(),
            6,
            "{args:?}\n{}\n{}",
            run.stdout(),
            run.stderr()
        );
        assert!(
            took >= Duration::from_millis(300),
            "{args:?} gave up before the lock timeout: {took:?}"
        );
        assert!(took < Duration::from_secs(8), "{args:?} waited {took:?}");
        let err = run.json();
        assert_eq!(err["error"]["kind"], "busy", "{args:?}: {err}");
        assert!(
            run.stderr().contains("safe to run"),
            "{args:?}: no hint: {}",
            run.stderr()
        );
    }
    holder.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(env.job(job.id).await, job, "a busy mark changed the job");
    assert_eq!(env.count("SELECT count(*) FROM job_events").await, events);
}

#[tokio::test]
async fn a_locked_row_is_busy_for_the_guarded_move_and_skipped_by_the_sweep() {
    let env = TestEnv::new().await;
    let uncertain = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let expired = env
        .seed(Seed::new("a2").state(State::InFlight).lease("w1", -60))
        .await;
    let holder = env.connect().await;
    holder.batch_execute("BEGIN").await.unwrap();
    holder
        .execute(
            "SELECT 1 FROM publication_jobs WHERE id = ANY($1) FOR UPDATE",
            &[&vec![uncertain.id, expired.id]],
        )
        .await
        .unwrap();
    fault();

    // The library's guarded move on a session with a short lock timeout.
    let limits = SessionLimits {
        lock_timeout: Duration::from_millis(200),
        ..SessionLimits::default()
    };
    let c = Target::resolve(Some(&env.url), &limits)
        .unwrap()
        .connect()
        .await
        .unwrap();
    let req = MoveRequest {
        job_id: uncertain.id,
        expect_version: uncertain.version,
        action: Action::MarkSafeToRetry,
        actor: "tester".into(),
        reason: Some("busy test".into()),
        evidence: serde_json::json!({}),
        effects: Effects::default(),
    };
    let started = Instant::now();
    let err = store::guarded_move(&c, &req).await.unwrap_err();
    assert_eq!(err.exit_code(), 6, "{}", err.message());
    assert!(started.elapsed() < Duration::from_secs(5));

    // The sweep passes over the locked expired lease instead of waiting for it.
    let out = env
        .run(&["sweep", "leases", "--lock-timeout", "5s", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(out["skipped"], 1, "{out}");
    assert_eq!(out["to_pending"], 0, "{out}");

    holder.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(env.job(uncertain.id).await, uncertain);
    assert_eq!(env.job(expired.id).await, expired);
    // Once the lock is gone, the next sweep takes it.
    let out = env.run(&["sweep", "leases", "-o", "json"]).expect(0).json();
    assert_eq!(out["to_pending"], 1, "{out}");
}

// ---------------------------------------------------------------------------------------
// The backend terminated, the server restarted
// ---------------------------------------------------------------------------------------

/// The pid of reconctl's backend on `db` once it is running a statement.
async fn active_reconctl_backend(admin: &Client, db: &str, deadline: Duration) -> Option<i32> {
    let started = Instant::now();
    while started.elapsed() < deadline {
        let row = admin
            .query_opt(
                "SELECT pid FROM pg_stat_activity
                 WHERE application_name LIKE 'reconctl%' AND datname = $1 AND state = 'active'
                 LIMIT 1",
                &[&db],
            )
            .await
            .unwrap();
        if let Some(r) = row {
            return Some(r.get(0));
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    None
}

/// Moved jobs of a sweep run, and whether only whole batches moved.
async fn swept(c: &Client, total: i64) -> i64 {
    total
        - count(
            c,
            "SELECT count(*) FROM publication_jobs WHERE state = 'in_flight'",
        )
        .await
}

#[tokio::test]
async fn a_sweep_whose_backend_is_terminated_exits_1_and_leaves_only_whole_batches() {
    let env = TestEnv::new().await;
    const N: i64 = 6_000;
    const BATCH: i64 = 500;
    bulk_in_flight(&env.client, "t1", "cms-a", N).await;
    let admin = connect_url(&admin_url()).await;
    let trials = if long_tests() { 5 } else { 2 };
    for trial in 0..trials {
        let before = swept(&env.client, N).await;
        if before == N {
            break;
        }
        let batch = BATCH.to_string();
        let proc = spawn(
            &env,
            &env.url,
            &["sweep", "leases", "--batch", &batch, "-o", "json"],
        );
        let pid = active_reconctl_backend(&admin, &env.db_name, Duration::from_secs(20))
            .await
            .expect("the sweep's backend");
        // Let it get a few batches in, differently each trial.
        tokio::time::sleep(Duration::from_millis(200 + 450 * trial)).await;
        admin
            .execute("SELECT pg_terminate_backend($1)", &[&pid])
            .await
            .unwrap();
        fault();
        let out = proc.wait_with_output().unwrap();
        let moved = swept(&env.client, N).await - before;
        eprintln!(
            "terminate trial {trial}: exit {:?}, {moved} of {} jobs moved: {}",
            out.status.code(),
            N - before,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        if out.status.code() == Some(0) {
            // It finished before the signal landed: then it moved everything.
            assert_eq!(before + moved, N);
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("terminating connection") || stderr.contains("connection was closed"),
            "unclear message: {stderr}"
        );
        // Each batch is one statement: it moved all its jobs or none.
        assert_eq!(moved % BATCH, 0, "a partial batch: {moved} jobs moved");
        // The report names what was committed before the failure (a batch whose COMMIT
        // answer was lost may be one more).
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if let Some(detail) = doc["error"]["detail"].as_object() {
            let reported =
                detail["to_pending"].as_i64().unwrap() + detail["to_uncertain"].as_i64().unwrap();
            assert!(
                moved == reported || moved == reported + BATCH,
                "reported {reported}, moved {moved}"
            );
        } else {
            assert_eq!(moved, 0, "moved {moved} but reported no progress: {doc}");
        }
        env.assert_invariants().await;
    }
    // A rerun finishes the job.
    env.run(&["sweep", "leases", "-o", "json"]).expect(0);
    assert_eq!(swept(&env.client, N).await, N);
}

/// The binary as a child process we can signal, with the harness's clean environment.
pub fn spawn(env: &TestEnv, url: &str, args: &[&str]) -> std::process::Child {
    env.std_cmd()
        .env("DATABASE_URL", url)
        .args(args)
        .spawn()
        .expect("spawn reconctl")
}

#[tokio::test]
async fn a_server_restart_mid_sweep_exits_1_and_leaves_only_whole_batches() {
    const N: i64 = 6_000;
    const BATCH: i64 = 500;
    let cluster = Cluster::init("");
    cluster.start();
    let url = cluster.url("postgres");
    let mut c = cluster.wait_ready(&url).await;
    reconctl::migrate::migrate(&mut c).await.unwrap();
    bulk_in_flight(&c, "t1", "cms-a", N).await;
    let env = TestEnv::empty().await;
    let batch = BATCH.to_string();
    let proc = spawn(
        &env,
        &url,
        &["sweep", "leases", "--batch", &batch, "-o", "json"],
    );
    let pid = active_reconctl_backend(&c, "postgres", Duration::from_secs(20)).await;
    assert!(pid.is_some(), "the sweep never ran a statement");
    tokio::time::sleep(Duration::from_millis(600)).await;
    drop(c);
    // A fast restart: sessions are terminated, the server checkpoints and comes back.
    let restarted = tokio::task::spawn_blocking(move || {
        cluster.restart("fast");
        cluster
    });
    fault();
    let out = proc.wait_with_output().unwrap();
    let cluster = restarted.await.unwrap();
    let c = cluster.wait_ready(&url).await;
    let moved = swept(&c, N).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "restart: exit {:?}, {moved} of {N} jobs moved: {}",
        out.status.code(),
        stderr.trim()
    );
    if out.status.code() != Some(0) {
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        // The restart ends the session between statements, or during a batch's COMMIT: then
        // the sweep asks the server, once it is back, what became of that transaction, and
        // says so (it rolled back here: the batches before it stand).
        let lost_at_commit = stderr.contains(
            "the connection to the database was lost during COMMIT; the server rolled the transaction back",
        );
        assert!(
            stderr.contains("terminating connection")
                || stderr.contains("connection was closed")
                || stderr.contains("shutting down")
                || lost_at_commit,
            "unclear message: {stderr}"
        );
        assert_eq!(moved % BATCH, 0, "a partial batch: {moved} jobs moved");
        if lost_at_commit {
            assert!(
                stderr.contains(&format!("after {} batches committed", moved / BATCH))
                    || (moved == BATCH && stderr.contains("after 1 batch committed")),
                "{stderr}"
            );
        }
    } else {
        assert_eq!(moved, N);
    }
    let problems = check_invariants(&c).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // After the restart, the same command finishes.
    let run = Run(env
        .cmd()
        .env("DATABASE_URL", &url)
        .args(["sweep", "leases", "-o", "json"])
        .output()
        .unwrap())
    .expect(0);
    assert_eq!(
        run.json()["to_pending"].as_i64().unwrap() + run.json()["to_uncertain"].as_i64().unwrap(),
        N - moved
    );
    assert_eq!(swept(&c, N).await, N);
}

// ---------------------------------------------------------------------------------------
// A connection lost during COMMIT
// ---------------------------------------------------------------------------------------

/// Where to cut a connection, relative to the COMMIT the client sends through the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    Pass,
    /// The COMMIT never reaches the server: it rolls back when the connection drops.
    BeforeCommit,
    /// The server gets the COMMIT (and commits); its answer never reaches the client.
    AfterCommit,
}

/// A TCP proxy in front of PostgreSQL (plaintext: it reads the protocol's message frames)
/// that can cut a connection around a COMMIT.
pub struct CutProxy {
    pub port: u16,
    cut: Arc<Mutex<Cut>>,
    task: tokio::task::JoinHandle<()>,
}

impl CutProxy {
    pub async fn start(upstream: SocketAddr) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = Arc::new(Mutex::new(Cut::Pass));
        let mode = cut.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let mode = mode.clone();
                tokio::spawn(async move {
                    let _ = relay(client, upstream, mode).await;
                });
            }
        });
        CutProxy { port, cut, task }
    }

    pub fn arm(&self, cut: Cut) {
        *self.cut.lock().unwrap() = cut;
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay(
    client: TcpStream,
    upstream: SocketAddr,
    mode: Arc<Mutex<Cut>>,
) -> std::io::Result<()> {
    let server = TcpStream::connect(upstream).await?;
    let (mut cr, mut cw) = client.into_split();
    let (mut sr, mut sw) = server.into_split();
    let cut = Arc::new(AtomicBool::new(false));
    let s2c_cut = cut.clone();
    let s2c = tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match sr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if s2c_cut.load(Ordering::SeqCst) || cw.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
    });
    // The startup packet has no type byte: a length, then the rest.
    let len = cr.read_i32().await? as usize;
    let mut body = vec![0u8; len - 4];
    cr.read_exact(&mut body).await?;
    sw.write_i32(len as i32).await?;
    sw.write_all(&body).await?;
    while let Ok(kind) = cr.read_u8().await {
        let len = cr.read_i32().await? as usize;
        let mut body = vec![0u8; len - 4];
        cr.read_exact(&mut body).await?;
        let is_commit = kind == b'Q'
            && String::from_utf8_lossy(&body)
                .trim_start()
                .to_ascii_uppercase()
                .starts_with("COMMIT");
        let armed = *mode.lock().unwrap();
        if is_commit && armed != Cut::Pass {
            cut.store(true, Ordering::SeqCst);
            if armed == Cut::AfterCommit {
                sw.write_u8(kind).await?;
                sw.write_i32(len as i32).await?;
                sw.write_all(&body).await?;
            }
            // Closing our side to the server: after the COMMIT (it commits, then sees the
            // end), or instead of it (it rolls back).
            let _ = sw.shutdown().await;
            drop(sw);
            drop(cr);
            let _ = s2c.await;
            return Ok(());
        }
        sw.write_u8(kind).await?;
        sw.write_i32(len as i32).await?;
        sw.write_all(&body).await?;
    }
    let _ = sw.shutdown().await;
    let _ = s2c.await;
    Ok(())
}

fn upstream_of(url: &str) -> SocketAddr {
    let u = url::Url::parse(url).unwrap();
    let host = u.host_str().unwrap();
    let host = if host == "localhost" {
        "127.0.0.1"
    } else {
        host
    };
    format!("{host}:{}", u.port().unwrap_or(5432))
        .parse()
        .unwrap()
}

/// A client through the proxy, and the direct target a lost commit is resolved over.
async fn through(env: &TestEnv, proxy: &CutProxy) -> (Client, Target) {
    let mut u = url::Url::parse(&env.url).unwrap();
    u.set_port(Some(proxy.port)).unwrap();
    u.set_host(Some("127.0.0.1")).unwrap();
    let proxied = format!("{u}?sslmode=disable").replace("??", "?");
    let c = Target::resolve(Some(&proxied), &SessionLimits::default())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let direct = Target::resolve(Some(&env.url), &SessionLimits::default()).unwrap();
    (c, direct)
}

fn safe_to_retry(job: &reconctl::jobs::Job) -> MoveRequest {
    MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action: Action::MarkSafeToRetry,
        actor: "tester".into(),
        reason: Some("CMS has no such article".into()),
        evidence: serde_json::json!({ "lookup": "skipped" }),
        effects: Effects::default(),
    }
}

#[tokio::test]
async fn a_commit_that_is_answered_is_acknowledged() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, direct) = through(&env, &proxy).await;
    let xid = commit::begin(&c).await.unwrap();
    assert!(matches!(
        store::guarded_move(&c, &safe_to_retry(&job)).await.unwrap(),
        MoveOutcome::Moved { .. }
    ));
    assert_eq!(
        commit::commit(&c, &xid, &direct).await.unwrap(),
        Committed::Acknowledged
    );
    assert_eq!(env.job(job.id).await.state, State::SafeToRetry);
    assert_eq!(
        commit::status(&env.client, &xid).await.unwrap(),
        XactStatus::Committed
    );
}

#[tokio::test]
async fn a_commit_whose_answer_is_lost_is_found_committed() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, direct) = through(&env, &proxy).await;
    let xid = commit::begin(&c).await.unwrap();
    store::guarded_move(&c, &safe_to_retry(&job)).await.unwrap();
    proxy.arm(Cut::AfterCommit);
    fault();
    let got = commit::commit(&c, &xid, &direct).await;
    assert!(c.is_closed(), "the proxy did not cut the connection");
    assert_eq!(got.unwrap(), Committed::Recovered);
    let now = env.job(job.id).await;
    assert_eq!(
        (now.state, now.version),
        (State::SafeToRetry, job.version + 1)
    );
    assert_eq!(env.events(job.id).await.len(), 2);
}

#[tokio::test]
async fn a_commit_lost_before_the_server_got_it_is_reported_as_not_committed() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, direct) = through(&env, &proxy).await;
    let xid = commit::begin(&c).await.unwrap();
    store::guarded_move(&c, &safe_to_retry(&job)).await.unwrap();
    proxy.arm(Cut::BeforeCommit);
    fault();
    let err = commit::commit(&c, &xid, &direct).await.unwrap_err();
    assert_eq!(err.code(), "not_committed", "{}", err.message());
    assert_eq!(err.exit_code(), 1);
    assert!(
        err.message().contains("nothing changed"),
        "{}",
        err.message()
    );
    assert_eq!(env.job(job.id).await, job);
    assert_eq!(env.events(job.id).await.len(), 1);
}

#[tokio::test]
async fn a_lost_commit_that_cannot_be_asked_about_names_the_transaction_to_check() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, _) = through(&env, &proxy).await;
    // The way back is closed too (a network partition): nobody answers on this port.
    let nowhere = Target::resolve(
        Some(&format!(
            "postgresql://postgres@127.0.0.1:{}/x?sslmode=disable&connect_timeout=1",
            super::cluster::free_port()
        )),
        &SessionLimits::default(),
    )
    .unwrap();
    let xid = commit::begin(&c).await.unwrap();
    store::guarded_move(&c, &safe_to_retry(&job)).await.unwrap();
    proxy.arm(Cut::AfterCommit);
    fault();
    let err = commit::commit_within(&c, &xid, &nowhere, Duration::from_secs(2))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "commit_unknown", "{}", err.message());
    let hint = err.hints()[0].clone();
    assert!(hint.contains(&format!("pg_xact_status('{xid}')")), "{hint}");
    // The check the hint names does answer, once the server can be reached.
    assert_eq!(
        commit::status(&env.client, &xid).await.unwrap(),
        XactStatus::Committed
    );
}

#[tokio::test]
async fn a_tracked_guarded_move_survives_a_lost_commit_answer() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, direct) = through(&env, &proxy).await;
    proxy.arm(Cut::AfterCommit);
    fault();
    let outcome = commit::guarded_move_tracked(&c, &safe_to_retry(&job), &direct)
        .await
        .unwrap();
    assert!(c.is_closed(), "the proxy did not cut the connection");
    let MoveOutcome::Moved { job: moved, event } = outcome else {
        panic!("not moved: {outcome:?}");
    };
    assert_eq!(moved.state, State::SafeToRetry);
    assert_eq!(env.job(job.id).await, moved);
    assert_eq!(env.events(job.id).await.last(), Some(&event));

    // A lost guard is rolled back and reported, whatever the connection does.
    let (c, direct) = through(&env, &proxy).await;
    let outcome = commit::guarded_move_tracked(&c, &safe_to_retry(&job), &direct)
        .await
        .unwrap();
    assert!(
        matches!(outcome, MoveOutcome::Conflict { ref current } if current.version == job.version + 1)
    );
    assert_eq!(env.events(job.id).await.len(), 2);
}

/// Regression (issue 14, 3): a sweep whose COMMIT answer was lost reported "the failed batch
/// changed nothing" while the batch had committed. Every batch now commits through the
/// resolver: the batch is counted as moved, and the report matches the database.
#[tokio::test]
async fn a_sweep_whose_commit_answer_is_lost_counts_the_batch_that_committed() {
    let env = TestEnv::new().await;
    bulk_in_flight(&env.client, "t1", "cms-a", 30).await;
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, direct) = through(&env, &proxy).await;
    let mut opts = reconctl::jobs::sweep::SweepOptions::new("sweep@test");
    opts.batch = 10;
    opts.resolve_with = Some(direct);
    proxy.arm(Cut::AfterCommit);
    fault();
    let err = reconctl::jobs::sweep::sweep(&c, &opts).await.unwrap_err();
    assert!(c.is_closed(), "the proxy did not cut the connection");
    let swept = count(
        &env.client,
        "SELECT count(*) FROM job_events WHERE action IN ('sweep_sent', 'sweep_unsent')",
    )
    .await;
    assert_eq!(swept, 10, "the first batch committed");
    let detail = err.detail().expect("the counts so far").clone();
    let reported =
        detail["to_pending"].as_i64().unwrap() + detail["to_uncertain"].as_i64().unwrap();
    assert_eq!(reported, swept, "{err}: {detail}");
    assert!(
        err.message().contains("after 1 batch committed"),
        "{}",
        err.message()
    );
}

/// Regression (issue 14, 3): a reconcile batch whose COMMIT answer was lost is found
/// committed and reported moved, job by job.
#[tokio::test]
async fn a_reconcile_batch_whose_commit_answer_is_lost_is_reported_moved() {
    use reconctl::jobs::reconcile::{settle_batch, Settled, Settlement};
    let env = TestEnv::new().await;
    let mut jobs = Vec::new();
    for i in 0..5 {
        jobs.push(
            env.seed(
                Seed::new(&format!("r{i}"))
                    .state(State::Uncertain)
                    .sent_ago(600),
            )
            .await,
        );
    }
    let s = Settlement {
        action: Action::ReconcileSafeToRetry,
        remote_id: None,
        reason: "not at the destination".into(),
        evidence: serde_json::json!({"lookup": {"verdict": "safe_to_retry"}}),
    };
    let items: Vec<(&reconctl::jobs::Job, &Settlement)> = jobs.iter().map(|j| (j, &s)).collect();
    let proxy = CutProxy::start(upstream_of(&env.url)).await;
    let (c, direct) = through(&env, &proxy).await;
    proxy.arm(Cut::AfterCommit);
    fault();
    let settled = settle_batch(&c, &items, "rec@test", &direct).await.unwrap();
    assert!(c.is_closed(), "the proxy did not cut the connection");
    assert_eq!(settled.len(), 5);
    for (job, outcome) in jobs.iter().zip(&settled) {
        assert!(
            matches!(outcome, Settled::Moved(State::SafeToRetry)),
            "{outcome:?}"
        );
        assert_eq!(env.job(job.id).await.state, State::SafeToRetry);
        assert_eq!(env.events(job.id).await.len(), 2);
    }
}
