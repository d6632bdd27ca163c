//! A server that accepts TCP and never answers: every command, `migrate` in all its forms
//! included, gives up after the connect timeout (default 5s) with exit 1 naming the host,
//! never exit 6 "busy" and never a hang. Multi-host targets report every host's reason;
//! IPv6 hosts print as `[::1]:port`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use super::Env;
use crate::reliability::cluster::free_port;

/// Accepts connections and holds them open without a byte in reply, until dropped.
struct Silent {
    addr: SocketAddr,
    _listener: std::sync::Arc<TcpListener>,
}

impl Silent {
    fn on(bind: &str) -> Option<Silent> {
        let listener = std::sync::Arc::new(TcpListener::bind(bind).ok()?);
        let addr = listener.local_addr().unwrap();
        let l = listener.clone();
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            for s in l.incoming() {
                match s {
                    Ok(s) => held.push(s),
                    Err(_) => break,
                }
            }
        });
        Some(Silent {
            addr,
            _listener: listener,
        })
    }
}

const FORMS: &[&[&str]] = &[
    &["status"],
    &["jobs", "list"],
    &["migrate"],
    &["migrate", "status"],
    &["migrate", "--dry-run"],
    &["sweep", "leases", "--dry-run"],
    &["check"],
];

#[test]
fn a_server_that_never_answers_is_exit_1_naming_the_host_within_the_timeout() {
    let silent = Silent::on("127.0.0.1:0").unwrap();
    let port = silent.addr.port();
    let home = tempfile::tempdir().unwrap();
    let url = format!("postgresql://ops@127.0.0.1:{port}/jobs");
    let env = Env::new(home.path())
        .var("DATABASE_URL", &url)
        .var("PGCONNECT_TIMEOUT", "2");
    for args in FORMS {
        let r = env.reconctl(args);
        assert_eq!(r.code(), 1, "{args:?}: {}", r.stderr());
        assert!(
            r.took < Duration::from_secs(3),
            "{args:?} took {:?} with connect_timeout 2",
            r.took
        );
        assert!(
            r.stderr().contains(&format!(
                "cannot connect to ops@127.0.0.1:{port}/jobs: no answer within 2s"
            )),
            "{args:?}: {}",
            r.stderr()
        );
        assert!(!r.stderr().contains("busy"), "{args:?}: {}", r.stderr());
    }
    // JSON says which kind of failure; doctor reports it as its connection check.
    let r = env.reconctl(&["status", "-o", "json"]).expect(1);
    assert_eq!(r.json()["error"]["code"], "connect_timeout");
    assert_eq!(r.json()["error"]["kind"], "runtime");
    let r = env.reconctl(&["doctor", "-o", "json"]).expect(1);
    assert!(r.took < Duration::from_secs(3), "doctor took {:?}", r.took);
    assert!(
        r.json()["checks"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("no answer within 2s"),
        "{}",
        r.stdout()
    );

    // The default is 5s; connect_timeout in the URL works too.
    let env = Env::new(home.path()).var("DATABASE_URL", &url);
    let r = env.reconctl(&["migrate", "status"]).expect(1);
    assert!(
        r.took >= Duration::from_secs(5) && r.took < Duration::from_secs(6),
        "took {:?}",
        r.took
    );
    assert!(r.stderr().contains("no answer within 5s"), "{}", r.stderr());
    let env = Env::new(home.path()).var("DATABASE_URL", format!("{url}?connect_timeout=3"));
    let r = env.reconctl(&["migrate"]).expect(1);
    assert!(r.took < Duration::from_secs(4), "took {:?}", r.took);
    assert!(r.stderr().contains("no answer within 3s"), "{}", r.stderr());
}

#[test]
fn a_multi_host_failure_reports_every_host() {
    let silent = Silent::on("127.0.0.1:0").unwrap();
    let hang = silent.addr.port();
    let refused = free_port();
    let home = tempfile::tempdir().unwrap();
    let env = Env::new(home.path()).var(
        "DATABASE_URL",
        format!(
            "postgresql://ops@127.0.0.1:{hang},127.0.0.1:{refused}/jobs?connect_timeout=2&target_session_attrs=read-write"
        ),
    );
    let r = env.reconctl(&["status"]).expect(1);
    let err = r.stderr();
    assert!(
        err.contains(&format!(
            "cannot connect to ops@127.0.0.1:{hang},127.0.0.1:{refused}/jobs: 127.0.0.1:{hang}: no answer within 2s; 127.0.0.1:{refused}: "
        )),
        "{err}"
    );
    assert!(err.to_lowercase().contains("refused"), "{err}");
    assert!(r.took < Duration::from_secs(4), "took {:?}", r.took);
}

#[test]
fn ipv6_hosts_print_in_brackets() {
    let Some(silent) = Silent::on("[::1]:0") else {
        eprintln!("note: no IPv6 loopback here; skipped");
        return;
    };
    let port = silent.addr.port();
    let home = tempfile::tempdir().unwrap();
    let env = Env::new(home.path()).var(
        "DATABASE_URL",
        format!("postgresql://ops@[::1]:{port}/jobs?connect_timeout=2"),
    );
    let r = env.reconctl(&["status"]).expect(1);
    assert!(
        r.stderr().contains(&format!(
            "cannot connect to ops@[::1]:{port}/jobs: no answer within 2s"
        )),
        "{}",
        r.stderr()
    );
}

#[test]
fn with_nothing_configured_the_hint_says_where_to_say_where() {
    // No DATABASE_URL, no PG* variables: libpq's default socket, and a hint to configure.
    let home = tempfile::tempdir().unwrap();
    let env = Env::new(home.path()).var("PGPORT", free_port().to_string());
    let r = env.reconctl(&["status", "-o", "json"]).expect(1);
    let hint = super::hints(&r.json());
    // PGPORT alone says where, so no "set DATABASE_URL" hint.
    assert!(!hint.contains("DATABASE_URL"), "{hint}");
    let r = Env::new(home.path())
        .var("DATABASE_URL", "")
        .reconctl(&["status", "-o", "json"]);
    // (Where a server does listen on the default socket, this connects instead.)
    if r.code() == 1 && r.json()["error"]["code"] == "connect" {
        let hint = r.json()["error"]["hint"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            hint.contains("set --database-url or DATABASE_URL"),
            "{hint}"
        );
    }
}
