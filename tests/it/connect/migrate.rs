//! migrate says where it works before it applies anything; waits a bounded time for another
//! migrate and names it; asks (or needs --yes) before creating its schema in a database that
//! already holds other tables; and a command meeting a database without the schema says so
//! instead of "relation does not exist".

use std::time::{Duration, Instant};

use crate::harness::*;

/// The migration lock's key (src/migrate.rs).
const MIGRATE_LOCK: i64 = 0x7265_636f_6e63_746c;

async fn has_schema(env: &TestEnv) -> bool {
    env.count("SELECT count(*) FROM pg_tables WHERE tablename = 'publication_jobs'")
        .await
        > 0
}

#[tokio::test]
async fn migrate_prints_its_target_before_applying() {
    let env = TestEnv::empty().await;
    let run = env.run(&["migrate"]).expect(0);
    let server: (String, i32) = {
        let r = env
            .client
            .query_one(
                "SELECT current_user::text, current_setting('port')::int",
                &[],
            )
            .await
            .unwrap();
        (r.get(0), r.get(1))
    };
    let err = run.stderr();
    assert!(
        err.contains("applying ") && err.contains(&format!("migration(s) to {}@", server.0)),
        "{err}"
    );
    assert!(err.contains(&format!("/{}\n", env.db_name)), "{err}");
    // The dry run reports the same target as data.
    let dry = env
        .run(&["migrate", "--dry-run", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(dry["target"]["database"], env.db_name.as_str());
    assert_eq!(dry["target"]["user"], server.0.as_str());
    assert_eq!(dry["target"]["port"], server.1);
    assert_eq!(dry["target"]["application_name"], "reconctl migrate");
}

#[tokio::test]
async fn migrate_waits_a_bounded_time_for_another_migrate_and_names_it() {
    let env = TestEnv::empty().await;
    let holder = env.connect().await;
    holder
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATE_LOCK])
        .await
        .unwrap();
    let pid: i32 = holder
        .query_one("SELECT pg_backend_pid()", &[])
        .await
        .unwrap()
        .get(0);
    let started = Instant::now();
    let run = env
        .run(&["--lock-timeout", "1s", "migrate", "-o", "json"])
        .expect(6);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let err = run.stderr();
    assert!(
        err.contains(&format!(
            "another migrate holds the migration lock: pid {pid}"
        )),
        "{err}"
    );
    assert!(err.contains("nothing was applied"), "{err}");
    assert_eq!(run.json()["error"]["code"], "migrate_locked");
    assert!(!has_schema(&env).await);
    // Once it is released, migrate goes ahead.
    holder
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATE_LOCK])
        .await
        .unwrap();
    env.run(&["migrate"]).expect(0);
    assert!(has_schema(&env).await);
}

#[tokio::test]
async fn migrate_asks_before_settling_in_a_database_of_others() {
    let env = TestEnv::empty().await;
    env.client
        .batch_execute("CREATE TABLE invoices (id int)")
        .await
        .unwrap();
    // No terminal: refused without --yes, nothing created.
    let run = env.run(&["migrate", "-o", "json"]).expect(2);
    assert_eq!(run.json()["error"]["code"], "confirmation_required");
    let err = run.stderr();
    assert!(
        err.contains(&format!("database \"{}\" at ", env.db_name)),
        "{err}"
    );
    assert!(
        err.contains("1 table(s) of its own and no reconctl schema"),
        "{err}"
    );
    assert!(err.contains("--yes"), "{err}");
    assert!(!has_schema(&env).await);
    // The dry run only looks.
    env.run(&["migrate", "--dry-run"]).expect(0);
    // On a terminal it asks, default no.
    let mut p = env.pty(&["migrate"]);
    p.exp_string("Create the reconctl schema in this database?")
        .unwrap();
    p.send_line("").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 2);
    assert!(!has_schema(&env).await);
    let mut p = env.pty(&["migrate"]);
    p.exp_string("Create the reconctl schema in this database?")
        .unwrap();
    p.send_line("y").unwrap();
    p.exp_eof().unwrap();
    assert_eq!(pty_exit(&p), 0);
    assert!(has_schema(&env).await);

    // --yes goes ahead without asking.
    let other = TestEnv::empty().await;
    other
        .client
        .batch_execute("CREATE TABLE invoices (id int)")
        .await
        .unwrap();
    other.run(&["migrate", "--yes"]).expect(0);
    assert!(has_schema(&other).await);
}

#[tokio::test]
async fn a_database_without_the_schema_is_named_as_possibly_the_wrong_one() {
    let env = TestEnv::empty().await;
    let run = env.run(&["status", "-o", "json"]).expect(1);
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with(&format!("database \"{}\" at ", env.db_name)),
        "{msg}"
    );
    assert!(
        msg.ends_with(
            "has no reconctl schema — check DATABASE_URL/PGDATABASE, or run `reconctl migrate` to create it there"
        ),
        "{msg}"
    );
    assert!(
        !run.stderr().contains("relation \"publication_jobs\""),
        "{}",
        run.stderr()
    );
}
