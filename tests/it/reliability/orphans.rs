//! A sandbox killed with SIGKILL cannot stop its PostgreSQL (issue 24, item 11): the next
//! sandbox finds the cluster whose owner is gone, stops it and removes its directory.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use crate::sandbox::{assert_cleaned_up, processes_mentioning, reconctl};

#[test]
fn item_24_11_a_sandbox_killed_with_sigkill_is_cleaned_up_by_the_next_one() {
    let mut child = reconctl()
        .arg("sandbox")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if let Some(dir) = line.trim().strip_prefix("Everything lives in ") {
                let _ = tx.send(PathBuf::from(dir.trim()));
            }
        }
    });
    let dir = rx
        .recv_timeout(Duration::from_secs(90))
        .expect("the sandbox said where it lives");
    let needle = dir.display().to_string();
    assert!(
        !processes_mentioning(&format!("{needle}/pg/data")).is_empty(),
        "no server running in {needle}"
    );
    // SIGKILL: no cleanup runs; the detached postmaster stays (what the issue found).
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let orphans = processes_mentioning(&format!("{needle}/pg/data"));
    assert!(!orphans.is_empty(), "the server died with its sandbox");

    // The next sandbox (a drill: it ends by itself) stops it and removes its directory.
    let drill = reconctl()
        .args(["sandbox", "--drill", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(
        drill.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&drill.stderr)
    );
    assert_cleaned_up(&dir);
}
