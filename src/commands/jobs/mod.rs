//! `reconctl jobs …`: list, show, reserve; the uncertain and the stuck.

pub mod list;
pub mod reserve;
pub mod show;
pub mod stuck;
pub mod uncertain;

use clap::Subcommand;

use super::Exit;
use crate::context::Context;
use crate::error::Result;

#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// List jobs, filtered, in keyset pages
    List(list::Args),
    /// One job (by id or external_ref) with its event history
    Show(show::Args),
    /// Uncertain jobs, oldest first
    Uncertain(uncertain::Args),
    /// Jobs waiting too long, and in-flight jobs whose lease expired
    Stuck(stuck::Args),
    /// Reserve the one job of a publishing intent (the worker's first step)
    Reserve(reserve::Args),
}

pub async fn run(ctx: &Context, cmd: &JobsCommand) -> Result<Exit> {
    match cmd {
        JobsCommand::List(args) => list::run(ctx, args).await,
        JobsCommand::Show(args) => show::run(ctx, args).await,
        JobsCommand::Uncertain(args) => uncertain::run(ctx, args).await,
        JobsCommand::Stuck(args) => stuck::run(ctx, args).await,
        JobsCommand::Reserve(args) => reserve::run(ctx, args).await,
    }
}
