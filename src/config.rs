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
    /// Where it was read from (None: no file).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// Things worth a warning about the file itself (see [`permission_warning`]).
    #[serde(skip)]
    pub warnings: Vec<String>,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Destination {
    /// With `{ref}` where the URL-encoded external_ref goes.
    pub lookup_url: LookupUrl,
    /// The environment variable holding the bearer token, if any.
    #[serde(default)]
    pub token_env: Option<String>,
    #[serde(default = "default_timeout", deserialize_with = "de_duration")]
    pub timeout: Duration,
    /// JSON pointer to the array of matches ("" = the body).
    #[serde(default, deserialize_with = "de_pointer")]
    pub results: String,
    /// JSON pointer inside a match.
    #[serde(default = "default_remote_id", deserialize_with = "de_pointer")]
    pub remote_id: String,
    /// Optional JSON pointer inside a match.
    #[serde(default, deserialize_with = "de_opt_pointer")]
    pub content_hash: Option<String>,
    /// How long after sending a "not found" is trusted.
    #[serde(default = "default_settle", deserialize_with = "de_duration")]
    pub settle_after: Duration,
    /// Whether a 404 means "no match".
    #[serde(default)]
    pub not_found: NotFound,
    /// An external_ref this destination is known to hold: its positive control.
    #[serde(default, deserialize_with = "de_canary_ref")]
    pub canary_ref: Option<String>,
}

fn default_timeout() -> Duration {
    Duration::from_secs(5)
}

fn default_settle() -> Duration {
    Duration::from_secs(120)
}

fn default_remote_id() -> String {
    "/id".into()
}

/// A lookup URL template: http or https, with `{ref}` in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupUrl(pub String);

impl LookupUrl {
    /// The URL for one reference, `{ref}` replaced by its URL-encoded form.
    pub fn for_ref(&self, external_ref: &str) -> String {
        // Everything but RFC 3986's unreserved characters, so `pub_…` stays readable.
        const REF: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'-')
            .remove(b'.')
            .remove(b'_')
            .remove(b'~');
        let encoded = percent_encoding::utf8_percent_encode(external_ref, REF).to_string();
        self.0.replace("{ref}", &encoded)
    }

    /// The query parameter whose value is `{ref}` (`external_ref` in
    /// `…/articles?external_ref={ref}`), if the reference travels in the query.
    pub fn ref_param(&self) -> Option<String> {
        let (_, query) = self.0.split_once('?')?;
        let query = query.split_once('#').map_or(query, |(q, _)| q);
        query.split('&').find_map(|pair| {
            let (name, value) = pair.split_once('=')?;
            value.contains("{ref}").then(|| name.to_string())
        })
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
                "lookup_url must not carry credentials; use token_env",
            ));
        }
        Ok(LookupUrl(s))
    }
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

fn de_pointer<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    check_pointer(String::deserialize(d)?)
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
        for (name, dest) in &cfg.destinations {
            if name.trim().is_empty() {
                return Err(Error::config(format!(
                    "invalid config {}: a destination needs a name",
                    origin.display()
                )));
            }
            if let Some(var) = &dest.token_env {
                // A name, not a value: someone who pastes the token itself here must not see it
                // echoed back in this message (or in "variable … is not set" later).
                let is_name = var
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && var.len() <= 128;
                if !is_name {
                    return Err(Error::config(format!(
                        "invalid config {}: destinations.{name}.token_env must name an environment variable (letters, digits and _), not hold the token itself",
                        origin.display()
                    )));
                }
            }
            if dest.timeout.is_zero() {
                return Err(Error::config(format!(
                    "invalid config {}: destinations.{name}.timeout must be more than 0",
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
    const NAMES: [&str; 10] = [
        "password",
        "passwd",
        "secret",
        "api_key",
        "apikey",
        "api-key",
        "access_token",
        "access_key",
        "token",
        "auth",
    ];
    let lower = text.to_ascii_lowercase();
    for name in NAMES {
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
    crate::ui::escape(&out)
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
            d.lookup_url.for_ref("pub_ab"),
            "http://127.0.0.1:8080/articles?external_ref=pub_ab"
        );
        assert_eq!(
            d.lookup_url.for_ref("a b&c=d/é?#"),
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
}
