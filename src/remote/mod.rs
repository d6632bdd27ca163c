//! Asking a destination whether it holds a publication with a job's external reference, and
//! what that evidence justifies (SPEC §3 "Lookup verdicts", §4).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::context::Context;
use crate::error::{Error, Result};

/// What the destination answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Found,
    NotFound,
    Ambiguous,
    Unreachable,
}

/// What the answer justifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Accept,
    Conflict,
    SafeToRetry,
    Wait,
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accept => "accept",
            Verdict::Conflict => "conflict",
            Verdict::SafeToRetry => "safe_to_retry",
            Verdict::Wait => "wait",
            Verdict::Unknown => "unknown",
        }
    }

    /// Only these ever move a job.
    pub fn is_definite(self) -> bool {
        self != Verdict::Unknown
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    pub remote_id: Option<String>,
    pub content_hash: Option<String>,
}

/// One lookup and its verdict. Serialises to SPEC §5's `remote lookup` object (plus `reason`).
#[derive(Debug, Clone, Serialize)]
pub struct Lookup {
    pub destination: String,
    pub external_ref: String,
    pub outcome: Outcome,
    pub matches: Vec<Match>,
    pub content_match: Option<bool>,
    pub verdict: Verdict,
    /// One line a person can act on.
    pub reason: String,
    /// What an event records: HTTP status, the URL without secrets, when, how long.
    #[serde(skip)]
    pub evidence: Value,
}

/// The one HTTP client: rustls, a User-Agent naming reconctl, redirects never followed
/// (a redirect is an unexpected answer: `unreachable`).
pub fn build_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .user_agent(concat!("reconctl/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .use_rustls_tls()
        .build()
        .map_err(|e| Error::bug(format!("HTTP client setup: {e}")))
}

/// Look `external_ref` up at `destination` (which must be configured), and judge it against
/// the job's payload hash and when it was sent.
pub async fn lookup(
    ctx: &Context,
    destination: &str,
    external_ref: &str,
    payload_hash: Option<&str>,
    sent_at: Option<DateTime<Utc>>,
) -> Result<Lookup> {
    let _ = (ctx, destination, external_ref, payload_hash, sent_at);
    Err(Error::bug("remote lookup is not built yet"))
}
