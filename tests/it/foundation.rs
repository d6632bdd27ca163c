//! The foundation: schema, transition table, guarded moves, worker API, reservation, fencing.

use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use reconctl::jobs::state::allowed;
use reconctl::jobs::store::{guarded_move, Effects, MoveOutcome, MoveRequest};
use reconctl::jobs::worker::{self, Reservation};
use reconctl::jobs::{payload_hash, Action, BusinessKey, State};
use serde_json::json;

use crate::harness::*;

use State::*;

/// SPEC §2, written out independently of src/jobs/state.rs: every (from, to) pair that some
/// actor may make. Everything else must be refused.
const SPEC_PAIRS: &[(State, State)] = &[
    (Pending, InFlight),
    (SafeToRetry, InFlight),
    (InFlight, InFlight),
    (InFlight, Accepted),
    (InFlight, Failed),
    (InFlight, Uncertain),
    (InFlight, Pending),
    (Uncertain, Accepted),
    (Conflict, Accepted),
    (Uncertain, SafeToRetry),
    (Conflict, SafeToRetry),
    (SafeToRetry, Accepted),
    (Uncertain, Conflict),
    (Pending, Failed),
    (SafeToRetry, Failed),
    (Uncertain, Failed),
    (Conflict, Failed),
    // SPEC §2's redrive: failed → safe_to_retry, by an operator.
    (Failed, SafeToRetry),
];

#[test]
fn transition_table_allows_exactly_the_spec_pairs() {
    for from in State::ALL {
        for to in State::ALL {
            assert_eq!(
                allowed(from, to),
                SPEC_PAIRS.contains(&(from, to)),
                "{from} → {to}"
            );
        }
    }
}

fn effects_for(action: Action) -> Effects {
    match action {
        Action::Claim | Action::Renew => Effects {
            lease_owner: Some("worker-x".into()),
            lease_ttl: Some(Duration::from_secs(60)),
            ..Effects::default()
        },
        Action::Complete | Action::MarkAccepted | Action::ReconcileAccepted => Effects {
            remote_id: Some("r-1".into()),
            ..Effects::default()
        },
        _ => Effects::default(),
    }
}

fn seed_in(state: State, article: &str) -> Seed {
    let seed = Seed::new(article).state(state);
    match state {
        InFlight => seed.lease("worker-1", 60),
        Accepted => seed.remote_id("r-0"),
        _ => seed,
    }
}

/// The guard in the database refuses every move the table does not allow, and every move it
/// allows writes the job at version + 1 and exactly one event with actor and reason.
#[tokio::test]
async fn guarded_move_enforces_the_table_in_the_database() {
    let env = TestEnv::new().await;
    let actions = [
        Action::Renew,
        Action::MarkSent,
        Action::Complete,
        Action::Fail,
        Action::TimedOut,
        Action::SweepSent,
        Action::SweepUnsent,
        Action::MarkAccepted,
        Action::MarkSafeToRetry,
        Action::MarkFailed,
        Action::ReconcileAccepted,
        Action::ReconcileSafeToRetry,
        Action::ReconcileConflict,
    ];
    let mut n = 0;
    for action in actions {
        for from in State::ALL {
            n += 1;
            let job = env.seed(seed_in(from, &format!("a{n}"))).await;
            let req = MoveRequest {
                job_id: job.id,
                expect_version: job.version,
                action,
                actor: "tester".into(),
                reason: Some(format!("test {action} from {from}")),
                evidence: json!({"case": n}),
                effects: effects_for(action),
            };
            let outcome = guarded_move(&env.client, &req).await.unwrap();
            let events = env.events(job.id).await;
            if action.from().contains(&from) {
                let MoveOutcome::Moved { job: moved, event } = outcome else {
                    panic!("{action} from {from} should move");
                };
                assert_eq!(moved.state, action.to(), "{action} from {from}");
                assert_eq!(moved.version, job.version + 1);
                assert_eq!(events.len(), 2, "{action} from {from}: one new event");
                assert_eq!(events[1], event);
                assert_eq!(event.actor, "tester");
                assert_eq!(event.action, action.as_str());
                assert_eq!(
                    event.reason.as_deref(),
                    Some(req.reason.as_deref().unwrap())
                );
                assert_eq!(event.from_state, Some(from));
                assert_eq!(event.to_state, action.to());
                assert_eq!(event.from_version, Some(job.version));
                assert_eq!(event.to_version, job.version + 1);
                assert_eq!(event.evidence, json!({"case": n}));
                if action.to() != InFlight {
                    assert_eq!(moved.lease_owner, None);
                    assert_eq!(moved.lease_expires_at, None);
                }
            } else {
                let MoveOutcome::Conflict { current } = outcome else {
                    panic!("{action} from {from} must be refused");
                };
                assert_eq!(current, job, "{action} from {from}: job unchanged");
                assert_eq!(events.len(), 1, "{action} from {from}: no event");
            }
        }
    }
}

#[tokio::test]
async fn claim_takes_only_pending_or_safe_to_retry() {
    let env = TestEnv::new().await;
    for (i, state) in State::ALL.into_iter().enumerate() {
        let job = env
            .seed(seed_in(state, &format!("c{i}")).destination(&format!("d{i}")))
            .await;
        let claimed = worker::claim(
            &env.client,
            "w",
            Duration::from_secs(30),
            Some(&job.destination),
        )
        .await
        .unwrap();
        if Action::Claim.from().contains(&state) {
            let c = claimed.unwrap_or_else(|| panic!("{state} is claimable"));
            assert_eq!(c.id, job.id);
            assert_eq!(c.state, InFlight);
            assert_eq!(c.version, job.version + 1);
            assert_eq!(c.attempts, job.attempts + 1);
            assert_eq!(c.lease_owner.as_deref(), Some("w"));
            assert!(c.lease_expires_at.unwrap() > chrono::Utc::now());
            assert_eq!(c.sent_at, None);
        } else {
            assert!(claimed.is_none(), "{state} must not be claimed");
            assert_eq!(env.job(job.id).await, job);
        }
    }
}

#[tokio::test]
async fn claim_skips_rows_locked_by_another_worker() {
    let env = TestEnv::new().await;
    let a = env.seed(Seed::new("a").aged(120)).await;
    let b = env.seed(Seed::new("b").aged(60)).await;
    let mut other = env.connect().await;
    let tx = other.transaction().await.unwrap();
    tx.execute(
        "SELECT 1 FROM publication_jobs WHERE id = $1 FOR UPDATE",
        &[&a.id],
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let claimed = worker::claim(&env.client, "w2", Duration::from_secs(30), None)
        .await
        .unwrap()
        .expect("the unlocked job");
    assert_eq!(
        claimed.id, b.id,
        "the locked (older) job is skipped, not waited for"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    tx.rollback().await.unwrap();
}

fn key(article: &str, revision: &str, destination: &str) -> BusinessKey {
    BusinessKey::new("tenant-17", article, revision, destination)
}

#[tokio::test]
async fn reservation_follows_the_seed_cases() {
    let env = TestEnv::new().await;
    let h1 = payload_hash(b"<article>herbs v3</article>");
    let h2 = payload_hash(b"<article>herbs v3, edited</article>");

    let first = worker::reserve(&env.client, &key("article-84", "3", "A"), &h1, "w1")
        .await
        .unwrap();
    let Reservation::Created { job, event } = &first else {
        panic!("first reservation creates the job")
    };
    assert_eq!(job.state, Pending);
    assert_eq!(job.version, 1);
    assert_eq!(job.attempts, 0);
    assert_eq!(job.external_ref, key("article-84", "3", "A").external_ref());
    assert_eq!(event.action, "reserve");
    assert_eq!(event.from_state, None);
    assert_eq!(event.to_version, 1);

    // Same key, same payload: the same job, nothing new.
    let again = worker::reserve(&env.client, &key("article-84", "3", "A"), &h1, "w2")
        .await
        .unwrap();
    let Reservation::Existing { job: same } = again else {
        panic!("same intent: existing job")
    };
    assert_eq!(&same, job);

    // Same key, different payload: a payload conflict; the existing job is untouched.
    let err = worker::reserve(&env.client, &key("article-84", "3", "A"), &h2, "w3")
        .await
        .unwrap_err();
    assert_eq!(err.exit_code(), 3);
    assert_eq!(err.code(), "payload_conflict");
    assert_eq!(err.current(), Some(job));
    let now = env.job(job.id).await;
    assert_eq!(&now, job, "hash, state and version unchanged");
    assert_eq!(env.events(job.id).await.len(), 1);

    // A new revision and another destination are new, legitimate operations.
    let rev4 = worker::reserve(&env.client, &key("article-84", "4", "A"), &h2, "w")
        .await
        .unwrap();
    let dest_b = worker::reserve(&env.client, &key("article-84", "3", "B"), &h1, "w")
        .await
        .unwrap();
    assert!(matches!(rev4, Reservation::Created { .. }));
    assert!(matches!(dest_b, Reservation::Created { .. }));
    assert_ne!(rev4.job().id, job.id);
    assert_ne!(dest_b.job().id, job.id);
    assert_ne!(rev4.job().external_ref, dest_b.job().external_ref);
    assert_eq!(env.count("SELECT count(*) FROM publication_jobs").await, 3);
}

#[tokio::test]
async fn concurrent_reservations_of_one_key_make_one_row() {
    let env = TestEnv::new().await;
    let h = payload_hash(b"same payload");
    for round in 0..5 {
        let mut clients = Vec::new();
        for _ in 0..16 {
            clients.push(Arc::new(env.connect().await));
        }
        let k = key(&format!("race-{round}"), "1", "A");
        let results = join_all(clients.iter().enumerate().map(|(i, c)| {
            let c = c.clone();
            let k = k.clone();
            let h = h.clone();
            tokio::spawn(async move { worker::reserve(&*c, &k, &h, &format!("w{i}")).await })
        }))
        .await;
        let results: Vec<Reservation> = results
            .into_iter()
            .map(|r| r.unwrap().expect("no reservation fails"))
            .collect();
        let created = results
            .iter()
            .filter(|r| matches!(r, Reservation::Created { .. }))
            .count();
        assert_eq!(created, 1, "round {round}: exactly one creates");
        let ids: std::collections::HashSet<_> = results.iter().map(|r| r.job().id).collect();
        assert_eq!(ids.len(), 1, "round {round}: all see the same job");
        let rows = env
            .count(&format!(
                "SELECT count(*) FROM publication_jobs WHERE article_id = 'race-{round}'"
            ))
            .await;
        assert_eq!(rows, 1);
    }
}

/// A worker that lost its lease (swept back to pending and claimed by another) cannot write:
/// its `complete` with the old version is refused and the job stays as the newer owner left it.
#[tokio::test]
async fn a_worker_that_lost_its_lease_is_fenced() {
    let env = TestEnv::new().await;
    let h = payload_hash(b"payload");
    let reserved = worker::reserve(&env.client, &key("a1", "1", "A"), &h, "w")
        .await
        .unwrap();
    let old = worker::claim(&env.client, "worker-old", Duration::from_secs(0), None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(old.id, reserved.job().id);

    // The lease expired without a send: the sweep's transition returns it to pending.
    let swept = guarded_move(
        &env.client,
        &MoveRequest {
            job_id: old.id,
            expect_version: old.version,
            action: Action::SweepUnsent,
            actor: "sweep@test".into(),
            reason: None,
            evidence: json!({}),
            effects: Effects::default(),
        },
    )
    .await
    .unwrap();
    assert!(matches!(swept, MoveOutcome::Moved { .. }));

    let new = worker::claim(&env.client, "worker-new", Duration::from_secs(60), None)
        .await
        .unwrap()
        .unwrap();
    let new = worker::mark_sent(&env.client, &new).await.unwrap();
    let new = worker::complete(&env.client, &new, "remote-new")
        .await
        .unwrap();

    for attempt in [
        worker::complete(&env.client, &old, "remote-old").await,
        worker::renew(&env.client, &old, Duration::from_secs(60)).await,
        worker::mark_sent(&env.client, &old).await,
        worker::fail(&env.client, &old, "late failure").await,
        worker::timed_out(&env.client, &old, "late timeout").await,
    ] {
        let err = attempt.unwrap_err();
        assert_eq!(err.exit_code(), 3);
        assert_eq!(err.current(), Some(&new));
    }
    let now = env.job(new.id).await;
    assert_eq!(now, new);
    assert_eq!(now.remote_id.as_deref(), Some("remote-new"));
    assert_eq!(now.lease_owner, None);
}

#[tokio::test]
async fn worker_happy_path_and_timeout_path() {
    let env = TestEnv::new().await;
    let h = payload_hash(b"p");
    worker::reserve(&env.client, &key("ok", "1", "A"), &h, "w")
        .await
        .unwrap();
    worker::reserve(&env.client, &key("timeout", "1", "A"), &h, "w")
        .await
        .unwrap();
    let mut done = Vec::new();
    while let Some(job) = worker::claim(&env.client, "w", Duration::from_secs(30), None)
        .await
        .unwrap()
    {
        let job = worker::renew(&env.client, &job, Duration::from_secs(60))
            .await
            .unwrap();
        let job = worker::mark_sent(&env.client, &job).await.unwrap();
        assert!(job.sent_at.is_some());
        let job = if job.article_id == "ok" {
            worker::complete(&env.client, &job, "cms-42").await.unwrap()
        } else {
            worker::timed_out(&env.client, &job, "read timeout after 30s")
                .await
                .unwrap()
        };
        done.push(job);
    }
    done.sort_by(|a, b| a.article_id.cmp(&b.article_id));
    assert_eq!(done[0].state, Accepted);
    assert_eq!(done[0].remote_id.as_deref(), Some("cms-42"));
    assert_eq!(
        done[0].version, 5,
        "reserve, claim, renew, mark_sent, complete"
    );
    assert_eq!(done[1].state, Uncertain);
    assert_eq!(
        done[1].last_error.as_deref(),
        Some("read timeout after 30s")
    );
    assert!(
        done[1].sent_at.is_some(),
        "an uncertain job remembers when it was sent"
    );
    let actions: Vec<String> = env
        .events(done[1].id)
        .await
        .into_iter()
        .map(|e| e.action.to_string())
        .collect();
    assert_eq!(
        actions,
        ["reserve", "claim", "renew", "mark_sent", "timed_out"]
    );
}

/// 20 connections race to move one job, 50 times: exactly one wins, exactly one event.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_guarded_move_racing_itself_has_one_winner() {
    let env = TestEnv::new().await;
    let mut clients = Vec::new();
    for _ in 0..20 {
        clients.push(Arc::new(env.connect().await));
    }
    for round in 0..50 {
        let job = env
            .seed(
                Seed::new(&format!("race-{round}"))
                    .state(Uncertain)
                    .sent_ago(600),
            )
            .await;
        let barrier = Arc::new(tokio::sync::Barrier::new(clients.len()));
        let results = join_all(clients.iter().enumerate().map(|(i, c)| {
            let c = c.clone();
            let barrier = barrier.clone();
            let req = MoveRequest {
                job_id: job.id,
                expect_version: job.version,
                action: Action::MarkAccepted,
                actor: format!("operator-{i}"),
                reason: Some("race".into()),
                evidence: json!({}),
                effects: Effects {
                    remote_id: Some(format!("remote-{i}")),
                    ..Effects::default()
                },
            };
            tokio::spawn(async move {
                barrier.wait().await;
                guarded_move(&*c, &req).await
            })
        }))
        .await;
        let winners: Vec<_> = results
            .into_iter()
            .map(|r| r.unwrap().unwrap())
            .filter_map(|o| match o {
                MoveOutcome::Moved { job, event } => Some((job, event)),
                MoveOutcome::Conflict { current } => {
                    assert_eq!(current.state, Accepted);
                    None
                }
            })
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one winner");
        let events = env.events(job.id).await;
        assert_eq!(events.len(), 2, "round {round}: seed + exactly one move");
        let now = env.job(job.id).await;
        assert_eq!(now.version, job.version + 1);
        assert_eq!(now.remote_id, winners[0].0.remote_id);
        assert_eq!(events[1].actor, winners[0].1.actor);
    }
}

#[tokio::test]
async fn job_events_is_append_only() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("a")).await;
    for sql in [
        "UPDATE job_events SET reason = 'rewritten'",
        "DELETE FROM job_events",
        "TRUNCATE job_events",
        "TRUNCATE job_events CASCADE",
    ] {
        let err = env.client.batch_execute(sql).await.unwrap_err();
        let msg = err
            .as_db_error()
            .map(|e| e.message().to_string())
            .unwrap_or_default();
        assert!(msg.contains("append-only"), "{sql}: {msg}");
    }
    let events = env.events(job.id).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].reason.as_deref(), Some("test fixture"));
}

#[tokio::test]
async fn schema_rejects_rows_that_break_the_rules() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("a")).await;
    for (sql, what) in [
        (
            "UPDATE publication_jobs SET state = 'done'",
            "unknown state",
        ),
        (
            "UPDATE publication_jobs SET lease_owner = 'w', lease_expires_at = now()",
            "lease outside in_flight",
        ),
        (
            "UPDATE publication_jobs SET state = 'accepted'",
            "accepted without remote_id",
        ),
        (
            "UPDATE publication_jobs SET payload_hash = 'ABC'",
            "payload hash not hex sha256",
        ),
        ("UPDATE publication_jobs SET version = 0", "version below 1"),
    ] {
        assert!(
            env.client.batch_execute(sql).await.is_err(),
            "{what} must be refused"
        );
    }
    let dup = env
        .client
        .execute(
            "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash)
             VALUES ($1, $2, $3, $4, 'pub_' || repeat('0', 64), $5)",
            &[&job.tenant_id, &job.article_id, &job.revision_id, &job.destination, &job.payload_hash],
        )
        .await
        .unwrap_err();
    assert_eq!(
        dup.as_db_error().unwrap().constraint(),
        Some("ux_publication_jobs_identity")
    );
    assert_eq!(env.job(job.id).await, job);
}

#[tokio::test]
async fn migrate_applies_once_and_reports_status() {
    let env = TestEnv::empty().await;
    let status = env
        .run(&["migrate", "status", "-o", "json"])
        .expect(0)
        .json();
    let pending: Vec<&str> = status["migrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["state"].as_str().unwrap())
        .collect();
    assert!(!pending.is_empty());
    assert!(pending.iter().all(|s| *s == "pending"), "{status}");

    let dry = env
        .run(&["migrate", "--dry-run", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["pending"].as_array().unwrap().len(), pending.len());
    assert_eq!(
        env.count("SELECT count(*) FROM pg_tables WHERE tablename = 'publication_jobs'")
            .await,
        0
    );

    let first = env.run(&["migrate", "-o", "json"]).expect(0).json();
    assert_eq!(first["applied"].as_array().unwrap().len(), pending.len());
    assert_eq!(first["applied"][0]["version"], 1);
    assert_eq!(first["applied"][0]["state"], "applied");

    // The first also built the index of the expired leases, after the migrations.
    assert_eq!(
        first["built"],
        json!(["built index ix_publication_jobs_lease_by_destination CONCURRENTLY"]),
        "{first}"
    );

    let second = env.run(&["migrate", "-o", "json"]).expect(0).json();
    assert_eq!(second["applied"], json!([]), "migrate twice is a no-op");
    assert_eq!(second["built"], json!([]), "migrate twice is a no-op");
    let text = env.run(&["migrate"]).expect(0).stdout();
    assert!(
        text.trim().starts_with("schema is up to date at postgres@")
            && text.trim().ends_with("; nothing to apply"),
        "{text}"
    );

    let status = env
        .run(&["migrate", "status", "-o", "json"])
        .expect(0)
        .json();
    assert!(status["migrations"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["state"] == "applied" && m["applied_on"].is_string()));
}

/// The lease indexes as a reconctl before the index by destination left them: its
/// predecessor (by lease expiry, then destination) and not it.
pub(crate) const LEASE_INDEX_BEFORE: &str = "DROP INDEX ix_publication_jobs_lease_by_destination;
     CREATE INDEX ix_publication_jobs_lease_destination
         ON publication_jobs (lease_expires_at, destination) WHERE state = 'in_flight'";

/// The index of each destination's expired leases is built by `migrate` itself, after the
/// migrations, CONCURRENTLY (the workers write on), in place of its predecessor (by lease
/// expiry, then destination), which it then drops. Missing, `doctor` says so and that
/// `migrate` builds it; a build that was interrupted (an invalid index) is dropped and built
/// again by the next `migrate`.
#[tokio::test]
async fn migrate_builds_the_lease_index_by_destination_concurrently() {
    let env = TestEnv::new().await;
    let by_destination = "CREATE INDEX ix_publication_jobs_lease_by_destination ON public.publication_jobs USING btree (destination, lease_expires_at) WHERE (state = 'in_flight'::text)";
    // The index, valid, and its predecessor gone.
    let built = || async {
        let rows = env
            .client
            .query(
                "SELECT c.relname::text, pg_get_indexdef(i.indexrelid), i.indisvalid FROM pg_index i
                 JOIN pg_class c ON c.oid = i.indexrelid
                 WHERE c.relname IN ('ix_publication_jobs_lease_by_destination',
                                     'ix_publication_jobs_lease_destination')",
                &[],
            )
            .await
            .unwrap();
        let found: Vec<(String, String, bool)> = rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        assert_eq!(
            found,
            [(
                "ix_publication_jobs_lease_by_destination".to_string(),
                by_destination.to_string(),
                true
            )]
        );
    };
    built().await;

    // As an earlier reconctl left it: doctor says what is missing and what builds it.
    env.client.batch_execute(LEASE_INDEX_BEFORE).await.unwrap();
    let v = env.run(&["doctor", "-o", "json"]).expect(1).json();
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "index ix_publication_jobs_lease_by_destination")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(
        check,
        &json!({
            "check": "index ix_publication_jobs_lease_by_destination",
            "ok": false,
            "detail": "missing: inspection commands will scan the whole table",
            "hint": "run `reconctl migrate`: it builds this index CONCURRENTLY (writers go on)",
        })
    );
    // It says what it did, though no migration was pending: not "nothing to apply".
    let text = env.run(&["migrate"]).expect(0).stdout();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("schema is up to date at postgres@")
            && lines[0].ends_with("; no migration to apply"),
        "{text}"
    );
    assert_eq!(
        lines[1..],
        [
            "built index ix_publication_jobs_lease_by_destination CONCURRENTLY",
            "dropped index ix_publication_jobs_lease_destination: replaced by ix_publication_jobs_lease_by_destination",
        ],
        "{text}"
    );
    built().await;

    // A build interrupted half way leaves the index invalid: built again.
    env.client
        .batch_execute(
            "UPDATE pg_index SET indisvalid = false
             WHERE indexrelid = 'ix_publication_jobs_lease_by_destination'::regclass",
        )
        .await
        .unwrap();
    let v = env.run(&["doctor", "-o", "json"]).expect(1).json();
    assert!(
        v["checks"].as_array().unwrap().iter().any(|c| c["check"]
            == "index ix_publication_jobs_lease_by_destination"
            && c["hint"]
                == "run `reconctl migrate`: it drops and builds this index again, CONCURRENTLY"),
        "{v:#}"
    );
    let v = env.run(&["migrate", "-o", "json"]).expect(0).json();
    assert_eq!(v["applied"], json!([]), "{v}");
    assert_eq!(
        v["built"],
        json!([
            "dropped index ix_publication_jobs_lease_by_destination: invalid (a build was interrupted)",
            "built index ix_publication_jobs_lease_by_destination CONCURRENTLY",
        ]),
        "{v}"
    );
    built().await;
    env.run(&["doctor"]).expect(0);
    let text = env.run(&["migrate"]).expect(0).stdout();
    assert!(text.trim().ends_with("; nothing to apply"), "{text}");
}

#[tokio::test]
async fn migrate_refuses_a_divergent_history() {
    let env = TestEnv::new().await;
    env.client
        .batch_execute("UPDATE refinery_schema_history SET checksum = '1' WHERE version = 1")
        .await
        .unwrap();
    let run = env.run(&["migrate"]).expect(1);
    assert!(
        run.stderr()
            .contains("V1__publication_jobs was changed after it was applied"),
        "{}",
        run.stderr()
    );
    let status = env
        .run(&["migrate", "status", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(status["migrations"][0]["state"], "divergent");
}

#[tokio::test]
async fn ref_prints_the_spec_vector() {
    let env = TestEnv::empty().await;
    let out = env.run(&["ref", "t", "a1", "3", "cms"]).expect(0).stdout();
    assert_eq!(
        out,
        "pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852\n"
    );
    let json = env
        .run(&["ref", "t", "a1", "3", "cms", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(
        json,
        json!({
            "tenant_id": "t", "article_id": "a1", "revision_id": "3", "destination": "cms",
            "external_ref": "pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852"
        })
    );
}

#[tokio::test]
async fn jobs_reserve_from_the_command_line() {
    let env = TestEnv::new().await;
    let payload = env.dir.path().join("article.json");
    std::fs::write(&payload, b"{\"title\":\"Indoor herbs\"}").unwrap();
    let payload = payload.to_str().unwrap();
    let args = [
        "jobs",
        "reserve",
        "--tenant",
        "t",
        "--article",
        "a1",
        "--revision",
        "3",
        "--destination",
        "cms",
        "--payload-file",
        payload,
        "-o",
        "json",
    ];
    let created = env.run(&args).expect(0).json();
    assert_eq!(created["created"], true);
    assert_eq!(created["job"]["state"], "pending");
    assert_eq!(created["job"]["version"], 1);
    assert_eq!(
        created["job"]["external_ref"],
        "pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852"
    );
    assert_eq!(
        created["job"]["payload_hash"],
        payload_hash(b"{\"title\":\"Indoor herbs\"}")
    );
    assert_eq!(created["event"]["actor"], "tester");
    assert_eq!(created["event"]["action"], "reserve");

    let again = env.run(&args).expect(0).json();
    assert_eq!(again["created"], false);
    assert_eq!(again["event"], serde_json::Value::Null);
    assert_eq!(again["job"], created["job"]);

    let other = payload_hash(b"other");
    let conflict = env
        .run(&[
            "jobs",
            "reserve",
            "--tenant",
            "t",
            "--article",
            "a1",
            "--revision",
            "3",
            "--destination",
            "cms",
            "--payload-hash",
            &other,
            "-o",
            "json",
        ])
        .expect(3)
        .json();
    assert_eq!(conflict["error"]["kind"], "conflict");
    assert_eq!(conflict["error"]["code"], "payload_conflict");
    assert_eq!(conflict["error"]["current"], created["job"]);
    assert_eq!(env.count("SELECT count(*) FROM job_events").await, 1);

    let bad = env.run(&[
        "jobs",
        "reserve",
        "--tenant",
        "t",
        "--article",
        "a2",
        "--revision",
        "1",
        "--destination",
        "cms",
        "--payload-hash",
        "NOT-A-HASH",
    ]);
    let bad = bad.expect(2);
    assert!(
        bad.stderr().contains("lowercase hex SHA-256"),
        "{}",
        bad.stderr()
    );
    let missing = env.run(&[
        "jobs",
        "reserve",
        "--tenant",
        "t",
        "--article",
        "a2",
        "--revision",
        "1",
        "--destination",
        "cms",
    ]);
    missing.expect(2);
}

#[tokio::test]
async fn connection_failures_name_the_target_but_never_the_password() {
    let env = TestEnv::empty().await;
    let run = Run(env
        .cmd()
        .env(
            "DATABASE_URL",
            "postgres://alice:S3cretPW@127.0.0.1:1/jobs?connect_timeout=2",
        )
        .args([
            "jobs",
            "reserve",
            "--tenant",
            "t",
            "--article",
            "a",
            "--revision",
            "1",
            "--destination",
            "d",
            "--payload-hash",
            &payload_hash(b"x"),
            "-o",
            "json",
        ])
        .output()
        .unwrap())
    .expect(1);
    let all = format!("{}{}", run.stdout(), run.stderr());
    assert!(!all.contains("S3cretPW"), "{all}");
    assert!(
        run.stderr()
            .contains("cannot connect to alice@127.0.0.1:1/jobs"),
        "{}",
        run.stderr()
    );
    assert_eq!(run.json()["error"]["kind"], "runtime");
}

#[tokio::test]
async fn usage_errors_exit_2() {
    let env = TestEnv::empty().await;
    env.run(&["jobs", "show", "not-a-job"]).expect(2);
    env.run(&["--statement-timeout", "banana", "status"])
        .expect(2);
    env.run(&["no-such-command"]).expect(2);
    let help = env.run(&["--help"]).expect(0).stdout();
    assert!(help.contains("Exit codes"));
    assert!(
        !help.contains(&env.url),
        "--help must not show DATABASE_URL's value"
    );
}

/// The schema's CHECK list of states and the partial indexes' predicates are the transition
/// table's: every state, the bulk state left out of the open-job indexes, the leased state of
/// the lease index, the waiting states of the claim index.
#[tokio::test]
async fn the_schema_s_state_names_are_the_transition_table_s() {
    let env = TestEnv::new().await;
    let check: String = env
        .client
        .query_one(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'publication_jobs_state_check'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let mut in_check: Vec<String> = check
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    in_check.sort();
    let mut all: Vec<String> = State::ALL.iter().map(|s| s.as_str().to_string()).collect();
    all.sort();
    assert_eq!(in_check, all, "{check}");

    let client = &env.client;
    let predicate = |index: &'static str| async move {
        let row = client
            .query_one(
                "SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i
                 JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1",
                &[&index],
            )
            .await
            .unwrap();
        row.get::<_, String>(0)
    };
    let bulk = format!("(state <> '{}'::text)", State::bulk());
    assert_eq!(predicate("ix_publication_jobs_open_created").await, bulk);
    assert_eq!(predicate("ix_publication_jobs_open_state_age").await, bulk);
    assert_eq!(
        predicate("ix_publication_jobs_lease").await,
        format!("(state = '{}'::text)", State::leased())
    );
    let waiting: Vec<String> = State::waiting()
        .iter()
        .map(|s| format!("'{s}'::text"))
        .collect();
    assert_eq!(
        predicate("ix_publication_jobs_claimable").await,
        format!("(state = ANY (ARRAY[{}]))", waiting.join(", "))
    );
}
