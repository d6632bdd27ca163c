//! What a session tells the server: `application_name` is `reconctl <command>` unless the
//! settings name one (as psql's is "psql"); and who acts: without USER and LOGNAME (systemd,
//! containers) the default actor is the OS user from the password database.

use std::time::{Duration, Instant};

use reconctl::jobs::State;

use crate::harness::*;

#[tokio::test]
async fn sessions_are_named_after_the_command() {
    let env = TestEnv::new().await;
    // Hold the table so the sweep waits where pg_stat_activity can see it.
    let mut holder = env.connect().await;
    let tx = holder.transaction().await.unwrap();
    tx.batch_execute("LOCK TABLE publication_jobs IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("reconctl"));
    // assert_cmd::Command cannot spawn; build the same environment by hand.
    child
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", env.dir.path())
        .env("DATABASE_URL", &env.url)
        .env("RECONCTL_ACTOR", "tester")
        .args([
            "--lock-timeout",
            "20s",
            "--statement-timeout",
            "30s",
            "sweep",
            "leases",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = child.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        seen = env
            .client
            .query(
                "SELECT application_name FROM pg_stat_activity
                 WHERE datname = current_database() AND wait_event_type = 'Lock'",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect();
        if !seen.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tx.rollback().await.unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(seen, vec!["reconctl sweep leases".to_string()]);

    // PGAPPNAME and the URL's application_name win, as in libpq.
    let named = |extra: &[(&str, &str)], url: &str| {
        let mut c = env.cmd();
        c.env("DATABASE_URL", url);
        for (k, v) in extra {
            c.env(k, v);
        }
        let out = Run(c
            .args(["migrate", "--dry-run", "-o", "json"])
            .output()
            .unwrap())
        .expect(0);
        out.json()["target"]["application_name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(named(&[], &env.url), "reconctl migrate");
    assert_eq!(named(&[("PGAPPNAME", "runbook-7")], &env.url), "runbook-7");
    let sep = if env.url.contains('?') { '&' } else { '?' };
    assert_eq!(
        named(
            &[("PGAPPNAME", "runbook-7")],
            &format!("{}{sep}application_name=from-url", env.url)
        ),
        "from-url"
    );
}

#[tokio::test]
async fn without_user_or_logname_the_actor_is_the_os_user() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let id = job.id.to_string();
    // TestEnv's environment is clean: no USER, no LOGNAME; drop RECONCTL_ACTOR too.
    let run = Run(env
        .cmd()
        .env_remove("RECONCTL_ACTOR")
        .env("USER", "")
        .args([
            "mark", "failed", &id, "--reason", "given up", "--yes", "-o", "json",
        ])
        .output()
        .unwrap())
    .expect(0);
    let actor = run.json()["event"]["actor"].as_str().unwrap().to_string();
    let me = super::os_user();
    assert!(actor.starts_with(&format!("{me}@")), "{actor}");
    assert!(!actor.starts_with("unknown@"), "{actor}");
}

/// Every session reconctl opens runs without JIT compilation (its statements are index
/// probes; a plan whose estimated cost crosses `jit_above_cost`, such as a branch that will
/// not run, would otherwise compile for hundreds of milliseconds), unless the settings' own
/// options turn it on again.
#[tokio::test]
async fn sessions_run_without_jit_unless_the_options_ask_for_it() {
    async fn jit(c: &tokio_postgres::Client) -> String {
        c.query_one("SELECT current_setting('jit')", &[])
            .await
            .unwrap()
            .get(0)
    }
    let env = TestEnv::new().await;
    // The server's default is on (PostgreSQL's own), as a plain session sees: the control.
    let (plain, conn) = tokio_postgres::connect(&env.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    assert_eq!(jit(&plain).await, "on");
    assert_eq!(jit(&connect_url(&env.url).await).await, "off");
    let sep = if env.url.contains('?') { '&' } else { '?' };
    let asked = connect_url(&format!("{}{sep}options=-c%20jit%3Don", env.url)).await;
    assert_eq!(jit(&asked).await, "on");
}
