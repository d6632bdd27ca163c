//! `reconctl jobs show JOB`: every column, the lease, the history, the valid moves.

use crate::commands::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::JobRef;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs show 7f0c2a4e-1b7d-4c55-9a0e-3f1f6a0f6b11\n  reconctl jobs show pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852 -o json"
)]
pub struct Args {
    /// The job: its id or its external_ref
    #[arg(value_name = "JOB")]
    pub job: JobRef,
}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("jobs show is not built yet"))
}
