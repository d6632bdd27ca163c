//! What a run knows of one job: the job with its destination's answer ([`Judged`]), the
//! move that answer justifies ([`action_for`], the domain's rule), and what happened to it ([`Row`], SPEC §5's
//! `reconcile` job object). The pipeline makes rows; the report prints them.

use serde::Serialize;
use uuid::Uuid;

use crate::jobs::reconcile::Settled;
use crate::jobs::{Job, State};
use crate::remote::{action_for, Lookup, Verdict};

/// A job with what its destination said.
#[derive(Debug, Clone)]
pub struct Judged {
    pub job: Job,
    pub lookup: Lookup,
    /// Not asked, or its answer not trusted, because the destination's controls failed
    /// (named once in the report).
    pub controls_failed: bool,
    /// When the destination answered (`None`: it was not asked): a move needs a control
    /// begun after this (SPEC §4, "Controls bracket every move").
    pub answered: Option<std::time::Instant>,
}

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
    /// Why it was left, when it was (for the exit code).
    #[serde(skip)]
    pub left: Option<Left>,
    /// Not looked up, or not trusted, because its destination's controls failed.
    #[serde(skip)]
    pub controls_failed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowAction {
    Moved,
    Planned,
    Skipped,
    None,
}

impl RowAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RowAction::Moved => "moved",
            RowAction::Planned => "planned",
            RowAction::Skipped => "skipped",
            RowAction::None => "-",
        }
    }
}

/// Why a job that would have moved was left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// Someone else changed it first: nothing to do.
    Changed,
    /// Locked past the lock timeout: run again (exit 6).
    Busy,
    /// The database refused its move, or the run stopped before it: a person looks (exit 5).
    Failed,
}

impl Row {
    /// The row for a judged job before (or without) any move; `applying`: its move is about
    /// to be made, so it is not "planned".
    pub fn planned(j: &Judged, applying: bool) -> Row {
        let to_state = action_for(j.lookup.verdict, j.job.state).map(|a| a.to());
        Row {
            id: j.job.id,
            external_ref: j.job.external_ref.clone(),
            destination: j.job.destination.clone(),
            verdict: j.lookup.verdict,
            action: match to_state {
                Some(_) if !applying => RowAction::Planned,
                _ => RowAction::None,
            },
            to_state: if applying { None } else { to_state },
            reason: j.lookup.reason.clone(),
            left: None,
            controls_failed: j.controls_failed,
        }
    }

    /// A move that was due but not made because the run stopped (`stopped`); otherwise the
    /// row as it is.
    pub fn not_applied(mut self, stopped: bool) -> Row {
        if stopped && (self.action == RowAction::Planned || self.to_state.is_some()) {
            self.action = RowAction::Skipped;
            self.to_state = None;
            self.left = Some(Left::Failed);
            self.reason = format!(
                "not moved: the run stopped on an error before this job's move (verdict {}); run reconcile again",
                self.verdict.as_str()
            );
        }
        self
    }

    /// A move shown to the operator that the answer asked for after their "yes" no longer
    /// justifies (SPEC §3: evidence is taken after consent): not made; the row carries the
    /// new answer. A person looks again (exit 5): what they agreed to is no longer true.
    pub fn answer_changed(mut self, shown: &Judged) -> Row {
        self.action = RowAction::Skipped;
        self.to_state = None;
        self.left = Some(Left::Failed);
        self.reason = format!(
            "not moved: the destination's answer changed after the plan was shown (then {}, now {}): {}; run reconcile again to act on the new answer",
            shown.lookup.verdict.as_str(),
            self.verdict.as_str(),
            self.reason
        );
        self
    }

    /// What the move did.
    pub fn settled(mut self, outcome: Settled, read_version: i64) -> Row {
        match outcome {
            Settled::Moved(state) => {
                self.action = RowAction::Moved;
                self.to_state = Some(state);
            }
            Settled::ChangedConcurrently(now) => {
                self.action = RowAction::Skipped;
                self.left = Some(Left::Changed);
                self.reason = format!(
                    "skipped: changed concurrently (now {} at version {}, read at version {read_version})",
                    now.state, now.version
                );
            }
            Settled::Busy(why) => {
                self.action = RowAction::Skipped;
                self.left = Some(Left::Busy);
                self.reason = format!("skipped: {why}; run reconcile again");
            }
            Settled::RemoteIdClash { moved, reason } => {
                self.verdict = Verdict::Conflict;
                self.action = if moved.is_some() {
                    RowAction::Moved
                } else {
                    RowAction::None
                };
                self.to_state = moved;
                self.reason = reason;
            }
            Settled::Failed(why) => {
                self.action = RowAction::Skipped;
                self.left = Some(Left::Failed);
                self.reason = format!("skipped: the database refused this job's move: {why}");
            }
        }
        self
    }
}
