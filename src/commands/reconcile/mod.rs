//! `reconctl reconcile`: look up every uncertain job; plan, and with `--apply` make, the moves
//! the evidence justifies.
//!
//! The run is a pipeline ([`pipeline`]): keyset pages of uncertain jobs feed lookups (a few
//! at once, rate-limited on request), each destination's controls checked first and again
//! every `lookup.controls_every`; judged jobs are moved in batches (one statement and one
//! transaction each, the COMMIT resolved when its answer is lost). What it did is written as
//! it happens ([`report`]): one JSON document even when the run fails midway, one line a job
//! for people.
//!
//! A closed stdout (`reconctl reconcile --apply --yes | head`) does not leave a consented
//! apply half done: the run finishes, writes nothing more to stdout, and says on stderr what
//! it did; the exit code is the run's. A plan (without `--apply`) just stops.

mod pipeline;
mod report;
mod row;

use futures::StreamExt;

use super::Exit;
use crate::context::Context;
use crate::error::{Code, Error, Kind, Result};
use crate::jobs::query;
use crate::jobs::reconcile as rec;
use crate::jobs::State;
use crate::remote::action_for;
use pipeline::Pipeline;
use report::{Report, Summary};
use row::{Judged, Row};

#[derive(Debug, clap::Args)]
#[command(
    after_help = format!("Moves it makes (the transition table):\n{}\n\n{}", crate::jobs::state::moves_by(crate::jobs::Role::Reconcile), "Examples:\n  reconctl reconcile                       # the plan; nothing changes\n  reconctl reconcile --destination cms-a --concurrency 8 --rps 20\n  reconctl reconcile --apply --yes --max 500\n\n\
Before a destination's answers are trusted, its lookup is checked with a publication it must hold (its canary_ref, else its latest settled accepted job) and with a made-up reference it cannot hold; if either check fails, every job of that destination is unknown and nothing moves on its word. Controls bracket every move: a batch of answers moves jobs only when a check begun after its last lookup passes too; if that check fails, the whole batch is unknown. A remote id recorded for (or given in the same batch to) another article at the destination is a conflict, never an accept.\n\n--state conflict, --state safe_to_retry (repeatable; default uncertain) examine those jobs instead; each moves only as the table above allows from its state.\n\n\
Without --apply nothing changes. With --apply --yes each job moves as soon as it is judged; with --max, or on a terminal without --yes, every lookup comes first, then the limit is checked or the question asked, then the moves. After a yes each shown move is looked up again and made only when the new answer still justifies it. A job changed by someone else meanwhile is reported as skipped; a job whose row another session holds is skipped as busy at once, not waited for. Re-running continues with the jobs still uncertain. If stdout is closed during --apply, the run finishes and reports on stderr. Ctrl-C during --apply lets the moves under way finish and reports what was moved (exit 130).\n\n\
Exit codes: 0 every examined job got a definite verdict (accept, safe_to_retry, wait) and nothing was left busy, 1 the run failed (the message says how many jobs it had moved), 2 refused or declined and nothing changed (--apply without --yes and without a terminal; a \"no\" to the question; more than --max jobs would move), 5 conflicts or unknowns remain (a person should look; 5 wins over 6), 6 jobs were left only because they were busy (locked by another session): run it again, 130 interrupted.")
)]
pub struct Args {
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    /// Examine jobs in this state instead of uncertain ones: uncertain, conflict or
    /// safe_to_retry (repeatable); each moves only as the transition table allows from it
    #[arg(long = "state", value_name = "STATE")]
    pub states: Vec<State>,
    /// Examine at most this many uncertain jobs
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "N")]
    pub limit: Option<u64>,
    /// Lookups in flight at once
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1024), value_name = "N")]
    pub concurrency: u32,
    /// At most this many lookups a second (protect the CMS during its own incident)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), value_name = "N")]
    pub rps: Option<u32>,
    /// Perform the justified moves (else only print the plan)
    #[arg(long)]
    pub apply: bool,
    /// Do not ask before applying; needed without a terminal
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Refuse (exit 2, nothing moved) when more than this many jobs would move
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "N")]
    pub max: Option<u64>,
    /// Record the justified moves to accepted and to safe_to_retry as plans (one per target
    /// state) instead of applying them: review, approve and `plan apply` them (SPEC §8)
    #[arg(long, conflicts_with_all = ["apply", "yes", "max"])]
    pub save_plan: bool,
    /// With --save-plan: why (recorded in the plans and in each move's event)
    #[arg(long, value_name = "TEXT", requires = "save_plan")]
    pub reason: Option<String>,
}

/// Moves per statement (one commit each).
const BATCH: usize = 256;

/// Batches written at once (each on its own pooled connection).
const WRITERS: usize = 4;

/// How many jobs the confirmation shows as examples.
const SAMPLES: usize = 5;

impl Args {
    /// The states this run examines: `--state`, else uncertain.
    pub fn states(&self) -> Vec<State> {
        if self.states.is_empty() {
            vec![State::reconciled()]
        } else {
            let mut states = self.states.clone();
            states.sort();
            states.dedup();
            states
        }
    }
}

/// Refuse (exit 2) a `--state` no reconcile move leaves.
fn check_states(args: &Args) -> Result<()> {
    let allowed = State::reconcilable();
    match args.states.iter().find(|s| !allowed.contains(s)) {
        Some(s) => Err(Error::usage(format!(
            "reconcile cannot examine {s} jobs: no reconcile move leaves {s} (--state takes {})",
            allowed
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        None => Ok(()),
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    check_states(args)?;
    let lookups = ctx.lookups()?;
    if let Some(d) = &args.destination {
        lookups.destination(d)?;
    }
    if args.apply && !args.yes && !ctx.ui.can_prompt() {
        return Err(Error::new(
            Code::ConfirmationRequired,
            "reconcile --apply changes jobs; without a terminal to ask on, it needs --yes",
        )
        .hinted(
            "nothing changed; run it without --apply to see the plan, then add --yes (and --max N) to apply it",
        ));
    }
    let (clock, total) = {
        let db = ctx.db().await?;
        crate::retention::ensure_partitions_quietly(&**db).await;
        let clock = query::db_clock(&**db).await?;
        let total = rec::count_examined(&**db, &args.states(), args.destination.as_deref()).await?;
        (clock, args.limit.map_or(total, |l| l.min(total)))
    };
    let gate = ctx.gate(clock)?;
    let pipeline = Pipeline::new(ctx, args, lookups, &gate, clock);
    if args.save_plan {
        return save_plan(&pipeline, total).await;
    }
    // With --yes and no --max, each job is moved as soon as it is judged and nothing is
    // kept. Otherwise every lookup comes first: --max must refuse before anything moves,
    // and the question needs the whole plan.
    if args.apply && (!args.yes || args.max.is_some()) {
        staged(&pipeline, total).await
    } else {
        streamed(&pipeline, total).await
    }
}

/// Look up and (with `--apply --yes`) move as the lookups come back, printing each job.
async fn streamed(p: &Pipeline<'_>, total: u64) -> Result<Exit> {
    let ui = &p.ctx.ui;
    let applying = p.args.apply;
    let pb = ui.progress(
        if applying {
            "reconciling"
        } else {
            "looking up"
        },
        Some(total),
    );
    let mut out = Report::new(ui, applying);
    let mut summary = Summary::default();
    let mut failure: Option<Error> = None;
    let (produce, judged) = p.lookups();
    let consume = async {
        // Whatever lookups are ready, up to a batch, goes to the database in one statement;
        // a few batches are written at once so the moves keep up. After a failure no new
        // batch touches the database, but those already under way are waited for, so the
        // report counts every move that was made.
        let mut batches = judged
            .ready_chunks(BATCH)
            .map(|chunk| async move {
                if applying {
                    p.apply(chunk).await
                } else {
                    Ok(chunk.iter().map(|j| Row::planned(j, false)).collect())
                }
            })
            .buffer_unordered(WRITERS);
        while let Some(rows) = batches.next().await {
            let rows = match rows {
                Ok(rows) => rows,
                Err(e) => {
                    p.stop();
                    failure.get_or_insert(e);
                    continue;
                }
            };
            out.ids_unique_in(p, &rows).await;
            for row in rows {
                summary.count(&row);
                pb.inc(1);
                if let Err(e) = pb.suspend(|| out.row(&row)) {
                    if e.kind() == Kind::BrokenPipe && applying {
                        // Consented moves finish; the report goes to stderr at the end.
                        continue;
                    }
                    p.stop();
                    failure.get_or_insert(e);
                }
            }
        }
    };
    let (produced, ()) = if applying {
        // Ctrl-C stops reading and looking up; the batches under way finish, and the report
        // says what was moved (a consented run that is cut short must not hide its moves).
        p.until_interrupted(async { futures::join!(produce, consume) })
            .await
    } else {
        futures::join!(produce, consume)
    };
    pb.finish_and_clear();
    if let Err(e) = produced {
        failure.get_or_insert(e);
    }
    if p.was_interrupted() {
        failure.get_or_insert(report::interrupted());
    }
    finish(p, out, summary, failure)
}

/// `--save-plan`: every lookup, then the justified moves recorded as plans (nothing moves).
async fn save_plan(p: &Pipeline<'_>, total: u64) -> Result<Exit> {
    let pb = p.ctx.ui.progress("looking up", Some(total));
    let (produce, judged) = p.lookups();
    let collect = judged
        .map(|j| {
            pb.inc(1);
            let action = action_for(j.lookup.verdict, j.job.state);
            (j.job, j.lookup, action)
        })
        .collect::<Vec<_>>();
    let (produced, judged) = futures::join!(produce, collect);
    pb.finish_and_clear();
    produced?;
    let reason = p
        .args
        .reason
        .as_deref()
        .unwrap_or("reconcile --save-plan: the destination's answers justify these moves");
    crate::commands::plan::save_reconciled(p.ctx, judged, reason, &p.args.states()).await
}

/// Every lookup first (nothing moves), then `--max` and the question, then the moves.
async fn staged(p: &Pipeline<'_>, total: u64) -> Result<Exit> {
    let ui = &p.ctx.ui;
    let pb = ui.progress("looking up", Some(total));
    let mut rows: Vec<Row> = Vec::new();
    let mut moves: Vec<Judged> = Vec::new();
    let mut summary = Summary::default();
    let (produce, judged) = p.lookups();
    let collect = async {
        // Owned here, so refusing early (--max) drops the receiver and stops the lookups.
        let mut judged = judged;
        while let Some(j) = judged.next().await {
            let row = Row::planned(&j, false);
            summary.count(&row);
            pb.inc(1);
            if row.to_state.is_some() {
                moves.push(j);
                if let Some(max) = p.args.max {
                    if moves.len() as u64 > max {
                        p.stop();
                        return Err(report::too_many(max, &summary));
                    }
                }
            }
            rows.push(row);
        }
        Ok(())
    };
    let (produced, collected) = futures::join!(produce, collect);
    pb.finish_and_clear();
    collected?;
    produced?;

    // What the run did to each job whose move was due, by id.
    let mut done: std::collections::HashMap<uuid::Uuid, Row> =
        std::collections::HashMap::with_capacity(moves.len());
    if !moves.is_empty() && !p.args.yes {
        report::show_plan(ui, &summary, &moves, SAMPLES, &p.args.states());
        if !ui.confirm(&format!("Move these {} jobs?", moves.len()))? {
            return Err(Error::new(
                Code::Declined,
                format!(
                    "not confirmed: none of the {} jobs was moved; nothing changed",
                    moves.len()
                ),
            ));
        }
        // SPEC §3: evidence is taken after consent. The answers shown may be as old as the
        // question stayed open; each job moves on its new answer, and only when that still
        // justifies the move shown.
        let pb = ui.progress("looking up again", Some(moves.len() as u64));
        let shown: Vec<Judged> = std::mem::take(&mut moves);
        let again = p
            .ask_again(shown.iter().map(|j| j.job.clone()).collect())
            .await;
        pb.finish_and_clear();
        for (before, now) in shown.into_iter().zip(again) {
            let same = action_for(before.lookup.verdict, before.job.state)
                == action_for(now.lookup.verdict, now.job.state);
            if same {
                moves.push(now);
            } else {
                done.insert(now.job.id, Row::planned(&now, true).answer_changed(&before));
            }
        }
    }

    let pb = ui.progress("moving", Some(moves.len() as u64));
    let mut failure = None;
    let moving = async {
        for chunk in moves.chunks(BATCH) {
            match p.apply(chunk.to_vec()).await {
                Ok(rows) => {
                    for row in rows {
                        pb.inc(1);
                        done.insert(row.id, row);
                    }
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
    };
    p.until_interrupted(moving).await;
    if p.was_interrupted() {
        failure.get_or_insert(report::interrupted());
    }
    pb.finish_and_clear();
    let mut out = Report::new(ui, true);
    out.ids_unique_in(p, &rows).await;
    let mut summary = Summary::default();
    for row in rows {
        let row = match done.remove(&row.id) {
            Some(done) => done,
            None => row.not_applied(failure.is_some()),
        };
        summary.count(&row);
        if let Err(e) = out.row(&row) {
            if e.kind() != Kind::BrokenPipe {
                failure.get_or_insert(e);
            }
        }
    }
    finish(p, out, summary, failure)
}

/// The end of a run: the document closed (with the error, if it failed), the summary for
/// people, and the exit code.
fn finish(
    p: &Pipeline<'_>,
    out: Report<'_>,
    summary: Summary,
    failure: Option<Error>,
) -> Result<Exit> {
    let controls = p.gate.checked();
    match failure {
        None => {
            out.finish(&summary, &controls)?;
            Ok(summary.exit())
        }
        Some(e) => Err(out.fail(&summary, &controls, e, p)),
    }
}
