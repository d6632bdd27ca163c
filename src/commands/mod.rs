//! One module per subcommand, one handler shape: `run(ctx, args) -> Result<Exit>`.

pub mod check;
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
use crate::error::Result;

/// How a command that did not fail ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Done,
    /// `check` found problems; `reconcile` left jobs in conflict or unknown: exit 5.
    Attention,
    /// The answer was printed but settles nothing (`remote lookup`: verdict unknown): exit 1.
    Inconclusive,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Done => 0,
            Exit::Attention => 5,
            Exit::Inconclusive => 1,
        }
    }
}

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
        Command::Generate(args) => generate::run(ctx, args).await,
        Command::DevDestination(args) => dev_destination::run(ctx, args).await,
    }
}
