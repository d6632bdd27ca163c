//! `reconctl check`: for cron and alerting; exit 5 when a threshold is exceeded.

use super::Exit;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl check\n  reconctl check --max-uncertain 10 --stuck-after 30m || page-oncall\n\nExit codes: 0 healthy (prints nothing unless -v), 5 a threshold is exceeded (one line per violation)."
)]
pub struct Args {
    /// Most uncertain jobs tolerated
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_uncertain: u64,
    /// Most conflict jobs tolerated
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_conflict: u64,
    /// pending/safe_to_retry waiting longer than this, or a lease expired longer ago, is stuck
    #[arg(long, default_value = "15m", value_name = "DUR")]
    pub stuck_after: HumanDuration,
    /// An uncertain job older than this is a violation even within --max-uncertain
    #[arg(long, value_name = "DUR")]
    pub uncertain_after: Option<HumanDuration>,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("check is not built yet"))
}
