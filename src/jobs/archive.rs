//! Retention of the audit log (SPEC §9): `events archive` writes every event of the months
//! before a month to one compressed file, `events prune` drops the partitions of months an
//! archive holds in full, `events --archive FILE` reads an archive with the filters of `events`.
//!
//! **The file.** JSON lines, gzip or zstd by its name (`.gz`, `.zst`/`.zstd`). The first line
//! is the manifest, `{"archive": {"months", "rows", "first_id", "last_id", "sha256"}}`;
//! `sha256` is the lowercase hex SHA-256 of every byte after the manifest's line (the event
//! lines, each ending in `\n`), `rows` their number. Each event line is the object `events -o
//! jsonl` prints, in the order `events` lists them (at, id). The manifest needs the checksum of
//! what follows it, and nothing is held in memory: the events are compressed into a scratch
//! file beside the archive while hashed, then the archive is written as a compressed member of
//! the manifest followed by the scratch file's bytes as they are (gzip members and zstd frames
//! concatenate into one stream), synced, and renamed into place: a reader never sees half an
//! archive under its name.
//!
//! **Reading** verifies first: the whole stream is decompressed and hashed, and an archive
//! whose checksum or row count differs from its manifest (tampered, cut short) is refused
//! before one event is printed. Then it is read again, filtered.
//!
//! **Months** are calendar months of UTC, as the partitions are (migrations/V11).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio_postgres::GenericClient;

use crate::error::{Error, Result};
use crate::jobs::events::{self, EventFilter, Since, TrailEvent};

/// A calendar month of UTC, as `--before` takes it (`2026-09`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    pub year: i32,
    pub month: u32,
}

impl Month {
    pub fn start(self) -> DateTime<Utc> {
        NaiveDate::from_ymd_opt(self.year, self.month, 1)
            .expect("a valid month")
            .and_hms_opt(0, 0, 0)
            .expect("midnight")
            .and_utc()
    }

    pub fn of(t: DateTime<Utc>) -> Month {
        Month {
            year: t.year(),
            month: t.month(),
        }
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl std::str::FromStr for Month {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Month, String> {
        let bad = || {
            format!(
                "`{}` is not a month (YYYY-MM, e.g. 2026-09)",
                crate::escape::escape(&s.chars().take(40).collect::<String>())
            )
        };
        let (y, m) = s.trim().split_once('-').ok_or_else(bad)?;
        if y.len() != 4 || m.len() != 2 {
            return Err(bad());
        }
        let year: i32 = y.parse().map_err(|_| bad())?;
        let month: u32 = m.parse().map_err(|_| bad())?;
        if !(1..=12).contains(&month) || year < 1970 {
            return Err(bad());
        }
        Ok(Month { year, month })
    }
}

/// How the file is compressed, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
}

impl Compression {
    pub fn from_path(path: &Path) -> Result<Compression> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.ends_with(".gz") {
            Ok(Compression::Gzip)
        } else if name.ends_with(".zst") || name.ends_with(".zstd") {
            Ok(Compression::Zstd)
        } else {
            Err(Error::usage(format!(
                "{}: an archive's name says how it is compressed: end it in .gz (gzip) or .zst (zstd)",
                crate::escape::escape(&path.display().to_string())
            )))
        }
    }
}

enum Encoder<W: Write> {
    Gzip(flate2::write::GzEncoder<W>),
    Zstd(zstd::stream::write::Encoder<'static, W>),
}

impl<W: Write> Encoder<W> {
    fn new(c: Compression, w: W) -> Result<Encoder<W>> {
        Ok(match c {
            // Level 6 (gzip's default): what `gzip` does, at its speed.
            Compression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::new(6),
            )),
            Compression::Zstd => Encoder::Zstd(
                zstd::stream::write::Encoder::new(w, 3).map_err(|e| file_error("zstd", e))?,
            ),
        })
    }

    fn finish(self) -> std::io::Result<W> {
        match self {
            Encoder::Gzip(e) => e.finish(),
            Encoder::Zstd(e) => e.finish(),
        }
    }
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Encoder::Gzip(e) => e.write(buf),
            Encoder::Zstd(e) => e.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Encoder::Gzip(e) => e.flush(),
            Encoder::Zstd(e) => e.flush(),
        }
    }
}

fn decoder(c: Compression, file: File) -> Result<Box<dyn BufRead>> {
    let raw = BufReader::with_capacity(1 << 16, file);
    Ok(match c {
        // Every member: the manifest and the events are two.
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| file_error("zstd", e))?,
        )),
    })
}

fn file_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::runtime(format!("{}: {e}", crate::escape::escape(what)))
}

/// The archive's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Manifest {
    pub months: Vec<String>,
    pub rows: i64,
    pub first_id: Option<i64>,
    pub last_id: Option<i64>,
    pub sha256: String,
}

/// What `events archive` wrote and recorded.
#[derive(Debug, Clone, Serialize)]
pub struct Archived {
    /// The record's id in event_archives.
    pub id: i64,
    pub file: String,
    pub before: String,
    #[serde(flatten)]
    pub manifest: Manifest,
    /// Rows per month and log, as recorded for `prune`.
    pub month_rows: Value,
}

/// Events read per statement while archiving (bounded memory, short statements).
const PAGE: u32 = 10_000;

/// The start of the current month on the database's clock: `--before` may not be later (a
/// month still being written cannot be archived in full).
async fn current_month<C: GenericClient>(client: &C) -> Result<DateTime<Utc>> {
    Ok(client
        .query_one(
            "SELECT date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
            &[],
        )
        .await?
        .get(0))
}

fn refuse_unfinished(before: Month, now_month: DateTime<Utc>) -> Result<()> {
    if before.start() > now_month {
        return Err(Error::usage(format!(
            "--before {before}: the months from {} on are not over; events are still written to them",
            Month::of(now_month)
        ))
        .hinted(format!(
            "the latest --before is the current month ({})",
            Month::of(now_month)
        )));
    }
    Ok(())
}

/// Write every event before `before` to `path` and record the archive (module doc). Reads
/// in one REPEATABLE READ snapshot, page by page: the file and its record agree with each
/// other and with the partitions as they were at that snapshot.
pub async fn write(
    client: &tokio_postgres::Client,
    before: Month,
    path: &Path,
    actor: &str,
) -> Result<Archived> {
    let compression = Compression::from_path(path)?;
    let shown = crate::escape::escape(&path.display().to_string());
    if path.exists() {
        return Err(
            Error::runtime(format!("{shown} exists: an archive is never overwritten"))
                .hinted("name a new file"),
        );
    }
    let now_month = current_month(client).await?;
    refuse_unfinished(before, now_month)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let scratch = dir.join(format!(".{base}.events.tmp"));
    let staged = dir.join(format!(".{base}.tmp"));
    let cleanup = || {
        let _ = std::fs::remove_file(&scratch);
        let _ = std::fs::remove_file(&staged);
    };
    let result = write_inner(client, before, compression, &scratch, &staged, path).await;
    cleanup();
    let (manifest, month_rows) = result?;
    let absolute = std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string();
    let id: i64 = client
        .query_one(
            "INSERT INTO event_archives (actor, file_name, before, months, month_rows, rows, first_id, last_id, sha256)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
            &[
                &actor,
                &absolute,
                &before.start(),
                &manifest.months,
                &month_rows,
                &manifest.rows,
                &manifest.first_id,
                &manifest.last_id,
                &manifest.sha256,
            ],
        )
        .await?
        .get(0);
    Ok(Archived {
        id,
        file: absolute,
        before: before.to_string(),
        manifest,
        month_rows,
    })
}

async fn write_inner(
    client: &tokio_postgres::Client,
    before: Month,
    compression: Compression,
    scratch: &Path,
    staged: &Path,
    path: &Path,
) -> Result<(Manifest, Value)> {
    let io = |what: &Path| {
        let shown = what.display().to_string();
        move |e: std::io::Error| file_error(&shown, e)
    };
    let body = Encoder::new(
        compression,
        BufWriter::with_capacity(1 << 16, File::create(scratch).map_err(io(scratch))?),
    )?;
    // Hashing and compressing run on a thread of their own, a page behind the database and
    // the JSON (as psql's \copy TO PROGRAM 'gzip' runs gzip beside it); at most a few pages
    // are in flight, never a month.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
    let compressor = std::thread::spawn(move || -> std::io::Result<Vec<u8>> {
        let mut body = body;
        let mut hash = Sha256::new();
        while let Some(chunk) = rx.blocking_recv() {
            hash.update(&chunk);
            body.write_all(&chunk)?;
        }
        let mut w = body.finish()?;
        w.flush()?;
        Ok(hash.finalize().to_vec())
    });
    let mut rows: i64 = 0;
    let (mut first_id, mut last_id): (Option<i64>, Option<i64>) = (None, None);
    // month → (job events, destination events), in order.
    let mut months: std::collections::BTreeMap<Month, (i64, i64)> = Default::default();
    let filter = EventFilter {
        until: Some(Since::At(before.start())),
        ..EventFilter::default()
    };
    client
        .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        .await?;
    let read = async {
        let mut page = events::page(client, &filter, PAGE, None).await?;
        loop {
            let next = page.next_cursor.take();
            // This page as lines, while the next one is read.
            let lines = async {
                let mut buf = Vec::with_capacity(page.events.len() * 400);
                for e in &page.events {
                    // The object `events -o jsonl` prints, byte for byte (keys in its order).
                    serde_json::to_writer(&mut buf, &Line::of(e))
                        .map_err(|e| Error::bug(format!("an event as JSON: {e}")))?;
                    buf.push(b'\n');
                    rows += 1;
                    first_id = Some(first_id.map_or(e.id, |f| f.min(e.id)));
                    last_id = Some(last_id.map_or(e.id, |l| l.max(e.id)));
                    let m = months.entry(Month::of(e.at)).or_default();
                    if e.is_job_event() {
                        m.0 += 1;
                    } else {
                        m.1 += 1;
                    }
                }
                tx.send(buf).await.map_err(|_| {
                    file_error(&scratch.display().to_string(), "the compressor stopped")
                })
            };
            match next {
                Some(c) => {
                    let (following, sent) =
                        tokio::join!(events::page(client, &filter, PAGE, Some(&c)), lines);
                    sent?;
                    page = following?;
                }
                None => {
                    lines.await?;
                    break;
                }
            }
        }
        Ok::<(), Error>(())
    }
    .await;
    let _ = client.batch_execute("COMMIT").await;
    drop(tx);
    let compressed = compressor
        .join()
        .map_err(|_| Error::bug("the compressor thread panicked"))?;
    read?;
    let digest = compressed.map_err(io(scratch))?;
    let manifest = Manifest {
        months: months.keys().map(Month::to_string).collect(),
        rows,
        first_id,
        last_id,
        sha256: hex::encode(digest),
    };
    let month_rows: Value = Value::Object(
        months
            .iter()
            .map(|(m, (j, d))| {
                (
                    m.to_string(),
                    json!({"job_events": j, "destination_events": d}),
                )
            })
            .collect(),
    );
    // The archive: the manifest as its own member, then the events' members as they are.
    let out = File::create(staged).map_err(io(staged))?;
    let mut head = Encoder::new(compression, BufWriter::new(out))?;
    let mut first = serde_json::to_vec(&json!({ "archive": manifest }))
        .map_err(|e| Error::bug(format!("the manifest as JSON: {e}")))?;
    first.push(b'\n');
    head.write_all(&first).map_err(io(staged))?;
    let mut out = head.finish().map_err(io(staged))?;
    let mut events_file = File::open(scratch).map_err(io(scratch))?;
    std::io::copy(&mut events_file, &mut out).map_err(io(staged))?;
    let out = out
        .into_inner()
        .map_err(|e| file_error(&staged.display().to_string(), e.error().to_string()))?;
    out.sync_all().map_err(io(staged))?;
    drop(out);
    if path.exists() {
        return Err(Error::runtime(format!(
            "{} appeared while the archive was written; it was left as it is",
            crate::escape::escape(&path.display().to_string())
        )));
    }
    std::fs::rename(staged, path).map_err(io(path))?;
    Ok((manifest, month_rows))
}

/// An event line: the object `events -o jsonl` prints (a [`TrailEvent`] through
/// `serde_json::Value`, whose keys come out sorted), written without building that tree.
#[derive(Serialize)]
struct Line<'a> {
    action: &'a str,
    actor: &'a str,
    #[serde(serialize_with = "crate::jobs::model::rfc3339")]
    at: &'a DateTime<Utc>,
    destination: &'a str,
    evidence: &'a Value,
    external_ref: &'a Option<String>,
    from_state: &'a Option<String>,
    from_version: &'a Option<i64>,
    id: i64,
    job_id: &'a Option<uuid::Uuid>,
    reason: &'a Option<String>,
    to_state: &'a Option<String>,
    to_version: &'a Option<i64>,
    xid: &'a Option<u64>,
}

impl<'a> Line<'a> {
    fn of(e: &'a TrailEvent) -> Line<'a> {
        Line {
            action: &e.action,
            actor: &e.actor,
            at: &e.at,
            destination: &e.destination,
            evidence: &e.evidence,
            external_ref: &e.external_ref,
            from_state: &e.from_state,
            from_version: &e.from_version,
            id: e.id,
            job_id: &e.job_id,
            reason: &e.reason,
            to_state: &e.to_state,
            to_version: &e.to_version,
            xid: &e.xid,
        }
    }
}

/// An archive whose manifest and content agree (checked by [`open`]).
pub struct Archive {
    path: PathBuf,
    compression: Compression,
    pub manifest: Manifest,
}

/// Open `path` and verify it whole (module doc): a tampered, partial or foreign file is a
/// runtime error (exit 1) naming what is wrong, before anything is read from it.
pub fn open(path: &Path) -> Result<Archive> {
    let compression = Compression::from_path(path)?;
    let shown = crate::escape::escape(&path.display().to_string());
    let refused = |why: String| {
        Error::runtime(format!("{shown}: refusing this archive: {why}")).hinted(
            "read the copy the archive was recorded from (event_archives.file_name, sha256)",
        )
    };
    let file = File::open(path).map_err(|e| file_error(&path.display().to_string(), e))?;
    let mut r = decoder(compression, file)?;
    let mut first = Vec::new();
    r.read_until(b'\n', &mut first)
        .map_err(|e| refused(format!("it cannot be decompressed ({e})")))?;
    let manifest: Manifest = serde_json::from_slice::<Value>(&first)
        .ok()
        .and_then(|v| v.get("archive").cloned())
        .and_then(|a| serde_json::from_value(a).ok())
        .ok_or_else(|| refused("its first line is not an archive's manifest".into()))?;
    let mut hash = Sha256::new();
    let mut rows: i64 = 0;
    let mut buf = vec![0u8; 1 << 16];
    let mut last_byte = b'\n';
    loop {
        let n = r.read(&mut buf).map_err(|e| {
            refused(format!(
                "it ends before its end: cut short or damaged ({e})"
            ))
        })?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
        rows += buf[..n].iter().filter(|b| **b == b'\n').count() as i64;
        last_byte = buf[n - 1];
    }
    if last_byte != b'\n' {
        return Err(refused("its last event line is cut short".into()));
    }
    let sum = hex::encode(hash.finalize());
    if rows != manifest.rows {
        return Err(refused(format!(
            "it holds {rows} event(s), its manifest says {}: partial",
            manifest.rows
        )));
    }
    if sum != manifest.sha256 {
        return Err(refused(format!(
            "its checksum is {sum}, its manifest says {}: changed since it was written",
            manifest.sha256
        )));
    }
    Ok(Archive {
        path: path.to_path_buf(),
        compression,
        manifest,
    })
}

impl Archive {
    /// Every event of the archive, in order, one at a time.
    pub fn events(&self) -> Result<impl Iterator<Item = Result<TrailEvent>>> {
        let file =
            File::open(&self.path).map_err(|e| file_error(&self.path.display().to_string(), e))?;
        let mut r = decoder(self.compression, file)?;
        let mut skip = Vec::new();
        r.read_until(b'\n', &mut skip)
            .map_err(|e| file_error(&self.path.display().to_string(), e))?;
        let shown = self.path.display().to_string();
        Ok(r.lines().map(move |line| {
            let line = line.map_err(|e| file_error(&shown, e))?;
            serde_json::from_str::<TrailEvent>(&line)
                .map_err(|e| file_error(&shown, format!("an event line: {e}")))
        }))
    }
}

/// Whether `e` is one `events` would list under `filter` (the same rules as its SQL);
/// `now`: the clock a duration in `--since`/`--until` counts back from; `job`: the job
/// `--job` named, as an id, or an external_ref (`pub_…`), or an id's prefix.
pub fn matches(
    filter: &EventFilter,
    job: Option<&JobMatch>,
    e: &TrailEvent,
    now: DateTime<Utc>,
) -> bool {
    if let Some(j) = job {
        if !j.matches(e) {
            return false;
        }
    }
    if let Some(d) = &filter.destination {
        if &e.destination != d {
            return false;
        }
    }
    if let Some(a) = &filter.actor {
        if &e.actor != a {
            return false;
        }
    }
    if !filter.actions.is_empty() {
        let wanted = filter.actions.iter().any(|a| *a == e.action);
        // A job event's action among the moves asked for, a destination event's among the
        // pause actions asked for.
        if !wanted || (e.is_job_event() == events::is_destination_action(&e.action)) {
            return false;
        }
    }
    if let Some(s) = filter.since {
        let Since::At(t) = s.fixed(now) else {
            return false;
        };
        if e.at < t {
            return false;
        }
    }
    if let Some(u) = filter.until {
        let Since::At(t) = u.fixed(now) else {
            return false;
        };
        if e.at >= t {
            return false;
        }
    }
    true
}

/// `--job` against an archive: the jobs' rows may be anywhere, so the argument is matched
/// against the events themselves.
#[derive(Debug, Clone)]
pub enum JobMatch {
    Id(uuid::Uuid),
    Ref(String),
    /// 8+ hex digits (hyphens as typed are ignored): must name one job of the archive.
    Prefix(String),
}

impl JobMatch {
    pub fn parse(s: &str) -> Result<JobMatch> {
        let t = s.trim();
        if let Ok(id) = uuid::Uuid::parse_str(t) {
            return Ok(JobMatch::Id(id));
        }
        if t.starts_with("pub_") {
            return Ok(JobMatch::Ref(t.to_string()));
        }
        let hex: String = t.chars().filter(|c| *c != '-').collect();
        if hex.len() >= 8 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Ok(JobMatch::Prefix(hex.to_ascii_lowercase()));
        }
        Err(Error::usage(format!(
            "--job: `{}` is neither a job id, a unique prefix of one (8+ hex digits), nor an external_ref",
            crate::escape::escape(&t.chars().take(80).collect::<String>())
        )))
    }

    pub fn matches(&self, e: &TrailEvent) -> bool {
        let Some(id) = e.job_id else {
            return false;
        };
        match self {
            JobMatch::Id(j) => *j == id,
            JobMatch::Ref(r) => e.external_ref.as_deref() == Some(r.as_str()),
            JobMatch::Prefix(p) => id.simple().to_string().starts_with(p.as_str()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Prune
// ---------------------------------------------------------------------------------------

/// One partition of a log, with its range.
#[derive(Debug, Clone, Serialize)]
pub struct Partition {
    pub log: String,
    pub name: String,
    /// None: MINVALUE (the legacy partition: everything before `until`).
    pub from: Option<DateTime<Utc>>,
    pub until: DateTime<Utc>,
}

impl Partition {
    /// The months this partition covers that hold events, per the archive's counts, and
    /// the rows the archive has for it.
    fn archived_rows(&self, month_rows: &Value) -> i64 {
        let Some(m) = month_rows.as_object() else {
            return -1;
        };
        m.iter()
            .filter_map(|(k, v)| {
                let month: Month = k.parse().ok()?;
                let start = month.start();
                let inside = self.from.map_or(true, |f| start >= f) && start < self.until;
                inside.then(|| v.get(&self.log).and_then(Value::as_i64).unwrap_or(0))
            })
            .sum()
    }
}

/// Every partition of the two logs, oldest first.
pub async fn partitions<C: GenericClient>(client: &C) -> Result<Vec<Partition>> {
    let rows = client
        .query(
            "SELECT p.relname::text, c.relname::text,
                    (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz,
                    (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz
             FROM pg_inherits i
             JOIN pg_class c ON c.oid = i.inhrelid
             JOIN pg_class p ON p.oid = i.inhparent
             WHERE p.oid IN (to_regclass('job_events'), to_regclass('destination_events'))
             ORDER BY 4, 1",
            &[],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(Partition {
                log: r.try_get(0)?,
                name: r.try_get(1)?,
                from: r.try_get(2)?,
                until: r.try_get(3)?,
            })
        })
        .collect()
}

/// An archive record, as `prune` needs it.
#[derive(Debug, Clone, Serialize)]
pub struct ArchiveRecord {
    pub id: i64,
    pub file_name: String,
    #[serde(serialize_with = "crate::jobs::model::rfc3339")]
    pub before: DateTime<Utc>,
    pub rows: i64,
    pub sha256: String,
    #[serde(skip)]
    pub month_rows: Value,
}

/// What `prune --before` would drop, and on which archive's word; or why not.
#[derive(Debug, Clone, Serialize)]
pub struct PrunePlan {
    pub before: String,
    pub partitions: Vec<PrunePart>,
    pub months: Vec<String>,
    pub rows: i64,
    pub archive: Option<ArchiveRecord>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PrunePart {
    pub log: String,
    pub partition: String,
    pub months: Vec<String>,
    pub rows: i64,
    pub archived_rows: i64,
}

/// Months (that hold events per the archive, or the partition's own) a partition covers.
fn months_of(p: &Partition, month_rows: &Value) -> Vec<String> {
    let mut out: Vec<String> = month_rows
        .as_object()
        .map(|m| {
            m.keys()
                .filter(|k| {
                    k.parse::<Month>().is_ok_and(|month| {
                        let s = month.start();
                        p.from.map_or(true, |f| s >= f) && s < p.until
                    })
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if out.is_empty() {
        if let Some(f) = p.from {
            out.push(Month::of(f).to_string());
        }
    }
    out
}

/// The partitions wholly before `before` (and before the current month), each checked
/// against the newest archive that covers it: its rows now must be the archive's. Anything
/// not archived in full is refused (exit 2), naming it; nothing is dropped. `lock`: count
/// under an ACCESS EXCLUSIVE lock of the partitions (in the caller's transaction).
async fn plan_on<C: GenericClient>(client: &C, before: Month, lock: bool) -> Result<PrunePlan> {
    let now_month = current_month(client).await?;
    refuse_unfinished(before, now_month)?;
    let bound = before.start();
    let doomed: Vec<Partition> = partitions(client)
        .await?
        .into_iter()
        .filter(|p| p.until <= bound && p.until <= now_month)
        .collect();
    let archive = client
        .query_opt(
            "SELECT id, file_name, before, rows, sha256, month_rows FROM event_archives
             WHERE before >= $1 ORDER BY id DESC LIMIT 1",
            &[&doomed.iter().map(|p| p.until).max().unwrap_or(bound)],
        )
        .await?
        .map(|r| -> Result<ArchiveRecord> {
            Ok(ArchiveRecord {
                id: r.try_get(0)?,
                file_name: r.try_get(1)?,
                before: r.try_get(2)?,
                rows: r.try_get(3)?,
                sha256: r.try_get(4)?,
                month_rows: r.try_get(5)?,
            })
        })
        .transpose()?;
    let mut plan = PrunePlan {
        before: before.to_string(),
        partitions: Vec::new(),
        months: Vec::new(),
        rows: 0,
        archive: archive.clone(),
    };
    if doomed.is_empty() {
        return Ok(plan);
    }
    if lock {
        let names: Vec<String> = doomed.iter().map(|p| p.name.clone()).collect();
        client
            .batch_execute(&format!(
                "LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
                names.join(", ")
            ))
            .await?;
    }
    let empty = Value::Object(Default::default());
    let month_rows = archive.as_ref().map_or(&empty, |a| &a.month_rows);
    let mut unarchived = Vec::new();
    for p in &doomed {
        let rows: i64 = client
            .query_one(&format!("SELECT count(*) FROM {}", p.name), &[])
            .await?
            .get(0);
        let archived = if archive.is_some() {
            p.archived_rows(month_rows)
        } else {
            -1
        };
        let months = months_of(p, month_rows);
        if rows != archived {
            unarchived.push(format!(
                "{} ({}): {rows} event(s) now, {}",
                p.name,
                if months.is_empty() {
                    "no events".to_string()
                } else {
                    months.join(", ")
                },
                if archived < 0 {
                    "no archive covers it".to_string()
                } else {
                    format!("{archived} in the archive")
                }
            ));
        }
        for m in &months {
            if !plan.months.contains(m) {
                plan.months.push(m.clone());
            }
        }
        plan.rows += rows;
        plan.partitions.push(PrunePart {
            log: p.log.clone(),
            partition: p.name.clone(),
            months,
            rows,
            archived_rows: archived,
        });
    }
    plan.months.sort();
    if !unarchived.is_empty() {
        return Err(Error::usage(format!(
            "refusing to prune: not archived in full: {}; nothing was dropped",
            unarchived.join("; ")
        ))
        .hinted(format!(
            "run `reconctl events archive --before {before} --to FILE` first (a month written to since its archive must be archived again)"
        )));
    }
    Ok(plan)
}

/// What would be pruned (read only: no lock, nothing dropped).
pub async fn plan<C: GenericClient>(client: &C, before: Month) -> Result<PrunePlan> {
    plan_on(client, before, false).await
}

/// Drop the partitions of [`plan`], checked again under their lock in the same transaction,
/// and record the prune. Needs the logs' owner (the user that runs `migrate`).
pub async fn prune(
    client: &tokio_postgres::Client,
    before: Month,
    actor: &str,
) -> Result<(PrunePlan, Option<i64>)> {
    client.batch_execute("BEGIN").await?;
    let result = async {
        let plan = plan_on(client, before, true).await?;
        let Some(archive) = plan
            .archive
            .as_ref()
            .filter(|_| !plan.partitions.is_empty())
        else {
            return Ok((plan, None));
        };
        for p in &plan.partitions {
            client
                .batch_execute(&format!("DROP TABLE {}", p.partition))
                .await?;
        }
        // job_event_destinations (V6) holds the destinations of the events written before V6,
        // every one of them in the legacy partition: with it gone, it describes no event and
        // would only be walked for nothing by `events --destination`. It is emptied as a whole
        // (its append-only trigger set aside for this statement, in this transaction).
        if plan.partitions.iter().any(|p| p.partition == "job_events_legacy") {
            client
                .batch_execute(
                    "ALTER TABLE job_event_destinations DISABLE TRIGGER job_event_destinations_no_truncate;
                     TRUNCATE job_event_destinations;
                     ALTER TABLE job_event_destinations ENABLE TRIGGER job_event_destinations_no_truncate",
                )
                .await?;
        }
        // The suspects of out-of-order publication (V16) accepted before the month go with
        // its events: `check` looks back --order-window, never months.
        client
            .execute(
                "DELETE FROM job_order_suspects WHERE accepted_at < $1",
                &[&before.start()],
            )
            .await?;
        let id: i64 = client
            .query_one(
                "INSERT INTO event_prunes (actor, before, months, partitions, rows, archive_id)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                &[
                    &actor,
                    &before.start(),
                    &plan.months,
                    &plan
                        .partitions
                        .iter()
                        .map(|p| p.partition.clone())
                        .collect::<Vec<_>>(),
                    &plan.rows,
                    &archive.id,
                ],
            )
            .await?
            .get(0);
        Ok::<_, Error>((plan, Some(id)))
    }
    .await;
    match result {
        Ok(r) => {
            client.batch_execute("COMMIT").await?;
            Ok(r)
        }
        Err(e) => {
            let _ = client.batch_execute("ROLLBACK").await;
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_line_is_the_jsonl_object_byte_for_byte() {
        for job in [Some(uuid::Uuid::nil()), None] {
            let e = TrailEvent {
                id: 7,
                job_id: job,
                at: "2026-08-01T10:00:00.123456Z".parse().unwrap(),
                actor: "a\"lice".into(),
                action: "mark_accepted".into(),
                from_state: Some("uncertain".into()),
                to_state: job.map(|_| "accepted".into()),
                from_version: Some(3),
                to_version: None,
                reason: Some("r\u{202e}".into()),
                evidence: json!({"z": 1, "a": {"y": [1, 2], "b": null}}),
                destination: "cms-a".into(),
                external_ref: None,
                xid: Some(42),
            };
            let via_value = serde_json::to_vec(&serde_json::to_value(&e).unwrap()).unwrap();
            assert_eq!(serde_json::to_vec(&Line::of(&e)).unwrap(), via_value);
        }
    }

    #[test]
    fn months_parse_strictly() {
        let m: Month = "2026-09".parse().unwrap();
        assert_eq!(m.to_string(), "2026-09");
        assert_eq!(m.start().to_rfc3339(), "2026-09-01T00:00:00+00:00");
        for bad in ["2026-9", "2026-13", "26-09", "2026/09", "", "2026-09-01"] {
            assert!(bad.parse::<Month>().is_err(), "{bad}");
        }
    }

    #[test]
    fn compression_follows_the_name() {
        assert_eq!(
            Compression::from_path(Path::new("a/b.jsonl.gz")).unwrap(),
            Compression::Gzip
        );
        assert_eq!(
            Compression::from_path(Path::new("b.ZST")).unwrap(),
            Compression::Zstd
        );
        assert_eq!(
            Compression::from_path(Path::new("b.jsonl"))
                .unwrap_err()
                .exit_code(),
            2
        );
    }

    #[test]
    fn a_partition_counts_the_archived_months_inside_it() {
        let rows = json!({"2026-08": {"job_events": 3, "destination_events": 1},
                          "2026-09": {"job_events": 5, "destination_events": 0}});
        let legacy = Partition {
            log: "job_events".into(),
            name: "job_events_legacy".into(),
            from: None,
            until: "2026-09".parse::<Month>().unwrap().start(),
        };
        assert_eq!(legacy.archived_rows(&rows), 3);
        let sep = Partition {
            log: "job_events".into(),
            name: "job_events_y2026m09".into(),
            from: Some("2026-09".parse::<Month>().unwrap().start()),
            until: "2026-10".parse::<Month>().unwrap().start(),
        };
        assert_eq!(sep.archived_rows(&rows), 5);
        assert_eq!(months_of(&sep, &rows), vec!["2026-09"]);
    }
}
