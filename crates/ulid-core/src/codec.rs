//! The ULID value itself: its 16-byte binary layout and its 26-character
//! Crockford base32 text form, exactly as the specification defines them,
//! and the two other texts of the same 128 bits that clients send: `\x` and
//! 32 hexadecimal digits (how drivers send a 16-byte buffer as text) and the
//! canonical UUID form (what a `uuid` column's clients already send).
//!
//! The SQL layer (the extension's `src/type_io.rs`) turns `DecodeError`
//! into PostgreSQL errors; generation of new values lives in `monotonic.rs`.
//!
//! Layout: bytes 0..6 hold the millisecond timestamp, big-endian; bytes
//! 6..16 hold the 80 random bits. Byte order, string order and time order
//! therefore agree, which is what lets the SQL type compare with `memcmp`.

/// Size of a ULID in bytes.
pub const BYTES: usize = 16;
/// Length of the canonical text form.
pub const TEXT_LEN: usize = 26;
/// Size of the random part in bytes (80 bits).
pub const RANDOM_BYTES: usize = 10;
/// The largest timestamp a ULID can hold: 2^48 - 1 ms, 10889-08-02 05:31:50.655 UTC.
pub const MAX_TIMESTAMP_MS: u64 = (1 << 48) - 1;

/// Crockford's base32 alphabet, in value order. It is also ASCII order, so
/// sorting the text sorts the values.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Marks a byte that is not a base32 digit in `DECODE`.
const INVALID: u8 = 0xFF;

/// Byte -> digit value, upper and lower case; `INVALID` elsewhere. The
/// letters I, L, O and U are rejected: the ULID specification excludes them
/// and a lenient decoder would let two strings name the same value.
static DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut value = 0;
    while value < ALPHABET.len() {
        let upper = ALPHABET[value];
        table[upper as usize] = value as u8;
        table[upper.to_ascii_lowercase() as usize] = value as u8;
        value += 1;
    }
    table
};

/// Length of the canonical UUID text, `8-4-4-4-12` hexadecimal digits.
pub const UUID_TEXT_LEN: usize = 36;

/// Offsets of the hyphens in the UUID text.
const UUID_HYPHENS: [usize; 4] = [8, 13, 18, 23];

/// Byte -> value of a hexadecimal digit, either case; `INVALID` elsewhere.
static HEX: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut value = 0;
    while value < 16 {
        let lower = b"0123456789abcdef"[value];
        table[lower as usize] = value as u8;
        table[lower.to_ascii_uppercase() as usize] = value as u8;
        value += 1;
    }
    table
};

/// Why a text could not be decoded. Each variant points at the first
/// problem found reading left to right; offsets are of bytes, and every
/// byte before the offset is ASCII, so an offset is also a character
/// position minus one, whatever the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// The text is plain ASCII but does not have 26 characters; holds the
    /// number it has.
    Length(usize),
    /// The byte at this offset (0-based) does not start a base32 digit. The
    /// bytes before it are all ASCII, so the offset is also the character
    /// position minus one, whatever the encoding.
    Character(usize),
    /// The first character is a digit above `7`: the value would need more
    /// than 128 bits. Decoders that truncate instead silently alias values.
    Overflow,
    /// The `\x` form, plain ASCII hexadecimal digits but not 32 of them;
    /// holds the number it has.
    HexLength(usize),
    /// The `\x` form: the byte at this offset is not a hexadecimal digit.
    HexDigit(usize),
    /// The UUID form: the byte at this offset is neither a hexadecimal
    /// digit nor a hyphen (braces, for one, are not read).
    UuidHexDigit(usize),
    /// The UUID form: a hyphen at this offset, where a digit belongs.
    Hyphen(usize),
    /// The UUID form: no hyphen at this offset, where one belongs.
    MissingHyphen(usize),
    /// The UUID form, hyphens and digits in place but not 36 characters of
    /// plain ASCII; holds the number of bytes.
    UuidLength(usize),
}

impl DecodeError {
    /// The message of the type's input error for `text`, PostgreSQL's
    /// usual words for a text a type cannot read, with the text as given.
    pub fn message(text: &[u8]) -> String {
        format!(
            "invalid input syntax for type ulid: \"{}\"",
            String::from_utf8_lossy(text)
        )
    }

    /// What is wrong with `text`, for which `parse` returned this error, in
    /// one sentence: the DETAIL of the type's input error, and what the
    /// command-line tool says of a bad id.
    pub fn detail(&self, text: &[u8]) -> String {
        match *self {
            DecodeError::Length(found) => format!("Expected {TEXT_LEN} characters, found {found}."),
            DecodeError::Character(pos) => format!(
                "Invalid character {} at position {}.",
                show_character(&text[pos..]),
                pos + 1
            ),
            DecodeError::Overflow => format!(
                "The first character is {}, above \"7\": the value would not fit in 128 bits.",
                show_character(text)
            ),
            DecodeError::HexLength(found) => {
                format!("Expected 32 hexadecimal digits after \"\\x\", found {found}.")
            }
            DecodeError::HexDigit(pos) | DecodeError::UuidHexDigit(pos) => format!(
                "Invalid hexadecimal digit {} at position {}.",
                show_character(&text[pos..]),
                pos + 1
            ),
            DecodeError::Hyphen(pos) => format!("Unexpected hyphen at position {}.", pos + 1),
            DecodeError::MissingHyphen(pos) => format!(
                "Expected a hyphen at position {}, found {}.",
                pos + 1,
                show_character(&text[pos..])
            ),
            DecodeError::UuidLength(found) => {
                format!("Expected {UUID_TEXT_LEN} characters in the UUID form, found {found}.")
            }
        }
    }

    /// What to write instead, for the common mistakes: the HINT of the
    /// type's input error.
    pub fn hint(&self) -> Option<&'static str> {
        const FORMS: &str = "A ulid is written as 26 Crockford base32 characters, as \\x and 32 \
                             hexadecimal digits, or as a UUID (8-4-4-4-12 hexadecimal digits).";
        const UUID_FORM: &str = "The UUID form is 8-4-4-4-12 hexadecimal digits.";
        match self {
            DecodeError::Length(_) => Some(FORMS),
            DecodeError::Character(_) => Some(
                "A ULID uses Crockford's base32: the digits and the letters A to Z except I, L, O and U.",
            ),
            DecodeError::Hyphen(_)
            | DecodeError::MissingHyphen(_)
            | DecodeError::UuidLength(_)
            | DecodeError::UuidHexDigit(_) => Some(UUID_FORM),
            DecodeError::Overflow | DecodeError::HexLength(_) | DecodeError::HexDigit(_) => None,
        }
    }
}

/// The character starting `rest`, quoted, with control characters escaped.
fn show_character(rest: &[u8]) -> String {
    let len = match rest[0] {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
    .min(rest.len());
    let shown = String::from_utf8_lossy(&rest[..len]);
    format!("\"{}\"", shown.escape_debug())
}

/// Reads any of the three texts of a ULID:
/// - 26 Crockford base32 characters, either case (the canonical form);
/// - `\x` and 32 hexadecimal digits, either case: PostgreSQL's `bytea` hex
///   text, which drivers send for a 16-byte buffer;
/// - the 36-character UUID text, `8-4-4-4-12` hexadecimal digits, either
///   case: what clients of a former `uuid` column send.
///
/// No other spelling is read (no braces, no UUID without hyphens): each form
/// is recognised by its first characters, its length or its hyphens, so no
/// text can mean two different values.
#[inline]
pub fn parse(text: &[u8]) -> Result<[u8; BYTES], DecodeError> {
    match text {
        [b'\\', b'x', hex @ ..] => decode_hex(hex).map_err(|err| match err {
            DecodeError::HexDigit(pos) => DecodeError::HexDigit(pos + 2),
            other => other,
        }),
        _ if text.len() == TEXT_LEN => decode(text),
        _ if text.contains(&b'-') => decode_uuid(text),
        _ => decode(text),
    }
}

/// 32 hexadecimal digits, most significant first.
fn decode_hex(digits: &[u8]) -> Result<[u8; BYTES], DecodeError> {
    if let Some(pos) = digits.iter().position(|&c| HEX[c as usize] == INVALID) {
        return Err(DecodeError::HexDigit(pos));
    }
    if digits.len() != 2 * BYTES {
        return Err(DecodeError::HexLength(digits.len()));
    }
    let mut out = [0u8; BYTES];
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = (HEX[pair[0] as usize] << 4) | HEX[pair[1] as usize];
    }
    Ok(out)
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hexadecimal digits either case.
fn decode_uuid(text: &[u8]) -> Result<[u8; BYTES], DecodeError> {
    let mut digits = [0u8; 2 * BYTES];
    let mut n = 0;
    for (pos, &c) in text.iter().enumerate().take(UUID_TEXT_LEN) {
        if UUID_HYPHENS.contains(&pos) {
            if c != b'-' {
                return Err(DecodeError::MissingHyphen(pos));
            }
        } else if c == b'-' {
            return Err(DecodeError::Hyphen(pos));
        } else if HEX[c as usize] == INVALID {
            return Err(DecodeError::UuidHexDigit(pos));
        } else {
            digits[n] = c;
            n += 1;
        }
    }
    if text.len() != UUID_TEXT_LEN {
        // counting bytes would count a multi-byte character as several: name it
        return Err(match text.iter().position(|c| !c.is_ascii()) {
            Some(pos) => DecodeError::UuidHexDigit(pos),
            None => DecodeError::UuidLength(text.len()),
        });
    }
    decode_hex(&digits)
}

/// Encodes 16 bytes as 26 upper-case base32 characters.
#[inline]
pub fn encode(bytes: &[u8; BYTES]) -> [u8; TEXT_LEN] {
    // The first 10 characters carry 50 bits (two zero bits and the 48-bit
    // timestamp), the last 16 carry the 80 random bits as two 40-bit halves;
    // every group fits a u64, which keeps the shifts cheap.
    let head = u64::from_be_bytes([
        0, 0, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5],
    ]);
    let middle = u64::from_be_bytes([0, 0, 0, bytes[6], bytes[7], bytes[8], bytes[9], bytes[10]]);
    let tail = u64::from_be_bytes([
        0, 0, 0, bytes[11], bytes[12], bytes[13], bytes[14], bytes[15],
    ]);
    let mut out = [0u8; TEXT_LEN];
    put_digits(&mut out[0..10], head);
    put_digits(&mut out[10..18], middle);
    put_digits(&mut out[18..26], tail);
    out
}

#[inline(always)]
fn put_digits(out: &mut [u8], group: u64) {
    let last = out.len() - 1;
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = ALPHABET[((group >> (5 * (last - i))) & 31) as usize];
    }
}

/// Decodes a 26-character base32 text (either case) into 16 bytes.
#[inline]
pub fn decode(text: &[u8]) -> Result<[u8; BYTES], DecodeError> {
    let Ok(digits) = <&[u8; TEXT_LEN]>::try_from(text) else {
        return Err(locate_error(text));
    };
    let mut seen = 0u8;
    let mut group = |range: std::ops::Range<usize>| {
        let mut value = 0u64;
        for &c in &digits[range] {
            let d = DECODE[c as usize];
            seen |= d;
            value = (value << 5) | u64::from(d & 31);
        }
        value
    };
    let head = group(0..10);
    let middle = group(10..18);
    let tail = group(18..26);
    // `seen` collects every digit's bits: an INVALID marker sets the high
    // bits, and a first digit above 7 is the only way `head` passes 50 bits.
    if seen & !31 != 0 || head >> 48 != 0 {
        return Err(locate_error(text));
    }
    let mut out = [0u8; BYTES];
    out[0..6].copy_from_slice(&head.to_be_bytes()[2..8]);
    out[6..11].copy_from_slice(&middle.to_be_bytes()[3..8]);
    out[11..16].copy_from_slice(&tail.to_be_bytes()[3..8]);
    Ok(out)
}

/// The slow path of `decode`: name the first problem, reading left to right.
/// A text of the wrong length is reported by its length, unless it holds a
/// non-ASCII character: counting bytes would then count one character as
/// several, so the first bad character is named instead.
#[cold]
fn locate_error(text: &[u8]) -> DecodeError {
    // non-ASCII bytes are INVALID in the table too
    let first_bad = text.iter().position(|&c| DECODE[c as usize] == INVALID);
    if text.len() != TEXT_LEN {
        return match first_bad {
            Some(pos) if !text.is_ascii() => DecodeError::Character(pos),
            _ => DecodeError::Length(text.len()),
        };
    }
    if DECODE[text[0] as usize] > 7 && DECODE[text[0] as usize] != INVALID {
        return DecodeError::Overflow;
    }
    match first_bad {
        Some(pos) => DecodeError::Character(pos),
        None => unreachable!("locate_error called on valid text"),
    }
}

/// The millisecond timestamp held in the first 48 bits.
#[inline]
pub fn timestamp_ms(bytes: &[u8; BYTES]) -> u64 {
    u64::from_be_bytes([
        0, 0, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5],
    ])
}

/// Builds a ULID from a timestamp (at most `MAX_TIMESTAMP_MS`) and 80 random bits.
#[inline]
pub fn from_parts(timestamp_ms: u64, random: &[u8; RANDOM_BYTES]) -> [u8; BYTES] {
    debug_assert!(timestamp_ms <= MAX_TIMESTAMP_MS);
    let mut out = [0u8; BYTES];
    out[0..6].copy_from_slice(&timestamp_ms.to_be_bytes()[2..8]);
    out[6..16].copy_from_slice(random);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The 2025-01-01 example of the specification in its other two forms
    /// (tests/vectors/ulid.json holds it and its readings).
    const SPEC_HEX: &[u8] = b"\\x01941f297c00ec5e7700529006a71347";
    const SPEC_UUID: &[u8] = b"01941f29-7c00-ec5e-7700-529006a71347";

    #[test]
    fn hex_form_errors() {
        let digits = &SPEC_HEX[2..];
        let with = |d: &[u8]| [&b"\\x"[..], d].concat();
        assert_eq!(parse(&with(&digits[..31])), Err(DecodeError::HexLength(31)));
        assert_eq!(
            parse(&with(&[digits, b"0"].concat())),
            Err(DecodeError::HexLength(33))
        );
        assert_eq!(parse(b"\\x"), Err(DecodeError::HexLength(0)));
        assert_eq!(parse(b"\\"), Err(DecodeError::Length(1)));
        let mut bad = with(digits);
        bad[7] = b'g';
        assert_eq!(parse(&bad), Err(DecodeError::HexDigit(7)));
        // a bad digit is named before a wrong count
        assert_eq!(parse(&with(b"0g")), Err(DecodeError::HexDigit(3)));
        assert_eq!(
            parse(&with(b"01941f29-7c00")),
            Err(DecodeError::HexDigit(10))
        );
        assert_eq!(parse("\\x0é".as_bytes()), Err(DecodeError::HexDigit(3)));
        // bytea's escape format is not read
        assert_eq!(parse(b"\\001\\224"), Err(DecodeError::Length(8)));
    }

    #[test]
    fn uuid_form_errors() {
        let mut bad = SPEC_UUID.to_vec();
        bad.swap(8, 9);
        assert_eq!(parse(&bad), Err(DecodeError::MissingHyphen(8)));
        let mut bad = SPEC_UUID.to_vec();
        bad[8] = b'_';
        assert_eq!(parse(&bad), Err(DecodeError::MissingHyphen(8)));
        assert_eq!(
            parse(b"01941f2-97c00-ec5e-7700-529006a71347"),
            Err(DecodeError::Hyphen(7))
        );
        let mut bad = SPEC_UUID.to_vec();
        bad[35] = b'g';
        assert_eq!(parse(&bad), Err(DecodeError::UuidHexDigit(35)));
        assert_eq!(parse(&SPEC_UUID[..35]), Err(DecodeError::UuidLength(35)));
        assert_eq!(
            parse(&[SPEC_UUID, b"0"].concat()),
            Err(DecodeError::UuidLength(37))
        );
        assert_eq!(
            parse(&[SPEC_UUID, "é".as_bytes()].concat()),
            Err(DecodeError::UuidHexDigit(36))
        );
        // braces and the form without hyphens are not read
        assert_eq!(
            parse(b"{01941f29-7c00-ec5e-7700-529006a71347}"),
            Err(DecodeError::UuidHexDigit(0))
        );
        assert_eq!(
            parse(b"01941f297c00ec5e7700529006a71347"),
            Err(DecodeError::Length(32))
        );
        // 26 characters with a hyphen are read as a ULID text
        assert_eq!(
            parse(b"01941f29-7c00-ec5e-7700-52"),
            Err(DecodeError::Character(8))
        );
    }

    fn text(bytes: &[u8; BYTES]) -> String {
        String::from_utf8(encode(bytes).to_vec()).unwrap()
    }

    #[test]
    fn first_character_above_seven_overflows() {
        for first in "89ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz".chars() {
            let input = format!("{first}0000000000000000000000000");
            assert_eq!(
                decode(input.as_bytes()),
                Err(DecodeError::Overflow),
                "{input}"
            );
        }
        assert_eq!(
            decode(b"80000000000000000000000000"),
            Err(DecodeError::Overflow)
        );
    }

    #[test]
    fn lower_case_is_accepted() {
        assert_eq!(
            decode(b"01jgfjjz00xhf7e02jj03ae4t7"),
            decode(b"01JGFJJZ00XHF7E02JJ03AE4T7")
        );
        assert_eq!(
            text(&decode(b"7zzzzzzzzzzzzzzzzzzzzzzzzz").unwrap()),
            "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
        );
    }

    #[test]
    fn excluded_letters_are_rejected_wherever_they_are() {
        for letter in "ILOUilou".chars() {
            for pos in [0, 1, 9, 10, 17, 25] {
                let mut input = *b"01JGFJJZ00XHF7E02JJ03AE4T7";
                input[pos] = letter as u8;
                assert_eq!(
                    decode(&input),
                    Err(DecodeError::Character(pos)),
                    "{letter} at {pos}"
                );
            }
        }
    }

    #[test]
    fn lengths_and_non_ascii() {
        assert_eq!(decode(b""), Err(DecodeError::Length(0)));
        assert_eq!(
            decode(b"0000000000000000000000000"),
            Err(DecodeError::Length(25))
        );
        assert_eq!(
            decode(b"000000000000000000000000000"),
            Err(DecodeError::Length(27))
        );
        assert_eq!(
            decode(" 01JGFJJZ00XHF7E02JJ03AE4T7".as_bytes()),
            Err(DecodeError::Length(27))
        );
        assert_eq!(
            decode(" 1JGFJJZ00XHF7E02JJ03AE4T7".as_bytes()),
            Err(DecodeError::Character(0))
        );
        // 26 bytes, 25 characters: the multi-byte character is named, not the length.
        assert_eq!(
            decode("01JGFJJZ00XHF7E02JJ03AE4é".as_bytes()),
            Err(DecodeError::Character(24))
        );
        assert_eq!(decode("é".as_bytes()), Err(DecodeError::Character(0)));
        assert_eq!(
            decode(b"0000000000000000000000000\0"),
            Err(DecodeError::Character(25))
        );
        assert_eq!(
            decode(&vec![b'0'; 1 << 20]),
            Err(DecodeError::Length(1 << 20))
        );
    }

    #[test]
    fn a_multi_byte_character_does_not_hide_an_earlier_problem() {
        // 26 bytes, 25 characters: the earlier problem is the one named
        assert_eq!(
            decode("U00000000000000000000000é".as_bytes()),
            Err(DecodeError::Character(0))
        );
        assert_eq!(
            decode("0I0000000000000000000000é".as_bytes()),
            Err(DecodeError::Character(1))
        );
        assert_eq!(
            decode("800000000000000000000000é".as_bytes()),
            Err(DecodeError::Overflow)
        );
        // the wrong length with a multi-byte character: the first bad character
        assert_eq!(decode("0U€".as_bytes()), Err(DecodeError::Character(1)));
        assert_eq!(decode("00€".as_bytes()), Err(DecodeError::Character(2)));
    }

    #[test]
    fn error_order_is_left_to_right() {
        // an overflowing first digit comes before a bad character later on
        assert_eq!(
            decode(b"8000U000000000000000000000"),
            Err(DecodeError::Overflow)
        );
        // a bad first character is a bad character, not an overflow
        assert_eq!(
            decode(b"U0000000000000000000000000"),
            Err(DecodeError::Character(0))
        );
    }

    /// Every byte value that is not a base32 digit in either case.
    fn not_a_digit() -> impl Strategy<Value = u8> {
        let bytes: Vec<u8> = (0..=255u8)
            .filter(|b| !ALPHABET.contains(&b.to_ascii_uppercase()))
            .collect();
        assert_eq!(
            bytes.len(),
            256 - 32 - 22,
            "the 22 lower-case letters decode too"
        );
        proptest::sample::select(bytes)
    }

    fn any_bytes() -> impl Strategy<Value = [u8; 16]> {
        any::<u128>().prop_map(u128::to_be_bytes)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn round_trip(bytes in any_bytes()) {
            prop_assert_eq!(decode(&encode(&bytes)), Ok(bytes));
        }

        #[test]
        fn lower_case_round_trip(bytes in any_bytes()) {
            let lower = encode(&bytes).to_ascii_lowercase();
            prop_assert_eq!(decode(&lower), Ok(bytes));
        }

        #[test]
        fn text_order_is_byte_order(a in any_bytes(), b in any_bytes()) {
            prop_assert_eq!(encode(&a).cmp(&encode(&b)), a.cmp(&b));
        }

        #[test]
        fn timestamp_survives(ms in 0..=MAX_TIMESTAMP_MS, random in any::<[u8; 10]>()) {
            let value = from_parts(ms, &random);
            prop_assert_eq!(timestamp_ms(&value), ms);
            prop_assert_eq!(&value[6..], &random[..]);
        }

        #[test]
        fn matches_the_reference_implementation(bytes in any_bytes()) {
            let reference = oracle::Ulid(u128::from_be_bytes(bytes));
            prop_assert_eq!(text(&bytes), reference.to_string());
            prop_assert_eq!(
                oracle::Ulid::from_string(&text(&bytes)).unwrap().0.to_be_bytes(),
                bytes
            );
            prop_assert_eq!(timestamp_ms(&bytes), reference.timestamp_ms());
        }

        #[test]
        fn valid_text_from_the_reference_decodes_alike(value in any::<u128>()) {
            let s = oracle::Ulid(value).to_string();
            prop_assert_eq!(decode(s.as_bytes()), Ok(value.to_be_bytes()));
        }

        /// Any string that is not exactly a valid ULID text is rejected, and
        /// whatever is accepted re-encodes to its canonical form.
        #[test]
        fn arbitrary_text_is_rejected_or_canonical(input in proptest::collection::vec(any::<u8>(), 0..40)) {
            match decode(&input) {
                Ok(bytes) => prop_assert_eq!(encode(&bytes).to_vec(), input.to_ascii_uppercase()),
                Err(err) => prop_assert!(!is_valid_by_definition(&input), "{:?} rejected: {:?}", input, err),
            }
        }

        #[test]
        fn hex_and_uuid_forms_match_the_reference(value in any::<u128>()) {
            let reference = oracle::Ulid(value);
            let hex = format!("\\x{value:032x}");
            let uuid = uuid_text(value);
            prop_assert_eq!(parse(hex.as_bytes()), Ok(value.to_be_bytes()));
            prop_assert_eq!(parse(uuid.as_bytes()), Ok(value.to_be_bytes()));
            prop_assert_eq!(text(&parse(uuid.as_bytes()).unwrap()), reference.to_string());
        }

        /// Whatever `parse` accepts is one of the three forms of its value.
        #[test]
        fn parse_accepts_only_the_three_forms(input in proptest::collection::vec(any::<u8>(), 0..40)) {
            if let Ok(bytes) = parse(&input) {
                let value = u128::from_be_bytes(bytes);
                let upper = input.to_ascii_uppercase();
                let forms = [
                    encode(&bytes).to_vec(),
                    format!("\\X{value:032X}").into_bytes(),
                    uuid_text(value).into_bytes(),
                ];
                prop_assert!(forms.contains(&upper), "{:?}", input);
            }
        }

        /// Mutating one character of a valid text into anything outside the
        /// alphabet is rejected at that position.
        #[test]
        fn one_bad_character_is_found(bytes in any_bytes(), pos in 1..TEXT_LEN, bad in not_a_digit()) {
            let mut input = encode(&bytes);
            input[pos] = bad;
            prop_assert_eq!(decode(&input), Err(DecodeError::Character(pos)));
        }
    }

    /// The canonical UUID text of a value, upper case.
    fn uuid_text(value: u128) -> String {
        let h = format!("{value:032X}");
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    }

    /// The definition, spelled out as simply as possible.
    fn is_valid_by_definition(input: &[u8]) -> bool {
        input.len() == TEXT_LEN
            && input
                .iter()
                .all(|c| ALPHABET.contains(&c.to_ascii_uppercase()))
            && (b'0'..=b'7').contains(&input[0])
    }
}
