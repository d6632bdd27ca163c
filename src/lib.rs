//! reconctl: the operator's tool for a publishing pipeline's job table, and the library its
//! workers use, so that both follow the same transition rules (SPEC §2).

pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod context;
pub mod db;
pub mod duration;
pub mod error;
pub mod files;
pub mod ids;
pub mod jobs;
pub mod migrate;
pub mod remote;
pub mod sandbox;
pub mod schema;
pub mod ui;

pub use error::{Error, Kind, Result};
