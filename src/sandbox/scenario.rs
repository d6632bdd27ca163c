//! Realistic jobs, made the way a real worker makes them: through the library's worker API
//! (`reserve`, `claim`, `mark_sent`, `complete`, `timed_out`, `fail`) against a destination
//! that really receives (or does not receive) each send. Nothing is inserted or backdated
//! by hand, so every job's history is the history a worker would have written.
//!
//! What an incident leaves behind, and what the drill then settles:
//!
//! | story                                   | state after seeding        | after sweep + reconcile |
//! |-----------------------------------------|----------------------------|-------------------------|
//! | published and confirmed                 | accepted                   | accepted                |
//! | reserved, not yet claimed               | pending                    | pending                 |
//! | send timed out, destination accepted it | uncertain (remote has it)  | accepted                |
//! | send never arrived, worker timed out    | uncertain (remote lacks it)| safe_to_retry           |
//! | worker died before sending              | in_flight, lease expired   | pending                 |
//! | worker died after sending (arrived)     | in_flight, lease expired   | uncertain → accepted    |
//! | worker died after sending (lost)        | in_flight, lease expired   | uncertain → safe_to_retry |
//! | destination rejected it                 | failed                     | failed                  |
//! | same key, other payload                 | refused (payload conflict), existing job untouched |
//! | revision 1 accepted after revision 2    | both accepted (out of order: `check` reports it)   |

use std::future::Future;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio_postgres::GenericClient;
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::jobs::worker::{self, Reservation};
use crate::jobs::{payload_hash, BusinessKey, Job, State};

/// What happened to one send, as the worker saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// The destination confirmed, with its id.
    Accepted { remote_id: String },
    /// The destination refused it for good.
    Rejected { error: String },
    /// No answer in time: the worker cannot tell whether it arrived.
    TimedOut { error: String },
}

/// What the network and the destination do with one send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// It arrives, the destination stores it and confirms.
    Arrives,
    /// It arrives and the destination refuses it for good.
    Refused,
    /// The request is lost on the way: the destination never sees it; the worker times out.
    Lost,
    /// The destination stores it, but its answer never reaches the worker, which times out.
    AnswerLost,
}

/// How the scenario's worker reaches the destination (the sandbox's: HTTP to its local
/// destination), with the fate the scenario wants for this send.
pub trait Publisher {
    fn send(&self, job: &Job, payload: &[u8], fate: Fate) -> impl Future<Output = Result<Sent>>;
}

/// What the scenario made, for the summary and the drill.
#[derive(Debug, Clone, Serialize)]
pub struct Seeded {
    pub accepted: usize,
    pub pending: usize,
    pub uncertain_remote_has: usize,
    pub uncertain_remote_lacks: usize,
    pub expired_leases_unsent: usize,
    pub expired_leases_sent: usize,
    pub failed: usize,
    /// The refused reservation: the key (`tenant/article/revision`), the refusal's message,
    /// and the job it left untouched.
    pub payload_conflict: String,
    pub payload_conflict_error: String,
    pub payload_conflict_job: Uuid,
    /// `tenant/article`: revision 1 accepted after revision 2.
    pub out_of_order: String,
    /// An uncertain job the destination has: the one the drill looks up.
    pub lookup_example: Uuid,
    /// An accepted job's external_ref: the destination's canary (its positive control).
    pub canary_ref: String,
    /// When the last send was marked (the drill waits `settle_after` from here).
    #[serde(skip)]
    pub last_sent: Instant,
    /// When the dead worker's leases have all expired.
    #[serde(skip)]
    pub leases_expired: Instant,
    #[serde(skip)]
    pub settle_after: Duration,
}

const TENANTS: [&str; 3] = ["acme", "globex", "initech"];
const WORKER: &str = "sandbox-worker-1";
/// Leases of the workers that "die": short, so they are expired by the time anyone looks.
const SHORT_LEASE: Duration = Duration::from_secs(1);
const LEASE: Duration = Duration::from_secs(60);

fn payload(key: &BusinessKey, variant: &str) -> Vec<u8> {
    serde_json::json!({
        "tenant": key.tenant_id,
        "article": key.article_id,
        "revision": key.revision_id,
        "title": format!("Article {} (revision {}){variant}", key.article_id, key.revision_id),
        "body": format!("The text of {} as of revision {}.{variant}", key.article_id, key.revision_id),
    })
    .to_string()
    .into_bytes()
}

struct Maker<'a, C, S> {
    client: &'a C,
    send: &'a S,
    destination: &'a str,
    actor: &'a str,
    next: usize,
    last_sent: Instant,
    leases_expired: Instant,
}

impl<C: GenericClient, S: Publisher> Maker<'_, C, S> {
    fn key(&mut self, revision: &str) -> BusinessKey {
        self.next += 1;
        let n = self.next;
        BusinessKey::new(
            TENANTS[n % TENANTS.len()],
            &format!("a-{}", 1000 + n),
            revision,
            self.destination,
        )
    }

    async fn reserve(&self, key: &BusinessKey, payload: &[u8]) -> Result<Job> {
        match worker::reserve(self.client, key, &payload_hash(payload), self.actor).await? {
            Reservation::Created { job, .. } => Ok(job),
            Reservation::Existing { job } => Err(Error::bug(format!(
                "sandbox: job {} already existed; the sandbox needs an empty database",
                job.id
            ))),
        }
    }

    /// Claim exactly this job (it is the only one claimable while the scenario runs).
    async fn claim(&self, job: &Job, lease: Duration) -> Result<Job> {
        let claimed = worker::claim(self.client, WORKER, lease, Some(self.destination))
            .await?
            .ok_or_else(|| Error::bug("sandbox: nothing to claim"))?;
        if claimed.id != job.id {
            return Err(Error::bug(format!(
                "sandbox: claimed {} instead of {}",
                claimed.id, job.id
            )));
        }
        Ok(claimed)
    }

    /// Reserve, claim and mark sent; then send, and (unless the worker "dies") record what
    /// the worker saw.
    async fn job(&mut self, key: BusinessKey, fate: Fate, worker_survives: bool) -> Result<Job> {
        let payload = payload(&key, "");
        let job = self.reserve(&key, &payload).await?;
        let lease = if worker_survives { LEASE } else { SHORT_LEASE };
        let job = self.claim(&job, lease).await?;
        if !worker_survives {
            self.lease_dies();
        }
        let job = worker::mark_sent(self.client, &job).await?;
        self.last_sent = Instant::now();
        let sent = self.send.send(&job, &payload, fate).await?;
        if !worker_survives {
            return Ok(job);
        }
        match sent {
            Sent::Accepted { remote_id } => worker::complete(self.client, &job, &remote_id).await,
            Sent::Rejected { error } => worker::fail(self.client, &job, &error).await,
            Sent::TimedOut { error } => worker::timed_out(self.client, &job, &error).await,
        }
    }

    /// A lease just claimed by a worker that will die: note when it will have expired
    /// (measured after the claim returned, so never earlier than the database's expiry).
    fn lease_dies(&mut self) {
        self.leases_expired = Instant::now() + SHORT_LEASE;
    }

    fn expect(&self, job: &Job, state: State) -> Result<()> {
        if job.state == state {
            Ok(())
        } else {
            Err(Error::bug(format!(
                "sandbox: job {} is {} after seeding, expected {state}",
                job.id, job.state
            )))
        }
    }
}

/// Make the jobs. `settle_after` is the destination's, for the drill's timing.
pub async fn seed<C: GenericClient, S: Publisher>(
    client: &C,
    send: &S,
    destination: &str,
    actor: &str,
    settle_after: Duration,
) -> Result<Seeded> {
    let mut m = Maker {
        client,
        send,
        destination,
        actor,
        next: 0,
        last_sent: Instant::now(),
        leases_expired: Instant::now(),
    };

    // The bulk: published and confirmed.
    let mut accepted = 0;
    let mut canary_ref = None;
    for _ in 0..36 {
        let key = m.key("1");
        let job = m.job(key, Fate::Arrives, true).await?;
        m.expect(&job, State::Accepted)?;
        canary_ref.get_or_insert(job.external_ref);
        accepted += 1;
    }

    // A revision the destination refuses for good.
    let key = m.key("1");
    let job = m.job(key, Fate::Refused, true).await?;
    m.expect(&job, State::Failed)?;
    let failed = 1;

    // The same intent again with other content: refused, the accepted job untouched.
    let key = m.key("1");
    let original = m.job(key.clone(), Fate::Arrives, true).await?;
    accepted += 1;
    let other = payload(&key, " (edited after publishing)");
    let payload_conflict = format!("{}/{}/{}", key.tenant_id, key.article_id, key.revision_id);
    let payload_conflict_error =
        match worker::reserve(client, &key, &payload_hash(&other), actor).await {
            Err(e) if e.code() == crate::error::Code::PayloadConflict => e.message().to_string(),
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(Error::bug(
                    "sandbox: reserving the same key with another payload was not refused",
                ))
            }
        };
    let after = crate::jobs::store::get(client, &crate::jobs::JobRef::Id(original.id)).await?;
    if after != original {
        return Err(Error::bug(
            "sandbox: a refused reservation changed the existing job",
        ));
    }

    // Revision 2 published first, revision 1 (delayed in some queue) accepted after it.
    let key2 = m.key("2");
    let key1 = BusinessKey::new(&key2.tenant_id, &key2.article_id, "1", destination);
    m.job(key2.clone(), Fate::Arrives, true).await?;
    m.job(key1, Fate::Arrives, true).await?;
    accepted += 2;
    let out_of_order = format!("{}/{}", key2.tenant_id, key2.article_id);

    // The incident: the destination accepted, but the answer never came back.
    let mut lookup_example = None;
    let mut uncertain_remote_has = 0;
    for _ in 0..3 {
        let key = m.key("1");
        let job = m.job(key, Fate::AnswerLost, true).await?;
        m.expect(&job, State::Uncertain)?;
        lookup_example.get_or_insert(job.id);
        uncertain_remote_has += 1;
    }
    // … and sends that never reached it.
    let mut uncertain_remote_lacks = 0;
    for _ in 0..2 {
        let key = m.key("1");
        let job = m.job(key, Fate::Lost, true).await?;
        m.expect(&job, State::Uncertain)?;
        uncertain_remote_lacks += 1;
    }

    // A worker died holding leases: two before sending, two after (one arrived, one lost).
    let mut expired_leases_unsent = 0;
    for _ in 0..2 {
        let key = m.key("1");
        let payload = payload(&key, "");
        let job = m.reserve(&key, &payload).await?;
        let job = m.claim(&job, SHORT_LEASE).await?;
        m.lease_dies();
        m.expect(&job, State::InFlight)?;
        expired_leases_unsent += 1;
    }
    let mut expired_leases_sent = 0;
    for fate in [Fate::Arrives, Fate::Lost] {
        let key = m.key("1");
        let job = m.job(key, fate, false).await?;
        m.expect(&job, State::InFlight)?;
        expired_leases_sent += 1;
    }

    // Waiting for a worker.
    let mut pending = 0;
    for _ in 0..6 {
        let key = m.key("1");
        let payload = payload(&key, "");
        m.reserve(&key, &payload).await?;
        pending += 1;
    }

    Ok(Seeded {
        accepted,
        pending,
        uncertain_remote_has,
        uncertain_remote_lacks,
        expired_leases_unsent,
        expired_leases_sent,
        failed,
        payload_conflict,
        payload_conflict_error,
        payload_conflict_job: original.id,
        out_of_order,
        lookup_example: lookup_example.ok_or_else(|| Error::bug("sandbox: no uncertain job"))?,
        canary_ref: canary_ref.ok_or_else(|| Error::bug("sandbox: no accepted job"))?,
        last_sent: m.last_sent,
        leases_expired: m.leases_expired,
        settle_after,
    })
}
