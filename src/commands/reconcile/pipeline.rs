//! The producing half of a run and the moves: keyset pages of uncertain jobs feed lookups
//! that run `--concurrency` at a time (at most `--rps` a second), each destination resolved
//! once and its controls checked before its answers are trusted; judged jobs come out as they
//! complete, and [`Pipeline::apply`] makes the moves a chunk of them justifies, in one
//! statement.
//!
//! Pages are read one statement at a time with a pooled connection returned at once, and the
//! next page is read while lookups run: no transaction or row lock is held across a lookup.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};

use super::row::{Judged, Row};
use super::{Args, BATCH};
use crate::clock::DbClock;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::query::{self, ListFilter, Listing, Position};
use crate::jobs::reconcile::{self as rec, Settlement};
use crate::jobs::Job;
use crate::remote::action_for;
use crate::remote::gate::{not_the_controls_id, Gate};
use crate::remote::{Controls, Dest, Expect, Lookup, Lookups, Verdict};

/// Jobs read per keyset page: one short statement each, no transaction across lookups.
const PAGE: u32 = 500;

/// The move a lookup justifies, as the job table takes it; `None` when it moves nothing. The
/// evidence is taken out of the lookup (the row printed for it does not show it): it is
/// most of what a batch holds, and is not copied.
fn settlement(job: &Job, lookup: &mut Lookup) -> Option<Settlement> {
    let action = action_for(lookup.verdict, job.state)?;
    let remote_id = match (lookup.verdict, lookup.matches.as_slice()) {
        (Verdict::Accept, [only]) => Some(only.remote_id.clone()),
        _ => None,
    };
    Some(Settlement {
        action,
        remote_id,
        reason: lookup.reason.clone(),
        evidence: std::mem::take(&mut lookup.evidence),
    })
}

/// A judged job under its trailing control: untrusted (`unknown`) when it failed; else its
/// evidence records the control that bracketed it.
fn bracketed(j: &mut Judged, trailing: &Controls) {
    if trailing.ok() {
        not_the_controls_id(&mut j.lookup, trailing);
        if let Some(l) = j.lookup.evidence.get_mut("lookup") {
            l["controls_after"] = trailing.evidence();
        }
        return;
    }
    let failure = trailing.failure().unwrap_or_default();
    j.lookup.verdict = Verdict::Unknown;
    j.lookup.reason = format!(
        "not trusted: the control made after this answer ({}) failed: {failure}; nothing moves on its word",
        j.lookup.outcome.as_str()
    );
    if let Some(l) = j.lookup.evidence.get_mut("lookup") {
        l["verdict"] = serde_json::to_value(Verdict::Unknown).unwrap_or_default();
        l["reason"] = j.lookup.reason.clone().into();
        l["controls_after"] = trailing.evidence();
    }
    j.lookup.controls = Some(trailing.clone());
    j.controls_failed = true;
}

/// One destination as a run uses it: ready to be asked, or why its jobs cannot be judged.
type Resolved<'a> = Arc<std::result::Result<Dest<'a>, String>>;

/// One run's shared state.
pub struct Pipeline<'a> {
    pub ctx: &'a Context,
    pub args: &'a Args,
    pub gate: &'a Gate<'a>,
    lookups: Lookups<'a>,
    clock: DbClock,
    /// When the run began, on the database's clock (for "see what it moved").
    pub started: chrono::DateTime<chrono::Utc>,
    stopped: AtomicBool,
    /// Stopped by Ctrl-C or SIGTERM.
    interrupted: AtomicBool,
}

impl<'a> Pipeline<'a> {
    pub fn new(
        ctx: &'a Context,
        args: &'a Args,
        lookups: Lookups<'a>,
        gate: &'a Gate<'a>,
        clock: DbClock,
    ) -> Pipeline<'a> {
        Pipeline {
            ctx,
            args,
            gate,
            lookups,
            clock,
            started: clock.now(),
            stopped: AtomicBool::new(false),
            interrupted: AtomicBool::new(false),
        }
    }

    /// Stop reading and looking up, and let no new batch touch the database (after a
    /// failure, or once `--max` refuses).
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
    }

    /// Stop as [`Pipeline::stop`] does, because the operator interrupted the run: the moves
    /// already under way finish, and the report says what the run did.
    pub fn interrupt(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
        self.stop();
    }

    pub fn was_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Run `work` to its end; on Ctrl-C or SIGTERM meanwhile, [`Pipeline::interrupt`] it and
    /// still wait for it, so that the moves under way finish and are counted.
    pub async fn until_interrupted<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let work = std::pin::pin!(work);
        let signal = std::pin::pin!(crate::commands::interrupted());
        match futures::future::select(work, signal).await {
            futures::future::Either::Left((done, _)) => done,
            futures::future::Either::Right(((), work)) => {
                self.interrupt();
                work.await
            }
        }
    }

    fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// The producing half: a future that reads and looks up (it ends when everything is
    /// judged, when stopped, or when the receiver is dropped), and the receiver of the judged
    /// jobs, in the order their lookups complete.
    pub fn lookups(
        &'a self,
    ) -> (
        impl std::future::Future<Output = Result<()>> + 'a,
        mpsc::Receiver<Judged>,
    ) {
        let (mut job_tx, job_rx) = mpsc::channel::<Job>(PAGE as usize);
        // One batch waits judged while the writers have theirs: more would only be memory
        // (each carries its evidence) once the moves, not the lookups, set the pace.
        let (mut judged_tx, judged_rx) = mpsc::channel::<Judged>(BATCH);
        let read = async move {
            let listing = Listing::Jobs(ListFilter {
                states: self.args.states(),
                destination: self.args.destination.clone(),
                ..ListFilter::default()
            });
            let mut after: Option<Position> = None;
            let mut seen = 0u64;
            while !self.is_stopped() {
                let room = self
                    .args
                    .limit
                    .map_or(PAGE, |l| PAGE.min(u32::try_from(l - seen).unwrap_or(PAGE)));
                if room == 0 {
                    break;
                }
                let page = {
                    let db = self.ctx.db().await?;
                    query::page_after(&**db, &listing, after, room).await?
                };
                seen += page.jobs.len() as u64;
                after = page.jobs.last().map(Position::of);
                for job in page.jobs {
                    if job_tx.send(job).await.is_err() {
                        return Ok(());
                    }
                }
                if page.next_cursor.is_none() {
                    break;
                }
            }
            Ok::<(), Error>(())
        };
        let limiter = self.args.rps.map(|rps| {
            let mut interval = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(rps)));
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            Arc::new(tokio::sync::Mutex::new(interval))
        });
        // Destinations are resolved once each, on first sight; an unusable one makes its
        // jobs `unknown` with the reason (said once on stderr), and the others go on.
        let mut resolved: HashMap<String, Resolved<'a>> = HashMap::new();
        let mut resolve = move |name: &str| self.resolve(&mut resolved, name, true);
        let look = async move {
            let mut judged = job_rx
                .map(|job| {
                    let dest = resolve(&job.destination);
                    let limiter = limiter.clone();
                    async move { self.look_up(job, &dest, limiter).await }
                })
                .buffer_unordered(self.args.concurrency as usize);
            while let Some(j) = judged.next().await {
                if self.is_stopped() || judged_tx.send(j).await.is_err() {
                    break;
                }
            }
            Ok::<(), Error>(())
        };
        let produce = async move {
            let (read, look) = futures::join!(read, look);
            read.and(look)
        };
        (produce, judged_rx)
    }

    /// A destination resolved once per run (`resolved` keeps it), or why its jobs cannot be
    /// judged, said once on stderr when `warn`.
    fn resolve(
        &self,
        resolved: &mut HashMap<String, Resolved<'a>>,
        name: &str,
        warn: bool,
    ) -> Resolved<'a> {
        resolved
            .entry(name.to_string())
            .or_insert_with(|| {
                let r = self
                    .lookups
                    .destination(name)
                    .map_err(|e| e.message().to_string());
                if let (Err(why), true) = (&r, warn) {
                    self.ctx.ui.warn(why);
                }
                Arc::new(r)
            })
            .clone()
    }

    /// One job's verdict: not asked when its destination cannot be asked or its controls
    /// failed; else its lookup, judged under the controls.
    async fn look_up(
        &self,
        job: Job,
        dest: &Resolved<'a>,
        limiter: Option<Arc<tokio::sync::Mutex<tokio::time::Interval>>>,
    ) -> Judged {
        let d = match dest.as_ref() {
            Ok(d) => d,
            Err(why) => {
                let lookup = Lookup::not_asked(&job.destination, &job.external_ref, why.clone());
                return Judged {
                    job,
                    lookup,
                    controls_failed: false,
                    answered: None,
                };
            }
        };
        let controls = self.gate.controls(d).await;
        if !controls.ok() {
            let mut lookup = Lookup::not_asked(
                &job.destination,
                &job.external_ref,
                format!(
                    "the lookup of {} failed its controls (see the end of the report), so nothing it answers is evidence",
                    d.name()
                ),
            );
            lookup.controls = Some((*controls).clone());
            return Judged {
                job,
                lookup,
                controls_failed: true,
                answered: None,
            };
        }
        if let Some(l) = &limiter {
            l.lock().await.tick().await;
        }
        let expect = Expect {
            payload_hash: Some(&job.payload_hash),
            sent_at: job.sent_at,
        };
        let mut lookup = d
            .ask(&job.external_ref, expect, self.clock)
            .await
            .under(&controls);
        not_the_controls_id(&mut lookup, &controls);
        Judged {
            job,
            lookup,
            controls_failed: false,
            answered: Some(Instant::now()),
        }
    }

    /// SPEC §4, "Controls bracket every move": for each destination of the chunk, a control
    /// run begun after the last of its answers that would move a job. When it fails, every
    /// such answer of the chunk is `unknown` (the destination may have broken after its
    /// leading controls passed: answering `[]`, or one record for every reference), and none
    /// of them moves. When it passes, each move's evidence records it.
    async fn bracket(&self, chunk: &mut [Judged]) {
        let mut last: HashMap<String, Instant> = HashMap::new();
        for j in chunk.iter() {
            if let (Some(at), Some(_)) = (j.answered, action_for(j.lookup.verdict, j.job.state)) {
                let t = last.entry(j.job.destination.clone()).or_insert(at);
                *t = (*t).max(at);
            }
        }
        for (name, since) in last {
            let trailing = match self.lookups.destination(&name) {
                Ok(dest) => self.gate.after(&dest, since).await,
                // It was asked, so it resolved: nothing to bracket otherwise.
                Err(_) => continue,
            };
            for j in chunk.iter_mut().filter(|j| {
                j.job.destination == name
                    && j.answered.is_some()
                    && action_for(j.lookup.verdict, j.job.state).is_some()
            }) {
                bracketed(j, &trailing);
            }
        }
    }

    /// Ask again, after an operator's "yes" (SPEC §3: evidence is taken after consent),
    /// for the jobs whose moves were shown: each verdict anew, under controls checked again
    /// when older than `controls_every`; the moves then stand on these answers only.
    pub async fn ask_again(&self, jobs: Vec<Job>) -> Vec<Judged> {
        let mut resolved: HashMap<String, Resolved<'a>> = HashMap::new();
        let asks: Vec<_> = jobs
            .into_iter()
            .map(|job| {
                // Said on stderr during the first round already.
                let dest = self.resolve(&mut resolved, &job.destination, false);
                async move { self.look_up(job, &dest, None).await }
            })
            .collect();
        futures::stream::iter(asks)
            .buffered(self.args.concurrency as usize)
            .collect()
            .await
    }

    /// Make the moves a chunk of judged jobs justifies, in one statement (a pooled connection
    /// taken only for it). A lost guard, a row locked past the lock timeout or a move the
    /// database refuses is `skipped` for that job alone. After [`Pipeline::stop`], nothing
    /// touches the database: the chunk's moves are reported as not made.
    pub async fn apply(&self, mut chunk: Vec<Judged>) -> Result<Vec<Row>> {
        if !self.is_stopped() {
            self.bracket(&mut chunk).await;
        }
        let settlements: Vec<Option<Settlement>> = chunk
            .iter_mut()
            .map(|j| settlement(&j.job, &mut j.lookup))
            .collect();
        let items: Vec<(&Job, &Settlement)> = chunk
            .iter()
            .zip(&settlements)
            .filter_map(|(j, s)| s.as_ref().map(|s| (&j.job, s)))
            .collect();
        if !items.is_empty() && self.is_stopped() {
            return Ok(chunk
                .iter()
                .map(|j| Row::planned(j, false).not_applied(true))
                .collect());
        }
        let mut settled = if items.is_empty() {
            Vec::new()
        } else {
            let db = self.ctx.db().await?;
            rec::settle_batch(&**db, &items, &self.ctx.actor, self.ctx.target()?).await?
        }
        .into_iter();
        Ok(chunk
            .iter()
            .zip(&settlements)
            .map(|(j, s)| {
                let row = Row::planned(j, true);
                match s {
                    Some(_) => match settled.next() {
                        Some(outcome) => row.settled(outcome, j.job.version),
                        None => row.not_applied(true),
                    },
                    None => row,
                }
            })
            .collect())
    }
}
