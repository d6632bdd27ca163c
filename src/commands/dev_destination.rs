//! `reconctl dev-destination` (hidden): run the in-memory test destination as its own
//! process, so a bench measures reconcile alone (its time and its memory).

use std::net::SocketAddr;
use std::path::PathBuf;

use super::Exit;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::Result;
use crate::sandbox::devserver::{DevServer, Options};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address to listen on (port 0: any free port; the address is printed)
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR")]
    pub listen: SocketAddr,
    /// Added before every answer
    #[arg(long, default_value = "0s", value_name = "DUR")]
    pub latency: HumanDuration,
    /// Store a publish at once but answer it this late
    #[arg(long, value_name = "DUR")]
    pub respond_late: Option<HumanDuration>,
    /// Lookups see a new article only this long after it was stored
    #[arg(long, value_name = "DUR")]
    pub visible_after: Option<HumanDuration>,
    /// Require this bearer token (read from the named environment variable)
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// Articles to start with: `EXTERNAL_REF PAYLOAD_HASH` a line (or JSON objects)
    #[arg(long, value_name = "FILE")]
    pub seed_file: Option<PathBuf>,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let token = match &args.token_env {
        Some(var) => Some(std::env::var(var).map_err(|_| {
            crate::error::Error::usage(format!("the environment variable {var} is not set"))
        })?),
        None => None,
    };
    let server = DevServer::start(
        args.listen,
        Options {
            latency: args.latency.0,
            respond_late: args.respond_late.map(|d| d.0),
            visible_after: args.visible_after.map(|d| d.0),
            token,
        },
    )?;
    let seeded = match &args.seed_file {
        Some(f) => server.load_seed_file(f)?,
        None => 0,
    };
    // The address on stdout (a script reads it), the rest for people on stderr.
    ctx.ui.out(&server.url())?;
    ctx.ui.status(&format!(
        "dev destination on {} with {seeded} articles; lookup_url = \"{}\"; Ctrl-C to stop",
        server.url(),
        server.lookup_url()
    ));
    tokio::signal::ctrl_c().await?;
    Ok(Exit::Done)
}
