//! A destination that breaks in the middle of a run, and the runs that must not believe it
//! (SPEC §4, "Controls bracket every move"; issue 24 item 1): a CMS that starts answering `[]`
//! after N requests moves nothing it holds to safe_to_retry; a CMS that answers one record for
//! every reference moves nothing to accepted; a remote id recorded for another article is a
//! conflict. Also reconcile beside rows a worker holds locked (item 5), and Ctrl-C during an
//! apply (issue 23 item 10).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use reconctl::jobs::State;
use serde_json::json;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::cms::{config_for, found, none, Cms, CANARY, CANARY_ID};
use crate::harness::*;
use crate::reconcile::seed_many;

/// A CMS whose answers change after `healthy` requests (the controls' included): until then
/// it answers each reference it holds with its record and `[]` for the rest; after, it
/// answers `broken` for every reference.
struct Breaking {
    holds: HashMap<String, serde_json::Value>,
    healthy: usize,
    broken: Broken,
    asked: AtomicUsize,
}

#[derive(Clone, Copy)]
enum Broken {
    /// `[]` for everything, the canary too.
    Empty,
    /// The canary's record for every reference it is asked about.
    Canary,
}

impl Respond for Breaking {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let n = self.asked.fetch_add(1, Ordering::SeqCst);
        let r = request
            .url
            .query_pairs()
            .find(|(k, _)| k == "external_ref")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let canary = json!([{"id": CANARY_ID, "payload_hash": "c".repeat(64)}]);
        let body = if n < self.healthy {
            if r == CANARY {
                canary
            } else {
                self.holds.get(&r).cloned().unwrap_or_else(|| json!([]))
            }
        } else {
            match self.broken {
                Broken::Empty => json!([]),
                Broken::Canary => canary,
            }
        };
        ResponseTemplate::new(200).set_body_json(body)
    }
}

async fn breaking(
    holds: HashMap<String, serde_json::Value>,
    healthy: usize,
    broken: Broken,
) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .respond_with(Breaking {
            holds,
            healthy,
            broken,
            asked: AtomicUsize::new(0),
        })
        .mount(&server)
        .await;
    server
}

async fn uncertain_jobs(env: &TestEnv) -> Vec<(String, String, uuid::Uuid)> {
    env.client
        .query(
            "SELECT external_ref, payload_hash, id FROM publication_jobs WHERE state = 'uncertain'",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

fn reconcile(env: &TestEnv, cfg: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "--config",
        cfg,
        "reconcile",
        "--apply",
        "--yes",
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    env.run(&args)
}

/// Item 24.1: 1 000 uncertain jobs the CMS holds; after 300 requests it answers `[]` for
/// everything. The jobs judged before it broke may move to accepted (it held them); not one
/// job moves to safe_to_retry, with the default controls_every and with 1s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_24_1_a_cms_that_answers_nothing_after_300_lookups_moves_nothing_to_safe_to_retry() {
    for every in [None, Some("1s")] {
        let env = TestEnv::new().await;
        seed_many(&env, "held-", "cms-a", 1000).await;
        let jobs = uncertain_jobs(&env).await;
        let holds = jobs
            .iter()
            .map(|(r, h, id)| {
                (
                    r.clone(),
                    json!([{"id": format!("r-{id}"), "payload_hash": h}]),
                )
            })
            .collect();
        let server = breaking(holds, 300, Broken::Empty).await;
        let extra = every.map_or(String::new(), |e| {
            format!("\n[lookup]\ncontrols_every = \"{e}\"\n")
        });
        let cfg = env.write_config(&config_for(
            &server.uri(),
            &format!("canary_ref = \"{CANARY}\"\n{extra}"),
        ));
        let out = reconcile(&env, &cfg, &["--concurrency", "16"])
            .expect(5)
            .json();
        let to_retry = env
            .count("SELECT count(*) FROM publication_jobs WHERE state = 'safe_to_retry'")
            .await;
        assert_eq!(to_retry, 0, "controls_every {every:?}: {}", out["summary"]);
        let accepted = env
            .count("SELECT count(*) FROM publication_jobs WHERE state = 'accepted'")
            .await;
        let unknown = out["summary"]["unknown"].as_i64().unwrap();
        assert_eq!(out["summary"]["moved"].as_i64().unwrap(), accepted);
        assert!(accepted < 300, "{accepted}");
        assert_eq!(accepted + unknown, 1000, "{}", out["summary"]);
        // Every move carries the control made after its lookup.
        let unbracketed = env
            .count(
                "SELECT count(*) FROM job_events WHERE action = 'reconcile_accepted'
                 AND (evidence->'lookup'->'controls_after'->>'ok')::boolean IS DISTINCT FROM true",
            )
            .await;
        assert_eq!(unbracketed, 0);
        env.assert_invariants().await;
    }
}

/// Item 24.1: a CMS that answers the canary's record (no content hash configured) for every
/// job it is asked about, while its controls still pass: nothing moves to accepted, no job
/// records the canary's remote id; they are conflicts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_24_1_a_cms_that_answers_the_canarys_record_for_every_ref_accepts_nothing() {
    let env = TestEnv::new().await;
    seed_many(&env, "never-", "cms-a", 200).await;
    let jobs = uncertain_jobs(&env).await;
    let canary = json!([{"id": CANARY_ID, "payload_hash": "c".repeat(64)}]);
    let holds = jobs
        .iter()
        .map(|(r, _, _)| (r.clone(), canary.clone()))
        .collect();
    // Healthy for ever: the lie is in what it holds, not in its controls.
    let server = breaking(holds, usize::MAX, Broken::Canary).await;
    let cfg = env.write_config(&format!(
        r#"
[destinations.cms-a]
lookup_url = "{}/articles?external_ref={{ref}}"
timeout = "1s"
remote_id = "/id"
settle_after = "2m"
canary_ref = "{CANARY}"
"#,
        server.uri()
    ));
    let out = reconcile(&env, &cfg, &["--concurrency", "16"])
        .expect(5)
        .json();
    assert_eq!(
        env.count("SELECT count(*) FROM publication_jobs WHERE state = 'accepted' OR remote_id IS NOT NULL")
            .await,
        0,
        "{}",
        out["summary"]
    );
    assert_eq!(
        env.count("SELECT count(*) FROM publication_jobs WHERE state = 'conflict'")
            .await,
        200
    );
    assert_eq!(out["summary"]["conflict"], 200);
    env.assert_invariants().await;
}

/// Item 24.1: after 300 healthy requests the CMS answers the canary's record for every
/// reference, the made-up one of the negative control too: the control after each later
/// batch fails, so those batches move nothing; nothing is accepted as the canary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_24_1_a_cms_that_turns_to_one_record_for_everything_midway_accepts_nothing_as_it() {
    let env = TestEnv::new().await;
    seed_many(&env, "mid-", "cms-a", 600).await;
    let server = breaking(HashMap::new(), 300, Broken::Canary).await;
    let cfg = env.write_config(&config_for(
        &server.uri(),
        &format!("canary_ref = \"{CANARY}\"\n"),
    ));
    let out = reconcile(&env, &cfg, &["--concurrency", "16"])
        .expect(5)
        .json();
    assert_eq!(
        env.count(&format!(
            "SELECT count(*) FROM publication_jobs WHERE state = 'accepted' OR remote_id = '{CANARY_ID}'"
        ))
        .await,
        0,
        "{}",
        out["summary"]
    );
    env.assert_invariants().await;
}

/// Item 24.1: a remote id recorded for another article at the destination is a conflict,
/// never an accept (reconcile), and refused (exit 3) for `mark accepted`; the same id given
/// for two articles in one run accepts neither.
#[tokio::test]
async fn item_24_1_a_remote_id_of_another_article_is_a_conflict() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let owner = env
        .seed(
            Seed::new("owner")
                .state(State::Accepted)
                .remote_id("r-owner"),
        )
        .await;
    let u = |a: &str| Seed::new(a).state(State::Uncertain).sent_ago(600);
    let thief = env.seed(u("thief")).await;
    cms.answer(&thief.external_ref, found("r-owner", &thief.payload_hash))
        .await;
    let twin_a = env.seed(u("twin-a")).await;
    let twin_b = env.seed(u("twin-b")).await;
    for j in [&twin_a, &twin_b] {
        cms.answer(&j.external_ref, found("r-twin", &j.payload_hash))
            .await;
    }
    // Another revision of the owner's article may share its remote id (the CMS updated it).
    let mut rev = Seed::new("owner").state(State::Uncertain).sent_ago(600);
    rev.revision = "2".into();
    let revision = env.seed(rev).await;
    cms.answer(
        &revision.external_ref,
        found("r-owner", &revision.payload_hash),
    )
    .await;

    let id = thief.id.to_string();
    let out = env
        .run(&[
            "--config", &cfg, "mark", "accepted", &id, "--reason", "x", "--yes", "-o", "json",
        ])
        .expect(3)
        .json();
    let msg = out["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains(&owner.id.to_string()) && msg.contains("r-owner"),
        "{msg}"
    );
    assert_eq!(env.events(thief.id).await.len(), 1);

    // --max: every lookup first, so the twins' moves are one batch.
    let out = reconcile(&env, &cfg, &["--max", "100"]).expect(5).json();
    assert_eq!(out["summary"]["conflict"], 3, "{out}");
    for j in [&thief, &twin_a, &twin_b] {
        let now = env.job(j.id).await;
        assert_eq!(now.state, State::Conflict, "{}", j.article_id);
        assert_eq!(now.remote_id, None);
        let ev = env.events(j.id).await.pop().unwrap();
        assert_eq!(ev.action, "reconcile_conflict");
        assert!(
            ev.evidence["remote_id_clash"]["remote_id"].is_string(),
            "{}",
            ev.evidence
        );
    }
    assert_eq!(
        env.events(thief.id).await.pop().unwrap().evidence["remote_id_clash"]["job_id"],
        json!(owner.id)
    );
    let now = env.job(revision.id).await;
    assert_eq!(now.state, State::Accepted);
    assert_eq!(now.remote_id.as_deref(), Some("r-owner"));
    env.assert_invariants().await;
}

/// Item 24.1 for `mark` (a lookup is a batch of one): the controls are made after the lookup,
/// so a CMS that breaks right after answering `[]` is not believed: refused, exit 3.
#[tokio::test]
async fn item_24_1_mark_is_bracketed_by_a_control_after_its_lookup() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("m").state(State::Uncertain).sent_ago(600))
        .await;
    // Request 1 is the job's lookup (`[]`); from request 2 on, `[]` for the canary too.
    let server = breaking(HashMap::new(), 1, Broken::Empty).await;
    let cfg = env.write_config(&config_for(
        &server.uri(),
        &format!("canary_ref = \"{CANARY}\"\n"),
    ));
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.id.to_string(),
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    assert_eq!(out["error"]["code"], "refused_by_lookup", "{out}");
    assert_eq!(env.job(job.id).await, job);
    let asked: Vec<String> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter_map(|r| {
            r.url
                .query_pairs()
                .find(|(k, _)| k == "external_ref")
                .map(|(_, v)| v.into_owned())
        })
        .collect();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert_eq!(
        asked[0], job.external_ref,
        "the lookup comes first, then its controls"
    );
}

/// Every job's id and version.
async fn versions(env: &TestEnv) -> Vec<(uuid::Uuid, i64)> {
    env.client
        .query("SELECT id, version FROM publication_jobs ORDER BY id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// Item 24.5: 100 rows a worker holds FOR UPDATE are skipped as busy at once, not waited for
/// one lock timeout each: the run ends well under 100 × the lock timeout, exit 6, the jobs
/// unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_24_5_locked_rows_are_skipped_as_busy_without_waiting() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    seed_many(&env, "locked-", "cms-a", 100).await;
    let before = versions(&env).await;
    let worker = env.connect().await;
    worker
        .batch_execute("BEGIN; SELECT 1 FROM publication_jobs FOR UPDATE")
        .await
        .unwrap();
    let started = Instant::now();
    let out = env
        .run(&[
            "--config",
            &cfg,
            "--lock-timeout",
            "2s",
            "reconcile",
            "--apply",
            "--yes",
            "-o",
            "json",
        ])
        .expect(6)
        .json();
    let took = started.elapsed();
    // Waiting for each would take 100 × 2 s.
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert_eq!(out["summary"]["skipped"], 100, "{}", out["summary"]);
    assert_eq!(out["summary"]["moved"], 0);
    for r in out["jobs"].as_array().unwrap() {
        assert_eq!(r["action"], "skipped");
        assert!(r["reason"].as_str().unwrap().contains("locked"), "{r}");
    }
    worker.batch_execute("ROLLBACK").await.unwrap();
    let after = versions(&env).await;
    assert_eq!(before, after);
    assert_eq!(env.count("SELECT count(*) FROM job_events").await, 100);
}

/// Item 23.10: Ctrl-C during `reconcile --apply --yes` on a terminal, against a slow CMS:
/// the run stops, says how many jobs it moved and how to see them, exit 130; the number it
/// gives is the number of its events in the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_23_10_ctrl_c_during_apply_reports_what_it_moved() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .respond_with(none().set_delay(Duration::from_millis(100)))
        .with_priority(5)
        .mount(&cms.server)
        .await;
    let cfg = env.write_config(&cms.config(""));
    seed_many(&env, "slow-", "cms-a", 400).await;
    let mut p = env.pty(&[
        "--config",
        &cfg,
        "reconcile",
        "--apply",
        "--yes",
        "--concurrency",
        "4",
    ]);
    // Wait until some jobs have moved, then interrupt.
    let deadline = Instant::now() + Duration::from_secs(30);
    while env
        .count("SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry'")
        .await
        < 20
    {
        assert!(Instant::now() < deadline, "nothing moved");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    p.send_control('c').unwrap();
    let (_, said) = p
        .exp_regex(r"before that it\s+moved\s+[0-9]+\s+jobs")
        .unwrap();
    p.exp_regex(r"reconctl\s+events\s+--since").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 130);
    let n: i64 = said
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap();
    let events = env
        .count("SELECT count(*) FROM job_events WHERE action = 'reconcile_safe_to_retry'")
        .await;
    assert_eq!(n, events);
    assert!(n < 400, "the run was not interrupted: {n}");
    let moved = env
        .count("SELECT count(*) FROM publication_jobs WHERE state = 'safe_to_retry'")
        .await;
    assert_eq!(moved, n);
    env.assert_invariants().await;
}
