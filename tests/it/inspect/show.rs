//! `jobs show`: the job, its lease, its events and the moves it allows, in JSON and as a
//! table; the table at every width (on the fixture of `tables`).

use super::*;
use crate::tables::{Fixture, U1};

fn moves(v: &Value) -> (Vec<String>, BTreeMap<String, String>) {
    let mut valid = Vec::new();
    let mut why_not = BTreeMap::new();
    for m in v["moves"].as_array().unwrap() {
        let action = m["action"].as_str().unwrap().to_string();
        if m["valid"].as_bool().unwrap() {
            valid.push(action);
        } else {
            why_not.insert(action, m["why"].as_str().unwrap().to_string());
        }
    }
    (valid, why_not)
}

#[tokio::test]
async fn show_json_is_the_job_its_lease_its_events_and_the_moves() {
    let env = TestEnv::new().await;
    let job = env
        .seed(
            Seed::new("s1")
                .state(InFlight)
                .lease("worker-3", 300)
                .sent_ago(10)
                .aged(20),
        )
        .await;
    let mut v = env
        .run(&["jobs", "show", &job.id.to_string(), "-o", "json"])
        .expect(0)
        .json();
    let lease = v.as_object_mut().unwrap().remove("lease").unwrap();
    let events = v.as_object_mut().unwrap().remove("events").unwrap();
    let moves_v = v.as_object_mut().unwrap().remove("moves").unwrap();
    assert_eq!(v, job_json(&job), "the job's columns, exactly");
    assert_eq!(
        events,
        serde_json::to_value(env.events(job.id).await).unwrap()
    );
    assert_eq!(lease["owner"], "worker-3");
    assert_eq!(lease["expired"], false);
    assert_eq!(lease["expires_at"], job_json(&job)["lease_expires_at"]);
    let left = lease["remaining_seconds"].as_f64().unwrap();
    assert!(left > 270.0 && left <= 300.0, "{left}");
    let (valid, why_not) = moves(&json!({ "moves": moves_v }));
    assert_eq!(
        valid,
        ["renew", "mark_sent", "complete", "fail", "timed_out"]
    );
    assert!(
        why_not["sweep_sent"].starts_with("the lease is still valid for 4m"),
        "{why_not:?}"
    );
    assert_eq!(
        why_not["mark_accepted"],
        "only from uncertain, conflict or safe_to_retry"
    );
    assert_eq!(why_not["claim"], "only from pending or safe_to_retry");
    // Every row of the table but creation (which starts from no state).
    assert_eq!(
        moves_v.as_array().unwrap().len(),
        reconctl::jobs::TRANSITIONS
            .iter()
            .filter(|t| !t.from.is_empty())
            .count()
    );
    let complete = moves_v
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["action"] == "complete")
        .unwrap();
    assert_eq!(complete["to"], "accepted");
    assert_eq!(complete["by"], "worker");

    // By external_ref: the same document.
    let by_ref = env
        .run(&["jobs", "show", &job.external_ref, "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(by_ref["id"], job.id.to_string());
    assert_eq!(by_ref["events"], events);
}

#[tokio::test]
async fn show_judges_each_move_from_the_state_the_lease_and_sent_at() {
    let env = TestEnv::new().await;
    let show = |id: Uuid| {
        let v = env
            .run(&["jobs", "show", &id.to_string(), "-o", "json"])
            .expect(0)
            .json();
        moves(&v)
    };
    let sent_expired = env
        .seed(Seed::new("a").state(InFlight).lease("w", -60).sent_ago(120))
        .await;
    let (valid, why_not) = show(sent_expired.id);
    assert!(valid.contains(&"sweep_sent".to_string()), "{valid:?}");
    assert_eq!(
        why_not["sweep_unsent"],
        "the request was sent (sent_at is set)"
    );

    let unsent_expired = env
        .seed(Seed::new("b").state(InFlight).lease("w", -60))
        .await;
    let (valid, why_not) = show(unsent_expired.id);
    assert!(valid.contains(&"sweep_unsent".to_string()), "{valid:?}");
    assert_eq!(
        why_not["sweep_sent"],
        "the request was never sent (sent_at is empty)"
    );

    let uncertain = env.seed(Seed::new("c").state(Uncertain)).await;
    let (valid, _) = show(uncertain.id);
    assert_eq!(
        valid,
        [
            "mark_accepted",
            "reconcile_accepted",
            "mark_safe_to_retry",
            "reconcile_safe_to_retry",
            "reconcile_conflict",
            "mark_failed"
        ]
    );

    let accepted = env.seed(Seed::new("d").state(Accepted)).await;
    let (valid, why_not) = show(accepted.id);
    assert!(valid.is_empty());
    assert!(why_not
        .values()
        .all(|w| w == "accepted is terminal: no move leaves it"));

    let missing = Uuid::new_v4().to_string();
    let run = env.run(&["jobs", "show", &missing, "-o", "json"]).expect(4);
    assert_eq!(run.json()["error"]["kind"], "not_found");
    env.run(&["jobs", "show", "not-a-job"]).expect(2);
}

#[tokio::test]
async fn show_table_has_every_column_the_lease_history_and_moves() {
    let env = TestEnv::new().await;
    let seeded = env
        .seed(
            Seed::new("show-1")
                .state(InFlight)
                .lease("worker-3", 60)
                .sent_ago(5 * 60 + 10)
                .aged(3 * 3600 + 10 * 60),
        )
        .await;
    // A second event, with evidence, through the guarded move: the holder renews its lease.
    let moved = reconctl::jobs::guarded_move(
        &env.client,
        &reconctl::jobs::MoveRequest {
            job_id: seeded.id,
            expect_version: seeded.version,
            action: reconctl::jobs::Action::Renew,
            actor: "worker-3".into(),
            reason: Some("still sending".into()),
            evidence: json!({"attempt": 1, "http": {"status": 102}, "note": "a long note that goes on and on, longer than a table cell should be"}),
            effects: reconctl::jobs::store::Effects {
                lease_ttl: Some(Duration::from_secs(2 * 3600 + 30 * 60 + 30)),
                ..Default::default()
            },
        },
    )
    .await
    .unwrap();
    let reconctl::jobs::MoveOutcome::Moved { job, .. } = moved else {
        panic!("the renew lost its guard")
    };
    let text = env
        .run(&["jobs", "show", &job.external_ref])
        .expect(0)
        .stdout();
    for line in text.lines() {
        assert!(line.chars().count() <= 120, "{line}");
    }
    let text = redact(text, &[("job", &job)]);
    insta::assert_snapshot!(text, @"
    job [job]                                (in_flight at version 2)
    id                [job]
    external_ref      [job.ref]
    tenant_id         t1
    article_id        show-1
    revision_id       1
    destination       cms-a
    payload_hash      [job.hash]
    state             in_flight
    version           2
    attempts          0
    lease             held by worker-3, 2h 30m left
    lease_owner       worker-3
    lease_expires_at  [time]               (in 2h 30m)
    sent_at           [time]               (5m 10s ago)
    remote_id
    last_error
    created_at        [time]               (3h 10m ago)
    updated_at        [time]               (moments ago)
    state_changed_at  [time]               (3h 10m ago)

    history (2 events)
    AT                    ACTOR     ACTION  MOVE                   VERSION  REASON         EVIDENCE
    [time]                seed      seed    ∅ → in_flight          1        test fixture
    [time]                worker-3  renew   in_flight → in_flight  1 → 2    still sending  attempt=1, http={…}, note=a long…

    moves
    MOVE                                     BY         NOW
    renew → in_flight                        worker     valid
      by the lease holder worker-3, at version 2: the lease holder renews its lease
    mark_sent → in_flight                    worker     valid
      by the lease holder worker-3, at version 2: the lease holder is about to send (sent_at = now)
    complete → accepted                      worker     valid
      by the lease holder worker-3, at version 2: the destination confirmed; remote_id recorded
    fail → failed                            worker     valid
      by the lease holder worker-3, at version 2: the destination rejected it definitively
    timed_out → uncertain                    worker     valid
      by the lease holder worker-3, at version 2: the send timed out after sending
    claim → in_flight                        worker     not now
      only from pending or safe_to_retry
    sweep_sent → uncertain                   sweep      not now
      the lease is still valid for 2h 30m
    sweep_unsent → pending                   sweep      not now
      the lease is still valid for 2h 30m
    mark_accepted → accepted                 operator   not now
      only from uncertain, conflict or safe_to_retry
    reconcile_accepted → accepted            reconcile  not now
      only from uncertain, conflict or safe_to_retry
    mark_safe_to_retry → safe_to_retry       operator   not now
      only from uncertain or conflict
    reconcile_safe_to_retry → safe_to_retry  reconcile  not now
      only from uncertain or conflict
    reconcile_conflict → conflict            reconcile  not now
      only from uncertain
    mark_failed → failed                     operator   not now
      only from pending, safe_to_retry, uncertain or conflict
    redrive → safe_to_retry                  operator   not now
      only from failed
    ");
}

/// At 60, 80, 120 and 200 columns, piped and on a terminal, as `tables` checks every table.
#[tokio::test]
async fn jobs_show_fits_every_width_and_its_commands_are_whole() {
    let fx = Fixture::new().await;
    // By a prefix, as a table printed it.
    let args = ["jobs", "show", "6ce568d4-075"];
    let [a, b, c, d] = fx.widths(&args, 0);
    insta::assert_snapshot!(a, @"
    job 6ce568d4-075a-4d3c-b189-8d55d6202bbd (uncertain at
      version 1)
    id                6ce568d4-075a-4d3c-b189-8d55d6202bbd
    external_ref
      [68 characters, wider than this terminal: see -o json]
    tenant_id         acme-publishing
    article_id        breaking-news-election-results-live-cover…
    revision_id       3
    destination       cms-a
    payload_hash
      [64 characters, wider than this terminal: see -o json]
    state             uncertain
    version           1
    attempts          2
    lease             none
    lease_owner
    lease_expires_at
    sent_at           YYYY-MM-DDThh:mm:ssZ (3h 10m ago)
    remote_id
    last_error
    created_at        YYYY-MM-DDThh:mm:ssZ (4h 5m ago)
    updated_at        YYYY-MM-DDThh:mm:ssZ (3h 5m ago)
    state_changed_at  YYYY-MM-DDThh:mm:ssZ (3h 5m ago)

    history (1 event)
    AT                    ACTOR  MOVE           REASON
    YYYY-MM-DDThh:mm:ssZ  seed   ∅ → uncertain  test fixture

    moves
    MOVE                                     BY         NOW
    mark_accepted → accepted                 operator   valid
      the destination has it (remote_id recorded)
      $ reconctl mark accepted 6ce568d4-075 --reason TEXT
    reconcile_accepted → accepted            reconcile  valid
      the destination has it (remote_id recorded)
      $ reconctl reconcile --destination cms-a
    mark_safe_to_retry → safe_to_retry       operator   valid
      the destination does not have it, and the lookup is
        settled
      $ reconctl mark safe-to-retry 6ce568d4-075 --reason TEXT
    reconcile_safe_to_retry → safe_to_retry  reconcile  valid
      the destination does not have it, and the lookup is
        settled
      $ reconctl reconcile --destination cms-a
    reconcile_conflict → conflict            reconcile  valid
      the destination has different content, or several
        matches
      $ reconctl reconcile --destination cms-a
    mark_failed → failed                     operator   valid
      an operator gave up, with a reason
      $ reconctl mark failed 6ce568d4-075 --reason TEXT
    claim → in_flight                        worker     not now
      only from pending or safe_to_retry
    renew → in_flight                        worker     not now
      only from in_flight
    mark_sent → in_flight                    worker     not now
      only from in_flight
    complete → accepted                      worker     not now
      only from in_flight
    fail → failed                            worker     not now
      only from in_flight
    timed_out → uncertain                    worker     not now
      only from in_flight
    sweep_sent → uncertain                   sweep      not now
      only from in_flight
    sweep_unsent → pending                   sweep      not now
      only from in_flight
    redrive → safe_to_retry                  operator   not now
      only from failed
    ");
    insta::assert_snapshot!(b, @"
    job 6ce568d4-075a-4d3c-b189-8d55d6202bbd (uncertain at version 1)
    id                6ce568d4-075a-4d3c-b189-8d55d6202bbd
    external_ref
      pub_b43a2323ef464d2876cd4556a3b20a74dcee2c83ecec6db824aed60b49b64f7a
    tenant_id         acme-publishing
    article_id        breaking-news-election-results-live-coverage
    revision_id       3
    destination       cms-a
    payload_hash
      9124ebe91e4af54063a95edca87e220510738bf5f37b8e3832293387bed1e71a
    state             uncertain
    version           1
    attempts          2
    lease             none
    lease_owner
    lease_expires_at
    sent_at           YYYY-MM-DDThh:mm:ssZ (3h 10m ago)
    remote_id
    last_error
    created_at        YYYY-MM-DDThh:mm:ssZ (4h 5m ago)
    updated_at        YYYY-MM-DDThh:mm:ssZ (3h 5m ago)
    state_changed_at  YYYY-MM-DDThh:mm:ssZ (3h 5m ago)

    history (1 event)
    AT                    ACTOR  ACTION  MOVE           REASON        EVIDENCE
    YYYY-MM-DDThh:mm:ssZ  seed   seed    ∅ → uncertain  test fixture

    moves
    MOVE                                     BY         NOW
    mark_accepted → accepted                 operator   valid
      the destination has it (remote_id recorded)
      $ reconctl mark accepted 6ce568d4-075 --reason TEXT
    reconcile_accepted → accepted            reconcile  valid
      the destination has it (remote_id recorded)
      $ reconctl reconcile --destination cms-a
    mark_safe_to_retry → safe_to_retry       operator   valid
      the destination does not have it, and the lookup is settled
      $ reconctl mark safe-to-retry 6ce568d4-075 --reason TEXT
    reconcile_safe_to_retry → safe_to_retry  reconcile  valid
      the destination does not have it, and the lookup is settled
      $ reconctl reconcile --destination cms-a
    reconcile_conflict → conflict            reconcile  valid
      the destination has different content, or several matches
      $ reconctl reconcile --destination cms-a
    mark_failed → failed                     operator   valid
      an operator gave up, with a reason
      $ reconctl mark failed 6ce568d4-075 --reason TEXT
    claim → in_flight                        worker     not now
      only from pending or safe_to_retry
    renew → in_flight                        worker     not now
      only from in_flight
    mark_sent → in_flight                    worker     not now
      only from in_flight
    complete → accepted                      worker     not now
      only from in_flight
    fail → failed                            worker     not now
      only from in_flight
    timed_out → uncertain                    worker     not now
      only from in_flight
    sweep_sent → uncertain                   sweep      not now
      only from in_flight
    sweep_unsent → pending                   sweep      not now
      only from in_flight
    redrive → safe_to_retry                  operator   not now
      only from failed
    ");
    insta::assert_snapshot!(c, @"
    job 6ce568d4-075a-4d3c-b189-8d55d6202bbd (uncertain at version 1)
    id                6ce568d4-075a-4d3c-b189-8d55d6202bbd
    external_ref      pub_b43a2323ef464d2876cd4556a3b20a74dcee2c83ecec6db824aed60b49b64f7a
    tenant_id         acme-publishing
    article_id        breaking-news-election-results-live-coverage
    revision_id       3
    destination       cms-a
    payload_hash      9124ebe91e4af54063a95edca87e220510738bf5f37b8e3832293387bed1e71a
    state             uncertain
    version           1
    attempts          2
    lease             none
    lease_owner
    lease_expires_at
    sent_at           YYYY-MM-DDThh:mm:ssZ (3h 10m ago)
    remote_id
    last_error
    created_at        YYYY-MM-DDThh:mm:ssZ (4h 5m ago)
    updated_at        YYYY-MM-DDThh:mm:ssZ (3h 5m ago)
    state_changed_at  YYYY-MM-DDThh:mm:ssZ (3h 5m ago)

    history (1 event)
    AT                    ACTOR  ACTION  MOVE           VERSION  REASON        EVIDENCE
    YYYY-MM-DDThh:mm:ssZ  seed   seed    ∅ → uncertain  1        test fixture

    moves
    MOVE                                     BY         NOW      WHY
    mark_accepted → accepted                 operator   valid    the destination has it (remote_id recorded)
      $ reconctl mark accepted 6ce568d4-075a-4d3c-b189-8d55d6202bbd --reason TEXT
    reconcile_accepted → accepted            reconcile  valid    the destination has it (remote_id recorded)
      $ reconctl reconcile --destination cms-a
    mark_safe_to_retry → safe_to_retry       operator   valid    the destination does not have it, and the lookup is settled
      $ reconctl mark safe-to-retry 6ce568d4-075a-4d3c-b189-8d55d6202bbd --reason TEXT
    reconcile_safe_to_retry → safe_to_retry  reconcile  valid    the destination does not have it, and the lookup is settled
      $ reconctl reconcile --destination cms-a
    reconcile_conflict → conflict            reconcile  valid    the destination has different content, or several matches
      $ reconctl reconcile --destination cms-a
    mark_failed → failed                     operator   valid    an operator gave up, with a reason
      $ reconctl mark failed 6ce568d4-075a-4d3c-b189-8d55d6202bbd --reason TEXT
    claim → in_flight                        worker     not now  only from pending or safe_to_retry
    renew → in_flight                        worker     not now  only from in_flight
    mark_sent → in_flight                    worker     not now  only from in_flight
    complete → accepted                      worker     not now  only from in_flight
    fail → failed                            worker     not now  only from in_flight
    timed_out → uncertain                    worker     not now  only from in_flight
    sweep_sent → uncertain                   sweep      not now  only from in_flight
    sweep_unsent → pending                   sweep      not now  only from in_flight
    redrive → safe_to_retry                  operator   not now  only from failed
    ");
    // The widest terminal shows what 120 columns do: nothing there is cut.
    assert_eq!(d, c);
    fx.same_in_pty(&args, 0);
    // The commands it suggests run as printed (their id shortened where the width asked).
    let cmd = a
        .lines()
        .find_map(|l| l.trim().strip_prefix("$ reconctl mark failed "))
        .expect("a mark failed command");
    let prefix = cmd.split_whitespace().next().unwrap();
    assert!(prefix.len() < 36 && U1.starts_with(prefix), "{cmd}");
    let run = fx.env.run(&[
        "mark",
        "failed",
        prefix,
        "--reason",
        "TEXT",
        "--dry-run",
        "-o",
        "json",
    ]);
    assert_eq!(run.expect(0).json()["job"]["id"], U1);
}
