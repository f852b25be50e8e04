//! `ulid encrypt` and `ulid decrypt`: public ids, with ulid-core's cipher,
//! the one `ulid_encrypt` and `ulid_decrypt` use. The key is read from a
//! file or from hexadecimal digits, held in memory that is cleared after
//! use, and never printed, not even in an error.

use crate::cli::CryptArgs;
use crate::input::for_each_id;
use crate::output::{push_id, Output};
use crate::parse::read_id;
use crate::{Failure, INVALID, OK};
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use ulid_core::cipher::{Cipher, KeyLengthError, KEY_LENGTHS};
use zeroize::Zeroizing;

/// The longest key AES takes, plus one byte to tell a longer file.
const READ_LIMIT: u64 = 33;

/// The type's words for a key of `len` bytes.
fn length_error(len: impl std::fmt::Display) -> String {
    format!(
        "invalid key length for ulid_encrypt and ulid_decrypt: {len} bytes \
         (a key is {}, {} or {} bytes)",
        KEY_LENGTHS[0], KEY_LENGTHS[1], KEY_LENGTHS[2]
    )
}

/// A cipher for the raw key in `path`.
pub fn cipher_from_file(path: &Path) -> Result<Cipher, String> {
    let shown = path.display();
    let mut file =
        File::open(path).map_err(|err| format!("cannot read the key file {shown}: {err}"))?;
    let mut key = Zeroizing::new(Vec::with_capacity(READ_LIMIT as usize));
    (&mut file)
        .take(READ_LIMIT)
        .read_to_end(&mut key)
        .map_err(|err| format!("cannot read the key file {shown}: {err}"))?;
    if key.len() as u64 == READ_LIMIT {
        return Err(format!(
            "the key file {shown}: {}",
            length_error("more than 32")
        ));
    }
    Cipher::new(&key)
        .map_err(|KeyLengthError(len)| format!("the key file {shown}: {}", length_error(len)))
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
    let key = Zeroizing::new(
        digits
            .chunks_exact(2)
            .map(|pair| value(pair[0]).unwrap_or(0) << 4 | value(pair[1]).unwrap_or(0))
            .collect::<Vec<u8>>(),
    );
    Cipher::new(&key).map_err(|KeyLengthError(len)| format!("--key-hex: {}", length_error(len)))
}

/// `ulid encrypt` (`encrypt` true) and `ulid decrypt`.
pub(crate) fn run<R: Read, W: Write>(
    args: &CryptArgs,
    encrypt: bool,
    reader: &mut BufReader<R>,
    errors: &mut impl Write,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    let cipher = match (&args.key_file, &args.key_hex) {
        (Some(path), _) => cipher_from_file(path),
        (None, Some(hex)) => cipher_from_hex(hex),
        (None, None) => Err("give the key with --key-file or --key-hex".into()),
    }
    .map_err(Failure::Message)?;
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
