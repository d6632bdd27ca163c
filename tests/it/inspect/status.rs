//! `status`: counts by state and destination with the oldest age, actionable states first.

use super::*;

/// `oldest_age_seconds` is the seeded age plus the seconds the test took: check it, then
/// pin it to the seeded age so the document can be compared exactly.
fn pin_ages(v: &mut Value, seeded: &[(&str, i64)]) {
    for s in v["states"].as_array_mut().unwrap() {
        let state = s["state"].as_str().unwrap().to_string();
        for (name, age) in seeded {
            if *name == state {
                let got = s["oldest_age_seconds"].as_i64().unwrap();
                assert!(got >= *age && got < age + 30, "{state}: {got}");
                s["oldest_age_seconds"] = json!(age);
            }
        }
        for d in s["destinations"].as_array_mut().unwrap() {
            let key = format!("{state}/{}", d["destination"].as_str().unwrap());
            let (_, age) = seeded
                .iter()
                .find(|(n, _)| *n == key)
                .unwrap_or_else(|| panic!("unexpected {key}"));
            let got = d["oldest_age_seconds"].as_i64().unwrap();
            assert!(got >= *age && got < age + 30, "{key}: {got}");
            d["oldest_age_seconds"] = json!(age);
            d.as_object_mut().unwrap().remove("oldest_state_changed_at");
            // No destination is paused here (tests/it/pause.rs covers pauses in status).
            assert_eq!(
                d.as_object_mut().unwrap().remove("paused"),
                Some(json!(false))
            );
        }
    }
}

#[tokio::test]
async fn status_counts_each_state_and_destination_with_the_oldest_age() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(600)).await;
    env.seed(Seed::new("u2").state(Uncertain).aged(60)).await;
    env.seed(
        Seed::new("u3")
            .state(Uncertain)
            .destination("cms-b")
            .aged(7200),
    )
    .await;
    let c = env.seed(Seed::new("c1").state(Conflict).aged(300)).await;
    env.seed(Seed::new("p1").aged(30)).await;
    env.seed(Seed::new("a1").state(Accepted)).await;
    env.seed(Seed::new("a2").state(Accepted).destination("cms-b"))
        .await;
    let mut v = env.run(&["status", "-o", "json"]).expect(0).json();
    assert!(v["as_of"].as_str().unwrap().ends_with('Z'));
    v.as_object_mut().unwrap().remove("as_of");
    // The first of `jobs uncertain` (created first: the one aged 2h), whole.
    let oldest = v
        .as_object_mut()
        .unwrap()
        .remove("oldest_uncertain")
        .unwrap();
    assert_eq!(oldest["article_id"], "u3");
    assert_eq!(oldest["destination"], "cms-b");
    assert_eq!(oldest["state"], "uncertain");
    assert!(
        v.get("moves").is_none() && v.get("expired_leases").is_none(),
        "-v only"
    );
    let conflict_since = v["states"][1]["destinations"][0]["oldest_state_changed_at"].clone();
    assert_eq!(conflict_since, job_json(&c)["state_changed_at"]);
    pin_ages(
        &mut v,
        &[
            ("uncertain", 7200),
            ("uncertain/cms-a", 600),
            ("uncertain/cms-b", 7200),
            ("conflict", 300),
            ("conflict/cms-a", 300),
            ("pending", 30),
            ("pending/cms-a", 30),
        ],
    );
    let none = |state: &str| json!({"state": state, "count": 0, "oldest_age_seconds": null, "destinations": []});
    assert_eq!(
        v,
        json!({"pauses": [], "states": [
            {"state": "uncertain", "count": 3, "oldest_age_seconds": 7200,
             "destinations": [
                {"destination": "cms-a", "count": 2, "oldest_age_seconds": 600},
                {"destination": "cms-b", "count": 1, "oldest_age_seconds": 7200}]},
            {"state": "conflict", "count": 1, "oldest_age_seconds": 300,
             "destinations": [{"destination": "cms-a", "count": 1, "oldest_age_seconds": 300}]},
            none("in_flight"),
            {"state": "pending", "count": 1, "oldest_age_seconds": 30,
             "destinations": [{"destination": "cms-a", "count": 1, "oldest_age_seconds": 30}]},
            none("safe_to_retry"),
            none("failed"),
            // Accepted is exact, from the counters (no destinations or age: not tracked).
            {"state": "accepted", "count": 2, "oldest_age_seconds": null,
             "destinations": []},
        ]})
    );
}

#[tokio::test]
async fn status_table_puts_the_actionable_states_first() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(Uncertain).aged(2 * 3600 + 30 * 60))
        .await;
    env.seed(
        Seed::new("u2")
            .state(Uncertain)
            .destination("cms-b")
            .aged(3600 + 10 * 60),
    )
    .await;
    env.seed(Seed::new("p1").aged(2 * 86_400 + 3 * 3600)).await;
    for i in 0..3 {
        env.seed(Seed::new(&format!("a{i}")).state(Accepted)).await;
    }
    let text = tidy(&env.run(&["status"]).expect(0).stdout());
    insta::assert_snapshot!(text, @"
    STATE          DESTINATION  JOBS  OLDEST
    uncertain      (all)           2  2h 30m
                   cms-a           1  2h 30m
                   cms-b           1  1h 10m
    conflict                       0
    in_flight                      0
    pending        cms-a           1  2d 3h
    safe_to_retry                  0
    failed                         0
    accepted       (all)           3

    oldest uncertain job, for 2h 30m at cms-a:
    reconctl remote lookup xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
    ");
}

/// Issue 23 item 16: `-W/--password` asks for the database password on a terminal when none
/// is found (psql's -W): nothing typed is echoed, and the command goes on with it; without a
/// terminal it is exit 2 saying so, and never waits.
#[tokio::test]
async fn item_16_password_is_asked_on_a_terminal_without_echo() {
    let env = TestEnv::new().await;
    let mut p = env.pty(&["-W", "status", "-o", "json"]);
    // The user, host and port of the suite's server (a disposable one under scripts/test).
    let target =
        reconctl::db::Target::resolve(Some(&env.url), &reconctl::db::SessionLimits::default())
            .unwrap();
    let (user, host) = {
        let s = target.settings();
        (s.user.clone(), s.hosts[0].label())
    };
    p.exp_string(&format!("Password for user {user} at {host}: "))
        .expect("the prompt");
    p.send_line("TopSecret-4711").unwrap();
    let rest = p.exp_eof().expect("the status");
    assert!(rest.contains("\"states\""), "{rest}");
    assert!(!rest.contains("TopSecret"), "the password echoed:\n{rest}");
    // Ctrl-C at the prompt: nothing done, the terminal given back.
    let mut p = env.pty(&["--password", "status"]);
    p.exp_string("Password for user").expect("the prompt");
    p.send_control('c').unwrap();
    let rest = p.exp_eof().unwrap();
    assert!(rest.contains("no password given: nothing done"), "{rest}");
    // Without a terminal: exit 2, at once, saying why; the password never printed.
    let run = env.run(&["-W", "status"]).expect(2);
    assert!(
        run.stderr().contains(
            "--password asks for the database password on a terminal, and there is none here"
        ),
        "{}",
        run.stderr()
    );
    // A password found (in the URL) is not asked for.
    let url = env.url.replacen("postgres@", "postgres:given@", 1);
    let out = env
        .cmd()
        .env("DATABASE_URL", &url)
        .args(["-W", "status", "-o", "json"])
        .output()
        .unwrap();
    let run = Run(out).expect(0);
    assert!(!run.stdout().contains("given") && !run.stderr().contains("given"));
}
