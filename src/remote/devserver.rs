//! A small in-process destination for the sandbox and the bench (built next).
