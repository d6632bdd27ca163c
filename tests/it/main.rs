//! The one integration test binary: a module per capability, each test with its own database.

mod cli;
mod cms;
mod controls;
mod harness;
mod hostile;

mod alerting;
mod bracket;
mod connect;
mod counters;
mod destinations;
mod events;
mod foundation;
mod generated;
mod inspect;
mod layers;
mod mark;
mod pause;
mod plan;
mod plans;
mod proofs;
mod quiet;
mod reconcile;
mod reliability;
mod remote;
mod retention;
mod sandbox;
mod suite;
mod sweep;
mod tables;
mod watch;
mod wordpress;
