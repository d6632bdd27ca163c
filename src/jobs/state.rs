//! The states of a publication job and the transition table of SPEC §2, as data.
//!
//! This table is the only place that says which move is allowed from where and by whom.
//! Every guarded UPDATE takes its allowed from-states from here, so the worker API, the
//! sweep, `mark` and `reconcile` cannot drift apart.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Pending,
    InFlight,
    Uncertain,
    Accepted,
    SafeToRetry,
    Failed,
    Conflict,
}

impl State {
    pub const ALL: [State; 7] = [
        State::Pending,
        State::InFlight,
        State::Uncertain,
        State::Accepted,
        State::SafeToRetry,
        State::Failed,
        State::Conflict,
    ];

    /// Actionable first: what an operator looks at during an incident comes first.
    pub const BY_URGENCY: [State; 7] = [
        State::Uncertain,
        State::Conflict,
        State::InFlight,
        State::Pending,
        State::SafeToRetry,
        State::Failed,
        State::Accepted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::InFlight => "in_flight",
            State::Uncertain => "uncertain",
            State::Accepted => "accepted",
            State::SafeToRetry => "safe_to_retry",
            State::Failed => "failed",
            State::Conflict => "conflict",
        }
    }

    /// No transition leaves these states.
    pub fn is_terminal(self) -> bool {
        TRANSITIONS.iter().all(|t| !t.from.contains(&self))
    }

    /// Moves that can leave this state (whoever makes them).
    pub fn moves(self) -> impl Iterator<Item = &'static Transition> {
        TRANSITIONS.iter().filter(move |t| t.from.contains(&self))
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for State {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('-', "_");
        State::ALL
            .into_iter()
            .find(|st| st.as_str() == norm)
            .ok_or_else(|| {
                format!(
                    "unknown state `{s}` (expected one of: {})",
                    State::ALL.map(State::as_str).join(", ")
                )
            })
    }
}

/// Who makes a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Worker,
    Sweep,
    Operator,
    Reconcile,
}

/// A named move; its name is what `job_events.action` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Claim,
    Renew,
    MarkSent,
    Complete,
    Fail,
    TimedOut,
    SweepUnsent,
    SweepSent,
    MarkAccepted,
    MarkSafeToRetry,
    MarkFailed,
    ReconcileAccepted,
    ReconcileSafeToRetry,
    ReconcileConflict,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Claim => "claim",
            Action::Renew => "renew",
            Action::MarkSent => "mark_sent",
            Action::Complete => "complete",
            Action::Fail => "fail",
            Action::TimedOut => "timed_out",
            Action::SweepUnsent => "sweep_unsent",
            Action::SweepSent => "sweep_sent",
            Action::MarkAccepted => "mark_accepted",
            Action::MarkSafeToRetry => "mark_safe_to_retry",
            Action::MarkFailed => "mark_failed",
            Action::ReconcileAccepted => "reconcile_accepted",
            Action::ReconcileSafeToRetry => "reconcile_safe_to_retry",
            Action::ReconcileConflict => "reconcile_conflict",
        }
    }

    /// This action's row of the transition table.
    pub fn transition(self) -> &'static Transition {
        TRANSITIONS
            .iter()
            .find(|t| t.action == self)
            .expect("BUG: every action has a row in TRANSITIONS")
    }

    pub fn from(self) -> &'static [State] {
        self.transition().from
    }

    pub fn to(self) -> State {
        self.transition().to
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of SPEC §2's table.
#[derive(Debug, Serialize)]
pub struct Transition {
    pub action: Action,
    pub from: &'static [State],
    pub to: State,
    pub by: Role,
    pub condition: &'static str,
}

use State::*;

/// SPEC §2, row for row.
pub const TRANSITIONS: &[Transition] = &[
    Transition {
        action: Action::Claim,
        from: &[Pending, SafeToRetry],
        to: InFlight,
        by: Role::Worker,
        condition: "a worker claims it: lease owner and expiry set, attempts + 1, sent_at cleared",
    },
    Transition {
        action: Action::Renew,
        from: &[InFlight],
        to: InFlight,
        by: Role::Worker,
        condition: "the lease holder renews its lease",
    },
    Transition {
        action: Action::MarkSent,
        from: &[InFlight],
        to: InFlight,
        by: Role::Worker,
        condition: "the lease holder is about to send (sent_at = now)",
    },
    Transition {
        action: Action::Complete,
        from: &[InFlight],
        to: Accepted,
        by: Role::Worker,
        condition: "the destination confirmed; remote_id recorded",
    },
    Transition {
        action: Action::Fail,
        from: &[InFlight],
        to: Failed,
        by: Role::Worker,
        condition: "the destination rejected it definitively",
    },
    Transition {
        action: Action::TimedOut,
        from: &[InFlight],
        to: Uncertain,
        by: Role::Worker,
        condition: "the send timed out after sending",
    },
    Transition {
        action: Action::SweepSent,
        from: &[InFlight],
        to: Uncertain,
        by: Role::Sweep,
        condition: "the lease expired after the request was sent",
    },
    Transition {
        action: Action::SweepUnsent,
        from: &[InFlight],
        to: Pending,
        by: Role::Sweep,
        condition: "the lease expired and the request was never sent",
    },
    Transition {
        action: Action::MarkAccepted,
        from: &[Uncertain, Conflict],
        to: Accepted,
        by: Role::Operator,
        condition: "the destination has it (remote_id recorded)",
    },
    Transition {
        action: Action::ReconcileAccepted,
        from: &[Uncertain, Conflict],
        to: Accepted,
        by: Role::Reconcile,
        condition: "the destination has it (remote_id recorded)",
    },
    Transition {
        action: Action::MarkSafeToRetry,
        from: &[Uncertain, Conflict],
        to: SafeToRetry,
        by: Role::Operator,
        condition: "the destination does not have it, and the lookup is settled",
    },
    Transition {
        action: Action::ReconcileSafeToRetry,
        from: &[Uncertain, Conflict],
        to: SafeToRetry,
        by: Role::Reconcile,
        condition: "the destination does not have it, and the lookup is settled",
    },
    Transition {
        action: Action::ReconcileConflict,
        from: &[Uncertain],
        to: Conflict,
        by: Role::Reconcile,
        condition: "the destination has different content, or several matches",
    },
    Transition {
        action: Action::MarkFailed,
        from: &[Pending, SafeToRetry, Uncertain, Conflict],
        to: Failed,
        by: Role::Operator,
        condition: "an operator gave up, with a reason",
    },
];

/// Whether SPEC §2 allows `from → to` by anyone.
pub fn allowed(from: State, to: State) -> bool {
    TRANSITIONS
        .iter()
        .any(|t| t.to == to && t.from.contains(&from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_through_text() {
        for s in State::ALL {
            assert_eq!(s.as_str().parse::<State>().unwrap(), s);
        }
        assert_eq!("safe-to-retry".parse::<State>().unwrap(), SafeToRetry);
        assert!("done".parse::<State>().is_err());
    }

    #[test]
    fn every_action_has_exactly_one_row() {
        for t in TRANSITIONS {
            assert_eq!(
                TRANSITIONS.iter().filter(|u| u.action == t.action).count(),
                1,
                "{:?}",
                t.action
            );
        }
    }

    #[test]
    fn terminal_states_are_accepted_and_failed() {
        let terminal: Vec<State> = State::ALL.into_iter().filter(|s| s.is_terminal()).collect();
        assert_eq!(terminal, vec![Accepted, Failed]);
    }
}
