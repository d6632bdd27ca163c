//! `doctor`: the indexes it expects are exactly those the migrations create; connection,
//! migrations, indexes and destinations checked; pending migrations and an unreachable database.

use super::*;

/// `doctor` checks the indexes `reconctl::schema` names: that list must be every index the
/// migrations create (primary keys aside), unique exactly where the migrations make it so.
#[tokio::test]
async fn the_expected_indexes_are_exactly_those_the_migrations_create() {
    let env = TestEnv::new().await;
    let rows = env
        .client
        .query(
            "SELECT c.relname::text, i.indisunique FROM pg_index i
             JOIN pg_class c ON c.oid = i.indexrelid
             JOIN pg_class t ON t.oid = i.indrelid
             WHERE t.relname = ANY($1) AND NOT i.indisprimary
             ORDER BY 1",
            &[&reconctl::schema::TABLES],
        )
        .await
        .unwrap();
    let catalog: BTreeMap<String, bool> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let expected: BTreeMap<String, bool> = reconctl::schema::EXPECTED_INDEXES
        .iter()
        .map(|(n, u)| (n.to_string(), *u))
        .collect();
    assert_eq!(catalog, expected);
    // And the tables are the ones `reconctl::schema` names (with the migrations' history).
    let tables: std::collections::BTreeSet<String> = env
        .client
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'refinery_schema_history'
               AND NOT (SELECT c.relispartition FROM pg_class c WHERE c.oid = format('%I.%I', schemaname, tablename)::regclass)",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let named: std::collections::BTreeSet<String> = reconctl::schema::TABLES
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(tables, named);
}

fn doctor_checks(v: &Value) -> BTreeMap<String, bool> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_string(),
                c["ok"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn doctor_checks_connection_migrations_indexes_and_destinations() {
    let env = TestEnv::new().await;
    let cms = crate::cms::Cms::start().await;
    let config = env.write_config(&format!(
        "{}\n[destinations.cms-down]\nlookup_url = \"http://127.0.0.1:9/articles?ref={{ref}}\"\ntimeout = \"2s\"\ncanary_ref = \"{}\"\n",
        cms.config(""),
        crate::cms::CANARY
    ));
    let run = env
        .run(&["--config", &config, "doctor", "-o", "json"])
        .expect(1);
    let v = run.json();
    assert_eq!(v["ok"], false);
    let checks = doctor_checks(&v);
    let mut want: BTreeMap<String, bool> = [
        ("connection", true),
        ("migrations", true),
        ("counters", true),
        ("config", true),
        ("destination cms-a", true),
        ("destination cms-down", false),
    ]
    .into_iter()
    .map(|(k, ok)| (k.to_string(), ok))
    .collect();
    for (ix, _) in reconctl::schema::EXPECTED_INDEXES {
        want.insert(format!("index {ix}"), true);
    }
    assert_eq!(checks, want);
    let check = |name: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap()
            .clone()
    };
    let up = check("destination cms-a");
    assert!(
        up["detail"]
            .as_str()
            .unwrap()
            .starts_with("kind http, auth none: lookup works"),
        "{up}"
    );
    let down = check("destination cms-down");
    assert!(
        down["detail"]
            .as_str()
            .unwrap()
            .contains("controls failed: cms-down gave no usable answer"),
        "{down}"
    );
    // Two requests to the working destination: its two controls.
    assert_eq!(cms.asked().await.len(), 2);

    // Without the broken destination: healthy, exit 0.
    let config = env.write_config(&cms.config(""));
    let run = env.run(&["--config", &config, "doctor"]).expect(0);
    assert!(
        run.stdout().ends_with("all checks passed\n"),
        "{}",
        run.stdout()
    );

    // A dropped unique index is a failure.
    env.client
        .batch_execute("DROP INDEX ux_publication_jobs_external_ref")
        .await
        .unwrap();
    let v = env.run(&["doctor", "-o", "json"]).expect(1).json();
    let checks = doctor_checks(&v);
    assert!(!checks["index ux_publication_jobs_external_ref"]);
    assert_eq!(checks.values().filter(|ok| !**ok).count(), 1);
}

#[tokio::test]
async fn doctor_reports_pending_migrations_and_an_unreachable_database() {
    let env = TestEnv::empty().await;
    let v = env.run(&["doctor", "-o", "json"]).expect(1).json();
    let checks = doctor_checks(&v);
    assert!(checks["connection"]);
    assert!(!checks["migrations"]);
    assert!(!checks["index ux_publication_jobs_identity"]);

    let run = env
        .run(&[
            "--database-url",
            "postgresql://nobody@127.0.0.1:9/none",
            "doctor",
        ])
        .expect(1);
    assert!(run.stdout().contains("connection"), "{}", run.stdout());
    assert!(run.stdout().contains("FAIL"));
    assert!(
        !run.stdout().contains("migrations"),
        "no checks that need the database"
    );
    assert_eq!(run.stderr(), "");
}

/// Issue 23 item 14, the small ones pinned from the outside: the `-o json` usage error names
/// the missing JOB; `remote lookup` without arguments shows both forms; `doctor` without a
/// database says the destinations were not checked (not "set canary_ref"); `migrate
/// --dry-run` names its target; a dry sweep of one lease says "1 expired lease".
#[tokio::test]
async fn item_14_small_ones_each_pinned() {
    let env = TestEnv::new().await;
    let run = env.run(&["jobs", "show", "-o", "json"]).expect(2);
    let v = run.json();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("<JOB>"),
        "{v}"
    );
    let run = env.run(&["remote", "lookup"]).expect(2);
    assert!(
        run.stderr()
            .contains("reconctl remote lookup [OPTIONS] <JOB>")
            && run
                .stderr()
                .contains("reconctl remote lookup [OPTIONS] --destination <NAME> --ref <REF>"),
        "{}",
        run.stderr()
    );
    // The database unreachable: the destination without canary_ref is "not checked".
    let config = env.write_config(
        "[destinations.cms-a]\nlookup_url = \"http://127.0.0.1:9/?r={ref}\"\nremote_id = \"/id\"\n",
    );
    let out = env
        .cmd()
        .env("DATABASE_URL", "postgresql://postgres@127.0.0.1:1/nowhere")
        .args(["doctor", "--config", &config])
        .output()
        .unwrap();
    let run = Run(out).expect(1);
    assert!(
        run.stdout()
            .contains("not checked: the database is unreachable"),
        "{}",
        run.stdout()
    );
    assert!(!run.stdout().contains("set canary_ref"), "{}", run.stdout());
    // migrate --dry-run names where it would apply, as migrate does.
    let text = env.run(&["migrate", "--dry-run"]).expect(0).stdout();
    assert!(
        text.starts_with("schema is up to date at postgres@127.0.0.1:"),
        "{text}"
    );
    // One expired lease, singular.
    env.seed(
        Seed::new("gone")
            .state(InFlight)
            .lease("w", -600)
            .sent_ago(700),
    )
    .await;
    let text = env
        .run(&["sweep", "leases", "--dry-run"])
        .expect(0)
        .stdout();
    assert!(
        text.starts_with("dry run: would move 1 expired lease ("),
        "{text}"
    );
}
