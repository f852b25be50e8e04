//! The project's test vectors (tests/vectors/ulid.json) against ulid-core:
//! every value read in each of its forms, every bad text refused with its
//! words, every time, public id, bad key and monotonic run. The extension,
//! the portable layer and the command-line tool read the same file.

use serde_json::Value;
use ulid_core::cipher::{Cipher, KeyLengthError};
use ulid_core::codec::{self, DecodeError, BYTES, RANDOM_BYTES};
use ulid_core::monotonic::{is_uuidv7, GenerateError, Layout, Monotonic, Step};
use ulid_core::rng::RandomSource;
use ulid_core::time::{self, OutOfRange};

fn vectors() -> Value {
    let text = include_str!("../../../tests/vectors/ulid.json");
    serde_json::from_str(text).expect("tests/vectors/ulid.json is JSON")
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} of {v}: not a string"))
}

fn opt_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v[key].as_str()
}

fn items<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key}: not an array"))
}

fn hex_bytes(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hexadecimal"))
        .collect()
}

fn value_of(text: &str) -> [u8; BYTES] {
    codec::parse(text.as_bytes()).unwrap_or_else(|err| panic!("{text}: {err:?}"))
}

/// A bad text's input: given, or `repeat: [text, n]`.
fn input_of(case: &Value) -> String {
    match case["repeat"].as_array() {
        Some(r) => r[0]
            .as_str()
            .unwrap()
            .repeat(r[1].as_u64().unwrap() as usize),
        None => str_of(case, "input").to_string(),
    }
}

fn uuid_text(value: &[u8; BYTES]) -> String {
    let h: String = value.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

#[test]
fn values_read_in_every_form_and_print_alike() {
    let v = vectors();
    let values = items(&v, "values");
    assert!(values.len() >= 5);
    for case in values {
        let ulid = str_of(case, "ulid");
        let value = value_of(ulid);
        assert_eq!(std::str::from_utf8(&codec::encode(&value)).unwrap(), ulid);
        assert_eq!(uuid_text(&value), str_of(case, "uuid"), "{ulid}");
        let hex: String = value.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(format!("\\x{hex}"), str_of(case, "hex"), "{ulid}");
        assert_eq!(
            codec::timestamp_ms(&value),
            case["unix_ms"].as_u64().unwrap(),
            "{ulid}"
        );
        assert_eq!(
            is_uuidv7(&value),
            case["uuidv7"].as_bool().unwrap(),
            "{ulid}"
        );
        for input in items(case, "inputs") {
            let input = input.as_str().unwrap();
            assert_eq!(codec::parse(input.as_bytes()), Ok(value), "{input}");
        }
    }
}

#[test]
fn bad_text_is_refused_with_its_words() {
    let v = vectors();
    let error = &v["bad_text_error"];
    assert_eq!(str_of(error, "sqlstate"), "22P02");
    let cases = items(&v, "bad_text");
    assert!(cases.len() >= 50);
    for case in cases {
        let input = input_of(case);
        let shown: String = input.chars().take(40).collect();
        let err = codec::parse(input.as_bytes())
            .err()
            .unwrap_or_else(|| panic!("{shown:?} was read"));
        assert_eq!(
            DecodeError::message(input.as_bytes()),
            str_of(error, "message").replace("{input}", &input),
            "{shown:?}"
        );
        assert_eq!(
            err.detail(input.as_bytes()),
            str_of(case, "detail"),
            "{shown:?}"
        );
        assert_eq!(err.hint(), opt_str(case, "hint"), "{shown:?}");
    }
}

/// PostgreSQL's timestamptz: microseconds from 2000-01-01 UTC, the
/// infinities at the ends of i64.
fn timestamptz(case: &Value) -> i64 {
    const UNIX_TO_POSTGRES_US: i64 = 946_684_800_000_000;
    match case["unix_us"].as_i64() {
        Some(us) => us - UNIX_TO_POSTGRES_US,
        None if str_of(case, "timestamptz") == "infinity" => i64::MAX,
        None => i64::MIN,
    }
}

#[test]
fn times_give_the_smallest_id_of_their_millisecond() {
    let v = vectors();
    for case in items(&v, "times") {
        let ms = time::unix_ms_from_timestamptz(timestamptz(case)).unwrap();
        let smallest = codec::from_parts(ms, &[0; RANDOM_BYTES]);
        assert_eq!(
            std::str::from_utf8(&codec::encode(&smallest)).unwrap(),
            str_of(case, "ulid"),
            "{case}"
        );
    }
    let error = &v["time_error"];
    for case in items(&v, "bad_times") {
        assert_eq!(
            time::unix_ms_from_timestamptz(timestamptz(case)),
            Err(OutOfRange),
            "{case}"
        );
        assert_eq!(OutOfRange.message(), str_of(error, "message"));
        assert_eq!(OutOfRange.detail(), str_of(error, "detail"));
        assert_eq!(
            GenerateError::TimestampOutOfRange.detail(Layout::Ulid),
            str_of(error, "detail")
        );
    }
}

#[test]
fn public_ids_encrypt_and_decrypt() {
    let v = vectors();
    let cases = items(&v, "public_ids");
    for len in [16, 24, 32] {
        assert!(cases.iter().any(|c| str_of(c, "key").len() == 2 * len));
    }
    for case in cases {
        let cipher = Cipher::new(&hex_bytes(str_of(case, "key"))).unwrap();
        let plain = value_of(str_of(case, "ulid"));
        let public = value_of(str_of(case, "public"));
        assert_eq!(cipher.encrypt(&plain), public, "{case}");
        assert_eq!(cipher.decrypt(&public), plain, "{case}");
    }
    let error = &v["key_error"];
    for case in items(&v, "bad_keys") {
        let key = hex_bytes(str_of(case, "key"));
        let err = Cipher::new(&key).err().expect("a bad key is refused");
        assert_eq!(err, KeyLengthError(key.len()));
        assert_eq!(err.message(), str_of(case, "message"));
        assert_eq!(err.detail(), str_of(error, "detail"));
    }
}

/// A source that is never asked: the step of one needs no random bits.
struct NoRandom;

impl RandomSource for NoRandom {
    fn random(&mut self) -> [u8; RANDOM_BYTES] {
        panic!("the step of one asked for random bits")
    }
}

#[test]
fn monotonic_runs_step_by_one_and_stop_when_exhausted() {
    let v = vectors();
    let error = &v["exhausted_error"];
    for case in items(&v, "monotonic") {
        let layout = match str_of(case, "layout") {
            "ulid" => Layout::Ulid,
            "uuidv7" => Layout::UuidV7,
            other => panic!("layout {other}"),
        };
        let after = value_of(str_of(case, "after"));
        let mut state = Monotonic::new();
        state.advance_past(after);
        let now = codec::timestamp_ms(&after);
        let mut made = Vec::new();
        let mut failed = None;
        for _ in 0..case["count"].as_u64().unwrap() {
            match state.next(now, &mut NoRandom, Step::One, layout) {
                Ok(value) => made.push(String::from_utf8(codec::encode(&value).to_vec()).unwrap()),
                Err(err) => {
                    failed = Some(err);
                    break;
                }
            }
        }
        let expected: Vec<&str> = items(case, "next")
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(made, expected, "{case}");
        match opt_str(case, "error") {
            Some("exhausted") => {
                let err = failed.expect("the millisecond runs out");
                assert_eq!(err, GenerateError::Exhausted);
                assert_eq!(
                    err.message_of("gen_monotonic_ulid()"),
                    str_of(error, "message")
                );
                assert_eq!(err.hint(), opt_str(error, "hint"));
                assert_eq!(
                    err.detail(layout),
                    str_of(&error["detail"], str_of(case, "layout"))
                );
            }
            None => assert_eq!(failed, None, "{case}"),
            Some(other) => panic!("error {other}"),
        }
    }
}
