//! `reconctl destination list | pause | resume` (SPEC §6): stop workers sending to a failing
//! CMS, show everyone who paused it, why and until when, and let them claim again.
//!
//! Pause and resume ask like `mark`: on a terminal they show the destination, its open jobs
//! and in-flight leases, then ask (default No); without a terminal they need `--yes`. A name
//! that is neither configured, paused, nor named by any job is refused (exit 2, with the
//! known names): a typo must not pause nothing and look as if it worked.

mod consent;
mod list;
mod pause;
mod resume;

use std::collections::BTreeSet;

use clap::Subcommand;
use serde::Serialize;
use tokio_postgres::GenericClient;

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::pause::{self as pauses, DestinationEvent, Pauses};
use crate::ui::{paragraphs, Output, Render, Ui};

use crate::ui::destination::DestinationView;
pub use list::ListArgs;
pub use pause::PauseArgs;
pub use resume::ResumeArgs;

#[derive(Debug, Subcommand)]
#[command(
    after_help = "Examples:\n  reconctl destination list\n  reconctl destination pause cms-a --reason \"CMS answers 503, vendor ticket 4711\" --for 1h\n  reconctl destination resume cms-a --reason \"CMS healthy again\"\n\nWhile a destination is paused, workers claim none of its jobs; jobs already in flight finish\nor time out as usual, and lookups, marks and reconcile still work. Workers outside reconctl\nskip paused destinations with the predicate in SPEC §6."
)]
pub enum DestinationCommand {
    /// Every destination that is configured, paused, or has open jobs: paused or not, by whom, why, until when
    #[command(
        after_help = "PAUSED is yes, no, or expired (its end passed; shown so to a session that may not record\nthe expiry, e.g. a reader: workers already claim its jobs again). UNTIL \"not set\": paused\nuntil someone resumes it.\n\nExamples:\n  reconctl destination list\n  reconctl destination list -o json | jq -r '.destinations[] | select(.paused) | .name'"
    )]
    List(ListArgs),
    /// Stop workers claiming one destination's jobs (in-flight jobs finish as usual)
    #[command(
        after_help = "Pausing a paused destination changes its reason and end (recorded as a repause).\n\nExamples:\n  reconctl destination pause cms-a --reason \"CMS answers 503\"\n  reconctl destination pause cms-a --reason \"vendor maintenance until 14:00\" --for 2h --yes\n  reconctl destination pause cms-a --reason \"CMS answers 503\" --dry-run -o json"
    )]
    Pause(PauseArgs),
    /// Let workers claim one destination's jobs again
    #[command(
        after_help = "Resuming a destination that is not paused is \"no change\" (exit 0).\nAfterwards, settle what the outage left uncertain: reconctl reconcile --destination NAME.\n\nExamples:\n  reconctl destination resume cms-a --reason \"CMS healthy again\"\n  reconctl destination resume cms-a --reason \"CMS healthy again\" --yes -o json"
    )]
    Resume(ResumeArgs),
}

pub async fn run(ctx: &Context, cmd: &DestinationCommand) -> Result<Exit> {
    match cmd {
        DestinationCommand::List(_) => list::run(ctx).await,
        DestinationCommand::Pause(args) => pause::run(ctx, args).await,
        DestinationCommand::Resume(args) => resume::run(ctx, args).await,
    }
}

/// The configured destination names; a broken config file is a warning here, not a failure:
/// pausing a failing CMS must not wait for someone to fix a TOML file.
fn configured(ctx: &Context) -> BTreeSet<String> {
    match ctx.config() {
        Ok(c) => c.destinations.keys().cloned().collect(),
        Err(e) => {
            ctx.ui.warn(&format!(
                "config not read, only the destinations in the database are known: {}",
                e.message()
            ));
            BTreeSet::new()
        }
    }
}

/// Refuse a name nothing knows; returns whether it is configured.
async fn resolve<C: GenericClient>(
    ctx: &Context,
    client: &C,
    name: &str,
    pauses: &Pauses,
) -> Result<bool> {
    let configured = configured(ctx);
    if configured.contains(name)
        || pauses.of(name).is_some()
        || pauses.expired_of(name).is_some()
        || pauses::has_jobs(client, name).await?
    {
        return Ok(configured.contains(name));
    }
    let mut known = configured;
    known.extend(pauses::destinations_with_jobs(client).await?);
    known.extend(pauses.in_force.iter().map(|p| p.destination.clone()));
    Err(crate::jobs::query::unknown_destination(name, &known, None)
        .hinted("nothing changed; `reconctl destination list` shows them with their pauses"))
}

/// `{"destination": {...}, "event": {...} | null}` (and `"dry_run": true` on a dry run).
#[derive(Debug, Serialize)]
struct ChangeReport {
    destination: DestinationView,
    event: Option<DestinationEvent>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    #[serde(skip)]
    text: String,
}

impl Render for ChangeReport {
    fn table(&self, ui: &Ui) -> String {
        paragraphs(&self.text, ui.width().map(usize::from))
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

fn validate_reason(reason: &str) -> Result<&str> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(Error::usage(
            "--reason must say why (it is recorded, and shown to everyone who looks)",
        ));
    }
    Ok(r)
}
