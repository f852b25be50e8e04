//! What the fuzz targets share. The codec is `ulid-core`'s, the very crate
//! the extension is built on, so the fuzzed code is exactly the shipped code.

pub use ulid_core::codec;

use codec::{BYTES, RANDOM_BYTES};

/// Crockford's base32 alphabet, written out again rather than taken from the
/// codec so that the checks do not share a mistake with it.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The value of a base32 digit, either case.
pub fn digit(c: u8) -> Option<u8> {
    let upper = c.to_ascii_uppercase();
    ALPHABET.iter().position(|&a| a == upper).map(|d| d as u8)
}

/// What must hold for every 16-byte value, wherever it came from.
pub fn check_value(bytes: &[u8; BYTES]) {
    let ms = codec::timestamp_ms(bytes);
    assert_eq!(
        u128::from(ms),
        u128::from_be_bytes(*bytes) >> 80,
        "timestamp_ms of {bytes:02x?}"
    );
    assert!(ms <= codec::MAX_TIMESTAMP_MS);
    let random: &[u8; RANDOM_BYTES] = bytes[6..].try_into().unwrap();
    assert_eq!(&codec::from_parts(ms, random), bytes, "from_parts");

    let text = codec::encode(bytes);
    let shown = String::from_utf8_lossy(&text);
    assert!(
        matches!(text[0], b'0'..=b'7'),
        "{bytes:02x?} encodes as {shown}"
    );
    assert!(
        text.iter()
            .all(|&c| digit(c).is_some() && !c.is_ascii_lowercase()),
        "{bytes:02x?} encodes as {shown}"
    );
    assert_eq!(codec::decode(&text), Ok(*bytes), "decoding {shown}");
    assert_eq!(
        codec::decode(&text.to_ascii_lowercase()),
        Ok(*bytes),
        "decoding lower-case {shown}"
    );
}
