//! `reconctl generate`: man pages and completions from the clap tree, so they cannot drift.
//!
//! `scripts/gen` runs this into `man/` and `completions/`; a test runs it into a temporary
//! directory and fails when the committed files differ. Both are byte-for-byte functions of
//! the clap tree (no dates, no environment), so regenerating is always the one fix.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap_complete::Shell;
use clap_mangen::roff::{roman, Roff};
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
        out.push((clap_complete::Generator::file_name(&shell, "reconctl"), buf));
    }
    Ok(out)
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
    if let Some(text) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        after_help_sections(&mut roff, &text.to_string());
    }
    if let Some(parent) = parent {
        roff.control("SH", ["SEE ALSO"]);
        roff.text([roman(format!("{parent}(1)"))]);
    }
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
/// (lines kept as typed) and an EXIT CODES section. A block without a short `Heading:`
/// goes under NOTES.
fn after_help_sections(roff: &mut Roff, text: &str) {
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
        roff.control("SH", [heading.as_str()]);
        let lines: Vec<&str> = lines.collect();
        if lines.is_empty() {
            // One sentence: let it fill the page width.
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
}
