//! The command line's contract: usage errors follow the error contract (`-o json` gets its
//! document, exit 2), `--color` reaches clap's own output, an empty variable counts as unset,
//! no environment value ever appears in a usage line, and the clap tree is sound.

use clap::CommandFactory;
use reconctl::cli::Cli;

use crate::harness::*;

#[test]
fn the_clap_tree_is_sound() {
    Cli::command().debug_assert();
}

/// Regression: `jobs list --limit 0 -o json` and a missing `--reason` printed nothing on
/// stdout; a script reading the JSON got nothing to parse.
#[tokio::test]
async fn usage_errors_with_json_print_the_error_document() {
    let env = TestEnv::new().await;
    for args in [
        vec!["jobs", "list", "--limit", "0", "-o", "json"],
        vec!["-o", "json", "mark", "accepted", "pub_x"],
        vec!["--output=jsonl", "jobs", "frobnicate"],
    ] {
        let run = env.run(&args).expect(2);
        let out = run.stdout();
        let doc: serde_json::Value = serde_json::from_str(out.trim())
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"));
        assert_eq!(doc["error"]["kind"], "usage", "{args:?}: {doc}");
        assert_eq!(doc["error"]["exit_code"], 2);
        assert!(!doc["error"]["message"].as_str().unwrap().is_empty());
        // People still get clap's message and usage on stderr.
        assert!(run.stderr().contains("error:"), "{}", run.stderr());
    }
    // A table run's usage error prints nothing on stdout.
    let run = env.run(&["jobs", "list", "--limit", "0"]).expect(2);
    assert_eq!(run.stdout(), "");
}

/// Regression: with DATABASE_URL set, a missing-argument error printed `Usage: reconctl mark
/// accepted --reason <TEXT> --database-url <URL> --config <FILE> <JOB>`.
#[tokio::test]
async fn no_environment_value_reaches_a_usage_line() {
    let env = TestEnv::new().await;
    let run = env
        .cmd()
        .env("RECONCTL_CONFIG", env.dir.path().join("nope.toml"))
        .env("RECONCTL_ACTOR", "someone")
        .args(["mark", "accepted"])
        .output()
        .unwrap();
    let run = Run(run).expect(2);
    let err = run.stderr();
    assert!(
        err.contains("Usage: reconctl mark accepted --reason <TEXT> <JOB>"),
        "{err}"
    );
    for leak in ["--database-url", "--config", "--actor", &env.url] {
        assert!(!err.contains(leak), "{leak} in: {err}");
    }
}

/// Regression: `RECONCTL_CONFIG=` (empty) made every command fail even with `--config`,
/// `RECONCTL_READ_ONLY=` was "invalid value". Empty variables are unset (SPEC §3).
#[tokio::test]
async fn empty_variables_count_as_unset() {
    let env = TestEnv::new().await;
    let cfg = env.write_config("");
    for args in [vec!["--config", cfg.as_str(), "status"], vec!["status"]] {
        let run = env
            .cmd()
            .env("RECONCTL_CONFIG", "")
            .env("RECONCTL_READ_ONLY", "")
            .env("RECONCTL_ACTOR", "")
            .args(&args)
            .output()
            .unwrap();
        Run(run).expect(0);
    }
    // An empty DATABASE_URL is unset too: libpq's variables decide (here: nothing listens).
    let run = env
        .cmd()
        .env("DATABASE_URL", "")
        .env("PGHOST", "127.0.0.1")
        .env("PGPORT", "9")
        .env("PGCONNECT_TIMEOUT", "2")
        .args(["status"])
        .output()
        .unwrap();
    let run = Run(run).expect(1);
    assert!(run.stderr().contains("127.0.0.1"), "{}", run.stderr());
    // A value that is not one: said so.
    let run = env
        .cmd()
        .env("RECONCTL_READ_ONLY", "maybe")
        .args(["status"])
        .output()
        .unwrap();
    let run = Run(run).expect(2);
    assert!(
        run.stderr().contains("RECONCTL_READ_ONLY"),
        "{}",
        run.stderr()
    );
    // RECONCTL_READ_ONLY=1 opens read-only sessions: a change is refused by PostgreSQL.
    let job = env
        .seed(Seed::new("ro").state(reconctl::jobs::State::Pending))
        .await;
    let run = env
        .cmd()
        .env("RECONCTL_READ_ONLY", "1")
        .args([
            "mark",
            "failed",
            &job.id.to_string(),
            "--reason",
            "x",
            "--yes",
        ])
        .output()
        .unwrap();
    let run = Run(run).expect(1);
    assert!(run.stderr().contains("read-only"), "{}", run.stderr());
}

/// Regression: `--color never` did not reach clap's errors and help; `--color always` does.
#[tokio::test]
async fn color_governs_clap_s_output_too() {
    let env = TestEnv::new().await;
    let never = env
        .run(&["--color", "never", "jobs", "list", "--limit", "0"])
        .expect(2);
    assert!(!never.stderr().contains('\u{1b}'), "{:?}", never.stderr());
    let always = env
        .run(&["--color=always", "jobs", "list", "--limit", "0"])
        .expect(2);
    assert!(always.stderr().contains('\u{1b}'), "{:?}", always.stderr());
    let help = env.run(&["--color", "never", "status", "--help"]).expect(0);
    assert!(!help.stdout().contains('\u{1b}'));
}

/// Regression: `--help` interleaved the global flags with the command's own.
#[tokio::test]
async fn global_flags_have_their_own_help_heading() {
    let env = TestEnv::new().await;
    let help = env.run(&["jobs", "list", "--help"]).expect(0).stdout();
    let own = help.find("--state").expect("the command's own flags");
    let heading = help
        .find("Global options:")
        .expect("a Global options heading");
    let global = help.find("--database-url").expect("the global flags");
    assert!(own < heading && heading < global, "{help}");
}

/// Every JOB argument takes a unique prefix of the id (8 or more hex digits, as tables print
/// them); an ambiguous one is exit 2 naming the candidates, one that names nothing exit 4.
#[tokio::test]
async fn job_arguments_take_a_unique_id_prefix() {
    let env = TestEnv::new().await;
    for (id, article) in [
        ("abcdef01-1111-4000-8000-000000000001", "p1"),
        ("abcdef01-2222-4000-8000-000000000002", "p2"),
        ("12345678-9abc-4000-8000-000000000003", "p3"),
    ] {
        env.client
            .execute(
                "WITH j AS (
                   INSERT INTO publication_jobs (id, tenant_id, article_id, revision_id, destination,
                       external_ref, payload_hash, state)
                   VALUES ($1::text::uuid, 't1', $2, '1', 'cms-a',
                       'pub_' || encode(sha256(convert_to($2, 'UTF8')), 'hex'),
                       encode(sha256(convert_to($2, 'UTF8')), 'hex'), 'pending')
                   RETURNING id, state, version)
                 INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version)
                 SELECT id, 'seed', 'reserve', NULL, state, NULL, version FROM j",
                &[&id, &article],
            )
            .await
            .unwrap();
    }
    let shown = env
        .run(&["jobs", "show", "12345678", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(shown["id"], "12345678-9abc-4000-8000-000000000003");
    let shown = env
        .run(&["jobs", "show", "ABCDEF01-2222", "-o", "json"])
        .expect(0)
        .json();
    assert_eq!(shown["article_id"], "p2");
    let run = env.run(&["jobs", "show", "abcdef01"]).expect(2);
    let err = run.stderr();
    assert!(err.contains("ambiguous"), "{err}");
    assert!(
        err.contains("abcdef01-1111-4000-8000-000000000001")
            && err.contains("abcdef01-2222-4000-8000-000000000002"),
        "{err}"
    );
    env.run(&["jobs", "show", "00000000"]).expect(4);
    // A mark takes one too, and moves the one job it names.
    env.run(&[
        "mark",
        "failed",
        "12345678",
        "--reason",
        "withdrawn",
        "--yes",
    ])
    .expect(0);
    let now = env
        .run(&[
            "jobs",
            "show",
            "12345678-9abc-4000-8000-000000000003",
            "-o",
            "json",
        ])
        .expect(0)
        .json();
    assert_eq!(now["state"], "failed");
    // Too short to be a prefix: a usage error saying what a JOB is.
    let run = env.run(&["jobs", "show", "1234567"]).expect(2);
    assert!(
        run.stderr().contains("8 or more hex digits"),
        "{}",
        run.stderr()
    );
}
