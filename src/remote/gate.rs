//! The controls of the destinations a command asks (SPEC §4), shared by `remote lookup`,
//! `mark`, `reconcile` and `doctor`: checked once per destination and run, and again once
//! `lookup.controls_every` (at most 5 minutes) has passed, however many lookups run at once
//! (the first to need a check makes it; the others wait for it). A move also needs a check
//! begun after its lookup was answered ([`Gate::after`]): a destination that breaks midway
//! (answers `[]`, or one record for every reference) fails it, and the batch moves nothing.
//!
//! The positive control's publication is read from the job table ([`JobTable`]: a pooled
//! connection taken for one statement and released before the destination is asked): no
//! transaction or row lock is ever held across the requests. The gate is the domain's trust
//! rule; a command gives it its connections (`Context::gate`).

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::clock::DbClock;
use crate::db::PooledClient;
use crate::error::Result as DbResult;
use crate::jobs::query;
use crate::remote::controls::{self, Known, Source};
use crate::remote::{Controls, Dest, Lookup, Verdict};

/// Where the gate reads the job table (the positive control's publication): a pooled
/// connection for one statement.
pub trait JobTable: Sync {
    fn connection(&self) -> Pin<Box<dyn Future<Output = DbResult<PooledClient>> + Send + '_>>;
}

/// SPEC §4: a remote id the destination gives for one article is not accepted for another.
/// The controls' known publication is one article: an `accept` whose one match carries the
/// remote id the positive control found for *its* reference (a CMS answering the canary's
/// record for every reference) becomes a `conflict` saying so. (Ids recorded for other jobs
/// are checked in the job table at move time: `jobs::reconcile`.)
pub fn not_the_controls_id(lookup: &mut Lookup, controls: &Controls) {
    let known = &controls.positive;
    let (Some(known_ref), Some(known_id)) = (
        known.external_ref.as_deref(),
        known.evidence.get("remote_id").and_then(|v| v.as_str()),
    ) else {
        return;
    };
    let [m] = lookup.matches.as_slice() else {
        return;
    };
    if lookup.verdict != Verdict::Accept
        || m.remote_id != known_id
        || lookup.external_ref == known_ref
    {
        return;
    }
    lookup.verdict = Verdict::Conflict;
    lookup.content_match = None;
    lookup.reason = format!(
        "the destination gives remote_id {known_id} for this job, but that is its answer for {known_ref}, the publication its positive control asks for (another article): its lookup may answer one record for every reference"
    );
    if let Some(l) = lookup.evidence.get_mut("lookup") {
        l["verdict"] = serde_json::to_value(lookup.verdict).unwrap_or_default();
        l["reason"] = lookup.reason.clone().into();
    }
}

/// One destination's latest controls, and when their check began.
#[derive(Clone)]
struct Checked {
    started: Instant,
    controls: Arc<Controls>,
}

/// One destination's controls in a run: the latest result, readable without waiting for a
/// check under way (lookups are not held up by a trailing check), and the lock that makes
/// one check at a time.
#[derive(Default)]
struct Slot {
    latest: Mutex<Option<Checked>>,
    checking: tokio::sync::Mutex<()>,
}

impl Slot {
    fn latest_if(&self, good: impl Fn(&Checked) -> bool) -> Option<Arc<Controls>> {
        let latest = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        latest
            .as_ref()
            .filter(|c| good(c))
            .map(|c| c.controls.clone())
    }
}

/// The controls of one run.
pub struct Gate<'a> {
    table: &'a dyn JobTable,
    clock: DbClock,
    every: Duration,
    slots: Mutex<HashMap<String, Arc<Slot>>>,
    /// Each destination's positive-control publication, as read from the job table, and
    /// when: read again once `controls_every` has passed, not for every trailing check.
    known: Mutex<HashMap<String, (Instant, KnownRead)>>,
}

type KnownRead = Result<Option<Known>, String>;

impl<'a> Gate<'a> {
    /// The gate of one run: the job table it reads, how long a check serves
    /// (`lookup.controls_every`), and the database's clock.
    pub fn new(table: &'a dyn JobTable, every: Duration, clock: DbClock) -> Gate<'a> {
        Gate {
            table,
            clock,
            every,
            slots: Mutex::new(HashMap::new()),
            known: Mutex::new(HashMap::new()),
        }
    }

    fn slot(&self, name: &str) -> Arc<Slot> {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(name.to_string())
            .or_default()
            .clone()
    }

    /// `dest`'s controls before its answers are asked for: checked now unless a check
    /// younger than `controls_every` exists.
    pub async fn controls(&self, dest: &Dest<'_>) -> Arc<Controls> {
        let young = |c: &Checked| c.controls.checked.elapsed() < self.every;
        self.checked_when(dest, young).await
    }

    /// `dest`'s controls from a check begun after `since` (SPEC §4, "Controls bracket every
    /// move"): the trailing control of lookups answered by `since`, without which none of
    /// their verdicts may move a job. A check already begun after `since` (made for another
    /// batch) serves; else one is made now.
    pub async fn after(&self, dest: &Dest<'_>, since: Instant) -> Arc<Controls> {
        self.checked_when(dest, |c: &Checked| c.started >= since)
            .await
    }

    /// The latest controls when `good`, else a new check (one at a time per destination;
    /// whoever waited for another's check takes it when it is good enough).
    async fn checked_when(
        &self,
        dest: &Dest<'_>,
        good: impl Fn(&Checked) -> bool,
    ) -> Arc<Controls> {
        let slot = self.slot(dest.name());
        if let Some(c) = slot.latest_if(&good) {
            return c;
        }
        let _checking = slot.checking.lock().await;
        if let Some(c) = slot.latest_if(&good) {
            return c;
        }
        let started = Instant::now();
        let known = self.known_recently(dest).await;
        let fresh = Arc::new(controls::check(dest, known, self.clock).await);
        *slot.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(Checked {
            started,
            controls: fresh.clone(),
        });
        fresh
    }

    /// The latest controls of every destination this run checked, by name.
    pub fn checked(&self) -> BTreeMap<String, Arc<Controls>> {
        let slots: Vec<(String, Arc<Slot>)> = self
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        slots
            .into_iter()
            .filter_map(|(name, slot)| Some((name, slot.latest_if(|_| true)?)))
            .collect()
    }

    /// [`Gate::known`], read at most once per `controls_every` per destination.
    async fn known_recently(&self, dest: &Dest<'_>) -> KnownRead {
        let cached = self
            .known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(dest.name())
            .filter(|(at, _)| at.elapsed() < self.every)
            .map(|(_, k)| k.clone());
        if let Some(k) = cached {
            return k;
        }
        let k = self.known(dest).await;
        self.known
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(dest.name().to_string(), (Instant::now(), k.clone()));
        k
    }

    /// The positive control's publication: `canary_ref`, else the most recent settled
    /// accepted job of the destination. A job table that cannot be read leaves the canary
    /// (without what the table would say of it) or no control at all.
    async fn known(&self, dest: &Dest<'_>) -> Result<Option<Known>, String> {
        let settings = dest.settings();
        let canary = settings.canary_ref.as_deref();
        let read = async {
            let db = self.table.connection().await?;
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
