//! Tests: reconcile (filled in by its issue).
