//! `reconctl doctor`: connection, migrations, the named unique indexes, each destination's
//! lookup proven by its controls (a known publication found, a made-up reference not found),
//! and the pauses in force (listed as information: a pause is not a failure).
//!
//! Every check runs even when an earlier one fails (a database that is down does not hide a
//! destination that is down too). Exit 1 when any check fails, with the report printed.

use chrono::SecondsFormat;
use serde::Serialize;

use super::Exit;
use crate::clock::DbClock;
use crate::context::Context;
use crate::error::{Code, Result};
use crate::jobs::{counters, pause, query};
use crate::migrate::{self, MigrationState};
use crate::schema::{index_status, server_version};
use crate::ui::{Cell, Column, Note, Output, Render, Table, Tone, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl doctor\n  reconctl doctor -o json\n  reconctl doctor --recount --statement-timeout 10m\n\nExit codes: 0 every check passed, 1 a check failed (the report says which and what to do), 5 (with --recount, no check failed) the counters disagreed with the table and were repaired (recorded; the report names each group)."
)]
pub struct Args {
    /// Count every job (reads the whole table, concurrently with the workers) and compare with the counters status, metrics and check read; repair and record any difference
    #[arg(long)]
    pub recount: bool,
}

/// One check and its outcome.
#[derive(Debug, Serialize)]
struct Check {
    check: String,
    ok: bool,
    detail: String,
    /// What to do about a failure.
    hint: Option<String>,
}

impl Check {
    fn pass(check: impl Into<String>, detail: impl Into<String>) -> Check {
        Check {
            check: check.into(),
            ok: true,
            detail: detail.into(),
            hint: None,
        }
    }

    /// A failed check, with the error's message and its first hint.
    fn error(check: impl Into<String>, e: &crate::error::Error) -> Check {
        Check::fail(check, e.message(), e.hints().first().cloned())
    }

    fn fail(check: impl Into<String>, detail: impl Into<String>, hint: Option<String>) -> Check {
        Check {
            check: check.into(),
            ok: false,
            detail: detail.into(),
            hint,
        }
    }
}

#[derive(Debug, Serialize)]
struct DoctorReport {
    ok: bool,
    checks: Vec<Check>,
}

impl DoctorReport {
    fn verdict(&self) -> String {
        match self.checks.iter().filter(|c| !c.ok).count() {
            0 => "all checks passed".to_string(),
            1 => "1 check failed".to_string(),
            n => format!("{n} checks failed"),
        }
    }

    /// The checks as a table: the detail wrapped in its column, a failure's hint on a line
    /// of its own under it (its commands never broken).
    fn checks_table(&self, checks: &[&Check], width: Option<usize>, color: bool) -> String {
        let mut t = Table::new(vec![
            Column::new("CHECK"),
            Column::new("RESULT"),
            Column::new("DETAIL").wrap(30).priority(1).or_below(),
        ]);
        for c in checks {
            let result = if c.ok {
                Cell::new("ok").tone(Tone::Good)
            } else {
                Cell::new("FAIL").tone(Tone::Bad)
            };
            t.row(vec![Cell::new(&c.check), result, Cell::new(&c.detail)]);
            if let Some(h) = &c.hint {
                t.note(Note::text(format!("hint: {h}")));
            }
        }
        t.render_at(width, color)
    }
}

impl Render for DoctorReport {
    fn table(&self, ui: &Ui) -> String {
        let all: Vec<&Check> = self.checks.iter().collect();
        format!(
            "{}\n{}",
            self.checks_table(&all, ui.width().map(usize::from), ui.color()),
            self.verdict()
        )
    }

    fn output(&self) -> Output {
        Output::Report
    }

    /// With `-q`: the failed checks, with their hints, on stderr.
    fn failure(&self, ui: &Ui) -> Option<String> {
        let failed: Vec<&Check> = self.checks.iter().filter(|c| !c.ok).collect();
        if failed.is_empty() {
            return None;
        }
        Some(format!(
            "{}\n{}",
            self.checks_table(&failed, ui.err_width().map(usize::from), false),
            self.verdict()
        ))
    }
}

async fn database_checks(ctx: &Context, checks: &mut Vec<Check>) {
    let target = match ctx.target() {
        Ok(t) => t.describe(),
        Err(e) => {
            checks.push(Check::error("connection", &e));
            return;
        }
    };
    let db = match ctx.db().await {
        Ok(db) => db,
        Err(e) => {
            checks.push(Check::error("connection", &e));
            return;
        }
    };
    let version = match server_version(&**db).await {
        Ok(v) => v,
        Err(e) => {
            checks.push(Check::error("connection", &e));
            return;
        }
    };
    checks.push(Check::pass(
        "connection",
        format!("{target}, PostgreSQL {version}"),
    ));

    match migrate::status(&db).await {
        Ok(status) => {
            let count = |s: MigrationState| status.iter().filter(|m| m.state == s).count();
            let (applied, pending) = (
                count(MigrationState::Applied),
                count(MigrationState::Pending),
            );
            let (divergent, missing) = (
                count(MigrationState::Divergent),
                count(MigrationState::Missing),
            );
            let detail = format!(
                "{applied} applied, {pending} pending, {divergent} divergent, {missing} unknown to this reconctl"
            );
            if divergent > 0 || missing > 0 {
                checks.push(Check::fail(
                    "migrations",
                    detail,
                    Some(
                        "run `reconctl migrate status`; use the reconctl release that applied them"
                            .into(),
                    ),
                ));
            } else if pending > 0 {
                checks.push(Check::fail(
                    "migrations",
                    detail,
                    Some("run `reconctl migrate`".into()),
                ));
            } else {
                checks.push(Check::pass("migrations", detail));
            }
        }
        Err(e) => checks.push(Check::error("migrations", &e)),
    }

    match index_status(&**db).await {
        Ok(indexes) => {
            for ix in indexes {
                let name = format!("index {}", ix.name);
                if ix.ok() {
                    let what = if ix.unique { "unique, valid" } else { "valid" };
                    checks.push(Check::pass(name, what));
                } else if !ix.present {
                    let why = if ix.must_be_unique {
                        "missing: nothing stops two jobs for one key"
                    } else {
                        "missing: inspection commands will scan the whole table"
                    };
                    let hint = if crate::migrate::builds_index(&ix.name) {
                        "run `reconctl migrate`: it builds this index CONCURRENTLY (writers go on)"
                    } else {
                        "run `reconctl migrate`; if it says all is applied, the index was dropped by hand: recreate it as migrations/ define it"
                    };
                    checks.push(Check::fail(name, why, Some(hint.into())));
                } else if !ix.valid {
                    let hint = if crate::migrate::builds_index(&ix.name) {
                        "run `reconctl migrate`: it drops and builds this index again, CONCURRENTLY"
                    } else {
                        "REINDEX INDEX CONCURRENTLY it"
                    };
                    checks.push(Check::fail(
                        name,
                        "invalid (an interrupted CREATE INDEX CONCURRENTLY?): PostgreSQL does not use it",
                        Some(hint.into()),
                    ));
                } else {
                    checks.push(Check::fail(
                        name,
                        "present but not unique",
                        Some("recreate it as in migrations/V1__publication_jobs.sql".into()),
                    ));
                }
            }
        }
        Err(e) => checks.push(Check::error("indexes", &e)),
    }

    // A pause is information, not a failure: one passing line per paused destination.
    // (Before V5 is applied there is nothing to list; the migrations check says so.)
    match pause::observe(&**db, &ctx.actor).await {
        Ok(pauses) => {
            for p in &pauses.in_force {
                let until = match p.until {
                    Some(u) => format!("until {}", u.to_rfc3339_opts(SecondsFormat::Secs, true)),
                    None => "until resumed".into(),
                };
                checks.push(Check::pass(
                    format!("pause {}", p.destination),
                    format!(
                        "paused by {} for {}, {until} (workers claim none of its jobs): {}",
                        p.actor,
                        crate::duration::humane(p.age(pauses.now)),
                        p.reason
                    ),
                ));
            }
        }
        Err(e) if e.code() == Code::Schema => {}
        Err(e) => checks.push(Check::error("pauses", &e)),
    }
}

async fn destination_checks(ctx: &Context, checks: &mut Vec<Check>) {
    let config = match ctx.config() {
        Ok(c) => c,
        Err(e) => {
            checks.push(Check::error("config", &e));
            return;
        }
    };
    match &config.path {
        Some(p) => checks.push(Check::pass(
            "config",
            format!(
                "{}: {} destination(s)",
                p.display(),
                config.destinations.len()
            ),
        )),
        None => checks.push(Check::pass(
            "config",
            "no config file: no destinations to check (remote lookups and reconcile need one)",
        )),
    }
    let lookups = match ctx.lookups() {
        Ok(l) => l,
        Err(e) => {
            checks.push(Check::error("http", &e));
            return;
        }
    };
    // The controls of SPEC §4: a publication the destination must hold comes back found, a
    // made-up reference not found. Reachable is not enough: a wrong path answers 404 for
    // everything, a wrong parameter `[]`, and either would pass for "not found".
    let (clock, db_down) = match ctx.db().await {
        Ok(db) => (
            query::db_clock(&**db)
                .await
                .unwrap_or_else(|_| DbClock::local()),
            None,
        ),
        Err(e) => (DbClock::local(), Some(e)),
    };
    let db_down = db_down.as_ref();
    let gate = match ctx.gate(clock) {
        Ok(g) => g,
        Err(e) => {
            checks.push(Check::error("config", &e));
            return;
        }
    };
    let gate = &gate;
    let probes = config.destinations.keys().map(|name| async move {
        let label = format!("destination {name}");
        let dest = match lookups.destination(name) {
            Ok(d) => d,
            Err(e) => return Check::error(label, &e),
        };
        // Without the database and without a canary_ref there is no publication to prove
        // the lookup with: say so, not "set canary_ref" (the config is not what is wrong).
        if let (Some(_), None) = (db_down, &dest.settings().canary_ref) {
            return Check::fail(
                label,
                "not checked: the database is unreachable, and the positive control needs a publication recorded there (this destination has no canary_ref)",
                Some("fix the connection (the connection check above says why), then run `reconctl doctor` again".into()),
            );
        }
        let controls = gate.controls(&dest).await;
        // The kind and the auth scheme (the variables' names, never a secret): what a
        // person checks first when a destination fails.
        let settings = dest.settings();
        let how = format!(
            "kind {}, auth {}",
            settings.kind.as_str(),
            settings.auth.describe()
        );
        let sees = match &controls.access {
            Some(a) => format!(
                "; its credentials ({}) see every status: {}",
                a.user,
                a.statuses.join(", ")
            ),
            None => String::new(),
        };
        match controls.failure() {
            None => Check::pass(
                label,
                format!(
                    "{how}: lookup works: {} found (positive control), a made-up reference not found (negative control){sees}",
                    controls.positive.external_ref.as_deref().unwrap_or("?")
                ),
            ),
            Some(failure) => Check::fail(
                label,
                format!("{how}: {failure}"),
                Some(format!(
                    "until this passes, every verdict for {name} is unknown and nothing moves on its word; `reconctl remote lookup --destination {name} --ref REF` shows what it answers"
                )),
            ),
        }
    });
    checks.extend(futures::future::join_all(probes).await);
}

/// The counters `status`, `metrics` and `check` read: built or not, the last repair; with
/// `--recount`, compared with a real count and repaired. Returns whether a recount repaired
/// something.
async fn counter_checks(ctx: &Context, recount: bool, checks: &mut Vec<Check>) -> bool {
    let Ok(db) = ctx.db().await else {
        return false; // the connection check says why
    };
    let built = match counters::is_built(&**db).await {
        Ok(b) => b,
        Err(e) if e.code() == Code::Schema => return false, // the migrations check says so
        Err(e) => {
            checks.push(Check::error("counters", &e));
            return false;
        }
    };
    let last = match counters::last_repair(&**db).await {
        Ok(l) => l.map_or(String::new(), |l| {
            format!(
                "; last repaired {} by {} ({} group(s))",
                l.at.to_rfc3339_opts(SecondsFormat::Secs, true),
                l.actor,
                l.groups
            )
        }),
        Err(e) => {
            checks.push(Check::error("counters", &e));
            return false;
        }
    };
    if !recount {
        if built {
            checks.push(Check::pass(
                "counters",
                format!("built (`doctor --recount` compares them with the table){last}"),
            ));
        } else {
            checks.push(Check::fail(
                "counters",
                "not built: the jobs written before migration V10 are not counted yet (status shows accepted as unknown)",
                Some("run `reconctl migrate` (with a longer --statement-timeout on a large table)".into()),
            ));
        }
        return false;
    }
    match counters::recount(&db, Some(&ctx.actor)).await {
        Ok(r) if r.differences.is_empty() => {
            checks.push(Check::pass(
                "counters",
                format!(
                    "recounted in {}: every count matches the table{last}",
                    seconds(r.took)
                ),
            ));
            false
        }
        Ok(r) => {
            let groups: Vec<String> = r
                .differences
                .iter()
                .map(|d| {
                    format!(
                        "{} at {}{}: counters said {}, the table holds {}",
                        d.state,
                        crate::ui::escape(&d.destination),
                        d.minute_label(),
                        d.counters,
                        d.counted
                    )
                })
                .collect();
            let what = if r.was_built {
                "repaired (recorded in job_counters_repairs)"
            } else {
                "built (they were not built yet)"
            };
            checks.push(Check::pass(
                "counters",
                format!(
                    "recounted in {}: {} group(s) disagreed and were {what}: {}",
                    seconds(r.took),
                    r.differences.len(),
                    groups.join("; ")
                ),
            ));
            r.was_built
        }
        Err(e) => {
            checks.push(Check::error("counters", &e));
            false
        }
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let mut checks = Vec::new();
    database_checks(ctx, &mut checks).await;
    let repaired = counter_checks(ctx, args.recount, &mut checks).await;
    destination_checks(ctx, &mut checks).await;
    let report = DoctorReport {
        ok: checks.iter().all(|c| c.ok),
        checks,
    };
    ctx.ui.emit(&report)?;
    Ok(if !report.ok {
        Exit::Inconclusive
    } else if repaired {
        Exit::Attention
    } else {
        Exit::Done
    })
}

/// A recount's duration, as a person reads it: `0.42 s`.
fn seconds(d: std::time::Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}
