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
use crate::jobs::query;

#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// List jobs, filtered, in keyset pages
    List(list::Args),
    /// One job (by id or external_ref) with its event history
    Show(show::Args),
    /// Uncertain jobs, the longest uncertain first
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

/// Refuse a `--destination` filter that names no destination anything knows (SPEC §5): the
/// commands that filter by destination (`jobs list`, `jobs uncertain`, `jobs stuck`,
/// `events`) call this before reading, so a typo is exit 2 naming the known ones instead of
/// an empty list. A configured name costs nothing; another one indexed statement.
pub(crate) async fn require_known_destination<C: tokio_postgres::GenericClient>(
    ctx: &Context,
    client: &C,
    destination: Option<&str>,
) -> Result<()> {
    let Some(name) = destination else {
        return Ok(());
    };
    let (configured, trouble) = match ctx.config() {
        Ok(c) => (c.destinations.keys().cloned().collect(), None),
        Err(e) => (Default::default(), Some(e.message().to_string())),
    };
    query::require_known_destination(client, &configured, trouble.as_deref(), name).await
}
