//! `reconctl jobs uncertain`: the jobs nobody knows the outcome of, oldest first.

use super::list::{show_page, View};
use crate::commands::Exit;
use crate::commands::Page;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::query::Listing;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs uncertain\n  reconctl jobs uncertain --destination cms-a -o jsonl\n\nThe same list as `reconctl jobs list --state uncertain` (their cursors are interchangeable), with how long ago each job was sent."
)]
pub struct Args {
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    #[command(flatten)]
    pub page: Page,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let listing = Listing::uncertain(args.destination.clone());
    show_page(ctx, &listing, &args.page, View::Uncertain).await
}
