//! `reconctl sandbox`: a throwaway PostgreSQL and destination with realistic jobs.
//!
//! The sandbox always starts its own cluster unless `--database-url` is typed on its command
//! line: a `DATABASE_URL` inherited from the shell (which may well point at production) is
//! ignored, so a first run can never seed demo jobs into a real database.

use clap::CommandFactory;
use serde::Serialize;

use super::Exit;
use crate::cli::Cli;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::sandbox::Sandbox;
use crate::ui::{Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    long_about = "Start a throwaway PostgreSQL cluster (from the machine's initdb/pg_ctl: PG_BIN, pg_config --bindir, \
/usr/lib/postgresql/*/bin or PATH) in a temporary directory on a free 127.0.0.1 port, a local destination answering \
the lookup contract, a config file for it, and realistic jobs made through the worker API: accepted, pending, \
sends that timed out after the destination accepted them, sends that never arrived, expired leases, a refused \
payload conflict, an out-of-order revision. Prints the environment to export, then waits; Ctrl-C stops and \
removes everything it started.\n\nAn inherited DATABASE_URL is ignored; only --database-url typed on this \
command line makes the sandbox use (and migrate) that database instead, which must hold no jobs.",
    after_help = "Examples:\n  reconctl sandbox            # start, print the environment to export, wait for Ctrl-C\n  reconctl sandbox --drill    # run the incident walk-through and clean up"
)]
pub struct Args {
    /// Run the incident walk-through non-interactively, then clean up
    #[arg(long)]
    pub drill: bool,
}

/// Whether `--database-url` was typed on the command line (not filled from DATABASE_URL).
fn explicit_database_url(ctx: &Context) -> Option<String> {
    let matches = Cli::command()
        .try_get_matches_from(std::env::args_os())
        .ok()?;
    let typed = |m: &clap::ArgMatches| {
        m.value_source("database_url") == Some(clap::parser::ValueSource::CommandLine)
    };
    let sub = matches.subcommand_matches("sandbox");
    if typed(&matches) || sub.is_some_and(typed) {
        ctx.globals.database_url.clone()
    } else {
        None
    }
}

/// Resolves when the sandbox should stop: Ctrl-C, SIGTERM or SIGHUP (terminal closed).
async fn stop_signal() -> Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => { r?; Ok("Ctrl-C") }
        _ = term.recv() => Ok("SIGTERM"),
        _ = hup.recv() => Ok("SIGHUP"),
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let given = explicit_database_url(ctx);
    // Listen for signals from the start, so Ctrl-C during setup also cleans up (dropping
    // the setup future drops what it has started).
    let signal = stop_signal();
    tokio::pin!(signal);
    ctx.ui
        .status("starting the sandbox: PostgreSQL cluster, destination, jobs…");
    let sandbox = tokio::select! {
        s = Sandbox::start(given.as_deref(), &ctx.limits) => s?,
        sig = &mut signal => {
            sig?;
            return Err(Error::runtime("interrupted while starting; everything started was removed"));
        }
    };
    let outcome = if args.drill {
        Err(Error::bug("the drill is not built yet"))
    } else {
        let ready = Ready::new(&sandbox);
        ctx.ui.emit(&ready)?;
        ctx.ui.status(&format!(
            "the sandbox is running; press Ctrl-C to stop it and remove {}",
            sandbox.dir.path().display()
        ));
        let sig = (&mut signal).await?;
        ctx.ui.status(&format!("{sig}: stopping the sandbox…"));
        Ok(Exit::Done)
    };
    let dir = sandbox.dir.path().display().to_string();
    let cleanup = sandbox.shutdown();
    match (&outcome, &cleanup) {
        (_, Err(e)) => ctx.ui.warn(&e.message),
        (Ok(_), Ok(())) => ctx.ui.status(&format!("stopped; removed {dir}")),
        _ => {}
    }
    outcome
}

/// What `reconctl sandbox` prints once it is up.
#[derive(Debug, Serialize)]
struct Ready {
    env: Env,
    dir: String,
    data_dir: Option<String>,
    next: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
#[allow(non_snake_case)]
struct Env {
    DATABASE_URL: String,
    RECONCTL_CONFIG: String,
}

impl Ready {
    fn new(s: &Sandbox) -> Ready {
        Ready {
            env: Env {
                DATABASE_URL: s.database_url.clone(),
                RECONCTL_CONFIG: s.config_path.display().to_string(),
            },
            dir: s.dir.path().display().to_string(),
            data_dir: s.data_dir().map(|d| d.display().to_string()),
            next: vec![
                "reconctl status",
                "reconctl jobs uncertain",
                "reconctl jobs stuck --older-than 1m",
                "reconctl remote lookup JOB",
                "reconctl sweep leases",
                "reconctl reconcile",
                "reconctl reconcile --apply",
            ],
        }
    }
}

impl Render for Ready {
    fn table(&self, _ui: &Ui) -> String {
        let mut out = String::new();
        out.push_str("The sandbox is up. In another shell:\n\n");
        out.push_str(&format!(
            "  export DATABASE_URL='{}'\n",
            self.env.DATABASE_URL
        ));
        out.push_str(&format!(
            "  export RECONCTL_CONFIG='{}'\n\n",
            self.env.RECONCTL_CONFIG
        ));
        out.push_str("Then try:\n");
        for n in &self.next {
            out.push_str(&format!("  {n}\n"));
        }
        out.push_str(&format!("\nEverything lives in {}", self.dir));
        out
    }
}
