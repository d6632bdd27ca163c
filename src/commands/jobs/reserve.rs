//! `reconctl jobs reserve`: the worker's first step, by hand (and for drills and tests).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::commands::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::jobs::worker::{reserve, Reservation};
use crate::jobs::{BusinessKey, Event, Job, PayloadHasher};
use crate::ui::{escape, paragraphs, Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    group = clap::ArgGroup::new("payload").required(true).args(["payload_file", "payload_hash"]),
    after_help = "Examples:\n  reconctl jobs reserve --tenant t --article a1 --revision 3 --destination cms-a --payload-file article.json\n  reconctl jobs reserve --tenant t --article a1 --revision 3 --destination cms-a --payload-hash 9f86d0…\n\nExit codes: 0 reserved (or already reserved with the same payload), 3 payload conflict: the same key was reserved with other content."
)]
pub struct Args {
    #[arg(long, value_name = "ID")]
    pub tenant: String,
    #[arg(long, value_name = "ID")]
    pub article: String,
    #[arg(long, value_name = "ID")]
    pub revision: String,
    #[arg(long, value_name = "NAME")]
    pub destination: String,
    /// The rendered payload (a regular file of at most 64 MiB); its SHA-256 is recorded
    #[arg(long, value_name = "FILE")]
    pub payload_file: Option<PathBuf>,
    /// The payload's lowercase hex SHA-256
    #[arg(long, value_name = "HASH")]
    pub payload_hash: Option<String>,
}

#[derive(Serialize)]
struct ReserveReport {
    created: bool,
    job: Job,
    event: Option<Event>,
}

impl Render for ReserveReport {
    fn table(&self, ui: &Ui) -> String {
        let j = &self.job;
        let text = if self.created {
            format!(
                "reserved job {} ({}) for {}/{}/{} → {}, state {}, version {}",
                j.id,
                escape(&j.external_ref),
                escape(&j.tenant_id),
                escape(&j.article_id),
                escape(&j.revision_id),
                escape(&j.destination),
                j.state,
                j.version
            )
        } else {
            format!(
                "already reserved: job {} ({}) is {} at version {}; no change",
                j.id,
                escape(&j.external_ref),
                j.state,
                j.version
            )
        };
        paragraphs(&text, ui.width().map(usize::from))
    }

    /// The account of an action (scripts read the id from `-o json`).
    fn output(&self) -> Output {
        Output::Report
    }
}

/// The most a payload file may hold: a rendered article with its inline media is a few MiB;
/// anything near this is a wrong path (`/dev/zero`, a log), not a payload.
pub const PAYLOAD_CAP: u64 = 64 << 20;

/// The payload's SHA-256, read as a stream (never whole in memory), from a regular file of at
/// most [`PAYLOAD_CAP`] bytes: a FIFO or a device is refused before a byte is read (exit 2).
fn hash_payload_file(path: &Path) -> Result<String> {
    let mut hasher = PayloadHasher::new();
    crate::files::stream_regular(path, PAYLOAD_CAP, |chunk| hasher.update(chunk)).map_err(|e| {
        let message = format!("cannot use payload file {}: {e}", escape(&path.display().to_string()));
        if e.is_usage() {
            Error::usage(message).hinted(
                "name the rendered payload's file; for a payload from a pipe, pass its hash: --payload-hash $(render | sha256sum | cut -d' ' -f1)",
            )
        } else {
            Error::runtime(message)
        }
    })?;
    Ok(hasher.finish())
}

pub async fn run(ctx: &Context, args: &Args) -> Result<Exit> {
    let hash = match (&args.payload_file, &args.payload_hash) {
        (Some(path), _) => hash_payload_file(path)?,
        (None, Some(h)) => h.trim().to_string(),
        (None, None) => return Err(Error::usage("give --payload-file or --payload-hash")),
    };
    let key = BusinessKey::new(
        &args.tenant,
        &args.article,
        &args.revision,
        &args.destination,
    );
    let db = ctx.db().await?;
    crate::retention::ensure_partitions_quietly(&**db).await;
    let report = match reserve(&**db, &key, &hash, &ctx.actor).await? {
        Reservation::Created { job, event } => ReserveReport {
            created: true,
            job,
            event: Some(event),
        },
        Reservation::Existing { job } => ReserveReport {
            created: false,
            job,
            event: None,
        },
    };
    ctx.ui.emit(&report)?;
    Ok(Exit::Done)
}
