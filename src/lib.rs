//! reconctl: the operator's tool for a publishing pipeline's job table, and the library its
//! workers use, so that both follow the same transition rules (SPEC §2).
//!
//! Two layers, the lower one free of the upper: the worker library (`jobs`, `remote`, `db`,
//! `migrate`, `config`, `error` and their helpers) builds without the `cli` feature and
//! none of the terminal's crates; `cli`, `context`, `commands`, `watch`, `ui` and `sandbox` are the
//! command-line tool on top of it, behind the feature (on by default).

#[cfg(feature = "cli")]
pub mod cli;
pub mod clock;
#[cfg(feature = "cli")]
pub mod commands;
pub mod config;
#[cfg(feature = "cli")]
pub mod context;
pub mod db;
pub mod duration;
pub mod error;
pub mod escape;
pub mod files;
pub mod ids;
pub mod jobs;
pub mod migrate;
pub mod remote;
pub mod retention;
#[cfg(feature = "cli")]
pub mod sandbox;
pub mod schema;
#[cfg(feature = "cli")]
pub mod ui;
#[cfg(feature = "cli")]
pub mod watch;

pub use error::{Error, Kind, Result};
