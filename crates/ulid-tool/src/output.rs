//! Writing ids and times: the three texts of an id, a Unix millisecond as
//! an RFC 3339 time in UTC, and the buffered standard output every command
//! writes to.
//!
//! Each function appends to a byte buffer without allocating, so a command
//! that streams a million ids costs a copy per id, not an allocation.

use crate::cli::IdFormat;
use std::io::{self, Write};
use ulid_core::codec::{self, BYTES};

/// The two lower-case hexadecimal digits of every byte.
static HEX_PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut table = [[0; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = [DIGITS[byte >> 4], DIGITS[byte & 15]];
        byte += 1;
    }
    table
};

/// The two decimal digits of every number below 100.
static DECIMAL_PAIRS: [[u8; 2]; 100] = {
    let mut table = [[0; 2]; 100];
    let mut n = 0;
    while n < 100 {
        table[n] = [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
        n += 1;
    }
    table
};

/// Writes `bytes` as hexadecimal digits into `dst`, twice as long.
#[inline]
fn hex_into(dst: &mut [u8], bytes: &[u8]) {
    for (pair, &byte) in dst.chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&HEX_PAIRS[usize::from(byte)]);
    }
}

/// The bytes as lower-case hexadecimal digits, `N` being twice their number.
#[inline]
pub fn hex_text<const N: usize>(bytes: &[u8]) -> [u8; N] {
    debug_assert_eq!(2 * bytes.len(), N);
    let mut out = [0; N];
    hex_into(&mut out, bytes);
    out
}

/// The UUID text, `8-4-4-4-12` lower-case hexadecimal digits, as
/// PostgreSQL prints a `uuid`.
#[inline]
pub fn uuid_text(value: &[u8; BYTES]) -> [u8; 36] {
    let mut out = [b'-'; 36];
    hex_into(&mut out[0..8], &value[0..4]);
    hex_into(&mut out[9..13], &value[4..6]);
    hex_into(&mut out[14..18], &value[6..8]);
    hex_into(&mut out[19..23], &value[8..10]);
    hex_into(&mut out[24..36], &value[10..16]);
    out
}

/// `\x` and 32 lower-case hexadecimal digits, as PostgreSQL prints a `bytea`.
#[inline]
pub fn bytea_text(value: &[u8; BYTES]) -> [u8; 34] {
    let mut out = [0; 34];
    out[0..2].copy_from_slice(b"\\x");
    hex_into(&mut out[2..], value);
    out
}

/// Appends `value` in `format`.
#[inline]
pub fn push_id(out: &mut Vec<u8>, value: &[u8; BYTES], format: IdFormat) {
    match format {
        IdFormat::Ulid => out.extend_from_slice(&codec::encode(value)),
        IdFormat::Uuid => out.extend_from_slice(&uuid_text(value)),
        IdFormat::Hex => out.extend_from_slice(&bytea_text(value)),
    }
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

/// The length of `time_text` for a millisecond: 24, or 25 from the year
/// 10000 on.
pub const TIME_LEN: usize = 25;

/// The Unix millisecond `ms` as RFC 3339 in UTC with milliseconds,
/// `2025-01-01T12:00:00.000Z`, and its length. A ULID's times run to the
/// year 10889, whose year has five digits (as PostgreSQL prints it too).
#[inline]
pub fn time_text(ms: u64) -> ([u8; TIME_LEN], usize) {
    let secs = ms / 1000;
    let (year, month, day) = civil_from_days(secs / 86_400);
    let of_day = secs % 86_400;
    let mut out = *b"0000-00-00T00:00:00.000Z ";
    let pair = |n: u64| DECIMAL_PAIRS[n as usize];
    // a fifth digit of the year shifts the rest by one
    let at = usize::from(year > 9999);
    if at == 1 {
        out.copy_within(4..24, 5);
        out[0] = b'0' + (year / 10_000) as u8;
    }
    out[at..at + 2].copy_from_slice(&pair(year / 100 % 100));
    out[at + 2..at + 4].copy_from_slice(&pair(year % 100));
    out[at + 5..at + 7].copy_from_slice(&pair(month));
    out[at + 8..at + 10].copy_from_slice(&pair(day));
    out[at + 11..at + 13].copy_from_slice(&pair(of_day / 3600));
    out[at + 14..at + 16].copy_from_slice(&pair(of_day / 60 % 60));
    out[at + 17..at + 19].copy_from_slice(&pair(of_day % 60));
    let millis = ms % 1000;
    out[at + 20] = b'0' + (millis / 100) as u8;
    out[at + 21..at + 23].copy_from_slice(&pair(millis % 100));
    (out, 24 + at)
}

/// Appends the Unix millisecond `ms` as `time_text` writes it.
#[inline]
pub fn push_time(out: &mut Vec<u8>, ms: u64) {
    let (text, len) = time_text(ms);
    out.extend_from_slice(&text[..len]);
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
