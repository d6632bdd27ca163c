//! `reconctl jobs stuck`: waiting too long, or holding an expired lease.

use crate::cli::Page;
use crate::commands::Exit;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs stuck --older-than 15m\n  reconctl jobs stuck --older-than 1h --destination cms-a -o json"
)]
pub struct Args {
    /// pending or safe_to_retry jobs waiting longer than this (in_flight jobs count once their lease expired)
    #[arg(long, value_name = "DUR", default_value = "15m")]
    pub older_than: HumanDuration,
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    #[command(flatten)]
    pub page: Page,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("jobs stuck is not built yet"))
}
