//! Against a real WordPress (issue 22, SPEC §4 "Real CMSs"): every copy of an article, in
//! every status, read with the rights to see it. Each test runs with `kind = "wordpress"`
//! and, where the row of the issue's table is about the answer rather than the kind, with a
//! generic config that asks WordPress the same way (`lookup_url` with every status and the
//! renamed slugs, `ref`/`status`/`removed` pointers, `auth = "basic"`).

mod site;

use reconctl::jobs::State;
use serde_json::Value;

use crate::harness::{Run, Seed, TestEnv};
pub use site::{site, Site};

const USER_VAR: &str = "BLOG_USER";
const PASSWORD_VAR: &str = "BLOG_APP_PASSWORD";

/// The two ways to ask WordPress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    Kind,
    Generic,
}

const BOTH: [Way; 2] = [Way::Kind, Way::Generic];

/// A config for destination `blog` at the site, the canary being `canary`.
pub fn config(site: &Site, way: Way, canary: &str, extra: &str) -> String {
    match way {
        Way::Kind => format!(
            r#"
[destinations.blog]
kind = "wordpress"
base_url = "{base}"
user_env = "{USER_VAR}"
password_env = "{PASSWORD_VAR}"
content_hash = "/meta/payload_hash"
timeout = "10s"
settle_after = "2m"
canary_ref = "{canary}"
{extra}
"#,
            base = site.base_url
        ),
        Way::Generic => format!(
            r#"
[destinations.blog]
lookup_url = "{base}/?rest_route=/wp/v2/posts&slug={{ref}},{{ref}}-2,{{ref}}-3,{{ref}}__trashed,{{ref}}-2__trashed&status=publish,future,draft,pending,private,trash&_fields=id,slug,status,meta&per_page=100"
auth = "basic"
user_env = "{USER_VAR}"
password_env = "{PASSWORD_VAR}"
remote_id = "/id"
ref = "/slug"
status = "/status"
removed = ["trash"]
content_hash = "/meta/payload_hash"
timeout = "10s"
settle_after = "2m"
canary_ref = "{canary}"
{extra}
"#,
            base = site.base_url
        ),
    }
}

/// A test's own corner of the shared site: its database, a tenant of its own (so its
/// references are its own), a published canary, and the config written.
pub struct Blog {
    pub env: TestEnv,
    pub site: &'static Site,
    pub tenant: String,
    pub canary: String,
    pub config: String,
    user: String,
    password: String,
}

impl Blog {
    pub async fn new(way: Way) -> Blog {
        Blog::with(way, "").await
    }

    pub async fn with(way: Way, extra: &str) -> Blog {
        let site = site();
        let env = TestEnv::new().await;
        let tenant = format!("t-{}", uuid::Uuid::new_v4().simple());
        let canary = reconctl::jobs::external_ref(&tenant, "canary", "1", "blog");
        site.publish(&canary, "publish", None).await;
        let config = env.write_config(&config(site, way, &canary, extra));
        Blog {
            env,
            site,
            tenant,
            canary,
            config,
            user: site.user.clone(),
            password: site.app_password.clone(),
        }
    }

    /// An uncertain job of this test's tenant at `blog`, sent ten minutes ago (settled).
    pub async fn uncertain(&self, article: &str) -> reconctl::jobs::Job {
        self.env
            .seed(Seed {
                tenant: self.tenant.clone(),
                ..Seed::new(article)
                    .destination("blog")
                    .state(State::Uncertain)
                    .sent_ago(600)
            })
            .await
    }

    /// A publishing worker's post of `job`'s article: slug = its external_ref, its payload
    /// hash in the meta.
    pub async fn publish(&self, job: &reconctl::jobs::Job, status: &str) -> site::Post {
        self.site
            .publish(&job.external_ref, status, Some(&job.payload_hash))
            .await
    }

    /// Use this application password instead of the real one.
    pub fn with_password(mut self, password: &str) -> Blog {
        self.password = password.to_string();
        self
    }

    /// Look up as this user.
    pub fn signed_in_as(mut self, user: &str, password: &str) -> Blog {
        self.user = user.to_string();
        self.password = password.to_string();
        self
    }

    /// reconctl with the config and the credentials in the environment.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut full = vec!["--config", self.config.as_str()];
        full.extend_from_slice(args);
        Run(self
            .env
            .cmd()
            .env(USER_VAR, &self.user)
            .env(PASSWORD_VAR, &self.password)
            .args(&full)
            .write_stdin("")
            .output()
            .expect("run reconctl"))
    }

    /// `remote lookup JOB -o json`; its output must hold no secret.
    pub fn lookup(&self, job: &reconctl::jobs::Job) -> (i32, Value) {
        let run = self.run(&["remote", "lookup", &job.id.to_string(), "-o", "json"]);
        let text = format!("{}{}", run.stdout(), run.stderr());
        for s in secret_forms(&self.user, &self.password) {
            assert!(!text.contains(&s), "a secret form {s:?} in {text}");
        }
        (run.code(), run.json())
    }

    /// Every output so far and every event's evidence must be free of the password.
    pub async fn assert_no_secret(&self, outputs: &[&Run]) {
        let secrets = secret_forms(&self.site.user, &self.site.app_password);
        let events: Vec<String> = self
            .env
            .client
            .query(
                "SELECT evidence::text FROM job_events WHERE evidence IS NOT NULL",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        for text in outputs
            .iter()
            .flat_map(|r| [r.stdout(), r.stderr()])
            .chain(events)
        {
            for s in &secrets {
                assert!(!text.contains(s.as_str()), "a secret form {s:?} in {text}");
            }
        }
    }
}

/// The forms an application password could leak in: as shown, without spaces, and inside a
/// Basic header.
pub fn secret_forms(user: &str, password: &str) -> Vec<String> {
    use base64::Engine;
    let bare = password.replace(' ', "");
    vec![
        password.to_string(),
        url::form_urlencoded::byte_serialize(password.as_bytes()).collect(),
        bare.clone(),
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")),
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{bare}")),
    ]
}

/// The matches as (remote_id, status, ref), in the order of their ids (a generic config
/// leaves WordPress's own order, newest first).
fn matches(v: &Value) -> Vec<(String, String, String)> {
    let mut m: Vec<(String, String, String)> = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["remote_id"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap_or("null").to_string(),
                m["ref"].as_str().unwrap_or("null").to_string(),
            )
        })
        .collect();
    m.sort_by_key(|(id, _, _)| id.parse::<u64>().unwrap_or(u64::MAX));
    m
}

/// Row 2 of the issue's table: a draft, pending, private or scheduled post with slug = ref
/// holds the article: `accept`, never `safe_to_retry`; and reconcile accepts it.
#[tokio::test]
async fn an_unpublished_copy_in_any_status_is_accept_never_safe_to_retry() {
    for way in BOTH {
        let blog = Blog::new(way).await;
        let mut runs = Vec::new();
        for status in ["draft", "pending", "private", "future", "publish"] {
            let job = blog.uncertain(&format!("a-{status}")).await;
            let post = blog.publish(&job, status).await;
            assert_eq!(
                post.slug, job.external_ref,
                "{status}: WordPress kept the slug"
            );
            let (code, v) = blog.lookup(&job);
            assert_eq!(code, 0, "{way:?} {status}: {v}");
            assert_eq!(v["verdict"], "accept", "{way:?} {status}: {v}");
            assert_eq!(v["outcome"], "found");
            assert_eq!(v["content_match"], true, "{v}");
            assert_eq!(
                matches(&v),
                [(
                    post.id.to_string(),
                    status.to_string(),
                    job.external_ref.clone()
                )],
                "{way:?}"
            );
            assert_eq!(v["controls"]["positive"]["ok"], true, "{v}");
            assert_eq!(v["controls"]["negative"]["ok"], true, "{v}");
            let run = blog.run(&["reconcile", "--apply", "--yes", "-o", "json"]);
            let run = run.expect(0);
            let moved = blog.env.job(job.id).await;
            assert_eq!(moved.state, State::Accepted, "{way:?} {status}");
            assert_eq!(
                moved.remote_id.as_deref(),
                Some(post.id.to_string().as_str())
            );
            runs.push(run);
        }
        let refs: Vec<&Run> = runs.iter().collect();
        blog.assert_no_secret(&refs).await;
    }
}

/// Row 1: WordPress renames a second copy `REF-2` instead of refusing it: two matches,
/// `conflict`, and reconcile moves the job to conflict (not accepted).
#[tokio::test]
async fn a_copy_wordpress_renamed_is_a_second_match_and_a_conflict() {
    for way in BOTH {
        let blog = Blog::new(way).await;
        let job = blog.uncertain("twice").await;
        let first = blog.publish(&job, "publish").await;
        let second = blog.publish(&job, "publish").await;
        assert_eq!(second.slug, format!("{}-2", job.external_ref));
        let (code, v) = blog.lookup(&job);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["verdict"], "conflict", "{way:?}: {v}");
        assert_eq!(v["outcome"], "ambiguous");
        assert_eq!(
            matches(&v),
            [
                (
                    first.id.to_string(),
                    "publish".into(),
                    job.external_ref.clone()
                ),
                (second.id.to_string(), "publish".into(), second.slug.clone()),
            ]
        );
        blog.run(&["reconcile", "--apply", "--yes"]).expect(5);
        assert_eq!(blog.env.job(job.id).await.state, State::Conflict);
        // The table names the renamed copy.
        let table = blog.run(&["remote", "lookup", &job.external_ref]).expect(0);
        let out = table
            .stdout()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(out.contains(&format!("as {}", second.slug)), "{out}");
    }
}

/// Row 3: a post an editor trashed (slug `REF__trashed`) is `conflict`: a person decides
/// whether to republish what an editor removed. Never safe_to_retry.
#[tokio::test]
async fn a_trashed_post_is_a_conflict_never_safe_to_retry() {
    for way in BOTH {
        let blog = Blog::new(way).await;
        let job = blog.uncertain("trashed").await;
        let post = blog.publish(&job, "publish").await;
        let trashed = blog.site.trash(post.id).await;
        assert_eq!(trashed.status, "trash");
        assert_eq!(trashed.slug, format!("{}__trashed", job.external_ref));
        let (code, v) = blog.lookup(&job);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["verdict"], "conflict", "{way:?}: {v}");
        assert_eq!(
            matches(&v),
            [(post.id.to_string(), "trash".into(), trashed.slug.clone())]
        );
        let table = blog.run(&["remote", "lookup", &job.external_ref]).expect(0);
        assert!(table.stdout().contains("removed"), "{}", table.stdout());
        assert!(
            table.stdout().contains("status trash"),
            "{}",
            table.stdout()
        );
        blog.run(&["reconcile", "--apply", "--yes"]).expect(5);
        assert_eq!(blog.env.job(job.id).await.state, State::Conflict);
        blog.run(&[
            "mark",
            "safe-to-retry",
            &job.id.to_string(),
            "--reason",
            "retry it",
            "--yes",
        ])
        .expect(3);
        assert_eq!(blog.env.job(job.id).await.state, State::Conflict);
    }
}

/// Row 4, the cascade: a draft holds the slug; reconcile's first lookup accepts the job, so
/// no worker retries it and WordPress never gets a `REF-2`. (Before, the anonymous lookup saw
/// nothing, said safe_to_retry, and every retry published one more copy.)
#[tokio::test]
async fn apply_on_a_drafts_job_accepts_it_and_no_retry_adds_a_copy() {
    for way in BOTH {
        let blog = Blog::new(way).await;
        let job = blog.uncertain("cascade").await;
        let draft = blog.publish(&job, "draft").await;
        let run = blog
            .run(&["reconcile", "--apply", "--yes", "-o", "json"])
            .expect(0);
        let v = run.json();
        assert_eq!(v["summary"]["accept"], 1, "{v}");
        assert_eq!(v["summary"]["safe_to_retry"], 0, "{v}");
        let now = blog.env.job(job.id).await;
        assert_eq!(now.state, State::Accepted);
        assert_eq!(now.remote_id, Some(draft.id.to_string()));
        // A worker finds nothing to send again for this article.
        let claimed = reconctl::jobs::worker::claim(
            &blog.env.client,
            "worker-1",
            std::time::Duration::from_secs(300),
            Some("blog"),
        )
        .await
        .unwrap();
        assert!(claimed.is_none(), "{claimed:?}");
        let posts = blog.site.posts_like(&job.external_ref).await;
        assert_eq!(posts.len(), 1, "{posts:?}");
        assert_eq!(posts[0].status, "draft");
    }
}

/// Row 5: no content hash (a meta field read back as "") is `accept` with
/// `content_match: null`, never a conflict printing an empty hash.
#[tokio::test]
async fn no_content_hash_is_accept_with_content_match_null() {
    for way in BOTH {
        let blog = Blog::new(way).await;
        let job = blog.uncertain("nohash").await;
        let post = blog.site.publish(&job.external_ref, "publish", None).await;
        let (code, v) = blog.lookup(&job);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["verdict"], "accept", "{way:?}: {v}");
        assert_eq!(v["content_match"], Value::Null);
        assert_eq!(v["matches"][0]["content_hash"], Value::Null);
        assert_eq!(v["matches"][0]["remote_id"], post.id.to_string());
        assert!(!v["reason"].as_str().unwrap().contains("hash ,"), "{v}");
    }
}

/// A wrong application password: WordPress answers a public list as if an anonymous reader
/// asked, so only the positive control's proof of the credentials catches it. Every verdict
/// is unknown, doctor fails naming the credentials, nothing moves.
#[tokio::test]
async fn a_wrong_application_password_is_unknown_doctor_fails_and_nothing_moves() {
    for way in BOTH {
        let blog = Blog::new(way)
            .await
            .with_password("abcd EFGH ijkl MNOP qrst UVWX");
        let job = blog.uncertain("wrongpw").await;
        let (code, v) = blog.lookup(&job);
        assert_eq!(code, 1, "{way:?}: {v}");
        assert_eq!(v["verdict"], "unknown", "{v}");
        assert_eq!(v["controls"]["positive"]["ok"], false, "{v}");
        let reason = v["reason"].as_str().unwrap();
        assert!(
            reason.contains("rest_forbidden_status") || reason.contains("credentials"),
            "{way:?}: {reason}"
        );
        let doctor = blog.run(&["doctor"]).expect(1);
        assert!(
            doctor.stdout().contains("destination blog"),
            "{}",
            doctor.stdout()
        );
        blog.run(&["reconcile", "--apply", "--yes"]).expect(5);
        assert_eq!(blog.env.job(job.id).await.state, State::Uncertain);
        assert_eq!(blog.env.events(job.id).await.len(), 1);
        blog.assert_no_secret(&[&doctor]).await;
    }
}

/// The kind proves the credentials even where the lookup itself would pass: an author (who
/// may list its own drafts but not others') is refused by the positive control.
#[tokio::test]
async fn the_kind_proves_the_credentials_see_everything() {
    let blog = Blog::new(Way::Kind).await;
    let doctor = blog.run(&["doctor"]).expect(0);
    // The table wraps long details: compare the words.
    let out = doctor
        .stdout()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        out.contains("kind wordpress, auth basic ($BLOG_USER, $BLOG_APP_PASSWORD)"),
        "{out}"
    );
    assert!(
        out.contains("its credentials (editor) see every status: publish, future, draft, pending, private, trash"),
        "{out}"
    );
    let list = blog.run(&["destination", "list"]).expect(0);
    assert!(
        list.stdout().contains("wordpress, auth basic"),
        "{}",
        list.stdout()
    );
    blog.assert_no_secret(&[&doctor, &list]).await;
}

/// An author's application password lists its own posts, but WordPress silently drops the
/// drafts, scheduled and private posts of others from its answers: the kind's positive
/// control requires an editor's capabilities, so an author's lookups are unknown and
/// doctor fails naming what is missing; an editor's pass.
#[tokio::test]
async fn an_authors_credentials_fail_the_control_an_editors_pass() {
    let site = site();
    let (author, author_pw) = site.user("author");
    let (editor, editor_pw) = site.user("editor");
    let blog = Blog::new(Way::Kind).await.signed_in_as(&author, &author_pw);
    let job = blog.uncertain("by-another").await;
    // Published by the worker's account (the administrator), a draft the author cannot see.
    blog.publish(&job, "draft").await;
    let (code, v) = blog.lookup(&job);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["verdict"], "unknown", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("edit_others_posts"), "{reason}");
    blog.run(&["doctor"]).expect(1);
    blog.run(&["reconcile", "--apply", "--yes"]).expect(5);
    assert_eq!(blog.env.job(job.id).await.state, State::Uncertain);
    let blog = blog.signed_in_as(&editor, &editor_pw);
    let (code, v) = blog.lookup(&job);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("accept")), "{v}");
    assert_eq!(v["matches"][0]["status"], "draft");
}

/// A kind whose CMS hides unpublished copies refuses a config without credentials (exit 2,
/// naming the key); a credential variable that is not set is exit 2 naming the variable.
#[tokio::test]
async fn missing_credentials_are_exit_2_naming_what_is_missing() {
    let blog = Blog::new(Way::Kind).await;
    let job = blog.uncertain("nocreds").await;
    let cfg = blog.env.write_config(&format!(
        "[destinations.blog]\nkind = \"wordpress\"\nbase_url = \"{}\"\n",
        blog.site.base_url
    ));
    let run = blog
        .env
        .run(&["--config", &cfg, "remote", "lookup", &job.id.to_string()])
        .expect(2);
    assert!(
        run.stderr().contains("user_env and password_env"),
        "{}",
        run.stderr()
    );
    let cfg = blog
        .env
        .write_config(&config(blog.site, Way::Kind, &blog.canary, ""));
    let run = blog
        .env
        .run(&["--config", &cfg, "remote", "lookup", &job.id.to_string()])
        .expect(2);
    assert!(run.stderr().contains("BLOG_USER"), "{}", run.stderr());
    assert_eq!(blog.env.job(job.id).await.state, State::Uncertain);
}

/// The kind asks through `?rest_route=`, which works with and without pretty permalinks;
/// a generic `/wp-json/` config works only with them, and without them its controls fail
/// (WordPress answers its home page, HTML), so nothing moves on its word.
#[tokio::test]
async fn the_kind_works_with_and_without_pretty_permalinks() {
    let blog = Blog::new(Way::Kind).await;
    let job = blog.uncertain("permalinks").await;
    let post = blog.publish(&job, "pending").await;
    let wp_json = blog.env.dir.path().join("wp-json.toml");
    std::fs::write(
        &wp_json,
        config(blog.site, Way::Generic, &blog.canary, "")
            .replace("/?rest_route=/wp/v2/posts&", "/wp-json/wp/v2/posts?"),
    )
    .unwrap();
    let wp_json = wp_json.to_string_lossy().into_owned();
    let lookup_wp_json = || {
        let run = Run(blog
            .env
            .cmd()
            .env(USER_VAR, &blog.site.user)
            .env(PASSWORD_VAR, &blog.site.app_password)
            .args([
                "--config",
                &wp_json,
                "remote",
                "lookup",
                &job.id.to_string(),
                "-o",
                "json",
            ])
            .write_stdin("")
            .output()
            .unwrap());
        (run.code(), run.json())
    };
    // Pretty (the site's default).
    let (code, v) = blog.lookup(&job);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("accept")), "{v}");
    let (code, v) = lookup_wp_json();
    assert_eq!((code, v["verdict"].as_str()), (0, Some("accept")), "{v}");
    // Plain.
    blog.site.set_permalinks(false);
    let (code, v) = blog.lookup(&job);
    blog.site.set_permalinks(true);
    assert_eq!((code, v["verdict"].as_str()), (0, Some("accept")), "{v}");
    assert_eq!(v["matches"][0]["remote_id"], post.id.to_string());
}

/// The evidence records the URL asked as the kind wrote it (every status, the slugs,
/// `_fields`), and never the credentials.
#[tokio::test]
async fn evidence_shows_what_was_asked_and_no_secret() {
    let blog = Blog::new(Way::Kind).await;
    let job = blog.uncertain("evidence").await;
    let post = blog.publish(&job, "private").await;
    let run = blog
        .run(&[
            "mark",
            "accepted",
            &job.id.to_string(),
            "--reason",
            "private copy",
            "--yes",
        ])
        .expect(0);
    let events = blog.env.events(job.id).await;
    let ev = events.last().unwrap();
    assert_eq!(ev.to_state, State::Accepted);
    let url = ev.evidence["lookup"]["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/?rest_route=/wp/v2/posts&slug={},{}-2,",
            blog.site.base_url, job.external_ref, job.external_ref
        )),
        "{url}"
    );
    assert!(
        url.contains("&status=publish,future,draft,pending,private,trash&"),
        "{url}"
    );
    assert!(url.ends_with("&_fields=id,slug,status,meta"), "{url}");
    assert_eq!(ev.evidence["lookup"]["matches"][0]["status"], "private");
    assert_eq!(
        ev.evidence["lookup"]["matches"][0]["remote_id"],
        post.id.to_string()
    );
    assert_eq!(
        ev.evidence["lookup"]["controls"]["positive"]["access"]["user"],
        "editor"
    );
    // `-v` says on stderr what was asked, as the evidence records it, and how long it took.
    let verbose = blog
        .run(&["-v", "remote", "lookup", &job.id.to_string()])
        .expect(0);
    let said = verbose.stderr();
    let line = said
        .lines()
        .find(|l| l.starts_with("asked: GET "))
        .unwrap_or_else(|| panic!("no 'asked:' line: {said}"));
    assert!(line.contains(url), "{line}\n{url}");
    let ms = line
        .rsplit_once(": HTTP 200 in ")
        .and_then(|(_, t)| t.strip_suffix(" ms"))
        .and_then(|t| t.parse::<u64>().ok());
    assert!(ms.is_some(), "{line}");
    blog.assert_no_secret(&[&run, &verbose]).await;
}
