//! Opening one session: every host in order (libpq's multi-host rules), each within the
//! connect timeout — TCP connect, TLS and the startup/authentication exchange together — so
//! a server that accepts and never answers costs `connect_timeout`, not forever. TLS never
//! over a Unix socket; `sslmode=allow` tries plaintext first, `prefer` falls back to it when
//! the TLS handshake fails, as libpq does. Failures keep every host's reason.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_postgres::error::SqlState;
use tokio_postgres::tls::{MakeTlsConnect, TlsConnect};
use tokio_postgres::{Client, Config};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::conninfo::{ChannelBinding, Host, HostKind, Origin, SessionAttrs, SslMode};
use super::Target;
use crate::error::{Code, Error, Result};

/// Why one host did not give us a session.
#[derive(Debug, Clone)]
pub enum Failure {
    /// Nothing (or not all of the startup) within the connect timeout.
    Timeout(Duration),
    /// The server answered with an error during startup or authentication.
    Server {
        code: SqlState,
        message: String,
        detail: Option<String>,
    },
    /// The server wants a password and none was given.
    PasswordMissing,
    /// `channel_binding=require` and the server authenticated without it.
    ChannelBinding,
    /// TLS: the handshake, the certificate, or a server without TLS.
    Tls(String),
    /// The server is not of the kind target_session_attrs asks for.
    WrongKind(&'static str),
    /// Refused, unreachable, no such socket, name not resolved, closed.
    Network(String),
}

impl Failure {
    /// The category, for the error code when every host failed the same way.
    fn code(&self) -> Code {
        match self {
            Failure::Timeout(_) => Code::ConnectTimeout,
            Failure::Server { code, message, .. } => match classify(code, message) {
                ServerFailure::Password => Code::AuthFailed,
                ServerFailure::NoRole => Code::NoSuchRole,
                ServerFailure::NoDatabase => Code::NoSuchDatabase,
                ServerFailure::Hba => Code::HbaRejected,
                ServerFailure::Other => Code::Connect,
            },
            Failure::PasswordMissing => Code::PasswordMissing,
            Failure::ChannelBinding => Code::ChannelBinding,
            Failure::Tls(_) => Code::Tls,
            Failure::WrongKind(_) => Code::TargetSessionAttrs,
            Failure::Network(_) => Code::Connect,
        }
    }
}

enum ServerFailure {
    Password,
    NoRole,
    NoDatabase,
    Hba,
    Other,
}

fn classify(code: &SqlState, message: &str) -> ServerFailure {
    if *code == SqlState::INVALID_PASSWORD {
        ServerFailure::Password
    } else if *code == SqlState::INVALID_CATALOG_NAME {
        ServerFailure::NoDatabase
    } else if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
        // 28000 covers both "role … does not exist" and pg_hba.conf rejections.
        if message.contains("pg_hba.conf") {
            ServerFailure::Hba
        } else if message.starts_with("role ") && message.ends_with("does not exist") {
            ServerFailure::NoRole
        } else {
            ServerFailure::Other
        }
    } else {
        ServerFailure::Other
    }
}

/// One session to the first host that takes us (with that host's index in the settings), or
/// every host's reason.
pub(super) async fn open(target: &Target) -> Result<(Client, usize)> {
    let s = &target.settings;
    let timeout = s.connect_timeout.unwrap_or(target.limits.connect_timeout);
    let mut order: Vec<usize> = (0..s.hosts.len()).collect();
    if s.load_balance_hosts {
        shuffle(&mut order);
    }
    // TLS files (root certificate, client key) are read before any host is tried when TLS
    // is mandatory: their errors are the same for every host, and say what to fix.
    let needs_tls = matches!(
        s.sslmode,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull
    );
    if needs_tls && s.hosts.iter().any(|h| !h.is_unix()) {
        if let Err(e) = target.tls_config() {
            let describe = target.describe();
            return Err(e.with_message(|m| format!("cannot connect to {describe}: {m}")));
        }
    }
    let attrs = effective_attrs(target);
    // prefer-standby: a standby if any host is one, else any server (libpq's two passes).
    let passes: &[SessionAttrs] = match attrs {
        SessionAttrs::PreferStandby => &[SessionAttrs::Standby, SessionAttrs::Any],
        _ => std::slice::from_ref(&attrs),
    };
    let mut failures: Vec<(String, Failure)> = Vec::new();
    for pass in passes {
        failures.clear();
        for &i in &order {
            let host = &s.hosts[i];
            match tokio::time::timeout(timeout, open_host(target, host, *pass)).await {
                Ok(Ok((client, task))) => {
                    track(task);
                    return Ok((client, i));
                }
                Ok(Err(f)) => failures.push((host.label(), f)),
                Err(_) => failures.push((host.label(), Failure::Timeout(timeout))),
            }
        }
    }
    Err(failure_error(target, &failures))
}

fn effective_attrs(target: &Target) -> SessionAttrs {
    let attrs = target.settings.target_session_attrs;
    // A read-only session reports transaction_read_only = on even on the primary, so
    // read-write could match no server at all: with --read-only any server will do.
    if target.limits.read_only && attrs == SessionAttrs::ReadWrite {
        SessionAttrs::Any
    } else {
        attrs
    }
}

fn shuffle(order: &mut [usize]) {
    // Enough randomness for spreading sessions (libpq uses its own PRNG likewise).
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id());
    for i in (1..order.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        order.swap(i, (seed % (i as u64 + 1)) as usize);
    }
}

async fn open_host(
    target: &Target,
    host: &Host,
    attrs: SessionAttrs,
) -> std::result::Result<(Client, JoinHandle<()>), Failure> {
    use tokio_postgres::config::SslMode as Wire;
    let s = &target.settings;
    let (client, task) = if host.is_unix() {
        // libpq never negotiates TLS over a Unix socket, whatever sslmode says.
        attempt(target, host, Wire::Disable).await?
    } else {
        match s.sslmode {
            SslMode::Disable => attempt(target, host, Wire::Disable).await?,
            SslMode::Allow => match attempt(target, host, Wire::Disable).await {
                Ok(session) => session,
                // The server refused a plaintext session (hostssl only): try TLS.
                Err(Failure::Server { .. }) => attempt(target, host, Wire::Require).await?,
                Err(other) => return Err(other),
            },
            SslMode::Prefer => {
                let tls_used = Arc::new(AtomicBool::new(false));
                match attempt_flagged(target, host, Wire::Prefer, tls_used.clone()).await {
                    Ok(session) => session,
                    // The handshake failed, or the server refused the TLS session (pg_hba
                    // hostnossl): libpq tries once more in plaintext.
                    Err(Failure::Tls(_)) => attempt(target, host, Wire::Disable).await?,
                    Err(Failure::Server { .. }) if tls_used.load(Ordering::SeqCst) => {
                        attempt(target, host, Wire::Disable).await?
                    }
                    Err(other) => return Err(other),
                }
            }
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
                attempt(target, host, Wire::Require).await?
            }
        }
    };
    if let Err(f) = check_kind(&client, attrs).await {
        task.abort();
        return Err(f);
    }
    Ok((client, task))
}

/// One startup exchange with one host in one TLS mode.
async fn attempt(
    target: &Target,
    host: &Host,
    ssl: tokio_postgres::config::SslMode,
) -> std::result::Result<(Client, JoinHandle<()>), Failure> {
    attempt_flagged(target, host, ssl, Arc::new(AtomicBool::new(false))).await
}

/// [`attempt`], setting `tls_used` when the server accepted TLS (so `prefer` knows whether a
/// refusal came over TLS).
async fn attempt_flagged(
    target: &Target,
    host: &Host,
    ssl: tokio_postgres::config::SslMode,
    tls_used: Arc<AtomicBool>,
) -> std::result::Result<(Client, JoinHandle<()>), Failure> {
    let s = &target.settings;
    let mut cfg = Config::new();
    match (&host.kind, host.hostaddr) {
        (HostKind::Unix(dir), None) => {
            cfg.host_path(dir);
        }
        (HostKind::Unix(_), Some(addr)) => {
            cfg.host(addr.to_string()).hostaddr(addr);
        }
        (HostKind::Tcp(name), addr) => {
            cfg.host(name.as_str());
            if let Some(addr) = addr {
                cfg.hostaddr(addr);
            }
        }
    }
    cfg.port(host.port)
        .user(&s.user)
        .dbname(&s.dbname)
        .options(target.session_options())
        .application_name(target.application_name())
        .ssl_mode(ssl)
        .channel_binding(match s.channel_binding {
            ChannelBinding::Disable => tokio_postgres::config::ChannelBinding::Disable,
            ChannelBinding::Prefer => tokio_postgres::config::ChannelBinding::Prefer,
            ChannelBinding::Require => tokio_postgres::config::ChannelBinding::Require,
        })
        .keepalives(s.keepalives);
    if s.ssl_direct {
        cfg.ssl_negotiation(tokio_postgres::config::SslNegotiation::Direct);
    }
    if let Some(d) = s.keepalives_idle {
        cfg.keepalives_idle(d);
    }
    if let Some(d) = s.keepalives_interval {
        cfg.keepalives_interval(d);
    }
    if let Some(n) = s.keepalives_count {
        cfg.keepalives_retries(n);
    }
    if let Some(d) = s.tcp_user_timeout {
        cfg.tcp_user_timeout(d);
    }
    if let Some(pw) = &host.password {
        cfg.password(&pw.secret);
    }
    let result = if ssl == tokio_postgres::config::SslMode::Disable {
        cfg.connect(tokio_postgres::NoTls)
            .await
            .map(|(c, conn)| (c, spawn(conn)))
    } else {
        let tls = target
            .tls_config()
            .map_err(|e| Failure::Tls(e.message().to_string()))?;
        let tls = Flagged {
            inner: MakeRustlsConnect::new((*tls).clone()),
            used: tls_used,
        };
        cfg.connect(tls).await.map(|(c, conn)| (c, spawn(conn)))
    };
    result.map_err(|e| failure(&e))
}

/// A TLS connector that notes whether the handshake was started (the server said yes to
/// TLS).
struct Flagged<T> {
    inner: T,
    used: Arc<AtomicBool>,
}

impl<S, T: MakeTlsConnect<S>> MakeTlsConnect<S> for Flagged<T> {
    type Stream = T::Stream;
    type TlsConnect = Flagged<T::TlsConnect>;
    type Error = T::Error;

    fn make_tls_connect(
        &mut self,
        domain: &str,
    ) -> std::result::Result<Self::TlsConnect, T::Error> {
        Ok(Flagged {
            inner: self.inner.make_tls_connect(domain)?,
            used: self.used.clone(),
        })
    }
}

impl<S, T: TlsConnect<S>> TlsConnect<S> for Flagged<T> {
    type Stream = T::Stream;
    type Error = T::Error;
    type Future = T::Future;

    fn connect(self, stream: S) -> T::Future {
        self.used.store(true, Ordering::SeqCst);
        self.inner.connect(stream)
    }
}

/// The connection tasks of this process's sessions. A session ends when its client is
/// dropped: its task then sends Terminate and closes the socket, as psql does on exit.
/// [`close`] lets those tasks finish before the process exits; the runtime's shutdown would
/// drop them mid-way, and the server would log a lost or reset connection for every command.
static TASKS: std::sync::Mutex<Vec<JoinHandle<()>>> = std::sync::Mutex::new(Vec::new());

fn track(task: JoinHandle<()>) {
    let mut tasks = TASKS.lock().unwrap_or_else(|e| e.into_inner());
    tasks.retain(|t| !t.is_finished());
    tasks.push(task);
}

/// Waits, at most `wait`, for the sessions whose clients were dropped to end: each says
/// goodbye to its server (Terminate) and closes its socket. A session still in use is left
/// to the runtime's shutdown.
pub async fn close(wait: std::time::Duration) {
    let tasks = std::mem::take(&mut *TASKS.lock().unwrap_or_else(|e| e.into_inner()));
    let _ = tokio::time::timeout(wait, futures::future::join_all(tasks)).await;
}

fn spawn<S, T>(conn: tokio_postgres::Connection<S, T>) -> JoinHandle<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let _ = conn.await;
    })
}

/// libpq's target_session_attrs checks, on the new session.
async fn check_kind(client: &Client, attrs: SessionAttrs) -> std::result::Result<(), Failure> {
    let query = match attrs {
        SessionAttrs::Any | SessionAttrs::PreferStandby => return Ok(()),
        SessionAttrs::ReadWrite | SessionAttrs::ReadOnly => "SHOW transaction_read_only",
        SessionAttrs::Primary | SessionAttrs::Standby => {
            "SELECT CASE WHEN pg_is_in_recovery() THEN 'on' ELSE 'off' END"
        }
    };
    let rows = client.simple_query(query).await.map_err(|e| failure(&e))?;
    let on = rows.iter().any(|m| match m {
        tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0) == Some("on"),
        _ => false,
    });
    match (attrs, on) {
        (SessionAttrs::ReadWrite, true) => Err(Failure::WrongKind("session is read-only")),
        (SessionAttrs::ReadOnly, false) => Err(Failure::WrongKind("session is not read-only")),
        (SessionAttrs::Primary, true) => Err(Failure::WrongKind("server is in hot standby mode")),
        (SessionAttrs::Standby, false) => {
            Err(Failure::WrongKind("server is not in hot standby mode"))
        }
        _ => Ok(()),
    }
}

/// Sort a tokio-postgres connection error into a [`Failure`].
pub fn failure(e: &tokio_postgres::Error) -> Failure {
    if let Some(db) = e.as_db_error() {
        return Failure::Server {
            code: db.code().clone(),
            message: db.message().to_string(),
            detail: db.detail().map(str::to_string),
        };
    }
    let text = chain(e);
    if text.contains("password missing") {
        return Failure::PasswordMissing;
    }
    if text.contains("channel binding") {
        return Failure::ChannelBinding;
    }
    if text.contains("TLS")
        || text.contains("tls")
        || text.contains("certificate")
        || text.contains("handshake")
    {
        return Failure::Tls(text);
    }
    Failure::Network(text)
}

fn chain(e: &tokio_postgres::Error) -> String {
    crate::error::chain(e)
}

/// What one host's failure says, for the message.
fn reason(target: &Target, host: &str, f: &Failure) -> String {
    match f {
        Failure::Timeout(d) => format!("no answer within {}", crate::duration::format_duration(*d)),
        Failure::Server {
            message, detail, ..
        } => {
            let mut text = message.clone();
            if let Some(d) = detail {
                text.push_str(": ");
                text.push_str(d);
            }
            if let (ServerFailure::Password, Some(file)) =
                (classify_failure(f), password_file(target, host))
            {
                text.push_str(&format!(" (password retrieved from file \"{file}\")"));
            }
            text
        }
        Failure::PasswordMissing => format!(
            "the server asks for a password for user \"{}\" and none was given",
            target.settings.user
        ),
        Failure::ChannelBinding => {
            "channel_binding=require, but the server authenticated without channel binding (SCRAM-SHA-256-PLUS over TLS)".into()
        }
        Failure::Tls(t) => t.clone(),
        Failure::WrongKind(w) => (*w).to_string(),
        Failure::Network(n) => n.clone(),
    }
}

fn classify_failure(f: &Failure) -> ServerFailure {
    match f {
        Failure::Server { code, message, .. } => classify(code, message),
        _ => ServerFailure::Other,
    }
}

/// The password file a host's password came from, if it did.
fn password_file(target: &Target, label: &str) -> Option<String> {
    target
        .settings
        .hosts
        .iter()
        .find(|h| h.label() == label)
        .and_then(|h| h.password.as_ref())
        .and_then(|p| p.file.as_ref())
        .map(|f| f.display().to_string())
}

/// What to do about one failure: only what fits it.
fn hint(target: &Target, label: &str, f: &Failure) -> Option<String> {
    let s = &target.settings;
    let host = s.hosts.iter().find(|h| h.label() == label);
    let user = &s.user;
    let db = &s.dbname;
    Some(match f {
        Failure::Timeout(_) => format!(
            "the server at {label} did not complete the connection in time (wrong host or port, a firewall that drops packets, or an overloaded server); check the address, or raise connect_timeout (PGCONNECT_TIMEOUT)"
        ),
        Failure::Server { .. } => match classify_failure(f) {
            ServerFailure::Password => match host.and_then(|h| h.password.as_ref()) {
                Some(p) if p.file.is_some() => format!(
                    "fix the matching line (host:port:database:user:password) in {}",
                    p.file.as_ref().map(|f| f.display().to_string()).unwrap_or_default()
                ),
                _ => format!(
                    "check the password for user \"{user}\" (PGPASSWORD, the connection string, or a line in ~/.pgpass)"
                ),
            },
            ServerFailure::NoRole => match &s.user_origin {
                Origin::Default => format!(
                    "no user was named, so libpq's default, the OS user \"{user}\", was used, and it is not a role on this server; set PGUSER or the user in DATABASE_URL"
                ),
                origin => format!(
                    "the user \"{user}\" ({}) is not a role on this server; set PGUSER or the user in DATABASE_URL",
                    origin.phrase()
                ),
            },
            ServerFailure::NoDatabase => match &s.dbname_origin {
                Origin::Default => format!(
                    "no database was named, so libpq's default, the user name \"{user}\", was used; set PGDATABASE or the URL's /dbname (psql -l lists them)"
                ),
                origin => format!(
                    "the database \"{db}\" ({}) is not on this server; check the name (psql -l lists them)",
                    origin.phrase()
                ),
            },
            ServerFailure::Hba => {
                let tls = if matches!(s.sslmode, SslMode::Disable | SslMode::Allow) {
                    "; if only TLS connections are admitted (hostssl), use sslmode=require"
                } else {
                    ""
                };
                format!(
                    "the server's pg_hba.conf does not admit user \"{user}\" to database \"{db}\" from this host; ask its administrator for an entry{tls}"
                )
            }
            ServerFailure::Other => return None,
        },
        Failure::PasswordMissing => format!(
            "add a line to ~/.pgpass ({}:{}:{db}:{user}:PASSWORD, mode 0600) or set PGPASSWORD",
            host.map(pgpass_host).unwrap_or_else(|| "*".into()),
            host.map_or(5432, |h| h.port),
        ),
        Failure::ChannelBinding => "channel binding needs TLS (sslmode=require or stricter) and scram-sha-256 password authentication for this user in pg_hba.conf; channel_binding=prefer allows the others".into(),
        Failure::Tls(t) if t.contains("does not support TLS") => {
            "the server has TLS turned off: use sslmode=prefer (or disable), or turn ssl on in the server".into()
        }
        Failure::Tls(t) if t.contains("certificate") || t.contains("host name") => {
            "check sslrootcert (the CA that signed the server's certificate) and, for verify-full, that the host name is one the certificate names".into()
        }
        Failure::Tls(_) => return None,
        Failure::WrongKind(_) => format!(
            "no server in the list is what target_session_attrs={} asks for",
            attrs_name(s.target_session_attrs)
        ),
        Failure::Network(n) => {
            let unix = host.is_some_and(Host::is_unix);
            if n.contains("No such file") && unix {
                format!(
                    "no server socket there: is PostgreSQL running locally, with {} in unix_socket_directories and port {}?",
                    host.map(|h| match &h.kind {
                        HostKind::Unix(d) => d.display().to_string(),
                        HostKind::Tcp(t) => t.clone(),
                    })
                    .unwrap_or_default(),
                    host.map_or(5432, |h| h.port)
                )
            } else if n.contains("lookup address") || n.contains("resolve") {
                let name = host.map(|h| match &h.kind {
                    HostKind::Tcp(t) => t.clone(),
                    HostKind::Unix(d) => d.display().to_string(),
                });
                format!(
                    "the host name \"{}\" does not resolve: check it, or give the address (hostaddr=)",
                    name.unwrap_or_default()
                )
            } else if n.contains("refused") {
                format!("is PostgreSQL running on {label} and accepting TCP connections (listen_addresses, port)?")
            } else {
                return None;
            }
        }
    })
}

fn pgpass_host(h: &Host) -> String {
    super::conninfo::passfile_host(h).replace(':', "\\:")
}

fn attrs_name(a: SessionAttrs) -> &'static str {
    match a {
        SessionAttrs::Any => "any",
        SessionAttrs::ReadWrite => "read-write",
        SessionAttrs::ReadOnly => "read-only",
        SessionAttrs::Primary => "primary",
        SessionAttrs::Standby => "standby",
        SessionAttrs::PreferStandby => "prefer-standby",
    }
}

/// `cannot connect to user@host:port/db: <reason>`, every host's reason for a multi-host
/// target, and hints that fit.
pub(super) fn failure_error(target: &Target, failures: &[(String, Failure)]) -> Error {
    let describe = target.describe();
    let (code, message) = match failures {
        [] => (
            Code::Connect,
            format!("cannot connect to {describe}: no host to try"),
        ),
        [(label, f)] => (
            f.code(),
            format!("cannot connect to {describe}: {}", reason(target, label, f)),
        ),
        many => {
            let first = many[0].1.code();
            let code = if many.iter().all(|(_, f)| f.code() == first) {
                first
            } else {
                Code::Connect
            };
            let reasons: Vec<String> = many
                .iter()
                .map(|(label, f)| format!("{label}: {}", reason(target, label, f)))
                .collect();
            (
                code,
                format!("cannot connect to {describe}: {}", reasons.join("; ")),
            )
        }
    };
    let mut hints: Vec<String> = Vec::new();
    for (label, f) in failures {
        if let Some(h) = hint(target, label, f) {
            if !hints.contains(&h) {
                hints.push(h);
            }
        }
    }
    let s = &target.settings;
    if !s.configured && s.hosts.iter().all(|h| h.defaulted) {
        hints.push("nothing says where the database is: set --database-url or DATABASE_URL, or libpq's PGHOST, PGPORT, PGDATABASE, PGUSER as for psql".into());
    }
    hints
        .into_iter()
        .fold(Error::new(code, message), Error::hinted)
}
