//! Bad input: the parsers an operator (or a script gone wrong) feeds never panic, refuse with
//! exit 2 and a message, and never echo more than a line; SQL in any filter is inert data;
//! absurd values are refused before anything runs.
//!
//! Fuzz cases per parser: 2000 by default, 50 000 with `RECONCTL_LONG_TESTS=1`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, TestRunner};
use reconctl::config::Config;
use reconctl::duration;
use reconctl::jobs::query::{decode_cursor, encode_cursor, ListFilter, Listing, Position};
use reconctl::jobs::{JobRef, State};
use uuid::Uuid;

use crate::harness::*;

/// Inputs tried by the fuzzers of this module (reported by `fuzz_figures`).
pub static INPUTS: AtomicU64 = AtomicU64::new(0);

fn fuzz_cases() -> u32 {
    if long_tests() {
        50_000
    } else {
        2_000
    }
}

fn runner() -> TestRunner {
    TestRunner::new(PtConfig {
        cases: fuzz_cases(),
        failure_persistence: None,
        ..PtConfig::default()
    })
}

fn tried() {
    INPUTS.fetch_add(1, Ordering::Relaxed);
}

/// Strings that look almost like the real thing: where parsers break.
fn near_miss(alphabet: &'static str, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(alphabet.chars().collect::<Vec<_>>()),
        0..max,
    )
    .prop_map(|v| v.into_iter().collect())
}

#[test]
fn duration_parser_never_panics_and_never_exceeds_a_century() {
    let century = std::time::Duration::from_secs(100 * 365 * 86_400);
    let strategy = prop_oneof![
        any::<String>(),
        near_miss("0123456789msdhwecinryx -+.\u{0660}\u{00b5}", 24),
        "[0-9]{1,40}(ms|s|m|h|d|w|sec|secs|min|hrs|days)",
    ];
    runner()
        .run(&strategy, |s| {
            tried();
            match duration::parse(&s) {
                Ok(d) => prop_assert!(d <= century, "{s:?} parsed to {d:?}"),
                Err(e) => {
                    let msg = e.to_string();
                    prop_assert!(msg.contains("invalid duration"), "{msg}");
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn duration_parser_adds_up_what_it_accepts() {
    let part = (
        1u64..100_000,
        prop::sample::select(vec![
            ("ms", 1u64),
            ("s", 1_000),
            ("m", 60_000),
            ("h", 3_600_000),
            ("d", 86_400_000),
        ]),
    );
    runner()
        .run(&prop::collection::vec(part, 1..4), |parts| {
            tried();
            let text: String = parts.iter().map(|(n, (u, _))| format!("{n}{u}")).collect();
            let want: u64 = parts.iter().map(|(n, (_, ms))| n * ms).sum();
            match duration::parse(&text) {
                Ok(d) => prop_assert_eq!(d.as_millis(), u128::from(want), "{}", text),
                Err(e) => prop_assert!(want > 100 * 365 * 86_400_000, "{text} refused: {e}"),
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn job_argument_parser_never_panics_and_accepts_only_ids_prefixes_and_refs() {
    let strategy = prop_oneof![
        any::<String>(),
        near_miss("pub_0123456789abcdefABCDEF-{} ", 80),
        any::<[u8; 16]>().prop_map(|b| Uuid::from_bytes(b).to_string()),
        any::<[u8; 32]>().prop_map(|b| format!("pub_{}", hex::encode(b))),
    ];
    runner()
        .run(&strategy, |s| {
            tried();
            match s.parse::<JobRef>() {
                Ok(JobRef::Id(id)) => {
                    prop_assert_eq!(Uuid::parse_str(s.trim()).ok(), Some(id));
                    prop_assert_eq!(s.trim().len(), 36);
                }
                Ok(JobRef::Prefix(p)) => {
                    // The start of an id's text form: hex and its dashes, 8+ digits, < 36.
                    prop_assert_eq!(p.as_str(), s.trim().to_ascii_lowercase());
                    prop_assert!(p.len() < 36);
                    prop_assert!(p.bytes().filter(|b| *b != b'-').count() >= 8);
                    let padded =
                        format!("{p}{}", &"00000000-0000-0000-0000-000000000000"[p.len()..]);
                    prop_assert!(Uuid::parse_str(&padded).is_ok(), "{}", padded);
                }
                Ok(JobRef::ExternalRef(r)) => {
                    prop_assert_eq!(r.as_str(), s.trim());
                    prop_assert!(r.starts_with("pub_") && r.len() == 68);
                    prop_assert!(r[4..]
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
                }
                Err(msg) => {
                    // A pasted megabyte is not echoed back whole.
                    prop_assert!(msg.chars().count() < 250, "{} chars", msg.len());
                }
            }
            Ok(())
        })
        .unwrap();
}

fn listing() -> Listing {
    Listing::Jobs(ListFilter {
        states: vec![State::Uncertain],
        destination: Some("cms-a".into()),
        ..ListFilter::default()
    })
}

#[test]
fn cursor_decoding_never_panics_and_refuses_with_exit_2() {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let l = listing();
    let valid = encode_cursor(
        &l,
        Position {
            at: Utc::now(),
            id: Uuid::new_v4(),
        },
    );
    let strategy = prop_oneof![
        any::<String>(),
        near_miss(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/",
            80
        ),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(move |b| b64.encode(b)),
        // One character of a real cursor changed, or the cursor cut short.
        (
            0..valid.len(),
            prop::sample::select(b"AZaz09-_".to_vec()),
            any::<bool>()
        )
            .prop_map({
                let valid = valid.clone();
                move |(i, c, cut)| {
                    if cut {
                        valid[..i].to_string()
                    } else {
                        let mut b = valid.clone().into_bytes();
                        b[i] = c;
                        String::from_utf8(b).unwrap()
                    }
                }
            }),
    ];
    runner()
        .run(&strategy, |s| {
            tried();
            if let Err(e) = decode_cursor(&l, &s) {
                prop_assert_eq!(e.exit_code(), 2);
                prop_assert!(
                    e.message().starts_with("invalid --cursor"),
                    "{}",
                    e.message()
                );
            } else {
                prop_assert_eq!(
                    s.trim(),
                    valid.as_str(),
                    "accepted a cursor reconctl never printed"
                );
            }
            Ok(())
        })
        .unwrap();
    // And any position reconctl can print comes back unchanged.
    runner()
        .run(&(any::<i64>(), any::<[u8; 16]>()), |(micros, id)| {
            tried();
            let Some(created_at) = DateTime::from_timestamp_micros(micros) else {
                return Ok(());
            };
            let pos = Position {
                at: created_at,
                id: Uuid::from_bytes(id),
            };
            prop_assert_eq!(decode_cursor(&l, &encode_cursor(&l, pos)).unwrap(), pos);
            Ok(())
        })
        .unwrap();
}

const SECRET: &str = "S3cretTOKENvalue";

/// Lines a config may (or may not) have, including secrets pasted where they do not belong.
fn config_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[destinations.cms-a]".to_string()),
        Just("[destinations.\"\"]".to_string()),
        Just("[lookup]".to_string()),
        Just("lookup_url = \"http://127.0.0.1:8080/articles?external_ref={ref}\"".to_string()),
        Just("lookup_url = \"ftp://h/{ref}\"".to_string()),
        Just("token_env = \"CMS_A_TOKEN\"".to_string()),
        Just(format!("token = \"{SECRET}\"")),
        Just(format!("password = '{SECRET}'")),
        Just(format!(
            "[destinations.x]\nlookup_url = \"https://h/{{ref}}?k={SECRET}\""
        )),
        Just(format!("lookup_url = \"https://user:{SECRET}@h/{{ref}}\"")),
        Just("timeout = \"5s\"".to_string()),
        Just("timeout = \"0s\"".to_string()),
        Just("timeout = 5".to_string()),
        Just("settle_after = \"banana\"".to_string()),
        Just("results = \"items\"".to_string()),
        Just("remote_id = \"/id\"".to_string()),
        Just("content_hash = \"\"".to_string()),
        Just("max_body_bytes = -1".to_string()),
        Just("max_body_bytes = 0".to_string()),
        Just("max_body_bytes = 99999999999999999999".to_string()),
        any::<String>(),
        near_miss("[]=\"'{}.\n #abc_", 30),
    ]
}

#[test]
fn config_parser_never_panics_and_never_echoes_a_secret() {
    let strategy = prop::collection::vec(config_line(), 0..12).prop_map(|l| l.join("\n"));
    let origin = Path::new("/etc/reconctl/config.toml");
    runner()
        .run(&strategy, |text| {
            tried();
            match Config::parse(&text, origin) {
                Ok(cfg) => {
                    for d in cfg.destinations.values() {
                        match &d.source {
                            reconctl::config::Source::Url(u) => prop_assert!(
                                u.0.contains("{ref}"),
                                "lookup_url without its placeholder"
                            ),
                            reconctl::config::Source::WordPress { base_url, .. } => {
                                prop_assert!(base_url.starts_with("http"), "{}", base_url)
                            }
                        }
                        prop_assert!(!d.timeout.is_zero());
                    }
                }
                Err(e) => {
                    prop_assert_eq!(e.exit_code(), 2, "{}", e.message());
                    prop_assert!(e.message().contains("config.toml"), "{}", e.message());
                    prop_assert!(
                        !e.message().contains(SECRET) && !e.hints().join("\n").contains(SECRET),
                        "the error repeats a secret from the file: {}",
                        e.message()
                    );
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Classic injection strings, and some that break naive quoting or LIKE patterns.
const INJECTIONS: &[&str] = &[
    "x' OR '1'='1",
    "x'; DROP TABLE publication_jobs; --",
    "'; TRUNCATE job_events; --",
    "\") OR 1=1 --",
    "%",
    "_",
    "*",
    "\\'; DELETE FROM publication_jobs WHERE ''='",
    "x' UNION SELECT * FROM pg_shadow --",
    "$1",
    "cms-a' AND pg_sleep(5) IS NULL --",
    "$$; DROP TABLE job_events; $$",
];

#[tokio::test]
async fn sql_in_any_filter_is_inert() {
    let env = TestEnv::new().await;
    let victim = env.seed(Seed::new("a1").state(State::Uncertain)).await;
    // A job whose key really is such a string is found by exactly that string.
    let odd = env
        .seed(Seed {
            tenant: INJECTIONS[0].into(),
            ..Seed::new(INJECTIONS[1])
        })
        .await;
    let before = env.count("SELECT count(*) FROM job_events").await;
    for inj in INJECTIONS {
        for flag in [
            "--destination",
            "--tenant",
            "--article",
            "--external-ref",
            "--state",
        ] {
            tried();
            let mut args = vec!["jobs", "list", flag, inj, "-o", "json"];
            if flag == "--article" {
                // Article ids belong to a tenant: --article needs --tenant.
                args.extend(["--tenant", INJECTIONS[0]]);
            }
            let run = env.run(&args);
            let code = run.code();
            if flag == "--article" || flag == "--tenant" {
                assert_eq!(
                    code,
                    0,
                    "{flag} {inj:?} is a value like any other\n{}",
                    run.stderr()
                );
            }
            // A destination nothing knows is refused by name (issue 23 item 5): the
            // injection is a name looked up, never SQL run.
            if flag == "--destination" {
                assert_eq!(code, 2, "{flag} {inj:?}\n{}", run.stderr());
                assert!(
                    run.stderr().contains("unknown destination"),
                    "{}",
                    run.stderr()
                );
            }
            assert!(
                code == 0 || code == 2,
                "{flag} {inj:?}: exit {code}\n{}",
                run.stderr()
            );
            if code == 0 {
                let ids: Vec<String> = run.json()["jobs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|j| j["id"].as_str().unwrap().to_string())
                    .collect();
                let literal_match = (flag == "--tenant" && *inj == INJECTIONS[0])
                    || (flag == "--article" && *inj == INJECTIONS[1]);
                let want = if literal_match {
                    vec![odd.id.to_string()]
                } else {
                    vec![]
                };
                assert_eq!(ids, want, "{flag} {inj:?}");
            } else {
                assert!(
                    !run.stderr().is_empty(),
                    "{flag} {inj:?}: exit 2 without a message"
                );
            }
        }
        for args in [
            vec!["jobs", "show", inj],
            vec!["jobs", "uncertain", "--destination", inj],
            vec!["jobs", "stuck", "--older-than", "1m", "--destination", inj],
            vec![
                "remote",
                "lookup",
                "--destination",
                inj,
                "--ref",
                &victim.external_ref,
            ],
        ] {
            tried();
            let run = env.run(&args);
            assert!(
                [0, 1, 2, 4].contains(&run.code()),
                "{args:?}: exit {}\n{}",
                run.code(),
                run.stderr()
            );
        }
    }
    // Free text is stored as given, not interpreted.
    let reason = INJECTIONS[1];
    env.run(&[
        "mark",
        "failed",
        &victim.id.to_string(),
        "--reason",
        reason,
        "--no-lookup",
        "--yes",
        "--actor",
        INJECTIONS[3],
    ])
    .expect(0);
    let events = env.events(victim.id).await;
    let last = events.last().unwrap();
    assert_eq!(last.reason.as_deref(), Some(reason));
    assert_eq!(last.actor, INJECTIONS[3]);
    assert_eq!(env.count("SELECT count(*) FROM publication_jobs").await, 2);
    assert_eq!(
        env.count("SELECT count(*) FROM job_events").await,
        before + 1
    );
}

#[tokio::test]
async fn absurd_values_are_refused_with_exit_2_and_a_message() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("a1").state(State::Uncertain)).await;
    let id = job.id.to_string();
    let huge = "x".repeat(100_000);
    let cases: Vec<Vec<&str>> = vec![
        vec!["jobs", "list", "--limit", "-1"],
        vec!["jobs", "list", "--limit=-1"],
        vec!["jobs", "list", "--limit", "0"],
        vec!["jobs", "list", "--limit", "10000000"],
        vec!["jobs", "list", "--limit", "99999999999999999999999"],
        vec!["jobs", "list", "--older-than", "banana"],
        vec!["jobs", "list", "--older-than", "-5m"],
        vec!["jobs", "list", "--older-than", "5"],
        vec!["jobs", "list", "--older-than", "999999999d"],
        vec!["jobs", "list", "--state", "done"],
        vec!["jobs", "list", "--state", ""],
        vec!["jobs", "list", "--cursor", "banana"],
        vec!["jobs", "list", "--cursor", &huge],
        vec!["jobs", "list", "--external-ref", "pub_123"],
        vec!["jobs", "stuck", "--older-than", "banana"],
        vec!["jobs", "show", "42"],
        vec!["jobs", "show", &huge],
        vec!["jobs", "list", "--lock-timeout", "banana"],
        vec!["jobs", "list", "--statement-timeout", "-1s"],
        vec!["jobs", "list", "-o", "xml"],
        vec!["sweep", "leases", "--batch", "0"],
        vec!["sweep", "leases", "--batch", "-3"],
        vec!["sweep", "leases", "--grace", "soon"],
        vec!["sweep", "leases", "--limit", "0"],
        vec![
            "mark",
            "failed",
            &id,
            "--reason",
            "r",
            "--expect-version",
            "banana",
            "--yes",
        ],
        vec!["mark", "accepted", "not-a-job", "--reason", "r", "--yes"],
        vec!["reconcile", "--concurrency", "0"],
        vec!["reconcile", "--limit", "-1"],
        vec!["check", "--uncertain-after", "banana"],
    ];
    for args in cases {
        tried();
        let run = env.run(&args);
        let shown: Vec<String> = args.iter().map(|a| a.chars().take(40).collect()).collect();
        assert_eq!(
            run.code(),
            2,
            "{shown:?}\nstdout: {}\nstderr: {}",
            run.stdout(),
            run.stderr()
        );
        let err = run.stderr();
        assert!(err.contains("error"), "{shown:?}: no message: {err}");
        // At most one echo of what was typed, plus a message.
        let typed: usize = args.iter().map(|a| a.len()).sum();
        assert!(
            err.len() < 2_000 + typed,
            "{shown:?}: {} bytes of error",
            err.len()
        );
    }
    // Nothing moved.
    assert_eq!(env.job(job.id).await.version, job.version);
}

#[tokio::test]
async fn a_forged_cursor_at_the_ends_of_time_does_not_crash_the_listing() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    let l = Listing::Jobs(ListFilter::default());
    // PostgreSQL's timestamptz spans 4713 BC to 294276 AD. (A forged cursor outside that
    // range, which needs a hand-computed checksum, ends in exit 1 "timestamp out of range".)
    for micros in [
        -210_000_000_000_000_000,
        -1,
        0,
        8_000_000_000_000_000_000,
        9_000_000_000_000_000_000,
    ] {
        let Some(created_at) = DateTime::from_timestamp_micros(micros) else {
            continue;
        };
        tried();
        let cursor = encode_cursor(
            &l,
            Position {
                at: created_at,
                id: Uuid::nil(),
            },
        );
        let run = env.run(&["jobs", "list", "--cursor", &cursor, "-o", "json"]);
        assert!(
            run.code() == 0 || run.code() == 2,
            "cursor at {created_at}: exit {}\n{}",
            run.code(),
            run.stderr()
        );
    }
}

/// Issue 24, item 6: a file an operator names is read only when it is a regular file, and a
/// payload only up to its cap, as a stream: `/dev/zero`, a FIFO nobody writes and a file over
/// the cap are refused at once (they grew to 5 GB, or blocked, for ever).
#[tokio::test]
async fn item_24_6_unbounded_reads_are_refused_at_once() {
    use std::time::{Duration, Instant};
    let env = TestEnv::new().await;
    let fifo = env.dir.path().join("writerless.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Over the 64 MiB cap (sparse: costs no disk).
    let huge = env.dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let reserve = |file: &str| {
        vec![
            "jobs".to_string(),
            "reserve".into(),
            "--tenant".into(),
            "t".into(),
            "--article".into(),
            "a".into(),
            "--revision".into(),
            "1".into(),
            "--destination".into(),
            "cms-a".into(),
            "--payload-file".into(),
            file.into(),
            "-o".into(),
            "json".into(),
        ]
    };
    for (file, says) in [
        (
            "/dev/zero".to_string(),
            "it is a device, not a regular file",
        ),
        (
            fifo.display().to_string(),
            "it is a FIFO (named pipe), not a regular file",
        ),
        (
            huge.display().to_string(),
            "it is larger than 64 MiB, the most it may hold",
        ),
    ] {
        let started = Instant::now();
        let args = reserve(&file);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = env.run(&args).expect(2);
        assert!(started.elapsed() < Duration::from_secs(5), "{file}");
        let message = run.json()["error"]["message"].as_str().unwrap().to_string();
        assert_eq!(message, format!("cannot use payload file {file}: {says}"));
    }
    assert_eq!(env.count("SELECT count(*) FROM publication_jobs").await, 0);
    // A payload is hashed as a stream (in 64 KiB pieces): the same hash as in one piece.
    let payload: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let file = env.dir.path().join("article.json");
    std::fs::write(&file, &payload).unwrap();
    let args = reserve(file.to_str().unwrap());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let job = env.run(&args).expect(0).json();
    assert_eq!(
        job["job"]["payload_hash"],
        reconctl::jobs::payload_hash(&payload)
    );

    // The service file and the root certificate: a FIFO is refused at once too.
    let started = Instant::now();
    let run = env
        .cmd()
        .env_remove("DATABASE_URL")
        .env("PGSERVICE", "ops")
        .env("PGSERVICEFILE", &fifo)
        .args(["status", "-o", "json"])
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(run.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(
        doc["error"]["message"],
        format!(
            "service file \"{}\" refused: it is a FIFO (named pipe), not a regular file",
            fifo.display()
        )
    );
    let started = Instant::now();
    let run = env
        .cmd()
        .env(
            "DATABASE_URL",
            "postgresql://u@127.0.0.1:1/db?sslmode=verify-full",
        )
        .env("PGSSLROOTCERT", &fifo)
        .args(["status", "-o", "json"])
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(run.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        message.ends_with("it is a FIFO (named pipe), not a regular file"),
        "{message}"
    );
}
