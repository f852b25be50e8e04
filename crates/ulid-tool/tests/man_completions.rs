//! `ulid-tool --generate KIND`, what the release packages install: each output
//! is checked by the program that reads it (groff and man for the page,
//! each shell for its completions; scripts/setup installs zsh and fish).

use assert_cmd::Command;
use std::process::Stdio;

fn generated(kind: &str) -> String {
    let output = Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["--generate", kind])
        .output()
        .unwrap();
    assert!(output.status.success(), "--generate {kind}");
    assert!(output.stderr.is_empty());
    String::from_utf8(output.stdout).unwrap()
}

fn write_temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ulid-generate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn run(program: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(program)
        .args(args)
        .env("MANWIDTH", "100")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|err| panic!("{program}: {err} (scripts/setup installs it)"))
}

#[test]
fn the_man_page_renders_without_warnings() {
    let page = generated("man");
    assert!(page.contains("\n.TH ulid-tool 1 "), "{}", &page[..80]);
    let path = write_temp("ulid-tool.1", &page);
    let path = path.to_str().unwrap();
    // groff with every warning on, as lintian's check of man pages does
    let groff = run("groff", &["-man", "-Tutf8", "-ww", "-z", path]);
    assert!(groff.status.success());
    assert_eq!(String::from_utf8_lossy(&groff.stderr), "", "groff warnings");
    let man = run("man", &["-l", path]);
    assert!(man.status.success());
    let text = String::from_utf8(man.stdout).unwrap();
    for expected in [
        "ulid-tool - Make, read, check and convert ULIDs",
        "ulid-tool new",
        "ulid-tool parse",
        "ulid-tool validate",
        "ulid-tool monotonic",
        "ulid-tool from-time",
        "ulid-tool bounds",
        "ulid-tool encrypt",
        "ulid-tool decrypt",
        "--monotonic",
        "--key-file",
        "--key-hex-file",
        "--key-env",
        "EXAMPLES",
        // examples keep their lines and their backslashes
        "psql -Atc 'SELECT id FROM t' | ulid-tool parse --format json",
        "Exit status: 0",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} not in the page:\n{text}"
        );
    }
    assert!(
        !text.contains("--generate"),
        "a packager's option is not for users"
    );
}

#[test]
fn bash_completion_sources_and_completes() {
    let text = generated("complete-bash");
    // every state the loop over the words sets has the branch that offers
    // its options (the program's hyphen must not spell them two ways)
    let states: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("cmd=\"")?.strip_suffix('"'))
        .filter(|state| !state.is_empty())
        .collect();
    assert!(states.contains(&"ulid__tool__subcmd__new"), "{states:?}");
    for state in &states {
        assert!(text.contains(&format!("\n        {state})\n")), "{state}");
    }
    let path = write_temp("ulid-tool.bash", &text);
    let script = format!(
        "source {} && complete -p ulid-tool && \
         COMP_WORDS=(ulid-tool pa) COMP_CWORD=1 COMP_LINE='ulid-tool pa' COMP_POINT=12 && \
         _ulid__tool ulid-tool pa ulid-tool && \
         printf '%s\\n' \"${{COMPREPLY[@]}}\" && \
         COMP_WORDS=(ulid-tool new --for) COMP_CWORD=2 && _ulid__tool ulid-tool --for new && \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let bash = run("bash", &["--norc", "--noprofile", "-c", &script]);
    let out = String::from_utf8_lossy(&bash.stdout);
    assert!(
        bash.status.success(),
        "{}",
        String::from_utf8_lossy(&bash.stderr)
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("complete ") && l.ends_with(" -F _ulid__tool ulid-tool")),
        "{out}"
    );
    assert!(out.lines().any(|l| l == "parse"), "{out}");
    assert!(out.lines().any(|l| l == "--format"), "{out}");
}

#[test]
fn zsh_completion_parses_and_defines_the_function() {
    let text = generated("complete-zsh");
    assert!(text.starts_with("#compdef ulid-tool\n"));
    let path = write_temp("_ulid-tool", &text);
    let path = path.to_str().unwrap();
    let check = run("zsh", &["-n", path]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let script =
        format!("autoload -Uz compinit && compinit -u -D && source {path} && whence -w _ulid-tool");
    let zsh = run("zsh", &["-f", "-c", &script]);
    assert!(
        zsh.status.success(),
        "{}",
        String::from_utf8_lossy(&zsh.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&zsh.stdout).trim(),
        "_ulid-tool: function"
    );
}

#[test]
fn fish_completion_parses_and_completes() {
    let path = write_temp("ulid-tool.fish", &generated("complete-fish"));
    let path = path.to_str().unwrap();
    let check = run("fish", &["--no-execute", path]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let script =
        format!("source {path}; complete -C 'ulid-tool fr'; complete -C 'ulid-tool new --lay'");
    let fish = run("fish", &["--no-config", "-c", &script]);
    let out = String::from_utf8_lossy(&fish.stdout);
    assert!(
        fish.status.success(),
        "{}",
        String::from_utf8_lossy(&fish.stderr)
    );
    assert!(out.lines().any(|l| l.starts_with("from-time")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("--layout")), "{out}");
}

#[test]
fn an_unknown_kind_is_a_usage_error() {
    Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["--generate", "complete-tcsh"])
        .assert()
        .code(2);
    // --generate stands alone
    Command::new(assert_cmd::cargo::cargo_bin!("ulid-tool"))
        .args(["--generate", "man", "new"])
        .assert()
        .code(2);
}
