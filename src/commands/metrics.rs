//! `reconctl metrics`: Prometheus text exposition for the node_exporter textfile collector.
//!
//! Gauges (all exact: the counts from the counters the database keeps per state and
//! destination, migrations/V10; the ages one index probe per group):
//!
//! * `reconctl_jobs{state,destination}`: open jobs (every state but accepted). Every open
//!   state of every known destination (seen in the table or configured) has a sample, 0
//!   when empty, so an alert on a series never sees it vanish.
//! * `reconctl_oldest_age_seconds{state,destination}`: how long the job longest in that
//!   state has been in it; like `reconctl_jobs`, every open state of every known destination
//!   has a sample, 0 when it has no job.
//! * `reconctl_jobs_accepted`: accepted jobs (all destinations), in a metric of its own so
//!   that summing `reconctl_jobs` gives the open jobs; absent until `reconctl migrate` has
//!   built the counters.
//! * `reconctl_destination_paused{destination}`: 1 while the destination is paused (workers
//!   claim none of its jobs, SPEC §6), else 0; every known destination has a sample.
//! * `reconctl_destination_paused_seconds{destination}`: how long it has been paused (0 when
//!   not paused), to alert on a pause someone forgot.
//! * `reconctl_expired_leases{destination}`: in_flight jobs whose lease has expired (a worker
//!   died or hangs; `sweep leases` moves them), and
//!   `reconctl_oldest_expired_lease_seconds{destination}`: how long ago the oldest expired
//!   (0 when none); every known destination has both.
//! * `reconctl_moves{action,destination,window}`: the moves the audit log recorded in the last
//!   `window` (`5m`, `1h`): the worker's timeouts (jobs made uncertain), sweeps, reconcile
//!   verdicts and operator marks (see `jobs::query::moves`); every counted action of every
//!   known destination has a sample in both windows, 0 when none.
//! * `reconctl_collected_timestamp_seconds`: when the numbers were read (the database's
//!   clock), to notice a stale textfile.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::error::Result;
use crate::jobs::pause::{self, Pauses};
use crate::jobs::query::moves::Recent;
use crate::jobs::query::moves::{COUNTED, WINDOWS};
use crate::jobs::query::{self, Overview};
use crate::jobs::State;
use crate::ui::{Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl metrics > /var/lib/node_exporter/textfile/reconctl.prom.$$ && mv /var/lib/node_exporter/textfile/reconctl.prom.$$ /var/lib/node_exporter/textfile/reconctl.prom\n\nPrints the Prometheus text format (0.0.4); -o json prints the same samples as JSON."
)]
pub struct Args {}

#[derive(Debug, Serialize)]
struct Sample {
    name: &'static str,
    labels: BTreeMap<&'static str, String>,
    value: f64,
}

#[derive(Debug, Serialize)]
struct Family {
    name: &'static str,
    help: &'static str,
    samples: Vec<Sample>,
}

#[derive(Debug, Serialize)]
struct Metrics {
    families: Vec<Family>,
}

/// Label values escape backslash, double quote and newline (the exposition format's rules).
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl Render for Metrics {
    fn output(&self) -> Output {
        Output::Data
    }

    fn table(&self, _ui: &Ui) -> String {
        let mut out = String::new();
        for f in &self.families {
            let _ = writeln!(out, "# HELP {} {}", f.name, f.help);
            let _ = writeln!(out, "# TYPE {} gauge", f.name);
            for s in &f.samples {
                out.push_str(s.name);
                if !s.labels.is_empty() {
                    let labels: Vec<String> = s
                        .labels
                        .iter()
                        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
                        .collect();
                    let _ = write!(out, "{{{}}}", labels.join(","));
                }
                let _ = writeln!(out, " {}", number(s.value));
            }
        }
        out.truncate(out.trim_end().len());
        out
    }
}

/// Seconds from `t` to `now`, fractional, never negative.
fn seconds_since(now: chrono::DateTime<chrono::Utc>, t: chrono::DateTime<chrono::Utc>) -> f64 {
    (now - t).num_microseconds().unwrap_or(0).max(0) as f64 / 1e6
}

fn collect(o: &Overview, configured: &[String], pauses: &Pauses, recent: &Recent) -> Metrics {
    let mut destinations: BTreeSet<String> = configured.iter().cloned().collect();
    destinations.extend(o.open.iter().map(|g| g.destination.clone()));
    destinations.extend(recent.moves.iter().map(|m| m.destination.clone()));
    destinations.extend(recent.leases.iter().map(|l| l.destination.clone()));
    destinations.extend(pauses.in_force.iter().map(|p| p.destination.clone()));
    let open_states: Vec<State> = State::BY_URGENCY
        .into_iter()
        .filter(|s| *s != State::Accepted)
        .collect();
    let mut jobs = Vec::new();
    let mut ages = Vec::new();
    for state in &open_states {
        for d in &destinations {
            let group = o
                .open
                .iter()
                .find(|g| g.state == *state && &g.destination == d);
            let labels = BTreeMap::from([
                ("destination", d.clone()),
                ("state", state.as_str().to_string()),
            ]);
            jobs.push(Sample {
                name: "reconctl_jobs",
                labels: labels.clone(),
                value: group.map_or(0.0, |g| g.count as f64),
            });
            // 0 when the state has no job there: a series that vanished would read as
            // "no data" to an alert, not as "nothing waits".
            ages.push(Sample {
                name: "reconctl_oldest_age_seconds",
                labels,
                value: group.map_or(0.0, |g| seconds_since(o.now, g.oldest_state_changed_at)),
            });
        }
    }
    let mut families = vec![
        Family {
            name: "reconctl_jobs",
            help: "Jobs per open state and destination (exact; accepted jobs are in reconctl_jobs_accepted).",
            samples: jobs,
        },
        Family {
            name: "reconctl_oldest_age_seconds",
            help: "Seconds the job longest in this state has been in it, per state and destination (0: no job in it).",
            samples: ages,
        },
    ];
    if let Some(n) = o.accepted {
        families.push(Family {
            name: "reconctl_jobs_accepted",
            help: "Accepted jobs (exact).",
            samples: vec![Sample {
                name: "reconctl_jobs_accepted",
                labels: BTreeMap::new(),
                value: n as f64,
            }],
        });
    }
    let mut paused = Vec::new();
    let mut paused_seconds = Vec::new();
    for d in &destinations {
        let pause = pauses.of(d);
        let labels = BTreeMap::from([("destination", d.clone())]);
        paused.push(Sample {
            name: "reconctl_destination_paused",
            labels: labels.clone(),
            value: if pause.is_some() { 1.0 } else { 0.0 },
        });
        paused_seconds.push(Sample {
            name: "reconctl_destination_paused_seconds",
            labels,
            value: pause.map_or(0.0, |p| seconds_since(pauses.now, p.since)),
        });
    }
    families.push(Family {
        name: "reconctl_destination_paused",
        help: "1 while the destination is paused (workers claim none of its jobs), else 0.",
        samples: paused,
    });
    families.push(Family {
        name: "reconctl_destination_paused_seconds",
        help: "Seconds the destination has been paused (0 when it is not).",
        samples: paused_seconds,
    });
    let mut expired = Vec::new();
    let mut expired_age = Vec::new();
    for d in &destinations {
        let leases = recent.leases.iter().find(|l| &l.destination == d);
        let labels = BTreeMap::from([("destination", d.clone())]);
        expired.push(Sample {
            name: "reconctl_expired_leases",
            labels: labels.clone(),
            value: leases.map_or(0.0, |l| l.count as f64),
        });
        expired_age.push(Sample {
            name: "reconctl_oldest_expired_lease_seconds",
            labels,
            value: leases.map_or(0.0, |l| seconds_since(o.now, l.oldest_expired_at)),
        });
    }
    families.push(Family {
        name: "reconctl_expired_leases",
        help: "In-flight jobs whose lease has expired (their worker died or hangs; reconctl sweep leases moves them).",
        samples: expired,
    });
    families.push(Family {
        name: "reconctl_oldest_expired_lease_seconds",
        help: "Seconds since the oldest expired lease of the destination expired (0 when none).",
        samples: expired_age,
    });
    let mut moves = Vec::new();
    for action in COUNTED {
        for d in &destinations {
            let m = recent
                .moves
                .iter()
                .find(|m| m.action == action && &m.destination == d);
            for (window, _) in WINDOWS {
                moves.push(Sample {
                    name: "reconctl_moves",
                    labels: BTreeMap::from([
                        ("action", action.as_str().to_string()),
                        ("destination", d.clone()),
                        ("window", window.to_string()),
                    ]),
                    value: m.map_or(0.0, |m| m.in_window(window) as f64),
                });
            }
        }
    }
    families.push(Family {
        name: "reconctl_moves",
        help: "Moves the audit log recorded in the last window (5m, 1h): timeouts, sweeps, reconcile verdicts, operator marks.",
        samples: moves,
    });
    families.push(Family {
        name: "reconctl_collected_timestamp_seconds",
        help: "When these numbers were read, by the database's clock (Unix time).",
        samples: vec![Sample {
            name: "reconctl_collected_timestamp_seconds",
            labels: BTreeMap::new(),
            value: o.now.timestamp_micros() as f64 / 1e6,
        }],
    });
    Metrics { families }
}

pub async fn run(ctx: &Context, _args: &Args) -> Result<Exit> {
    // Configured destinations get their zero samples too; metrics work without a config.
    let configured: Vec<String> = match ctx.config() {
        Ok(c) => c.destinations.keys().cloned().collect(),
        Err(e) => {
            ctx.ui.warn(&format!(
                "config not read, metrics cover the table only: {}",
                e.message()
            ));
            Vec::new()
        }
    };
    // One session, the statements pipelined: the counts are read from the counters (a few
    // rows per group), so no statement is long enough to be worth a second session, whose
    // connection costs more than the whole read.
    let db = ctx.db().await?;
    let (pauses, overview, recent) = futures::try_join!(
        pause::observe(&**db, &ctx.actor),
        query::overview(&**db),
        Recent::read(&**db)
    )?;
    drop(db);
    ctx.ui
        .emit(&collect(&overview, &configured, &pauses, &recent))?;
    Ok(Exit::Done)
}
