//! The command line: the root of the clap tree and the flags every command shares (each
//! subcommand's arguments live beside its handler in `commands/`), and how what was typed
//! becomes the run's [`Settings`]: parse ([`parse`]), then resolve ([`GlobalArgs::settings`]:
//! the flag, else its environment variable, an empty one counting as unset, else the default).
//!
//! The environment is read here, not by clap: clap would show an inherited `DATABASE_URL` in
//! a usage line, refuse `RECONCTL_READ_ONLY=` and let `RECONCTL_CONFIG=` break every command.

pub mod one_of;

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser};

use crate::commands;
use crate::context::{env_var, Settings};
use crate::duration::HumanDuration;
use crate::error::{Error, Result};
use crate::ui::{ColorChoice, Format, Ui};

#[derive(Debug, Parser)]
#[command(
    name = "reconctl",
    version,
    about = "Find, look up and settle uncertain publication jobs, safely.",
    long_about = "reconctl is the operator's tool for a publishing pipeline's job table: see every job's state, \
find the uncertain and the stuck ones, ask the destination what it really has (by a stable external reference), \
and move a job to accepted or safe_to_retry, each move guarded so that two actors can never both win and every \
move leaves an audit record.",
    after_help = "Examples:\n  reconctl status\n  reconctl jobs uncertain -o json\n  reconctl remote lookup pub_8b8c…\n  reconctl reconcile --apply --yes\n\nExit codes: 0 done, 1 runtime failure, 2 usage, 3 conflict, 4 no such job, 5 attention, 6 busy (safe to re-run)."
)]
pub struct Cli {
    #[command(flatten)]
    pub globals: GlobalArgs,
    #[command(subcommand)]
    pub command: commands::Command,
}

/// The subcommand path as typed (`sweep leases`), for the sessions' application_name.
pub fn command_path(matches: &clap::ArgMatches) -> String {
    let mut names = Vec::new();
    let mut m = matches;
    while let Some((name, sub)) = m.subcommand() {
        names.push(name);
        m = sub;
    }
    names.join(" ")
}

/// Flags every command accepts, before or after the subcommand.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// PostgreSQL connection URL or key=value string [env: DATABASE_URL] [default: as psql: libpq's PG* variables, service file, ~/.pgpass]
    #[arg(long, global = true, value_name = "URL")]
    pub database_url: Option<String>,

    /// Config file with the destinations [env: RECONCTL_CONFIG] [default: $XDG_CONFIG_HOME/reconctl/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Output format
    #[arg(short = 'o', long, value_enum, default_value_t = Format::Table, global = true)]
    pub output: Format,

    /// Who is acting, recorded in every event [env: RECONCTL_ACTOR] [default: $USER@host]
    #[arg(long, global = true, value_name = "NAME")]
    pub actor: Option<String>,

    /// Longest a single SQL statement may run, more than 0 [default: 10s]
    #[arg(long, global = true, value_name = "DUR", value_parser = crate::duration::parse_statement_timeout)]
    pub statement_timeout: Option<HumanDuration>,

    /// Longest to wait for a row or table lock before giving up with exit 6; 0s: do not wait [default: 2s]
    #[arg(long, global = true, value_name = "DUR", value_parser = crate::duration::parse_lock_timeout)]
    pub lock_timeout: Option<HumanDuration>,

    /// When to use color (NO_COLOR is honoured with auto)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Print nothing when an action succeeds; data (lists, status, metrics, -o json) is still printed, and a failure still says why on stderr
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Say more (e.g. `check` prints its findings even when healthy)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Ask for the database password on the terminal when none is found (psql's -W): not in
    /// the URL, PGPASSWORD or ~/.pgpass. Never without a terminal (exit 2); nothing typed is
    /// echoed or printed
    #[arg(short = 'W', long, global = true)]
    pub password: bool,

    /// Open every session read-only: inspection runs on any server of a multi-host URL, a hot
    /// standby included, and PostgreSQL itself refuses any change [env: RECONCTL_READ_ONLY=1]
    #[arg(long, global = true)]
    pub read_only: bool,
}

impl GlobalArgs {
    /// The run's settings: each flag, else its environment variable, else the default.
    /// `command` is the subcommand path as typed (`sweep leases`).
    pub fn settings(&self, command: String) -> Result<Settings> {
        let read_only = self.read_only
            || match env_var("RECONCTL_READ_ONLY").as_deref() {
                None => false,
                Some(v) => match v.to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" | "on" => true,
                    "0" | "false" | "no" | "off" => false,
                    _ => {
                        return Err(Error::usage(format!(
                        "RECONCTL_READ_ONLY must be 1 or 0 (true/false, yes/no, on/off), not `{}`",
                        v.chars().take(40).collect::<String>()
                    )))
                    }
                },
            };
        Ok(Settings {
            database_url_typed: self.database_url.is_some(),
            database_url: self
                .database_url
                .clone()
                .or_else(|| env_var("DATABASE_URL")),
            config: self
                .config
                .clone()
                .or_else(|| env_var("RECONCTL_CONFIG").map(PathBuf::from)),
            format: self.output,
            color: self.color,
            quiet: self.quiet,
            verbose: self.verbose,
            actor: self
                .actor
                .clone()
                .or_else(|| env_var("RECONCTL_ACTOR"))
                .filter(|a| !a.trim().is_empty()),
            statement_timeout: self.statement_timeout.map(|d| d.0),
            lock_timeout: self.lock_timeout.map(|d| d.0),
            read_only,
            ask_password: self.password,
            command,
        })
    }
}

/// What parsing the command line came to.
pub enum Parsed {
    /// A command to run, with its path (`sweep leases`).
    Run(Box<Cli>, String),
    /// Help or the version was asked for, or the line was wrong: already printed; exit so.
    Exit(u8),
}

/// The format, color and quietness asked for, read off the raw arguments (clap has not
/// parsed them, or could not): how a usage error is reported follows the error contract
/// like any other (`-o json` gets its `{"error": …}` on stdout, `--color` is honoured).
fn prescan(args: &[std::ffi::OsString]) -> (Format, ColorChoice) {
    let mut format = Format::Table;
    let mut color = ColorChoice::Auto;
    let words: Vec<String> = args
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let value = |name: &str, i: usize| -> Option<String> {
        let w = &words[i];
        if let Some(v) = w.strip_prefix(&format!("{name}=")) {
            return Some(v.to_string());
        }
        (w == name).then(|| words.get(i + 1).cloned()).flatten()
    };
    for (i, word) in words.iter().enumerate() {
        if word == "--" {
            break;
        }
        let out = value("--output", i).or_else(|| value("-o", i)).or_else(|| {
            word.strip_prefix("-o")
                .filter(|v| !v.is_empty() && !v.starts_with('='))
                .map(str::to_string)
        });
        match out.as_deref() {
            Some("json") => format = Format::Json,
            Some("jsonl") => format = Format::Jsonl,
            Some("table") => format = Format::Table,
            _ => {}
        }
        match value("--color", i).as_deref() {
            Some("always") => color = ColorChoice::Always,
            Some("never") => color = ColorChoice::Never,
            Some("auto") => color = ColorChoice::Auto,
            _ => {}
        }
    }
    (format, color)
}

/// Parse the command line: help and the version are printed (exit 0); a wrong line is a
/// usage error of the error contract (exit 2): clap's own message and usage on stderr, in
/// color only as `--color` says, and with `-o json` also `{"error": …}` on stdout.
pub fn parse(args: Vec<std::ffi::OsString>) -> Parsed {
    let (format, color) = prescan(&args);
    let ui = Ui::new(format, color, false, 0);
    let clap_color = if ui.color() {
        clap::ColorChoice::Always
    } else {
        clap::ColorChoice::Never
    };
    let matches = match Cli::command().color(clap_color).try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return Parsed::Exit(clap_failure(&ui, e)),
    };
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => Parsed::Run(Box::new(cli), command_path(&matches)),
        Err(e) => Parsed::Exit(clap_failure(&ui, e)),
    }
}

fn clap_failure(ui: &Ui, e: clap::Error) -> u8 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            0
        }
        _ => {
            let rendered = e.render().to_string();
            // The message without clap's "error: " and the usage after it, on one line for
            // the JSON document: "… not provided: <JOB>" names what is missing.
            let first = rendered
                .lines()
                .take_while(|l| !l.trim().is_empty() && !l.starts_with("Usage:"))
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
                .trim_start_matches("error: ")
                .to_string();
            let err =
                Error::usage(first).hinted("see `reconctl --help`, or the command's own --help");
            if ui.is_json() {
                ui.json_error(&err);
            }
            let _ = e.print();
            crate::error::exit_code(&Err(err))
        }
    }
}
