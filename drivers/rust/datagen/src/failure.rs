//! How a subcommand fails: bad parameters and invalid data exit with 2, I/O trouble with 1.

use std::fmt;
use std::io;
use std::path::Path;

#[derive(Debug)]
pub enum Failure {
    Usage(String),
    Data(String),
    Io(String),
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) | Failure::Data(_) => 2,
            Failure::Io(_) => 1,
        }
    }

    /// Wraps an I/O error with the file it concerns.
    pub fn io(path: &Path) -> impl FnOnce(io::Error) -> Failure + '_ {
        move |err| Failure::Io(format!("{}: {err}", path.display()))
    }

    /// An input that cannot be opened is a bad parameter.
    pub fn input(path: &Path) -> impl FnOnce(io::Error) -> Failure + '_ {
        move |err| Failure::Usage(format!("cannot read {}: {err}", path.display()))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // data errors already read `FILE:LINE: PATH: message`
            Failure::Data(msg) => f.write_str(msg),
            Failure::Usage(msg) | Failure::Io(msg) => write!(f, "error: {msg}"),
        }
    }
}
