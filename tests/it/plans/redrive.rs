//! Redrive: `mark safe-to-retry` of a failed job (failed → safe_to_retry, action `redrive`),
//! allowed only when the destination does not hold it (controls pass), or on `--no-lookup`
//! (recorded); the worker API's claim takes the redriven job like any safe_to_retry job.

use std::time::Duration;

use reconctl::jobs::{worker, State};
use serde_json::json;

use crate::cms::{found, none as nothing, Cms};
use crate::harness::*;

/// A job the worker failed 10 minutes ago, after sending it 11 minutes ago.
fn failed(article: &str) -> Seed {
    Seed::new(article)
        .state(State::Failed)
        .sent_ago(660)
        .aged(600)
}

#[tokio::test]
async fn redrive_is_allowed_when_the_destination_does_not_hold_it() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(failed("a1")).await;
    cms.answer(&job.external_ref, nothing()).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.id.to_string(),
            "--reason",
            "CMS validation bug fixed",
            "--yes",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["job"]["state"], "safe_to_retry");
    assert_eq!(out["job"]["version"], 2);
    let events = env.events(job.id).await;
    assert_eq!(events.len(), 2);
    let ev = &events[1];
    assert_eq!(out["event"], serde_json::to_value(ev).unwrap());
    assert_eq!(ev.action, "redrive");
    assert_eq!(ev.from_state, Some(State::Failed));
    assert_eq!(ev.to_state, State::SafeToRetry);
    assert_eq!(ev.reason.as_deref(), Some("CMS validation bug fixed"));
    assert_eq!(ev.evidence["lookup"]["verdict"], "safe_to_retry");
    assert_eq!(ev.evidence["lookup"]["controls"]["ok"], true);
    assert_eq!(cms.asked_for(&job.external_ref).await, 1);

    // A failed job never sent (given up while pending) settles from when it failed.
    let never = env
        .seed(Seed::new("a2").state(State::Failed).aged(600))
        .await;
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &never.id.to_string(),
        "--reason",
        "x",
        "--yes",
    ])
    .expect(0);
    assert_eq!(env.job(never.id).await.state, State::SafeToRetry);
    // ... but not one that failed only just now: a late write may still land.
    let fresh = env.seed(Seed::new("a3").state(State::Failed).aged(5)).await;
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &fresh.id.to_string(),
        "--reason",
        "x",
        "--yes",
    ])
    .expect(3);
    assert_eq!(env.job(fresh.id).await, fresh);
    env.assert_invariants().await;
}

#[tokio::test]
async fn redrive_is_refused_when_the_destination_holds_it() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env.seed(failed("a1")).await;
    cms.answer(&job.external_ref, found("cms-9", &job.payload_hash))
        .await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "mark",
            "safe-to-retry",
            &job.id.to_string(),
            "--reason",
            "redrive",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    let err = &out.json()["error"];
    assert_eq!(err["code"], "refused_by_lookup");
    assert_eq!(err["detail"]["lookup"]["verdict"], "accept");
    assert_eq!(err["current"]["state"], "failed");
    assert_eq!(env.job(job.id).await, job);
    assert_eq!(env.events(job.id).await.len(), 1);

    // A destination whose controls fail proves nothing: refused as well.
    let broken = env.write_config(&crate::cms::config_for(&cms.uri(), ""));
    let other = env.seed(failed("a2")).await;
    let out = env
        .run(&[
            "--config",
            &broken,
            "mark",
            "safe-to-retry",
            &other.id.to_string(),
            "--reason",
            "redrive",
            "--yes",
            "-o",
            "json",
        ])
        .expect(3);
    assert_eq!(
        out.json()["error"]["detail"]["lookup"]["verdict"],
        "unknown"
    );
    assert_eq!(env.job(other.id).await, other);
}

#[tokio::test]
async fn redrive_without_lookup_is_recorded_and_a_worker_claims_the_job() {
    let env = TestEnv::new().await;
    let job = env.seed(failed("a1")).await;
    env.run(&[
        "mark",
        "safe-to-retry",
        &job.external_ref,
        "--reason",
        "checked the CMS by hand",
        "--no-lookup",
        "--yes",
    ])
    .expect(0);
    let ev = &env.events(job.id).await[1];
    assert_eq!(ev.action, "redrive");
    assert_eq!(ev.evidence, json!({"lookup": "skipped"}));

    // The worker API takes it like any safe_to_retry job.
    let c = env.connect().await;
    let claimed = worker::claim(&c, "worker-1", Duration::from_secs(60), Some("cms-a"))
        .await
        .unwrap()
        .expect("the redriven job is claimed");
    assert_eq!(claimed.id, job.id);
    assert_eq!(claimed.state, State::InFlight);
    assert_eq!(claimed.version, 3);
    assert_eq!(claimed.attempts, job.attempts + 1);
    assert_eq!(claimed.sent_at, None);
    let events = env.events(job.id).await;
    assert_eq!(events[2].action, "claim");
    assert_eq!(events[2].from_state, Some(State::SafeToRetry));

    // Idempotent: a job already safe_to_retry is no change.
    let again = env.seed(failed("a2").state(State::SafeToRetry)).await;
    env.run(&[
        "mark",
        "safe-to-retry",
        &again.id.to_string(),
        "--reason",
        "x",
        "--no-lookup",
        "--yes",
    ])
    .expect(0);
    assert_eq!(env.events(again.id).await.len(), 1);
    env.assert_invariants().await;
}
