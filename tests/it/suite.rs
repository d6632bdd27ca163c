//! The suite itself: no test file is forgotten (a file under tests/it that no `mod` line
//! names is never compiled, and its tests never run).

use std::collections::BTreeSet;
use std::path::Path;

/// The `mod NAME;` lines of a file.
fn declared(file: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(|n| n.trim().to_string())
        })
        .collect()
}

fn check(dir: &Path, declaring: &Path, missing: &mut Vec<String>) {
    let names = declared(declaring);
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !names.contains(&name) {
                missing.push(format!(
                    "{} (no `mod {name};` in {})",
                    path.display(),
                    declaring.display()
                ));
            }
            check(&path, &path.join("mod.rs"), missing);
        } else if path.extension().is_some_and(|e| e == "rs")
            && name != "main"
            && name != "mod"
            && !names.contains(&name)
        {
            missing.push(format!(
                "{} (no `mod {name};` in {})",
                path.display(),
                declaring.display()
            ));
        }
    }
}

#[test]
fn every_test_file_is_part_of_the_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut missing = Vec::new();
    check(&root, &root.join("main.rs"), &mut missing);
    assert!(
        missing.is_empty(),
        "forgotten test files:\n{}",
        missing.join("\n")
    );
}
