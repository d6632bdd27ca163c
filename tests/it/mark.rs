//! Tests: mark (filled in by its issue).
