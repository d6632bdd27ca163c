//! The HTTP side of a lookup: one GET, bounded in time and size, reduced to what it told us.
//!
//! Anything but a well-formed answer is a [`Answer::Fault`]: a redirect, a 5xx or 429, a 404
//! (unless the destination is configured `not_found = "empty_or_404"`), a body that is not
//! JSON or is larger than the cap, a timeout, a refused connection, a match whose id or hash
//! is not a sane string (a NUL, a control character, too long, a hash that is not hex). A
//! fault never justifies a move, so it is never mistaken for "not found", and what a hostile
//! destination sends never reaches the database or a terminal unchecked.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;

use super::Match;
use crate::clock::DbClock;
use crate::config::{Destination, NotFound};
use crate::error::{Error, Result};

/// The longest remote id or content hash accepted from a destination, in bytes.
pub const MAX_ID_BYTES: usize = 512;

/// What the destination said, reduced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A well-formed list of matches (possibly empty).
    Matches(Vec<Match>),
    /// 404 from a destination configured `not_found = "empty_or_404"`: nothing under this
    /// reference.
    NotFound,
    /// Anything else; the text says what, for a person (never the token).
    Fault(String),
}

/// One request's result and the facts an event records.
#[derive(Debug, Clone)]
pub struct Response {
    pub answer: Answer,
    /// The HTTP status, when one arrived.
    pub status: Option<u16>,
    /// When the request was started, on the database's clock (the clock `sent_at` is on,
    /// and the one a "not found" is judged by).
    pub asked_at: DateTime<Utc>,
    pub elapsed: Duration,
    /// The URL asked (config refuses credentials in it; the token travels in a header).
    pub url: String,
    /// The query parameter that carries the reference (allowed in evidence).
    ref_param: Option<String>,
}

impl Response {
    /// The URL as events and messages record it: every query value but the reference's and
    /// paging's redacted, the fragment dropped ([`redact_url`]).
    pub fn url_for_evidence(&self) -> String {
        redact_url(&self.url, self.ref_param.as_deref())
    }

    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.elapsed.as_millis()).unwrap_or(u64::MAX)
    }

    /// What went wrong, for evidence (null when the answer was well-formed).
    pub fn fault(&self) -> serde_json::Value {
        match &self.answer {
            Answer::Fault(f) => serde_json::Value::String(f.clone()),
            _ => serde_json::Value::Null,
        }
    }
}

/// The bearer token for a destination, read from the variable its config names. A missing
/// or unusable variable is an error naming the variable, never its value.
pub fn bearer(name: &str, dest: &Destination) -> Result<Option<HeaderValue>> {
    let Some(var) = dest.token_env.as_deref() else {
        return Ok(None);
    };
    let token = match std::env::var(var) {
        Ok(t) if !t.trim().is_empty() => t,
        Ok(_) | Err(std::env::VarError::NotPresent) => {
            return Err(Error::config(format!(
                "destination {name}: the environment variable {var} (its token_env) is not set"
            ))
            .hinted(format!(
                "export {var} with the destination's API token, or remove token_env from [destinations.{name}]"
            )))
        }
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(Error::config(format!(
                "destination {name}: the environment variable {var} (its token_env) is not valid UTF-8"
            )))
        }
    };
    let mut value = HeaderValue::from_str(&format!("Bearer {}", token.trim())).map_err(|_| {
        Error::config(format!(
            "destination {name}: the token in {var} contains characters an HTTP header cannot carry"
        ))
    })?;
    value.set_sensitive(true);
    Ok(Some(value))
}

/// GET the lookup URL for `external_ref` and reduce the response. Never fails: every failure
/// to get a well-formed answer is an [`Answer::Fault`].
pub async fn fetch(
    http: &reqwest::Client,
    dest: &Destination,
    token: Option<&HeaderValue>,
    external_ref: &str,
    max_body_bytes: u64,
    clock: DbClock,
) -> Response {
    let url = dest.lookup_url.for_ref(external_ref);
    let asked_at = clock.now();
    let start = Instant::now();
    // One deadline for connect, headers and body together: a destination that trickles its
    // body must not hold a lookup longer than its timeout.
    let result = tokio::time::timeout(
        dest.timeout,
        exchange(http, dest, token, &url, max_body_bytes),
    )
    .await;
    let (status, answer) = match result {
        Ok(r) => r,
        Err(_) => (None, Answer::Fault(timed_out(dest.timeout))),
    };
    Response {
        answer,
        status,
        asked_at,
        elapsed: start.elapsed(),
        url,
        ref_param: dest.lookup_url.ref_param(),
    }
}

async fn exchange(
    http: &reqwest::Client,
    dest: &Destination,
    token: Option<&HeaderValue>,
    url: &str,
    max_body_bytes: u64,
) -> (Option<u16>, Answer) {
    let parsed = match url::Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => u,
        Ok(u) => {
            return (
                None,
                Answer::Fault(format!("only http and https are asked, not {}", u.scheme())),
            )
        }
        Err(e) => return (None, Answer::Fault(format!("not a valid URL: {e}"))),
    };
    let mut req = http
        .get(parsed)
        .timeout(dest.timeout)
        .header(reqwest::header::ACCEPT, "application/json");
    if let Some(t) = token {
        req = req.header(AUTHORIZATION, t.clone());
    }
    let mut resp = match req.send().await {
        Ok(r) => r,
        Err(e) => return (None, Answer::Fault(describe(&e, dest.timeout))),
    };
    let status = resp.status();
    let code = Some(status.as_u16());
    if status == reqwest::StatusCode::NOT_FOUND {
        return match dest.not_found {
            NotFound::EmptyOr404 => (code, Answer::NotFound),
            NotFound::Empty => (
                code,
                Answer::Fault(format!(
                    "HTTP {status} (for this destination a 404 is not \"no match\": not_found = \"empty\")"
                )),
            ),
        };
    }
    if status.is_redirection() {
        let to = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(|l| format!(" to {}", l.chars().take(200).collect::<String>()))
            .unwrap_or_default();
        return (
            code,
            Answer::Fault(format!(
                "HTTP {status}: a redirect{to}, which reconctl does not follow"
            )),
        );
    }
    if !status.is_success() {
        return (code, Answer::Fault(format!("HTTP {status}")));
    }
    let content_type = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !is_json(&content_type) {
        let shown = if content_type.is_empty() {
            "none".to_string()
        } else {
            content_type.chars().take(100).collect()
        };
        return (
            code,
            Answer::Fault(format!("HTTP {status} with content type {shown}, not JSON")),
        );
    }
    if resp.content_length().is_some_and(|n| n > max_body_bytes) {
        return (code, too_large(max_body_bytes));
    }
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() as u64 + chunk.len() as u64 > max_body_bytes {
                    return (code, too_large(max_body_bytes));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return (code, Answer::Fault(describe(&e, dest.timeout))),
        }
    }
    (code, parse_matches(&body, dest))
}

fn too_large(max: u64) -> Answer {
    Answer::Fault(format!(
        "the answer is larger than the cap of {max} bytes (lookup.max_body_bytes)"
    ))
}

fn is_json(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// The one message of a lookup that ran out of time, whichever of the two equal deadlines
/// (reqwest's, the whole exchange's) fired first.
fn timed_out(timeout: std::time::Duration) -> String {
    format!(
        "no complete answer within the timeout of {}",
        crate::duration::format_duration(timeout)
    )
}

/// A reqwest error for a person: what failed, without the URL's query (reqwest appends the
/// URL, which we report separately) and never a header.
fn describe(e: &reqwest::Error, timeout: std::time::Duration) -> String {
    if e.is_timeout() {
        return timed_out(timeout);
    }
    let what = if e.is_connect() {
        "cannot connect"
    } else if e.is_body() || e.is_decode() {
        "the answer broke off"
    } else if e.is_request() {
        "the request failed"
    } else {
        "the exchange failed"
    };
    // The innermost cause is the one a person recognises ("Connection refused").
    let mut detail = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail = s.to_string();
        source = s.source();
    }
    if detail.is_empty() {
        what.to_string()
    } else {
        format!("{what}: {detail}")
    }
}

/// The matches in a JSON body, per the destination's pointers.
pub fn parse_matches(body: &[u8], dest: &Destination) -> Answer {
    let doc: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Answer::Fault(format!("the answer is not valid JSON ({e})")),
    };
    let results = match doc.pointer(&dest.results) {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Answer::Fault(format!(
                "results pointer \"{}\" holds {}, not an array",
                dest.results,
                kind(other)
            ))
        }
        None => {
            return Answer::Fault(format!(
                "the answer has nothing at the results pointer \"{}\"",
                dest.results
            ))
        }
    };
    let mut matches = Vec::with_capacity(results.len());
    for (i, item) in results.iter().enumerate() {
        let remote_id = match item.pointer(&dest.remote_id) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                return Answer::Fault(format!(
                    "match {i} has no remote id at \"{}\"",
                    dest.remote_id
                ))
            }
        };
        if let Err(why) = sane(&remote_id, false) {
            return Answer::Fault(format!("match {i}'s remote id {why}"));
        }
        let content_hash = match dest.content_hash.as_deref() {
            None => None,
            Some(p) => match item.pointer(p) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => {
                    if let Err(why) = sane(s, true) {
                        return Answer::Fault(format!("match {i}'s content hash {why}"));
                    }
                    Some(s.clone())
                }
                Some(other) => {
                    return Answer::Fault(format!(
                        "match {i} has {} at \"{p}\", not a content hash",
                        kind(other)
                    ))
                }
            },
        };
        matches.push(Match {
            remote_id,
            content_hash,
        });
    }
    Answer::Matches(matches)
}

/// Whether a remote id (or, `hex`, a content hash) from a destination is a string reconctl
/// can store, compare and show: no control character (a NUL cannot even be stored in a
/// PostgreSQL text column; an escape sequence could rewrite an operator's terminal), at most
/// [`MAX_ID_BYTES`], and for a hash hex digits only. Why not, for the fault, shown escaped.
fn sane(s: &str, hex: bool) -> std::result::Result<(), String> {
    if s.len() > MAX_ID_BYTES {
        return Err(format!(
            "is {} bytes long, more than the {MAX_ID_BYTES} reconctl accepts",
            s.len()
        ));
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Err(format!(
            "contains the control character U+{:04X} ({})",
            c as u32,
            crate::escape::escape(&s.chars().take(80).collect::<String>())
        ));
    }
    if hex && !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "is not hexadecimal ({})",
            crate::escape::escape(&s.chars().take(80).collect::<String>())
        ));
    }
    Ok(())
}

/// The URL as events record it: the value of the parameter that carries the reference
/// (`ref_param`, from the lookup_url template) and of paging parameters are kept; every
/// other query value is replaced by `REDACTED` and the fragment dropped. An allow-list, not a
/// list of suspicious names: an API key can hide behind any name (`pwd=`, `jwt=`, `access=`).
pub fn redact_url(url: &str, ref_param: Option<&str>) -> String {
    const KEEP: [&str; 8] = [
        "external_ref",
        "ref",
        "page",
        "per_page",
        "page_size",
        "limit",
        "offset",
        "cursor",
    ];
    let url = url.split_once('#').map_or(url, |(u, _)| u);
    let Some((base, query)) = url.split_once('?') else {
        return url.to_string();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let keep =
                ref_param == Some(name) || KEEP.contains(&name.to_ascii_lowercase().as_str());
            if keep || value.is_empty() {
                pair.to_string()
            } else {
                format!("{name}=REDACTED")
            }
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn dest(extra: &str) -> Destination {
        let cfg = Config::parse(
            &format!("[destinations.d]\nlookup_url = \"http://h/{{ref}}\"\n{extra}"),
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        cfg.destination("d").unwrap().clone()
    }

    #[test]
    fn matches_follow_the_pointers() {
        let d = dest("results = \"/data/items\"\nremote_id = \"/key\"\ncontent_hash = \"/h\"\n");
        let a = parse_matches(
            br#"{"data":{"items":[{"key":7,"h":"ab"},{"key":"x"}]}}"#,
            &d,
        );
        assert_eq!(
            a,
            Answer::Matches(vec![
                Match {
                    remote_id: "7".into(),
                    content_hash: Some("ab".into())
                },
                Match {
                    remote_id: "x".into(),
                    content_hash: None
                }
            ])
        );
        assert!(matches!(
            parse_matches(br#"{"data":{"items":{}}}"#, &d),
            Answer::Fault(_)
        ));
        assert!(matches!(
            parse_matches(br#"{"data":{}}"#, &d),
            Answer::Fault(_)
        ));
        assert!(matches!(parse_matches(b"[{", &d), Answer::Fault(_)));
        assert!(matches!(
            parse_matches(br#"{"data":{"items":[{"h":"ab"}]}}"#, &d),
            Answer::Fault(_)
        ));
    }

    #[test]
    fn hostile_ids_and_hashes_are_faults() {
        let d = dest("content_hash = \"/h\"\n");
        for body in [
            r#"[{"id":"a\u0000b"}]"#,
            r#"[{"id":"\u001b]0;pwned\u0007"}]"#,
            r#"[{"id":"two\nlines"}]"#,
            r#"[{"id":"ok","h":"zz"}]"#,
            r#"[{"id":"ok","h":"ab\u0000"}]"#,
        ] {
            assert!(
                matches!(parse_matches(body.as_bytes(), &d), Answer::Fault(_)),
                "{body}"
            );
        }
        let long = format!(r#"[{{"id":"{}"}}]"#, "x".repeat(MAX_ID_BYTES + 1));
        assert!(matches!(
            parse_matches(long.as_bytes(), &d),
            Answer::Fault(_)
        ));
        let fine = format!(r#"[{{"id":"{}","h":"AB01"}}]"#, "x".repeat(MAX_ID_BYTES));
        assert!(matches!(
            parse_matches(fine.as_bytes(), &d),
            Answer::Matches(_)
        ));
    }

    #[test]
    fn evidence_urls_keep_only_the_reference_and_paging() {
        assert_eq!(
            redact_url(
                "https://cms/a?external_ref=pub_1&api_key=s3cret&pwd=x&jwt=y&access=z&page=2#token=t",
                None
            ),
            "https://cms/a?external_ref=pub_1&api_key=REDACTED&pwd=REDACTED&jwt=REDACTED&access=REDACTED&page=2"
        );
        assert_eq!(
            redact_url("http://cms/a?q=pub_1&sig=abc", Some("q")),
            "http://cms/a?q=pub_1&sig=REDACTED"
        );
        assert_eq!(redact_url("http://cms/a/pub_1", None), "http://cms/a/pub_1");
        assert_eq!(
            redact_url("http://cms/a/pub_1#frag", None),
            "http://cms/a/pub_1"
        );
    }

    #[test]
    fn json_content_types() {
        assert!(is_json("application/json"));
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/vnd.cms+json"));
        assert!(!is_json("text/html"));
        assert!(!is_json(""));
    }
}
