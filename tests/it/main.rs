//! The one integration test binary: a module per capability, each test with its own database.

mod harness;

mod foundation;
mod generated;
mod inspect;
mod mark;
mod pause;
mod reconcile;
mod reliability;
mod remote;
mod sandbox;
mod sweep;
