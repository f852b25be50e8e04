//! `ulid`, the command-line tool: the commands' work, on ulid-core (the
//! codec, the generators and the cipher of the PostgreSQL extension), so
//! that what it prints is what the type prints for the same input.
//!
//! - `cli`: the command line, its help and examples (clap);
//! - `input`: ids from the arguments or standard input, streamed;
//! - `output`: the texts of an id and of a time, and buffered output;
//! - `time`: reading a time given on the command line;
//! - `new`, `parse`, `crypt`: the commands;
//! - `generate`: the man page and the shell completions.
//!
//! `main.rs` only calls `main` here.

pub mod cli;
pub mod crypt;
pub mod generate;
pub mod input;
pub mod new;
pub mod output;
pub mod parse;
pub mod time;

use clap::Parser;
use cli::{Cli, Command, CryptArgs, IdFormat, LayoutArg, StepArg};
use input::for_each_id;
use output::{push_id, Output};
use std::io::{self, BufReader, Write};
use std::process::ExitCode;
use ulid_core::codec;
use ulid_core::monotonic::{GenerateError, Layout, Step};
use ulid_core::rng::ProcessRng;

/// Every id was valid and everything was written.
const OK: u8 = 0;
/// Some id given was not valid.
const INVALID: u8 = 1;
/// A usage error, or a failure.
const FAILED: u8 = 2;

/// Why a command stopped early.
enum Failure {
    /// Said on standard error; exit status 2.
    Message(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(err: io::Error) -> Self {
        Failure::Io(err)
    }
}

/// Runs the command line of this process.
pub fn main() -> ExitCode {
    ExitCode::from(run(Cli::parse()))
}

/// Runs `cli` and returns the exit status.
pub fn run(cli: Cli) -> u8 {
    let stdout = io::stdout().lock();
    let mut out = Output::new(stdout);
    let result = match (cli.generate, cli.command) {
        (Some(kind), _) => generate::generate(kind, &mut out.buf)
            .map(|()| OK)
            .map_err(Failure::Io),
        (None, Some(command)) => dispatch(command, &mut out),
        (None, None) => Err(Failure::Message("no command given: see ulid --help".into())),
    };
    // what was made before a failure is still written
    let flushed = out.flush();
    match result.and_then(|status| flushed.map(|()| status).map_err(Failure::Io)) {
        Ok(status) => status,
        // a reader that went away (`ulid new 1000000 | head -1`) is no error
        Err(Failure::Io(err)) if err.kind() == io::ErrorKind::BrokenPipe => OK,
        Err(Failure::Io(err)) => {
            eprintln!("ulid: {err}");
            FAILED
        }
        Err(Failure::Message(message)) => {
            eprintln!("ulid: {message}");
            FAILED
        }
    }
}

fn layout(arg: LayoutArg) -> Layout {
    match arg {
        LayoutArg::Ulid => Layout::Ulid,
        LayoutArg::Uuidv7 => Layout::UuidV7,
    }
}

fn dispatch(command: Command, out: &mut Output<io::StdoutLock<'static>>) -> Result<u8, Failure> {
    let stdin = io::stdin().lock();
    let mut reader = BufReader::with_capacity(64 * 1024, stdin);
    let mut errors = io::stderr().lock();
    match command {
        Command::New(args) => {
            let after = match &args.after {
                Some(text) => Some(codec::parse(text.trim().as_bytes()).map_err(|err| {
                    Failure::Message(format!("--after: {}", err.detail(text.trim().as_bytes())))
                })?),
                None => None,
            };
            let options = new::NewOptions {
                count: args.count,
                monotonic: args.monotonic.then_some(match args.step {
                    StepArg::Random => Step::Random,
                    StepArg::One => Step::One,
                }),
                layout: layout(args.layout),
                format: args.format,
                after,
            };
            let mut rng = ProcessRng::new();
            let mut rng = rng.for_process(std::process::id() as i32);
            let result = match &args.time {
                Some(text) => {
                    let ms = time::parse_time(text).map_err(Failure::Message)?;
                    new::write_new(&options, &mut new::Frozen(ms), &mut rng, out)
                }
                None => new::write_new(&options, &mut new::SystemClock, &mut rng, out),
            };
            match result {
                Ok(()) => Ok(OK),
                Err(new::NewError::Io(err)) => Err(Failure::Io(err)),
                Err(new::NewError::Generate { err, made }) => {
                    let what = match err {
                        GenerateError::Exhausted => "no value left in this millisecond",
                        GenerateError::TimestampOutOfRange => "timestamp out of range for ulid",
                    };
                    let ids = if made == 1 { "id" } else { "ids" };
                    Err(Failure::Message(format!(
                        "{what} after {made} {ids}: {}",
                        err.detail(options.layout)
                    )))
                }
            }
        }
        Command::Parse(args) => {
            let mut printer = parse::Printer::new(args.format);
            let mut invalid = false;
            for_each_id(&args.ids, &mut reader, out, |out, item| {
                match parse::read_id(&item, &mut errors)? {
                    Some(value) => {
                        printer.print(&mut out.buf, &value);
                        out.flush_if_full()?;
                    }
                    None => invalid = true,
                }
                Ok(())
            })?;
            Ok(if invalid { INVALID } else { OK })
        }
        Command::Validate(args) => {
            let mut invalid = false;
            for_each_id(&args.ids, &mut reader, out, |_, item| {
                if parse::read_id(&item, &mut errors)?.is_none() {
                    invalid = true;
                }
                Ok(())
            })?;
            Ok(if invalid { INVALID } else { OK })
        }
        Command::FromTime(args) => {
            let ms = time::parse_time(&args.time).map_err(Failure::Message)?;
            push_id(
                &mut out.buf,
                &codec::from_parts(ms, &[0; codec::RANDOM_BYTES]),
                args.format,
            );
            out.buf.push(b'\n');
            Ok(OK)
        }
        Command::Encrypt(args) => crypt_ids(&args, true, &mut reader, &mut errors, out),
        Command::Decrypt(args) => crypt_ids(&args, false, &mut reader, &mut errors, out),
    }
}

fn crypt_ids(
    args: &CryptArgs,
    encrypt: bool,
    reader: &mut BufReader<io::StdinLock<'static>>,
    errors: &mut impl Write,
    out: &mut Output<io::StdoutLock<'static>>,
) -> Result<u8, Failure> {
    let cipher = match (&args.key_file, &args.key_hex) {
        (Some(path), _) => crypt::cipher_from_file(path),
        (None, Some(hex)) => crypt::cipher_from_hex(hex),
        (None, None) => Err("give the key with --key-file or --key-hex".into()),
    }
    .map_err(Failure::Message)?;
    let format: IdFormat = args.format;
    let mut invalid = false;
    for_each_id(&args.ids, reader, out, |out, item| {
        match parse::read_id(&item, errors)? {
            Some(value) => {
                let result = if encrypt {
                    cipher.encrypt(&value)
                } else {
                    cipher.decrypt(&value)
                };
                push_id(&mut out.buf, &result, format);
                out.buf.push(b'\n');
                out.flush_if_full()?;
            }
            None => invalid = true,
        }
        Ok(())
    })?;
    Ok(if invalid { INVALID } else { OK })
}
