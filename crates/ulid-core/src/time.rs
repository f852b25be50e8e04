//! Time arithmetic between PostgreSQL's `timestamptz` (microseconds since
//! 2000-01-01 UTC, with `-infinity` and `infinity` at the ends of `i64`) and
//! the Unix milliseconds in a ULID's first 48 bits.

use crate::codec::MAX_TIMESTAMP_MS;

/// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp epoch.
const POSTGRES_EPOCH_UNIX_US: i64 = 946_684_800_000_000;

/// What times a ULID holds, in one sentence: the DETAIL of the error for
/// any other.
pub const RANGE_DETAIL: &str = "A ULID holds times from 1970-01-01 00:00:00 UTC to \
    10889-08-02 05:31:50.655 UTC, to the millisecond; infinite timestamps have no ULID.";

/// The message of the error for a time no ULID holds.
pub const RANGE_MESSAGE: &str = "timestamp out of range for ulid";

/// A timestamptz that no ULID can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfRange;

impl OutOfRange {
    /// The error's message (SQLSTATE 22008 in the extension).
    pub fn message(&self) -> &'static str {
        RANGE_MESSAGE
    }

    /// The DETAIL: what times a ULID holds.
    pub fn detail(&self) -> &'static str {
        RANGE_DETAIL
    }
}

/// The Unix millisecond of a `timestamptz` (microseconds since 2000-01-01
/// UTC), truncated toward the past: the millisecond the instant falls in.
pub fn unix_ms_from_timestamptz(us: i64) -> Result<u64, OutOfRange> {
    // -infinity and infinity are i64::MIN and i64::MAX
    if us == i64::MIN || us == i64::MAX {
        return Err(OutOfRange);
    }
    let unix_ms = (i128::from(us) + i128::from(POSTGRES_EPOCH_UNIX_US)).div_euclid(1000);
    u64::try_from(unix_ms)
        .ok()
        .filter(|&ms| ms <= MAX_TIMESTAMP_MS)
        .ok_or(OutOfRange)
}

/// The `timestamptz` of a Unix millisecond; every ULID timestamp fits.
pub fn timestamptz_from_unix_ms(ms: u64) -> i64 {
    (ms as i64) * 1000 - POSTGRES_EPOCH_UNIX_US
}

#[cfg(test)]
mod tests {
    use super::*;

    const Y2025_US: i64 = 1_735_689_600_000_000 - POSTGRES_EPOCH_UNIX_US;

    #[test]
    fn milliseconds_of_timestamps() {
        assert_eq!(unix_ms_from_timestamptz(Y2025_US), Ok(1_735_689_600_000));
        assert_eq!(
            unix_ms_from_timestamptz(Y2025_US + 999),
            Ok(1_735_689_600_000)
        );
        assert_eq!(
            unix_ms_from_timestamptz(Y2025_US + 1000),
            Ok(1_735_689_600_001)
        );
        // before a millisecond boundary: truncated toward the past, not toward zero
        assert_eq!(unix_ms_from_timestamptz(-POSTGRES_EPOCH_UNIX_US + 1), Ok(0));
        assert_eq!(unix_ms_from_timestamptz(-POSTGRES_EPOCH_UNIX_US), Ok(0));
        assert_eq!(unix_ms_from_timestamptz(-1), Ok(946_684_799_999));
        assert_eq!(
            unix_ms_from_timestamptz(-POSTGRES_EPOCH_UNIX_US - 1),
            Err(OutOfRange)
        );
    }

    #[test]
    fn the_range_ends_in_10889() {
        let last = timestamptz_from_unix_ms(MAX_TIMESTAMP_MS);
        assert_eq!(unix_ms_from_timestamptz(last), Ok(MAX_TIMESTAMP_MS));
        assert_eq!(unix_ms_from_timestamptz(last + 999), Ok(MAX_TIMESTAMP_MS));
        assert_eq!(unix_ms_from_timestamptz(last + 1000), Err(OutOfRange));
        assert_eq!(unix_ms_from_timestamptz(i64::MAX), Err(OutOfRange));
        assert_eq!(unix_ms_from_timestamptz(i64::MIN), Err(OutOfRange));
        assert_eq!(unix_ms_from_timestamptz(i64::MAX - 1), Err(OutOfRange));
        assert_eq!(unix_ms_from_timestamptz(i64::MIN + 1), Err(OutOfRange));
    }

    #[test]
    fn round_trip_every_representable_millisecond_sample() {
        for ms in (0..=MAX_TIMESTAMP_MS).step_by(9_999_991_234) {
            assert_eq!(
                unix_ms_from_timestamptz(timestamptz_from_unix_ms(ms)),
                Ok(ms)
            );
        }
    }
}
