//! `reconctl jobs uncertain`: the jobs nobody knows the outcome of, oldest first.

use crate::cli::Page;
use crate::commands::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs uncertain\n  reconctl jobs uncertain --destination cms-a -o jsonl"
)]
pub struct Args {
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    #[command(flatten)]
    pub page: Page,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("jobs uncertain is not built yet"))
}
