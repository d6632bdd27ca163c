//! A small destination that lives in memory, for `sandbox`, drills, tests and the reconcile
//! bench (a fixture of the sandbox, not part of the lookup adapter in `remote`).
//!
//! It speaks just enough HTTP/1.1 (keep-alive, Content-Length bodies) for reqwest and curl,
//! on a plain tokio listener: a full server framework would add a dependency for a test
//! fixture. The contract is the one `remote lookup` expects of a CMS (SPEC §4 example):
//!
//! - `GET /articles?external_ref=REF` → `200 [{"id", "external_ref", "payload_hash"}]`
//!   (an empty array when it has none);
//! - `POST /articles` with `{"external_ref", "payload_hash"}` → `201 {"id"}`. Like a real
//!   CMS without idempotency keys, posting the same reference twice publishes it twice.
//!
//! Knobs for drills: a latency on every answer, "accept but answer late" (the article is
//! stored at once, the answer comes after a delay, so a client with a shorter timeout is left
//! uncertain), "visible late" (lookups see a new article only after a delay), a bearer token
//! it insists on, and a switch that makes it answer 503.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::error::{Error, Result};

/// How the destination behaves.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Added before every answer.
    pub latency: Duration,
    /// A publish is stored at once but answered only after this long.
    pub respond_late: Option<Duration>,
    /// A published article shows up in lookups only this long after it was stored.
    pub visible_after: Option<Duration>,
    /// Required as `Authorization: Bearer …` when set (else 401).
    pub token: Option<String>,
}

/// One published article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Article {
    pub id: String,
    pub external_ref: String,
    pub payload_hash: String,
    #[serde(skip)]
    stored: Instant,
}

#[derive(Default)]
struct Store {
    by_ref: Mutex<HashMap<String, Vec<Article>>>,
    next_id: AtomicU64,
    requests: AtomicU64,
    down: AtomicBool,
}

impl Store {
    fn publish(&self, external_ref: &str, payload_hash: &str) -> String {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let id = format!("art-{n}");
        let article = Article {
            id: id.clone(),
            external_ref: external_ref.to_string(),
            payload_hash: payload_hash.to_string(),
            stored: Instant::now(),
        };
        self.by_ref
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(external_ref.to_string())
            .or_default()
            .push(article);
        id
    }

    fn find(&self, external_ref: &str, visible_after: Option<Duration>) -> Vec<Article> {
        let map = self.by_ref.lock().unwrap_or_else(|p| p.into_inner());
        map.get(external_ref)
            .map(|v| {
                v.iter()
                    .filter(|a| match visible_after {
                        Some(d) => a.stored.elapsed() >= d,
                        None => true,
                    })
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A running destination; it stops when dropped.
///
/// It serves from a thread and runtime of its own, so it keeps answering while the caller's
/// runtime is blocked (a test waiting on the binary it runs, say), as wiremock does.
pub struct DevServer {
    addr: SocketAddr,
    store: Arc<Store>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for DevServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl DevServer {
    /// Listen on `listen` (port 0: any free port) and serve until dropped. Synchronous: the
    /// server runs on a thread and runtime of its own, and this returns once it listens.
    pub fn start(listen: SocketAddr, options: Options) -> Result<DevServer> {
        let listener = std::net::TcpListener::bind(listen)
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| Error::runtime(format!("cannot listen on {listen}: {e}")))?;
        let addr = listener.local_addr()?;
        let store = Arc::new(Store::default());
        let options = Arc::new(options);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready) = std::sync::mpsc::channel::<Result<()>>();
        let thread = {
            let store = store.clone();
            std::thread::Builder::new()
                .name("dev-destination".into())
                .spawn(move || {
                    let runtime = match tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(2)
                        .thread_name("dev-destination")
                        .enable_all()
                        .build()
                    {
                        Ok(rt) => rt,
                        Err(e) => {
                            let _ = ready_tx.send(Err(Error::runtime(format!(
                                "cannot start the destination's runtime: {e}"
                            ))));
                            return;
                        }
                    };
                    runtime.block_on(async move {
                        let listener = match TcpListener::from_std(listener) {
                            Ok(l) => l,
                            Err(e) => {
                                let _ = ready_tx.send(Err(e.into()));
                                return;
                            }
                        };
                        let _ = ready_tx.send(Ok(()));
                        let accept = async {
                            loop {
                                let Ok((sock, _)) = listener.accept().await else {
                                    tokio::time::sleep(Duration::from_millis(10)).await;
                                    continue;
                                };
                                let _ = sock.set_nodelay(true);
                                tokio::spawn(serve(sock, store.clone(), options.clone()));
                            }
                        };
                        tokio::select! {
                            _ = stopped => {}
                            () = accept => {}
                        }
                    });
                    // Open connections end with the runtime.
                    runtime.shutdown_background();
                })
                .map_err(|e| Error::runtime(format!("cannot start the destination: {e}")))?
        };
        ready
            .recv()
            .map_err(|_| Error::runtime("the destination's thread ended before it was ready"))??;
        Ok(DevServer {
            addr,
            store,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The `lookup_url` a destination config needs for this server.
    pub fn lookup_url(&self) -> String {
        format!("{}/articles?external_ref={{ref}}", self.url())
    }

    /// A `[destinations.NAME]` section for this server (SPEC §4), with `canary_ref` (a
    /// reference it holds: the positive control) when given.
    pub fn config_toml(&self, name: &str, settle_after: &str, canary_ref: Option<&str>) -> String {
        let canary = canary_ref
            .map(|r| format!("canary_ref = \"{r}\"\n"))
            .unwrap_or_default();
        format!(
            "[destinations.{name}]\nlookup_url = \"{}\"\ntimeout = \"5s\"\nresults = \"\"\nremote_id = \"/id\"\ncontent_hash = \"/payload_hash\"\nsettle_after = \"{settle_after}\"\n{canary}",
            self.lookup_url()
        )
    }

    /// Publish directly (as if a worker's POST had landed); returns the new id.
    pub fn publish(&self, external_ref: &str, payload_hash: &str) -> String {
        self.store.publish(external_ref, payload_hash)
    }

    /// What it holds under a reference (all of it, visible or not yet).
    pub fn articles(&self, external_ref: &str) -> Vec<Article> {
        self.store.find(external_ref, None)
    }

    /// Requests answered so far.
    pub fn requests(&self) -> u64 {
        self.store.requests.load(Ordering::Relaxed)
    }

    /// While down, every request gets 503.
    pub fn set_down(&self, down: bool) {
        self.store.down.store(down, Ordering::Relaxed);
    }

    /// Load articles from a file: one a line, `EXTERNAL_REF PAYLOAD_HASH` (whitespace
    /// separated) or a JSON object with those two keys. Returns how many were loaded.
    pub fn load_seed_file(&self, path: &Path) -> Result<u64> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::runtime(format!("cannot read {}: {e}", path.display())))?;
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (r, h) = if line.starts_with('{') {
                let p: PublishBody = serde_json::from_str(line).map_err(|e| {
                    Error::usage(format!("{}, line {}: {e}", path.display(), i + 1))
                })?;
                (p.external_ref, p.payload_hash)
            } else {
                let mut parts = line.split_whitespace();
                match (parts.next(), parts.next()) {
                    (Some(r), Some(h)) => (r.to_string(), h.to_string()),
                    _ => {
                        return Err(Error::usage(format!(
                            "{}, line {}: expected EXTERNAL_REF PAYLOAD_HASH",
                            path.display(),
                            i + 1
                        )))
                    }
                }
            };
            self.store.publish(&r, &h);
            n += 1;
        }
        Ok(n)
    }
}

#[derive(Deserialize)]
struct PublishBody {
    external_ref: String,
    payload_hash: String,
}

/// Largest request head and body it reads; anything bigger is refused.
const MAX_HEAD: usize = 16 * 1024;
const MAX_BODY: usize = 64 * 1024;

struct Request {
    method: String,
    target: String,
    authorization: Option<String>,
    body: Vec<u8>,
    close: bool,
}

async fn serve(sock: TcpStream, store: Arc<Store>, options: Arc<Options>) {
    let (read, mut write) = sock.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let req = match read_request(&mut reader).await {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(status) => {
                let _ = write
                    .write_all(&response(status, "{\"error\":\"bad request\"}", true))
                    .await;
                return;
            }
        };
        store.requests.fetch_add(1, Ordering::Relaxed);
        let (status, body, delay) = route(&req, &store, &options);
        let wait = options.latency + delay;
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        if write
            .write_all(&response(status, &body, req.close))
            .await
            .is_err()
            || req.close
        {
            return;
        }
    }
}

/// The next request on a connection; `Ok(None)` when the client hung up between requests.
async fn read_request(
    reader: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
) -> std::result::Result<Option<Request>, u16> {
    let mut line = String::new();
    let mut head = 0usize;
    let n = reader.read_line(&mut line).await.map_err(|_| 400u16)?;
    if n == 0 {
        return Ok(None);
    }
    head += n;
    let mut parts = line.split_whitespace();
    let method = parts.next().ok_or(400u16)?.to_string();
    let target = parts.next().ok_or(400u16)?.to_string();
    let version = parts.next().unwrap_or("HTTP/1.0").to_string();
    let mut close = version == "HTTP/1.0";
    let mut length = 0usize;
    let mut authorization = None;
    loop {
        let mut h = String::new();
        let n = reader.read_line(&mut h).await.map_err(|_| 400u16)?;
        head += n;
        if n == 0 || head > MAX_HEAD {
            return Err(400);
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let Some((name, value)) = h.split_once(':') else {
            return Err(400);
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse().map_err(|_| 400u16)?,
            "connection" => close = value.eq_ignore_ascii_case("close"),
            "authorization" => authorization = Some(value.to_string()),
            "transfer-encoding" => return Err(411),
            _ => {}
        }
    }
    if length > MAX_BODY {
        return Err(413);
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await.map_err(|_| 400u16)?;
    Ok(Some(Request {
        method,
        target,
        authorization,
        body,
        close,
    }))
}

/// Status, JSON body, and extra delay before answering.
fn route(req: &Request, store: &Store, options: &Options) -> (u16, String, Duration) {
    if store.down.load(Ordering::Relaxed) {
        return (
            503,
            "{\"error\":\"down for maintenance\"}".into(),
            Duration::ZERO,
        );
    }
    if let Some(token) = &options.token {
        let expected = format!("Bearer {token}");
        if req.authorization.as_deref() != Some(expected.as_str()) {
            return (401, "{\"error\":\"unauthorized\"}".into(), Duration::ZERO);
        }
    }
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    match (req.method.as_str(), path) {
        ("GET", "/articles") => {
            let Some(r) = url::form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "external_ref")
                .map(|(_, v)| v.into_owned())
            else {
                return (
                    400,
                    "{\"error\":\"external_ref is required\"}".into(),
                    Duration::ZERO,
                );
            };
            let found = store.find(&r, options.visible_after);
            let body = serde_json::to_string(&found).unwrap_or_else(|_| "[]".into());
            (200, body, Duration::ZERO)
        }
        ("POST", "/articles") => match serde_json::from_slice::<PublishBody>(&req.body) {
            Ok(p) => {
                let id = store.publish(&p.external_ref, &p.payload_hash);
                (
                    201,
                    serde_json::json!({ "id": id }).to_string(),
                    options.respond_late.unwrap_or_default(),
                )
            }
            Err(e) => (
                400,
                serde_json::json!({ "error": e.to_string() }).to_string(),
                Duration::ZERO,
            ),
        },
        (_, "/articles") => (
            405,
            "{\"error\":\"method not allowed\"}".into(),
            Duration::ZERO,
        ),
        _ => (404, "{\"error\":\"not found\"}".into(), Duration::ZERO),
    }
}

fn response(status: u16, body: &str, close: bool) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Payload Too Large",
        503 => "Service Unavailable",
        _ => "Unknown",
    };
    let connection = if close { "close" } else { "keep-alive" };
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: {connection}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::DbClock;
    use crate::config::Config;

    #[tokio::test]
    async fn lookup_contract_round_trip() {
        let server = DevServer::start("127.0.0.1:0".parse().unwrap(), Options::default()).unwrap();
        let cfg = Config::parse(
            &server.config_toml("dev", "2m", None),
            std::path::Path::new("dev.toml"),
        )
        .unwrap();
        let http = crate::remote::build_client().unwrap();
        let dest = crate::remote::Lookups::new(&cfg, &http)
            .destination("dev")
            .unwrap();
        let hash = "ab".repeat(32);
        let expect = crate::remote::Expect {
            payload_hash: Some(&hash),
            sent_at: None,
        };
        let none = dest.ask("pub_x", expect, DbClock::local()).await;
        assert_eq!(none.outcome, crate::remote::Outcome::NotFound);

        let resp = http
            .post(format!("{}/articles", server.url()))
            .json(&serde_json::json!({"external_ref": "pub_x", "payload_hash": hash}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 201);
        let id = resp.json::<serde_json::Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let found = dest.ask("pub_x", expect, DbClock::local()).await;
        assert_eq!(found.verdict, crate::remote::Verdict::Accept);
        assert_eq!(found.matches[0].remote_id, id);

        server.publish("pub_x", &hash);
        let twice = dest.ask("pub_x", expect, DbClock::local()).await;
        assert_eq!(twice.outcome, crate::remote::Outcome::Ambiguous);

        server.set_down(true);
        let down = dest.ask("pub_x", expect, DbClock::local()).await;
        assert_eq!(down.verdict, crate::remote::Verdict::Unknown);
        assert_eq!(server.requests(), 4 + 1);
    }

    #[tokio::test]
    async fn late_answers_and_late_visibility() {
        let server = DevServer::start(
            "127.0.0.1:0".parse().unwrap(),
            Options {
                respond_late: Some(Duration::from_millis(400)),
                visible_after: Some(Duration::from_millis(200)),
                ..Options::default()
            },
        )
        .unwrap();
        let http = reqwest::Client::new();
        let sent = http
            .post(format!("{}/articles", server.url()))
            .json(&serde_json::json!({"external_ref": "pub_y", "payload_hash": "h"}))
            .timeout(Duration::from_millis(100))
            .send()
            .await;
        assert!(sent.unwrap_err().is_timeout());
        // Stored although the client gave up; invisible to lookups for a while.
        assert_eq!(server.articles("pub_y").len(), 1);
        let url = format!("{}/articles?external_ref=pub_y", server.url());
        let now: Vec<serde_json::Value> =
            http.get(&url).send().await.unwrap().json().await.unwrap();
        assert!(now.is_empty());
        tokio::time::sleep(Duration::from_millis(250)).await;
        let later: Vec<serde_json::Value> =
            http.get(&url).send().await.unwrap().json().await.unwrap();
        assert_eq!(later.len(), 1);
    }
}
