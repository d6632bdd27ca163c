//! Asking for a secret on the terminal (`--password`, psql's `-W`): nothing typed is echoed,
//! and the terminal is as it was afterwards, however the question ends (Enter, Ctrl-C,
//! Ctrl-D, an error).
//!
//! The terminal is put in non-canonical mode without echo and without signals, and read a
//! byte at a time: Ctrl-C is read as a byte and ends the question (rather than killing the
//! process with echo still off), Backspace and Ctrl-U edit the line.

use std::io::{self, Read, Write};

/// How a question for a secret ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    Given(String),
    /// Ctrl-C or Ctrl-D on an empty line, or the terminal went away.
    Cancelled,
}

/// The terminal's settings as they were, put back when dropped.
struct Restore {
    fd: libc::c_int,
    saved: libc::termios,
}

impl Drop for Restore {
    fn drop(&mut self) {
        // SAFETY: `saved` came from tcgetattr on this same descriptor.
        unsafe {
            libc::tcsetattr(self.fd, libc::TCSAFLUSH, &self.saved);
        }
    }
}

/// Ask `prompt` on stderr and read the answer from stdin (a terminal: the caller checks),
/// without echo.
pub fn ask(prompt: &str) -> io::Result<Answer> {
    let fd = libc::STDIN_FILENO;
    // SAFETY: a zeroed termios is a valid out-parameter for tcgetattr.
    let mut saved: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: fd is open; `saved` is a valid termios to fill.
    if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut quiet = saved;
    quiet.c_lflag &= !(libc::ECHO | libc::ICANON | libc::ISIG);
    quiet.c_cc[libc::VMIN] = 1;
    quiet.c_cc[libc::VTIME] = 0;
    let mut err = io::stderr().lock();
    write!(err, "{prompt}")?;
    err.flush()?;
    let restore = Restore { fd, saved };
    // SAFETY: `quiet` is a modified copy of this descriptor's own settings.
    if unsafe { libc::tcsetattr(fd, libc::TCSAFLUSH, &quiet) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let answer = read_secret(&mut io::stdin().lock());
    drop(restore);
    // The Enter typed was not echoed either.
    let _ = writeln!(err);
    answer
}

/// The line typed, edited as a terminal would, from raw bytes.
fn read_secret(input: &mut impl Read) -> io::Result<Answer> {
    let mut line: Vec<u8> = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        if input.read(&mut byte)? == 0 {
            return Ok(Answer::Cancelled);
        }
        match byte[0] {
            b'\r' | b'\n' => break,
            // Ctrl-C; Ctrl-D on an empty line.
            0x03 => return Ok(Answer::Cancelled),
            0x04 if line.is_empty() => return Ok(Answer::Cancelled),
            // Backspace, Delete: one character (UTF-8: its continuation bytes too).
            0x08 | 0x7f => {
                while let Some(b) = line.pop() {
                    if b & 0xC0 != 0x80 {
                        break;
                    }
                }
            }
            // Ctrl-U: the whole line.
            0x15 => line.clear(),
            b => line.push(b),
        }
    }
    Ok(Answer::Given(String::from_utf8_lossy(&line).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Answer {
        read_secret(&mut &bytes[..]).unwrap()
    }

    #[test]
    fn a_secret_is_read_and_edited_as_a_terminal_would() {
        assert_eq!(read(b"Top\x7fpSecret\r"), Answer::Given("TopSecret".into()));
        assert_eq!(read(b"wrong\x15right\n"), Answer::Given("right".into()));
        assert_eq!(
            read("pä\x7f\x7fass\n".as_bytes()),
            Answer::Given("ass".into())
        );
        assert_eq!(read(b"half\x03"), Answer::Cancelled);
        assert_eq!(read(b"\x04"), Answer::Cancelled);
        assert_eq!(read(b"no newline"), Answer::Cancelled);
        assert_eq!(read(b"\n"), Answer::Given(String::new()));
    }
}
