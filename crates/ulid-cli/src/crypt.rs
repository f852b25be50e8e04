//! `ulid encrypt` and `ulid decrypt`: public ids, with ulid-core's cipher,
//! the one `ulid_encrypt` and `ulid_decrypt` use. The key is read from a
//! file or from hexadecimal digits, held in memory that is cleared after
//! use, and never printed, not even in an error.
//!
//! A key file that its owner's group or others may open is refused, as ssh
//! refuses such a private key, unless `--allow-readable-key` makes that a
//! warning. What is judged is the file actually opened (`File::metadata`,
//! fstat of the open descriptor): the target of a symlink, the file behind
//! `/dev/stdin` or `/dev/fd/N`, or a pipe (0600 on Linux), never a second
//! lookup of the path that could name another file.
//!
//! Where the key's bytes are: the file's bytes are read into one fixed
//! buffer (no `Vec` that could grow and leave a copy behind), the
//! hexadecimal digits decoded into another, both cleared when dropped; the
//! `--key-hex` string clap handed over is cleared as soon as the cipher is
//! made; the `Cipher` clears its copy of the key and its expanded key when
//! it is dropped. Not cleared, because this code never holds them: the
//! process's argv (which `ps` shows while the command runs), clap's and
//! std's own copies of the arguments, the bytes a `Cipher` leaves on the
//! stack when it is moved, and the kernel's page cache of the file.

use crate::cli::CryptArgs;
use crate::input::for_each_id;
use crate::output::{push_id, Output};
use crate::parse::read_id;
use crate::{Failure, INVALID, OK};
use std::fs::{File, Metadata};
use std::io::{self, BufReader, Read, Write};
use std::path::Path;
use ulid_core::cipher::{Cipher, KeyLengthError, KEY_LENGTHS, KEY_LENGTH_DETAIL};
use zeroize::Zeroizing;

/// The longest key AES takes.
const MAX_KEY: usize = 32;
/// The longest key, plus one byte to tell a longer file.
const READ_LIMIT: usize = MAX_KEY + 1;

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
    let target = match std::fs::symlink_metadata(path) {
        Ok(link) if link.file_type().is_symlink() => std::fs::canonicalize(path).ok(),
        _ => None,
    };
    let shown = path.display();
    let (named, fix) = match &target {
        Some(target) => (
            format!("{shown} (a link to {})", target.display()),
            target.display().to_string(),
        ),
        None => (shown.to_string(), shown.to_string()),
    };
    let why = format!(
        "the key file {named} is open to group or others (mode {mode:04o}): \
         a key must be readable by its owner only; chmod 600 {fix}"
    );
    match readable {
        ReadableKey::Refuse => Err(format!("{why}, or pass --allow-readable-key")),
        ReadableKey::Warn => writeln!(warnings, "ulid: warning: {why}")
            .map_err(|err| format!("cannot write a warning: {err}")),
    }
}

/// No modes to judge here.
#[cfg(not(unix))]
fn check_private(_: &Metadata, _: &Path, _: ReadableKey, _: &mut impl Write) -> Result<(), String> {
    Ok(())
}

/// A cipher for the raw key in `path`, a file private to its owner (or,
/// with `ReadableKey::Warn`, any file, with a warning on `warnings`).
pub fn cipher_from_file(
    path: &Path,
    readable: ReadableKey,
    warnings: &mut impl Write,
) -> Result<Cipher, String> {
    let shown = path.display().to_string();
    let cannot_read = |err: io::Error| format!("cannot read the key file {shown}: {err}");
    let mut file = File::open(path).map_err(cannot_read)?;
    // the file opened, after any symlinks: not another lookup of `path`
    let metadata = file.metadata().map_err(cannot_read)?;
    // a directory fails below, as unreadable, whatever its mode
    if !metadata.is_dir() {
        check_private(&metadata, path, readable, warnings)?;
    }
    let mut key = Zeroizing::new([0u8; READ_LIMIT]);
    let mut len = 0;
    while len < READ_LIMIT {
        match file.read(&mut key[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(cannot_read(err)),
        }
    }
    if len == READ_LIMIT {
        return Err(format!(
            "the key file {shown}: {}",
            length_error(KeyLengthError::message_for(
                format!("more than {MAX_KEY}"),
                "bytes"
            ))
        ));
    }
    Cipher::new(&key[..len])
        .map_err(|err| format!("the key file {shown}: {}", length_error(err.message())))
}

/// A cipher for the key written as hexadecimal digits (an optional `\x`
/// first, as PostgreSQL prints a bytea).
pub fn cipher_from_hex(hex: &str) -> Result<Cipher, String> {
    let digits = hex.trim();
    let digits = digits.strip_prefix("\\x").unwrap_or(digits).as_bytes();
    let value = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    if !digits.len().is_multiple_of(2) || !digits.iter().all(|&c| value(c).is_some()) {
        return Err("--key-hex takes an even number of hexadecimal digits".into());
    }
    let len = digits.len() / 2;
    if !KEY_LENGTHS.contains(&len) {
        return Err(format!(
            "--key-hex: {}",
            length_error(KeyLengthError(len).message())
        ));
    }
    let mut key = Zeroizing::new([0u8; MAX_KEY]);
    for (byte, pair) in key.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = value(pair[0]).unwrap_or(0) << 4 | value(pair[1]).unwrap_or(0);
    }
    Cipher::new(&key[..len]).map_err(|err| format!("--key-hex: {}", length_error(err.message())))
}

/// `ulid encrypt` (`encrypt` true) and `ulid decrypt`.
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
    let cipher = match (&args.key_file, &hex) {
        (Some(path), _) => cipher_from_file(path, readable, errors),
        (None, Some(hex)) => cipher_from_hex(hex),
        (None, None) => Err("give the key with --key-file or --key-hex".into()),
    }
    .map_err(Failure::Message)?;
    drop(hex);
    let mut invalid = false;
    for_each_id(&args.ids, reader, out, |out, item| {
        match read_id(&item, errors)? {
            Some(value) => {
                let result = if encrypt {
                    cipher.encrypt(&value)
                } else {
                    cipher.decrypt(&value)
                };
                push_id(&mut out.buf, &result, args.format);
                out.buf.push(b'\n');
                out.flush_if_full()?;
            }
            None => invalid = true,
        }
        Ok(())
    })?;
    Ok(if invalid { INVALID } else { OK })
}
