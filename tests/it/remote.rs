//! Tests: remote (filled in by its issue).
