//! `reconctl generate`: man pages and completions from the clap tree, so they cannot drift.

use std::path::PathBuf;

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to generate: man or completions
    #[arg(value_parser = ["man", "completions"])]
    pub what: String,
    /// Where to write the files
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("generate is not built yet"))
}
