//! The text input function (`codec::parse`) on arbitrary bytes: it accepts
//! exactly the texts that reference decoders accept in one of its three
//! forms, with the same value, and when it refuses one, the problem it names
//! is really there.
//!
//! References: the `ulid` crate for the 26-character form (after checking
//! the first digit, which it would truncate), the `uuid` crate for the
//! `\x`-hex form (its 32-digit "simple" form) and the hyphenated UUID form.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ulid_fuzz::codec::{self, DecodeError, BYTES, TEXT_LEN, UUID_TEXT_LEN};
use ulid_fuzz::{check_value, digit};

fuzz_target!(|input: &[u8]| {
    let shown = String::from_utf8_lossy(input);
    let expected = reference(input);
    match codec::parse(input) {
        Ok(bytes) => {
            assert_eq!(Some(bytes), expected, "accepted {shown:?}");
            if input.len() == TEXT_LEN {
                assert_eq!(
                    codec::encode(&bytes).to_vec(),
                    input.to_ascii_uppercase(),
                    "{shown:?} does not re-encode to itself"
                );
            }
            check_value(&bytes);
        }
        Err(err) => {
            assert_eq!(expected, None, "rejected {shown:?} with {err:?}");
            assert!(is_consistent(input, err), "{shown:?} rejected with {err:?}");
        }
    }
});

/// The value of `input` according to the reference decoders, if it is one of
/// the three forms.
fn reference(input: &[u8]) -> Option<[u8; BYTES]> {
    if let Some(hex) = input.strip_prefix(b"\\x") {
        return (hex.len() == 32)
            .then(|| uuid::Uuid::try_parse_ascii(hex).ok())
            .flatten()
            .map(|u| *u.as_bytes());
    }
    if input.len() == UUID_TEXT_LEN && input.contains(&b'-') {
        return uuid::Uuid::try_parse_ascii(input)
            .ok()
            .map(|u| *u.as_bytes());
    }
    let valid = input.len() == TEXT_LEN
        && input.iter().all(|&c| digit(c).is_some())
        && matches!(digit(input[0]), Some(0..=7));
    valid
        .then(|| ulid::Ulid::from_string(std::str::from_utf8(input).ok()?).ok())
        .flatten()
        .map(|u| u.0.to_be_bytes())
}

fn hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// Whether `err` describes a problem `input` really has. Non-ASCII bytes are
/// never digits, so "not a digit" covers them too.
fn is_consistent(input: &[u8], err: DecodeError) -> bool {
    let ascii_before = |pos: usize| pos < input.len() && input[..pos].is_ascii();
    let hyphen_at = |pos: usize| [8, 13, 18, 23].contains(&pos);
    match err {
        DecodeError::Length(n) => input.is_ascii() && n == input.len() && n != TEXT_LEN,
        DecodeError::Character(pos) => {
            ascii_before(pos)
                && digit(input[pos]).is_none()
                && (input.len() != TEXT_LEN || input[..pos].iter().all(|&c| digit(c).is_some()))
        }
        DecodeError::Overflow => matches!(input.first().copied().and_then(digit), Some(8..)),
        DecodeError::HexLength(n) => {
            input.starts_with(b"\\x")
                && n == input.len() - 2
                && n != 32
                && input[2..].iter().all(|&c| hex(c))
        }
        DecodeError::HexDigit(pos) => {
            ascii_before(pos)
                && !hex(input[pos])
                && input.starts_with(b"\\x")
                && pos >= 2
                && input[2..pos].iter().all(|&c| hex(c))
        }
        DecodeError::UuidHexDigit(pos) => {
            ascii_before(pos)
                && !hex(input[pos])
                && input.contains(&b'-')
                && !(hyphen_at(pos) && input[pos] == b'-')
        }
        DecodeError::Hyphen(pos) => input[pos] == b'-' && !hyphen_at(pos),
        DecodeError::MissingHyphen(pos) => input[pos] != b'-' && hyphen_at(pos),
        DecodeError::UuidLength(n) => {
            input.is_ascii() && n == input.len() && n != UUID_TEXT_LEN && input.contains(&b'-')
        }
    }
}
