//! Secrets: a database password (in the URL, in key=value form, in PGPASSWORD) and a
//! destination token never appear in stdout, stderr, any event or any job, on the success
//! paths and on every error path of every command; a config file that holds a secret and is
//! readable by others draws a warning.

use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicU64, Ordering};

use reconctl::jobs::State;
use reconctl::sandbox::devserver::{DevServer, Options};

use super::cluster::{free_port, Cluster};
use crate::harness::*;

/// Runs checked for leaks (reported with the other figures).
pub static RUNS_CHECKED: AtomicU64 = AtomicU64::new(0);

const PASSWORD: &str = "S3cretPW+db/x";
/// The same password as it appears percent-encoded in a URL.
const PASSWORD_IN_URL: &str = "S3cretPW%2Bdb%2Fx";
const PGPASSWORD: &str = "PgPa55wordFromEnv";
const TOKEN: &str = "tok_S3cretDestinationToken";
const WRONG_TOKEN: &str = "tok_WrongButStillSecret";

fn secrets() -> [&'static str; 6] {
    [
        PASSWORD,
        PASSWORD_IN_URL,
        "S3cretPW",
        PGPASSWORD,
        TOKEN,
        WRONG_TOKEN,
    ]
}

fn assert_no_secret(what: &str, text: &str) {
    RUNS_CHECKED.fetch_add(1, Ordering::Relaxed);
    for s in secrets() {
        assert!(!text.contains(s), "{what} leaked `{s}`:\n{text}");
    }
}

/// Every command, each pointed at something that makes it fail (or succeed) for its own
/// reasons; `job` and `ext` name a real job where the database is reachable.
fn every_command(job: &str, ext: &str) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["status"]),
        s(&["doctor"]),
        s(&["migrate"]),
        s(&["migrate", "status"]),
        s(&["jobs", "list"]),
        s(&["jobs", "list", "--cursor", "bogus"]),
        s(&["jobs", "show", job]),
        s(&["jobs", "show", "00000000-0000-0000-0000-000000000000"]),
        s(&["jobs", "uncertain"]),
        s(&["jobs", "stuck", "--older-than", "1m"]),
        s(&[
            "jobs",
            "reserve",
            "--tenant",
            "t1",
            "--article",
            "a1",
            "--revision",
            "1",
            "--destination",
            "cms-a",
            "--payload-hash",
            &"0".repeat(64),
        ]),
        s(&["ref", "t1", "a1", "1", "cms-a"]),
        s(&["remote", "lookup", job]),
        s(&["remote", "lookup", "--destination", "cms-a", "--ref", ext]),
        s(&["remote", "lookup", "--destination", "nowhere", "--ref", ext]),
        s(&["mark", "accepted", job, "--reason", "found it", "--yes"]),
        s(&[
            "mark",
            "safe-to-retry",
            job,
            "--reason",
            "not there",
            "--yes",
        ]),
        s(&[
            "mark",
            "failed",
            job,
            "--reason",
            "gave up",
            "--expect-version",
            "99",
            "--yes",
        ]),
        s(&["mark", "failed", job, "--reason", "gave up", "--dry-run"]),
        s(&["sweep", "leases"]),
        s(&["sweep", "leases", "--dry-run"]),
        s(&["reconcile"]),
        s(&["reconcile", "--apply", "--yes"]),
        s(&["metrics"]),
        s(&["check"]),
    ]
}

/// Run each command in table and JSON output, verbose, and check all it printed.
fn run_all(env: &TestEnv, vars: &[(&str, &str)], job: &str, ext: &str) -> Vec<i32> {
    let mut codes = Vec::new();
    for args in every_command(job, ext) {
        for format in [
            &["-o", "table", "-v"][..],
            &["-o", "json"][..],
            &["-o", "jsonl", "-q"][..],
        ] {
            let mut cmd = env.cmd();
            for (k, v) in vars {
                cmd.env(k, v);
            }
            let out = cmd
                .args(&args)
                .args(format)
                .write_stdin("")
                .output()
                .unwrap();
            let what = format!("{args:?} {format:?}");
            assert_no_secret(
                &format!("stdout of {what}"),
                &String::from_utf8_lossy(&out.stdout),
            );
            assert_no_secret(
                &format!("stderr of {what}"),
                &String::from_utf8_lossy(&out.stderr),
            );
            codes.push(out.status.code().unwrap_or(-1));
        }
    }
    codes
}

#[tokio::test]
async fn an_unreachable_database_never_shows_its_password() {
    let env = TestEnv::empty().await;
    let port = free_port();
    let id = uuid::Uuid::new_v4().to_string();
    let ext = reconctl::jobs::external_ref("t1", "a1", "1", "cms-a");
    let urls = [
        format!("postgres://app:{PASSWORD_IN_URL}@127.0.0.1:{port}/db"),
        format!("postgres://app:{PASSWORD_IN_URL}@127.0.0.1:{port}/db?sslmode=require&connect_timeout=2"),
        format!("host=127.0.0.1 port={port} user=app password='{PASSWORD}' dbname=db"),
        // Malformed: the parser's complaint must not quote the URL.
        format!("postgres://app:{PASSWORD_IN_URL}@127.0.0.1:notaport/db"),
        format!("postgres://app:{PASSWORD_IN_URL}@127.0.0.1:{port}/db?sslmode=bogus"),
        format!("host=127.0.0.1 port={port} user=app password='{PASSWORD}"),
    ];
    for url in &urls {
        let codes = run_all(&env, &[("DATABASE_URL", url)], &id, &ext);
        // `ref` needs no database; everything else fails.
        assert!(
            codes.iter().filter(|c| **c == 0).count() <= 3,
            "{url}: {codes:?}"
        );
    }
    // The password from libpq's variable.
    let codes = run_all(
        &env,
        &[
            ("DATABASE_URL", ""),
            ("PGHOST", "127.0.0.1"),
            ("PGPORT", &port.to_string()),
            ("PGUSER", "app"),
            ("PGPASSWORD", PGPASSWORD),
        ],
        &id,
        &ext,
    );
    assert!(codes.contains(&1), "{codes:?}");
}

/// A server that wants passwords (scram), a destination that wants a token: every command,
/// with the right and the wrong secrets, and the audit trail afterwards. (Multi-threaded: the
/// destination keeps answering while the test waits on the binary.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passwords_and_tokens_stay_out_of_output_events_and_jobs() {
    let cluster = Cluster::init("password_encryption = 'scram-sha-256'\n");
    cluster.write_hba(
        "local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
    );
    cluster.start();
    let admin_url = cluster.url("postgres");
    let mut admin = cluster.wait_ready(&admin_url).await;
    admin
        .batch_execute(&format!(
            "CREATE ROLE app LOGIN SUPERUSER PASSWORD '{PASSWORD}'"
        ))
        .await
        .unwrap();
    reconctl::migrate::migrate(&mut admin).await.unwrap();

    // Fixtures on this cluster: an uncertain job the destination has, one it does not.
    let env = TestEnv::empty().await;
    let dest = DevServer::start(
        "127.0.0.1:0".parse::<SocketAddr>().unwrap(),
        Options {
            token: Some(TOKEN.into()),
            ..Options::default()
        },
    )
    .unwrap();
    // The destination's canary: a publication it holds (its positive control).
    let canary = reconctl::jobs::external_ref("canary", "c", "1", "cms-a");
    dest.publish(&canary, &reconctl::jobs::payload_hash(b"canary"));
    let config = format!(
        "{}token_env = \"CMS_A_TOKEN\"\n",
        dest.config_toml("cms-a", "1s", Some(&canary))
    );
    let config_path = env.write_config(&config);
    std::fs::set_permissions(&config_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let seed = |article: &str| {
        let article = article.to_string();
        let c = &admin;
        async move {
            use reconctl::jobs::{payload_hash, worker, BusinessKey};
            let key = BusinessKey::new("t1", &article, "1", "cms-a");
            let hash = payload_hash(format!("payload of {article}").as_bytes());
            worker::reserve(c, &key, &hash, "seed").await.unwrap();
            let j = worker::claim(c, "w1", std::time::Duration::from_secs(60), None)
                .await
                .unwrap()
                .unwrap();
            let j = worker::mark_sent(c, &j).await.unwrap();
            worker::timed_out(c, &j, "timeout").await.unwrap()
        }
    };
    let found = seed("a1").await;
    let missing = seed("a2").await;
    dest.publish(&found.external_ref, &found.payload_hash);
    assert_eq!(missing.state, State::Uncertain);

    let base = format!(
        "postgres://app:{PASSWORD_IN_URL}@127.0.0.1:{}/postgres",
        cluster.port
    );
    let wrong_pw = format!(
        "postgres://app:WrongS3cretPW@127.0.0.1:{}/postgres",
        cluster.port
    );
    let no_pw = format!("postgres://app@127.0.0.1:{}/postgres", cluster.port);
    let id = found.id.to_string();
    let ext = found.external_ref.clone();
    let cfg = ("RECONCTL_CONFIG", config_path.as_str());

    // The wrong password: authentication fails, and says so without the password.
    let run = Run(env
        .cmd()
        .env("DATABASE_URL", &wrong_pw)
        .args(["status"])
        .output()
        .unwrap())
    .expect(1);
    assert!(
        run.stderr().contains("password authentication failed"),
        "{}",
        run.stderr()
    );
    assert!(!run.stderr().contains("WrongS3cretPW"), "{}", run.stderr());
    // No password at all, where one is needed.
    let run = Run(env
        .cmd()
        .env("DATABASE_URL", &no_pw)
        .args(["status"])
        .output()
        .unwrap())
    .expect(1);
    assert_no_secret("no password", &run.stderr());

    // Everything with the wrong token, then with the right one; the password in the URL,
    // then in PGPASSWORD.
    run_all(
        &env,
        &[("DATABASE_URL", &base), cfg, ("CMS_A_TOKEN", WRONG_TOKEN)],
        &id,
        &ext,
    );
    run_all(
        &env,
        &[("DATABASE_URL", &base), cfg, ("CMS_A_TOKEN", TOKEN)],
        &id,
        &ext,
    );
    let codes = run_all(
        &env,
        &[
            ("DATABASE_URL", &no_pw),
            ("PGPASSWORD", PASSWORD),
            cfg,
            ("CMS_A_TOKEN", TOKEN),
        ],
        &id,
        &ext,
    );
    assert!(
        codes.contains(&0),
        "nothing succeeded with the right secrets: {codes:?}"
    );

    // The token really was used, and the moves really happened: the audit trail is not
    // empty, and holds no secret.
    assert!(dest.requests() > 0);
    let now = reconctl::jobs::store::get(&admin, &reconctl::jobs::JobRef::Id(found.id))
        .await
        .unwrap();
    assert_eq!(
        now.state,
        State::Accepted,
        "the lookup with the token should have settled it"
    );
    let trail: String = admin
        .query_one(
            "SELECT coalesce(string_agg(to_jsonb(e)::text, E'\\n'), '') FROM job_events e",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(
        trail.contains("mark_accepted") || trail.contains("reconcile_accepted"),
        "{trail}"
    );
    assert_no_secret("job_events", &trail);
    let jobs: String = admin
        .query_one(
            "SELECT coalesce(string_agg(to_jsonb(j)::text, E'\\n'), '') FROM publication_jobs j",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_no_secret("publication_jobs", &jobs);
    let problems = check_invariants(&admin).await;
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn a_config_with_a_secret_readable_by_others_draws_a_warning() {
    let env = TestEnv::new().await;
    let job = env
        .seed(Seed::new("a1").state(State::Uncertain).sent_ago(600))
        .await;
    let id = job.id.to_string();
    let with_key = "[destinations.cms-a]\n\
         lookup_url = \"http://127.0.0.1:9/articles?external_ref={ref}&api_key=S3cretPW\"\n\
         timeout = \"1s\"\n";
    let path = env.write_config(with_key);
    let lookup = |path: &str| {
        Run(env
            .cmd()
            .env("RECONCTL_CONFIG", path)
            .args(["remote", "lookup", &id])
            .output()
            .unwrap())
    };

    // A literal credential in lookup_url is refused (SPEC §4: it belongs in `auth`), and the
    // refusal carries the warning that others can read it.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = lookup(&path);
    assert_eq!(run.code(), 2, "{}", run.stderr());
    let err = run.stderr();
    assert!(
        err.contains("readable by other users"),
        "no warning for a world-readable secret: {err}"
    );
    assert!(
        err.contains("api_key") && err.contains("chmod 600"),
        "{err}"
    );
    assert!(err.contains("644"), "{err}");
    assert_no_secret("the warning", &err);
    assert_no_secret("stdout", &run.stdout());

    // Private: no warning.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let err = lookup(&path).stderr();
    assert!(!err.contains("readable by other users"), "{err}");

    // Readable by others but no secret in it: no warning.
    let plain = env.write_config(
        "[destinations.cms-a]\nlookup_url = \"http://127.0.0.1:9/a?external_ref={ref}\"\ntoken_env = \"CMS_A_TOKEN\"\ntimeout = \"1s\"\n",
    );
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
    let err = lookup(&plain).stderr();
    assert!(!err.contains("readable by other users"), "{err}");

    // A pasted `token = "…"` is refused (unknown key), and the refusal carries the warning.
    let pasted = env.write_config(
        "[destinations.cms-a]\nlookup_url = \"http://127.0.0.1:9/a?external_ref={ref}\"\ntoken = \"S3cretPW\"\n",
    );
    std::fs::set_permissions(&pasted, std::fs::Permissions::from_mode(0o640)).unwrap();
    let run = lookup(&pasted);
    assert_eq!(run.code(), 2, "{}", run.stderr());
    let err = run.stderr();
    assert!(err.contains("readable by other users"), "{err}");
    assert_no_secret("the refusal", &err);
}
