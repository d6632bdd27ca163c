//! A destination's credentials, read from the environment once per run (SPEC §4 `auth`).
//!
//! The config names variables, never values; here they are read and turned into what the
//! request carries: an `Authorization` header (bearer, basic), a header of the CMS's own
//! (`X-Api-Key`), or a query parameter added to the request only. Every secret is also kept
//! as text to scrub from anything the destination's answer or a transport error might echo
//! back, so it never reaches a message or an event.

use base64::Engine;
use reqwest::header::{HeaderName, HeaderValue, AUTHORIZATION};

use crate::config::{Auth, Destination};
use crate::error::{Error, Result};

/// What a request carries for one destination.
#[derive(Clone, Default)]
pub struct Credentials {
    header: Option<(HeaderName, HeaderValue)>,
    query: Option<(String, String)>,
    /// Every secret value, to scrub from texts (never printed, not even by `Debug`).
    secrets: Vec<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("header", &self.header.as_ref().map(|(n, _)| n))
            .field("query", &self.query.as_ref().map(|(n, _)| n))
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// Read the variables `dest`'s auth names. A variable that is unset or empty is exit 2
    /// naming it (and the key that names it), never a value.
    pub fn read(name: &str, dest: &Destination) -> Result<Credentials> {
        let var = |key: &str, var: &str| -> Result<String> {
            match std::env::var(var) {
                Ok(v) if !v.trim().is_empty() => Ok(v.trim().to_string()),
                Ok(_) | Err(std::env::VarError::NotPresent) => Err(Error::config(format!(
                    "destination {name}: the environment variable {var} (its {key}) is not set"
                ))
                .hinted(format!(
                    "export {var} with the destination's {}, or change auth in [destinations.{name}]",
                    what(key)
                ))),
                Err(std::env::VarError::NotUnicode(_)) => Err(Error::config(format!(
                    "destination {name}: the environment variable {var} (its {key}) is not valid UTF-8"
                ))),
            }
        };
        let header = |value: String, var: &str| -> Result<HeaderValue> {
            let mut v = HeaderValue::from_str(&value).map_err(|_| {
                Error::config(format!(
                    "destination {name}: the secret in {var} contains characters an HTTP header cannot carry"
                ))
            })?;
            v.set_sensitive(true);
            Ok(v)
        };
        Ok(match &dest.auth {
            Auth::None => Credentials::default(),
            Auth::Bearer { token_env } => {
                let token = var("token_env", token_env)?;
                Credentials {
                    header: Some((AUTHORIZATION, header(format!("Bearer {token}"), token_env)?)),
                    query: None,
                    secrets: vec![token],
                }
            }
            Auth::Basic {
                user_env,
                password_env,
            } => {
                let user = var("user_env", user_env)?;
                let password = var("password_env", password_env)?;
                let encoded =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                Credentials {
                    header: Some((
                        AUTHORIZATION,
                        header(format!("Basic {encoded}"), password_env)?,
                    )),
                    query: None,
                    // WordPress shows application passwords in groups of four with spaces,
                    // and accepts them with or without: scrub both forms.
                    secrets: vec![password.replace(' ', ""), password, encoded],
                }
            }
            Auth::Header {
                name: hname,
                token_env,
            } => {
                let token = var("token_env", token_env)?;
                let hname = HeaderName::from_bytes(hname.as_bytes()).map_err(|_| {
                    Error::config(format!(
                        "destination {name}: auth_name {} is not an HTTP header name",
                        crate::escape::escape(hname)
                    ))
                })?;
                Credentials {
                    header: Some((hname, header(token.clone(), token_env)?)),
                    query: None,
                    secrets: vec![token],
                }
            }
            Auth::Query {
                name: pname,
                token_env,
            } => {
                let token = var("token_env", token_env)?;
                Credentials {
                    header: None,
                    query: Some((pname.clone(), token.clone())),
                    secrets: vec![token],
                }
            }
        })
    }

    /// `req` with the credentials on it.
    pub fn apply(&self, mut req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if let Some((n, v)) = &self.header {
            req = req.header(n.clone(), v.clone());
        }
        if let Some((n, v)) = &self.query {
            req = req.query(&[(n, v)]);
        }
        req
    }

    /// Whether a match's fields hold a secret (a destination that echoes the request).
    pub fn exposes(&self, m: &super::Match) -> bool {
        [
            Some(&m.remote_id),
            m.content_hash.as_ref(),
            m.status.as_ref(),
            m.reference.as_ref(),
        ]
        .into_iter()
        .flatten()
        .any(|field| self.scrub(field) != *field)
    }

    /// `text` with every secret (and its URL-encoded form) replaced by `REDACTED`: for
    /// anything a destination or the transport says, which may echo the request.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in self.secrets.iter().filter(|s| s.len() >= 3) {
            let encoded =
                percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC)
                    .to_string();
            out = out.replace(s.as_str(), "REDACTED");
            out = out.replace(&encoded, "REDACTED");
            out = out.replace(&encoded.to_ascii_lowercase(), "REDACTED");
            let plus = url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            out = out.replace(&plus, "REDACTED");
        }
        out
    }
}

fn what(key: &str) -> &'static str {
    match key {
        "user_env" => "user name",
        "password_env" => "password (for WordPress: an application password)",
        _ => "API token",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn dest(extra: &str) -> Destination {
        Config::parse(
            &format!("[destinations.d]\nlookup_url = \"http://h/{{ref}}\"\n{extra}"),
            std::path::Path::new("t.toml"),
        )
        .unwrap()
        .destination("d")
        .unwrap()
        .clone()
    }

    #[test]
    fn a_missing_variable_names_it_and_exits_2() {
        let d = dest("user_env = \"RC_AUTH_T_USER\"\npassword_env = \"RC_AUTH_T_NONE\"\n");
        std::env::set_var("RC_AUTH_T_USER", "editor");
        let err = Credentials::read("d", &d).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.message().contains("RC_AUTH_T_NONE"),
            "{}",
            err.message()
        );
        assert!(err.message().contains("password_env"), "{}", err.message());
    }

    #[test]
    fn scrub_removes_every_form_of_the_secret() {
        let d = dest("auth = \"query\"\nauth_name = \"api_key\"\ntoken_env = \"RC_AUTH_T_Q\"\n");
        std::env::set_var("RC_AUTH_T_Q", "s3cr3t/+ key");
        let c = Credentials::read("d", &d).unwrap();
        let text =
            "GET http://h/x?api_key=s3cr3t%2F%2B%20key and s3cr3t/+ key and s3cr3t%2F%2B+key";
        let scrubbed = c.scrub(text);
        assert!(!scrubbed.contains("s3cr3t"), "{scrubbed}");
        assert!(!format!("{c:?}").contains("s3cr3t"));
    }
}
