//! `reconctl sandbox`: a throwaway PostgreSQL and destination with realistic jobs.

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl sandbox            # start, print the environment to export, wait for Ctrl-C\n  reconctl sandbox --drill    # run the incident walk-through and clean up"
)]
pub struct Args {
    /// Run the incident walk-through non-interactively, then clean up
    #[arg(long)]
    pub drill: bool,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("sandbox is not built yet"))
}
