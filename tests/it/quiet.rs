//! Quiet in cron (SPEC §5): with `-q` a command that reports an action prints nothing when
//! it succeeds; the data a command exists to print is printed all the same; a command that
//! exits non-zero says why on stderr, which is what cron mails. Progress bars appear only on
//! a terminal, the sweep's only once it has taken a second.

use std::time::Duration;

use reconctl::jobs::State;
use uuid::Uuid;

use crate::cms::{found, Cms};
use crate::harness::*;

/// An uncertain job the CMS holds (reconcile settles it), an expired lease, a pending job.
async fn setup() -> (TestEnv, Cms, String, Uuid) {
    let env = TestEnv::new().await;
    let cms = Cms::start().await;
    let cfg = env.write_config(&cms.config(""));
    // Ages in hours and minutes: `1h 10m` reads the same for the test's minute.
    let u = env
        .seed(
            Seed::new("u1")
                .state(State::Uncertain)
                .sent_ago(2 * 3600)
                .aged(3600 + 10 * 60),
        )
        .await;
    cms.answer(&u.external_ref, found("art-1", &u.payload_hash))
        .await;
    env.seed(
        Seed::new("f1")
            .state(State::InFlight)
            .lease("worker-1", -600)
            .sent_ago(700)
            .aged(3600 + 20 * 60),
    )
    .await;
    env.seed(Seed::new("p1").aged(3600 + 30 * 60)).await;
    (env, cms, cfg, u.id)
}

fn silent(run: Run, what: &str) {
    let run = run.expect(0);
    assert_eq!(run.stdout(), "", "{what}: stdout");
    assert_eq!(run.stderr(), "", "{what}: stderr");
}

#[tokio::test]
async fn quiet_prints_nothing_when_an_action_succeeds() {
    let (env, _cms, cfg, u1) = setup().await;
    let u1 = u1.to_string();
    let out = env.dir.path().join("generated");
    let out = out.to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["mark", "failed", &u1, "--reason", "gave up", "--yes"],
        // Again: no change is a success too.
        vec!["mark", "failed", &u1, "--reason", "gave up", "--yes"],
        vec!["sweep", "leases", "--dry-run"],
        // f1's lease: to uncertain; the CMS does not have it: safe_to_retry.
        vec!["sweep", "leases"],
        vec!["--config", &cfg, "reconcile"],
        vec!["--config", &cfg, "reconcile", "--apply", "--yes"],
        vec!["migrate"],
        vec!["migrate", "--dry-run"],
        vec!["destination", "pause", "cms-a", "--reason", "503s", "--yes"],
        vec![
            "destination",
            "resume",
            "cms-a",
            "--reason",
            "healthy",
            "--yes",
        ],
        vec![
            "jobs",
            "reserve",
            "--tenant",
            "t1",
            "--article",
            "r1",
            "--revision",
            "1",
            "--destination",
            "cms-a",
            "--payload-hash",
            "0000000000000000000000000000000000000000000000000000000000000000",
        ],
        vec!["generate", "man", "--out-dir", out],
    ];
    for args in runs {
        let mut quiet = vec!["-q"];
        quiet.extend(&args);
        silent(env.run(&quiet), &format!("{args:?}"));
    }
    // check, once nothing is wrong: u1 given up, f1 swept and settled, p1 waiting.
    silent(
        env.run(&["check", "--stuck-after", "1d", "-q"]),
        "a healthy check",
    );
}

#[tokio::test]
async fn quiet_never_suppresses_the_data_a_command_exists_to_print() {
    let (env, _cms, cfg, u1) = setup().await;
    let u1 = u1.to_string();
    for args in [
        vec!["metrics"],
        vec!["ref", "t", "a1", "3", "cms"],
        vec!["jobs", "list"],
        vec!["jobs", "show", &u1],
        vec!["jobs", "uncertain"],
        vec!["jobs", "stuck", "--older-than", "1m"],
        vec!["status"],
        vec!["--config", &cfg, "remote", "lookup", &u1],
        vec!["--config", &cfg, "destination", "list"],
        vec!["migrate", "status"],
        // The JSON of an action is data for the script that asked for it.
        vec!["sweep", "leases", "--dry-run", "-o", "json"],
        vec!["--config", &cfg, "reconcile", "-o", "jsonl"],
        vec!["check", "-o", "json"],
    ] {
        let loud = env.run(&args);
        let mut quiet = vec!["-q"];
        quiet.extend(&args);
        let quiet = env.run(&quiet);
        assert_eq!(quiet.code(), loud.code(), "{args:?}");
        assert!(!quiet.stdout().is_empty(), "-q {args:?} printed nothing");
        if !args.contains(&"metrics") && !args.contains(&"-o") {
            assert_eq!(quiet.stdout(), loud.stdout(), "{args:?}");
        }
    }
    // The Prometheus file a cron job writes is never empty.
    let metrics = env.run(&["-q", "metrics"]).expect(0).stdout();
    assert!(metrics.contains("reconctl_jobs{"), "{metrics}");
    assert_eq!(
        env.run(&["-q", "ref", "t", "a1", "3", "cms"])
            .expect(0)
            .stdout(),
        "pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852\n"
    );
}

/// Regression: `check --max-uncertain 0 -q` exited 5 and printed nothing: the cron mail was
/// empty and the page said only "exit 5".
#[tokio::test]
async fn quiet_check_says_why_on_stderr_when_it_exits_5() {
    let (env, _cms, _cfg, _) = setup().await;
    let loud = env.run(&["check"]).expect(5);
    let quiet = env.run(&["check", "-q"]).expect(5);
    assert_eq!(quiet.stdout(), "");
    assert_eq!(quiet.stderr(), loud.stdout(), "the violations, one a line");
    assert!(
        quiet.stderr().starts_with("uncertain: 1 job"),
        "{}",
        quiet.stderr()
    );
    // With -o json the document is printed, and the lines still reach stderr.
    let json = env.run(&["check", "-q", "-o", "json"]).expect(5);
    assert_eq!(json.json()["healthy"], false);
    assert_eq!(json.stderr(), loud.stdout());
}

/// A destination that does not answer: a closed port.
fn unreachable_config(env: &TestEnv) -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    env.write_config(&crate::cms::config_for(
        &format!("http://127.0.0.1:{port}"),
        "",
    ))
}

/// Regression: `-q remote lookup` of an unknown verdict printed nothing and exited 1.
#[tokio::test]
async fn quiet_lookup_prints_the_lookup_and_says_why_it_is_unknown() {
    let (env, _cms, _cfg, u1) = setup().await;
    let cfg = unreachable_config(&env);
    let u1 = u1.to_string();
    let run = env
        .run(&["--config", &cfg, "-q", "remote", "lookup", &u1])
        .expect(1);
    assert!(
        run.stdout().contains("verdict       unknown"),
        "{}",
        run.stdout()
    );
    let err = run.stderr();
    assert!(err.contains("verdict unknown: "), "{err}");
    assert!(
        err.contains("unreachable") || err.contains("connect"),
        "{err}"
    );
}

#[tokio::test]
async fn quiet_doctor_and_reconcile_say_why_they_failed() {
    let (env, _cms, _cfg, _) = setup().await;
    let cfg = unreachable_config(&env);
    let run = env.run(&["--config", &cfg, "-q", "doctor"]).expect(1);
    assert_eq!(run.stdout(), "");
    let err = run.stderr();
    assert!(err.contains("destination cms-a"), "{err}");
    assert!(err.contains("FAIL"), "{err}");
    assert!(err.contains("hint: "), "{err}");
    assert!(err.ends_with("1 check failed\n"), "{err}");
    // Only the failed checks: the passing ones are not news.
    assert!(!err.contains("migrations"), "{err}");

    let run = env.run(&["--config", &cfg, "-q", "reconcile"]).expect(5);
    assert_eq!(run.stdout(), "");
    assert!(
        run.stderr().contains("reconcile: examined 1: ") && run.stderr().contains("unknown 1"),
        "{}",
        run.stderr()
    );
}

/// `-q sandbox --drill`: nothing when the drill passes; why, when it cannot run.
#[tokio::test]
async fn quiet_drill_prints_nothing_when_it_passes_and_why_when_it_cannot_run() {
    let env = TestEnv::empty().await;
    let run = env
        .run(&["-q", "sandbox", "--drill", "--database-url", &env.url])
        .expect(0);
    assert_eq!(run.stdout(), "", "{}", run.stderr());
    assert_eq!(run.stderr(), "");
    // The database now holds the drill's jobs: a second drill there is refused, saying why.
    let run = env
        .run(&["-q", "sandbox", "--drill", "--database-url", &env.url])
        .expect(2);
    assert_eq!(run.stdout(), "");
    assert!(run.stderr().contains("already holds"), "{}", run.stderr());
}

/// A sweep whose every move takes a while: each row's update sleeps `secs`.
async fn slow_sweeps(env: &TestEnv, secs: f64) {
    env.client
        .batch_execute(&format!(
            "CREATE FUNCTION slow_update() RETURNS trigger LANGUAGE plpgsql AS
               $$ BEGIN PERFORM pg_sleep({secs}); RETURN NEW; END $$;
             CREATE TRIGGER slow_update BEFORE UPDATE ON publication_jobs
               FOR EACH ROW EXECUTE FUNCTION slow_update();"
        ))
        .await
        .unwrap();
}

async fn expired_leases(env: &TestEnv, tag: &str, n: usize) {
    for i in 0..n {
        env.seed(
            Seed::new(&format!("{tag}{i}"))
                .state(State::InFlight)
                .lease("worker-1", -600)
                .sent_ago(700),
        )
        .await;
    }
}

/// On a terminal, the sweep's bar appears only when the run takes more than a second; in
/// a pipe (cron) never.
#[tokio::test]
async fn the_sweep_shows_its_bar_only_after_a_second_and_never_in_a_pipe() {
    let env = TestEnv::new().await;
    expired_leases(&env, "a", 3).await;
    let quick = pty_rest(&mut env.pty(&["sweep", "leases", "--dry-run"]));
    assert!(quick.contains("would move 3 expired leases"), "{quick}");
    assert!(
        !quick.contains("sweeping"),
        "a bar for a quick sweep:\n{quick}"
    );

    slow_sweeps(&env, 0.5).await;
    let slow = pty_rest(&mut env.pty(&["sweep", "leases", "--batch", "1"]));
    assert!(slow.contains("moved 3 expired leases"), "{slow}");
    assert!(
        slow.contains("sweeping"),
        "no bar for a 1.5 s sweep:\n{slow}"
    );

    // In a pipe (cron): no bar, however long it takes.
    expired_leases(&env, "b", 3).await;
    let started = std::time::Instant::now();
    let run = env.run(&["sweep", "leases", "--batch", "1"]).expect(0);
    assert!(started.elapsed() > Duration::from_secs(1));
    assert_eq!(run.stderr(), "");
    assert!(!run.stdout().contains("sweeping"), "{}", run.stdout());
    // With -q on a terminal: nothing at all.
    expired_leases(&env, "c", 3).await;
    let quiet = pty_rest(&mut env.pty(&["sweep", "leases", "--batch", "1", "-q"]));
    assert_eq!(quiet.trim(), "", "{quiet}");
}
