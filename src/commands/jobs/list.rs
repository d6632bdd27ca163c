//! `reconctl jobs list`: filtered keyset pages.
//!
//! Also the page renderer `jobs uncertain` and `jobs stuck` share: the same JSON (SPEC §5:
//! `{"jobs": [...], "next_cursor": ...}`, one job a line with `-o jsonl`), and a table whose
//! columns suit each list.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::commands::{Exit, JobFilter, Page};
use crate::context::Context;
use crate::duration::format_duration;
use crate::error::{Error, Result};
use crate::jobs::external_ref::is_external_ref;
use crate::jobs::pause;
use crate::jobs::query::{self, JobPage, ListFilter, Listing};
use crate::jobs::{store, Job, State};
use crate::ui::destination::PAUSED_TAIL;
use crate::ui::{Cell, Column, Output, Render, Table, Tone, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl jobs list --state uncertain --destination cms-a\n  reconctl jobs list --state pending --older-than 15m -o json\n  reconctl jobs list --cursor \"$(reconctl jobs list -o json | jq -r .next_cursor)\"\n\nJobs come oldest first (by created_at, then id). A page ends with the cursor of the next one."
)]
pub struct Args {
    #[command(flatten)]
    pub filter: JobFilter,
    /// Only the job with this external_ref
    #[arg(long, value_name = "REF")]
    pub external_ref: Option<String>,
    #[command(flatten)]
    pub page: Page,
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    if let Some(r) = &args.external_ref {
        if !is_external_ref(r.trim()) {
            return Err(Error::usage(format!(
                "--external-ref `{}` is not an external_ref (pub_ + 64 lowercase hex digits)",
                r.chars().take(100).collect::<String>()
            ))
            .hinted("print one with `reconctl ref TENANT ARTICLE REVISION DESTINATION`"));
        }
    }
    let listing = Listing::Jobs(ListFilter {
        states: args.filter.state.clone(),
        destination: args.filter.destination.clone(),
        tenant: args.filter.tenant.clone(),
        article: args.filter.article.clone(),
        external_ref: args.external_ref.as_ref().map(|r| r.trim().to_string()),
        older_than: args.filter.older_than.map(|d| d.0),
    });
    show_page(ctx, &listing, &args.page, View::Jobs).await
}

/// Read one page of `listing` and print it.
pub(crate) async fn show_page(
    ctx: &Context,
    listing: &Listing,
    page: &Page,
    view: View,
) -> Result<Exit> {
    let db = ctx.db().await?;
    super::require_known_destination(ctx, &**db, listing.destination()).await?;
    let list = read_page(&db, listing, page, view, ctx.ui.is_json()).await?;
    drop(db);
    ctx.ui.emit(&list)?;
    Ok(Exit::Done)
}

/// One page of `listing`, with the destinations paused now and (for a table: `json` false)
/// the length of an id prefix that is unique in the whole table.
pub(crate) async fn read_page(
    client: &tokio_postgres::Client,
    listing: &Listing,
    page: &Page,
    view: View,
    json: bool,
) -> Result<JobList> {
    let (page, paused) = futures::try_join!(
        query::page(client, listing, page.limit, page.cursor.as_deref()),
        pause::in_force(client)
    )?;
    // A table shortens ids to a prefix: one that is unique in the table, so it can be typed.
    let ids: Vec<uuid::Uuid> = page.jobs.iter().map(|j| j.id).collect();
    let id_prefix = if json {
        0
    } else {
        store::unique_prefix_len(client, &ids).await?
    };
    let mut list = JobList::new(page, view);
    list.paused = paused.into_iter().map(|p| p.destination).collect();
    list.id_prefix = id_prefix;
    Ok(list)
}

/// Which columns a page's table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    Jobs,
    Uncertain,
    Stuck,
}

/// A page of jobs, as SPEC §5 shows lists.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct JobList {
    jobs: Vec<Job>,
    next_cursor: Option<String>,
    #[serde(skip)]
    now: DateTime<Utc>,
    #[serde(skip)]
    view: View,
    /// Destinations paused now: their jobs' destination cells say so.
    #[serde(skip)]
    paused: BTreeSet<String>,
    /// How many characters of an id are unique in the whole table (when ids are shortened).
    #[serde(skip)]
    id_prefix: usize,
}

impl JobList {
    pub(crate) fn new(page: JobPage, view: View) -> JobList {
        JobList {
            jobs: page.jobs,
            next_cursor: page.next_cursor,
            now: page.now,
            view,
            paused: BTreeSet::new(),
            id_prefix: 0,
        }
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.now
    }

    pub(crate) fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    fn since(&self, t: DateTime<Utc>) -> String {
        format_duration((self.now - t).to_std().unwrap_or_default())
    }

    /// The view's columns: the id, the state and how long are never dropped; the attempts
    /// go first, then the revision, the tenant and the article (free text: cut with … first).
    fn columns(&self) -> Vec<Column> {
        let mut c = vec![Column::id("ID")];
        if self.view != View::Uncertain {
            c.push(Column::new("STATE"));
        }
        c.extend([
            Column::new("DESTINATION").truncate(14).priority(1),
            Column::new("TENANT").truncate(8).priority(4),
            Column::new("ARTICLE").truncate(10).priority(2),
            Column::new("REV").truncate(4).priority(5),
        ]);
        match self.view {
            View::Jobs => c.extend([
                Column::new("IN STATE"),
                Column::new("ATTEMPTS").right().priority(6),
            ]),
            View::Uncertain => c.extend([
                Column::new("SENT").priority(3),
                Column::new("UNCERTAIN FOR"),
                Column::new("ATTEMPTS").right().priority(6),
            ]),
            View::Stuck => c.extend([
                Column::new("STUCK"),
                Column::new("LEASE OWNER").truncate(10).priority(3),
            ]),
        }
        c
    }
}

impl Render for JobList {
    fn table(&self, ui: &Ui) -> String {
        if self.jobs.is_empty() {
            return match self.view {
                View::Jobs => "no jobs match".into(),
                View::Uncertain => "no uncertain jobs".into(),
                View::Stuck => "no stuck jobs".into(),
            };
        }
        let mut t = Table::new(self.columns()).prefix_at_least(self.id_prefix);
        for j in &self.jobs {
            let mut row = vec![Cell::id(j.id)];
            if self.view != View::Uncertain {
                row.push(Cell::state(j.state));
            }
            // A paused destination says so, however short its name is cut.
            let destination = Cell::new(&j.destination);
            row.push(if self.paused.contains(&j.destination) {
                destination.tail(PAUSED_TAIL).tone(Tone::Warn)
            } else {
                destination
            });
            row.extend([
                Cell::new(&j.tenant_id),
                Cell::new(&j.article_id),
                Cell::new(&j.revision_id),
            ]);
            match self.view {
                View::Jobs => {
                    row.push(Cell::new(self.since(j.state_changed_at)));
                    row.push(Cell::new(j.attempts.to_string()));
                }
                View::Uncertain => {
                    let sent = j
                        .sent_at
                        .map_or_else(|| "never".to_string(), |s| format!("{} ago", self.since(s)));
                    row.push(Cell::new(sent));
                    row.push(Cell::new(self.since(j.state_changed_at)));
                    row.push(Cell::new(j.attempts.to_string()));
                }
                View::Stuck => {
                    let why = match (j.state, j.lease_expires_at) {
                        (State::InFlight, Some(exp)) => {
                            format!("lease expired {} ago", self.since(exp))
                        }
                        _ => format!("waiting {}", self.since(j.state_changed_at)),
                    };
                    row.push(Cell::new(why));
                    row.push(Cell::new(j.lease_owner.as_deref().unwrap_or("")));
                }
            }
            t.row(row);
        }
        let mut text = t.render(ui);
        if let Some(c) = &self.next_cursor {
            // The cursor is copied whole: on its own line when both do not fit one.
            let line = format!("more: --cursor {c}");
            match ui.width() {
                Some(w) if line.chars().count() > usize::from(w) => {
                    text.push_str(&format!("\nmore (the next page):\n--cursor {c}"))
                }
                _ => text.push_str(&format!("\n{line}")),
            }
        }
        text
    }

    fn output(&self) -> Output {
        Output::Data
    }

    fn jsonl(&self) -> Vec<serde_json::Value> {
        self.jobs
            .iter()
            .map(|j| serde_json::to_value(j).unwrap_or(serde_json::Value::Null))
            .collect()
    }
}
