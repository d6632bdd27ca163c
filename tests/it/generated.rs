//! Tests: generated (filled in by its issue).
