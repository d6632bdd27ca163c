//! `reconctl jobs stuck`: waiting too long, or holding an expired lease.

use super::list::{show_page, View};
use crate::commands::Exit;
use crate::commands::Page;
use crate::context::Context;
use crate::duration::HumanDuration;
use crate::error::Result;
use crate::jobs::query::Listing;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs stuck --older-than 15m\n  reconctl jobs stuck --older-than 1h --destination cms-a -o json\n\nStuck means what `reconctl check --stuck-after DUR` counts: pending or safe_to_retry in its state longer than DUR, or in_flight with a lease that expired more than DUR ago.\nIn-flight jobs with an expired lease are what `reconctl sweep leases` moves (to pending when never sent, else to uncertain)."
)]
pub struct Args {
    /// pending or safe_to_retry jobs waiting longer than this, and in_flight jobs whose lease expired longer ago than this
    #[arg(long, value_name = "DUR", default_value = "15m")]
    pub older_than: HumanDuration,
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    #[command(flatten)]
    pub page: Page,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let listing = Listing::Stuck {
        older_than: args.older_than.0,
        destination: args.destination.clone(),
    };
    show_page(ctx, &listing, &args.page, View::Stuck).await
}
