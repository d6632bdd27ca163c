//! `reconctl status`: per state and destination, how many and how old.

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  reconctl status\n  reconctl status -o json")]
pub struct Args {}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("status is not built yet"))
}
