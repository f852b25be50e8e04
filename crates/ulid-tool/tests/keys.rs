//! Where `ulid-tool encrypt` and `ulid-tool decrypt` take their key from: a file of
//! raw bytes (`--key-file`), the first line of a file in hexadecimal digits
//! (`--key-hex-file`), an environment variable (`--key-env`) or an argument
//! (`--key-hex`). Every source gives the same ids as every other for the
//! same key, FIPS-197's; exactly one source is taken; each bad source is
//! refused with exit status 2, and no error shows the key.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

mod common;
use common::{fips, hex, FIPS_PLAIN};

fn ulid() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"));
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    cmd
}

const SPEC: &str = "01JGFJJZ00XHF7E02JJ03AE4T7";

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ulid-tool-keys-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a key file with the permission bits `mode` (whatever the umask).
fn write_key(path: &Path, contents: &[u8], mode: u32) -> String {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, contents).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    path.display().to_string()
}

/// What `ulid ARGS` prints, with `env` set and `stdin` given; it must
/// succeed without a word on standard error.
fn output_of(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> String {
    let mut cmd = ulid();
    cmd.args(args).write_stdin(stdin.to_vec());
    for (name, value) in env {
        cmd.env(name, value);
    }
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "ulid-tool {args:?}: {stderr}");
    assert_eq!(stderr, "", "ulid-tool {args:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// How a key may be written in hexadecimal digits, in a variable or a
/// file: every one is the same key.
fn hex_forms(key: &[u8]) -> Vec<String> {
    let digits = hex(key);
    vec![
        digits.clone(),
        format!("{digits}\n"),
        format!("  \\x{}\t\r\n", digits.to_uppercase()),
    ]
}

/// How a key may be written in a hexadecimal key file.
fn hex_file_forms(key: &[u8]) -> Vec<String> {
    let mut forms = hex_forms(key);
    // only the first line is the key
    forms.push(format!(
        "{}\n{}\nnot a key\n",
        hex(key),
        "ff".repeat(key.len())
    ));
    forms
}

#[test]
fn every_source_gives_the_ids_of_the_argument() {
    let dir = tempdir();
    for (key, public) in fips() {
        let len = key.len();
        let by_argument = |command: &str, id: &str| {
            output_of(
                &[command, id, "--format", "hex", "--key-hex", &hex(&key)],
                &[],
                b"",
            )
        };
        assert_eq!(by_argument("encrypt", FIPS_PLAIN), format!("{public}\n"));
        assert_eq!(by_argument("decrypt", &public), format!("{FIPS_PLAIN}\n"));

        let raw = write_key(&dir.join(format!("key{len}.bin")), &key, 0o600);
        let mut sources = vec![vec!["--key-file".to_string(), raw]];
        for (i, form) in hex_file_forms(&key).iter().enumerate() {
            let path = write_key(
                &dir.join(format!("key{len}-{i}.hex")),
                form.as_bytes(),
                0o600,
            );
            sources.push(vec!["--key-hex-file".to_string(), path]);
        }
        for form in hex_forms(&key) {
            for (command, id) in [("encrypt", FIPS_PLAIN), ("decrypt", public.as_str())] {
                let args = [command, id, "--format", "hex", "--key-env", "THE_KEY"];
                assert_eq!(
                    output_of(&args, &[("THE_KEY", &form)], b""),
                    by_argument(command, id),
                    "--key-env, {form:?}"
                );
            }
        }
        for source in &sources {
            let source: Vec<&str> = source.iter().map(String::as_str).collect();
            for (command, id) in [("encrypt", FIPS_PLAIN), ("decrypt", public.as_str())] {
                let args = [&[command, id, "--format", "hex"][..], &source].concat();
                assert_eq!(
                    output_of(&args, &[], b""),
                    by_argument(command, id),
                    "{source:?}"
                );
            }
        }
    }
}

#[test]
fn ids_from_standard_input_with_a_key_from_a_file_or_the_environment() {
    let dir = tempdir();
    let (key, _) = fips().pop().unwrap();
    let made = output_of(&["new", "200"], &[], b"");
    let expected = output_of(&["encrypt", "--key-hex", &hex(&key)], &[], made.as_bytes());
    assert_eq!(expected.lines().count(), 200);
    let path = write_key(
        &dir.join("key.hex"),
        format!("{}\n", hex(&key)).as_bytes(),
        0o600,
    );
    assert_eq!(
        output_of(&["encrypt", "--key-hex-file", &path], &[], made.as_bytes()),
        expected
    );
    assert_eq!(
        output_of(
            &["encrypt", "--key-env", "ULID_KEY"],
            &[("ULID_KEY", &hex(&key))],
            made.as_bytes()
        ),
        expected
    );
    assert_eq!(
        output_of(
            &["decrypt", "--key-hex-file", &path],
            &[],
            expected.as_bytes()
        ),
        made
    );
}

/// The four sources, each with a key of its own (so that an error that
/// shows one can be told), as arguments, and the environment they need.
fn four_sources(dir: &Path) -> Vec<(Vec<String>, &'static str)> {
    let raw = write_key(&dir.join("raw.bin"), b"RAWRAWRAWRAWRAW!", 0o600);
    let file = write_key(
        &dir.join("key.hex"),
        b"f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1\n",
        0o600,
    );
    [
        ("--key-file", raw.as_str(), "RAWRAW"),
        ("--key-hex-file", file.as_str(), "f1f1f1"),
        ("--key-env", "ULID_TEST_KEY", "e2e2e2"),
        ("--key-hex", "d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3", "d3d3d3"),
    ]
    .into_iter()
    .map(|(option, value, secret)| (vec![option.to_string(), value.to_string()], secret))
    .collect()
}

const ENV_KEY: &str = "e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2";

#[test]
fn exactly_one_source_of_the_key() {
    let dir = tempdir();
    let sources = four_sources(&dir);
    let secrets: Vec<&str> = sources.iter().map(|(_, secret)| *secret).collect();
    let no_secret = |stderr: &str| {
        for secret in &secrets {
            assert!(!stderr.contains(secret), "{secret} shown: {stderr}");
        }
    };
    // each alone works
    for (source, _) in &sources {
        let output = ulid()
            .args(["encrypt", SPEC])
            .args(source)
            .env("ULID_TEST_KEY", ENV_KEY)
            .output()
            .unwrap();
        assert!(output.status.success(), "{source:?}");
    }
    // none: a usage error, naming the four
    for command in ["encrypt", "decrypt"] {
        let output = ulid()
            .args([command, SPEC])
            .env("ULID_TEST_KEY", ENV_KEY)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2));
        assert!(output.stdout.is_empty());
        assert!(
            stderr.starts_with("error: the following required arguments were not provided:")
                && stderr.contains(
                    "<--key-file <FILE>|--key-hex-file <FILE>|--key-env <NAME>|--key-hex <HEX>>"
                ),
            "{stderr}"
        );
        no_secret(&stderr);
    }
    // every two: a usage error naming both, showing neither key
    for (i, (first, _)) in sources.iter().enumerate() {
        for (second, _) in &sources[i + 1..] {
            let output = ulid()
                .args(["encrypt", SPEC])
                .args(first)
                .args(second)
                .env("ULID_TEST_KEY", ENV_KEY)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{first:?} {second:?}");
            assert!(output.stdout.is_empty());
            assert!(
                stderr.starts_with("error: the argument '")
                    && stderr.contains("cannot be used with")
                    && stderr.contains(&format!("'{} <", first[0]))
                    && stderr.contains(&format!("'{} <", second[0])),
                "{stderr}"
            );
            no_secret(&stderr);
        }
    }
    // the same source twice is two
    ulid()
        .args([
            "encrypt",
            SPEC,
            "--key-env",
            "ULID_TEST_KEY",
            "--key-env",
            "ULID_TEST_KEY",
        ])
        .env("ULID_TEST_KEY", ENV_KEY)
        .assert()
        .code(2)
        .stdout("");
}

/// Runs `ulid-tool encrypt SPEC ARGS` with `env`, expecting exit status 2 with
/// nothing on standard output and exactly `message` on standard error,
/// which must not hold `secret`.
fn refused(args: &[&str], env: &[(&str, &str)], message: &str, secret: &str) {
    let mut cmd = ulid();
    cmd.args(["encrypt", SPEC])
        .args(args)
        .env_remove("ULID_TEST_KEY");
    for (name, value) in env {
        cmd.env(name, value);
    }
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr, format!("ulid-tool: {message}\n"), "{args:?}");
    assert!(
        !secret.is_empty() && !stderr.contains(secret),
        "{args:?}: {stderr}"
    );
}

const LENGTH_DETAIL: &str = "(The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.)";

fn length(origin: &str, bytes: &str) -> String {
    format!(
        "{origin}: invalid key length for ulid_encrypt and ulid_decrypt: {bytes} bytes {LENGTH_DETAIL}"
    )
}

#[test]
fn a_bad_hex_key_file_is_refused_and_never_shown() {
    let dir = tempdir();
    let path = dir.join("key.hex");
    let shown = path.display().to_string();
    let origin = format!("the key file {shown}");
    let not_hex = format!("{origin}: the key is not an even number of hexadecimal digits");
    for (contents, message, secret) in [
        (
            "S3CR3T-not-hex-S3CR3T\n".to_string(),
            not_hex.clone(),
            "S3CR3T",
        ),
        (
            "c0ffeec0ffeec0ffeec0ffeec0ffeec0f\n".into(),
            not_hex.clone(),
            "c0ffee",
        ),
        (
            "\\x\\xc0ffeec0ffeec0ffeec0ffeec0ffee\n".into(),
            not_hex.clone(),
            "c0ffee",
        ),
        ("c0ffee c0ffee\n".into(), not_hex.clone(), "c0ffee"),
        (
            "c0ffeec0ffeec0ffeec0\n".into(),
            length(&origin, "10"),
            "c0ffee",
        ),
        (
            format!("{}\n", "c0ffee".repeat(11)),
            length(&origin, "33"),
            "c0ffee",
        ),
        ("".into(), length(&origin, "0"), "c0ffee"),
        // the key on the second line is not read as the key
        (
            format!("\n{}\n", "c0ffee".repeat(8)),
            length(&origin, "0"),
            "c0ffee",
        ),
        (
            "c0ffee".repeat(60),
            format!(
                "{origin}: its first line is longer than any key in hexadecimal digits \
                 (256 bytes or more)"
            ),
            "c0ffee",
        ),
    ] {
        write_key(&path, contents.as_bytes(), 0o600);
        refused(&["--key-hex-file", &shown], &[], &message, secret);
    }
}

#[test]
fn a_missing_or_unreadable_key_file_is_refused() {
    let dir = tempdir();
    for option in ["--key-file", "--key-hex-file"] {
        let missing = dir.join("missing");
        let shown = missing.display().to_string();
        refused(
            &[option, &shown],
            &[],
            &format!("cannot read the key file {shown}: No such file or directory (os error 2)"),
            "c0ffee",
        );
        // a directory opens, and cannot be read
        let shown = dir.display().to_string();
        refused(
            &[option, &shown],
            &[],
            &format!("cannot read the key file {shown}: Is a directory (os error 21)"),
            "c0ffee",
        );
    }
}

#[test]
fn a_hex_key_file_others_may_open_is_refused_as_a_raw_one() {
    let dir = tempdir();
    let (key, public) = fips().remove(0);
    let path = dir.join("key.hex");
    let shown = write_key(&path, format!("{}\n", hex(&key)).as_bytes(), 0o640);
    refused(
        &["--key-hex-file", &shown],
        &[],
        &format!(
            "the key file {shown} is open to group or others (mode 0640): a key must be \
             readable by its owner only; chmod 600 {shown}, or pass --allow-readable-key"
        ),
        &hex(&key)[..8],
    );
    ulid()
        .args([
            "encrypt",
            FIPS_PLAIN,
            "--format",
            "hex",
            "--key-hex-file",
            &shown,
        ])
        .arg("--allow-readable-key")
        .assert()
        .success()
        .stdout(format!("{public}\n"))
        .stderr(predicate::str::starts_with(format!(
            "ulid-tool: warning: the key file {shown} is open to group or others (mode 0640)"
        )));
    // nothing to allow for a variable
    ulid()
        .args([
            "encrypt",
            SPEC,
            "--key-env",
            "ULID_TEST_KEY",
            "--allow-readable-key",
        ])
        .env("ULID_TEST_KEY", hex(&key))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "'--key-env <NAME>' cannot be used with '--allow-readable-key'",
        ));
}

#[test]
fn a_bad_variable_is_refused_and_never_shown() {
    let origin = "--key-env ULID_TEST_KEY";
    let not_hex = format!("{origin}: the key is not an even number of hexadecimal digits");
    refused(
        &["--key-env", "ULID_TEST_KEY"],
        &[],
        &format!("{origin}: no variable ULID_TEST_KEY in the environment"),
        "c0ffee",
    );
    for (value, message) in [
        ("S3CR3T-not-hex-S3CR3T".to_string(), not_hex.clone()),
        ("c0ffeec0ffeec0ffeec0ffeec0ffeec0f".into(), not_hex.clone()),
        (
            "c0ffeec0ffeec0ffeec0ffeec0ffeec0\nc0ffee".into(),
            not_hex.clone(),
        ),
        ("c0ffeec0ffeec0ffeec0".into(), length(origin, "10")),
        ("c0ffee".repeat(11), length(origin, "33")),
        ("".into(), length(origin, "0")),
        ("  \n".into(), length(origin, "0")),
    ] {
        let secret = if value.contains("S3CR3T") {
            "S3CR3T"
        } else {
            "c0ffee"
        };
        refused(
            &["--key-env", "ULID_TEST_KEY"],
            &[("ULID_TEST_KEY", &value)],
            &message,
            secret,
        );
    }
    for name in ["", "A=B"] {
        refused(
            &["--key-env", name],
            &[],
            &format!("--key-env takes the name of an environment variable, not {name:?}"),
            "c0ffee",
        );
    }
}

#[test]
fn a_key_file_may_be_standard_input_only_when_the_ids_are_arguments() {
    let dir = tempdir();
    let (key, public) = fips().remove(0);
    let expected = format!("{public}\n");
    // ids as arguments: the key from a pipe, by `-` or /dev/stdin
    for (option, stdin) in [
        ("--key-file", key.clone()),
        ("--key-hex-file", format!("{}\n", hex(&key)).into_bytes()),
    ] {
        for name in ["-", "/dev/stdin"] {
            ulid()
                .args(["encrypt", FIPS_PLAIN, "--format", "hex", option, name])
                .write_stdin(stdin.clone())
                .assert()
                .success()
                .stdout(expected.clone())
                .stderr("");
        }
    }
    // standard input is judged as any key file: a file redirected in that
    // others may read is refused, naming no file to chmod
    let open = dir.join("open.hex");
    write_key(&open, format!("{}\n", hex(&key)).as_bytes(), 0o644);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["encrypt", FIPS_PLAIN, "--key-hex-file", "-"])
        .stdin(std::fs::File::open(&open).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "ulid-tool: the key file - (standard input) is open to group or others (mode 0644): a key \
         must be readable by its owner only; give it from a private file (< FILE) or a pipe, \
         or pass --allow-readable-key\n"
    );
    // ids from standard input: a key file that is standard input, by any
    // name, would swallow them (or they it), and is refused unread
    let path = dir.join("key.hex");
    let shown = write_key(&path, format!("{}\n", hex(&key)).as_bytes(), 0o600);
    for option in ["--key-file", "--key-hex-file"] {
        for name in ["-", "/dev/stdin", "/dev/fd/0"] {
            refused_with_stdin(option, name, std::fs::File::open(&path).unwrap());
            refused_with_stdin(option, name, std::process::Stdio::piped());
        }
        // the same file, named, redirected in too
        refused_with_stdin(option, &shown, std::fs::File::open(&path).unwrap());
    }
}

/// `ulid-tool encrypt --format hex OPTION NAME` without ids, standard input
/// `stdin`: refused, as standard input holds the ids.
fn refused_with_stdin(option: &str, name: &str, stdin: impl Into<std::process::Stdio>) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["encrypt", "--format", "hex", option, name])
        .stdin(stdin)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(mut pipe) = child.stdin.take() {
        use std::io::Write;
        // ids, as a pipeline would give them; the tool may stop before
        // reading them
        let _ = pipe.write_all(format!("{SPEC}\n").as_bytes());
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{option} {name}: {stderr}");
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr,
        format!(
            "ulid-tool: the key file {name} is standard input, which holds the ids when none are \
             given as arguments: give the ids as arguments, or the key in another file or in \
             an environment variable (--key-env)\n"
        ),
        "{option} {name}"
    );
}
