//! The lease sweep: expired in_flight jobs back to pending or to uncertain (issue: sweep).
