//! `plan apply ID`: each planned item is one guarded move at the version seen when the plan
//! was made, in batches (one statement and one transaction per batch, the COMMIT resolved
//! when its answer is lost: `jobs::reconcile::settle_batch`). Items are read in pages, never
//! all at once. `accepted` and `safe-to-retry` items are looked up again first (controls
//! included), before the batch's transaction, unless the plan recorded `--no-lookup`.
//!
//! Resumable: an item's outcome is settled from the facts (`jobs::plans::SETTLE_ITEMS_SQL`),
//! so a run killed anywhere, or two runs at once, move each job once and report every item.

use std::collections::HashMap;

use futures::StreamExt;
use serde_json::{json, Value};

use super::make::mark_of;
use super::report::{consent_text, PlanDoc};
use crate::commands::mark::flow::look_up;
use crate::commands::mark::plan as decide;
use crate::commands::Exit;
use crate::context::Context;
use crate::error::{Code, Error, Result};
use crate::jobs::plans::{self, Item, Proposed, ALREADY};
use crate::jobs::reconcile::{self as rec, Settled, Settlement};
use crate::jobs::{query, Job};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each item moves only if its job is still at the state and version the plan saw; a job that changed since is skipped (\"changed since the plan\"), never moved on stale evidence. accepted and safe-to-retry items are asked of the destination again first (controls included) unless the plan was made with --no-lookup; an item whose evidence no longer holds is refused with the new verdict. An expired or discarded plan, or one short of its approvals ([plans] approvals = N: distinct actors other than the creator), is refused (exit 2, nothing moved). On a terminal without --yes the plan is shown and apply asks (default no); without a terminal it needs --yes.\n\nApplying again after an interruption (killed, database lost) resumes: no item moves twice, and the report covers every item. Two applies of one plan at once move each job once.\n\nExit codes: 0 every item moved (or its job already was there), 1 the run failed (apply again to resume), 2 refused or declined (nothing moved), 5 items were skipped or refused, 6 only items whose rows were busy were left: apply again.\n\nExamples:\n  reconctl plan apply p3f9a2c71\n  reconctl plan apply p3f9a2c71 --yes -o json"
)]
pub struct Args {
    /// The plan id (as `plan mark` printed it)
    #[arg(value_name = "ID")]
    pub id: String,
    /// Do not ask; needed without a terminal
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Lookups in flight at once
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256), value_name = "N")]
    pub concurrency: u32,
}

/// Items per batch: a batch's moves are one statement and one transaction.
const BATCH: i64 = 1000;
/// Items per batch when each is looked up first (the lookups come before the transaction).
const LOOKUP_BATCH: i64 = 100;

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let id = super::check_id(&args.id)?.to_string();
    let (plan, summary) = {
        let db = ctx.db().await?;
        super::load(ctx, &**db, &id).await?
    };
    let required = super::required_approvals(ctx)?;
    match plan.status.as_str() {
        "discarded" => {
            let d = plan.discarded.as_ref();
            return Err(plans::refuse(
                format!(
                    "plan {id} was discarded by {} ({}): nothing moved",
                    d.map_or("?", |d| d.actor.as_str()),
                    d.and_then(|d| d.reason.as_deref()).unwrap_or("")
                ),
                "make a new plan with `reconctl plan mark`",
            ));
        }
        "expired" => {
            return Err(plans::refuse(
                format!(
                    "plan {id} expired at {}: nothing moved",
                    plan.expires_at
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                ),
                "the jobs may have changed since it was reviewed; make a new plan with `reconctl plan mark`",
            ));
        }
        "awaiting_approval" => {
            return Err(plans::refuse(
                format!(
                    "plan {id} has {} of the {required} approvals it needs (by people other than its creator, {}): nothing moved",
                    plan.counted_approvals(),
                    plan.actor
                ),
                &format!("ask a reviewer to run `reconctl plan approve {id} --reason TEXT`"),
            ));
        }
        _ => {}
    }

    if summary.planned > 0 && !args.yes {
        if !ctx.ui.can_prompt() {
            return Err(Error::new(
                Code::ConfirmationRequired,
                format!(
                    "refusing to apply plan {id} without --yes: there is no terminal to ask on"
                ),
            )
            .hinted("nothing moved; review it with `reconctl plan show`, then pass --yes"));
        }
        let doc = {
            let db = ctx.db().await?;
            super::document(ctx, &**db, &id, false).await?
        };
        ctx.ui
            .before_prompt(&consent_text(&doc, ctx.ui.err_width().map(usize::from)));
        let question = format!(
            "Apply plan {id}: move {} job{} to {}?",
            summary.planned,
            if summary.planned == 1 { "" } else { "s" },
            plan.target
        );
        if !ctx.ui.confirm(&question)? {
            return Err(Error::new(
                Code::Declined,
                format!("not confirmed: plan {id} was not applied; nothing moved"),
            ));
        }
    }

    if summary.planned > 0 {
        let db = ctx.db().await?;
        plans::record(&**db, &id, &ctx.actor, "apply", None, &Value::Null).await?;
    }

    let mark = mark_of(plan.target);
    let needs_lookup = mark.needs_lookup() && !plan.no_lookup;
    let clock = {
        let db = ctx.db().await?;
        query::db_clock(&**db).await?
    };
    let gate = if needs_lookup {
        Some(ctx.gate(clock)?)
    } else {
        None
    };
    let batch = if needs_lookup { LOOKUP_BATCH } else { BATCH };
    let bar = ctx.ui.progress("applying", Some(summary.planned as u64));
    let mut after = 0;
    let mut moved_now = 0u64;
    loop {
        let (items, jobs) = {
            let db = ctx.db().await?;
            let items = plans::items(&**db, &id, Some("planned"), after, batch).await?;
            let ids: Vec<uuid::Uuid> = items.iter().map(|i| i.job_id).collect();
            let jobs: HashMap<uuid::Uuid, Job> = plans::jobs_now(&**db, &ids)
                .await?
                .into_iter()
                .map(|j| (j.id, j))
                .collect();
            (items, jobs)
        };
        let Some(last) = items.last() else { break };
        after = last.seq;
        let n = items.len();

        let mut outcomes: Vec<(i32, Proposed)> = Vec::with_capacity(n);
        let mut candidates: Vec<(&Item, &Job)> = Vec::with_capacity(n);
        for item in &items {
            match jobs.get(&item.job_id) {
                None => outcomes.push((
                    item.seq,
                    Proposed::Skipped("the job no longer exists".into()),
                )),
                Some(job) if job.version != item.version || job.state != item.from_state => {
                    outcomes.push((item.seq, changed(item, job)))
                }
                Some(job) => candidates.push((item, job)),
            }
        }
        // The evidence each candidate moves on: asked again now (before any transaction),
        // or the plan's word that no lookup is needed or wanted.
        let judged: Vec<std::result::Result<(Value, Option<String>), String>> = match gate.as_ref()
        {
            Some(gate) => {
                futures::stream::iter(candidates.iter())
                    .map(|(_, job)| async {
                        match look_up(ctx, gate, job, clock).await {
                            Err(e) => Err(e.message().to_string()),
                            Ok(lookup) => {
                                let ev = json!({
                                    "plan": id,
                                    "lookup": decide::lookup_json(&lookup),
                                    "looked_up_at_apply": true,
                                });
                                decide::check_evidence(job, &mark, &lookup)
                                    .map(|r| (ev, r))
                                    .map_err(|e| e.message().to_string())
                            }
                        }
                    })
                    .buffered(args.concurrency as usize)
                    .collect()
                    .await
            }
            None => candidates
                .iter()
                .map(|_| {
                    let lookup = if mark.needs_lookup() {
                        "skipped"
                    } else {
                        "not_needed"
                    };
                    Ok((json!({ "plan": id, "lookup": lookup }), None))
                })
                .collect(),
        };
        let mut moves: Vec<(Job, Settlement, i32)> = Vec::with_capacity(candidates.len());
        for ((item, job), j) in candidates.iter().zip(judged) {
            match j {
                Err(why) => outcomes.push((item.seq, Proposed::Refused(why))),
                Ok((evidence, remote_id)) => moves.push((
                    (*job).clone(),
                    Settlement {
                        action: item.action,
                        remote_id,
                        reason: plan.reason.clone(),
                        evidence,
                    },
                    item.seq,
                )),
            }
        }
        if !moves.is_empty() {
            let pairs: Vec<(&Job, &Settlement)> = moves.iter().map(|(j, s, _)| (j, s)).collect();
            let db = ctx.db().await?;
            let settled = rec::settle_batch(&**db, &pairs, &ctx.actor, ctx.target()?).await?;
            for ((job, _, seq), s) in moves.iter().zip(settled) {
                let item = items
                    .iter()
                    .find(|i| i.seq == *seq)
                    .expect("an item of the batch");
                outcomes.push((
                    *seq,
                    match s {
                        Settled::Moved(_) => {
                            moved_now += 1;
                            Proposed::Moved
                        }
                        Settled::ChangedConcurrently(now) => changed(item, &now),
                        Settled::Busy(_) => Proposed::Left,
                        Settled::Failed(why) => {
                            Proposed::Skipped(format!("the database refused the move: {why}"))
                        }
                        Settled::RemoteIdClash { reason, .. } => Proposed::Refused(reason),
                    },
                ));
                let _ = job;
            }
        }
        {
            let db = ctx.db().await?;
            plans::settle_items(&**db, &id, &items, &outcomes).await?;
        }
        bar.inc(n as u64);
    }
    bar.finish_and_clear();

    let db = ctx.db().await?;
    let mut doc: PlanDoc = super::document(ctx, &**db, &id, ctx.ui.is_json()).await?;
    if summary.planned > 0 {
        plans::record(
            &**db,
            &id,
            &ctx.actor,
            "applied",
            None,
            &json!({ "moved": moved_now, "summary": doc.summary }),
        )
        .await?;
        // The status after the run's own record.
        let (plan, _) = super::load(ctx, &**db, &id).await?;
        doc.plan = plan;
    }
    drop(db);
    let s = doc.summary;
    doc.note = Some(format!(
        "applied plan {id}: {moved_now} moved by this run; {} moved in all, {} skipped, {} refused, {} left",
        s.moved, s.skipped, s.refused, s.planned
    ));
    ctx.ui.emit(&doc)?;
    Ok(if s.skipped - s.already + s.refused > 0 {
        Exit::Attention
    } else if s.planned > 0 {
        Exit::Busy
    } else {
        Exit::Done
    })
}

/// An item whose job changed since the plan: skipped, saying how (or, when the job is already
/// where the plan would put it, saying so: the plan's work is done for it).
fn changed(item: &Item, now: &Job) -> Proposed {
    if now.state == item.to_state {
        return Proposed::Skipped(format!(
            "{ALREADY}{} (changed since the plan: now at version {})",
            now.state, now.version
        ));
    }
    Proposed::Skipped(format!(
        "changed since the plan: now {} at version {} (the plan saw {} at version {})",
        now.state, now.version, item.from_state, item.version
    ))
}
