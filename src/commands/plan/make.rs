//! `plan mark accepted|safe-to-retry|failed`: select jobs by the filters of `jobs list` (or
//! `--job`), ask the destination for each (bounded concurrency, controls through the same
//! `Gate` as `mark` and `reconcile`) before any transaction, then record the plan and its
//! items in one transaction. Nothing moves.

use futures::StreamExt;
use serde_json::{json, Value};

use super::report::PlanDoc;
use crate::clock::DbClock;
use crate::commands::mark::flow::look_up;
use crate::commands::mark::plan::{self as decide, Mark};
use crate::commands::{Exit, JobFilter};
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::{Error, Result};
use crate::jobs::plans::{self, NewItem, NewPlan, Selection};
use crate::jobs::{commit, query, store, Job, JobRef, State};
use crate::remote::gate::Gate;

#[derive(Debug, clap::Args)]
#[command(mut_args(state_help))]
pub struct Args {
    /// Why (recorded in the plan, and in each move's event when it is applied)
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    #[command(flatten)]
    pub filter: JobFilter,
    /// At most this many jobs (the oldest first)
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..), value_name = "N")]
    pub limit: Option<i64>,
    /// This job (repeatable; instead of the filters)
    #[arg(long = "job", value_name = "JOB")]
    pub jobs: Vec<JobRef>,
    /// How long the plan may be applied (default 24h)
    #[arg(long, value_name = "DUR")]
    pub expires: Option<HumanDuration>,
    /// Do not ask the destination (now or at apply); recorded in the plan and in every event
    #[arg(long)]
    pub no_lookup: bool,
    /// Lookups in flight at once
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256), value_name = "N")]
    pub concurrency: u32,
}

/// `--state`'s help in a plan: the default is every state the move leaves, not every state.
fn state_help(arg: clap::Arg) -> clap::Arg {
    if arg.get_id() == "state" {
        arg.help("Only jobs in this state (repeatable; default: every state the move leaves)")
    } else {
        arg
    }
}

/// The mark each item makes, as `mark` has it.
pub(crate) fn mark_of(target: State) -> Mark {
    match target {
        State::Accepted => Mark::Accepted {
            remote_id: None,
            different_content: false,
        },
        State::SafeToRetry => Mark::SafeToRetry,
        _ => Mark::Failed,
    }
}

/// How many jobs one page of a lookup plan reads.
const PAGE: i64 = 500;

pub async fn run(ctx: &Context, target: State, args: &Args) -> Result<Exit> {
    let mark = mark_of(target);
    let reason = args.reason.trim();
    if reason.is_empty() {
        return Err(Error::usage(
            "--reason must say why (it is recorded in the plan and in each move's event)",
        ));
    }
    let filtered = args.filter.any();
    if !args.jobs.is_empty() && (filtered || args.limit.is_some()) {
        return Err(Error::usage(
            "--job names the jobs itself: leave out the filters and --limit",
        ));
    }
    if args.jobs.is_empty() && !filtered {
        return Err(Error::usage(format!(
            "plan mark {} needs a filter (--state, --destination, --tenant, --article, --older-than) or --job: a plan over every job is never what an incident needs",
            target
        ))
        .hinted("see what a filter selects first with `reconctl jobs list` and the same filters"));
    }
    if matches!(mark, Mark::Accepted { .. }) && args.no_lookup {
        return Err(Error::usage(
            "plan mark accepted --no-lookup: an accepted job records the destination's id, which only a lookup can give for each job",
        )
        .hinted("drop --no-lookup, or mark the jobs one by one with `reconctl mark accepted JOB --remote-id ID --no-lookup`"));
    }
    let from = mark.from_states();
    for s in &args.filter.state {
        if !from.contains(s) {
            return Err(Error::usage(format!(
                "--state {s}: the move to {target} cannot leave {s} (it leaves {})",
                from.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let needs_lookup = mark.needs_lookup() && !args.no_lookup;
    let sel = Selection {
        states: if args.filter.state.is_empty() {
            from.clone()
        } else {
            args.filter.state.clone()
        },
        destination: args.filter.destination.clone(),
        tenant: args.filter.tenant.clone(),
        article: args.filter.article.clone(),
        older_than: args.filter.older_than.map(|d| d.0),
        limit: args.limit,
    };
    let filter = json!({
        "state": sel.states.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "destination": sel.destination,
        "tenant": sel.tenant,
        "article": sel.article,
        "older_than": args.filter.older_than.map(|d| crate::duration::format_duration(d.0)),
        "limit": sel.limit,
        "jobs": super::job_refs(&args.jobs),
        "no_lookup": args.no_lookup,
    });
    let new = NewPlan {
        actor: ctx.actor.clone(),
        expires_in: super::expires(args.expires),
        target,
        reason: reason.to_string(),
        filter,
        no_lookup: args.no_lookup,
    };

    let (clock, explicit) = {
        let db = ctx.db().await?;
        crate::commands::jobs::require_known_destination(ctx, &**db, sel.destination.as_deref())
            .await?;
        let mut explicit = Vec::with_capacity(args.jobs.len());
        for j in &args.jobs {
            let job = store::get(&**db, j).await?;
            if !explicit.iter().any(|e: &Job| e.id == job.id) {
                explicit.push(job);
            }
        }
        (query::db_clock(&**db).await?, explicit)
    };

    let id = if !needs_lookup && args.jobs.is_empty() {
        // One statement: every selected job becomes a planned item.
        let actions: Vec<_> = from.iter().map(|s| (*s, mark.action_from(*s))).collect();
        record(ctx, async |db| {
            let id = plans::insert_plan(db, &new).await?;
            plans::insert_selected(db, &id, &sel, &actions).await?;
            Ok(id)
        })
        .await?
    } else {
        let gate = if needs_lookup {
            Some(ctx.gate(clock)?)
        } else {
            None
        };
        let mut items = Vec::new();
        if args.jobs.is_empty() {
            let mut after = None;
            let mut left = args.limit.unwrap_or(i64::MAX);
            while left > 0 {
                let page = {
                    let db = ctx.db().await?;
                    plans::select_page(&**db, &sel, after, PAGE.min(left)).await?
                };
                let Some(last) = page.last() else { break };
                after = Some((last.created_at, last.id));
                left -= page.len() as i64;
                let n = page.len();
                items.extend(judge(ctx, gate.as_ref(), clock, &mark, page, args).await);
                if (n as i64) < PAGE {
                    break;
                }
            }
        } else {
            items = judge(ctx, gate.as_ref(), clock, &mark, explicit, args).await;
        }
        record(ctx, async |db| {
            let id = plans::insert_plan(db, &new).await?;
            for (i, chunk) in items.chunks(1000).enumerate() {
                plans::insert_items(db, &id, 1 + (i * 1000) as i32, chunk).await?;
            }
            Ok(id)
        })
        .await?
    };

    let db = ctx.db().await?;
    let doc: PlanDoc = super::document(ctx, &**db, &id, ctx.ui.is_json()).await?;
    drop(db);
    ctx.ui.emit(&doc)?;
    Ok(Exit::Done)
}

/// Each job's item: refused when the move cannot leave its state, or (with a lookup) when the
/// destination's answer does not justify it; else planned with the evidence.
/// Write a plan and its items in one transaction of a pooled connection (taken only now,
/// after every lookup), its COMMIT resolved when the answer is lost; rolled back on failure.
async fn record(
    ctx: &Context,
    write: impl AsyncFnOnce(&tokio_postgres::Client) -> Result<String>,
) -> Result<String> {
    let db = ctx.db().await?;
    let xid = commit::begin(&**db).await?;
    match write(&db).await {
        Ok(id) => {
            commit::commit(&**db, &xid, ctx.target()?).await?;
            Ok(id)
        }
        Err(e) => {
            commit::rollback(&**db).await;
            Err(e)
        }
    }
}

async fn judge(
    ctx: &Context,
    gate: Option<&Gate<'_>>,
    clock: DbClock,
    mark: &Mark,
    jobs: Vec<Job>,
    args: &Args,
) -> Vec<NewItem> {
    let concurrency = args.concurrency as usize;
    futures::stream::iter(jobs)
        .map(|job| async move {
            let action = mark.action_from(job.state);
            if !action.from().contains(&job.state) {
                return NewItem {
                    refused: Some(format!(
                        "the move to {} is not allowed from {}",
                        mark.target(),
                        job.state
                    )),
                    action,
                    evidence: None,
                    job,
                };
            }
            let Some(gate) = gate else {
                return NewItem {
                    refused: None,
                    action,
                    evidence: None,
                    job,
                };
            };
            let (refused, evidence) = match look_up(ctx, gate, &job, clock).await {
                Err(e) => (Some(e.message().to_string()), None),
                Ok(lookup) => {
                    let mut evidence = json!({ "lookup": decide::lookup_json(&lookup) });
                    match decide::check_evidence(&job, mark, &lookup) {
                        Ok(remote_id) => {
                            if let Some(r) = remote_id {
                                evidence["remote_id"] = Value::String(r);
                            }
                            (None, Some(evidence))
                        }
                        Err(e) => (Some(e.message().to_string()), Some(evidence)),
                    }
                }
            };
            NewItem {
                refused,
                action,
                evidence,
                job,
            }
        })
        .buffered(concurrency)
        .collect()
        .await
}

/// `reconcile --save-plan`: the moves reconcile's lookups justify, recorded as plans instead
/// of made: one plan per target state (accepted, safe_to_retry), its items the jobs at the
/// versions the lookups saw, with the lookup as evidence and reconcile's action. Conflict
/// verdicts are not an operator's move and are not saved (a plan settles; it does not mark
/// conflicts); `reconcile` itself records those. Prints the plans (`{"plans": [...]}`).
pub async fn save_reconciled(
    ctx: &Context,
    judged: Vec<(Job, crate::remote::Lookup, Option<crate::jobs::Action>)>,
    reason: &str,
    states: &[State],
) -> Result<Exit> {
    if reason.trim().is_empty() {
        return Err(Error::usage("--reason must say why"));
    }
    let mut docs = Vec::new();
    for target in [State::Accepted, State::SafeToRetry] {
        let items: Vec<NewItem> = judged
            .iter()
            .filter(|(_, _, a)| a.is_some_and(|a| a.to() == target))
            .map(|(job, lookup, action)| {
                let mut evidence = json!({ "lookup": decide::lookup_json(lookup) });
                if let [m] = lookup.matches.as_slice() {
                    if target == State::Accepted {
                        evidence["remote_id"] = Value::String(m.remote_id.clone());
                    }
                }
                NewItem {
                    job: job.clone(),
                    action: action.expect("filtered"),
                    refused: None,
                    evidence: Some(evidence),
                }
            })
            .collect();
        if items.is_empty() {
            continue;
        }
        let new = NewPlan {
            actor: ctx.actor.clone(),
            expires_in: super::expires(None),
            target,
            reason: reason.trim().to_string(),
            filter: json!({
                "reconcile": true,
                "state": states.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                "no_lookup": false,
            }),
            no_lookup: false,
        };
        let db = ctx.db().await?;
        let xid = commit::begin(&**db).await?;
        let made = async {
            let id = plans::insert_plan(&**db, &new).await?;
            for (i, chunk) in items.chunks(1000).enumerate() {
                plans::insert_items(&**db, &id, 1 + (i * 1000) as i32, chunk).await?;
            }
            Ok::<_, Error>(id)
        }
        .await;
        let id = match made {
            Ok(id) => {
                commit::commit(&**db, &xid, ctx.target()?).await?;
                id
            }
            Err(e) => {
                commit::rollback(&**db).await;
                return Err(e);
            }
        };
        docs.push(super::document(ctx, &**db, &id, ctx.ui.is_json()).await?);
    }
    ctx.ui.emit(&super::report::SavedPlans::new(docs))?;
    Ok(Exit::Done)
}
