//! The clap tree. Each subcommand's arguments live beside its handler in `commands/`; this
//! file only assembles them and holds the flags every command shares.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands;
use crate::duration::HumanDuration;
use crate::ui::{ColorChoice, Format};

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
    pub command: Command,
}

/// Flags every command accepts, before or after the subcommand.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// PostgreSQL connection URL [default: libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE]
    #[arg(
        long,
        env = "DATABASE_URL",
        hide_env_values = true,
        global = true,
        value_name = "URL"
    )]
    pub database_url: Option<String>,

    /// Config file with the destinations [default: $XDG_CONFIG_HOME/reconctl/config.toml]
    #[arg(
        long,
        env = "RECONCTL_CONFIG",
        hide_env_values = true,
        global = true,
        value_name = "FILE"
    )]
    pub config: Option<PathBuf>,

    /// Output format
    #[arg(short = 'o', long, value_enum, default_value_t = Format::Table, global = true)]
    pub output: Format,

    /// Who is acting, recorded in every event [default: $USER@host]
    #[arg(
        long,
        env = "RECONCTL_ACTOR",
        hide_env_values = true,
        global = true,
        value_name = "NAME"
    )]
    pub actor: Option<String>,

    /// Longest a single SQL statement may run [default: 10s]
    #[arg(long, global = true, value_name = "DUR")]
    pub statement_timeout: Option<HumanDuration>,

    /// Longest to wait for a row or table lock before giving up with exit 6 [default: 2s]
    #[arg(long, global = true, value_name = "DUR")]
    pub lock_timeout: Option<HumanDuration>,

    /// When to use color (NO_COLOR is honoured with auto)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true, value_name = "WHEN")]
    pub color: ColorChoice,

    /// Print nothing on success (errors still go to stderr)
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Say more (e.g. `check` prints its findings even when healthy)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Open every session read-only: inspection runs on any server of a multi-host URL, a hot
    /// standby included, and PostgreSQL itself refuses any change
    #[arg(long, global = true, env = "RECONCTL_READ_ONLY", hide_env_values = true, value_parser = clap::builder::BoolishValueParser::new())]
    pub read_only: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply the embedded schema migrations, or list them
    Migrate(commands::migrate::Args),
    /// Check the connection, migrations, indexes and destinations
    Doctor(commands::doctor::Args),
    /// Count and oldest age per state and destination
    Status(commands::status::Args),
    /// List, show, reserve jobs; find the uncertain and stuck ones
    #[command(subcommand)]
    Jobs(commands::jobs::JobsCommand),
    /// Print the external_ref of a business key
    #[command(name = "ref")]
    Ref(commands::reference::Args),
    /// Ask a destination what it holds
    #[command(subcommand)]
    Remote(commands::remote::RemoteCommand),
    /// Settle a job by hand: accepted, safe-to-retry or failed
    #[command(subcommand)]
    Mark(commands::mark::MarkCommand),
    /// Sweep expired leases (for cron)
    #[command(subcommand)]
    Sweep(commands::sweep::SweepCommand),
    /// Look up every uncertain job and plan (or apply) the justified moves
    Reconcile(commands::reconcile::Args),
    /// Prometheus text exposition of counts and oldest ages
    Metrics(commands::metrics::Args),
    /// For cron and alerting: exit 5 when thresholds are exceeded
    Check(commands::check::Args),
    /// A throwaway PostgreSQL and destination with realistic jobs
    Sandbox(commands::sandbox::Args),
    /// Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses
    #[command(subcommand)]
    Destination(commands::destination::DestinationCommand),
    /// Generate man pages and shell completions
    #[command(hide = true)]
    Generate(commands::generate::Args),
    /// Run the in-memory test destination (for benches and drills)
    #[command(hide = true, name = "dev-destination")]
    DevDestination(commands::dev_destination::Args),
}

/// The `--yes` / `--dry-run` pair of commands that change jobs.
#[derive(Debug, Clone, Args)]
pub struct Confirmation {
    /// Do not ask; needed to change anything without a terminal
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Show what would happen, change nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// Listing flags shared by the job lists.
#[derive(Debug, Clone, Args)]
pub struct Page {
    /// At most this many jobs (1 to 10000)
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=10_000), value_name = "N")]
    pub limit: u32,
    /// Continue after the last job of a previous page (its `next_cursor`)
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,
}
