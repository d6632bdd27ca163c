//! `remote lookup`: each verdict, the settle boundary, every way a destination can fail to
//! answer (all `unknown`, nothing moved), and the bearer token's path.

use std::time::Duration;

use reconctl::jobs::State;
use serde_json::{json, Value};
use wiremock::matchers::{header, method, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::cms::{config_for, found, none, ok_json, Cms, CANARY};
use crate::harness::*;

const TOKEN: &str = "s3cr3t-t0ken-value";

fn lookup(env: &TestEnv, cfg: &str, job: &str) -> Run {
    env.run(&["--config", cfg, "remote", "lookup", job, "-o", "json"])
}

/// The JSON minus the free-text reason (asserted separately: present and one line) and the
/// controls (asserted separately: both passed, the canary found, a made-up reference not).
fn without_reason(mut v: Value) -> Value {
    let obj = v.as_object_mut().expect("an object");
    let reason = obj.remove("reason").expect("a reason");
    let reason = reason.as_str().expect("reason is text");
    assert!(!reason.is_empty() && !reason.contains('\n'), "{reason}");
    let controls = obj.remove("controls").expect("the controls");
    assert_passed(&controls);
    v
}

/// SPEC §4's controls object, both passed.
pub fn assert_passed(controls: &Value) {
    assert_eq!(
        controls["positive"],
        json!({"external_ref": CANARY, "outcome": "found", "ok": true}),
        "{controls}"
    );
    let negative = &controls["negative"];
    assert_eq!(negative["outcome"], "not_found", "{controls}");
    assert_eq!(negative["ok"], true, "{controls}");
    let r = negative["external_ref"].as_str().unwrap();
    assert!(
        reconctl::jobs::external_ref::is_external_ref(r) && r != CANARY,
        "{r}"
    );
    assert_eq!(negative.as_object().unwrap().len(), 3, "{controls}");
}

#[tokio::test]
async fn each_verdict_of_a_job_lookup() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));

    let same = env
        .seed(Seed::new("same").state(State::Uncertain).sent_ago(600))
        .await;
    cms.answer(
        &same.external_ref,
        ok_json(json!([{"id": "r-1", "payload_hash": same.payload_hash}])),
    )
    .await;
    let out = lookup(&env, &cfg, &same.id.to_string()).expect(0).json();
    assert_eq!(
        without_reason(out),
        json!({"destination": "cms-a", "external_ref": same.external_ref, "outcome": "found",
               "matches": [{"remote_id": "r-1", "content_hash": same.payload_hash, "status": null, "ref": null}],
               "content_match": true, "verdict": "accept"})
    );

    // A numeric id and no hash reported: still accept, nothing to compare.
    let no_hash = env
        .seed(Seed::new("nohash").state(State::Uncertain).sent_ago(600))
        .await;
    cms.answer(&no_hash.external_ref, ok_json(json!([{"id": 77}])))
        .await;
    let out = lookup(&env, &cfg, &no_hash.external_ref).expect(0).json();
    assert_eq!(
        without_reason(out),
        json!({"destination": "cms-a", "external_ref": no_hash.external_ref, "outcome": "found",
               "matches": [{"remote_id": "77", "content_hash": null, "status": null, "ref": null}],
               "content_match": null, "verdict": "accept"})
    );

    let other = env
        .seed(Seed::new("other").state(State::Uncertain).sent_ago(600))
        .await;
    cms.answer(
        &other.external_ref,
        ok_json(json!([{"id": "r-2", "payload_hash": "ff".repeat(32)}])),
    )
    .await;
    let out = lookup(&env, &cfg, &other.id.to_string()).expect(0).json();
    assert_eq!(
        without_reason(out),
        json!({"destination": "cms-a", "external_ref": other.external_ref, "outcome": "found",
               "matches": [{"remote_id": "r-2", "content_hash": "ff".repeat(32), "status": null, "ref": null}],
               "content_match": false, "verdict": "conflict"})
    );

    let twice = env
        .seed(Seed::new("twice").state(State::Uncertain).sent_ago(600))
        .await;
    cms.answer(
        &twice.external_ref,
        ok_json(json!([{"id": "r-3", "payload_hash": twice.payload_hash},
                        {"id": "r-4", "payload_hash": twice.payload_hash}])),
    )
    .await;
    let out = lookup(&env, &cfg, &twice.id.to_string()).expect(0).json();
    assert_eq!(out["outcome"], "ambiguous");
    assert_eq!(out["verdict"], "conflict");
    assert_eq!(out["matches"].as_array().unwrap().len(), 2);

    // Not found: an empty list.
    let gone = env
        .seed(Seed::new("gone").state(State::Uncertain).sent_ago(600))
        .await;
    cms.answer(&gone.external_ref, none()).await;
    let out = lookup(&env, &cfg, &gone.id.to_string()).expect(0).json();
    assert_eq!(
        without_reason(out),
        json!({"destination": "cms-a", "external_ref": gone.external_ref, "outcome": "not_found",
               "matches": [], "content_match": null, "verdict": "safe_to_retry"})
    );
    let empty = env
        .seed(Seed::new("empty").state(State::Uncertain).sent_ago(600))
        .await;
    cms.answer(&empty.external_ref, ok_json(json!([]))).await;
    let out = lookup(&env, &cfg, &empty.id.to_string()).expect(0).json();
    assert_eq!(out["outcome"], "not_found");
    assert_eq!(out["verdict"], "safe_to_retry");

    let recent = env
        .seed(Seed::new("recent").state(State::Uncertain).sent_ago(20))
        .await;
    cms.answer(&recent.external_ref, none()).await;
    let out = lookup(&env, &cfg, &recent.id.to_string()).expect(0).json();
    assert_eq!(out["verdict"], "wait");
    assert!(
        out["reason"].as_str().unwrap().contains("look again in"),
        "{out}"
    );

    // Nothing was moved by a lookup.
    for j in [&same, &no_hash, &other, &twice, &gone, &empty, &recent] {
        let now = env.job(j.id).await;
        assert_eq!((now.state, now.version), (State::Uncertain, j.version));
    }

    // The people's table says the same.
    let table = env
        .run(&["--config", &cfg, "remote", "lookup", &same.id.to_string()])
        .expect(0)
        .stdout();
    assert!(table.contains("accept") && table.contains("r-1"), "{table}");
}

#[tokio::test]
async fn settle_after_is_the_boundary_between_wait_and_safe_to_retry() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    // settle_after = 2m: 10 s either side of it.
    let before = env
        .seed(Seed::new("before").state(State::Uncertain).sent_ago(110))
        .await;
    let after = env
        .seed(Seed::new("after").state(State::Uncertain).sent_ago(130))
        .await;
    let out = lookup(&env, &cfg, &before.id.to_string()).expect(0).json();
    assert_eq!(out["verdict"], "wait");
    let out = lookup(&env, &cfg, &after.id.to_string()).expect(0).json();
    assert_eq!(out["verdict"], "safe_to_retry");
}

#[tokio::test]
async fn lookup_by_destination_and_ref() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    // A ref that needs encoding reaches the server intact.
    let odd = "pub_a b&c=d/é";
    cms.answer(
        odd,
        ok_json(json!([{"id": "r-9", "payload_hash": "AB".repeat(32)}])),
    )
    .await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "remote",
            "lookup",
            "--destination",
            "cms-a",
            "--ref",
            odd,
            "--payload-hash",
            &"ab".repeat(32),
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(
        without_reason(out),
        json!({"destination": "cms-a", "external_ref": odd, "outcome": "found",
               "matches": [{"remote_id": "r-9", "content_hash": "AB".repeat(32), "status": null, "ref": null}],
               "content_match": true, "verdict": "accept"})
    );

    // Without a job there is no sent_at: a "not found" cannot be called settled.
    let out = env
        .run(&[
            "--config",
            &cfg,
            "remote",
            "lookup",
            "--destination",
            "cms-a",
            "--ref",
            "pub_nothing",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(out["outcome"], "not_found");
    assert_eq!(out["verdict"], "wait");

    let run = env
        .run(&[
            "--config",
            &cfg,
            "remote",
            "lookup",
            "--destination",
            "cms-zz",
            "--ref",
            "pub_x",
        ])
        .expect(2);
    assert!(run.stderr().contains("cms-zz"), "{}", run.stderr());
}

#[tokio::test]
async fn a_job_for_an_unconfigured_destination_is_a_usage_error_with_a_hint() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let job = env
        .seed(
            Seed::new("b")
                .destination("cms-b")
                .state(State::Uncertain)
                .sent_ago(600),
        )
        .await;
    let run = lookup(&env, &cfg, &job.id.to_string()).expect(2);
    let err = run.json();
    assert_eq!(err["error"]["kind"], "usage");
    assert!(
        err["error"]["message"].as_str().unwrap().contains("cms-b"),
        "{err}"
    );
    assert!(
        err["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("[destinations.cms-b]"),
        "{err}"
    );
    // No config at all: the same, with a hint to pass one.
    let run = env
        .run(&["remote", "lookup", &job.id.to_string()])
        .expect(2);
    assert!(run.stderr().contains("--config"), "{}", run.stderr());
    assert!(cms.asked().await.is_empty());
}

#[tokio::test]
async fn the_token_is_sent_as_a_bearer_header_and_never_shown() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    let job = env
        .seed(Seed::new("tok").state(State::Uncertain).sent_ago(600))
        .await;
    let bearer = format!("Bearer {TOKEN}");
    Mock::given(method("GET"))
        .and(header("authorization", bearer.as_str()))
        .and(query_param("external_ref", job.external_ref.as_str()))
        .respond_with(ok_json(
            json!([{"id": "r-1", "payload_hash": job.payload_hash}]),
        ))
        .mount(&server)
        .await;
    // The controls, with the token: the canary found, anything else not.
    Mock::given(method("GET"))
        .and(header("authorization", bearer.as_str()))
        .and(query_param("external_ref", CANARY))
        .respond_with(found("canary-1", &"c".repeat(64)))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(header("authorization", bearer.as_str()))
        .respond_with(none())
        .with_priority(9)
        .mount(&server)
        .await;
    // Without the right header: 401, which is `unknown`.
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(401))
        .with_priority(10)
        .mount(&server)
        .await;
    let cfg = env.write_config(&config_for(
        &server.uri(),
        &format!("token_env = \"CMS_A_TOKEN\"\ncanary_ref = \"{CANARY}\""),
    ));

    for format in ["json", "table"] {
        let run = env
            .cmd()
            .env("CMS_A_TOKEN", TOKEN)
            .args([
                "--config",
                &cfg,
                "remote",
                "lookup",
                &job.id.to_string(),
                "-o",
                format,
            ])
            .output()
            .unwrap();
        let run = Run(run).expect(0);
        assert!(run.stdout().contains("accept"), "{}", run.stdout());
        assert!(!run.stdout().contains(TOKEN) && !run.stderr().contains(TOKEN));
    }
    // Two runs, three requests each: the job, the canary, a made-up reference.
    let reqs = server.received_requests().await.unwrap();
    assert_eq!(reqs.len(), 6);
    for r in &reqs {
        assert_eq!(r.headers["authorization"], format!("Bearer {TOKEN}"));
        let ua = r.headers["user-agent"].to_str().unwrap();
        assert!(ua.starts_with("reconctl/"), "{ua}");
    }

    // The variable missing: a usage error naming it; nothing is asked.
    let run = lookup(&env, &cfg, &job.id.to_string()).expect(2);
    assert!(run.stderr().contains("CMS_A_TOKEN"), "{}", run.stderr());
    assert_eq!(server.received_requests().await.unwrap().len(), 6);
}

/// Every way a destination can fail to answer properly (with `max_body_bytes = 4096` and a
/// 1 s timeout): name and response. `elsewhere` is another server a redirect points to.
pub fn faults(elsewhere: &str) -> Vec<(&'static str, ResponseTemplate)> {
    let big = json!([{"id": "r", "payload_hash": "x", "pad": "p".repeat(5000)}]);
    vec![
        (
            "slow",
            ok_json(json!([{"id": "r"}])).set_delay(Duration::from_millis(2500)),
        ),
        ("e500", ResponseTemplate::new(500)),
        ("e503", ResponseTemplate::new(503).set_body_json(json!([]))),
        ("e429", ResponseTemplate::new(429)),
        (
            "badjson",
            ResponseTemplate::new(200).set_body_raw("[{\"id\": ", "application/json"),
        ),
        ("toobig", ok_json(big)),
        (
            "redirect",
            ResponseTemplate::new(302).insert_header(
                "location",
                format!("{elsewhere}/articles?external_ref=x").as_str(),
            ),
        ),
        (
            "html",
            ResponseTemplate::new(200).set_body_raw("[]", "text/html"),
        ),
        ("notarray", ok_json(json!({"id": "r"}))),
        ("noid", ok_json(json!([{"payload_hash": "ab"}]))),
    ]
}

/// Every way of not answering properly is `unreachable` / `unknown`, exit 1, and moves nothing.
#[tokio::test]
async fn every_fault_is_unknown_and_moves_nothing() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let elsewhere = MockServer::start().await;
    let cfg = env.write_config(&cms.config("\n[lookup]\nmax_body_bytes = 4096\n"));
    let faults = faults(&elsewhere.uri());
    Mock::given(method("GET"))
        .respond_with(ok_json(json!([{"id": "r"}])))
        .mount(&elsewhere)
        .await;
    let mut jobs = Vec::new();
    for (name, resp) in faults {
        let job = env
            .seed(Seed::new(name).state(State::Uncertain).sent_ago(600))
            .await;
        cms.answer(&job.external_ref, resp).await;
        jobs.push((name, job));
    }
    for (name, job) in &jobs {
        let started = std::time::Instant::now();
        let run = lookup(&env, &cfg, &job.id.to_string()).expect(1);
        let out = run.json();
        assert_eq!(out["outcome"], "unreachable", "{name}: {out}");
        assert_eq!(out["verdict"], "unknown", "{name}: {out}");
        assert_eq!(out["matches"], json!([]), "{name}: {out}");
        // The controls passed: it is this job's answer that proves nothing.
        assert_passed(&out["controls"]);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{name} took {:?}",
            started.elapsed()
        );
        let now = env.job(job.id).await;
        assert_eq!((now.state, now.version), (State::Uncertain, job.version));
        assert_eq!(env.events(job.id).await.len(), 1, "{name}");
    }
    // The redirect was not followed.
    assert!(elsewhere.received_requests().await.unwrap().is_empty());

    // Connection refused: a port nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let cfg = env.write_config(&config_for(
        &format!("http://127.0.0.1:{port}"),
        &format!("canary_ref = \"{CANARY}\""),
    ));
    let job = &jobs[0].1;
    let out = lookup(&env, &cfg, &job.id.to_string()).expect(1).json();
    assert_eq!(
        (out["outcome"].as_str(), out["verdict"].as_str()),
        (Some("unreachable"), Some("unknown"))
    );
    assert!(out["reason"].as_str().unwrap().contains("connect"), "{out}");
}

/// A destination that streams without a Content-Length (chunked) past the cap is cut off
/// while reading, not after buffering it all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_chunked_body_is_cut_off_at_the_cap() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let env = TestEnv::new().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sent2 = sent.clone();
    tokio::spawn(async move {
        // Every request (the job's and the controls') gets the endless body.
        while let Ok((mut sock, _)) = listener.accept().await {
            let sent2 = sent2.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = sock.read(&mut buf).await;
                let _ = sock
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n3\r\n[\"a\r\n")
                    .await;
                let chunk = format!("400\r\n{}\r\n", "a".repeat(0x400));
                // Up to 64 MiB, far past the cap; stops when the client hangs up.
                for _ in 0..65536 {
                    if sock.write_all(chunk.as_bytes()).await.is_err() {
                        break;
                    }
                    sent2.fetch_add(0x400, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let cfg = env.write_config(&config_for(
        &format!("http://{addr}"),
        &format!("canary_ref = \"{CANARY}\"\n\n[lookup]\nmax_body_bytes = 65536\n"),
    ));
    // The server task needs a thread of its own while the binary runs.
    let out = env
        .run(&[
            "--config",
            &cfg,
            "remote",
            "lookup",
            "--destination",
            "cms-a",
            "--ref",
            "pub_x",
            "-o",
            "json",
        ])
        .expect(1)
        .json();
    assert_eq!(out["verdict"], "unknown");
    assert!(out["reason"].as_str().unwrap().contains("cap"), "{out}");
    let total = sent.load(std::sync::atomic::Ordering::Relaxed);
    assert!(total < 16 * 1024 * 1024, "read {total} bytes");
}
