//! Connecting to PostgreSQL: where (URL, or libpq's environment), how safely (sslmode over
//! rustls), and with which session limits (statement and lock timeouts on every session).
//!
//! The connection string may hold a password, so it is never formatted into a message:
//! [`Target::describe`] names host, port, database and user only.

use std::fs;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use percent_encoding::percent_decode_str;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{Code, Error, Result};

/// libpq's sslmode, all five that matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl FromStr for TlsMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "disable" | "allow" => TlsMode::Disable,
            "prefer" => TlsMode::Prefer,
            "require" => TlsMode::Require,
            "verify-ca" => TlsMode::VerifyCa,
            "verify-full" => TlsMode::VerifyFull,
            other => {
                return Err(Error::usage(format!(
                    "unknown sslmode `{other}` (expected disable, prefer, require, verify-ca or verify-full)"
                )))
            }
        })
    }
}

/// Session limits applied to every connection reconctl opens.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    pub statement_timeout: Duration,
    pub lock_timeout: Duration,
    pub connect_timeout: Duration,
    /// `--read-only`: every transaction read-only (`default_transaction_read_only`), and any
    /// server of a multi-host URL will do, a hot standby included.
    pub read_only: bool,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            statement_timeout: Duration::from_secs(10),
            lock_timeout: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(5),
            read_only: false,
        }
    }
}

/// Where to connect, resolved once.
#[derive(Clone)]
pub struct Target {
    pub config: tokio_postgres::Config,
    pub tls: TlsMode,
    pub root_cert: Option<String>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password.
        f.write_str(&self.describe())
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Target {
    /// From `--database-url`/`DATABASE_URL` when given, else from libpq's variables.
    pub fn resolve(url: Option<&str>, limits: &SessionLimits) -> Result<Target> {
        let (rest, mut ssl) = match url {
            Some(url) => split_ssl_params(url)?,
            None => (from_libpq_env(), SslParams::default()),
        };
        let mut config = tokio_postgres::Config::from_str(&rest).map_err(|e| {
            Error::usage(format!("invalid database URL: {e}"))
                .hinted("expected postgres://user@host:port/dbname or `host=… dbname=…`; the password is best given in PGPASSWORD")
        })?;
        if config.get_password().is_none() {
            if let Some(pw) = env("PGPASSWORD") {
                config.password(pw);
            }
        }
        if config.get_user().is_none() {
            if let Some(user) = env("PGUSER").or_else(|| env("USER")) {
                config.user(user);
            }
        }
        if config.get_hosts().is_empty() {
            config.host(default_host());
        }
        if config.get_dbname().is_none() {
            if let Some(db) = env("PGDATABASE") {
                config.dbname(db);
            }
        }
        if ssl.mode.is_none() {
            ssl.mode = env("PGSSLMODE");
        }
        if ssl.root_cert.is_none() {
            ssl.root_cert = env("PGSSLROOTCERT");
        }
        let tls: TlsMode = ssl.mode.as_deref().unwrap_or("prefer").parse()?;
        config.ssl_mode(match tls {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            _ => SslMode::Require,
        });
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(limits.connect_timeout);
        }
        if config.get_application_name().is_none() {
            config.application_name("reconctl");
        }
        // Every session gets short statement and lock timeouts, set at connection start so
        // no statement can run before them.
        let opts = format!(
            "{} -c statement_timeout={} -c lock_timeout={} -c idle_in_transaction_session_timeout={}",
            config.get_options().unwrap_or(""),
            limits.statement_timeout.as_millis(),
            limits.lock_timeout.as_millis(),
            (limits.statement_timeout.as_millis() * 3).max(30_000),
        );
        let opts = if limits.read_only {
            // A read-only session reports transaction_read_only = on even on the primary, so
            // a read-write requirement could match no server at all: any server will do.
            config.target_session_attrs(tokio_postgres::config::TargetSessionAttrs::Any);
            format!("{opts} -c default_transaction_read_only=on")
        } else {
            opts
        };
        config.options(opts.trim());
        Ok(Target {
            config,
            tls,
            root_cert: ssl.root_cert,
        })
    }

    /// `user@host:port/dbname`, for messages. Never the password.
    pub fn describe(&self) -> String {
        let hosts: Vec<String> = self
            .config
            .get_hosts()
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let port = self
                    .config
                    .get_ports()
                    .get(i)
                    .or(self.config.get_ports().first())
                    .copied()
                    .unwrap_or(5432);
                match h {
                    Host::Tcp(name) => format!("{name}:{port}"),
                    Host::Unix(path) => format!("{}:{port}", path.display()),
                }
            })
            .collect();
        format!(
            "{}@{}/{}",
            self.config.get_user().unwrap_or("?"),
            hosts.join(","),
            self.config
                .get_dbname()
                .or(self.config.get_user())
                .unwrap_or("?")
        )
    }

    fn tls_connector(&self) -> Result<MakeRustlsConnect> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = match &self.root_cert {
            Some(path) => Some(load_roots(path)?),
            None => None,
        };
        let verifier: Arc<dyn ServerCertVerifier> = match (self.tls, roots) {
            (TlsMode::VerifyFull, roots) => {
                full_verifier(roots.unwrap_or_else(web_roots), &provider)?
            }
            (TlsMode::VerifyCa, Some(roots)) => Arc::new(CaOnlyVerifier {
                inner: full_verifier(roots, &provider)?,
            }),
            (TlsMode::VerifyCa, None) => {
                return Err(Error::usage(
                    "sslmode=verify-ca needs sslrootcert (in the URL or PGSSLROOTCERT)",
                ))
            }
            // libpq: with a root certificate, require behaves like verify-ca.
            (TlsMode::Require | TlsMode::Prefer | TlsMode::Disable, Some(roots)) => {
                Arc::new(CaOnlyVerifier {
                    inner: full_verifier(roots, &provider)?,
                })
            }
            (_, None) => Arc::new(NoVerifier(provider.clone())),
        };
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::bug(format!("TLS setup: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(MakeRustlsConnect::new(config))
    }

    /// One connection (for `migrate`, which needs a client of its own).
    pub async fn connect(&self) -> Result<tokio_postgres::Client> {
        let tls = self.tls_connector()?;
        let (client, conn) = self
            .config
            .connect(tls)
            .await
            .map_err(|e| self.connect_error(&e))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(client)
    }

    /// The pool every other command uses; created once, connects lazily.
    pub fn pool(&self, max_size: usize) -> Result<Pool> {
        let tls = self.tls_connector()?;
        let manager = Manager::from_config(
            self.config.clone(),
            tls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        Pool::builder(manager)
            .max_size(max_size)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(30)))
            .create_timeout(
                self.config
                    .get_connect_timeout()
                    .map(|t| *t + Duration::from_secs(1)),
            )
            .build()
            .map_err(|e| Error::bug(format!("pool setup: {e}")))
    }

    pub fn connect_error(&self, e: &tokio_postgres::Error) -> Error {
        let inner = crate::error::db_error(e);
        Error::new(
            Code::Connect,
            format!("cannot connect to {}: {}", self.describe(), inner.message()),
        )
        .hinted("set --database-url or DATABASE_URL (or PGHOST, PGPORT, PGUSER, PGDATABASE); run `reconctl doctor` to check")
    }
}

#[derive(Default)]
struct SslParams {
    mode: Option<String>,
    root_cert: Option<String>,
}

/// tokio-postgres knows sslmode only as disable/prefer/require and no sslrootcert: take
/// those out of the connection string and handle them here.
fn split_ssl_params(url: &str) -> Result<(String, SslParams)> {
    let mut ssl = SslParams::default();
    let url = url.trim();
    let mut take = |key: &str, value: String| -> bool {
        match key {
            "sslmode" => ssl.mode = Some(value),
            "sslrootcert" => ssl.root_cert = Some(value),
            _ => return false,
        }
        true
    };
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let Some((base, query)) = url.split_once('?') else {
            return Ok((url.to_string(), ssl));
        };
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = percent_decode_str(v).decode_utf8_lossy().into_owned();
            if !take(k, v) {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        return Ok((rest, ssl));
    }
    // key=value form; values may be single-quoted.
    let mut kept = Vec::new();
    for (k, v) in split_key_values(url)? {
        if !take(&k, v.clone()) {
            kept.push(format!(
                "{k}='{}'",
                v.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
    }
    Ok((kept.join(" "), ssl))
}

fn split_key_values(s: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        let key = key.trim().to_string();
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut value = String::new();
        if chars.peek() == Some(&'\'') {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '\'' => {
                        closed = true;
                        break;
                    }
                    c => value.push(c),
                }
            }
            if !closed {
                return Err(Error::usage(
                    "invalid connection string: unterminated quote",
                ));
            }
        } else {
            while let Some(c) = chars.peek().copied() {
                if c.is_whitespace() {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        if key.is_empty() {
            return Err(Error::usage(
                "invalid connection string: expected key=value",
            ));
        }
        out.push((key, value));
    }
    Ok(out)
}

/// A connection string from libpq's variables (PGPASSWORD is added later, never here).
fn from_libpq_env() -> String {
    let mut parts = Vec::new();
    for (var, key) in [
        ("PGHOST", "host"),
        ("PGPORT", "port"),
        ("PGUSER", "user"),
        ("PGDATABASE", "dbname"),
        ("PGCONNECT_TIMEOUT", "connect_timeout"),
        ("PGTARGETSESSIONATTRS", "target_session_attrs"),
        ("PGAPPNAME", "application_name"),
    ] {
        if let Some(v) = env(var) {
            parts.push(format!(
                "{key}='{}'",
                v.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
    }
    parts.join(" ")
}

fn default_host() -> String {
    for dir in ["/var/run/postgresql", "/tmp"] {
        if std::path::Path::new(dir).join(".s.PGSQL.5432").exists() {
            return dir.to_string();
        }
    }
    "localhost".to_string()
}

fn load_roots(path: &str) -> Result<RootCertStore> {
    let pem = fs::read(path)
        .map_err(|e| Error::runtime(format!("cannot read sslrootcert {path}: {e}")))?;
    let mut store = RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        let cert =
            cert.map_err(|e| Error::runtime(format!("invalid certificate in {path}: {e}")))?;
        store
            .add(cert)
            .map_err(|e| Error::runtime(format!("invalid certificate in {path}: {e}")))?;
    }
    if store.is_empty() {
        return Err(Error::runtime(format!(
            "no certificate found in sslrootcert {path}"
        )));
    }
    Ok(store)
}

fn web_roots() -> RootCertStore {
    RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    }
}

fn full_verifier(
    roots: RootCertStore,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ServerCertVerifier>> {
    let v = rustls::client::WebPkiServerVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .map_err(|e| Error::runtime(format!("TLS roots: {e}")))?;
    Ok(v)
}

/// `verify-ca`: the chain must lead to the given root; the host name is not checked.
#[derive(Debug)]
struct CaOnlyVerifier {
    inner: Arc<dyn ServerCertVerifier>,
}

impl ServerCertVerifier for CaOnlyVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        match self
            .inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// `prefer`/`require` without a root certificate: encrypted, not authenticated (libpq's
/// semantics). Signatures are still checked so the handshake is a real one.
#[derive(Debug)]
struct NoVerifier(Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerifier {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssl_params_are_taken_out_of_urls() {
        let (rest, ssl) = split_ssl_params(
            "postgres://u:secret@h:5433/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&application_name=x",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u:secret@h:5433/db?application_name=x");
        assert_eq!(ssl.mode.as_deref(), Some("verify-full"));
        assert_eq!(ssl.root_cert.as_deref(), Some("/tmp/ca.pem"));
    }

    #[test]
    fn ssl_params_are_taken_out_of_key_values() {
        let (rest, ssl) =
            split_ssl_params("host=h dbname='my db' sslmode=require password='a b\\'c'").unwrap();
        assert_eq!(rest, "host='h' dbname='my db' password='a b\\'c'");
        assert_eq!(ssl.mode.as_deref(), Some("require"));
        let cfg = tokio_postgres::Config::from_str(&rest).unwrap();
        assert_eq!(cfg.get_password(), Some(&b"a b'c"[..]));
    }

    #[test]
    fn describe_never_shows_the_password() {
        let t = Target::resolve(
            Some("postgres://alice:hunter2@db.example:6432/jobs"),
            &SessionLimits::default(),
        )
        .unwrap();
        assert_eq!(t.describe(), "alice@db.example:6432/jobs");
        assert!(!format!("{t:?}").contains("hunter2"));
    }

    #[test]
    fn bad_urls_are_usage_errors_without_the_secret() {
        let err = Target::resolve(
            Some("postgres://alice:hunter2@db:notaport/jobs"),
            &SessionLimits::default(),
        )
        .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(!err.message().contains("hunter2"), "{}", err.message());
    }
}
