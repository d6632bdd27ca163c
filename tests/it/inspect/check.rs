//! `check`: silent and exit 0 when healthy, exit 5 with one line per exceeded threshold,
//! thresholds exact at their boundaries, out-of-order publications.

use super::*;

fn check(env: &TestEnv, args: &[&str]) -> Run {
    let mut full = vec!["check"];
    full.extend_from_slice(args);
    env.run(&full)
}

#[tokio::test]
async fn check_is_silent_and_exits_0_when_healthy() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("p1").aged(60)).await;
    env.seed(Seed::new("a1").state(Accepted)).await;
    let run = check(&env, &[]).expect(0);
    assert_eq!(run.stdout(), "");
    assert_eq!(run.stderr(), "");
    let run = check(&env, &["-v"]).expect(0);
    assert_eq!(
        run.stdout(),
        "ok: 0 uncertain (at most 0), 0 in conflict (at most 0), none stuck for more than 15m, no out-of-order publication in the last 1h\n"
    );
    let v = check(&env, &["-o", "json"]).expect(0).json();
    assert_eq!(
        v,
        json!({
            "healthy": true,
            "violations": [],
            "counts": {"uncertain": 0, "conflict": 0, "uncertain_overdue": 0,
                       "stuck_waiting": 0, "stuck_leases": 0, "stuck_waiting_paused": 0},
            "thresholds": {"max_uncertain": 0, "max_conflict": 0, "stuck_after_seconds": 900,
                           "uncertain_after_seconds": null, "order_window_seconds": 3600,
                           "max_pause_seconds": null},
            "out_of_order": [],
            "pauses": [],
        })
    );
}

#[tokio::test]
async fn check_exits_5_with_one_line_per_exceeded_threshold() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(3600 + 5 * 60))
        .await;
    env.seed(Seed::new("u2").state(Uncertain).aged(60)).await;
    env.seed(Seed::new("c1").state(Conflict).aged(2 * 3600 + 2 * 60))
        .await;

    // Each threshold alone.
    let run = check(&env, &["--max-conflict", "1"]).expect(5);
    assert_eq!(
        run.stdout(),
        "uncertain: 2 jobs (at most 0 allowed), the oldest uncertain for 1h 5m; see `reconctl jobs uncertain`, settle with `reconctl reconcile`\n"
    );
    let run = check(&env, &["--max-uncertain", "2"]).expect(5);
    assert_eq!(
        run.stdout(),
        "conflict: 1 job (at most 0 allowed), the oldest in conflict for 2h 2m; see `reconctl jobs list --state conflict`\n"
    );
    // Within the count, but one uncertain for longer than allowed.
    let run = check(
        &env,
        &[
            "--max-uncertain",
            "2",
            "--max-conflict",
            "1",
            "--uncertain-after",
            "30m",
        ],
    )
    .expect(5);
    assert_eq!(
        run.stdout(),
        "uncertain too long: 1 job uncertain for more than 30m, the oldest for 1h 5m; see `reconctl jobs list --state uncertain --older-than 30m`\n"
    );
    check(
        &env,
        &[
            "--max-uncertain",
            "2",
            "--max-conflict",
            "1",
            "--uncertain-after",
            "2h",
        ],
    )
    .expect(0);
    // All at once: one line each.
    let run = check(&env, &["--uncertain-after", "30m"]).expect(5);
    let out = run.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("uncertain: 2 jobs"));
    assert!(lines[1].starts_with("uncertain too long: 1 job"));
    assert!(lines[2].starts_with("conflict: 1 job"));
    // -q: nothing printed, the exit code says it.
    assert_eq!(check(&env, &["-q"]).expect(5).stdout(), "");
    let v = check(&env, &["-o", "json", "--uncertain-after", "30m"])
        .expect(5)
        .json();
    assert_eq!(v["healthy"], false);
    let checks: Vec<(&str, i64)> = v["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["check"].as_str().unwrap(), x["count"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        checks,
        [
            ("max_uncertain", 2),
            ("uncertain_after", 1),
            ("max_conflict", 1)
        ]
    );
    assert_eq!(v["violations"][0]["message"], lines[0]);
    assert_eq!(
        v["counts"],
        json!({"uncertain": 2, "conflict": 1, "uncertain_overdue": 1, "stuck_waiting": 0, "stuck_leases": 0, "stuck_waiting_paused": 0})
    );
}

#[tokio::test]
async fn check_stuck_boundaries_are_exact_to_the_threshold() {
    let env = TestEnv::new().await;
    // Just short of 10 minutes: healthy at --stuck-after 10m.
    env.seed(Seed::new("p-short").aged(595)).await;
    env.seed(Seed::new("r-short").state(SafeToRetry).aged(595))
        .await;
    env.seed(Seed::new("f-short").state(InFlight).lease("w", -595))
        .await;
    check(&env, &["--stuck-after", "10m"]).expect(0);
    // Exactly 10 minutes at seeding: longer by the time check runs.
    env.seed(Seed::new("p-at").aged(600)).await;
    let run = check(&env, &["--stuck-after", "10m"]).expect(5);
    assert!(
        run.stdout().starts_with(
            "stuck: 1 job: 1 pending or safe_to_retry for more than 10m (the oldest for 10m"
        ),
        "{}",
        run.stdout()
    );
    env.seed(Seed::new("r-at").state(SafeToRetry).aged(600))
        .await;
    env.seed(Seed::new("f-at").state(InFlight).lease("w", -600))
        .await;
    let v = check(&env, &["--stuck-after", "10m", "-o", "json"])
        .expect(5)
        .json();
    assert_eq!(v["counts"]["stuck_waiting"], 2);
    assert_eq!(v["counts"]["stuck_leases"], 1);
    let run = check(&env, &["--stuck-after", "10m"]).expect(5);
    assert_eq!(run.stdout().lines().count(), 1, "one threshold, one line");
    assert!(run.stdout().contains("3 jobs: 2 pending or safe_to_retry"));
    assert!(run
        .stdout()
        .contains("1 in_flight with a lease expired more than 10m ago"));
    check(&env, &["--stuck-after", "11m"]).expect(0);
}

/// Two accepted revisions of one article at one destination: `first` accepted 1h 10m ago,
/// `second` 1 minute ago.
async fn accepted_pair(env: &TestEnv, article: &str, first: &str, second: &str) -> (Job, Job) {
    let mut a = Seed::new(article).state(Accepted).aged(4200);
    a.revision = first.into();
    let mut b = Seed::new(article).state(Accepted).aged(60);
    b.revision = second.into();
    (env.seed(a).await, env.seed(b).await)
}

/// The out-of-order window's statements plan the log's recent partitions only, with bounds
/// from this machine's clock; a clock more than a day off finds the same pairs (the statement
/// notices, and looks again over every partition).
#[tokio::test]
async fn out_of_order_finds_the_same_pairs_whatever_this_machines_clock_says() {
    use reconctl::jobs::query::{logged_out_of_order, sql::Prune};
    let env = TestEnv::new().await;
    accepted_pair(&env, "in-order", "1", "2").await;
    let (newer, older) = accepted_pair(&env, "late", "10", "9").await;
    let hour = Duration::from_secs(3600);
    let want = logged_out_of_order(&env.client, hour, Prune::none(), i64::MAX)
        .await
        .unwrap();
    assert_eq!(want.len(), 1, "{want:?}");
    assert_eq!((want[0].older.id, want[0].newer.id), (older.id, newer.id));
    let now = chrono::Utc::now();
    for skew_days in [-400, -3, 0, 3] {
        let prune = Prune::around_at(now + chrono::Duration::days(skew_days), hour);
        let got = logged_out_of_order(&env.client, hour, prune, i64::MAX)
            .await
            .unwrap();
        assert_eq!(got, want, "skew {skew_days} days");
        let window = query::event_window_sql(hour, &prune);
        let row = env
            .client
            .query_one(&window.text, &window.params())
            .await
            .unwrap();
        assert_eq!(
            row.get::<_, bool>(1),
            skew_days == 0,
            "skew {skew_days} days"
        );
    }
}

#[tokio::test]
async fn check_flags_an_older_revision_accepted_after_a_newer_one() {
    let env = TestEnv::new().await;
    // In order: 1 then 2; 9 then 10 (numerically 10 is newer, though "10" < "9" as text).
    accepted_pair(&env, "in-order", "1", "2").await;
    accepted_pair(&env, "numeric", "9", "10").await;
    check(&env, &[]).expect(0);
    // Out of order: 10 accepted, then 9 (a delayed old update arriving after a newer one).
    let (newer, older) = accepted_pair(&env, "late", "10", "9").await;
    let run = check(&env, &[]).expect(5);
    assert_eq!(
        run.stdout(),
        format!(
            "out of order: 1 older revision was accepted after a newer one in the last 1h, e.g. tenant t1 article late at cms-a: revision 9 (job {}) accepted 1h 9m after revision 10 (job {}); the destination may show the older content\n",
            older.id, newer.id
        )
    );
    let v = check(&env, &["-o", "json"]).expect(5).json();
    assert_eq!(
        v["out_of_order"],
        json!([{
            "tenant_id": "t1", "article_id": "late", "destination": "cms-a",
            "older": {"id": older.id, "revision_id": "9",
                      "accepted_at": job_json(&older)["state_changed_at"]},
            "newer": {"id": newer.id, "revision_id": "10",
                      "accepted_at": job_json(&newer)["state_changed_at"]},
        }])
    );
    assert_eq!(v["violations"][0]["check"], "out_of_order");
    // Revisions that are not both integers compare as text: "v10" < "v2".
    accepted_pair(&env, "text", "v2", "v10").await;
    let v = check(&env, &["-o", "json"]).expect(5).json();
    assert_eq!(v["violations"][0]["count"], 2);
    // Leading zeros do not make a number newer: "007" and "7" are the same revision number.
    accepted_pair(&env, "zeros", "7", "007").await;
    let v = check(&env, &["-o", "json"]).expect(5).json();
    assert_eq!(v["violations"][0]["count"], 2);
    // Another destination or tenant is another publication.
    let mut other = Seed::new("late")
        .state(Accepted)
        .destination("cms-b")
        .aged(1);
    other.revision = "1".into();
    env.seed(other).await;
    let v = check(&env, &["-o", "json"]).expect(5).json();
    assert_eq!(v["violations"][0]["count"], 2);
    // Outside the window, it is no longer reported.
    check(&env, &["--order-window", "1ms"]).expect(0);
}

/// Issue 23 item 9: one meaning of "stuck". A lease that expired 15 s ago is not stuck at
/// `--older-than 5m` (its worker may still renew it; the sweep moves it), and `jobs stuck
/// --older-than DUR` lists exactly the jobs `check --stuck-after DUR` counts.
#[tokio::test]
async fn item_9_jobs_stuck_and_check_share_one_meaning_of_stuck() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("lease-fresh").state(InFlight).lease("w", -15))
        .await;
    env.seed(Seed::new("pending-fresh").aged(30)).await;
    let lease_old = env
        .seed(Seed::new("lease-old").state(InFlight).lease("w", -600))
        .await;
    let pending_old = env.seed(Seed::new("pending-old").aged(600)).await;
    let listed = env
        .run(&["jobs", "stuck", "--older-than", "5m", "-o", "json"])
        .expect(0)
        .json();
    let mut ids: Vec<String> = listed["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    let mut want = vec![lease_old.id.to_string(), pending_old.id.to_string()];
    want.sort();
    assert_eq!(ids, want);
    let v = check(&env, &["--stuck-after", "5m", "-o", "json"])
        .expect(5)
        .json();
    let counted = v["counts"]["stuck_waiting"].as_i64().unwrap()
        + v["counts"]["stuck_leases"].as_i64().unwrap();
    assert_eq!(counted as usize, ids.len());
    // Both agree that nothing is stuck at a longer threshold.
    check(&env, &["--stuck-after", "11m"]).expect(0);
    assert_eq!(
        env.run(&["jobs", "stuck", "--older-than", "11m"])
            .expect(0)
            .stdout(),
        "no stuck jobs\n"
    );
}
