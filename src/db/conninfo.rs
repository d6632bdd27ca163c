//! Connection settings, resolved exactly as libpq resolves them, so that the settings an
//! operator's `psql` uses reach the same server, database and user here (SPEC §3).
//!
//! libpq's order (`conninfo_add_defaults` and `pqConnectOptions2` in fe-connect.c), each step
//! filling only what the earlier ones left unset:
//!
//! 1. the connection string, a URL or `key=value` pairs (libpq docs, "Connection Strings");
//! 2. the service file entry named by `service=` or `PGSERVICE` ("The Connection Service
//!    File"). libpq reads it *before* the environment, so a service's `port=` beats `PGPORT`;
//! 3. the `PG*` environment variables ("Environment Variables"); one set to the empty string
//!    counts as unset here (SPEC §3), where libpq would take the empty value;
//! 4. libpq's compiled-in defaults ("Parameter Key Words"): port 5432, the Unix socket
//!    directory, the OS user from the password database, database = user, sslmode prefer;
//! 5. per host, a password from the password file when none was given ("The Password File").
//!
//! Passwords never leave this module in a message: [`Password`]'s `Debug` hides them.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{passfile, service};
use crate::error::{Code, Error, Result};

/// Where a setting came from, for messages that say what to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The URL or `key=value` string (`--database-url` / `DATABASE_URL`).
    String,
    /// An entry of the connection service file.
    Service(String),
    /// A libpq environment variable.
    Env(&'static str),
    /// libpq's default.
    Default,
}

impl Origin {
    /// "from PGDATABASE", "from the connection string", …
    pub fn phrase(&self) -> String {
        match self {
            Origin::String => "from the connection string".into(),
            Origin::Service(name) => format!("from service \"{name}\""),
            Origin::Env(var) => format!("from {var}"),
            Origin::Default => "libpq's default".into(),
        }
    }
}

/// How reconctl treats a libpq keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Support {
    Yes,
    /// Accepted and without effect here (GSSAPI names, client_encoding: always UTF8).
    Ignored,
    /// Refused when set: silently ignoring it would weaken the connection (a CRL, a
    /// required peer, …). The text says why.
    No(&'static str),
}

struct Keyword {
    name: &'static str,
    env: Option<&'static str>,
    default: Option<&'static str>,
    support: Support,
}

const fn kw(
    name: &'static str,
    env: Option<&'static str>,
    default: Option<&'static str>,
    support: Support,
) -> Keyword {
    Keyword {
        name,
        env,
        default,
        support,
    }
}

/// libpq's keywords with their variables and compiled-in defaults (`PQconninfoOptions` in
/// fe-connect.c; libpq docs "Parameter Key Words" and "Environment Variables").
const KEYWORDS: &[Keyword] = &[
    kw("service", Some("PGSERVICE"), None, Support::Yes),
    kw("user", Some("PGUSER"), None, Support::Yes),
    kw("password", Some("PGPASSWORD"), None, Support::Yes),
    kw("passfile", Some("PGPASSFILE"), None, Support::Yes),
    kw(
        "channel_binding",
        Some("PGCHANNELBINDING"),
        Some("prefer"),
        Support::Yes,
    ),
    kw(
        "connect_timeout",
        Some("PGCONNECT_TIMEOUT"),
        None,
        Support::Yes,
    ),
    kw("dbname", Some("PGDATABASE"), None, Support::Yes),
    kw("host", Some("PGHOST"), None, Support::Yes),
    kw("hostaddr", Some("PGHOSTADDR"), None, Support::Yes),
    kw("port", Some("PGPORT"), Some("5432"), Support::Yes),
    kw(
        "client_encoding",
        Some("PGCLIENTENCODING"),
        None,
        Support::Ignored,
    ),
    kw("options", Some("PGOPTIONS"), None, Support::Yes),
    kw("application_name", Some("PGAPPNAME"), None, Support::Yes),
    kw("fallback_application_name", None, None, Support::Ignored),
    kw("keepalives", None, None, Support::Yes),
    kw("keepalives_idle", None, None, Support::Yes),
    kw("keepalives_interval", None, None, Support::Yes),
    kw("keepalives_count", None, None, Support::Yes),
    kw("tcp_user_timeout", None, None, Support::Yes),
    kw("sslmode", Some("PGSSLMODE"), Some("prefer"), Support::Yes),
    kw(
        "sslnegotiation",
        Some("PGSSLNEGOTIATION"),
        Some("postgres"),
        Support::Yes,
    ),
    kw(
        "sslcompression",
        Some("PGSSLCOMPRESSION"),
        None,
        Support::Ignored,
    ),
    kw("sslcert", Some("PGSSLCERT"), None, Support::Yes),
    kw("sslkey", Some("PGSSLKEY"), None, Support::Yes),
    kw(
        "sslcertmode",
        Some("PGSSLCERTMODE"),
        Some("allow"),
        Support::Yes,
    ),
    kw(
        "sslpassword",
        None,
        None,
        Support::No("encrypted client keys cannot be read; decrypt the key (openssl pkey -in KEY -out KEY.plain, mode 0600)"),
    ),
    kw("sslrootcert", Some("PGSSLROOTCERT"), None, Support::Yes),
    kw(
        "sslcrl",
        Some("PGSSLCRL"),
        None,
        Support::No("certificate revocation lists are not checked"),
    ),
    kw(
        "sslcrldir",
        Some("PGSSLCRLDIR"),
        None,
        Support::No("certificate revocation lists are not checked"),
    ),
    kw("sslsni", Some("PGSSLSNI"), Some("1"), Support::Yes),
    kw(
        "requirepeer",
        Some("PGREQUIREPEER"),
        None,
        Support::No("the peer of a Unix socket is not checked"),
    ),
    kw(
        "require_auth",
        Some("PGREQUIREAUTH"),
        None,
        Support::No("the authentication method cannot be restricted"),
    ),
    kw(
        "ssl_min_protocol_version",
        Some("PGSSLMINPROTOCOLVERSION"),
        Some("TLSv1.2"),
        Support::Yes,
    ),
    kw(
        "ssl_max_protocol_version",
        Some("PGSSLMAXPROTOCOLVERSION"),
        None,
        Support::Yes,
    ),
    kw("gssencmode", Some("PGGSSENCMODE"), Some("disable"), Support::Yes),
    kw("krbsrvname", Some("PGKRBSRVNAME"), None, Support::Ignored),
    kw("gsslib", Some("PGGSSLIB"), None, Support::Ignored),
    kw(
        "gssdelegation",
        Some("PGGSSDELEGATION"),
        None,
        Support::Ignored,
    ),
    kw(
        "replication",
        None,
        None,
        Support::No("replication connections are not what reconctl needs"),
    ),
    kw(
        "target_session_attrs",
        Some("PGTARGETSESSIONATTRS"),
        Some("any"),
        Support::Yes,
    ),
    kw(
        "load_balance_hosts",
        Some("PGLOADBALANCEHOSTS"),
        Some("disable"),
        Support::Yes,
    ),
];

fn keyword(name: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.name == name)
}

/// libpq's compiled-in socket directory on Debian (`DEFAULT_PGSOCKET_DIR`): a password file
/// line for `localhost` matches a connection through it.
pub const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";

/// What libpq would read from the process: its variables, the home directory, the OS user.
/// Tests build one by hand.
#[derive(Debug, Clone)]
pub struct Environment {
    vars: HashMap<String, String>,
    /// `$HOME`, else the password database's home directory (libpq's `pqGetHomeDirectory`).
    pub home: Option<PathBuf>,
    /// The effective user's name in the password database (libpq's `pg_fe_getauthname`).
    pub os_user: Option<String>,
    /// Where the default Unix socket is looked for, in order.
    pub socket_dirs: Vec<PathBuf>,
    /// The system service file's directory when `PGSYSCONFDIR` is unset (Debian's).
    pub sysconfdir: PathBuf,
}

impl Environment {
    /// This process's environment.
    pub fn process() -> Environment {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, v)| k.starts_with("PG") && !v.is_empty())
            .collect();
        Environment {
            vars,
            home: home_dir(),
            os_user: os_user(),
            socket_dirs: vec![PathBuf::from(DEFAULT_SOCKET_DIR), PathBuf::from("/tmp")],
            sysconfdir: PathBuf::from("/etc/postgresql-common"),
        }
    }

    /// Nothing set: no variables, no home, no OS user (for tests).
    pub fn empty() -> Environment {
        Environment {
            vars: HashMap::new(),
            home: None,
            os_user: None,
            socket_dirs: vec![PathBuf::from(DEFAULT_SOCKET_DIR), PathBuf::from("/tmp")],
            sysconfdir: PathBuf::from("/nonexistent"),
        }
    }

    /// Set a variable (empty = unset, as in [`Environment::process`]).
    pub fn with_var(mut self, name: &str, value: &str) -> Environment {
        if value.is_empty() {
            self.vars.remove(name);
        } else {
            self.vars.insert(name.to_string(), value.to_string());
        }
        self
    }

    /// The OS user (the password database's name for this process, in real use).
    pub fn with_os_user(mut self, user: &str) -> Environment {
        self.os_user = Some(user.to_string());
        self
    }

    /// The home directory (for ~/.pgpass, ~/.pg_service.conf, ~/.postgresql/).
    pub fn with_home(mut self, home: &Path) -> Environment {
        self.home = Some(home.to_path_buf());
        self
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// Whether any libpq variable that says where to connect is set.
    pub fn names_a_server(&self) -> bool {
        [
            "PGHOST",
            "PGHOSTADDR",
            "PGPORT",
            "PGDATABASE",
            "PGUSER",
            "PGSERVICE",
        ]
        .iter()
        .any(|v| self.var(v).is_some())
    }
}

/// `$HOME`, else the password database (libpq's `pqGetHomeDirectory`).
fn home_dir() -> Option<PathBuf> {
    // std's home_dir does exactly that on Unix: HOME when set and not empty, else getpwuid_r.
    #[allow(deprecated)]
    std::env::home_dir().filter(|h| !h.as_os_str().is_empty())
}

/// The effective user's name from the password database, never `$USER` (libpq's
/// `pg_fe_getauthname` uses `geteuid()`; so does whoami).
pub fn os_user() -> Option<String> {
    whoami::username().ok().filter(|u| !u.is_empty())
}

#[derive(Debug, Clone)]
struct Setting {
    text: String,
    origin: Origin,
}

/// Keyword → value, as libpq's options array holds them while it fills in defaults.
#[derive(Debug, Clone, Default)]
pub struct Params {
    vals: BTreeMap<&'static str, Setting>,
}

impl Params {
    fn get(&self, key: &str) -> Option<&str> {
        self.vals.get(key).map(|s| s.text.as_str())
    }

    /// The value unless it is empty (libpq treats an empty host, port, user, … as unset).
    fn nonempty(&self, key: &str) -> Option<&str> {
        self.get(key).filter(|v| !v.is_empty())
    }

    fn origin(&self, key: &str) -> Origin {
        self.vals
            .get(key)
            .map_or(Origin::Default, |s| s.origin.clone())
    }

    fn setting(&self, key: &str) -> Option<(&str, &Origin)> {
        self.vals.get(key).map(|s| (s.text.as_str(), &s.origin))
    }

    fn is_set(&self, key: &str) -> bool {
        self.vals.contains_key(key)
    }

    /// Store a value from the connection string, overriding an earlier one (libpq's
    /// `conninfo_storeval`, with its `requiressl` compatibility). `place` says where the
    /// option is (`option 3`), for the error of an unknown one: the name as
    /// typed is never quoted, it may be the tail of a password with an unquoted space.
    fn store(&mut self, key: &str, value: String, place: &str) -> Result<()> {
        let (key, value) = match key {
            "requiressl" => (
                "sslmode",
                if value.starts_with('1') {
                    "require".to_string()
                } else {
                    "prefer".to_string()
                },
            ),
            _ => (key, value),
        };
        let Some(k) = keyword(key) else {
            return Err(bad_string(format!(
                "{place} is not a connection option{}",
                suggestion(key)
            )));
        };
        self.vals.insert(
            k.name,
            Setting {
                text: value,
                origin: Origin::String,
            },
        );
        Ok(())
    }

    /// Fill in an unset keyword (service file, environment, default).
    fn fill(&mut self, key: &'static str, value: &str, origin: Origin) {
        self.vals.entry(key).or_insert(Setting {
            text: value.to_string(),
            origin,
        });
    }

    /// `service=` from the connection string (the only values set when services apply).
    pub(super) fn service_name(&self) -> Option<&str> {
        self.nonempty("service")
    }

    /// Service file entries: only known keywords, never another `service`.
    pub(super) fn fill_from_service(
        &mut self,
        key: &str,
        value: &str,
        service: &str,
    ) -> std::result::Result<(), ()> {
        match keyword(key) {
            Some(k) if k.name != "service" => {
                self.fill(k.name, value, Origin::Service(service.to_string()));
                Ok(())
            }
            _ => Err(()),
        }
    }
}

/// ` (did you mean "host"?)` when `typed` is a keyword with a typo; the suggestion is a name
/// from libpq's list, never the text typed.
fn suggestion(typed: &str) -> String {
    let typed = typed.to_ascii_lowercase();
    if typed.chars().count() < 3 {
        return String::new();
    }
    KEYWORDS
        .iter()
        .map(|k| (edit_distance(&typed, k.name), k.name))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map_or_else(String::new, |(_, name)| {
            format!(" (did you mean \"{name}\"?)")
        })
}

/// Levenshtein distance, for [`suggestion`].
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A value for an error message: quoted and escaped when it came from a variable or a service
/// file (never a secret there: the password's own errors never show it), but never when it
/// came from the connection string, where a password with an unquoted space or an unencoded
/// `/` can shift into any other option.
fn shown(value: &str, origin: &Origin) -> String {
    match origin {
        Origin::String => "the value".to_string(),
        _ => {
            let v: String = value.chars().take(64).collect();
            format!("\"{}\"", crate::escape::escape(&v))
        }
    }
}

fn bad_string(msg: impl std::fmt::Display) -> Error {
    Error::new(
        Code::ConnectionString,
        format!("invalid connection string: {msg}"),
    )
    .hinted("expected postgresql://user@host:port/dbname?option=value or `host=… port=… dbname=…`, as for psql; keep the password in ~/.pgpass or PGPASSWORD")
}

/// An invalid value, named by where it came from; the value itself only when it cannot be a
/// secret.
fn bad_value(key: &str, origin: &Origin, msg: impl std::fmt::Display) -> Error {
    let text = match origin {
        Origin::Env(var) => format!("invalid {var}: {msg}"),
        Origin::Service(name) => format!("invalid option \"{key}\" in service \"{name}\": {msg}"),
        Origin::String | Origin::Default => {
            format!("invalid connection string: option \"{key}\": {msg}")
        }
    };
    Error::new(Code::ConnectionString, text)
}

// ---------------------------------------------------------------------------------------
// Parsing (libpq "Connection Strings": conninfo_parse and conninfo_uri_parse_options)
// ---------------------------------------------------------------------------------------

/// A URL (`postgresql://` or `postgres://`) or `key=value` pairs.
pub fn parse(s: &str) -> Result<Params> {
    let mut p = Params::default();
    if let Some(rest) = s
        .strip_prefix("postgresql://")
        .or_else(|| s.strip_prefix("postgres://"))
    {
        parse_uri(rest, &mut p)?;
    } else {
        for (n, (k, v)) in parse_key_values(s)?.into_iter().enumerate() {
            p.store(&k, v, &format!("option {}", n + 1))?;
        }
    }
    Ok(p)
}

/// `key = value` pairs separated by whitespace; values may be single-quoted; a backslash
/// escapes the next character (libpq's `conninfo_parse`). Errors name an option by its place
/// (`option 3`), never by its text, nor by a character position (which would tell the length
/// of a password before it).
fn parse_key_values(s: &str) -> Result<Vec<(String, String)>> {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let n = out.len() + 1;
        let mut key = String::new();
        while i < chars.len() && chars[i] != '=' && !chars[i].is_whitespace() {
            key.push(chars[i]);
            i += 1;
        }
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i >= chars.len() || chars[i] != '=' {
            return Err(bad_string(missing_equals(s, n)));
        }
        i += 1;
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < chars.len() && chars[i] == '\'' {
            i += 1;
            loop {
                if i >= chars.len() {
                    let name = keyword(&key).map_or_else(
                        || format!("option {n}"),
                        |k| format!("\"{}\" (option {n})", k.name),
                    );
                    return Err(bad_string(format!(
                        "the quoted value of {name} has no closing quote"
                    )));
                }
                match chars[i] {
                    '\\' => {
                        i += 1;
                        if i < chars.len() {
                            value.push(chars[i]);
                            i += 1;
                        }
                    }
                    '\'' => {
                        i += 1;
                        break;
                    }
                    c => {
                        value.push(c);
                        i += 1;
                    }
                }
            }
        } else {
            while i < chars.len() && !chars[i].is_whitespace() {
                if chars[i] == '\\' {
                    i += 1;
                    if i < chars.len() {
                        value.push(chars[i]);
                        i += 1;
                    }
                } else {
                    value.push(chars[i]);
                    i += 1;
                }
            }
        }
        out.push((key, value));
    }
    Ok(out)
}

/// Why a word of a `key=value` string has no `=`: most often it is not a `key=value` string
/// at all (a URL with a mistyped scheme, or without one), or a value with an unquoted space
/// before it.
fn missing_equals(s: &str, n: usize) -> String {
    if n == 1 && s.contains("://") {
        return "not a URL reconctl knows: a connection URL starts with postgresql:// or postgres://".into();
    }
    if n == 1 && s.contains('@') {
        return "neither key=value pairs nor a URL: a connection URL starts with postgresql:// (postgresql://user@host:port/dbname)".into();
    }
    format!("option {n} has no \"=\"; a value with a space must be quoted (password='a b')")
}

/// `[user[:password]@][host[:port][,...]][/dbname][?param=value&...]`, every part
/// percent-decoded (libpq's `conninfo_uri_parse_options`). Messages name the part, never
/// quote the URL (it may hold a password).
fn parse_uri(rest: &str, p: &mut Params) -> Result<()> {
    let mut rest = rest;
    // Credentials: an '@' before any '/'.
    if let Some(i) = rest.find(['@', '/']) {
        if rest.as_bytes()[i] == b'@' {
            let creds = &rest[..i];
            let (user, password) = match creds.split_once(':') {
                Some((u, pw)) => (u, Some(pw)),
                None => (creds, None),
            };
            if !user.is_empty() {
                p.store("user", decode(user, "user name")?, "")?;
            }
            if let Some(pw) = password.filter(|pw| !pw.is_empty()) {
                p.store("password", decode(pw, "password")?, "")?;
            }
            rest = &rest[i + 1..];
        }
    }
    // Hosts and ports, comma-separated; IPv6 addresses in brackets.
    let mut hosts = Vec::new();
    let mut ports = Vec::new();
    let mut any_port = false;
    let terminator;
    loop {
        let host;
        if let Some(after) = rest.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return Err(bad_string(
                    "no matching \"]\" for an IPv6 host address in the URL",
                ));
            };
            if end == 0 {
                return Err(bad_string("an IPv6 host address in the URL is empty"));
            }
            host = &after[..end];
            rest = &after[end + 1..];
            if let Some(c) = rest.chars().next() {
                if !matches!(c, ':' | '/' | '?' | ',') {
                    return Err(bad_string(
                        "an unexpected character after an IPv6 host address in the URL (expected \":\" or \"/\")",
                    ));
                }
            }
        } else {
            let end = rest.find([':', '/', '?', ',']).unwrap_or(rest.len());
            host = &rest[..end];
            rest = &rest[end..];
        }
        hosts.push(host);
        let mut port = "";
        if let Some(after) = rest.strip_prefix(':') {
            let end = after.find(['/', '?', ',']).unwrap_or(after.len());
            port = &after[..end];
            any_port = true;
            rest = &after[end..];
        }
        ports.push(port);
        match rest.chars().next() {
            Some(',') => rest = &rest[1..],
            other => {
                terminator = other;
                break;
            }
        }
    }
    let host_list = hosts.join(",");
    if !host_list.is_empty() {
        p.store("host", decode(&host_list, "host")?, "")?;
    }
    if any_port {
        p.store("port", decode(&ports.join(","), "port")?, "")?;
    }
    let mut query = None;
    match terminator {
        Some('/') => {
            let after = &rest[1..];
            let (db, q) = match after.split_once('?') {
                Some((db, q)) => (db, Some(q)),
                None => (after, None),
            };
            // An empty dbname is left unset, so PGDATABASE still applies (as libpq).
            if !db.is_empty() {
                p.store("dbname", decode(db, "database name")?, "")?;
            }
            query = q;
        }
        Some('?') => query = Some(&rest[1..]),
        _ => {}
    }
    if let Some(query) = query {
        for (n, pair) in query.split('&').enumerate() {
            if pair.is_empty() {
                continue;
            }
            let place = format!("URL query parameter {}", n + 1);
            let mut parts = pair.splitn(3, '=');
            let key = parts.next().unwrap_or_default();
            let (Some(value), None) = (parts.next(), parts.next()) else {
                let what = if pair.contains('=') {
                    "extra"
                } else {
                    "missing"
                };
                return Err(bad_string(format!("{what} \"=\" in {place}")));
            };
            let key = decode(key, &format!("name of {place}"))?;
            let value = decode(value, &format!("value of {place}"))?;
            // JDBC's ssl=true, as libpq accepts it.
            if key == "ssl" && value == "true" {
                p.store("sslmode", "require".into(), "")?;
            } else {
                p.store(&key, value, &place)?;
            }
        }
    }
    Ok(())
}

/// Percent-decoding; `what` names the part in an error (never the text itself).
fn decode(s: &str, what: &str) -> Result<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(0) => {
                    return Err(bad_string(format!(
                        "%00 is not allowed in the URL's {what}"
                    )))
                }
                Some(b) => out.push(b),
                None => {
                    return Err(bad_string(format!(
                        "invalid percent-encoding in the URL's {what}"
                    )))
                }
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out)
        .map_err(|_| bad_string(format!("the URL's {what} is not UTF-8 once decoded")))
}

// ---------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------

/// libpq's sslmode, all six.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    /// Plaintext first; TLS only if the server refuses that.
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    pub fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelBinding {
    Disable,
    Prefer,
    Require,
}

/// libpq's target_session_attrs (the six of PostgreSQL 14+).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionAttrs {
    Any,
    ReadWrite,
    ReadOnly,
    Primary,
    Standby,
    PreferStandby,
}

/// TLS protocol versions reconctl can speak (rustls: 1.2 and 1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    V1_2,
    V1_3,
}

/// A password and where it came from (for "password retrieved from file …").
#[derive(Clone, PartialEq, Eq)]
pub struct Password {
    pub secret: String,
    /// The password file it was read from, if it was.
    pub file: Option<PathBuf>,
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(file) => write!(f, "Password(from {})", file.display()),
            None => f.write_str("Password(given)"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostKind {
    Tcp(String),
    /// A directory holding the server's socket (`.s.PGSQL.<port>`).
    Unix(PathBuf),
}

/// One server to try, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    pub kind: HostKind,
    /// `hostaddr`: the address to dial, the name above still used for TLS and `.pgpass`.
    pub hostaddr: Option<IpAddr>,
    pub port: u16,
    pub password: Option<Password>,
    /// No host was given: libpq's default socket directory.
    pub defaulted: bool,
}

impl Host {
    /// `db.example:5432`, `[::1]:5501`, `/var/run/postgresql:5432`.
    pub fn label(&self) -> String {
        match &self.kind {
            HostKind::Tcp(name) if name.contains(':') => format!("[{name}]:{}", self.port),
            HostKind::Tcp(name) => format!("{name}:{}", self.port),
            HostKind::Unix(dir) => format!("{}:{}", dir.display(), self.port),
        }
    }

    pub fn is_unix(&self) -> bool {
        matches!(self.kind, HostKind::Unix(_)) && self.hostaddr.is_none()
    }
}

/// Everything a connection needs, resolved once.
#[derive(Debug, Clone)]
pub struct Settings {
    pub hosts: Vec<Host>,
    pub user: String,
    pub user_origin: Origin,
    pub dbname: String,
    pub dbname_origin: Origin,
    pub options: Option<String>,
    pub application_name: Option<String>,
    /// `connect_timeout` when given and positive (libpq: below 2 counts as 2).
    pub connect_timeout: Option<Duration>,
    pub sslmode: SslMode,
    pub sslmode_origin: Origin,
    /// `sslrootcert` as given: a file, or `system`.
    pub sslrootcert: Option<String>,
    pub sslcert: Option<String>,
    pub sslkey: Option<String>,
    /// `sslcertmode=disable`: never send a client certificate.
    pub send_client_cert: bool,
    pub sslsni: bool,
    pub ssl_direct: bool,
    pub tls_min: TlsVersion,
    pub tls_max: TlsVersion,
    pub channel_binding: ChannelBinding,
    pub target_session_attrs: SessionAttrs,
    pub load_balance_hosts: bool,
    pub keepalives: bool,
    pub keepalives_idle: Option<Duration>,
    pub keepalives_interval: Option<Duration>,
    pub keepalives_count: Option<u32>,
    pub tcp_user_timeout: Option<Duration>,
    /// The password file consulted (given or `~/.pgpass`), whether or not it exists.
    pub passfile: Option<PathBuf>,
    /// Home directory, for `~/.postgresql/…`.
    pub home: Option<PathBuf>,
    /// A connection string was given (`--database-url` / `DATABASE_URL`).
    pub string_given: bool,
    /// Something besides libpq's defaults said where to connect (a string, a variable, a
    /// service): the "set DATABASE_URL" hint is only for when nothing did.
    pub configured: bool,
    /// libpq's warnings (an insecure password file), to be shown once.
    pub warnings: Vec<String>,
}

/// The whole of libpq's precedence: string, service file, environment, defaults, password file.
pub fn resolve(conninfo: Option<&str>, env: &Environment) -> Result<Settings> {
    let mut p = match conninfo {
        Some(s) => parse(s)?,
        None => Params::default(),
    };
    apply_service(&mut p, env)?;
    let service_used = p.is_set("service") || env.var("PGSERVICE").is_some();
    apply_env(&mut p, env);
    apply_defaults(&mut p);
    let mut settings = settle(&p, env)?;
    settings.string_given = conninfo.is_some();
    settings.configured = settings.string_given || service_used || env.names_a_server();
    Ok(settings)
}

/// libpq "Environment Variables": each fills its keyword when still unset.
/// Fill `p` from the named service's entry, if a service is named (`service=` in the string,
/// else `PGSERVICE`); see `service` for where it is looked up.
fn apply_service(p: &mut Params, env: &Environment) -> Result<()> {
    let from_string = p.service_name().map(str::to_string);
    let Some(name) = from_string.or_else(|| env.var("PGSERVICE").map(str::to_string)) else {
        return Ok(());
    };
    let user = match env.var("PGSERVICEFILE") {
        Some(f) => Some(PathBuf::from(f)),
        None => env
            .home
            .as_ref()
            .map(|h| h.join(".pg_service.conf"))
            .filter(|f| f.exists()),
    };
    let system = env
        .var("PGSYSCONFDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.sysconfdir.clone())
        .join("pg_service.conf");
    for e in service::entries(&name, &service::Files { user, system })? {
        p.fill_from_service(&e.key, &e.value, &name)
            .map_err(|()| e.syntax_error())?;
    }
    Ok(())
}

fn apply_env(p: &mut Params, env: &Environment) {
    for k in KEYWORDS {
        if let Some(var) = k.env {
            if let Some(v) = env.var(var) {
                p.fill(k.name, v, Origin::Env(var));
            }
        }
    }
    // The deprecated PGREQUIRESSL: "1…" means sslmode=require (PGSSLMODE wins).
    if env.var("PGREQUIRESSL").is_some_and(|v| v.starts_with('1')) {
        p.fill("sslmode", "require", Origin::Env("PGREQUIRESSL"));
    }
}

/// libpq "Parameter Key Words": compiled-in defaults; `sslrootcert=system` strengthens an
/// sslmode nobody set to verify-full.
fn apply_defaults(p: &mut Params) {
    let sslmode_unset = !p.is_set("sslmode");
    for k in KEYWORDS {
        if let Some(d) = k.default {
            p.fill(k.name, d, Origin::Default);
        }
    }
    if sslmode_unset && p.get("sslrootcert") == Some("system") {
        p.vals.insert(
            "sslmode",
            Setting {
                text: "verify-full".into(),
                origin: Origin::Default,
            },
        );
    }
}

fn split_list(s: &str) -> Vec<&str> {
    s.split(',').collect()
}

/// libpq's `pqParseIntParam`: an integer, surrounding whitespace allowed.
fn int_param(key: &str, value: &str, origin: &Origin) -> Result<i64> {
    value.trim().parse::<i64>().map_err(|_| {
        bad_value(
            key,
            origin,
            format!("{} is not an integer", shown(value, origin)),
        )
    })
}

fn seconds(p: &Params, key: &str) -> Result<Option<Duration>> {
    match p.setting(key) {
        Some((v, origin)) if !v.is_empty() => {
            let n = int_param(key, v, origin)?;
            Ok((n > 0).then(|| Duration::from_secs(n as u64)))
        }
        _ => Ok(None),
    }
}

fn choice<T: Copy>(p: &Params, key: &str, options: &[(&str, T)]) -> Result<T> {
    let (value, origin) = p.setting(key).unwrap_or(("", &Origin::Default));
    options
        .iter()
        .find(|(name, _)| *name == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            bad_value(
                key,
                origin,
                format!(
                    "{} is not one of {}",
                    shown(value, origin),
                    names.join(", ")
                ),
            )
        })
}

fn tls_version(p: &Params, key: &str) -> Result<Option<TlsVersion>> {
    let Some((v, origin)) = p.setting(key).filter(|(v, _)| !v.is_empty()) else {
        return Ok(None);
    };
    match v.to_ascii_lowercase().as_str() {
        "tlsv1" | "tlsv1.1" if key == "ssl_min_protocol_version" => Ok(Some(TlsVersion::V1_2)),
        "tlsv1.2" => Ok(Some(TlsVersion::V1_2)),
        "tlsv1.3" => Ok(Some(TlsVersion::V1_3)),
        "tlsv1" | "tlsv1.1" => Err(bad_value(
            key,
            origin,
            format!("{}: reconctl speaks TLS 1.2 and 1.3 only", shown(v, origin)),
        )),
        _ => Err(bad_value(
            key,
            origin,
            format!(
                "{} is not one of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3",
                shown(v, origin)
            ),
        )),
    }
}

/// Typed settings from the filled-in keywords (libpq's `pqConnectOptions2`): one step a
/// decision, in a fixed order, which decides the bad keyword reported when there are several.
fn settle(p: &Params, env: &Environment) -> Result<Settings> {
    refuse_unsupported(p)?;
    let (user, user_origin) = user(p, env)?;
    let (dbname, dbname_origin) = dbname(p, &user);
    let (mut hosts, port_texts) = host_list(p, env)?;
    let passfile = passfile_path(p, env);
    let warnings = passwords(
        p,
        passfile.as_deref(),
        &mut hosts,
        &port_texts,
        &dbname,
        &user,
    );
    let connect_timeout = connect_timeout(p)?;
    let tls = tls(p)?;
    let server = server_choice(p)?;
    // TLS's, but read after the server's choices: the order decides which error is reported.
    let sslsni = flag(p, "sslsni")?;
    let keepalives = keepalives(p)?;

    Ok(Settings {
        hosts,
        user,
        user_origin,
        dbname,
        dbname_origin,
        options: p.nonempty("options").map(str::to_string),
        application_name: p.nonempty("application_name").map(str::to_string),
        connect_timeout,
        sslmode: tls.sslmode,
        sslmode_origin: p.origin("sslmode"),
        sslrootcert: tls.sslrootcert,
        sslcert: p.nonempty("sslcert").map(str::to_string),
        sslkey: p.nonempty("sslkey").map(str::to_string),
        send_client_cert: tls.send_client_cert,
        sslsni,
        ssl_direct: tls.ssl_direct,
        tls_min: tls.min,
        tls_max: tls.max,
        channel_binding: server.channel_binding,
        target_session_attrs: server.target_session_attrs,
        load_balance_hosts: server.load_balance_hosts,
        keepalives: keepalives.on,
        keepalives_idle: keepalives.idle,
        keepalives_interval: keepalives.interval,
        keepalives_count: keepalives.count,
        tcp_user_timeout: keepalives.tcp_user_timeout,
        passfile,
        home: env.home.clone(),
        string_given: false,
        configured: false,
        warnings,
    })
}

/// Refuses a keyword reconctl does not support when it is set to anything, naming why.
fn refuse_unsupported(p: &Params) -> Result<()> {
    for k in KEYWORDS {
        if let (Support::No(why), Some((v, origin))) = (k.support, p.setting(k.name)) {
            if !v.is_empty() {
                return Err(
                    bad_value(k.name, origin, format!("not supported by reconctl: {why}"))
                        .hinted("unset it for reconctl, or use a connection string without it"),
                );
            }
        }
    }
    Ok(())
}

/// The user: given, else the OS user from the password database.
fn user(p: &Params, env: &Environment) -> Result<(String, Origin)> {
    match p.nonempty("user") {
        Some(u) => Ok((u.to_string(), p.origin("user"))),
        None => match &env.os_user {
            Some(u) => Ok((u.clone(), Origin::Default)),
            None => Err(Error::new(
                Code::ConnectionString,
                "no database user given, and the OS user is not in the password database",
            )
            .hinted("set PGUSER, or user= in the connection string")),
        },
    }
}

/// The database: given, else the user's name.
fn dbname(p: &Params, user: &str) -> (String, Origin) {
    match p.nonempty("dbname") {
        Some(d) => (d.to_string(), p.origin("dbname")),
        None => (user.to_string(), Origin::Default),
    }
}

/// The servers to try, in order: the `host` and `hostaddr` lists (as many of each, when both
/// are given) and `port` (one for all, or one each) matched up as libpq does; no host at all
/// is the default socket directory. Beside them, each host's port as written, which the
/// password file matches.
fn host_list<'p>(p: &'p Params, env: &Environment) -> Result<(Vec<Host>, Vec<&'p str>)> {
    let hosts_given = p.nonempty("host").map(split_list).unwrap_or_default();
    let addrs_given = p.nonempty("hostaddr").map(split_list).unwrap_or_default();
    let count = if !addrs_given.is_empty() {
        if !hosts_given.is_empty() && hosts_given.len() != addrs_given.len() {
            return Err(bad_value(
                "host",
                &p.origin("host"),
                format!(
                    "{} host names for {} hostaddr values",
                    hosts_given.len(),
                    addrs_given.len()
                ),
            ));
        }
        addrs_given.len()
    } else {
        hosts_given.len().max(1)
    };
    let ports_given: Vec<&str> = p.nonempty("port").map(split_list).unwrap_or_default();
    if ports_given.len() > 1 && ports_given.len() != count {
        return Err(bad_value(
            "port",
            &p.origin("port"),
            format!("{} port numbers for {count} hosts", ports_given.len()),
        ));
    }
    let port_origin = p.origin("port");
    let mut hosts = Vec::with_capacity(count);
    let mut port_texts = Vec::with_capacity(count);
    for i in 0..count {
        let port_text = match ports_given.len() {
            0 => "",
            1 => ports_given[0],
            _ => ports_given[i],
        };
        let port = port_number(port_text, &port_origin)?;
        let addr = match addrs_given.get(i).filter(|a| !a.is_empty()) {
            Some(a) => Some(hostaddr(p, a)?),
            None => None,
        };
        let name = hosts_given.get(i).copied().filter(|h| !h.is_empty());
        let (kind, defaulted) = match (name, addr) {
            (Some(h), _) if h.starts_with('/') && addr.is_none() => {
                (HostKind::Unix(PathBuf::from(h)), false)
            }
            (Some(h), _) => (HostKind::Tcp(h.to_string()), false),
            (None, Some(a)) => (HostKind::Tcp(a.to_string()), false),
            (None, None) => (HostKind::Unix(default_socket_dir(env, port)), true),
        };
        hosts.push(Host {
            kind,
            hostaddr: addr,
            port,
            password: None,
            defaulted,
        });
        port_texts.push(port_text);
    }
    Ok((hosts, port_texts))
}

/// A host's port as written: 5432 when empty, else a number from 1 to 65535.
fn port_number(text: &str, origin: &Origin) -> Result<u16> {
    if text.trim().is_empty() {
        return Ok(5432);
    }
    let n = int_param("port", text, origin)?;
    u16::try_from(n).ok().filter(|p| *p > 0).ok_or_else(|| {
        bad_value(
            "port",
            origin,
            format!("invalid port number: {}", shown(text, origin)),
        )
    })
}

/// One `hostaddr` value: a numeric IP address, never a name to look up.
fn hostaddr(p: &Params, text: &str) -> Result<IpAddr> {
    text.parse::<IpAddr>().map_err(|_| {
        bad_value(
            "hostaddr",
            &p.origin("hostaddr"),
            format!(
                "{} is not a numeric IP address",
                shown(text, &p.origin("hostaddr"))
            ),
        )
    })
}

/// The password file to consult: `passfile`, else `~/.pgpass` (whether or not it exists).
fn passfile_path(p: &Params, env: &Environment) -> Option<PathBuf> {
    p.nonempty("passfile")
        .map(PathBuf::from)
        .or_else(|| env.home.as_ref().map(|h| h.join(".pgpass")))
}

/// Each host's password: the one given, else its line of the password file, looked up per
/// host and port (5432 when none was written). Returns the file's first warning (an
/// insecure file), to be shown once.
fn passwords(
    p: &Params,
    passfile: Option<&Path>,
    hosts: &mut [Host],
    port_texts: &[&str],
    dbname: &str,
    user: &str,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(pw) = p.nonempty("password") {
        for h in hosts {
            h.password = Some(Password {
                secret: pw.to_string(),
                file: None,
            });
        }
        return warnings;
    }
    let Some(file) = passfile else {
        return warnings;
    };
    for (h, port_text) in hosts.iter_mut().zip(port_texts) {
        let port_text = if port_text.is_empty() {
            "5432"
        } else {
            port_text
        };
        match passfile::lookup(file, &passfile_host(h), port_text, dbname, user) {
            passfile::Lookup::Found(secret) => {
                h.password = Some(Password {
                    secret,
                    file: Some(file.to_path_buf()),
                })
            }
            passfile::Lookup::Warning(w) => {
                if warnings.is_empty() {
                    warnings.push(w);
                }
            }
            passfile::Lookup::None => {}
        }
    }
    warnings
}

/// `connect_timeout`: libpq's 0 or less means "wait for ever", which no reconctl command may
/// do, so the default applies; below 2 s counts as 2 s.
fn connect_timeout(p: &Params) -> Result<Option<Duration>> {
    match p.setting("connect_timeout") {
        Some((v, origin)) if !v.trim().is_empty() => {
            let n = int_param("connect_timeout", v, origin)?;
            Ok((n > 0).then(|| Duration::from_secs(n.max(2) as u64)))
        }
        _ => Ok(None),
    }
}

/// What TLS asks for (see [`tls`]).
struct Tls {
    sslmode: SslMode,
    sslrootcert: Option<String>,
    send_client_cert: bool,
    ssl_direct: bool,
    min: TlsVersion,
    max: TlsVersion,
}

/// TLS: `sslmode`, and what must agree with it (`sslrootcert=system` wants verify-full,
/// `sslnegotiation=direct` a TLS that is required); whether a client certificate is sent
/// (`sslcertmode`, never required); GSSAPI encryption, which may not be required; and the
/// protocol range (TLS 1.2 to 1.3 unless narrowed).
fn tls(p: &Params) -> Result<Tls> {
    let sslmode = choice(
        p,
        "sslmode",
        &[
            ("disable", SslMode::Disable),
            ("allow", SslMode::Allow),
            ("prefer", SslMode::Prefer),
            ("require", SslMode::Require),
            ("verify-ca", SslMode::VerifyCa),
            ("verify-full", SslMode::VerifyFull),
        ],
    )?;
    let sslrootcert = p.nonempty("sslrootcert").map(str::to_string);
    if sslrootcert.as_deref() == Some("system") && sslmode != SslMode::VerifyFull {
        return Err(bad_value(
            "sslmode",
            &p.origin("sslmode"),
            format!(
                "weak sslmode \"{}\" may not be used with sslrootcert=system (use \"verify-full\")",
                sslmode.as_str()
            ),
        ));
    }
    let send_client_cert = match choice(
        p,
        "sslcertmode",
        &[("disable", 0), ("allow", 1), ("require", 2)],
    )? {
        0 => false,
        1 => true,
        _ => {
            return Err(bad_value(
                "sslcertmode",
                &p.origin("sslcertmode"),
                "\"require\" is not supported by reconctl; use \"allow\"",
            ))
        }
    };
    if choice(
        p,
        "gssencmode",
        &[("disable", false), ("prefer", false), ("require", true)],
    )? {
        return Err(bad_value(
            "gssencmode",
            &p.origin("gssencmode"),
            "\"require\" is not supported: reconctl has no GSSAPI encryption",
        ));
    }
    let ssl_direct = choice(
        p,
        "sslnegotiation",
        &[("postgres", false), ("direct", true)],
    )?;
    if ssl_direct
        && !matches!(
            sslmode,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull
        )
    {
        return Err(bad_value(
            "sslnegotiation",
            &p.origin("sslnegotiation"),
            format!(
                "weak sslmode \"{}\" may not be used with sslnegotiation=direct (use \"require\", \"verify-ca\", or \"verify-full\")",
                sslmode.as_str()
            ),
        ));
    }
    let min = tls_version(p, "ssl_min_protocol_version")?.unwrap_or(TlsVersion::V1_2);
    let max = tls_version(p, "ssl_max_protocol_version")?.unwrap_or(TlsVersion::V1_3);
    if min > max {
        return Err(bad_value(
            "ssl_max_protocol_version",
            &p.origin("ssl_max_protocol_version"),
            "invalid SSL protocol version range",
        ));
    }
    Ok(Tls {
        sslmode,
        sslrootcert,
        send_client_cert,
        ssl_direct,
        min,
        max,
    })
}

/// Which server of the hosts to settle on and how it proves itself (see [`server_choice`]).
struct ServerChoice {
    channel_binding: ChannelBinding,
    target_session_attrs: SessionAttrs,
    load_balance_hosts: bool,
}

/// Which server to settle on and how it proves itself: `channel_binding`,
/// `target_session_attrs` (which kind of server will do) and `load_balance_hosts` (whether the
/// hosts are tried in a random order).
fn server_choice(p: &Params) -> Result<ServerChoice> {
    let channel_binding = choice(
        p,
        "channel_binding",
        &[
            ("disable", ChannelBinding::Disable),
            ("prefer", ChannelBinding::Prefer),
            ("require", ChannelBinding::Require),
        ],
    )?;
    let target_session_attrs = choice(
        p,
        "target_session_attrs",
        &[
            ("any", SessionAttrs::Any),
            ("read-write", SessionAttrs::ReadWrite),
            ("read-only", SessionAttrs::ReadOnly),
            ("primary", SessionAttrs::Primary),
            ("standby", SessionAttrs::Standby),
            ("prefer-standby", SessionAttrs::PreferStandby),
        ],
    )?;
    let load_balance_hosts = choice(
        p,
        "load_balance_hosts",
        &[("disable", false), ("random", true)],
    )?;
    Ok(ServerChoice {
        channel_binding,
        target_session_attrs,
        load_balance_hosts,
    })
}

/// An on/off keyword written as an integer (`sslsni`, `keepalives`): on unless set to 0.
fn flag(p: &Params, key: &str) -> Result<bool> {
    match p.setting(key) {
        Some((v, origin)) if !v.is_empty() => Ok(int_param(key, v, origin)? != 0),
        _ => Ok(true),
    }
}

/// TCP keepalives and the user timeout (see [`keepalives`]).
struct Keepalives {
    on: bool,
    idle: Option<Duration>,
    interval: Option<Duration>,
    count: Option<u32>,
    tcp_user_timeout: Option<Duration>,
}

/// TCP keepalives (on unless `keepalives=0`) and `tcp_user_timeout` (milliseconds); a count,
/// time or timeout of 0 or less leaves the system's.
fn keepalives(p: &Params) -> Result<Keepalives> {
    let on = flag(p, "keepalives")?;
    let count = match p.setting("keepalives_count") {
        Some((v, origin)) if !v.is_empty() => {
            let n = int_param("keepalives_count", v, origin)?;
            (n > 0).then_some(n as u32)
        }
        _ => None,
    };
    let tcp_user_timeout = match p.setting("tcp_user_timeout") {
        Some((v, origin)) if !v.is_empty() => {
            let n = int_param("tcp_user_timeout", v, origin)?;
            (n > 0).then(|| Duration::from_millis(n as u64))
        }
        _ => None,
    };
    let idle = seconds(p, "keepalives_idle")?;
    let interval = seconds(p, "keepalives_interval")?;
    Ok(Keepalives {
        on,
        idle,
        interval,
        count,
        tcp_user_timeout,
    })
}

/// The host name a password file line must match: `localhost` for the default socket
/// (libpq compares with its compiled-in socket directory; a defaulted one counts too).
pub fn passfile_host(h: &Host) -> String {
    match &h.kind {
        HostKind::Unix(dir) if h.defaulted || dir == Path::new(DEFAULT_SOCKET_DIR) => {
            "localhost".to_string()
        }
        HostKind::Unix(dir) => dir.to_string_lossy().into_owned(),
        HostKind::Tcp(name) => name.clone(),
    }
}

/// libpq's default host: the socket directory. Of the two usual ones, the one where this
/// port's socket is; else Debian's (so the error names the place psql would look).
fn default_socket_dir(env: &Environment, port: u16) -> PathBuf {
    env.socket_dirs
        .iter()
        .find(|d| socket_exists(d, port))
        .or(env.socket_dirs.first())
        .cloned()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SOCKET_DIR))
}

fn socket_exists(dir: &Path, port: u16) -> bool {
    dir.join(format!(".s.PGSQL.{port}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment::empty().with_os_user("osuser")
    }

    fn resolved(s: Option<&str>, env: &Environment) -> Settings {
        resolve(s, env).unwrap()
    }

    fn tcp(s: &Settings) -> Vec<(String, u16)> {
        s.hosts
            .iter()
            .map(|h| match &h.kind {
                HostKind::Tcp(n) => (n.clone(), h.port),
                HostKind::Unix(d) => (d.display().to_string(), h.port),
            })
            .collect()
    }

    #[test]
    fn the_environment_fills_what_a_url_leaves_out() {
        // libpq "Environment Variables": PGPORT applies to a URL without a port.
        let e = env()
            .with_var("PGPORT", "5501")
            .with_var("PGAPPNAME", "app")
            .with_var("PGCONNECT_TIMEOUT", "7")
            .with_var("PGTARGETSESSIONATTRS", "read-write")
            .with_var("PGOPTIONS", "-c work_mem=8MB");
        let s = resolved(Some("postgresql://u@127.0.0.1/db"), &e);
        assert_eq!(tcp(&s), vec![("127.0.0.1".into(), 5501)]);
        assert_eq!(s.user, "u");
        assert_eq!(s.dbname, "db");
        assert_eq!(s.application_name.as_deref(), Some("app"));
        assert_eq!(s.connect_timeout, Some(Duration::from_secs(7)));
        assert_eq!(s.target_session_attrs, SessionAttrs::ReadWrite);
        assert_eq!(s.options.as_deref(), Some("-c work_mem=8MB"));
        // The string wins over the variable.
        let s = resolved(Some("postgresql://u@127.0.0.1:6000/db"), &e);
        assert_eq!(tcp(&s), vec![("127.0.0.1".into(), 6000)]);
        // PGHOST fills a URL without a host.
        let e = env().with_var("PGHOST", "/run/pg");
        let s = resolved(Some("postgresql:///db"), &e);
        assert_eq!(s.hosts[0].kind, HostKind::Unix("/run/pg".into()));
    }

    #[test]
    fn defaults_are_the_socket_port_5432_the_os_user_and_database_user() {
        // libpq "Parameter Key Words": host, port, user, dbname defaults.
        let s = resolved(None, &env());
        assert_eq!(s.hosts.len(), 1);
        assert!(s.hosts[0].defaulted);
        assert_eq!(s.hosts[0].port, 5432);
        assert!(matches!(s.hosts[0].kind, HostKind::Unix(_)));
        assert_eq!(s.user, "osuser");
        assert_eq!(s.dbname, "osuser");
        assert_eq!(s.dbname_origin, Origin::Default);
        assert_eq!(s.sslmode, SslMode::Prefer);
        assert_eq!(s.channel_binding, ChannelBinding::Prefer);
        assert!(!s.configured);
        // dbname defaults to the user given, wherever it came from.
        let s = resolved(None, &env().with_var("PGUSER", "alice"));
        assert_eq!((s.user.as_str(), s.dbname.as_str()), ("alice", "alice"));
        assert!(s.configured);
    }

    #[test]
    fn empty_variables_count_as_unset() {
        let e = env().with_var("PGPORT", "").with_var("PGUSER", "");
        let s = resolved(Some("host=h"), &e);
        assert_eq!(tcp(&s), vec![("h".into(), 5432)]);
        assert_eq!(s.user, "osuser");
    }

    #[test]
    fn unix_socket_forms() {
        let s = resolved(Some("host=/tmp/sock port=5433 dbname=x"), &env());
        assert_eq!(s.hosts[0].kind, HostKind::Unix("/tmp/sock".into()));
        assert_eq!(s.hosts[0].label(), "/tmp/sock:5433");
        let s = resolved(Some("postgresql:///x?host=/tmp/sock"), &env());
        assert_eq!(s.hosts[0].kind, HostKind::Unix("/tmp/sock".into()));
        assert_eq!(s.dbname, "x");
        let s = resolved(Some("postgresql://%2Ftmp%2Fsock/x"), &env());
        assert_eq!(s.hosts[0].kind, HostKind::Unix("/tmp/sock".into()));
    }

    #[test]
    fn urls_decode_every_part_and_keep_ipv6_brackets_out_of_the_host() {
        let s = resolved(
            Some("postgres://al%40ice:p%3Ass@[::1]:5501,db2/my%20db?application_name=a%26b"),
            &env(),
        );
        assert_eq!(s.user, "al@ice");
        assert_eq!(s.hosts[0].password.as_ref().unwrap().secret, "p:ss");
        assert_eq!(s.hosts[0].label(), "[::1]:5501");
        assert_eq!(s.hosts[1].label(), "db2:5432");
        assert_eq!(s.dbname, "my db");
        assert_eq!(s.application_name.as_deref(), Some("a&b"));
        // An empty database in the URL leaves PGDATABASE in charge (libpq).
        let s = resolved(
            Some("postgresql://h/"),
            &env().with_var("PGDATABASE", "fromenv"),
        );
        assert_eq!(s.dbname, "fromenv");
        assert_eq!(s.dbname_origin, Origin::Env("PGDATABASE"));
    }

    #[test]
    fn key_values_quote_and_escape_like_libpq() {
        let s = resolved(
            Some(r"host = h  dbname='my \'db\'' user=a\ b application_name='x y'"),
            &env(),
        );
        assert_eq!(s.dbname, "my 'db'");
        assert_eq!(s.user, "a b");
        assert_eq!(s.application_name.as_deref(), Some("x y"));
    }

    #[test]
    fn bad_strings_name_the_option_never_the_password() {
        for (s, needle) in [
            ("postgres://u:hunter2@h:notaport/db", "\"port\""),
            ("postgres://u:hunter2@h/db?sslmode=bogus", "\"sslmode\""),
            (
                "postgres://u:hunter2@h/db?nosuch=1",
                "URL query parameter 1",
            ),
            ("postgres://u:hunter2@h/db?hots=x", "did you mean \"host\""),
            ("host=h password='hunter2", "\"password\""),
            ("host=h password=hunter2 bogus", "option 3 has no \"=\""),
            (
                "host=h password=hunter2 bogus=1",
                "option 3 is not a connection option",
            ),
            ("postgresq://u:hunter2@h/db", "postgresql://"),
            ("u:hunter2@h/db", "postgresql://"),
            ("host=h password=hunter2 sslcrl=/x", "\"sslcrl\""),
            (
                "postgres://u:hunter2@h/db?connect_timeout=x",
                "\"connect_timeout\"",
            ),
            ("postgres://u:hunter2%zz@h/db", "password"),
        ] {
            let err = resolve(Some(s), &env()).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{s}: {}", err.message());
            assert!(err.message().contains(needle), "{s}: {}", err.message());
            for part in ["hunter2", "bogus", "u:"] {
                assert!(!err.message().contains(part), "{s}: {}", err.message());
            }
        }
        let err = resolve(None, &env().with_var("PGSSLMODE", "nope")).unwrap_err();
        assert!(err.message().contains("PGSSLMODE"), "{}", err.message());
    }

    #[test]
    fn multi_host_ports_match_like_libpq() {
        let s = resolved(Some("host=a,b,c port=1,2,3"), &env());
        assert_eq!(
            tcp(&s),
            vec![("a".into(), 1), ("b".into(), 2), ("c".into(), 3)]
        );
        let s = resolved(Some("host=a,b port=7"), &env());
        assert_eq!(tcp(&s), vec![("a".into(), 7), ("b".into(), 7)]);
        let s = resolved(Some("host=a,,b"), &env());
        assert!(s.hosts[1].defaulted);
        assert!(resolve(Some("host=a,b port=1,2,3"), &env()).is_err());
        // hostaddr: dial the address, keep the name.
        let s = resolved(Some("host=db.example hostaddr=127.0.0.1 port=9"), &env());
        assert_eq!(s.hosts[0].kind, HostKind::Tcp("db.example".into()));
        assert_eq!(s.hosts[0].hostaddr, Some("127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn ssl_settings() {
        let s = resolved(Some("host=h sslmode=allow"), &env());
        assert_eq!(s.sslmode, SslMode::Allow);
        // sslrootcert=system makes an unset sslmode verify-full, and refuses a weak one.
        let s = resolved(Some("host=h sslrootcert=system"), &env());
        assert_eq!(s.sslmode, SslMode::VerifyFull);
        assert!(resolve(Some("host=h sslrootcert=system sslmode=require"), &env()).is_err());
        // requiressl and JDBC's ssl=true.
        let s = resolved(Some("host=h requiressl=1"), &env());
        assert_eq!(s.sslmode, SslMode::Require);
        let s = resolved(Some("postgresql://h/d?ssl=true"), &env());
        assert_eq!(s.sslmode, SslMode::Require);
        let s = resolved(None, &env().with_var("PGREQUIRESSL", "1"));
        assert_eq!(s.sslmode, SslMode::Require);
        let s = resolved(
            Some("host=h"),
            &env().with_var("PGCHANNELBINDING", "require"),
        );
        assert_eq!(s.channel_binding, ChannelBinding::Require);
    }

    #[test]
    fn connect_timeout_follows_libpq_but_is_never_unbounded() {
        let t = |v: &str| {
            resolved(Some(&format!("host=h connect_timeout={v}")), &env()).connect_timeout
        };
        assert_eq!(t("10"), Some(Duration::from_secs(10)));
        assert_eq!(t("1"), Some(Duration::from_secs(2)));
        assert_eq!(t("0"), None);
    }

    #[test]
    fn a_service_fills_after_the_string_and_before_the_environment() {
        // libpq "The Connection Service File": conninfo_add_defaults reads the service
        // before the variables, so its port beats PGPORT; the string beats both.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".pg_service.conf"),
            "# ops\n[other]\nhost=wrong\n\n  [ops]\nhost=svc-host\nport=6000\ndbname=svcdb\n[later]\nport=1\n",
        )
        .unwrap();
        let e = env()
            .with_home(dir.path())
            .with_var("PGPORT", "5501")
            .with_var("PGUSER", "envuser");
        let s = resolved(Some("service=ops dbname=given"), &e);
        assert_eq!(tcp(&s), vec![("svc-host".into(), 6000)]);
        assert_eq!(s.dbname, "given");
        assert_eq!(s.user, "envuser");
        let s = resolved(None, &e.clone().with_var("PGSERVICE", "ops"));
        assert_eq!(
            (s.dbname.as_str(), s.dbname_origin.clone()),
            ("svcdb", Origin::Service("ops".into()))
        );
        let s = resolved(Some("postgresql:///?service=ops"), &e);
        assert_eq!(s.hosts[0].port, 6000);
        let err = resolve(Some("service=nope"), &e).unwrap_err();
        assert!(
            err.message()
                .contains("definition of service \"nope\" not found"),
            "{}",
            err.message()
        );
        assert_eq!(err.exit_code(), 2);
        // The system file, when the user's has no such service.
        let sys = tempfile::tempdir().unwrap();
        std::fs::write(sys.path().join("pg_service.conf"), "[sys]\nhost=syshost\n").unwrap();
        let s = resolved(
            None,
            &e.clone()
                .with_var("PGSERVICE", "sys")
                .with_var("PGSYSCONFDIR", sys.path().to_str().unwrap()),
        );
        assert_eq!(tcp(&s), vec![("syshost".into(), 5501)]);
        // libpq's errors: a line without "=", an unknown keyword, a nested service.
        for bad in ["[x]\nhost\n", "[x]\nhots=h\n", "[x]\nservice=y\n"] {
            std::fs::write(dir.path().join(".pg_service.conf"), bad).unwrap();
            let err = resolve(Some("service=x"), &e).unwrap_err();
            assert!(
                err.message().contains("line 2"),
                "{bad:?}: {}",
                err.message()
            );
        }
    }

    #[test]
    fn the_password_file_fills_a_missing_password_per_host() {
        // libpq "The Password File": per host; `localhost` for the default socket.
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".pgpass");
        std::fs::write(&file, "localhost:5432:db:u:sockpw\nh1:5432:db:u:h1pw\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = env().with_home(dir.path());
        let s = resolved(Some("host=h1,,h2 dbname=db user=u"), &e);
        let pw: Vec<Option<&str>> = s
            .hosts
            .iter()
            .map(|h| h.password.as_ref().map(|p| p.secret.as_str()))
            .collect();
        assert_eq!(pw, vec![Some("h1pw"), Some("sockpw"), None]);
        assert_eq!(
            s.hosts[0].password.as_ref().unwrap().file.as_deref(),
            Some(file.as_path())
        );
        // The default socket directory itself is `localhost`; another is its own name.
        let s = resolved(Some("host=/var/run/postgresql dbname=db user=u"), &e);
        assert!(s.hosts[0].password.is_some());
        let s = resolved(Some("host=/tmp/other dbname=db user=u"), &e);
        assert!(s.hosts[0].password.is_none());
        // A given password wins; an empty one does not count.
        let s = resolved(Some("host=h1 dbname=db user=u password=given"), &e);
        assert_eq!(s.hosts[0].password.as_ref().unwrap().file, None);
        let s = resolved(Some("host=h1 dbname=db user=u password="), &e);
        assert_eq!(s.hosts[0].password.as_ref().unwrap().secret, "h1pw");
        // The database default (= user) is what the file is matched against.
        let s = resolved(Some("host=h1 user=db"), &e);
        assert!(s.hosts[0].password.is_none());
        // Readable by others: ignored, with libpq's warning.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let s = resolved(Some("host=h1 dbname=db user=u"), &e);
        assert!(s.hosts[0].password.is_none());
        assert_eq!(s.warnings.len(), 1);
        assert!(
            s.warnings[0].contains("has group or world access"),
            "{:?}",
            s.warnings
        );
        // PGPASSFILE elsewhere.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let s = resolved(
            Some("host=h1 dbname=db user=u"),
            &env().with_var("PGPASSFILE", file.to_str().unwrap()),
        );
        assert_eq!(s.hosts[0].password.as_ref().unwrap().secret, "h1pw");
    }

    #[test]
    fn passwords_never_show_in_debug() {
        let s = resolved(Some("host=h password=hunter2"), &env());
        assert!(!format!("{s:?}").contains("hunter2"));
    }
}
