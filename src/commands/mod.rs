//! One module per subcommand, one handler shape: `run(ctx, args) -> Result<Exit>`.

pub mod check;
pub mod complete;
pub mod destination;
pub mod dev_destination;
pub mod doctor;
pub mod events;
pub mod events_archive;
pub mod generate;
pub mod jobs;
pub mod mark;
pub mod metrics;
pub mod migrate;
pub mod plan;
pub mod reconcile;
pub mod reference;
pub mod remote;
pub mod sandbox;
pub mod status;
pub mod sweep;

use clap::{Args, Subcommand};

use crate::context::Context;
pub use crate::error::Exit;
use crate::error::Result;

/// Ctrl-C or SIGTERM: what ends a command that runs until interrupted (`events --follow`,
/// `--watch`) with exit 0.
pub(crate) async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// The subcommands, each with its arguments beside its handler (the doc comments are the
/// help texts).
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply the embedded schema migrations, or list them
    Migrate(migrate::Args),
    /// Check the connection, migrations, indexes and destinations
    Doctor(doctor::Args),
    /// Count and oldest age per state and destination
    Status(status::Args),
    /// List, show, reserve jobs; find the uncertain and stuck ones
    #[command(subcommand)]
    Jobs(jobs::JobsCommand),
    /// Print the external_ref of a business key
    #[command(name = "ref")]
    Ref(reference::Args),
    /// Ask a destination what it holds
    #[command(subcommand)]
    Remote(remote::RemoteCommand),
    /// Settle a job by hand: accepted, safe-to-retry or failed
    #[command(subcommand)]
    Mark(mark::MarkCommand),
    /// Sweep expired leases (for cron)
    #[command(subcommand)]
    Sweep(sweep::SweepCommand),
    /// Look up every uncertain job and plan (or apply) the justified moves
    Reconcile(reconcile::Args),
    /// Bulk moves by filter: record a plan, review and approve it, apply it exactly as reviewed
    #[command(subcommand)]
    Plan(plan::PlanCommand),
    /// The audit trail across jobs: who changed what, when, on what evidence; --follow streams it
    Events(events::Args),
    /// Prometheus text exposition of counts and oldest ages
    Metrics(metrics::Args),
    /// For cron and alerting: exit 5 when thresholds are exceeded
    Check(check::Args),
    /// A throwaway PostgreSQL and destination with realistic jobs
    Sandbox(sandbox::Args),
    /// Pause a destination during its outage (workers stop claiming its jobs), resume it, list pauses
    #[command(subcommand)]
    Destination(destination::DestinationCommand),
    /// Generate man pages and shell completions
    #[command(hide = true)]
    Generate(generate::Args),
    /// Run the in-memory test destination (for benches and drills)
    #[command(hide = true, name = "dev-destination")]
    DevDestination(dev_destination::Args),
    /// The values a completion script offers (destination names, states, actions)
    #[command(hide = true, name = "__complete")]
    Complete(complete::Args),
}

impl Command {
    /// The commands that read the exact counts (`job_counters`) and per-group probes only:
    /// their sessions read the counters by key ([`crate::db::SessionLimits::counters_by_key`]).
    pub fn reads_counters(&self) -> bool {
        matches!(
            self,
            Command::Status(_) | Command::Check(_) | Command::Metrics(_)
        )
    }
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

/// The job filters `jobs list` and `plan mark` share, each narrowing the selection (AND).
#[derive(Debug, Clone, Args)]
pub struct JobFilter {
    /// Only jobs in this state (repeatable)
    #[arg(long, value_name = "STATE", value_parser = crate::cli::one_of::one_of::<crate::jobs::State>(&crate::jobs::State::NAMES))]
    pub state: Vec<crate::jobs::State>,
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    /// Only jobs of this tenant
    #[arg(long, value_name = "ID")]
    pub tenant: Option<String>,
    /// Only jobs of this article (with --tenant: of that tenant)
    #[arg(long, value_name = "ID")]
    pub article: Option<String>,
    /// Only jobs that have been in their current state longer than this
    #[arg(long, value_name = "DUR")]
    pub older_than: Option<crate::duration::HumanDuration>,
}

impl JobFilter {
    /// Whether any filter was given.
    pub fn any(&self) -> bool {
        !self.state.is_empty()
            || self.destination.is_some()
            || self.tenant.is_some()
            || self.article.is_some()
            || self.older_than.is_some()
    }
}

/// Run the command `ctx` was resolved for. `root` builds the whole clap tree, for the one
/// command that documents it (`generate`); no command reaches back into `cli` for it.
pub async fn run(ctx: &Context, command: &Command, root: fn() -> clap::Command) -> Result<Exit> {
    match command {
        Command::Migrate(args) => migrate::run(ctx, args).await,
        Command::Doctor(args) => doctor::run(ctx, args).await,
        Command::Status(args) => status::run(ctx, args).await,
        Command::Jobs(cmd) => jobs::run(ctx, cmd).await,
        Command::Ref(args) => reference::run(ctx, args).await,
        Command::Remote(cmd) => remote::run(ctx, cmd).await,
        Command::Mark(cmd) => mark::run(ctx, cmd).await,
        Command::Sweep(cmd) => sweep::run(ctx, cmd).await,
        Command::Reconcile(args) => reconcile::run(ctx, args).await,
        Command::Plan(cmd) => plan::run(ctx, cmd).await,
        Command::Events(args) => events::run(ctx, args).await,
        Command::Metrics(args) => metrics::run(ctx, args).await,
        Command::Check(args) => check::run(ctx, args).await,
        Command::Sandbox(args) => sandbox::run(ctx, args).await,
        Command::Destination(cmd) => destination::run(ctx, cmd).await,
        Command::Generate(args) => generate::run(ctx, args, root).await,
        Command::DevDestination(args) => dev_destination::run(ctx, args).await,
        Command::Complete(args) => complete::run(ctx, args).await,
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::Cli;

    fn reads_counters(line: &str) -> bool {
        Cli::try_parse_from(line.split_whitespace())
            .unwrap()
            .command
            .reads_counters()
    }

    #[test]
    fn only_the_counters_readers_read_the_counters_by_key() {
        for line in [
            "reconctl status",
            "reconctl status -v --watch",
            "reconctl metrics",
            "reconctl check --stuck-after 5m",
        ] {
            assert!(reads_counters(line), "{line}");
        }
        // A recount reads the whole table on purpose; the rest read by their own indexes.
        for line in [
            "reconctl doctor --recount",
            "reconctl sweep leases",
            "reconctl jobs uncertain",
            "reconctl events",
            "reconctl migrate",
        ] {
            assert!(!reads_counters(line), "{line}");
        }
    }
}
