//! `reconctl sandbox`: a throwaway PostgreSQL and destination with realistic jobs.
//!
//! The sandbox always starts its own cluster unless `--database-url` is typed on its command
//! line: a `DATABASE_URL` inherited from the shell (which may well point at production) is
//! ignored, so a first run can never seed demo jobs into a real database.

use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::sandbox::{drill, Sandbox, Seeded, DESTINATION, SETTLE_AFTER};
use crate::ui::{paragraphs, Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl sandbox            # start, print the environment to export, wait for Ctrl-C\n  reconctl sandbox --drill    # run the incident walk-through and clean up\n  scripts/demo                # build the release binary and run the drill\n\n\
The sandbox starts its own PostgreSQL cluster from this machine's initdb and pg_ctl (PG_BIN, pg_config --bindir, \
/usr/lib/postgresql/*/bin or PATH; Debian/Ubuntu: apt-get install postgresql) in a temporary directory, on a free \
127.0.0.1 port. An inherited DATABASE_URL is ignored, so a first run never adds demo jobs to a real database; only \
--database-url typed on this command line makes it use (and migrate) that database, which must hold no jobs. \
Ctrl-C stops and removes everything it started."
)]
pub struct Args {
    /// Run the incident walk-through non-interactively, then clean up
    #[arg(long)]
    pub drill: bool,
    /// Use and migrate this database (it must hold no jobs) instead of a throwaway cluster; DATABASE_URL is ignored here
    // The global flag's own help names DATABASE_URL, which the sandbox never reads: the same
    // argument id here takes its place on this command (clap does not propagate a global
    // argument to a command that has one of that id).
    #[arg(long, value_name = "URL", help_heading = "Global options")]
    pub database_url: Option<String>,
}

/// `--database-url` when it was typed on the command line (not filled from DATABASE_URL).
fn explicit_database_url(ctx: &Context) -> Option<String> {
    ctx.settings
        .database_url_typed
        .then(|| ctx.settings.database_url.clone())
        .flatten()
}

/// The signals that stop the sandbox, listened for from the moment this returns (before any
/// setup): Ctrl-C, SIGTERM and SIGHUP (the terminal closed).
struct StopSignals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn install() -> Result<StopSignals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(StopSignals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// Resolves when one arrives, naming it.
    async fn next(&mut self) -> Result<&'static str> {
        tokio::select! {
            _ = self.int.recv() => Ok("Ctrl-C"),
            _ = self.term.recv() => Ok("SIGTERM"),
            _ = self.hup.recv() => Ok("SIGHUP"),
        }
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let given = args
        .database_url
        .clone()
        .or_else(|| explicit_database_url(ctx));
    // Listen for signals before anything is set up, so Ctrl-C during setup also cleans up
    // (dropping the setup future drops, and so stops and removes, what it has started).
    let mut signals = StopSignals::install()?;
    let signal = signals.next();
    tokio::pin!(signal);
    ctx.ui.status(if given.is_some() {
        "starting the sandbox: migrating the given database, starting a destination, making jobs…"
    } else {
        "starting the sandbox: a throwaway PostgreSQL cluster, a destination, jobs…"
    });
    let sandbox = tokio::select! {
        s = Sandbox::start(given.as_deref(), &ctx.limits) => s?,
        sig = &mut signal => {
            return Err(Error::runtime(format!(
                "{}: interrupted while starting; everything started was stopped and removed",
                sig?
            )));
        }
    };
    let outcome = if args.drill {
        tokio::select! {
            r = run_drill(ctx, &sandbox) => r,
            sig = &mut signal => Err(Error::runtime(format!("{}: drill interrupted", sig?))),
        }
    } else {
        wait_for_stop(ctx, &sandbox, &mut signal).await
    };
    let dir = sandbox.dir.path().display().to_string();
    // pg_ctl stop blocks: off the async threads.
    let stopped = tokio::task::spawn_blocking(move || sandbox.shutdown())
        .await
        .map_err(|e| Error::bug(format!("the sandbox's shutdown was lost: {e}")))
        .and_then(|r| r);
    match stopped {
        Err(e) => ctx.ui.warn(e.message()),
        Ok(()) => ctx.ui.status(&format!("sandbox stopped; removed {dir}")),
    }
    outcome
}

async fn wait_for_stop(
    ctx: &Context,
    sandbox: &Sandbox,
    signal: &mut std::pin::Pin<&mut impl std::future::Future<Output = Result<&'static str>>>,
) -> Result<Exit> {
    ctx.ui.emit(&Ready::new(sandbox))?;
    ctx.ui.status(&format!(
        "the sandbox is running; press Ctrl-C to stop it and remove {}",
        sandbox.dir.path().display()
    ));
    let sig = signal.await?;
    ctx.ui.status(&format!("{sig}: stopping the sandbox…"));
    Ok(Exit::Done)
}

async fn run_drill(ctx: &Context, sandbox: &Sandbox) -> Result<Exit> {
    // Step by step on a terminal or in a log; nothing with -q unless it fails (the failure
    // is the error, on stderr) and nothing but the document with -o json.
    let live = !ctx.ui.is_json() && !ctx.ui.quiet;
    if live {
        let text = Ready::new(sandbox).jobs_text();
        ctx.ui
            .out(&paragraphs(&text, ctx.ui.width().map(usize::from)))?;
    }
    let outcome = drill::drill(
        &ctx.ui,
        &ctx.actor,
        &ctx.limits,
        sandbox,
        &sandbox.seeded,
        |step, n, of| {
            if live {
                ctx.ui.out(&step.text(n, of))?;
            }
            Ok(())
        },
    )
    .await?;
    let report = DrillReport {
        outcome,
        jobs: sandbox.seeded.clone(),
        dir: sandbox.dir.path().display().to_string(),
    };
    ctx.ui.emit(&report)?;
    let failed: Vec<String> = report
        .outcome
        .steps
        .iter()
        .filter(|s| !s.ok())
        .map(|s| format!("`{}` exited {}", s.command, s.exit_code))
        .collect();
    if !failed.is_empty() {
        return Err(Error::runtime(format!(
            "the drill did not go as an operator would expect: {}",
            failed.join(", ")
        )));
    }
    if report.outcome.settleable_after > 0 {
        // Like `check`: the report is printed, the exit code says a person should look.
        ctx.ui.warn(&format!(
            "the drill ended with {} uncertain job(s) the destination could settle",
            report.outcome.settleable_after
        ));
        return Ok(Exit::Attention);
    }
    Ok(Exit::Done)
}

/// What `reconctl sandbox` prints once it is up.
#[derive(Debug, Serialize)]
struct Ready {
    env: Env,
    /// The URL had a password, left out of `env` (and of everything printed).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    password_omitted: bool,
    dir: String,
    data_dir: Option<String>,
    destination: Destination,
    jobs: Seeded,
    next: Vec<String>,
}

#[derive(Debug, Serialize)]
#[allow(non_snake_case)]
struct Env {
    DATABASE_URL: String,
    RECONCTL_CONFIG: String,
}

#[derive(Debug, Serialize)]
struct Destination {
    name: &'static str,
    url: String,
    settle_after: String,
}

impl Ready {
    fn new(s: &Sandbox) -> Ready {
        // A password typed into --database-url is never printed (SPEC §4: secrets only come
        // from the environment): the export line names the rest of the URL.
        let (url, password_omitted) = without_password(&s.database_url);
        Ready {
            password_omitted,
            env: Env {
                DATABASE_URL: url,
                RECONCTL_CONFIG: s.config_path.display().to_string(),
            },
            dir: s.dir.path().display().to_string(),
            data_dir: s.data_dir().map(|d| d.display().to_string()),
            destination: Destination {
                name: DESTINATION,
                url: s.destination.server.url(),
                settle_after: format!("{}s", SETTLE_AFTER.as_secs()),
            },
            jobs: s.seeded.clone(),
            next: vec![
                "reconctl status".into(),
                "reconctl jobs uncertain".into(),
                "reconctl jobs stuck --older-than 10m".into(),
                format!("reconctl remote lookup {}", s.seeded.lookup_example),
                "reconctl sweep leases".into(),
                "reconctl reconcile".into(),
                "reconctl reconcile --apply".into(),
                "reconctl check".into(),
            ],
        }
    }

    /// The jobs it made, for people.
    fn jobs_text(&self) -> String {
        let j = &self.jobs;
        format!(
            "The sandbox made these jobs through the worker API, against destination {name} ({url}, settle_after {settle}):\n\
             \x20 {accepted} accepted, {pending} pending, {failed} failed (refused by the destination)\n\
             \x20 {has} uncertain: the send timed out, but the destination has the article\n\
             \x20 {lacks} uncertain: the send never arrived\n\
             \x20 {unsent} in_flight with an expired lease, never sent (the worker died before sending)\n\
             \x20 {sent} in_flight with an expired lease, sent (one arrived, one did not)\n\
             \x20 a payload conflict: {conflict} reserved again with other content was refused; the existing job is unchanged\n\
             \x20 an out-of-order revision: {ooo} revision 1 was accepted after revision 2\n",
            name = self.destination.name,
            url = self.destination.url,
            settle = self.destination.settle_after,
            accepted = j.accepted,
            pending = j.pending,
            failed = j.failed,
            has = j.uncertain_remote_has,
            lacks = j.uncertain_remote_lacks,
            unsent = j.expired_leases_unsent,
            sent = j.expired_leases_sent,
            conflict = j.payload_conflict,
            ooo = j.out_of_order,
        )
    }
}

impl Render for Ready {
    fn table(&self, ui: &Ui) -> String {
        // Prose is wrapped to the terminal; the lines to copy (exports, commands, the
        // directory) are left whole, however long.
        let width = ui.width().map(usize::from);
        let mut out = paragraphs(&self.jobs_text(), width);
        out.push_str("\nIn another shell:\n\n");
        out.push_str(&format!(
            "  export DATABASE_URL='{}'\n",
            self.env.DATABASE_URL
        ));
        out.push_str(&format!(
            "  export RECONCTL_CONFIG='{}'\n",
            self.env.RECONCTL_CONFIG
        ));
        if self.password_omitted {
            out.push_str(&paragraphs(
                "  # the password given in --database-url is not shown: set PGPASSWORD too, or put it in ~/.pgpass",
                width,
            ));
            out.push('\n');
        }
        out.push_str("\nThen try:\n");
        for n in &self.next {
            out.push_str(&format!("  {n}\n"));
        }
        out.push('\n');
        out.push_str(&paragraphs(
            &format!(
                "The last one, `reconctl check`, exits 5 even after the reconcile: the sandbox planted an \
                 out-of-order publication ({} revision 1 accepted after revision 2), which no \
                 reconcile undoes and which check reports for a person to look at. Exit 5 is how \
                 cron and alerting learn that someone should look.",
                self.jobs.out_of_order
            ),
            width,
        ));
        out.push('\n');
        out.push_str(&format!("\nEverything lives in {}", self.dir));
        out
    }

    /// How to reach the sandbox: what the command exists to print.
    fn output(&self) -> Output {
        Output::Data
    }
}

/// `url` without a password (in the user info of a URL, a `password=` query parameter, or a
/// `password=` pair of a key=value string), and whether there was one.
fn without_password(url: &str) -> (String, bool) {
    let t = url.trim();
    if let Some(scheme_end) = ["postgresql://", "postgres://"]
        .iter()
        .find(|s| t.starts_with(*s))
        .map(|s| s.len())
    {
        let (head, rest) = t.split_at(scheme_end);
        let mut omitted = false;
        // As libpq reads it: the user info ends at the first `@` before any `/`.
        let rest = match rest.find(['@', '/']) {
            Some(i) if rest.as_bytes()[i] == b'@' => {
                let (info, tail) = rest.split_at(i);
                match info.split_once(':') {
                    Some((user, _)) => {
                        omitted = true;
                        format!("{user}{tail}")
                    }
                    None => rest.to_string(),
                }
            }
            _ => rest.to_string(),
        };
        let rest = match rest.split_once('?') {
            Some((base, query)) => {
                let kept: Vec<&str> = query
                    .split('&')
                    .filter(|p| {
                        let secret = p.split('=').next() == Some("password");
                        omitted |= secret;
                        !secret
                    })
                    .collect();
                if kept.is_empty() {
                    base.to_string()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
            None => rest,
        };
        return (format!("{head}{rest}"), omitted);
    }
    // key=value pairs: drop `password = value` (a value may be quoted, with \' inside).
    let mut out = String::new();
    let mut omitted = false;
    let mut rest = t;
    while !rest.is_empty() {
        let pair_start = rest.len() - rest.trim_start().len();
        let body = &rest[pair_start..];
        let key_end = body
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(body.len());
        let key = &body[..key_end];
        let after_key = body[key_end..].trim_start();
        let Some(value) = after_key.strip_prefix('=') else {
            out.push_str(rest);
            break;
        };
        let value = value.trim_start();
        let value_len = if let Some(quoted) = value.strip_prefix('\'') {
            let mut escaped = false;
            let mut end = quoted.len();
            for (i, c) in quoted.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '\'' if !escaped => {
                        end = i + 1;
                        break;
                    }
                    _ => escaped = false,
                }
            }
            1 + end
        } else {
            value.find(char::is_whitespace).unwrap_or(value.len())
        };
        let consumed = rest.len() - value.len() + value_len;
        if key == "password" {
            omitted = true;
        } else {
            out.push_str(&rest[..consumed]);
        }
        rest = &rest[consumed..];
    }
    (out.trim().to_string(), omitted)
}

/// The drill's result: `-o json` gets every step with its output.
#[derive(Debug, Serialize)]
struct DrillReport {
    #[serde(flatten)]
    outcome: drill::Outcome,
    jobs: Seeded,
    /// Where it ran (removed by the time the command exits).
    dir: String,
}

impl Render for DrillReport {
    fn output(&self) -> Output {
        Output::Report
    }

    fn table(&self, ui: &Ui) -> String {
        let o = &self.outcome;
        format!(
            "── drill {} ──\n{}",
            if o.ok { "passed" } else { "FAILED" },
            paragraphs(
                &format!(
                    "uncertain jobs: {} before, {} after; of those left, {} the destination could settle now",
                    o.uncertain_before, o.uncertain_after, o.settleable_after
                ),
                ui.width().map(usize::from)
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::without_password;

    #[test]
    fn a_password_is_never_printed() {
        let cases = [
            (
                "postgresql://alice:p%40ss@db:5432/x",
                "postgresql://alice@db:5432/x",
                true,
            ),
            ("postgres://alice@db/x", "postgres://alice@db/x", false),
            (
                "postgresql://db/x?user=a&password=s3&sslmode=disable",
                "postgresql://db/x?user=a&sslmode=disable",
                true,
            ),
            (
                "postgresql://a:b@db/x?password=s3",
                "postgresql://a@db/x",
                true,
            ),
            ("postgresql://db/x:y@z", "postgresql://db/x:y@z", false),
            ("host=db password=s3 dbname=x", "host=db dbname=x", true),
            (
                "host=db password = 'it\\'s x' dbname=x",
                "host=db dbname=x",
                true,
            ),
            ("host=db dbname=x", "host=db dbname=x", false),
        ];
        for (url, want, omitted) in cases {
            assert_eq!(without_password(url), (want.to_string(), omitted), "{url}");
        }
    }
}
