//! The same settings reach the same server, database and user as psql: a URL with PGPORT,
//! PGHOST as a socket directory, host=/dir, postgresql:///db?host=/dir, service files (in
//! HOME, PGSERVICEFILE, PGSYSCONFDIR; a service beats PGPORT as in libpq), .pgpass (and
//! libpq's refusal of an insecure one), PGOPTIONS, PGAPPNAME, database = user, user = the
//! OS user, and libpq's default socket.

use std::path::Path;

use super::{assert_both_fail, assert_parity, chmod, os_user, private_file, Env};
use crate::reliability::cluster::Cluster;

pub const APP_PASSWORD: &str = "Pgpass-0nly-S3cret";

/// A cluster of the test's own: trust on its socket (except `app`, which needs its
/// password there too), scram-sha-256 for `app` over TCP, a `reject` line for `blocked`, trust
/// for the rest. Roles alice (databases alice, alicedb, optdb), app (appdb), bob (no
/// database), blocked, and the OS user (its own database).
pub async fn cluster(default_socket: bool) -> (Cluster, bool) {
    let c = Cluster::init("password_encryption = 'scram-sha-256'\n");
    let in_default =
        default_socket && c.also_listen_in(Path::new(reconctl::db::conninfo::DEFAULT_SOCKET_DIR));
    c.write_hba(
        "local all app scram-sha-256\n\
         local all all trust\n\
         host all app 127.0.0.1/32 scram-sha-256\n\
         host all blocked 127.0.0.1/32 reject\n\
         host all all 127.0.0.1/32 trust\n",
    );
    c.start();
    let admin = c.wait_ready(&c.socket_conninfo("postgres")).await;
    let me = os_user();
    let mut setup = vec![
        "CREATE ROLE alice LOGIN".to_string(),
        "CREATE DATABASE alice OWNER alice".into(),
        "CREATE DATABASE alicedb OWNER alice".into(),
        "CREATE DATABASE optdb OWNER alice".into(),
        format!("CREATE ROLE app LOGIN PASSWORD '{APP_PASSWORD}'"),
        "CREATE DATABASE appdb OWNER app".into(),
        "CREATE ROLE bob LOGIN".into(),
        "CREATE ROLE blocked LOGIN".into(),
    ];
    if me != "postgres" {
        setup.push(format!("CREATE ROLE \"{me}\" LOGIN"));
        setup.push(format!("CREATE DATABASE \"{me}\" OWNER \"{me}\""));
    }
    for sql in setup {
        admin.batch_execute(&sql).await.unwrap();
    }
    (c, in_default)
}

#[tokio::test]
async fn psql_and_reconctl_reach_the_same_database_as_the_same_user() {
    let (c, in_default_socket) = cluster(true).await;
    let psql = c.psql();
    let p = c.port.to_string();
    let sock = c.socket_dir().display().to_string();
    let home = tempfile::tempdir().unwrap();
    let e = || Env::new(home.path());

    // A URL leaves the port out: PGPORT fills it, as for psql (not 5432).
    assert_parity(
        "URL without a port, PGPORT",
        &e().var("PGPORT", &p),
        &psql,
        Some("postgresql://alice@127.0.0.1/alicedb"),
    );
    // PGHOST as a socket directory (no TLS over a socket, whatever PGSSLMODE says).
    let socket_env = || e().var("PGHOST", &sock).var("PGPORT", &p);
    let db = assert_parity(
        "PGHOST=socket dir",
        &socket_env()
            .var("PGUSER", "alice")
            .var("PGDATABASE", "alicedb")
            .var("PGSSLMODE", "require"),
        &psql,
        None,
    );
    assert_eq!(db, "alicedb");
    assert_parity(
        "host=/dir",
        &e(),
        &psql,
        Some(&format!("host={sock} port={p} user=alice dbname=alicedb")),
    );
    assert_parity(
        "postgresql:///db?host=/dir",
        &e(),
        &psql,
        Some(&format!(
            "postgresql:///alicedb?host={sock}&port={p}&user=alice"
        )),
    );
    assert_parity(
        "a URL without a host, PGHOST",
        &socket_env(),
        &psql,
        Some("postgresql://alice@/alicedb"),
    );
    // Defaults: database = user; user = the OS user from the password database.
    let db = assert_parity(
        "no database",
        &socket_env().var("PGUSER", "alice"),
        &psql,
        None,
    );
    assert_eq!(db, "alice");
    let db = assert_parity("no user", &socket_env(), &psql, None);
    assert_eq!(db, os_user());

    // Service files: in HOME; a service's port beats PGPORT (libpq reads it first).
    private_file(
        &home.path().join(".pg_service.conf"),
        &format!("# ops\n[par]\nhost={sock}\nport={p}\nuser=alice\ndbname=alicedb\n"),
    );
    assert_parity(
        "PGSERVICE, and PGPORT that the service overrides",
        &e().var("PGSERVICE", "par").var("PGPORT", "1"),
        &psql,
        None,
    );
    assert_parity("service= in key=value", &e(), &psql, Some("service=par"));
    assert_parity(
        "service= in a URL",
        &e(),
        &psql,
        Some("postgresql:///?service=par"),
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let svc = elsewhere.path().join("services.conf");
    private_file(
        &svc,
        &format!("[other]\nhost=127.0.0.1\nport={p}\nuser=alice\ndbname=alice\n"),
    );
    let db = assert_parity(
        "PGSERVICEFILE",
        &e().var("PGSERVICEFILE", svc.display().to_string())
            .var("PGSERVICE", "other"),
        &psql,
        None,
    );
    assert_eq!(db, "alice");
    private_file(
        &elsewhere.path().join("pg_service.conf"),
        &format!("[sys]\nhost={sock}\nport={p}\nuser=alice\ndbname=alicedb\n"),
    );
    assert_parity(
        "the system service file (PGSYSCONFDIR)",
        &e().var("PGSYSCONFDIR", elsewhere.path().display().to_string())
            .var("PGSERVICE", "sys"),
        &psql,
        None,
    );

    // .pgpass in HOME, for TCP and for a socket directory.
    let pgpass = home.path().join(".pgpass");
    private_file(
        &pgpass,
        &format!(
            "# host:port:db:user:password\n127.0.0.1:{p}:appdb:app:{pw}\n{sock}:{p}:*:app:{pw}\n",
            pw = super::parity::APP_PASSWORD
        ),
    );
    assert_parity(
        ".pgpass over TCP",
        &e(),
        &psql,
        Some(&format!("postgresql://app@127.0.0.1:{p}/appdb")),
    );
    assert_parity(
        ".pgpass for a socket directory",
        &socket_env().var("PGUSER", "app").var("PGDATABASE", "appdb"),
        &psql,
        None,
    );
    // PGPASSFILE elsewhere.
    let pwfile = elsewhere.path().join("pw");
    private_file(&pwfile, &format!("*:*:*:app:{APP_PASSWORD}\n"));
    assert_parity(
        "PGPASSFILE",
        &Env::new(elsewhere.path()).var("PGPASSFILE", pwfile.display().to_string()),
        &psql,
        Some(&format!("host=127.0.0.1 port={p} user=app dbname=appdb")),
    );
    // An insecure password file: both ignore it, with libpq's warning.
    chmod(&pgpass, 0o644);
    let url = format!("postgresql://app@127.0.0.1:{p}/appdb");
    let (psql_err, r) = assert_both_fail(".pgpass readable by others", &e(), &psql, &url);
    let warning = "has group or world access; permissions should be u=rw (0600) or less";
    assert!(psql_err.contains(warning), "psql: {psql_err}");
    assert!(r.stderr().contains(warning), "reconctl: {}", r.stderr());
    assert!(
        r.stderr().contains(&pgpass.display().to_string()),
        "{}",
        r.stderr()
    );
    chmod(&pgpass, 0o600);

    // PGAPPNAME names the session for both.
    let env = socket_env()
        .var("PGUSER", "alice")
        .var("PGAPPNAME", "ops-shell");
    let shown = env.psql(&psql, None, "SELECT current_setting('application_name')");
    assert_eq!(shown.stdout().trim(), "ops-shell");
    let r = env
        .reconctl(&["migrate", "--dry-run", "-o", "json"])
        .expect(0);
    assert_eq!(r.json()["target"]["application_name"], "ops-shell");

    // PGOPTIONS reaches the session for both: here, read-only transactions.
    let env = socket_env()
        .var("PGUSER", "alice")
        .var("PGDATABASE", "optdb");
    env.reconctl(&["migrate"]).expect(0);
    let env = env.var("PGOPTIONS", "-c default_transaction_read_only=on");
    let shown = env.psql(&psql, None, "SHOW default_transaction_read_only");
    assert_eq!(shown.stdout().trim(), "on");
    let reserve = [
        "jobs",
        "reserve",
        "--tenant",
        "t",
        "--article",
        "a",
        "--revision",
        "1",
        "--destination",
        "d",
        "--payload-hash",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "-o",
        "json",
    ];
    let r = env.reconctl(&reserve).expect(1);
    assert_eq!(
        r.json()["error"]["code"],
        "read_only",
        "PGOPTIONS did not reach reconctl's session: {}",
        r.stderr()
    );

    // libpq's default socket directory, and .pgpass's `localhost` for it.
    if in_default_socket {
        let db = assert_parity(
            "the default socket",
            &e().var("PGPORT", &p).var("PGUSER", "alice"),
            &psql,
            None,
        );
        assert_eq!(db, "alice");
        private_file(
            &pgpass,
            &format!("localhost:{p}:appdb:app:{APP_PASSWORD}\n"),
        );
        assert_parity(
            ".pgpass localhost = the default socket",
            &e().var("PGPORT", &p)
                .var("PGUSER", "app")
                .var("PGDATABASE", "appdb"),
            &psql,
            None,
        );
        // ... but not another socket directory.
        assert_both_fail(
            ".pgpass localhost is not another socket",
            &e(),
            &psql,
            &format!("host={sock} port={p} user=app dbname=appdb"),
        );
    } else {
        eprintln!(
            "note: {} is not writable by the server's user: the default-socket cases were skipped",
            reconctl::db::conninfo::DEFAULT_SOCKET_DIR
        );
    }
}
