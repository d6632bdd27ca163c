//! `reconctl generate`: man pages and completions from the clap tree, so they cannot drift.
//!
//! `scripts/gen` runs this into `man/` and `completions/`; a test runs it into a temporary
//! directory and fails when the committed files differ. Both are byte-for-byte functions of
//! the clap tree (no dates, no environment), so regenerating is always the one fix.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap_complete::Shell;
use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;
use serde::Serialize;

use super::Exit;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ui::{Output, Render, Ui};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  reconctl generate man --out-dir man\n  reconctl generate completions --out-dir completions\n  scripts/gen    # both, into the repository"
)]
pub struct Args {
    /// What to generate: man or completions
    #[arg(value_parser = ["man", "completions"])]
    pub what: String,
    /// Where to write the files
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
}

/// The shells we ship completions for, and the file each one gets.
pub const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];

#[derive(Debug, Serialize)]
struct Generated {
    what: String,
    out_dir: String,
    files: Vec<String>,
}

impl Render for Generated {
    fn output(&self) -> Output {
        Output::Report
    }

    fn table(&self, _ui: &Ui) -> String {
        format!(
            "wrote {} {} file(s) to {}",
            self.files.len(),
            self.what,
            self.out_dir
        )
    }
}

pub async fn run(ctx: &Context, args: &Args, root: fn() -> clap::Command) -> Result<Exit> {
    let files = match args.what.as_str() {
        "man" => man_pages(root())?,
        "completions" => completions(root())?,
        other => return Err(Error::usage(format!("cannot generate `{other}`"))),
    };
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| Error::runtime(format!("cannot create {}: {e}", args.out_dir.display())))?;
    let mut names = Vec::new();
    for (name, bytes) in &files {
        write_file(&args.out_dir.join(name), bytes)?;
        names.push(name.clone());
    }
    ctx.ui.emit(&Generated {
        what: args.what.clone(),
        out_dir: args.out_dir.display().to_string(),
        files: names,
    })?;
    Ok(Exit::Done)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = std::fs::File::create(path)
        .map_err(|e| Error::runtime(format!("cannot write {}: {e}", path.display())))?;
    f.write_all(bytes)
        .and_then(|()| f.flush())
        .map_err(|e| Error::runtime(format!("cannot write {}: {e}", path.display())))
}

/// One completion script per shell, for the visible commands (hidden ones like `generate`
/// are left out, as they are from `--help`).
pub fn completions(root: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for shell in SHELLS {
        let mut cmd = visible_only(&root);
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "reconctl", &mut buf);
        if shell == Shell::Fish {
            buf = fish_values_before_a_command(buf)?;
        }
        buf = destination_names(shell, buf)?;
        out.push((clap_complete::Generator::file_name(&shell, "reconctl"), buf));
    }
    Ok(out)
}

/// The command the scripts run for the destination names (configured, paused, holding jobs;
/// nothing on error, within a short timeout: see `commands::complete`).
const NAMES_COMMAND: &str = "reconctl __complete destinations 2>/dev/null";

/// Where a destination name is typed (`--destination NAME` of every command, the NAME of
/// `destination pause` and `destination resume`), offer the names this installation knows,
/// asked of `reconctl __complete destinations` when the shell completes: clap_complete's
/// static scripts would offer file names there (bash, zsh) or nothing useful (fish).
fn destination_names(shell: Shell, script: Vec<u8>) -> Result<Vec<u8>> {
    let text = String::from_utf8(script).map_err(|e| Error::bug(format!("script: {e}")))?;
    let changed = match shell {
        Shell::Bash => bash_destination_names(&text),
        Shell::Zsh => zsh_destination_names(&text),
        Shell::Fish => fish_destination_names(&text),
        _ => return Ok(text.into_bytes()),
    };
    match changed {
        Some(t) => Ok(t.into_bytes()),
        None => Err(Error::bug(format!(
            "clap_complete's {shell} script changed: destination_names no longer applies"
        ))),
    }
}

fn bash_destination_names(text: &str) -> Option<String> {
    let files = "                --destination)\n                    COMPREPLY=($(compgen -f \"${cur}\"))\n";
    let names = format!(
        "                --destination)\n                    COMPREPLY=($(compgen -W \"$({NAMES_COMMAND})\" -- \"${{cur}}\"))\n"
    );
    if !text.contains(files) {
        return None;
    }
    let mut out = text.replace(files, &names);
    // `destination pause <TAB>`: the NAME is the first word after the subcommand.
    for sub in ["pause", "resume"] {
        let head = format!("        reconctl__subcmd__destination__subcmd__{sub})\n");
        let start = out.find(&head)? + head.len();
        let first_word = "            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then\n";
        let at = start + out[start..].find(first_word)?;
        out.insert_str(
            at,
            &format!(
                "            if [[ ${{cur}} != -* && ${{COMP_CWORD}} -eq 3 ]] ; then\n                COMPREPLY=( $(compgen -W \"$({NAMES_COMMAND})\" -- \"${{cur}}\") )\n                return 0\n            fi\n"
            ),
        );
    }
    Some(out)
}

fn zsh_destination_names(text: &str) -> Option<String> {
    let function = format!(
        "(( $+functions[_reconctl_destinations] )) ||\n_reconctl_destinations() {{\n    local -a names\n    names=(${{(f)\"$({NAMES_COMMAND})\"}})\n    compadd -a names\n}}\n\n"
    );
    let anchor = "(( $+functions[_reconctl_commands] )) ||\n";
    let positional =
        ":name -- The destination, as jobs name it (publication_jobs.destination):_default'";
    if !text.contains(anchor) || !text.contains(positional) {
        return None;
    }
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if (l.starts_with("'--destination=[") && l.ends_with(":NAME:_default' \\"))
                || l.starts_with(&format!("'{positional}"))
            {
                l.replacen(":_default'", ":_reconctl_destinations'", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    let mut out = out.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    Some(out.replacen(anchor, &format!("{function}{anchor}"), 1))
}

fn fish_destination_names(text: &str) -> Option<String> {
    let names = format!(" -f -a \"({NAMES_COMMAND})\"");
    let mut found = false;
    let mut out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("complete -c reconctl ")
                && l.contains(" -l destination ")
                && l.ends_with(" -r")
            {
                found = true;
                format!("{l}{names}")
            } else {
                l.to_string()
            }
        })
        .collect();
    if !found {
        return None;
    }
    out.push(format!(
        "complete -c reconctl -n \"__fish_reconctl_using_subcommand destination; and __fish_seen_subcommand_from pause resume\"{names}"
    ));
    let mut out = out.join("\n");
    out.push('\n');
    Some(out)
}

/// clap_complete's fish script decides whether a command is still to come by parsing the
/// words so far with `argparse`, which fails on `reconctl -o` (the option still waits for
/// its value), so fish offers files there instead of `table json jsonl`. Parse again
/// without that last word.
fn fish_values_before_a_command(script: Vec<u8>) -> Result<Vec<u8>> {
    let text = String::from_utf8(script).map_err(|e| Error::bug(format!("fish script: {e}")))?;
    let parse = "    argparse -s (__fish_reconctl_global_optspecs) -- $cmd 2>/dev/null\n";
    let old = format!("{parse}    or return\n");
    let new = format!(
        "{parse}    or begin\n        # The last word is an option still waiting for its value (`reconctl -o <TAB>`):\n        # decide without it, so the option's values are offered.\n        set -e cmd[-1]\n    {parse}        or return\n    end\n"
    );
    if !text.contains(&old) {
        return Err(Error::bug(
            "clap_complete's fish script changed: fish_values_before_a_command no longer applies",
        ));
    }
    Ok(text.replacen(&old, &new, 1).into_bytes())
}

/// A copy of the tree without hidden subcommands (clap_complete would complete them).
fn visible_only(cmd: &clap::Command) -> clap::Command {
    let keep: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(visible_only)
        .collect();
    if keep.len() == cmd.get_subcommands().count() {
        return keep.into_iter().fold(cmd.clone(), |c, sub| {
            let name = sub.get_name().to_owned();
            c.mut_subcommand(&name, |_| sub)
        });
    }
    // clap's builder only takes `'static` names (without its `string` feature); this runs
    // once per `generate`, so leaking the few rebuilt names is harmless.
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let mut out = clap::Command::new(leak(cmd.get_name()))
        .subcommand_required(cmd.is_subcommand_required_set())
        .arg_required_else_help(cmd.is_arg_required_else_help_set())
        .args(cmd.get_arguments().cloned())
        .subcommands(keep);
    if let Some(v) = cmd.get_version() {
        out = out.version(leak(v));
    }
    if let Some(about) = cmd.get_about() {
        out = out.about(about.clone());
    }
    if let Some(about) = cmd.get_long_about() {
        out = out.long_about(about.clone());
    }
    out
}

/// `reconctl.1` and one page per visible subcommand, nested ones too
/// (`reconctl-jobs-list.1`), named as `man` looks them up.
pub fn man_pages(root: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = root.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    collect_pages(&cmd, None, &mut out)?;
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn collect_pages(
    cmd: &clap::Command,
    parent: Option<&str>,
    out: &mut Vec<(String, Vec<u8>)>,
) -> Result<()> {
    let name = cmd.get_display_name().unwrap_or(cmd.get_name()).to_string();
    out.push((format!("{name}.1"), man_page(cmd, parent)?));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect_pages(sub, Some(&name), out)?;
    }
    Ok(())
}

/// One page: clap_mangen's sections, then the `after_help` blocks as real sections with
/// their line breaks kept (clap_mangen would run examples together into one paragraph).
fn man_page(cmd: &clap::Command, parent: Option<&str>) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::bug(format!("cannot render a man page: {e}"));
    // Every page names the program and its version in the footer, not just its subcommand.
    let man = Man::new(cmd.clone()).source(format!("reconctl {}", env!("CARGO_PKG_VERSION")));
    let preamble = Roff::new().render();
    let mut page: Vec<u8> = Vec::new();
    let mut section = |render: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| -> Result<()> {
        let mut buf = Vec::new();
        render(&mut buf).map_err(io)?;
        // Each clap_mangen call writes the same preamble; keep only the first.
        let body = if page.is_empty() {
            &buf[..]
        } else {
            buf.strip_prefix(preamble.as_bytes()).unwrap_or(&buf[..])
        };
        page.extend_from_slice(body);
        Ok(())
    };
    section(&|w| man.render_title(w))?;
    section(&|w| man.render_name_section(w))?;
    section(&|w| man.render_synopsis_section(w))?;
    section(&|w| man.render_description_section(w))?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        section(&|w| man.render_options_section(w))?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        section(&|w| man.render_subcommands_section(w))?;
    }
    let mut roff = Roff::new();
    let after = cmd
        .get_after_long_help()
        .or(cmd.get_after_help())
        .map(|t| t.to_string())
        .unwrap_or_default();
    // The root page has the whole table of exit codes; a command's own codes replace it.
    let own_exit_status = after_help_sections(&mut roff, &after, parent.is_some());
    let name = cmd.get_display_name().unwrap_or(cmd.get_name()).to_string();
    if parent.is_none() {
        environment_section(&mut roff);
        files_section(&mut roff);
    }
    if !own_exit_status {
        exit_status_section(&mut roff);
    }
    see_also_section(&mut roff, cmd, &name, parent);
    page.extend_from_slice(roff.to_roff().as_bytes());
    let page = String::from_utf8(page).map_err(|e| Error::bug(format!("man page: {e}")))?;
    Ok(ascii_roff(&page).into_bytes())
}

/// groff reads bytes, not UTF-8 (`man` pipes pages through preconv for that): write every
/// non-ASCII character (→, —, …) as groff's `\[uXXXX]` escape, as preconv would, so the
/// pages render without warnings everywhere.
fn ascii_roff(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", c as u32));
        }
    }
    out
}

/// `Examples:\n  reconctl status\n\nExit codes: 0 done, …` becomes an EXAMPLES section
/// (lines kept as typed) and an EXIT STATUS section. A block without a short `Heading:`
/// goes under NOTES. Returns whether the text had its own exit codes (left out without
/// `exit_codes`: the page gets the whole table instead).
fn after_help_sections(roff: &mut Roff, text: &str, exit_codes: bool) -> bool {
    let mut exit_status = false;
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut lines = block.lines();
        let first = lines.next().unwrap_or_default();
        let (heading, rest) = match first.split_once(':') {
            Some((h, rest))
                if !h.starts_with(' ') && !h.is_empty() && h.split_whitespace().count() <= 3 =>
            {
                (h.trim().to_uppercase(), rest.trim())
            }
            _ => ("NOTES".to_string(), first),
        };
        // man-pages(7) calls it EXIT STATUS.
        let heading = if heading == "EXIT CODES" {
            if !exit_codes {
                continue;
            }
            exit_status = true;
            "EXIT STATUS".to_string()
        } else {
            heading
        };
        roff.control("SH", [heading.as_str()]);
        let lines: Vec<&str> = lines.collect();
        if lines.is_empty() {
            // One sentence: let it fill the page width (a sentence starts with a capital).
            let mut chars = rest.chars();
            let rest: String = match chars.next() {
                Some(c) => c.to_uppercase().chain(chars).collect(),
                None => String::new(),
            };
            roff.text([roman(rest)]);
            continue;
        }
        roff.control("nf", []);
        if !rest.is_empty() {
            roff.text([roman(rest)]);
        }
        for line in lines {
            roff.text([roman(line)]);
        }
        roff.control("fi", []);
    }
    exit_status
}

/// A `.TP` list: each name in bold, its meaning under it.
fn tagged(roff: &mut Roff, items: &[(&str, &str)]) {
    for (name, meaning) in items {
        roff.control("TP", []);
        roff.text([bold(*name)]);
        roff.text([roman(*meaning)]);
    }
}

/// Every variable reconctl reads (a test checks the code reads no other).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("DATABASE_URL", "The database (a postgres:// URL or a key=value string) when --database-url is not given; what it leaves out comes from the PG* variables below, as psql takes it. Ignored by reconctl sandbox. Empty counts as unset, as for every variable here."),
    ("RECONCTL_CONFIG", "The config file (the destinations) when --config is not given."),
    ("RECONCTL_ACTOR", "Who is acting, recorded in every event, when --actor is not given."),
    ("RECONCTL_READ_ONLY", "1 (true, yes, on) opens every session read-only, as --read-only does; 0 (false, no, off) does not."),
    ("NO_COLOR", "Set and not empty: no color with --color auto."),
    ("COLUMNS", "The width tables are fitted to (down to 60 columns); else the terminal's; in a pipe without it nothing is cut."),
    ("XDG_CONFIG_HOME", "The default config file is $XDG_CONFIG_HOME/reconctl/config.toml (else ~/.config/reconctl/config.toml) when it exists."),
    ("HOME", "The home directory, for ~/.config, ~/.pgpass, ~/.pg_service.conf and ~/.postgresql/ (else the password database's)."),
    ("USER, LOGNAME", "The OS user in the default actor, USER@host (else the password database's user); HOSTNAME, when set, is the host."),
    ("PGHOST, PGHOSTADDR, PGPORT, PGDATABASE, PGUSER", "Where to connect and as whom, for every field the URL leaves out (libpq's defaults: the Unix socket in /var/run/postgresql or /tmp, port 5432, the OS user, database = user)."),
    ("PGPASSWORD, PGPASSFILE", "The password, else the password file (default ~/.pgpass; refused unless mode 0600 or stricter)."),
    ("PGSERVICE, PGSERVICEFILE, PGSYSCONFDIR", "A connection service by name, from PGSERVICEFILE (default ~/.pg_service.conf), then PGSYSCONFDIR/pg_service.conf."),
    ("PGOPTIONS, PGAPPNAME, PGCONNECT_TIMEOUT, PGTARGETSESSIONATTRS, PGCLIENTENCODING", "Session options, the application name (default: reconctl and the command), the connect timeout per host (default 5s), which server of a list to use, the client encoding."),
    ("PGSSLMODE, PGREQUIRESSL, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGSSLCRL, PGSSLCRLDIR, PGSSLSNI, PGSSLCERTMODE, PGSSLNEGOTIATION, PGSSLCOMPRESSION, PGSSLMINPROTOCOLVERSION, PGSSLMAXPROTOCOLVERSION, PGCHANNELBINDING, PGREQUIREAUTH, PGREQUIREPEER", "TLS and authentication as libpq reads them (PGSSLMODE allow and prefer included; the root certificate defaults to ~/.postgresql/root.crt)."),
    ("PGGSSENCMODE, PGGSSDELEGATION, PGKRBSRVNAME, PGGSSLIB, PGLOADBALANCEHOSTS", "Read as libpq reads them; GSSAPI is not supported (gssencmode=require is refused)."),
    ("PG_BIN", "reconctl sandbox: the directory holding initdb and pg_ctl (else pg_config --bindir, /usr/lib/postgresql/*/bin, then PATH)."),
    ("PATH", "Where reconctl sandbox looks for pg_config, initdb and pg_ctl."),
    ("token_env of each destination", "The variable a destination's token_env names holds its bearer token (never printed, never in the config file)."),
];

fn environment_section(roff: &mut Roff) {
    roff.control("SH", ["ENVIRONMENT"]);
    tagged(roff, ENVIRONMENT);
}

fn files_section(roff: &mut Roff) {
    roff.control("SH", ["FILES"]);
    tagged(
        roff,
        &[
            ("$XDG_CONFIG_HOME/reconctl/config.toml", "The config file when neither --config nor RECONCTL_CONFIG names one (~/.config/reconctl/config.toml without XDG_CONFIG_HOME): the destinations. A token never goes here: token_env names the variable holding it."),
            ("~/.pgpass", "Passwords, as psql reads them (PGPASSFILE names another); mode 0600 or stricter."),
            ("~/.pg_service.conf", "Connection services (PGSERVICEFILE names another); then the system file, $PGSYSCONFDIR/pg_service.conf (Debian: /etc/postgresql-common/pg_service.conf)."),
            ("~/.postgresql/root.crt", "The certificates the server's is checked against (sslrootcert, PGSSLROOTCERT); ~/.postgresql/root.crl the revoked ones."),
            ("~/.postgresql/postgresql.crt, ~/.postgresql/postgresql.key", "The client certificate and its key, when they exist (the key readable by its owner only)."),
        ],
    );
}

/// SPEC §5's exit codes.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Done (also: no change, and a closed pipe such as reconctl jobs list | head)."),
    ("1", "Runtime failure: the database, a destination, a file."),
    ("2", "Usage or invalid input; a change declined at the prompt, or refused for lack of --yes without a terminal."),
    ("3", "Conflict: the guard matched no row (someone moved the job first), a payload conflict, or the destination contradicts the requested mark."),
    ("4", "No such job."),
    ("5", "Attention: check found problems; reconcile left jobs in conflict or unknown (5 wins over 6)."),
    ("6", "Busy: a lock or statement timeout fired; what it stopped did not change; safe to run again."),
];

fn exit_status_section(roff: &mut Roff) {
    roff.control("SH", ["EXIT STATUS"]);
    tagged(roff, EXIT_STATUS);
}

/// The parent page, the subcommands' pages, and the outside pages this one relates to.
fn see_also_section(roff: &mut Roff, cmd: &clap::Command, name: &str, parent: Option<&str>) {
    let mut refs: Vec<String> = Vec::new();
    if let Some(parent) = parent {
        refs.push(format!("{parent}(1)"));
    }
    refs.extend(
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .map(|s| format!("{name}-{}(1)", s.get_name())),
    );
    if parent.is_none() {
        refs.push("psql(1)".into());
    }
    if parent.is_none()
        || [
            "reconctl-check",
            "reconctl-sweep-leases",
            "reconctl-metrics",
        ]
        .contains(&name)
    {
        refs.push("crontab(5)".into());
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(refs.join(", "))]);
}
