//! `reconctl reconcile`: look up every uncertain job; plan, and with `--apply` make, the moves
//! the evidence justifies.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use reqwest::header::HeaderValue;
use serde::Serialize;
use uuid::Uuid;

use super::Exit;
use crate::config::Destination;
use crate::context::Context;
use crate::error::{Code, Error, Result};
use crate::jobs::query::{self, Listing, Position};
use crate::jobs::reconcile::{self as rec, Settled};
use crate::jobs::{Job, State};
use crate::remote::{Lookup, Outcome, Verdict};
use crate::ui::Format;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl reconcile                       # the plan; nothing changes\n  reconctl reconcile --destination cms-a --concurrency 8 --rps 20\n  reconctl reconcile --apply --yes --max 500\n\nWithout --apply nothing changes. With --apply --yes each job moves as soon as it is judged; with --max, or on a terminal without --yes, every lookup comes first, then the limit is checked or the question asked, then the moves. A job changed by someone else meanwhile is reported as skipped. Re-running continues with the jobs still uncertain.\n\nExit codes: 0 every examined job got a definite verdict (accept, safe_to_retry, wait), 2 refused and nothing changed (--apply without --yes and without a terminal; more than --max jobs would move), 5 conflicts or unknowns remain."
)]
pub struct Args {
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
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
}

/// Jobs read per keyset page: one short statement each, no transaction across lookups.
const PAGE: u64 = 500;

/// How many jobs the confirmation shows as examples.
const SAMPLES: usize = 5;

/// What happened (or would happen) to one job; SPEC §5's `reconcile` job object.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub id: Uuid,
    pub external_ref: String,
    pub destination: String,
    pub verdict: Verdict,
    pub action: RowAction,
    /// Where the job went (moved) or would go (planned); null when it does not move.
    pub to_state: Option<State>,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowAction {
    Moved,
    Planned,
    Skipped,
    None,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub accept: u64,
    pub safe_to_retry: u64,
    pub conflict: u64,
    pub wait: u64,
    pub unknown: u64,
    pub moved: u64,
    pub skipped: u64,
}

impl Summary {
    fn count(&mut self, row: &Row) {
        match row.verdict {
            Verdict::Accept => self.accept += 1,
            Verdict::SafeToRetry => self.safe_to_retry += 1,
            Verdict::Conflict => self.conflict += 1,
            Verdict::Wait => self.wait += 1,
            Verdict::Unknown => self.unknown += 1,
        }
        match row.action {
            RowAction::Moved => self.moved += 1,
            RowAction::Skipped => self.skipped += 1,
            RowAction::Planned | RowAction::None => {}
        }
    }

    fn examined(&self) -> u64 {
        self.accept + self.safe_to_retry + self.conflict + self.wait + self.unknown
    }

    fn would_move(&self) -> u64 {
        self.accept + self.safe_to_retry + self.conflict
    }

    /// Exit 5 while a job needs a person (conflict) or could not be judged (unknown).
    fn exit(&self) -> Exit {
        if self.conflict > 0 || self.unknown > 0 {
            Exit::Attention
        } else {
            Exit::Done
        }
    }

    fn line(&self, applied: bool, declined: bool) -> String {
        let tail = if applied {
            format!("; moved {}, skipped {}", self.moved, self.skipped)
        } else if declined {
            format!(
                "; {} would move: declined, nothing changed",
                self.would_move()
            )
        } else if self.would_move() > 0 {
            format!(
                "; {} would move: nothing changed, run with --apply to make these moves",
                self.would_move()
            )
        } else {
            "; nothing to move".to_string()
        };
        format!(
            "reconcile: examined {}: accept {}, safe_to_retry {}, conflict {}, wait {}, unknown {}{tail}",
            self.examined(),
            self.accept,
            self.safe_to_retry,
            self.conflict,
            self.wait,
            self.unknown
        )
    }
}

/// A job with what its destination said.
struct Judged {
    job: Job,
    lookup: Lookup,
}

/// A destination as reconcile uses it: its config and token, or why its jobs cannot be judged.
type Resolved = std::result::Result<(Destination, Option<HeaderValue>), String>;

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let config = ctx.config()?;
    if let Some(d) = &args.destination {
        let dest = crate::remote::configured(config, d)?;
        crate::remote::http::bearer(d, dest)?;
    }
    if args.apply && !args.yes && !ctx.ui.can_prompt() {
        return Err(Error::usage(
            "reconcile --apply changes jobs; without a terminal to ask on, it needs --yes",
        )
        .hinted(
            "run it without --apply to see the plan, then add --yes (and --max N) to apply it",
        ));
    }
    // With --yes and no --max, each job is moved as soon as it is judged and nothing is
    // kept. Otherwise every lookup comes first: --max must refuse before anything moves,
    // and the question needs the whole plan.
    let staged = args.apply && (!args.yes || args.max.is_some());
    let actor = ctx.actor.clone();

    let (offset, total) = {
        let db = ctx.db().await?;
        let offset = rec::clock_offset(&**db).await?;
        let total = rec::count_uncertain(&**db, args.destination.as_deref()).await?;
        (offset, args.limit.map_or(total, |l| l.min(total)))
    };
    let pb = ctx.ui.progress(Some(total));
    pb.set_message("looking up");
    let (produce, judged) = lookups(ctx, args, offset)?;
    let mut summary = Summary::default();

    if !staged {
        let consume = async {
            let mut out = Printer::new(ctx, args.apply);
            // Whatever lookups are ready, up to a batch, goes to the database in one
            // statement; a few batches are written at once so the moves keep up.
            let mut batches = judged
                .ready_chunks(BATCH)
                .map(|chunk| {
                    let actor = &actor;
                    async move {
                        if args.apply {
                            apply_batch(ctx, &chunk, actor).await
                        } else {
                            Ok(chunk.iter().map(|j| planned(j, false)).collect())
                        }
                    }
                })
                .buffer_unordered(WRITERS);
            while let Some(rows) = batches.next().await {
                let rows: Vec<Row> = rows?;
                for row in rows {
                    summary.count(&row);
                    pb.inc(1);
                    pb.suspend(|| out.row(&row))?;
                }
            }
            pb.finish_and_clear();
            out.end(&summary)
        };
        futures::try_join!(produce, consume)?;
        return Ok(summary.exit());
    }

    // Staged: every lookup first (nothing moves), then --max and the question, then the
    // moves. Only the jobs that would move keep their evidence.
    let mut rows: Vec<Row> = Vec::new();
    let mut moves: Vec<Judged> = Vec::new();
    let collect = async {
        let mut judged = judged;
        while let Some(j) = judged.next().await {
            let row = planned(&j, false);
            summary.count(&row);
            pb.inc(1);
            if rec::action_for(j.lookup.verdict).is_some() {
                moves.push(j);
                if let Some(max) = args.max {
                    if moves.len() as u64 > max {
                        return Err(too_many(max, &summary));
                    }
                }
            }
            rows.push(row);
        }
        Ok(())
    };
    let collected = futures::try_join!(produce, collect);
    pb.finish_and_clear();
    collected?;

    let go = moves.is_empty() || args.yes || {
        show_plan(ctx, &summary, &moves);
        ctx.ui
            .confirm(&format!("Move these {} jobs?", moves.len()))?
    };
    if !go {
        ctx.ui.status("nothing changed");
        let mut out = Printer::new(ctx, false);
        out.declined = true;
        for row in &rows {
            out.row(row)?;
        }
        out.end(&summary)?;
        return Ok(summary.exit());
    }

    let pb = ctx.ui.progress(Some(moves.len() as u64));
    pb.set_message("moving");
    let mut moved: HashMap<Uuid, Row> = HashMap::with_capacity(moves.len());
    for chunk in moves.chunks(BATCH) {
        for row in apply_batch(ctx, chunk, &actor).await? {
            pb.inc(1);
            moved.insert(row.id, row);
        }
    }
    pb.finish_and_clear();
    let mut summary = Summary::default();
    let mut out = Printer::new(ctx, true);
    for row in rows {
        let row = moved.remove(&row.id).unwrap_or(row);
        summary.count(&row);
        out.row(&row)?;
    }
    out.end(&summary)?;
    Ok(summary.exit())
}

/// Moves per statement (one commit each).
const BATCH: usize = 256;

/// Batches written at once (each on its own pooled connection).
const WRITERS: usize = 4;

/// The producing half of a run: keyset pages of uncertain jobs feed lookups that run
/// `--concurrency` at a time (at most `--rps` a second); judged jobs come out of the
/// receiver as they complete. Pages are read one statement at a time with a pooled
/// connection returned at once, and the next page is read while lookups run.
fn lookups<'a>(
    ctx: &'a Context,
    args: &'a Args,
    offset: chrono::Duration,
) -> Result<(
    impl std::future::Future<Output = Result<()>> + 'a,
    mpsc::Receiver<Judged>,
)> {
    let config = ctx.config()?;
    let http = ctx.http()?;
    let max_body = config.lookup.max_body_bytes;
    let (mut job_tx, job_rx) = mpsc::channel::<Job>(PAGE as usize);
    let (mut judged_tx, judged_rx) = mpsc::channel::<Judged>(4 * BATCH);

    let read = async move {
        let listing = Listing::uncertain(args.destination.clone());
        let mut after: Option<Position> = None;
        let mut seen = 0u64;
        loop {
            let room = args
                .limit
                .map_or(PAGE, |l| PAGE.min(l.saturating_sub(seen)));
            if room == 0 {
                break;
            }
            let page = {
                let db = ctx.db().await?;
                query::page_after(&**db, &listing, after, room as u32).await?
            };
            let n = page.jobs.len() as u64;
            after = page.jobs.last().map(Position::of);
            for job in page.jobs {
                if job_tx.send(job).await.is_err() {
                    return Ok(());
                }
            }
            seen += n;
            if page.next_cursor.is_none() {
                break;
            }
        }
        Ok::<(), Error>(())
    };

    // Destinations are resolved once each, on first sight; an unusable one makes its jobs
    // `unknown` with the reason, and the others go on.
    let mut resolved: HashMap<String, Arc<Resolved>> = HashMap::new();
    let mut resolve = move |name: &str| -> Arc<Resolved> {
        if let Some(r) = resolved.get(name) {
            return r.clone();
        }
        let r: Resolved = match config.destination(name) {
            None => Err(format!(
                "destination {name} is not configured: add a [destinations.{name}] section to the config file"
            )),
            Some(dest) => match crate::remote::http::bearer(name, dest) {
                Ok(token) => Ok((dest.clone(), token)),
                Err(e) => Err(e.message().to_string()),
            },
        };
        if let Err(why) = &r {
            ctx.ui.warn(why);
        }
        let r = Arc::new(r);
        resolved.insert(name.to_string(), r.clone());
        r
    };
    let limiter = args.rps.map(|rps| {
        let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(rps)));
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Arc::new(tokio::sync::Mutex::new(interval))
    });

    let look = async move {
        let mut judged = job_rx
            .map(|job| {
                let dest = resolve(&job.destination);
                let limiter = limiter.clone();
                async move {
                    let lookup = match dest.as_ref() {
                        Err(why) => unjudged(&job, why),
                        Ok((d, token)) => {
                            if let Some(l) = &limiter {
                                l.lock().await.tick().await;
                            }
                            crate::remote::lookup_at(
                                http,
                                &job.destination,
                                d,
                                token.as_ref(),
                                max_body,
                                &job.external_ref,
                                Some(&job.payload_hash),
                                job.sent_at.map(|t| t + offset),
                            )
                            .await
                        }
                    };
                    Judged { job, lookup }
                }
            })
            .buffer_unordered(args.concurrency as usize);
        while let Some(j) = judged.next().await {
            if judged_tx.send(j).await.is_err() {
                break;
            }
        }
        Ok::<(), Error>(())
    };
    let produce = async move {
        futures::try_join!(read, look)?;
        Ok(())
    };
    Ok((produce, judged_rx))
}

/// Make the moves a chunk of judged jobs justify, in one statement (a pooled connection
/// taken only for it). A lost guard or a row locked past the lock timeout is `skipped`.
async fn apply_batch(ctx: &Context, chunk: &[Judged], actor: &str) -> Result<Vec<Row>> {
    let items: Vec<(&Job, &Lookup)> = chunk.iter().map(|j| (&j.job, &j.lookup)).collect();
    let settled = if items
        .iter()
        .any(|(_, l)| rec::action_for(l.verdict).is_some())
    {
        let db = ctx.db().await?;
        rec::settle_batch(&**db, &items, actor).await?
    } else {
        vec![None; items.len()]
    };
    Ok(chunk
        .iter()
        .zip(settled)
        .map(|(j, s)| {
            let mut row = planned(j, true);
            match s {
                None => {}
                Some(Settled::Moved(state)) => {
                    row.action = RowAction::Moved;
                    row.to_state = Some(state);
                }
                Some(Settled::ChangedConcurrently(now)) => {
                    row.action = RowAction::Skipped;
                    row.to_state = None;
                    row.reason = format!(
                        "skipped: changed concurrently (now {} at version {}, read at version {})",
                        now.state, now.version, j.job.version
                    );
                }
                Some(Settled::Busy(why)) => {
                    row.action = RowAction::Skipped;
                    row.to_state = None;
                    row.reason = format!("skipped: {why}; run reconcile again");
                }
            }
            row
        })
        .collect())
}

/// The verdict for a job whose destination cannot be asked.
fn unjudged(job: &Job, why: &str) -> Lookup {
    Lookup {
        destination: job.destination.clone(),
        external_ref: job.external_ref.clone(),
        outcome: Outcome::Unreachable,
        matches: Vec::new(),
        content_match: None,
        verdict: Verdict::Unknown,
        reason: format!("not looked up: {why}"),
        evidence: serde_json::Value::Null,
    }
}

/// The row for a judged job before (or without) any move.
fn planned(j: &Judged, applying: bool) -> Row {
    let action = rec::action_for(j.lookup.verdict);
    Row {
        id: j.job.id,
        external_ref: j.job.external_ref.clone(),
        destination: j.job.destination.clone(),
        verdict: j.lookup.verdict,
        action: match action {
            Some(_) if !applying => RowAction::Planned,
            _ => RowAction::None,
        },
        to_state: action.map(|a| a.to()),
        reason: j.lookup.reason.clone(),
    }
    .settle_to_state()
}

impl Row {
    /// `to_state` only for a job that moves or would move.
    fn settle_to_state(mut self) -> Row {
        if matches!(self.action, RowAction::None | RowAction::Skipped) {
            self.to_state = None;
        }
        self
    }
}

fn too_many(max: u64, summary: &Summary) -> Error {
    Error::new(
            Code::TooManyMoves,
        format!(
            "refusing to apply: more than --max {max} jobs would move (stopped looking after {} examined); nothing changed",
            summary.examined()
        ),
    )
    .hinted("look at the plan (reconcile without --apply), then raise --max or narrow with --destination / --limit")
    .with_detail(serde_json::json!({ "max": max, "examined": summary.examined(), "would_move_at_least": summary.would_move() }))
}

/// The question's context on the terminal: counts per verdict and a few examples.
fn show_plan(ctx: &Context, summary: &Summary, moves: &[Judged]) {
    let ui = &ctx.ui;
    ui.status(&format!(
        "reconcile would move {} of {} examined jobs:",
        summary.would_move(),
        summary.examined()
    ));
    for (verdict, n) in [
        (Verdict::Accept, summary.accept),
        (Verdict::SafeToRetry, summary.safe_to_retry),
        (Verdict::Conflict, summary.conflict),
        (Verdict::Wait, summary.wait),
        (Verdict::Unknown, summary.unknown),
    ] {
        let what = match rec::action_for(verdict) {
            Some(a) => format!("→ {}", a.to()),
            None => format!("(stay {})", State::reconciled()),
        };
        ui.status(&format!("  {:<14}{n:>8}  {what}", verdict.as_str()));
    }
    ui.status("for example:");
    for j in moves.iter().take(SAMPLES) {
        ui.status(&format!(
            "  {} {} {} → {}: {}",
            j.job.id,
            j.job.destination,
            j.lookup.verdict.as_str(),
            rec::action_for(j.lookup.verdict).map_or("-", |a| a.to().as_str()),
            j.lookup.reason
        ));
    }
}

/// Prints rows as they come, so a run over many jobs holds none of them: a JSON document
/// written piece by piece, one JSON object a line, or one text line a job.
struct Printer<'a> {
    ctx: &'a Context,
    applied: bool,
    /// The person answered no: say so instead of suggesting --apply.
    declined: bool,
    rows: u64,
}

impl<'a> Printer<'a> {
    fn new(ctx: &'a Context, applied: bool) -> Printer<'a> {
        Printer {
            ctx,
            applied,
            declined: false,
            rows: 0,
        }
    }

    fn row(&mut self, row: &Row) -> Result<()> {
        let ui = &self.ctx.ui;
        let first = self.rows == 0;
        self.rows += 1;
        match ui.format {
            Format::Json => {
                let item = serde_json::to_string(row).map_err(|e| Error::bug(e.to_string()))?;
                if first {
                    ui.out_raw(&format!(
                        "{{\n  \"applied\": {},\n  \"jobs\": [\n    {item}",
                        self.applied
                    ))
                } else {
                    ui.out_raw(&format!(",\n    {item}"))
                }
            }
            Format::Jsonl => {
                let item = serde_json::to_string(row).map_err(|e| Error::bug(e.to_string()))?;
                ui.out(&item)
            }
            Format::Table => {
                if ui.quiet {
                    return Ok(());
                }
                if first {
                    ui.out(&format!(
                        "{:<36}  {:<12}  {:<13}  {:<7}  {:<13}  REASON",
                        "JOB", "DESTINATION", "VERDICT", "ACTION", "TO"
                    ))?;
                }
                let action = match row.action {
                    RowAction::Moved => "moved",
                    RowAction::Planned => "planned",
                    RowAction::Skipped => "skipped",
                    RowAction::None => "-",
                };
                ui.out(&format!(
                    "{:<36}  {:<12}  {:<13}  {:<7}  {:<13}  {}",
                    row.id,
                    row.destination,
                    row.verdict.as_str(),
                    action,
                    row.to_state.map_or("-", State::as_str),
                    row.reason
                ))
            }
        }
    }

    fn end(self, summary: &Summary) -> Result<()> {
        let ui = &self.ctx.ui;
        match ui.format {
            Format::Json => {
                let s = serde_json::to_string(summary).map_err(|e| Error::bug(e.to_string()))?;
                if self.rows == 0 {
                    ui.out(&format!(
                        "{{\n  \"applied\": {},\n  \"jobs\": [],\n  \"summary\": {s}\n}}",
                        self.applied
                    ))
                } else {
                    ui.out(&format!("\n  ],\n  \"summary\": {s}\n}}"))
                }
            }
            Format::Jsonl => {
                let s = serde_json::json!({ "applied": self.applied, "summary": summary });
                ui.out(&s.to_string())
            }
            Format::Table => {
                if ui.quiet {
                    return Ok(());
                }
                ui.out(&summary.line(self.applied, self.declined))
            }
        }
    }
}
