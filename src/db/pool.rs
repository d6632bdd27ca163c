//! The connection pool: deadpool, with connections opened by [`super::connect`] (every host,
//! each within the connect timeout) instead of tokio-postgres's own loop, so a pool
//! connection fails the same way, with the same message, as a single one.

use std::time::Duration;

use deadpool::managed::{self, Metrics, RecycleError, RecycleResult};
use deadpool_postgres::ClientWrapper;

use super::Target;
use crate::error::{Code, Error, Result};

/// Opens and recycles sessions for the pool.
pub struct Connector {
    target: Target,
}

impl managed::Manager for Connector {
    type Type = ClientWrapper;
    type Error = Error;

    async fn create(&self) -> Result<ClientWrapper> {
        let (client, _) = super::connect::open(&self.target).await?;
        // The wrapper aborts the task it is given when it is dropped: given the connection's
        // own, the session would end without its Terminate. The connection's task is kept by
        // `connect` (it ends when the client is dropped, after saying goodbye); the wrapper
        // gets one that has nothing to do.
        Ok(ClientWrapper::new(client, tokio::spawn(async {})))
    }

    async fn recycle(&self, client: &mut ClientWrapper, _: &Metrics) -> RecycleResult<Error> {
        if client.is_closed() {
            return Err(RecycleError::message("connection closed"));
        }
        Ok(())
    }
}

pub type Pool = managed::Pool<Connector>;
/// A pooled session; derefs to a `tokio_postgres::Client` (through deadpool-postgres's
/// `ClientWrapper`, with its statement cache).
pub type PooledClient = managed::Object<Connector>;

/// How long a task of this process waits for a free pooled session (all `max_size` in use by
/// its own other tasks): a bound, not a server limit, so not "busy".
const WAIT: Duration = Duration::from_secs(30);

pub fn build(target: &Target, max_size: usize) -> Result<Pool> {
    Pool::builder(Connector {
        target: target.clone(),
    })
    .max_size(max_size)
    .runtime(deadpool::Runtime::Tokio1)
    .wait_timeout(Some(WAIT))
    .build()
    .map_err(|e| Error::bug(format!("pool setup: {e}")))
}

/// A pooled session, or why not: connection failures exactly as [`Target::connect`] reports
/// them; a wait for a free slot that runs out is a runtime failure, never exit 6 (busy is for
/// the server's lock and statement timeouts).
pub async fn get(pool: &Pool) -> Result<PooledClient> {
    pool.get().await.map_err(|e| match e {
        managed::PoolError::Backend(e) => e,
        managed::PoolError::Timeout(_) => Error::new(
            Code::PoolTimeout,
            format!(
                "no free database connection within {}s: all {} of this command's connections stayed in use",
                WAIT.as_secs(),
                pool.status().max_size
            ),
        ),
        other => Error::runtime(format!("database connection pool: {other}")),
    })
}
