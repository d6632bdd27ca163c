//! `mark accepted|safe-to-retry|failed`: the guard under a real race of processes, the
//! runbook's `--expect-version`, idempotent repeats, the destination's evidence (wiremock),
//! consent in a real pseudo-terminal, dry runs proved against the database, and a locked row.

use std::time::{Duration, Instant};

use reconctl::jobs::{Job, State};
use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use crate::cms::{config_for, found, none as nothing, Cms, CANARY};
use crate::harness::*;

async fn answer(cms: &Cms, job: &Job, resp: ResponseTemplate) {
    cms.answer(&job.external_ref, resp).await;
}

fn uncertain(article: &str) -> Seed {
    Seed::new(article).state(State::Uncertain).sent_ago(600)
}

/// The binary as a tokio child process, with the same clean environment as `env.cmd()`.
fn process(env: &TestEnv) -> tokio::process::Command {
    env.tokio_cmd()
}

/// The job and its events did not change.
async fn assert_unchanged(env: &TestEnv, before: &Job) {
    assert_eq!(&env.job(before.id).await, before, "the job changed");
    assert_eq!(env.events(before.id).await.len(), 1, "an event was written");
}

// ---------------------------------------------------------------------------------------------
// Moves and their records

#[tokio::test]
async fn accepted_without_lookup_moves_once_and_records_the_event() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let id = job.id.to_string();
    let out = env
        .run(&[
            "mark",
            "accepted",
            &id,
            "--remote-id",
            "cms-4711",
            "--reason",
            "found in the CMS by hand",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();

    let now = env.job(job.id).await;
    assert_eq!(now.state, State::Accepted);
    assert_eq!(now.version, job.version + 1);
    assert_eq!(now.remote_id.as_deref(), Some("cms-4711"));
    assert_eq!(out["job"], serde_json::to_value(&now).unwrap());

    let events = env.events(job.id).await;
    assert_eq!(events.len(), 2);
    let ev = &events[1];
    assert_eq!(out["event"], serde_json::to_value(ev).unwrap());
    assert_eq!(ev.action, "mark_accepted");
    assert_eq!(ev.actor, "tester");
    assert_eq!(ev.from_state, Some(State::Uncertain));
    assert_eq!(ev.to_state, State::Accepted);
    assert_eq!((ev.from_version, ev.to_version), (Some(1), 2));
    assert_eq!(ev.reason.as_deref(), Some("found in the CMS by hand"));
    assert_eq!(
        ev.evidence,
        json!({"lookup": "skipped", "remote_id_source": "operator"})
    );
    assert_eq!(out.as_object().unwrap().len(), 2, "{out}");
}

#[tokio::test]
async fn failed_needs_no_lookup_and_records_the_reason_as_last_error() {
    let env = TestEnv::new().await;
    // No destination is configured: giving up does not consult it.
    let job = env.seed(Seed::new("a1")).await;
    let out = env
        .run(&[
            "mark",
            "failed",
            &job.external_ref,
            "--reason",
            "withdrawn by the editor",
            "--yes",
        ])
        .expect(0);
    assert!(
        out.stdout()
            .starts_with(&format!("moved job {} pending v1 → failed v2", job.id)),
        "{}",
        out.stdout()
    );
    let now = env.job(job.id).await;
    assert_eq!(now.state, State::Failed);
    assert_eq!(now.last_error.as_deref(), Some("withdrawn by the editor"));
    let events = env.events(job.id).await;
    assert_eq!(events[1].action, "mark_failed");
    assert_eq!(events[1].evidence, json!({"lookup": "not_needed"}));
}

#[tokio::test]
async fn idempotent_repeat_is_no_change_without_a_second_event() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let id = job.id.to_string();
    let args = [
        "mark",
        "accepted",
        &id,
        "--remote-id",
        "r-1",
        "--reason",
        "runbook step 4",
        "--no-lookup",
        "--yes",
        "-o",
        "json",
    ];
    env.run(&args).expect(0);
    let after_first = env.job(job.id).await;

    let again = env.run(&args).expect(0).json();
    assert_eq!(again["event"], Value::Null);
    assert_eq!(again["job"], serde_json::to_value(&after_first).unwrap());
    assert_eq!(env.job(job.id).await, after_first);
    assert_eq!(env.events(job.id).await.len(), 2);

    // Also with a stale --expect-version: the runbook saw v1, the job is already where it
    // asked, so re-running the step is still "no change".
    let table = env
        .run(&[
            "mark",
            "accepted",
            &id,
            "--remote-id",
            "r-1",
            "--reason",
            "runbook step 4",
            "--no-lookup",
            "--expect-version",
            "1",
            "--yes",
        ])
        .expect(0);
    assert_eq!(
        table.stdout().trim_end(),
        format!("no change: job {id} is already accepted (remote_id r-1) at version 2")
    );

    // Another remote id is not "no change": the destination's id would be contradicted.
    let other = env
        .run(&[
            "mark",
            "accepted",
            &id,
            "--remote-id",
            "r-2",
            "--reason",
            "x",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    assert_eq!(other["error"]["code"], "remote_id_mismatch");
    assert_eq!(other["error"]["current"]["remote_id"], "r-1");
    assert_eq!(env.events(job.id).await.len(), 2);

    // The same for failed.
    let gone = env.seed(Seed::new("a2")).await;
    let gid = gone.id.to_string();
    let fail = [
        "mark", "failed", &gid, "--reason", "gone", "--yes", "-o", "json",
    ];
    env.run(&fail).expect(0);
    assert_eq!(env.run(&fail).expect(0).json()["event"], Value::Null);
    assert_eq!(env.events(gone.id).await.len(), 2);
}

#[tokio::test]
async fn stale_expect_version_is_a_conflict_carrying_the_job_now() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let id = job.id.to_string();
    let out = env
        .run(&[
            "mark",
            "safe-to-retry",
            &id,
            "--reason",
            "runbook",
            "--no-lookup",
            "--expect-version",
            "5",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    let err = &out.json()["error"];
    assert_eq!(err["kind"], "conflict");
    assert_eq!(err["code"], "version_conflict");
    assert_eq!(
        err["message"],
        format!("job {id} is now uncertain at version 1 (you expected version 5)")
    );
    assert_eq!(err["current"], serde_json::to_value(&job).unwrap());
    assert!(out.stderr().contains("(you expected version 5)"));
    assert_unchanged(&env, &job).await;

    // The version the runbook saw, when it is still right, is used for the guard.
    env.run(&[
        "mark",
        "safe-to-retry",
        &id,
        "--reason",
        "runbook",
        "--no-lookup",
        "--expect-version",
        "1",
        "--yes",
    ])
    .expect(0);
    assert_eq!(env.job(job.id).await.state, State::SafeToRetry);
}

#[tokio::test]
async fn moves_the_table_forbids_are_refused_with_what_is_possible() {
    let env = TestEnv::new().await;
    let flying = env
        .seed(
            Seed::new("a1")
                .state(State::InFlight)
                .lease("worker-7", 40)
                .sent_ago(5),
        )
        .await;
    let out = env
        .run(&[
            "mark",
            "safe-to-retry",
            &flying.id.to_string(),
            "--reason",
            "x",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    let err = &out.json()["error"];
    assert_eq!(err["code"], "not_allowed");
    assert_eq!(err["current"]["state"], "in_flight");
    let msg = err["message"].as_str().unwrap();
    assert!(
        msg.contains("the lease held by worker-7 expires in"),
        "{msg}"
    );
    assert!(msg.contains("`reconctl sweep leases`"), "{msg}");
    assert_eq!(
        err["hint"],
        "nothing changed; no mark is possible from in_flight"
    );
    assert_unchanged(&env, &flying).await;

    let pending = env.seed(Seed::new("a2")).await;
    let out = env
        .run(&[
            "mark",
            "accepted",
            &pending.id.to_string(),
            "--remote-id",
            "r",
            "--reason",
            "x",
            "--no-lookup",
            "--yes",
        ])
        .expect(3);
    assert!(
        out.stderr().contains("never sent; nothing to settle"),
        "{}",
        out.stderr()
    );
    assert!(
        out.stderr()
            .contains("hint: nothing changed; from pending you can: `reconctl mark failed`"),
        "{}",
        out.stderr()
    );
    assert_unchanged(&env, &pending).await;

    let done = env
        .seed(Seed::new("a3").state(State::Accepted).remote_id("r-9"))
        .await;
    let out = env
        .run(&[
            "mark",
            "failed",
            &done.id.to_string(),
            "--reason",
            "x",
            "--yes",
        ])
        .expect(3);
    assert!(
        out.stderr().contains("accepted is final (remote_id r-9)"),
        "{}",
        out.stderr()
    );
    assert_unchanged(&env, &done).await;

    let missing = "00000000-0000-4000-8000-000000000000";
    env.run(&["mark", "failed", missing, "--reason", "x", "--yes"])
        .expect(4);
}

#[tokio::test]
async fn input_mistakes_are_usage_errors() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let id = job.id.to_string();
    // accepted records a remote_id: without the lookup, the operator must give it.
    let out = env
        .run(&[
            "mark",
            "accepted",
            &id,
            "--reason",
            "x",
            "--no-lookup",
            "--yes",
        ])
        .expect(2);
    assert!(
        out.stderr().contains("needs --remote-id"),
        "{}",
        out.stderr()
    );
    env.run(&["mark", "failed", &id, "--reason", "  ", "--yes"])
        .expect(2);
    env.run(&["mark", "failed", &id, "--yes"]).expect(2);
    env.run(&["mark", "failed", "42", "--reason", "x", "--yes"])
        .expect(2);
    env.run(&[
        "mark",
        "failed",
        &id,
        "--reason",
        "x",
        "--expect-version",
        "0",
    ])
    .expect(2);
    assert_unchanged(&env, &job).await;
}

// ---------------------------------------------------------------------------------------------
// The race

/// 20 operators (processes) mark the same job accepted at once, each with its own remote id,
/// so at most one of them can be right: exactly one wins (exit 0), the other 19 exit 3, one
/// event, version + 1. A loser either lost the guard (read before the winner committed) or
/// read the job already accepted with another remote id; both change nothing.
///
/// Every other iteration is gated: another session holds the row lock while the 20 start, so
/// all of them read version 1 and queue on the guarded UPDATE; the lock is released once all
/// 20 are waiting. That makes every loser lose at the guard itself, not at the read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn race_twenty_processes_mark_one_job_exactly_one_wins() {
    let env = TestEnv::new().await;
    let iterations: usize = if long_tests() { 300 } else { 50 };
    let (mut lost_guard, mut read_late) = (0, 0);
    let gate = env.connect().await;
    let started = Instant::now();
    for i in 0..iterations {
        let job = env.seed(uncertain(&format!("race-{i}"))).await;
        let id = job.id.to_string();
        let gated = i % 2 == 0;
        if gated {
            gate.batch_execute("BEGIN").await.unwrap();
            gate.execute(
                "SELECT 1 FROM publication_jobs WHERE id = $1 FOR UPDATE",
                &[&job.id],
            )
            .await
            .unwrap();
        }
        let children: Vec<_> = (0..20)
            .map(|p| {
                process(&env)
                    .args([
                        "--lock-timeout",
                        "30s",
                        "mark",
                        "accepted",
                        &id,
                        "--remote-id",
                        &format!("r-{p}"),
                        "--reason",
                        "race",
                        "--yes",
                        "--no-lookup",
                    ])
                    .spawn()
                    .expect("spawn reconctl")
            })
            .collect();
        if gated {
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                let waiting = env
                    .count(
                        "SELECT count(*) FROM pg_stat_activity
                         WHERE datname = current_database() AND application_name LIKE 'reconctl%'
                           AND wait_event_type = 'Lock'",
                    )
                    .await;
                if waiting == 20 || Instant::now() > deadline {
                    assert_eq!(waiting, 20, "iteration {i}: not all 20 reached the guard");
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            gate.batch_execute("ROLLBACK").await.unwrap();
        }
        let outputs =
            futures::future::join_all(children.into_iter().map(|c| c.wait_with_output())).await;
        let mut winners = Vec::new();
        for (p, out) in outputs.into_iter().enumerate() {
            let out = out.expect("reconctl ran");
            let stderr = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => winners.push(format!("r-{p}")),
                Some(3) if stderr.contains("(you expected version 1)") => lost_guard += 1,
                Some(3) if stderr.contains("is already accepted with remote_id") => read_late += 1,
                other => panic!("iteration {i}, process {p}: exit {other:?}\n{stderr}"),
            }
        }
        assert_eq!(winners.len(), 1, "iteration {i}: winners {winners:?}");
        let now = env.job(job.id).await;
        assert_eq!(now.state, State::Accepted, "iteration {i}");
        assert_eq!(now.version, job.version + 1, "iteration {i}");
        assert_eq!(now.remote_id.as_deref(), Some(winners[0].as_str()));
        let events = env.events(job.id).await;
        assert_eq!(events.len(), 2, "iteration {i}: {events:?}");
        assert_eq!(events[1].evidence["remote_id_source"], "operator");
    }
    eprintln!(
        "mark race: {iterations} x 20 processes in {:.1}s; losers: {lost_guard} lost the guard, {read_late} read the job after the winner",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(lost_guard + read_late, iterations * 19);
    assert!(lost_guard >= iterations.div_ceil(2) * 19, "{lost_guard}");
}

// ---------------------------------------------------------------------------------------------
// The evidence guard, against a real HTTP destination

#[tokio::test]
async fn safe_to_retry_is_refused_when_the_destination_has_the_article() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("a1")).await;
    answer(&cms, &job, found("cms-77", &job.payload_hash)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.id.to_string(),
            "--reason",
            "looks absent",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    let err = &out.json()["error"];
    assert_eq!(err["code"], "refused_by_lookup");
    assert_eq!(err["detail"]["lookup"]["verdict"], "accept");
    assert_eq!(err["detail"]["lookup"]["matches"][0]["remote_id"], "cms-77");
    assert_eq!(err["current"]["state"], "uncertain");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("would publish it twice"),
        "{err}"
    );
    assert!(err["hint"].as_str().unwrap().contains(&format!(
        "`reconctl mark accepted {} --reason TEXT`",
        job.id
    )));
    assert_unchanged(&env, &job).await;

    // Content that differs, or several matches, are refused as well.
    let other = env.seed(uncertain("a2")).await;
    answer(&cms, &other, found("cms-78", "00ff")).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &other.id.to_string(),
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    assert_eq!(
        out.json()["error"]["detail"]["lookup"]["verdict"],
        "conflict"
    );
    assert_unchanged(&env, &other).await;
}

#[tokio::test]
async fn safe_to_retry_is_allowed_when_the_destination_settled_without_it() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("a1")).await; // sent 10 minutes ago; settle_after 2m
    answer(&cms, &job, nothing()).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.external_ref,
            "--reason",
            "CMS lacks it after the outage",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["job"]["state"], "safe_to_retry");
    assert_eq!(out["job"]["version"], 2);
    let ev = &env.events(job.id).await[1];
    assert_eq!(out["event"], serde_json::to_value(ev).unwrap());
    let lookup = &ev.evidence["lookup"];
    assert_eq!(lookup["verdict"], "safe_to_retry");
    assert_eq!(lookup["outcome"], "not_found");
    assert_eq!(lookup["http_status"], 200);
    assert_eq!(lookup["destination"], "cms-a");
    assert_eq!(lookup["external_ref"], job.external_ref.as_str());
    // The controls it relied on are in the evidence: the canary found, a made-up reference
    // not found.
    let controls = &lookup["controls"];
    assert_eq!(controls["ok"], true, "{controls}");
    assert_eq!(controls["positive"]["external_ref"], CANARY);
    assert_eq!(controls["positive"]["source"], "canary_ref");
    assert_eq!(controls["positive"]["outcome"], "found");
    assert_eq!(controls["negative"]["outcome"], "not_found");
    // One request for the job, two for the controls.
    assert_eq!(cms.asked_for(&job.external_ref).await, 1);
    assert_eq!(cms.asked().await.len(), 3);

    // A 404 is not "no match" for a destination configured `not_found = "empty"` (the
    // default): it is an unexpected answer, and the mark is refused.
    let gone = env.seed(uncertain("a2")).await;
    answer(&cms, &gone, ResponseTemplate::new(404)).await;
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &gone.external_ref,
        "--reason",
        "x",
        "--yes",
    ])
    .expect(3);
    assert_unchanged(&env, &gone).await;
}

#[tokio::test]
async fn safe_to_retry_is_refused_while_a_late_write_may_still_land() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(30))
        .await;
    answer(&cms, &job, nothing()).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.external_ref,
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    let err = &out.json()["error"];
    assert_eq!(err["detail"]["lookup"]["verdict"], "wait");
    assert!(
        err["message"].as_str().unwrap().contains("not settled"),
        "{err}"
    );
    assert_unchanged(&env, &job).await;
}

#[tokio::test]
async fn safe_to_retry_is_refused_when_the_destination_does_not_answer() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("a1")).await;
    answer(&cms, &job, ResponseTemplate::new(503)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.external_ref,
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    let err = &out.json()["error"];
    assert_eq!(err["detail"]["lookup"]["outcome"], "unreachable");
    assert_eq!(err["detail"]["lookup"]["verdict"], "unknown");
    assert!(
        err["hint"].as_str().unwrap().contains("--no-lookup"),
        "{err}"
    );
    assert_unchanged(&env, &job).await;

    // Nobody listening at all.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dead = env.write_config(&config_for(
        &format!("http://127.0.0.1:{port}"),
        &format!("canary_ref = \"{CANARY}\""),
    ));
    env.run(&[
        "--config",
        &dead,
        "mark",
        "safe-to-retry",
        &job.external_ref,
        "--reason",
        "x",
        "--yes",
    ])
    .expect(3);
    assert_unchanged(&env, &job).await;
}

#[tokio::test]
async fn accepted_takes_the_remote_id_of_the_single_match() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("a1")).await;
    answer(&cms, &job, found("cms-4711", &job.payload_hash)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &job.external_ref,
            "--reason",
            "CMS shows it",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["job"]["state"], "accepted");
    assert_eq!(out["job"]["remote_id"], "cms-4711");
    assert_eq!(out["event"]["evidence"]["remote_id_source"], "lookup");
    assert_eq!(out["event"]["evidence"]["lookup"]["verdict"], "accept");
    assert_eq!(out["event"]["evidence"]["lookup"]["content_match"], true);
    assert_eq!(env.job(job.id).await.remote_id.as_deref(), Some("cms-4711"));

    // The operator's id is checked against the match.
    let two = env.seed(uncertain("a2")).await;
    answer(&cms, &two, found("cms-4712", &two.payload_hash)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &two.external_ref,
            "--remote-id",
            "cms-9999",
            "--reason",
            "x",
            "--yes",
        ])
        .expect(3);
    assert!(
        out.stderr().contains("the destination has it as cms-4712"),
        "{}",
        out.stderr()
    );
    assert_unchanged(&env, &two).await;
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "accepted",
        &two.external_ref,
        "--remote-id",
        "cms-4712",
        "--reason",
        "x",
        "--yes",
    ])
    .expect(0);
    assert_eq!(
        env.events(two.id).await[1].evidence["remote_id_source"],
        "operator"
    );
}

#[tokio::test]
async fn accepted_is_refused_without_exactly_one_matching_publication() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let none = env.seed(uncertain("a1")).await;
    answer(&cms, &none, nothing()).await;
    let differs = env.seed(uncertain("a2")).await;
    answer(&cms, &differs, found("cms-1", "abcdef")).await;
    let several = env.seed(uncertain("a3")).await;
    answer(
        &cms,
        &several,
        ResponseTemplate::new(200).set_body_json(json!([
            {"id": "cms-2", "payload_hash": several.payload_hash},
            {"id": "cms-3", "payload_hash": several.payload_hash},
        ])),
    )
    .await;
    for (job, needle) in [
        (&none, "has no publication with external_ref"),
        (&differs, "the content differs"),
        (&several, "2 publications"),
    ] {
        let out = env
            .run(&[
                "--config",
                &cfg,
                "mark",
                "accepted",
                &job.external_ref,
                "--reason",
                "x",
                "--yes",
            ])
            .expect(3);
        assert!(out.stderr().contains(needle), "{needle}: {}", out.stderr());
        assert_unchanged(&env, job).await;
    }
    // With --no-lookup and an id the operator takes responsibility; the event says so.
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "accepted",
        &differs.external_ref,
        "--remote-id",
        "cms-1",
        "--no-lookup",
        "--reason",
        "older rendering is fine",
        "--yes",
    ])
    .expect(0);
    assert_eq!(
        env.events(differs.id).await[1].evidence["lookup"],
        "skipped"
    );
}

#[tokio::test]
async fn an_unconfigured_destination_is_refused_with_a_way_out() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let out = env
        .run(&[
            "mark",
            "safe-to-retry",
            &job.external_ref,
            "--reason",
            "x",
            "--yes",
        ])
        .expect(2);
    assert!(
        out.stderr().contains("destination cms-a of job"),
        "{}",
        out.stderr()
    );
    assert!(
        out.stderr().contains("[destinations.cms-a]"),
        "{}",
        out.stderr()
    );
    assert!(out.stderr().contains("--no-lookup"), "{}", out.stderr());
    assert_unchanged(&env, &job).await;
}

// ---------------------------------------------------------------------------------------------
// Consent

#[tokio::test]
async fn without_a_terminal_and_without_yes_nothing_changes() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("a1")).await;
    answer(&cms, &job, nothing()).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.external_ref,
            "--reason",
            "x",
            "-o",
            "json",
        ])
        .expect(2);
    assert_eq!(out.json()["error"]["code"], "confirmation_required");
    assert!(out.stderr().contains("--yes"), "{}", out.stderr());
    assert_unchanged(&env, &job).await;
    // Refused before the destination was bothered: not even the controls were asked.
    assert!(cms.asked().await.is_empty());
}

#[tokio::test]
async fn the_prompt_in_a_pseudo_terminal_no_keeps_yes_moves() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("a1")).await;
    answer(&cms, &job, found("cms-4711", &job.payload_hash)).await;
    let id = job.id.to_string();
    let args = [
        "--config",
        &cfg,
        "mark",
        "accepted",
        &id,
        "--reason",
        "CMS shows it",
    ];

    // Answer no: nothing changes, exit 2 (the step did not happen).
    let mut p = env.pty(&args);
    let shown = p
        .exp_string(&format!("Mark job {id} accepted?"))
        .expect("the prompt");
    for line in [
        &format!("Job        {id}"),
        &format!("Ref        {}", job.external_ref),
        "State      uncertain, version 1, for 1m",
        "Attempts   0",
        "Remote id  (none)",
        "Move       uncertain v1 → accepted v2 (mark_accepted, as tester)",
        "Records    remote_id cms-4711",
        "Reason     CMS shows it",
        "Evidence   lookup at cms-a: found, verdict accept: the destination has it as cms-4711",
    ] {
        assert!(
            shown.contains(&pty_text(line)),
            "missing {line:?} in:\n{shown}"
        );
    }
    p.send_line("n").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 2);
    assert_unchanged(&env, &job).await;

    // Ctrl-C: no change, and the terminal is left as it was (echo and line mode on).
    let mut p = env.pty_watched(&args);
    p.exp_string(&format!("Mark job {id} accepted?")).unwrap();
    p.send_control('c').unwrap();
    let (_, exit) = p.exp_regex("EXIT=[0-9]+").unwrap();
    // The prompt reads a line in cooked mode, so Ctrl-C is SIGINT: the conventional 130,
    // while no transaction or lock is open (the move comes only after a "y").
    assert_eq!(exit, "EXIT=130");
    p.exp_eof().unwrap();
    env.assert_terminal_restored();
    assert_unchanged(&env, &job).await;

    // Answer yes: it moves, with the lookup as evidence.
    let mut p = env.pty(&args);
    p.exp_string(&format!("Mark job {id} accepted?")).unwrap();
    p.send_line("y").unwrap();
    p.exp_string(&pty_text(&format!(
        "moved job {id} uncertain v1 → accepted v2 (remote_id cms-4711)"
    )))
    .unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 0);
    let now = env.job(job.id).await;
    assert_eq!(now.state, State::Accepted);
    assert_eq!(now.remote_id.as_deref(), Some("cms-4711"));
    assert_eq!(env.events(job.id).await.len(), 2);
}

#[tokio::test]
async fn a_mark_that_lost_at_the_prompt_to_the_same_move_says_so_once() {
    // While the prompt is open, another operator makes the same move. The "y" that follows
    // changes nothing (exit 3), and the one hint says who got there, not both that and the
    // generic "look again".
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let id = job.id.to_string();
    let mut p = env.pty(&["mark", "failed", &id, "--no-lookup", "--reason", "mine"]);
    p.exp_string(&format!("Mark job {id} failed?")).unwrap();
    let bob = env.run(&[
        "--actor",
        "bob",
        "mark",
        "failed",
        &id,
        "--no-lookup",
        "--reason",
        "bob's",
        "--yes",
    ]);
    bob.expect(0);
    p.send_line("y").unwrap();
    let rest = pty_utf8(&p.exp_eof().unwrap());
    assert_eq!(pty_exit(&p), 3, "{rest}");
    let said = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        said.contains(&format!(
            "error: job {id} is now failed at version 2 (you expected version 1)"
        )),
        "{said}"
    );
    assert_eq!(said.matches("hint:").count(), 1, "{said}");
    assert!(
        said.contains(
            "hint: nothing changed by you; someone else marked it failed first (see `reconctl jobs show`)"
        ),
        "{said}"
    );
    let now = env.job(job.id).await;
    assert_eq!((now.state, now.version), (State::Failed, 2));
    let events = env.events(job.id).await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1].action, "mark_failed");
    assert_eq!(events[1].actor, "bob");
}

// ---------------------------------------------------------------------------------------------
// Dry runs and locks

#[tokio::test]
async fn dry_run_changes_nothing_and_reports_the_move_it_proved() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let id = job.id.to_string();
    // No --yes and no terminal: a dry run needs no consent.
    let out = env
        .run(&[
            "mark",
            "accepted",
            &id,
            "--remote-id",
            "r-1",
            "--reason",
            "preview",
            "--no-lookup",
            "--dry-run",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["dry_run"], true);
    assert_eq!(out["job"]["state"], "accepted");
    assert_eq!(out["job"]["version"], 2);
    assert_eq!(out["job"]["remote_id"], "r-1");
    assert_eq!(out["event"]["from_version"], 1);
    assert_eq!(out["event"]["to_version"], 2);
    assert_eq!(out["event"]["action"], "mark_accepted");
    assert_unchanged(&env, &job).await;

    let table = env
        .run(&["mark", "failed", &id, "--reason", "preview", "--dry-run"])
        .expect(0);
    assert!(
        table.stdout().starts_with(&format!(
            "dry run: would move job {id} uncertain v1 → failed v2\n  proved against the database now (the move was rolled back); nothing changed"
        )),
        "{}",
        table.stdout()
    );
    assert_unchanged(&env, &job).await;

    // A dry run of a move that cannot happen fails like the real one.
    env.run(&[
        "mark",
        "failed",
        &id,
        "--reason",
        "x",
        "--dry-run",
        "--expect-version",
        "3",
    ])
    .expect(3);
}

#[tokio::test]
async fn a_locked_row_is_busy_within_the_lock_timeout_and_nothing_changes() {
    let env = TestEnv::new().await;
    let job = env.seed(uncertain("a1")).await;
    let worker = env.connect().await;
    worker.batch_execute("BEGIN").await.unwrap();
    worker
        .execute(
            "SELECT 1 FROM publication_jobs WHERE id = $1 FOR UPDATE",
            &[&job.id],
        )
        .await
        .unwrap();

    for extra in [&[][..], &["--dry-run"][..]] {
        let started = Instant::now();
        let mut args = vec![
            "--lock-timeout",
            "500ms",
            "mark",
            "failed",
            &job.external_ref,
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = env.run(&args).expect(6);
        let took = started.elapsed();
        assert!(took < Duration::from_secs(5), "took {took:?}");
        assert!(took >= Duration::from_millis(500), "took {took:?}");
        assert_eq!(out.json()["error"]["kind"], "busy");
        assert!(
            out.stderr().contains("safe to run the command again"),
            "{}",
            out.stderr()
        );
    }
    worker.batch_execute("ROLLBACK").await.unwrap();
    assert_unchanged(&env, &job).await;

    // Once the lock is gone the same command goes through.
    env.run(&[
        "--lock-timeout",
        "500ms",
        "mark",
        "failed",
        &job.external_ref,
        "--reason",
        "x",
        "--yes",
    ])
    .expect(0);
}

// ---------------------------------------------------------------------------------------------
// Help

#[test]
fn mark_help_carries_an_example_per_mark() {
    let help = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("reconctl")
            .unwrap()
            .args(args)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let top = help(&["mark", "--help"]);
    for mark in ["accepted", "safe-to-retry", "failed"] {
        assert!(
            top.contains(&format!("\n  reconctl mark {mark} JOB --reason ")),
            "{top}"
        );
        let own = help(&["mark", mark, "--help"]);
        assert!(
            own.contains(&format!("Examples:\n  reconctl mark {mark} JOB ")),
            "{own}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 23 and 24: evidence after consent, corrections, differing copies, a second opinion

/// Item 23.2, as a race in a pseudo-terminal: the CMS lacks the article when the question is
/// asked and takes it while the question is open. The move after "y" stands on the answer
/// asked for after the "y": the job is not moved to safe_to_retry (refused, exit 3); the
/// lookup was made twice, the controls after each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_23_2_safe_to_retry_stands_on_the_answer_after_consent() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(uncertain("late")).await; // the CMS answers `[]` (its fallback)
    let id = job.id.to_string();
    let args = [
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &id,
        "--reason",
        "CMS lacks it",
    ];
    let mut p = env.pty(&args);
    let shown = p
        .exp_string(&format!("Mark job {id} safe_to_retry?"))
        .unwrap();
    assert!(shown.contains("verdict safe_to_retry"), "{shown}");
    // Meanwhile the workers' earlier send lands.
    answer(&cms, &job, found("cms-late", &job.payload_hash)).await;
    p.send_line("y").unwrap();
    p.exp_string("refusing to mark job").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 3);
    assert_unchanged(&env, &job).await;
    assert_eq!(cms.asked_for(&job.external_ref).await, 2);
    assert_eq!(cms.asked_for(CANARY).await, 2);

    // The same race the other way: it stays absent, and the move records that its evidence
    // was taken after the "y".
    let other = env.seed(uncertain("absent")).await;
    let oid = other.id.to_string();
    let mut p = env.pty(&[
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &oid,
        "--reason",
        "CMS lacks it",
    ]);
    p.exp_string(&format!("Mark job {oid} safe_to_retry?"))
        .unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 0);
    let ev = env.events(other.id).await.pop().unwrap();
    assert_eq!(ev.to_state, State::SafeToRetry);
    assert_eq!(
        ev.evidence["looked_up_after_consent"], true,
        "{}",
        ev.evidence
    );
}

/// Item 23.3: a wrong safe_to_retry can be corrected: `mark accepted` when the destination
/// has it after all (exit 0, remote id recorded, from safe_to_retry), refused (exit 3) when it
/// does not.
#[tokio::test]
async fn item_23_3_mark_accepted_corrects_a_wrong_safe_to_retry() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let wrong = env
        .seed(Seed::new("wrong").state(State::SafeToRetry).sent_ago(600))
        .await;
    answer(&cms, &wrong, found("cms-77", &wrong.payload_hash)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &wrong.id.to_string(),
            "--reason",
            "it was there after all",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["job"]["state"], "accepted");
    assert_eq!(out["job"]["remote_id"], "cms-77");
    assert_eq!(out["event"]["from_state"], "safe_to_retry");
    assert_eq!(out["event"]["action"], "mark_accepted");

    let right = env
        .seed(Seed::new("right").state(State::SafeToRetry).sent_ago(600))
        .await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &right.id.to_string(),
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    assert_eq!(out["error"]["code"], "refused_by_lookup");
    assert_unchanged(&env, &right).await;
}

/// Item 23.7: the conflict runbook as written. A conflict job whose CMS copy has other
/// content: `mark accepted --remote-id R` is refused (exit 3) and the hint names the flag that
/// accepts it on purpose; with `--accept-different-content` it moves, and the event records
/// the choice beside the lookup with both hashes. Without the lookup the flag is a usage
/// error (nothing would show the content differs).
#[tokio::test]
async fn item_23_7_a_differing_copy_is_accepted_only_on_purpose_and_recorded() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env
        .seed(Seed::new("differs").state(State::Conflict).sent_ago(600))
        .await;
    let theirs = "0".repeat(64);
    answer(&cms, &job, found("cms-5", &theirs)).await;
    let id = job.id.to_string();
    let base = [
        "--config",
        &cfg,
        "mark",
        "accepted",
        &id,
        "--remote-id",
        "cms-5",
        "--reason",
        "the CMS copy is the edited one",
        "--yes",
        "-o",
        "json",
    ];
    let out = env.run(&base).expect(3).json();
    assert_eq!(out["error"]["code"], "refused_by_lookup");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the content differs"),
        "{out}"
    );
    assert!(
        out["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("--accept-different-content"),
        "{out}"
    );
    assert_unchanged(&env, &job).await;

    let mut with_flag = base.to_vec();
    with_flag.push("--accept-different-content");
    env.run(&[&with_flag[..], &["--no-lookup"]].concat())
        .expect(2);
    assert_unchanged(&env, &job).await;
    let out = env.run(&with_flag).expect(0).json();
    assert_eq!(out["job"]["state"], "accepted");
    assert_eq!(out["job"]["remote_id"], "cms-5");
    let ev = &out["event"]["evidence"];
    assert_eq!(ev["accepted_different_content"], true, "{ev}");
    assert_eq!(ev["lookup"]["content_match"], false);
    assert_eq!(ev["lookup"]["verdict"], "conflict");
    assert_eq!(ev["lookup"]["matches"][0]["content_hash"], theirs.as_str());
    assert_eq!(ev["lookup"]["payload_hash"], job.payload_hash.as_str());

    // The safe-to-retry refusal on a conflict points to the same way out.
    let other = env
        .seed(Seed::new("differs-2").state(State::Conflict).sent_ago(600))
        .await;
    answer(&cms, &other, found("cms-6", &theirs)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &other.id.to_string(),
            "--reason",
            "x",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    let hint = out["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("--accept-different-content"), "{hint}");
    assert!(hint.contains("mark failed"), "{hint}");
}

/// Item 24.8: `mark accepted JOB --yes` without `--remote-id` on a job someone accepted asks
/// the configured destination: the same id → "no change", exit 0, saying it agrees; another
/// id → exit 3 naming both; no event either way.
#[tokio::test]
async fn item_24_8_no_change_on_an_accepted_job_asks_the_destination() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let same = env
        .seed(Seed::new("same").state(State::Accepted).remote_id("r-1"))
        .await;
    answer(&cms, &same, found("r-1", &same.payload_hash)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &same.id.to_string(),
            "--reason",
            "runbook",
            "--yes",
        ])
        .expect(0);
    assert!(
        out.stdout().contains("no change") && out.stdout().contains("the destination agrees"),
        "{}",
        out.stdout()
    );
    assert_eq!(cms.asked_for(&same.external_ref).await, 1);

    let other = env
        .seed(Seed::new("other").state(State::Accepted).remote_id("r-1"))
        .await;
    answer(&cms, &other, found("r-2", &other.payload_hash)).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "accepted",
            &other.id.to_string(),
            "--reason",
            "runbook",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    assert_eq!(out["error"]["code"], "remote_id_mismatch");
    let msg = out["error"]["message"].as_str().unwrap();
    assert!(msg.contains("r-1") && msg.contains("r-2"), "{msg}");
    for j in [&same, &other] {
        assert_unchanged(&env, j).await;
    }
}
