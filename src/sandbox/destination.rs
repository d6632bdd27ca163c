//! The sandbox's destination: the in-memory [`DevServer`] on 127.0.0.1, and the worker's
//! side of sending to it, over real HTTP, with the fate the scenario asks for.

use std::time::Duration;

use serde_json::json;

use super::scenario::{Fate, Publisher, Sent};
use crate::error::{Error, Result};
use crate::jobs::Job;
use crate::sandbox::devserver::{DevServer, Options};

/// How long the sandbox's worker waits for an answer (what its timeouts report).
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

pub struct LocalDestination {
    pub server: DevServer,
    http: reqwest::Client,
}

impl LocalDestination {
    pub async fn start() -> Result<LocalDestination> {
        let server = DevServer::start(
            "127.0.0.1:0".parse().expect("a socket address"),
            Options::default(),
        )?;
        let http = reqwest::Client::builder()
            .timeout(SEND_TIMEOUT)
            .build()
            .map_err(|e| Error::bug(format!("HTTP client setup: {e}")))?;
        Ok(LocalDestination { server, http })
    }

    fn publish_url(&self) -> String {
        format!("{}/articles", self.server.url())
    }
}

fn timed_out() -> Sent {
    Sent::TimedOut {
        error: format!(
            "no answer from the destination within {}s",
            SEND_TIMEOUT.as_secs()
        ),
    }
}

impl Publisher for LocalDestination {
    async fn send(&self, job: &Job, _payload: &[u8], fate: Fate) -> Result<Sent> {
        let body = match fate {
            // The network ate the request: the destination never sees it.
            Fate::Lost => return Ok(timed_out()),
            // A rendering bug left the hash out: the destination refuses it (400).
            Fate::Refused => json!({ "external_ref": job.external_ref }),
            Fate::Arrives | Fate::AnswerLost => json!({
                "external_ref": job.external_ref,
                "payload_hash": job.payload_hash,
            }),
        };
        let resp = self
            .http
            .post(self.publish_url())
            .json(&body)
            .send()
            .await
            .map_err(|e| Error::runtime(format!("sandbox destination: {e}")))?;
        let status = resp.status();
        let answer: serde_json::Value = resp.json().await.unwrap_or_default();
        if fate == Fate::AnswerLost {
            // The destination stored it; its answer is lost on the way back.
            return Ok(timed_out());
        }
        if status.is_success() {
            let remote_id = answer["id"].as_str().ok_or_else(|| {
                Error::bug(format!(
                    "sandbox destination answered {answer} without an id"
                ))
            })?;
            return Ok(Sent::Accepted {
                remote_id: remote_id.to_string(),
            });
        }
        Ok(Sent::Rejected {
            error: format!(
                "destination refused it: {status}: {}",
                answer["error"].as_str().unwrap_or("no reason given")
            ),
        })
    }
}
