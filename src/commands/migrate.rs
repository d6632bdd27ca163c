//! `reconctl migrate [--dry-run] [--yes]` and `reconctl migrate status`.
//!
//! Before applying, migrate says where (the server's own account of user, database and
//! port), and a database that already has other tables but no reconctl schema is probably
//! not the one meant: it asks on a terminal (default no) and needs `--yes` without one.

use clap::Subcommand;
use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::error::{Code, Error, Result};
use crate::migrate::{self, MigrationState, MigrationStatus, ServerSide};
use crate::ui::{Cell, Column, Output, Render, Table, Tone, Ui};

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
    /// Create the schema without asking, also in a database that already has other tables
    #[arg(short = 'y', long)]
    pub yes: bool,
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
        let mut t = Table::new(vec![
            Column::new("VERSION").right(),
            Column::new("NAME").truncate(16).priority(1),
            Column::new("STATE"),
            // A time is shown whole (to the second) or not at all.
            Column::new("APPLIED ON").priority(2),
        ]);
        for m in &self.migrations {
            let state = state_name(&m.state);
            let tone = match m.state {
                MigrationState::Applied => Tone::Good,
                MigrationState::Pending => Tone::Warn,
                MigrationState::Divergent | MigrationState::Missing => Tone::Bad,
            };
            t.row(vec![
                Cell::new(m.version.to_string()),
                Cell::new(&m.name),
                Cell::new(state).tone(tone),
                Cell::new(m.applied_on.clone().unwrap_or_default()),
            ]);
        }
        t.render(ui)
    }

    fn output(&self) -> Output {
        Output::Data
    }

    fn jsonl(&self) -> Vec<serde_json::Value> {
        self.migrations
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or_default())
            .collect()
    }
}

/// Where migrate is working: the host reached, and what the server says.
#[derive(Serialize)]
struct Where {
    host: String,
    #[serde(flatten)]
    server: ServerSide,
}

impl Where {
    /// `user@host:port/db` (the server's user and database).
    fn describe(&self) -> String {
        format!(
            "{}@{}/{}",
            self.server.user, self.host, self.server.database
        )
    }
}

#[derive(Serialize)]
struct MigrateReport {
    dry_run: bool,
    target: Where,
    applied: Vec<MigrationStatus>,
    pending: Vec<MigrationStatus>,
    /// What was built after the migrations, outside their transactions (an index built
    /// CONCURRENTLY, the counters of an older table), one sentence each.
    built: Vec<String>,
}

impl Render for MigrateReport {
    fn output(&self) -> Output {
        Output::Report
    }

    fn table(&self, ui: &Ui) -> String {
        // At the terminal's width, broken between words (an index name is a word).
        crate::ui::text::paragraphs(&self.lines(), ui.width().map(usize::from))
    }
}

impl MigrateReport {
    fn lines(&self) -> String {
        let list = if self.dry_run {
            &self.pending
        } else {
            &self.applied
        };
        let target = self.target.describe();
        if list.is_empty() && self.built.is_empty() {
            return format!("schema is up to date at {target}; nothing to apply");
        }
        if list.is_empty() {
            let mut lines = vec![format!(
                "schema is up to date at {target}; no migration to apply"
            )];
            lines.extend(self.built.iter().cloned());
            return lines.join("\n");
        }
        let verb = if self.dry_run {
            "would apply"
        } else {
            "applied"
        };
        // Where, first, as `migrate` itself says before applying: a dry run is how one
        // checks the target before the real run.
        let mut lines = vec![if self.dry_run {
            format!("dry run: {target}; nothing applied")
        } else {
            format!("migrated {target}")
        }];
        lines.extend(
            list.iter()
                .map(|m| format!("{verb} V{}__{}", m.version, m.name)),
        );
        lines.extend(self.built.iter().cloned());
        lines.join("\n")
    }
}

/// When a migration was applied, as RFC 3339 UTC to the second (the history table keeps what
/// the migration library wrote: nanoseconds, as text); text that is no time is kept as it is.
fn to_the_second(mut m: MigrationStatus) -> MigrationStatus {
    m.applied_on = m.applied_on.map(|on| {
        chrono::DateTime::parse_from_rfc3339(on.trim())
            .map(|t| {
                t.with_timezone(&chrono::Utc)
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            })
            .unwrap_or(on)
    });
    m
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
    let session = target.connect_session().await?;
    let mut client = session.client;
    match (&args.command, args.dry_run) {
        (Some(MigrateCommand::Status), _) => {
            let migrations = migrate::status(&client).await?;
            let migrations = migrations.into_iter().map(to_the_second).collect();
            ctx.ui.emit(&StatusReport { migrations })?;
        }
        (None, dry_run) => {
            let at = Where {
                host: session.host,
                server: migrate::server_side(&client).await?,
            };
            let status = migrate::status(&client).await?;
            migrate::refuse_divergent(&status)?;
            let pending: Vec<_> = status
                .into_iter()
                .filter(|m| m.state == MigrationState::Pending)
                .collect();
            if dry_run {
                ctx.ui.emit(&MigrateReport {
                    dry_run: true,
                    target: at,
                    applied: Vec::new(),
                    pending,
                    built: Vec::new(),
                })?;
                return Ok(Exit::Done);
            }
            if !pending.is_empty() {
                guard_database(ctx, args, &client, &at).await?;
                ctx.ui.status(&format!(
                    "applying {} migration(s) to {}",
                    pending.len(),
                    at.describe()
                ));
            }
            // Bounded: --lock-timeout when given, else 30s, for another migrate to finish.
            let wait = ctx.settings.lock_timeout.unwrap_or(migrate::LOCK_WAIT);
            let migrated = migrate::migrate_waiting(&mut client, wait, |holder| {
                let who = holder.map_or_else(
                    || "another session holds the migration lock".to_string(),
                    |h| format!("another migrate holds the migration lock: {h}"),
                );
                ctx.ui.status(&format!(
                    "{who}; waiting up to {}",
                    crate::duration::format_duration(wait)
                ));
            })
            .await?;
            ctx.ui.emit(&MigrateReport {
                dry_run: false,
                target: at,
                applied: migrated.applied.into_iter().map(to_the_second).collect(),
                pending: Vec::new(),
                built: migrated.built,
            })?;
        }
    }
    Ok(Exit::Done)
}

/// A database with tables of others and no reconctl schema: likely the wrong one (a URL
/// without a database reaches the user's or `postgres`). Ask, or need --yes.
async fn guard_database(
    ctx: &Context,
    args: &Args,
    client: &tokio_postgres::Client,
    at: &Where,
) -> Result<()> {
    if args.yes || migrate::has_schema(client).await? {
        return Ok(());
    }
    let others = migrate::other_tables(client).await?;
    if others == 0 {
        return Ok(());
    }
    let what = format!(
        "database \"{}\" at {} has {others} table(s) of its own and no reconctl schema",
        at.server.database, at.host
    );
    if !ctx.ui.can_prompt() {
        return Err(Error::new(
            Code::ConfirmationRequired,
            format!("refusing to create the reconctl schema: {what}"),
        )
        .hinted("check DATABASE_URL/PGDATABASE; if this is the database meant, run `reconctl migrate --yes`"));
    }
    ctx.ui.before_prompt(&format!(
        "{what}.\nmigrate would create reconctl's tables there, as {}.",
        at.server.user
    ));
    if !ctx
        .ui
        .confirm("Create the reconctl schema in this database?")?
    {
        return Err(Error::new(
            Code::Declined,
            "not confirmed: nothing was applied",
        ));
    }
    Ok(())
}
