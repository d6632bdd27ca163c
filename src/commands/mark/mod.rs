//! `reconctl mark accepted|safe-to-retry|failed`: an operator settles a job, guarded by its
//! version, checked against the destination, confirmed, and audited.

use clap::Subcommand;

pub(crate) mod flow;
pub mod plan;
pub mod report;

use super::Exit;
use crate::commands::Confirmation;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::{Action, JobRef};
use plan::Mark;

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Examples:\n  reconctl mark accepted JOB --reason \"CMS shows it\"\n  reconctl mark safe-to-retry JOB --reason \"CMS lacks it\" --expect-version 5\n  reconctl mark failed JOB --reason \"withdrawn by the editor\" --yes\n\nJOB is a job id or an external_ref. Exit 3: the job moved, the move is not allowed from its\nstate, or the destination contradicts the mark. Exit 6: the row is locked; safe to re-run."
)]
pub enum MarkCommand {
    #[command(
        about = Action::MarkAccepted.transition().summary(),
        after_help = concat!("The remote_id is taken from the destination's single match, or checked against it; the destination's answer counts only when a control made after it passes. A remote id recorded for another article at the destination is refused. One copy whose content differs from the job's payload is accepted only with --accept-different-content, recorded in the event. From safe_to_retry, accepted corrects a wrong judgement before a worker sends the job again.\n\n", "Consent: on a terminal without --yes, the job, the move and the destination's evidence are shown and the mark asks (default no); declining changes nothing and exits 2. After a yes the destination is asked again and the move stands on that answer only. Without a terminal and without --yes it refuses before asking the destination anything (exit 2). --dry-run proves the move against the database and rolls it back. Nothing is locked while the destination is asked or a person thinks: the move is one statement guarded by the version shown, so a job that moved meanwhile is a conflict (exit 3), never overwritten.\n\n", "Idempotency: a job already accepted (with the same remote_id, when --remote-id is given) is \"no change\": exit 0 and no new event, so a runbook step can be run again. Accepted with another remote_id is exit 3. Without --remote-id, a configured destination is asked whether it agrees: it holds the job as another id, or not at all, is exit 3 naming both.\n\n", "Examples:\n  reconctl mark accepted JOB --reason \"CMS shows it\"\n  reconctl mark accepted JOB --remote-id 4711 --reason \"found by hand\" --expect-version 5\n  reconctl mark accepted JOB --remote-id 4711 --accept-different-content --reason \"the CMS copy is the edited one\"\n  reconctl mark accepted JOB --remote-id 4711 --no-lookup --reason \"CMS API down\" --yes\n\n", "Exit codes:\n  0  moved, or no change (already in that state)\n  1  the database or the destination failed; nothing changed\n  2  usage; declined at the prompt; no --yes without a terminal; the destination not configured (or pass --no-lookup)\n  3  conflict: the job moved since it was read (or since --expect-version), the mark is not allowed from its state, or the destination contradicts it (it lacks the article, or has another remote id)\n  4  no such job\n  6  busy: the row is locked; nothing changed, safe to run again")
    )]
    Accepted(AcceptedArgs),
    #[command(
        about = Action::MarkSafeToRetry.transition().summary(),
        name = "safe-to-retry",
        after_help = concat!("Refused (exit 3) unless the destination, asked first, has no such article\nand the send has settled (its settle_after); the answer counts only when a control made after it passes.\n\n", "Redrive: a failed job whose cause is fixed is moved back to safe_to_retry (action `redrive`) on the same evidence: the destination does not hold it. A failed job's send has settled once settle_after has passed since it was sent (or, never sent, since it failed). With --no-lookup the event records that the lookup was skipped.\n\n", "Consent: on a terminal without --yes, the job, the move and the destination's evidence are shown and the mark asks (default no); declining changes nothing and exits 2. After a yes the destination is asked again and the move stands on that answer only: a CMS that took the article while the question was open makes it refuse (exit 3). Without a terminal and without --yes it refuses before asking the destination anything (exit 2). --dry-run proves the move against the database and rolls it back. Nothing is locked while the destination is asked or a person thinks: the move is one statement guarded by the version shown, so a job that moved meanwhile is a conflict (exit 3), never overwritten.\n\n", "Idempotency: a job already safe_to_retry is \"no change\": exit 0 and no new event, so a runbook step can be run again. A job in a state this mark cannot leave from (accepted, pending, in_flight) is exit 3.\n\n", "Examples:\n  reconctl mark safe-to-retry JOB --reason \"CMS lacks it after the outage\" --expect-version 5\n  reconctl mark safe-to-retry JOB --reason \"CMS lacks it\" --dry-run -o json\n  reconctl mark safe-to-retry JOB --reason \"validation bug fixed in CMS 4.2\" --yes   # a failed job: redrive\n\n", "Exit codes:\n  0  moved, or no change (already in that state)\n  1  the database or the destination failed; nothing changed\n  2  usage; declined at the prompt; no --yes without a terminal; the destination not configured (or pass --no-lookup)\n  3  conflict: the job moved since it was read (or since --expect-version), the mark is not allowed from its state, or the destination has the article (or the send has not settled)\n  4  no such job\n  6  busy: the row is locked; nothing changed, safe to run again")
    )]
    SafeToRetry(MarkArgs),
    #[command(
        about = Action::MarkFailed.transition().summary(),
        after_help = concat!("Giving up cannot publish twice, so the destination is not consulted.\n\n", "Consent: on a terminal without --yes, the job and the move are shown and the mark asks (default no); declining changes nothing and exits 2. Without a terminal and without --yes it refuses (exit 2). --dry-run proves the move against the database and rolls it back. Nothing is locked while a person thinks: the move is one statement guarded by the version shown, so a job that moved meanwhile is a conflict (exit 3), never overwritten.\n\n", "Idempotency: a job already failed is \"no change\": exit 0 and no new event, so a runbook step can be run again. A job in a state this mark cannot leave from (accepted, in_flight) is exit 3.\n\n", "Examples:\n  reconctl mark failed JOB --reason \"withdrawn by the editor\" --yes\n  reconctl mark failed JOB --reason \"duplicate revision\" --expect-version 3 --yes -o json\n\n", "Exit codes:\n  0  moved, or no change (already in that state)\n  1  the database or the destination failed; nothing changed\n  2  usage; declined at the prompt; no --yes without a terminal\n  3  conflict: the job moved since it was read (or since --expect-version), the mark is not allowed from its state\n  4  no such job\n  6  busy: the row is locked; nothing changed, safe to run again")
    )]
    Failed(MarkArgs),
}

#[derive(Debug, clap::Args)]
pub struct MarkArgs {
    /// The job: its id (or a unique prefix of it, 8+ hex digits) or its external_ref
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
    /// Accept the destination's one copy although its content differs from the job's payload
    /// (a conflict); the event records that it was accepted on purpose
    #[arg(long)]
    pub accept_different_content: bool,
}

pub async fn run(ctx: &Context, cmd: &MarkCommand) -> Result<Exit> {
    let (args, mark) = match cmd {
        MarkCommand::Accepted(a) => (
            &a.mark,
            Mark::Accepted {
                remote_id: a.remote_id.clone(),
                different_content: a.accept_different_content,
            },
        ),
        MarkCommand::SafeToRetry(a) => (a, Mark::SafeToRetry),
        MarkCommand::Failed(a) => (a, Mark::Failed),
    };
    flow::mark(ctx, args, &mark).await
}
