//! Tests: reliability (filled in by its issue).
