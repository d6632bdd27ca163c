//! Reliability and security: the tool holds under the conditions it is used in, an incident.
//! Random interleavings against a model, crashes, database faults, busy rows, bad input,
//! secrets, TLS, least-privilege roles and a hot standby.

mod bad_input;
pub mod cluster;
mod crash;
mod faults;
mod follow_restart;
mod ha;
mod model;
mod orphans;
pub mod roles;
mod secrets;
pub mod tls;
