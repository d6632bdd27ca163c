//! The config file (TOML, SPEC §4): destinations and lookup limits.
//!
//! Precedence is flag > environment > config file > default. The file is found by
//! `--config`, then `RECONCTL_CONFIG` (both resolved into `Settings` by `cli`), then
//! `$XDG_CONFIG_HOME/reconctl/config.toml` when present. Every value is validated while it is
//! parsed, so an error names the key and the line. Secrets never live here: a destination
//! names the environment variable that holds its token.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use crate::duration::HumanDuration;
use crate::error::{Error, Result};

pub const DEFAULT_BODY_LIMIT: u64 = 1024 * 1024;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub lookup: LookupSettings,
    #[serde(default)]
    pub destinations: BTreeMap<String, Destination>,
    /// `[plans]`: how many people other than its creator must approve a plan (SPEC §8).
    #[serde(default)]
    pub plans: PlanSettings,
    /// Where it was read from (None: no file).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// Things worth a warning about the file itself (see [`permission_warning`]).
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// `[plans] approvals = N`: `plan apply` refuses until N distinct actors other than the
/// plan's creator have approved it (default 0: no approval needed).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSettings {
    #[serde(default)]
    pub approvals: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupSettings {
    /// The largest response body accepted from a destination, in bytes.
    #[serde(default = "default_body_limit")]
    pub max_body_bytes: u64,
    /// How often a long run checks each destination's controls again (SPEC §4: at least
    /// every 5 minutes; shorter is allowed).
    #[serde(default = "default_controls_every", deserialize_with = "de_duration")]
    pub controls_every: Duration,
}

impl Default for LookupSettings {
    fn default() -> Self {
        LookupSettings {
            max_body_bytes: DEFAULT_BODY_LIMIT,
            controls_every: MAX_CONTROLS_EVERY,
        }
    }
}

/// SPEC §4: a long run checks each destination's lookup again at least this often.
pub const MAX_CONTROLS_EVERY: Duration = Duration::from_secs(300);

fn default_body_limit() -> u64 {
    DEFAULT_BODY_LIMIT
}

fn default_controls_every() -> Duration {
    MAX_CONTROLS_EVERY
}

/// What a destination's "no match" looks like (SPEC §4 `not_found`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum NotFound {
    /// Only an empty list of matches means "no match"; a 404 is an unexpected answer (a
    /// wrong path in lookup_url answers 404 for everything).
    #[default]
    #[serde(rename = "empty")]
    Empty,
    /// A 404 means "no match" too: for resource-style URLs (`/articles/{ref}`).
    #[serde(rename = "empty_or_404")]
    EmptyOr404,
}

/// A destination as reconctl uses it: where and how to ask, and how to read the answer
/// (SPEC §4). Parsed from [`RawDestination`], which checks that the keys fit together: a
/// kind's own options beside the common ones, the way rclone's `type = s3` remotes do.
#[derive(Debug, Clone)]
pub struct Destination {
    /// A CMS reconctl knows, or the generic lookup.
    pub kind: Kind,
    /// The request: the generic lookup's URL template, or a kind's site.
    pub source: Source,
    /// The credentials the destination wants (secrets named, never held).
    pub auth: Auth,
    pub timeout: Duration,
    /// JSON pointer to the array of matches ("" = the body).
    pub results: String,
    /// JSON pointer inside a match.
    pub remote_id: String,
    /// Optional JSON pointer inside a match.
    pub content_hash: Option<String>,
    /// Optional pointer inside a match: the reference it carries (a renamed copy's too).
    pub reference: Option<String>,
    /// Optional pointer inside a match: its status, as the CMS names it.
    pub status: Option<String>,
    /// Statuses that mean someone removed the publication on purpose.
    pub removed: Vec<String>,
    /// How long after sending a "not found" is trusted.
    pub settle_after: Duration,
    /// Whether a 404 means "no match".
    pub not_found: NotFound,
    /// An external_ref this destination is known to hold: its positive control.
    pub canary_ref: Option<String>,
}

/// The CMSs reconctl knows by name (SPEC §4 `kind`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The generic lookup: `lookup_url` and pointers.
    #[default]
    Http,
    /// WordPress's REST API (`base_url`, an application password).
    WordPress,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Http => "http",
            Kind::WordPress => "wordpress",
        }
    }
}

/// Where a destination is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The generic lookup's URL template.
    Url(LookupUrl),
    /// WordPress: the site (no trailing slash), the REST collection (`posts`, `pages`, …).
    WordPress {
        base_url: String,
        collection: String,
        /// Statuses a plugin registers that the lookup asks for too (`pitch`, …).
        statuses: Vec<String>,
    },
}

/// How a destination is authenticated (SPEC §4 `auth`). Holds the names of the variables
/// with the secrets, never a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    None,
    /// `Authorization: Bearer <token>`.
    Bearer {
        token_env: String,
    },
    /// `Authorization: Basic base64(user:password)` (a WordPress application password).
    Basic {
        user_env: String,
        password_env: String,
    },
    /// `<name>: <token>`.
    Header {
        name: String,
        token_env: String,
    },
    /// `?<name>=<token>` added to the request, never to the URL that evidence records.
    Query {
        name: String,
        token_env: String,
    },
}

impl Auth {
    /// The scheme's name, as `auth` is written in the config.
    pub fn scheme(&self) -> &'static str {
        let scheme = match self {
            Auth::None => Scheme::None,
            Auth::Bearer { .. } => Scheme::Bearer,
            Auth::Basic { .. } => Scheme::Basic,
            Auth::Header { .. } => Scheme::Header,
            Auth::Query { .. } => Scheme::Query,
        };
        scheme.as_str()
    }

    /// The scheme as `destination list` and `doctor` show it: the header or parameter name
    /// and the variables, never a value.
    pub fn describe(&self) -> String {
        match self {
            Auth::None => "none".into(),
            Auth::Bearer { token_env } => format!("bearer (${token_env})"),
            Auth::Basic {
                user_env,
                password_env,
            } => format!("basic (${user_env}, ${password_env})"),
            Auth::Header { name, token_env } => format!("header {name} (${token_env})"),
            Auth::Query { name, token_env } => format!("query {name} (${token_env})"),
        }
    }
}

/// The schemes `auth` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Scheme {
    None,
    Bearer,
    Basic,
    Header,
    Query,
}

impl Scheme {
    /// The name `auth` takes in the config (what serde reads, lowercase).
    fn as_str(self) -> &'static str {
        match self {
            Scheme::None => "none",
            Scheme::Bearer => "bearer",
            Scheme::Basic => "basic",
            Scheme::Header => "header",
            Scheme::Query => "query",
        }
    }
}

/// A destination as written in the file; [`Destination`] is what it means.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDestination {
    #[serde(default)]
    kind: Kind,
    #[serde(default)]
    lookup_url: Option<LookupUrl>,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    collection: Option<String>,
    #[serde(default)]
    statuses: Option<Vec<String>>,
    #[serde(default)]
    auth: Option<Scheme>,
    #[serde(default)]
    token_env: Option<String>,
    #[serde(default)]
    user_env: Option<String>,
    #[serde(default)]
    password_env: Option<String>,
    #[serde(default)]
    auth_name: Option<String>,
    #[serde(default = "default_timeout", deserialize_with = "de_duration")]
    timeout: Duration,
    #[serde(default, deserialize_with = "de_opt_pointer")]
    results: Option<String>,
    #[serde(default, deserialize_with = "de_opt_pointer")]
    remote_id: Option<String>,
    #[serde(default, deserialize_with = "de_opt_pointer")]
    content_hash: Option<String>,
    #[serde(default, rename = "ref", deserialize_with = "de_opt_pointer")]
    reference: Option<String>,
    #[serde(default, deserialize_with = "de_opt_pointer")]
    status: Option<String>,
    #[serde(default)]
    removed: Option<Vec<String>>,
    #[serde(default = "default_settle", deserialize_with = "de_duration")]
    settle_after: Duration,
    #[serde(default)]
    not_found: NotFound,
    #[serde(default, deserialize_with = "de_canary_ref")]
    canary_ref: Option<String>,
}

impl<'de> Deserialize<'de> for Destination {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        RawDestination::deserialize(d)?
            .resolve()
            .map_err(serde::de::Error::custom)
    }
}

impl RawDestination {
    /// What the keys mean together; the error names the key (and never a value that could
    /// be a secret).
    fn resolve(self) -> std::result::Result<Destination, String> {
        for (key, var) in [
            ("token_env", &self.token_env),
            ("user_env", &self.user_env),
            ("password_env", &self.password_env),
        ] {
            if let Some(var) = var {
                if !is_variable_name(var) {
                    return Err(format!(
                        "{key} must name an environment variable (letters, digits and _), not hold the secret itself"
                    ));
                }
            }
        }
        let auth = self.auth()?;
        let (source, results, remote_id, reference, status, removed) = match self.kind {
            Kind::Http => {
                if self.base_url.is_some() || self.collection.is_some() || self.statuses.is_some() {
                    return Err(
                        "base_url, collection and statuses belong to a kind (kind = \"wordpress\"); the generic lookup takes lookup_url"
                            .into(),
                    );
                }
                let Some(url) = self.lookup_url else {
                    return Err(
                        "missing lookup_url (or set kind = \"wordpress\" with base_url)".into(),
                    );
                };
                (
                    Source::Url(url),
                    self.results.unwrap_or_default(),
                    self.remote_id.unwrap_or_else(|| "/id".into()),
                    self.reference,
                    self.status,
                    self.removed.unwrap_or_default(),
                )
            }
            Kind::WordPress => {
                for (key, set) in [
                    ("lookup_url", self.lookup_url.is_some()),
                    ("results", self.results.is_some()),
                    ("remote_id", self.remote_id.is_some()),
                    ("ref", self.reference.is_some()),
                    ("status", self.status.is_some()),
                ] {
                    if set {
                        return Err(format!(
                            "{key} is set by kind = \"wordpress\" (it asks the REST API of base_url); remove it"
                        ));
                    }
                }
                if self.not_found != NotFound::Empty {
                    return Err("not_found is set by kind = \"wordpress\" (an empty list is no match); remove it".into());
                }
                let Some(base) = self.base_url else {
                    return Err("kind = \"wordpress\" needs base_url, the site's address (https://blog.example)".into());
                };
                if auth == Auth::None {
                    return Err("kind = \"wordpress\" needs credentials that may read unpublished posts: set user_env and password_env (a WordPress application password of an editor; auth = \"basic\")".into());
                }
                let collection = self.collection.unwrap_or_else(|| "posts".into());
                if collection.is_empty()
                    || !collection
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                {
                    return Err("collection must be a REST base such as posts or pages".into());
                }
                let statuses = self.statuses.unwrap_or_default();
                if let Some(bad) = statuses.iter().find(|s| {
                    s.is_empty()
                        || !s
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                }) {
                    return Err(format!(
                        "statuses must be WordPress status names (letters, digits, - and _), not {}",
                        crate::escape::escape(&bad.chars().take(40).collect::<String>())
                    ));
                }
                (
                    Source::WordPress {
                        base_url: base_url(&base)?,
                        collection,
                        statuses,
                    },
                    String::new(),
                    "/id".into(),
                    Some("/slug".into()),
                    Some("/status".into()),
                    self.removed.unwrap_or_else(|| vec!["trash".into()]),
                )
            }
        };
        if self.timeout.is_zero() {
            return Err("timeout must be more than 0".into());
        }
        Ok(Destination {
            kind: self.kind,
            source,
            auth,
            timeout: self.timeout,
            results,
            remote_id,
            content_hash: self.content_hash,
            reference,
            status,
            removed,
            settle_after: self.settle_after,
            not_found: self.not_found,
            canary_ref: self.canary_ref,
        })
    }

    /// The scheme and the variables it needs: `auth` as written, else bearer when only
    /// `token_env` is set, basic when `user_env`/`password_env` are, none otherwise.
    fn auth(&self) -> std::result::Result<Auth, String> {
        let scheme = match self.auth {
            Some(s) => s,
            None if self.user_env.is_some() || self.password_env.is_some() => Scheme::Basic,
            None if self.token_env.is_some() => Scheme::Bearer,
            None => Scheme::None,
        };
        let need = |key: &str, v: &Option<String>| {
            v.clone()
                .ok_or_else(|| format!("auth = \"{}\" needs {key}", scheme.as_str()))
        };
        let unused = |keys: &[(&str, bool)]| -> std::result::Result<(), String> {
            match keys.iter().find(|(_, set)| *set) {
                Some((key, _)) => Err(format!(
                    "{key} is not used by auth = \"{}\"; remove it or choose the scheme that uses it",
                    scheme.as_str()
                )),
                None => Ok(()),
            }
        };
        let name = || -> std::result::Result<String, String> {
            let n = need(
                "auth_name (the header's or parameter's name)",
                &self.auth_name,
            )?;
            if n.is_empty()
                || !n
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            {
                return Err(
                    "auth_name must be a header or parameter name (letters, digits, - _ .)".into(),
                );
            }
            Ok(n)
        };
        Ok(match scheme {
            Scheme::None => {
                unused(&[
                    ("token_env", self.token_env.is_some()),
                    ("user_env", self.user_env.is_some()),
                    ("password_env", self.password_env.is_some()),
                    ("auth_name", self.auth_name.is_some()),
                ])?;
                Auth::None
            }
            Scheme::Bearer => {
                unused(&[
                    ("user_env", self.user_env.is_some()),
                    ("password_env", self.password_env.is_some()),
                    ("auth_name", self.auth_name.is_some()),
                ])?;
                Auth::Bearer {
                    token_env: need("token_env", &self.token_env)?,
                }
            }
            Scheme::Basic => {
                unused(&[
                    ("token_env", self.token_env.is_some()),
                    ("auth_name", self.auth_name.is_some()),
                ])?;
                Auth::Basic {
                    user_env: need("user_env", &self.user_env)?,
                    password_env: need("password_env", &self.password_env)?,
                }
            }
            Scheme::Header | Scheme::Query => {
                unused(&[
                    ("user_env", self.user_env.is_some()),
                    ("password_env", self.password_env.is_some()),
                ])?;
                let name = name()?;
                let token_env = need("token_env", &self.token_env)?;
                if scheme == Scheme::Header {
                    Auth::Header { name, token_env }
                } else {
                    Auth::Query { name, token_env }
                }
            }
        })
    }
}

/// A variable's name, not a value: someone who pastes the secret itself into `token_env`
/// must not see it echoed back (here, or in "variable … is not set" later).
fn is_variable_name(var: &str) -> bool {
    var.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && var.len() <= 128
}

/// A kind's site: http or https, no credentials, query or fragment; kept without a
/// trailing slash.
fn base_url(s: &str) -> std::result::Result<String, String> {
    let url = url::Url::parse(s).map_err(|e| format!("base_url is not a URL: {e}"))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!(
            "base_url must be http or https, not {}",
            url.scheme()
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "base_url must not carry credentials: set user_env and password_env (auth = \"basic\")"
                .into(),
        );
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("base_url is the site's address, without a query or fragment".into());
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

impl Destination {
    /// The URL asked for `external_ref`, as evidence records it: what the config (or the
    /// kind) wrote, with the reference in it; an `auth = "query"` secret is added only to
    /// the request, never here.
    pub fn url_for(&self, external_ref: &str) -> String {
        match &self.source {
            Source::Url(u) => u.for_ref(external_ref),
            Source::WordPress {
                base_url,
                collection,
                statuses,
            } => crate::remote::wordpress::lookup_url(
                base_url,
                collection,
                statuses,
                external_ref,
                self.content_hash.as_deref(),
            ),
        }
    }

    /// What it asks, for `doctor` and `destination list`: the template or the site.
    pub fn describe_source(&self) -> String {
        match &self.source {
            Source::Url(u) => u.0.clone(),
            Source::WordPress {
                base_url,
                collection,
                ..
            } => format!("{base_url} ({collection})"),
        }
    }
}

fn default_timeout() -> Duration {
    Duration::from_secs(5)
}

fn default_settle() -> Duration {
    Duration::from_secs(120)
}

/// How a reference is written into a URL: everything but RFC 3986's unreserved characters
/// is encoded, so `pub_…` stays readable.
pub const REF_ENCODE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A lookup URL template: http or https, with `{ref}` in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupUrl(pub String);

impl LookupUrl {
    /// The URL for one reference, `{ref}` replaced by its URL-encoded form.
    pub fn for_ref(&self, external_ref: &str) -> String {
        let encoded = percent_encoding::utf8_percent_encode(external_ref, REF_ENCODE).to_string();
        self.0.replace("{ref}", &encoded)
    }
}

impl<'de> Deserialize<'de> for LookupUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if !s.contains("{ref}") {
            return Err(serde::de::Error::custom(
                "lookup_url must contain {ref}, where the external_ref goes",
            ));
        }
        let probe = s.replace("{ref}", "x");
        let url = url::Url::parse(&probe)
            .map_err(|e| serde::de::Error::custom(format!("lookup_url is not a URL: {e}")))?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(serde::de::Error::custom(format!(
                "lookup_url must be http or https, not {}",
                url.scheme()
            )));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(serde::de::Error::custom(
                "lookup_url must not carry credentials: set auth (basic: user_env and password_env; bearer, header or query: token_env)",
            ));
        }
        if let Some(name) = credential_param(&s) {
            return Err(serde::de::Error::custom(format!(
                "lookup_url has a query parameter `{}` that looks like a credential: a secret belongs in the environment, named by auth (auth = \"query\", auth_name = \"{}\", token_env = \"…\")",
                crate::escape::escape(&name),
                crate::escape::escape(&name)
            )));
        }
        // A fragment is never sent: drop it, so evidence shows what was asked.
        let s = s.split_once('#').map_or(s.as_str(), |(u, _)| u).to_string();
        Ok(LookupUrl(s))
    }
}

/// A name that looks like a secret's, and where it counts.
struct SecretName {
    name: &'static str,
    /// As a whole word of a `lookup_url` query parameter's name (`api_key`: `api`, `key`).
    word: bool,
    /// Anywhere in such a parameter's name (`xtoken`).
    inside: bool,
    /// Assigned to in a config file (`token =`, `?api_key=`): the file warning looks for these
    /// in the raw text, where it cannot tell a reference parameter (`?key={ref}`) from a
    /// secret, so the short and ambiguous words are left to the `lookup_url` check.
    assigned: bool,
}

const fn secret(name: &'static str, word: bool, inside: bool, assigned: bool) -> SecretName {
    SecretName {
        name,
        word,
        inside,
        assigned,
    }
}

/// The one list of secret-looking names, for the `lookup_url` refusal ([`credential_param`])
/// and the world-readable file warning ([`secret_marker`], which names the first of these,
/// in this order, that the file assigns to).
const SECRET_NAMES: [SecretName; 26] = [
    // (name, word, inside, assigned)
    secret("password", true, false, true),
    secret("passwd", true, false, true),
    secret("secret", true, true, true),
    secret("api_key", false, false, true),
    secret("apikey", true, true, true),
    secret("api-key", false, false, true),
    secret("access_token", false, false, true),
    secret("access_key", false, false, true),
    secret("token", true, true, true),
    secret("auth", true, false, true),
    secret("passw", false, true, false),
    secret("signature", true, true, false),
    secret("key", true, false, false),
    secret("pwd", true, false, false),
    secret("pass", true, false, false),
    secret("sig", true, false, false),
    secret("jwt", true, false, false),
    secret("authorization", true, false, false),
    secret("credential", true, false, false),
    secret("credentials", true, false, false),
    secret("access", true, false, false),
    secret("session", true, false, false),
    secret("bearer", true, false, false),
    secret("hmac", true, false, false),
    secret("otp", true, false, false),
    secret("sid", true, false, false),
];

/// The name of a literal query parameter of the `lookup_url` template that looks like a
/// credential (`key`, `token`, `secret`, `password`, `signature`, …): SPEC §4 refuses it, since
/// the evidence URL keeps every parameter the config wrote. The reference's own parameter
/// (its value holds `{ref}`) and empty values are not literal secrets.
fn credential_param(template: &str) -> Option<String> {
    let (_, query) = template.split_once('?')?;
    let query = query.split_once('#').map_or(query, |(q, _)| q);
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if value.is_empty() || value.contains("{ref}") {
            return None;
        }
        let name = percent_encoding::percent_decode_str(name)
            .decode_utf8_lossy()
            .to_ascii_lowercase();
        let looks = SECRET_NAMES.iter().any(|n| {
            (n.word
                && name
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|w| w == n.name))
                || (n.inside && name.contains(n.name))
        });
        looks.then_some(name)
    })
}

fn de_duration<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Duration, D::Error> {
    let s = String::deserialize(d)?;
    s.parse::<HumanDuration>()
        .map(|h| h.0)
        .map_err(serde::de::Error::custom)
}

fn de_canary_ref<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    let s = String::deserialize(d)?;
    if crate::jobs::external_ref::is_external_ref(&s) {
        Ok(Some(s))
    } else {
        Err(serde::de::Error::custom(
            "canary_ref must be an external_ref (pub_ + 64 lowercase hex digits) the destination holds",
        ))
    }
}

fn check_pointer<E: serde::de::Error>(s: String) -> std::result::Result<String, E> {
    if s.is_empty() || s.starts_with('/') {
        Ok(s)
    } else {
        Err(E::custom(format!(
            "`{s}` is not a JSON pointer (\"\" or starting with /)"
        )))
    }
}

fn de_opt_pointer<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<String>, D::Error> {
    let s = String::deserialize(d)?;
    if s.is_empty() {
        return Ok(None);
    }
    check_pointer(s).map(Some)
}

impl Config {
    /// Parse a config file's text; errors name the key and the line.
    pub fn parse(text: &str, origin: &Path) -> Result<Config> {
        // toml's own Display quotes the offending line, which may hold a secret someone
        // pasted in; report the line number and the message only.
        let mut cfg: Config = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let message = redact_values(e.message().trim_end());
            Error::config(match line {
                Some(line) => format!(
                    "invalid config {}, line {line}: {message}",
                    origin.display()
                ),
                None => format!("invalid config {}: {message}", origin.display()),
            })
        })?;
        for name in cfg.destinations.keys() {
            if name.trim().is_empty() {
                return Err(Error::config(format!(
                    "invalid config {}: a destination needs a name",
                    origin.display()
                )));
            }
        }
        if cfg.lookup.controls_every.is_zero() || cfg.lookup.controls_every > MAX_CONTROLS_EVERY {
            return Err(Error::config(format!(
                "invalid config {}: lookup.controls_every must be more than 0 and at most 5m (SPEC §4: controls are checked again at least every 5 minutes)",
                origin.display()
            )));
        }
        if cfg.lookup.max_body_bytes == 0 {
            return Err(Error::config(format!(
                "invalid config {}: lookup.max_body_bytes must be more than 0",
                origin.display()
            )));
        }
        cfg.path = Some(origin.to_path_buf());
        Ok(cfg)
    }

    /// The explicit file (flag or `RECONCTL_CONFIG`), else the XDG one if it exists, else none.
    pub fn load(explicit: Option<&Path>) -> Result<Config> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => match xdg_path() {
                Some(p) if p.exists() => p,
                _ => return Ok(Config::default()),
            },
        };
        let text = read_regular(&path)?;
        let warning = permission_warning(&path, &text);
        match Config::parse(&text, &path) {
            Ok(mut cfg) => {
                cfg.warnings.extend(warning);
                Ok(cfg)
            }
            Err(e) => Err(match warning {
                Some(w) => e.hinted(w),
                None => e,
            }),
        }
    }

    pub fn destination(&self, name: &str) -> Option<&Destination> {
        self.destinations.get(name)
    }
}

/// A warning when a config file that seems to hold a secret (a `token`, `password`, `secret`
/// or API key, as a key or in a lookup_url's query) can be read by other users. Secrets
/// belong in the environment (`token_env`); the warning names the file and the kind of
/// secret, never its value.
pub fn permission_warning(path: &Path, text: &str) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        if mode & 0o077 == 0 {
            return None;
        }
        let what = secret_marker(text)?;
        Some(format!(
            "config {} holds what looks like a secret ({what}) and is readable by other users (mode {mode:o}): \
             keep secrets in the environment (token_env) and run `chmod 600 {}`",
            path.display(),
            path.display()
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = (path, text);
        None
    }
}

/// The name of the first secret-looking assignment in `text` (`token =`, `?api_key=`, …).
fn secret_marker(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    for name in SECRET_NAMES.iter().filter(|n| n.assigned).map(|n| n.name) {
        for (i, _) in lower.match_indices(name) {
            let before = lower[..i].chars().next_back();
            let after = lower[i + name.len()..].trim_start_matches([' ', '\t', '"', '\'']);
            let starts_word = before.map_or(true, |c| !c.is_ascii_alphanumeric() && c != '_');
            if starts_word && after.starts_with('=') {
                return Some(name);
            }
        }
    }
    None
}

/// Read a config file, which must be a regular file (or a link to one): a FIFO nobody writes
/// would block for ever, a device or a directory is not a config. The type is checked without
/// opening the file, and the file is then opened without blocking.
fn read_regular(path: &Path) -> Result<String> {
    let cannot = |e: std::io::Error| {
        Error::runtime(format!("cannot read config {}: {e}", path.display()))
            .hinted("pass --config FILE or set RECONCTL_CONFIG")
    };
    let bytes = match crate::files::read_regular(path, crate::files::SETTINGS_FILE_CAP) {
        Ok(bytes) => bytes,
        Err(crate::files::FileError::Io(e)) => return Err(cannot(e)),
        Err(e) => {
            return Err(Error::config(format!(
                "config {} is refused: {e}; nothing was read",
                path.display()
            ))
            .hinted("pass --config with the path of a TOML file"))
        }
    };
    String::from_utf8(bytes).map_err(|_| {
        cannot(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// A TOML/serde message without the values it quotes: serde says `invalid type: string
/// "…"` and ``unknown variant `…` `` for any field, a secret pasted into the wrong key
/// included. Names of keys stay (``unknown field `tokne` ``); what is left is escaped.
fn redact_values(message: &str) -> String {
    let mut out = message.to_string();
    for (marker, close) in [("string \"", '"'), ("variant `", '`'), ("value `", '`')] {
        let mut from = 0;
        while let Some(i) = out[from..].find(marker).map(|i| from + i + marker.len()) {
            let Some(len) = out[i..].find(close) else {
                out.truncate(i);
                out.push('…');
                break;
            };
            out.replace_range(i..i + len, "…");
            from = i + '…'.len_utf8() + 1;
        }
    }
    crate::escape::escape(&out)
}

fn xdg_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("reconctl").join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("test.toml"))
    }

    #[test]
    fn spec_example_parses() {
        let cfg = parse(
            r#"
[destinations.cms-a]
lookup_url = "http://127.0.0.1:8080/articles?external_ref={ref}"
token_env = "CMS_A_TOKEN"
timeout = "5s"
results = ""
remote_id = "/id"
content_hash = "/payload_hash"
settle_after = "2m"
"#,
        )
        .unwrap();
        let d = cfg.destination("cms-a").unwrap();
        assert_eq!(d.timeout, Duration::from_secs(5));
        assert_eq!(d.settle_after, Duration::from_secs(120));
        assert_eq!(d.content_hash.as_deref(), Some("/payload_hash"));
        assert_eq!(d.not_found, NotFound::Empty);
        assert_eq!(d.canary_ref, None);
        assert_eq!(
            d.url_for("pub_ab"),
            "http://127.0.0.1:8080/articles?external_ref=pub_ab"
        );
        assert_eq!(
            d.url_for("a b&c=d/é?#"),
            "http://127.0.0.1:8080/articles?external_ref=a%20b%26c%3Dd%2F%C3%A9%3F%23"
        );
    }

    #[test]
    fn not_found_and_canary_ref() {
        let cfg = parse(&format!(
            "[destinations.r]\nlookup_url = \"http://h/articles/{{ref}}\"\nnot_found = \"empty_or_404\"\ncanary_ref = \"pub_{}\"\n",
            "a".repeat(64)
        ))
        .unwrap();
        let d = cfg.destination("r").unwrap();
        assert_eq!(d.not_found, NotFound::EmptyOr404);
        assert_eq!(d.canary_ref, Some(format!("pub_{}", "a".repeat(64))));
        for bad in ["not_found = \"404\"\n", "canary_ref = \"art-17\"\n"] {
            let err = parse(&format!(
                "[destinations.r]\nlookup_url = \"http://h/{{ref}}\"\n{bad}"
            ))
            .unwrap_err();
            assert_eq!(err.exit_code(), 2, "{bad}");
            assert!(err.message().contains("line 3"), "{}", err.message());
        }
        let err = parse("[lookup]\ncontrols_every = \"10m\"\n").unwrap_err();
        assert!(err.message().contains("at most 5m"), "{}", err.message());
    }

    #[test]
    fn errors_name_key_and_line() {
        let err = parse("[destinations.x]\nlookup_url = \"http://h/{ref}\"\ntimeout = \"soon\"\n")
            .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.message().contains("line 3"), "{}", err.message());
        assert!(err.message().contains("soon"), "{}", err.message());
        let err = parse("[destinations.x]\nlookup_url = \"ftp://h/{ref}\"\n").unwrap_err();
        assert!(err.message().contains("http or https"), "{}", err.message());
        let err = parse("[destinations.x]\nlookup_url = \"http://h/\"\n").unwrap_err();
        assert!(err.message().contains("{ref}"), "{}", err.message());
        let err = parse("[destinations.x]\nlookup_url = \"http://h/{ref}\"\ntoken = \"s3cret\"\n")
            .unwrap_err();
        assert!(err.message().contains("token"), "{}", err.message());
        assert!(!err.message().contains("s3cret"), "{}", err.message());
        let err = parse(
            "[destinations.x]\nlookup_url = \"http://h/{ref}\"\ntoken_env = \"eyJhbGciOi.s3cret-token\"\n",
        )
        .unwrap_err();
        assert!(err.message().contains("token_env"), "{}", err.message());
        assert!(!err.message().contains("s3cret"), "{}", err.message());
    }

    #[test]
    fn one_list_of_secret_names_serves_the_refusal_and_the_warning() {
        let refused = |query: &str| credential_param(&format!("http://h/{{ref}}?{query}"));
        // Words of the parameter's name, or a telling part anywhere in it.
        for (query, name) in [
            ("api_key=S3cret", "api_key"),
            ("Sig=abc", "sig"),
            ("x-session-id=1", "x-session-id"),
            ("mytoken=1", "mytoken"),
            ("passwort=1", "passwort"),
            ("%6Bey=1", "key"),
        ] {
            assert_eq!(refused(query).as_deref(), Some(name), "{query}");
        }
        // The reference's own parameter, an empty value, and plain names pass.
        for query in ["key={ref}", "token=", "page=2", "keys=1", "monkey=1"] {
            assert_eq!(refused(query), None, "{query}");
        }
        // The file warning names the first assigned name in the list's order; the short,
        // ambiguous words (a `?key={ref}` lookup) do not draw it.
        assert_eq!(
            secret_marker("token = \"x\"\npassword=\"y\""),
            Some("password")
        );
        assert_eq!(
            secret_marker("u = \"http://h/?api_key=x\""),
            Some("api_key")
        );
        assert_eq!(secret_marker("\"Access_Token\" = 1"), Some("access_token"));
        for text in [
            "token_env = \"CMS_A_TOKEN\"",
            "my_token = 1",
            "lookup_url = \"http://h/a?key={ref}&sig=1\"",
        ] {
            assert_eq!(secret_marker(text), None, "{text}");
        }
    }
}
