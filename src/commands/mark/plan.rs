//! The decisions of a mark, as pure functions of the job, the request and the lookup: is
//! there anything to do, is the move allowed from here, does the evidence justify it.
//!
//! Kept apart from the I/O so that every refusal an operator can meet is written (and
//! tested) in one place, and says what to do instead.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::duration::format_duration;
use crate::error::{Code, Error, Result};
use crate::jobs::state::Role;
use crate::jobs::{Action, Job, State};
use crate::remote::{Lookup, Verdict};

/// The mark an operator asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// With the remote id the operator gave, if any, and whether a copy whose content
    /// differs from the job's payload may be accepted on purpose (`--accept-different-content`).
    Accepted {
        remote_id: Option<String>,
        different_content: bool,
    },
    SafeToRetry,
    Failed,
}

impl Mark {
    pub fn action(&self) -> Action {
        match self {
            Mark::Accepted { .. } => Action::MarkAccepted,
            Mark::SafeToRetry => Action::MarkSafeToRetry,
            Mark::Failed => Action::MarkFailed,
        }
    }

    /// The row of the transition table this mark takes from `from`: its own action, or
    /// another operator row to the same state (`mark safe-to-retry` of a failed job is the
    /// redrive, failed → safe_to_retry).
    pub fn action_from(&self, from: State) -> Action {
        let own = self.action();
        if own.from().contains(&from) {
            return own;
        }
        crate::jobs::state::TRANSITIONS
            .iter()
            .find(|t| t.by == Role::Operator && t.to == own.to() && t.from.contains(&from))
            .map_or(own, |t| t.action)
    }

    /// The states this mark can move a job from (every operator row to its target).
    pub fn from_states(&self) -> Vec<State> {
        State::ALL
            .into_iter()
            .filter(|s| self.action_from(*s).from().contains(s))
            .collect()
    }

    pub fn target(&self) -> State {
        self.action().to()
    }

    /// Whether this mark consults the destination first. Giving up (`failed`) cannot cause a
    /// duplicate publication, so it needs no evidence.
    pub fn needs_lookup(&self) -> bool {
        !matches!(self, Mark::Failed)
    }
}

/// The marks an operator can make from `state`, as typed (`mark accepted`, …).
pub fn marks_from(state: State) -> Vec<&'static str> {
    state
        .moves()
        .filter(|t| t.by == Role::Operator)
        .filter_map(|t| t.action.command())
        .collect()
}

/// Whether the job already is where the mark would put it: "no change" (exit 0, no event),
/// so a runbook can run the same mark twice. An accepted job with another remote_id than the
/// one asked for is not "no change" but a contradiction (exit 3).
pub fn already_done(job: &Job, mark: &Mark) -> Result<bool> {
    if job.state != mark.target() {
        return Ok(false);
    }
    match mark {
        Mark::Accepted {
            remote_id: Some(wanted),
            ..
        } if job.remote_id.as_deref() != Some(wanted.as_str()) => Err(Error::new(
            Code::RemoteIdMismatch,
            format!(
                "job {} is already accepted with remote_id {}, not {wanted}",
                job.id,
                job.remote_id.as_deref().unwrap_or("(none)")
            ),
        )
        .hinted(
            "nothing changed; accepted is final. If the destination holds it twice, clean up there",
        )
        .with_current(job.clone())),
        _ => Ok(true),
    }
}

/// Refuse (exit 3) a mark the transition table does not allow from the job's state, saying
/// why and which marks are possible from here.
pub fn check_allowed(job: &Job, mark: &Mark, now: DateTime<Utc>) -> Result<()> {
    if mark.action_from(job.state).from().contains(&job.state) {
        return Ok(());
    }
    let why = why_not(job, now);
    let valid = marks_from(job.state);
    let valid = if valid.is_empty() {
        format!("no mark is possible from {}", job.state)
    } else {
        format!(
            "from {} you can: {}",
            job.state,
            valid
                .iter()
                .map(|m| format!("`reconctl {m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Err(Error::new(
        Code::NotAllowed,
        format!(
            "cannot mark job {} {}: it is {} at version {}: {why}",
            job.id,
            mark.target(),
            job.state,
            job.version
        ),
    )
    .hinted(format!("nothing changed; {valid}"))
    .with_current(job.clone()))
}

/// Why no operator move (or not this one) fits a job in its state.
fn why_not(job: &Job, now: DateTime<Utc>) -> String {
    match job.state {
        State::InFlight => {
            let owner = job.lease_owner.as_deref().unwrap_or("a worker");
            match job.lease_expires_at {
                Some(exp) if exp > now => format!(
                    "a worker owns it: the lease held by {owner} expires in {}; wait for it or run `reconctl sweep leases` once it has expired",
                    format_duration((exp - now).to_std().unwrap_or_default())
                ),
                Some(exp) => format!(
                    "the lease held by {owner} expired {} ago; run `reconctl sweep leases` to settle it (sent → uncertain, never sent → pending), then mark it",
                    format_duration((now - exp).to_std().unwrap_or_default())
                ),
                None => format!("{owner} holds it; run `reconctl sweep leases` once its lease has expired"),
            }
        }
        State::Pending => {
            "never sent; nothing to settle (a worker will claim it; give up on it with `mark failed`)".into()
        }
        State::SafeToRetry => {
            "it was judged absent from the destination and waits for a worker to send it again; it can be accepted (the destination has it after all) or given up".into()
        }
        State::Accepted => format!(
            "accepted is final (remote_id {}); nothing can move it",
            job.remote_id.as_deref().unwrap_or("(none)")
        ),
        State::Failed => "it was given up; the only way out is a redrive to safe_to_retry, once the cause is fixed and the destination does not hold it".into(),
        State::Uncertain | State::Conflict => "the transition table does not allow this mark".into(),
    }
}

/// Refuse (exit 3) when a runbook's `--expect-version` is not the job's version now.
pub fn check_expected(job: &Job, expect_version: Option<i64>) -> Result<()> {
    match expect_version {
        Some(v) if v != job.version => Err(Error::new(
            Code::VersionConflict,
            format!(
                "job {} is now {} at version {} (you expected version {v})",
                job.id, job.state, job.version
            ),
        )
        .hinted("nothing changed; someone moved it since the runbook looked: look at it again with `reconctl jobs show`")
        .with_current(job.clone())),
        _ => Ok(()),
    }
}

/// The command line of an operator's move on `job`, from the transition table.
fn command_line(action: Action, job: &Job) -> String {
    action
        .command_line(job)
        .expect("BUG: an operator's move has a command")
}

/// Whether the destination's answer justifies the mark. For `accepted`, the remote id to
/// record (the operator's, confirmed by the single match, or the match's own).
pub fn check_evidence(job: &Job, mark: &Mark, lookup: &Lookup) -> Result<Option<String>> {
    let refuse = |message: String, hint: &str| {
        Error::new(Code::RefusedByLookup, message)
            .hinted(format!("nothing changed; {hint}"))
            .with_current(job.clone())
            .with_detail(json!({ "lookup": lookup_json(lookup) }))
    };
    let escape = "if you have checked the destination by other means, pass --no-lookup (the event records that the lookup was skipped)";
    match mark {
        Mark::Failed => Ok(None),
        Mark::SafeToRetry => match lookup.verdict {
            Verdict::SafeToRetry => Ok(None),
            Verdict::Accept => Err(refuse(
                format!(
                    "refusing to mark job {} safe_to_retry: {}; sending it again would publish it twice",
                    job.id, lookup.reason
                ),
                &format!(
                    "mark it accepted instead: `{}`",
                    command_line(Action::MarkAccepted, job)
                ),
            )),
            Verdict::Conflict => Err(refuse(
                format!(
                    "refusing to mark job {} safe_to_retry: the destination has it: {}",
                    job.id, lookup.reason
                ),
                &format!(
                    "inspect it with `reconctl remote lookup {}`; to keep the destination's copy although its content differs, `{} --accept-different-content` (the event records it); to give up, `{}`",
                    job.id,
                    command_line(Action::MarkAccepted, job),
                    command_line(Action::MarkFailed, job)
                ),
            )),
            Verdict::Wait => Err(refuse(
                format!(
                    "refusing to mark job {} safe_to_retry: the lookup is not settled: {}",
                    job.id, lookup.reason
                ),
                "run the same command again once the settle time has passed",
            )),
            Verdict::Unknown => Err(refuse(
                format!(
                    "refusing to mark job {} safe_to_retry: the destination gave no definite answer, so its absence is not proven: {}",
                    job.id, lookup.reason
                ),
                &format!("try again when the destination is healthy (`reconctl doctor`); {escape}"),
            )),
        },
        Mark::Accepted {
            remote_id: wanted,
            different_content,
        } => {
            let matched = match (lookup.verdict, lookup.matches.as_slice()) {
                (Verdict::Accept, [m]) => m,
                // The one copy the destination holds differs from the job's payload: accepted
                // only on purpose, and the event says so.
                (Verdict::Conflict, [m]) if *different_content && lookup.content_match == Some(false) => m,
                (Verdict::Conflict, [_]) if lookup.content_match == Some(false) => {
                    return Err(refuse(
                        format!(
                            "refusing to mark job {} accepted: the content differs: {}",
                            job.id, lookup.reason
                        ),
                        &format!(
                            "compare the two payloads; if the destination's copy is the one to keep, accept it on purpose: `{} --accept-different-content` (the event records that the content differs)",
                            command_line(Action::MarkAccepted, job)
                        ),
                    ))
                }
                (_, [_, _, ..]) | (Verdict::Conflict, _) => {
                    return Err(refuse(
                        format!(
                            "refusing to mark job {} accepted: {}",
                            job.id, lookup.reason
                        ),
                        &format!(
                            "clean up at the destination until one copy of {} remains, then mark it accepted (add --accept-different-content if that copy's content differs)",
                            job.external_ref
                        ),
                    ))
                }
                (Verdict::Unknown, _) => {
                    return Err(refuse(
                        format!(
                            "refusing to mark job {} accepted: the destination gave no definite answer: {}",
                            job.id, lookup.reason
                        ),
                        &format!("try again when the destination is healthy (`reconctl doctor`); {escape}"),
                    ))
                }
                _ => {
                    return Err(refuse(
                        format!(
                            "refusing to mark job {} accepted: the destination has no publication with external_ref {}: {}",
                            job.id, job.external_ref, lookup.reason
                        ),
                        &format!(
                            "if it never arrived, `{}` once the lookup is settled; {escape}",
                            command_line(Action::MarkSafeToRetry, job)
                        ),
                    ))
                }
            };
            let found = matched.remote_id.clone();
            match wanted {
                Some(w) if *w != found => Err(refuse(
                    format!(
                        "refusing to mark job {} accepted with remote_id {w}: the destination has it as {found}",
                        job.id
                    ),
                    &format!("use --remote-id {found}, or leave --remote-id out to take the destination's"),
                )),
                _ => Ok(Some(found)),
            }
        }
    }
}

/// The answer asked for after the operator's "yes" gives another remote id than the one
/// shown (SPEC §3: the move stands on the new answer only, and that was not consented to).
pub fn changed_after_consent(job: &Job, shown: Option<&str>, now: Option<&str>) -> Error {
    let id = |r: Option<&str>| r.unwrap_or("(none)").to_string();
    Error::new(
        Code::RefusedByLookup,
        format!(
            "refusing to mark job {}: the destination's answer changed after you confirmed: remote_id {} was shown, it now says {}",
            job.id,
            id(shown),
            id(now)
        ),
    )
    .hinted("nothing changed; run the mark again to see the new answer")
    .with_current(job.clone())
}

/// The remote id to accept belongs to another article at the destination (SPEC §4).
pub fn clash_refusal(job: &Job, clash: &crate::jobs::reconcile::Clash) -> Error {
    Error::new(
        Code::RefusedByLookup,
        format!("refusing to mark job {} accepted: {}", job.id, clash.reason()),
    )
    .hinted(format!(
        "nothing changed; look at both jobs (`reconctl jobs show {}`, `reconctl jobs show {}`) and at the destination: it may answer one record for every reference",
        job.id, clash.job_id
    ))
    .with_current(job.clone())
}

/// Whether the destination agrees with an accepted job's remote id (`mark accepted JOB`
/// without `--remote-id`, the job already accepted): a note for the "no change" report when
/// it does or cannot say; exit 3 naming both ids when it holds the job as another id, or not
/// at all.
pub fn check_agrees(job: &Job, lookup: &Lookup) -> Result<Option<String>> {
    let ours = job.remote_id.as_deref().unwrap_or("(none)");
    let contradiction = |message: String| {
        Error::new(Code::RemoteIdMismatch, message)
            .hinted("nothing changed; accepted is final. Find out which id is right at the destination (`reconctl remote lookup`); if it holds the article twice, clean up there")
            .with_current(job.clone())
            .with_detail(json!({ "lookup": lookup_json(lookup) }))
    };
    match (lookup.verdict, lookup.matches.as_slice()) {
        (Verdict::Unknown, _) => Ok(Some(format!(
            "the destination could not confirm it: {}",
            lookup.reason
        ))),
        (_, [m]) if m.remote_id == ours => Ok(Some(format!(
            "the destination agrees: it holds it as {}",
            m.remote_id
        ))),
        (_, [m]) => Err(contradiction(format!(
            "job {} is accepted with remote_id {ours}, but the destination holds it as {}",
            job.id, m.remote_id
        ))),
        (_, []) => Err(contradiction(format!(
            "job {} is accepted with remote_id {ours}, but the destination has no publication with its external_ref {}: {}",
            job.id, job.external_ref, lookup.reason
        ))),
        (_, several) => Err(contradiction(format!(
            "job {} is accepted with remote_id {ours}, but the destination holds {} copies: {}",
            job.id,
            several.len(),
            several
                .iter()
                .map(|m| m.remote_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// A lookup as `-o json` and events show it: the destination's answer and its verdict,
/// plus the request details the lookup recorded (status, URL without secrets, timing).
pub fn lookup_json(lookup: &Lookup) -> Value {
    let mut v = match lookup.evidence.get("lookup") {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        _ => json!({}),
    };
    if let (Value::Object(obj), Ok(Value::Object(summary))) = (&mut v, serde_json::to_value(lookup))
    {
        for (k, val) in summary {
            obj.entry(k).or_insert(val);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::{Match, Outcome};

    fn job(state: State) -> Job {
        let now = Utc::now();
        Job {
            id: uuid::Uuid::nil(),
            tenant_id: "t".into(),
            article_id: "a".into(),
            revision_id: "1".into(),
            destination: "cms".into(),
            external_ref: crate::jobs::external_ref("t", "a", "1", "cms"),
            payload_hash: "ab".into(),
            state,
            version: 7,
            attempts: 1,
            lease_owner: None,
            lease_expires_at: None,
            sent_at: Some(now),
            remote_id: None,
            last_error: None,
            created_at: now,
            updated_at: now,
            state_changed_at: now,
        }
    }

    fn lookup(verdict: Verdict, ids: &[&str]) -> Lookup {
        Lookup {
            destination: "cms".into(),
            external_ref: "pub_x".into(),
            outcome: match ids.len() {
                0 => Outcome::NotFound,
                1 => Outcome::Found,
                _ => Outcome::Ambiguous,
            },
            matches: ids.iter().map(|i| Match::new(*i, None)).collect(),
            content_match: None,
            verdict,
            reason: "because".into(),
            controls: None,
            evidence: json!({"lookup": {"http_status": 200}}),
        }
    }

    #[test]
    fn operator_marks_per_state_follow_the_table() {
        assert_eq!(
            marks_from(State::Uncertain),
            vec!["mark accepted", "mark safe-to-retry", "mark failed"]
        );
        assert_eq!(marks_from(State::Pending), vec!["mark failed"]);
        assert_eq!(
            marks_from(State::SafeToRetry),
            vec!["mark accepted", "mark failed"]
        );
        assert_eq!(marks_from(State::Failed), vec!["mark safe-to-retry"]);
        assert!(marks_from(State::InFlight).is_empty());
        assert!(marks_from(State::Accepted).is_empty());
    }

    #[test]
    fn in_flight_refusal_names_the_lease_holder_and_its_expiry() {
        let now = Utc::now();
        let mut j = job(State::InFlight);
        j.lease_owner = Some("worker-7".into());
        j.lease_expires_at = Some(now + chrono::Duration::seconds(40));
        let e = check_allowed(&j, &Mark::SafeToRetry, now).unwrap_err();
        assert_eq!(e.exit_code(), 3);
        assert!(
            e.message().contains("worker-7 expires in 40s"),
            "{}",
            e.message()
        );
        assert!(e.message().contains("sweep leases"), "{}", e.message());
        assert!(e.current::<Job>().is_some());
    }

    #[test]
    fn pending_can_only_be_given_up() {
        let e = check_allowed(
            &job(State::Pending),
            &Mark::Accepted {
                remote_id: None,
                different_content: false,
            },
            Utc::now(),
        )
        .unwrap_err();
        assert!(e.message().contains("never sent"), "{}", e.message());
        assert!(e.hints()[0].clone().contains("`reconctl mark failed`"));
        check_allowed(&job(State::Pending), &Mark::Failed, Utc::now()).unwrap();
    }

    #[test]
    fn safe_to_retry_of_a_failed_job_is_the_redrive() {
        assert_eq!(
            Mark::SafeToRetry.action_from(State::Failed),
            Action::Redrive
        );
        assert_eq!(
            Mark::SafeToRetry.action_from(State::Uncertain),
            Action::MarkSafeToRetry
        );
        assert_eq!(
            Mark::SafeToRetry.from_states(),
            vec![State::Uncertain, State::Failed, State::Conflict]
        );
        check_allowed(&job(State::Failed), &Mark::SafeToRetry, Utc::now()).unwrap();
        let accepted = Mark::Accepted {
            remote_id: None,
            different_content: false,
        };
        let e = check_allowed(&job(State::Failed), &accepted, Utc::now()).unwrap_err();
        assert!(
            e.hints()[0].contains("`reconctl mark safe-to-retry`"),
            "{:?}",
            e.hints()
        );
    }

    #[test]
    fn idempotency_depends_on_the_remote_id_for_accepted() {
        let mut j = job(State::Accepted);
        j.remote_id = Some("r1".into());
        let same = Mark::Accepted {
            remote_id: Some("r1".into()),
            different_content: false,
        };
        let other = Mark::Accepted {
            remote_id: Some("r2".into()),
            different_content: false,
        };
        assert!(already_done(&j, &same).unwrap());
        assert!(already_done(
            &j,
            &Mark::Accepted {
                remote_id: None,
                different_content: false
            }
        )
        .unwrap());
        assert_eq!(already_done(&j, &other).unwrap_err().exit_code(), 3);
        assert!(!already_done(&j, &Mark::Failed).unwrap());
        assert!(already_done(&job(State::Failed), &Mark::Failed).unwrap());
    }

    #[test]
    fn stale_expected_version_is_a_conflict_saying_what_changed() {
        let e = check_expected(&job(State::Uncertain), Some(5)).unwrap_err();
        assert_eq!(e.exit_code(), 3);
        assert!(e
            .message()
            .ends_with("is now uncertain at version 7 (you expected version 5)"));
        check_expected(&job(State::Uncertain), Some(7)).unwrap();
        check_expected(&job(State::Uncertain), None).unwrap();
    }

    #[test]
    fn safe_to_retry_needs_a_settled_absence() {
        let j = job(State::Uncertain);
        check_evidence(&j, &Mark::SafeToRetry, &lookup(Verdict::SafeToRetry, &[])).unwrap();
        for (v, ids) in [
            (Verdict::Accept, &["r1"][..]),
            (Verdict::Conflict, &["r1", "r2"][..]),
            (Verdict::Wait, &[][..]),
            (Verdict::Unknown, &[][..]),
        ] {
            let e = check_evidence(&j, &Mark::SafeToRetry, &lookup(v, ids)).unwrap_err();
            assert_eq!(e.exit_code(), 3, "{v:?}");
            assert_eq!(e.code(), "refused_by_lookup");
            assert_eq!(e.detail().as_ref().unwrap()["lookup"]["http_status"], 200);
        }
    }

    #[test]
    fn accepted_takes_or_checks_the_single_match() {
        let j = job(State::Uncertain);
        let none = Mark::Accepted {
            remote_id: None,
            different_content: false,
        };
        let given = |r: &str| Mark::Accepted {
            remote_id: Some(r.into()),
            different_content: false,
        };
        let one = lookup(Verdict::Accept, &["r1"]);
        assert_eq!(
            check_evidence(&j, &none, &one).unwrap().as_deref(),
            Some("r1")
        );
        assert_eq!(
            check_evidence(&j, &given("r1"), &one).unwrap().as_deref(),
            Some("r1")
        );
        let e = check_evidence(&j, &given("r2"), &one).unwrap_err();
        assert!(e.message().contains("has it as r1"), "{}", e.message());
        for l in [
            lookup(Verdict::SafeToRetry, &[]),
            lookup(Verdict::Wait, &[]),
            lookup(Verdict::Unknown, &[]),
            lookup(Verdict::Conflict, &["r1", "r2"]),
            lookup(Verdict::Conflict, &["r1"]),
        ] {
            assert_eq!(check_evidence(&j, &none, &l).unwrap_err().exit_code(), 3);
        }
    }
}
