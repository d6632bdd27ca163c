//! The controls of the destinations a command asks (SPEC §4), shared by `remote lookup`,
//! `mark`, `reconcile` and `doctor`: checked once per destination and run, and again once
//! `lookup.controls_every` (at most 5 minutes) has passed, however many lookups run at once
//! (the first to need a check makes it; the others wait for it).
//!
//! The positive control's publication is read from the job table with a pooled connection
//! that is released before the destination is asked: no transaction or row lock is ever held
//! across the requests.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::clock::DbClock;
use crate::context::Context;
use crate::jobs::query;
use crate::remote::controls::{self, Known, Source};
use crate::remote::{Controls, Dest};

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Controls>>>>;

/// The controls of one run.
pub struct Gate<'a> {
    ctx: &'a Context,
    clock: DbClock,
    every: Duration,
    slots: Mutex<HashMap<String, Slot>>,
}

impl<'a> Gate<'a> {
    pub fn new(ctx: &'a Context, clock: DbClock) -> crate::error::Result<Gate<'a>> {
        Ok(Gate {
            ctx,
            clock,
            every: ctx.config()?.lookup.controls_every,
            slots: Mutex::new(HashMap::new()),
        })
    }

    /// `dest`'s controls, checked now unless a check younger than `controls_every` exists.
    pub async fn controls(&self, dest: &Dest<'_>) -> Arc<Controls> {
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(dest.name().to_string())
            .or_default()
            .clone();
        let mut checked = slot.lock().await;
        if let Some(c) = checked.as_ref() {
            if c.checked.elapsed() < self.every {
                return c.clone();
            }
        }
        let known = self.known(dest).await;
        let fresh = Arc::new(controls::check(dest, known, self.clock).await);
        *checked = Some(fresh.clone());
        fresh
    }

    /// The latest controls of every destination this run checked, by name.
    pub fn checked(&self) -> BTreeMap<String, Arc<Controls>> {
        let slots: Vec<(String, Slot)> = self
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        slots
            .into_iter()
            .filter_map(|(name, slot)| {
                let c = slot.try_lock().ok()?.clone()?;
                Some((name, c))
            })
            .collect()
    }

    /// The positive control's publication: `canary_ref`, else the most recent settled
    /// accepted job of the destination. A job table that cannot be read leaves the canary
    /// (without what the table would say of it) or no control at all.
    async fn known(&self, dest: &Dest<'_>) -> Result<Option<Known>, String> {
        let settings = dest.settings();
        let canary = settings.canary_ref.as_deref();
        let read = async {
            let db = self.ctx.db().await?;
            query::known_publication(&**db, dest.name(), settings.settle_after, canary).await
        };
        match read.await {
            Ok(found) => Ok(found.map(|p| Known {
                source: match (canary, p.job_id) {
                    (Some(_), _) | (None, None) => Source::Canary,
                    (None, Some(id)) => Source::AcceptedJob(id),
                },
                external_ref: p.external_ref,
                remote_id: p.remote_id,
                payload_hash: p.payload_hash,
            })),
            Err(_) if canary.is_some() => Ok(canary.map(|r| Known {
                external_ref: r.to_string(),
                remote_id: None,
                payload_hash: None,
                source: Source::Canary,
            })),
            Err(e) => Err(format!(
                "the job table could not be read to find a publication it holds ({})",
                e.message()
            )),
        }
    }
}
