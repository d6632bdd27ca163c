//! Controls (SPEC §4): a "not found" is trusted only from a destination whose lookup is
//! proven to work. Each misconfiguration that would turn every lookup into "not found" (or
//! into "found") moves nothing, refuses the mark and fails `doctor`; the correct config gives
//! the proper verdicts for the same jobs.

use reconctl::jobs::{Job, State};
use serde_json::{json, Value};
use wiremock::matchers::{method, path, path_regex, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::cms::{config_for, found, none, ok_json, Cms, CANARY, CANARY_ID};
use crate::harness::*;

/// Two uncertain jobs sent long ago: the CMS has `published`, not `missing`.
struct Jobs {
    published: Job,
    missing: Job,
}

async fn jobs(env: &TestEnv, cms: &Cms) -> Jobs {
    let u = |a: &str| Seed::new(a).state(State::Uncertain).sent_ago(600);
    let published = env.seed(u("published")).await;
    cms.answer(
        &published.external_ref,
        found("art-7", &published.payload_hash),
    )
    .await;
    let missing = env.seed(u("missing")).await;
    Jobs { published, missing }
}

fn run(env: &TestEnv, cfg: &str, args: &[&str]) -> Run {
    let mut all = vec!["--config", cfg];
    all.extend_from_slice(args);
    env.run(&all)
}

/// A misconfigured destination: reconcile moves nothing (every verdict unknown, the failed
/// control named), `mark safe-to-retry` is refused, `doctor` fails naming the control.
async fn assert_caught(env: &TestEnv, cfg: &str, jobs: &Jobs, control: &str) {
    let out = run(env, cfg, &["reconcile", "--apply", "--yes", "-o", "json"])
        .expect(5)
        .json();
    assert_eq!(out["summary"]["moved"], 0, "{out}");
    assert_eq!(out["summary"]["unknown"], 2, "{out}");
    assert_eq!(out["controls"]["cms-a"]["ok"], false, "{out}");
    assert_eq!(out["controls"]["cms-a"][control]["ok"], false, "{out}");
    for r in out["jobs"].as_array().unwrap() {
        assert_eq!(r["verdict"], "unknown", "{r}");
        assert!(r["reason"].as_str().unwrap().contains("controls"), "{r}");
    }
    for j in [&jobs.published, &jobs.missing] {
        assert_eq!(&env.job(j.id).await, j);
    }
    // The people's report names the destination's failure once, not once per job.
    let text = run(env, cfg, &["reconcile"]).expect(5).stdout();
    assert_eq!(text.matches("destination cms-a: ").count(), 1, "{text}");
    assert!(text.contains(&format!("{control} control")), "{text}");

    let mark = run(
        env,
        cfg,
        &[
            "mark",
            "safe-to-retry",
            &jobs.missing.external_ref,
            "--reason",
            "CMS lacks it",
            "--yes",
            "-o",
            "json",
        ],
    )
    .expect(3);
    let err = mark.json();
    assert_eq!(err["error"]["code"], "refused_by_lookup", "{err}");
    assert_eq!(err["error"]["detail"]["lookup"]["verdict"], "unknown");
    assert_eq!(&env.job(jobs.missing.id).await, &jobs.missing);

    let doctor = run(env, cfg, &["doctor", "-o", "json"]).expect(1).json();
    let dest = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "destination cms-a")
        .unwrap()
        .clone();
    assert_eq!(dest["ok"], false, "{dest}");
    assert!(dest["detail"].as_str().unwrap().contains(control), "{dest}");

    let lookup = run(
        env,
        cfg,
        &["remote", "lookup", &jobs.missing.external_ref, "-o", "json"],
    )
    .expect(1)
    .json();
    assert_eq!(lookup["verdict"], "unknown", "{lookup}");
    assert_eq!(lookup["controls"][control]["ok"], false, "{lookup}");
}

/// The correct config: the same jobs get their proper verdicts.
async fn assert_proper_verdicts(env: &TestEnv, cfg: &str, jobs: &Jobs) {
    let out = run(env, cfg, &["reconcile", "-o", "json"]).expect(0).json();
    let verdicts: Vec<(String, String)> = out["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(verdicts.contains(&(jobs.published.id.to_string(), "accept".into())));
    assert!(verdicts.contains(&(jobs.missing.id.to_string(), "safe_to_retry".into())));
    assert_eq!(out["controls"]["cms-a"]["ok"], true, "{out}");
    run(env, cfg, &["doctor"]).expect(0);
}

/// A typo in lookup_url's path: every lookup answers 404, which by default is not "no
/// match"; and the canary is not found either.
#[tokio::test]
async fn a_typo_in_the_path_is_caught() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    // wiremock answers 404 for a path nothing is mounted at.
    let typo = env.write_config(&config_for(
        &format!("{}/wrong-path", cms.uri()),
        &format!("canary_ref = \"{CANARY}\""),
    ));
    let typo = std::fs::read_to_string(&typo)
        .unwrap()
        .replace("/wrong-path/articles", "/wrong-path");
    let typo = env.write_config(&typo);
    assert_caught(&env, &typo, &jobs, "positive").await;
    let good = env.write_config(&cms.config(""));
    assert_proper_verdicts(&env, &good, &jobs).await;
}

/// A wrong query parameter name: the CMS ignores it and answers `[]` for everything, so the
/// canary is "not found".
#[tokio::test]
async fn a_wrong_query_parameter_is_caught() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    let wrong = env.write_config(&cms.config("").replace("?external_ref={ref}", "?ref={ref}"));
    assert_caught(&env, &wrong, &jobs, "positive").await;
    let good = env.write_config(&cms.config(""));
    assert_proper_verdicts(&env, &good, &jobs).await;
}

/// The filter ignored: one article comes back for every reference (and without a
/// content_hash pointer nothing tells them apart): the made-up reference is "found".
#[tokio::test]
async fn an_ignored_filter_is_caught() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    Mock::given(method("GET"))
        .and(path("/everything"))
        .respond_with(ok_json(json!([{"id": "art-1"}])))
        .mount(&cms.server)
        .await;
    let ignored = env.write_config(
        &cms.config("")
            .replace("/articles?external_ref={ref}", "/everything?q={ref}")
            .replace("content_hash = \"/payload_hash\"\n", ""),
    );
    assert_caught(&env, &ignored, &jobs, "negative").await;
    let good = env.write_config(&cms.config(""));
    assert_proper_verdicts(&env, &good, &jobs).await;
}

/// Issue 23 item 1: a typo in the `content_hash` pointer (`"/hash"` where the CMS says
/// `payload_hash`) reads "no content hash" in every match, so a copy whose content differs
/// would be accepted. The positive control proves the pointer on a publication whose hash is
/// known (the settled accepted job): it reads nothing there, the control fails, nothing
/// moves, `mark` is refused, `doctor` fails and the reason names the pointer.
#[tokio::test]
async fn item_23_1_a_typo_in_the_content_hash_pointer_fails_the_positive_control() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    let settled = env
        .seed(
            Seed::new("old-accepted")
                .state(State::Accepted)
                .remote_id("art-old")
                .sent_ago(3600)
                .aged(3500),
        )
        .await;
    cms.answer(
        &settled.external_ref,
        found("art-old", &settled.payload_hash),
    )
    .await;
    let typo = env.write_config(&config_for(&cms.uri(), "").replace(
        "content_hash = \"/payload_hash\"",
        "content_hash = \"/hash\"",
    ));
    assert_caught(&env, &typo, &jobs, "positive").await;
    let lookup = run(
        &env,
        &typo,
        &[
            "remote",
            "lookup",
            &jobs.published.external_ref,
            "-o",
            "json",
        ],
    )
    .expect(1)
    .json();
    let reason = lookup["reason"].as_str().unwrap();
    assert!(
        reason.contains("nothing at the `content_hash` pointer \"/hash\""),
        "{reason}"
    );
    let good = env.write_config(&config_for(&cms.uri(), ""));
    assert_proper_verdicts(&env, &good, &jobs).await;
}

/// Resource-style URLs (`/articles/{ref}`) answer 404 for "no match": with
/// `not_found = "empty_or_404"` that is "not found", and the controls pass.
#[tokio::test]
async fn empty_or_404_with_a_resource_style_route() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    let u = |a: &str| Seed::new(a).state(State::Uncertain).sent_ago(600);
    let published = env.seed(u("published")).await;
    let missing = env.seed(u("missing")).await;
    for (r, id, hash) in [
        (CANARY, CANARY_ID, "c".repeat(64)),
        (
            published.external_ref.as_str(),
            "art-7",
            published.payload_hash.clone(),
        ),
    ] {
        Mock::given(method("GET"))
            .and(path(format!("/articles/{r}")))
            .respond_with(found(id, &hash))
            .mount(&server)
            .await;
    }
    Mock::given(method("GET"))
        .and(path_regex("^/articles/pub_[0-9a-f]{64}$"))
        .respond_with(ResponseTemplate::new(404))
        .with_priority(10)
        .mount(&server)
        .await;
    let base = format!(
        "[destinations.cms-a]\nlookup_url = \"{}/articles/{{ref}}\"\ntimeout = \"1s\"\nsettle_after = \"2m\"\ncontent_hash = \"/payload_hash\"\ncanary_ref = \"{CANARY}\"\n",
        server.uri()
    );
    // Without it, a 404 is unexpected: both controls and the job unknown.
    let strict = env.write_config(&base);
    let out = run(
        &env,
        &strict,
        &["remote", "lookup", &missing.external_ref, "-o", "json"],
    )
    .expect(1)
    .json();
    assert_eq!(out["verdict"], "unknown", "{out}");
    assert_eq!(out["outcome"], "unreachable", "{out}");
    assert_eq!(out["controls"]["negative"]["ok"], false, "{out}");

    let cfg = env.write_config(&format!("{base}not_found = \"empty_or_404\"\n"));
    let out = run(
        &env,
        &cfg,
        &["remote", "lookup", &missing.external_ref, "-o", "json"],
    )
    .expect(0)
    .json();
    assert_eq!(out["outcome"], "not_found", "{out}");
    assert_eq!(out["verdict"], "safe_to_retry", "{out}");
    assert_eq!(out["controls"]["positive"]["ok"], true, "{out}");
    assert_eq!(out["controls"]["negative"]["ok"], true, "{out}");
    let out = run(
        &env,
        &cfg,
        &["remote", "lookup", &published.external_ref, "-o", "json"],
    )
    .expect(0)
    .json();
    assert_eq!(out["verdict"], "accept", "{out}");
}

/// No canary and no accepted job: the positive control cannot be made, every verdict is
/// unknown with a reason saying how to fix it; `canary_ref` fixes it.
#[tokio::test]
async fn no_known_publication_is_unknown_until_a_canary_is_configured() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    let bare = env.write_config(&config_for(&cms.uri(), ""));
    let out = run(
        &env,
        &bare,
        &["remote", "lookup", &jobs.missing.external_ref, "-o", "json"],
    )
    .expect(1)
    .json();
    assert_eq!(out["verdict"], "unknown", "{out}");
    assert_eq!(
        out["controls"]["positive"],
        json!({"external_ref": null, "outcome": null, "ok": false})
    );
    let reason = out["reason"].as_str().unwrap();
    assert!(reason.contains("positive control impossible"), "{reason}");
    assert!(reason.contains("canary_ref"), "{reason}");
    run(&env, &bare, &["reconcile", "--apply", "--yes"]).expect(5);
    assert_eq!(&env.job(jobs.missing.id).await, &jobs.missing);

    let with_canary = env.write_config(&cms.config(""));
    assert_proper_verdicts(&env, &with_canary, &jobs).await;
}

/// Without a canary, the positive control is the most recent accepted job whose send is
/// older than settle_after, not a fresher one (whose absence could still be a late write);
/// and it must come back with the remote_id recorded for it.
#[tokio::test]
async fn the_positive_control_is_a_settled_accepted_job_with_its_remote_id() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    let settled = env
        .seed(
            Seed::new("old-accepted")
                .state(State::Accepted)
                .remote_id("art-old")
                .sent_ago(3600)
                .aged(3500),
        )
        .await;
    cms.answer(
        &settled.external_ref,
        found("art-old", &settled.payload_hash),
    )
    .await;
    // Created later and accepted, but sent 10 s ago (settle_after 2m): not a control. The
    // CMS does not show it yet.
    let fresh = env
        .seed(
            Seed::new("fresh-accepted")
                .state(State::Accepted)
                .remote_id("art-new")
                .sent_ago(10)
                .aged(5),
        )
        .await;
    cms.answer(&fresh.external_ref, none()).await;
    let cfg = env.write_config(&config_for(&cms.uri(), ""));
    let out = run(
        &env,
        &cfg,
        &["remote", "lookup", &jobs.missing.external_ref, "-o", "json"],
    )
    .expect(0)
    .json();
    assert_eq!(
        out["controls"]["positive"],
        json!({"external_ref": settled.external_ref, "outcome": "found", "ok": true}),
        "{out}"
    );
    assert_eq!(out["verdict"], "safe_to_retry", "{out}");
    assert_eq!(cms.asked_for(&fresh.external_ref).await, 0);

    // The same reference, another remote id: the lookup may ignore the reference or the
    // remote_id pointer is wrong; nothing it says is trusted.
    let cms2 = Cms::start().await;
    cms2.answer(
        &settled.external_ref,
        found("art-999", &settled.payload_hash),
    )
    .await;
    let cfg = env.write_config(&config_for(&cms2.uri(), ""));
    let out = run(
        &env,
        &cfg,
        &["remote", "lookup", &jobs.missing.external_ref, "-o", "json"],
    )
    .expect(1)
    .json();
    assert_eq!(out["verdict"], "unknown", "{out}");
    assert_eq!(out["controls"]["positive"]["ok"], false, "{out}");
    let reason = out["reason"].as_str().unwrap();
    assert!(
        reason.contains("art-999") && reason.contains("art-old"),
        "{reason}"
    );
}

/// A long reconcile checks the controls again (every `lookup.controls_every`, and after each
/// batch's lookups): when the destination stops finding its canary mid-run, the later
/// verdicts are unknown and nothing more moves on its word; the jobs moved before carry the
/// controls they relied on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controls_are_checked_again_during_a_long_run() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    // The canary is found for the first two checks only (the run's first, and the one after
    // the first batch's lookups); then the lookup breaks.
    Mock::given(method("GET"))
        .and(query_param("external_ref", CANARY))
        .respond_with(found(CANARY_ID, &"c".repeat(64)))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(none())
        .with_priority(10)
        .mount(&server)
        .await;
    let mut ids = Vec::new();
    for i in 0..8 {
        ids.push(
            env.seed(
                Seed::new(&format!("j{i}"))
                    .state(State::Uncertain)
                    .sent_ago(600),
            )
            .await,
        );
    }
    let cfg = env.write_config(&config_for(
        &server.uri(),
        &format!("canary_ref = \"{CANARY}\"\n\n[lookup]\ncontrols_every = \"1s\"\n"),
    ));
    // Two lookups a second, one at a time: the run lasts about four seconds.
    let out = run(
        &env,
        &cfg,
        &[
            "reconcile",
            "--apply",
            "--yes",
            "--concurrency",
            "1",
            "--rps",
            "2",
            "-o",
            "json",
        ],
    )
    .expect(5)
    .json();
    let moved = out["summary"]["moved"].as_u64().unwrap();
    let unknown = out["summary"]["unknown"].as_u64().unwrap();
    assert!(moved >= 1 && unknown >= 1, "{out}");
    assert_eq!(moved + unknown, 8, "{out}");
    assert_eq!(out["controls"]["cms-a"]["positive"]["ok"], false, "{out}");
    for r in out["jobs"].as_array().unwrap() {
        let id: uuid::Uuid = r["id"].as_str().unwrap().parse().unwrap();
        let job = env.job(id).await;
        match r["verdict"].as_str().unwrap() {
            "safe_to_retry" => {
                assert_eq!(job.state, State::SafeToRetry);
                let ev = &env.events(id).await[1];
                let c = &ev.evidence["lookup"]["controls"];
                assert_eq!(c["ok"], true, "{c}");
                assert_eq!(c["positive"]["external_ref"], CANARY);
            }
            "unknown" => assert_eq!(job.state, State::Uncertain),
            other => panic!("unexpected verdict {other}: {r}"),
        }
    }
    // Checked at least twice: once at the start, again after a second.
    let canary_asks = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.query().is_some_and(|q| q.contains(CANARY)))
        .count();
    assert!(canary_asks >= 2, "{canary_asks}");
}

/// Several destinations: the healthy one's jobs move; the broken one's are unknown, its
/// failure named once; exit 5.
#[tokio::test]
async fn reconcile_goes_on_for_the_healthy_destinations() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    let broken = env
        .seed(
            Seed::new("b1")
                .destination("cms-b")
                .state(State::Uncertain)
                .sent_ago(600),
        )
        .await;
    let cfg = env.write_config(&format!(
        "{}\n{}",
        cms.config(""),
        cms.config("")
            .replace("[destinations.cms-a]", "[destinations.cms-b]")
            .replace("/articles?", "/nothing-here?")
    ));
    let out = run(&env, &cfg, &["reconcile", "--apply", "--yes", "-o", "json"])
        .expect(5)
        .json();
    assert_eq!(out["summary"]["moved"], 2, "{out}");
    assert_eq!(out["summary"]["unknown"], 1, "{out}");
    assert_eq!(out["controls"]["cms-a"]["ok"], true);
    assert_eq!(out["controls"]["cms-b"]["ok"], false);
    assert_eq!(env.job(jobs.published.id).await.state, State::Accepted);
    assert_eq!(env.job(jobs.missing.id).await.state, State::SafeToRetry);
    assert_eq!(&env.job(broken.id).await, &broken);
}

/// What a failed control says: which control, what came back, what to check.
#[tokio::test]
async fn a_failed_control_says_what_to_check() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let jobs = jobs(&env, &cms).await;
    let wrong = env.write_config(&cms.config("").replace("?external_ref=", "?ref="));
    let out = run(
        &env,
        &wrong,
        &["remote", "lookup", &jobs.missing.external_ref, "-o", "json"],
    )
    .expect(1)
    .json();
    let reason = out["reason"].as_str().unwrap();
    for what in [
        "positive control failed",
        CANARY,
        "canary_ref",
        "query parameter",
        "results",
    ] {
        assert!(reason.contains(what), "{what}: {reason}");
    }
    let controls: &Value = &out["controls"];
    assert_eq!(controls["positive"]["outcome"], "not_found");
    assert_eq!(controls["negative"]["ok"], true);
    // People see it too, without the job's own answer being mistaken for evidence.
    let table = run(
        &env,
        &wrong,
        &["remote", "lookup", &jobs.missing.external_ref],
    )
    .expect(1)
    .stdout();
    assert!(table.contains("FAILED"), "{table}");
    assert!(table.contains("unknown"), "{table}");
}
