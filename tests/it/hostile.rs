//! Hostile answers and partial failures (issue 14): every job isolated, every byte from
//! outside escaped before it reaches a terminal, every report true even when the run fails
//! midway. Each test is named after the failure it pins.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reconctl::jobs::{Job, State};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, ResponseTemplate};

use crate::cms::{config_for, found, none, ok_json, Cms, CANARY};
use crate::harness::*;

fn uncertain(article: &str) -> Seed {
    Seed::new(article).state(State::Uncertain).sent_ago(600)
}

/// `n` uncertain jobs sent ten minutes ago, with their creation events, in one statement.
async fn many_uncertain(env: &TestEnv, n: i32) {
    env.client
        .execute(
            "WITH j AS (
                INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                    external_ref, payload_hash, state, sent_at, created_at, updated_at, state_changed_at)
                SELECT 't1', 'm' || i, '1', 'cms-a',
                       'pub_' || encode(sha256(convert_to('m' || i, 'UTF8')), 'hex'),
                       encode(sha256(convert_to('p' || i, 'UTF8')), 'hex'),
                       'uncertain', now() - interval '10 minutes',
                       now() - interval '1 hour' + i * interval '1 ms',
                       now() - interval '10 minutes', now() - interval '10 minutes'
                FROM generate_series(1, $1::int) AS i
                RETURNING id, state, version
             )
             INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, 'seed', 'reserve', NULL, state, NULL, version, 'test fixture' FROM j",
            &[&n],
        )
        .await
        .unwrap();
}

/// Regression (1): a NUL in one match's id made the whole batch fail with `invalid byte
/// sequence for encoding "UTF8": 0x00` on every re-run, and `mark accepted` exit 1 with the
/// raw database error. Now that one match is an unexpected answer: that job is unknown,
/// its batch-mates move, and the mark is refused (exit 3) saying why.
#[tokio::test]
async fn a_nul_in_one_match_makes_only_that_job_unknown() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let mut healthy: Vec<Job> = Vec::new();
    for i in 0..3 {
        let j = env.seed(uncertain(&format!("ok{i}"))).await;
        cms.answer(&j.external_ref, found(&format!("art-{i}"), &j.payload_hash))
            .await;
        healthy.push(j);
    }
    let nul_id = env.seed(uncertain("nul-id")).await;
    cms.answer(
        &nul_id.external_ref,
        ResponseTemplate::new(200).set_body_raw(r#"[{"id": "art\u0000x"}]"#, "application/json"),
    )
    .await;
    let nul_hash = env.seed(uncertain("nul-hash")).await;
    cms.answer(
        &nul_hash.external_ref,
        ResponseTemplate::new(200).set_body_raw(
            r#"[{"id": "art-9", "payload_hash": "ab\u0000"}]"#,
            "application/json",
        ),
    )
    .await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .expect(5)
        .json();
    assert_eq!(out["summary"]["moved"], 3, "{out}");
    assert_eq!(out["summary"]["unknown"], 2, "{out}");
    for j in &healthy {
        assert_eq!(env.job(j.id).await.state, State::Accepted);
    }
    for j in [&nul_id, &nul_hash] {
        assert_eq!(&env.job(j.id).await, j);
        let row = out["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == json!(j.id))
            .unwrap();
        assert!(
            row["reason"]
                .as_str()
                .unwrap()
                .contains("control character U+0000"),
            "{row}"
        );
    }
    let mark = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &nul_id.external_ref,
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    assert_eq!(mark["error"]["code"], "refused_by_lookup", "{mark}");
    assert!(
        !mark.to_string().contains("invalid byte sequence"),
        "{mark}"
    );
}

/// A move the database refuses for one job (here a constraint a DBA added) fails that job
/// alone: the batch is retried without it, the others move, and the run says which one.
#[tokio::test]
async fn a_move_the_database_refuses_fails_only_that_job() {
    let env = TestEnv::new().await;
    env.client
        .batch_execute(
            "ALTER TABLE publication_jobs ADD CONSTRAINT no_poison CHECK (remote_id IS DISTINCT FROM 'poison')",
        )
        .await
        .unwrap();
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let mut fine = Vec::new();
    for i in 0..4 {
        let j = env.seed(uncertain(&format!("f{i}"))).await;
        cms.answer(&j.external_ref, found(&format!("art-{i}"), &j.payload_hash))
            .await;
        fine.push(j);
    }
    let poisoned = env.seed(uncertain("poisoned")).await;
    cms.answer(
        &poisoned.external_ref,
        found("poison", &poisoned.payload_hash),
    )
    .await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .expect(5)
        .json();
    assert_eq!(out["summary"]["moved"], 4, "{out}");
    assert_eq!(out["summary"]["skipped"], 1, "{out}");
    let row = out["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == json!(poisoned.id))
        .unwrap()
        .clone();
    assert_eq!(row["action"], "skipped");
    assert!(
        row["reason"]
            .as_str()
            .unwrap()
            .contains("refused this job's move"),
        "{row}"
    );
    assert_eq!(&env.job(poisoned.id).await, &poisoned);
    for j in &fine {
        assert_eq!(env.job(j.id).await.state, State::Accepted);
    }
}

/// Regression (2): a `reconcile --apply --yes -o json` whose database went away mid-run
/// printed half a document and then a second `{"error": …}`, and reported fewer moves than
/// it made. Now stdout is one document, closed with the error, and what it says moved is
/// exactly what the database has; the message says how to see it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_database_goes_away_prints_one_document_saying_what_moved() {
    let (env, run, in_db) = reconcile_while_the_database_goes_away("json").await;
    let doc: Value = serde_json::from_slice(&run.0.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", run.stdout()));
    assert!(doc["error"]["message"].is_string(), "{doc}");
    assert_eq!(doc["applied"], json!(true));
    assert_eq!(doc["summary"]["moved"], json!(in_db), "{}", run.stderr());
    let moved_rows = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"] == "moved")
        .count() as i64;
    assert_eq!(moved_rows, in_db);
    let err = run.stderr();
    assert!(err.contains(&format!("moved {in_db} jobs")), "{err}");
    assert!(err.contains("reconctl events --since"), "{err}");
    drop(env);
}

/// The same in JSON lines: a line a job, then the members around the list (what moved),
/// then the error as the last line; every line one object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_lines_of_a_run_whose_database_goes_away_end_with_the_summary_and_the_error() {
    let (env, run, in_db) = reconcile_while_the_database_goes_away("jsonl").await;
    let lines: Vec<Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let n = lines.len();
    assert!(n >= 3, "{lines:?}");
    assert!(
        lines[n - 1]["error"]["message"].is_string(),
        "{:?}",
        lines[n - 1]
    );
    assert_eq!(lines[n - 2]["applied"], json!(true));
    assert_eq!(
        lines[n - 2]["summary"]["moved"],
        json!(in_db),
        "{}",
        run.stderr()
    );
    let moved_rows = lines[..n - 2]
        .iter()
        .filter(|r| r["action"] == "moved")
        .count() as i64;
    assert_eq!(moved_rows, in_db);
    drop(env);
}

/// `reconcile --apply --yes -o FORMAT` over 800 uncertain jobs, whose database refuses
/// connections and ends every session once 100 have moved; its output (exit 1), and the
/// moves the database holds.
async fn reconcile_while_the_database_goes_away(format: &str) -> (TestEnv, Run, i64) {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    Mock::given(method("GET"))
        .respond_with(none().set_delay(Duration::from_millis(3)))
        .mount(&cms.server)
        .await;
    let cfg = env.write_config(&cms.config(""));
    many_uncertain(&env, 800).await;
    let child = env
        .std_cmd()
        .env("RECONCTL_ACTOR", "rec")
        .args([
            "--config",
            &cfg,
            "reconcile",
            "--apply",
            "--yes",
            "--concurrency",
            "4",
            "-o",
            format,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let moved_sql = "SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry'";
    let deadline = Instant::now() + Duration::from_secs(30);
    while env.count(moved_sql).await < 100 {
        assert!(Instant::now() < deadline, "reconcile never got going");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The database goes away under the run: no new connection, every one it holds ended.
    env.go_away().await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    env.come_back().await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let run = Run(out).expect(1);
    let c = crate::harness::connect_url(&env.url).await;
    let in_db: i64 = c.query_one(moved_sql, &[]).await.unwrap().get(0);
    (env, run, in_db)
}

/// Regression (4): `--lock-timeout 0s` waited until the statement timeout (PostgreSQL's 0 is
/// "no limit"), and both at `0s` waited for ever. Now a zero lock timeout means "do not wait"
/// and a zero statement timeout is refused.
#[tokio::test]
async fn a_zero_lock_timeout_does_not_wait_and_a_zero_statement_timeout_is_refused() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("locked")).await;
    let locker = env.connect().await;
    locker
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM publication_jobs WHERE id = '{}' FOR UPDATE",
            job.id
        ))
        .await
        .unwrap();
    for zero in ["0s", "0"] {
        let started = Instant::now();
        let run = env
            .run(&[
                "--lock-timeout",
                zero,
                "mark",
                "failed",
                &job.external_ref,
                "--reason",
                "x",
                "--yes",
            ])
            .expect(6);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{zero}: waited {:?}",
            started.elapsed()
        );
        assert!(run.stderr().contains("busy"), "{}", run.stderr());
    }
    locker.batch_execute("ROLLBACK").await.unwrap();
    let run = env
        .run(&[
            "--statement-timeout",
            "0s",
            "--lock-timeout",
            "0s",
            "status",
        ])
        .expect(2);
    assert!(
        run.stderr().contains("must be more than 0"),
        "{}",
        run.stderr()
    );
    assert_eq!(&env.job(job.id).await, &job);
}

/// Regression (5): a config path that is a FIFO nobody writes hung for ever. Only a regular
/// file is read; anything else is a clear exit 2, at once.
#[tokio::test]
async fn a_config_that_is_not_a_file_is_refused_at_once() {
    let env = TestEnv::new().await;
    let fifo = env.dir.path().join("config.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for (path, what) in [
        (fifo.display().to_string(), "FIFO"),
        (env.dir.path().display().to_string(), "directory"),
        ("/dev/null".to_string(), "device"),
    ] {
        let started = Instant::now();
        let run = env
            .run(&[
                "--config",
                &path,
                "remote",
                "lookup",
                "--destination",
                "x",
                "--ref",
                CANARY,
            ])
            .expect(2);
        assert!(started.elapsed() < Duration::from_secs(5), "{what}");
        assert!(run.stderr().contains(what), "{what}: {}", run.stderr());
    }
}

/// Regression (7): text from a destination (an id with `ESC]0;…BEL`, `ESC[2J`, a newline)
/// reached the terminal raw and was stored as remote_id. Now such an answer is unexpected
/// (never stored), and every string from outside is shown escaped in tables.
#[tokio::test]
async fn terminal_escapes_from_outside_are_shown_escaped_never_raw() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("esc")).await;
    cms.answer(
        &job.external_ref,
        ok_json(json!([{"id": "\u{1b}]0;pwned\u{7}\u{1b}[2J\nall jobs accepted"}])),
    )
    .await;
    for args in [
        vec!["--config", &cfg, "remote", "lookup", &job.external_ref],
        vec!["--config", &cfg, "reconcile", "--apply", "--yes"],
    ] {
        let run = env.run(&args);
        for stream in [run.stdout(), run.stderr()] {
            assert!(
                !stream.contains('\u{1b}') && !stream.contains('\u{7}'),
                "{stream:?}"
            );
            assert!(!stream.contains("\nall jobs accepted"), "{stream:?}");
        }
    }
    assert_eq!(
        &env.job(job.id).await,
        &job,
        "nothing stored, nothing moved"
    );

    // Job columns and events written by someone else: shown escaped by `jobs show`.
    let hostile = env
        .seed(
            Seed::new("a\u{1b}[2Jb")
                .state(State::Uncertain)
                .sent_ago(600),
        )
        .await;
    env.client
        .execute(
            "INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
             VALUES ($1, E'evil\\x1b]0;title\\x07', 'reserve', 'uncertain', 'uncertain', 1, 2, E'line one\\nforged line')",
            &[&hostile.id],
        )
        .await
        .ok();
    env.client
        .execute(
            "UPDATE publication_jobs SET version = 2, last_error = E'boom\\x1b[31m' WHERE id = $1",
            &[&hostile.id],
        )
        .await
        .unwrap();
    let shown = env
        .run(&["jobs", "show", &hostile.id.to_string()])
        .expect(0)
        .stdout();
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    assert!(shown.contains("\\x1b"), "{shown}");
    assert!(!shown.contains("\nforged line"), "{shown}");
    // JSON stays exact.
    let json = env
        .run(&["jobs", "show", &hostile.id.to_string(), "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(json["article_id"], "a\u{1b}[2Jb");
}

/// Regression (8): with the host's clock an hour off, decisions used the database's clock
/// but the evidence recorded `lookup.at` on the host's, and `mark failed` said a lease with
/// 30 minutes left had "expired 30m ago". Now both are on the database's clock.
#[tokio::test]
async fn a_host_clock_an_hour_ahead_changes_no_evidence_and_no_message() {
    assert!(
        Command::new("faketime").arg("--help").output().is_ok(),
        "this test needs libfaketime's `faketime` (Debian: apt-get install faketime; scripts/test installs it as root)"
    );
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("skew")).await;
    cms.answer(&job.external_ref, found("art-1", &job.payload_hash))
        .await;
    let skewed = |args: &[&str]| {
        let mut cmd = Command::new("faketime");
        cmd.env_clear()
            .envs(env.command_env(&env.url))
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .args(["-f", "+1h"])
            .arg(assert_cmd::cargo::cargo_bin("reconctl"))
            .args(args)
            .stdin(Stdio::null());
        Run(cmd.output().unwrap())
    };
    skewed(&[
        "--config",
        &cfg,
        "mark",
        "accepted",
        &job.external_ref,
        "--reason",
        "CMS shows it",
        "--yes",
    ])
    .expect(0);
    let ev = &env.events(job.id).await[1];
    let at: chrono::DateTime<chrono::Utc> = ev.evidence["lookup"]["at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (at - ev.at).num_seconds().abs() < 60,
        "lookup.at {at} is not on the database's clock (event at {})",
        ev.at
    );
    assert_eq!(
        ev.evidence["lookup"]["sent_at"],
        json!(job
            .sent_at
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
    );

    let leased = env
        .seed(
            Seed::new("leased")
                .state(State::InFlight)
                .lease("worker-7", 1800),
        )
        .await;
    let run = skewed(&[
        "mark",
        "failed",
        &leased.external_ref,
        "--reason",
        "x",
        "--yes",
    ])
    .expect(3);
    let err = run.stderr();
    assert!(err.contains("worker-7 expires in 29m"), "{err}");
    assert!(
        !err.contains("expired 30m") && !err.contains(" ago"),
        "{err}"
    );
}

/// Regression (9): evidence redacted only query parameters named like token/key/secret;
/// `pwd=`, `jwt=`, `access=` and `#token=` fragments were stored verbatim. Since issue 22 a
/// lookup_url with a literal credential is refused outright (the secret belongs in `auth`),
/// so the evidence URL can keep every parameter the config wrote; a fragment is never sent
/// and never recorded.
#[tokio::test]
async fn evidence_urls_keep_what_was_asked_and_literal_credentials_are_refused() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let job = env.seed(uncertain("redact")).await;
    cms.answer(&job.external_ref, none()).await;
    let with_secrets = env.write_config(
        &config_for(&cms.uri(), &format!("canary_ref = \"{CANARY}\"")).replace(
            "?external_ref={ref}",
            "?external_ref={ref}&pwd=hunter2&jwt=eyJabc&access=s3cr3t&page=1#token=frag",
        ),
    );
    let run = env
        .run(&[
            "--config",
            &with_secrets,
            "mark",
            "safe-to-retry",
            &job.external_ref,
            "--reason",
            "CMS lacks it",
            "--yes",
        ])
        .expect(2);
    for secret in ["hunter2", "eyJabc", "s3cr3t", "frag"] {
        assert!(
            !run.stderr().contains(secret),
            "{secret} in {}",
            run.stderr()
        );
    }
    assert_eq!(env.job(job.id).await.state, State::Uncertain);
    let cfg = env.write_config(
        &config_for(&cms.uri(), &format!("canary_ref = \"{CANARY}\"")).replace(
            "?external_ref={ref}",
            "?external_ref={ref}&fields=id,payload_hash&page=1#token=frag",
        ),
    );
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &job.external_ref,
        "--reason",
        "CMS lacks it",
        "--yes",
    ])
    .expect(0);
    let ev = &env.events(job.id).await[1];
    assert_eq!(
        ev.evidence["lookup"]["url"],
        format!(
            "{}/articles?external_ref={}&fields=id,payload_hash&page=1",
            cms.uri(),
            job.external_ref
        )
    );
    assert!(!ev.evidence.to_string().contains("frag"));
}
