//! Opaque keyset cursors, bound to the listing that printed them.
//!
//! A cursor is base64 of a version byte, a fingerprint of the listing's filters, the keyset
//! position of the last row of the page, and a checksum. A cursor from another listing, a
//! truncated or an edited one is refused (exit 2) instead of silently paging from somewhere
//! else. Every paged command (`jobs list`, `jobs uncertain`, `jobs stuck`, `events`) uses
//! this one format; each brings its own fingerprint and position bytes.

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

const VERSION: u8 = 1;
const ENGINE: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// What a listing's filters hash to: the same filters always give the same fingerprint, any
/// change of filter (or another command) another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint([u8; 8]);

/// Builds a [`Fingerprint`] from named fields; length-prefixed, so no two different
/// listings encode to the same text.
#[derive(Debug, Default)]
pub struct FingerprintBuilder(String);

impl FingerprintBuilder {
    /// Starts with the listing's kind (`jobs`, `stuck`, `events`).
    pub fn new(kind: &str) -> FingerprintBuilder {
        FingerprintBuilder(format!("{kind};"))
    }

    pub fn field(mut self, name: &str, value: Option<&str>) -> FingerprintBuilder {
        match value {
            Some(v) => self.0.push_str(&format!("{name}={}:{v};", v.len())),
            None => self.0.push_str(&format!("{name}-;")),
        }
        self
    }

    pub fn finish(self) -> Fingerprint {
        let digest = Sha256::digest(self.0.as_bytes());
        let mut fp = [0u8; 8];
        fp.copy_from_slice(&digest[..8]);
        Fingerprint(fp)
    }
}

fn checksum(bytes: &[u8]) -> [u8; 4] {
    let digest = Sha256::digest(bytes);
    [digest[0], digest[1], digest[2], digest[3]]
}

/// The cursor for `position` (the keyset of the last row printed) in the listing `fp`.
pub fn encode(fp: Fingerprint, position: &[u8]) -> String {
    let mut bytes = Vec::with_capacity(1 + 8 + position.len() + 4);
    bytes.push(VERSION);
    bytes.extend_from_slice(&fp.0);
    bytes.extend_from_slice(position);
    let sum = checksum(&bytes);
    bytes.extend_from_slice(&sum);
    ENGINE.encode(bytes)
}

/// The position bytes (`len` of them) of a cursor made by the listing `fp`, if it is intact.
pub fn decode(fp: Fingerprint, cursor: &str, len: usize) -> Result<Vec<u8>> {
    let bytes = ENGINE
        .decode(cursor.trim())
        .map_err(|_| invalid("it is not a cursor reconctl printed"))?;
    if bytes.len() != 1 + 8 + len + 4 {
        return Err(invalid("it is not a cursor reconctl printed"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 4);
    if checksum(body) != sum {
        return Err(invalid("it was altered or truncated"));
    }
    if body[0] != VERSION {
        return Err(invalid("it comes from another version of reconctl"));
    }
    if body[1..9] != fp.0 {
        return Err(invalid(
            "it belongs to a listing with other filters (or another command)",
        ));
    }
    Ok(body[9..].to_vec())
}

/// A `--cursor` that cannot be used, and what to do instead (exit 2).
pub fn invalid(why: &str) -> Error {
    Error::usage(format!("invalid --cursor: {why}")).hinted(
        "pass the next_cursor of the previous page unchanged, with the same filters; or omit --cursor to start from the first page",
    )
}
