//! Each way a connection fails says what failed, with only the hint that fits: a wrong
//! password (also one from .pgpass), no password, no such role, no such database, a pg_hba.conf
//! rejection, a bad connection string naming the option. Never "set DATABASE_URL" when it is
//! set; never a password in any output.

use super::parity::{cluster, APP_PASSWORD};
use super::{private_file, Env, Timed};

const WRONG: &str = "Wr0ng-Pa55word-XYZ";

fn fails(env: &Env, url: &str, code: &str) -> (String, String) {
    let r: Timed = env
        .clone()
        .var("DATABASE_URL", url)
        .reconctl(&["status", "-o", "json"])
        .expect(1);
    let all = r.all();
    for secret in [APP_PASSWORD, WRONG] {
        assert!(!all.contains(secret), "a password in the output: {all}");
    }
    let err = &r.json()["error"];
    assert_eq!(err["code"], code, "{all}");
    let message = err["message"].as_str().unwrap().to_string();
    let hint = super::hints(&r.json());
    assert!(
        !hint.contains("set --database-url or DATABASE_URL"),
        "the generic hint where DATABASE_URL is set: {hint}"
    );
    (message, hint)
}

#[tokio::test]
async fn every_failure_names_what_failed_with_its_own_hint() {
    let (c, _) = cluster(false).await;
    let p = c.port;
    let home = tempfile::tempdir().unwrap();
    let env = Env::new(home.path());

    // A wrong password.
    let (m, h) = fails(
        &env,
        &format!("postgresql://app:{WRONG}@127.0.0.1:{p}/appdb"),
        "auth_failed",
    );
    assert!(
        m.starts_with(&format!("cannot connect to app@127.0.0.1:{p}/appdb: "))
            && m.contains("password authentication failed for user \"app\""),
        "{m}"
    );
    assert!(h.contains("check the password"), "{h}");
    // A wrong password from .pgpass says which file, as libpq does.
    let pgpass = home.path().join(".pgpass");
    private_file(&pgpass, &format!("*:*:*:app:{WRONG}\n"));
    let (m, h) = fails(
        &env,
        &format!("postgresql://app@127.0.0.1:{p}/appdb"),
        "auth_failed",
    );
    assert!(
        m.contains(&format!(
            "password retrieved from file \"{}\"",
            pgpass.display()
        )),
        "{m}"
    );
    assert!(h.contains(&pgpass.display().to_string()), "{h}");
    std::fs::remove_file(&pgpass).unwrap();

    // No password at all, where one is needed.
    let (m, h) = fails(
        &env,
        &format!("postgresql://app@127.0.0.1:{p}/appdb"),
        "password_missing",
    );
    assert!(m.contains("asks for a password"), "{m}");
    assert!(
        h.contains(&format!("127.0.0.1:{p}:appdb:app:PASSWORD")),
        "{h}"
    );

    // No such role; no such database (from the URL, from PGDATABASE, by default).
    let (m, h) = fails(
        &env,
        &format!("postgresql://nobody@127.0.0.1:{p}/postgres"),
        "no_such_role",
    );
    assert!(m.contains("role \"nobody\" does not exist"), "{m}");
    assert!(h.contains("PGUSER"), "{h}");
    let (m, h) = fails(
        &env,
        &format!("postgresql://alice@127.0.0.1:{p}/nodb"),
        "no_such_database",
    );
    assert!(m.contains("database \"nodb\" does not exist"), "{m}");
    assert!(h.contains("from the connection string"), "{h}");
    let r = env
        .clone()
        .var("PGHOST", "127.0.0.1")
        .var("PGPORT", p.to_string())
        .var("PGUSER", "alice")
        .var("PGDATABASE", "nodb")
        .reconctl(&["status", "-o", "json"])
        .expect(1);
    let hint = r.json()["error"]["hint"].as_str().unwrap().to_string();
    assert!(hint.contains("from PGDATABASE"), "{hint}");
    let (_, h) = fails(
        &env,
        &format!("postgresql://bob@127.0.0.1:{p}"),
        "no_such_database",
    );
    assert!(h.contains("libpq's default, the user name \"bob\""), "{h}");

    // pg_hba.conf says no.
    let (m, h) = fails(
        &env,
        &format!("postgresql://blocked@127.0.0.1:{p}/postgres?sslmode=disable"),
        "hba_rejected",
    );
    assert!(m.contains("pg_hba.conf"), "{m}");
    assert!(
        h.contains("pg_hba.conf does not admit user \"blocked\""),
        "{h}"
    );

    // doctor shows the same specific reason and hint.
    let r = env
        .clone()
        .var(
            "DATABASE_URL",
            format!("postgresql://nobody@127.0.0.1:{p}/postgres"),
        )
        .reconctl(&["doctor", "-o", "json"])
        .expect(1);
    let conn = &r.json()["checks"][0];
    assert_eq!(conn["check"], "connection");
    assert!(
        conn["detail"]
            .as_str()
            .unwrap()
            .contains("role \"nobody\" does not exist"),
        "{conn}"
    );
    assert!(conn["hint"].as_str().unwrap().contains("PGUSER"), "{conn}");

    // A bad connection string names the option (exit 2), never the password.
    for (url, option) in [
        (
            format!("postgresql://app:{WRONG}@127.0.0.1:notaport/appdb"),
            "\"port\"",
        ),
        (
            format!("postgresql://app:{WRONG}@127.0.0.1/appdb?sslmode=sometimes"),
            "\"sslmode\"",
        ),
        (
            // The name as typed is never quoted (it may be a password's tail): its place,
            // and the keyword it is close to.
            format!("host=127.0.0.1 password={WRONG} connect_timeot=3"),
            "option 3 is not a connection option (did you mean \"connect_timeout\"?)",
        ),
    ] {
        let r = env
            .clone()
            .var("DATABASE_URL", &url)
            .reconctl(&["status"])
            .expect(2);
        assert!(r.stderr().contains(option), "{url}: {}", r.stderr());
        assert!(!r.all().contains(WRONG), "{}", r.all());
    }
    let r = env
        .clone()
        .var("PGCONNECT_TIMEOUT", "soon")
        .var("PGHOST", "127.0.0.1")
        .reconctl(&["status"])
        .expect(2);
    assert!(
        r.stderr().contains("invalid PGCONNECT_TIMEOUT"),
        "{}",
        r.stderr()
    );
}
