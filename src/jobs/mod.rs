//! The domain: jobs, their states and the transition table, the guarded move, the worker API.

pub mod archive;
pub mod commit;
pub mod counters;
pub mod events;
pub mod external_ref;
pub mod model;
pub mod pause;
pub mod plans;
pub mod query;
pub mod reconcile;
pub mod state;
pub mod store;
pub mod sweep;
pub mod worker;

pub use external_ref::{external_ref, payload_hash, BusinessKey, PayloadHasher};
pub use model::{Event, EventAction, Job};
pub use state::{Action, Role, State, Transition, TRANSITIONS};
pub use store::{guarded_move, guarded_move_or_conflict, JobRef, MoveOutcome, MoveRequest};
