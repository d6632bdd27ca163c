//! `reconctl sandbox`: it starts its own PostgreSQL and destination whatever DATABASE_URL the
//! shell has, every command works against it, Ctrl-C leaves no process and no directory
//! behind, and the drill ends with no uncertain job the destination could settle.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use clap::CommandFactory;
use reconctl::cli::Cli;
use serde_json::Value;

use crate::harness::{Seed, TestEnv};

/// The binary with a clean environment. DATABASE_URL points at a server that does not exist:
/// the sandbox must ignore an inherited one.
pub(crate) fn reconctl() -> Command {
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
pub(crate) fn processes_mentioning(needle: &str) -> Vec<String> {
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

pub(crate) fn assert_cleaned_up(dir: &Path) {
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

/// The command path (`jobs list`) an argument list runs, by walking the clap tree.
fn command_path(args: &[&str]) -> String {
    let mut cmd = Cli::command();
    let mut path = Vec::new();
    for a in args {
        match cmd.find_subcommand(a) {
            Some(sub) => {
                path.push(a.to_string());
                cmd = sub.clone();
            }
            None => break,
        }
    }
    path.join(" ")
}

/// Every command a person can run: visible leaves, and groups that run on their own
/// (`migrate`).
fn runnable_commands(cmd: &clap::Command, prefix: &str, out: &mut BTreeSet<String>) {
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let path = format!("{prefix}{}", sub.get_name());
        if sub.get_subcommands().next().is_none() || !sub.is_subcommand_required_set() {
            out.insert(path.clone());
        }
        runnable_commands(sub, &format!("{path} "), out);
    }
}

/// Poll `f` every 100 ms until it returns Some, for at most `secs`.
fn eventually<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: not within {secs} s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn ids(list: &Value) -> Vec<String> {
    list["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("not a job list: {list}"))
        .iter()
        .map(|j| j["id"].as_str().expect("an id").to_string())
        .collect()
}

#[test]
fn sandbox_ignores_an_inherited_database_url_serves_every_command_and_ctrl_c_removes_everything() {
    let sandbox = Running::start();
    let covered = RefCell::new(BTreeSet::new());
    let json = |args: &[&str], code: i32| {
        covered.borrow_mut().insert(command_path(args));
        sandbox.json(args, code)
    };
    let text = |args: &[&str], code: i32| {
        covered.borrow_mut().insert(command_path(args));
        sandbox.expect(args, code)
    };

    // Its own cluster, not the DATABASE_URL the shell had.
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
    assert!(Path::new(&sandbox.config).is_file());

    let migrations = json(&["migrate", "status", "-o", "json"], 0);
    let all = migrations["migrations"]
        .as_array()
        .expect("a migration list");
    assert!(
        !all.is_empty() && all.iter().all(|m| m["state"] == "applied"),
        "the sandbox's database is not migrated: {migrations}"
    );
    text(&["migrate"], 0);
    text(&["doctor"], 0);
    let reference = text(&["ref", "acme", "a-1", "1", "cms-demo"], 0);
    assert_eq!(
        reference.trim(),
        reconctl::jobs::external_ref("acme", "a-1", "1", "cms-demo")
    );
    assert!(text(&["status"], 0).contains("uncertain"));
    json(&["status", "-o", "json"], 0);

    // What the scenario made, seen through the commands.
    let page = json(&["jobs", "list", "--limit", "10", "-o", "json"], 0);
    assert_eq!(ids(&page).len(), 10);
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let next = json(
        &[
            "jobs", "list", "--limit", "10", "--cursor", cursor, "-o", "json",
        ],
        0,
    );
    assert!(ids(&next).iter().all(|id| !ids(&page).contains(id)));
    let uncertain = json(&["jobs", "uncertain", "-o", "json"], 0);
    let uncertain_ids = ids(&uncertain);
    assert_eq!(uncertain_ids.len(), 5, "{uncertain}");
    let accepted = json(
        &[
            "jobs", "list", "--state", "accepted", "--limit", "100", "-o", "json",
        ],
        0,
    );
    assert_eq!(ids(&accepted).len(), 39);
    let failed = json(&["jobs", "list", "--state", "failed", "-o", "json"], 0);
    assert_eq!(ids(&failed).len(), 1);
    // The dead worker's leases expire a second after seeding.
    // `jobs stuck --older-than D` counts a lease once it expired more than D ago (issue 23
    // item 9: the same rule as check --stuck-after), so ask with a second.
    let in_flight = |stuck: &Value| {
        stuck["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["state"] == "in_flight")
            .count()
    };
    let stuck = eventually(10, "four expired leases", || {
        let stuck = json(&["jobs", "stuck", "--older-than", "1s", "-o", "json"], 0);
        (in_flight(&stuck) == 4).then_some(stuck)
    });
    assert_eq!(in_flight(&stuck), 4, "{stuck}");
    let shown = json(&["jobs", "show", &uncertain_ids[0], "-o", "json"], 0);
    assert!(shown.to_string().contains("mark_sent"), "{shown}");

    // Three of the uncertain sends reached the destination, two never did.
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for id in &uncertain_ids {
        let lookup = json(&["remote", "lookup", id, "-o", "json"], 0);
        match lookup["outcome"].as_str() {
            Some("found") => {
                assert_eq!(lookup["verdict"], "accept", "{lookup}");
                assert_eq!(lookup["content_match"], true, "{lookup}");
                found.push(id.clone());
            }
            Some("not_found") => missing.push(id.clone()),
            _ => panic!("unexpected lookup: {lookup}"),
        }
    }
    assert_eq!((found.len(), missing.len()), (3, 2));

    let hash = "ab".repeat(32);
    text(
        &[
            "jobs",
            "reserve",
            "--tenant",
            "acme",
            "--article",
            "a-9000",
            "--revision",
            "1",
            "--destination",
            "cms-demo",
            "--payload-hash",
            &hash,
        ],
        0,
    );
    let marked = json(
        &[
            "mark",
            "accepted",
            &found[0],
            "--reason",
            "the CMS has it",
            "--yes",
            "-o",
            "json",
        ],
        0,
    );
    assert_eq!(marked["job"]["state"], "accepted", "{marked}");
    assert!(marked["event"].is_object(), "{marked}");
    let pending = json(&["jobs", "list", "--state", "pending", "-o", "json"], 0);
    let given_up = json(
        &[
            "mark",
            "failed",
            &ids(&pending)[0],
            "--reason",
            "withdrawn by the editor",
            "--yes",
            "-o",
            "json",
        ],
        0,
    );
    assert_eq!(given_up["job"]["state"], "failed", "{given_up}");

    let swept = json(&["sweep", "leases", "-o", "json"], 0);
    assert_eq!(
        (&swept["to_pending"], &swept["to_uncertain"]),
        (&Value::from(2), &Value::from(2)),
        "{swept}"
    );

    // A "not found" settles once the destination's settle_after (5 s) has passed.
    eventually(15, "a settled not-found", || {
        let lookup = json(&["remote", "lookup", &missing[0], "-o", "json"], 0);
        (lookup["verdict"] == "safe_to_retry").then_some(())
    });
    // The other lost sends left a few milliseconds later; let them settle too.
    std::thread::sleep(Duration::from_millis(500));
    let retry = json(
        &[
            "mark",
            "safe-to-retry",
            &missing[0],
            "--reason",
            "never arrived",
            "--yes",
            "-o",
            "json",
        ],
        0,
    );
    assert_eq!(retry["job"]["state"], "safe_to_retry", "{retry}");

    // Left uncertain: 2 the destination has, 1 it lacks, and the 2 swept sends.
    let plan = json(&["reconcile", "-o", "json"], 0);
    assert_eq!(plan["applied"], false, "{plan}");
    assert_eq!(plan["summary"]["accept"], 3, "{plan}");
    assert_eq!(plan["summary"]["safe_to_retry"], 2, "{plan}");
    let applied = json(&["reconcile", "--apply", "--yes", "-o", "json"], 0);
    assert_eq!(applied["summary"]["moved"], 5, "{applied}");
    assert!(ids(&json(&["jobs", "uncertain", "-o", "json"], 0)).is_empty());
    // The audit trail has every one of those moves, reconcile's among them.
    let trail = json(
        &["events", "--since", "1h", "--limit", "10000", "-o", "json"],
        0,
    );
    let reconciled = trail["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"].as_str().unwrap_or("").starts_with("reconcile_"))
        .count();
    assert_eq!(reconciled, 5, "{trail}");

    // Pausing its destination: listed as paused, and resumed.
    let paused = json(
        &[
            "destination",
            "pause",
            "cms-demo",
            "--reason",
            "CMS answers 503",
            "--yes",
            "-o",
            "json",
        ],
        0,
    );
    assert_eq!(paused["destination"]["paused"], true, "{paused}");
    let listed = json(&["destination", "list", "-o", "json"], 0);
    assert_eq!(listed["destinations"][0]["name"], "cms-demo", "{listed}");
    assert_eq!(listed["destinations"][0]["configured"], true, "{listed}");
    assert_eq!(listed["destinations"][0]["paused"], true, "{listed}");
    text(
        &[
            "destination",
            "resume",
            "cms-demo",
            "--reason",
            "CMS healthy again",
            "--yes",
        ],
        0,
    );

    // Retention: the months before this one archived, and what a prune would then drop.
    let month = chrono::Utc::now().format("%Y-%m").to_string();
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("events.jsonl.gz");
    let archived = json(
        &[
            "events",
            "archive",
            "--before",
            &month,
            "--to",
            file.to_str().unwrap(),
            "-o",
            "json",
        ],
        0,
    );
    assert!(archived["archive"]["sha256"].is_string(), "{archived}");
    let prune = json(
        &[
            "events",
            "prune",
            "--before",
            &month,
            "--dry-run",
            "-o",
            "json",
        ],
        0,
    );
    assert_eq!(prune["pruned"], false, "{prune}");
    // Plans: recorded, shown, listed, approved by a reviewer, applied; another discarded.
    let planned = json(
        &[
            "plan", "mark", "failed", "--state", "pending", "--limit", "1", "--reason", "drill",
            "-o", "json",
        ],
        0,
    );
    let pid = planned["plan"]["id"].as_str().unwrap().to_string();
    text(&["plan", "show", &pid], 0);
    text(&["plan", "list"], 0);
    text(
        &[
            "plan", "approve", &pid, "--reason", "checked", "--actor", "reviewer",
        ],
        0,
    );
    text(&["plan", "apply", &pid, "--yes"], 0);
    let other = json(
        &[
            "plan",
            "mark",
            "accepted",
            "--state",
            "uncertain",
            "--limit",
            "2",
            "--reason",
            "drill",
            "-o",
            "json",
        ],
        0,
    );
    let other = other["plan"]["id"].as_str().unwrap().to_string();
    text(&["plan", "discard", &other, "--reason", "not now"], 0);
    json(
        &[
            "plan",
            "mark",
            "safe-to-retry",
            "--state",
            "conflict",
            "--limit",
            "1",
            "--reason",
            "drill",
            "-o",
            "json",
        ],
        0,
    );

    let metrics = text(&["metrics"], 0);
    assert!(metrics.contains("# TYPE"), "{metrics}");
    // The sandbox plants an out-of-order pair (revision 1 accepted after revision 2): `check`
    // reports it, exit 5, every time.
    let (code, out, err) = sandbox.run(&["check"]);
    covered.borrow_mut().insert("check".into());
    assert_eq!(code, 5, "check exited {code}\n{out}\n{err}");
    assert!(out.contains("out of order"), "{out}");

    let mut expected = BTreeSet::new();
    runnable_commands(&Cli::command(), "", &mut expected);
    expected.remove("sandbox");
    let covered = covered.into_inner();
    let untried: Vec<&String> = expected.difference(&covered).collect();
    assert!(
        untried.is_empty(),
        "commands not tried against the sandbox: {untried:?}"
    );

    let dir = sandbox.interrupt();
    assert_cleaned_up(&dir);
}

#[test]
fn the_drill_passes_with_no_settleable_uncertain_job_left_and_cleans_up() {
    let out = reconctl()
        .args(["sandbox", "--drill", "-o", "json"])
        .stdin(Stdio::null())
        .output()
        .expect("run the drill");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the drill failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let report: Value = serde_json::from_str(&stdout).expect("the drill's JSON report");
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["uncertain_before"], 5, "{report}");
    assert_eq!(report["uncertain_after"], 0, "{report}");
    assert_eq!(report["settleable_after"], 0, "{report}");
    let steps = report["steps"].as_array().expect("steps");
    let commands: Vec<&str> = steps
        .iter()
        .map(|s| s["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands[0], "reconctl status");
    assert!(commands.contains(&"reconctl sweep leases"), "{commands:?}");
    assert!(
        commands.contains(&"reconctl reconcile --apply --yes"),
        "{commands:?}"
    );
    // Every step ends as an operator would expect: 0, but for the misconfigured
    // destination, whose lookup is caught by its controls (unknown, exit 1).
    for step in steps {
        let caught = step["command"]
            .as_str()
            .unwrap()
            .contains("config-with-a-typo");
        let expected = if caught { 1 } else { 0 };
        assert_eq!(step["exit_code"], expected, "{step}");
        if caught {
            let out = step["stdout"].as_str().unwrap();
            assert!(out.contains("controls failed"), "{out}");
            assert!(out.contains("HTTP 404"), "{out}");
            assert!(out.contains("lookup_url's path"), "{out}");
            assert!(out.contains("unknown"), "{out}");
        }
    }
    assert!(
        commands.iter().any(|c| c.contains("config-with-a-typo")),
        "{commands:?}"
    );
    let dir = PathBuf::from(report["dir"].as_str().expect("the sandbox dir"));
    assert_cleaned_up(&dir);
}

#[tokio::test]
async fn the_drill_on_a_given_database_leaves_the_states_and_histories_a_worker_would() {
    let env = TestEnv::new().await;
    // --database-url typed on the command line is used; DATABASE_URL (bogus) is not.
    let out = reconctl()
        .args([
            "sandbox",
            "--drill",
            "-o",
            "json",
            "--database-url",
            &env.url,
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run the drill");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).expect("JSON");
    let mut states = std::collections::BTreeMap::new();
    for row in env
        .client
        .query(
            "SELECT state, count(*) FROM publication_jobs GROUP BY state",
            &[],
        )
        .await
        .unwrap()
    {
        states.insert(row.get::<_, String>(0), row.get::<_, i64>(1));
    }
    let count = |state: &str| states.get(state).copied().unwrap_or(0);
    // 39 confirmed + 3 answers lost + 1 dead worker's send that arrived.
    assert_eq!(count("accepted"), 43, "{states:?}");
    // 6 never claimed + 2 dead before sending.
    assert_eq!(count("pending"), 8, "{states:?}");
    // 2 requests lost + 1 dead worker's send that was lost.
    assert_eq!(count("safe_to_retry"), 3, "{states:?}");
    assert_eq!(count("failed"), 1, "{states:?}");
    assert_eq!(count("uncertain"), 0, "{states:?}");
    assert_eq!(count("in_flight"), 0, "{states:?}");

    // The refused payload conflict left its job exactly as the worker did.
    let id: uuid::Uuid = report["jobs"]["payload_conflict_job"]
        .as_str()
        .expect("payload_conflict_job")
        .parse()
        .expect("a uuid");
    let actions: Vec<String> = env
        .events(id)
        .await
        .into_iter()
        .map(|e| e.action.to_string())
        .collect();
    assert_eq!(actions, ["reserve", "claim", "mark_sent", "complete"]);

    // Revision 1 was accepted after revision 2 of the same article.
    let (tenant, article) = report["jobs"]["out_of_order"]
        .as_str()
        .expect("out_of_order")
        .split_once('/')
        .expect("tenant/article");
    let rows = env
        .client
        .query(
            "SELECT revision_id FROM publication_jobs WHERE tenant_id = $1 AND article_id = $2 \
             AND state = 'accepted' ORDER BY state_changed_at",
            &[&tenant, &article],
        )
        .await
        .unwrap();
    let order: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(order, ["2", "1"]);
    // The harness checks every job's event chain when `env` drops.
}

#[tokio::test]
async fn the_sandbox_refuses_a_given_database_that_already_has_jobs() {
    let env = TestEnv::new().await;
    env.seed(Seed::new("real-1")).await;
    let out = reconctl()
        .args(["sandbox", "--drill", "--database-url", &env.url])
        .stdin(Stdio::null())
        .output()
        .expect("run the sandbox");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("already holds 1 job"), "{stderr}");
    assert_eq!(env.count("SELECT count(*) FROM publication_jobs").await, 1);
}

/// Regression: `sandbox --database-url 'postgresql://alice:p%40ss@…'` echoed the password in
/// its `export` line. Also: its closing text says why the last step, `check`, exits 5.
#[tokio::test]
async fn the_sandbox_never_prints_a_password_and_says_why_check_exits_5() {
    let env = TestEnv::empty().await;
    let mut url = url::Url::parse(&env.url).expect("a URL");
    // The test server trusts the connection: the password only has to be typed.
    url.set_password(Some("p@ss")).unwrap();
    let typed = url.to_string();
    assert!(typed.contains("p%40ss"), "{typed}");
    let mut child = reconctl()
        .args(["sandbox", "--database-url", &typed])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn reconctl sandbox");
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut printed = Vec::new();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        let done = line.starts_with("Everything lives in");
        printed.push(line);
        if done {
            break;
        }
    }
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    let printed = printed.join("\n");
    let err = err.join().unwrap();
    assert!(status.success(), "{status}\n{printed}\n{err}");
    for secret in ["p%40ss", "p@ss"] {
        assert!(
            !printed.contains(secret),
            "the password is printed:\n{printed}"
        );
        assert!(!err.contains(secret), "the password is printed:\n{err}");
    }
    let export = printed
        .lines()
        .find(|l| l.trim().starts_with("export DATABASE_URL="))
        .expect("the export line");
    url.set_password(None).unwrap();
    assert_eq!(export.trim(), format!("export DATABASE_URL='{url}'"));
    assert!(
        printed.contains("set PGPASSWORD too, or put it in ~/.pgpass"),
        "{printed}"
    );
    // The last step, and why it exits 5.
    assert!(printed.contains("  reconctl check\n"), "{printed}");
    assert!(
        printed.contains("exits 5") && printed.contains("out-of-order publication"),
        "{printed}"
    );

    // -o json: no password either, and it says one was left out.
    let env = TestEnv::empty().await;
    let mut url = url::Url::parse(&env.url).unwrap();
    url.set_password(Some("p@ss")).unwrap();
    let run = reconctl()
        .args([
            "sandbox",
            "--drill",
            "-o",
            "json",
            "--database-url",
            url.as_str(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(!text.contains("p%40ss") && !text.contains("p@ss"), "{text}");
}

/// The sandbox ignores DATABASE_URL, so its help does not offer it.
#[test]
fn sandbox_help_does_not_name_database_url_as_its_source() {
    let out = reconctl().args(["sandbox", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(!help.contains("[env: DATABASE_URL]"), "{help}");
    assert!(help.contains("--database-url <URL>"), "{help}");
    assert!(help.contains("DATABASE_URL is ignored here"), "{help}");
    // Everywhere else it is named.
    let out = reconctl().args(["status", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("[env: DATABASE_URL]"));
}

/// Issue 23 item 8: as root under cron's kind of PATH (no sbin directory), the drill still
/// finds `runuser` (in /usr/sbin) and runs; it never depends on PATH for the system's programs.
#[test]
fn item_8_the_drill_runs_as_root_without_sbin_on_path() {
    if !reconctl::sandbox::cluster::is_root() {
        return; // The postgres user and runuser are only needed as root.
    }
    let out = reconctl()
        .env("PATH", "/usr/bin:/bin")
        .args(["sandbox", "--drill", "-o", "json"])
        .stdin(Stdio::null())
        .output()
        .expect("run the drill");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("cannot run"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("the drill's JSON report");
    assert_eq!(report["ok"], true, "{report}");
}
