//! Asking a destination whether it holds a publication with a job's external reference, and
//! what that evidence justifies (SPEC §3 "Lookup verdicts", §4).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::config::{Config, Destination};
use crate::context::Context;
use crate::error::{Error, Result};

pub mod devserver;
pub mod http;
pub mod verdict;

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
///
/// Errors (never a verdict): the config cannot be read, the destination is not configured
/// (exit 2), its token variable is missing (exit 2). Everything that goes wrong on the wire is
/// a verdict of `unknown`, not an error.
pub async fn lookup(
    ctx: &Context,
    destination: &str,
    external_ref: &str,
    payload_hash: Option<&str>,
    sent_at: Option<DateTime<Utc>>,
) -> Result<Lookup> {
    let config = ctx.config()?;
    let dest = configured(config, destination)?;
    let token = http::bearer(destination, dest)?;
    Ok(lookup_at(
        ctx.http()?,
        destination,
        dest,
        token.as_ref(),
        config.lookup.max_body_bytes,
        external_ref,
        payload_hash,
        sent_at,
    )
    .await)
}

/// The destination's config, or a usage error (exit 2) saying how to configure it.
pub fn configured<'c>(config: &'c Config, destination: &str) -> Result<&'c Destination> {
    config.destination(destination).ok_or_else(|| {
        let where_ = match &config.path {
            Some(p) => format!("to {}", p.display()),
            None => "to a config file (--config FILE or RECONCTL_CONFIG)".to_string(),
        };
        Error::config(format!("destination {destination} is not configured")).hinted(format!(
            "add a [destinations.{destination}] section with its lookup_url {where_}"
        ))
    })
}

/// One lookup with everything resolved (what `reconcile` calls for each job).
#[allow(clippy::too_many_arguments)]
pub async fn lookup_at(
    client: &reqwest::Client,
    destination: &str,
    dest: &Destination,
    token: Option<&reqwest::header::HeaderValue>,
    max_body_bytes: u64,
    external_ref: &str,
    payload_hash: Option<&str>,
    sent_at: Option<DateTime<Utc>>,
) -> Lookup {
    let resp = http::fetch(client, dest, token, external_ref, max_body_bytes).await;
    let j = verdict::judge(
        &resp.answer,
        payload_hash,
        sent_at,
        resp.started_at,
        dest.settle_after,
    );
    let matches = match &resp.answer {
        http::Answer::Matches(m) => m.clone(),
        _ => Vec::new(),
    };
    let fault = match &resp.answer {
        http::Answer::Fault(f) => Value::String(f.clone()),
        _ => Value::Null,
    };
    let evidence = serde_json::json!({
        "lookup": {
            "destination": destination,
            "url": redact_url(&resp.url),
            "http_status": resp.status,
            "at": resp.started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "elapsed_ms": u64::try_from(resp.elapsed.as_millis()).unwrap_or(u64::MAX),
            "outcome": j.outcome,
            "matches": matches,
            "content_match": j.content_match,
            "payload_hash": payload_hash,
            "sent_at": sent_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)),
            "settle_after_secs": dest.settle_after.as_secs(),
            "verdict": j.verdict,
            "reason": j.reason,
            "fault": fault,
        }
    });
    Lookup {
        destination: destination.to_string(),
        external_ref: external_ref.to_string(),
        outcome: j.outcome,
        matches,
        content_match: j.content_match,
        verdict: j.verdict,
        reason: j.reason,
        evidence,
    }
}

/// The URL as events record it: query values whose names look like credentials (an API key
/// some CMS wants in the query string) are replaced, so the audit log never stores them.
pub fn redact_url(url: &str) -> String {
    const SENSITIVE: [&str; 8] = [
        "token",
        "key",
        "secret",
        "sig",
        "pass",
        "auth",
        "credential",
        "session",
    ];
    let Some((base, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _))
                if SENSITIVE
                    .iter()
                    .any(|s| name.to_ascii_lowercase().contains(s)) =>
            {
                format!("{name}=REDACTED")
            }
            _ => pair.to_string(),
        })
        .collect();
    let mut out = format!("{base}?{}", pairs.join("&"));
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

#[cfg(test)]
mod redact_tests {
    use super::redact_url;

    #[test]
    fn credentials_in_the_query_are_redacted() {
        assert_eq!(
            redact_url("https://cms/a?external_ref=pub_1&api_key=s3cret&X-Amz-Signature=abc"),
            "https://cms/a?external_ref=pub_1&api_key=REDACTED&X-Amz-Signature=REDACTED"
        );
        assert_eq!(
            redact_url("http://cms/a?external_ref=pub_1"),
            "http://cms/a?external_ref=pub_1"
        );
        assert_eq!(redact_url("http://cms/a/pub_1"), "http://cms/a/pub_1");
    }
}
