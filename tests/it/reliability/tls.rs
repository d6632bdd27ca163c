//! TLS to PostgreSQL (src/db.rs over rustls): a cluster of the test's own with a certificate
//! from a throwaway CA (openssl). verify-full needs the right CA and the right name;
//! verify-ca the right CA; require refuses a server that cannot do TLS.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::cluster::{chown_to_owner, Cluster};
use crate::harness::*;

pub fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is needed for the TLS test");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA in `dir/<name>.crt` (+ key).
pub fn make_ca(dir: &Path, name: &str) -> PathBuf {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
            "-subj",
            &format!("/CN=reconctl test {name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
    );
    dir.join(format!("{name}.crt"))
}

/// A server certificate for DNS name `localhost` only (so 127.0.0.1 is the wrong name).
pub fn make_server_cert(dir: &Path, ca: &str) {
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            &format!("{ca}.crt"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "server.ext",
        ],
    );
}

/// A client certificate `dir/<cn>.crt` (+ `.key`) for user `cn`, signed by CA `ca`.
pub fn make_client_cert(dir: &Path, ca: &str, cn: &str) {
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            &format!("{cn}.key"),
            "-out",
            &format!("{cn}.csr"),
            "-subj",
            &format!("/CN={cn}"),
        ],
    );
    std::fs::write(
        dir.join(format!("{cn}.ext")),
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            &format!("{cn}.csr"),
            "-CA",
            &format!("{ca}.crt"),
            "-CAkey",
            &format!("{ca}.key"),
            "-CAcreateserial",
            "-out",
            &format!("{cn}.crt"),
            "-days",
            "2",
            "-extfile",
            &format!("{cn}.ext"),
        ],
    );
}

/// A self-signed server certificate as `openssl req -x509` makes it: CA:TRUE, the name only
/// in the Common Name (no subjectAltName). `dir/<name>.crt` (+ `.key`).
pub fn make_self_signed(dir: &Path, name: &str, cn: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
            "-subj",
            &format!("/CN={cn}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
        ],
    );
}

/// Run `reconctl migrate status` against `url` (with `env` added); the exit code and stderr.
fn probe(url: &str, env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = assert_cmd::Command::cargo_bin("reconctl").unwrap();
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", "/nonexistent")
        .env("DATABASE_URL", url)
        .env("NO_COLOR", "1")
        .args(["migrate", "status", "-o", "json"])
        .timeout(std::time::Duration::from_secs(60));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn tls_verify_full_needs_the_right_ca_and_name_and_require_needs_tls() {
    let certs = tempfile::tempdir().unwrap();
    let dir = certs.path();
    make_ca(dir, "ca");
    make_ca(dir, "other-ca");
    make_server_cert(dir, "ca");

    let cluster = Cluster::init("");
    // The server's key must belong to the server's user and be private.
    for f in ["server.crt", "server.key"] {
        std::fs::copy(dir.join(f), cluster.data.join(f)).unwrap();
    }
    chown_to_owner(&cluster.data);
    std::fs::set_permissions(
        cluster.data.join("server.key"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    cluster.append_conf("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
    // Only TLS connections over TCP: a client that falls back to plaintext is refused.
    cluster.write_hba(
        "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n",
    );
    cluster.start();

    let ca = dir.join("ca.crt");
    let other = dir.join("other-ca.crt");
    let (ca, other) = (ca.to_str().unwrap(), other.to_str().unwrap());
    let port = cluster.port;
    let url = |host: &str, q: &str| format!("postgresql://postgres@{host}:{port}/postgres?{q}");

    // The right CA and the right name.
    let good = url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    let (code, err) = probe(&good, &[]);
    assert_eq!(code, 0, "verify-full with the right CA: {err}");
    // The session really is encrypted.
    let c = connect_url(&good).await;
    let ssl: bool = c
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(ssl);

    // The same, as libpq's variables and in key=value form.
    let (code, err) = probe(
        &url("localhost", ""),
        &[("PGSSLMODE", "verify-full"), ("PGSSLROOTCERT", ca)],
    );
    assert_eq!(code, 0, "PGSSLMODE=verify-full: {err}");
    let kv = format!("host=localhost port={port} user=postgres dbname=postgres sslmode=verify-full sslrootcert='{ca}'");
    let (code, err) = probe(&kv, &[]);
    assert_eq!(code, 0, "key=value verify-full: {err}");

    // The wrong name: the certificate says localhost, we dialled 127.0.0.1.
    let (code, err) = probe(
        &url(
            "127.0.0.1",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        &[],
    );
    assert_eq!(
        code, 1,
        "verify-full accepted a certificate for another name: {err}"
    );
    assert!(
        err.contains("cannot connect to postgres@127.0.0.1"),
        "{err}"
    );
    assert!(err.to_lowercase().contains("certificate"), "{err}");
    // verify-ca does not check the name.
    let (code, err) = probe(
        &url("127.0.0.1", &format!("sslmode=verify-ca&sslrootcert={ca}")),
        &[],
    );
    assert_eq!(code, 0, "verify-ca with the right CA: {err}");

    // The wrong CA, whatever the mode that checks it.
    for mode in ["verify-full", "verify-ca", "require"] {
        let (code, err) = probe(
            &url("localhost", &format!("sslmode={mode}&sslrootcert={other}")),
            &[],
        );
        assert_eq!(
            code, 1,
            "{mode} accepted a server signed by another CA: {err}"
        );
        assert!(err.to_lowercase().contains("certificate"), "{mode}: {err}");
    }
    // verify-full without a root certificate trusts only the public web roots: refused.
    let (code, err) = probe(&url("localhost", "sslmode=verify-full"), &[]);
    assert_eq!(code, 1, "verify-full without sslrootcert: {err}");
    // A missing root certificate file is a clear error, not a silent downgrade.
    let (code, err) = probe(
        &url(
            "localhost",
            "sslmode=verify-full&sslrootcert=/nonexistent/ca.crt",
        ),
        &[],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("/nonexistent/ca.crt"), "{err}");

    // require (no root certificate): encrypted, not authenticated; prefer: encrypted here.
    for mode in ["require", "prefer"] {
        let (code, err) = probe(&url("127.0.0.1", &format!("sslmode={mode}")), &[]);
        assert_eq!(code, 0, "{mode}: {err}");
    }
    // disable: plaintext, which this server refuses (hostnossl reject).
    let (code, err) = probe(&url("127.0.0.1", "sslmode=disable"), &[]);
    assert_eq!(code, 1, "disable got through a TLS-only server: {err}");

    // Now a server without TLS: require must refuse it, prefer falls back to plaintext.
    drop(c);
    cluster.stop("fast");
    cluster.append_conf("ssl = off\n");
    cluster.write_hba("local all all trust\nhost all all 127.0.0.1/32 trust\n");
    cluster.start();
    for mode in ["require", "verify-ca", "verify-full"] {
        let (code, err) = probe(
            &url("localhost", &format!("sslmode={mode}&sslrootcert={ca}")),
            &[],
        );
        assert_eq!(code, 1, "{mode} connected to a server without TLS: {err}");
        assert!(err.contains("cannot connect"), "{mode}: {err}");
    }
    let (code, err) = probe(&url("127.0.0.1", "sslmode=require"), &[]);
    assert_eq!(code, 1, "require connected to a server without TLS: {err}");
    let (code, err) = probe(&url("127.0.0.1", "sslmode=prefer"), &[]);
    assert_eq!(code, 0, "prefer against a plaintext server: {err}");
}
