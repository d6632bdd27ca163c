//! Plans (SPEC §8) and the redrive of failed jobs (SPEC §2): bulk moves by filter, recorded,
//! reviewed, approved and applied exactly as reviewed.
//!
//! (`tests/it/plan.rs` is about the query plans of EXPLAIN; this module is about `reconctl
//! plan`.)

mod crash;
mod flow;
mod redrive;
mod status;
