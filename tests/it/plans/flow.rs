//! `plan mark`, `plan show`, `plan approve`, `plan discard`, `plan apply`: the selection,
//! nothing moving at plan time, each item moved once with one event naming the plan, jobs
//! changed since the plan skipped, lookups again at apply, expiry, discard, four eyes,
//! consent.

use reconctl::jobs::State;
use serde_json::{json, Value};

use crate::cms::{found, Cms};
use crate::harness::*;

/// `plan mark … -o json`: the plan id and the document.
pub fn mark(env: &TestEnv, args: &[&str]) -> (String, Value) {
    let mut all = vec!["plan", "mark"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", "json"]);
    let doc = env.run(&all).expect(0).json();
    (doc["plan"]["id"].as_str().unwrap().to_string(), doc)
}

/// Every job event that names `plan` in its evidence.
pub async fn plan_events(env: &TestEnv, plan: &str) -> i64 {
    env.client
        .query_one(
            "SELECT count(*) FROM job_events WHERE evidence->>'plan' = $1",
            &[&plan],
        )
        .await
        .unwrap()
        .get(0)
}

async fn total_events(env: &TestEnv) -> i64 {
    env.count("SELECT count(*) FROM job_events").await
}

#[tokio::test]
async fn filters_select_exactly_the_jobs_and_nothing_moves_until_apply() {
    let env = TestEnv::new().await;
    let p1 = env.seed(Seed::new("a1").aged(7200)).await;
    let p2 = env.seed(Seed::new("a2").aged(7200)).await;
    // Not selected: too young, another destination, another tenant, a state the move cannot
    // leave, a state the filter leaves out.
    let young = env.seed(Seed::new("a3").aged(60)).await;
    let other_dest = env
        .seed(Seed::new("a4").aged(7200).destination("cms-b"))
        .await;
    let mut t2 = Seed::new("a5").aged(7200);
    t2.tenant = "t2".into();
    let other_tenant = env.seed(t2).await;
    let accepted = env
        .seed(Seed::new("a6").state(State::Accepted).aged(7200))
        .await;
    let uncertain = env
        .seed(
            Seed::new("a7")
                .state(State::Uncertain)
                .sent_ago(9000)
                .aged(7200),
        )
        .await;
    let events_before = total_events(&env).await;

    let (id, doc) = mark(
        &env,
        &[
            "failed",
            "--state",
            "pending",
            "--destination",
            "cms-a",
            "--tenant",
            "t1",
            "--older-than",
            "1h",
            "--reason",
            "destination retired",
        ],
    );
    assert!(id.starts_with('p') && id.len() == 9, "{id}");
    let plan = &doc["plan"];
    assert_eq!(plan["actor"], "tester");
    assert_eq!(plan["move"], "failed");
    assert_eq!(plan["reason"], "destination retired");
    assert_eq!(plan["status"], "ready");
    assert_eq!(plan["approvals"], json!([]));
    assert_eq!(plan["filter"]["state"], json!(["pending"]));
    assert_eq!(plan["filter"]["destination"], "cms-a");
    let keys: Vec<&str> = plan
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    let mut expected = vec![
        "id",
        "actor",
        "created_at",
        "expires_at",
        "move",
        "reason",
        "filter",
        "approvals",
        "status",
    ];
    expected.sort();
    let mut keys = keys;
    keys.sort();
    assert_eq!(keys, expected);
    // The default expiry: 24 hours.
    let created =
        chrono::DateTime::parse_from_rfc3339(plan["created_at"].as_str().unwrap()).unwrap();
    let expires =
        chrono::DateTime::parse_from_rfc3339(plan["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!((expires - created).num_seconds(), 24 * 3600);

    let items = doc["items"].as_array().unwrap();
    let ids: Vec<&str> = items
        .iter()
        .map(|i| i["job_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![p1.id.to_string(), p2.id.to_string()]);
    assert_eq!(
        items[0],
        json!({
            "job_id": p1.id, "external_ref": p1.external_ref, "destination": "cms-a",
            "from_state": "pending", "version": 1, "to_state": "failed",
            "status": "planned", "reason": null
        })
    );
    assert_eq!(
        doc["summary"],
        json!({"planned": 2, "moved": 0, "skipped": 0, "refused": 0})
    );
    // Nothing moved at plan time.
    for j in [
        &p1,
        &p2,
        &young,
        &other_dest,
        &other_tenant,
        &accepted,
        &uncertain,
    ] {
        assert_eq!(&env.job(j.id).await, j);
    }
    assert_eq!(total_events(&env).await, events_before);

    // show gives the same document.
    let shown = env
        .run(&["plan", "show", &id, "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(shown, doc);

    // Apply: each item once, one event naming the plan.
    let out = env
        .run(&["plan", "apply", &id, "--yes", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(
        out["summary"],
        json!({"planned": 0, "moved": 2, "skipped": 0, "refused": 0})
    );
    assert_eq!(out["plan"]["status"], "applied");
    for j in [&p1, &p2] {
        let now = env.job(j.id).await;
        assert_eq!(now.state, State::Failed);
        assert_eq!(now.version, 2);
        assert_eq!(now.last_error.as_deref(), Some("destination retired"));
        let ev = &env.events(j.id).await[1];
        assert_eq!(ev.action, "mark_failed");
        assert_eq!(ev.actor, "tester");
        assert_eq!(ev.reason.as_deref(), Some("destination retired"));
        assert_eq!(ev.evidence, json!({"plan": id, "lookup": "not_needed"}));
    }
    assert_eq!(total_events(&env).await, events_before + 2);
    assert_eq!(plan_events(&env, &id).await, 2);
    // jobs show says where the last move came from.
    let shown = env.run(&["jobs", "show", &p1.id.to_string()]).expect(0);
    assert!(
        shown
            .stdout()
            .replace("\n  ", " ")
            .contains(&format!("its last move came from plan {id}")),
        "{}",
        shown.stdout()
    );
    for j in [&young, &other_dest, &other_tenant, &accepted, &uncertain] {
        assert_eq!(&env.job(j.id).await, j);
    }
    // Again: nothing more moves, exit 0.
    env.run(&["plan", "apply", &id, "--yes"]).expect(0);
    assert_eq!(total_events(&env).await, events_before + 2);

    // events --plan: the lifecycle and the moves, oldest first.
    let ev = env
        .run(&["events", "--plan", &id, "-o", "json"])
        .expect(0)
        .json();
    let list = ev["events"].as_array().unwrap();
    let actions: Vec<&str> = list.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(
        actions,
        vec!["created", "apply", "mark_failed", "mark_failed", "applied"]
    );
    assert_eq!(list[0]["plan_id"], id.as_str());
    assert_eq!(list[0]["reason"], "destination retired");
    let moved = &list[2];
    assert_eq!(moved["job_id"], p1.id.to_string());
    assert_eq!(moved["destination"], "cms-a");
    assert_eq!(moved["external_ref"], p1.external_ref.as_str());
    assert_eq!(moved["evidence"]["plan"], id.as_str());
    assert_eq!(list[4]["evidence"]["moved"], 2);
    assert_eq!(ev["next_cursor"], Value::Null);
    // --plan takes no other filter.
    env.run(&["events", "--plan", &id, "--actor", "x"])
        .expect(2);
    env.assert_invariants().await;
}

#[tokio::test]
async fn a_job_changed_between_plan_and_apply_is_skipped_and_never_moved() {
    let mut env = TestEnv::new().await;
    // b is moved below by a bare UPDATE (a stand-in for a worker), without its event.
    env.skip_invariants = true;
    let a = env.seed(Seed::new("a1")).await;
    let b = env.seed(Seed::new("a2")).await;
    let c = env.seed(Seed::new("a3")).await;
    let (id, _) = mark(
        &env,
        &[
            "failed",
            "--job",
            &a.id.to_string(),
            "--job",
            &b.external_ref,
            "--job",
            &c.id.to_string(),
            "--reason",
            "withdrawn",
        ],
    );
    // b is claimed by a worker meanwhile; c is given up by someone else.
    env.client
        .execute(
            "UPDATE publication_jobs SET state = 'in_flight', version = version + 1, lease_owner = 'w', lease_expires_at = now() + interval '5 min' WHERE id = $1",
            &[&b.id],
        )
        .await
        .unwrap();
    env.run(&[
        "mark",
        "failed",
        &c.id.to_string(),
        "--reason",
        "by hand",
        "--yes",
    ])
    .expect(0);
    let out = env
        .run(&["plan", "apply", &id, "--yes", "-o", "json"])
        .expect(5)
        .json();
    assert_eq!(
        out["summary"],
        json!({"planned": 0, "moved": 1, "skipped": 2, "refused": 0})
    );
    let items = out["items"].as_array().unwrap();
    assert_eq!(items[0]["status"], "moved");
    assert_eq!(items[1]["status"], "skipped");
    assert_eq!(
        items[1]["reason"],
        "changed since the plan: now in_flight at version 2 (the plan saw pending at version 1)"
    );
    assert_eq!(items[2]["status"], "skipped");
    assert_eq!(
        items[2]["reason"],
        "already failed (changed since the plan: now at version 2)"
    );
    let now_b = env.job(b.id).await;
    assert_eq!(now_b.state, State::InFlight);
    assert_eq!(now_b.version, 2);
    assert_eq!(plan_events(&env, &id).await, 1);
}

#[tokio::test]
async fn lookups_at_plan_time_and_again_at_apply() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let unc = |a: &str| Seed::new(a).state(State::Uncertain).sent_ago(600);
    let absent = env.seed(unc("a1")).await;
    let present = env.seed(unc("a2")).await;
    let appears = env.seed(unc("a3")).await;
    let failed = env
        .seed(Seed::new("a4").state(State::Failed).sent_ago(900).aged(600))
        .await;
    cms.answer(&present.external_ref, found("cms-2", &present.payload_hash))
        .await;
    let (id, doc) = mark(
        &env,
        &[
            "--config",
            &cfg,
            "safe-to-retry",
            "--destination",
            "cms-a",
            "--reason",
            "CMS lost them",
        ],
    );
    let items = doc["items"].as_array().unwrap();
    let by_job = |j: &reconctl::jobs::Job| {
        items
            .iter()
            .find(|i| i["job_id"] == j.id.to_string())
            .unwrap()
            .clone()
    };
    assert_eq!(by_job(&absent)["status"], "planned");
    assert_eq!(by_job(&failed)["status"], "planned");
    assert_eq!(by_job(&failed)["from_state"], "failed");
    assert_eq!(by_job(&appears)["status"], "planned");
    let refused = by_job(&present);
    assert_eq!(refused["status"], "refused");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("would publish it twice"),
        "{refused}"
    );
    // The CMS takes a3 between plan and apply.
    cms.answer(&appears.external_ref, found("cms-3", &appears.payload_hash))
        .await;
    let out = env
        .run(&[
            "--config", &cfg, "plan", "apply", &id, "--yes", "-o", "json",
        ])
        .expect(5)
        .json();
    assert_eq!(
        out["summary"],
        json!({"planned": 0, "moved": 2, "skipped": 0, "refused": 2})
    );
    assert_eq!(env.job(absent.id).await.state, State::SafeToRetry);
    assert_eq!(env.job(failed.id).await.state, State::SafeToRetry);
    assert_eq!(&env.job(appears.id).await, &appears);
    assert_eq!(&env.job(present.id).await, &present);
    let ev = &env.events(failed.id).await[1];
    assert_eq!(ev.action, "redrive");
    assert_eq!(ev.evidence["plan"], id.as_str());
    assert_eq!(ev.evidence["lookup"]["verdict"], "safe_to_retry");
    assert_eq!(ev.evidence["looked_up_at_apply"], true);
    assert_eq!(env.events(absent.id).await[1].action, "mark_safe_to_retry");
    let items = out["items"].as_array().unwrap();
    let a3 = items
        .iter()
        .find(|i| i["job_id"] == appears.id.to_string())
        .unwrap();
    assert_eq!(a3["status"], "refused");
    assert!(a3["reason"].as_str().unwrap().contains("cms-3"), "{a3}");
    // Asked twice for each planned job (plan, apply), once for the refused one.
    assert_eq!(cms.asked_for(&absent.external_ref).await, 2);
    assert_eq!(cms.asked_for(&present.external_ref).await, 1);
    assert_eq!(plan_events(&env, &id).await, 2);
}

#[tokio::test]
async fn expired_discarded_and_unapproved_plans_refuse_and_nothing_moves() {
    let env = TestEnv::new().await;
    let jobs = [
        env.seed(Seed::new("a1")).await,
        env.seed(Seed::new("a2")).await,
        env.seed(Seed::new("a3")).await,
    ];
    let events = total_events(&env).await;
    // Expired.
    let (expired, _) = mark(
        &env,
        &[
            "failed",
            "--job",
            &jobs[0].id.to_string(),
            "--expires",
            "1s",
            "--reason",
            "x",
        ],
    );
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let out = env
        .run(&["plan", "apply", &expired, "--yes", "-o", "json"])
        .expect(2);
    assert!(
        out.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{}",
        out.stdout()
    );
    // Discarded.
    let (discarded, _) = mark(
        &env,
        &["failed", "--job", &jobs[1].id.to_string(), "--reason", "x"],
    );
    env.run(&["plan", "discard", &discarded, "--reason", "wrong filter"])
        .expect(0);
    let out = env.run(&["plan", "apply", &discarded, "--yes"]).expect(2);
    assert!(
        out.stderr().contains("discarded by tester (wrong filter)"),
        "{}",
        out.stderr()
    );
    let shown = env
        .run(&["plan", "show", &discarded, "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(shown["plan"]["status"], "discarded");
    // Four eyes: two approvals needed; the creator's does not count.
    let cfg = env.write_config("[plans]\napprovals = 2\n");
    let (four, _) = mark(
        &env,
        &[
            "--config",
            &cfg,
            "failed",
            "--job",
            &jobs[2].id.to_string(),
            "--reason",
            "x",
        ],
    );
    let out = env
        .run(&["--config", &cfg, "plan", "apply", &four, "--yes"])
        .expect(2);
    assert!(
        out.stderr().contains("has 0 of the 2 approvals"),
        "{}",
        out.stderr()
    );
    let out = env
        .run(&[
            "--config", &cfg, "plan", "approve", &four, "--reason", "mine",
        ])
        .expect(2);
    assert!(
        out.stderr().contains("creator's approval does not count"),
        "{}",
        out.stderr()
    );
    env.run(&[
        "--config",
        &cfg,
        "--actor",
        "bob",
        "plan",
        "approve",
        &four,
        "--reason",
        "looked at it",
    ])
    .expect(0);
    // The same reviewer twice counts once.
    env.run(&[
        "--config", &cfg, "--actor", "bob", "plan", "approve", &four, "--reason", "again",
    ])
    .expect(0);
    let out = env
        .run(&["--config", &cfg, "plan", "apply", &four, "--yes"])
        .expect(2);
    assert!(
        out.stderr().contains("has 1 of the 2 approvals"),
        "{}",
        out.stderr()
    );
    for j in &jobs {
        assert_eq!(&env.job(j.id).await, j);
    }
    assert_eq!(total_events(&env).await, events);
    let doc = env
        .run(&[
            "--config", &cfg, "--actor", "carol", "plan", "approve", &four, "--reason", "ok", "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(doc["plan"]["status"], "ready");
    let approvals: Vec<&str> = doc["plan"]["approvals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["actor"].as_str().unwrap())
        .collect();
    assert_eq!(approvals, vec!["bob", "carol"]);
    env.run(&["--config", &cfg, "plan", "apply", &four, "--yes"])
        .expect(0);
    assert_eq!(env.job(jobs[2].id).await.state, State::Failed);
    // The lifecycle is recorded.
    let actions: Vec<String> = env
        .client
        .query(
            "SELECT action || ':' || actor FROM plan_events WHERE plan_id = $1 ORDER BY id",
            &[&four],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        actions,
        vec![
            "created:tester",
            "approved:bob",
            "approved:carol",
            "apply:tester",
            "applied:tester"
        ]
    );
}

#[tokio::test]
async fn without_a_terminal_apply_needs_yes() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("a1")).await;
    let (id, _) = mark(
        &env,
        &["failed", "--job", &job.id.to_string(), "--reason", "x"],
    );
    let out = env.run(&["plan", "apply", &id, "-o", "json"]).expect(2);
    assert_eq!(out.json()["error"]["code"], "confirmation_required");
    assert_eq!(&env.job(job.id).await, &job);
    let n: i64 = env
        .count("SELECT count(*) FROM plan_events WHERE action = 'apply'")
        .await;
    assert_eq!(n, 0);
}

#[tokio::test]
async fn plan_input_mistakes_are_usage_errors() {
    let env = TestEnv::new().await;
    let job = env.seed(Seed::new("a1")).await;
    // No filter at all.
    env.run(&["plan", "mark", "failed", "--reason", "x"])
        .expect(2);
    // A state the move cannot leave.
    let out = env
        .run(&[
            "plan", "mark", "failed", "--state", "accepted", "--reason", "x",
        ])
        .expect(2);
    assert!(
        out.stderr().contains("cannot leave accepted"),
        "{}",
        out.stderr()
    );
    // accepted without lookups has no remote id to record.
    env.run(&[
        "plan",
        "mark",
        "accepted",
        "--state",
        "uncertain",
        "--no-lookup",
        "--reason",
        "x",
    ])
    .expect(2);
    // An unknown destination is a typo, not an empty plan.
    env.run(&[
        "plan",
        "mark",
        "failed",
        "--destination",
        "cms-x",
        "--reason",
        "x",
    ])
    .expect(2);
    // An empty reason.
    env.run(&[
        "plan",
        "mark",
        "failed",
        "--job",
        &job.id.to_string(),
        "--reason",
        " ",
    ])
    .expect(2);
    // A plan that does not exist; an id that is not one.
    env.run(&["plan", "show", "p00000000"]).expect(4);
    env.run(&["plan", "apply", "nonsense", "--yes"]).expect(2);
    assert_eq!(env.count("SELECT count(*) FROM plans").await, 0);
}

/// The consent screen of `plan apply` in a real terminal of 80 columns: the plan, its counts,
/// a sample, then the question (default no). "n" moves nothing (exit 2); "y" applies.
#[tokio::test]
async fn apply_asks_on_a_terminal_of_80_columns() {
    let env = TestEnv::new().await;
    let a = env.seed(Seed::new("a1")).await;
    let b = env.seed(Seed::new("a2")).await;
    let (id, _) = mark(
        &env,
        &["failed", "--job", &a.id.to_string(), "--job", &b.id.to_string(), "--reason", "withdrawn by the editors after the legal review of 1 December; see ticket ED-4711 for the list"],
    );
    let bin = assert_cmd::cargo::cargo_bin("reconctl");
    let script = format!(
        "stty cols 80 rows 50 && '{}' plan apply {id}; echo \"exit=$?\"",
        bin.display()
    );
    let mut p = env.shell_in_pty(&script, 30_000);
    let shown = p
        .exp_string(&format!("Apply plan {id}: move 2 jobs to failed?"))
        .expect("the question");
    for line in [
        format!("plan {id}  ready"),
        "reason: withdrawn by the editors after the legal review".to_string(),
        "ED-4711".to_string(),
        "approvals: 0 of 0 needed".to_string(),
        "items: 2 planned, 0 moved, 0 skipped, 0 refused".to_string(),
        "mark_failed".to_string(),
        "Each job moves only if it is still at the version shown".to_string(),
    ] {
        assert!(
            shown.contains(&pty_text(&line)),
            "missing {line:?} in:\n{shown}"
        );
    }
    for l in shown.lines() {
        assert!(
            l.trim_end_matches('\r').chars().count() <= 80,
            "wider than 80: {l:?}"
        );
    }
    p.send_line("n").unwrap();
    let (_, exit) = p.exp_regex("exit=[0-9]+").unwrap();
    assert_eq!(exit, "exit=2");
    assert_eq!(&env.job(a.id).await, &a);
    assert_eq!(&env.job(b.id).await, &b);

    let mut p = env.shell_in_pty(&script, 30_000);
    p.exp_string(&format!("Apply plan {id}: move 2 jobs to failed?"))
        .unwrap();
    p.send_line("y").unwrap();
    let (before, exit) = p.exp_regex("exit=[0-9]+").unwrap();
    assert_eq!(exit, "exit=0", "{before}");
    assert!(
        before.contains(&pty_text(&format!(
            "applied plan {id}: 2 moved by this run"
        ))),
        "{before}"
    );
    assert_eq!(env.job(a.id).await.state, State::Failed);
    assert_eq!(env.job(b.id).await.state, State::Failed);
}

/// `reconcile --save-plan`: the justified moves become plans (one per target state), nothing
/// moves; applying them moves each job once with reconcile's action and the plan named.
#[tokio::test]
async fn reconcile_save_plan_records_the_justified_moves_as_plans() {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    let unc = |a: &str| Seed::new(a).state(State::Uncertain).sent_ago(600);
    let absent = env.seed(unc("a1")).await;
    let present = env.seed(unc("a2")).await;
    let recent = env
        .seed(Seed::new("a3").state(State::Uncertain).sent_ago(5))
        .await;
    cms.answer(&present.external_ref, found("cms-2", &present.payload_hash))
        .await;
    let events = total_events(&env).await;
    let out = env
        .run(&[
            "--config",
            &cfg,
            "reconcile",
            "--save-plan",
            "--reason",
            "after the outage",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    let plans = out["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 2, "{out}");
    assert_eq!(plans[0]["plan"]["move"], "accepted");
    assert_eq!(plans[0]["items"][0]["job_id"], present.id.to_string());
    assert_eq!(plans[1]["plan"]["move"], "safe_to_retry");
    assert_eq!(plans[1]["items"][0]["job_id"], absent.id.to_string());
    assert_eq!(plans[1]["plan"]["reason"], "after the outage");
    // Nothing moved; the job whose send has not settled is in no plan.
    assert_eq!(total_events(&env).await, events);
    for j in [&absent, &present, &recent] {
        assert_eq!(&env.job(j.id).await, j);
    }
    // --save-plan does not go with --apply.
    env.run(&[
        "--config",
        &cfg,
        "reconcile",
        "--save-plan",
        "--apply",
        "--yes",
    ])
    .expect(2);
    for p in plans {
        let id = p["plan"]["id"].as_str().unwrap();
        env.run(&["--config", &cfg, "plan", "apply", id, "--yes"])
            .expect(0);
        assert_eq!(plan_events(&env, id).await, 1);
    }
    let now = env.job(present.id).await;
    assert_eq!(now.state, State::Accepted);
    assert_eq!(now.remote_id.as_deref(), Some("cms-2"));
    assert_eq!(env.events(present.id).await[1].action, "reconcile_accepted");
    assert_eq!(env.job(absent.id).await.state, State::SafeToRetry);
    assert_eq!(
        env.events(absent.id).await[1].action,
        "reconcile_safe_to_retry"
    );
    assert_eq!(&env.job(recent.id).await, &recent);
}
