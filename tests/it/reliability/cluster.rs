//! A disposable PostgreSQL cluster of a test's own (for TLS, a hot standby, a restart): the
//! same recipe as scripts/lib/pg.sh, in Rust so a guard stops and removes it when the test
//! ends, pass or fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Where initdb, pg_ctl and pg_basebackup are: found as the sandbox finds them (`PG_BIN`,
/// `pg_config --bindir`, Debian's newest, PATH).
pub fn pg_bin() -> PathBuf {
    reconctl::sandbox::cluster::find_bin().expect(
        "PostgreSQL server binaries (initdb, pg_ctl) not found: set PG_BIN or install postgresql; \
         the TLS, standby and restart tests start clusters of their own",
    )
}

pub fn free_port() -> u16 {
    reconctl::sandbox::cluster::free_port().expect("a free port")
}

fn is_root() -> bool {
    reconctl::sandbox::cluster::is_root()
}

/// The user that owns the cluster's files: root may not run PostgreSQL.
fn owner() -> Option<&'static str> {
    if is_root() {
        let exists = Command::new("id")
            .arg("-u")
            .arg("postgres")
            .output()
            .is_ok_and(|o| o.status.success());
        if !exists {
            let _ = Command::new("useradd")
                .args(["--system", "--no-create-home", "postgres"])
                .status();
        }
        Some("postgres")
    } else {
        None
    }
}

/// Run a PostgreSQL program as the cluster owner.
pub fn as_owner(program: &Path, args: &[&str]) -> Output {
    reconctl::sandbox::cluster::as_owner(owner(), program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
}

pub fn chown_to_owner(path: &Path) {
    if let Some(user) = owner() {
        let ok = Command::new("chown")
            .args(["-R", user])
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "chown {}", path.display());
    }
}

/// One running (or stopped) cluster. Dropping it stops the server and removes its files.
pub struct Cluster {
    pub bin: PathBuf,
    pub dir: tempfile::TempDir,
    pub data: PathBuf,
    pub port: u16,
}

impl Cluster {
    /// initdb with trust authentication, this configuration appended; not started.
    pub fn init(extra_conf: &str) -> Cluster {
        let bin = pg_bin();
        let dir = tempfile::Builder::new()
            .prefix("reconctl-cluster.")
            .tempdir()
            .unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(dir.path().join("sock")).unwrap();
        chown_to_owner(dir.path());
        let out = as_owner(
            &bin.join("initdb"),
            &[
                &["-D", data.to_str().unwrap()],
                reconctl::sandbox::cluster::INITDB_ARGS,
            ]
            .concat(),
        );
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cluster = Cluster {
            bin,
            data,
            port: free_port(),
            dir,
        };
        cluster.append_conf(&format!(
            "listen_addresses = '127.0.0.1'\nport = {}\nunix_socket_directories = '{}'\n\
             fsync = off\nmax_connections = 50\nshared_buffers = 32MB\n{extra_conf}\n",
            cluster.port,
            cluster.dir.path().join("sock").display()
        ));
        cluster
    }

    /// A standby of `primary` (pg_basebackup -R: streaming replication, hot standby).
    pub fn standby_of(primary: &Cluster) -> Cluster {
        let bin = primary.bin.clone();
        let dir = tempfile::Builder::new()
            .prefix("reconctl-standby.")
            .tempdir()
            .unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(dir.path().join("sock")).unwrap();
        chown_to_owner(dir.path());
        let port = primary.port.to_string();
        let out = as_owner(
            &bin.join("pg_basebackup"),
            &[
                "-D",
                data.to_str().unwrap(),
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-U",
                "postgres",
                "-R",
                "-X",
                "stream",
                "--checkpoint=fast",
                "--no-sync",
            ],
        );
        assert!(
            out.status.success(),
            "pg_basebackup: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let standby = Cluster {
            bin,
            data,
            port: free_port(),
            dir,
        };
        standby.append_conf(&format!(
            "port = {}\nunix_socket_directories = '{}'\nhot_standby = on\n",
            standby.port,
            standby.dir.path().join("sock").display()
        ));
        standby
    }

    pub fn append_conf(&self, text: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.data.join("postgresql.conf"))
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    pub fn write_hba(&self, text: &str) {
        std::fs::write(self.data.join("pg_hba.conf"), text).unwrap();
        chown_to_owner(&self.data.join("pg_hba.conf"));
    }

    fn pg_ctl(&self, args: &[&str]) -> Output {
        let mut all = vec!["-D", self.data.to_str().unwrap()];
        all.extend_from_slice(args);
        as_owner(&self.bin.join("pg_ctl"), &all)
    }

    pub fn start(&self) {
        let log = self.dir.path().join("server.log");
        let out = self.pg_ctl(&["-l", log.to_str().unwrap(), "-w", "-t", "60", "start"]);
        assert!(
            out.status.success(),
            "pg_ctl start: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    pub fn stop(&self, mode: &str) {
        let _ = self.pg_ctl(&["-m", mode, "-w", "-t", "60", "stop"]);
    }

    pub fn restart(&self, mode: &str) {
        let log = self.dir.path().join("server.log");
        let out = self.pg_ctl(&[
            "-m",
            mode,
            "-l",
            log.to_str().unwrap(),
            "-w",
            "-t",
            "60",
            "restart",
        ]);
        assert!(
            out.status.success(),
            "pg_ctl restart: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgresql://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// The directory holding the cluster's Unix socket.
    pub fn socket_dir(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    /// A superuser connection string over the Unix socket (trust there in every cluster the
    /// tests make), whatever TCP demands.
    pub fn socket_conninfo(&self, db: &str) -> String {
        format!(
            "host={} port={} user=postgres dbname={db}",
            self.socket_dir().display(),
            self.port
        )
    }

    /// psql of the same installation.
    pub fn psql(&self) -> PathBuf {
        self.bin.join("psql")
    }

    /// Copy files (certificates, keys) into the data directory, owned by the server's user
    /// and private, as the server insists for keys.
    pub fn install_files(&self, files: &[(&Path, &str)]) {
        use std::os::unix::fs::PermissionsExt;
        for (from, name) in files {
            let to = self.data.join(name);
            std::fs::copy(from, &to).unwrap();
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        chown_to_owner(&self.data);
    }

    /// Let the cluster also put its socket in `dir` (e.g. /var/run/postgresql, libpq's
    /// default) when the server's user may write there; whether it could.
    pub fn also_listen_in(&self, dir: &Path) -> bool {
        let writable = match owner() {
            Some(user) => Command::new("runuser")
                .args(["-u", user, "--", "test", "-w"])
                .arg(dir)
                .status()
                .is_ok_and(|s| s.success()),
            None => Command::new("test")
                .arg("-w")
                .arg(dir)
                .status()
                .is_ok_and(|s| s.success()),
        };
        if writable {
            self.append_conf(&format!(
                "unix_socket_directories = '{}, {}'\n",
                self.socket_dir().display(),
                dir.display()
            ));
        }
        writable
    }

    /// Wait until a query answers (a restarted server, a standby catching up).
    pub async fn wait_ready(&self, url: &str) -> tokio_postgres::Client {
        let started = Instant::now();
        loop {
            let target =
                reconctl::db::Target::resolve(Some(url), &reconctl::db::SessionLimits::default())
                    .unwrap();
            if let Ok(c) = target.connect().await {
                if c.simple_query("SELECT 1").await.is_ok() {
                    return c;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "cluster on port {} did not answer",
                self.port
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Fast and final: the files go with the TempDir right after.
        self.stop("immediate");
    }
}
