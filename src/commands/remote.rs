//! `reconctl remote lookup`: ask a destination for a job's external reference.

use clap::Subcommand;

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::JobRef;
use crate::remote::{Lookup, Verdict};
use crate::ui::{Render, Ui};

#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Ask the destination whether it has the job; print outcome, matches and verdict
    Lookup(LookupArgs),
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl remote lookup 7f0c2a4e-1b7d-4c55-9a0e-3f1f6a0f6b11\n  reconctl remote lookup --destination cms-a --ref pub_8b8c924e8b3406292a3b0f5ee972a595c3e55fd531027041c23d607d85631852\n\nVerdicts: accept (one match, same content or none reported), conflict (other content, or several matches), safe_to_retry (no match, sent longer ago than settle_after), wait (no match, sent more recently, or no sent_at), unknown (no well-formed answer).\n\nExit codes: 0 a definite answer (accept, conflict, safe_to_retry, wait), 1 unknown (unreachable or unexpected answer), 2 the destination is not configured or its token variable is not set."
)]
pub struct LookupArgs {
    /// The job: its id or its external_ref
    #[arg(value_name = "JOB", required_unless_present = "external_ref", conflicts_with_all = ["destination", "external_ref"])]
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
    let found = match (&args.job, &args.destination, &args.external_ref) {
        (Some(job), _, _) => {
            // Read the job and the database's clock, and let the connection go before asking
            // the destination: nothing is held across the HTTP call.
            let (job, offset) = {
                let db = ctx.db().await?;
                let job = crate::jobs::store::get(&**db, job).await?;
                let offset = crate::jobs::reconcile::clock_offset(&**db).await?;
                (job, offset)
            };
            if let Err(e) = crate::remote::configured(ctx.config()?, &job.destination) {
                return Err(e.with_message(|_| {
                    format!(
                        "job {} is for destination {}, which is not configured",
                        job.id, job.destination
                    )
                }));
            }
            let hash = payload_hash.unwrap_or_else(|| job.payload_hash.clone());
            crate::remote::lookup(
                ctx,
                &job.destination,
                &job.external_ref,
                Some(&hash),
                job.sent_at.map(|t| t + offset),
            )
            .await?
        }
        (None, Some(dest), Some(external_ref)) => {
            if external_ref.trim().is_empty() {
                return Err(Error::usage("--ref must not be empty"));
            }
            crate::remote::lookup(ctx, dest, external_ref, payload_hash.as_deref(), None).await?
        }
        _ => return Err(Error::usage("give a JOB, or --destination and --ref")),
    };
    ctx.ui.emit(&found)?;
    Ok(if found.verdict.is_definite() {
        Exit::Done
    } else {
        Exit::Inconclusive
    })
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
    fn table(&self, _ui: &Ui) -> String {
        let matches = if self.matches.is_empty() {
            "none".to_string()
        } else {
            self.matches
                .iter()
                .map(|m| {
                    let id = m.remote_id.as_deref().unwrap_or("?");
                    match &m.content_hash {
                        Some(h) => format!("{id} (content hash {h})"),
                        None => id.to_string(),
                    }
                })
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
        [
            ("destination", self.destination.as_str()),
            ("external_ref", self.external_ref.as_str()),
            ("outcome", outcome_str(self.outcome)),
            ("matches", matches.as_str()),
            ("content", content),
            ("verdict", verdict),
            ("reason", self.reason.as_str()),
        ]
        .iter()
        .map(|(k, v)| format!("{k:<13} {v}"))
        .collect::<Vec<_>>()
        .join("\n")
    }
}

fn outcome_str(o: crate::remote::Outcome) -> &'static str {
    use crate::remote::Outcome;
    match o {
        Outcome::Found => "found",
        Outcome::NotFound => "not_found",
        Outcome::Ambiguous => "ambiguous",
        Outcome::Unreachable => "unreachable",
    }
}
