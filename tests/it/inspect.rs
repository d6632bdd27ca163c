//! Tests: inspect (filled in by its issue).
