//! `reconctl remote lookup`: ask a destination for a job's external reference.

use clap::Subcommand;

use super::Exit;
use crate::clock::DbClock;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::{query, JobRef};
use crate::remote::{Expect, Lookup, Verdict};
use crate::ui::{escape, paragraphs, Fields, Output, Render, Ui};

#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Ask the destination whether it has the job; print outcome, matches and verdict
    Lookup(LookupArgs),
}

#[derive(Debug, clap::Args)]
#[command(
    // Both forms, in the usage line of --help and of every usage error.
    override_usage = "reconctl remote lookup [OPTIONS] <JOB>\n       reconctl remote lookup [OPTIONS] --destination <NAME> --ref <REF>",
    group = clap::ArgGroup::new("target").required(true).args(["job", "external_ref"]),
    after_help = "Examples:\n  reconctl remote lookup 7f0c2a4e-1b7d-4c55-9a0e-3f1f6a0f6b11\n  reconctl remote lookup --destination cms-a --ref pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852\n\nVerdicts: accept (one match, same content or none reported), conflict (other content, or several matches), safe_to_retry (no match, sent longer ago than settle_after), wait (no match, sent more recently, or no sent_at), unknown (no well-formed answer).\n\nExit codes: 0 a definite answer (accept, conflict, safe_to_retry, wait), 1 unknown (unreachable or unexpected answer), 2 the destination is not configured or its token variable is not set."
)]
pub struct LookupArgs {
    /// The job: its id (or a unique prefix of it, 8+ hex digits) or its external_ref
    #[arg(value_name = "JOB", conflicts_with_all = ["destination", "external_ref"])]
    pub job: Option<JobRef>,
    /// The destination to ask (with --ref, without a job)
    #[arg(long, value_name = "NAME", requires = "external_ref")]
    pub destination: Option<String>,
    /// The external_ref to ask for (with --destination)
    #[arg(long = "ref", value_name = "REF", requires = "destination")]
    pub external_ref: Option<String>,
    /// Compare the matches' content hash with this payload hash
    #[arg(long, value_name = "HASH")]
    pub payload_hash: Option<String>,
}

pub async fn run(ctx: &Context, cmd: &RemoteCommand) -> Result<Exit> {
    match cmd {
        RemoteCommand::Lookup(args) => lookup(ctx, args).await,
    }
}

async fn lookup(ctx: &Context, args: &LookupArgs) -> Result<Exit> {
    let payload_hash = args
        .payload_hash
        .as_deref()
        .map(normalise_hash)
        .transpose()?;
    let lookups = ctx.lookups()?;
    let (dest, external_ref, hash, sent_at, clock) =
        match (&args.job, &args.destination, &args.external_ref) {
            (Some(job), _, _) => {
                // Read the job and the database's clock, and let the connection go before asking
                // the destination: nothing is held across the HTTP calls.
                let (job, clock) = {
                    let db = ctx.db().await?;
                    let job = crate::jobs::store::get(&**db, job).await?;
                    (job, query::db_clock(&**db).await?)
                };
                let dest = lookups.destination(&job.destination).map_err(|e| {
                    e.with_message(|m| {
                        format!("job {} is for destination {}: {m}", job.id, job.destination)
                    })
                })?;
                let hash = payload_hash.unwrap_or_else(|| job.payload_hash.clone());
                (dest, job.external_ref, Some(hash), job.sent_at, clock)
            }
            (None, Some(d), Some(external_ref)) => {
                if external_ref.trim().is_empty() {
                    return Err(Error::usage("--ref must not be empty"));
                }
                let dest = lookups.destination(d)?;
                // The database's clock when it can be read (the controls read the job table
                // too); without it this host's clock: with no sent_at nothing is judged by time.
                let clock = match ctx.db().await {
                    Ok(db) => query::db_clock(&**db)
                        .await
                        .unwrap_or_else(|_| DbClock::local()),
                    Err(_) => DbClock::local(),
                };
                (
                    dest,
                    external_ref.trim().to_string(),
                    payload_hash,
                    None,
                    clock,
                )
            }
            _ => return Err(Error::usage("give a JOB, or --destination and --ref")),
        };
    let gate = ctx.gate(clock)?;
    let expect = Expect {
        payload_hash: hash.as_deref(),
        sent_at,
    };
    let (controls, found) =
        futures::join!(gate.controls(&dest), dest.ask(&external_ref, expect, clock));
    let found = found.under(&controls);
    if ctx.ui.verbose > 0 {
        if let Some(line) = asked(&found) {
            ctx.ui.trace(&line);
        }
    }
    ctx.ui.emit(&found)?;
    Ok(if found.verdict.is_definite() {
        Exit::Done
    } else {
        Exit::Inconclusive
    })
}

/// `-v`: the request the verdict rests on, as `curl -w` would time it: "GET URL: HTTP 200
/// in 83 ms" (the URL as the evidence records it, without a secret).
fn asked(found: &crate::remote::Lookup) -> Option<String> {
    let l = found.evidence.get("lookup")?;
    let status = match l.get("http_status").and_then(serde_json::Value::as_u64) {
        Some(s) => format!("HTTP {s}"),
        None => "no answer".to_string(),
    };
    Some(format!(
        "asked: GET {}: {status} in {} ms",
        l.get("url")?.as_str()?,
        l.get("elapsed_ms")?.as_u64()?
    ))
}

/// A payload hash as stored: lowercase hex SHA-256.
fn normalise_hash(h: &str) -> Result<String> {
    let h = h.trim().to_ascii_lowercase();
    if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(h)
    } else {
        Err(Error::usage(
            "--payload-hash must be a SHA-256 in hex (64 hex digits)",
        ))
    }
}

impl Render for Lookup {
    fn table(&self, ui: &Ui) -> String {
        // Everything the destination sent is escaped: an id can hold a terminal escape.
        let matches = if self.matches.is_empty() {
            "none".to_string()
        } else {
            self.matches
                .iter()
                // What a person needs to find it at the destination: a renamed reference,
                // a status other than published, the content hash.
                .map(|m| m.describe(true))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let content = match self.content_match {
            Some(true) => "same as the job's payload",
            Some(false) => "DIFFERENT from the job's payload",
            None => "not compared",
        };
        let verdict = match self.verdict {
            Verdict::Accept => "accept (the job can be marked accepted)",
            Verdict::Conflict => "conflict (needs a person)",
            Verdict::SafeToRetry => "safe_to_retry (the job can be sent again)",
            Verdict::Wait => "wait (not settled yet)",
            Verdict::Unknown => "unknown (nothing can be concluded)",
        };
        let controls = match &self.controls {
            Some(c) if c.ok() => {
                "passed (a known publication found, a made-up reference not found)".to_string()
            }
            Some(c) => format!(
                "FAILED: {} (the reason says what came back and what to check)",
                c.failed_which().unwrap_or("a control")
            ),
            None => "not checked".to_string(),
        };
        let mut f = Fields::new();
        f.token("destination", self.destination.as_str())
            .token("external_ref", self.external_ref.as_str())
            .token("outcome", self.outcome.as_str())
            .text("matches", matches)
            .text("content", content)
            .text("controls", controls)
            .text("verdict", verdict)
            .text("reason", self.reason.as_str());
        f.render(ui)
    }

    fn output(&self) -> Output {
        Output::Data
    }

    /// No definite answer (exit 1): the verdict and why, on stderr with `-q`.
    fn failure(&self, ui: &Ui) -> Option<String> {
        (!self.verdict.is_definite()).then(|| {
            paragraphs(
                &format!(
                    "lookup of {} at {}: verdict {}: {}",
                    escape(&self.external_ref),
                    escape(&self.destination),
                    self.verdict.as_str(),
                    escape(&self.reason)
                ),
                ui.err_width().map(usize::from),
            )
        })
    }
}
