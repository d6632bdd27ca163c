//! `reconctl sweep leases`: expired leases back to pending (never sent) or to uncertain (sent).

use clap::Subcommand;

use super::Exit;
use crate::context::{hostname, Context};
use crate::duration::{format_duration, HumanDuration};
use crate::error::Result;
use crate::jobs::sweep::{sweep_with_progress, StoppedBy, SweepOptions, SweepReport};
use crate::jobs::Action;
use crate::ui::{paragraphs, Cell, Column, Output, Render, Table, Ui};

#[derive(Debug, Subcommand)]
pub enum SweepCommand {
    #[command(
        about = format!(
            "Expired leases: never sent → {}, sent → {}; batched, SKIP LOCKED",
            Action::SweepUnsent.to(),
            Action::SweepSent.to()
        ),
        after_help = "Examples:\n  reconctl sweep leases --grace 30s -q\n  reconctl sweep leases --dry-run -o json\n\ncrontab:\n  * * * * * flock -n /run/reconctl-sweep.lock reconctl sweep leases --grace 30s -q"
    )]
    Leases(LeasesArgs),
}

#[derive(Debug, clap::Args)]
pub struct LeasesArgs {
    /// Only leases that expired more than this long ago
    #[arg(long, default_value = "0s", value_name = "DUR")]
    pub grace: HumanDuration,
    /// Jobs per transaction
    #[arg(long, default_value_t = crate::jobs::sweep::DEFAULT_BATCH, value_parser = clap::value_parser!(u32).range(1..=10_000), value_name = "N")]
    pub batch: u32,
    /// Move at most this many jobs in this run
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), value_name = "N")]
    pub limit: Option<u64>,
    /// Stop starting new batches after this long
    #[arg(long, value_name = "DUR")]
    pub max_runtime: Option<HumanDuration>,
    /// Count what would move, move nothing
    #[arg(long)]
    pub dry_run: bool,
}

pub async fn run(ctx: &Context, cmd: &SweepCommand) -> Result<Exit> {
    match cmd {
        SweepCommand::Leases(args) => leases(ctx, args).await,
    }
}

/// The actor the sweep's events record: `--actor`/`RECONCTL_ACTOR` when given, else
/// `sweep@host` (a cron job's `$USER` says little about what moved the job).
fn sweep_actor(ctx: &Context) -> String {
    match &ctx.settings.actor {
        Some(a) => a.clone(),
        None => format!("sweep@{}", hostname()),
    }
}

async fn leases(ctx: &Context, args: &LeasesArgs) -> Result<Exit> {
    let opts = SweepOptions {
        grace: args.grace.0,
        batch: args.batch,
        limit: args.limit,
        max_runtime: args.max_runtime.map(|d| d.0),
        dry_run: args.dry_run,
        read_only: ctx.settings.read_only,
        actor: sweep_actor(ctx),
        resolve_with: Some(ctx.target()?.clone()),
    };
    let db = ctx.db().await?;
    // Sweeps run from cron: they keep the audit log's coming months ready (crate::retention).
    crate::retention::ensure_partitions_quietly(&**db).await;
    // A sweep is usually over in a moment: the bar only for one that is not.
    let pb = ctx
        .ui
        .progress_after("sweeping", None, std::time::Duration::from_secs(1));
    let report = sweep_with_progress(&**db, &opts, |r| {
        pb.set_message(format!(
            "sweeping ({} {} → {}, {} → {}, {} skipped), examined",
            if r.dry_run { "would move" } else { "moved" },
            r.to_pending,
            Action::SweepUnsent.to(),
            r.to_uncertain,
            Action::SweepSent.to(),
            r.skipped
        ));
        pb.set_position(r.examined);
        pb.tick();
    })
    .await;
    pb.finish_and_clear();
    ctx.ui.emit(&report?)?;
    Ok(Exit::Done)
}

impl Render for SweepReport {
    fn table(&self, ui: &Ui) -> String {
        let width = ui.width().map(usize::from);
        let batches = if self.batches == 1 {
            "batch"
        } else {
            "batches"
        };
        let elapsed = format_duration(std::time::Duration::from_millis(self.elapsed_ms));
        if self.examined == 0 {
            return format!("no expired leases to sweep ({elapsed})");
        }
        let leases = crate::ui::text::counted(
            i64::try_from(self.moved()).unwrap_or(i64::MAX),
            "expired lease",
            "expired leases",
        );
        let summary = if self.dry_run {
            format!(
                "dry run: would move {leases} ({} {batches}, {elapsed}); nothing changed",
                self.batches
            )
        } else {
            format!("moved {leases} ({} {batches}, {elapsed})", self.batches)
        };
        let mut t = Table::new(vec![
            Column::new(""),
            Column::new("").right(),
            Column::new("").truncate(24).priority(1),
        ])
        .without_header();
        let to_pending = format!("→ {}", Action::SweepUnsent.to());
        let to_uncertain = format!("→ {}", Action::SweepSent.to());
        let rows = [
            ("examined", self.examined, "expired in_flight jobs reached"),
            (
                to_pending.as_str(),
                self.to_pending,
                "never sent: workers will claim them again",
            ),
            (
                to_uncertain.as_str(),
                self.to_uncertain,
                "sent: `reconctl reconcile` asks the destinations",
            ),
            (
                "skipped as locked",
                self.skipped,
                "held or changed by a worker or another sweeper",
            ),
        ];
        for (label, n, why) in rows {
            t.row(vec![
                Cell::new(format!("  {label}")),
                Cell::new(n.to_string()),
                Cell::new(why),
            ]);
        }
        let mut out = paragraphs(&summary, width);
        out.push('\n');
        out.push_str(&t.render(ui));
        match self.stopped_by {
            StoppedBy::Done => {}
            StoppedBy::Limit => out.push_str("\nstopped at --limit; expired leases may remain"),
            StoppedBy::MaxRuntime => {
                out.push_str("\nstopped at --max-runtime; expired leases may remain")
            }
        }
        out
    }

    fn output(&self) -> Output {
        Output::Report
    }
}
