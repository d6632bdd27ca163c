//! Proofs of acceptance items that the code implemented but no test pinned: the controls'
//! requests are bounded by the destination's timeout and the body cap (issue 11);
//! reconcile's progress bar on a terminal and a closed stdout during `--apply` (issue 13);
//! staged mode's one JSON document and the failure hints of a run that moved something
//! (issue 14); a worker's `fail` of an in-flight job of a paused destination (issue 16).

use std::io::BufRead;
use std::process::Stdio;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reconctl::jobs::worker;
use reconctl::jobs::{Job, State};
use serde_json::{json, Value};
use wiremock::matchers::{method, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::cms::{config_for, found, none, Cms, CANARY, CANARY_ID};
use crate::harness::*;

fn uncertain(article: &str) -> Seed {
    Seed::new(article).state(State::Uncertain).sent_ago(600)
}

fn with_config(env: &TestEnv, cfg: &str, args: &[&str]) -> Run {
    let mut all = vec!["--config", cfg];
    all.extend_from_slice(args);
    env.run(&all)
}

/// Every JSON document on `stdout`, in order (one is what SPEC §5 allows).
fn documents(stdout: &[u8]) -> Vec<Value> {
    serde_json::Deserializer::from_slice(stdout)
        .into_iter::<Value>()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| {
            panic!(
                "stdout is not a sequence of JSON documents ({e}):\n{}",
                String::from_utf8_lossy(stdout)
            )
        })
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .cloned()
        .collect();
    k.sort();
    k
}

/// `n` uncertain jobs of cms-a sent ten minutes ago (article `{prefix}{i}`), each with its
/// creation event, in one statement.
async fn bulk_uncertain(client: &tokio_postgres::Client, prefix: &str, n: i32) {
    client
        .execute(
            "WITH j AS (
                INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                    external_ref, payload_hash, state, sent_at, created_at, updated_at, state_changed_at)
                SELECT 't1', $1 || i, '1', 'cms-a',
                       'pub_' || encode(sha256(convert_to($1 || i, 'UTF8')), 'hex'),
                       encode(sha256(convert_to('p' || $1 || i, 'UTF8')), 'hex'),
                       'uncertain', now() - interval '10 minutes',
                       now() - interval '1 hour' + i * interval '1 ms',
                       now() - interval '10 minutes', now() - interval '10 minutes'
                FROM generate_series(1, $2::int) AS i
                RETURNING id, state, version
             )
             INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, 'seed', 'reserve', NULL, state, NULL, version, 'test fixture' FROM j",
            &[&prefix, &n],
        )
        .await
        .unwrap();
}

/// Every update of a job row sleeps `secs` (a batch of moves takes a while).
async fn slow_updates(env: &TestEnv, secs: f64) {
    env.client
        .batch_execute(&format!(
            "CREATE FUNCTION slow_update() RETURNS trigger LANGUAGE plpgsql AS
               $$ BEGIN PERFORM pg_sleep({secs}); RETURN NEW; END $$;
             CREATE TRIGGER slow_update BEFORE UPDATE ON publication_jobs
               FOR EACH ROW EXECUTE FUNCTION slow_update();"
        ))
        .await
        .unwrap();
}

/// The value after `flag ` in a one-line command.
fn arg_after<'a>(command: &'a str, flag: &str) -> &'a str {
    let words: Vec<&str> = command.split_whitespace().collect();
    let i = words
        .iter()
        .position(|w| *w == flag)
        .unwrap_or_else(|| panic!("no {flag} in {command}"));
    words[i + 1]
}

// ---------------------------------------------------------------------------------------
// Issue 11: the controls use the destination's timeout and the lookup body cap
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Which {
    Positive,
    Negative,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Positive => "positive",
            Which::Negative => "negative",
        }
    }
    fn other(self) -> &'static str {
        match self {
            Which::Positive => "negative",
            Which::Negative => "positive",
        }
    }
}

/// A CMS holding the canary (answered by `canary`), answering `[]` for the job, and
/// `fallback` for everything else (the negative control's made-up reference).
async fn cms_with(job: &Job, canary: ResponseTemplate, fallback: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(query_param("external_ref", CANARY))
        .respond_with(canary)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(query_param("external_ref", job.external_ref.as_str()))
        .respond_with(none())
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(fallback)
        .with_priority(10)
        .mount(&server)
        .await;
    server
}

/// The `which` control's answer is a fault (one of `fault_texts` says which) under config `bad`:
/// `remote lookup` exits 1 with verdict unknown naming the failed control, `reconcile
/// --apply --yes` exits 5 having moved nothing and names the destination's failure once;
/// under `good` (the same destination, the limit raised) the same job is `safe_to_retry`.
async fn assert_control_fault(
    env: &TestEnv,
    job: &Job,
    which: Which,
    bad: &str,
    good: &str,
    fault_texts: &[&str],
) {
    let says_fault = |text: &str| fault_texts.iter().any(|f| text.contains(f));
    let w = which.name();
    let out = with_config(
        env,
        bad,
        &["remote", "lookup", &job.id.to_string(), "-o", "json"],
    )
    .expect(1)
    .json();
    assert_eq!(out["verdict"], "unknown", "{out}");
    // The job's own answer was fine ("[]"); only the control's proves nothing.
    assert_eq!(out["outcome"], "not_found", "{out}");
    assert_eq!(out["controls"][w]["outcome"], "unreachable", "{out}");
    assert_eq!(out["controls"][w]["ok"], false, "{out}");
    assert_eq!(out["controls"][which.other()]["ok"], true, "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("{w} control failed")), "{reason}");
    assert!(says_fault(reason), "{reason}");
    assert_eq!(&env.job(job.id).await, job);

    let rec = with_config(env, bad, &["reconcile", "--apply", "--yes", "-o", "json"])
        .expect(5)
        .json();
    assert_eq!(
        rec["summary"],
        json!({"accept": 0, "safe_to_retry": 0, "conflict": 0, "wait": 0, "unknown": 1, "moved": 0, "skipped": 0}),
        "{rec}"
    );
    assert_eq!(rec["controls"]["cms-a"]["ok"], false, "{rec}");
    assert_eq!(rec["controls"]["cms-a"][w]["ok"], false, "{rec}");
    assert_eq!(
        rec["controls"]["cms-a"][w]["outcome"], "unreachable",
        "{rec}"
    );
    assert_eq!(rec["jobs"][0]["verdict"], "unknown", "{rec}");
    assert_eq!(rec["jobs"][0]["action"], "none", "{rec}");
    // The people's report, its wrapped lines joined.
    let text = with_config(env, bad, &["reconcile"])
        .expect(5)
        .stdout()
        .replace("\n  ", " ");
    assert_eq!(text.matches("destination cms-a: ").count(), 1, "{text}");
    assert!(
        text.contains(&format!("destination cms-a: {w} control failed")),
        "{text}"
    );
    assert!(says_fault(&text), "{text}");
    assert_eq!(&env.job(job.id).await, job);
    assert_eq!(env.events(job.id).await.len(), 1);

    // The same answers within the limits: both controls pass, the job's "not found" counts.
    let out = with_config(
        env,
        good,
        &["remote", "lookup", &job.id.to_string(), "-o", "json"],
    )
    .expect(0)
    .json();
    assert_eq!(out["verdict"], "safe_to_retry", "{out}");
    assert_eq!(out["controls"]["positive"]["ok"], true, "{out}");
    assert_eq!(out["controls"]["negative"]["ok"], true, "{out}");
}

/// A control whose answer comes later than the destination's timeout (1 s; the CMS takes
/// 3 s) is a failed control: unknown, nothing moves. With `timeout = "5s"` it passes.
async fn control_slower_than_the_timeout(which: Which) {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("slow-control")).await;
    let slow = Duration::from_secs(3);
    let canary = found(CANARY_ID, &"c".repeat(64));
    let (canary, fallback) = match which {
        Which::Positive => (canary.set_delay(slow), none()),
        Which::Negative => (canary, none().set_delay(slow)),
    };
    let server = cms_with(&job, canary, fallback).await;
    let bad = config_for(&server.uri(), &format!("canary_ref = \"{CANARY}\""));
    assert!(bad.contains("timeout = \"1s\""));
    let good = bad.replace("timeout = \"1s\"", "timeout = \"5s\"");
    let bad = env.write_config(&bad);
    let good_path = env.dir.path().join("good.toml");
    std::fs::write(&good_path, good).unwrap();
    let started = Instant::now();
    let run = with_config(
        &env,
        &bad,
        &["remote", "lookup", &job.id.to_string(), "-o", "json"],
    )
    .expect(1);
    // Cut off at the timeout, not waited for.
    assert!(
        started.elapsed() < slow,
        "took {:?}: {}",
        started.elapsed(),
        run.stdout()
    );
    assert_control_fault(
        &env,
        &job,
        which,
        &bad,
        good_path.to_str().unwrap(),
        // reqwest's own deadline (the same timeout) or the one around the whole exchange,
        // whichever fires first: the same message, naming the timeout.
        &["no complete answer within the timeout of 1s"],
    )
    .await;
}

#[tokio::test]
async fn a_positive_control_slower_than_the_timeout_is_unknown_and_moves_nothing() {
    control_slower_than_the_timeout(Which::Positive).await;
}

#[tokio::test]
async fn a_negative_control_slower_than_the_timeout_is_unknown_and_moves_nothing() {
    control_slower_than_the_timeout(Which::Negative).await;
}

/// A control whose answer is larger than `lookup.max_body_bytes` (4096; the answer is over
/// 5000 bytes, otherwise well-formed and right) is a failed control: unknown, nothing
/// moves. With the cap at 65536 it passes.
async fn control_over_the_body_cap(which: Which) {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("big-control")).await;
    let big_canary = ResponseTemplate::new(200).set_body_json(
        json!([{"id": CANARY_ID, "payload_hash": "c".repeat(64), "pad": "p".repeat(5000)}]),
    );
    // `[]` padded with whitespace: valid JSON, no match, 5002 bytes.
    let big_empty = ResponseTemplate::new(200)
        .set_body_raw(format!("[{}]", " ".repeat(5000)), "application/json");
    let (canary, fallback) = match which {
        Which::Positive => (big_canary, none()),
        Which::Negative => (found(CANARY_ID, &"c".repeat(64)), big_empty),
    };
    let server = cms_with(&job, canary, fallback).await;
    let base = config_for(&server.uri(), &format!("canary_ref = \"{CANARY}\""));
    let bad = env.write_config(&format!("{base}\n[lookup]\nmax_body_bytes = 4096\n"));
    let good_path = env.dir.path().join("good.toml");
    std::fs::write(
        &good_path,
        format!("{base}\n[lookup]\nmax_body_bytes = 65536\n"),
    )
    .unwrap();
    assert_control_fault(
        &env,
        &job,
        which,
        &bad,
        good_path.to_str().unwrap(),
        &["the answer is larger than the cap of 4096 bytes (lookup.max_body_bytes)"],
    )
    .await;
}

#[tokio::test]
async fn a_positive_control_answer_over_the_body_cap_is_unknown_and_moves_nothing() {
    control_over_the_body_cap(Which::Positive).await;
}

#[tokio::test]
async fn a_negative_control_answer_over_the_body_cap_is_unknown_and_moves_nothing() {
    control_over_the_body_cap(Which::Negative).await;
}

// ---------------------------------------------------------------------------------------
// Issue 13: reconcile's progress bar; a closed stdout during --apply
// ---------------------------------------------------------------------------------------

/// One drawing of the bar `{label} [{bar:30}] {pos}/{len} ({per_sec}, {eta} left)`.
#[derive(Debug)]
struct Frame {
    pos: u64,
    len: u64,
    rate: f64,
    eta: String,
}

/// Every complete drawing of the bar labelled `label` in what the terminal received.
fn frames(screen: &str, label: &str) -> Vec<Frame> {
    let start = format!("{label} [");
    let mut out = Vec::new();
    for (i, _) in screen.match_indices(&start) {
        let rest = &screen[i + start.len()..];
        let Some(bar) = rest.get(..30) else { continue };
        if !bar.chars().all(|c| matches!(c, '=' | '>' | ' ')) {
            continue;
        }
        let Some(rest) = rest[30..].strip_prefix("] ") else {
            continue;
        };
        let Some(end) = rest.find(')') else { continue };
        let body = &rest[..end];
        let parse = || -> Option<Frame> {
            let (count, tail) = body.split_once(" (")?;
            let (pos, len) = count.split_once('/')?;
            let (rate, eta) = tail.split_once("/s, ")?;
            let eta = eta.strip_suffix(" left")?;
            let digits = eta.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let unit = &eta[digits.len()..];
            if digits.is_empty()
                || !digits.chars().all(|c| c.is_ascii_digit())
                || !["s", "m", "h"].contains(&unit)
            {
                return None;
            }
            Some(Frame {
                pos: pos.parse().ok()?,
                len: len.parse().ok()?,
                rate: rate.replace(',', "").parse().ok()?,
                eta: eta.to_string(),
            })
        };
        if let Some(f) = parse() {
            out.push(f);
        }
    }
    out
}

/// The bar's drawings show a run under way: the count of the jobs to examine, a rate, and
/// the time left.
fn assert_bar(screen: &str, label: &str, total: u64) {
    let fs = frames(screen, label);
    assert!(
        !fs.is_empty(),
        "no `{label}` bar on the terminal:\n{screen}"
    );
    for f in &fs {
        assert_eq!(f.len, total, "{f:?}");
        assert!(f.pos <= total, "{f:?}");
    }
    assert!(
        fs.iter()
            .any(|f| f.pos > 0 && f.pos < total && f.rate > 0.0 && f.eta != "0s"),
        "no drawing mid-run with a rate and a time left: {fs:?}\n{screen}"
    );
}

/// On a terminal, reconcile draws an indicatif bar on stderr: "reconciling" (streamed
/// apply) or "looking up" (staged), the count of the jobs examined, the rate and the time
/// left; in a pipe it draws nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconcile_on_a_terminal_shows_a_bar_with_label_count_rate_and_eta() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    // On a terminal of 120 columns, at 10 lookups a second: what it showed (exit 0).
    let on_a_terminal = |extra: &[&str]| {
        let mut args = vec!["--config", cfg.as_str(), "reconcile", "--apply", "--yes"];
        args.extend_from_slice(extra);
        args.extend(["--concurrency", "1", "--rps", "10"]);
        let mut p = env.pty_cols(120, &args, true);
        let screen = pty_rest(&mut p);
        assert_eq!(pty_exit(&p), 0, "{screen}");
        screen
    };
    // 30 jobs: three seconds.
    bulk_uncertain(&env.client, "a", 30).await;
    let screen = on_a_terminal(&[]);
    assert!(
        screen.contains(
            "reconcile: examined 30: accept 0, safe_to_retry 30, conflict 0, wait 0, unknown 0; moved 30, skipped 0"
        ),
        "{screen}"
    );
    assert_bar(&screen, "reconciling", 30);
    assert_eq!(
        env.count("SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry'")
            .await,
        30
    );

    // Staged (--max): every lookup first, under its own label.
    bulk_uncertain(&env.client, "b", 30).await;
    let screen = on_a_terminal(&["--max", "100"]);
    assert_bar(&screen, "looking up", 30);
    assert!(frames(&screen, "reconciling").is_empty(), "{screen}");
    assert_eq!(
        env.count("SELECT count(*) FROM publication_jobs WHERE state = 'safe_to_retry'")
            .await,
        60
    );

    // In a pipe (cron), however long the run: no bar, nothing on stderr.
    bulk_uncertain(&env.client, "c", 12).await;
    let started = Instant::now();
    let run = with_config(
        &env,
        &cfg,
        &[
            "reconcile",
            "--apply",
            "--yes",
            "--concurrency",
            "1",
            "--rps",
            "10",
        ],
    )
    .expect(0);
    assert!(started.elapsed() > Duration::from_secs(1));
    assert_eq!(run.stderr(), "");
    assert!(!run.stdout().contains("reconciling ["), "{}", run.stdout());
}

/// `reconcile --apply --yes | head -1`: the reader goes away after the first line. The run
/// still makes every justified move (one event each), exits with the run's code (5: one job
/// unknown) and says on stderr what it did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdout_closed_during_apply_finishes_every_move_and_reports_on_stderr() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let accept = env.seed(uncertain("accept")).await;
    cms.answer(&accept.external_ref, found("r-acc", &accept.payload_hash))
        .await;
    let broken = env.seed(uncertain("broken")).await;
    cms.answer(&broken.external_ref, ResponseTemplate::new(500))
        .await;
    bulk_uncertain(&env.client, "m", 40).await;
    // Every other lookup takes 100 ms, one at a time: about four seconds.
    Mock::given(method("GET"))
        .respond_with(none().set_delay(Duration::from_millis(100)))
        .with_priority(9)
        .mount(&cms.server)
        .await;
    let cfg = env.write_config(&cms.config(""));
    let mut child = env
        .std_cmd()
        .args([
            "--config",
            &cfg,
            "reconcile",
            "--apply",
            "--yes",
            "--concurrency",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let first = tokio::task::spawn_blocking(move || {
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        line
        // The reader (and the pipe's read end) is dropped here: `head -1` exits.
    })
    .await
    .unwrap();
    assert!(!first.is_empty());
    let moved_sql = "SELECT count(*) FROM job_events WHERE action LIKE 'reconcile_%'";
    let moved_at_close = env.count(moved_sql).await;
    assert!(moved_at_close < 41, "the run was over before stdout closed");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let run = Run(out).expect(5);
    assert_eq!(
        run.stderr(),
        "warning: stdout was closed during the run; it went on to finish what --apply was asked to do: reconcile: examined 42: accept 1, safe_to_retry 40, conflict 0, wait 0, unknown 1; moved 41, skipped 0\n"
    );
    assert_eq!(env.count(moved_sql).await, 41);
    assert_eq!(
        env.count(
            "SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry' AND to_state = 'safe_to_retry'"
        )
        .await,
        40
    );
    let a = env.job(accept.id).await;
    assert_eq!(
        (a.state, a.version, a.remote_id.as_deref()),
        (State::Accepted, accept.version + 1, Some("r-acc"))
    );
    assert_eq!(&env.job(broken.id).await, &broken);
    assert_eq!(
        env.count("SELECT count(*) FROM publication_jobs WHERE state = 'uncertain'")
            .await,
        1
    );
}

// ---------------------------------------------------------------------------------------
// Issue 14: staged mode's one document; the failure hints of a run that moved something
// ---------------------------------------------------------------------------------------

/// Two accepts, three safe_to_retry, a wait and an unknown.
struct Staged {
    env: TestEnv,
    cfg: String,
    jobs: Vec<Job>,
}

async fn staged_world() -> (Staged, Cms) {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let mut jobs = Vec::new();
    for i in 0..2 {
        let j = env.seed(uncertain(&format!("acc{i}"))).await;
        cms.answer(&j.external_ref, found(&format!("r-{i}"), &j.payload_hash))
            .await;
        jobs.push(j);
    }
    for i in 0..3 {
        jobs.push(env.seed(uncertain(&format!("gone{i}"))).await);
    }
    jobs.push(
        env.seed(Seed::new("recent").state(State::Uncertain).sent_ago(5))
            .await,
    );
    let broken = env.seed(uncertain("broken")).await;
    cms.answer(&broken.external_ref, ResponseTemplate::new(500))
        .await;
    jobs.push(broken);
    let cfg = env.write_config(&cms.config(""));
    (Staged { env, cfg, jobs }, cms)
}

/// `reconcile --apply --yes --max N -o json` (staged: every lookup, then the moves) prints
/// exactly one document: `applied`, every job with its action, the summary, the controls.
#[tokio::test]
async fn staged_json_is_one_document_with_every_job_and_the_summary() {
    let (w, _cms) = staged_world().await;
    let run = with_config(
        &w.env,
        &w.cfg,
        &["reconcile", "--apply", "--yes", "--max", "5", "-o", "json"],
    )
    .expect(5);
    let docs = documents(&run.0.stdout);
    assert_eq!(docs.len(), 1, "{docs:?}");
    let doc = &docs[0];
    assert_eq!(
        keys(doc),
        ["applied", "controls", "jobs", "summary"],
        "{doc}"
    );
    assert_eq!(doc["applied"], json!(true));
    assert_eq!(
        doc["summary"],
        json!({"accept": 2, "safe_to_retry": 3, "conflict": 0, "wait": 1, "unknown": 1, "moved": 5, "skipped": 0})
    );
    assert_eq!(doc["controls"]["cms-a"]["ok"], json!(true), "{doc}");
    let rows = doc["jobs"].as_array().unwrap();
    assert_eq!(rows.len(), 7, "{doc}");
    for r in rows {
        for k in [
            "id",
            "external_ref",
            "destination",
            "verdict",
            "action",
            "to_state",
            "reason",
        ] {
            assert!(r.get(k).is_some(), "{k} missing: {r}");
        }
        let id: uuid::Uuid = r["id"].as_str().unwrap().parse().unwrap();
        let before = w.jobs.iter().find(|j| j.id == id).unwrap();
        let now = w.env.job(id).await;
        assert_eq!(r["external_ref"], json!(before.external_ref));
        let expect = match before.article_id.as_str() {
            a if a.starts_with("acc") => ("accept", "moved", json!("accepted"), State::Accepted),
            a if a.starts_with("gone") => (
                "safe_to_retry",
                "moved",
                json!("safe_to_retry"),
                State::SafeToRetry,
            ),
            "recent" => ("wait", "none", Value::Null, State::Uncertain),
            _ => ("unknown", "none", Value::Null, State::Uncertain),
        };
        assert_eq!(
            (&r["verdict"], &r["action"], &r["to_state"]),
            (&json!(expect.0), &json!(expect.1), &expect.2),
            "{r}"
        );
        assert_eq!(now.state, expect.3, "{r}");
        let moved = expect.1 == "moved";
        assert_eq!(now.version, before.version + i64::from(moved), "{r}");
        assert_eq!(w.env.events(id).await.len(), 1 + usize::from(moved), "{r}");
    }
    assert_eq!(run.stderr(), "");
}

/// Staged mode refusing because more than `--max` would move: exit 2, exactly one
/// document, `{"error": …}` with the limit and what was seen, and nothing moved.
#[tokio::test]
async fn staged_json_refusing_over_max_is_one_error_document_and_moves_nothing() {
    let (w, _cms) = staged_world().await;
    let run = with_config(
        &w.env,
        &w.cfg,
        &["reconcile", "--apply", "--yes", "--max", "4", "-o", "json"],
    )
    .expect(2);
    let docs = documents(&run.0.stdout);
    assert_eq!(docs.len(), 1, "{docs:?}");
    let doc = &docs[0];
    assert_eq!(keys(doc), ["error"], "{doc}");
    let err = &doc["error"];
    assert_eq!(err["code"], "too_many_moves", "{err}");
    assert_eq!(err["kind"], "usage", "{err}");
    assert_eq!(err["exit_code"], 2, "{err}");
    let examined = err["detail"]["examined"].as_u64().unwrap();
    assert!((5..=7).contains(&examined), "{err}");
    assert_eq!(
        err["detail"],
        json!({"max": 4, "examined": examined, "would_move_at_least": 5})
    );
    assert_eq!(
        err["message"],
        json!(format!(
            "refusing to apply: more than --max 4 jobs would move (stopped looking after {examined} examined); nothing changed"
        ))
    );
    for j in &w.jobs {
        assert_eq!(&w.env.job(j.id).await, j);
        assert_eq!(w.env.events(j.id).await.len(), 1);
    }
    assert!(
        run.stderr()
            .starts_with("error: refusing to apply: more than --max 4"),
        "{}",
        run.stderr()
    );
}

/// Staged mode whose database goes away after the first batch of moves committed (600
/// jobs, batches of 256): one document, closed with the error; what it says moved is what
/// the database holds; the message says how many moved and the hint's command shows them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_staged_run_whose_database_goes_away_is_one_document_and_names_its_moves() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    bulk_uncertain(&env.client, "s", 600).await;
    // A batch of 256 moves takes about half a second.
    slow_updates(&env, 0.002).await;
    let child = env
        .std_cmd()
        .args([
            "--config",
            &cfg,
            "reconcile",
            "--apply",
            "--yes",
            "--max",
            "1000",
            "-o",
            "json",
        ])
        .spawn()
        .unwrap();
    let moved_sql = "SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry'";
    let deadline = Instant::now() + Duration::from_secs(60);
    while env.count(moved_sql).await < 256 {
        assert!(Instant::now() < deadline, "the first batch never committed");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    env.go_away().await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    env.come_back().await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let run = Run(out).expect(1);
    let c = connect_url(&env.url).await;
    let in_db: i64 = c.query_one(moved_sql, &[]).await.unwrap().get(0);
    assert_eq!(in_db, 256, "{}", run.stderr());

    let docs = documents(&run.0.stdout);
    assert_eq!(docs.len(), 1, "{}", run.stdout());
    let doc = &docs[0];
    assert_eq!(doc["applied"], json!(true));
    assert_eq!(doc["summary"]["moved"], json!(256), "{doc}");
    assert_eq!(doc["summary"]["safe_to_retry"], json!(600), "{doc}");
    let rows = doc["jobs"].as_array().unwrap();
    assert_eq!(rows.len(), 600);
    assert_eq!(rows.iter().filter(|r| r["action"] == "moved").count(), 256);
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("reconcile stopped: ")
            && message
                .ends_with("; before that it moved 256 jobs (256 → safe_to_retry), which stand"),
        "{message}"
    );
    let err = run.stderr();
    assert!(err.contains(&format!("error: {message}\n")), "{err}");
    let hint = err
        .lines()
        .find_map(|l| l.strip_prefix("hint: see what it moved: "))
        .unwrap_or_else(|| panic!("no hint naming the moves:\n{err}"));
    let (command, rest) = hint.split_once("; ").unwrap();
    assert_eq!(
        rest,
        "run reconcile again to go on (it takes up the jobs still uncertain)"
    );
    let since = arg_after(command, "--since");
    assert_eq!(
        command,
        format!("reconctl events --since {since} --actor tester")
    );
    // The command the hint names shows exactly the moves that stand.
    let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
    args.extend(["--limit", "1000", "-o", "json"]);
    let shown = env.run(&args).expect(0).json();
    let events = shown["events"].as_array().unwrap();
    assert_eq!(events.len(), 256, "{shown}");
    assert!(events
        .iter()
        .all(|e| e["action"] == "reconcile_safe_to_retry"));
}

/// A sweep whose database goes away after some batches committed: exit 1, the message
/// counts what the committed batches moved, and the last hint names the command that shows
/// them (`reconctl events --since START --action sweep_sent --action sweep_unsent`), which
/// lists exactly the moves the database holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_that_fails_midway_names_the_command_that_shows_its_moves() {
    let env = TestEnv::new().await;
    for i in 0..8i64 {
        let s = Seed::new(&format!("lease{i}"))
            .state(State::InFlight)
            .lease("worker-1", -600 - 10 * (8 - i));
        let s = if i % 2 == 0 { s.sent_ago(700) } else { s };
        env.seed(s).await;
    }
    // One job a batch, a third of a second each.
    slow_updates(&env, 0.3).await;
    let db_start: DateTime<Utc> = env
        .client
        .query_one("SELECT now()", &[])
        .await
        .unwrap()
        .get(0);
    let child = env
        .std_cmd()
        .args(["sweep", "leases", "--batch", "1"])
        .spawn()
        .unwrap();
    let moved_sql =
        "SELECT count(*) FROM job_events WHERE action IN ('sweep_sent', 'sweep_unsent')";
    let deadline = Instant::now() + Duration::from_secs(30);
    while env.count(moved_sql).await < 3 {
        assert!(Instant::now() < deadline, "the sweep never got going");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    env.go_away().await;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    env.come_back().await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let run = Run(out).expect(1);
    assert_eq!(run.stdout(), "");
    let c = connect_url(&env.url).await;
    let in_db: i64 = c.query_one(moved_sql, &[]).await.unwrap().get(0);
    assert!((3..8).contains(&in_db), "{in_db}: {}", run.stderr());
    let to_pending: i64 = c
        .query_one(
            "SELECT count(*) FROM job_events WHERE action = 'sweep_unsent'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let to_uncertain = in_db - to_pending;

    let err = run.stderr();
    let lines: Vec<&str> = err.lines().collect();
    // The committed batches' count, as the database has them (the batch in flight was
    // ended mid-statement; had its COMMIT's answer been lost, the hint would say so).
    let unknown_commit = err.contains("whether the last batch committed could not be learnt");
    let counted = format!(
        "(after {n} {b} committed: {p} → pending, {u} → uncertain)",
        n = in_db,
        b = if in_db == 1 { "batch" } else { "batches" },
        p = to_pending,
        u = to_uncertain
    );
    if !unknown_commit {
        assert!(
            lines[0].starts_with("error: ") && lines[0].ends_with(&counted),
            "{err}"
        );
        assert!(
            lines.contains(
                &"hint: the failed batch changed nothing and the earlier ones stand; it is safe to run the sweep again"
            ),
            "{err}"
        );
    }
    let last = *lines.last().unwrap();
    let command = last
        .strip_prefix("hint: see what it moved: ")
        .unwrap_or_else(|| panic!("the last hint does not name the moves:\n{err}"));
    let since = arg_after(command, "--since");
    assert_eq!(
        command,
        format!("reconctl events --since {since} --action sweep_sent --action sweep_unsent")
    );
    let since: DateTime<Utc> = since.parse().unwrap();
    assert!(
        since <= db_start + chrono::Duration::seconds(2)
            && since >= db_start - chrono::Duration::seconds(1),
        "{since} vs {db_start}"
    );
    let mut args: Vec<&str> = command.split_whitespace().skip(1).collect();
    args.extend(["--limit", "1000", "-o", "json"]);
    let shown = env.run(&args).expect(0).json();
    let events = shown["events"].as_array().unwrap();
    assert_eq!(events.len() as i64, in_db, "{shown}");
    let shown_pending = events
        .iter()
        .filter(|e| e["action"] == "sweep_unsent")
        .count() as i64;
    assert_eq!(shown_pending, to_pending, "{shown}");
}

// ---------------------------------------------------------------------------------------
// Issue 16: a paused destination's in-flight jobs still fail as usual
// ---------------------------------------------------------------------------------------

/// A job claimed before its destination was paused: the worker's `fail` (the destination
/// rejected it definitively) still moves it in_flight → failed, at the next version, with
/// its `fail` event, lease cleared and the error recorded; the pause stands meanwhile (no
/// new claim for that destination).
#[tokio::test]
async fn a_worker_fails_an_in_flight_job_of_a_paused_destination_as_usual() {
    let env = TestEnv::new().await;
    let lease = Duration::from_secs(60);
    env.seed(Seed::new("a1").aged(900)).await;
    env.seed(Seed::new("a2").aged(800)).await;
    let waiting = env.seed(Seed::new("a3").aged(700)).await;
    let first = worker::claim(&env.client, "w-1", lease, Some("cms-a"))
        .await
        .unwrap()
        .expect("a1 is claimable");
    let second = worker::claim(&env.client, "w-2", lease, Some("cms-a"))
        .await
        .unwrap()
        .expect("a2 is claimable");
    let second = worker::mark_sent(&env.client, &second).await.unwrap();

    env.run(&[
        "destination",
        "pause",
        "cms-a",
        "--reason",
        "CMS answers 503",
        "--yes",
    ])
    .expect(0);
    assert_eq!(
        worker::claim(&env.client, "w-3", lease, Some("cms-a"))
            .await
            .unwrap(),
        None,
        "the pause holds"
    );

    // Never sent, rejected; and sent, then rejected definitively.
    for (before, error) in [
        (&first, "HTTP 422: schema rejected"),
        (&second, "HTTP 409: slug taken"),
    ] {
        let failed = worker::fail(&env.client, before, error).await.unwrap();
        assert_eq!(failed.state, State::Failed);
        assert_eq!(failed.version, before.version + 1);
        assert_eq!(failed.lease_owner, None);
        assert_eq!(failed.lease_expires_at, None);
        assert_eq!(failed.last_error.as_deref(), Some(error));
        assert_eq!(failed.sent_at, before.sent_at);
        assert_eq!(&env.job(before.id).await, &failed);
        let events = env.events(before.id).await;
        let e = events.last().unwrap();
        assert_eq!(e.action.as_str(), "fail");
        assert_eq!(
            (e.from_state, e.to_state, e.from_version, e.to_version),
            (
                Some(State::InFlight),
                State::Failed,
                Some(before.version),
                failed.version
            )
        );
        assert_eq!(e.actor, before.lease_owner.clone().unwrap());
        assert_eq!(e.reason.as_deref(), Some(error));
    }
    // Still paused: the pause is untouched by in-flight work ending.
    let list = env
        .run(&["destination", "list", "-o", "json"])
        .expect(0)
        .json();
    let d = list["destinations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "cms-a")
        .unwrap_or_else(|| panic!("{list}"))
        .clone();
    assert_eq!(d["paused"], json!(true), "{d}");
    assert_eq!(d["reason"], json!("CMS answers 503"), "{d}");
    assert_eq!(d["actor"], json!("tester"), "{d}");
    assert_eq!(&env.job(waiting.id).await, &waiting);
}
