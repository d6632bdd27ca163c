//! `jobs uncertain` and `jobs stuck`: oldest first with the time since sent, thresholds exact
//! at their boundaries, the same pages whether few or many leases expired, and why each is stuck.

use super::*;

#[tokio::test]
async fn uncertain_lists_oldest_first_with_time_since_sent() {
    let env = TestEnv::new().await;
    let mut first = Seed::new("u1")
        .state(Uncertain)
        .sent_ago(3 * 3600 + 10 * 60);
    first.created_age_secs = Some(4 * 3600);
    first = first.aged(2 * 3600 + 15 * 60);
    let first = env.seed(first).await;
    let second = env
        .seed(
            Seed::new("u2")
                .state(Uncertain)
                .destination("cms-b")
                .aged(3600 + 45 * 60),
        )
        .await;
    env.seed(Seed::new("p1").aged(9000)).await;
    env.seed(Seed::new("c1").state(Conflict).aged(9000)).await;
    let v = env
        .run(&["jobs", "uncertain", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(
        v,
        json!({"jobs": [job_json(&first), job_json(&second)], "next_cursor": null})
    );
    let b = env
        .run(&["jobs", "uncertain", "--destination", "cms-b", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&b), id_strings(&[&second]));
    let text = redact(
        env.run(&["jobs", "uncertain"]).expect(0).stdout(),
        &[("u1", &first), ("u2", &second)],
    );
    insta::assert_snapshot!(text, @"
    ID                                    DESTINATION  TENANT  ARTICLE  REV  SENT        UNCERTAIN FOR  ATTEMPTS
    [u1]                                  cms-a        t1      u1       1    3h 10m ago  2h 15m                0
    [u2]                                  cms-b        t1      u2       1    never       1h 45m                0
    ");
}

#[tokio::test]
async fn stuck_boundaries_are_exact_to_the_threshold() {
    let env = TestEnv::new().await;
    // Waiting for exactly the threshold at seeding: longer than it by the time the command
    // runs. Five seconds short of it: not stuck (the command runs well within those seconds).
    let p_at = env.seed(Seed::new("p-at").aged(600)).await;
    env.seed(Seed::new("p-short").aged(595)).await;
    let r_at = env
        .seed(Seed::new("r-at").state(SafeToRetry).aged(600))
        .await;
    env.seed(Seed::new("r-short").state(SafeToRetry).aged(595))
        .await;
    // A lease that expired the threshold ago is stuck (the rule of `check --stuck-after`);
    // one that expired five seconds short of it, or expires in five seconds, is not.
    let lease_gone = env
        .seed(
            Seed::new("f-gone")
                .state(InFlight)
                .lease("w-1", -600)
                .aged(5),
        )
        .await;
    env.seed(
        Seed::new("f-recent")
            .state(InFlight)
            .lease("w-1", -595)
            .aged(3600),
    )
    .await;
    env.seed(
        Seed::new("f-live")
            .state(InFlight)
            .lease("w-2", 5)
            .aged(3600),
    )
    .await;
    // Other states never are.
    env.seed(Seed::new("u-old").state(Uncertain).aged(99_999))
        .await;
    env.seed(Seed::new("c-old").state(Conflict).aged(99_999))
        .await;
    env.seed(Seed::new("x-old").state(Failed).aged(99_999))
        .await;
    env.seed(Seed::new("a-old").state(Accepted).aged(99_999))
        .await;

    let v = env
        .run(&["jobs", "stuck", "--older-than", "10m", "-o", "json"])
        .expect(0)
        .json();
    // In keyset order (created_at = state age here): r-at, p-at (600s, seeded later), f-gone.
    let mut got = ids(&v);
    got.sort();
    let mut want = id_strings(&[&p_at, &r_at, &lease_gone]);
    want.sort();
    assert_eq!(got, want);
    assert_eq!(v["next_cursor"], Value::Null);
    for j in v["jobs"].as_array().unwrap() {
        let expected = env.job(j["id"].as_str().unwrap().parse().unwrap()).await;
        assert_eq!(j, &job_json(&expected));
    }

    // The default is 15 minutes: none.
    let v = env.run(&["jobs", "stuck", "-o", "json"]).expect(0).json();
    assert_eq!(ids(&v), Vec::<String>::new());
    let v = env
        .run(&["jobs", "stuck", "--older-than", "9m", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(
        ids(&v).len(),
        6,
        "at 9m the 595s ones are stuck too, leases included"
    );
    // A destination with jobs, none stuck: an empty page; one nobody knows: exit 2.
    env.seed(Seed::new("b-fresh").destination("cms-b")).await;
    let v = env
        .run(&[
            "jobs",
            "stuck",
            "--older-than",
            "10m",
            "--destination",
            "cms-b",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(ids(&v), Vec::<String>::new());
    env.run(&["jobs", "stuck", "--destination", "cms-x"])
        .expect(2);
}

#[tokio::test]
async fn stuck_pages_are_the_same_whether_few_or_many_leases_expired() {
    let env = TestEnv::new().await;
    // 40 in flight, 30 of them expired: with pages of 3, walking the in-flight jobs is
    // cheaper than reading every expired lease (the `Many` plan); with pages of 50, the
    // other way round (`Few`). Both list the same jobs, in the same order.
    let mut expired = Vec::new();
    for i in 0..40 {
        // Expired more than the default 15 minutes ago, or not at all.
        let expires_in = if i % 4 == 0 { 600 } else { -960 - i };
        let job = env
            .seed(
                Seed::new(&format!("f{i:02}"))
                    .state(InFlight)
                    .lease("w", expires_in)
                    .aged(3600 - i),
            )
            .await;
        if expires_in < 0 {
            expired.push(job.id.to_string());
        }
    }
    assert_eq!(
        query::ExpiredLeases::choose(30, 40, 3),
        query::ExpiredLeases::Many
    );
    assert_eq!(
        query::ExpiredLeases::choose(30, 40, 50),
        query::ExpiredLeases::Few
    );
    let (small, pages) = walk_command(&env, "stuck", &[], 3);
    assert_eq!(pages, 10);
    let (large, _) = walk_command(&env, "stuck", &[], 50);
    let ids = |v: &[Value]| -> Vec<String> {
        v.iter()
            .map(|j| j["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&small), expired, "oldest first, each once");
    assert_eq!(ids(&large), expired);
}

#[tokio::test]
async fn stuck_table_says_why_each_job_is_stuck() {
    let env = TestEnv::new().await;
    let w = env.seed(Seed::new("w1").aged(3600 + 20 * 60)).await;
    let mut f = Seed::new("f1")
        .state(InFlight)
        .lease("worker-7", -(2 * 3600 + 5 * 60))
        .aged(3 * 3600);
    f.created_age_secs = Some(3 * 3600);
    let f = env.seed(f).await;
    let text = redact(
        env.run(&["jobs", "stuck", "--older-than", "1h"])
            .expect(0)
            .stdout(),
        &[("w1", &w), ("f1", &f)],
    );
    insta::assert_snapshot!(text, @"
    ID                                    STATE      DESTINATION  TENANT  ARTICLE  REV  STUCK                    LEASE OWNER
    [f1]                                  in_flight  cms-a        t1      f1       1    lease expired 2h 5m ago  worker-7
    [w1]                                  pending    cms-a        t1      w1       1    waiting 1h 20m
    ");
}

/// Issue 23 item 6: `jobs uncertain` lists the longest uncertain first (by when the job became
/// uncertain, not when it was created), and its first row is the job `status` names as the
/// oldest uncertain, also in a page of one and after a cursor.
#[tokio::test]
async fn item_6_uncertain_order_is_longest_uncertain_first_and_status_agrees() {
    let env = TestEnv::new().await;
    // Created first but uncertain for 3 s (a retry that timed out again just now).
    let mut recent = Seed::new("created-first").state(Uncertain);
    recent.created_age_secs = Some(3 * 3600);
    let recent = env.seed(recent.aged(3)).await;
    // Created later, uncertain for 1h 46m.
    let mut long = Seed::new("uncertain-longest")
        .state(Uncertain)
        .destination("cms-b");
    long.created_age_secs = Some(2 * 3600);
    let long = env.seed(long.aged(3600 + 46 * 60)).await;
    let mut middle = Seed::new("middle").state(Uncertain);
    middle.created_age_secs = Some(3600);
    let middle = env.seed(middle.aged(600)).await;

    let v = env
        .run(&["jobs", "uncertain", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&v), id_strings(&[&long, &middle, &recent]));
    // `jobs list --state uncertain` keeps creation order.
    let v = env
        .run(&["jobs", "list", "--state", "uncertain", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(ids(&v), id_strings(&[&recent, &long, &middle]));
    // Pages of one walk the same order.
    let (walked, pages) = walk_command(&env, "uncertain", &[], 1);
    assert_eq!(pages, 3);
    let walked: Vec<String> = walked
        .iter()
        .map(|j| j["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(walked, id_strings(&[&long, &middle, &recent]));
    // status names the same job as the oldest, in JSON and in its table.
    let status = env.run(&["status", "-o", "json"]).expect(0).json();
    assert_eq!(status["oldest_uncertain"]["id"], long.id.to_string());
    let first = env
        .run(&["jobs", "uncertain", "--limit", "1", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(first["jobs"][0]["id"], status["oldest_uncertain"]["id"]);
    let text = env.run(&["status"]).expect(0).stdout();
    assert!(
        text.contains("oldest uncertain job, for 1h 46m at cms-b")
            && text.contains(&long.id.to_string()),
        "{text}"
    );
}
