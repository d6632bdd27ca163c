//! `reconctl events archive`, `events prune`, `events --archive FILE` (SPEC §9; the file, the
//! checks and the SQL: `jobs::archive`).
//!
//! Prune asks like `mark`: on a terminal it shows what it would drop (partitions, months,
//! rows, the archive that holds them) and asks (default no); without one it needs `--yes`. The
//! question is asked with no transaction open; the drop then checks everything again under
//! the partitions' lock, so what was shown and what is dropped cannot differ by an event.

use std::path::PathBuf;

use chrono::Utc;
use serde::Serialize;

use crate::commands::events::EventList;
use crate::commands::{Confirmation, Exit};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::archive::{self, Archived, JobMatch, Month, PrunePlan};
use crate::jobs::events::{decode_cursor, encode_cursor, EventFilter, Position, TrailEvent};
use crate::ui::{escape, Output, Render, Ui};

#[derive(Debug, clap::Subcommand)]
pub enum Retention {
    /// Write every event of the months before MONTH to one compressed file (JSON lines, a
    /// manifest first) and record the archive
    #[command(
        after_help = "The file's name says how it is compressed: .gz (gzip) or .zst (zstd). Its first line is a manifest ({\"archive\": {\"months\", \"rows\", \"first_id\", \"last_id\", \"sha256\"}}); every other line is an event as `events -o jsonl` prints it. The archive is recorded in the database (who, when, the file, its months, rows and checksum); `events prune` drops only months an archive holds in full. Months are calendar months of UTC; the current month cannot be archived (it is still written to).\n\nExamples:\n  reconctl events archive --before 2026-09 --to /backup/reconctl-events-to-2026-08.jsonl.zst\n  reconctl events --archive /backup/reconctl-events-to-2026-08.jsonl.zst --job pub_8b8c…"
    )]
    Archive(ArchiveArgs),
    /// Drop the monthly partitions of the audit log before MONTH that an archive holds in full
    #[command(
        after_help = "Only whole partitions are dropped, never a row: each one's events are counted under its lock and must be exactly the archive's for its months, else nothing is dropped (exit 2). The prune is recorded (who, when, the months, the archive). It needs the owner of the tables (the user that runs `migrate`). Jobs are never deleted: they are the reservation's memory.\n\nExamples:\n  reconctl events prune --before 2026-09 --dry-run\n  reconctl events prune --before 2026-09 --yes"
    )]
    Prune(PruneArgs),
}

#[derive(Debug, clap::Args)]
pub struct ArchiveArgs {
    /// Every event before the start of this month (YYYY-MM, UTC)
    #[arg(long, value_name = "MONTH")]
    pub before: Month,
    /// The archive to write (must not exist): FILE.gz or FILE.zst
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Drop the months before the start of this month (YYYY-MM, UTC)
    #[arg(long, value_name = "MONTH")]
    pub before: Month,
    #[command(flatten)]
    pub confirm: Confirmation,
}

pub async fn run(ctx: &Context, cmd: &Retention) -> Result<Exit> {
    match cmd {
        Retention::Archive(args) => run_archive(ctx, args).await,
        Retention::Prune(args) => run_prune(ctx, args).await,
    }
}

async fn run_archive(ctx: &Context, args: &ArchiveArgs) -> Result<Exit> {
    let db = ctx.db().await?;
    let archived = archive::write(&db, args.before, &args.to, &ctx.actor).await?;
    drop(db);
    ctx.ui.emit(&ArchiveReport { archive: archived })?;
    Ok(Exit::Done)
}

#[derive(Debug, Serialize)]
struct ArchiveReport {
    archive: Archived,
}

impl Render for ArchiveReport {
    fn table(&self, _ui: &Ui) -> String {
        let a = &self.archive;
        format!(
            "archived {} event(s) before {} ({}) to {}\nsha256 {}\nrecorded as archive {}",
            a.manifest.rows,
            a.before,
            if a.manifest.months.is_empty() {
                "no events".to_string()
            } else {
                a.manifest.months.join(", ")
            },
            escape(&a.file),
            a.manifest.sha256,
            a.id
        )
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

async fn run_prune(ctx: &Context, args: &PruneArgs) -> Result<Exit> {
    let dry_run = args.confirm.dry_run;
    let ask = !args.confirm.yes && !dry_run;
    if ask && !ctx.ui.can_prompt() {
        return Err(Error::usage(format!(
            "refusing to prune the events before {} without --yes: there is no terminal to ask on",
            args.before
        ))
        .hinted("nothing was dropped; pass --yes to confirm from a script, or --dry-run to see what would be dropped"));
    }
    let db = ctx.db().await?;
    // With --yes there is nothing to show before the drop: the prune counts each partition
    // once, under its lock (counting it first without the lock too doubled the command's
    // time: a month's partition is read whole each time).
    if !ask && !dry_run {
        return pruned(ctx, db, args).await;
    }
    let plan = archive::plan(&**db, args.before).await?;
    // Nothing to drop, or only to be shown: the plan, and nothing changes.
    if plan.partitions.is_empty() || dry_run {
        drop(db);
        ctx.ui.emit(&PruneReport {
            dry_run,
            pruned: false,
            prune_id: None,
            plan,
        })?;
        return Ok(Exit::Done);
    }
    ctx.ui.before_prompt(&describe(&plan));
    if !ctx.ui.confirm(&format!(
        "Drop these partitions ({} event(s)) for good?",
        plan.rows
    ))? {
        return Err(Error::usage(
            "not confirmed: nothing was dropped".to_string(),
        ));
    }
    pruned(ctx, db, args).await
}

/// Drop what is archived in full, checked again under the partitions' lock, and report it.
async fn pruned(ctx: &Context, db: crate::db::PooledClient, args: &PruneArgs) -> Result<Exit> {
    let (plan, id) = archive::prune(&db, args.before, &ctx.actor).await?;
    drop(db);
    ctx.ui.emit(&PruneReport {
        dry_run: false,
        pruned: id.is_some(),
        prune_id: id,
        plan,
    })?;
    Ok(Exit::Done)
}

fn describe(plan: &PrunePlan) -> String {
    let mut lines = Vec::new();
    for p in &plan.partitions {
        lines.push(format!(
            "  {}  {}  {} event(s)",
            p.partition,
            if p.months.is_empty() {
                "(no events)".to_string()
            } else {
                p.months.join(", ")
            },
            p.rows
        ));
    }
    if let Some(a) = &plan.archive {
        lines.push(format!(
            "archived in full in archive {} ({}, sha256 {})",
            a.id,
            escape(&a.file_name),
            a.sha256
        ));
    }
    lines.join("\n")
}

#[derive(Debug, Serialize)]
struct PruneReport {
    dry_run: bool,
    pruned: bool,
    prune_id: Option<i64>,
    #[serde(flatten)]
    plan: PrunePlan,
}

impl Render for PruneReport {
    fn table(&self, _ui: &Ui) -> String {
        if self.plan.partitions.is_empty() {
            return format!(
                "nothing to prune before {}: no partition of the audit log lies wholly before it and before the current month",
                self.plan.before
            );
        }
        let head = if self.dry_run {
            "would drop (dry run):"
        } else {
            "dropped:"
        };
        format!("{head}\n{}", describe(&self.plan))
    }

    fn output(&self) -> Output {
        Output::Report
    }
}

// ---------------------------------------------------------------------------------------
// events --archive FILE
// ---------------------------------------------------------------------------------------

/// How `events` reads an archive: its filters, page and `--last`.
pub struct ArchiveRead<'a> {
    pub file: &'a std::path::Path,
    pub filter: EventFilter,
    pub job: Option<&'a str>,
    pub limit: u32,
    pub cursor: Option<&'a str>,
    pub last: Option<u32>,
}

/// `events --archive FILE [filters]`: verified whole first, then listed as `events` lists.
pub fn read(ctx: &Context, r: ArchiveRead<'_>) -> Result<Exit> {
    let job = r.job.map(JobMatch::parse).transpose()?;
    let after: Option<Position> = r.cursor.map(|c| decode_cursor(&r.filter, c)).transpose()?;
    let file = archive::open(r.file)?;
    let now = Utc::now();
    let mut matched_job: Option<uuid::Uuid> = None;
    let mut out: std::collections::VecDeque<TrailEvent> = Default::default();
    let mut more = false;
    for e in file.events()? {
        let e = e?;
        if !archive::matches(&r.filter, job.as_ref(), &e, now) {
            continue;
        }
        if let (Some(JobMatch::Prefix(p)), Some(id)) = (&job, e.job_id) {
            match matched_job {
                Some(m) if m != id => {
                    return Err(Error::usage(format!(
                        "--job {p} is the prefix of more than one job of this archive ({m}, {id})"
                    ))
                    .hinted("give more digits, the whole id, or the external_ref"));
                }
                _ => matched_job = Some(id),
            }
        }
        if let Some(a) = after {
            if (e.at, e.id) <= (a.at, a.id) {
                continue;
            }
        }
        match r.last {
            Some(n) => {
                out.push_back(e);
                if out.len() > n as usize {
                    out.pop_front();
                }
            }
            None => {
                if out.len() == r.limit as usize {
                    more = true;
                    // With a prefix, the rest must still be read to know it is unique.
                    if !matches!(job, Some(JobMatch::Prefix(_))) {
                        break;
                    }
                    continue;
                }
                out.push_back(e);
            }
        }
    }
    let events: Vec<TrailEvent> = out.into_iter().collect();
    let next_cursor = if more {
        events
            .last()
            .map(|e| encode_cursor(&r.filter, Position { at: e.at, id: e.id }))
    } else {
        None
    };
    ctx.ui.emit(&EventList::from_parts(events, next_cursor))?;
    Ok(Exit::Done)
}
