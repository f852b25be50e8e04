//! `decode` on arbitrary bytes: it accepts exactly the valid texts, and when
//! it refuses one, the error it names is really there.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ulid_fuzz::codec::{self, DecodeError, TEXT_LEN};
use ulid_fuzz::{check_value, digit};

fuzz_target!(|input: &[u8]| {
    let shown = String::from_utf8_lossy(input);
    match codec::decode(input) {
        Ok(bytes) => {
            assert!(is_valid(input), "accepted {shown:?}");
            assert_eq!(
                codec::encode(&bytes).to_vec(),
                input.to_ascii_uppercase(),
                "{shown:?} does not re-encode to itself"
            );
            check_value(&bytes);
        }
        Err(err) => {
            assert!(!is_valid(input), "rejected {shown:?} with {err:?}");
            assert!(is_consistent(input, err), "{shown:?} rejected with {err:?}");
        }
    }
});

/// The specification's definition, with no attempt at speed.
fn is_valid(input: &[u8]) -> bool {
    input.len() == TEXT_LEN
        && input.iter().all(|&c| digit(c).is_some())
        && matches!(digit(input[0]), Some(0..=7))
}

/// Whether `err` describes a problem `input` really has. Non-ASCII bytes are
/// never digits, so "not a digit" covers them too.
fn is_consistent(input: &[u8], err: DecodeError) -> bool {
    match err {
        DecodeError::Length(n) => input.is_ascii() && n == input.len() && n != TEXT_LEN,
        DecodeError::Character(pos) => {
            let before = &input[..pos.min(input.len())];
            pos < input.len()
                && digit(input[pos]).is_none()
                && before.is_ascii()
                && (input.len() != TEXT_LEN || before.iter().all(|&c| digit(c).is_some()))
        }
        DecodeError::Overflow => matches!(input.first().copied().and_then(digit), Some(8..)),
    }
}
