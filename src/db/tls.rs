//! TLS as libpq does it with OpenSSL, over rustls (libpq docs, "SSL Support"; libpq's
//! `initialize_SSL` and `pgtls_verify_peer_name_matches_certificate_guts`):
//!
//! - the root file is `sslrootcert`, else `~/.postgresql/root.crt`; `system` is the OS store.
//!   When the file exists, every mode that uses TLS checks the chain (so `require` acts as
//!   `verify-ca`); `verify-ca`/`verify-full` without it is an error naming the file.
//! - a trusted certificate is trusted as the server's own certificate too: a self-signed one
//!   (`openssl req -x509`, CA:TRUE) in the root file works, as with OpenSSL. webpki alone
//!   refuses it (`CaUsedAsEndEntity`).
//! - `verify-full` matches the host name as libpq does: subjectAltName DNS names (a leading
//!   `*.` matches one label) and IP addresses, the Common Name only when there is no SAN of
//!   the host's kind.
//! - a client certificate is `sslcert`, else `~/.postgresql/postgresql.crt`, when that file
//!   exists; its key `sslkey`, else `~/.postgresql/postgresql.key`, refused when group or
//!   others may read it (libpq's rule and message).

use std::fs;
use std::net::IpAddr;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use x509_cert::der::asn1::ObjectIdentifier;
use x509_cert::der::oid::AssociatedOid;
use x509_cert::der::Decode;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::SubjectAltName;

use super::conninfo::{Settings, SslMode, TlsVersion};
use crate::error::{Code, Error, Result};

const NO_ROOT_HINT: &str = "Either provide the file, use the system's trusted roots with sslrootcert=system, or change sslmode to disable server certificate verification.";

fn file_error(msg: String) -> Error {
    Error::new(Code::TlsFile, msg)
}

/// The rustls client configuration for these settings (one for every TCP host).
pub fn client_config(s: &Settings) -> Result<Arc<rustls::ClientConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let trust = roots(s)?;
    let verifier = Arc::new(PgVerifier {
        trust,
        check_name: s.sslmode == SslMode::VerifyFull,
        provider: provider.clone(),
    });
    let versions: Vec<&'static rustls::SupportedProtocolVersion> = [
        (TlsVersion::V1_2, &rustls::version::TLS12),
        (TlsVersion::V1_3, &rustls::version::TLS13),
    ]
    .into_iter()
    .filter(|(v, _)| *v >= s.tls_min && *v <= s.tls_max)
    .map(|(_, v)| v)
    .collect();
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&versions)
        .map_err(|e| Error::bug(format!("TLS setup: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match client_cert(s)? {
        Some((certs, key, path)) => builder.with_client_auth_cert(certs, key).map_err(|e| {
            file_error(format!(
                "cannot use the client certificate {}: {e}",
                path.display()
            ))
        })?,
        None => builder.with_no_client_auth(),
    };
    config.enable_sni = s.sslsni;
    Ok(Arc::new(config))
}

/// The trusted certificates: as a store for chains, and as DER to recognise a trusted
/// certificate presented as the server's own.
struct Trust {
    store: Arc<RootCertStore>,
    anchors: Vec<CertificateDer<'static>>,
}

fn roots(s: &Settings) -> Result<Option<Trust>> {
    let path: Option<PathBuf> = match s.sslrootcert.as_deref() {
        Some("system") => return system_roots().map(Some),
        Some(p) => Some(PathBuf::from(p)),
        None => s.home.as_ref().map(|h| h.join(".postgresql/root.crt")),
    };
    match path {
        Some(p) if p.exists() => load_roots(&p).map(Some),
        Some(p) if s.sslmode.verifies() => Err(file_error(format!(
            "root certificate file \"{}\" does not exist",
            p.display()
        ))
        .hinted(NO_ROOT_HINT)),
        None if s.sslmode.verifies() => Err(file_error(
            "could not get home directory to locate root certificate file".into(),
        )
        .hinted(NO_ROOT_HINT)),
        _ => Ok(None),
    }
}

fn load_roots(path: &Path) -> Result<Trust> {
    let pem = crate::files::read_regular(path, crate::files::SETTINGS_FILE_CAP).map_err(|e| {
        file_error(format!(
            "could not read root certificate file \"{}\": {e}",
            path.display()
        ))
    })?;
    let mut store = RootCertStore::empty();
    let mut anchors = Vec::new();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        let cert = cert.map_err(|e| {
            file_error(format!(
                "could not read root certificate file \"{}\": {e}",
                path.display()
            ))
        })?;
        store.add(cert.clone()).map_err(|e| {
            file_error(format!(
                "invalid certificate in root certificate file \"{}\": {e}",
                path.display()
            ))
        })?;
        anchors.push(cert);
    }
    if anchors.is_empty() {
        return Err(file_error(format!(
            "no certificate found in root certificate file \"{}\"",
            path.display()
        )));
    }
    Ok(Trust {
        store: Arc::new(store),
        anchors,
    })
}

/// `sslrootcert=system`: the operating system's store (SSL_CERT_FILE / SSL_CERT_DIR honoured,
/// as OpenSSL's default paths are).
fn system_roots() -> Result<Trust> {
    let found = rustls_native_certs::load_native_certs();
    let mut store = RootCertStore::empty();
    let (added, _) = store.add_parsable_certificates(found.certs);
    if added == 0 {
        return Err(file_error(
            "sslrootcert=system: no trusted root certificates found in the system store".into(),
        )
        .hinted("install the ca-certificates package, or give sslrootcert a CA file"));
    }
    Ok(Trust {
        store: Arc::new(store),
        anchors: Vec::new(),
    })
}

type ClientCert = (
    Vec<CertificateDer<'static>>,
    PrivateKeyDer<'static>,
    PathBuf,
);

fn client_cert(s: &Settings) -> Result<Option<ClientCert>> {
    if !s.send_client_cert {
        return Ok(None);
    }
    let cert_path = match (&s.sslcert, &s.home) {
        (Some(c), _) => PathBuf::from(c),
        (None, Some(h)) => h.join(".postgresql/postgresql.crt"),
        (None, None) => return Ok(None),
    };
    // A missing certificate file means "no client certificate" (libpq).
    match fs::metadata(&cert_path) {
        Ok(_) => {}
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(20 /* ENOTDIR */) =>
        {
            return Ok(None)
        }
        Err(e) => {
            return Err(file_error(format!(
                "could not open certificate file \"{}\": {e}",
                cert_path.display()
            )))
        }
    }
    let pem =
        crate::files::read_regular(&cert_path, crate::files::SETTINGS_FILE_CAP).map_err(|e| {
            file_error(format!(
                "could not read certificate file \"{}\": {e}",
                cert_path.display()
            ))
        })?;
    let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut pem.as_slice())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| {
            file_error(format!(
                "could not read certificate file \"{}\": {e}",
                cert_path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(file_error(format!(
            "no certificate found in certificate file \"{}\"",
            cert_path.display()
        )));
    }
    let key_path = match (&s.sslkey, &s.home) {
        (Some(k), _) => PathBuf::from(k),
        (None, Some(h)) => h.join(".postgresql/postgresql.key"),
        (None, None) => cert_path.with_extension("key"),
    };
    let meta = fs::metadata(&key_path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            file_error(format!(
                "certificate present, but not private key file \"{}\"",
                key_path.display()
            ))
        } else {
            file_error(format!(
                "could not stat private key file \"{}\": {e}",
                key_path.display()
            ))
        }
    })?;
    if !meta.is_file() {
        return Err(file_error(format!(
            "private key file \"{}\" is not a regular file",
            key_path.display()
        )));
    }
    // libpq: root-owned keys may be 0640 (a group of readers); others 0600 or less.
    let loose = if meta.uid() == 0 {
        meta.mode() & 0o037 != 0
    } else {
        meta.mode() & 0o077 != 0
    };
    if loose {
        return Err(file_error(format!(
            "private key file \"{}\" has group or world access; file must have permissions u=rw (0600) or less if owned by the current user, or permissions u=rw,g=r (0640) or less if owned by root",
            key_path.display()
        ))
        .hinted(format!("chmod 0600 {}", key_path.display())));
    }
    let pem =
        crate::files::read_regular(&key_path, crate::files::SETTINGS_FILE_CAP).map_err(|e| {
            file_error(format!(
                "could not read private key file \"{}\": {e}",
                key_path.display()
            ))
        })?;
    let key = rustls_pemfile::private_key(&mut pem.as_slice())
        .ok()
        .flatten()
        .ok_or_else(|| {
            file_error(format!(
                "could not load private key file \"{}\": no unencrypted PEM private key in it",
                key_path.display()
            ))
            .hinted("an encrypted key must be decrypted first (openssl pkey -in KEY -out KEY.plain); reconctl has no sslpassword")
        })?;
    Ok(Some((certs, key, cert_path)))
}

/// The server certificate check for every sslmode that uses TLS: none without a root file,
/// the chain with one, and the host name too for `verify-full`.
#[derive(Debug)]
struct PgVerifier {
    trust: Option<Trust>,
    check_name: bool,
    provider: Arc<CryptoProvider>,
}

impl std::fmt::Debug for Trust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Trust({} roots)", self.store.len())
    }
}

impl ServerCertVerifier for PgVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp: &[u8],
        now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let Some(trust) = &self.trust else {
            // libpq without a root file: encrypted, not authenticated.
            return Ok(ServerCertVerified::assertion());
        };
        if trust
            .anchors
            .iter()
            .any(|a| a.as_ref() == end_entity.as_ref())
        {
            // The server presents a certificate we trust as it is (a self-signed one).
            check_validity(end_entity, now)?;
        } else {
            let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
            rustls::client::verify_server_cert_signed_by_trust_anchor(
                &parsed,
                &trust.store,
                intermediates,
                now,
                self.provider.signature_verification_algorithms.all,
            )?;
        }
        if self.check_name {
            let host = match server_name {
                ServerName::DnsName(d) => d.as_ref().to_string(),
                ServerName::IpAddress(ip) => IpAddr::from(*ip).to_string(),
                _ => String::new(),
            };
            check_name(end_entity, &host)?;
        }
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
            &self.provider.signature_verification_algorithms,
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
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

fn parse(der: &[u8]) -> std::result::Result<x509_cert::Certificate, rustls::Error> {
    x509_cert::Certificate::from_der(der)
        .map_err(|e| rustls::Error::General(format!("cannot parse the server certificate: {e}")))
}

fn check_validity(der: &[u8], now: UnixTime) -> std::result::Result<(), rustls::Error> {
    let cert = parse(der)?;
    let validity = &cert.tbs_certificate.validity;
    let now = now.as_secs();
    if now < validity.not_before.to_unix_duration().as_secs() {
        return Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::NotValidYet,
        ));
    }
    if now > validity.not_after.to_unix_duration().as_secs() {
        return Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::Expired,
        ));
    }
    Ok(())
}

/// libpq's host name rules for `verify-full` (see the module comment).
fn check_name(der: &[u8], host: &str) -> std::result::Result<(), rustls::Error> {
    let cert = parse(der)?;
    let host_ip: Option<IpAddr> = host.parse().ok();
    let mut names: Vec<String> = Vec::new();
    let mut check_cn = true;
    for ext in cert.tbs_certificate.extensions.iter().flatten() {
        if ext.extn_id != SubjectAltName::OID {
            continue;
        }
        let Ok(san) = SubjectAltName::from_der(ext.extn_value.as_bytes()) else {
            continue;
        };
        for name in san.0 {
            match name {
                GeneralName::DnsName(d) => {
                    if host_ip.is_none() {
                        check_cn = false;
                    }
                    let d = d.as_str().to_string();
                    if name_matches(&d, host) {
                        return Ok(());
                    }
                    names.push(d);
                }
                GeneralName::IpAddress(bytes) => {
                    if host_ip.is_some() {
                        check_cn = false;
                    }
                    let ip = match bytes.as_bytes().len() {
                        4 => <[u8; 4]>::try_from(bytes.as_bytes()).ok().map(IpAddr::from),
                        16 => <[u8; 16]>::try_from(bytes.as_bytes())
                            .ok()
                            .map(IpAddr::from),
                        _ => None,
                    };
                    if let Some(ip) = ip {
                        if Some(ip) == host_ip {
                            return Ok(());
                        }
                        names.push(ip.to_string());
                    }
                }
                _ => {}
            }
        }
    }
    if check_cn {
        let cn_oid = ObjectIdentifier::new_unwrap("2.5.4.3");
        for rdn in &cert.tbs_certificate.subject.0 {
            for atv in rdn.0.iter() {
                if atv.oid != cn_oid {
                    continue;
                }
                let cn = String::from_utf8_lossy(atv.value.value()).into_owned();
                if name_matches(&cn, host) {
                    return Ok(());
                }
                names.push(cn);
            }
        }
    }
    Err(rustls::Error::General(match names.len() {
        0 => "could not get server's host name from server certificate".to_string(),
        1 => format!(
            "server certificate for \"{}\" does not match host name \"{host}\"",
            names[0]
        ),
        n => format!(
            "server certificate for \"{}\" (and {} other name{}) does not match host name \"{host}\"",
            names[0],
            n - 1,
            if n == 2 { "" } else { "s" }
        ),
    }))
}

/// Case-insensitive equality, or a `*.` wildcard standing for exactly one leftmost label
/// (libpq's `wildcard_certificate_match`).
fn name_matches(pattern: &str, host: &str) -> bool {
    if pattern.eq_ignore_ascii_case(host) {
        return true;
    }
    let Some(suffix) = pattern.strip_prefix('*') else {
        return false;
    };
    if !suffix.starts_with('.') || suffix.len() < 2 || host.len() <= suffix.len() {
        return false;
    }
    let (label, rest) = host.split_at(host.len() - suffix.len());
    rest.eq_ignore_ascii_case(suffix) && !label.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_cover_one_label_only() {
        assert!(name_matches("db.example", "DB.example"));
        assert!(name_matches("*.example.com", "db.example.com"));
        assert!(!name_matches("*.example.com", "a.db.example.com"));
        assert!(!name_matches("*.example.com", "example.com"));
        assert!(!name_matches("*example.com", "dbexample.com"));
    }
}
