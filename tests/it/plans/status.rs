//! `status -v` says which recent moves came from plans: each plan applied, or being applied,
//! in the last hour, who applied it and how many of its items moved; nothing when no plan
//! was applied.

use reconctl::jobs::State;
use serde_json::{json, Value};

use super::flow::mark;
use crate::harness::*;
use crate::plan;

/// `status -v` at `columns` columns: its text, every line checked to fit.
fn status_v_at(env: &TestEnv, columns: usize) -> String {
    let out = env
        .cmd()
        .env("COLUMNS", columns.to_string())
        .args(["status", "-v"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(
            line.chars().count() <= columns,
            "wider than {columns}: {line:?}\n{text}"
        );
    }
    text
}

/// The lines of `text` that name plans, joined where a paragraph continues (indented).
fn plan_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("from plan ") {
            out.push(line.to_string());
            inside = true;
        } else if inside && line.starts_with("  ") {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(line.trim_start());
        } else {
            inside = false;
        }
    }
    out
}

/// A plan that gives up every pending job of `destination`.
fn retire(env: &TestEnv, destination: &str) -> (String, Value) {
    let reason = format!("{destination} retired");
    mark(
        env,
        &[
            "failed",
            "--state",
            "pending",
            "--destination",
            destination,
            "--reason",
            &reason,
        ],
    )
}

fn plans_json(env: &TestEnv) -> Vec<Value> {
    let v = env.run(&["status", "-v", "-o", "json"]).expect(0).json();
    v["plans"].as_array().expect("\"plans\" with -v").clone()
}

#[tokio::test]
async fn status_v_names_each_plan_applied_in_the_last_hour_with_its_count() {
    let env = TestEnv::new().await;
    for a in ["s1", "s2", "s3"] {
        env.seed(Seed::new(a).aged(7200)).await;
    }
    for a in ["t1", "t2"] {
        env.seed(Seed::new(a).aged(7200).destination("cms-b")).await;
    }
    let (first, _) = retire(&env, "cms-a");

    // Made, not applied: nothing is said about it.
    assert_eq!(plans_json(&env), Vec::<Value>::new());
    let text = status_v_at(&env, 80);
    assert!(!text.contains("plan"), "{text}");

    env.run(&["plan", "apply", &first, "--yes"]).expect(0);
    let plans = plans_json(&env);
    assert_eq!(plans.len(), 1, "{plans:?}");
    let p = &plans[0];
    let mut keys: Vec<&str> = p.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["actor", "at", "id", "move", "moved", "status"]);
    assert_eq!(p["id"], first.as_str());
    assert_eq!(p["move"], "failed");
    assert_eq!(p["actor"], "tester");
    assert_eq!(p["status"], "applied");
    assert_eq!(p["moved"], 3);
    assert!(p["at"].as_str().unwrap().ends_with('Z'), "{p}");
    // Its moves are among the counted ones.
    let v = env.run(&["status", "-v", "-o", "json"]).expect(0).json();
    assert!(
        v["moves"].as_array().unwrap().contains(
            &json!({"action": "mark_failed", "destination": "cms-a", "last_5m": 3, "last_1h": 3})
        ),
        "{v}"
    );

    // A second plan whose apply started and did not finish (its start recorded after a
    // finished run): `applying`, its moved items counted, newest first.
    let (second, _) = retire(&env, "cms-b");
    env.run(&["--actor", "bob", "plan", "apply", &second, "--yes"])
        .expect(0);
    env.client
        .execute(
            "INSERT INTO plan_events (plan_id, actor, action) VALUES ($1, 'carol', 'apply')",
            &[&second],
        )
        .await
        .unwrap();
    // A plan applied two hours ago is not recent.
    env.client
        .batch_execute(
            "INSERT INTO plans (id, actor, created_at, expires_at, move, reason, filter)
             VALUES ('p01d0000a', 'dave', now() - interval '3 hours', now() + interval '1 day',
                     'failed', 'old', '{}');
             INSERT INTO plan_events (plan_id, actor, action, at, evidence)
             VALUES ('p01d0000a', 'dave', 'apply', now() - interval '2 hours', '{}'),
                    ('p01d0000a', 'dave', 'applied', now() - interval '2 hours',
                     '{\"moved\": 1, \"summary\": {\"moved\": 1}}')",
        )
        .await
        .unwrap();

    let plans = plans_json(&env);
    let got: Vec<(&str, &str, &str, i64)> = plans
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap(),
                p["actor"].as_str().unwrap(),
                p["status"].as_str().unwrap(),
                p["moved"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (second.as_str(), "carol", "applying", 2),
            (first.as_str(), "tester", "applied", 3),
        ]
    );

    for columns in [80, 60] {
        let text = status_v_at(&env, columns);
        let lines = plan_lines(&text);
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].starts_with(&format!(
                "from plan {second}: 2 moved to failed so far; its apply by carol started "
            )),
            "{text}"
        );
        assert!(
            lines[0].ends_with(&format!(
                " and has not finished (`reconctl plan show {second}`)"
            )),
            "{text}"
        );
        assert!(
            lines[1].starts_with(&format!(
                "from plan {first}: 3 moved to failed, applied by tester "
            )),
            "{text}"
        );
        assert!(
            lines[1].ends_with(&format!("(`reconctl plan show {first}`)")),
            "{text}"
        );
        // Where to see each plan's items: a command on one line, never broken.
        for id in [&second, &first] {
            let command = format!("`reconctl plan show {id}`");
            assert!(text.lines().any(|l| l.contains(&command)), "{text}");
        }
        // Under the moves they explain.
        let moves = text.find("mark_failed").unwrap();
        assert!(text.find("from plan").unwrap() > moves, "{text}");
    }
}

#[tokio::test]
async fn without_v_or_without_a_plan_status_says_nothing_of_plans() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("u1").state(State::Uncertain).aged(600))
        .await;
    assert_eq!(plans_json(&env), Vec::<Value>::new());
    let text = status_v_at(&env, 80);
    assert!(!text.contains("plan"), "{text}");
    let v = env.run(&["status", "-o", "json"]).expect(0).json();
    assert!(v.get("plans").is_none(), "-v only: {v}");
}

#[tokio::test]
async fn the_recent_applies_read_the_last_hour_of_plan_records_not_every_plan() {
    let env = TestEnv::new().await;
    // Years of plans: 5 000 plans, each created, approved, applied long ago; one of them is
    // being applied again now.
    env.client
        .batch_execute(
            "INSERT INTO plans (id, actor, created_at, expires_at, move, reason, filter)
             SELECT 'p' || lpad(to_hex(g), 8, '0'), 'a', now() - g * interval '1 hour',
                    now() - g * interval '1 hour' + interval '1 day', 'failed', 'old', '{}'
             FROM generate_series(1, 5000) g;
             INSERT INTO plan_events (plan_id, at, actor, action, evidence)
             SELECT 'p' || lpad(to_hex(g), 8, '0'), now() - g * interval '1 hour', 'a', a,
                    '{\"moved\": 0, \"summary\": {\"moved\": 0}}'
             FROM generate_series(1, 5000) g, unnest(ARRAY['created', 'approved', 'apply', 'applied']) a;
             -- a thousand items each for twenty of them, five for the one being applied now
             INSERT INTO plan_items (plan_id, seq, job_id, external_ref, destination, from_state,
                                     version, to_state, action, status, settled_at)
             SELECT 'p' || lpad(to_hex(p), 8, '0'), s, gen_random_uuid(), 'r' || p || '-' || s,
                    'cms-a', 'pending', 1, 'failed', 'mark_failed', 'moved', now()
             FROM generate_series(3, 22) p, generate_series(1, 1000) s
             UNION ALL
             SELECT 'p00000001', s, gen_random_uuid(), 'r1-' || s, 'cms-a', 'pending', 1,
                    'failed', 'mark_failed', 'moved', now()
             FROM generate_series(1, 5) s;
             INSERT INTO plan_events (plan_id, actor, action) VALUES ('p00000001', 'b', 'apply');
             ANALYZE plans; ANALYZE plan_events; ANALYZE plan_items;",
        )
        .await
        .unwrap();
    let within = 3600.0f64;
    let doc = plan::explain(
        &env.client,
        reconctl::jobs::plans::RECENT_APPLIES_SQL,
        &[&within],
        true,
    )
    .await;
    let nodes = plan::nodes(&doc);
    // One plan, its five moved items counted.
    let rows = env
        .client
        .query(reconctl::jobs::plans::RECENT_APPLIES_SQL, &[&within])
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].get::<_, String>(0), "p00000001");
    assert_eq!(rows[0].get::<_, i64>(5), 5);
    assert!(
        nodes.iter().any(|n| n.index == "ix_plan_events_at"),
        "{nodes:?}"
    );
    assert!(
        nodes.iter().all(|n| n.kind != "Seq Scan" && n.read < 100.0),
        "{nodes:?}"
    );
}
