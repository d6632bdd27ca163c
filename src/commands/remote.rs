//! `reconctl remote lookup`: ask a destination for a job's external reference.

use clap::Subcommand;

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::JobRef;

#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Ask the destination whether it has the job; print outcome, matches and verdict
    Lookup(LookupArgs),
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl remote lookup 7f0c2a4e-1b7d-4c55-9a0e-3f1f6a0f6b11\n  reconctl remote lookup --destination cms-a --ref pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852\n\nExit codes: 0 a definite answer (accept, conflict, safe_to_retry, wait), 1 unknown (unreachable or unexpected answer)."
)]
pub struct LookupArgs {
    /// The job: its id or its external_ref
    #[arg(value_name = "JOB", required_unless_present = "external_ref", conflicts_with_all = ["destination", "external_ref"])]
    pub job: Option<JobRef>,
    /// The destination to ask (with --ref, without a job)
    #[arg(long, value_name = "NAME", requires = "external_ref")]
    pub destination: Option<String>,
    /// The external_ref to ask for (with --destination)
    #[arg(long = "ref", value_name = "REF", requires = "destination")]
    pub external_ref: Option<String>,
    /// Compare the matches' content hash with this payload hash
    #[arg(long, value_name = "HASH")]
    pub payload_hash: Option<String>,
}

pub async fn run(ctx: &Context, cmd: &RemoteCommand) -> Result<Exit> {
    match cmd {
        RemoteCommand::Lookup(args) => lookup(ctx, args).await,
    }
}

async fn lookup(_ctx: &Context, _args: &LookupArgs) -> Result<Exit> {
    Err(Error::bug("remote lookup is not built yet"))
}
