//! Reading a file an operator named (a config, a payload, a service file, a certificate):
//! only a regular file, and only up to a cap. A FIFO with no writer would block the command
//! for ever, and `/dev/zero` would stream until memory runs out; both are refused at once,
//! before a byte is read.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum FileError {
    /// It could not be opened or read (missing, no permission, …).
    Io(std::io::Error),
    /// It is not a regular file: what it is ("a FIFO (named pipe)", "a directory", …).
    NotRegular(&'static str),
    /// It holds more than `cap` bytes.
    TooLarge { cap: u64 },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(e) => write!(f, "{e}"),
            FileError::NotRegular(what) => write!(f, "it is {what}, not a regular file"),
            FileError::TooLarge { cap } => {
                write!(f, "it is larger than {}, the most it may hold", size(*cap))
            }
        }
    }
}

impl FileError {
    /// The operator named the wrong thing (exit 2), rather than the file failing to read.
    pub fn is_usage(&self) -> bool {
        !matches!(self, FileError::Io(_))
    }
}

/// `64 MiB`, `1 MiB`, `512 bytes`.
pub fn size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const KIB: u64 = 1 << 10;
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes % KIB == 0 {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Open `path` for reading if it is a regular file. The check is made before opening (so a
/// FIFO is never opened, which would wait for a writer) and again on the open file, which is
/// opened with `O_NONBLOCK`: a path swapped for a FIFO between the two still returns at once.
pub fn open_regular(path: &Path) -> Result<File, FileError> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::metadata(path).map_err(FileError::Io)?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind(&meta)));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(FileError::Io)?;
    let meta = file.metadata().map_err(FileError::Io)?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind(&meta)));
    }
    Ok(file)
}

/// Feed a regular file to `each`, chunk by chunk, refusing it once it passes `cap` bytes
/// (at once when its size says so; while reading when it grows).
pub fn stream_regular(
    path: &Path,
    cap: u64,
    mut each: impl FnMut(&[u8]),
) -> Result<u64, FileError> {
    let file = open_regular(path)?;
    if file.metadata().map_err(FileError::Io)?.len() > cap {
        return Err(FileError::TooLarge { cap });
    }
    let mut reader = file.take(cap + 1);
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FileError::Io(e)),
        };
        total += n as u64;
        if total > cap {
            return Err(FileError::TooLarge { cap });
        }
        each(&buf[..n]);
    }
    Ok(total)
}

/// A regular file's bytes, at most `cap` of them.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    let mut out = Vec::new();
    stream_regular(path, cap, |chunk| out.extend_from_slice(chunk))?;
    Ok(out)
}

/// The cap for small settings files (a service file, a password file, certificates and keys:
/// a system CA bundle is a few hundred KiB).
pub const SETTINGS_FILE_CAP: u64 = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_regular(&f, 5).unwrap(), b"12345");
        let err = read_regular(&f, 4).unwrap_err();
        assert!(
            err.is_usage() && err.to_string().contains("4 bytes"),
            "{err}"
        );
        let err = read_regular(dir.path(), 10).unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
        let err = read_regular(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(err.to_string().contains("a device"), "{err}");
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_regular(&fifo, 10).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        let err = read_regular(&dir.path().join("missing"), 10).unwrap_err();
        assert!(!err.is_usage());
        assert_eq!(size(64 << 20), "64 MiB");
    }
}
