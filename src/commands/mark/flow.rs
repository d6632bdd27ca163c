//! One mark, start to end: read the job → nothing to do (and does the destination agree)? →
//! allowed from here? → the version the runbook saw? → the destination's evidence → consent
//! → the evidence again (SPEC §3: taken after consent) → one guarded move.
//!
//! No transaction or row lock is held while the destination is asked or a person thinks:
//! the job is read, the lookup and the prompt run, and then a single guarded statement moves
//! the job only if it is still at the version that was shown. Anything that happened in
//! between makes the guard miss (exit 3) instead of being overwritten.

use std::time::Instant;

use serde_json::{json, Value};

use super::plan::{self, Mark};
use super::report::{consent_summary, Consent, MarkReport};
use super::MarkArgs;
use crate::clock::DbClock;
use crate::commands::Exit;
use crate::context::Context;
use crate::error::{Code, Error, Result};
use crate::jobs::reconcile as rec;
use crate::jobs::store::{self, Effects, MoveOutcome, MoveRequest};
use crate::jobs::{commit, query, Job};
use crate::remote::gate::{not_the_controls_id, Gate};
use crate::remote::{Expect, Lookup};

pub async fn mark(ctx: &Context, args: &MarkArgs, mark: &Mark) -> Result<Exit> {
    validate(args, mark)?;
    let dry_run = args.confirm.dry_run;
    // The job and the database's clock, read before (and released across) the lookup.
    let (job, clock) = {
        let db = ctx.db().await?;
        crate::retention::ensure_partitions_quietly(&**db).await;
        let job = store::get(&**db, &args.job).await?;
        (job, query::db_clock(&**db).await?)
    };
    // The controls of this mark's lookups (none for a mark that asks nobody).
    let gate = if mark.needs_lookup() && !args.no_lookup {
        Some(ctx.gate(clock)?)
    } else {
        None
    };

    if plan::already_done(&job, mark)? {
        let note = match &gate {
            Some(gate) => agrees(ctx, gate, &job, clock, mark).await?,
            None => None,
        };
        ctx.ui.emit(&MarkReport {
            job,
            event: None,
            dry_run,
            note,
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

    let (mut evidence, mut remote_id) =
        gather(ctx, gate.as_ref(), &job, clock, mark, Asked::Before).await?;

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
        // SPEC §3: evidence is taken after consent. The answer shown is as old as the
        // question stayed open (a CMS may have taken the article meanwhile): ask again, and
        // move on the new answer only.
        if gate.is_some() {
            let (again, again_id) =
                gather(ctx, gate.as_ref(), &job, clock, mark, Asked::AfterConsent).await?;
            if again_id != remote_id {
                return Err(plan::changed_after_consent(
                    &job,
                    remote_id.as_deref(),
                    again_id.as_deref(),
                ));
            }
            (evidence, remote_id) = (again, again_id);
        }
    }

    // SPEC §4: a remote id the destination gives for one article is not accepted for
    // another at the same destination. (With --no-lookup the id is the operator's word,
    // recorded as such.)
    if let (Mark::Accepted { .. }, Some(r), Some(_)) = (mark, &remote_id, &gate) {
        let db = ctx.db().await?;
        if let Some(clash) = rec::remote_id_clash(&**db, &job, r).await? {
            return Err(plan::clash_refusal(&job, &clash));
        }
    }

    let req = MoveRequest {
        job_id: job.id,
        expect_version: job.version,
        action: mark.action_from(job.state),
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
                note: None,
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
    if let Mark::Accepted {
        remote_id,
        different_content,
    } = mark
    {
        if *different_content && args.no_lookup {
            return Err(Error::usage(
                "--accept-different-content needs the lookup: the event records the destination's differing copy; drop --no-lookup",
            ));
        }
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

/// When a mark's lookup is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// Before the question (or without one: `--yes`).
    Before,
    /// After the operator's "yes": the answer the move stands on.
    AfterConsent,
}

/// The destination as a mark asks it, with the job's name in the error when it cannot be.
fn destination<'a>(ctx: &'a Context, job: &Job) -> Result<crate::remote::Dest<'a>> {
    ctx.lookups()?.destination(&job.destination).map_err(|e| {
        e.with_message(|m| {
            let named = format!("destination {}", job.destination);
            format!(
                "{}, so the mark cannot be checked against it",
                m.replacen(&named, &format!("{named} of job {}", job.id), 1)
            )
        })
        .hinted("nothing changed; or pass --no-lookup if you have checked the destination yourself (the event records that the lookup was skipped)")
    })
}

/// The latest moment the job can have been sent, for the settle rule of a "not found". A
/// failed job (a redrive) cannot have been sent since it failed: a failed job without
/// `sent_at` (given up before it was sent, or failed before sending) counts as sent at most
/// when it became failed, so a "not found" settles once `settle_after` has passed since.
pub(crate) fn sent_before(job: &Job) -> Option<chrono::DateTime<chrono::Utc>> {
    match (job.state, job.sent_at) {
        (crate::jobs::State::Failed, None) => Some(job.state_changed_at),
        (_, sent) => sent,
    }
}

/// Ask the destination for `job`, then check its lookup with a control run begun after the
/// answer (SPEC §4: controls bracket every move; a lookup is a batch of one).
pub(crate) async fn look_up(
    ctx: &Context,
    gate: &Gate<'_>,
    job: &Job,
    clock: DbClock,
) -> Result<Lookup> {
    let dest = destination(ctx, job)?;
    let expect = Expect {
        payload_hash: Some(&job.payload_hash),
        sent_at: sent_before(job),
    };
    let lookup = dest.ask(&job.external_ref, expect, clock).await;
    let controls = gate.after(&dest, Instant::now()).await;
    let mut lookup = lookup.under(&controls);
    if controls.ok() {
        not_the_controls_id(&mut lookup, &controls);
    }
    Ok(lookup)
}

/// What justifies the move (recorded in the event), and for `accepted` the remote id: the
/// destination's answer, trusted only when its controls pass (SPEC §4). `gate` is `None`
/// when the mark asks nobody (`failed`, or `--no-lookup`).
async fn gather(
    ctx: &Context,
    gate: Option<&Gate<'_>>,
    job: &Job,
    clock: DbClock,
    mark: &Mark,
    asked: Asked,
) -> Result<(Value, Option<String>)> {
    let given = match mark {
        Mark::Accepted { remote_id, .. } => remote_id.clone(),
        _ => None,
    };
    if !mark.needs_lookup() {
        return Ok((json!({ "lookup": "not_needed" }), None));
    }
    let Some(gate) = gate else {
        let mut evidence = json!({ "lookup": "skipped" });
        if given.is_some() {
            evidence["remote_id_source"] = "operator".into();
        }
        return Ok((evidence, given));
    };
    ctx.ui.progress_note(&match asked {
        Asked::Before => format!(
            "looking up {} at {} (and checking its lookup with a known and a made-up reference)…",
            job.external_ref, job.destination
        ),
        Asked::AfterConsent => format!(
            "looking up {} at {} again: the move stands on the answer after your yes…",
            job.external_ref, job.destination
        ),
    });
    let lookup = look_up(ctx, gate, job, clock).await?;
    let remote_id = plan::check_evidence(job, mark, &lookup)?;
    let mut evidence = json!({ "lookup": plan::lookup_json(&lookup) });
    if let Mark::Accepted {
        different_content, ..
    } = mark
    {
        evidence["remote_id_source"] = if given.is_some() {
            "operator"
        } else {
            "lookup"
        }
        .into();
        if *different_content && lookup.content_match == Some(false) {
            evidence["accepted_different_content"] = true.into();
        }
    }
    if asked == Asked::AfterConsent {
        evidence["looked_up_after_consent"] = true.into();
    }
    Ok((evidence, remote_id))
}

/// `mark accepted JOB` (without `--remote-id`) on a job already accepted: ask the
/// destination whether it agrees before saying "no change". The same remote id: the note
/// for the report; another one, or none: exit 3 naming both.
async fn agrees(
    ctx: &Context,
    gate: &Gate<'_>,
    job: &Job,
    clock: DbClock,
    mark: &Mark,
) -> Result<Option<String>> {
    if !matches!(
        mark,
        Mark::Accepted {
            remote_id: None,
            ..
        }
    ) || ctx
        .lookups()?
        .config()
        .destination(&job.destination)
        .is_none()
    {
        return Ok(None);
    }
    ctx.ui.progress_note(&format!(
        "job {} is already accepted; asking {} whether it agrees…",
        job.id, job.destination
    ));
    let lookup = look_up(ctx, gate, job, clock).await?;
    plan::check_agrees(job, &lookup)
}

/// The guard missed: someone moved the job after it was read. When they made this very move,
/// that is the one thing to say (it replaces the generic "look at the job again").
fn lost(req: &MoveRequest, current: Job, mark: &Mark) -> Error {
    let same = current.state == mark.target();
    let err = store::version_conflict(req, current);
    if same {
        err.rehinted(format!(
            "nothing changed by you; someone else marked it {} first (see `reconctl jobs show`)",
            mark.target()
        ))
    } else {
        err
    }
}
