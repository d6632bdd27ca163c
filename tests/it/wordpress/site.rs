//! A real WordPress for the tests: Debian's `wordpress` package served by `php -S` from a
//! directory of this test run, on its own MariaDB (`--skip-networking`, a socket in the same
//! directory), installed offline through `wp-admin/install.php` and given an application
//! password, with posts created through its REST API exactly as a publishing worker would
//! (slug = external_ref). One site serves the whole test binary (it takes a few seconds to
//! start); tests keep apart by using references of their own (a tenant per test).
//!
//! Nothing is skipped: without the packages a test fails saying what to install
//! (`scripts/test` installs them when it runs as root).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// What the site needs from Debian.
const NEEDS: &str = "Debian's wordpress, php-cli, php-mysql and mariadb-server (scripts/test installs them when run as root)";

pub struct Site {
    pub base_url: String,
    /// The administrator's login, an editor of every post.
    pub user: String,
    /// Its application password (WordPress shows it in groups of four; sent without spaces).
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
    for (what, path) in [
        ("wordpress", "/usr/share/wordpress/wp-load.php"),
        ("mariadb-server", "/usr/sbin/mariadbd"),
        ("mariadb-server", "/usr/bin/mariadb-install-db"),
        ("php-cli", "/usr/bin/php"),
    ] {
        if !Path::new(path).exists() {
            return Err(format!("{path} is missing (package {what})"));
        }
    }
    let modules = Command::new("/usr/bin/php")
        .arg("-m")
        .output()
        .map_err(|e| format!("php -m: {e}"))?;
    if !String::from_utf8_lossy(&modules.stdout).contains("mysqli") {
        return Err("php has no mysqli module (package php-mysql)".into());
    }
    // Children must not outlive the test binary: they are spawned from a thread that lives
    // as long as the process, with PR_SET_PDEATHSIG (which fires when the spawning thread
    // ends).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(launch());
        loop {
            std::thread::park();
        }
    });
    rx.recv().map_err(|e| e.to_string())?
}

fn dying_with_parent(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl(2) is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        })
    }
}

fn launch() -> Result<Site, String> {
    let dir = std::env::temp_dir().join(format!("reconctl-wp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let sock = dir.join("my.sock");
    let run = |cmd: &mut Command, what: &str| -> Result<(), String> {
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("{what}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{what} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    run(
        Command::new("/usr/bin/mariadb-install-db")
            .arg("--no-defaults")
            .arg(format!("--datadir={}", dir.join("db").display()))
            .args([
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--user=root",
            ]),
        "mariadb-install-db",
    )?;
    dying_with_parent(
        Command::new("/usr/sbin/mariadbd")
            .arg("--no-defaults")
            .arg(format!("--datadir={}", dir.join("db").display()))
            .arg(format!("--socket={}", sock.display()))
            .arg(format!("--pid-file={}", dir.join("my.pid").display()))
            .arg(format!("--log-error={}", dir.join("my.err").display()))
            .args(["--skip-networking", "--user=root"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )
    .spawn()
    .map_err(|e| format!("mariadbd: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ok = Command::new("/usr/bin/mariadb")
            .arg("--no-defaults")
            .arg(format!("--socket={}", sock.display()))
            .args([
                "-u",
                "root",
                "-e",
                "CREATE DATABASE IF NOT EXISTS wordpress",
            ])
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "MariaDB did not start; see {}",
                dir.join("my.err").display()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let base_url = format!("http://127.0.0.1:{port}");
    lay_out(&dir, &sock, &base_url)?;
    dying_with_parent(
        Command::new("/usr/bin/php")
            .arg("-S")
            .arg(format!("127.0.0.1:{port}"))
            .arg("-t")
            .arg(dir.join("site"))
            .arg(dir.join("router.php"))
            .current_dir(dir.join("site"))
            // Four workers: lookups run concurrently, as against a real site.
            .env("PHP_CLI_SERVER_WORKERS", "4")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(dir.join("php.log"))
                    .map(Stdio::from)
                    .unwrap_or(Stdio::null()),
            ),
    )
    .spawn()
    .map_err(|e| format!("php -S: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err("php -S did not listen".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }

    // Installed offline, the way a person would in a browser: the form of install.php.
    let install = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?
        .block_on(async {
            reqwest::Client::new()
                .post(format!("{base_url}/wp-admin/install.php?step=2"))
                .timeout(Duration::from_secs(60))
                .form(&[
                    ("weblog_title", "reconctl test"),
                    ("user_name", "editor"),
                    ("admin_password", "test-only-Adm1n-password"),
                    ("admin_password2", "test-only-Adm1n-password"),
                    ("pw_weak", "1"),
                    ("admin_email", "editor@example.com"),
                    ("blog_public", "0"),
                    ("language", ""),
                ])
                .send()
                .await
                .map(|r| r.status())
        })
        .map_err(|e| format!("install.php: {e}"))?;
    if !install.is_success() {
        return Err(format!("install.php answered {install}"));
    }
    let app_password = php(
        &dir,
        &base_url,
        "$u = get_user_by('login', 'editor');
         list($pw, $item) = WP_Application_Passwords::create_new_application_password($u->ID, array('name' => 'reconctl'));
         echo $pw;",
    )?;
    if app_password.len() < 16 {
        return Err(format!(
            "no application password was created ({} characters)",
            app_password.len()
        ));
    }
    let site = Site {
        base_url,
        user: "editor".into(),
        app_password,
        dir,
        http: reqwest::Client::new(),
    };
    // A site with pretty permalinks, like most: `/wp-json/` works beside `?rest_route=`.
    site.set_permalinks(true);
    Ok(site)
}

/// The site's files: Debian's WordPress linked in, with a wp-config.php of this site's own
/// (its database socket, its address, no outside requests, application passwords on plain
/// HTTP), its own wp-content, a must-use plugin that shows a `payload_hash` post meta in the
/// REST API (read back as "" when a post has none), and the router.
fn lay_out(dir: &Path, sock: &Path, base_url: &str) -> Result<(), String> {
    let site = dir.join("site");
    let content = dir.join("content");
    let io = |e: std::io::Error| e.to_string();
    std::fs::create_dir_all(&site).map_err(io)?;
    std::fs::create_dir_all(content.join("mu-plugins")).map_err(io)?;
    for entry in std::fs::read_dir("/usr/share/wordpress").map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name();
        if name == "wp-config.php" || name == "wp-content" {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), site.join(&name)).map_err(io)?;
    }
    for sub in ["themes", "plugins"] {
        std::os::unix::fs::symlink(
            Path::new("/usr/share/wordpress/wp-content").join(sub),
            content.join(sub),
        )
        .map_err(io)?;
    }
    let abspath = format!("{}/", site.display());
    std::fs::write(
        site.join("wp-config.php"),
        format!(
            r#"<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:{sock}');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('WP_HOME', '{base_url}');
define('WP_SITEURL', '{base_url}');
define('WP_CONTENT_DIR', '{content}');
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
foreach (array('AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT') as $k) {{
    define($k, 'test-only-' . $k);
}}
$table_prefix = 'wp_';
require_once ABSPATH . 'wp-settings.php';
"#,
            sock = sock.display(),
            content = content.display(),
        ),
    )
    .map_err(io)?;
    std::fs::write(
        content.join("mu-plugins/payload-hash.php"),
        r#"<?php
add_action('init', function () {
    register_post_meta('post', 'payload_hash', array('type' => 'string', 'single' => true, 'show_in_rest' => true, 'default' => ''));
});
"#,
    )
    .map_err(io)?;
    // ABSPATH is this directory (Debian's wp-load.php would take its own): every entry point
    // runs through the router, which defines it; a path that is no file goes to index.php,
    // as a web server's rewrite rules would send it (`/wp-json/…`).
    std::fs::write(
        dir.join("router.php"),
        format!(
            r#"<?php
if (!defined('ABSPATH')) define('ABSPATH', '{abspath}');
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$file = ABSPATH . ltrim($path, '/');
if ($path !== '/' && is_file($file)) {{
    if (substr($file, -4) !== '.php') return false;
    chdir(dirname($file));
    require $file;
    return true;
}}
if ($path !== '/' && is_dir($file) && is_file(rtrim($file, '/') . '/index.php')) {{
    chdir($file);
    require rtrim($file, '/') . '/index.php';
    return true;
}}
require ABSPATH . 'index.php';
"#
        ),
    )
    .map_err(io)?;
    std::fs::write(dir.join("abspath"), abspath).map_err(io)
}

/// Run `code` inside WordPress with php-cli (for what the REST API does not offer: the first
/// application password, the permalink structure); its output.
fn php(dir: &Path, base_url: &str, code: &str) -> Result<String, String> {
    let abspath = std::fs::read_to_string(dir.join("abspath")).map_err(|e| e.to_string())?;
    let host = base_url.trim_start_matches("http://");
    let script = format!(
        "<?php define('ABSPATH', '{abspath}'); $_SERVER['HTTP_HOST'] = '{host}'; require ABSPATH . 'wp-load.php'; {code}"
    );
    let file = dir.join(format!("cli-{}.php", uuid::Uuid::new_v4().simple()));
    std::fs::write(&file, script).map_err(|e| e.to_string())?;
    let out = Command::new("/usr/bin/php")
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("php: {e}"))?;
    let _ = std::fs::remove_file(&file);
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
            &self.dir,
            &self.base_url,
            &format!(
                "global $wp_rewrite; $wp_rewrite->set_permalink_structure('{structure}'); $wp_rewrite->flush_rules(false);"
            ),
        )
        .expect("set the permalink structure");
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
            &self.dir,
            &self.base_url,
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
