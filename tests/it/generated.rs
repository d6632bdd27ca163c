//! Generated files cannot drift: `completions/` and `man/` are what the binary generates now,
//! the pages render cleanly, bash completes from the committed script, and every command's
//! `--help` carries an example.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::CommandFactory;
use reconctl::cli::Cli;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary's `generate WHAT` into a fresh directory: file name → bytes.
fn generate(what: &str) -> BTreeMap<String, Vec<u8>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = assert_cmd::Command::cargo_bin("reconctl")
        .expect("the reconctl binary")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .args(["generate", what, "--out-dir"])
        .arg(dir.path())
        .output()
        .expect("run reconctl generate");
    assert!(
        out.status.success(),
        "reconctl generate {what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_dir(dir.path())
}

fn read_dir(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries {
        let entry = entry.expect("dir entry");
        if entry.file_type().expect("file type").is_file() {
            files.insert(
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).expect("read generated file"),
            );
        }
    }
    files
}

/// Every difference between the committed directory and a fresh generation, as lines.
fn drift(what: &str, dir: &str) -> Vec<String> {
    let fresh = generate(what);
    let committed = read_dir(&repo().join(dir));
    let mut problems = Vec::new();
    for (name, bytes) in &fresh {
        match committed.get(name) {
            None => problems.push(format!("{dir}/{name} is missing")),
            Some(old) if old != bytes => problems.push(format!("{dir}/{name} is out of date")),
            Some(_) => {}
        }
    }
    for name in committed.keys().filter(|n| !fresh.contains_key(*n)) {
        problems.push(format!(
            "{dir}/{name} is no longer generated (a removed command?)"
        ));
    }
    problems
}

#[test]
fn committed_completions_and_man_pages_match_what_the_binary_generates() {
    let mut problems = drift("completions", "completions");
    problems.extend(drift("man", "man"));
    assert!(
        problems.is_empty(),
        "the committed generated files differ from what the binary generates now:\n  {}\n\
         run scripts/gen and commit completions/ and man/",
        problems.join("\n  ")
    );
}

#[test]
fn completions_cover_the_five_shells() {
    let names: Vec<String> = generate("completions").into_keys().collect();
    assert_eq!(
        names,
        [
            "_reconctl",
            "_reconctl.ps1",
            "reconctl.bash",
            "reconctl.elv",
            "reconctl.fish"
        ]
    );
}

/// `reconctl jobs list` and its clap command, for every visible command at any depth.
fn visible_commands(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, clap::Command)>) {
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let name = format!("{prefix} {}", sub.get_name());
        out.push((name.clone(), sub.clone()));
        visible_commands(sub, &name, out);
    }
}

#[test]
fn there_is_one_man_page_per_visible_command_and_none_for_hidden_ones() {
    let pages: Vec<String> = generate("man").into_keys().collect();
    let mut commands = Vec::new();
    visible_commands(&Cli::command(), "reconctl", &mut commands);
    let mut expected: Vec<String> = commands
        .iter()
        .map(|(n, _)| format!("{}.1", n.replace(' ', "-")))
        .collect();
    expected.push("reconctl.1".into());
    expected.sort();
    assert_eq!(pages, expected);
    assert!(pages.contains(&"reconctl-jobs-list.1".to_string()));
    assert!(!pages.iter().any(|p| p.contains("generate")));
}

fn groff_available() -> bool {
    Command::new("groff")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn man_pages_render_without_warnings() {
    if !groff_available() {
        // A machine without groff cannot run this check; say so loudly instead of passing silently.
        eprintln!("SKIPPED man_pages_render_without_warnings: groff is not installed (apt-get install groff-base)");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let pages = generate("man");
    assert!(pages.len() > 10, "too few man pages: {:?}", pages.keys());
    let mut problems = Vec::new();
    for (name, bytes) in &pages {
        assert!(bytes.is_ascii(), "{name} is not ASCII: groff would warn");
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write page");
        let out = Command::new("groff")
            .args(["-man", "-ww", "-z"])
            .arg(&path)
            .output()
            .expect("run groff");
        if !out.status.success() || !out.stderr.is_empty() {
            problems.push(format!(
                "{name}: exit {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "groff -man -ww -z complained:\n{}",
        problems.join("\n")
    );
}

#[test]
fn man_page_keeps_examples_one_per_line() {
    let pages = generate("man");
    let page = String::from_utf8(pages["reconctl-sandbox.1"].clone()).unwrap();
    // The examples are a no-fill block, so each command stays on its own line.
    let examples = page
        .split(".SH EXAMPLES\n")
        .nth(1)
        .expect("an EXAMPLES section");
    assert!(examples.starts_with(".nf\n"), "{examples}");
    assert!(
        examples.contains("reconctl sandbox \\-\\-drill"),
        "{examples}"
    );
    assert!(page.contains(".SH \"SEE ALSO\"\nreconctl(1)"), "{page}");
}

/// Ask the committed bash completion what it offers for `words` (the last one is completed).
fn bash_complete(words: &[&str]) -> Vec<String> {
    bash_complete_env(words, &[])
}

/// [`bash_complete`] with more of the environment (`PATH` to the binary, the database).
fn bash_complete_env(words: &[&str], envs: &[(&str, String)]) -> Vec<String> {
    let script = repo().join("completions/reconctl.bash");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let prev = if cword > 0 { words[cword - 1] } else { "" };
    let program = format!(
        "source '{script}'\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={cword}\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         _reconctl reconctl '{cur}' '{prev}'\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script = script.display(),
        words = quoted.join(" "),
        cur = words[cword],
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_ma_to_mark() {
    assert_eq!(bash_complete(&["reconctl", "ma"]), ["mark"]);
    // `m` is ambiguous: all three, and nothing else.
    let mut m = bash_complete(&["reconctl", "m"]);
    m.sort();
    assert_eq!(m, ["mark", "metrics", "migrate"]);
    assert_eq!(bash_complete(&["reconctl", "mark", "s"]), ["safe-to-retry"]);
    assert_eq!(bash_complete(&["reconctl", "jobs", "unc"]), ["uncertain"]);
    // Hidden commands are not offered.
    assert!(bash_complete(&["reconctl", "ge"]).is_empty());
    let top = bash_complete(&["reconctl", ""]);
    assert!(top.contains(&"sandbox".to_string()), "{top:?}");
    assert!(!top.contains(&"generate".to_string()), "{top:?}");
}

/// Each command a person runs (every visible leaf of the tree) shows an example in its
/// `--help`. Groups (`jobs`, `mark`, …) list their subcommands instead.
#[test]
fn every_command_has_an_example_in_its_help() {
    let mut commands = Vec::new();
    visible_commands(&Cli::command(), "reconctl", &mut commands);
    let missing: Vec<String> = commands
        .iter()
        .filter(|(_, c)| c.get_subcommands().next().is_none() || !c.is_subcommand_required_set())
        .filter(|(_, c)| {
            let text = c
                .get_after_long_help()
                .or(c.get_after_help())
                .map(|t| t.to_string())
                .unwrap_or_default();
            !text.contains("Example")
        })
        .map(|(n, _)| n.clone())
        .collect();
    assert!(
        missing.is_empty(),
        "these commands have no example in their --help (after_help with \"Example\"):\n  {}",
        missing.join("\n  ")
    );
}

/// README's transition table is the one in `src/jobs/state.rs`, word for word.
#[test]
fn readme_transition_table_is_the_code_s() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let start = "<!-- transitions: generated from src/jobs/state.rs -->\n";
    let end = "<!-- end of transitions -->";
    let from = readme
        .find(start)
        .expect("the transitions marker in README.md")
        + start.len();
    let to = readme[from..].find(end).expect("the end marker") + from;
    let want = reconctl::jobs::state::transitions_markdown();
    assert_eq!(
        &readme[from..to],
        want,
        "README.md's transition table differs from the transition table; paste this between the markers:\n{want}"
    );
}

/// Every command a hint suggests (`Action::command`) is a real subcommand path.
#[test]
fn every_suggested_command_exists() {
    let cli = Cli::command();
    for action in reconctl::jobs::Action::ALL {
        let Some(command) = action.command() else {
            continue;
        };
        let mut cmd = &cli;
        for word in command.split(' ') {
            cmd = cmd
                .find_subcommand(word)
                .unwrap_or_else(|| panic!("`reconctl {command}` ({action}) is not a command"));
        }
    }
}

/// The states, as every shell should offer them after `--state`.
const STATES: [&str; 7] = [
    "accepted",
    "conflict",
    "failed",
    "in_flight",
    "pending",
    "safe_to_retry",
    "uncertain",
];

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

fn shell_available(shell: &str) -> bool {
    Command::new(shell)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Ask the committed fish completion what it offers at the end of `line`.
fn fish_complete(line: &str) -> Vec<String> {
    fish_complete_env(line, &[])
}

fn fish_complete_env(line: &str, envs: &[(&str, String)]) -> Vec<String> {
    assert!(
        shell_available("fish"),
        "fish is not installed (scripts/test installs it: apt-get install fish)"
    );
    let script = repo().join("completions/reconctl.fish");
    let out = Command::new("fish")
        .args(["--no-config", "-c"])
        .arg(format!(
            "source '{}'; complete -C '{line}'",
            script.display()
        ))
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("run fish");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sorted(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_string())
            .filter(|l| !l.is_empty())
            .collect(),
    )
}

/// Ask the committed zsh completion (`_reconctl`, through compinit, in an interactive zsh on
/// a pseudo-terminal) what it offers at the end of `line`: every candidate compadd is given.
fn zsh_complete(line: &str) -> Vec<String> {
    zsh_complete_env(line, &[])
}

fn zsh_complete_env(line: &str, envs: &[(&str, String)]) -> Vec<String> {
    assert!(
        shell_available("zsh"),
        "zsh is not installed (scripts/test installs it: apt-get install zsh)"
    );
    const CAPTURE: &str = r#"
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''"
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'zstyle ":completion:*" list-grouped false'
zpty -w z 'zstyle ":completion:*" insert-tab false'
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; typeset -a __hits; builtin compadd -A __hits "$@"; (( $#__hits )) || return 1; local h; for h in $__hits; do print -r -- "<<$h>>"; done; builtin compadd "$@" }'
zpty -w z 'bindkey "^I" complete-word'
zpty -w z "print -r -- READY"
zpty -r z line '*READY*'
zpty -r z line '*READY*'
zpty -w -n z "$2"$'\t'
out=""
for i in {1..100}; do
  sleep 0.1
  while zpty -r -t z chunk; do out+=$chunk; done
  [[ $out == *'<<'* ]] && (( i > 5 )) && break
done
print -r -- "$out"
zpty -d z
"#;
    let dir = tempfile::tempdir().expect("temp dir");
    let capture = dir.path().join("capture.zsh");
    std::fs::write(&capture, CAPTURE).unwrap();
    let out = Command::new("zsh")
        .arg("-f")
        .arg(&capture)
        .arg(repo().join("completions"))
        .arg(line)
        .env("HOME", dir.path())
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("run zsh");
    let text = String::from_utf8_lossy(&out.stdout);
    sorted(
        text.split("<<")
            .skip(1)
            .filter_map(|s| s.split_once(">>").map(|(w, _)| w.to_string()))
            .collect(),
    )
}

/// Regression: `jobs list --state <TAB>` offered file names in bash and zsh.
#[test]
fn every_shell_completes_the_states_after_state() {
    let line = "reconctl jobs list --state ";
    assert_eq!(
        sorted(bash_complete(&["reconctl", "jobs", "list", "--state", ""])),
        STATES
    );
    assert_eq!(zsh_complete(line), STATES);
    assert_eq!(fish_complete(line), STATES);
    // The parser behind the completion still takes what it always took.
    let run = assert_cmd::Command::cargo_bin("reconctl")
        .unwrap()
        .env_clear()
        .args(["jobs", "list", "--state", "nope"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("expected one of: pending, in_flight"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Regression: fish offered files after `-o` and `--color` before a subcommand.
#[test]
fn every_shell_completes_output_and_color_values_before_and_after_a_command() {
    for (line, words, want) in [
        (
            "reconctl -o ",
            vec!["reconctl", "-o", ""],
            vec!["json", "jsonl", "table"],
        ),
        (
            "reconctl --color ",
            vec!["reconctl", "--color", ""],
            vec!["always", "auto", "never"],
        ),
        (
            "reconctl jobs list -o ",
            vec!["reconctl", "jobs", "list", "-o", ""],
            vec!["json", "jsonl", "table"],
        ),
        (
            "reconctl status --color ",
            vec!["reconctl", "status", "--color", ""],
            vec!["always", "auto", "never"],
        ),
    ] {
        assert_eq!(sorted(bash_complete(&words)), want, "bash: {line}");
        assert_eq!(zsh_complete(line), want, "zsh: {line}");
        assert_eq!(fish_complete(line), want, "fish: {line}");
    }
    // And a command still completes after a global option with its value.
    assert!(fish_complete("reconctl -o json ").contains(&"status".to_string()));
}

/// Each page a section of man-pages(7) names, and the root page everything reconctl reads.
#[test]
fn man_pages_have_environment_files_exit_status_and_see_also() {
    let pages = generate("man");
    let page = |name: &str| String::from_utf8(pages[name].clone()).unwrap();
    let root = page("reconctl.1");
    for section in [
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH \"EXIT STATUS\"",
        ".SH \"SEE ALSO\"",
    ] {
        assert!(root.contains(section), "reconctl.1 lacks {section}");
    }
    for name in [
        "psql(1)",
        "crontab(5)",
        "reconctl\\-jobs(1)",
        "reconctl\\-mark(1)",
    ] {
        assert!(root.contains(name), "reconctl.1's SEE ALSO lacks {name}");
    }
    for file in ["config.toml", "\\&.pgpass", "pg_service.conf", "root.crt"] {
        assert!(
            root.contains(file) || root.contains(&file.replace("\\&", "")),
            "FILES lacks {file}"
        );
    }
    // Every exit code of SPEC §5.
    for code in 0..=6 {
        assert!(
            root.contains(&format!(".TP\n\\fB{code}\\fR")),
            "EXIT STATUS lacks {code}"
        );
    }
    // Every variable the code reads is on the page (and token_env).
    let mut read = BTreeSet::new();
    collect_env_names(&repo().join("src"), &mut read);
    assert!(
        read.contains("DATABASE_URL") && read.contains("PGSSLMODE"),
        "{read:?}"
    );
    for var in &read {
        assert!(
            root.contains(&var.replace('_', "\\_")) || root.contains(var.as_str()),
            "reconctl.1's ENVIRONMENT does not mention {var}"
        );
    }
    assert!(root.contains("token_env"));
    // Every page has an exit status and its relatives.
    for (name, bytes) in &pages {
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.contains(".SH \"EXIT STATUS\""),
            "{name} lacks EXIT STATUS"
        );
        assert!(text.contains(".SH \"SEE ALSO\""), "{name} lacks SEE ALSO");
    }
    assert!(page("reconctl-jobs.1").contains("reconctl\\-jobs\\-list(1)"));
    assert!(page("reconctl-check.1").contains("crontab(5)"));
    // The mark pages: consent, idempotency, and their own exit codes.
    for mark in ["accepted", "safe-to-retry", "failed"] {
        let text = page(&format!("reconctl-mark-{mark}.1"));
        for section in [".SH CONSENT", ".SH IDEMPOTENCY", ".SH \"EXIT STATUS\""] {
            assert!(
                text.contains(section),
                "reconctl-mark-{mark}.1 lacks {section}"
            );
        }
        assert!(text.contains("no change"), "{mark}: idempotency");
        assert!(text.contains("\\-\\-yes"), "{mark}: consent");
        for code in ["0  ", "2  ", "3  ", "4  ", "6  "] {
            assert!(
                text.contains(&format!("\n  {code}")),
                "reconctl-mark-{mark}.1: exit {code}"
            );
        }
    }
}

/// Names of environment variables read in `dir`'s Rust files: `env_var("X")`,
/// `env::var("X")`, `env::var_os("X")`, libpq's `"PGX"` names and `.var("PGX")`.
fn collect_env_names(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_env_names(&path, out);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Tests inside the file set variables of their own; only the code counts.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for marker in [
            "env_var(\"",
            "env::var(\"",
            "env::var_os(\"",
            "env(\"",
            "\"PG",
        ] {
            for piece in code.split(marker).skip(1) {
                let name: String = piece
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                let name = if marker == "\"PG" {
                    if !piece[name.len()..].starts_with('"') {
                        continue;
                    }
                    format!("PG{name}")
                } else {
                    name
                };
                if name.len() > 2 {
                    out.insert(name);
                }
            }
        }
    }
}

/// Issue 23 item 17: where a destination name is typed (`destination pause <TAB>`,
/// `--destination <TAB>`), bash, zsh and fish offer the names this installation knows: from
/// the config and the database, through the hidden `reconctl __complete destinations`;
/// `events --action <TAB>` offers the actions, not files. Without a database or config the
/// helper prints nothing, quickly.
#[tokio::test]
async fn item_17_shells_complete_destination_names_and_actions() {
    let env = crate::harness::TestEnv::new().await;
    env.seed(crate::harness::Seed::new("a1").destination("cms-db"))
        .await;
    let config = env.write_config(
        "[destinations.cms-conf]\nlookup_url = \"http://127.0.0.1:9/?r={ref}\"\nremote_id = \"/id\"\n",
    );
    let bin = assert_cmd::cargo::cargo_bin("reconctl");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let envs = [
        ("PATH", path.clone()),
        ("DATABASE_URL", env.url.clone()),
        ("RECONCTL_CONFIG", config),
    ];
    let want = ["cms-conf", "cms-db"].map(String::from).to_vec();
    for words in [
        vec!["reconctl", "destination", "pause", ""],
        vec!["reconctl", "destination", "resume", "cms-"],
        vec!["reconctl", "jobs", "list", "--destination", ""],
        vec!["reconctl", "events", "--destination", ""],
    ] {
        assert_eq!(
            sorted(bash_complete_env(&words, &envs)),
            want,
            "bash: {words:?}"
        );
        let line = format!("{} ", words[..words.len() - 1].join(" "));
        assert_eq!(zsh_complete_env(&line, &envs), want, "zsh: {line}");
        assert_eq!(fish_complete_env(&line, &envs), want, "fish: {line}");
    }
    assert_eq!(
        bash_complete(&["reconctl", "events", "--action", "mark_a"]),
        ["mark_accepted"]
    );
    assert_eq!(
        fish_complete("reconctl events --action mark_a"),
        ["mark_accepted"]
    );
    // Nothing to ask: nothing printed, nothing on stderr, exit 0, within the short timeout.
    let started = std::time::Instant::now();
    let out = Command::new(&bin)
        .env_clear()
        .env("PATH", &path)
        .env("HOME", env.dir.path())
        .env("DATABASE_URL", "postgresql://postgres@10.255.255.1:5432/x")
        .args(["__complete", "destinations"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
}
