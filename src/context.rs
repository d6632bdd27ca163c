//! Resolved once per run: settings, the database pool (created lazily, on first use), the
//! HTTP client, the destinations, and the UI.

use std::time::Duration;

use tokio::sync::OnceCell;

use std::path::PathBuf;

use crate::config::Config;
use crate::db::{SessionLimits, Target};
use crate::error::Result;
use crate::ui::{ColorChoice, Format, Ui};

/// What the command line and the environment ask for, resolved once
/// (`cli::GlobalArgs::settings`): every command reads its settings here.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--database-url`, else `DATABASE_URL` (else libpq's rules, in `db`).
    pub database_url: Option<String>,
    /// `--database-url` was typed on this command line (the sandbox uses no other).
    pub database_url_typed: bool,
    /// `--config`, else `RECONCTL_CONFIG` (else the XDG file, in `config`).
    pub config: Option<PathBuf>,
    pub format: Format,
    pub color: ColorChoice,
    pub quiet: bool,
    pub verbose: u8,
    /// `--actor`, else `RECONCTL_ACTOR` (else the OS user at the host).
    pub actor: Option<String>,
    /// As typed (the defaults are applied in [`Context::new`]).
    pub statement_timeout: Option<Duration>,
    pub lock_timeout: Option<Duration>,
    pub read_only: bool,
    /// `-W/--password`: ask on the terminal when no password is found.
    pub ask_password: bool,
    /// The subcommand path (`sweep leases`), for the sessions' `application_name`.
    pub command: String,
}

pub struct Context {
    pub ui: Ui,
    pub settings: Settings,
    pub limits: SessionLimits,
    pub actor: String,
    /// The command path (`sweep leases`), for the sessions' `application_name`.
    pub command: String,
    config: std::sync::OnceLock<Result<Config>>,
    target: std::sync::OnceLock<Target>,
    pool: OnceCell<crate::db::Pool>,
    /// The last failure to connect, and when: asked again within the connect timeout, the
    /// answer is the same, without waiting that long once more (doctor asks twice).
    connect_failure: std::sync::Mutex<Option<(std::time::Instant, crate::error::Error)>>,
    http: std::sync::OnceLock<reqwest::Client>,
}

impl Context {
    pub fn new(settings: Settings) -> Context {
        let ui = Ui::new(
            settings.format,
            settings.color,
            settings.quiet,
            settings.verbose,
        );
        let defaults = SessionLimits::default();
        let limits = SessionLimits {
            statement_timeout: settings
                .statement_timeout
                .unwrap_or(defaults.statement_timeout),
            lock_timeout: settings.lock_timeout.unwrap_or(defaults.lock_timeout),
            read_only: settings.read_only,
            ..defaults
        };
        let actor = settings.actor.clone().unwrap_or_else(default_actor);
        Context {
            ui,
            command: settings.command.clone(),
            settings,
            limits,
            actor,
            config: std::sync::OnceLock::new(),
            target: std::sync::OnceLock::new(),
            pool: OnceCell::new(),
            connect_failure: std::sync::Mutex::new(None),
            http: std::sync::OnceLock::new(),
        }
    }

    /// Where the database is (resolved once, as psql would; no connection yet). libpq's
    /// warnings (an insecure ~/.pgpass) are shown here, once.
    pub fn target(&self) -> Result<&Target> {
        if let Some(t) = self.target.get() {
            return Ok(t);
        }
        let application = match self.command.as_str() {
            "" => "reconctl".to_string(),
            c => format!("reconctl {c}"),
        };
        let mut t = Target::resolve(self.settings.database_url.as_deref(), &self.limits)?
            .with_application_name(application);
        for w in t.warnings() {
            self.ui.warn(w);
        }
        if self.settings.ask_password && t.lacks_password() {
            let secret = self.ask_password(&t)?;
            t = t.with_password(secret);
        }
        Ok(self.target.get_or_init(|| t))
    }

    /// `--password` and no password found: ask on the terminal, as psql -W does; without one
    /// (cron, a pipe) say so, exit 2: a job must not wait for an answer nobody can give.
    fn ask_password(&self, t: &Target) -> Result<String> {
        use crate::error::Error;
        if !self.ui.can_prompt() {
            return Err(Error::usage(
                "--password asks for the database password on a terminal, and there is none here",
            )
            .hinted(
                "give the password without a terminal through PGPASSWORD or ~/.pgpass (mode 0600)",
            ));
        }
        let prompt = format!(
            "Password for user {} at {}: ",
            crate::ui::escape(&t.settings().user),
            crate::ui::escape(&t.first_host())
        );
        self.ui.ask_secret(&prompt)?.ok_or_else(|| {
            Error::new(
                crate::error::Code::Declined,
                "no password given: nothing done",
            )
        })
    }

    /// The pool, created on first use; every session has the statement and lock timeouts.
    pub async fn pool(&self) -> Result<&crate::db::Pool> {
        self.pool
            .get_or_try_init(|| async {
                let target = self.target()?;
                target.pool(16)
            })
            .await
    }

    /// Ends the run's sessions as psql ends its one: the pool's idle sessions are dropped and
    /// each says goodbye to its server (Terminate) before the process exits, so the server
    /// logs no lost connection. Waits at most a fifth of a second (a session still in use, or
    /// a server that stopped reading, is not waited for).
    pub async fn close(&self) {
        if let Some(pool) = self.pool.get() {
            pool.close();
        }
        crate::db::close(std::time::Duration::from_millis(200)).await;
    }

    /// A pooled connection; connection failures name the target and every host's reason,
    /// never the password.
    pub async fn db(&self) -> Result<crate::db::PooledClient> {
        let pool = self.pool().await?;
        let target = self.target()?;
        let window = target
            .settings()
            .connect_timeout
            .unwrap_or(target.limits().connect_timeout);
        if let Ok(last) = self.connect_failure.lock() {
            if let Some((at, err)) = last.as_ref() {
                if at.elapsed() < window {
                    return Err(err.clone());
                }
            }
        }
        let result = crate::db::pool::get(pool).await;
        if let Ok(mut last) = self.connect_failure.lock() {
            *last = match &result {
                Err(e) if e.code() != crate::error::Code::PoolTimeout => {
                    Some((std::time::Instant::now(), e.clone()))
                }
                _ => None,
            };
        }
        result
    }

    /// Errors that need the target to say what to fix: a missing reconctl schema means
    /// "wrong database?" before it means "run migrate".
    pub fn explain(&self, err: crate::error::Error) -> crate::error::Error {
        use crate::error::{Code, Error};
        if err.code() != Code::Schema {
            return err;
        }
        let core: Vec<String> = crate::schema::TABLES
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect();
        let Some(target) = self.target.get() else {
            return err;
        };
        if !core.iter().any(|t| err.message().contains(t)) {
            return err;
        }
        Error::new(
            Code::Schema,
            format!(
                "database \"{}\" at {} has no reconctl schema — check DATABASE_URL/PGDATABASE, or run `reconctl migrate` to create it there",
                target.settings().dbname,
                target.first_host()
            ),
        )
    }

    /// The destinations config (flag > env > XDG file > empty), loaded once.
    pub fn config(&self) -> Result<&Config> {
        self.config
            .get_or_init(|| {
                let cfg = Config::load(self.settings.config.as_deref());
                if let Ok(cfg) = &cfg {
                    for w in &cfg.warnings {
                        self.ui.warn(w);
                    }
                }
                cfg
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The one HTTP client (rustls), built on first use.
    fn http(&self) -> Result<&reqwest::Client> {
        if let Some(c) = self.http.get() {
            return Ok(c);
        }
        let client = crate::remote::build_client()?;
        Ok(self.http.get_or_init(|| client))
    }

    /// The destinations and the client that asks them (the config read and the client built
    /// once, on first use), to pass down to whatever asks a destination.
    pub fn lookups(&self) -> Result<crate::remote::Lookups<'_>> {
        Ok(crate::remote::Lookups::new(self.config()?, self.http()?))
    }
}

/// `$USER@host`, the default actor recorded in events; without USER and LOGNAME (systemd,
/// containers) the OS user from the password database, as psql would find it.
pub fn default_actor() -> String {
    let user = env_var("USER")
        .or_else(|| env_var("LOGNAME"))
        .or_else(crate::db::conninfo::os_user)
        .unwrap_or_else(|| "unknown".into());
    format!("{user}@{}", hostname())
}

/// A variable of the environment; set to the empty string counts as unset (SPEC §3).
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `HOSTNAME` when set, else the system's host name.
pub fn hostname() -> String {
    env_var("HOSTNAME")
        .or_else(|| whoami::hostname().ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "localhost".into())
}

/// The trust gate reads the job table through the command's pool (SPEC §4's positive control).
impl crate::remote::gate::JobTable for Context {
    fn connection(
        &self,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<crate::db::PooledClient>> + Send + '_>,
    > {
        Box::pin(self.db())
    }
}

impl Context {
    /// The controls' gate of one run of a command that asks destinations
    /// (`lookup.controls_every` from the config).
    pub fn gate(&self, clock: crate::clock::DbClock) -> Result<crate::remote::gate::Gate<'_>> {
        Ok(crate::remote::gate::Gate::new(
            self,
            self.config()?.lookup.controls_every,
            clock,
        ))
    }
}
