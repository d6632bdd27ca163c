//! Least privilege (migrations/V2__roles.sql): the real commands run as a login user in each
//! role, showing what each may and may not do.

use reconctl::jobs::{payload_hash, worker, BusinessKey, State};
use tokio_postgres::error::SqlState;

use crate::harness::*;

/// A login user in one of the reconctl roles, dropped when the test ends (pass or fail).
pub struct LoginUser {
    pub name: String,
}

impl LoginUser {
    pub async fn new(role: &str) -> LoginUser {
        let name = format!(
            "rt_{}_{}",
            role.trim_start_matches("reconctl_"),
            &uuid::Uuid::new_v4().simple().to_string()[..10]
        );
        let admin = connect_url(&admin_url()).await;
        let in_role = if role.is_empty() {
            String::new()
        } else {
            format!(" IN ROLE {role}")
        };
        admin
            .batch_execute(&format!("CREATE ROLE {name} LOGIN{in_role}"))
            .await
            .expect("create a login user");
        LoginUser { name }
    }

    /// `url` with this user instead of the admin.
    pub fn url(&self, url: &str) -> String {
        let mut u = url::Url::parse(url).expect("test URL");
        u.set_username(&self.name).unwrap();
        u.set_password(None).unwrap();
        u.to_string()
    }
}

impl Drop for LoginUser {
    fn drop(&mut self) {
        let name = self.name.clone();
        let _ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(async move {
                    let admin = connect_url(&admin_url()).await;
                    let _ = admin
                        .batch_execute(&format!("DROP ROLE IF EXISTS {name}"))
                        .await;
                })
        })
        .join();
    }
}

fn as_user(env: &TestEnv, user: &LoginUser, args: &[&str]) -> Run {
    Run(env
        .cmd()
        .env("DATABASE_URL", user.url(&env.url))
        .args(args)
        .write_stdin("")
        .output()
        .unwrap())
}

/// The SQLSTATE of a statement run as `user` (None: it succeeded).
async fn sql_as(env: &TestEnv, user: &LoginUser, sql: &str) -> Option<SqlState> {
    let c = connect_url(&user.url(&env.url)).await;
    match c.batch_execute(sql).await {
        Ok(()) => None,
        Err(e) => Some(e.code().cloned().expect("a database error")),
    }
}

fn assert_permission_refusal(run: &Run, what: &str) {
    assert_eq!(
        run.code(),
        1,
        "{what}\nstdout: {}\nstderr: {}",
        run.stdout(),
        run.stderr()
    );
    let err = run.stderr();
    assert!(err.contains("permission denied"), "{what}: {err}");
    assert!(
        err.contains("hint:") && err.contains("reconctl_operator") && err.contains("Roles"),
        "{what}: no hint: {err}"
    );
}

#[tokio::test]
async fn the_reader_inspects_and_changes_nothing() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    // A lease that expired ten minutes ago: a past minute the readers' fold would fold.
    env.seed(Seed::new("a2").state(State::InFlight).lease("w1", -600))
        .await;
    let reader = LoginUser::new("reconctl_reader").await;
    let id = job.id.to_string();

    for args in [
        vec!["status"],
        vec!["jobs", "list"],
        vec!["jobs", "uncertain"],
        vec!["jobs", "stuck", "--older-than", "1m"],
        vec!["jobs", "show", &id],
        vec!["metrics"],
        vec!["migrate", "status"],
        vec!["events"],
        vec!["events", "--job", &id, "--since", "1d"],
        vec!["events", "--destination", "cms-a", "--action", "claim"],
    ] {
        as_user(&env, &reader, &args).expect(0);
    }
    // The reader's status folded the past minute's counters first (V15: a fold changes no
    // count, and every reconctl role may run it), and check (exit 5: an uncertain job)
    // counts the same.
    assert_eq!(
        env.count("SELECT count(*) FROM job_counters WHERE state = 'in_flight' AND slot >= 0")
            .await,
        0,
        "the reader's status did not fold the past minute"
    );
    as_user(&env, &reader, &["check"]).expect(5);
    let listed = as_user(&env, &reader, &["jobs", "list", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(listed["jobs"].as_array().unwrap().len(), 2);
    let trail = as_user(
        &env,
        &reader,
        &["events", "--destination", "cms-a", "-o", "json"],
    )
    .expect(0)
    .json();
    assert_eq!(trail["events"].as_array().unwrap().len(), 2);

    let run = as_user(
        &env,
        &reader,
        &[
            "mark",
            "failed",
            &id,
            "--reason",
            "gave up",
            "--no-lookup",
            "--yes",
        ],
    );
    assert_permission_refusal(&run, "reader: mark failed");
    let json = as_user(
        &env,
        &reader,
        &[
            "mark",
            "failed",
            &id,
            "--reason",
            "gave up",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ],
    )
    .expect(1)
    .json();
    assert_eq!(json["error"]["code"], "permission", "{json}");

    let run = as_user(&env, &reader, &["sweep", "leases"]);
    assert_permission_refusal(&run, "reader: sweep leases");
    let run = as_user(
        &env,
        &reader,
        &[
            "jobs",
            "reserve",
            "--tenant",
            "t1",
            "--article",
            "a9",
            "--revision",
            "1",
            "--destination",
            "cms-a",
            "--payload-hash",
            &payload_hash(b"x"),
        ],
    );
    assert_permission_refusal(&run, "reader: jobs reserve");

    for sql in [
        "UPDATE publication_jobs SET state = state",
        "DELETE FROM publication_jobs",
        "INSERT INTO job_events (job_id, actor, action, to_state, to_version) SELECT id, 'x', 'x', state, version FROM publication_jobs",
        "TRUNCATE publication_jobs",
        "SELECT * FROM publication_jobs FOR UPDATE",
    ] {
        assert_eq!(
            sql_as(&env, &reader, sql).await,
            Some(SqlState::INSUFFICIENT_PRIVILEGE),
            "reader: {sql}"
        );
    }
    // Nothing moved: the same version and one event per job.
    assert_eq!(env.job(job.id).await.version, job.version);
    assert_eq!(env.count("SELECT count(*) FROM job_events").await, 2);
}

#[tokio::test]
async fn the_operator_settles_and_sweeps_but_cannot_delete_truncate_or_alter() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let stale = env
        .seed(Seed::new("a2").state(State::InFlight).lease("w1", -60))
        .await;
    let operator = LoginUser::new("reconctl_operator").await;

    let out = as_user(
        &env,
        &operator,
        &[
            "mark",
            "failed",
            &job.id.to_string(),
            "--reason",
            "withdrawn",
            "--no-lookup",
            "--yes",
            "-o",
            "json",
        ],
    )
    .expect(0)
    .json();
    assert_eq!(out["job"]["state"], "failed");
    let swept = as_user(&env, &operator, &["sweep", "leases", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(swept["to_pending"], 1);
    assert_eq!(env.job(stale.id).await.state, State::Pending);

    // Creating jobs is the workers' right, not the operator's.
    let run = as_user(
        &env,
        &operator,
        &[
            "jobs",
            "reserve",
            "--tenant",
            "t1",
            "--article",
            "a9",
            "--revision",
            "1",
            "--destination",
            "cms-a",
            "--payload-hash",
            &payload_hash(b"x"),
        ],
    );
    assert_permission_refusal(&run, "operator: jobs reserve");

    for sql in [
        "DELETE FROM publication_jobs",
        "DELETE FROM job_events",
        "TRUNCATE publication_jobs",
        "TRUNCATE job_events",
        "UPDATE job_events SET reason = 'rewritten'",
        "UPDATE publication_jobs SET payload_hash = repeat('0', 64)",
        "UPDATE publication_jobs SET external_ref = 'pub_' || repeat('0', 64)",
        "UPDATE publication_jobs SET tenant_id = 'other'",
        "ALTER TABLE publication_jobs DROP CONSTRAINT publication_jobs_lease_check",
        "ALTER TABLE job_events DISABLE TRIGGER job_events_no_update_delete",
        "DROP TABLE job_events",
        "CREATE TABLE shadow (id int)",
        "CREATE INDEX ix_shadow ON publication_jobs (remote_id)",
        "INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination, external_ref, payload_hash) VALUES ('t','a','r','d','pub_' || repeat('0', 64), repeat('0', 64))",
    ] {
        assert_eq!(
            sql_as(&env, &operator, sql).await,
            Some(SqlState::INSUFFICIENT_PRIVILEGE),
            "operator: {sql}"
        );
    }
    assert_eq!(env.count("SELECT count(*) FROM publication_jobs").await, 2);
}

#[tokio::test]
async fn the_worker_reserves_claims_and_completes_but_cannot_delete() {
    let env = TestEnv::new().await;
    let w = LoginUser::new("reconctl_worker").await;
    let c = connect_url(&w.url(&env.url)).await;
    let key = BusinessKey::new("t1", "a1", "1", "cms-a");
    let reserved = worker::reserve(&c, &key, &payload_hash(b"p"), "w1")
        .await
        .unwrap();
    let claimed = worker::claim(&c, "w1", std::time::Duration::from_secs(60), None)
        .await
        .unwrap()
        .expect("the reserved job");
    assert_eq!(claimed.id, reserved.job().id);
    let sent = worker::mark_sent(&c, &claimed).await.unwrap();
    let done = worker::complete(&c, &sent, "r-1").await.unwrap();
    assert_eq!(done.state, State::Accepted);
    for sql in [
        "DELETE FROM publication_jobs",
        "TRUNCATE job_events",
        "UPDATE job_events SET actor = 'someone else'",
        "ALTER TABLE publication_jobs ADD COLUMN x int",
    ] {
        assert_eq!(
            sql_as(&env, &w, sql).await,
            Some(SqlState::INSUFFICIENT_PRIVILEGE),
            "worker: {sql}"
        );
    }
}

#[tokio::test]
async fn a_user_in_no_role_is_told_what_is_missing() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("a1")).await;
    let nobody = LoginUser::new("").await;
    let run = as_user(&env, &nobody, &["jobs", "list"]);
    assert_permission_refusal(&run, "no role: jobs list");
}

/// A database owner without CREATEROLE (the usual application owner) can still migrate: the
/// roles exist cluster-wide, and V2 only grants in this database.
#[tokio::test]
async fn an_owner_without_createrole_migrates() {
    let env = TestEnv::empty().await;
    let owner = LoginUser::new("").await;
    env.client
        .batch_execute(&format!(
            "ALTER DATABASE {db} OWNER TO {o}; ALTER SCHEMA public OWNER TO {o}",
            db = env.db_name,
            o = owner.name
        ))
        .await
        .unwrap();
    // Make sure the roles exist (another test's migration created them, or this one does).
    drop(TestEnv::new().await);
    let run = as_user(&env, &owner, &["migrate", "-o", "json"]).expect(0);
    let applied: Vec<String> = run.json()["applied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        applied,
        [
            "publication_jobs",
            "roles",
            "claim_index",
            "listing_indexes",
            "destination_pauses",
            "event_trail",
            "pause_clock",
            "remote_id_index",
            "plans",
            "job_counters",
            "partitioned_events",
            "counter_slots",
            "plan_events_at",
            "lease_minutes",
            "fold_slots",
            "order_suspects",
            "move_counters",
            "fold_every_group",
            "move_minutes",
            "unfolded_index",
            "routine_events",
            "qualified_triggers"
        ]
    );
    let grants = env
        .count(
            "SELECT count(*) FROM information_schema.role_table_grants
             WHERE grantee IN ('reconctl_reader', 'reconctl_operator', 'reconctl_worker')",
        )
        .await;
    assert!(grants >= 6, "{grants} grants");
    // Hand the objects back so the owner can be dropped with the database.
    env.client
        .batch_execute(&format!("REASSIGN OWNED BY {} TO postgres", owner.name))
        .await
        .unwrap();
}
