//! The states of a publication job and the transition table of SPEC §2, as data.
//!
//! This table is the only place that says which move is allowed from where and by whom.
//! Every guarded UPDATE takes its allowed from-states from here, every state or action name
//! in a statement is rendered from here ([`State::literal`]), the groups of states other
//! code needs ("waiting for a worker", "holding a lease", "needing a decision") are derived
//! from it, and so are the commands a hint suggests ([`Action::command`]) and the help texts
//! of `mark`, `sweep` and `reconcile`. So the worker API, the sweep, `mark`, `reconcile`, the
//! inspection commands and the docs cannot drift apart: adding a transition is one row here.

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

    /// The names, as `as_str` writes them (for help texts and completions).
    pub const NAMES: [&'static str; 7] = [
        "pending",
        "in_flight",
        "uncertain",
        "accepted",
        "safe_to_retry",
        "failed",
        "conflict",
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

    /// This state as an SQL string literal (`'in_flight'`). Statements write state names as
    /// literals, never as parameters, so the planner can match the partial indexes' predicates;
    /// they come from here, never from input.
    pub fn literal(self) -> String {
        format!("'{}'", self.as_str())
    }

    /// Several states as SQL literals, comma separated (`'pending', 'safe_to_retry'`).
    pub fn literals(states: &[State]) -> String {
        states
            .iter()
            .map(|s| s.literal())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Waiting for a worker: the states a claim takes jobs from.
    pub fn waiting() -> &'static [State] {
        Action::Claim.from()
    }

    /// Holding a lease: the state a claim puts a job in, which the sweep rescues when its
    /// lease expires.
    pub fn leased() -> State {
        Action::Claim.to()
    }

    /// Needing a decision: the states an operator settles (accepted or safe_to_retry).
    pub fn unsettled() -> &'static [State] {
        Action::MarkSafeToRetry.from()
    }

    /// The state `reconcile` examines by default: the one every reconcile move can start from.
    pub fn reconciled() -> State {
        let mut moves = TRANSITIONS.iter().filter(|t| t.by == Role::Reconcile);
        let first = moves.next().expect("BUG: the table has reconcile moves");
        let common: Vec<State> = first
            .from
            .iter()
            .copied()
            .filter(|s| {
                TRANSITIONS
                    .iter()
                    .filter(|t| t.by == Role::Reconcile)
                    .all(|t| t.from.contains(s))
            })
            .collect();
        match common.as_slice() {
            [one] => *one,
            _ => panic!("BUG: reconcile moves share no single from-state"),
        }
    }

    /// The states `reconcile --state` may examine: those some reconcile move leaves.
    pub fn reconcilable() -> Vec<State> {
        State::ALL
            .into_iter()
            .filter(|s| s.moves().any(|t| t.by == Role::Reconcile))
            .collect()
    }

    /// Where the worker API puts a job the destination confirmed: the state almost every job
    /// ends in (97% of a production table). The partial indexes of the open jobs leave it
    /// out, and `status` reads its count from the counters (job_counters), never the rows.
    pub fn bulk() -> State {
        Action::Complete.to()
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

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Worker => "worker",
            Role::Sweep => "sweep",
            Role::Operator => "operator",
            Role::Reconcile => "reconcile",
        }
    }
}

/// A named move; its name is what `job_events.action` records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A job is created (no from-state).
    Reserve,
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
    /// failed → safe_to_retry: an operator redrives a job the destination does not hold.
    Redrive,
}

impl Action {
    pub const ALL: [Action; 16] = [
        Action::Reserve,
        Action::Claim,
        Action::Renew,
        Action::MarkSent,
        Action::Complete,
        Action::Fail,
        Action::TimedOut,
        Action::SweepUnsent,
        Action::SweepSent,
        Action::MarkAccepted,
        Action::MarkSafeToRetry,
        Action::MarkFailed,
        Action::ReconcileAccepted,
        Action::ReconcileSafeToRetry,
        Action::ReconcileConflict,
        Action::Redrive,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Action::Reserve => "reserve",
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
            Action::Redrive => "redrive",
        }
    }

    /// This action's name as an SQL string literal (see [`State::literal`]).
    pub fn literal(self) -> String {
        format!("'{}'", self.as_str())
    }

    /// The `reconctl` subcommand that makes this move, for the moves a person or cron makes
    /// (`mark accepted`, `sweep leases`, `reconcile`); `None` for the worker's own moves.
    /// Every "run this" hint is built from here; a test checks each names a real subcommand.
    pub fn command(self) -> Option<&'static str> {
        match self {
            Action::MarkAccepted => Some("mark accepted"),
            Action::MarkSafeToRetry | Action::Redrive => Some("mark safe-to-retry"),
            Action::MarkFailed => Some("mark failed"),
            Action::ReconcileAccepted
            | Action::ReconcileSafeToRetry
            | Action::ReconcileConflict => Some("reconcile"),
            Action::SweepSent | Action::SweepUnsent => Some("sweep leases"),
            Action::Reserve
            | Action::Claim
            | Action::Renew
            | Action::MarkSent
            | Action::Complete
            | Action::Fail
            | Action::TimedOut => None,
        }
    }

    /// The command line that makes this move on `job`, ready to copy (`reconctl mark
    /// accepted ID --reason TEXT`).
    pub fn command_line(self, job: &crate::jobs::Job) -> Option<String> {
        let command = self.command()?;
        Some(match self.transition().by {
            Role::Operator => format!("reconctl {command} {} --reason TEXT", job.id),
            Role::Reconcile
                if job.state == State::reconciled() || !self.from().contains(&job.state) =>
            {
                format!("reconctl {command} --destination {}", job.destination)
            }
            Role::Reconcile => format!(
                "reconctl {command} --destination {} --state {}",
                job.destination, job.state
            ),
            Role::Sweep | Role::Worker => format!("reconctl {command}"),
        })
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

impl FromStr for Action {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Action::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| format!("unknown action `{s}`"))
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

impl Transition {
    /// `uncertain/conflict → accepted: the destination has it (remote_id recorded)`: the
    /// row as help texts say it.
    pub fn summary(&self) -> String {
        let from: Vec<&str> = self.from.iter().map(|s| s.as_str()).collect();
        format!("{} → {}: {}", from.join("/"), self.to, self.condition)
    }
}

/// The moves `role` makes, one line each (`  uncertain → accepted: …`), for help texts: what
/// `reconcile --help` says it may do comes from the table, like mark's and sweep's.
pub fn moves_by(role: Role) -> String {
    TRANSITIONS
        .iter()
        .filter(|t| t.by == role)
        .map(|t| format!("  {} ({})", t.summary(), t.action))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The table as README's "States and transitions" section shows it (a test keeps the README
/// equal to this).
pub fn transitions_markdown() -> String {
    let mut out = String::from("| action | from | to | by | condition |\n|---|---|---|---|---|\n");
    for t in TRANSITIONS {
        let from: Vec<&str> = t.from.iter().map(|s| s.as_str()).collect();
        let from = if from.is_empty() {
            "(new job)".to_string()
        } else {
            from.join(", ")
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            t.action,
            from,
            t.to,
            t.by.as_str(),
            t.condition
        ));
    }
    out
}

use State::*;

/// SPEC §2, row for row (creation, `reserve`, has no from-state: it is the first event of
/// every job, written by the worker API's `reserve`).
pub const TRANSITIONS: &[Transition] = &[
    Transition {
        action: Action::Reserve,
        from: &[],
        to: Pending,
        by: Role::Worker,
        condition: "a publishing intent is reserved: one job per business key",
    },
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
        from: &[Uncertain, Conflict, SafeToRetry],
        to: Accepted,
        by: Role::Operator,
        condition: "the destination has it (remote_id recorded)",
    },
    Transition {
        action: Action::ReconcileAccepted,
        from: &[Uncertain, Conflict, SafeToRetry],
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
    Transition {
        action: Action::Redrive,
        from: &[Failed],
        to: SafeToRetry,
        by: Role::Operator,
        condition: "redrive: the cause is fixed and the destination does not hold it",
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
    fn reconcile_help_lists_exactly_its_moves() {
        let text = moves_by(Role::Reconcile);
        assert_eq!(text.lines().count(), 3);
        for a in [
            Action::ReconcileAccepted,
            Action::ReconcileSafeToRetry,
            Action::ReconcileConflict,
        ] {
            assert!(text.contains(&a.transition().summary()), "{text}");
        }
    }

    #[test]
    fn the_names_completions_offer_are_the_states() {
        assert_eq!(State::NAMES, State::ALL.map(State::as_str));
    }

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
    fn every_action_has_its_name_and_a_row() {
        for a in Action::ALL {
            assert_eq!(a.as_str().parse::<Action>().unwrap(), a);
            assert_eq!(a.transition().action, a);
        }
        assert_eq!(TRANSITIONS.len(), Action::ALL.len());
    }

    #[test]
    fn derived_groups_of_states() {
        assert_eq!(State::waiting(), &[Pending, SafeToRetry]);
        assert_eq!(State::leased(), InFlight);
        assert_eq!(State::unsettled(), &[Uncertain, Conflict]);
        assert_eq!(State::reconciled(), Uncertain);
        assert_eq!(
            State::reconcilable(),
            vec![Uncertain, SafeToRetry, Conflict]
        );
        assert_eq!(State::bulk(), Accepted);
        assert_eq!(
            State::literals(State::waiting()),
            "'pending', 'safe_to_retry'"
        );
    }

    #[test]
    fn only_accepted_is_terminal_failed_can_be_redriven() {
        let terminal: Vec<State> = State::ALL.into_iter().filter(|s| s.is_terminal()).collect();
        assert_eq!(terminal, vec![Accepted]);
        let redrive: Vec<Action> = Failed.moves().map(|t| t.action).collect();
        assert_eq!(redrive, vec![Action::Redrive]);
        assert_eq!(Action::Redrive.to(), SafeToRetry);
        assert_eq!(Action::Redrive.transition().by, Role::Operator);
    }
}
