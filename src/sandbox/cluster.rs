//! A throwaway PostgreSQL cluster from the machine's own server binaries: `initdb` into a
//! temporary directory, `pg_ctl start` on a free 127.0.0.1 port (and a socket inside that
//! directory), and on [`Cluster::stop`] (or drop) `pg_ctl stop -m immediate` and the
//! directory removed. Nothing is left behind when the sandbox ends, even on an error path.
//!
//! PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user
//! (Debian's package creates it), as in `scripts/lib/pg.sh`.
//!
//! **A sandbox killed with SIGKILL** cannot stop its server: `pg_ctl start` detaches the
//! postmaster, which would run on in its temporary directory for ever. So each cluster's
//! directory names its owner ([`OWNER_FILE`]: the owning process's pid and start time, which
//! tell it from a later process given the same pid), and every new cluster first stops and
//! removes the clusters of its kind whose owner is gone ([`reap_abandoned`]).

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::error::{Error, Result};

/// initdb's options for a throwaway cluster (the sandbox's and the tests'): the `postgres`
/// superuser, trust on its own socket and loopback, no fsync, UTF-8 in the C locale.
pub const INITDB_ARGS: &[&str] = &[
    "-U",
    "postgres",
    "-A",
    "trust",
    "--no-sync",
    "-E",
    "UTF8",
    "--locale=C",
];

const INSTALL_HINT: &str = "install them (Debian/Ubuntu: `apt-get install postgresql`; Fedora: `dnf install postgresql-server`; macOS: `brew install postgresql`), \
or set PG_BIN to the directory holding initdb, or give `reconctl sandbox --database-url URL` an empty database you own";

/// The sandbox's settings, included from postgresql.conf (rewritten when the port changes).
const SETTINGS_FILE: &str = "reconctl-sandbox.conf";

/// The directory holding `initdb`, `pg_ctl` and `postgres`: `$PG_BIN`, then
/// `pg_config --bindir`, then Debian's `/usr/lib/postgresql/*/bin` (newest first), then the
/// directory of an `initdb` on `PATH`.
pub fn find_bin() -> Result<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os("PG_BIN").filter(|d| !d.is_empty()) {
        candidates.push(dir.into());
    }
    if let Ok(out) = Command::new("pg_config")
        .arg("--bindir")
        .stderr(Stdio::null())
        .output()
    {
        if out.status.success() {
            let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if !dir.is_empty() {
                candidates.push(dir.into());
            }
        }
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((version, e.path().join("bin")))
        })
        .collect();
    debian.sort_by_key(|d| std::cmp::Reverse(d.0));
    candidates.extend(debian.into_iter().map(|(_, p)| p));
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("initdb").is_file() {
                candidates.push(dir);
            }
        }
    }
    with_server_binaries(candidates)
}

/// The first directory holding all three server binaries, or the error naming the package.
fn with_server_binaries(candidates: Vec<PathBuf>) -> Result<PathBuf> {
    candidates
        .into_iter()
        .find(|dir| {
            ["initdb", "pg_ctl", "postgres"]
                .iter()
                .all(|b| dir.join(b).is_file())
        })
        .ok_or_else(|| {
            Error::runtime(
                "PostgreSQL's server binaries (initdb, pg_ctl, postgres) were not found; the sandbox needs them to start a throwaway cluster",
            )
            .hinted(INSTALL_HINT)
        })
}

/// Where the system's own programs (`runuser`, `chown`, `id`, `kill`) are looked for, whatever
/// `PATH` says: cron's and `env -i`'s `PATH` often lacks the sbin directories, and `runuser`
/// lives in /usr/sbin.
pub const SYSTEM_DIRS: &[&str] = &["/usr/sbin", "/sbin", "/usr/bin", "/bin"];

/// The system program `name` in [`SYSTEM_DIRS`], or an error naming it, where it was looked
/// for, and what the sandbox needs it for (`why`).
pub fn system_program(name: &str, why: &str) -> Result<PathBuf> {
    find_program(SYSTEM_DIRS, name).ok_or_else(|| {
        Error::runtime(format!(
            "`{name}` was not found in {} (looked there whatever PATH says); {why}",
            SYSTEM_DIRS.join(", ")
        ))
    })
}

/// The first executable file `name` in `dirs`.
fn find_program(dirs: &[&str], name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    dirs.iter().map(|d| Path::new(d).join(name)).find(|p| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// A system program by its full path when found (else by name, for the error to name it).
fn system_command(name: &str) -> Command {
    Command::new(find_program(SYSTEM_DIRS, name).unwrap_or_else(|| PathBuf::from(name)))
}

/// "cannot run runuser (/usr/sbin/runuser): …": the program that could not be started, which
/// is `runuser` when a server binary runs as its owner.
fn cannot_run(cmd: &Command, e: &std::io::Error) -> Error {
    Error::runtime(format!(
        "cannot run {}: {e}",
        cmd.get_program().to_string_lossy()
    ))
}

/// A free TCP port on 127.0.0.1 (free now; `start` retries on another if it is taken).
pub fn free_port() -> Result<u16> {
    let l = TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| Error::runtime(format!("cannot find a free port on 127.0.0.1: {e}")))?;
    Ok(l.local_addr()?.port())
}

/// A running throwaway cluster.
#[derive(Debug)]
pub struct Cluster {
    /// The temporary directory holding everything (data, socket, logs).
    pub dir: PathBuf,
    pub port: u16,
    bin: PathBuf,
    /// Who owns the data directory and runs the server (`postgres` when we are root).
    owner: Option<String>,
    running: bool,
}

/// Whether this process runs as root (PostgreSQL then refuses to run as us).
pub fn is_root() -> bool {
    // The real uid from /proc (Linux), else `id -u`.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
        })
        .unwrap_or_else(|| {
            system_command("id")
                .arg("-u")
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
                .unwrap_or(false)
        })
}

/// `program` run as `owner` (through `runuser`, found in [`SYSTEM_DIRS`]: root may not run
/// PostgreSQL), or as ourselves. Shared with the test harness's clusters.
pub fn as_owner(owner: Option<&str>, program: &Path) -> Command {
    match owner {
        Some(user) => {
            let mut c = system_command("runuser");
            c.args(["-u", user, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    }
}

/// In a cluster's directory: `PID START` of the process that owns it (START: the process's
/// start time in clock ticks since boot, field 22 of `/proc/PID/stat`).
pub const OWNER_FILE: &str = "reconctl-owner";

/// A process's start time (clock ticks since boot), if it is running.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the owner named in `dir`'s [`OWNER_FILE`] is gone. `None`: the file is missing or
/// unreadable (a cluster being set up right now, or not one of ours): leave it alone.
fn owner_gone(dir: &Path) -> Option<bool> {
    let text = std::fs::read_to_string(dir.join(OWNER_FILE)).ok()?;
    let mut words = text.split_whitespace();
    let pid: u32 = words.next()?.parse().ok()?;
    let start: u64 = words.next()?.parse().ok()?;
    Some(process_start(pid) != Some(start))
}

/// Stop and remove the clusters a killed sandbox left: in `dir`'s grandparent, every
/// directory named like `dir`'s parent (the same prefix before its last `-`) holding a
/// cluster directory named like `dir` whose owner is gone. Returns the directories removed.
/// Best effort: a cluster that cannot be stopped is left for the next time.
pub fn reap_abandoned(dir: &Path, bin: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Vec::new();
    };
    let (Some(root), Some(parent_name)) = (parent.parent(), parent.file_name()) else {
        return Vec::new();
    };
    let parent_name = parent_name.to_string_lossy();
    let Some((prefix, _)) = parent_name.rsplit_once('-') else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let sandbox = entry.path();
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        if sandbox == parent
            || !entry_name
                .strip_prefix(prefix)
                .is_some_and(|r| r.starts_with('-'))
        {
            continue;
        }
        let cluster_dir = sandbox.join(name);
        if owner_gone(&cluster_dir) != Some(true) {
            continue;
        }
        let owner = std::fs::metadata(cluster_dir.join("data"))
            .ok()
            .and_then(|m| {
                use std::os::unix::fs::MetadataExt;
                (is_root() && m.uid() != 0).then(|| "postgres".to_string())
            });
        let mut abandoned = Cluster {
            dir: cluster_dir,
            port: 0,
            bin: bin.to_path_buf(),
            owner,
            running: true,
        };
        if abandoned.stop().is_ok() && std::fs::remove_dir_all(&sandbox).is_ok() {
            removed.push(sandbox);
        }
    }
    removed
}

impl Cluster {
    /// initdb into `dir` (created here; it must not exist) and start. On any failure,
    /// whatever was created is removed again. First stops and removes what killed sandboxes
    /// left ([`reap_abandoned`]).
    pub fn start(dir: &Path) -> Result<Cluster> {
        let bin = find_bin()?;
        reap_abandoned(dir, &bin);
        std::fs::create_dir(dir)
            .map_err(|e| Error::runtime(format!("cannot create {}: {e}", dir.display())))?;
        let me = std::process::id();
        if let Some(start) = process_start(me) {
            std::fs::write(dir.join(OWNER_FILE), format!("{me} {start}\n"))?;
        }
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            port: 0,
            bin,
            owner: None,
            running: false,
        };
        // From here on, dropping `cluster` cleans up.
        cluster.init()?;
        let mut last = None;
        for _ in 0..3 {
            match cluster.launch() {
                Ok(()) => return Ok(cluster),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::bug("cluster start: no attempt made")))
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The URL of the cluster's `postgres` database (trust authentication, 127.0.0.1 only).
    pub fn url(&self) -> String {
        format!("postgresql://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn command(&self, program: &str) -> Command {
        use std::os::unix::process::CommandExt;
        let mut c = as_owner(self.owner.as_deref(), &self.bin.join(program));
        // A process group of its own: a second Ctrl-C from an impatient operator must not
        // kill `pg_ctl stop` halfway and leave the server running without its directory.
        c.process_group(0);
        c
    }

    fn run(&self, mut cmd: Command, what: &str, log: &Path) -> Result<()> {
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| cannot_run(&cmd, &e))?;
        if out.status.success() {
            return Ok(());
        }
        let log_text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = log_text.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(Error::runtime(format!(
            "{what} failed ({}):\n{}{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            tail.join("\n")
        )))
    }

    fn init(&mut self) -> Result<()> {
        if is_root() {
            // Named now, before anything is created: without it nothing can run as postgres.
            system_program(
                "runuser",
                "as root the sandbox runs PostgreSQL as the postgres user through it (PostgreSQL refuses to run as root)",
            )
            .map_err(|e| {
                e.hinted("install util-linux (it provides runuser), or run reconctl sandbox as an ordinary user")
            })?;
            let ok = system_command("id")
                .args(["-u", "postgres"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                return Err(Error::runtime(
                    "running as root, and there is no `postgres` user to own the sandbox's cluster (PostgreSQL refuses to run as root)",
                )
                .hinted("create one (`useradd --system --no-create-home postgres`) or run reconctl sandbox as an ordinary user"));
            }
            self.owner = Some("postgres".into());
        }
        std::fs::create_dir(self.dir.join("sock"))?;
        if let Some(owner) = &self.owner {
            let mut chown = system_command("chown");
            let status = chown
                .args(["-R", owner])
                .arg(&self.dir)
                .status()
                .map_err(|e| cannot_run(&chown, &e))?;
            if !status.success() {
                return Err(Error::runtime(format!(
                    "cannot give {} to the {owner} user",
                    self.dir.display()
                )));
            }
        }
        let log = self.dir.join("initdb.log");
        let mut initdb = self.command("initdb");
        initdb
            .arg("-D")
            .arg(self.data_dir())
            .args(INITDB_ARGS)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // initdb writes its chatter to stdout; keep it for the error message only.
        let out = initdb
            .stdin(Stdio::null())
            .output()
            .map_err(|e| cannot_run(&initdb, &e))?;
        if !out.status.success() {
            let _ = std::fs::write(&log, [&out.stdout[..], &out.stderr[..]].concat());
            return Err(Error::runtime(format!(
                "initdb failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let mut conf = std::fs::OpenOptions::new()
            .append(true)
            .open(self.data_dir().join("postgresql.conf"))?;
        writeln!(conf, "include '{SETTINGS_FILE}'")?;
        Ok(())
    }

    fn launch(&mut self) -> Result<()> {
        self.port = free_port()?;
        // Settings live in a file we rewrite per attempt (the port may change).
        let conf = format!(
            "listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{sock}'\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n\
             max_connections = 100\nlog_min_messages = warning\n",
            port = self.port,
            sock = self.dir.join("sock").display()
        );
        std::fs::write(self.data_dir().join(SETTINGS_FILE), conf)?;
        let log = self.dir.join("server.log");
        let mut pg_ctl = self.command("pg_ctl");
        pg_ctl
            .arg("-D")
            .arg(self.data_dir())
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "60", "start"]);
        self.run(pg_ctl, "pg_ctl start", &log)?;
        self.running = true;
        Ok(())
    }

    /// Stop the server (immediate: it holds nothing worth keeping) and remove the directory.
    pub fn stop(&mut self) -> Result<()> {
        if self.running {
            let mut pg_ctl = self.command("pg_ctl");
            pg_ctl
                .arg("-D")
                .arg(self.data_dir())
                .args(["-m", "immediate", "-w", "-t", "30", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            // A server already gone (someone stopped it) is as good as stopped.
            let _ = pg_ctl.stdin(Stdio::null()).status();
            self.running = false;
            // pg_ctl -w returns once the postmaster is gone; give its children a moment.
            let pid_file = self.data_dir().join("postmaster.pid");
            for _ in 0..50 {
                if !pid_file.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            // Still there (pg_ctl failed or was killed)? End the postmaster by its pid before
            // its directory goes: never leave a server running on a deleted data directory.
            // Only a postgres process: after a crash the pid may belong to someone else now.
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<u32>().ok()))
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("postgres"))
                })
            {
                let _ = system_command("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                for _ in 0..50 {
                    if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        if self.dir.exists() {
            std::fs::remove_dir_all(&self.dir).map_err(|e| {
                Error::runtime(format!("cannot remove {}: {e}", self.dir.display()))
            })?;
        }
        Ok(())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_server_binaries_is_an_error_naming_the_package() {
        let empty = std::env::temp_dir().join("reconctl-no-such-pg-bin");
        let err = with_server_binaries(vec![empty]).unwrap_err();
        assert_eq!(err.exit_code(), 1);
        assert!(
            err.message().contains("initdb, pg_ctl, postgres"),
            "{}",
            err.message()
        );
        let hint = err.hints().join("\n");
        assert!(hint.contains("apt-get install postgresql"), "{hint}");
        assert!(hint.contains("PG_BIN"), "{hint}");
    }

    #[test]
    fn the_first_directory_with_all_three_binaries_wins() {
        let root = std::env::temp_dir().join(format!("reconctl-pg-bin-{}", std::process::id()));
        let partial = root.join("partial");
        let full = root.join("full");
        for (dir, bins) in [
            (&partial, &["initdb"][..]),
            (&full, &["initdb", "pg_ctl", "postgres"][..]),
        ] {
            std::fs::create_dir_all(dir).unwrap();
            for b in bins {
                std::fs::write(dir.join(b), "").unwrap();
            }
        }
        let found = with_server_binaries(vec![root.join("missing"), partial, full.clone()]);
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(found.unwrap(), full);
    }

    /// Issue 23 item 8: a missing system program is named exactly (not "cannot run initdb"),
    /// with where it was looked for, and found outside PATH.
    #[test]
    fn item_8_a_missing_system_program_is_named_and_found_without_path() {
        let err = system_program("reconctl-no-such-program", "the sandbox needs it").unwrap_err();
        assert_eq!(err.exit_code(), 1);
        assert_eq!(
            err.message(),
            "`reconctl-no-such-program` was not found in /usr/sbin, /sbin, /usr/bin, /bin (looked there whatever PATH says); the sandbox needs it"
        );
        assert_eq!(find_program(&["/nonexistent"], "sh"), None);
        assert!(find_program(SYSTEM_DIRS, "sh").is_some());
        // runuser by its full path, whatever PATH holds (this process's PATH is not read).
        if let Some(runuser) = find_program(SYSTEM_DIRS, "runuser") {
            let c = as_owner(Some("postgres"), Path::new("/x/initdb"));
            assert_eq!(Path::new(c.get_program()), runuser);
        }
        // A program that cannot start is named, not the one it would have run.
        let mut c = Command::new("/nonexistent/runuser");
        c.arg("/x/initdb");
        let e = c.output().unwrap_err();
        let msg = cannot_run(&c, &e).message().to_string();
        assert!(
            msg.starts_with("cannot run /nonexistent/runuser: "),
            "{msg}"
        );
    }
}
