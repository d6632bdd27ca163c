//! Reading many jobs at once, for the inspection commands (`jobs list`, `jobs uncertain`,
//! `jobs stuck`, `status`, `check`, `metrics`) and the pages `reconcile` walks, on a table of
//! millions of rows where almost every row is `accepted`.
//!
//! Every statement here is shaped for one of the indexes of `migrations/` (their names are in
//! [`crate::schema`]), so that its cost follows what it returns, not the size of the table:
//! lists page in keyset order ([`list`]), counts come from the counters the database keeps per
//! state and destination and one index probe per group
//! ([`counts`]), the out-of-order search reads only the recent audit log ([`order`]).
//!
//! State names are written into the statements as literals
//! ([`State::literal`](crate::jobs::State::literal)): they come from the transition table
//! (fixed identifiers, never input), and only
//! literals let the planner prove that a query matches a partial index's
//! `WHERE state <> 'accepted'`. Every value that comes from input is a bind parameter.
//!
//! Tests: tests/it/inspect/ (a module per inspection command; `plans.rs` EXPLAINs each
//! statement on a table with production's skew).

pub mod counts;
pub mod cursor;
pub mod destinations;
pub mod list;
pub mod moves;
pub mod order;
pub mod publication;
pub mod sql;

pub use counts::*;
pub use destinations::{require_known_destination, unknown_destination, KNOWN_DESTINATION_SQL};
pub use list::*;
pub use moves::{ExpiredLeaseGroup, MoveCount, Recent};
pub use order::*;
pub use publication::*;
pub use sql::Sql;
