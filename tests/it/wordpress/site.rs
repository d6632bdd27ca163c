//! A real WordPress for the tests, started by `scripts/wordpress-site` (Debian's `wordpress`
//! package served by `php -S` on a MariaDB of its own, installed offline, an application
//! password for its editor), with posts created through its REST API exactly as a publishing
//! worker would (slug = external_ref). One site serves the whole test binary (it takes a few
//! seconds to start); tests keep apart by using references of their own (a tenant per test).
//! The script is the one way a WordPress is started here: the benchmarks use it too.
//!
//! Nothing is skipped: without the packages a test fails saying what to install
//! (`scripts/test` installs them when it runs as root).

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::{json, Value};

/// What the site needs from Debian.
const NEEDS: &str = "Debian's wordpress, php-cli, php-mysql and mariadb-server (scripts/test installs them when run as root)";

pub struct Site {
    pub base_url: String,
    /// The administrator's login, an editor of every post.
    pub user: String,
    /// Its application password.
    pub app_password: String,
    pub dir: PathBuf,
    http: reqwest::Client,
}

static SITE: OnceLock<Result<Site, String>> = OnceLock::new();

/// The site, started on first use.
pub fn site() -> &'static Site {
    match SITE.get_or_init(start) {
        Ok(s) => s,
        Err(e) => panic!("the real WordPress could not be started: {e}\nneeds {NEEDS}"),
    }
}

fn start() -> Result<Site, String> {
    // The site must not outlive the test binary: the script is spawned from a thread that
    // lives as long as the process, with PR_SET_PDEATHSIG (which fires when the spawning
    // thread ends) set to SIGTERM, on which the script stops MariaDB and PHP.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(launch());
        loop {
            std::thread::park();
        }
    });
    rx.recv().map_err(|e| e.to_string())?
}

fn launch() -> Result<Site, String> {
    use std::os::unix::process::CommandExt;
    let dir = std::env::temp_dir().join(format!("reconctl-wp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // What an earlier test binary left (killed with its site): the directories of processes
    // that are gone.
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("reconctl-wp-") {
                if !std::path::Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/wordpress-site");
    let mut cmd = Command::new(&script);
    cmd.arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: prctl(2) is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    let mut vars = std::collections::HashMap::new();
    let lines = std::io::BufReader::new(child.stdout.take().expect("piped"));
    for line in lines.lines().map_while(Result::ok) {
        if let Some((k, v)) = line.split_once('=') {
            vars.insert(k.to_string(), v.to_string());
        }
        if vars.len() == 3 {
            break;
        }
    }
    let var = |k: &str| vars.get(k).cloned();
    match (var("WP_BASE_URL"), var("WP_USER"), var("WP_APP_PASSWORD")) {
        (Some(base_url), Some(user), Some(app_password)) => Ok(Site {
            base_url,
            user,
            app_password,
            dir,
            http: reqwest::Client::new(),
        }),
        _ => {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            Err(format!("scripts/wordpress-site failed: {}", err.trim()))
        }
    }
}

/// Run `code` inside WordPress with php-cli (for what the REST API does not offer); its
/// output.
fn php(site: &Site, code: &str) -> Result<String, String> {
    let out = Command::new("php")
        .arg(site.dir.join("cli.php"))
        .arg(code)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("php: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "php failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A post as the REST API created it.
#[derive(Debug, Clone)]
pub struct Post {
    pub id: i64,
    pub slug: String,
    pub status: String,
}

impl Site {
    /// Pretty permalinks (`/%postname%/`, `/wp-json/` works) or plain ones (only
    /// `?rest_route=`).
    pub fn set_permalinks(&self, pretty: bool) {
        let structure = if pretty { "/%postname%/" } else { "" };
        php(
            self,
            &format!(
                "global $wp_rewrite; $wp_rewrite->set_permalink_structure('{structure}'); $wp_rewrite->flush_rules(false);"
            ),
        )
        .expect("set the permalink structure");
    }

    /// A user of the site with `role` (`author`, `editor`) and an application password of its
    /// own: its login and password.
    pub fn user(&self, role: &str) -> (String, String) {
        let login = format!("{role}-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let password = php(
            self,
            &format!(
                "$id = wp_create_user('{login}', wp_generate_password(24), '{login}@example.com');
                 $u = new WP_User($id); $u->set_role('{role}');
                 list($pw) = WP_Application_Passwords::create_new_application_password($id, array('name' => 'reconctl'));
                 echo $pw;"
            ),
        )
        .expect("create a user");
        (login, password)
    }

    /// `POST /wp/v2/posts` as a publishing worker does it: the article with slug = its
    /// external_ref, in `status`, its payload hash in the `payload_hash` meta when given.
    pub async fn publish(&self, slug: &str, status: &str, payload_hash: Option<&str>) -> Post {
        let mut body = json!({
            "title": format!("article {slug}"),
            "slug": slug,
            "status": status,
            "content": "the article",
        });
        if status == "future" {
            body["date"] = json!("2099-01-01T00:00:00");
        }
        if let Some(h) = payload_hash {
            body["meta"] = json!({ "payload_hash": h });
        }
        let v = self
            .rest(reqwest::Method::POST, "/wp/v2/posts", Some(body))
            .await;
        Post {
            id: v["id"].as_i64().expect("a post id"),
            slug: v["slug"].as_str().expect("a slug").to_string(),
            status: v["status"].as_str().expect("a status").to_string(),
        }
    }

    /// Move a post to the trash, as an editor does (WordPress renames its slug `…__trashed`).
    pub async fn trash(&self, id: i64) -> Post {
        let v = self
            .rest(reqwest::Method::DELETE, &format!("/wp/v2/posts/{id}"), None)
            .await;
        Post {
            id,
            slug: v["slug"].as_str().unwrap_or_default().to_string(),
            status: v["status"].as_str().unwrap_or_default().to_string(),
        }
    }

    /// The posts whose slug starts with `prefix`, in every status (for assertions).
    pub async fn posts_like(&self, prefix: &str) -> Vec<Post> {
        let out = php(
            self,
            &format!(
                "global $wpdb; echo json_encode($wpdb->get_results($wpdb->prepare(\"SELECT ID AS id, post_name AS slug, post_status AS status FROM $wpdb->posts WHERE post_type = 'post' AND post_name LIKE %s ORDER BY ID\", '{prefix}%')));"
            ),
        )
        .expect("list posts");
        let rows: Vec<Value> = serde_json::from_str(&out).expect("posts as JSON");
        rows.iter()
            .map(|r| Post {
                id: r["id"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0),
                slug: r["slug"].as_str().unwrap_or_default().to_string(),
                status: r["status"].as_str().unwrap_or_default().to_string(),
            })
            .collect()
    }

    async fn rest(&self, method: reqwest::Method, route: &str, body: Option<Value>) -> Value {
        let mut req = self
            .http
            .request(method, format!("{}/?rest_route={route}", self.base_url))
            .basic_auth(&self.user, Some(&self.app_password));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("the WordPress REST API answers");
        let status = resp.status();
        let v: Value = resp.json().await.expect("JSON from WordPress");
        assert!(status.is_success(), "WordPress answered {status}: {v}");
        v
    }
}
