//! `reconctl doctor`: connection, migrations, the named unique indexes, each destination.

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  reconctl doctor\n  reconctl doctor -o json")]
pub struct Args {}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("doctor is not built yet"))
}
