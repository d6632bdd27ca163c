//! `reconctl jobs uncertain`: the jobs nobody knows the outcome of, the longest uncertain
//! first (SPEC §3): its first job is the one `status` names as the oldest.

use chrono::{DateTime, Utc};

use super::list::{read_page, show_page, JobList, View};
use crate::commands::Exit;
use crate::commands::Page;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::query::Listing;
use crate::ui::text::change;
use crate::ui::{paragraphs, Render, Ui};
use crate::watch::{self as live, Frame, Source, WatchArgs};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs uncertain\n  reconctl jobs uncertain --destination cms-a -o jsonl\n  reconctl jobs uncertain --watch\n\nThe longest uncertain first (by when the job became uncertain, state_changed_at): the first is the job `reconctl status` names as the oldest uncertain. The same jobs as `reconctl jobs list --state uncertain` (which lists them by creation), with how long ago each job was sent.\n--watch refreshes the page until q or Ctrl-C (on a terminal: how many more or fewer since the watch began, and which jobs are new; otherwise one page per interval, -o jsonl: the page's JSON document a line)."
)]
pub struct Args {
    /// Only jobs for this destination
    #[arg(long, value_name = "NAME")]
    pub destination: Option<String>,
    #[command(flatten)]
    pub page: Page,
    #[command(flatten)]
    pub watch: WatchArgs,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let listing = Listing::Uncertain {
        destination: args.destination.clone(),
    };
    if args.watch.watch {
        let db = ctx.db().await?;
        super::require_known_destination(ctx, &**db, listing.destination()).await?;
        drop(db);
        let source = Watched {
            listing,
            page: &args.page,
            title: match &args.destination {
                Some(d) => format!("reconctl jobs uncertain --destination {d} --watch"),
                None => "reconctl jobs uncertain --watch".into(),
            },
            json: ctx.ui.is_json(),
        };
        return live::watch(ctx, &source, &args.watch).await;
    }
    show_page(ctx, &listing, &args.page, View::Uncertain).await
}

/// `jobs uncertain --watch`: the page, read again every interval.
struct Watched<'a> {
    listing: Listing,
    page: &'a Page,
    title: String,
    json: bool,
}

impl Source for Watched<'_> {
    type Frame = JobList;

    fn title(&self) -> String {
        self.title.clone()
    }

    async fn read(&self, client: &tokio_postgres::Client) -> Result<JobList> {
        read_page(client, &self.listing, self.page, View::Uncertain, self.json).await
    }
}

impl Frame for JobList {
    /// The page, then how many it lists against the first refresh, and the jobs that were not
    /// on the first page (uncertain since the watch began, or moved up as others settled).
    fn screen(&self, first: &Self, ui: &Ui) -> String {
        let mut text = self.table(ui);
        let now = self.jobs().len() as i64;
        let then = first.jobs().len() as i64;
        let new: Vec<String> = self
            .jobs()
            .iter()
            .filter(|j| !first.jobs().iter().any(|f| f.id == j.id))
            .map(|j| j.id.to_string())
            .collect();
        let settled = first
            .jobs()
            .iter()
            .filter(|f| !self.jobs().iter().any(|j| j.id == f.id))
            .count();
        let mut line = format!("{now} on this page");
        let c = change(now, then);
        if !c.is_empty() {
            line.push_str(&format!(" ({c} since the watch began)"));
        }
        if settled > 0 {
            line.push_str(&format!("; {settled} no longer uncertain or listed"));
        }
        if !new.is_empty() {
            line.push_str(&format!("; new since the watch began: {}", new.join(" ")));
        }
        text.push_str("\n\n");
        text.push_str(&paragraphs(&line, ui.width().map(usize::from)));
        text
    }

    fn as_of(&self) -> DateTime<Utc> {
        self.now()
    }
}
