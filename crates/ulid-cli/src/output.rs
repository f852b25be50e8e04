//! Writing ids and times: the three texts of an id, a Unix millisecond as
//! an RFC 3339 time in UTC, and the buffered standard output every command
//! writes to.
//!
//! Each function appends to a byte buffer without allocating, so a command
//! that streams a million ids costs a copy per id, not an allocation.

use crate::cli::IdFormat;
use std::io::{self, Write};
use ulid_core::codec::{self, BYTES};

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Appends `value` in `format`.
#[inline]
pub fn push_id(out: &mut Vec<u8>, value: &[u8; BYTES], format: IdFormat) {
    match format {
        IdFormat::Ulid => out.extend_from_slice(&codec::encode(value)),
        IdFormat::Uuid => push_uuid(out, value),
        IdFormat::Hex => {
            out.extend_from_slice(b"\\x");
            push_hex(out, value);
        }
    }
}

/// Appends the bytes as lower-case hexadecimal digits.
#[inline]
pub fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    for &byte in bytes {
        out.extend_from_slice(&[
            HEX_DIGITS[usize::from(byte >> 4)],
            HEX_DIGITS[usize::from(byte & 15)],
        ]);
    }
}

/// Appends the UUID text, `8-4-4-4-12` lower-case hexadecimal digits, as
/// PostgreSQL prints a `uuid`.
#[inline]
pub fn push_uuid(out: &mut Vec<u8>, value: &[u8; BYTES]) {
    push_hex(out, &value[0..4]);
    out.push(b'-');
    push_hex(out, &value[4..6]);
    out.push(b'-');
    push_hex(out, &value[6..8]);
    out.push(b'-');
    push_hex(out, &value[8..10]);
    out.push(b'-');
    push_hex(out, &value[10..16]);
}

/// Appends a decimal number.
#[inline]
pub fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `n` with exactly `width` digits (it has no more).
#[inline]
fn push_padded(out: &mut Vec<u8>, n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut rest = n;
    for slot in digits[20 - width..].iter_mut().rev() {
        *slot = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&digits[20 - width..]);
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for days on or after the epoch).
#[inline]
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Appends the Unix millisecond `ms` as RFC 3339 in UTC with milliseconds,
/// `2025-01-01T12:00:00.000Z`. A ULID's times run to the year 10889, whose
/// year has five digits (as PostgreSQL prints it too).
#[inline]
pub fn push_time(out: &mut Vec<u8>, ms: u64) {
    let secs = ms / 1000;
    let (year, month, day) = civil_from_days(secs / 86_400);
    let of_day = secs % 86_400;
    push_padded(out, year, if year > 9999 { 5 } else { 4 });
    out.push(b'-');
    push_padded(out, month, 2);
    out.push(b'-');
    push_padded(out, day, 2);
    out.push(b'T');
    push_padded(out, of_day / 3600, 2);
    out.push(b':');
    push_padded(out, of_day / 60 % 60, 2);
    out.push(b':');
    push_padded(out, of_day % 60, 2);
    out.push(b'.');
    push_padded(out, ms % 1000, 3);
    out.push(b'Z');
}

/// Standard output, buffered: a command appends to `buf` and calls
/// `flush_if_full`, so output leaves in large writes.
pub struct Output<W: Write> {
    pub buf: Vec<u8>,
    sink: W,
}

/// About this much is written at a time.
const CHUNK: usize = 64 * 1024;

impl<W: Write> Output<W> {
    pub fn new(sink: W) -> Self {
        Output {
            buf: Vec::with_capacity(CHUNK + 1024),
            sink,
        }
    }

    /// Writes the buffer out once it holds a chunk.
    #[inline]
    pub fn flush_if_full(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes out everything buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            self.sink.write_all(&self.buf)?;
            self.buf.clear();
        }
        self.sink.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(ms: u64) -> String {
        let mut out = Vec::new();
        push_time(&mut out, ms);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn times_agree_with_jiff() {
        // jiff, a calendar implementation nobody here wrote, as the oracle
        let mut ms = 0u64;
        while ms <= codec::MAX_TIMESTAMP_MS {
            let expected = jiff::Timestamp::from_millisecond(ms as i64)
                .unwrap()
                .strftime("%Y-%m-%dT%H:%M:%S.%3fZ")
                .to_string();
            assert_eq!(time(ms), expected, "{ms}");
            ms += 9_876_543_211 + ms / 3;
        }
        assert_eq!(time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(time(1_735_689_600_000), "2025-01-01T00:00:00.000Z");
        assert_eq!(time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(time(codec::MAX_TIMESTAMP_MS), "10889-08-02T05:31:50.655Z");
    }

    #[test]
    fn the_three_texts() {
        let value = codec::decode(b"01JGFJJZ00XHF7E02JJ03AE4T7").unwrap();
        let text = |format| {
            let mut out = Vec::new();
            push_id(&mut out, &value, format);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(text(IdFormat::Ulid), "01JGFJJZ00XHF7E02JJ03AE4T7");
        assert_eq!(text(IdFormat::Uuid), "01941f29-7c00-ec5e-7700-529006a71347");
        assert_eq!(text(IdFormat::Hex), "\\x01941f297c00ec5e7700529006a71347");
    }

    #[test]
    fn decimals() {
        for n in [0, 7, 10, 1_735_689_600_000, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
