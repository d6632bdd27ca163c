//! Connecting exactly as psql does (SPEC §3, issue 12): the same settings reach the same
//! server, database and user; TLS as libpq; a server that never answers is exit 1 naming the
//! host within the connect timeout; every failure says what failed and only the hint that
//! fits; migrate says where it works and asks before settling in a database of others.
//!
//! Each case runs `psql` and `reconctl` with one and the same clean environment (a temporary
//! HOME for `.pgpass`, service files and `~/.postgresql/`).

mod errors;
mod hygiene;
mod migrate;
mod parity;
mod session;
mod timeout;
mod tls;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::harness::Run;

/// One clean environment for both programs: only PATH, a HOME of the test's, and `vars`.
#[derive(Debug, Clone)]
pub struct Env {
    pub home: PathBuf,
    pub vars: Vec<(String, String)>,
}

impl Env {
    pub fn new(home: &Path) -> Env {
        Env {
            home: home.to_path_buf(),
            vars: Vec::new(),
        }
    }

    pub fn var(mut self, k: &str, v: impl Into<String>) -> Env {
        self.vars.push((k.to_string(), v.into()));
        self
    }

    fn apply(&self, cmd: &mut std::process::Command) {
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "120");
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
    }

    /// `reconctl ARGS` in this environment (stdin empty, not a terminal).
    pub fn reconctl(&self, args: &[&str]) -> Timed {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("reconctl"));
        self.apply(&mut cmd);
        cmd.env("XDG_CONFIG_HOME", self.home.join("xdg"))
            .env("RECONCTL_ACTOR", "tester")
            .args(args)
            .stdin(std::process::Stdio::null());
        timed(cmd)
    }

    /// `psql -X -w -At -F'|' [-d CONNINFO] -c SQL` in this environment.
    pub fn psql(&self, psql: &Path, conninfo: Option<&str>, sql: &str) -> Timed {
        let mut cmd = std::process::Command::new(psql);
        self.apply(&mut cmd);
        cmd.args(["-X", "-w", "-A", "-t", "-F", "|"]);
        if let Some(c) = conninfo {
            cmd.args(["-d", c]);
        }
        cmd.args(["-c", sql]).stdin(std::process::Stdio::null());
        timed(cmd)
    }
}

/// A finished run and how long it took.
pub struct Timed {
    pub run: Run,
    pub took: Duration,
}

impl Timed {
    pub fn code(&self) -> i32 {
        self.run.code()
    }
    pub fn stdout(&self) -> String {
        self.run.stdout()
    }
    pub fn stderr(&self) -> String {
        self.run.stderr()
    }
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout(), self.stderr())
    }
    pub fn json(&self) -> serde_json::Value {
        self.run.json()
    }
    pub fn expect(self, code: i32) -> Timed {
        let took = self.took;
        Timed {
            run: self.run.expect(code),
            took,
        }
    }
}

fn timed(mut cmd: std::process::Command) -> Timed {
    let started = Instant::now();
    let out: Output = wait_bounded(&mut cmd, Duration::from_secs(60));
    Timed {
        run: Run(out),
        took: started.elapsed(),
    }
}

/// Run with a hard limit, so a hang fails the test instead of stalling the suite.
fn wait_bounded(cmd: &mut std::process::Command, limit: Duration) -> Output {
    use std::io::Read;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stdout.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stderr.read_to_end(&mut b);
        b
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    }
}

/// What reconctl reports of its session (`migrate --dry-run -o json`: the server's own
/// current_user, current_database() and port), next to psql's for the same settings.
pub fn reconctl_reaches(env: &Env) -> Result<(String, String, String), String> {
    let r = env.reconctl(&["migrate", "--dry-run", "-o", "json"]);
    if r.code() != 0 {
        return Err(r.stderr());
    }
    let t = &r.json()["target"];
    Ok((
        t["database"].as_str().unwrap_or_default().to_string(),
        t["user"].as_str().unwrap_or_default().to_string(),
        t["port"].to_string(),
    ))
}

pub fn psql_reaches(
    env: &Env,
    psql: &Path,
    conninfo: Option<&str>,
) -> Result<(String, String, String), String> {
    let r = env.psql(
        psql,
        conninfo,
        "SELECT current_database(), current_user, current_setting('port')",
    );
    if r.code() != 0 {
        return Err(r.stderr());
    }
    let out = r.stdout();
    let parts: Vec<&str> = out.trim().split('|').collect();
    Ok((
        parts[0].to_string(),
        parts[1].to_string(),
        parts.get(2).unwrap_or(&"").to_string(),
    ))
}

/// psql and reconctl, same environment (`DATABASE_URL` for reconctl is `-d` for psql):
/// both reach the same database as the same user on the same server.
pub fn assert_parity(case: &str, env: &Env, psql: &Path, conninfo: Option<&str>) -> String {
    let mut env_r = env.clone();
    if let Some(c) = conninfo {
        env_r = env_r.var("DATABASE_URL", c);
    }
    let p = psql_reaches(env, psql, conninfo);
    let r = reconctl_reaches(&env_r);
    match (&p, &r) {
        (Ok(p), Ok(r)) => assert_eq!(p, r, "{case}: psql and reconctl reached different places"),
        _ => panic!("{case}: psql {p:?}, reconctl {r:?}"),
    }
    p.unwrap().0
}

/// Both fail (psql's and reconctl's stderr, for the caller to check the messages).
pub fn assert_both_fail(case: &str, env: &Env, psql: &Path, conninfo: &str) -> (String, Timed) {
    let p = psql_reaches(env, psql, Some(conninfo));
    let r =
        env.clone()
            .var("DATABASE_URL", conninfo)
            .reconctl(&["migrate", "--dry-run", "-o", "json"]);
    assert!(p.is_err(), "{case}: psql connected: {p:?}");
    assert_ne!(r.code(), 0, "{case}: reconctl connected: {}", r.stdout());
    (p.unwrap_err(), r)
}

/// Every hint of an `{"error": …}` document, joined.
pub fn hints(doc: &serde_json::Value) -> String {
    doc["error"]["hints"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|x| x.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

/// A private file (mode 0600) with `text`.
pub fn private_file(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The OS user libpq would default to (the password database's name for this process).
pub fn os_user() -> String {
    reconctl::db::conninfo::os_user().expect("the test runs as a user in the password database")
}
