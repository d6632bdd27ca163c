//! `TestEnv`: each test gets its own freshly created, migrated database on the server named
//! by `DATABASE_URL` (scripts/test starts a disposable one), a clean environment for the
//! binary, and an invariant check when it ends.

#![allow(dead_code)]

use std::process::Output;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reconctl::db::{SessionLimits, Target};
use reconctl::jobs::{external_ref, payload_hash, Job, State};
use tokio_postgres::Client;

static COUNTER: AtomicU64 = AtomicU64::new(0);

pub fn admin_url() -> String {
    std::env::var("DATABASE_URL").expect(
        "DATABASE_URL must name a PostgreSQL server for the integration tests; run scripts/test, which starts one",
    )
}

/// `admin_url` with its database replaced by `db`.
pub fn url_for(db: &str) -> String {
    let admin = admin_url();
    let (base, query) = match admin.split_once('?') {
        Some((b, q)) => (b.to_string(), Some(q.to_string())),
        None => (admin.clone(), None),
    };
    let scheme_end = base
        .find("://")
        .expect("DATABASE_URL must be a postgres:// URL")
        + 3;
    let authority_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let mut url = format!("{}/{}", &base[..authority_end], db);
    if let Some(q) = query {
        url.push('?');
        url.push_str(&q);
    }
    url
}

pub async fn connect_url(url: &str) -> Client {
    let target = Target::resolve(Some(url), &SessionLimits::default()).expect("test URL");
    target
        .connect()
        .await
        .expect("connect to the test database")
}

pub struct TestEnv {
    pub db_name: String,
    pub url: String,
    pub dir: tempfile::TempDir,
    pub client: Client,
    /// Skip the end-of-test invariant check (for tests that break invariants on purpose).
    pub skip_invariants: bool,
}

impl TestEnv {
    /// A fresh, migrated database.
    pub async fn new() -> TestEnv {
        let env = TestEnv::empty().await;
        let mut c = connect_url(&env.url).await;
        reconctl::migrate::migrate(&mut c).await.expect("migrate");
        env
    }

    /// A fresh database with no schema.
    pub async fn empty() -> TestEnv {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let db_name = format!(
            "reconctl_t{}_{}_{}",
            std::process::id(),
            n,
            uuid::Uuid::new_v4().simple().to_string()[..8].to_owned()
        );
        let admin = connect_url(&admin_url()).await;
        admin
            .batch_execute(&format!("CREATE DATABASE {db_name} TEMPLATE template0"))
            .await
            .expect("create the test database");
        let url = url_for(&db_name);
        let client = connect_url(&url).await;
        TestEnv {
            db_name,
            url,
            dir: tempfile::tempdir().expect("tempdir"),
            client,
            skip_invariants: false,
        }
    }

    /// Another connection of its own (for races and locks).
    pub async fn connect(&self) -> Client {
        connect_url(&self.url).await
    }

    /// Another session's transaction holds `table` in ACCESS EXCLUSIVE mode (every reader of
    /// it waits) until [`Held::release`]; meanwhile this env's own client gives up on a lock
    /// after 2 s, so that a statement that touches the table fails instead of waiting.
    pub async fn hold(&self, table: &str) -> Held<'_> {
        let locker = self.connect().await;
        locker
            .batch_execute(&format!(
                "BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"
            ))
            .await
            .unwrap();
        self.client
            .batch_execute("SET lock_timeout = '2s'")
            .await
            .unwrap();
        Held { env: self, locker }
    }

    /// The binary, with a clean environment: only what the test gives it.
    pub fn cmd(&self) -> assert_cmd::Command {
        let mut cmd = assert_cmd::Command::cargo_bin("reconctl").expect("the reconctl binary");
        cmd.env_clear().envs(self.command_env(&self.url));
        cmd.timeout(Duration::from_secs(120));
        cmd
    }

    /// The clean environment every run of the binary gets, whatever runs it (assert_cmd, a
    /// std or tokio child, a pseudo-terminal): only what the test gives it, the database at
    /// `url`.
    pub fn command_env(&self, url: &str) -> Vec<(&'static str, std::ffi::OsString)> {
        vec![
            ("PATH", std::env::var_os("PATH").unwrap_or_default()),
            ("HOME", self.dir.path().into()),
            ("XDG_CONFIG_HOME", self.dir.path().join("xdg").into()),
            ("DATABASE_URL", url.into()),
            ("RECONCTL_ACTOR", "tester".into()),
            ("COLUMNS", "120".into()),
            ("NO_COLOR", "1".into()),
        ]
    }

    /// The binary as a std child process (to signal it, or to close its pipes), with the
    /// clean environment; stdin empty, stdout and stderr piped.
    pub fn std_cmd(&self) -> std::process::Command {
        use std::process::Stdio;
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("reconctl"));
        cmd.env_clear()
            .envs(self.command_env(&self.url))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// The same as a tokio child (killed when dropped).
    pub fn tokio_cmd(&self) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::from(self.std_cmd());
        cmd.kill_on_drop(true);
        cmd
    }

    /// The binary in a pseudo-terminal (stdin, stdout and stderr are terminals), with the
    /// clean environment, `TERM=xterm` and SIGINT at its default ([`spawn_in_pty`]).
    pub fn pty(&self, args: &[&str]) -> rexpect::session::PtySession {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("reconctl"));
        cmd.env_clear().envs(self.command_env(&self.url)).args(args);
        spawn_in_pty(cmd, 20_000)
    }

    /// `sh -c script` in a pseudo-terminal, with the clean environment but `COLUMNS` (the
    /// terminal's own size counts; the script sets it with `stty`), `TERM=xterm` and SIGINT
    /// at its default; `timeout_ms` for each expectation. [`sh_reconctl`] writes the binary's part.
    pub fn shell_in_pty(&self, script: &str, timeout_ms: u64) -> rexpect::session::PtySession {
        let mut cmd = std::process::Command::new("sh");
        cmd.env_clear()
            .envs(
                self.command_env(&self.url)
                    .into_iter()
                    .filter(|(k, _)| *k != "COLUMNS"),
            )
            .args(["-c", script]);
        spawn_in_pty(cmd, timeout_ms)
    }

    /// The binary in a pseudo-terminal `cols` columns wide and 50 rows (its own size, set
    /// with `stty`: no `COLUMNS`). With `stderr` false, stderr goes to /dev/null (a progress
    /// bar's drawing).
    pub fn pty_cols(
        &self,
        cols: usize,
        args: &[&str],
        stderr: bool,
    ) -> rexpect::session::PtySession {
        let stderr = if stderr { "" } else { " 2>/dev/null" };
        let script = format!(
            "stty cols {cols} rows 50 && exec {}{stderr}",
            sh_reconctl(args)
        );
        self.shell_in_pty(&script, 60_000)
    }

    /// The binary in a pseudo-terminal 100×40, in a shell that records `stty -a` before and
    /// after it, then prints `EXIT=<its exit code>` and `DONE`: for a test that the terminal
    /// is left as it was ([`TestEnv::assert_terminal_restored`]).
    pub fn pty_watched(&self, args: &[&str]) -> rexpect::session::PtySession {
        let dir = self.dir.path().display();
        let script = format!(
            "stty cols 100 rows 40; stty -a > '{dir}/stty.before'; {}; echo \"EXIT=$?\"; stty -a > '{dir}/stty.after'; echo DONE",
            sh_reconctl(args)
        );
        self.shell_in_pty(&script, 20_000)
    }

    /// After [`TestEnv::pty_watched`]: the terminal was in line mode with echo on, and is
    /// left exactly so.
    pub fn assert_terminal_restored(&self) {
        let read = |name: &str| std::fs::read_to_string(self.dir.path().join(name)).unwrap();
        let before = read("stty.before");
        assert!(
            before.contains("icanon") && before.contains("echo"),
            "{before}"
        );
        assert_eq!(read("stty.after"), before, "the terminal is restored");
    }

    /// The database goes away: it refuses new connections and every session it holds is
    /// ended (the test's own `client` too). [`TestEnv::come_back`] lets connections in again.
    pub async fn go_away(&self) {
        let admin = connect_url(&admin_url()).await;
        admin
            .batch_execute(&format!(
                "ALTER DATABASE {db} WITH ALLOW_CONNECTIONS false;
                 SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = '{db}' AND pid <> pg_backend_pid();",
                db = self.db_name
            ))
            .await
            .unwrap();
    }

    /// The database takes connections again (after [`TestEnv::go_away`]).
    pub async fn come_back(&self) {
        let admin = connect_url(&admin_url()).await;
        admin
            .batch_execute(&format!(
                "ALTER DATABASE {} WITH ALLOW_CONNECTIONS true",
                self.db_name
            ))
            .await
            .unwrap();
    }

    /// Run the binary with these arguments (no stdin).
    pub fn run(&self, args: &[&str]) -> Run {
        Run(self
            .cmd()
            .args(args)
            .write_stdin("")
            .output()
            .expect("run reconctl"))
    }

    /// Insert a job directly in `state`, with a `seed` event so the history chains.
    pub async fn seed(&self, seed: Seed) -> Job {
        let ext = external_ref(
            &seed.tenant,
            &seed.article,
            &seed.revision,
            &seed.destination,
        );
        let hash = payload_hash(seed.payload.as_bytes());
        let in_flight = seed.state == State::InFlight;
        let lease_owner = if in_flight {
            Some(
                seed.lease_owner
                    .clone()
                    .unwrap_or_else(|| "worker-1".into()),
            )
        } else {
            None
        };
        let lease_secs: Option<f64> = if in_flight {
            Some(seed.lease_expires_in_secs.unwrap_or(300) as f64)
        } else {
            None
        };
        let remote_id = if seed.state == State::Accepted {
            Some(seed.remote_id.clone().unwrap_or_else(|| "remote-1".into()))
        } else {
            seed.remote_id.clone()
        };
        let sent_ago: Option<f64> = seed.sent_ago_secs.map(|s| s as f64);
        let state_age = seed.state_age_secs as f64;
        let created_age = seed.created_age_secs.unwrap_or(seed.state_age_secs) as f64;
        let row = self
            .client
            .query_one(
                &format!(
                    "WITH j AS (
                       INSERT INTO publication_jobs (tenant_id, article_id, revision_id, destination,
                           external_ref, payload_hash, state, attempts, lease_owner, lease_expires_at,
                           sent_at, remote_id, created_at, updated_at, state_changed_at)
                       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
                           now() + make_interval(secs => $10::float8),
                           now() - make_interval(secs => $11::float8), $12,
                           now() - make_interval(secs => $14::float8),
                           now() - make_interval(secs => $13::float8),
                           now() - make_interval(secs => $13::float8))
                       RETURNING *
                     ), e AS (
                       INSERT INTO job_events (job_id, actor, action, from_state, to_state, from_version, to_version, reason)
                       SELECT id, 'seed', 'seed', NULL, state, NULL, version, 'test fixture' FROM j
                     )
                     SELECT {} FROM j",
                    reconctl::jobs::model::JOB_COLUMNS
                ),
                &[
                    &seed.tenant,
                    &seed.article,
                    &seed.revision,
                    &seed.destination,
                    &ext,
                    &hash,
                    &seed.state.as_str(),
                    &seed.attempts,
                    &lease_owner,
                    &lease_secs,
                    &sent_ago,
                    &remote_id,
                    &state_age,
                    &created_age,
                ],
            )
            .await
            .expect("seed a job");
        Job::from_row(&row).unwrap()
    }

    pub async fn job(&self, id: uuid::Uuid) -> Job {
        reconctl::jobs::store::get(&self.client, &reconctl::jobs::JobRef::Id(id))
            .await
            .expect("job exists")
    }

    pub async fn events(&self, id: uuid::Uuid) -> Vec<reconctl::jobs::Event> {
        reconctl::jobs::store::events(&self.client, id)
            .await
            .unwrap()
    }

    pub async fn count(&self, sql: &str) -> i64 {
        self.client.query_one(sql, &[]).await.unwrap().get(0)
    }

    /// The first column of every row of `sql`.
    pub async fn column<T: for<'a> tokio_postgres::types::FromSql<'a>>(&self, sql: &str) -> Vec<T> {
        let rows = self.client.query(sql, &[]).await.unwrap();
        rows.iter().map(|r| r.get(0)).collect()
    }

    /// The invariants every test must leave behind (see `check_invariants`).
    pub async fn assert_invariants(&self) {
        let problems = check_invariants(&self.client).await;
        assert!(
            problems.is_empty(),
            "invariants broken:\n{}",
            problems.join("\n")
        );
    }

    /// A config file in the test's directory; returns its path.
    pub fn write_config(&self, toml: &str) -> String {
        let path = self.dir.path().join("config.toml");
        std::fs::write(&path, toml).unwrap();
        path.to_string_lossy().into_owned()
    }
}

/// Every change of state has exactly one event; events chain without gaps (from_version =
/// the previous to_version, from_state = the previous to_state, the last one = the job now);
/// no lease outside in_flight; accepted has a remote_id.
/// A table held by another session ([`TestEnv::hold`]).
pub struct Held<'a> {
    env: &'a TestEnv,
    locker: Client,
}

impl Held<'_> {
    /// The other session lets the table go, and the env's client waits for locks as before.
    pub async fn release(self) {
        self.locker.batch_execute("ROLLBACK").await.unwrap();
        self.env
            .client
            .batch_execute("RESET lock_timeout")
            .await
            .unwrap();
    }
}

pub async fn check_invariants(c: &Client) -> Vec<String> {
    let mut problems = Vec::new();
    let has_schema: bool = c
        .query_one("SELECT to_regclass('publication_jobs') IS NOT NULL", &[])
        .await
        .unwrap()
        .get(0);
    if !has_schema {
        return problems;
    }
    let rows = c
        .query(
            "SELECT j.id::text, j.state, j.version,
                    coalesce(json_agg(json_build_array(e.from_state, e.to_state, e.from_version, e.to_version) ORDER BY e.id)
                             FILTER (WHERE e.id IS NOT NULL), '[]')::text
             FROM publication_jobs j LEFT JOIN job_events e ON e.job_id = j.id
             GROUP BY j.id",
            &[],
        )
        .await
        .unwrap();
    for row in rows {
        let id: String = row.get(0);
        let state: String = row.get(1);
        let version: i64 = row.get(2);
        let events: Vec<(Option<String>, String, Option<i64>, i64)> =
            serde_json::from_str(&row.get::<_, String>(3)).unwrap();
        let Some(first) = events.first() else {
            problems.push(format!("job {id}: no events"));
            continue;
        };
        if first.0.is_some() || first.2.is_some() {
            problems.push(format!(
                "job {id}: first event is not a creation: {first:?}"
            ));
        }
        for w in events.windows(2) {
            let (prev, next) = (&w[0], &w[1]);
            if next.2 != Some(prev.3) || next.0.as_deref() != Some(prev.1.as_str()) {
                problems.push(format!(
                    "job {id}: events do not chain: {prev:?} then {next:?}"
                ));
            }
        }
        let last = events.last().unwrap();
        if last.3 != version || last.1 != state {
            problems.push(format!(
                "job {id}: last event {last:?} does not match the job ({state} v{version})"
            ));
        }
    }
    let bad_leases: i64 = c
        .query_one(
            "SELECT count(*) FROM publication_jobs WHERE (state <> 'in_flight') AND (lease_owner IS NOT NULL OR lease_expires_at IS NOT NULL)",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    if bad_leases > 0 {
        problems.push(format!("{bad_leases} jobs hold a lease outside in_flight"));
    }
    let no_remote: i64 = c
        .query_one(
            "SELECT count(*) FROM publication_jobs WHERE state = 'accepted' AND remote_id IS NULL",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    if no_remote > 0 {
        problems.push(format!("{no_remote} accepted jobs have no remote_id"));
    }
    problems
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        let db = self.db_name.clone();
        let check = !self.skip_invariants && !std::thread::panicking();
        let url = self.url.clone();
        // Async work cannot run in Drop on the test's runtime: use a thread with its own.
        let problems = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let mut problems = Vec::new();
                if check {
                    let c = connect_url(&url).await;
                    problems = check_invariants(&c).await;
                }
                let admin = connect_url(&admin_url()).await;
                let _ = admin
                    .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
                    .await;
                problems
            })
        })
        .join()
        .unwrap_or_default();
        if !problems.is_empty() && !std::thread::panicking() {
            panic!(
                "invariants broken at the end of the test:\n{}",
                problems.join("\n")
            );
        }
    }
}

/// A job to seed; `Seed::new("a1")` is a pending job for tenant t1, revision 1, cms-a.
#[derive(Debug, Clone)]
pub struct Seed {
    pub tenant: String,
    pub article: String,
    pub revision: String,
    pub destination: String,
    pub payload: String,
    pub state: State,
    pub attempts: i32,
    pub lease_owner: Option<String>,
    /// Seconds until the lease expires (negative: expired that long ago).
    pub lease_expires_in_secs: Option<i64>,
    pub sent_ago_secs: Option<i64>,
    pub remote_id: Option<String>,
    pub state_age_secs: i64,
    pub created_age_secs: Option<i64>,
}

impl Seed {
    pub fn new(article: &str) -> Seed {
        Seed {
            tenant: "t1".into(),
            article: article.into(),
            revision: "1".into(),
            destination: "cms-a".into(),
            payload: format!("payload of {article}"),
            state: State::Pending,
            attempts: 0,
            lease_owner: None,
            lease_expires_in_secs: None,
            sent_ago_secs: None,
            remote_id: None,
            state_age_secs: 60,
            created_age_secs: None,
        }
    }

    pub fn state(mut self, state: State) -> Seed {
        self.state = state;
        self
    }

    pub fn destination(mut self, d: &str) -> Seed {
        self.destination = d.into();
        self
    }

    pub fn sent_ago(mut self, secs: i64) -> Seed {
        self.sent_ago_secs = Some(secs);
        self
    }

    pub fn lease(mut self, owner: &str, expires_in_secs: i64) -> Seed {
        self.lease_owner = Some(owner.into());
        self.lease_expires_in_secs = Some(expires_in_secs);
        self
    }

    pub fn aged(mut self, secs: i64) -> Seed {
        self.state_age_secs = secs;
        self
    }

    pub fn remote_id(mut self, r: &str) -> Seed {
        self.remote_id = Some(r.into());
        self
    }
}

/// The output of one run of the binary.
pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().unwrap_or(-1)
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.0.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.0.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout(),
                self.stderr()
            )
        })
    }
    /// Assert the exit code, showing the output when it differs.
    pub fn expect(self, code: i32) -> Run {
        assert_eq!(
            self.code(),
            code,
            "unexpected exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }
}

/// `RECONCTL_LONG_TESTS=1`: the race, crash and fuzz trials run their long form (README).
pub fn long_tests() -> bool {
    std::env::var("RECONCTL_LONG_TESTS").is_ok_and(|v| v == "1")
}

/// Every full job id (a UUID, 36 characters) as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, the
/// width kept: for snapshots of text that names a job in full (status's oldest uncertain job).
pub fn mask_uuids(text: &str) -> String {
    let is_uuid = |w: &[u8]| {
        w.len() == 36
            && w.iter().enumerate().all(|(i, c)| match i {
                8 | 13 | 18 | 23 => *c == b'-',
                _ => c.is_ascii_hexdigit(),
            })
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if i + 36 <= bytes.len() && is_uuid(&bytes[i..i + 36]) {
            out.extend_from_slice(b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
            i += 36;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII replaced")
}

/// `cmd` in a pseudo-terminal with `TERM=xterm` and SIGINT reset to its default: a test run
/// started with SIGINT ignored (nohup, some CI runners) would pass that on, and Ctrl-C would
/// do nothing. `timeout_ms` for each expectation.
fn spawn_in_pty(mut cmd: std::process::Command, timeout_ms: u64) -> rexpect::session::PtySession {
    use std::os::unix::process::CommandExt;
    cmd.env("TERM", "xterm");
    // SAFETY: between fork and exec only async-signal-safe calls are allowed; signal(2)
    // is one.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    rexpect::session::spawn_command(cmd, Some(timeout_ms)).expect("spawn in a pty")
}

/// The binary and `args` as words of a shell command, each quoted.
pub fn sh_reconctl(args: &[&str]) -> String {
    let quote = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
    let bin = assert_cmd::cargo::cargo_bin("reconctl");
    std::iter::once(quote(&bin.to_string_lossy()))
        .chain(args.iter().map(|a| quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// rexpect reads the terminal byte by byte, one `char` per byte: text to look for in a
/// pseudo-terminal, matched that way.
/// The count of uncertain jobs in a `status -o json` document (or a `--watch` line).
pub fn uncertain_count(doc: &serde_json::Value) -> i64 {
    doc["states"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["state"] == "uncertain")
        .unwrap()["count"]
        .as_i64()
        .unwrap()
}

pub fn pty_text(s: &str) -> String {
    s.bytes().map(char::from).collect()
}

/// What rexpect read (one `char` per byte) as the UTF-8 text it was: the inverse of
/// [`pty_text`].
pub fn pty_utf8(read: &str) -> String {
    let bytes: Vec<u8> = read.chars().map(|c| c as u32 as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Everything a pseudo-terminal shows from here to the end, as UTF-8.
pub fn pty_rest(p: &mut rexpect::session::PtySession) -> String {
    pty_utf8(&p.exp_eof().expect("the end of the output"))
}

/// The exit code of the binary run in a pseudo-terminal ([`TestEnv::pty`]).
pub fn pty_exit(p: &rexpect::session::PtySession) -> i32 {
    match p.process.wait().expect("wait for the child") {
        rexpect::process::wait::WaitStatus::Exited(_, code) => code,
        other => panic!("the child did not exit normally: {other:?}"),
    }
}
