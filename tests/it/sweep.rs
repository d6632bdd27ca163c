//! Tests: sweep (filled in by its issue).
