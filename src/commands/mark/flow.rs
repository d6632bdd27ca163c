//! One mark, start to end: read the job → nothing to do? → allowed from here? → the version
//! the runbook saw? → the destination's evidence → consent → one guarded move.
//!
//! No transaction or row lock is held while the destination is asked or a person thinks:
//! the job is read, the lookup and the prompt run, and then a single guarded statement moves
//! the job only if it is still at the version that was shown. Anything that happened in
//! between makes the guard miss (exit 3) instead of being overwritten.

use serde_json::{json, Value};

use super::plan::{self, Mark};
use super::report::{consent_summary, Consent, MarkReport};
use super::MarkArgs;
use crate::clock::DbClock;
use crate::commands::controls::Gate;
use crate::commands::Exit;
use crate::context::Context;
use crate::error::{Code, Error, Result};
use crate::jobs::store::{self, Effects, MoveOutcome, MoveRequest};
use crate::jobs::{commit, query, Job};
use crate::remote::Expect;

pub async fn mark(ctx: &Context, args: &MarkArgs, mark: &Mark) -> Result<Exit> {
    validate(args, mark)?;
    let dry_run = args.confirm.dry_run;
    // The job and the database's clock, read before (and released across) the lookup.
    let (job, clock) = {
        let db = ctx.db().await?;
        let job = store::get(&**db, &args.job).await?;
        (job, query::db_clock(&**db).await?)
    };

    if plan::already_done(&job, mark)? {
        ctx.ui.emit(&MarkReport {
            job,
            event: None,
            dry_run,
        })?;
        return Ok(Exit::Done);
    }
    plan::check_allowed(&job, mark, clock.now())?;
    plan::check_expected(&job, args.expect_version)?;

    // Fail before asking the destination anything when nobody could say yes anyway.
    let ask = !args.confirm.yes && !dry_run;
    if ask && !ctx.ui.can_prompt() {
        return Err(Error::new(
            Code::ConfirmationRequired,
            format!(
                "refusing to mark job {} {} without --yes: there is no terminal to ask on",
                job.id,
                mark.target()
            ),
        )
        .hinted("nothing changed; pass --yes to confirm from a script, or --dry-run to see what would happen"));
    }

    let (evidence, remote_id) = evidence(ctx, &job, clock, mark, args.no_lookup).await?;

    if ask {
        ctx.ui.before_prompt(&consent_summary(
            ctx.ui.err_width().map(usize::from),
            &Consent {
                job: &job,
                mark,
                remote_id: remote_id.as_deref(),
                reason: args.reason.trim(),
                actor: &ctx.actor,
                evidence: &evidence,
                now: clock.now(),
            },
        ));
        let question = format!("Mark job {} {}?", job.id, mark.target());
        if !ctx.ui.confirm(&question)? {
            // Not exit 0: a runbook step like `reconctl mark … && close-ticket` must not
            // carry on as if the job had moved.
            return Err(Error::new(
                Code::Declined,
                format!(
                    "not confirmed: job {} was not marked; nothing changed",
                    job.id
                ),
            ));
        }
    }

    let req = MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action: mark.action(),
        actor: ctx.actor.clone(),
        reason: Some(args.reason.trim().to_string()),
        evidence,
        effects: Effects {
            remote_id,
            last_error: matches!(mark, Mark::Failed).then(|| args.reason.trim().to_string()),
            ..Effects::default()
        },
    };
    let outcome = if dry_run {
        // The same statement, rolled back: the dry run proves the move would succeed now.
        let mut db = ctx.db().await?;
        let tx = db.transaction().await?;
        let outcome = store::guarded_move(&*tx, &req).await?;
        tx.rollback().await?;
        outcome
    } else {
        // A mark must not itself leave an uncertain outcome: if the answer to its COMMIT is
        // lost, the server is asked what became of the transaction (jobs::commit).
        let db = ctx.db().await?;
        commit::guarded_move_tracked(&**db, &req, ctx.target()?).await?
    };
    match outcome {
        MoveOutcome::Moved { job, event } => {
            ctx.ui.emit(&MarkReport {
                job,
                event: Some(event),
                dry_run,
            })?;
            Ok(Exit::Done)
        }
        MoveOutcome::Conflict { current } => Err(lost(&req, current, mark)),
    }
}

fn validate(args: &MarkArgs, mark: &Mark) -> Result<()> {
    if args.reason.trim().is_empty() {
        return Err(Error::usage(
            "--reason must say why (it is recorded in the job's event)",
        ));
    }
    if let Mark::Accepted { remote_id } = mark {
        match remote_id {
            Some(r) if r.trim().is_empty() || r.trim() != r => {
                return Err(Error::usage(
                    "--remote-id must be the destination's id, without surrounding spaces",
                ))
            }
            None if args.no_lookup => {
                return Err(Error::usage(
                    "mark accepted --no-lookup needs --remote-id: an accepted job records the destination's id",
                )
                .hinted("find the id at the destination, or drop --no-lookup to take it from the lookup"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// What justifies the move (recorded in the event), and for `accepted` the remote id: the
/// destination's answer, trusted only when its controls pass (SPEC §4).
async fn evidence(
    ctx: &Context,
    job: &Job,
    clock: DbClock,
    mark: &Mark,
    no_lookup: bool,
) -> Result<(Value, Option<String>)> {
    let given = match mark {
        Mark::Accepted { remote_id } => remote_id.clone(),
        _ => None,
    };
    if !mark.needs_lookup() {
        return Ok((json!({ "lookup": "not_needed" }), None));
    }
    if no_lookup {
        let mut evidence = json!({ "lookup": "skipped" });
        if given.is_some() {
            evidence["remote_id_source"] = "operator".into();
        }
        return Ok((evidence, given));
    }
    let dest = ctx.lookups()?.destination(&job.destination).map_err(|e| {
        e.with_message(|m| {
            let named = format!("destination {}", job.destination);
            format!(
                "{}, so the mark cannot be checked against it",
                m.replacen(&named, &format!("{named} of job {}", job.id), 1)
            )
        })
        .hinted("nothing changed; or pass --no-lookup if you have checked the destination yourself (the event records that the lookup was skipped)")
    })?;
    ctx.ui.progress_note(&format!(
        "looking up {} at {} (and checking its lookup with a known and a made-up reference)…",
        job.external_ref, job.destination
    ));
    let gate = Gate::new(ctx, clock)?;
    let expect = Expect {
        payload_hash: Some(&job.payload_hash),
        sent_at: job.sent_at,
    };
    let (controls, lookup) = futures::join!(
        gate.controls(&dest),
        dest.ask(&job.external_ref, expect, clock)
    );
    let lookup = lookup.under(&controls);
    let remote_id = plan::check_evidence(job, mark, &lookup)?;
    let mut evidence = json!({ "lookup": plan::lookup_json(&lookup) });
    if matches!(mark, Mark::Accepted { .. }) {
        evidence["remote_id_source"] = if given.is_some() {
            "operator"
        } else {
            "lookup"
        }
        .into();
    }
    Ok((evidence, remote_id))
}

/// The guard missed: someone moved the job after it was read.
fn lost(req: &MoveRequest, current: Job, mark: &Mark) -> Error {
    let same = current.state == mark.target();
    let err = store::version_conflict(req, current);
    if same {
        err.hinted(format!(
            "nothing changed by you; someone else marked it {} first (see `reconctl jobs show`)",
            mark.target()
        ))
    } else {
        err
    }
}
