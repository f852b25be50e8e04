//! The `ulid-tool` binary as a user runs it: every command and format, exit
//! statuses, messages for bad input, and what a Unix tool owes a pipeline.
//! Values are checked with ulid-core's decoder and, where one exists, an
//! outside reference (FIPS-197's AES vectors, jiff's calendar).

use assert_cmd::Command;
use predicates::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use ulid_core::codec;
use ulid_core::monotonic::is_uuidv7;

mod common;
use common::{fips, FIPS_PLAIN};

fn ulid() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"));
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    cmd
}

fn stdout_of(args: &[&str]) -> String {
    let output = ulid().args(args).output().unwrap();
    assert!(
        output.status.success(),
        "ulid-tool {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty());
    String::from_utf8(output.stdout).unwrap()
}

fn values(text: &str) -> Vec<[u8; 16]> {
    text.lines()
        .map(|line| codec::parse(line.as_bytes()).unwrap())
        .collect()
}

/// What the tool says of `text`, not an id, from `origin`: ulid-core's
/// DETAIL, the type's, and its HINT in brackets when it has one.
fn refusal(origin: &str, text: &str) -> String {
    let err = codec::parse(text.as_bytes()).unwrap_err();
    let hint = err
        .hint()
        .map(|hint| format!(" ({hint})"))
        .unwrap_or_default();
    format!(
        "ulid-tool: {origin}: invalid id \"{}\": {}{hint}\n",
        text.escape_debug(),
        err.detail(text.as_bytes())
    )
}

const SPEC: &str = "01JGFJJZ00XHF7E02JJ03AE4T7";
const SPEC_UUID: &str = "01941f29-7c00-ec5e-7700-529006a71347";
const SPEC_HEX: &str = "\\x01941f297c00ec5e7700529006a71347";
const Y2025_MS: u64 = 1_735_689_600_000;

// ---- new -----------------------------------------------------------------

#[test]
fn new_makes_one_id_of_now_by_default() {
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let out = stdout_of(&["new"]);
    let after = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert_eq!(out.len(), 27, "{out:?}");
    let ms = codec::timestamp_ms(&values(&out)[0]);
    assert!((before..=after).contains(&ms));
}

#[test]
fn new_n_ids_in_each_format() {
    let out = stdout_of(&["new", "1000"]);
    let ids = values(&out);
    assert_eq!(ids.len(), 1000);
    let distinct: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), 1000);
    for line in stdout_of(&["new", "5", "--format", "uuid"]).lines() {
        assert_eq!(line.len(), 36);
        assert_eq!(line, line.to_lowercase());
        assert_eq!(line.matches('-').count(), 4);
    }
    for line in stdout_of(&["new", "5", "--format", "hex"]).lines() {
        assert!(line.starts_with("\\x") && line.len() == 34, "{line}");
    }
    assert_eq!(stdout_of(&["new", "0"]), "");
}

#[test]
fn new_at_a_given_time() {
    for time in [
        "2025-01-01T00:00:00Z",
        "2025-01-01T01:00:00+01:00",
        "2025-01-01 00:00:00+00",
        "1735689600000",
    ] {
        for id in values(&stdout_of(&["new", "3", "--time", time])) {
            assert_eq!(codec::timestamp_ms(&id), Y2025_MS, "{time}");
        }
    }
    ulid()
        .args(["new", "--time", "1969-12-31T23:59:59Z"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "timestamp out of range for ulid: A ULID holds times from 1970-01-01 00:00:00 UTC \
             to 10889-08-02 05:31:50.655 UTC",
        ));
    ulid()
        .args(["new", "--time", "tomorrow"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "ulid-tool: invalid time \"tomorrow\"",
        ));
}

#[test]
fn new_uuidv7_layout() {
    let out = stdout_of(&["new", "2000", "--layout", "uuidv7"]);
    assert!(values(&out).iter().all(is_uuidv7));
    let out = stdout_of(&["new", "2000", "--layout", "uuidv7", "--monotonic"]);
    let ids = values(&out);
    assert!(ids.iter().all(is_uuidv7));
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    // in the default layout one in 64 is a UUIDv7 by chance, not all
    let plain = values(&stdout_of(&["new", "2000"]));
    assert!(plain.iter().filter(|id| is_uuidv7(id)).count() < 200);
}

/// A simple permutation (a fixed-seed shuffle), to sort back.
fn shuffled<T: Clone>(items: &[T]) -> Vec<T> {
    let mut items = items.to_vec();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..items.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        items.swap(i, (seed % (i as u64 + 1)) as usize);
    }
    items
}

#[test]
fn monotonic_from_a_frozen_clock_sorts_back_to_the_order_made() {
    for (step, texts) in [
        ("random", ["ulid", "uuid", "hex"]),
        ("one", ["ulid", "uuid", "hex"]),
    ] {
        for format in texts {
            let out = stdout_of(&[
                "new",
                "1000",
                "--monotonic",
                "--step",
                step,
                "--time",
                "2025-01-01T00:00:00Z",
                "--format",
                format,
            ]);
            let lines: Vec<&str> = out.lines().collect();
            assert_eq!(lines.len(), 1000);
            // the text sorts as the values do, in each format
            let mut sorted = shuffled(&lines);
            assert_ne!(sorted, lines);
            sorted.sort();
            assert_eq!(sorted, lines, "{step} {format}");
            let ids = values(&out);
            assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
            assert!(ids.iter().all(|id| codec::timestamp_ms(id) == Y2025_MS));
            let numbers: Vec<u128> = ids.iter().map(|id| u128::from_be_bytes(*id)).collect();
            let steps: Vec<u128> = numbers.windows(2).map(|p| p[1] - p[0]).collect();
            if step == "one" {
                assert!(steps.iter().all(|&s| s == 1));
            } else {
                assert!(steps.iter().all(|&s| (1..=1 << 32).contains(&s)));
                assert!(steps.iter().filter(|&&s| s > 1 << 16).count() > 990);
            }
        }
    }
}

#[test]
fn an_exhausted_millisecond_fails_after_the_values_left() {
    // three values left above the start, in either layout
    let start = format!("{:032x}", (u128::from(Y2025_MS) << 80) | ((1 << 80) - 4));
    let start = format!("\\x{start}");
    let assert = ulid()
        .args(["new", "10", "--monotonic", "--step", "one"])
        .args(["--time", "1735689600000", "--after", &start])
        .assert()
        .code(2)
        .stderr(
            "ulid-tool: no value left in this millisecond after 3 ids: The 80-bit random part \
             reached its largest value; the generator fails rather than wrap around.\n",
        );
    let ids = values(&String::from_utf8(assert.get_output().stdout.clone()).unwrap());
    assert_eq!(ids.len(), 3);
    assert_eq!(
        u128::from_be_bytes(ids[2]),
        u128::from(Y2025_MS) << 80 | ((1 << 80) - 1)
    );

    // the greatest UUIDv7 of the millisecond, less one
    let v7_max =
        (u128::from(Y2025_MS) << 80) | (0x7 << 76) | (0xFFF << 64) | (0b10 << 62) | ((1 << 62) - 1);
    let start = format!("\\x{:032x}", v7_max - 1);
    let assert = ulid()
        .args(["new", "10", "--monotonic", "--layout", "uuidv7"])
        .args(["--time", "1735689600000", "--after", &start])
        .assert()
        .code(2)
        .stderr(
            "ulid-tool: no value left in this millisecond after 1 id: The 74 random bits of the \
             UUIDv7 layout reached their largest value; the generator fails rather than wrap \
             around.\n",
        );
    let ids = values(&String::from_utf8(assert.get_output().stdout.clone()).unwrap());
    assert_eq!(ids, [v7_max.to_be_bytes()]);
}

#[test]
fn options_that_need_monotonic() {
    for args in [&["new", "--step", "one"][..], &["new", "--after", SPEC][..]] {
        ulid()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--monotonic"));
    }
    ulid().args(["new", "-5"]).assert().code(2).stdout("");
    ulid()
        .args(["new", "--layout", "uuidv4"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("uuidv7"));
}

// ---- parse ---------------------------------------------------------------

const SPEC_TEXT: &str = "\
ulid     01JGFJJZ00XHF7E02JJ03AE4T7
uuid     01941f29-7c00-ec5e-7700-529006a71347
hex      \\x01941f297c00ec5e7700529006a71347
time     2025-01-01T00:00:00.000Z
unix_ms  1735689600000
random   ec5e7700529006a71347
uuidv7   false
";

#[test]
fn parse_reads_the_three_forms_alike() {
    for form in [
        SPEC,
        SPEC_UUID,
        SPEC_HEX,
        &SPEC.to_lowercase(),
        &SPEC_UUID.to_uppercase(),
    ] {
        ulid()
            .args(["parse", form])
            .assert()
            .success()
            .stdout(SPEC_TEXT);
    }
}

#[test]
fn parse_formats() {
    ulid()
        .args(["parse", SPEC, "--format", "tsv"])
        .assert()
        .success()
        .stdout(
            "01JGFJJZ00XHF7E02JJ03AE4T7\t01941f29-7c00-ec5e-7700-529006a71347\t\
             \\x01941f297c00ec5e7700529006a71347\t2025-01-01T00:00:00.000Z\t1735689600000\t\
             ec5e7700529006a71347\tfalse\n",
        );
    ulid()
        .args(["parse", SPEC, "--format", "json"])
        .assert()
        .success()
        .stdout(
            "{\"ulid\":\"01JGFJJZ00XHF7E02JJ03AE4T7\",\"uuid\":\"01941f29-7c00-ec5e-7700-529006a71347\",\
             \"hex\":\"\\\\x01941f297c00ec5e7700529006a71347\",\"time\":\"2025-01-01T00:00:00.000Z\",\
             \"unix_ms\":1735689600000,\"random\":\"ec5e7700529006a71347\",\"uuidv7\":false}\n",
        );
    // two ids in text: a blank line between
    ulid()
        .args(["parse", SPEC, SPEC_UUID])
        .assert()
        .success()
        .stdout(format!("{SPEC_TEXT}\n{SPEC_TEXT}"));
}

#[test]
fn parse_writes_the_same_fields_in_every_format() {
    let v7 = stdout_of(&["new", "--layout", "uuidv7"]);
    let ids = [
        SPEC,
        SPEC_HEX,
        v7.trim_end(),
        "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "00000000000000000000000000",
    ];
    let written = |format: &str| {
        let output = ulid()
            .arg("parse")
            .args(ids)
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(output.status.success(), "--format {format}");
        String::from_utf8(output.stdout).unwrap()
    };
    let (text, tsv, json) = (written("text"), written("tsv"), written("json"));
    let blocks: Vec<&str> = text.split("\n\n").collect();
    let rows: Vec<&str> = tsv.lines().collect();
    let objects: Vec<&str> = json.lines().collect();
    assert_eq!(blocks.len(), ids.len());
    assert_eq!(rows.len(), ids.len());
    assert_eq!(objects.len(), ids.len());
    for ((block, row), object) in blocks.iter().zip(rows).zip(objects) {
        // text: each name, blanks up to the tenth column, its value
        let fields: Vec<(&str, &str)> = block
            .lines()
            .map(|line| {
                let (name, value) = line.split_at(9);
                assert!(name.ends_with("  ") && !name.starts_with(' '), "{line:?}");
                (name.trim_end(), value)
            })
            .collect();
        let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names,
            ["ulid", "uuid", "hex", "time", "unix_ms", "random", "uuidv7"]
        );
        // TSV: the same values in the same order
        let values: Vec<&str> = fields.iter().map(|(_, value)| *value).collect();
        assert_eq!(row.split('\t').collect::<Vec<_>>(), values, "{row}");
        // JSON: the same names as keys, in the same order, with the same
        // values (a number and a truth as themselves, not strings)
        let record: serde_json::Value = serde_json::from_str(object).unwrap();
        assert_eq!(record.as_object().unwrap().len(), fields.len(), "{object}");
        let mut at = 0;
        for (name, value) in &fields {
            let key = format!("\"{name}\":");
            at += object[at..]
                .find(&key)
                .unwrap_or_else(|| panic!("{key} in {object}"))
                + key.len();
            let json_value = match &record[*name] {
                serde_json::Value::String(text) => text.clone(),
                other @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_)) => {
                    other.to_string()
                }
                other => panic!("{name}: {other}"),
            };
            assert_eq!(json_value, *value, "{name} of {object}");
        }
    }
}

#[test]
fn parse_says_which_ids_are_uuidv7s_and_reads_the_extremes() {
    let v7 = stdout_of(&["new", "--layout", "uuidv7"]);
    let out = stdout_of(&["parse", v7.trim(), "--format", "json"]);
    let record: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(record["uuidv7"], true);
    // the greatest value's time is far from now: a note on standard error
    ulid()
        .args([
            "parse",
            "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
            "00000000000000000000000000",
            "--format",
            "tsv",
        ])
        .assert()
        .success()
        .stdout(
            "7ZZZZZZZZZZZZZZZZZZZZZZZZZ\tffffffff-ffff-ffff-ffff-ffffffffffff\t\\xffffffffffffffffffffffffffffffff\t\
             10889-08-02T05:31:50.655Z\t281474976710655\tffffffffffffffffffff\tfalse\n\
             00000000000000000000000000\t00000000-0000-0000-0000-000000000000\t\\x00000000000000000000000000000000\t\
             1970-01-01T00:00:00.000Z\t0\t00000000000000000000\tfalse\n",
        )
        .stderr(far_note("argument 1", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "10889-08-02T05:31:50.655Z"));
}

/// What `parse` says of a value whose time is outside the years 1990 to
/// 2199.
fn far_note(origin: &str, text: &str, time: &str) -> String {
    format!(
        "ulid-tool: {origin}: note: the time of \"{text}\" is {time}, outside the years 1990 to \
         2199: it may be a public id; ulid-tool decrypt ID --key-file KEY reads it\n"
    )
}

#[test]
fn parse_notes_a_time_far_from_now_as_maybe_a_public_id() {
    let far = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ";
    let note = far_note("argument 1", far, "10889-08-02T05:31:50.655Z");
    // a note only: the output, in every format, and the exit status are
    // those of any valid id
    ulid()
        .args(["parse", far])
        .assert()
        .code(0)
        .stdout(
            "ulid     7ZZZZZZZZZZZZZZZZZZZZZZZZZ\n\
             uuid     ffffffff-ffff-ffff-ffff-ffffffffffff\n\
             hex      \\xffffffffffffffffffffffffffffffff\n\
             time     10889-08-02T05:31:50.655Z\n\
             unix_ms  281474976710655\n\
             random   ffffffffffffffffffff\n\
             uuidv7   false\n",
        )
        .stderr(note.clone());
    // JSON lines stay JSON lines: the note is on standard error only
    let assert = ulid()
        .args(["parse", far, SPEC, "--format", "json"])
        .assert()
        .code(0)
        .stderr(note);
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let records: Vec<serde_json::Value> = out
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["ulid"], far);
    assert_eq!(records[1]["ulid"], SPEC);
    // a real public id: FIPS-197's AES-128 key on the 2025 id
    let public = stdout_of(&[
        "encrypt",
        SPEC,
        "--key-hex",
        "000102030405060708090a0b0c0d0e0f",
    ]);
    let public = public.trim_end();
    assert_eq!(public, "38Z4YRRNNWWW2QZ01QS8KN01E9");
    let assert = ulid()
        .args(["parse", public, "--format", "tsv"])
        .assert()
        .code(0);
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let time = out.split('\t').nth(3).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&assert.get_output().stderr),
        far_note("argument 1", public, time)
    );
    // from standard input, named by line; as given, in any form
    ulid()
        .args(["parse", "--format", "tsv"])
        .write_stdin(format!("{SPEC}\n  \\xffffffffffffffffffffffffffffffff \n"))
        .assert()
        .code(0)
        .stderr(far_note(
            "line 2",
            "\\xffffffffffffffffffffffffffffffff",
            "10889-08-02T05:31:50.655Z",
        ));
    // before 1990 too
    ulid()
        .args(["parse", "00000000010000000000000001"])
        .assert()
        .code(0)
        .stderr(far_note(
            "argument 1",
            "00000000010000000000000001",
            "1970-01-01T00:00:00.001Z",
        ));
    // no note for an id of now, of 2025, or for a range bound (its random
    // part zero) however far
    let now = stdout_of(&["new"]);
    for id in [
        SPEC,
        SPEC_UUID,
        now.trim_end(),
        "00000000000000000000000000",
        "7ZZZZZZZZZ0000000000000000",
    ] {
        ulid().args(["parse", id]).assert().code(0).stderr("");
    }
    // validate is asked only whether an id is valid
    ulid().args(["validate", far]).assert().code(0).stderr("");
}

#[test]
fn parse_streams_standard_input_and_reports_bad_lines() {
    let input = format!("{SPEC}\n  {SPEC_UUID}  \r\n\nnot-an-id\n{SPEC_HEX}\n");
    ulid()
        .args(["parse", "--format", "tsv"])
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout(predicate::function(|out: &str| {
            out.lines().count() == 3 && out.lines().all(|l| l.starts_with(SPEC))
        }))
        .stderr(refusal("line 4", "not-an-id"));
}

#[test]
fn parse_of_generated_ids_round_trips() {
    let made = stdout_of(&["new", "500", "--format", "uuid"]);
    let out = ulid()
        .args(["parse", "--format", "json"])
        .write_stdin(made.clone())
        .output()
        .unwrap();
    assert!(out.status.success());
    let uuids: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let record: serde_json::Value = serde_json::from_str(line).unwrap();
            let time =
                jiff::Timestamp::from_millisecond(record["unix_ms"].as_i64().unwrap()).unwrap();
            assert_eq!(
                record["time"],
                time.strftime("%Y-%m-%dT%H:%M:%S.%3fZ").to_string()
            );
            record["uuid"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(uuids, made.lines().collect::<Vec<_>>());
}

// ---- validate ------------------------------------------------------------

/// The type's HINT for a text of the wrong length, as a user reads it.
const FORMS_HINT: &str = "A ulid is written as 26 Crockford base32 characters, as \\x and 32 \
                          hexadecimal digits, or as a UUID (8-4-4-4-12 hexadecimal digits).";

#[test]
fn an_invalid_id_is_told_with_the_types_hint_when_it_has_one() {
    // one character: a hint of the forms an id is written in
    for command in ["parse", "validate"] {
        ulid()
            .args([command, "X"])
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "ulid-tool: argument 1: invalid id \"X\": Expected 26 characters, found 1. \
                 ({FORMS_HINT})\n"
            ));
    }
    // a first character above 7: the DETAIL says it all, no hint
    ulid()
        .args(["validate", "80000000000000000000000000"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            "ulid-tool: argument 1: invalid id \"80000000000000000000000000\": The first character is \
             \"8\", above \"7\": the value would not fit in 128 bits.\n",
        );
    // from standard input alike
    ulid()
        .arg("validate")
        .write_stdin(format!("{SPEC}\nX\n"))
        .assert()
        .code(1)
        .stderr(format!(
            "ulid-tool: line 2: invalid id \"X\": Expected 26 characters, found 1. ({FORMS_HINT})\n"
        ));
}

#[test]
fn an_argument_is_read_as_given_and_a_line_without_its_blanks() {
    // as the type refuses ' 01JG...', so does an argument
    for given in [
        format!(" {SPEC}"),
        format!("{SPEC} "),
        format!("{SPEC}\t"),
        format!("{SPEC}\r\n"),
        format!(" {SPEC_UUID}"),
        format!("{SPEC_HEX}\n"),
    ] {
        let said = refusal("argument 2", &given);
        for command in ["parse", "validate"] {
            let assert = ulid()
                .args([command, SPEC, &given])
                .assert()
                .code(1)
                .stderr(said.clone());
            // the valid one is still read
            let lines = String::from_utf8_lossy(&assert.get_output().stdout)
                .lines()
                .count();
            assert_eq!(lines, if command == "parse" { 7 } else { 0 });
        }
        ulid()
            .args([
                "encrypt",
                &given,
                "--key-hex",
                "000102030405060708090a0b0c0d0e0f",
            ])
            .assert()
            .code(1)
            .stdout("")
            .stderr(said.replace("argument 2", "argument 1"));
    }
    ulid()
        .args(["parse", &format!(" {SPEC}")])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "ulid-tool: argument 1: invalid id \" {SPEC}\": Expected 26 characters, found 27. \
             ({FORMS_HINT})\n"
        ));
    // the same texts on standard input: blanks around a line are psql's
    // padding or a CR LF file's, and are ignored
    ulid()
        .arg("validate")
        .write_stdin(format!(
            " {SPEC}\n{SPEC} \n{SPEC}\t\n{SPEC}\r\n {SPEC_UUID}\n"
        ))
        .assert()
        .code(0)
        .stderr("");
}

#[test]
fn validate_exit_statuses_and_reasons() {
    ulid()
        .args(["validate", SPEC, SPEC_UUID, SPEC_HEX])
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    ulid()
        .arg("validate")
        .write_stdin(format!("{SPEC}\n{SPEC_UUID}\n"))
        .assert()
        .code(0);
    // a bad id among good ones: exit status 1, its line on standard error
    // (every bad text of tests/vectors/ulid.json, in its words: vectors.rs)
    ulid()
        .args(["validate", SPEC, "01JGFJJZ00XHF7E02JJ03AE4TU"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "ulid-tool: argument 2: invalid id \"01JGFJJZ00XHF7E02JJ03AE4TU\": ",
        ));
    // a usage error
    ulid().args(["validate", "--strict"]).assert().code(2);
    // a line far too long to be an id
    ulid()
        .arg("validate")
        .write_stdin(format!("{SPEC}\n{}\n{SPEC}\n", "7".repeat(100_000)))
        .assert()
        .code(1)
        .stderr("ulid-tool: line 2: not an id: a line longer than 4096 bytes\n");
}

// ---- monotonic -----------------------------------------------------------

#[test]
fn monotonic_is_new_monotonic() {
    let ids = values(&stdout_of(&["monotonic", "1000"]));
    assert_eq!(ids.len(), 1000);
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(values(&stdout_of(&["monotonic"])).len(), 1);
    // the options of new: --time, --step, --layout, --format
    let out = stdout_of(&[
        "monotonic",
        "500",
        "--time",
        "2025-01-01T00:00:00Z",
        "--step",
        "one",
        "--layout",
        "uuidv7",
        "--format",
        "uuid",
    ]);
    let ids = values(&out);
    assert_eq!(ids.len(), 500);
    assert!(out.lines().all(|line| line.len() == 36));
    assert!(ids.iter().all(is_uuidv7));
    assert!(ids.iter().all(|id| codec::timestamp_ms(id) == Y2025_MS));
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    // and what new does when the millisecond runs out
    let start = format!("\\x{:032x}", (u128::from(Y2025_MS) << 80) | ((1 << 80) - 4));
    ulid()
        .args([
            "monotonic",
            "10",
            "--step",
            "one",
            "--time",
            "1735689600000",
        ])
        .args(["--after", &start])
        .assert()
        .code(2)
        .stdout(predicate::function(|out: &str| out.lines().count() == 3))
        .stderr(predicate::str::starts_with(
            "ulid-tool: no value left in this millisecond after 3 ids",
        ));
}

// ---- from-time -----------------------------------------------------------

const Y2025_TEXT_MS: &str = "01JGFJJZ00";

#[test]
fn from_time_makes_increasing_ids_of_that_millisecond() {
    for (time, ms) in [
        ("2025-01-01T00:00:00Z", Y2025_MS),
        ("2025-01-01T01:00:00.000999+01:00", Y2025_MS),
        ("1735689600000", Y2025_MS),
        ("2025-01-01T00:00:00.999Z", Y2025_MS + 999),
    ] {
        let out = stdout_of(&["from-time", time, "1000"]);
        let ids = values(&out);
        assert_eq!(ids.len(), 1000, "{time}");
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{time}");
        assert!(ids.iter().all(|id| codec::timestamp_ms(id) == ms), "{time}");
        // random, not the smallest id of the millisecond
        assert!(ids.iter().all(|id| id[6..] != [0; 10]));
    }
    // one by default, none for 0
    let one = stdout_of(&["from-time", "2025-01-01T00:00:00Z"]);
    assert_eq!(one.len(), 27);
    assert!(one.starts_with(Y2025_TEXT_MS));
    assert_ne!(one, "01JGFJJZ000000000000000000\n");
    assert_eq!(stdout_of(&["from-time", "2025-01-01T00:00:00Z", "0"]), "");
    // two runs are not ordered among themselves, and differ
    assert_ne!(one, stdout_of(&["from-time", "2025-01-01T00:00:00Z"]));
}

#[test]
fn from_time_takes_the_options_of_new() {
    let out = stdout_of(&[
        "from-time",
        "1735689600000",
        "300",
        "--step",
        "one",
        "--format",
        "hex",
    ]);
    let numbers: Vec<u128> = values(&out)
        .iter()
        .map(|id| u128::from_be_bytes(*id))
        .collect();
    assert_eq!(numbers.len(), 300);
    assert!(numbers.windows(2).all(|pair| pair[1] - pair[0] == 1));
    assert!(out.lines().all(|line| line.starts_with("\\x01941f297c00")));
    let out = stdout_of(&[
        "from-time",
        "2025-01-01T00:00:00Z",
        "300",
        "--layout",
        "uuidv7",
        "--format",
        "uuid",
    ]);
    let ids = values(&out);
    assert!(ids.iter().all(is_uuidv7));
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    assert!(out.lines().all(|line| line.starts_with("01941f29-7c00-7")));
}

#[test]
fn from_time_fails_when_the_millisecond_runs_out() {
    // three values left above the start: three ids, then the generator's error
    let start = format!("\\x{:032x}", (u128::from(Y2025_MS) << 80) | ((1 << 80) - 4));
    let assert = ulid()
        .args(["from-time", "1735689600000", "10", "--step", "one"])
        .args(["--after", &start])
        .assert()
        .code(2)
        .stderr(
            "ulid-tool: no value left in this millisecond after 3 ids: The 80-bit random part \
             reached its largest value; the generator fails rather than wrap around.\n",
        );
    let ids = values(&String::from_utf8(assert.get_output().stdout.clone()).unwrap());
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| codec::timestamp_ms(id) == Y2025_MS));
    assert_eq!(
        u128::from_be_bytes(ids[2]),
        u128::from(Y2025_MS) << 80 | ((1 << 80) - 1)
    );
    // random steps, and the UUIDv7 layout, end the same way: never past the
    // millisecond
    let full = format!("\\x{:032x}", (u128::from(Y2025_MS) << 80) | ((1 << 80) - 1));
    for layout in ["ulid", "uuidv7"] {
        let assert = ulid()
            .args(["from-time", "1735689600000", "5", "--layout", layout])
            .args(["--after", &full])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with(
                "ulid-tool: no value left in this millisecond after 0 ids",
            ));
        assert!(assert.get_output().stdout.is_empty(), "{layout}");
    }
    // a start in another millisecond is refused
    let later = format!("\\x{:032x}", u128::from(Y2025_MS + 1) << 80);
    ulid()
        .args(["from-time", "1735689600000", "--after", &later])
        .assert()
        .code(2)
        .stdout("")
        .stderr("ulid-tool: --after: not an id of TIME's millisecond\n");
}

#[test]
fn from_time_refuses_what_is_not_a_time_or_a_count() {
    ulid()
        .args(["from-time", "281474976710656"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "ulid-tool: timestamp out of range for ulid",
        ));
    ulid()
        .args(["from-time", "tomorrow", "3"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "ulid-tool: invalid time \"tomorrow\"",
        ));
    ulid().arg("from-time").assert().code(2).stdout("");
    ulid()
        .args(["from-time", "2025-01-01T00:00:00Z", "three"])
        .assert()
        .code(2)
        .stdout("");
    ulid()
        .args(["from-time", "2025-01-01T00:00:00Z", "-1"])
        .assert()
        .code(2)
        .stdout("");
}

// ---- bounds --------------------------------------------------------------

#[test]
fn bounds_is_the_smallest_id_of_the_millisecond() {
    assert_eq!(
        stdout_of(&["bounds", "2025-01-01T00:00:00Z"]),
        "01JGFJJZ000000000000000000\n"
    );
    assert_eq!(
        stdout_of(&["bounds", "2025-01-01T00:00:00.999Z"]),
        "01JGFJJZZ70000000000000000\n"
    );
    assert_eq!(
        stdout_of(&["bounds", "1735689600000", "--format", "uuid"]),
        "01941f29-7c00-0000-0000-000000000000\n"
    );
    assert_eq!(
        stdout_of(&["bounds", "281474976710655", "--format", "hex"]),
        "\\xffffffffffff00000000000000000000\n"
    );
    ulid()
        .args(["bounds", "281474976710656"])
        .assert()
        .code(2)
        .stdout("");
    ulid().arg("bounds").assert().code(2);
}

#[test]
fn bounds_of_a_range_include_its_last_millisecond() {
    // a day: the second bound is the smallest id of the next day
    assert_eq!(
        stdout_of(&["bounds", "2025-01-01T00:00:00Z", "2025-01-01T23:59:59.999Z"]),
        "01JGFJJZ000000000000000000\n01JGJ4ZP000000000000000000\n"
    );
    // to the millisecond, whatever the form of each time
    let out = stdout_of(&[
        "bounds",
        "2025-01-01 01:00:00+01",
        "1735689600000",
        "--format",
        "hex",
    ]);
    assert_eq!(
        out,
        format!(
            "\\x{:012x}00000000000000000000\n\\x{:012x}00000000000000000000\n",
            Y2025_MS,
            Y2025_MS + 1
        )
    );
    // a time within a millisecond bounds that millisecond
    let out = stdout_of(&[
        "bounds",
        "2025-01-01T00:00:00.0005Z",
        "2025-01-01T00:00:00.0009Z",
    ]);
    let ids = values(&out);
    assert_eq!(codec::timestamp_ms(&ids[0]), Y2025_MS);
    assert_eq!(codec::timestamp_ms(&ids[1]), Y2025_MS + 1);
    // ids made in the range lie between the bounds, ids made just after do not
    let made = values(&stdout_of(&["from-time", "2025-01-01T00:00:00.999Z", "50"]));
    let bounds = values(&stdout_of(&[
        "bounds",
        "2025-01-01T00:00:00Z",
        "2025-01-01T00:00:00.999Z",
    ]));
    assert!(made.iter().all(|id| bounds[0] <= *id && *id < bounds[1]));
    let next = values(&stdout_of(&["from-time", "2025-01-01T00:00:01Z", "50"]));
    assert!(next.iter().all(|id| *id >= bounds[1]));
    // the last millisecond a ULID holds may start a range
    assert_eq!(
        stdout_of(&[
            "bounds",
            "281474976710654",
            "281474976710654",
            "--format",
            "hex"
        ]),
        "\\xfffffffffffe00000000000000000000\n\\xffffffffffff00000000000000000000\n"
    );
}

#[test]
fn bounds_refuses_a_range_it_cannot_bound() {
    ulid()
        .args(["bounds", "2025-01-02T00:00:00Z", "2025-01-01T23:59:59.999Z"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "ulid-tool: TO (2025-01-01T23:59:59.999Z) is before FROM (2025-01-02T00:00:00.000Z): \
             no id lies between them\n",
        );
    ulid()
        .args(["bounds", "0", "281474976710655"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "ulid-tool: TO (10889-08-02T05:31:50.655Z) is the last millisecond a ULID holds: no id \
             is above it; leave TO out (id >= FROM alone)\n",
        );
    ulid()
        .args(["bounds", "2025-01-01T00:00:00Z", "later"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "ulid-tool: invalid time \"later\"",
        ));
    ulid()
        .args(["bounds", "1", "2", "3"])
        .assert()
        .code(2)
        .stdout("");
}

// ---- encrypt and decrypt -------------------------------------------------

fn fips_key(len: usize) -> Vec<u8> {
    (0..len as u8).collect()
}

#[test]
fn encrypt_and_decrypt_follow_fips_197() {
    let dir = tempdir();
    for (key, cipher) in fips() {
        let cipher = cipher.as_str();
        let len = key.len();
        let path = dir.join(format!("key{len}"));
        write_key(&path, &key, 0o600);
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        for key_args in [
            vec!["--key-file".to_string(), path.display().to_string()],
            vec!["--key-hex".to_string(), hex.clone()],
            vec![
                "--key-hex".to_string(),
                format!("\\x{}", hex.to_uppercase()),
            ],
        ] {
            ulid()
                .args(["encrypt", FIPS_PLAIN, "--format", "hex"])
                .args(&key_args)
                .assert()
                .success()
                .stdout(format!("{cipher}\n"));
            ulid()
                .args(["decrypt", cipher, "--format", "hex"])
                .args(&key_args)
                .assert()
                .success()
                .stdout(format!("{FIPS_PLAIN}\n"));
        }
    }
    // a stream round trip, in ULID text
    let key = dir.join("key32");
    let made = stdout_of(&["new", "300"]);
    let key_arg = key.display().to_string();
    let encrypted = ulid()
        .args(["encrypt", "--key-file", &key_arg])
        .write_stdin(made.clone())
        .output()
        .unwrap();
    assert!(encrypted.status.success());
    assert_ne!(encrypted.stdout, made.as_bytes());
    ulid()
        .args(["decrypt", "--key-file", &key_arg])
        .write_stdin(encrypted.stdout)
        .assert()
        .success()
        .stdout(made);
}

#[test]
fn a_bad_key_is_refused_and_never_shown() {
    let dir = tempdir();
    let secret = "S3CR3TS3CR3TS3CR3T-not-a-key\n";
    let path = dir.join("key.txt");
    write_key(&path, secret.as_bytes(), 0o600);
    let path = path.display().to_string();
    ulid()
        .args(["encrypt", SPEC, "--key-file", &path])
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "ulid-tool: the key file {path}: invalid key length for ulid_encrypt and ulid_decrypt: \
             29 bytes (The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.)\n"
        ));
    let long = dir.join("long");
    write_key(&long, &[0x41u8; 1000], 0o600);
    ulid()
        .args(["encrypt", SPEC, "--key-file", &long.display().to_string()])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("more than 32 bytes")
                .and(predicate::str::contains("AAAA").not()),
        );
    let hex_secret = "deadbeefdeadbeef";
    ulid()
        .args(["decrypt", SPEC, "--key-hex", hex_secret])
        .assert()
        .code(2)
        .stderr("ulid-tool: --key-hex: invalid key length for ulid_encrypt and ulid_decrypt: 8 bytes (The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.)\n");
    ulid()
        .args(["decrypt", SPEC, "--key-hex", "0123456789abcdefXX"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("0123").not());
    ulid()
        .args(["encrypt", SPEC, "--key-file", "/nonexistent/key"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "ulid-tool: cannot read the key file /nonexistent/key",
        ));
    ulid().args(["encrypt", SPEC]).assert().code(2);
    // a bad id with a good key: exit 1, the good ones done
    let key = dir.join("good");
    write_key(&key, &fips_key(16), 0o600);
    ulid()
        .args([
            "encrypt",
            "--key-file",
            &key.display().to_string(),
            SPEC,
            "nope",
        ])
        .assert()
        .code(1)
        .stdout(predicate::function(|out: &str| out.lines().count() == 1));
}

/// Writes a key file with the permission bits `mode` (whatever the umask).
fn write_key(path: &std::path::Path, key: &[u8], mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, key).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The FIPS-197 AES-128 vector, as `ulid-tool encrypt --format hex` prints it.
fn fips_128_line() -> String {
    format!("{}\n", fips()[0].1)
}

#[test]
fn a_key_file_others_may_open_is_refused() {
    let dir = tempdir();
    let path = dir.join("key.bin");
    let shown = path.display().to_string();
    for mode in [0o644, 0o640, 0o604, 0o660, 0o602, 0o610, 0o666] {
        write_key(&path, &fips_key(16), mode);
        ulid()
            .args([
                "encrypt",
                FIPS_PLAIN,
                "--format",
                "hex",
                "--key-file",
                &shown,
            ])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "ulid-tool: the key file {shown} is open to group or others (mode {mode:04o}): \
                 a key must be readable by its owner only; chmod 600 {shown}, or pass \
                 --allow-readable-key\n"
            ));
    }
    // decrypt alike
    write_key(&path, &fips_key(16), 0o644);
    ulid()
        .args(["decrypt", &fips()[0].1, "--key-file", &shown])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("(mode 0644)")
                .and(predicate::str::contains(format!("chmod 600 {shown}"))),
        );
}

#[test]
fn a_key_file_only_its_owner_may_open_is_used() {
    let dir = tempdir();
    let path = dir.join("key.bin");
    let shown = path.display().to_string();
    for mode in [0o600, 0o400, 0o700] {
        write_key(&path, &fips_key(16), mode);
        ulid()
            .args([
                "encrypt",
                FIPS_PLAIN,
                "--format",
                "hex",
                "--key-file",
                &shown,
            ])
            .assert()
            .success()
            .stdout(fips_128_line())
            .stderr("");
    }
}

#[test]
fn allow_readable_key_warns_and_goes_on() {
    let dir = tempdir();
    let path = dir.join("key.bin");
    let shown = path.display().to_string();
    write_key(&path, &fips_key(16), 0o644);
    ulid()
        .args([
            "encrypt",
            FIPS_PLAIN,
            "--format",
            "hex",
            "--key-file",
            &shown,
        ])
        .arg("--allow-readable-key")
        .assert()
        .success()
        .stdout(fips_128_line())
        .stderr(format!(
            "ulid-tool: warning: the key file {shown} is open to group or others (mode 0644): \
             a key must be readable by its owner only; chmod 600 {shown}\n"
        ));
    // a private file: no warning
    write_key(&path, &fips_key(16), 0o600);
    ulid()
        .args([
            "encrypt",
            FIPS_PLAIN,
            "--format",
            "hex",
            "--key-file",
            &shown,
        ])
        .arg("--allow-readable-key")
        .assert()
        .success()
        .stdout(fips_128_line())
        .stderr("");
    // it is about key files: with --key-hex, a usage error
    ulid()
        .args([
            "encrypt",
            SPEC,
            "--key-hex",
            "000102030405060708090a0b0c0d0e0f",
        ])
        .arg("--allow-readable-key")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("--allow-readable-key"));
}

#[test]
fn a_symlink_is_judged_by_the_file_it_leads_to() {
    let dir = tempdir();
    let target = dir.join("key.bin");
    let link = dir.join("link");
    // the link's own mode is 0777 on Linux: what counts is the target's
    std::os::unix::fs::symlink(&target, &link).unwrap();
    write_key(&target, &fips_key(16), 0o644);
    let link_shown = link.display().to_string();
    let target_shown = std::fs::canonicalize(&target)
        .unwrap()
        .display()
        .to_string();
    ulid()
        .args([
            "encrypt",
            FIPS_PLAIN,
            "--format",
            "hex",
            "--key-file",
            &link_shown,
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "ulid-tool: the key file {link_shown} (a link to {target_shown}) is open to group or \
             others (mode 0644): a key must be readable by its owner only; chmod 600 \
             {target_shown}, or pass --allow-readable-key\n"
        ));
    write_key(&target, &fips_key(16), 0o600);
    ulid()
        .args([
            "encrypt",
            FIPS_PLAIN,
            "--format",
            "hex",
            "--key-file",
            &link_shown,
        ])
        .assert()
        .success()
        .stdout(fips_128_line())
        .stderr("");
}

#[test]
fn a_key_on_standard_input_is_judged_by_what_stands_behind_it() {
    let dir = tempdir();
    let path = dir.join("key.bin");
    // a pipe: private to the two processes (mode 0600 on Linux)
    ulid()
        .args([
            "encrypt",
            FIPS_PLAIN,
            "--format",
            "hex",
            "--key-file",
            "/dev/stdin",
        ])
        .write_stdin(fips_key(16))
        .assert()
        .success()
        .stdout(fips_128_line());
    // a file redirected in: its own mode
    for (mode, ok) in [(0o600, true), (0o644, false)] {
        write_key(&path, &fips_key(16), mode);
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
            .args([
                "encrypt",
                FIPS_PLAIN,
                "--format",
                "hex",
                "--key-file",
                "/dev/stdin",
            ])
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if ok {
            assert!(output.status.success(), "{stderr}");
            assert_eq!(String::from_utf8_lossy(&output.stdout), fips_128_line());
        } else {
            assert_eq!(output.status.code(), Some(2));
            assert!(output.stdout.is_empty());
            assert!(
                stderr.starts_with("ulid-tool: the key file /dev/stdin (a link to ")
                    && stderr.contains("(mode 0644)"),
                "{stderr}"
            );
        }
    }
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ulid-tool-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---- a Unix tool -----------------------------------------------------------

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["new", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // the reader is dropped here: `| head -1`
    let output = child.wait_with_output().unwrap();
    assert_eq!(first.len(), 27);
    assert!(output.status.success(), "{:?}", output.status);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// The largest resident size of process `pid` so far, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches(" kB").parse().ok())
        .unwrap()
}

#[test]
fn parse_streams_in_constant_memory() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["parse", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    // read the output as it comes, counting lines
    let reader = std::thread::spawn(move || BufReader::new(stdout).lines().count());
    let line = format!("{SPEC}\n");
    let block = line.repeat(10_000);
    let mut peaks = Vec::new();
    for round in 0..40 {
        stdin.write_all(block.as_bytes()).unwrap();
        if round % 10 == 9 {
            peaks.push(peak_kib(child.id()));
        }
        // one line of 10 MB, with no id in it
        if round == 20 {
            stdin.write_all(&vec![b'7'; 10 << 20]).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
    }
    drop(stdin);
    assert!(!child.wait().unwrap().success(), "the long line is invalid");
    assert_eq!(reader.join().unwrap(), 400_000);
    // 400,000 ids (10 MB) in and 90 MB out, and a 10 MB line: the peak stays
    // small and does not grow with the input
    assert!(peaks.iter().all(|&kib| kib < 16 * 1024), "{peaks:?}");
    assert!(peaks[3] <= peaks[0] + 1024, "{peaks:?}");
}

#[test]
fn help_has_examples_and_no_colour_in_a_pipe() {
    for args in [
        &["help"][..],
        &["--help"][..],
        &["help", "new"][..],
        &["new", "--help"][..],
        &["parse", "--help"][..],
        &["validate", "--help"][..],
        &["monotonic", "--help"][..],
        &["from-time", "--help"][..],
        &["bounds", "--help"][..],
        &["encrypt", "--help"][..],
        &["decrypt", "--help"][..],
    ] {
        let out = stdout_of(args);
        assert!(out.contains("Examples:"), "{args:?}");
        assert!(!out.contains('\x1b'), "{args:?}: colour in a pipe");
    }
    // no arguments at all: the help, on standard error, as a usage error
    ulid()
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("Usage: ulid"));
    let err = ulid().args(["new", "--bogus"]).output().unwrap();
    assert_eq!(err.status.code(), Some(2));
    assert!(!err.stderr.contains(&0x1b));
    // --generate is for packagers: not in the help
    assert!(!stdout_of(&["--help"]).contains("--generate"));
    assert!(stdout_of(&["--version"]).starts_with("ulid-tool 0."));
}

#[test]
fn an_id_in_place_of_a_command_says_how_to_read_it() {
    for id in [
        "01JGFJJZ00XHF7E02JJ03AE4T7",
        "01941f29-7c00-ec5e-7700-529006a71347",
    ] {
        ulid().arg(id).assert().code(2).stdout("").stderr(format!(
            "ulid-tool: \"{id}\" is an id, not a command: to read it, ulid-tool parse {id}\n"
        ));
    }
    // a word that is no id is clap's own error, naming the commands
    ulid()
        .arg("newww")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unrecognized subcommand 'newww'"));
}
