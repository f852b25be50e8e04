//! The commands of a well-known article on ULID command-line tools, run
//! exactly as it writes them (with `ulid-tool` for its `ulid-cli`), comments and
//! all, by bash with the binary first in PATH; then `ulid-tool bounds`, which
//! took over the range bound `from-time` used to print. Each result is
//! checked against a reading of the ULID text written here (Crockford
//! base32 to a 128-bit number) and jiff's calendar, not the tool's codec.

use std::process::Output;

/// The article's five commands, as written.
const NEW: &str = "ulid-tool new 3";
const PARSE: &str = "ulid-tool parse 01KP7S0ABC7M3NP4QR5STVWX6Y --format json";
const MONOTONIC: &str =
    "ulid-tool monotonic 10            # 10 ULIDs, guaranteed strictly increasing";
const FROM_TIME: &str =
    "ulid-tool from-time 2026-04-15T00:00:00Z 5    # 5 ULIDs pinned to midnight UTC";
const VALIDATE: &str = "ulid-tool validate 01KP7S0ABC7M3NP4QR5STVWX6Y && echo valid";

/// Runs `line` with bash, `ulid-tool` being the binary under test.
fn bash(line: &str) -> Output {
    let binary = std::path::PathBuf::from(assert_cmd::cargo::cargo_bin!("ulid-tool"));
    assert_eq!(binary.file_name().unwrap(), "ulid-tool");
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", line])
        .env("PATH", path)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

/// The standard output of `line`, which must succeed and say nothing on
/// standard error.
fn stdout_of(line: &str) -> String {
    let output = bash(line);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{line}: {stderr}");
    assert_eq!(stderr, "", "{line}");
    String::from_utf8(output.stdout).unwrap()
}

/// A ULID text as its 128-bit number: 26 Crockford base32 digits.
fn number(text: &str) -> u128 {
    const DIGITS: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    assert_eq!(text.len(), 26, "{text:?}");
    assert!(text.as_bytes()[0] <= b'7', "{text:?}");
    text.chars().fold(0u128, |n, c| {
        let digit = DIGITS
            .find(c)
            .unwrap_or_else(|| panic!("{c:?} in {text:?}"));
        n << 5 | digit as u128
    })
}

/// The Unix millisecond of a ULID's number.
fn ms_of(n: u128) -> u64 {
    (n >> 80) as u64
}

/// The Unix millisecond of an RFC 3339 time, by jiff.
fn ms(time: &str) -> u64 {
    time.parse::<jiff::Timestamp>().unwrap().as_millisecond() as u64
}

fn now_ms() -> u64 {
    jiff::Timestamp::now().as_millisecond() as u64
}

/// The numbers of the lines of `out`, each a ULID text.
fn numbers(out: &str) -> Vec<u128> {
    out.lines().map(number).collect()
}

#[test]
fn new_3_makes_three_ids_of_now() {
    let before = now_ms();
    let ids = numbers(&stdout_of(NEW));
    let after = now_ms();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|&n| (before..=after).contains(&ms_of(n))));
    let distinct: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), 3);
}

#[test]
fn parse_as_json_gives_every_field() {
    let out = stdout_of(PARSE);
    assert_eq!(out.lines().count(), 1);
    let record: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = number("01KP7S0ABC7M3NP4QR5STVWX6Y");
    let hex = format!("{n:032x}");
    let unix_ms = ms_of(n);
    assert_eq!(record["ulid"], "01KP7S0ABC7M3NP4QR5STVWX6Y");
    assert_eq!(
        record["uuid"],
        format!(
            "{}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        )
    );
    assert_eq!(record["hex"], format!("\\x{hex}"));
    assert_eq!(record["unix_ms"], unix_ms);
    let time = jiff::Timestamp::from_millisecond(unix_ms as i64).unwrap();
    assert_eq!(
        record["time"],
        time.strftime("%Y-%m-%dT%H:%M:%S.%3fZ").to_string()
    );
    assert_eq!(record["time"], "2026-04-15T05:14:42.924Z");
    assert_eq!(record["random"], hex[12..]);
    // version nibble 3, not 7: not a UUIDv7
    assert_eq!(record["uuidv7"], false);
    assert_eq!(record.as_object().unwrap().len(), 7);
}

#[test]
fn monotonic_10_is_strictly_increasing() {
    let out = stdout_of(MONOTONIC);
    let ids = numbers(&out);
    assert_eq!(ids.len(), 10);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{out}");
    // the texts sort as the values do
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.windows(2).all(|pair| pair[0] < pair[1]));
}

#[test]
fn from_time_pins_five_increasing_ids_to_midnight_utc() {
    let midnight = ms("2026-04-15T00:00:00Z");
    assert_eq!(midnight, 1_776_211_200_000);
    let out = stdout_of(FROM_TIME);
    let ids = numbers(&out);
    assert_eq!(ids.len(), 5);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{out}");
    assert!(ids.iter().all(|&n| ms_of(n) == midnight), "{out}");
    // random bits, not the smallest id of the millisecond
    assert!(ids.iter().all(|&n| n & ((1 << 80) - 1) != 0));
}

#[test]
fn validate_and_echo() {
    let output = bash(VALIDATE);
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout), "valid\n");
    assert!(output.stderr.is_empty());
    // the same with a bad id: exit status 1, no "valid", the reason said
    let bad = VALIDATE.replace("6Y ", "6U ");
    assert_ne!(bad, VALIDATE);
    let output = bash(&bad);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "ulid-tool: argument 1: invalid id \"01KP7S0ABC7M3NP4QR5STVWX6U\": Invalid character \"U\" \
         at position 26. (A ULID uses Crockford's base32: the digits and the letters A to Z \
         except I, L, O and U.)\n"
    );
}

#[test]
fn bounds_of_one_time_and_of_a_range() {
    let midnight = ms("2026-04-15T00:00:00Z");
    let next_day = ms("2026-04-16T00:00:00Z");
    // one time: the smallest id of its millisecond, random part zero
    let out = stdout_of("ulid-tool bounds 2026-04-15T00:00:00Z");
    assert_eq!(numbers(&out), [u128::from(midnight) << 80]);
    assert_eq!(out, "01KP7702000000000000000000\n");
    // a range, its last millisecond included: the second bound is the
    // smallest id of the next millisecond
    let out = stdout_of("ulid-tool bounds 2026-04-15T00:00:00Z 2026-04-15T23:59:59.999Z");
    let bounds = numbers(&out);
    assert_eq!(
        bounds,
        [u128::from(midnight) << 80, u128::from(next_day) << 80]
    );
    // what from-time makes at midnight, and at the day's last millisecond,
    // lies within: id >= first AND id < second
    for line in [FROM_TIME, "ulid-tool from-time 2026-04-15T23:59:59.999Z 5"] {
        let ids = numbers(&stdout_of(line));
        assert!(
            ids.iter().all(|&n| bounds[0] <= n && n < bounds[1]),
            "{line}"
        );
    }
    // as a shell uses them
    let query = stdout_of(
        "{ read -r lo; read -r hi; } < <(ulid-tool bounds 2026-04-15T00:00:00Z 2026-04-15T23:59:59.999Z); \
         echo \"WHERE id >= '$lo' AND id < '$hi'\"",
    );
    assert_eq!(
        query,
        "WHERE id >= '01KP7702000000000000000000' AND id < '01KP9SCS000000000000000000'\n"
    );
}
