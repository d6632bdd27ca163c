//! The connection service file (libpq docs, "The Connection Service File"; libpq's
//! `parseServiceInfo` and `parseServiceFile`): `service=NAME` in the connection string, else
//! `PGSERVICE`, names a `[NAME]` section whose `key=value` lines fill options the string left
//! out. The file is `PGSERVICEFILE`, else `~/.pg_service.conf` when it exists; a name not
//! found there is looked up in the system file, `$PGSYSCONFDIR/pg_service.conf` (Debian:
//! /etc/postgresql-common/pg_service.conf).

use std::path::{Path, PathBuf};

use crate::error::{Code, Error, Result};

/// A service-file error (exit 2: the files are the operator's input).
pub(super) fn error(msg: String) -> Error {
    Error::new(Code::ServiceFile, msg)
}

/// The two files a service is looked up in, as libpq picks them: the user's
/// (`PGSERVICEFILE`, else `~/.pg_service.conf` when it exists), then the system's.
#[derive(Debug, Clone)]
pub(super) struct Files {
    pub user: Option<PathBuf>,
    pub system: PathBuf,
}

/// One `key=value` line of the service's section, and where it stands (for errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub key: String,
    pub value: String,
    pub file: PathBuf,
    pub line: usize,
}

impl Entry {
    /// The error for an entry whose key or value the connection options refuse.
    pub fn syntax_error(&self) -> Error {
        error(format!(
            "syntax error in service file \"{}\", line {}",
            self.file.display(),
            self.line
        ))
    }
}

/// The entries of service `name`: from the user's file when it defines the service, else
/// from the system file; a service found in neither is an error naming both.
pub(super) fn entries(name: &str, files: &Files) -> Result<Vec<Entry>> {
    if let Some(file) = &files.user {
        if let Some(found) = parse_file(file, name)? {
            return Ok(found);
        }
    }
    if files.system.exists() {
        if let Some(found) = parse_file(&files.system, name)? {
            return Ok(found);
        }
    }
    let looked: Vec<String> = files
        .user
        .iter()
        .chain(std::iter::once(&files.system))
        .map(|f| f.display().to_string())
        .collect();
    Err(
        error(format!("definition of service \"{name}\" not found")).hinted(format!(
            "looked in {}; set PGSERVICEFILE to the file that defines [{name}]",
            looked.join(" and ")
        )),
    )
}

/// Read `file`'s section `[service]`: its entries, or `None` when the file has no such
/// section.
fn parse_file(file: &Path, service: &str) -> Result<Option<Vec<Entry>>> {
    let bytes = crate::files::read_regular(file, crate::files::SETTINGS_FILE_CAP).map_err(|e| {
        let why = match e {
            crate::files::FileError::Io(e) => format!("not found ({e})"),
            refused => format!("refused: {refused}"),
        };
        error(format!("service file \"{}\" {why}", file.display()))
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let mut in_group = false;
    let mut found = false;
    let mut entries = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            if found {
                break;
            }
            in_group = rest
                .strip_prefix(service)
                .is_some_and(|r| r.starts_with(']'));
            found = in_group;
            continue;
        }
        if !in_group {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(error(format!(
                "syntax error in service file \"{}\", line {}",
                file.display(),
                n + 1
            )));
        };
        if key == "service" {
            return Err(error(format!(
                "nested service specifications not supported in service file \"{}\", line {}",
                file.display(),
                n + 1
            )));
        }
        entries.push(Entry {
            key: key.to_string(),
            value: value.to_string(),
            file: file.to_path_buf(),
            line: n + 1,
        });
    }
    Ok(found.then_some(entries))
}
