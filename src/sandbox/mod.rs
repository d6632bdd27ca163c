//! `reconctl sandbox`: a throwaway PostgreSQL cluster, a local destination, and realistic
//! jobs made through the worker API, for a first run and for incident drills.
//!
//! Everything the sandbox starts lives under one temporary directory and is owned by
//! [`Sandbox`]: [`Sandbox::shutdown`] (or dropping it, on any error path) stops the cluster
//! and the destination and removes the directory.

pub mod cluster;
pub mod destination;
pub mod devserver;
pub mod drill;
pub mod scenario;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::db::{SessionLimits, Target};
use crate::error::{Error, Result};

pub use cluster::Cluster;
pub use destination::LocalDestination;
pub use scenario::Seeded;

/// The destination name the sandbox's jobs and config use.
pub const DESTINATION: &str = "cms-demo";
/// The destination's settle_after: short, so a drill need not wait minutes; long enough
/// that a lookup right after a send says `wait`.
pub const SETTLE_AFTER: Duration = Duration::from_secs(5);
/// Who reserves the sandbox's jobs (the worker's own name is its lease owner).
pub const PRODUCER: &str = "sandbox-producer";

/// A temporary directory removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> Result<TempDir> {
        let path = std::env::temp_dir().join(format!(
            "{prefix}-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..12]
        ));
        std::fs::create_dir(&path)
            .map_err(|e| Error::runtime(format!("cannot create {}: {e}", path.display())))?;
        Ok(TempDir(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where the sandbox's database comes from.
#[derive(Debug)]
pub enum Database {
    /// A cluster of our own, removed at the end.
    Throwaway(Cluster),
    /// `--database-url` given on the command line: used as is, left in place at the end.
    Given,
}

/// A running sandbox. Field order is drop order: the destination, then the cluster, then
/// the directory holding it and the config.
pub struct Sandbox {
    pub destination: LocalDestination,
    pub seeded: Seeded,
    pub database: Database,
    pub database_url: String,
    pub config_path: PathBuf,
    pub dir: TempDir,
}

impl Sandbox {
    /// Start (or adopt) the database and migrate it. With `given_url`, the database must hold
    /// no jobs yet: the sandbox's demo jobs never mix with real ones.
    pub async fn start(given_url: Option<&str>, limits: &SessionLimits) -> Result<Sandbox> {
        let dir = TempDir::new("reconctl-sandbox")?;
        let (database, database_url) = match given_url {
            Some(url) => (Database::Given, url.to_string()),
            None => {
                // initdb and pg_ctl take seconds and block: off the async threads.
                let pg = dir.path().join("pg");
                let cluster = tokio::task::spawn_blocking(move || Cluster::start(&pg))
                    .await
                    .map_err(|e| Error::bug(format!("the cluster's start was lost: {e}")))??;
                // sslmode=disable: the cluster speaks plain TCP on 127.0.0.1, whatever
                // PGSSLMODE the caller's shell has.
                let url = format!("{}?sslmode=disable", cluster.url());
                (Database::Throwaway(cluster), url)
            }
        };
        let config_path = dir.path().join("config.toml");
        let target = Target::resolve(Some(&database_url), limits)?;
        let mut client = target.connect().await?;
        crate::migrate::migrate(&mut client).await?;
        if matches!(database, Database::Given) {
            let jobs: i64 = client
                .query_one("SELECT count(*) FROM publication_jobs", &[])
                .await?
                .get(0);
            if jobs > 0 {
                return Err(Error::usage(format!(
                    "the database given with --database-url already holds {jobs} job(s); the sandbox adds demo jobs only to an empty database"
                ))
                .hinted("leave out --database-url to get a throwaway cluster, or give it a fresh database (createdb reconctl_sandbox)"));
            }
        }
        let destination = LocalDestination::start().await?;
        let seeded =
            scenario::seed(&client, &destination, DESTINATION, PRODUCER, SETTLE_AFTER).await?;
        // The canary: a publication the destination holds from the start, so its positive
        // control passes before any accepted job's send is older than settle_after.
        let config = format!(
            "# Written by `reconctl sandbox`; removed when it stops.\n{}",
            destination.server.config_toml(
                DESTINATION,
                &format!("{}s", SETTLE_AFTER.as_secs()),
                Some(&seeded.canary_ref)
            )
        );
        std::fs::write(&config_path, config)
            .map_err(|e| Error::runtime(format!("cannot write {}: {e}", config_path.display())))?;
        Ok(Sandbox {
            destination,
            seeded,
            database,
            database_url,
            config_path,
            dir,
        })
    }

    pub fn target(&self, limits: &SessionLimits) -> Result<Target> {
        Target::resolve(Some(&self.database_url), limits)
    }

    pub async fn connect(&self, limits: &SessionLimits) -> Result<tokio_postgres::Client> {
        self.target(limits)?.connect().await
    }

    /// The cluster's data directory, when the sandbox started one.
    pub fn data_dir(&self) -> Option<PathBuf> {
        match &self.database {
            Database::Throwaway(c) => Some(c.data_dir()),
            Database::Given => None,
        }
    }

    /// Stop everything and remove the directory, reporting (not hiding) a failure to do so.
    pub fn shutdown(mut self) -> Result<()> {
        if let Database::Throwaway(cluster) = &mut self.database {
            cluster.stop()?;
        }
        let dir = self.dir.path().to_path_buf();
        drop(self);
        if dir.exists() {
            return Err(Error::runtime(format!(
                "could not remove {}; remove it by hand",
                dir.display()
            )));
        }
        Ok(())
    }
}
