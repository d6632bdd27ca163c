//! The password file (libpq docs, "The Password File"; libpq's `passwordFromFile` and
//! `pwdfMatchesString`): lines `hostname:port:database:username:password`, the first
//! matching line wins; a field `*` matches anything; `\:` and `\\` escape; `#` starts a
//! comment line. `localhost` matches a connection through the default Unix socket (the caller
//! passes `localhost` then). A file that is not plain or that group or others may access is
//! ignored with libpq's warning.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub enum Lookup {
    Found(String),
    /// The file was ignored; libpq's warning text (without its "WARNING: ").
    Warning(String),
    None,
}

pub fn lookup(file: &Path, host: &str, port: &str, dbname: &str, user: &str) -> Lookup {
    if dbname.is_empty() || user.is_empty() {
        return Lookup::None;
    }
    let Ok(meta) = std::fs::metadata(file) else {
        return Lookup::None;
    };
    if !meta.is_file() {
        return Lookup::Warning(format!(
            "password file \"{}\" is not a plain file",
            file.display()
        ));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Lookup::Warning(format!(
            "password file \"{}\" has group or world access; permissions should be u=rw (0600) or less",
            file.display()
        ));
    }
    let Ok(bytes) = crate::files::read_regular(file, crate::files::SETTINGS_FILE_CAP) else {
        return Lookup::None;
    };
    let text = String::from_utf8_lossy(&bytes);
    for line in text.split('\n') {
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(secret) = match_line(line, &[host, port, dbname, user]) {
            return Lookup::Found(secret);
        }
    }
    Lookup::None
}

/// The password of `line` if its four fields match `tokens`.
fn match_line(line: &str, tokens: &[&str; 4]) -> Option<String> {
    let mut rest = line;
    for token in tokens {
        rest = match_field(rest, token)?;
    }
    // The password runs to the first unescaped ':' (or the end), backslashes removed.
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            ':' => break,
            '\\' => match chars.next() {
                Some(n) => out.push(n),
                None => out.push('\\'),
            },
            c => out.push(c),
        }
    }
    Some(out)
}

/// The text after this field and its ':' if the field matches `token` (`*` matches all).
fn match_field<'a>(field: &'a str, token: &str) -> Option<&'a str> {
    if let Some(rest) = field.strip_prefix("*:") {
        return Some(rest);
    }
    let mut chars = field.char_indices();
    let mut want = token.chars();
    while let Some((i, c)) = chars.next() {
        let (c, escaped) = if c == '\\' {
            match chars.next() {
                Some((_, n)) => (n, true),
                None => return None,
            }
        } else {
            (c, false)
        };
        if c == ':' && !escaped {
            return if want.next().is_none() {
                Some(&field[i + 1..])
            } else {
                None
            };
        }
        if want.next() != Some(c) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str, mode: u32) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        f
    }

    fn found(l: Lookup) -> Option<String> {
        match l {
            Lookup::Found(s) => Some(s),
            _ => None,
        }
    }

    #[test]
    fn first_matching_line_wins_with_wildcards_and_escapes() {
        let f = file(
            "# comment\n\
             db1:5432:app:alice:first\n\
             *:5432:*:alice:second\n\
             h\\:x:*:*:*:esc\\:aped\\\\pw:ignored\n\
             *:*:*:*:last\r\n",
            0o600,
        );
        let p = f.path();
        assert_eq!(
            found(lookup(p, "db1", "5432", "app", "alice")).as_deref(),
            Some("first")
        );
        assert_eq!(
            found(lookup(p, "db2", "5432", "app", "alice")).as_deref(),
            Some("second")
        );
        assert_eq!(
            found(lookup(p, "h:x", "1", "d", "u")).as_deref(),
            Some("esc:aped\\pw")
        );
        assert_eq!(
            found(lookup(p, "other", "1", "d", "bob")).as_deref(),
            Some("last")
        );
        // A field that is a prefix of the token does not match.
        let f = file("db:5432:app:al:pw\n", 0o600);
        assert!(found(lookup(f.path(), "db", "5432", "app", "alice")).is_none());
        assert!(found(lookup(f.path(), "db", "54320", "app", "al")).is_none());
    }

    #[test]
    fn an_insecure_file_is_ignored_with_libpqs_warning() {
        let f = file("*:*:*:*:pw\n", 0o644);
        match lookup(f.path(), "h", "5432", "d", "u") {
            Lookup::Warning(w) => assert!(
                w.ends_with("has group or world access; permissions should be u=rw (0600) or less"),
                "{w}"
            ),
            _ => panic!("a world-readable password file was used"),
        }
    }

    #[test]
    fn a_missing_file_is_silently_nothing() {
        assert!(matches!(
            lookup(Path::new("/nonexistent/.pgpass"), "h", "1", "d", "u"),
            Lookup::None
        ));
    }
}
