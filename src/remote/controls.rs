//! Controls: a "not found" is evidence only when the destination proves its lookup works
//! (SPEC §4).
//!
//! A wrong path, query parameter or pointer in a config turns every lookup into "not found"
//! (a typo in the path answers 404 for everything; a wrong parameter name is ignored by the
//! CMS, which answers `[]` for everything), and `safe_to_retry` on that word would publish
//! the article again. The opposite mistake (the filter ignored, one article for every ref)
//! would accept jobs that were never published. So before a run trusts a destination it asks
//! it two questions whose answers it knows:
//!
//! * **positive**: a reference the destination must hold ([`Known`]: its `canary_ref`, else
//!   the most recent job accepted there whose send has settled) must come back found, as the
//!   one match, with the remote id (and content hash, when both are known) recorded for it;
//! * **negative**: a reference it cannot hold (`pub_` + 64 random hex digits, new each time)
//!   must come back not found.
//!
//! Either failing, or the positive one being impossible (no known publication), makes every
//! verdict for that destination `unknown` ([`super::Lookup::under`]), with a reason saying
//! which control failed, what came back and what to check in the config. The controls use the
//! same client, timeout, token and body cap as any lookup, and never run inside a
//! transaction.

use std::time::Instant;

use serde::Serialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::http::Answer;
use super::wordpress::Access;
use super::{Copy, Dest, Match, Outcome};
use crate::clock::DbClock;
use crate::config::NotFound;
use crate::duration::format_duration;

/// A publication the destination must hold: the positive control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    pub external_ref: String,
    /// The remote id recorded for it, when it is a job of ours.
    pub remote_id: Option<String>,
    /// Its payload hash, when it is a job of ours.
    pub payload_hash: Option<String>,
    pub source: Source,
}

/// Where the positive control's reference comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The destination's `canary_ref`.
    Canary,
    /// The most recent job accepted there whose send is older than `settle_after`.
    AcceptedJob(Uuid),
}

impl Source {
    fn describe(&self, known: &Known) -> String {
        match (self, &known.remote_id) {
            (Source::Canary, _) => "its canary_ref".to_string(),
            (Source::AcceptedJob(id), Some(r)) => format!("job {id}, accepted there as {r}"),
            (Source::AcceptedJob(id), None) => format!("job {id}, accepted there"),
        }
    }

    fn as_str(&self) -> &'static str {
        match self {
            Source::Canary => "canary_ref",
            Source::AcceptedJob(_) => "accepted_job",
        }
    }
}

/// One control and how it went. Serialises to SPEC §4's `{"external_ref", "outcome", "ok"}`.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The reference asked for (null when the positive control could not be made).
    pub external_ref: Option<String>,
    /// What came back (null when nothing was asked).
    pub outcome: Option<Outcome>,
    pub ok: bool,
    /// Why it failed, and what to check; empty when it passed.
    #[serde(skip)]
    pub failure: String,
    /// For evidence: where the reference came from, what was expected, the HTTP status.
    #[serde(skip)]
    pub evidence: Value,
    /// The destination's fault, when it gave no usable answer (to say a shared cause once).
    #[serde(skip)]
    pub fault: Option<String>,
}

/// Both controls of one destination, as checked at one moment.
#[derive(Debug, Clone, Serialize)]
pub struct Controls {
    pub positive: Check,
    pub negative: Check,
    /// For a kind that proves its credentials (WordPress): who they are and which statuses
    /// they see, once the positive control passed.
    #[serde(skip)]
    pub access: Option<Access>,
    /// The destination checked.
    #[serde(skip)]
    pub destination: String,
    /// When they were checked (a long run checks again after `lookup.controls_every`).
    #[serde(skip)]
    pub checked: Instant,
}

impl Controls {
    pub fn ok(&self) -> bool {
        self.positive.ok && self.negative.ok
    }

    /// Why the destination's answers prove nothing, or `None` when both controls passed.
    /// Both failing for the same reason (the destination down, every path a 404) is said
    /// once.
    pub fn failure(&self) -> Option<String> {
        match (self.positive.ok, self.negative.ok) {
            (true, true) => None,
            (false, true) => Some(self.positive.failure.clone()),
            (true, false) => Some(self.negative.failure.clone()),
            (false, false) => Some(match (&self.positive.fault, &self.negative.fault) {
                (Some(p), Some(n)) if p == n => format!(
                    "both controls failed: {} gave no usable answer for its known publication {} nor for a made-up reference: {p}",
                    self.destination,
                    self.positive.external_ref.as_deref().unwrap_or("?"),
                ),
                _ => format!("{}; {}", self.positive.failure, self.negative.failure),
            }),
        }
    }

    /// Which controls failed, in a word (`positive`, `negative`, `both`), for tables.
    pub fn failed_which(&self) -> Option<&'static str> {
        match (self.positive.ok, self.negative.ok) {
            (true, true) => None,
            (false, true) => Some("the positive control"),
            (true, false) => Some("the negative control"),
            (false, false) => Some("both controls"),
        }
    }

    /// What a move's event records of the controls it relied on.
    pub fn evidence(&self) -> Value {
        json!({
            "ok": self.ok(),
            "positive": self.positive.evidence,
            "negative": self.negative.evidence,
        })
    }

    /// One line for people: both controls passed, with their references.
    pub fn summary(&self) -> String {
        match self.failure() {
            Some(f) => f,
            None => format!(
                "controls passed: {} found, {} not found",
                self.positive.external_ref.as_deref().unwrap_or("?"),
                self.negative.external_ref.as_deref().unwrap_or("?")
            ),
        }
    }
}

/// A reference no destination can hold: `pub_` and 64 fresh random hex digits.
pub fn random_ref() -> String {
    format!("pub_{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple())
}

/// Run both controls against `dest` (at once). `known` is the positive control's
/// publication, `None` when there is none (then the positive control fails as impossible),
/// or why it could not be looked for (`Err`: e.g. the job table could not be read).
pub async fn check(
    dest: &Dest<'_>,
    known: std::result::Result<Option<Known>, String>,
    clock: DbClock,
) -> Controls {
    let negative_ref = random_ref();
    let (positive, negative) = futures::join!(
        positive(dest, known, clock),
        negative(dest, &negative_ref, clock)
    );
    let (positive, access) = positive;
    Controls {
        positive,
        negative,
        access,
        destination: dest.name().to_string(),
        checked: Instant::now(),
    }
}

/// What to look at when a lookup answers the wrong way.
fn check_config(dest: &Dest<'_>) -> String {
    format!(
        "check [destinations.{}]: lookup_url's path and query parameter, and the `results` and `remote_id` pointers",
        dest.name()
    )
}

/// What an unexpected status means for this destination, for messages: a 404 where a 404 is
/// not "no match"; a refusal of a kind's credentials.
fn fault_hint(dest: &Dest<'_>, status: Option<u16>) -> String {
    let settings = dest.settings();
    match (status, settings.not_found, settings.kind) {
        (Some(404), NotFound::Empty, crate::config::Kind::Http) => {
            "; if it answers 404 when it holds nothing, set not_found = \"empty_or_404\", otherwise lookup_url's path is wrong".into()
        }
        (Some(400 | 401 | 403), _, crate::config::Kind::WordPress) => match &settings.auth {
            crate::config::Auth::Basic {
                user_env,
                password_env,
            } => format!(
                "; WordPress refuses to show unpublished posts to these credentials: check the application password in ${password_env} and that ${user_env} names an editor or administrator"
            ),
            other => format!(
                "; WordPress refuses to show unpublished posts to these credentials ({}): check them",
                other.describe()
            ),
        },
        (Some(401 | 403), _, _) => format!(
            "; the destination refuses the credentials ({}): check them",
            settings.auth.describe()
        ),
        _ => String::new(),
    }
}

fn outcome_of(answer: &Answer) -> Outcome {
    match answer {
        Answer::Fault(_) => Outcome::Unreachable,
        Answer::NotFound => Outcome::NotFound,
        Answer::Matches(m) if m.is_empty() => Outcome::NotFound,
        Answer::Matches(m) if m.len() == 1 => Outcome::Found,
        Answer::Matches(_) => Outcome::Ambiguous,
    }
}

async fn positive(
    dest: &Dest<'_>,
    known: std::result::Result<Option<Known>, String>,
    clock: DbClock,
) -> (Check, Option<Access>) {
    let name = dest.name();
    let known = match known {
        Ok(Some(k)) => k,
        Ok(None) => {
            return (Check {
                external_ref: None,
                outcome: None,
                ok: false,
                failure: format!(
                    "positive control impossible: no publication is known to be at {name} (no canary_ref, and no job accepted there was sent more than settle_after {} ago); set canary_ref in [destinations.{name}] to an external_ref it holds",
                    format_duration(dest.settings().settle_after)
                ),
                evidence: json!({ "source": null }),
                fault: None,
            }, None)
        }
        Err(why) => {
            return (Check {
                external_ref: None,
                outcome: None,
                ok: false,
                failure: format!(
                    "positive control impossible: {why}; set canary_ref in [destinations.{name}] to an external_ref it holds"
                ),
                evidence: json!({ "source": null, "error": why }),
                fault: None,
            }, None)
        }
    };
    let (resp, access) = futures::join!(dest.fetch(&known.external_ref, clock), dest.access());
    let outcome = outcome_of(&resp.answer);
    let source = known.source.describe(&known);
    let r = &known.external_ref;
    // The known publication itself, beside copies of it an editor trashed or the CMS renamed
    // (a cleanup after a double publication leaves `REF-2__trashed`): the lookup works when
    // exactly one match is the publication as itself and every other one is a copy of it.
    // Without a `ref` pointer copies cannot be told apart, and several matches fail.
    let itself = match &resp.answer {
        Answer::Matches(m) if m.len() > 1 && dest.settings().reference.is_some() => {
            let same: Vec<&Match> = m.iter().filter(|x| x.copy == Copy::Same).collect();
            (same.len() == 1).then(|| same[0])
        }
        Answer::Matches(m) if m.len() == 1 => Some(&m[0]),
        _ => None,
    };
    let failure = match &resp.answer {
        _ if itself.is_some() => one_known(dest, &known, &source, itself.expect("checked")),
        Answer::Matches(m) if m.len() > 1 => Some(format!(
            "positive control failed: {name} returned {} matches for {r} ({source}): the lookup may ignore the reference; {}",
            m.len(),
            check_config(dest)
        )),
        Answer::Matches(_) | Answer::NotFound => Some(format!(
            "positive control failed: {name} does not find {r} ({source}), a publication it must hold: the lookup does not work as configured; {}",
            check_config(dest)
        )),
        Answer::Fault(f) => Some(format!(
            "positive control failed: {name} gave no usable answer for {r} ({source}): {f}{}",
            fault_hint(dest, resp.status)
        )),
    };
    // The credentials are proven only when the lookup itself worked: a failure of the
    // lookup says more than "cannot see drafts".
    let (failure, access, access_evidence) = match (failure, access) {
        (Some(f), _) => (Some(f), None, Value::Null),
        (None, None) => (None, None, Value::Null),
        (None, Some(Ok(a))) => {
            let evidence = json!({ "user": a.user, "statuses": a.statuses });
            (None, Some(a), evidence)
        }
        (None, Some(Err(why))) => (
            Some(format!(
                "positive control failed: {name} found {r} ({source}), but its credentials are not proven to see unpublished copies: {why}; set user_env and password_env of [destinations.{name}] to an editor's application password (a wrong one is answered as an anonymous reader, who sees published posts only)"
            )),
            None,
            json!({ "error": why }),
        ),
    };
    let fault = match &resp.answer {
        Answer::Fault(f) => Some(format!("{f}{}", fault_hint(dest, resp.status))),
        _ => None,
    };
    let check = Check {
        external_ref: Some(known.external_ref.clone()),
        outcome: Some(outcome),
        ok: failure.is_none(),
        failure: failure.unwrap_or_default(),
        evidence: json!({
            "external_ref": known.external_ref,
            "source": known.source.as_str(),
            "job_id": match known.source { Source::AcceptedJob(id) => Some(id), Source::Canary => None },
            "expected_remote_id": known.remote_id,
            "remote_id": match &resp.answer {
                Answer::Matches(m) if m.len() == 1 => Some(m[0].remote_id.clone()),
                _ => None,
            },
            "outcome": outcome,
            "http_status": resp.status,
            "at": resp.asked_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "fault": resp.fault(),
            "access": access_evidence,
        }),
        fault,
    };
    (check, access)
}

/// The positive control's one match, held against what is known of the publication: every
/// pointer the config names must read what the publication has (SPEC §4), so a typo in a
/// pointer can never turn every comparison into "not reported".
fn one_known(dest: &Dest<'_>, known: &Known, source: &str, got: &Match) -> Option<String> {
    let name = dest.name();
    let r = &known.external_ref;
    let settings = dest.settings();
    let pointer = |key: &str, p: &str| {
        format!(
            "positive control failed: {name} answered {r} ({source}) with nothing at the `{key}` pointer \"{p}\", for a publication that has one: check the `{key}` pointer of [destinations.{name}]"
        )
    };
    if let Some(want) = &known.remote_id {
        if *want != got.remote_id {
            return Some(format!(
                "positive control failed: {name} answered {r} ({source}) with remote_id {}, not {want}: the lookup may ignore the reference, or the `remote_id` pointer is wrong; {}",
                crate::escape::escape(&got.remote_id),
                check_config(dest)
            ));
        }
    }
    if let (Some(p), Some(ours)) = (settings.content_hash.as_deref(), &known.payload_hash) {
        match &got.content_hash {
            None => return Some(pointer("content_hash", p)),
            Some(theirs) if !ours.eq_ignore_ascii_case(theirs) => {
                return Some(format!(
                    "positive control failed: {name} answered {r} ({source}) with content hash {theirs}, not its payload hash {ours}: check the `content_hash` pointer of [destinations.{name}]"
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(p) = settings.reference.as_deref() {
        if got.reference.is_none() {
            return Some(pointer("ref", p));
        }
    }
    if let Some(p) = settings.status.as_deref() {
        if got.status.is_none() {
            return Some(pointer("status", p));
        }
    }
    match got.copy {
        Copy::Same => None,
        Copy::Renamed | Copy::Removed => Some(format!(
            "positive control failed: {name} holds {r} ({source}) only as {} (remote id {}): a known publication must be there as itself; set canary_ref in [destinations.{name}] to a live publication",
            match got.copy {
                Copy::Removed => "a removed copy",
                _ => "a renamed copy",
            },
            crate::escape::escape(&got.remote_id)
        )),
    }
}

async fn negative(dest: &Dest<'_>, r: &str, clock: DbClock) -> Check {
    let name = dest.name();
    let resp = dest.fetch(r, clock).await;
    let outcome = outcome_of(&resp.answer);
    let failure = match &resp.answer {
        Answer::NotFound => None,
        Answer::Matches(m) if m.is_empty() => None,
        Answer::Matches(m) => Some(format!(
            "negative control failed: {name} returned {} match(es) (remote id {}) for {r}, a reference made up for this check that it cannot hold: the lookup ignores the reference; {}",
            m.len(),
            m[0].remote_id,
            check_config(dest)
        )),
        Answer::Fault(f) => Some(format!(
            "negative control failed: {name} gave no usable answer for {r}, a reference it cannot hold: {f}{}",
            fault_hint(dest, resp.status)
        )),
    };
    let fault = match &resp.answer {
        Answer::Fault(f) => Some(format!("{f}{}", fault_hint(dest, resp.status))),
        _ => None,
    };
    Check {
        external_ref: Some(r.to_string()),
        outcome: Some(outcome),
        ok: failure.is_none(),
        failure: failure.unwrap_or_default(),
        evidence: json!({
            "external_ref": r,
            "outcome": outcome,
            "http_status": resp.status,
            "at": resp.asked_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "fault": resp.fault(),
        }),
        fault,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_refs_are_external_refs_and_fresh() {
        let a = random_ref();
        assert!(crate::jobs::external_ref::is_external_ref(&a), "{a}");
        assert_ne!(a, random_ref());
    }
}
