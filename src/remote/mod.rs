//! Asking a destination whether it holds a publication with a job's external reference, and
//! what that evidence justifies (SPEC §3 "Lookup verdicts", §4).
//!
//! [`Lookups`] is resolved once per run (the config's destinations and the one HTTP client)
//! and passed down; [`Lookups::destination`] gives a [`Dest`] ready to be asked (configured,
//! its token read), or the one error saying how to configure it. A [`Dest`] asks
//! ([`Dest::ask`]) and checks its own lookup ([`controls`]): a "not found" is evidence only
//! from a destination whose controls passed.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::clock::DbClock;
use crate::config::{Config, Destination};
use crate::error::{Error, Result};

pub mod auth;
pub mod controls;
pub mod gate;
pub mod http;
pub mod verdict;
pub use verdict::{action_for, verdict_action};
pub mod wordpress;

pub use controls::Controls;

/// What the destination answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Found,
    NotFound,
    Ambiguous,
    Unreachable,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Found => "found",
            Outcome::NotFound => "not_found",
            Outcome::Ambiguous => "ambiguous",
            Outcome::Unreachable => "unreachable",
        }
    }
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

    /// A definite answer: every verdict but `unknown` (`remote lookup` exits 0 on these).
    /// Of them, only accept, safe_to_retry and conflict move a job.
    pub fn is_definite(self) -> bool {
        self != Verdict::Unknown
    }
}

/// One publication the destination reported. Serialises to SPEC §4's match: `remote_id`,
/// `content_hash`, `status` and `ref` (null when the destination reports none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Match {
    pub remote_id: String,
    /// The content hash it reports; missing, null and `""` are all "not reported" (None).
    pub content_hash: Option<String>,
    /// Its status as the CMS names it (`publish`, `draft`, `trash`, …), when the config
    /// names a `status` pointer.
    pub status: Option<String>,
    /// The reference it carries, when the config names a `ref` pointer.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// What it is of the job's article: the article itself, a copy the CMS renamed, or a
    /// removed one (SPEC §4).
    #[serde(skip)]
    pub copy: Copy,
}

/// What a match is of the reference asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Copy {
    /// It carries the reference exactly (or the destination reports no reference).
    #[default]
    Same,
    /// A second copy the CMS renamed instead of refusing it (`REF-2`, `REF-3`, …).
    Renamed,
    /// Someone removed it on purpose: its status is one of the config's `removed`, or the
    /// CMS renamed it as removed (WordPress: `REF__trashed`).
    Removed,
}

impl Match {
    /// A match of the reference itself, with nothing known but its id and hash.
    pub fn new(remote_id: impl Into<String>, content_hash: Option<String>) -> Match {
        Match {
            remote_id: remote_id.into(),
            content_hash,
            status: None,
            reference: None,
            copy: Copy::Same,
        }
    }

    /// The match for a person: its id, then what is unusual about it (a renamed or removed
    /// reference, a status other than published) and, `with_hash`, its content hash, all
    /// escaped: `6 (status draft)`, `8 (as REF-2)`.
    pub fn describe(&self, with_hash: bool) -> String {
        use crate::escape::escape;
        let mut notes = Vec::new();
        if let (Some(r), Copy::Renamed | Copy::Removed) = (&self.reference, self.copy) {
            notes.push(format!("as {}", escape(r)));
        }
        if let Some(s) = self.unpublished_status() {
            notes.push(format!("status {}", escape(s)));
        }
        if let (true, Some(h)) = (with_hash, &self.content_hash) {
            notes.push(format!("content hash {}", escape(h)));
        }
        let id = escape(&self.remote_id);
        if notes.is_empty() {
            id
        } else {
            format!("{id} ({})", notes.join(", "))
        }
    }

    /// Its status for a person when it is not the published one (`draft`, `trash`), else
    /// None.
    pub fn unpublished_status(&self) -> Option<&str> {
        self.status
            .as_deref()
            .filter(|s| !matches!(s.to_ascii_lowercase().as_str(), "publish" | "published"))
    }
}

/// One lookup and its verdict. Serialises to SPEC §5's `remote lookup` object (plus `reason`
/// and, when they were checked, the destination's `controls`).
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
    /// The destination's controls this verdict relied on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controls: Option<Controls>,
    /// What an event records: HTTP status, the URL without secrets, when (database clock),
    /// how long, the controls.
    #[serde(skip)]
    pub evidence: Value,
}

impl Lookup {
    /// A verdict that came without asking: the destination cannot be asked (not configured,
    /// no token), or its controls failed and its answers prove nothing.
    pub fn not_asked(destination: &str, external_ref: &str, why: String) -> Lookup {
        Lookup {
            destination: destination.to_string(),
            external_ref: external_ref.to_string(),
            outcome: Outcome::Unreachable,
            matches: Vec::new(),
            content_match: None,
            verdict: Verdict::Unknown,
            reason: format!("not looked up: {why}"),
            controls: None,
            evidence: Value::Null,
        }
    }

    /// This lookup as judged under the destination's `controls`: when they failed, nothing
    /// the destination said is evidence, and the verdict is `unknown` saying why.
    pub fn under(mut self, controls: &Controls) -> Lookup {
        if let Some(failure) = controls.failure() {
            self.reason = format!(
                "not trusted: {failure}; the answer for this job ({}) proves nothing until the controls pass",
                self.outcome.as_str()
            );
            self.verdict = Verdict::Unknown;
            if let Some(l) = self.evidence.get_mut("lookup") {
                l["verdict"] = serde_json::to_value(self.verdict).unwrap_or(Value::Null);
                l["reason"] = self.reason.clone().into();
            }
        }
        if let Some(l) = self.evidence.get_mut("lookup") {
            l["controls"] = controls.evidence();
        }
        self.controls = Some(controls.clone());
        self
    }
}

/// What the job says about itself, for judging the answer: its payload hash (compared with
/// the match's content hash) and when it was sent (database clock; a "not found" is trusted
/// only `settle_after` later).
#[derive(Debug, Clone, Copy, Default)]
pub struct Expect<'a> {
    pub payload_hash: Option<&'a str>,
    pub sent_at: Option<DateTime<Utc>>,
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

/// The destinations of the config and the HTTP client that asks them, resolved once per run.
#[derive(Debug, Clone, Copy)]
pub struct Lookups<'a> {
    config: &'a Config,
    http: &'a reqwest::Client,
}

impl<'a> Lookups<'a> {
    pub fn new(config: &'a Config, http: &'a reqwest::Client) -> Lookups<'a> {
        Lookups { config, http }
    }

    pub fn config(&self) -> &'a Config {
        self.config
    }

    /// A destination ready to be asked: configured, and its credentials (if it has any) read
    /// from the environment. Errors, exit 2: not configured (saying where to add it), a
    /// credential variable not set (naming the variable, never a value).
    pub fn destination(&self, name: &str) -> Result<Dest<'a>> {
        let settings = self.config.destination(name).ok_or_else(|| {
            let where_ = match &self.config.path {
                Some(p) => format!("to {}", p.display()),
                None => "to a config file (--config FILE or RECONCTL_CONFIG)".to_string(),
            };
            Error::config(format!("destination {name} is not configured")).hinted(format!(
                "add a [destinations.{name}] section with its lookup_url {where_}"
            ))
        })?;
        let credentials = auth::Credentials::read(name, settings)?;
        Ok(Dest {
            name: name.to_string(),
            settings,
            credentials,
            http: self.http,
            max_body: self.config.lookup.max_body_bytes,
        })
    }
}

/// One destination, ready to be asked.
#[derive(Debug, Clone)]
pub struct Dest<'a> {
    name: String,
    settings: &'a Destination,
    credentials: auth::Credentials,
    http: &'a reqwest::Client,
    max_body: u64,
}

impl Dest<'_> {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn settings(&self) -> &Destination {
        self.settings
    }

    /// One request for `external_ref`, reduced to what it told us (never an error: every
    /// failure to get a well-formed answer is an [`http::Answer::Fault`]).
    pub async fn fetch(&self, external_ref: &str, clock: DbClock) -> http::Response {
        http::fetch(
            self.http,
            self.settings,
            &self.credentials,
            external_ref,
            self.max_body,
            clock,
        )
        .await
    }

    /// For a kind whose CMS hides unpublished copies from anonymous readers: who the
    /// credentials are and which statuses they may see, or why they cannot see them all
    /// (None for the generic kind). WordPress answers a public list asked with a wrong
    /// application password as if an anonymous reader had asked, so only this proves them.
    pub async fn access(&self) -> Option<std::result::Result<wordpress::Access, String>> {
        let crate::config::Source::WordPress {
            base_url,
            collection,
            statuses,
        } = &self.settings.source
        else {
            return None;
        };
        let json = |url: String| async move {
            let (_, body) = http::get_json(
                self.http,
                self.settings,
                &self.credentials,
                &url,
                self.max_body,
            )
            .await;
            match body {
                Ok(http::Body::Json(b)) => serde_json::from_slice::<Value>(&b)
                    .map_err(|e| format!("the answer is not valid JSON ({e})")),
                Ok(http::Body::NotFound) => Err("HTTP 404".to_string()),
                Err(fault) => Err(fault),
            }
        };
        let (me, registered) = futures::join!(
            json(wordpress::access_url(base_url)),
            json(wordpress::statuses_url(base_url))
        );
        Some((|| {
            let access = wordpress::access(&me?, collection)?;
            let unasked = wordpress::unasked_statuses(&registered?, statuses)?;
            if !unasked.is_empty() {
                return Err(format!(
                    "the site registers post statuses the lookup does not ask for ({}): a copy in one of them would be missed; add them to statuses = [...] in the destination's config",
                    unasked.join(", ")
                ));
            }
            let mut access = access;
            access.statuses.extend(statuses.iter().cloned());
            Ok(access)
        })())
    }

    /// Ask for `external_ref` and judge the answer against what the job expects (SPEC §3's
    /// verdicts). Everything that goes wrong on the wire is a verdict of `unknown`, not an
    /// error. The verdict is the answer's alone: see [`Lookup::under`] for the controls.
    pub async fn ask(&self, external_ref: &str, expect: Expect<'_>, clock: DbClock) -> Lookup {
        let resp = self.fetch(external_ref, clock).await;
        let j = verdict::judge(
            &resp.answer,
            expect.payload_hash,
            expect.sent_at,
            resp.asked_at,
            self.settings.settle_after,
        );
        let matches = match &resp.answer {
            http::Answer::Matches(m) => m.clone(),
            _ => Vec::new(),
        };
        let evidence = serde_json::json!({
            "lookup": {
                "destination": self.name,
                "url": resp.url_for_evidence(),
                "http_status": resp.status,
                "at": resp.asked_at.to_rfc3339_opts(SecondsFormat::Millis, true),
                "elapsed_ms": resp.elapsed_ms(),
                "outcome": j.outcome,
                "matches": matches,
                "content_match": j.content_match,
                "payload_hash": expect.payload_hash,
                "sent_at": expect.sent_at.map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true)),
                "settle_after_secs": self.settings.settle_after.as_secs(),
                "verdict": j.verdict,
                "reason": j.reason,
                "fault": resp.fault(),
            }
        });
        Lookup {
            destination: self.name.clone(),
            external_ref: external_ref.to_string(),
            outcome: j.outcome,
            matches,
            content_match: j.content_match,
            verdict: j.verdict,
            reason: j.reason,
            controls: None,
            evidence,
        }
    }
}
