//! The connection service file (libpq docs, "The Connection Service File"; libpq's
//! `parseServiceInfo` and `parseServiceFile`): `service=NAME` in the connection string, else
//! `PGSERVICE`, names a `[NAME]` section whose `key=value` lines fill options the string left
//! out. The file is `PGSERVICEFILE`, else `~/.pg_service.conf` when it exists; a name not
//! found there is looked up in the system file, `$PGSYSCONFDIR/pg_service.conf` (Debian:
//! /etc/postgresql-common/pg_service.conf).

use std::path::{Path, PathBuf};

use super::conninfo::{Environment, Params};
use crate::error::{Code, Error, Result};

fn service_error(msg: String) -> Error {
    Error::new(Code::ServiceFile, msg)
}

/// Fill `p` from the named service's entry, if a service is named.
pub(super) fn apply(p: &mut Params, env: &Environment) -> Result<()> {
    let from_string = p.service_name().map(str::to_string);
    let Some(name) = from_string.or_else(|| env.var("PGSERVICE").map(str::to_string)) else {
        return Ok(());
    };
    let user_file: Option<PathBuf> = match env.var("PGSERVICEFILE") {
        Some(f) => Some(PathBuf::from(f)),
        None => env
            .home
            .as_ref()
            .map(|h| h.join(".pg_service.conf"))
            .filter(|f| f.exists()),
    };
    if let Some(file) = &user_file {
        if parse_file(file, &name, p)? {
            return Ok(());
        }
    }
    let sysconf = env
        .var("PGSYSCONFDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.sysconfdir.clone());
    let system_file = sysconf.join("pg_service.conf");
    if system_file.exists() && parse_file(&system_file, &name, p)? {
        return Ok(());
    }
    let looked: Vec<String> = user_file
        .iter()
        .chain(std::iter::once(&system_file))
        .map(|f| f.display().to_string())
        .collect();
    Err(
        service_error(format!("definition of service \"{name}\" not found")).hinted(format!(
            "looked in {}; set PGSERVICEFILE to the file that defines [{name}]",
            looked.join(" and ")
        )),
    )
}

/// Read `file`, filling `p` from section `[service]`. `Ok(true)` when the section was found.
fn parse_file(file: &Path, service: &str, p: &mut Params) -> Result<bool> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        service_error(format!(
            "service file \"{}\" not found ({e})",
            file.display()
        ))
    })?;
    let mut in_group = false;
    let mut found = false;
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
        let syntax = || {
            service_error(format!(
                "syntax error in service file \"{}\", line {}",
                file.display(),
                n + 1
            ))
        };
        let Some((key, value)) = line.split_once('=') else {
            return Err(syntax());
        };
        if key == "service" {
            return Err(service_error(format!(
                "nested service specifications not supported in service file \"{}\", line {}",
                file.display(),
                n + 1
            )));
        }
        p.fill_from_service(key, value, service)
            .map_err(|()| syntax())?;
    }
    Ok(found)
}
