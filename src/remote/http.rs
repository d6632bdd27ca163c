//! The HTTP side of a lookup: one GET, bounded in time and size, reduced to what it told us.
//!
//! Anything but a well-formed answer is a [`Answer::Fault`]: a redirect, a 5xx or 429, a 404
//! (unless the destination is configured `not_found = "empty_or_404"`), a body that is not
//! JSON or is larger than the cap, a timeout, a refused connection, a match whose id or hash
//! is not a sane string (a NUL, a control character, too long, a hash that is not hex). A
//! fault never justifies a move, so it is never mistaken for "not found", and what a hostile
//! destination sends never reaches the database or a terminal unchecked.
//!
//! Every match counts, whatever its status (SPEC §4): a draft or a trashed copy is still the
//! article at the destination. With a `ref` pointer each match must carry the reference
//! asked for, as itself, a copy the CMS renamed (`REF-2`) or a removed one (`REF__trashed`);
//! anything else means the destination ignored the lookup's filter, and the answer is a
//! fault.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

use super::auth::Credentials;
use super::{Copy, Match};
use crate::clock::DbClock;
use crate::config::{Destination, NotFound};

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
    /// The URL asked, as the config (or the kind) wrote it: no secret is ever in it (the
    /// config refuses credential-looking parameters; `auth` secrets travel beside it).
    pub url: String,
}

impl Response {
    /// The URL as events and messages record it: what was asked, so it says what was
    /// asked; secrets travel in headers or a parameter added only to the request.
    pub fn url_for_evidence(&self) -> String {
        self.url.clone()
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

/// GET the lookup URL for `external_ref` and reduce the response. Never fails: every failure
/// to get a well-formed answer is an [`Answer::Fault`].
pub async fn fetch(
    http: &reqwest::Client,
    dest: &Destination,
    credentials: &Credentials,
    external_ref: &str,
    max_body_bytes: u64,
    clock: DbClock,
) -> Response {
    let url = dest.url_for(external_ref);
    let asked_at = clock.now();
    let start = Instant::now();
    let (status, body) = get_json(http, dest, credentials, &url, max_body_bytes).await;
    let answer = match body {
        // What a destination answers may echo the request (a query secret): what it says
        // is scrubbed like its faults, and a match holding a secret is no match.
        Ok(Body::Json(body)) => match parse_matches(&body, dest, external_ref) {
            Answer::Fault(f) => Answer::Fault(credentials.scrub(&f)),
            Answer::Matches(m) if m.iter().any(|m| credentials.exposes(m)) => Answer::Fault(
                "a match echoes the destination's credentials back: not trusted".into(),
            ),
            other => other,
        },
        Ok(Body::NotFound) => Answer::NotFound,
        Err(fault) => Answer::Fault(fault),
    };
    Response {
        answer,
        status,
        asked_at,
        elapsed: start.elapsed(),
        url,
    }
}

/// A body that came back well-formed.
pub enum Body {
    Json(Vec<u8>),
    /// A 404 from a destination configured `not_found = "empty_or_404"`.
    NotFound,
}

/// GET `url` with the destination's credentials, bounded by its timeout (connect, headers
/// and body together) and the body cap: the JSON body, or what went wrong for a person,
/// with every secret scrubbed from it.
pub async fn get_json(
    http: &reqwest::Client,
    dest: &Destination,
    credentials: &Credentials,
    url: &str,
    max_body_bytes: u64,
) -> (Option<u16>, std::result::Result<Body, String>) {
    // One deadline for connect, headers and body together: a destination that trickles its
    // body must not hold a lookup longer than its timeout.
    let result = tokio::time::timeout(
        dest.timeout,
        exchange(http, dest, credentials, url, max_body_bytes),
    )
    .await;
    match result {
        Ok((status, Ok(body))) => (status, Ok(body)),
        Ok((status, Err(fault))) => (status, Err(credentials.scrub(&fault))),
        Err(_) => (None, Err(timed_out(dest.timeout))),
    }
}

async fn exchange(
    http: &reqwest::Client,
    dest: &Destination,
    credentials: &Credentials,
    url: &str,
    max_body_bytes: u64,
) -> (Option<u16>, std::result::Result<Body, String>) {
    let parsed = match url::Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => u,
        Ok(u) => {
            return (
                None,
                Err(format!("only http and https are asked, not {}", u.scheme())),
            )
        }
        Err(e) => return (None, Err(format!("not a valid URL: {e}"))),
    };
    let req = http
        .get(parsed)
        .timeout(dest.timeout)
        .header(reqwest::header::ACCEPT, "application/json");
    let mut resp = match credentials.apply(req).send().await {
        Ok(r) => r,
        Err(e) => return (None, Err(describe(&e, dest.timeout))),
    };
    let status = resp.status();
    let code = Some(status.as_u16());
    if status == reqwest::StatusCode::NOT_FOUND {
        return match dest.not_found {
            NotFound::EmptyOr404 => (code, Ok(Body::NotFound)),
            NotFound::Empty => (
                code,
                Err(format!(
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
            Err(format!(
                "HTTP {status}: a redirect{to}, which reconctl does not follow"
            )),
        );
    }
    if !status.is_success() {
        return (code, Err(rejected(status, &mut resp).await));
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
            Err(format!("HTTP {status} with content type {shown}, not JSON")),
        );
    }
    if resp.content_length().is_some_and(|n| n > max_body_bytes) {
        return (code, Err(too_large(max_body_bytes)));
    }
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() as u64 + chunk.len() as u64 > max_body_bytes {
                    return (code, Err(too_large(max_body_bytes)));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return (code, Err(describe(&e, dest.timeout))),
        }
    }
    (code, Ok(Body::Json(body)))
}

/// A 4xx or 5xx, with the CMS's own error code when it sends one in JSON (WordPress:
/// `{"code": "rest_forbidden_status", …}`, `incorrect_password`), escaped and short: it says
/// why far better than the status alone.
async fn rejected(status: reqwest::StatusCode, resp: &mut reqwest::Response) -> String {
    let mut body = Vec::new();
    while body.len() < 4096 {
        match resp.chunk().await {
            Ok(Some(c)) => body.extend_from_slice(&c),
            _ => break,
        }
    }
    // The most specific code: WordPress wraps a refused parameter's own code
    // (`rest_forbidden_status`) in `rest_invalid_param`.
    let code = serde_json::from_slice::<Value>(&body).ok().and_then(|v| {
        let detail = v
            .pointer("/data/details")
            .and_then(|d| d.as_object())
            .and_then(|d| d.values().find_map(|x| x.get("code")?.as_str()));
        detail
            .or_else(|| v.get("code")?.as_str())
            .filter(|c| !c.is_empty())
            .map(str::to_string)
    });
    match code {
        Some(c) => format!(
            "HTTP {status} ({})",
            crate::escape::escape(&c.chars().take(80).collect::<String>())
        ),
        None => format!("HTTP {status}"),
    }
}

fn too_large(max: u64) -> String {
    format!("the answer is larger than the cap of {max} bytes (lookup.max_body_bytes)")
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

/// The matches in a JSON body for `external_ref`, per the destination's pointers.
pub fn parse_matches(body: &[u8], dest: &Destination, external_ref: &str) -> Answer {
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
        match one_match(body, dest, external_ref, i, item) {
            Ok(m) => matches.push(m),
            Err(fault) => return Answer::Fault(fault),
        }
    }
    Answer::Matches(matches)
}

fn one_match(
    body: &[u8],
    dest: &Destination,
    external_ref: &str,
    i: usize,
    item: &Value,
) -> std::result::Result<Match, String> {
    let remote_id = match item.pointer(&dest.remote_id) {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        // A number is kept as the destination wrote it: through a float, 12345678901234567890123
        // would become 1.2345678901234568e22, another id (SPEC §2).
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => n.to_string(),
        Some(Value::Number(_)) => number_as_written(body, &dest.results, i, &dest.remote_id)
            .ok_or_else(|| format!("match {i}'s remote id could not be read as written"))?,
        _ => {
            return Err(format!(
                "match {i} has no remote id at \"{}\"",
                dest.remote_id
            ))
        }
    };
    sane(&remote_id, false).map_err(|why| format!("match {i}'s remote id {why}"))?;
    let content_hash = match dest.content_hash.as_deref() {
        None => None,
        Some(p) => match item.pointer(p) {
            // No hash is no hash: missing, null and "" are all "not reported" (SPEC §4).
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => {
                sane(s, true).map_err(|why| format!("match {i}'s content hash {why}"))?;
                Some(s.clone())
            }
            Some(other) => {
                return Err(format!(
                    "match {i} has {} at \"{p}\", not a content hash",
                    kind(other)
                ))
            }
        },
    };
    let text_at = |what: &str, p: Option<&str>| -> std::result::Result<Option<String>, String> {
        match p.map(|p| item.pointer(p)) {
            None | Some(None) | Some(Some(Value::Null)) => Ok(None),
            Some(Some(Value::String(s))) if s.is_empty() => Ok(None),
            Some(Some(Value::String(s))) => {
                sane(s, false).map_err(|why| format!("match {i}'s {what} {why}"))?;
                Ok(Some(s.clone()))
            }
            Some(Some(Value::Number(n))) => Ok(Some(n.to_string())),
            Some(Some(other)) => Err(format!(
                "match {i} has {} at \"{}\", not its {what}",
                kind(other),
                p.unwrap_or_default()
            )),
        }
    };
    let status = text_at("status", dest.status.as_deref())?;
    let reference = text_at("reference", dest.reference.as_deref())?;
    let mut copy = match reference.as_deref() {
        // With a `ref` pointer every match must carry the reference (SPEC §4): one that
        // carries none cannot be told from another article's.
        None if dest.reference.is_some() => {
            return Err(format!(
                "match {i} (remote id {}) carries no reference at \"{}\": with `ref` set, every match must carry one",
                crate::escape::escape(&remote_id),
                dest.reference.as_deref().unwrap_or_default()
            ))
        }
        None => Copy::Same,
        Some(r) => copy_of(r, external_ref).ok_or_else(|| {
            format!(
                "match {i} (remote id {}) carries the reference {}, not {external_ref} or a copy of it: the destination ignored the lookup's filter",
                crate::escape::escape(&remote_id),
                crate::escape::escape(&r.chars().take(100).collect::<String>())
            )
        })?,
    };
    if status
        .as_deref()
        .is_some_and(|s| dest.removed.iter().any(|r| r.eq_ignore_ascii_case(s)))
    {
        copy = Copy::Removed;
    }
    Ok(Match {
        remote_id,
        content_hash,
        status,
        reference,
        copy,
    })
}

/// What `found` (the reference a match carries) is of `asked`: the same, a renamed copy
/// (`REF-2`, `REF-3`, …), a removed one (`REF__trashed`, `REF-2__trashed`), or None: another
/// reference altogether.
pub fn copy_of(found: &str, asked: &str) -> Option<Copy> {
    if found == asked {
        return Some(Copy::Same);
    }
    let renamed = |s: &str| {
        s.strip_prefix(asked)
            .and_then(|t| t.strip_prefix('-'))
            .is_some_and(|n| {
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0')
            })
    };
    if let Some(base) = found.strip_suffix("__trashed") {
        return (base == asked || renamed(base)).then_some(Copy::Removed);
    }
    renamed(found).then_some(Copy::Renamed)
}

/// The text of the number at `results`[`index`]`remote_id` in `body`, exactly as written
/// (a float or an integer too large for 64 bits), read with serde_json's raw values.
fn number_as_written(body: &[u8], results: &str, index: usize, remote_id: &str) -> Option<String> {
    use serde_json::value::RawValue;
    let root: &RawValue = serde_json::from_slice(body).ok()?;
    let mut path: Vec<String> = pointer_tokens(results);
    path.push(index.to_string());
    path.extend(pointer_tokens(remote_id));
    let mut here: Box<RawValue> = root.to_owned();
    for token in path {
        let text = here.get().trim_start();
        here = if text.starts_with('[') {
            let items: Vec<Box<RawValue>> = serde_json::from_str(text).ok()?;
            items.into_iter().nth(token.parse().ok()?)?
        } else {
            let mut map: std::collections::HashMap<String, Box<RawValue>> =
                serde_json::from_str(text).ok()?;
            map.remove(&token)?
        };
    }
    let text = here.get().trim();
    serde_json::from_str::<serde_json::Number>(text)
        .ok()
        .map(|_| text.to_string())
}

/// A JSON pointer's reference tokens, unescaped (`~1` is `/`, `~0` is `~`).
fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
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
            "r",
        );
        assert_eq!(
            a,
            Answer::Matches(vec![
                Match::new("7", Some("ab".into())),
                Match::new("x", None)
            ])
        );
        assert!(matches!(
            parse_matches(br#"{"data":{"items":{}}}"#, &d, "r"),
            Answer::Fault(_)
        ));
        assert!(matches!(
            parse_matches(br#"{"data":{}}"#, &d, "r"),
            Answer::Fault(_)
        ));
        assert!(matches!(parse_matches(b"[{", &d, "r"), Answer::Fault(_)));
        assert!(matches!(
            parse_matches(br#"{"data":{"items":[{"h":"ab"}]}}"#, &d, "r"),
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
                matches!(parse_matches(body.as_bytes(), &d, "r"), Answer::Fault(_)),
                "{body}"
            );
        }
        let long = format!(r#"[{{"id":"{}"}}]"#, "x".repeat(MAX_ID_BYTES + 1));
        assert!(matches!(
            parse_matches(long.as_bytes(), &d, "r"),
            Answer::Fault(_)
        ));
        let fine = format!(r#"[{{"id":"{}","h":"AB01"}}]"#, "x".repeat(MAX_ID_BYTES));
        assert!(matches!(
            parse_matches(fine.as_bytes(), &d, "r"),
            Answer::Matches(_)
        ));
    }

    fn refs(body: &str, asked: &str) -> Answer {
        let d = dest(
            "ref = \"/slug\"\nstatus = \"/status\"\nremoved = [\"trash\"]\ncontent_hash = \"/h\"\n",
        );
        parse_matches(body.as_bytes(), &d, asked)
    }

    #[test]
    fn every_copy_counts_with_its_status_and_reference() {
        let Answer::Matches(m) = refs(
            r#"[{"id":1,"slug":"pub_a","status":"draft","h":""},
                {"id":2,"slug":"pub_a-2","status":"publish","h":null},
                {"id":3,"slug":"pub_a__trashed","status":"trash"},
                {"id":4,"slug":"pub_a-3__trashed","status":"trash"},
                {"id":5,"slug":"pub_a","status":"trash"}]"#,
            "pub_a",
        ) else {
            panic!("not matches")
        };
        let copies: Vec<Copy> = m.iter().map(|m| m.copy).collect();
        assert_eq!(
            copies,
            [
                Copy::Same,
                Copy::Renamed,
                Copy::Removed,
                Copy::Removed,
                Copy::Removed
            ]
        );
        assert_eq!(m[0].status.as_deref(), Some("draft"));
        assert_eq!(m[0].reference.as_deref(), Some("pub_a"));
        assert_eq!(m[0].content_hash, None, "\"\" is no hash");
        assert_eq!(m[1].content_hash, None, "null is no hash");
        assert_eq!(m[0].unpublished_status(), Some("draft"));
        assert_eq!(m[1].unpublished_status(), None);
        let json = serde_json::to_value(&m[0]).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"remote_id": "1", "content_hash": null, "status": "draft", "ref": "pub_a"})
        );
    }

    #[test]
    fn a_match_with_another_reference_means_the_filter_was_ignored() {
        for other in [
            "pub_b", "pub_a-", "pub_a-02", "pub_a-2x", "pub_ab", "xpub_a",
        ] {
            let body = format!(r#"[{{"id":1,"slug":"{other}","status":"publish"}}]"#);
            match refs(&body, "pub_a") {
                Answer::Fault(f) => assert!(f.contains("ignored the lookup's filter"), "{f}"),
                a => panic!("{other}: {a:?}"),
            }
        }
    }

    #[test]
    fn numeric_remote_ids_are_kept_as_written() {
        let d = dest("");
        for (body, id) in [
            (
                r#"[{"id":12345678901234567890123}]"#,
                "12345678901234567890123",
            ),
            (r#"[{"id":1.0}]"#, "1.0"),
            (r#"[{"id":-7}]"#, "-7"),
            (r#"[{"id":1e3}]"#, "1e3"),
        ] {
            assert_eq!(
                parse_matches(body.as_bytes(), &d, "r"),
                Answer::Matches(vec![Match::new(id, None)]),
                "{body}"
            );
        }
        let nested = dest("results = \"/data/a~1b\"\nremote_id = \"/k/id\"\n");
        assert_eq!(
            parse_matches(
                br#"{"data":{"a/b":[{"k":{"id":2},"x":1},{"k":{"id":98765432109876543210}}]}}"#,
                &nested,
                "r"
            ),
            Answer::Matches(vec![
                Match::new("2", None),
                Match::new("98765432109876543210", None)
            ])
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
