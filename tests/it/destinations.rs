//! Destinations as a CMS wants them (SPEC §4): every `auth` scheme sends exactly its header or
//! parameter and never shows the secret; a lookup_url with a literal credential is refused;
//! the evidence URL keeps what the config wrote; and the documented configs of other CMSs
//! (README, "Other CMSs") read those CMSs' answers, unpublished copies included.

use reconctl::jobs::State;
use serde_json::json;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::cms::CANARY;
use crate::harness::{Run, Seed, TestEnv};

const SECRET: &str = "s3cr3t-T0ken/+=value";
const USER: &str = "editor";

fn run_with(env: &TestEnv, cfg: &str, vars: &[(&str, &str)], args: &[&str]) -> Run {
    let mut cmd = env.cmd();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    Run(cmd
        .arg("--config")
        .arg(cfg)
        .args(args)
        .write_stdin("")
        .output()
        .expect("run reconctl"))
}

async fn uncertain(env: &TestEnv, article: &str) -> reconctl::jobs::Job {
    env.seed(Seed::new(article).state(State::Uncertain).sent_ago(600))
        .await
}

/// Every request no other mount of the test answers: no match (`[]`).
async fn no_match_for_the_rest(server: &MockServer) {
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([])))
        .with_priority(10)
        .mount(server)
        .await;
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

/// Each scheme, exactly as sent: the request must carry it or the CMS answers 401 (and the
/// lookup is unknown). The secret appears in no output and no event.
#[tokio::test]
async fn every_auth_scheme_sends_exactly_its_credential_and_never_shows_it() {
    let schemes: [(&str, &str); 5] = [
        ("bearer", "token_env = \"CMS_TOKEN\"\n"),
        ("implied bearer", "token_env = \"CMS_TOKEN\"\n"),
        (
            "basic",
            "auth = \"basic\"\nuser_env = \"CMS_USER\"\npassword_env = \"CMS_PASSWORD\"\n",
        ),
        (
            "header",
            "auth = \"header\"\nauth_name = \"X-Api-Key\"\ntoken_env = \"CMS_TOKEN\"\n",
        ),
        (
            "query",
            "auth = \"query\"\nauth_name = \"api_key\"\ntoken_env = \"CMS_TOKEN\"\n",
        ),
    ];
    for (scheme, keys) in schemes {
        let env = TestEnv::new().await;
        let server = MockServer::start().await;
        let job = uncertain(&env, &format!("a-{}", scheme.replace(' ', "-"))).await;
        let with_auth = |m: wiremock::MockBuilder| match scheme {
            "bearer" | "implied bearer" => {
                m.and(header("authorization", format!("Bearer {SECRET}").as_str()))
            }
            "basic" => m.and(header("authorization", basic(USER, SECRET).as_str())),
            "header" => m.and(header("x-api-key", SECRET)),
            _ => m.and(query_param("api_key", SECRET)),
        };
        with_auth(
            Mock::given(method("GET"))
                .and(path("/articles"))
                .and(query_param("external_ref", CANARY)),
        )
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([{"id": "canary-1"}])))
        .mount(&server)
        .await;
        with_auth(
            Mock::given(method("GET"))
                .and(path("/articles"))
                .and(query_param("external_ref", job.external_ref.as_str())),
        )
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([{"id": "r-9", "payload_hash": job.payload_hash}])),
        )
        .mount(&server)
        .await;
        with_auth(Mock::given(method("GET")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!([])))
            .with_priority(10)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(401).set_body_json(json!({"code": "unauthorized"})))
            .with_priority(20)
            .mount(&server)
            .await;
        let cfg = env.write_config(&format!(
            "[destinations.cms-a]\nlookup_url = \"{}/articles?external_ref={{ref}}\"\ncontent_hash = \"/payload_hash\"\ncanary_ref = \"{CANARY}\"\n{keys}",
            server.uri()
        ));
        let vars = [
            ("CMS_TOKEN", SECRET),
            ("CMS_USER", USER),
            ("CMS_PASSWORD", SECRET),
        ];
        let lookup = run_with(
            &env,
            &cfg,
            &vars,
            &["remote", "lookup", &job.id.to_string(), "-o", "json"],
        )
        .expect(0);
        let v = lookup.json();
        assert_eq!(v["verdict"], "accept", "{scheme}: {v}");
        let mark = run_with(
            &env,
            &cfg,
            &vars,
            &[
                "mark",
                "accepted",
                &job.id.to_string(),
                "--reason",
                "found",
                "--yes",
            ],
        )
        .expect(0);
        let doctor = run_with(&env, &cfg, &vars, &["doctor"]);
        let doctor_out = doctor.stdout();
        let expected_scheme = if scheme == "implied bearer" {
            "bearer"
        } else {
            scheme
        };
        assert!(
            doctor_out.contains(&format!("auth {expected_scheme}")),
            "{scheme}: {doctor_out}"
        );
        // Every request carried the credential (the 401 mount was never used).
        let requests: Vec<Request> = server.received_requests().await.unwrap();
        assert!(requests.len() >= 3, "{scheme}: {} requests", requests.len());
        for r in &requests {
            let carried = match scheme {
                "bearer" | "implied bearer" => r
                    .headers
                    .get("authorization")
                    .is_some_and(|h| h == format!("Bearer {SECRET}").as_str()),
                "basic" => r
                    .headers
                    .get("authorization")
                    .is_some_and(|h| h == basic(USER, SECRET).as_str()),
                "header" => r.headers.get("x-api-key").is_some_and(|h| h == SECRET),
                _ => r
                    .url
                    .query_pairs()
                    .any(|(k, v)| k == "api_key" && v == SECRET),
            };
            assert!(carried, "{scheme}: {} without its credential", r.url);
            if scheme != "query" {
                assert!(!r.url.as_str().contains("s3cr3t"), "{}", r.url);
            }
        }
        let events = env.events(job.id).await;
        let ev = events.last().unwrap();
        assert_eq!(
            ev.evidence["lookup"]["url"],
            format!(
                "{}/articles?external_ref={}",
                server.uri(),
                job.external_ref
            ),
            "{scheme}: the evidence URL is what the config wrote, without the secret"
        );
        let evidence = ev.evidence.to_string();
        for out in [
            lookup.stdout(),
            lookup.stderr(),
            mark.stdout(),
            mark.stderr(),
            doctor_out,
            doctor.stderr(),
            evidence,
        ] {
            for form in [
                "s3cr3t",
                "s3cr3t-T0ken%2F%2B%3Dvalue",
                &basic(USER, SECRET)[6..],
            ] {
                assert!(!out.contains(form), "{scheme}: {form} in {out}");
            }
        }
    }
}

/// A transport error or a redirect that echoes the query secret never shows it.
#[tokio::test]
async fn a_redirect_echoing_the_query_secret_does_not_show_it() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(|req: &Request| {
            ResponseTemplate::new(302).insert_header("location", format!("/login?next={}", req.url))
        })
        .mount(&server)
        .await;
    let job = uncertain(&env, "redirect").await;
    let cfg = env.write_config(&format!(
        "[destinations.cms-a]\nlookup_url = \"{}/articles?external_ref={{ref}}\"\nauth = \"query\"\nauth_name = \"key\"\ntoken_env = \"CMS_TOKEN\"\ncanary_ref = \"{CANARY}\"\n",
        server.uri()
    ));
    let run = run_with(
        &env,
        &cfg,
        &[("CMS_TOKEN", SECRET)],
        &["remote", "lookup", &job.id.to_string(), "-o", "json"],
    )
    .expect(1);
    let text = format!("{}{}", run.stdout(), run.stderr());
    assert!(text.contains("redirect"), "{text}");
    assert!(!text.contains("s3cr3t"), "{text}");
}

/// `remote lookup` of the canary at `cms-a` with the config at `cfg`, expecting `code`.
fn lookup_canary(env: &TestEnv, cfg: &str, code: i32) -> Run {
    env.run(&[
        "--config",
        cfg,
        "remote",
        "lookup",
        "--destination",
        "cms-a",
        "--ref",
        CANARY,
    ])
    .expect(code)
}

/// A lookup_url whose literal parameters look like credentials is refused (exit 2): the
/// secret belongs in `auth`. The message names the parameter, never the value.
#[tokio::test]
async fn a_lookup_url_with_a_literal_credential_is_refused_naming_the_parameter() {
    let env = TestEnv::new().await;
    for (param, value) in [
        ("api_key", "hunter2"),
        ("token", "eyJabc"),
        ("Signature", "AbC123"),
        ("pwd", "pa55"),
        ("client_secret", "x9y8"),
        ("access", "s3cr3t"),
    ] {
        let cfg = env.write_config(&format!(
            "[destinations.cms-a]\nlookup_url = \"http://127.0.0.1:9/articles?external_ref={{ref}}&{param}={value}\"\n"
        ));
        let run = lookup_canary(&env, &cfg, 2);
        let err = run.stderr();
        assert!(err.contains(&param.to_ascii_lowercase()), "{param}: {err}");
        assert!(err.contains("auth"), "{err}");
        assert!(!err.contains(value), "{value} echoed: {err}");
    }
    // user:password@ in the URL points to auth too.
    let cfg = env.write_config(
        "[destinations.cms-a]\nlookup_url = \"http://ops:hunter2@127.0.0.1:9/articles?external_ref={ref}\"\n",
    );
    let run = lookup_canary(&env, &cfg, 2);
    assert!(
        run.stderr().contains("user_env and password_env"),
        "{}",
        run.stderr()
    );
    assert!(!run.stderr().contains("hunter2"), "{}", run.stderr());
}

/// The evidence URL keeps every parameter the config wrote (`_fields`, `status`,
/// `rest_route`): it says what was asked.
#[tokio::test]
async fn the_evidence_url_keeps_what_the_config_wrote() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(query_param("slug", CANARY))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!([{"id": 1, "slug": CANARY, "status": "publish"}])),
        )
        .mount(&server)
        .await;
    no_match_for_the_rest(&server).await;
    let job = uncertain(&env, "asked").await;
    let cfg = env.write_config(&format!(
        "[destinations.cms-a]\nlookup_url = \"{}/?rest_route=/wp/v2/posts&slug={{ref}}&status=publish,draft&_fields=id,slug,status#frag\"\nref = \"/slug\"\nstatus = \"/status\"\ncanary_ref = \"{CANARY}\"\n",
        server.uri()
    ));
    env.run(&[
        "--config",
        &cfg,
        "mark",
        "safe-to-retry",
        &job.id.to_string(),
        "--reason",
        "not there",
        "--yes",
    ])
    .expect(0);
    let ev = env.events(job.id).await.pop().unwrap();
    assert_eq!(
        ev.evidence["lookup"]["url"],
        format!(
            "{}/?rest_route=/wp/v2/posts&slug={}&status=publish,draft&_fields=id,slug,status",
            server.uri(),
            job.external_ref
        )
    );
}

/// How each documented config reads its CMS's answer (README "Other CMSs"): (name, config
/// keys, the answer for a draft copy, the answer for nothing).
fn documented() -> Vec<(&'static str, String, serde_json::Value, serde_json::Value)> {
    vec![
        (
            "strapi",
            "results = \"/data\"\nremote_id = \"/documentId\"\nref = \"/ref\"\nstatus = \"/status\"\ntoken_env = \"CMS_TOKEN\"\n".into(),
            json!({"data": [{"id": 7, "documentId": "abc123", "ref": "REF", "status": "draft"}], "meta": {}}),
            json!({"data": [], "meta": {}}),
        ),
        (
            "directus",
            "results = \"/data\"\nremote_id = \"/id\"\nref = \"/ref\"\nstatus = \"/status\"\nremoved = [\"archived\"]\ntoken_env = \"CMS_TOKEN\"\n".into(),
            json!({"data": [{"id": 12, "ref": "REF", "status": "draft"}]}),
            json!({"data": []}),
        ),
        (
            "contentful",
            "results = \"/items\"\nremote_id = \"/sys/id\"\nref = \"/fields/ref\"\ntoken_env = \"CMS_TOKEN\"\n".into(),
            json!({"sys": {"type": "Array"}, "total": 1, "items": [{"sys": {"id": "5KsDBWseXY6QegucYAoacS"}, "fields": {"ref": "REF"}}]}),
            json!({"sys": {"type": "Array"}, "total": 0, "items": []}),
        ),
        (
            "wagtail",
            "results = \"/items\"\nremote_id = \"/id\"\nref = \"/ref\"\n".into(),
            json!({"meta": {"total_count": 1}, "items": [{"id": 41, "ref": "REF", "meta": {"type": "news.ArticlePage", "slug": "an-article"}}]}),
            json!({"meta": {"total_count": 0}, "items": []}),
        ),
    ]
}

/// Each documented config: a draft copy is accept (never safe_to_retry), nothing is
/// safe_to_retry, and a copy with another reference means the filter was ignored (unknown).
#[tokio::test]
async fn the_documented_cms_configs_read_their_answers() {
    for (name, keys, draft, nothing) in documented() {
        let env = TestEnv::new().await;
        let server = MockServer::start().await;
        let held = uncertain(&env, &format!("{name}-held")).await;
        let absent = uncertain(&env, &format!("{name}-absent")).await;
        let foreign = uncertain(&env, &format!("{name}-foreign")).await;
        let with_ref = |r: &str| {
            serde_json::from_str::<serde_json::Value>(&draft.to_string().replace("REF", r)).unwrap()
        };
        for (r, body) in [
            (CANARY, with_ref(CANARY)),
            (held.external_ref.as_str(), with_ref(&held.external_ref)),
            (
                foreign.external_ref.as_str(),
                with_ref(&absent.external_ref),
            ),
        ] {
            Mock::given(method("GET"))
                .and(query_param("ref", r))
                .respond_with(ResponseTemplate::new(200).set_body_json(body))
                .mount(&server)
                .await;
        }
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_json(nothing.clone()))
            .with_priority(10)
            .mount(&server)
            .await;
        let cfg = env.write_config(&format!(
            "[destinations.cms-a]\nlookup_url = \"{}/api/items?ref={{ref}}\"\ncanary_ref = \"{CANARY}\"\n{keys}",
            server.uri()
        ));
        let vars = [("CMS_TOKEN", SECRET)];
        let look = |job: &reconctl::jobs::Job| {
            run_with(
                &env,
                &cfg,
                &vars,
                &["remote", "lookup", &job.id.to_string(), "-o", "json"],
            )
        };
        let v = look(&held).expect(0).json();
        assert_eq!(v["verdict"], "accept", "{name}: {v}");
        assert_eq!(v["matches"][0]["ref"], held.external_ref.as_str(), "{name}");
        let v = look(&absent).expect(0).json();
        assert_eq!(v["verdict"], "safe_to_retry", "{name}: {v}");
        let v = look(&foreign).expect(1).json();
        assert_eq!(v["verdict"], "unknown", "{name}: {v}");
        assert!(
            v["reason"]
                .as_str()
                .unwrap()
                .contains("ignored the lookup's filter"),
            "{name}: {v}"
        );
    }
}

/// With `ref` set, a match that carries no reference cannot be told from another article's:
/// the answer is unexpected (unknown), never an accept.
#[tokio::test]
async fn with_ref_set_a_match_without_a_reference_is_unknown() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    let job = uncertain(&env, "noref").await;
    for (r, body) in [
        (CANARY, json!([{"id": 1, "ref": CANARY}])),
        (job.external_ref.as_str(), json!([{"id": 2, "ref": null}])),
    ] {
        Mock::given(method("GET"))
            .and(query_param("ref", r))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server)
            .await;
    }
    no_match_for_the_rest(&server).await;
    let cfg = env.write_config(&format!(
        "[destinations.cms-a]\nlookup_url = \"{}/items?ref={{ref}}\"\nref = \"/ref\"\ncanary_ref = \"{CANARY}\"\n",
        server.uri()
    ));
    let v = env
        .run(&[
            "--config",
            &cfg,
            "remote",
            "lookup",
            &job.id.to_string(),
            "-o",
            "json",
        ])
        .expect(1)
        .json();
    assert_eq!(v["verdict"], "unknown", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("carries no reference"),
        "{v}"
    );
    env.run(&["--config", &cfg, "reconcile", "--apply", "--yes"])
        .expect(5);
    assert_eq!(env.job(job.id).await.state, State::Uncertain);
}

/// After a double publication is cleaned up (the extra copy trashed, `REF-2__trashed`), the
/// known publication still proves the lookup: one match is it, the other a copy of it. Any
/// other second match (another reference) still fails the control.
#[tokio::test]
async fn a_known_publication_beside_its_trashed_copy_still_passes_the_control() {
    let env = TestEnv::new().await;
    let server = MockServer::start().await;
    let job = uncertain(&env, "after-cleanup").await;
    let canary_answer = |second: &str| {
        json!([
            {"id": 1, "slug": CANARY, "status": "publish"},
            {"id": 9, "slug": second, "status": "trash"}
        ])
    };
    let mount = |body: serde_json::Value| {
        let server = &server;
        async move {
            server.reset().await;
            Mock::given(method("GET"))
                .and(query_param("slug", CANARY))
                .respond_with(ResponseTemplate::new(200).set_body_json(body))
                .mount(server)
                .await;
            no_match_for_the_rest(server).await;
        }
    };
    let cfg = env.write_config(&format!(
        "[destinations.cms-a]\nlookup_url = \"{}/posts?slug={{ref}}\"\nref = \"/slug\"\nstatus = \"/status\"\nremoved = [\"trash\"]\ncanary_ref = \"{CANARY}\"\n",
        server.uri()
    ));
    let look = || {
        env.run(&[
            "--config",
            &cfg,
            "remote",
            "lookup",
            &job.id.to_string(),
            "-o",
            "json",
        ])
    };
    mount(canary_answer(&format!("{CANARY}-2__trashed"))).await;
    let v = look().expect(0).json();
    assert_eq!(v["controls"]["positive"]["ok"], true, "{v}");
    assert_eq!(v["verdict"], "safe_to_retry", "{v}");
    let other = format!("pub_{}", "d".repeat(64));
    mount(canary_answer(&other)).await;
    let v = look().expect(1).json();
    assert_eq!(v["controls"]["positive"]["ok"], false, "{v}");
    assert_eq!(v["verdict"], "unknown", "{v}");
}
