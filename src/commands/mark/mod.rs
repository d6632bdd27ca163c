//! `reconctl mark accepted|safe-to-retry|failed`: an operator settles a job, guarded by its
//! version, checked against the destination, confirmed, and audited.

use clap::Subcommand;

mod flow;
pub mod plan;
pub mod report;

use super::Exit;
use crate::cli::Confirmation;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::JobRef;
use plan::Mark;

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Examples:\n  reconctl mark accepted JOB --remote-id 4711 --reason \"found in CMS by hand\"\n  reconctl mark safe-to-retry JOB --reason \"CMS has no such article after the outage\" --expect-version 5\n  reconctl mark failed JOB --reason \"article withdrawn by the editor\" --yes"
)]
pub enum MarkCommand {
    /// uncertain/conflict → accepted: the destination has it
    Accepted(AcceptedArgs),
    /// uncertain/conflict → safe_to_retry: the destination does not have it
    #[command(name = "safe-to-retry")]
    SafeToRetry(MarkArgs),
    /// pending/safe_to_retry/uncertain/conflict → failed: give up, with a reason
    Failed(MarkArgs),
}

#[derive(Debug, clap::Args)]
pub struct MarkArgs {
    /// The job: its id or its external_ref
    #[arg(value_name = "JOB")]
    pub job: JobRef,
    /// Why (recorded in the event)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// The version the runbook saw; refuse (exit 3) if the job has moved since
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub expect_version: Option<i64>,
    /// Do not consult the destination first (the event records that the lookup was skipped)
    #[arg(long)]
    pub no_lookup: bool,
    #[command(flatten)]
    pub confirm: Confirmation,
}

#[derive(Debug, clap::Args)]
pub struct AcceptedArgs {
    #[command(flatten)]
    pub mark: MarkArgs,
    /// The destination's id for the publication (else taken from the lookup's single match)
    #[arg(long, value_name = "ID")]
    pub remote_id: Option<String>,
}

pub async fn run(ctx: &Context, cmd: &MarkCommand) -> Result<Exit> {
    let (args, mark) = match cmd {
        MarkCommand::Accepted(a) => (
            &a.mark,
            Mark::Accepted {
                remote_id: a.remote_id.clone(),
            },
        ),
        MarkCommand::SafeToRetry(a) => (a, Mark::SafeToRetry),
        MarkCommand::Failed(a) => (a, Mark::Failed),
    };
    flow::mark(ctx, args, &mark).await
}
