//! The incident walk-through, run non-interactively against a sandbox: each step is the
//! real binary (`std::env::current_exe`) run with the sandbox's environment, exactly as an
//! operator would type it, and its output shown. The failing CMS is paused first (and a
//! worker's claim, made in-process while it is paused, must get nothing), resumed once it
//! answers again, and only then are its uncertain jobs reconciled. At the end, every job still uncertain is
//! looked up again in-process: the drill passes only when none of them is one the
//! destination could settle (verdict accept, safe_to_retry or conflict).

use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Sandbox, Seeded, DESTINATION};
use crate::config::Config;
use crate::db::SessionLimits;
use crate::error::{Error, Result};
use crate::jobs::query::{self, Listing};
use crate::jobs::{worker, State};
use crate::remote::{Expect, Lookups, Verdict};
use crate::ui::Ui;

/// One command of the walk-through.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// Why an operator runs it.
    pub title: String,
    /// The command line as typed (starting with `reconctl`).
    pub command: String,
    pub exit_code: i32,
    /// The exit codes this step may end with.
    #[serde(skip)]
    pub expected: Vec<i32>,
    pub stdout: String,
    pub stderr: String,
    /// What the drill then checked in-process, as a worker would see it (e.g. that a claim
    /// for a paused destination gets nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<String>,
}

impl Step {
    pub fn ok(&self) -> bool {
        self.expected.contains(&self.exit_code)
    }

    /// How a person reads it: the command, then what it printed.
    pub fn text(&self, number: usize, of: usize) -> String {
        let mut out = format!("── {number}/{of} {} ──\n$ {}\n", self.title, self.command);
        out.push_str(&self.stdout);
        if !self.stdout.is_empty() && !self.stdout.ends_with('\n') {
            out.push('\n');
        }
        for line in self.stderr.lines() {
            out.push_str(line);
            out.push('\n');
        }
        if let Some(v) = &self.verified {
            out.push_str(&format!("✓ {v}\n"));
        }
        if !self.ok() {
            out.push_str(&format!(
                "!! exit {} (expected {:?})\n",
                self.exit_code, self.expected
            ));
        }
        out
    }
}

/// The end of the drill.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub steps: Vec<Step>,
    pub uncertain_before: usize,
    pub uncertain_after: usize,
    /// Uncertain jobs left that a lookup now would move (accept, safe_to_retry, conflict).
    pub settleable_after: usize,
    pub ok: bool,
}

/// Runs the binary with the sandbox's environment.
pub struct Runner {
    exe: std::path::PathBuf,
    env: Vec<(String, String)>,
    color: bool,
}

impl Runner {
    /// `actor` is recorded by the steps' commands; their tables fit `ui`'s width.
    pub fn new(ui: &Ui, actor: &str, sandbox: &Sandbox) -> Result<Runner> {
        // /proc/self/exe runs this very binary even when a rebuild has replaced the file
        // (current_exe() would then name a deleted path).
        let proc_exe = std::path::PathBuf::from("/proc/self/exe");
        let exe = if proc_exe.exists() {
            proc_exe
        } else {
            std::env::current_exe()
                .map_err(|e| Error::runtime(format!("cannot find this executable: {e}")))?
        };
        let columns = ui.width().unwrap_or(120).to_string();
        Ok(Runner {
            exe,
            env: vec![
                ("DATABASE_URL".into(), sandbox.database_url.clone()),
                (
                    "RECONCTL_CONFIG".into(),
                    sandbox.config_path.display().to_string(),
                ),
                ("RECONCTL_ACTOR".into(), actor.to_string()),
                ("COLUMNS".into(), columns),
            ],
            color: ui.color(),
        })
    }

    pub async fn run(&self, title: &str, args: &[&str], expected: &[i32]) -> Result<Step> {
        let mut cmd = tokio::process::Command::new(&self.exe);
        cmd.arg0("reconctl")
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        if self.color {
            cmd.arg("--color=always");
        }
        // The sandbox's URL and config, never the caller's database or libpq settings.
        for var in [
            "PGHOST",
            "PGPORT",
            "PGUSER",
            "PGPASSWORD",
            "PGDATABASE",
            "PGSSLMODE",
            // The drill changes jobs: a read-only session would refuse its moves.
            "RECONCTL_READ_ONLY",
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = cmd
            .output()
            .await
            .map_err(|e| Error::runtime(format!("cannot run {}: {e}", self.exe.display())))?;
        Ok(Step {
            title: title.to_string(),
            command: format!("reconctl {}", shell_words(args)),
            exit_code: out.status.code().unwrap_or(-1),
            expected: expected.to_vec(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            verified: None,
        })
    }
}

/// The arguments as an operator would type them: one with a space in double quotes.
fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A worker asks for a job of the paused `destination` (the library's `claim`, in a
/// transaction that is rolled back whatever it returns): it must get none, while the
/// destination has jobs waiting. A job handed out here is a broken pause, not a drill step
/// that went differently.
async fn claim_while_paused(
    sandbox: &Sandbox,
    limits: &SessionLimits,
    destination: &str,
) -> Result<String> {
    let mut client = sandbox.connect(limits).await?;
    let load = query::destination_load(&client, destination).await?;
    let waiting: i64 = load
        .open
        .iter()
        .filter(|g| State::waiting().contains(&g.state))
        .map(|g| g.count)
        .sum();
    let tx = client.transaction().await?;
    let claimed = worker::claim(
        &tx,
        "drill-worker",
        Duration::from_secs(60),
        Some(destination),
    )
    .await?;
    tx.rollback().await?;
    if let Some(job) = claimed {
        return Err(Error::bug(format!(
            "a worker claimed job {} of the paused destination {destination}",
            job.id
        )));
    }
    Ok(format!(
        "a worker asking for a job of {destination} gets none: {waiting} wait until it is resumed"
    ))
}

/// Count uncertain jobs, and how many of them a lookup now would settle (asked in-process,
/// with the sandbox's own config).
pub async fn uncertain_and_settleable(
    limits: &SessionLimits,
    sandbox: &Sandbox,
) -> Result<(usize, usize)> {
    let client = sandbox.connect(limits).await?;
    let page = query::page(&client, &Listing::uncertain(None), 10_000, None).await?;
    let clock = query::db_clock(&client).await?;
    let config = Config::load(Some(&sandbox.config_path))?;
    let http = crate::remote::build_client()?;
    let lookups = Lookups::new(&config, &http);
    let mut settleable = 0;
    for job in &page.jobs {
        let expect = Expect {
            payload_hash: Some(&job.payload_hash),
            sent_at: job.sent_at,
        };
        let lookup = lookups
            .destination(&job.destination)?
            .ask(&job.external_ref, expect, clock)
            .await;
        if matches!(
            lookup.verdict,
            Verdict::Accept | Verdict::SafeToRetry | Verdict::Conflict
        ) {
            settleable += 1;
        }
    }
    Ok((page.jobs.len(), settleable))
}

/// The walk-through, its commands run as `actor` within `limits`, its waits said on `ui`.
/// `show` receives each step as it finishes (to print it live).
pub async fn drill(
    ui: &Ui,
    actor: &str,
    limits: &SessionLimits,
    sandbox: &Sandbox,
    seeded: &Seeded,
    mut show: impl FnMut(&Step, usize, usize) -> Result<()>,
) -> Result<Outcome> {
    let runner = Runner::new(ui, actor, sandbox)?;
    let (uncertain_before, _) = uncertain_and_settleable(limits, sandbox).await?;
    let lookup_job = seeded.lookup_example.to_string();
    // The same destination with a typo in lookup_url's path: every lookup answers 404,
    // which a careless tool would read as "not found" and retry (a duplicate publication).
    let typo_config = sandbox.dir.path().join("config-with-a-typo.toml");
    std::fs::write(
        &typo_config,
        std::fs::read_to_string(&sandbox.config_path)?.replace("/articles?", "/article?"),
    )?;
    let typo_config = typo_config.display().to_string();
    // (why, the command, its acceptable exit codes, wait out settle_after first)
    let plan: Vec<(&str, Vec<&str>, Vec<i32>, bool)> = vec![
        (
            "What is the state of the pipeline?",
            vec!["status"],
            vec![0],
            false,
        ),
        (
            "The CMS is failing: pause it, so that workers stop sending to it",
            vec![
                "destination",
                "pause",
                DESTINATION,
                "--reason",
                "drill: the CMS times out",
                "--for",
                "30m",
                "--yes",
            ],
            vec![0],
            false,
        ),
        (
            "Which jobs does nobody know the outcome of?",
            vec!["jobs", "uncertain"],
            vec![0],
            false,
        ),
        (
            "Which jobs are stuck: waiting too long, or holding an expired lease?",
            vec!["jobs", "stuck", "--older-than", "10m"],
            vec![0],
            false,
        ),
        (
            "Ask the destination about one of the uncertain jobs",
            vec!["remote", "lookup", &lookup_job],
            vec![0],
            false,
        ),
        (
            "A config with a typo in lookup_url's path is caught: the destination answers 404 for everything, the positive control fails, the verdict is unknown (exit 1) and nothing would move",
            vec!["--config", &typo_config, "remote", "lookup", &lookup_job],
            vec![1],
            false,
        ),
        (
            "The worker that held those leases is gone: sweep them",
            vec!["sweep", "leases"],
            vec![0],
            false,
        ),
        (
            "While it is paused, workers claim none of its jobs",
            vec!["status"],
            vec![0],
            false,
        ),
        (
            "The CMS answers again: resume it",
            vec![
                "destination",
                "resume",
                DESTINATION,
                "--reason",
                "drill: the CMS answers again",
                "--yes",
            ],
            vec![0],
            false,
        ),
        (
            "Plan: look up every uncertain job (changes nothing)",
            vec!["reconcile"],
            vec![0],
            true,
        ),
        (
            "Apply the justified moves",
            vec!["reconcile", "--apply", "--yes"],
            vec![0],
            false,
        ),
        ("And now?", vec!["status"], vec![0], false),
    ];
    let total = plan.len();
    // The dead worker's leases expire a second after seeding; an incident is found later.
    let now = Instant::now();
    if seeded.leases_expired > now {
        tokio::time::sleep(seeded.leases_expired - now).await;
    }
    let mut steps = Vec::new();
    for (i, (title, args, expected, settle_first)) in plan.into_iter().enumerate() {
        if settle_first {
            // A "not found" is trusted only `settle_after` after the send: wait that out,
            // as an operator would, rather than plan `wait` verdicts.
            let ready = seeded.last_sent + seeded.settle_after + Duration::from_millis(300);
            let now = Instant::now();
            if ready > now {
                ui.status(&format!(
                    "(waiting {:.1}s: a \"not found\" is trusted only {}s (the destination's settle_after) after the send)",
                    (ready - now).as_secs_f64(),
                    seeded.settle_after.as_secs()
                ));
                tokio::time::sleep(ready - now).await;
            }
        }
        let mut step = runner.run(title, &args, &expected).await?;
        if title.starts_with("While it is paused") {
            step.verified = Some(claim_while_paused(sandbox, limits, DESTINATION).await?);
        }
        show(&step, i + 1, total)?;
        steps.push(step);
    }
    let (uncertain_after, settleable_after) = uncertain_and_settleable(limits, sandbox).await?;
    let ok = steps.iter().all(Step::ok) && settleable_after == 0;
    Ok(Outcome {
        steps,
        uncertain_before,
        uncertain_after,
        settleable_after,
        ok,
    })
}
