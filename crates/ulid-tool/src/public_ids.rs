//! `ulid-tool encrypt` and `ulid-tool decrypt`: public ids, as the
//! extension's `public_ids` makes them, with ulid-core's cipher, the one
//! its `ulid_encrypt` and `ulid_decrypt` use. The key is read from one
//! place: a file of its raw bytes (`--key-file`), a file whose first line
//! is its hexadecimal digits (`--key-hex-file`), an environment variable
//! holding them (`--key-env`), or the digits as an argument (`--key-hex`).
//! It is held in memory that is cleared after use, and never printed, not
//! even in an error.
//!
//! Why those: a raw file is what `head -c 32 /dev/urandom` makes and
//! `pg_read_binary_file` reads; hexadecimal text is how a key travels
//! through secret stores, configuration and the SQL `'\x...'` literal; and
//! an environment variable is how services and CI jobs are handed secrets.
//! The variable is named on the command line, as `openssl ... -pass
//! env:VAR` names it, rather than read from a fixed name whenever it is
//! set: a key is used only when asked for, and a key exported for one
//! purpose is never picked up by a command meant to use another. Unlike
//! an argument (readable by every user in `ps` and `/proc/PID/cmdline`),
//! a process's environment is readable only by its own user and root.
//!
//! A key file that its owner's group or others may open is refused, as ssh
//! refuses such a private key, unless `--allow-readable-key` makes that a
//! warning. What is judged is the file actually opened (`File::metadata`,
//! fstat of the open descriptor): the target of a symlink, the file behind
//! `/dev/stdin` or `/dev/fd/N`, or a pipe (0600 on Linux), never a second
//! lookup of the path that could name another file. A key file that is
//! standard input (`-`, or the same file by any other name) is refused when
//! the ids are to be read from standard input: one would swallow the other.
//!
//! Where the key's bytes are: the file's bytes are read into one fixed
//! buffer (no `Vec` that could grow and leave a copy behind), the
//! hexadecimal digits decoded into another, both cleared when dropped; the
//! `--key-hex` string clap handed over and the copy of the variable's value
//! are cleared as soon as the cipher is made; the `Cipher` clears its copy
//! of the key and its expanded key when it is dropped. Not cleared, because
//! this code never holds them: the process's argv (which `ps` shows while
//! the command runs) and environment, clap's and std's own copies of the
//! arguments, the bytes a `Cipher` leaves on the stack when it is moved,
//! and the kernel's page cache of the file.

use crate::cli::CryptArgs;
use crate::exit::{Failure, INVALID, OK};
use crate::input::for_each_id;
use crate::output::{push_id, Output};
use crate::parse::read_id;
use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, BufReader, Read, Write};
use std::path::Path;
use ulid_core::cipher::{Cipher, KeyLengthError, KEY_LENGTHS, KEY_LENGTH_DETAIL};
use zeroize::Zeroizing;

/// The longest key AES takes.
const MAX_KEY: usize = 32;
/// The longest key, plus one byte to tell a longer file.
const READ_LIMIT: usize = MAX_KEY + 1;
/// The most of a hexadecimal key file's first line read: far more than
/// `\x`, 64 digits and the blanks of any sensible file.
const HEX_LINE_LIMIT: usize = 256;

/// The type's words for a key of another length: its message (from
/// `KeyLengthError`), and its DETAIL in brackets.
fn length_error(message: String) -> String {
    format!("{message} ({KEY_LENGTH_DETAIL})")
}

/// What to do with a key file that others than its owner may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadableKey {
    /// Refuse it (the default).
    Refuse,
    /// Use it, with a warning (`--allow-readable-key`).
    Warn,
}

/// The name `-` gives standard input as a key file.
fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a key file is named in messages: `-` as standard input.
fn shown(path: &Path) -> String {
    if is_stdin(path) {
        "- (standard input)".into()
    } else {
        path.display().to_string()
    }
}

/// Whether the key file opened, described by `metadata`, is private to its
/// owner: an error, or a warning on `warnings`, when it is not.
#[cfg(unix)]
fn check_private(
    metadata: &Metadata,
    path: &Path,
    readable: ReadableKey,
    warnings: &mut impl Write,
) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o7777;
    if mode & 0o077 == 0 {
        return Ok(());
    }
    // for the message only: the file a link led to, to be named in the
    // advice (`chmod 600 /dev/stdin` would change another file)
    // (`-` is no name to look up)
    let target = match std::fs::symlink_metadata(path) {
        Ok(link) if link.file_type().is_symlink() && !is_stdin(path) => {
            std::fs::canonicalize(path).ok()
        }
        _ => None,
    };
    let shown = shown(path);
    let (named, fix) = match &target {
        Some(target) => (
            format!("{shown} (a link to {})", target.display()),
            format!("chmod 600 {}", target.display()),
        ),
        // what stands behind `-` has no name here to chmod
        None if is_stdin(path) => (
            shown,
            "give it from a private file (< FILE) or a pipe".to_string(),
        ),
        None => (shown.clone(), format!("chmod 600 {shown}")),
    };
    let why = format!(
        "the key file {named} is open to group or others (mode {mode:04o}): \
         a key must be readable by its owner only; {fix}"
    );
    match readable {
        ReadableKey::Refuse => Err(format!("{why}, or pass --allow-readable-key")),
        ReadableKey::Warn => writeln!(warnings, "ulid-tool: warning: {why}")
            .map_err(|err| format!("cannot write a warning: {err}")),
    }
}

/// No modes to judge here.
#[cfg(not(unix))]
fn check_private(_: &Metadata, _: &Path, _: ReadableKey, _: &mut impl Write) -> Result<(), String> {
    Ok(())
}

/// Standard input as a file of its own: a second descriptor of it, whose
/// metadata is that of what stands behind it.
#[cfg(unix)]
fn stdin_file() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn stdin_file() -> io::Result<File> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "standard input as a key file needs a Unix system",
    ))
}

/// Whether `metadata` is of the file standard input reads from (a key file
/// named `/dev/stdin`, `/dev/fd/0` or the file redirected in).
#[cfg(unix)]
fn is_stdin_file(metadata: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    match stdin_file().and_then(|stdin| stdin.metadata()) {
        Ok(stdin) => stdin.dev() == metadata.dev() && stdin.ino() == metadata.ino(),
        // no standard input at all: nothing to swallow
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn is_stdin_file(_: &Metadata) -> bool {
    false
}

/// The key file at `path` (`-`: standard input) opened, its metadata, and
/// a check that it is private to its owner (or, with `ReadableKey::Warn`,
/// a warning on `warnings`). With `ids_on_stdin` (no ids given as
/// arguments), standard input is for the ids: a key file that is standard
/// input is refused before anything is read from it.
fn open_key_file(
    path: &Path,
    readable: ReadableKey,
    ids_on_stdin: bool,
    warnings: &mut impl Write,
) -> Result<File, String> {
    let shown = shown(path);
    let cannot_read = |err: io::Error| format!("cannot read the key file {shown}: {err}");
    let taken = || {
        format!(
            "the key file {} is standard input, which holds the ids when none are given as \
             arguments: give the ids as arguments, or the key in another file or in an \
             environment variable (--key-env)",
            path.display()
        )
    };
    if is_stdin(path) && ids_on_stdin {
        return Err(taken());
    }
    let file = if is_stdin(path) {
        stdin_file()
    } else {
        File::open(path)
    }
    .map_err(cannot_read)?;
    // the file opened, after any symlinks: not another lookup of `path`
    let metadata = file.metadata().map_err(cannot_read)?;
    if ids_on_stdin && is_stdin_file(&metadata) {
        return Err(taken());
    }
    // a directory fails when read, as unreadable, whatever its mode
    if !metadata.is_dir() {
        check_private(&metadata, path, readable, warnings)?;
    }
    Ok(file)
}

/// Reads `file` into `buf` until it is full, the file ends, or (with
/// `stop`) a byte `stop` has been read; returns how many bytes it holds.
fn read_into(file: &mut File, buf: &mut [u8], stop: Option<u8>) -> io::Result<usize> {
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if stop.is_some_and(|stop| buf[len - n..len].contains(&stop)) {
                    break;
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(len)
}

/// A cipher for the key in the key file `path` (see `open_key_file`): the
/// file's bytes, or with `hex` the hexadecimal digits of its first line
/// (what follows that line is not read as the key). What is read is held
/// in a buffer wiped when dropped.
pub fn cipher_from_key_file(
    path: &Path,
    hex: bool,
    readable: ReadableKey,
    ids_on_stdin: bool,
    warnings: &mut impl Write,
) -> Result<Cipher, String> {
    let shown = shown(path);
    let mut file = open_key_file(path, readable, ids_on_stdin, warnings)?;
    let cannot_read = |err: io::Error| format!("cannot read the key file {shown}: {err}");
    if !hex {
        let mut key = Zeroizing::new([0u8; READ_LIMIT]);
        let len = read_into(&mut file, &mut key[..], None).map_err(cannot_read)?;
        if len == READ_LIMIT {
            return Err(format!(
                "the key file {shown}: {}",
                length_error(KeyLengthError::message_for(
                    format!("more than {MAX_KEY}"),
                    "bytes"
                ))
            ));
        }
        return Cipher::new(&key[..len])
            .map_err(|err| format!("the key file {shown}: {}", length_error(err.message())));
    }
    let mut text = Zeroizing::new([0u8; HEX_LINE_LIMIT]);
    let len = read_into(&mut file, &mut text[..], Some(b'\n')).map_err(cannot_read)?;
    let line = match text[..len].iter().position(|&b| b == b'\n') {
        Some(end) => &text[..end],
        None if len == HEX_LINE_LIMIT => {
            return Err(format!(
                "the key file {shown}: its first line is longer than any key in hexadecimal \
                 digits ({HEX_LINE_LIMIT} bytes or more)"
            ))
        }
        None => &text[..len],
    };
    cipher_from_digits(line, &format!("the key file {shown}"))
}

/// A cipher for the key in hexadecimal digits in the environment variable
/// `name`.
pub fn cipher_from_env(name: &OsStr) -> Result<Cipher, String> {
    let shown = name.to_string_lossy();
    // what std would refuse to look up, or could not be set
    if name.is_empty() || name.as_encoded_bytes().iter().any(|&b| b == b'=' || b == 0) {
        return Err(format!(
            "--key-env takes the name of an environment variable, not {shown:?}"
        ));
    }
    let origin = format!("--key-env {shown}");
    let value = std::env::var_os(name)
        .ok_or_else(|| format!("{origin}: no variable {shown} in the environment"))?;
    let value = Zeroizing::new(value.into_encoded_bytes());
    cipher_from_digits(&value, &origin)
}

/// A cipher for the key given as hexadecimal digits (`--key-hex`).
pub fn cipher_from_hex(hex: &str) -> Result<Cipher, String> {
    cipher_from_digits(hex.as_bytes(), "--key-hex")
}

/// A cipher for the key written in `text` as hexadecimal digits (an
/// optional `\x` first, as PostgreSQL prints a bytea), the blanks around
/// them ignored. `origin` says where they came from in an error, which
/// never shows them.
fn cipher_from_digits(text: &[u8], origin: &str) -> Result<Cipher, String> {
    let digits = text.trim_ascii();
    let digits = digits.strip_prefix(b"\\x").unwrap_or(digits);
    let value = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    if !digits.len().is_multiple_of(2) || !digits.iter().all(|&c| value(c).is_some()) {
        return Err(format!(
            "{origin}: the key is not an even number of hexadecimal digits"
        ));
    }
    let len = digits.len() / 2;
    if !KEY_LENGTHS.contains(&len) {
        return Err(format!(
            "{origin}: {}",
            length_error(KeyLengthError(len).message())
        ));
    }
    let mut key = Zeroizing::new([0u8; MAX_KEY]);
    for (byte, pair) in key.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = value(pair[0]).unwrap_or(0) << 4 | value(pair[1]).unwrap_or(0);
    }
    Cipher::new(&key[..len]).map_err(|err| format!("{origin}: {}", length_error(err.message())))
}

/// `ulid-tool encrypt` (`encrypt` true) and `ulid-tool decrypt`.
pub(crate) fn run<R: Read, W: Write>(
    mut args: CryptArgs,
    encrypt: bool,
    reader: &mut BufReader<R>,
    errors: &mut impl Write,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    // clap's copy of --key-hex, cleared once the key is expanded
    let hex = args.key_hex.take().map(Zeroizing::new);
    let readable = if args.allow_readable_key {
        ReadableKey::Warn
    } else {
        ReadableKey::Refuse
    };
    let ids_on_stdin = args.input.ids.is_empty();
    // clap lets exactly one through (the `key` group)
    let cipher = if let Some(path) = &args.key_file {
        cipher_from_key_file(path, false, readable, ids_on_stdin, errors)
    } else if let Some(path) = &args.key_hex_file {
        cipher_from_key_file(path, true, readable, ids_on_stdin, errors)
    } else if let Some(name) = &args.key_env {
        cipher_from_env(name)
    } else if let Some(hex) = &hex {
        cipher_from_hex(hex)
    } else {
        Err("give the key with --key-file, --key-hex-file, --key-env or --key-hex".into())
    }
    .map_err(Failure::Message)?;
    drop(hex);
    let mut invalid = false;
    for_each_id(&args.input.ids, reader, out, |out, item| {
        match read_id(&item, errors)? {
            Some(value) => {
                let result = if encrypt {
                    cipher.encrypt(&value)
                } else {
                    cipher.decrypt(&value)
                };
                push_id(&mut out.buf, &result, args.output.format);
                out.buf.push(b'\n');
                out.flush_if_full()?;
            }
            None => invalid = true,
        }
        Ok(())
    })?;
    Ok(if invalid { INVALID } else { OK })
}
