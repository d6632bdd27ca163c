//! Listing queries: filters, keyset cursors, counts (issue: inspection).
