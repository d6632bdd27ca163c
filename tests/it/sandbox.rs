//! Tests: sandbox (filled in by its issue).
