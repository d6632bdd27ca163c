//! `reconctl sandbox`: it starts its own PostgreSQL and destination whatever DATABASE_URL the
//! shell has, every command works against it, Ctrl-C leaves no process and no directory
//! behind, and the drill ends with no uncertain job the destination could settle.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary with a clean environment. DATABASE_URL points at a server that does not exist:
/// the sandbox must ignore an inherited one.
fn reconctl() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("reconctl"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(
            "DATABASE_URL",
            "postgresql://nobody@127.0.0.1:1/not_this_one",
        )
        .env("RECONCTL_ACTOR", "tester")
        .env("COLUMNS", "120")
        .env("NO_COLOR", "1");
    if let Some(bin) = std::env::var_os("PG_BIN") {
        cmd.env("PG_BIN", bin);
    }
    cmd
}

/// Every process whose command line mentions `needle` (the sandbox's directory).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .chars()
            .all(|c| c.is_ascii_digit())
        {
            continue;
        }
        if let Ok(raw) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
            if cmdline.contains(needle) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

/// A `reconctl sandbox` running as a child process.
struct Running {
    child: Child,
    lines: Receiver<String>,
    /// Everything it printed so far (for failure messages).
    seen: Vec<String>,
    database_url: String,
    config: String,
    dir: PathBuf,
}

impl Running {
    fn start() -> Running {
        let mut child = reconctl()
            .arg("sandbox")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn reconctl sandbox");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut running = Running {
            child,
            lines,
            seen: Vec::new(),
            database_url: String::new(),
            config: String::new(),
            dir: PathBuf::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while running.database_url.is_empty()
            || running.config.is_empty()
            || running.dir.as_os_str().is_empty()
        {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = running.lines.recv_timeout(left).unwrap_or_else(|_| {
                let _ = running.child.kill();
                panic!(
                    "the sandbox printed no environment within 60 s; it printed:\n{}",
                    running.seen.join("\n")
                )
            });
            let quoted = |l: &str, prefix: &str| {
                l.trim()
                    .strip_prefix(prefix)
                    .map(|v| v.trim_matches('\'').to_string())
            };
            if let Some(v) = quoted(&line, "export DATABASE_URL=") {
                running.database_url = v;
            } else if let Some(v) = quoted(&line, "export RECONCTL_CONFIG=") {
                running.config = v;
            } else if let Some(v) = line.trim().strip_prefix("Everything lives in ") {
                running.dir = PathBuf::from(v.trim());
            }
            running.seen.push(line);
        }
        running
    }

    /// The binary pointed at the sandbox, as the printed exports would.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = reconctl();
        cmd.env("DATABASE_URL", &self.database_url)
            .env("RECONCTL_CONFIG", &self.config)
            .args(args)
            .stdin(Stdio::null());
        cmd
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(args).output().expect("run reconctl");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Run, expect `code`, return stdout.
    fn expect(&self, args: &[&str], code: i32) -> String {
        let (got, stdout, stderr) = self.run(args);
        assert_eq!(
            got,
            code,
            "reconctl {} exited {got}, expected {code}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            args.join(" ")
        );
        stdout
    }

    fn json(&self, args: &[&str], code: i32) -> Value {
        let stdout = self.expect(args, code);
        serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "reconctl {} printed no JSON ({e}):\n{stdout}",
                args.join(" ")
            )
        })
    }

    /// Ctrl-C, as a terminal would send it; wait for a clean exit.
    fn interrupt(mut self) -> PathBuf {
        let status = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        let exit = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            assert!(
                Instant::now() < deadline,
                "the sandbox did not stop within 30 s of SIGINT"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(
            exit.success(),
            "the sandbox exited with {exit} after SIGINT"
        );
        std::mem::take(&mut self.dir)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A failed test must not leave a sandbox running.
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill")
                .args(["-INT", &self.child.id().to_string()])
                .status();
            let _ = self.child.wait();
        }
    }
}

fn assert_cleaned_up(dir: &Path) {
    assert!(
        dir.starts_with(std::env::temp_dir()),
        "unexpected sandbox directory {}",
        dir.display()
    );
    assert!(!dir.exists(), "{} is still there", dir.display());
    let needle = dir.display().to_string();
    // pg_ctl stop -w waits for the postmaster; allow its last children a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = processes_mentioning(&needle);
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "processes of the sandbox are still running:\n{}",
            left.join("\n")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sandbox_starts_its_own_cluster_and_ctrl_c_removes_everything() {
    let sandbox = Running::start();
    assert!(
        sandbox
            .database_url
            .starts_with("postgresql://postgres@127.0.0.1:"),
        "{}",
        sandbox.database_url
    );
    assert!(sandbox.dir.is_dir());
    let data_dir = sandbox.dir.join("pg").join("data");
    assert!(
        !processes_mentioning(&data_dir.display().to_string()).is_empty(),
        "no postgres process runs on {}",
        data_dir.display()
    );
    let migrations = sandbox.json(&["migrate", "status", "-o", "json"], 0);
    let all = migrations["migrations"]
        .as_array()
        .expect("a migration list");
    assert!(
        !all.is_empty() && all.iter().all(|m| m["state"] == "applied"),
        "the sandbox's database is not migrated: {migrations}"
    );
    let dir = sandbox.interrupt();
    assert_cleaned_up(&dir);
}
