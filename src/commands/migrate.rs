//! `reconctl migrate [--dry-run]` and `reconctl migrate status`.

use clap::Subcommand;
use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::error::Result;
use crate::migrate::{self, MigrationState, MigrationStatus};
use crate::ui::{Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  reconctl migrate --dry-run\n  reconctl migrate\n  reconctl migrate status -o json"
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<MigrateCommand>,
    /// List what would be applied, apply nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Subcommand)]
pub enum MigrateCommand {
    /// List every migration: applied, pending, divergent or missing
    #[command(
        after_help = "Examples:\n  reconctl migrate status\n  reconctl migrate status -o json | jq '.migrations[] | select(.state != \"applied\")'"
    )]
    Status,
}

#[derive(Serialize)]
struct StatusReport {
    migrations: Vec<MigrationStatus>,
}

impl Render for StatusReport {
    fn table(&self, ui: &Ui) -> String {
        let mut t = ui.table();
        t.set_header(["version", "name", "state", "applied on"]);
        for m in &self.migrations {
            t.add_row([
                m.version.to_string(),
                m.name.clone(),
                state_name(&m.state).to_string(),
                m.applied_on.clone().unwrap_or_default(),
            ]);
        }
        t.to_string()
    }

    fn jsonl(&self) -> Vec<serde_json::Value> {
        self.migrations
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or_default())
            .collect()
    }
}

#[derive(Serialize)]
struct MigrateReport {
    dry_run: bool,
    applied: Vec<MigrationStatus>,
    pending: Vec<MigrationStatus>,
}

impl Render for MigrateReport {
    fn table(&self, _ui: &Ui) -> String {
        let list = if self.dry_run {
            &self.pending
        } else {
            &self.applied
        };
        if list.is_empty() {
            return "schema is up to date; nothing to apply".into();
        }
        let verb = if self.dry_run {
            "would apply"
        } else {
            "applied"
        };
        list.iter()
            .map(|m| format!("{verb} V{}__{}", m.version, m.name))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn state_name(s: &MigrationState) -> &'static str {
    match s {
        MigrationState::Applied => "applied",
        MigrationState::Pending => "pending",
        MigrationState::Divergent => "DIVERGENT",
        MigrationState::Missing => "MISSING",
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let target = ctx.target()?;
    let mut client = target.connect().await?;
    match (&args.command, args.dry_run) {
        (Some(MigrateCommand::Status), _) => {
            let migrations = migrate::status(&client).await?;
            ctx.ui.emit(&StatusReport { migrations })?;
        }
        (None, true) => {
            let status = migrate::status(&client).await?;
            migrate::refuse_divergent(&status)?;
            let pending = status
                .into_iter()
                .filter(|m| m.state == MigrationState::Pending)
                .collect();
            ctx.ui.emit(&MigrateReport {
                dry_run: true,
                applied: Vec::new(),
                pending,
            })?;
        }
        (None, false) => {
            let applied = migrate::migrate(&mut client).await?;
            ctx.ui.emit(&MigrateReport {
                dry_run: false,
                applied,
                pending: Vec::new(),
            })?;
        }
    }
    Ok(Exit::Done)
}
