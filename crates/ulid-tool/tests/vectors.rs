//! The project's test vectors (tests/vectors/ulid.json) through the `ulid-tool`
//! binary as a user runs it: `parse --format json` of every value's every
//! form, `validate` of every bad text, `bounds` of every time, `encrypt` and
//! `decrypt` of every public id and bad key, and `new --monotonic --step one
//! --after` for every monotonic run. ulid-core, the extension and the
//! portable layer read the same file.

use assert_cmd::Command;
use serde_json::Value;

mod common;
use common::vectors;

/// The longest line the tool reads whole (ulid_tool::input::MAX_LINE).
const MAX_LINE: usize = 4096;

fn ulid() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"));
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    cmd
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("{key} of {v}"))
}

fn items<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key].as_array().unwrap_or_else(|| panic!("{key}"))
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    let output = ulid().args(args).write_stdin(stdin).output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn every_form_of_every_value_parses_to_its_fields() {
    let v = vectors();
    for case in items(&v, "values") {
        let inputs: Vec<&str> = items(case, "inputs")
            .iter()
            .map(|i| i.as_str().unwrap())
            .collect();
        let mut args = vec!["parse", "--format", "json"];
        args.extend(&inputs);
        let out = run(&args, b"");
        // a note of a time far from now (a value that may be a public id) is all it may say
        assert_eq!(out.code, 0, "{case}");
        assert!(
            out.stderr.lines().all(|l| l.contains(": note: ")),
            "{}",
            out.stderr
        );
        let records: Vec<Value> = out
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), inputs.len(), "{}", out.stdout);
        for (input, record) in inputs.iter().zip(&records) {
            for field in ["ulid", "uuid", "hex", "time"] {
                assert_eq!(record[field], case[field], "{input}: {field}");
            }
            assert_eq!(record["unix_ms"], case["unix_ms"], "{input}");
            assert_eq!(record["uuidv7"], case["uuidv7"], "{input}");
        }
    }
}

#[test]
fn every_bad_text_is_refused_with_the_types_detail_and_hint() {
    let v = vectors();
    for case in items(&v, "bad_text") {
        let input = match case["repeat"].as_array() {
            Some(r) => r[0]
                .as_str()
                .unwrap()
                .repeat(r[1].as_u64().unwrap() as usize),
            None => s(case, "input").to_string(),
        };
        let shown: String = input.chars().take(40).collect();
        if input.len() > MAX_LINE {
            // longer than any argument a shell passes whole: read as a line
            let out = run(&["validate"], format!("{input}\n").as_bytes());
            assert_eq!(out.code, 1, "{shown:?}");
            assert!(
                out.stderr.contains("a line longer than 4096 bytes"),
                "{}",
                out.stderr
            );
            continue;
        }
        let out = run(&["validate", "--", &input], b"");
        assert_eq!(out.code, 1, "{shown:?}: {}", out.stderr);
        // the type's DETAIL, and its HINT in brackets when it has one
        let hint = case["hint"]
            .as_str()
            .map(|hint| format!(" ({hint})"))
            .unwrap_or_default();
        assert_eq!(
            out.stderr,
            format!(
                "ulid-tool: argument 1: invalid id \"{}\": {}{hint}\n",
                input.escape_debug(),
                s(case, "detail")
            ),
            "{shown:?}"
        );
    }
}

/// A time as the tool reads it: the timestamptz literal where its year has
/// four digits, else its Unix millisecond.
fn time_arg(case: &Value) -> String {
    let text = s(case, "timestamptz");
    match case["unix_us"].as_i64() {
        Some(us)
            if !text.starts_with(|c: char| c.is_ascii_digit()) || text.find('-') != Some(4) =>
        {
            us.div_euclid(1000).to_string()
        }
        _ => text.to_string(),
    }
}

#[test]
fn every_time_bounds_as_the_type_casts_it() {
    let v = vectors();
    for case in items(&v, "times") {
        let arg = time_arg(case);
        let out = run(&["bounds", &arg], b"");
        assert_eq!(
            (out.code, out.stdout.trim_end()),
            (0, s(case, "ulid")),
            "{arg}: {}",
            out.stderr
        );
    }
    let error = &v["time_error"];
    for case in items(&v, "bad_times") {
        let arg = time_arg(case);
        let out = run(&["bounds", "--", &arg], b"");
        assert_eq!(out.code, 2, "{arg}");
        assert!(
            out.stderr.contains(s(error, "message")),
            "{arg}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(s(error, "detail")),
            "{arg}: {}",
            out.stderr
        );
    }
}

#[test]
fn every_public_id_and_bad_key() {
    let v = vectors();
    for case in items(&v, "public_ids") {
        let key = s(case, "key");
        let out = run(&["encrypt", s(case, "ulid"), "--key-hex", key], b"");
        assert_eq!(
            out.stdout.trim_end(),
            s(case, "public"),
            "{case}: {}",
            out.stderr
        );
        let out = run(&["decrypt", s(case, "public"), "--key-hex", key], b"");
        assert_eq!(
            out.stdout.trim_end(),
            s(case, "ulid"),
            "{case}: {}",
            out.stderr
        );
    }
    let error = &v["key_error"];
    for case in items(&v, "bad_keys") {
        let out = run(
            &[
                "encrypt",
                "01JGFJJZ00XHF7E02JJ03AE4T7",
                "--key-hex",
                s(case, "key"),
            ],
            b"",
        );
        assert_eq!(out.code, 2, "{case}");
        assert!(
            out.stderr.contains(s(case, "message")),
            "{case}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(s(error, "detail")),
            "{case}: {}",
            out.stderr
        );
    }
}

#[test]
fn every_monotonic_run_steps_by_one_and_stops_when_exhausted() {
    let v = vectors();
    let error = &v["exhausted_error"];
    // the tool's message has no generator's name: "no value left in ..."
    let words = s(error, "message").split_once(" has ").unwrap().1;
    for case in items(&v, "monotonic") {
        let after = ulid_core::codec::parse(s(case, "after").as_bytes()).unwrap();
        let ms = ulid_core::codec::timestamp_ms(&after).to_string();
        let count = case["count"].to_string();
        let layout = s(case, "layout");
        let out = run(
            &[
                "new",
                &count,
                "--monotonic",
                "--step",
                "one",
                "--layout",
                layout,
                "--time",
                &ms,
                "--after",
                s(case, "after"),
            ],
            b"",
        );
        let made: Vec<&str> = out.stdout.lines().collect();
        let expected: Vec<&str> = items(case, "next")
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(made, expected, "{case}: {}", out.stderr);
        if case["error"].as_str() == Some("exhausted") {
            assert_eq!(out.code, 2, "{case}");
            assert!(out.stderr.contains(words), "{}", out.stderr);
            assert!(
                out.stderr.contains(s(&error["detail"], layout)),
                "{}",
                out.stderr
            );
        } else {
            assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{case}");
        }
    }
}
