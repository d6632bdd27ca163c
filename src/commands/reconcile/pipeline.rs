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
use std::time::Duration;

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};

use super::row::{action_for, Judged, Row};
use super::{Args, BATCH};
use crate::clock::DbClock;
use crate::commands::controls::Gate;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::query::{self, Listing, Position};
use crate::jobs::reconcile::{self as rec, Settlement};
use crate::jobs::Job;
use crate::remote::{Dest, Expect, Lookup, Lookups, Verdict};

/// Jobs read per keyset page: one short statement each, no transaction across lookups.
const PAGE: u32 = 500;

/// The move a lookup justifies, as the job table takes it; `None` when it moves nothing.
fn settlement(lookup: &Lookup) -> Option<Settlement> {
    let action = action_for(lookup.verdict)?;
    let remote_id = match (lookup.verdict, lookup.matches.as_slice()) {
        (Verdict::Accept, [only]) => Some(only.remote_id.clone()),
        _ => None,
    };
    Some(Settlement {
        action,
        remote_id,
        reason: lookup.reason.clone(),
        evidence: lookup.evidence.clone(),
    })
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
        }
    }

    /// Stop reading and looking up, and let no new batch touch the database (after a
    /// failure, or once `--max` refuses).
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
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
        let (mut judged_tx, judged_rx) = mpsc::channel::<Judged>(4 * BATCH);
        let read = async move {
            let listing = Listing::uncertain(self.args.destination.clone());
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
        let mut resolve = move |name: &str| -> Resolved<'a> {
            resolved
                .entry(name.to_string())
                .or_insert_with(|| {
                    let r = self
                        .lookups
                        .destination(name)
                        .map_err(|e| e.message().to_string());
                    if let Err(why) = &r {
                        self.ctx.ui.warn(why);
                    }
                    Arc::new(r)
                })
                .clone()
        };
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
            };
        }
        if let Some(l) = &limiter {
            l.lock().await.tick().await;
        }
        let expect = Expect {
            payload_hash: Some(&job.payload_hash),
            sent_at: job.sent_at,
        };
        let lookup = d
            .ask(&job.external_ref, expect, self.clock)
            .await
            .under(&controls);
        Judged {
            job,
            lookup,
            controls_failed: false,
        }
    }

    /// Make the moves a chunk of judged jobs justifies, in one statement (a pooled connection
    /// taken only for it). A lost guard, a row locked past the lock timeout or a move the
    /// database refuses is `skipped` for that job alone. After [`Pipeline::stop`], nothing
    /// touches the database: the chunk's moves are reported as not made.
    pub async fn apply(&self, chunk: Vec<Judged>) -> Result<Vec<Row>> {
        let settlements: Vec<Option<Settlement>> =
            chunk.iter().map(|j| settlement(&j.lookup)).collect();
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
