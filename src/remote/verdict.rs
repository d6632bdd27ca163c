//! What a destination's answer justifies (SPEC §3, "Lookup verdicts"), as a pure function of
//! the answer, the job's payload hash, when it was sent, and when we asked.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::http::Answer;
use super::{Copy, Match, Outcome, Verdict};
use crate::duration::format_duration;
use crate::jobs::{Action, State};

/// The judgement of one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub outcome: Outcome,
    pub content_match: Option<bool>,
    pub verdict: Verdict,
    /// One line a person can act on.
    pub reason: String,
}

/// Judge `answer`.
///
/// `asked_at` is when the request was started: a "not found" is evidence about the
/// destination as of then, so the settle time is measured up to it.
///
/// A "not found" is only trusted once the job was sent more than `settle_after` before the
/// lookup. Without a `sent_at` there is no way to know that (an uncertain job always has one
/// when the worker API put it there), so the verdict is `wait`, never `safe_to_retry`:
/// declaring it safe would risk a duplicate publication on the strength of a missing fact.
pub fn judge(
    answer: &Answer,
    payload_hash: Option<&str>,
    sent_at: Option<DateTime<Utc>>,
    asked_at: DateTime<Utc>,
    settle_after: Duration,
) -> Judgement {
    match answer {
        Answer::Fault(what) => Judgement {
            outcome: Outcome::Unreachable,
            content_match: None,
            verdict: Verdict::Unknown,
            reason: format!(
                "no usable answer ({what}); nothing can be concluded, look again when the destination is healthy"
            ),
        },
        Answer::NotFound => not_found(sent_at, asked_at, settle_after),
        Answer::Matches(m) if m.is_empty() => not_found(sent_at, asked_at, settle_after),
        Answer::Matches(m) if m.len() == 1 && m[0].copy == Copy::Same => {
            one_match(&m[0], payload_hash)
        }
        Answer::Matches(m) => copies(m),
    }
}

/// Several matches, or one that is a renamed or removed copy: the destination holds the
/// article, but not as one clean publication a job can be accepted as. A person decides.
fn copies(m: &[Match]) -> Judgement {
    let shown: Vec<String> = m.iter().take(5).map(|x| x.describe(false)).collect();
    let more = if m.len() > 5 { ", …" } else { "" };
    let list = format!("{}{more}", shown.join(", "));
    let removed = m.iter().any(|x| x.copy == Copy::Removed);
    let reason = if m.len() == 1 && removed {
        format!(
            "the destination holds it only as a removed copy ({list}): someone took it down on purpose; a person decides whether to publish it again (mark failed to give up, or restore it at the destination and mark accepted)"
        )
    } else if m.len() == 1 {
        format!(
            "the destination holds it only as a renamed copy ({list}): the CMS renamed a second copy instead of refusing it; clean up at the destination, then mark the job"
        )
    } else if removed {
        format!(
            "the destination holds {} copies with this external_ref, some removed ({list}): clean up at the destination and decide whether it should be published, then mark the job",
            m.len()
        )
    } else {
        format!(
            "the destination holds {} publications with this external_ref ({list}): it was published more than once; clean up at the destination, then mark the job",
            m.len()
        )
    };
    Judgement {
        outcome: if m.len() == 1 {
            Outcome::Found
        } else {
            Outcome::Ambiguous
        },
        content_match: None,
        verdict: Verdict::Conflict,
        reason,
    }
}

fn one_match(m: &Match, payload_hash: Option<&str>) -> Judgement {
    // A draft, scheduled, pending or private copy is still the article at the destination:
    // it is accepted like a published one, and its status is said.
    let id = m.describe(false);
    let content_match = match (payload_hash, m.content_hash.as_deref()) {
        (Some(ours), Some(theirs)) => Some(ours.trim().eq_ignore_ascii_case(theirs.trim())),
        _ => None,
    };
    match content_match {
        Some(false) => Judgement {
            outcome: Outcome::Found,
            content_match,
            verdict: Verdict::Conflict,
            reason: format!(
                "the destination has it as {id} but with content hash {}, not this job's {}: another payload was published; compare them, then mark the job accepted or failed",
                m.content_hash.as_deref().unwrap_or(""),
                payload_hash.unwrap_or("")
            ),
        },
        Some(true) => Judgement {
            outcome: Outcome::Found,
            content_match,
            verdict: Verdict::Accept,
            reason: format!("the destination has it as {id} with the same content"),
        },
        None => Judgement {
            outcome: Outcome::Found,
            content_match,
            verdict: Verdict::Accept,
            reason: if payload_hash.is_none() {
                format!("the destination has it as {id} (no payload hash to compare)")
            } else {
                format!("the destination has it as {id} (it reports no content hash to compare)")
            },
        },
    }
}

fn not_found(
    sent_at: Option<DateTime<Utc>>,
    asked_at: DateTime<Utc>,
    settle_after: Duration,
) -> Judgement {
    let settle = format_duration(settle_after);
    let (verdict, reason) = match sent_at {
        None => (
            Verdict::Wait,
            format!(
                "not at the destination, but there is no sent_at to tell whether the send has settled (settle_after {settle}); check with the worker's owner before marking it"
            ),
        ),
        Some(sent) => {
            let age = (asked_at - sent).to_std().unwrap_or_default();
            if age > settle_after {
                (
                    Verdict::SafeToRetry,
                    format!(
                        "not at the destination, and it was sent {} before the lookup (more than settle_after {settle}): safe to send again",
                        format_duration(age)
                    ),
                )
            } else {
                (
                    Verdict::Wait,
                    format!(
                        "not at the destination yet, but it was sent only {} before the lookup (settle_after {settle}): a late write may still land; look again in {}",
                        format_duration(age),
                        format_duration(settle_after - age + Duration::from_secs(1))
                    ),
                )
            }
        }
    };
    Judgement {
        outcome: Outcome::NotFound,
        content_match: None,
        verdict,
        reason,
    }
}

/// The move a verdict justifies, if any (SPEC §3: only these three ever move a job).
pub fn verdict_action(verdict: Verdict) -> Option<Action> {
    match verdict {
        Verdict::Accept => Some(Action::ReconcileAccepted),
        Verdict::SafeToRetry => Some(Action::ReconcileSafeToRetry),
        Verdict::Conflict => Some(Action::ReconcileConflict),
        Verdict::Wait | Verdict::Unknown => None,
    }
}

/// The move a verdict justifies for a job in `state`: the verdict's move when the transition
/// table allows it from there (a safe_to_retry job the destination lacks stays, a conflict
/// job can only be settled, never made a conflict again).
pub fn action_for(verdict: Verdict, state: State) -> Option<Action> {
    verdict_action(verdict).filter(|a| a.from().contains(&state))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: &str, hash: Option<&str>) -> Match {
        Match::new(id, hash.map(Into::into))
    }

    fn copy(id: &str, status: &str, reference: &str, copy: Copy) -> Match {
        Match {
            status: Some(status.into()),
            reference: Some(reference.into()),
            copy,
            ..m(id, None)
        }
    }

    #[test]
    fn every_copy_in_every_status_holds_the_article() {
        let now = Utc::now();
        let sent = Some(now - chrono::Duration::seconds(600));
        let j = |ms: Vec<Match>| judge(&Answer::Matches(ms), Some("ab"), sent, now, SETTLE);
        for status in ["draft", "pending", "private", "future"] {
            let one = j(vec![copy("7", status, "pub_a", Copy::Same)]);
            assert_eq!(one.verdict, Verdict::Accept, "{status}");
            assert_eq!(one.content_match, None);
            assert!(
                one.reason.contains(&format!("as 7 (status {status})")),
                "{}",
                one.reason
            );
        }
        let trashed = j(vec![copy("7", "trash", "pub_a__trashed", Copy::Removed)]);
        assert_eq!(trashed.verdict, Verdict::Conflict);
        assert_eq!(trashed.outcome, Outcome::Found);
        assert!(
            trashed.reason.contains("removed copy"),
            "{}",
            trashed.reason
        );
        let renamed = j(vec![copy("8", "publish", "pub_a-2", Copy::Renamed)]);
        assert_eq!(renamed.verdict, Verdict::Conflict);
        assert!(
            renamed.reason.contains("8 (as pub_a-2)"),
            "{}",
            renamed.reason
        );
        let both = j(vec![
            copy("7", "draft", "pub_a", Copy::Same),
            copy("8", "publish", "pub_a-2", Copy::Renamed),
        ]);
        assert_eq!(both.verdict, Verdict::Conflict);
        assert_eq!(both.outcome, Outcome::Ambiguous);
        assert!(
            both.reason.contains("7 (status draft), 8 (as pub_a-2)"),
            "{}",
            both.reason
        );
    }

    const SETTLE: Duration = Duration::from_secs(120);

    #[test]
    fn verdicts() {
        let now = Utc::now();
        let sent = Some(now - chrono::Duration::seconds(600));
        let j = |a: &Answer, h: Option<&str>| judge(a, h, sent, now, SETTLE);

        let one = Answer::Matches(vec![m("42", Some("AB"))]);
        assert_eq!(j(&one, Some("ab")).verdict, Verdict::Accept);
        assert_eq!(j(&one, Some("ab")).content_match, Some(true));
        assert_eq!(j(&one, Some("cd")).verdict, Verdict::Conflict);
        assert_eq!(j(&one, Some("cd")).outcome, Outcome::Found);
        assert_eq!(j(&one, Some("cd")).content_match, Some(false));
        assert_eq!(j(&one, None).verdict, Verdict::Accept);
        assert_eq!(j(&one, None).content_match, None);
        let no_hash = Answer::Matches(vec![m("42", None)]);
        assert_eq!(j(&no_hash, Some("cd")).verdict, Verdict::Accept);

        let two = Answer::Matches(vec![m("1", Some("ab")), m("2", Some("ab"))]);
        assert_eq!(j(&two, Some("ab")).verdict, Verdict::Conflict);
        assert_eq!(j(&two, Some("ab")).outcome, Outcome::Ambiguous);

        for none in [Answer::NotFound, Answer::Matches(vec![])] {
            assert_eq!(j(&none, Some("ab")).verdict, Verdict::SafeToRetry);
            assert_eq!(j(&none, Some("ab")).outcome, Outcome::NotFound);
            assert_eq!(
                judge(&none, Some("ab"), None, now, SETTLE).verdict,
                Verdict::Wait
            );
        }

        let fault = Answer::Fault("HTTP 500".into());
        assert_eq!(j(&fault, Some("ab")).verdict, Verdict::Unknown);
        assert_eq!(j(&fault, Some("ab")).outcome, Outcome::Unreachable);
    }

    #[test]
    fn settle_after_boundary() {
        let now = Utc::now();
        let at = |secs: i64| Some(now - chrono::Duration::seconds(secs));
        let v = |sent| judge(&Answer::NotFound, None, sent, now, SETTLE).verdict;
        assert_eq!(v(at(119)), Verdict::Wait);
        assert_eq!(
            v(at(120)),
            Verdict::Wait,
            "exactly settle_after is not older"
        );
        assert_eq!(v(at(121)), Verdict::SafeToRetry);
        // Sent "in the future" (clock skew): not settled.
        assert_eq!(v(at(-30)), Verdict::Wait);
    }
}
