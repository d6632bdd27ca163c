//! The layers the compiler enforces (issue 25): without the `cli` feature the crate is the
//! worker library alone, and links none of the terminal's crates. `scripts/lean-lib` (run by
//! scripts/test) also builds it that way; reading the dependency tree needs no build.

use std::process::Command;

/// The command-line tool's crates, which a worker linking reconctl must not compile.
const CLI_CRATES: [&str; 7] = [
    "clap",
    "clap_complete",
    "clap_mangen",
    "crossterm",
    "dialoguer",
    "indicatif",
    "comfy-table",
];

/// The names of the crates `cargo tree -e normal` lists with `flags`.
fn tree(flags: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--locked", "--offline", "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .args(flags)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(String::from)
        .collect()
}

#[test]
fn the_worker_library_without_the_cli_feature_links_no_cli_crate() {
    let lean = tree(&["--no-default-features"]);
    assert!(lean.iter().any(|c| c == "tokio-postgres"), "{lean:?}");
    let found: Vec<_> = CLI_CRATES
        .iter()
        .filter(|c| lean.iter().any(|n| n == *c))
        .collect();
    assert!(
        found.is_empty(),
        "without the cli feature the library still depends on {found:?} (`cargo tree -e normal --no-default-features -i {}`)",
        found.first().map_or("", |c| c)
    );
    // And the check can fail: the default build has every one of them.
    let full = tree(&[]);
    for c in CLI_CRATES {
        assert!(
            full.iter().any(|n| n == c),
            "{c} missing from the default tree"
        );
    }
}
