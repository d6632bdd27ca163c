//! What reconctl prints about its own input: a connection string that fails to parse is
//! never echoed, not a word of it (issue 23, item 4); an error is one line whatever the input
//! held, and config errors do not quote values (issue 24, item 9); a session timeout
//! PostgreSQL would refuse is a usage error before any connection, and a migration stopped
//! by a lock or statement timeout is busy (issue 24, item 10).

use std::time::{Duration, Instant};

use super::Env;
use crate::harness::TestEnv;

const USER: &str = "alice_ops";
const PASSWORD: &str = "TopSecret42";

/// Every way a connection string can fail to parse with a user and a password in it.
fn malformed() -> Vec<String> {
    vec![
        // A typo in the scheme, and no scheme at all.
        format!("postgresq://{USER}:{PASSWORD}@db.example/app"),
        format!("{USER}:{PASSWORD}@db.example/app"),
        // key=value with an unquoted space in the password: the tail is a word of its own,
        // with or without an "=" in it.
        format!("host=db.example user={USER} password=Top Secret42 dbname=app"),
        format!("host=db.example user={USER} password=Top Secret42=x dbname=app"),
        format!("host=db.example user={USER} password=Top Secret42\\ dbname=app"),
        // An unterminated quote.
        format!("host=db.example user={USER} password='{PASSWORD}"),
        // A '/' in a URL password makes the rest a port and a database name.
        format!("postgresql://{USER}:Top/Secret42@db.example/app"),
        // A '&' in the query, an unknown parameter, bad percent-encoding.
        format!("postgresql://{USER}@db.example/app?password=Top&Secret42=1"),
        format!("postgresql://{USER}:{PASSWORD}%zz@db.example/app"),
        format!("postgresql://{USER}:{PASSWORD}@[::1]x/app"),
        format!("postgresql://{USER}:{PASSWORD}@db.example/app?sslmode=Secret42"),
        format!("postgresql://{USER}:{PASSWORD}@db.example:Secret42/app"),
    ]
}

/// Every line of stderr starts a message of its own: none was split by what it quotes.
fn assert_one_line_each(stderr: &str) {
    for line in stderr.lines() {
        assert!(
            line.starts_with("error: ") || line.starts_with("hint: "),
            "an error split across lines:\n{stderr}"
        );
    }
}

#[test]
fn item_23_4_a_connection_string_that_fails_to_parse_is_never_echoed() {
    let home = tempfile::tempdir().unwrap();
    for url in malformed() {
        for (how, output) in [("env", "json"), ("env", "table"), ("flag", "json")] {
            let mut env = Env::new(home.path());
            let mut args = vec!["status", "-o", output];
            if how == "env" {
                env = env.var("DATABASE_URL", url.as_str());
            } else {
                args.extend(["--database-url", url.as_str()]);
            }
            let r = env.reconctl(&args).expect(2);
            let all = r.all();
            for part in [PASSWORD, "Secret42", "TopSecret", USER, "db.example"] {
                assert!(
                    !all.contains(part),
                    "{url:?} ({how}, -o {output}): `{part}` in the output:\n{all}"
                );
            }
            assert!(
                r.stderr().starts_with("error: invalid connection string: "),
                "{url:?}: {}",
                r.stderr()
            );
            if output == "json" {
                let doc = r.json();
                assert_eq!(doc["error"]["code"], "connection_string", "{all}");
                assert_eq!(doc["error"]["exit_code"], 2, "{all}");
            }
        }
    }
    // What it says instead: the option by its place, or what the string should look like.
    let says = |url: &str| {
        Env::new(home.path())
            .var("DATABASE_URL", url)
            .reconctl(&["status", "-o", "json"])
            .expect(2)
            .json()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        says(&malformed()[0]),
        "invalid connection string: not a URL reconctl knows: a connection URL starts with postgresql:// or postgres://"
    );
    assert_eq!(
        says(&malformed()[2]),
        "invalid connection string: option 4 has no \"=\"; a value with a space must be quoted (password='a b')"
    );
    assert_eq!(
        says(&malformed()[3]),
        "invalid connection string: option 4 is not a connection option"
    );
    assert_eq!(
        says("postgresql://u@h/db?hots=x"),
        "invalid connection string: URL query parameter 1 is not a connection option (did you mean \"host\"?)"
    );
}

#[tokio::test]
async fn item_24_9_errors_are_one_line_and_config_errors_do_not_quote_values() {
    let env = TestEnv::new().await;
    // A newline at the end of DATABASE_URL (a heredoc, `echo` into a file): the database name
    // ends in it. The error says so, escaped, on one line.
    let run = env
        .cmd()
        .env("DATABASE_URL", format!("{}\n", env.url))
        .args(["status"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_one_line_each(&stderr);
    assert!(
        stderr.contains(&format!(
            "/{}\\n: database \"{}\\n\" does not exist",
            env.db_name, env.db_name
        )),
        "{stderr}"
    );
    let json = env
        .cmd()
        .env("DATABASE_URL", format!("{}\n", env.url))
        .args(["status", "-o", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(
        !message.contains('\n') && message.contains("\\n"),
        "{message}"
    );

    // A config whose values land in serde's messages: a secret pasted into the wrong key.
    let zero_ref = format!("pub_{}", "0".repeat(64));
    let secret = "tok_Zq81SecretValue";
    for (toml, line) in [
        (
            format!(
                "[destinations.cms-a]\nlookup_url = \"http://127.0.0.1:1/a?ref={{ref}}\"\nnot_found = \"{secret}\"\n"
            ),
            3,
        ),
        (format!("[lookup]\nmax_body_bytes = \"{secret}\"\n"), 2),
    ] {
        let cfg = env.write_config(&toml);
        let run = env
            .run(&["--config", &cfg, "remote", "lookup", "--destination", "cms-a", "--ref", &zero_ref, "-o", "json"])
            .expect(2);
        let all = format!("{}{}", run.stdout(), run.stderr());
        assert!(!all.contains(secret), "a value in a config error:\n{all}");
        assert!(all.contains(&format!("line {line}")), "{all}");
    }
    // Values that cannot be secrets (a JSON pointer, a duration) are still shown, escaped:
    // the error stays on one line.
    for (key, value, shown) in [
        (
            "remote_id",
            "id\\u001b[2J",
            "`id\\x1b[2J` is not a JSON pointer",
        ),
        ("settle_after", "5x\\n", "invalid duration `5x\\n`"),
    ] {
        let cfg = env.write_config(&format!(
            "[destinations.cms-a]\nlookup_url = \"http://127.0.0.1:1/a?ref={{ref}}\"\n{key} = \"{value}\"\n"
        ));
        let run = env
            .run(&[
                "--config",
                &cfg,
                "remote",
                "lookup",
                "--destination",
                "cms-a",
                "--ref",
                &zero_ref,
            ])
            .expect(2);
        assert!(run.stderr().contains(shown), "{}", run.stderr());
        assert_one_line_each(&run.stderr());
    }
}

#[tokio::test]
async fn item_24_10_timeouts_postgresql_refuses_are_exit_2_before_connecting() {
    // Nothing listens on port 1: exit 2 proves the refusal comes before any connection.
    let home = tempfile::tempdir().unwrap();
    let env = Env::new(home.path()).var("DATABASE_URL", "postgresql://u@127.0.0.1:1/db");
    for (flag, value) in [
        ("--statement-timeout", "25d"),
        ("--statement-timeout", "2147483648ms"),
        ("--lock-timeout", "30d"),
    ] {
        let started = Instant::now();
        let r = env
            .reconctl(&["status", flag, value, "-o", "json"])
            .expect(2);
        assert!(started.elapsed() < Duration::from_secs(3));
        let message = r.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(
            message.contains(&format!(
                "for {flag}: PostgreSQL accepts at most 2147483647 ms"
            )),
            "{message}"
        );
    }
    // The longest ones PostgreSQL takes work (the idle-in-transaction limit reconctl derives
    // from the statement timeout stays within PostgreSQL's range too).
    let t = TestEnv::new().await;
    for (flag, value) in [
        ("--statement-timeout", "10d"),
        ("--statement-timeout", "2147483647ms"),
        ("--lock-timeout", "24d"),
    ] {
        t.run(&[flag, value, "jobs", "list", "-o", "json"])
            .expect(0);
    }
}

/// A migration stopped by the lock timeout or the statement timeout is busy (exit 6, nothing
/// applied), as every other command's, not a runtime failure.
#[tokio::test]
async fn item_24_10_a_migration_stopped_by_a_timeout_is_busy() {
    let env = TestEnv::empty().await;
    let mut c = env.connect().await;
    crate::events::migrate_to(&mut c, 5).await;
    // V6 alters job_events: a reader in an open transaction holds it up.
    let reader = env.connect().await;
    reader
        .batch_execute("BEGIN; LOCK TABLE job_events IN ACCESS SHARE MODE")
        .await
        .unwrap();
    for args in [
        vec!["--lock-timeout", "300ms", "migrate", "--yes"],
        vec!["--statement-timeout", "500ms", "migrate", "--yes"],
    ] {
        let run = env.run(&args).expect(6);
        assert!(
            run.stderr().starts_with("error: busy: ") || run.stderr().contains("migration failed"),
            "{}",
            run.stderr()
        );
        assert!(run.stderr().contains("timeout"), "{}", run.stderr());
        let applied = env
            .count("SELECT max(version)::bigint FROM refinery_schema_history")
            .await;
        assert_eq!(applied, 5, "a busy migration applied nothing");
    }
    reader.batch_execute("ROLLBACK").await.unwrap();
    env.run(&["migrate", "--yes"]).expect(0);
}

/// Every command ends its sessions as psql ends its one: Terminate, then close. The server
/// counts none of them as abandoned (`pg_stat_database.sessions_abandoned`: a client gone
/// without a goodbye, which the server also logs as an unexpected EOF or a connection reset
/// in every command's wake), whether the command succeeded, found a problem or failed.
#[tokio::test]
async fn every_command_says_goodbye_to_the_server() {
    let env = TestEnv::new().await;
    env.seed(crate::harness::Seed::new("u1").state(reconctl::jobs::State::Uncertain))
        .await;
    let abandoned = || async {
        env.count(
            "SELECT sessions_abandoned FROM pg_stat_database WHERE datname = current_database()",
        )
        .await
    };
    let before = abandoned().await;
    let commands: &[(&[&str], i32)] = &[
        (&["status"], 0),
        (&["status", "-v", "-o", "json"], 0),
        (&["metrics"], 0),
        (&["check"], 5),
        (&["jobs", "list"], 0),
        (&["jobs", "uncertain", "-o", "json"], 0),
        (&["events"], 0),
        (&["destination", "list"], 0),
        (&["doctor"], 0),
        // Not found: a failure after the session was opened.
        (&["jobs", "show", "00000000-0000-0000-0000-000000000000"], 4),
    ];
    for (args, code) in commands {
        env.run(args).expect(*code);
    }
    // The backends have ended (their statistics are written as they exit).
    let started = Instant::now();
    while env
        .count(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND application_name LIKE 'reconctl%'
             AND pid <> pg_backend_pid()",
        )
        .await
        > 0
    {
        if started.elapsed() > Duration::from_secs(10) {
            let left: Vec<String> = env
                .column(
                    "SELECT format('%s %s %s %s', pid, application_name, state, query)
                     FROM pg_stat_activity
                     WHERE datname = current_database() AND application_name LIKE 'reconctl%'
                       AND pid <> pg_backend_pid()",
                )
                .await;
            panic!("reconctl's sessions did not end: {left:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        abandoned().await,
        before,
        "sessions ended without a goodbye"
    );
}
