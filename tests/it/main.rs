//! The one integration test binary: a module per capability, each test with its own database.

mod harness;

mod foundation;
