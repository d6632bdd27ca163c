//! Resolved once per run: settings, the database pool (created lazily, on first use), the
//! HTTP client, the destinations, and the UI.

use std::time::Duration;

use tokio::sync::OnceCell;

use crate::cli::GlobalArgs;
use crate::config::Config;
use crate::db::{SessionLimits, Target};
use crate::error::Result;
use crate::ui::Ui;

pub struct Context {
    pub ui: Ui,
    pub globals: GlobalArgs,
    pub limits: SessionLimits,
    pub actor: String,
    config: std::sync::OnceLock<Result<Config>>,
    target: std::sync::OnceLock<Target>,
    pool: OnceCell<deadpool_postgres::Pool>,
    http: std::sync::OnceLock<reqwest::Client>,
}

impl Context {
    pub fn new(globals: GlobalArgs) -> Context {
        let ui = Ui::new(
            globals.output,
            globals.color,
            globals.quiet,
            globals.verbose,
        );
        let limits = SessionLimits {
            statement_timeout: globals
                .statement_timeout
                .map_or(Duration::from_secs(10), |d| d.0),
            lock_timeout: globals.lock_timeout.map_or(Duration::from_secs(2), |d| d.0),
            connect_timeout: Duration::from_secs(5),
            read_only: globals.read_only,
        };
        let actor = globals
            .actor
            .clone()
            .filter(|a| !a.trim().is_empty())
            .unwrap_or_else(default_actor);
        Context {
            ui,
            globals,
            limits,
            actor,
            config: std::sync::OnceLock::new(),
            target: std::sync::OnceLock::new(),
            pool: OnceCell::new(),
            http: std::sync::OnceLock::new(),
        }
    }

    /// Where the database is (resolved once; no connection yet).
    pub fn target(&self) -> Result<&Target> {
        if let Some(t) = self.target.get() {
            return Ok(t);
        }
        let t = Target::resolve(self.globals.database_url.as_deref(), &self.limits)?;
        Ok(self.target.get_or_init(|| t))
    }

    /// The pool, created on first use; every session has the statement and lock timeouts.
    pub async fn pool(&self) -> Result<&deadpool_postgres::Pool> {
        self.pool
            .get_or_try_init(|| async {
                let target = self.target()?;
                target.pool(16)
            })
            .await
    }

    /// A pooled connection; connection failures name the target, never the password.
    pub async fn db(&self) -> Result<deadpool_postgres::Object> {
        let pool = self.pool().await?;
        match pool.get().await {
            Ok(c) => Ok(c),
            Err(deadpool_postgres::PoolError::Backend(e)) => Err(self.target()?.connect_error(&e)),
            Err(e) => Err(e.into()),
        }
    }

    /// The destinations config (flag > env > XDG file > empty), loaded once.
    pub fn config(&self) -> Result<&Config> {
        self.config
            .get_or_init(|| {
                let cfg = Config::load(self.globals.config.as_deref());
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

/// `$USER@host`, the default actor recorded in events.
pub fn default_actor() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "unknown".into());
    format!("{user}@{}", hostname())
}

pub fn hostname() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|s| s.trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}
