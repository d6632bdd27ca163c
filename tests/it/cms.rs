//! A CMS for tests (wiremock): `GET /articles?external_ref=REF`, SPEC §4's example
//! destination, with its controls seeded: it holds the canary ([`CANARY`], configured as
//! `canary_ref`), and answers `[]` (no match) for every reference a test did not mount, so a
//! made-up one (the negative control) is not found. Shared by every module that asks a
//! destination.

use serde_json::{json, Value};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The publication the test CMS always holds: its positive control.
pub const CANARY: &str = "pub_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";

/// The remote id the CMS gives the canary.
pub const CANARY_ID: &str = "canary-1";

/// A config with destination `cms-a` at `base` (1 s timeout, settle_after 2m), no canary.
pub fn config_for(base: &str, extra: &str) -> String {
    format!(
        r#"
[destinations.cms-a]
lookup_url = "{base}/articles?external_ref={{ref}}"
timeout = "1s"
results = ""
remote_id = "/id"
content_hash = "/payload_hash"
settle_after = "2m"
{extra}
"#
    )
}

pub fn ok_json(body: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(body)
}

/// One match: the CMS holds it as `id` with content hash `hash`.
pub fn found(id: &str, hash: &str) -> ResponseTemplate {
    ok_json(json!([{"id": id, "payload_hash": hash}]))
}

/// No match: an empty list.
pub fn none() -> ResponseTemplate {
    ok_json(json!([]))
}

pub struct Cms {
    pub server: MockServer,
}

impl Cms {
    /// A CMS holding the canary and nothing else.
    pub async fn start() -> Cms {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/articles"))
            .and(query_param("external_ref", CANARY))
            .respond_with(found(CANARY_ID, &"c".repeat(64)))
            .mount(&server)
            .await;
        // Everything a test did not mount: no match (every mount of a test wins over this).
        Mock::given(method("GET"))
            .respond_with(none())
            .with_priority(10)
            .mount(&server)
            .await;
        Cms { server }
    }

    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// The config for `cms-a` at this CMS, with its canary.
    pub fn config(&self, extra: &str) -> String {
        config_for(&self.uri(), &format!("canary_ref = \"{CANARY}\"\n{extra}"))
    }

    /// Answer `resp` when asked for `external_ref`.
    pub async fn answer(&self, external_ref: &str, resp: ResponseTemplate) {
        Mock::given(method("GET"))
            .and(path("/articles"))
            .and(query_param("external_ref", external_ref))
            .respond_with(resp)
            .mount(&self.server)
            .await;
    }

    /// The references asked for so far, in order (the controls' included).
    pub async fn asked(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter_map(|r| {
                r.url
                    .query_pairs()
                    .find(|(k, _)| k == "external_ref")
                    .map(|(_, v)| v.into_owned())
            })
            .collect()
    }

    /// How many times `external_ref` was asked for.
    pub async fn asked_for(&self, external_ref: &str) -> usize {
        self.asked()
            .await
            .iter()
            .filter(|r| r.as_str() == external_ref)
            .count()
    }
}
