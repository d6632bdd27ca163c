//! `reconctl check`: for cron and alerting; exit 5 when a threshold is exceeded.
//!
//! Built to run every minute against a table of millions of jobs: every number comes from a
//! partial index of the open states (`jobs::query::health`), and the out-of-order search
//! reads only the jobs accepted within `--order-window` (`jobs::query::out_of_order`).
//! Healthy and without `-v`, it prints nothing (cron mails any output); `-o json` always
//! prints its document, for scripts.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::duration::{format_duration, humane, HumanDuration};
use crate::error::Result;
use crate::jobs::pause::{self, Pause, Pauses};
use crate::jobs::query::{self, Health, OutOfOrder};
use crate::ui::thousands;
use crate::ui::{escape, Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl check\n  reconctl check --max-uncertain 10 --stuck-after 30m || page-oncall\n  reconctl check --max-pause 2h\n\nExit codes: 0 healthy (prints nothing unless -v), 5 a threshold is exceeded (one line per violation)."
)]
pub struct Args {
    /// Most uncertain jobs tolerated
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_uncertain: u64,
    /// Most conflict jobs tolerated
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_conflict: u64,
    /// pending/safe_to_retry waiting longer than this, or a lease expired longer ago, is stuck (the rule of `jobs stuck --older-than`)
    #[arg(long, default_value = "15m", value_name = "DUR")]
    pub stuck_after: HumanDuration,
    /// An uncertain job older than this is a violation even within --max-uncertain
    #[arg(long, value_name = "DUR")]
    pub uncertain_after: Option<HumanDuration>,
    /// Look for out-of-order publications (an older revision accepted after a newer one) among the jobs accepted this recently; run check more often than this
    #[arg(long, default_value = "1h", value_name = "DUR")]
    pub order_window: HumanDuration,
    /// A destination paused for longer than this is a violation (someone may have forgotten to resume it) [default: pauses are never a violation]
    #[arg(long, value_name = "DUR")]
    pub max_pause: Option<HumanDuration>,
}

/// One exceeded threshold.
#[derive(Debug, Serialize)]
struct Violation {
    /// The flag it exceeds: `max_uncertain`, `max_conflict`, `uncertain_after`,
    /// `stuck_after`, `out_of_order`, or `max_pause` (count: paused destinations).
    check: &'static str,
    /// How many jobs (or out-of-order pairs) exceed it.
    count: i64,
    message: String,
}

#[derive(Debug, Serialize)]
struct Thresholds {
    max_uncertain: u64,
    max_conflict: u64,
    stuck_after_seconds: u64,
    uncertain_after_seconds: Option<u64>,
    order_window_seconds: u64,
    max_pause_seconds: Option<u64>,
}

#[derive(Debug, Serialize)]
struct Counts {
    uncertain: i64,
    conflict: i64,
    /// Uncertain for longer than `uncertain_after` (0 without it).
    uncertain_overdue: i64,
    /// pending or safe_to_retry for longer than `stuck_after`.
    stuck_waiting: i64,
    /// in_flight with a lease that expired more than `stuck_after` ago.
    stuck_leases: i64,
    /// Of `stuck_waiting`: those of a paused destination (waiting because of the pause).
    stuck_waiting_paused: i64,
}

#[derive(Debug, Serialize)]
struct CheckReport {
    healthy: bool,
    violations: Vec<Violation>,
    counts: Counts,
    thresholds: Thresholds,
    out_of_order: Vec<OutOfOrder>,
    /// The destinations paused now (`status`'s shape).
    pauses: Vec<Pause>,
    #[serde(skip)]
    summary: String,
}

fn jobs(n: i64) -> String {
    crate::ui::text::counted(n, "job", "jobs")
}

fn since(now: DateTime<Utc>, t: Option<DateTime<Utc>>) -> String {
    t.map(|t| format_duration((now - t).to_std().unwrap_or_default()))
        .unwrap_or_default()
}

fn report(args: &Args, h: &Health, ooo: Vec<OutOfOrder>, pauses: &Pauses) -> CheckReport {
    let mut v = Vec::new();
    let now = h.now;
    let stuck_after = args.stuck_after;
    if h.uncertain > args.max_uncertain as i64 {
        v.push(Violation {
            check: "max_uncertain",
            count: h.uncertain,
            message: format!(
                "uncertain: {} (at most {} allowed), the oldest uncertain for {}; see `reconctl jobs uncertain`, settle with `reconctl reconcile`",
                jobs(h.uncertain),
                args.max_uncertain,
                since(now, h.oldest_uncertain)
            ),
        });
    }
    if let Some(after) = args.uncertain_after {
        if h.uncertain_overdue > 0 {
            v.push(Violation {
                check: "uncertain_after",
                count: h.uncertain_overdue,
                message: format!(
                    "uncertain too long: {} uncertain for more than {after}, the oldest for {}; see `reconctl jobs list --state uncertain --older-than {after}`",
                    jobs(h.uncertain_overdue),
                    since(now, h.oldest_uncertain)
                ),
            });
        }
    }
    if h.conflict > args.max_conflict as i64 {
        v.push(Violation {
            check: "max_conflict",
            count: h.conflict,
            message: format!(
                "conflict: {} (at most {} allowed), the oldest in conflict for {}; see `reconctl jobs list --state conflict`",
                jobs(h.conflict),
                args.max_conflict,
                since(now, h.oldest_conflict)
            ),
        });
    }
    let stuck = h.waiting + h.expired_leases;
    if stuck > 0 {
        let mut parts = Vec::new();
        if h.waiting > 0 {
            let paused = if h.waiting_paused == 0 {
                String::new()
            } else {
                let names: Vec<&str> = pauses
                    .in_force
                    .iter()
                    .map(|p| p.destination.as_str())
                    .collect();
                format!(
                    "; {} of them wait for a paused destination ({})",
                    thousands(h.waiting_paused),
                    names.join(", ")
                )
            };
            parts.push(format!(
                "{} pending or safe_to_retry for more than {stuck_after} (the oldest for {}{paused})",
                thousands(h.waiting),
                since(now, h.oldest_waiting)
            ));
        }
        if h.expired_leases > 0 {
            parts.push(format!(
                "{} in_flight with a lease expired more than {stuck_after} ago (the oldest {} ago; is `reconctl sweep leases` running?)",
                thousands(h.expired_leases),
                since(now, h.oldest_expired_lease)
            ));
        }
        v.push(Violation {
            check: "stuck_after",
            count: stuck,
            message: format!(
                "stuck: {}: {}; see `reconctl jobs stuck --older-than {stuck_after}`",
                jobs(stuck),
                parts.join(", ")
            ),
        });
    }
    if let Some(first) = ooo.first() {
        let older = ooo
            .iter()
            .map(|o| o.older.id)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let after = format_duration(
            (first.older.accepted_at - first.newer.accepted_at)
                .to_std()
                .unwrap_or_default(),
        );
        let plural = if older == 1 {
            "revision was"
        } else {
            "revisions were"
        };
        v.push(Violation {
            check: "out_of_order",
            count: older as i64,
            message: format!(
                "out of order: {older} older {plural} accepted after a newer one in the last {}, e.g. tenant {} article {} at {}: revision {} (job {}) accepted {after} after revision {} (job {}); the destination may show the older content",
                args.order_window,
                first.tenant_id,
                first.article_id,
                first.destination,
                first.older.revision_id,
                first.older.id,
                first.newer.revision_id,
                first.newer.id,
            ),
        });
    }
    if let Some(max) = args.max_pause {
        let long: Vec<&Pause> = pauses
            .in_force
            .iter()
            .filter(|p| p.age(pauses.now) > max.0)
            .collect();
        if !long.is_empty() {
            let each: Vec<String> = long
                .iter()
                .map(|p| {
                    format!(
                        "{} for {} by {} ({})",
                        p.destination,
                        humane(p.age(pauses.now)),
                        p.actor,
                        p.reason
                    )
                })
                .collect();
            v.push(Violation {
                check: "max_pause",
                count: long.len() as i64,
                message: format!(
                    "paused longer than {max}: {}; resume with `reconctl destination resume {} --reason TEXT` once it is healthy",
                    each.join(", "),
                    long[0].destination
                ),
            });
        }
    }
    let summary = format!(
        "ok: {} uncertain (at most {}), {} in conflict (at most {}), none stuck for more than {stuck_after}, no out-of-order publication in the last {}",
        thousands(h.uncertain),
        args.max_uncertain,
        thousands(h.conflict),
        args.max_conflict,
        args.order_window,
    );
    // A pause is not a problem by itself, but a healthy report says it is there.
    let summary = if pauses.in_force.is_empty() {
        summary
    } else {
        let each: Vec<String> = pauses
            .in_force
            .iter()
            .map(|p| format!("{} for {}", p.destination, humane(p.age(pauses.now))))
            .collect();
        format!("{summary}; paused: {}", each.join(", "))
    };
    CheckReport {
        healthy: v.is_empty(),
        violations: v,
        counts: Counts {
            uncertain: h.uncertain,
            conflict: h.conflict,
            uncertain_overdue: h.uncertain_overdue,
            stuck_waiting: h.waiting,
            stuck_leases: h.expired_leases,
            stuck_waiting_paused: h.waiting_paused,
        },
        thresholds: Thresholds {
            max_uncertain: args.max_uncertain,
            max_conflict: args.max_conflict,
            stuck_after_seconds: args.stuck_after.0.as_secs(),
            uncertain_after_seconds: args.uncertain_after.map(|d| d.0.as_secs()),
            order_window_seconds: args.order_window.0.as_secs(),
            max_pause_seconds: args.max_pause.map(|d| d.0.as_secs()),
        },
        out_of_order: ooo,
        pauses: pauses.in_force.clone(),
        summary,
    }
}

impl CheckReport {
    /// One line per violation (escaped: names and reasons come from outside).
    fn violation_lines(&self) -> String {
        self.violations
            .iter()
            .map(|v| escape(&v.message))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One line per violation, never wrapped: scripts count and grep them (SPEC: "exit 5 with
/// one line per violated threshold"), and cron mails them as they are.
impl Render for CheckReport {
    fn table(&self, ui: &Ui) -> String {
        if self.healthy {
            return if ui.verbose > 0 {
                escape(&self.summary)
            } else {
                String::new()
            };
        }
        self.violation_lines()
    }

    /// A report: silent with `-q` when healthy; its violations then go to stderr.
    fn output(&self) -> Output {
        Output::Report
    }

    fn failure(&self, _ui: &Ui) -> Option<String> {
        (!self.healthy).then(|| self.violation_lines())
    }
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let db = ctx.db().await?;
    let (health, ooo, pauses) = futures::try_join!(
        query::health(&**db, args.stuck_after.0, args.uncertain_after.map(|d| d.0)),
        query::out_of_order(&**db, args.order_window.0),
        pause::observe(&**db, &ctx.actor),
    )?;
    drop(db);
    let report = report(args, &health, ooo, &pauses);
    ctx.ui.emit(&report)?;
    Ok(if report.healthy {
        Exit::Done
    } else {
        Exit::Attention
    })
}
