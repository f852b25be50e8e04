//! How a command ends: its exit status, and the failure that stops it
//! early, said on standard error. Every command returns a status or a
//! `Failure`; `status` turns either into what the process exits with.

use std::io;

/// Every id was valid and everything was written.
pub const OK: u8 = 0;
/// Some id given was not valid.
pub const INVALID: u8 = 1;
/// A usage error, or a failure.
pub const FAILED: u8 = 2;

/// Why a command stopped early.
pub enum Failure {
    /// Said on standard error; exit status 2.
    Message(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Self {
        Failure::Io(err)
    }
}

/// The exit status of a command's result, once a failure is said on
/// standard error.
pub fn status(result: Result<u8, Failure>) -> u8 {
    match result {
        Ok(status) => status,
        // a reader that went away (`ulid-tool new 1000000 | head -1`) is no error
        Err(Failure::Io(err)) if err.kind() == io::ErrorKind::BrokenPipe => OK,
        Err(Failure::Io(err)) => {
            eprintln!("ulid-tool: {err}");
            FAILED
        }
        Err(Failure::Message(message)) => {
            eprintln!("ulid-tool: {message}");
            FAILED
        }
    }
}
