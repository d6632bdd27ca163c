//! What a destination's answer justifies (SPEC §3, "Lookup verdicts"), as a pure function of
//! the answer, the job's payload hash, when it was sent, and when we asked.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::http::Answer;
use super::{Match, Outcome, Verdict};
use crate::duration::format_duration;

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
        Answer::Matches(m) if m.len() == 1 => one_match(&m[0], payload_hash),
        Answer::Matches(m) => {
            let ids: Vec<&str> = m
                .iter()
                .take(5)
                .map(|x| x.remote_id.as_str())
                .collect();
            let more = if m.len() > 5 { ", …" } else { "" };
            Judgement {
                outcome: Outcome::Ambiguous,
                content_match: None,
                verdict: Verdict::Conflict,
                reason: format!(
                    "the destination holds {} publications with this external_ref ({}{more}): it was published more than once; clean up at the destination, then mark the job",
                    m.len(),
                    ids.join(", ")
                ),
            }
        }
    }
}

fn one_match(m: &Match, payload_hash: Option<&str>) -> Judgement {
    let id = m.remote_id.as_str();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: &str, hash: Option<&str>) -> Match {
        Match {
            remote_id: id.into(),
            content_hash: hash.map(Into::into),
        }
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
