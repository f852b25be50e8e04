//! `ulid-tool`, the command-line tool: the commands' work, on ulid-core (the
//! codec, the generators and the cipher of the PostgreSQL extension), so
//! that what it prints is what the type prints for the same input.
//!
//! - `cli`: the command line, its help and examples (clap);
//! - `input`: ids from the arguments or standard input, streamed;
//! - `output`: the texts of an id and of a time, and buffered output;
//! - `time`: reading a time given on the command line;
//! - `exit`: how a command ends, its exit status or the failure it says;
//! - `new` (and `monotonic`), `from_time`, `parse`, `validate`, `bounds`,
//!   `public_ids` (`encrypt` and `decrypt`): the commands, each with its
//!   `run`, which `dispatch` calls; `from_time` makes its ids with `new`'s
//!   generator;
//! - `man_completions`: the man page and the shell completions that
//!   `--generate` writes.
//!
//! This file only wires them: `main.rs` calls `main`, which reads the
//! command line and runs the command.

#![forbid(unsafe_code)]

pub mod bounds;
pub mod cli;
mod exit;
pub mod from_time;
pub mod input;
pub mod man_completions;
pub mod new;
pub mod output;
pub mod parse;
pub mod public_ids;
pub mod time;
pub mod validate;

use clap::Parser;
use cli::{Cli, Command};
use exit::{Failure, FAILED, OK};
use output::Output;
use std::io::{self, BufReader};
use std::process::ExitCode;

/// Runs the command line of this process.
pub fn main() -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => ExitCode::from(run(cli)),
        Err(err) => match cli::an_id_given_as_a_command(&err) {
            Some(id) => {
                let how = format!("to read it, ulid-tool parse {id}");
                eprintln!("ulid-tool: {id:?} is an id, not a command: {how}");
                ExitCode::from(FAILED)
            }
            None => err.exit(),
        },
    }
}

/// Runs `cli` and returns the exit status.
pub fn run(cli: Cli) -> u8 {
    let stdout = io::stdout().lock();
    let mut out = Output::new(stdout);
    let result = match (cli.generate, cli.command) {
        (Some(kind), _) => man_completions::generate(kind, &mut out.buf)
            .map(|()| OK)
            .map_err(Failure::Io),
        (None, Some(command)) => dispatch(command, &mut out),
        (None, None) => Err(Failure::Message(
            "no command given: see ulid-tool --help".into(),
        )),
    };
    // what was made before a failure is still written
    let flushed = out.flush();
    exit::status(result.and_then(|status| flushed.map(|()| status).map_err(Failure::Io)))
}

fn dispatch(command: Command, out: &mut Output<io::StdoutLock<'static>>) -> Result<u8, Failure> {
    let stdin = io::stdin().lock();
    let mut reader = BufReader::with_capacity(64 * 1024, stdin);
    let mut errors = io::stderr().lock();
    match command {
        Command::New(args) => new::run(&args, out),
        Command::Monotonic(args) => new::run_monotonic(&args, out),
        Command::FromTime(args) => from_time::run(&args, out),
        Command::Parse(args) => parse::run(&args, &mut reader, &mut errors, out),
        Command::Validate(args) => validate::run(&args, &mut reader, &mut errors, out),
        Command::Bounds(args) => bounds::run(&args, out),
        Command::Encrypt(args) => public_ids::run(args, true, &mut reader, &mut errors, out),
        Command::Decrypt(args) => public_ids::run(args, false, &mut reader, &mut errors, out),
    }
}
