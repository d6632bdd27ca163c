//! `reconctl plan mark|list|show|approve|discard|apply` (SPEC §8): bulk moves by filter,
//! recorded as a plan, reviewed (four eyes: `[plans] approvals = N`), and applied exactly as
//! reviewed: each item one guarded move at the version seen when the plan was made.
//!
//! Nothing is locked while a destination is asked or a person thinks: lookups run before the
//! plan's transaction (at plan time) or before each batch's (at apply time), never inside one.

mod apply;
mod make;
mod report;

use clap::Subcommand;

use super::Exit;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Error, Result};
use crate::jobs::plans::{self, is_plan_id, Plan, Summary};
use crate::jobs::{JobRef, State};
use report::{PlanDoc, PlanList};

#[derive(Debug, Subcommand)]
#[command(
    after_help = "A plan records the moves a filter selects, with the state and version seen and (for accepted and safe-to-retry) the destination's evidence; nothing moves until `plan apply`, which moves each item with the guarded statement at the version seen, skips a job that changed since, and asks the destination again first.\n\nExamples:\n  reconctl plan mark failed --destination retired-cms --state pending --reason \"destination retired\"\n  reconctl plan mark safe-to-retry --state failed --destination cms-a --reason \"CMS validation bug fixed\"\n  reconctl plan show p3f9a2c71\n  reconctl plan approve p3f9a2c71 --reason \"checked the sample\"\n  reconctl plan apply p3f9a2c71 --yes"
)]
pub enum PlanCommand {
    /// Record a plan: the jobs a filter (or --job) selects and the move each would make; nothing moves
    #[command(subcommand)]
    Mark(MarkCommand),
    /// The plans, newest first, with their status
    #[command(
        after_help = "Status: ready, awaiting_approval (short of [plans] approvals), partially_applied (an apply was interrupted: apply again), applied, expired, discarded.\n\nExamples:\n  reconctl plan list\n  reconctl plan list -o json | jq '.plans[] | select(.status == \"awaiting_approval\")'"
    )]
    List(ListArgs),
    /// One plan: every item with its status (planned, moved, skipped (why), refused (why))
    #[command(
        after_help = "Examples:\n  reconctl plan show p3f9a2c71\n  reconctl plan show p3f9a2c71 -o json | jq '.items[] | select(.status != \"moved\")'"
    )]
    Show(IdArgs),
    /// Approve a plan (by someone other than its creator; counts toward `[plans] approvals`)
    #[command(
        after_help = "With `[plans] approvals = N` in the config, `plan apply` refuses until N distinct actors other than the plan's creator have approved it. The creator's own approval is refused (exit 2); approving twice is no change. Every approval is recorded with its reason.\n\nExamples:\n  reconctl --actor bob plan approve p3f9a2c71 --reason \"sample checked against the CMS\""
    )]
    Approve(ReasonArgs),
    /// Discard a plan: it can no longer be applied
    #[command(
        after_help = "Recorded with its reason; discarding twice is no change; an applied plan cannot be discarded (exit 2).\n\nExamples:\n  reconctl plan discard p3f9a2c71 --reason \"the filter took the wrong tenant\""
    )]
    Discard(ReasonArgs),
    /// Apply a plan: one guarded move per item at the version seen; resumable
    Apply(apply::Args),
}

#[derive(Debug, Subcommand)]
pub enum MarkCommand {
    /// Plan uncertain/conflict/safe_to_retry → accepted (the destination has it; looked up now and at apply)
    #[command(
        after_help = "Each job is looked up now (controls first); a job the destination does not hold as one matching publication is recorded as refused, with the reason. --no-lookup is refused: an accepted job records the destination's id.\n\nExamples:\n  reconctl plan mark accepted --state uncertain --destination cms-a --reason \"CMS was up all along\""
    )]
    Accepted(make::Args),
    /// Plan uncertain/conflict → safe_to_retry, and failed → safe_to_retry (redrive); looked up now and at apply
    #[command(
        name = "safe-to-retry",
        after_help = "Each job is looked up now (controls first); a job the destination holds, or whose send has not settled, is recorded as refused with the reason. Failed jobs are redriven (action redrive). --no-lookup skips the lookups, now and at apply, and every event records it.\n\nExamples:\n  reconctl plan mark safe-to-retry --state failed --destination cms-a --older-than 1h --reason \"CMS validation bug fixed\"\n  reconctl plan mark safe-to-retry --job JOB --job JOB --reason \"lost in the outage\""
    )]
    SafeToRetry(make::Args),
    /// Plan pending/safe_to_retry/uncertain/conflict → failed (give up)
    #[command(
        after_help = "Giving up cannot publish twice, so the destination is not asked. The selection is one statement: a plan over 100 000 jobs takes seconds.\n\nExamples:\n  reconctl plan mark failed --destination retired-cms --reason \"destination retired\" --expires 2h\n  reconctl plan mark failed --state pending --tenant t9 --limit 500 --reason \"tenant offboarded\""
    )]
    Failed(make::Args),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// At most this many plans
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i64).range(1..=10_000), value_name = "N")]
    pub limit: i64,
}

#[derive(Debug, clap::Args)]
pub struct IdArgs {
    /// The plan id (as `plan mark` printed it)
    #[arg(value_name = "ID")]
    pub id: String,
}

#[derive(Debug, clap::Args)]
pub struct ReasonArgs {
    /// The plan id (as `plan mark` printed it)
    #[arg(value_name = "ID")]
    pub id: String,
    /// Why (recorded in the plan's lifecycle)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
}

pub async fn run(ctx: &Context, cmd: &PlanCommand) -> Result<Exit> {
    match cmd {
        PlanCommand::Mark(m) => {
            let (target, args) = match m {
                MarkCommand::Accepted(a) => (State::Accepted, a),
                MarkCommand::SafeToRetry(a) => (State::SafeToRetry, a),
                MarkCommand::Failed(a) => (State::Failed, a),
            };
            make::run(ctx, target, args).await
        }
        PlanCommand::List(a) => list(ctx, a).await,
        PlanCommand::Show(a) => show(ctx, &a.id).await,
        PlanCommand::Approve(a) => approve(ctx, a).await,
        PlanCommand::Discard(a) => discard(ctx, a).await,
        PlanCommand::Apply(a) => apply::run(ctx, a).await,
    }
}

/// How many approvals the config asks for.
pub(crate) fn required_approvals(ctx: &Context) -> Result<usize> {
    Ok(ctx.config()?.plans.approvals as usize)
}

fn check_id(id: &str) -> Result<&str> {
    let id = id.trim();
    if !is_plan_id(id) {
        return Err(Error::usage(format!(
            "`{}` is not a plan id (p and 8 or more hex digits, as `plan mark` printed it)",
            id.chars().take(60).collect::<String>()
        ))
        .hinted("list the plans with `reconctl plan list`"));
    }
    Ok(id)
}

/// The plan with its status computed.
pub(crate) async fn load<C: tokio_postgres::GenericClient>(
    ctx: &Context,
    client: &C,
    id: &str,
) -> Result<(Plan, Summary)> {
    let mut plan = plans::load(client, id).await?;
    let summary = plans::summary(client, id).await?;
    plan.status = plan
        .compute_status(&summary, required_approvals(ctx)?)
        .to_string();
    Ok((plan, summary))
}

/// The whole document of SPEC §8 (every item), for `-o json` and `plan show`.
pub(crate) async fn document<C: tokio_postgres::GenericClient>(
    ctx: &Context,
    client: &C,
    id: &str,
    all_items: bool,
) -> Result<PlanDoc> {
    let (plan, summary) = load(ctx, client, id).await?;
    let counts = plans::counts_by_move(client, id).await?;
    let limit = if all_items { i64::MAX } else { 10 };
    let items = plans::items(client, id, None, 0, limit).await?;
    let unsettled = if all_items {
        Vec::new()
    } else {
        let mut v = plans::items(client, id, Some("skipped"), 0, 10).await?;
        v.extend(plans::items(client, id, Some("refused"), 0, 10).await?);
        v
    };
    Ok(PlanDoc {
        plan,
        items,
        summary,
        counts,
        all_items,
        unsettled,
        required: required_approvals(ctx)?,
        note: None,
    })
}

async fn list(ctx: &Context, args: &ListArgs) -> Result<Exit> {
    let db = ctx.db().await?;
    let ids = plans::list(&**db, args.limit).await?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let (plan, summary) = load(ctx, &**db, &id).await?;
        out.push((plan, summary));
    }
    ctx.ui.emit(&PlanList::new(out))?;
    Ok(Exit::Done)
}

async fn show(ctx: &Context, id: &str) -> Result<Exit> {
    let id = check_id(id)?;
    let db = ctx.db().await?;
    let doc = document(ctx, &**db, id, true).await?;
    drop(db);
    ctx.ui.emit(&doc)?;
    Ok(Exit::Done)
}

fn check_reason(reason: &str) -> Result<&str> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(Error::usage(
            "--reason must say why (it is recorded in the plan's lifecycle)",
        ));
    }
    Ok(r)
}

/// A plan that can no longer change course: discarded, applied or expired.
fn closed(plan: &Plan, what: &str) -> Result<()> {
    match plan.status.as_str() {
        "discarded" | "applied" | "expired" => Err(plans::refuse(
            format!("cannot {what} plan {}: it is {}", plan.id, plan.status),
            "nothing changed; make a new plan with `reconctl plan mark`",
        )),
        _ => Ok(()),
    }
}

async fn approve(ctx: &Context, args: &ReasonArgs) -> Result<Exit> {
    let id = check_id(&args.id)?;
    let reason = check_reason(&args.reason)?;
    let db = ctx.db().await?;
    let (plan, _) = load(ctx, &**db, id).await?;
    closed(&plan, "approve")?;
    if plan.actor == ctx.actor {
        return Err(plans::refuse(
            format!(
                "cannot approve plan {}: {} made it, and its creator's approval does not count",
                plan.id, plan.actor
            ),
            "nothing changed; ask someone else to review and approve it",
        ));
    }
    let note = if plan.approvals.iter().any(|a| a.actor == ctx.actor) {
        format!("{} had already approved plan {}: no change", ctx.actor, id)
    } else {
        plans::record(
            &**db,
            id,
            &ctx.actor,
            "approved",
            Some(reason),
            &serde_json::Value::Null,
        )
        .await?;
        format!("approved plan {} as {}", id, ctx.actor)
    };
    let mut doc = document(ctx, &**db, id, false).await?;
    doc.note = Some(note);
    ctx.ui.emit(&report::Short(doc))?;
    Ok(Exit::Done)
}

async fn discard(ctx: &Context, args: &ReasonArgs) -> Result<Exit> {
    let id = check_id(&args.id)?;
    let reason = check_reason(&args.reason)?;
    let db = ctx.db().await?;
    let (plan, _) = load(ctx, &**db, id).await?;
    let note = if plan.discarded.is_some() {
        format!("plan {id} was already discarded: no change")
    } else {
        if plan.status == "applied" {
            return Err(plans::refuse(
                format!("cannot discard plan {id}: it is applied"),
                "nothing changed; its moves are in `reconctl events --plan`",
            ));
        }
        plans::record(
            &**db,
            id,
            &ctx.actor,
            "discarded",
            Some(reason),
            &serde_json::Value::Null,
        )
        .await?;
        format!("discarded plan {id}: it can no longer be applied")
    };
    let mut doc = document(ctx, &**db, id, false).await?;
    doc.note = Some(note);
    ctx.ui.emit(&report::Short(doc))?;
    Ok(Exit::Done)
}

/// `events --plan ID`: the plan's lifecycle and its moves, oldest first.
pub async fn events(ctx: &Context, id: &str) -> Result<Exit> {
    let id = check_id(id)?;
    let db = ctx.db().await?;
    plans::load(&**db, id).await?;
    let lifecycle = plans::lifecycle(&**db, id).await?;
    let moves = plans::move_events(&**db, id).await?;
    let items = plans::moved_items(&**db, id).await?;
    drop(db);
    ctx.ui
        .emit(&report::PlanEvents::new(lifecycle, moves, items))?;
    Ok(Exit::Done)
}

pub use make::save_reconciled;

/// `--job` arguments as typed.
pub(crate) fn job_refs(jobs: &[JobRef]) -> Vec<String> {
    jobs.iter().map(|j| j.to_string()).collect()
}

/// `--expires` as given, or 24h.
pub(crate) fn expires(e: Option<HumanDuration>) -> std::time::Duration {
    e.map_or(std::time::Duration::from_secs(24 * 3600), |d| d.0)
}
