//! `reconcile`: the plan changes nothing; `--apply` moves exactly the justified jobs with one
//! event each; concurrent movers are skipped, never overwritten; `--max`, `--yes` and the
//! question guard the apply; keyset pages see every uncertain job once.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Stdio;
use std::time::{Duration, Instant};

use reconctl::jobs::store::{guarded_move, Effects, MoveOutcome, MoveRequest};
use reconctl::jobs::{Action, Job, State};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::cms::{config_for, found, none, Cms};
use crate::harness::*;
use crate::remote::faults;

const TOKEN: &str = "rec0ncile-t0ken-xyz";

async fn mount(cms: &Cms, job: &Job, resp: ResponseTemplate) {
    cms.answer(&job.external_ref, resp).await;
}

/// One uncertain job for each verdict (and each kind of conflict and unknown), a job for a
/// destination nobody configured, and jobs reconcile must not look at.
struct World {
    env: TestEnv,
    cms: Cms,
    cfg: String,
    accept: Job,
    mismatch: Job,
    twice: Job,
    gone: Job,
    recent: Job,
    broken: Job,
    unconfigured: Job,
    pending: Job,
    conflict_state: Job,
}

async fn world() -> World {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config("token_env = \"CMS_A_TOKEN\""));
    let u = |name: &str, ago: i64| Seed::new(name).state(State::Uncertain).sent_ago(ago);
    let accept = env.seed(u("accept", 600)).await;
    mount(&cms, &accept, found("r-acc", &accept.payload_hash)).await;
    let mismatch = env.seed(u("mismatch", 600)).await;
    mount(&cms, &mismatch, found("r-mis", &"0".repeat(64))).await;
    let twice = env.seed(u("twice", 600)).await;
    mount(
        &cms,
        &twice,
        ResponseTemplate::new(200).set_body_json(json!([{"id": "r-1"}, {"id": "r-2"}])),
    )
    .await;
    let gone = env.seed(u("gone", 600)).await;
    mount(&cms, &gone, none()).await;
    let recent = env.seed(u("recent", 10)).await;
    mount(&cms, &recent, none()).await;
    let broken = env.seed(u("broken", 600)).await;
    mount(&cms, &broken, ResponseTemplate::new(500)).await;
    let unconfigured = env.seed(u("elsewhere", 600).destination("cms-b")).await;
    // Not uncertain: never looked up, never moved.
    let pending = env.seed(Seed::new("pending")).await;
    mount(&cms, &pending, none()).await;
    let conflict_state = env
        .seed(Seed::new("conflicted").state(State::Conflict).sent_ago(600))
        .await;
    mount(&cms, &conflict_state, none()).await;
    World {
        env,
        cms,
        cfg,
        accept,
        mismatch,
        twice,
        gone,
        recent,
        broken,
        unconfigured,
        pending,
        conflict_state,
    }
}

impl World {
    fn reconcile(&self, extra: &[&str]) -> Run {
        let mut args = vec!["--config", self.cfg.as_str(), "reconcile", "-o", "json"];
        args.extend_from_slice(extra);
        let run = Run(self
            .env
            .cmd()
            .env("CMS_A_TOKEN", TOKEN)
            .args(&args)
            .write_stdin("")
            .output()
            .unwrap());
        assert!(
            !run.stdout().contains(TOKEN) && !run.stderr().contains(TOKEN),
            "the token leaked into the output"
        );
        run
    }

    fn all(&self) -> Vec<&Job> {
        vec![
            &self.accept,
            &self.mismatch,
            &self.twice,
            &self.gone,
            &self.recent,
            &self.broken,
            &self.unconfigured,
            &self.pending,
            &self.conflict_state,
        ]
    }

    async fn assert_nothing_changed(&self) {
        for j in self.all() {
            assert_eq!(&self.env.job(j.id).await, j, "{} changed", j.article_id);
            assert_eq!(self.env.events(j.id).await.len(), 1, "{}", j.article_id);
        }
    }
}

/// The output's jobs by id, each without its free-text reason (checked: one line).
fn rows(out: &Value) -> BTreeMap<String, Value> {
    out["jobs"]
        .as_array()
        .expect("a jobs array")
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let reason = r.as_object_mut().unwrap().remove("reason").unwrap();
            let reason = reason.as_str().unwrap();
            assert!(!reason.is_empty() && !reason.contains('\n'), "{reason}");
            (r["id"].as_str().unwrap().to_string(), r)
        })
        .collect()
}

fn row(job: &Job, verdict: &str, action: &str, to: Option<&str>) -> (String, Value) {
    (
        job.id.to_string(),
        json!({"id": job.id, "external_ref": job.external_ref, "destination": job.destination,
               "verdict": verdict, "action": action, "to_state": to}),
    )
}

#[tokio::test]
async fn the_plan_changes_nothing() {
    let w = world().await;
    let out = w.reconcile(&[]).expect(5).json();
    assert_eq!(out["applied"], false);
    let expected: BTreeMap<String, Value> = [
        row(&w.accept, "accept", "planned", Some("accepted")),
        row(&w.mismatch, "conflict", "planned", Some("conflict")),
        row(&w.twice, "conflict", "planned", Some("conflict")),
        row(&w.gone, "safe_to_retry", "planned", Some("safe_to_retry")),
        row(&w.recent, "wait", "none", None),
        row(&w.broken, "unknown", "none", None),
        row(&w.unconfigured, "unknown", "none", None),
    ]
    .into_iter()
    .collect();
    assert_eq!(rows(&out), expected);
    assert_eq!(
        out["summary"],
        json!({"accept": 1, "safe_to_retry": 1, "conflict": 2, "wait": 1, "unknown": 2,
               "moved": 0, "skipped": 0})
    );
    let why = out["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == json!(w.unconfigured.id))
        .unwrap()["reason"]
        .clone();
    assert!(why.as_str().unwrap().contains("cms-b"), "{why}");
    w.assert_nothing_changed().await;

    // The people's version: a line a job and the summary.
    let run = Run(w
        .env
        .cmd()
        .env("CMS_A_TOKEN", TOKEN)
        .args(["--config", &w.cfg, "reconcile"])
        .output()
        .unwrap())
    .expect(5);
    let text = run.stdout();
    assert!(text.contains(&w.accept.id.to_string()), "{text}");
    assert!(
        text.contains("examined 7: accept 1, safe_to_retry 1, conflict 2, wait 1, unknown 2"),
        "{text}"
    );
    assert!(text.contains("--apply"), "{text}");
    w.assert_nothing_changed().await;
}

#[tokio::test]
async fn apply_moves_exactly_the_justified_jobs_with_one_event_each() {
    let w = world().await;
    let out = w.reconcile(&["--apply", "--yes"]).expect(5).json();
    assert_eq!(out["applied"], true);
    let expected: BTreeMap<String, Value> = [
        row(&w.accept, "accept", "moved", Some("accepted")),
        row(&w.mismatch, "conflict", "moved", Some("conflict")),
        row(&w.twice, "conflict", "moved", Some("conflict")),
        row(&w.gone, "safe_to_retry", "moved", Some("safe_to_retry")),
        row(&w.recent, "wait", "none", None),
        row(&w.broken, "unknown", "none", None),
        row(&w.unconfigured, "unknown", "none", None),
    ]
    .into_iter()
    .collect();
    assert_eq!(rows(&out), expected);
    assert_eq!(
        out["summary"],
        json!({"accept": 1, "safe_to_retry": 1, "conflict": 2, "wait": 1, "unknown": 2,
               "moved": 4, "skipped": 0})
    );

    let env = &w.env;
    let accepted = env.job(w.accept.id).await;
    assert_eq!(accepted.state, State::Accepted);
    assert_eq!(accepted.remote_id.as_deref(), Some("r-acc"));
    assert_eq!(accepted.version, w.accept.version + 1);
    for (job, state, action) in [
        (&w.accept, State::Accepted, "reconcile_accepted"),
        (&w.mismatch, State::Conflict, "reconcile_conflict"),
        (&w.twice, State::Conflict, "reconcile_conflict"),
        (&w.gone, State::SafeToRetry, "reconcile_safe_to_retry"),
    ] {
        assert_eq!(env.job(job.id).await.state, state);
        let events = env.events(job.id).await;
        assert_eq!(events.len(), 2, "{}", job.article_id);
        let e = &events[1];
        assert_eq!(e.action, action);
        assert_eq!(e.actor, "tester");
        assert_eq!(e.from_state, Some(State::Uncertain));
        assert_eq!(e.from_version, Some(job.version));
        let lk = &e.evidence["lookup"];
        assert_eq!(lk["destination"], "cms-a");
        assert!(
            lk["url"].as_str().unwrap().contains(&job.external_ref),
            "{lk}"
        );
        assert!(lk["http_status"].is_u64(), "{lk}");
        assert!(lk["at"].is_string() && lk["elapsed_ms"].is_u64(), "{lk}");
        assert!(lk["matches"].is_array(), "{lk}");
        assert!(e.reason.as_deref().is_some_and(|r| !r.is_empty()));
        let text = serde_json::to_string(&e.evidence).unwrap();
        assert!(
            !text.contains(TOKEN),
            "the token leaked into an event: {text}"
        );
    }
    for job in [
        &w.recent,
        &w.broken,
        &w.unconfigured,
        &w.pending,
        &w.conflict_state,
    ] {
        assert_eq!(&env.job(job.id).await, job, "{} changed", job.article_id);
    }
    // The token went to the destination as a bearer header (the controls' requests too),
    // and nowhere else.
    for r in w.cms.server.received_requests().await.unwrap() {
        assert_eq!(r.headers["authorization"], format!("Bearer {TOKEN}"));
    }
    let all_events = env
        .count(&format!(
            "SELECT count(*) FROM job_events WHERE evidence::text LIKE '%{TOKEN}%' OR reason LIKE '%{TOKEN}%'"
        ))
        .await;
    assert_eq!(all_events, 0);

    // Run again: it only sees what is still uncertain, and moves nothing twice.
    let again = w.reconcile(&["--apply", "--yes"]).expect(5).json();
    assert_eq!(
        again["summary"],
        json!({"accept": 0, "safe_to_retry": 0, "conflict": 0, "wait": 1, "unknown": 2,
               "moved": 0, "skipped": 0})
    );
}

#[tokio::test]
async fn exit_0_when_every_job_got_a_definite_verdict() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let a = env
        .seed(Seed::new("a").state(State::Uncertain).sent_ago(600))
        .await;
    mount(&cms, &a, found("r-a", &a.payload_hash)).await;
    let b = env
        .seed(Seed::new("b").state(State::Uncertain).sent_ago(5))
        .await;
    mount(&cms, &b, none()).await;
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
        .expect(0)
        .json();
    assert_eq!(out["summary"]["moved"], 1);
    assert_eq!(out["summary"]["wait"], 1);
    // jsonl: one job a line, then the summary line.
    let lines = env
        .run(&["--config", &cfg, "reconcile", "-o", "jsonl"])
        .expect(0)
        .stdout();
    let lines: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["id"], json!(b.id));
    assert_eq!(lines[1]["summary"]["wait"], 1);
    assert_eq!(lines[1]["applied"], json!(false));
    // Nothing uncertain at all: an empty plan, exit 0.
    let empty = TestEnv::new().await;
    let out = empty
        .run(&["--config", &cfg, "reconcile", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(out["jobs"], json!([]));
    assert_eq!(out["summary"]["moved"], 0);
}

#[tokio::test]
async fn max_refuses_before_moving_anything() {
    let w = world().await;
    // Four jobs would move.
    let run = w.reconcile(&["--apply", "--yes", "--max", "3"]).expect(2);
    let err = run.json();
    assert_eq!(err["error"]["code"], "too_many_moves");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--max 3"),
        "{err}"
    );
    w.assert_nothing_changed().await;

    let out = w
        .reconcile(&["--apply", "--yes", "--max", "4"])
        .expect(5)
        .json();
    assert_eq!(out["summary"]["moved"], 4);
}

#[tokio::test]
async fn apply_without_a_terminal_needs_yes() {
    let w = world().await;
    let run = w.reconcile(&["--apply"]).expect(2);
    assert!(run.stderr().contains("--yes"), "{}", run.stderr());
    w.assert_nothing_changed().await;
    assert!(w.cms.asked().await.is_empty());
}

/// The destination answers slowly; meanwhile another actor settles the job. Reconcile's
/// guarded move then matches no row: `skipped`, not an error, and the other actor's move stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_moved_meanwhile_is_skipped() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(
        &cms.config("")
            .replace("timeout = \"1s\"", "timeout = \"5s\""),
    );
    let job = env
        .seed(Seed::new("slow").state(State::Uncertain).sent_ago(600))
        .await;
    mount(
        &cms,
        &job,
        found("r-slow", &job.payload_hash).set_delay(Duration::from_millis(1500)),
    )
    .await;
    let mut child = env
        .std_cmd()
        .env("RECONCTL_ACTOR", "reconciler")
        .args([
            "--config",
            &cfg,
            "reconcile",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until reconcile has read the job and asked about it.
    let deadline = Instant::now() + Duration::from_secs(20);
    while cms.asked_for(&job.external_ref).await == 0 {
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "reconcile never asked: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let other = env.connect().await;
    let moved = guarded_move(
        &other,
        &MoveRequest {
            job_id: job.id,
            expect_version: job.version,
            action: Action::MarkFailed,
            actor: "operator".into(),
            reason: Some("given up by hand".into()),
            evidence: json!({}),
            effects: Effects::default(),
        },
    )
    .await
    .unwrap();
    assert!(matches!(moved, MoveOutcome::Moved { .. }));
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let run = Run(out).expect(0);
    let out = run.json();
    let r = &out["jobs"][0];
    assert_eq!(r["verdict"], "accept");
    assert_eq!(r["action"], "skipped");
    assert_eq!(r["to_state"], Value::Null);
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .starts_with("skipped: changed concurrently"),
        "{r}"
    );
    assert_eq!(out["summary"]["skipped"], 1);
    assert_eq!(out["summary"]["moved"], 0);
    let now = env.job(job.id).await;
    assert_eq!(now.state, State::Failed);
    let events = env.events(job.id).await;
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].actor, "operator");
}

/// Two reconcilers at once over the same jobs: every job is moved exactly once, whoever wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_reconcilers_at_once_move_each_job_once() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    Mock::given(method("GET"))
        .respond_with(none().set_delay(Duration::from_millis(5)))
        .mount(&cms.server)
        .await;
    let cfg = env.write_config(&cms.config(""));
    for round in 0..3 {
        let mut ids = BTreeSet::new();
        for i in 0..60 {
            let j = env
                .seed(
                    Seed::new(&format!("r{round}-{i}"))
                        .state(State::Uncertain)
                        .sent_ago(600),
                )
                .await;
            ids.insert(j.id);
        }
        let spawn = |actor: &str| {
            env.std_cmd()
                .env("RECONCTL_ACTOR", actor)
                .args([
                    "--config",
                    &cfg,
                    "reconcile",
                    "--apply",
                    "--yes",
                    "--concurrency",
                    "16",
                    "-o",
                    "json",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn("rec-a"), spawn("rec-b"));
        let outs = tokio::task::spawn_blocking(move || {
            [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()]
        })
        .await
        .unwrap();
        let mut moved = 0;
        for out in outs {
            let out = Run(out).expect(0).json();
            moved += out["summary"]["moved"].as_u64().unwrap();
        }
        assert_eq!(moved, ids.len() as u64, "round {round}");
        for id in &ids {
            assert_eq!(env.job(*id).await.state, State::SafeToRetry);
            let events = env.events(*id).await;
            let reconciled = events
                .iter()
                .filter(|e| e.action == "reconcile_safe_to_retry")
                .count();
            assert_eq!(reconciled, 1, "round {round}: job {id}");
        }
    }
}

/// A row another session holds locked is not waited on by the batch: it is tried alone,
/// and past the lock timeout it is `skipped` (busy) while the others move, and the run exits
/// 6 (busy: run it again), not 0: a cron `|| alert` must hear of the job left behind. Run
/// again once the lock is gone, it moves.
#[tokio::test]
async fn a_locked_job_is_skipped_as_busy_the_rest_move_and_the_run_exits_6() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let mut jobs = Vec::new();
    for i in 0..3 {
        jobs.push(
            env.seed(
                Seed::new(&format!("l{i}"))
                    .state(State::Uncertain)
                    .sent_ago(600),
            )
            .await,
        );
    }
    let locker = env.connect().await;
    locker
        .batch_execute(&format!(
            "BEGIN; SELECT 1 FROM publication_jobs WHERE id = '{}' FOR UPDATE",
            jobs[1].id
        ))
        .await
        .unwrap();
    let out = env
        .run(&[
            "--config",
            &cfg,
            "--lock-timeout",
            "300ms",
            "reconcile",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .expect(6)
        .json();
    assert_eq!(out["summary"]["moved"], 2, "{out}");
    assert_eq!(out["summary"]["skipped"], 1, "{out}");
    let locked = out["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == json!(jobs[1].id))
        .unwrap();
    assert_eq!(locked["action"], "skipped");
    assert!(
        locked["reason"].as_str().unwrap().contains("locked"),
        "{locked}"
    );
    assert_eq!(env.job(jobs[1].id).await, jobs[1]);
    for j in [&jobs[0], &jobs[2]] {
        assert_eq!(env.job(j.id).await.state, State::SafeToRetry);
    }
    locker.batch_execute("ROLLBACK").await.unwrap();
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
        .expect(0)
        .json();
    assert_eq!(out["summary"]["moved"], 1);
    assert_eq!(env.job(jobs[1].id).await.state, State::SafeToRetry);
}

/// Insert `n` uncertain jobs (sent 10 minutes ago) with their seed events, in one statement.
pub(crate) async fn seed_many(env: &TestEnv, prefix: &str, destination: &str, n: i64) {
    env.client
        .execute(
            "WITH j AS (
                INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                    external_ref, payload_hash, state, sent_at, created_at, updated_at, state_changed_at)
                SELECT 't1', $1 || i, '1', $2,
                       'pub_' || encode(sha256(convert_to($1 || i || $2, 'UTF8')), 'hex'),
                       encode(sha256(convert_to('p' || i, 'UTF8')), 'hex'),
                       'uncertain', now() - interval '10 minutes',
                       -- Many jobs share a created_at: the keyset must break ties by id.
                       now() - interval '1 hour' + (i / 7) * interval '1 ms',
                       now() - interval '10 minutes', now() - interval '10 minutes'
                FROM generate_series(1, $3::int) AS i
                RETURNING id, state, version
             )
             INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
             SELECT id, 'seed', 'seed', NULL, state, NULL, version, 'test fixture' FROM j",
            &[&prefix, &destination, &(n as i32)],
        )
        .await
        .unwrap();
}

fn ids_of(jsonl: &str) -> Vec<String> {
    jsonl
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("id").is_some())
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

/// More uncertain jobs than a page: each is examined exactly once; --limit and --destination
/// narrow the run; a second run sees only what the first left uncertain.
#[tokio::test]
async fn keyset_pages_see_every_uncertain_job_once() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    seed_many(&env, "k", "cms-a", 1234).await;
    seed_many(&env, "other", "cms-b", 5).await;
    let all: BTreeSet<String> = {
        let rows = env
            .client
            .query(
                "SELECT id::text FROM publication_jobs WHERE destination = 'cms-a'",
                &[],
            )
            .await
            .unwrap();
        rows.iter().map(|r| r.get(0)).collect()
    };

    let run = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--destination",
            "cms-a",
            "--concurrency",
            "32",
            "-o",
            "jsonl",
        ])
        .expect(0);
    let ids = ids_of(&run.stdout());
    assert_eq!(ids.len(), 1234);
    assert_eq!(ids.iter().cloned().collect::<BTreeSet<_>>(), all);

    // Without --destination the unconfigured cms-b jobs are examined too: unknown, exit 5.
    let run = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--concurrency",
            "32",
            "-o",
            "jsonl",
        ])
        .expect(5);
    assert_eq!(ids_of(&run.stdout()).len(), 1239);
    assert!(run.stderr().contains("cms-b"), "{}", run.stderr());

    let out = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--destination",
            "cms-a",
            "--limit",
            "700",
            "--apply",
            "--yes",
            "--concurrency",
            "32",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["summary"]["moved"], 700);
    let first: BTreeSet<String> = out["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(first.len(), 700);

    let run = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--destination",
            "cms-a",
            "--concurrency",
            "32",
            "-o",
            "jsonl",
        ])
        .expect(0);
    let rest: BTreeSet<String> = ids_of(&run.stdout()).into_iter().collect();
    assert_eq!(rest.len(), 534);
    assert!(rest.is_disjoint(&first));
    assert_eq!(
        rest.union(&first).cloned().collect::<BTreeSet<_>>(),
        all,
        "the two runs together saw every job"
    );
    assert_eq!(
        env.count("SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry'")
            .await,
        700
    );
}

/// --rps spaces the lookups out; --concurrency bounds how many wait at once.
#[tokio::test]
async fn rps_and_concurrency_bound_the_lookups() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    Mock::given(method("GET"))
        .respond_with(none().set_delay(Duration::from_millis(300)))
        .mount(&cms.server)
        .await;
    let cfg = env.write_config(&cms.config(""));
    seed_many(&env, "q", "cms-a", 6).await;
    let timed = |args: &[&str]| {
        let mut all = vec!["--config", cfg.as_str(), "reconcile", "-o", "json"];
        all.extend_from_slice(args);
        let t = Instant::now();
        let out = env.run(&all).expect(0).json();
        assert_eq!(out["summary"]["safe_to_retry"], 6);
        t.elapsed()
    };
    // Six 300 ms lookups, two at a time: at least three rounds.
    let two = timed(&["--concurrency", "2"]);
    assert!(two >= Duration::from_millis(900), "{two:?}");
    // Five a second: the sixth starts at least a second after the first.
    let rps = timed(&["--concurrency", "64", "--rps", "5"]);
    assert!(rps >= Duration::from_millis(1000 + 300), "{rps:?}");
    // Unbounded, they overlap (a loose bound: well under the 1.8 s of one at a time).
    let wide = timed(&["--concurrency", "64"]);
    assert!(wide < Duration::from_millis(1800), "{wide:?}");
}

/// On a terminal, `--apply` shows the counts and asks (default no); only a yes moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_apply_asks_first() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let a = env
        .seed(Seed::new("ask-a").state(State::Uncertain).sent_ago(600))
        .await;
    mount(&cms, &a, found("r-ask", &a.payload_hash)).await;
    let b = env
        .seed(Seed::new("ask-b").state(State::Uncertain).sent_ago(600))
        .await;
    mount(&cms, &b, none()).await;

    // A "no" changes nothing and, like declining a mark, exits 2: a runbook's
    // `reconctl reconcile --apply && …` must not go on as if the jobs had moved.
    let mut p = env.pty(&["--config", &cfg, "reconcile", "--apply"]);
    p.exp_string("would move 2 of 2 examined jobs").unwrap();
    p.exp_string("Move these 2 jobs?").unwrap();
    p.send_line("n").unwrap();
    p.exp_string("nothing changed").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 2);
    assert_eq!(env.job(a.id).await, a);
    assert_eq!(env.job(b.id).await, b);

    let mut p = env.pty(&["--config", &cfg, "reconcile", "--apply"]);
    p.exp_string("Move these 2 jobs?").unwrap();
    p.send_line("y").unwrap();
    p.exp_string("moved 2, skipped 0").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 0);
    assert_eq!(env.job(a.id).await.state, State::Accepted);
    assert_eq!(env.job(b.id).await.state, State::SafeToRetry);
}

/// Whatever way the destination fails, reconcile --apply moves nothing: every job `unknown`,
/// exit 5.
#[tokio::test]
async fn every_fault_is_unknown_and_apply_moves_nothing() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let elsewhere = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(found("r", "ab"))
        .mount(&elsewhere)
        .await;
    let cfg = env.write_config(&cms.config("\n[lookup]\nmax_body_bytes = 4096\n"));
    let mut jobs = Vec::new();
    for (name, resp) in faults(&elsewhere.uri()) {
        let job = env
            .seed(Seed::new(name).state(State::Uncertain).sent_ago(600))
            .await;
        mount(&cms, &job, resp).await;
        jobs.push(job);
    }
    // And a destination nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let cfg_text = std::fs::read_to_string(&cfg).unwrap()
        + &config_for(&format!("http://127.0.0.1:{port}"), "")
            .replace("[destinations.cms-a]", "[destinations.cms-down]");
    let cfg = env.write_config(&cfg_text);
    jobs.push(
        env.seed(
            Seed::new("refused")
                .destination("cms-down")
                .state(State::Uncertain)
                .sent_ago(600),
        )
        .await,
    );
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
    let n = jobs.len() as u64;
    assert_eq!(
        out["summary"],
        json!({"accept": 0, "safe_to_retry": 0, "conflict": 0, "wait": 0, "unknown": n,
               "moved": 0, "skipped": 0})
    );
    for r in out["jobs"].as_array().unwrap() {
        assert_eq!(r["action"], "none", "{r}");
        assert_eq!(r["to_state"], Value::Null, "{r}");
    }
    for j in &jobs {
        assert_eq!(&env.job(j.id).await, j, "{} changed", j.article_id);
        assert_eq!(env.events(j.id).await.len(), 1);
    }
    assert!(elsewhere.received_requests().await.unwrap().is_empty());
}

/// The token variable missing: with --destination it is a usage error naming the variable;
/// over all destinations, that destination's jobs are `unknown` with the same reason.
#[tokio::test]
async fn a_missing_token_variable_is_named_never_guessed() {
    let w = world().await;
    let run = w
        .env
        .run(&["--config", &w.cfg, "reconcile", "--destination", "cms-a"])
        .expect(2);
    assert!(run.stderr().contains("CMS_A_TOKEN"), "{}", run.stderr());
    let run = w
        .env
        .run(&[
            "--config",
            &w.cfg,
            "reconcile",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .expect(5);
    let out = run.json();
    assert_eq!(out["summary"]["unknown"], 7, "{out}");
    assert_eq!(out["summary"]["moved"], 0);
    assert!(run.stderr().contains("CMS_A_TOKEN"), "{}", run.stderr());
    assert!(w.cms.asked().await.is_empty());
    w.assert_nothing_changed().await;
}

/// Issue 25: the streamed table shortened ids to a prefix unique among the rows printed so
/// far, so a job outside the run sharing the first digits made the id an operator copies
/// ambiguous (`jobs show 6f6b7d2c` → exit 2). Planted collisions, in the run and out of it:
/// every id printed, typed back, names its job.
#[tokio::test]
async fn item_25_reconcile_table_ids_are_database_unique_prefixes() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let planted = [
        // In the run; a pending job (not in it) shares its first 12 characters.
        ("6f6b7d2c-aaaa-4000-8000-000000000001", "uncertain"),
        ("6f6b7d2c-aaab-4000-8000-000000000001", "pending"),
        // Two in the run sharing 20 characters.
        ("1234abcd-ef01-4000-8000-000000000001", "uncertain"),
        ("1234abcd-ef01-4000-8fff-000000000001", "uncertain"),
        // Alone, and a pending pair that is never printed.
        ("0badc0de-0000-4000-8000-000000000001", "uncertain"),
        ("9e9e9e9e-1111-4000-8000-000000000001", "pending"),
        ("9e9e9e9e-1111-4000-8000-000000000002", "pending"),
    ];
    for (i, (id, state)) in planted.iter().enumerate() {
        let article = format!("planted-{i}");
        env.client
            .execute(
                "WITH j AS (
                   INSERT INTO publication_jobs (id, tenant_id, article_id, revision_id, destination,
                       external_ref, payload_hash, state, sent_at)
                   VALUES ($1::text::uuid, 't1', $2, '1', 'cms-a',
                       'pub_' || encode(sha256(convert_to($2, 'UTF8')), 'hex'),
                       encode(sha256(convert_to($2, 'UTF8')), 'hex'), $3::text,
                       CASE WHEN $3 = 'uncertain' THEN now() - interval '10 minutes' END)
                   RETURNING id, state, version)
                 INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
                 SELECT id, 'seed', 'seed', NULL, state, NULL, version FROM j",
                &[id, &article, state],
            )
            .await
            .unwrap();
    }
    // 80 columns: the ids are shortened.
    let run = Run(env
        .cmd()
        .env("COLUMNS", "80")
        .args(["--config", &cfg, "reconcile"])
        .output()
        .unwrap());
    let text = run.stdout();
    let uncertain: Vec<&str> = planted
        .iter()
        .filter(|(_, s)| *s == "uncertain")
        .map(|(id, _)| *id)
        .collect();
    let mut printed = BTreeMap::new();
    for token in text.lines().filter_map(|l| l.split_whitespace().next()) {
        let named: Vec<&&str> = uncertain
            .iter()
            .filter(|id| token.len() >= 8 && id.starts_with(token))
            .collect();
        assert!(named.len() <= 1, "{token} names {named:?}:\n{text}");
        if let Some(id) = named.first() {
            assert!(printed.insert(**id, token.to_string()).is_none(), "{text}");
        }
    }
    assert_eq!(printed.len(), uncertain.len(), "each job a row:\n{text}");
    assert!(
        printed.values().any(|p| p.len() < 36),
        "the test needs shortened ids:\n{text}"
    );
    for (id, prefix) in &printed {
        let shown = env
            .run(&["jobs", "show", prefix, "-o", "json"])
            .expect(0)
            .json();
        assert_eq!(shown["id"], *id, "{prefix} names another job");
    }
    // The collision with the job outside the run is what a prefix unique among the rows
    // alone missed.
    assert!(
        printed["6f6b7d2c-aaaa-4000-8000-000000000001"].len() >= 13,
        "{text}"
    );
}

/// Item 23.2, as a race in a pseudo-terminal: on a terminal the question comes after the
/// lookups; a CMS that takes one article while the question is open must not see that job
/// moved to safe_to_retry. After "y" every shown move is looked up again: the changed one is
/// skipped with the new answer (exit 5: what was agreed to is no longer true), the other
/// moves with evidence taken after the "y".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_23_2_apply_on_a_terminal_moves_on_the_answers_after_consent() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let late = env
        .seed(Seed::new("late").state(State::Uncertain).sent_ago(600))
        .await;
    let absent = env
        .seed(Seed::new("absent").state(State::Uncertain).sent_ago(600))
        .await;
    let mut p = env.pty(&["--config", &cfg, "reconcile", "--apply", "-o", "json"]);
    p.exp_string("Move these 2 jobs?").unwrap();
    mount(&cms, &late, found("cms-late", &late.payload_hash)).await;
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 5);
    let now = env.job(late.id).await;
    assert_ne!(now.state, State::SafeToRetry);
    assert_eq!(now, late, "the changed job is left for the next run");
    let ev = env.events(absent.id).await.pop().unwrap();
    assert_eq!(ev.to_state, State::SafeToRetry);
    assert_eq!(ev.evidence["lookup"]["controls_after"]["ok"], true);
    // Each job was asked twice: before the question and after the "y".
    for j in [&late, &absent] {
        assert_eq!(cms.asked_for(&j.external_ref).await, 2, "{}", j.article_id);
    }
    // The next run acts on the new answer.
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
        .expect(0)
        .json();
    assert_eq!(out["summary"]["moved"], 1);
    assert_eq!(env.job(late.id).await.state, State::Accepted);
}

/// Item 23.3: `reconcile --state conflict --state safe_to_retry` examines those jobs instead
/// of uncertain ones and moves each only as the table allows from its state; `jobs show` on a
/// conflict job suggests exactly that command; a state no reconcile move leaves is exit 2.
#[tokio::test]
async fn item_23_3_reconcile_state_examines_conflict_and_safe_to_retry_jobs() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let s = |a: &str, st: State| Seed::new(a).state(st).sent_ago(600);
    let c_has = env.seed(s("c-has", State::Conflict)).await;
    mount(&cms, &c_has, found("r-c", &c_has.payload_hash)).await;
    let c_lacks = env.seed(s("c-lacks", State::Conflict)).await;
    let c_differs = env.seed(s("c-differs", State::Conflict)).await;
    mount(&cms, &c_differs, found("r-d", &"0".repeat(64))).await;
    let r_has = env.seed(s("r-has", State::SafeToRetry)).await;
    mount(&cms, &r_has, found("r-r", &r_has.payload_hash)).await;
    let r_lacks = env.seed(s("r-lacks", State::SafeToRetry)).await;
    let untouched = env.seed(s("u", State::Uncertain)).await;

    let shown = env
        .run(&["--config", &cfg, "jobs", "show", &c_lacks.id.to_string()])
        .expect(0);
    let suggested = "reconctl reconcile --destination cms-a --state conflict";
    assert!(shown.stdout().contains(suggested), "{}", shown.stdout());

    let out = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--state",
            "conflict",
            "--state",
            "safe_to_retry",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .expect(5) // the differing copy stays a conflict: a person decides
        .json();
    let got = rows(&out);
    let expected: BTreeMap<String, Value> = [
        row(&c_has, "accept", "moved", Some("accepted")),
        row(&c_lacks, "safe_to_retry", "moved", Some("safe_to_retry")),
        row(&c_differs, "conflict", "-", None),
        row(&r_has, "accept", "moved", Some("accepted")),
        row(&r_lacks, "safe_to_retry", "-", None),
    ]
    .into_iter()
    .map(|(k, mut v)| {
        if v["action"] == "-" {
            v["action"] = "none".into();
        }
        (k, v)
    })
    .collect();
    assert_eq!(got, expected, "{out}");
    assert_eq!(env.job(c_has.id).await.state, State::Accepted);
    assert_eq!(env.job(c_lacks.id).await.state, State::SafeToRetry);
    assert_eq!(env.job(c_differs.id).await, c_differs);
    let corrected = env.job(r_has.id).await;
    assert_eq!(
        (corrected.state, corrected.remote_id.as_deref()),
        (State::Accepted, Some("r-r"))
    );
    assert_eq!(
        env.events(r_has.id).await.pop().unwrap().action,
        "reconcile_accepted"
    );
    assert_eq!(env.job(r_lacks.id).await, r_lacks);
    assert_eq!(env.job(untouched.id).await, untouched);

    let bad = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--state",
            "pending",
            "-o",
            "json",
        ])
        .expect(2)
        .json();
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("uncertain, safe_to_retry, conflict"),
        "{bad}"
    );
    env.assert_invariants().await;
}
