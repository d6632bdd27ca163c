//! TLS as libpq does it, side by side with psql: ~/.postgresql/root.crt by default (and what
//! happens without it), verify-full's host names, a self-signed server certificate
//! (`openssl req -x509`, CA:TRUE, the name only in the CN), client certificates with cert
//! authentication (and libpq's refusal of a key others can read), channel binding, sslmode
//! allow, and no TLS at all over a Unix socket.

use std::path::Path;

use super::{assert_both_fail, assert_parity, chmod, private_file, Env};
use crate::reliability::cluster::Cluster;
use crate::reliability::tls::{make_ca, make_client_cert, make_self_signed, make_server_cert};

const APP_PW: &str = "Scram-0ver-TLS-pw";

fn home_with(files: &[(&Path, &str)]) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for (from, name) in files {
        let to = home.path().join(".postgresql").join(name);
        private_file(&to, &std::fs::read_to_string(from).unwrap());
    }
    home
}

#[tokio::test]
async fn tls_follows_libpq_root_files_names_client_certificates_and_channel_binding() {
    let certs = tempfile::tempdir().unwrap();
    let d = certs.path();
    make_ca(d, "ca");
    make_ca(d, "other-ca");
    make_server_cert(d, "ca");
    make_client_cert(d, "ca", "certuser");
    make_self_signed(d, "self", "localhost");

    let c = Cluster::init(
        "password_encryption = 'scram-sha-256'\nssl = on\nssl_cert_file = 'server.crt'\n\
         ssl_key_file = 'server.key'\nssl_ca_file = 'ca.crt'\n",
    );
    c.install_files(&[
        (&d.join("server.crt"), "server.crt"),
        (&d.join("server.key"), "server.key"),
        (&d.join("ca.crt"), "ca.crt"),
    ]);
    c.write_hba(
        "local all all trust\n\
         hostssl all certuser 127.0.0.1/32 cert\n\
         hostssl all app 127.0.0.1/32 scram-sha-256\n\
         hostssl all trustuser 127.0.0.1/32 trust\n\
         hostnossl all app 127.0.0.1/32 scram-sha-256\n\
         hostnossl all plainonly 127.0.0.1/32 trust\n\
         hostnossl all all 127.0.0.1/32 reject\n",
    );
    c.start();
    let admin = c.wait_ready(&c.socket_conninfo("postgres")).await;
    admin
        .batch_execute(&format!(
            "CREATE ROLE certuser LOGIN; CREATE ROLE trustuser LOGIN; CREATE ROLE plainonly LOGIN;
             CREATE ROLE app LOGIN PASSWORD '{APP_PW}';"
        ))
        .await
        .unwrap();
    let psql = c.psql();
    let p = c.port;
    let conn = |host: &str, user: &str, extra: &str| {
        format!("host={host} port={p} user={user} dbname=postgres {extra}")
    };

    // ~/.postgresql/root.crt is the default root file.
    let with_ca = home_with(&[(&d.join("ca.crt"), "root.crt")]);
    let e = Env::new(with_ca.path());
    assert_parity(
        "verify-full with ~/.postgresql/root.crt",
        &e,
        &psql,
        Some(&conn("localhost", "trustuser", "sslmode=verify-full")),
    );
    assert_parity(
        "verify-ca by IP",
        &e,
        &psql,
        Some(&conn("127.0.0.1", "trustuser", "sslmode=verify-ca")),
    );
    // verify-full checks the name: the certificate says localhost.
    let (_, r) = assert_both_fail(
        "verify-full, wrong name",
        &e,
        &psql,
        &conn("127.0.0.1", "trustuser", "sslmode=verify-full"),
    );
    // libpq's words: the SAN and the CN both say localhost.
    assert!(
        r.stderr().contains(
            "server certificate for \"localhost\" (and 1 other name) does not match host name \"127.0.0.1\""
        ),
        "{}",
        r.stderr()
    );
    // A root file that exists is used by require too: another CA is refused.
    let other = home_with(&[(&d.join("other-ca.crt"), "root.crt")]);
    let (_, r) = assert_both_fail(
        "require with another CA's root.crt",
        &Env::new(other.path()),
        &psql,
        &conn("localhost", "trustuser", "sslmode=require"),
    );
    assert!(r.stderr().contains("certificate"), "{}", r.stderr());
    // No root file: verify-* is an error naming the file; require encrypts unverified.
    let bare = tempfile::tempdir().unwrap();
    let eb = Env::new(bare.path());
    let (psql_err, r) = assert_both_fail(
        "verify-ca without a root file",
        &eb,
        &psql,
        &conn("localhost", "trustuser", "sslmode=verify-ca"),
    );
    let missing = format!(
        "root certificate file \"{}/.postgresql/root.crt\" does not exist",
        bare.path().display()
    );
    assert!(psql_err.contains(&missing), "psql: {psql_err}");
    assert!(r.stderr().contains(&missing), "{}", r.stderr());
    assert_parity(
        "require without a root file",
        &eb,
        &psql,
        Some(&conn("localhost", "trustuser", "sslmode=require")),
    );

    // sslmode=allow: plaintext first, refused by pg_hba.conf here, then TLS.
    assert_parity(
        "sslmode=allow",
        &eb,
        &psql,
        Some(&conn("127.0.0.1", "trustuser", "sslmode=allow")),
    );
    // sslmode=prefer: a TLS session the server refuses (only hostnossl admits) is retried
    // in plaintext.
    assert_parity(
        "sslmode=prefer, plaintext-only entry",
        &eb,
        &psql,
        Some(&conn("127.0.0.1", "plainonly", "sslmode=prefer")),
    );
    let (_, r) = assert_both_fail(
        "sslmode=disable on a TLS-only entry",
        &eb,
        &psql,
        &conn("127.0.0.1", "trustuser", "sslmode=disable"),
    );
    assert!(r.stderr().contains("pg_hba.conf"), "{}", r.stderr());

    // A Unix socket never negotiates TLS, whatever sslmode says (and needs no root file).
    assert_parity(
        "socket with PGSSLMODE=verify-full",
        &eb.clone()
            .var("PGHOST", c.socket_dir().display().to_string())
            .var("PGPORT", p.to_string())
            .var("PGUSER", "trustuser")
            .var("PGDATABASE", "postgres")
            .var("PGSSLMODE", "verify-full"),
        &psql,
        None,
    );

    // Client certificates: ~/.postgresql/postgresql.crt and .key by default, for cert auth.
    let with_cert = home_with(&[
        (&d.join("ca.crt"), "root.crt"),
        (&d.join("certuser.crt"), "postgresql.crt"),
        (&d.join("certuser.key"), "postgresql.key"),
    ]);
    let ec = Env::new(with_cert.path());
    assert_parity(
        "client certificate from ~/.postgresql",
        &ec,
        &psql,
        Some(&conn("localhost", "certuser", "sslmode=verify-full")),
    );
    assert_parity(
        "client certificate from PGSSLCERT/PGSSLKEY",
        &eb.clone()
            .var("PGSSLCERT", d.join("certuser.crt").display().to_string())
            .var(
                "PGSSLKEY",
                with_cert
                    .path()
                    .join(".postgresql/postgresql.key")
                    .display()
                    .to_string(),
            ),
        &psql,
        Some(&conn("localhost", "certuser", "sslmode=require")),
    );
    assert_both_fail(
        "cert auth without a certificate",
        &e,
        &psql,
        &conn("localhost", "certuser", "sslmode=verify-full"),
    );
    let key = with_cert.path().join(".postgresql/postgresql.key");
    chmod(&key, 0o644);
    let (psql_err, r) = assert_both_fail(
        "a client key others can read",
        &ec,
        &psql,
        &conn("localhost", "certuser", "sslmode=verify-full"),
    );
    let loose = "has group or world access; file must have permissions u=rw (0600) or less";
    assert!(psql_err.contains(loose), "psql: {psql_err}");
    assert!(r.stderr().contains(loose), "{}", r.stderr());
    assert!(
        r.stderr().contains(&key.display().to_string()),
        "{}",
        r.stderr()
    );
    chmod(&key, 0o600);

    // channel_binding=require: works with scram over TLS (SCRAM-SHA-256-PLUS) ...
    let ep = eb.clone().var("PGPASSWORD", APP_PW);
    assert_parity(
        "channel_binding=require, scram over TLS",
        &ep,
        &psql,
        Some(&conn(
            "localhost",
            "app",
            "sslmode=require channel_binding=require",
        )),
    );
    assert_parity(
        "PGCHANNELBINDING=require",
        &ep.clone().var("PGCHANNELBINDING", "require"),
        &psql,
        Some(&conn("localhost", "app", "sslmode=require")),
    );
    // ... and fails clearly where the server authenticates without it.
    for (case, conninfo) in [
        (
            "trust auth",
            conn(
                "localhost",
                "trustuser",
                "sslmode=require channel_binding=require",
            ),
        ),
        (
            "scram without TLS",
            conn(
                "127.0.0.1",
                "app",
                "sslmode=disable channel_binding=require",
            ),
        ),
    ] {
        assert_both_fail(case, &ep, &psql, &conninfo);
        let r = ep
            .clone()
            .var("DATABASE_URL", &conninfo)
            .reconctl(&["status", "-o", "json"])
            .expect(1);
        assert_eq!(
            r.json()["error"]["code"],
            "channel_binding",
            "{case}: {}",
            r.stdout()
        );
        assert!(
            r.stderr().contains("channel_binding=require"),
            "{case}: {}",
            r.stderr()
        );
        assert!(!r.all().contains(APP_PW));
    }

    // A self-signed server certificate (CA:TRUE, the name only in its CN), trusted as the
    // root file: OpenSSL accepts it, so must we.
    drop(admin);
    c.stop("fast");
    c.install_files(&[
        (&d.join("self.crt"), "server.crt"),
        (&d.join("self.key"), "server.key"),
    ]);
    c.start();
    let _ = c.wait_ready(&c.socket_conninfo("postgres")).await;
    let trusting = home_with(&[(&d.join("self.crt"), "root.crt")]);
    let es = Env::new(trusting.path());
    assert_parity(
        "self-signed, verify-full",
        &es,
        &psql,
        Some(&conn("localhost", "trustuser", "sslmode=verify-full")),
    );
    assert_parity(
        "self-signed, verify-ca",
        &es,
        &psql,
        Some(&conn("127.0.0.1", "trustuser", "sslmode=verify-ca")),
    );
    let (_, r) = assert_both_fail(
        "self-signed, verify-full, wrong name",
        &es,
        &psql,
        &conn("127.0.0.1", "trustuser", "sslmode=verify-full"),
    );
    assert!(
        r.stderr().contains("does not match host name"),
        "{}",
        r.stderr()
    );
    // sslrootcert=system (libpq 16): the OS store does not hold this certificate; and it
    // refuses a weaker sslmode than verify-full.
    let r = es
        .clone()
        .var(
            "DATABASE_URL",
            conn("localhost", "trustuser", "sslrootcert=system"),
        )
        .reconctl(&["status"])
        .expect(1);
    assert!(r.stderr().contains("certificate"), "{}", r.stderr());
    let r = es
        .clone()
        .var(
            "DATABASE_URL",
            conn(
                "localhost",
                "trustuser",
                "sslrootcert=system sslmode=require",
            ),
        )
        .reconctl(&["status"])
        .expect(2);
    assert!(
        r.stderr()
            .contains("weak sslmode \"require\" may not be used with sslrootcert=system"),
        "{}",
        r.stderr()
    );
}
