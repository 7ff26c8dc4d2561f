//! Reads a password for `porthole vault unlock`: from the terminal with echo off (the prompt
//! on stderr), or the first line of stdin when stdin is not a terminal (scripts, tests). The
//! text lands in a zeroizing buffer; echo comes back even when reading fails.

use std::io::{BufRead, IsTerminal, Write};

use nix::sys::termios::{tcgetattr, tcsetattr, LocalFlags, SetArg, Termios};
use zeroize::Zeroizing;

/// Restores the terminal's settings when dropped.
struct EchoOff {
    saved: Termios,
}

impl EchoOff {
    fn new() -> std::io::Result<Self> {
        let stdin = std::io::stdin();
        let saved = tcgetattr(&stdin).map_err(std::io::Error::from)?;
        let mut quiet = saved.clone();
        quiet.local_flags.remove(LocalFlags::ECHO);
        quiet.local_flags.insert(LocalFlags::ECHONL);
        tcsetattr(&stdin, SetArg::TCSANOW, &quiet).map_err(std::io::Error::from)?;
        Ok(Self { saved })
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, &self.saved);
    }
}

/// One line (without its line end) from stdin; on a terminal, asked with `prompt` and not
/// echoed.
pub fn read_password(prompt: &str) -> std::io::Result<Zeroizing<String>> {
    let tty = std::io::stdin().is_terminal();
    let _echo_off = if tty {
        let mut err = std::io::stderr();
        write!(err, "{prompt}")?;
        err.flush()?;
        Some(EchoOff::new()?)
    } else {
        None
    };
    let mut line = Zeroizing::new(String::new());
    std::io::stdin().lock().read_line(&mut line)?;
    let end = line.trim_end_matches(['\r', '\n']).len();
    line.truncate(end);
    Ok(line)
}
