//! One module per subcommand, one handler shape: `run(ctx, args) -> Result<Exit>`.

pub mod check;
pub mod destination;
pub mod dev_destination;
pub mod doctor;
pub mod generate;
pub mod jobs;
pub mod mark;
pub mod metrics;
pub mod migrate;
pub mod reconcile;
pub mod reference;
pub mod remote;
pub mod sandbox;
pub mod status;
pub mod sweep;

use crate::cli::{Cli, Command};
use crate::context::Context;
pub use crate::error::Exit;
use crate::error::Result;

pub async fn run(ctx: &Context, cli: &Cli) -> Result<Exit> {
    match &cli.command {
        Command::Migrate(args) => migrate::run(ctx, args).await,
        Command::Doctor(args) => doctor::run(ctx, args).await,
        Command::Status(args) => status::run(ctx, args).await,
        Command::Jobs(cmd) => jobs::run(ctx, cmd).await,
        Command::Ref(args) => reference::run(ctx, args).await,
        Command::Remote(cmd) => remote::run(ctx, cmd).await,
        Command::Mark(cmd) => mark::run(ctx, cmd).await,
        Command::Sweep(cmd) => sweep::run(ctx, cmd).await,
        Command::Reconcile(args) => reconcile::run(ctx, args).await,
        Command::Metrics(args) => metrics::run(ctx, args).await,
        Command::Check(args) => check::run(ctx, args).await,
        Command::Sandbox(args) => sandbox::run(ctx, args).await,
        Command::Destination(cmd) => destination::run(ctx, cmd).await,
        Command::Generate(args) => generate::run(ctx, args).await,
        Command::DevDestination(args) => dev_destination::run(ctx, args).await,
    }
}
