//! `reconctl metrics`: Prometheus text exposition for the node_exporter textfile collector.

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl metrics > /var/lib/node_exporter/textfile/reconctl.prom.$$ && mv /var/lib/node_exporter/textfile/reconctl.prom.$$ /var/lib/node_exporter/textfile/reconctl.prom"
)]
pub struct Args {}

pub async fn run(_ctx: &Context, _args: &Args) -> Result<Exit> {
    Err(Error::bug("metrics is not built yet"))
}
