//! `reconctl sweep leases`: expired leases back to pending (never sent) or to uncertain (sent).

use clap::Subcommand;

use super::Exit;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Error, Result};

#[derive(Debug, Subcommand)]
pub enum SweepCommand {
    /// Expired leases: never sent → pending, sent → uncertain; batched, SKIP LOCKED
    #[command(
        after_help = "Examples:\n  reconctl sweep leases --grace 30s -q\n  reconctl sweep leases --dry-run -o json\n\ncrontab:\n  * * * * * flock -n /run/reconctl-sweep.lock reconctl sweep leases --grace 30s -q"
    )]
    Leases(LeasesArgs),
}

#[derive(Debug, clap::Args)]
pub struct LeasesArgs {
    /// Only leases that expired more than this long ago
    #[arg(long, default_value = "0s", value_name = "DUR")]
    pub grace: HumanDuration,
    /// Jobs per transaction
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=10_000), value_name = "N")]
    pub batch: u32,
    /// Move at most this many jobs in this run
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "N")]
    pub limit: Option<u64>,
    /// Stop starting new batches after this long
    #[arg(long, value_name = "DUR")]
    pub max_runtime: Option<HumanDuration>,
    /// Count what would move, move nothing
    #[arg(long)]
    pub dry_run: bool,
}

pub async fn run(ctx: &Context, cmd: &SweepCommand) -> Result<Exit> {
    match cmd {
        SweepCommand::Leases(args) => leases(ctx, args).await,
    }
}

async fn leases(_ctx: &Context, _args: &LeasesArgs) -> Result<Exit> {
    Err(Error::bug("sweep leases is not built yet"))
}
