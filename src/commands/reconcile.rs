//! `reconctl reconcile`: look up every uncertain job; plan, and with `--apply` make, the moves
//! the evidence justifies.

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl reconcile                       # the plan; nothing changes\n  reconctl reconcile --destination cms-a --concurrency 8 --rps 20\n  reconctl reconcile --apply --yes --max 500\n\nExit codes: 0 every examined job got a definite verdict, 5 conflicts or unknowns remain."
)]
pub struct Args {
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    /// Examine at most this many uncertain jobs
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "N")]
    pub limit: Option<u64>,
    /// Lookups in flight at once
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024), value_name = "N")]
    pub concurrency: u32,
    /// At most this many lookups a second (protect the CMS during its own incident)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), value_name = "N")]
    pub rps: Option<u32>,
    /// Perform the justified moves (else only print the plan)
    #[arg(long)]
    pub apply: bool,
    /// Do not ask before applying; needed without a terminal
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Refuse to move more than this many jobs
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "N")]
    pub max: Option<u64>,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("reconcile is not built yet"))
}
