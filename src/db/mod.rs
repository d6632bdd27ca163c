//! Connecting to PostgreSQL the way psql does (SPEC §3): the same settings — connection
//! string, libpq's variables, service file, defaults, password file — reach the same server,
//! database and user ([`conninfo`]); TLS as libpq does it, over rustls ([`tls`]); every host
//! tried within the connect timeout ([`connect`]); a pool of such sessions ([`pool`]); and
//! the session limits (statement and lock timeouts) on every session.
//!
//! Passwords are never formatted into a message: [`Target::describe`] names user, hosts and
//! database only.

mod connect;
pub use connect::close;
pub mod conninfo;
mod passfile;
pub mod pool;
mod service;
pub mod tls;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

pub use conninfo::{Environment, Settings, SslMode};
pub use pool::{Pool, PooledClient};

use crate::error::{Error, Result};

/// Session limits applied to every connection reconctl opens.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    pub statement_timeout: Duration,
    pub lock_timeout: Duration,
    /// Per host, when the connection settings give no `connect_timeout`.
    pub connect_timeout: Duration,
    /// `--read-only`: every transaction read-only (`default_transaction_read_only`), and any
    /// server of a multi-host URL will do, a hot standby included.
    pub read_only: bool,
    /// The session of `status`, `check` or `metrics`: the planner reads `job_counters` by its
    /// key, never its whole file (`enable_seqscan = off`; see [`Target::session_options`]).
    pub counters_by_key: bool,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            statement_timeout: Duration::from_secs(10),
            lock_timeout: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(5),
            read_only: false,
            counters_by_key: false,
        }
    }
}

/// A connection of its own, and the host (`host:port`) it reached.
pub struct Session {
    pub client: tokio_postgres::Client,
    pub host: String,
}

/// Where to connect, resolved once.
#[derive(Clone)]
pub struct Target {
    settings: Arc<Settings>,
    limits: SessionLimits,
    /// `reconctl <command>`, unless the settings name an application.
    application: String,
    tls: Arc<OnceLock<std::result::Result<Arc<rustls::ClientConfig>, Error>>>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the password.
        f.write_str(&self.describe())
    }
}

impl Target {
    /// From `--database-url`/`DATABASE_URL` when given (an empty one counts as not given),
    /// else from libpq's variables, service file and defaults — as psql would.
    pub fn resolve(url: Option<&str>, limits: &SessionLimits) -> Result<Target> {
        Target::resolve_in(url, limits, &Environment::process())
    }

    /// [`Target::resolve`] with an environment of the caller's (tests).
    pub fn resolve_in(
        url: Option<&str>,
        limits: &SessionLimits,
        env: &Environment,
    ) -> Result<Target> {
        let url = url.filter(|u| !u.trim().is_empty());
        let settings = conninfo::resolve(url, env)?;
        Ok(Target {
            settings: Arc::new(settings),
            limits: *limits,
            application: "reconctl".into(),
            tls: Arc::new(OnceLock::new()),
        })
    }

    /// The `application_name` sessions report when the settings give none (libpq's
    /// `fallback_application_name`, as psql passes "psql"): `reconctl <command>`.
    pub fn with_application_name(mut self, name: impl Into<String>) -> Target {
        self.application = name.into();
        self
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Whether some host has no password (none given, none in the password file).
    pub fn lacks_password(&self) -> bool {
        self.settings.hosts.iter().any(|h| h.password.is_none())
    }

    /// The password typed at `--password`'s prompt, for every host that has none.
    pub fn with_password(mut self, secret: String) -> Target {
        let settings = Arc::make_mut(&mut self.settings);
        for h in &mut settings.hosts {
            if h.password.is_none() {
                h.password = Some(conninfo::Password {
                    secret: secret.clone(),
                    file: None,
                });
            }
        }
        self
    }

    pub fn limits(&self) -> &SessionLimits {
        &self.limits
    }

    /// libpq's warnings met while resolving (an insecure password file), to show once.
    pub fn warnings(&self) -> &[String] {
        &self.settings.warnings
    }

    /// The application name sessions report.
    pub fn application_name(&self) -> &str {
        self.settings
            .application_name
            .as_deref()
            .unwrap_or(&self.application)
    }

    /// `user@host:port/dbname` (hosts comma-separated, IPv6 in brackets). Never the password.
    pub fn describe(&self) -> String {
        let hosts: Vec<String> = self.settings.hosts.iter().map(|h| h.label()).collect();
        format!(
            "{}@{}/{}",
            self.settings.user,
            hosts.join(","),
            self.settings.dbname
        )
    }

    /// The first host, `host:port`, for messages about "the database at …".
    pub fn first_host(&self) -> String {
        self.settings
            .hosts
            .first()
            .map(|h| h.label())
            .unwrap_or_default()
    }

    /// The options sent at startup: JIT compilation off, then the settings' own (`options=`,
    /// PGOPTIONS: they may turn it on again), then reconctl's session limits, so no statement
    /// can run before them.
    ///
    /// JIT is off because every statement reconctl runs is a few index probes, and the
    /// planner decides on JIT from estimated cost: a statement that holds a branch it will not
    /// run (the scan for counters not yet built), or a table just churned, can cross
    /// `jit_above_cost` and spend half a second compiling what runs in two milliseconds
    /// (`check` took 400 ms instead of 20 at 10M jobs right after a churn).
    ///
    /// `status`, `check` and `metrics` also turn sequential scans off (the settings' own
    /// options may turn them on again). Every table those commands read has an index for what
    /// they ask or holds one row, and the one where the planner would not use the index is
    /// `job_counters`: its file keeps the size of its busiest minute. An incident's writers add
    /// a row per transaction slot and lease minute, the fold deletes them and keeps one row per
    /// group, and those rows, written last, sit at the end of the file, so VACUUM frees the
    /// pages before them but cannot cut the file. A sequential scan then reads every page, each
    /// one a first touch for a new session; by key the sum reads the index's leaves and the few
    /// pages that hold rows (the fold these sessions run reads its slots by key too). Measured
    /// on 1M jobs with 793 counter rows in a file of 624 pages: status' sum read 55 pages,
    /// index included, instead of 624, and against `psql -c 'SELECT 1'` `status` took
    /// 1.87–1.95× instead of 1.97–2.28×, `metrics` 2.02–2.06× instead of 2.29–2.39×, about what
    /// they take once the file is compacted to 14 pages (`status` 1.80–1.90×). The table is a
    /// few hundred rows, so reading it by key costs nothing when the file is small.
    fn session_options(&self) -> String {
        let l = &self.limits;
        let mut opts = format!(
            "-c statement_timeout={} -c lock_timeout={} -c idle_in_transaction_session_timeout={}",
            l.statement_timeout.as_millis(),
            l.lock_timeout.as_millis(),
            // Three statements' worth, but never above what PostgreSQL accepts (an int of
            // milliseconds), so every statement timeout the flag takes can connect.
            (l.statement_timeout.as_millis() * 3).clamp(30_000, i32::MAX as u128),
        );
        if l.read_only {
            opts.push_str(" -c default_transaction_read_only=on");
        }
        let plan = if l.counters_by_key {
            "-c jit=off -c enable_seqscan=off"
        } else {
            "-c jit=off"
        };
        match &self.settings.options {
            Some(given) => format!("{plan} {given} {opts}"),
            None => format!("{plan} {opts}"),
        }
    }

    /// The TLS configuration, built on first use (only TCP hosts with TLS need one).
    fn tls_config(&self) -> Result<Arc<rustls::ClientConfig>> {
        self.tls
            .get_or_init(|| tls::client_config(&self.settings))
            .clone()
    }

    /// One connection of its own (`migrate`, the commit check).
    pub async fn connect(&self) -> Result<tokio_postgres::Client> {
        Ok(self.connect_session().await?.client)
    }

    /// One connection, and which host of the list it reached.
    pub async fn connect_session(&self) -> Result<Session> {
        let (client, i) = connect::open(self).await?;
        Ok(Session {
            client,
            host: self.settings.hosts[i].label(),
        })
    }

    /// The pool every other command uses; created once, connects lazily.
    pub fn pool(&self, max_size: usize) -> Result<Pool> {
        pool::build(self, max_size)
    }

    /// A tokio-postgres connection error, named and hinted as a failure to reach this target
    /// (its first host).
    pub fn connect_error(&self, e: &tokio_postgres::Error) -> Error {
        connect::failure_error(self, &[(self.first_host(), connect::failure(e))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment::empty().with_os_user("osuser")
    }

    #[test]
    fn describe_never_shows_the_password() {
        let t = Target::resolve_in(
            Some("postgres://alice:hunter2@db.example:6432/jobs"),
            &SessionLimits::default(),
            &env(),
        )
        .unwrap();
        assert_eq!(t.describe(), "alice@db.example:6432/jobs");
        assert!(!format!("{t:?}").contains("hunter2"));
        let t = Target::resolve_in(
            Some("postgresql://[::1]:5501/x"),
            &SessionLimits::default(),
            &env(),
        )
        .unwrap();
        assert_eq!(t.describe(), "osuser@[::1]:5501/x");
    }

    #[test]
    fn an_empty_url_is_no_url() {
        let t = Target::resolve_in(
            Some(""),
            &SessionLimits::default(),
            &env().with_var("PGHOST", "h").with_var("PGDATABASE", "d"),
        )
        .unwrap();
        assert_eq!(t.describe(), "osuser@h:5432/d");
    }

    #[test]
    fn application_name_is_the_commands_unless_given() {
        let limits = SessionLimits::default();
        let t = Target::resolve_in(Some("host=h"), &limits, &env())
            .unwrap()
            .with_application_name("reconctl sweep leases");
        assert_eq!(t.application_name(), "reconctl sweep leases");
        let t = Target::resolve_in(
            Some("host=h"),
            &limits,
            &env().with_var("PGAPPNAME", "mine"),
        )
        .unwrap()
        .with_application_name("reconctl sweep leases");
        assert_eq!(t.application_name(), "mine");
    }

    #[test]
    fn session_options_keep_the_given_ones_and_add_the_limits() {
        let t = Target::resolve_in(
            None,
            &SessionLimits::default(),
            &env().with_var("PGOPTIONS", "-c work_mem=8MB"),
        )
        .unwrap();
        let opts = t.session_options();
        // JIT off first, so that the given options may turn it on again.
        assert!(opts.starts_with("-c jit=off -c work_mem=8MB "), "{opts}");
        assert!(opts.contains("-c statement_timeout=10000"), "{opts}");
        assert!(!opts.contains("enable_seqscan"), "{opts}");
    }

    #[test]
    fn the_counters_readers_sessions_read_by_key_unless_the_options_say_otherwise() {
        let limits = SessionLimits {
            counters_by_key: true,
            ..SessionLimits::default()
        };
        let given = env().with_var("PGOPTIONS", "-c enable_seqscan=on");
        let t = Target::resolve_in(None, &limits, &given).unwrap();
        // Before the given options: the last setting of a name wins, so theirs does.
        assert!(
            t.session_options()
                .starts_with("-c jit=off -c enable_seqscan=off -c enable_seqscan=on "),
            "{}",
            t.session_options()
        );
        let t = Target::resolve_in(None, &limits, &env()).unwrap();
        assert!(
            t.session_options()
                .starts_with("-c jit=off -c enable_seqscan=off -c statement_timeout="),
            "{}",
            t.session_options()
        );
    }
}
