//! Reading a time given on the command line: RFC 3339 with any UTC offset
//! (read by jiff), psql's own `2025-01-01 12:00:00+00` included, or a count
//! of Unix milliseconds. Either way the result is the Unix millisecond the
//! instant falls in, as `gen_ulid(timestamptz)` and `timestamptz::ulid`
//! take it, and a time no ULID can hold is refused in the type's words.

use std::str::FromStr;
use ulid_core::codec::MAX_TIMESTAMP_MS;
use ulid_core::time::OutOfRange;

/// The Unix millisecond of `text`, or what is wrong with it.
pub fn parse_time(text: &str) -> Result<u64, String> {
    let out_of_range = || format!("{}: {}", OutOfRange.message(), OutOfRange.detail());
    let text = text.trim();
    // PostgreSQL's infinite timestamps are times too, and no ULID holds them
    if matches!(
        text.to_ascii_lowercase().as_str(),
        "infinity" | "+infinity" | "-infinity"
    ) {
        return Err(out_of_range());
    }
    if !text.is_empty() && text.bytes().all(|c| c.is_ascii_digit()) {
        return match text.parse::<u64>() {
            Ok(ms) if ms <= MAX_TIMESTAMP_MS => Ok(ms),
            _ => Err(out_of_range()),
        };
    }
    let instant = jiff::Timestamp::from_str(text).map_err(|err| {
        format!(
            "invalid time {:?}: expected RFC 3339 (2025-01-01T12:00:00Z) or Unix milliseconds ({err})",
            text
        )
    })?;
    if instant < jiff::Timestamp::UNIX_EPOCH {
        return Err(out_of_range());
    }
    // on or after the epoch, truncation is the millisecond the instant is in
    let ms = u64::try_from(instant.as_millisecond()).map_err(|_| out_of_range())?;
    if ms > MAX_TIMESTAMP_MS {
        return Err(out_of_range());
    }
    Ok(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_of_a_time() {
        let ms = 1_735_732_800_000; // 2025-01-01 12:00:00 UTC
        for text in [
            "2025-01-01T12:00:00Z",
            "2025-01-01t12:00:00z",
            "2025-01-01T13:00:00+01:00",
            "2025-01-01 12:00:00+00",
            "2025-01-01 12:00:00+00:00",
            "2025-01-01T12:00:00.000999Z",
            "1735732800000",
            " 1735732800000\n",
        ] {
            assert_eq!(parse_time(text), Ok(ms), "{text}");
        }
        assert_eq!(parse_time("2025-01-01T12:00:00.250Z"), Ok(ms + 250));
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse_time("0"), Ok(0));
        assert_eq!(parse_time("281474976710655"), Ok(MAX_TIMESTAMP_MS));
    }

    #[test]
    fn times_no_ulid_holds() {
        for text in [
            "1969-12-31T23:59:59.999Z",
            "1969-12-31T23:59:59.9999Z",
            "281474976710656",
            "99999999999999999999999",
        ] {
            let err = parse_time(text).unwrap_err();
            assert!(
                err.starts_with("timestamp out of range for ulid: A ULID holds times"),
                "{text}: {err}"
            );
        }
        for text in [
            "",
            "yesterday",
            "2025-01-01",
            "2025-01-01T12:00:00",
            "-5",
            "12:00",
        ] {
            let err = parse_time(text).unwrap_err();
            assert!(err.starts_with("invalid time"), "{text}: {err}");
        }
    }
}
