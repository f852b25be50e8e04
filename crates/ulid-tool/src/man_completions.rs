//! `ulid-tool --generate KIND`: the man page and the shell completion scripts,
//! made from the same clap definition as `--help`, for the release's
//! packages to install (a man page in man1, completions where each shell
//! looks for them).

use crate::cli::{command, Generate};
use clap_complete::Shell;
use std::io::{self, Write};

/// Writes what `kind` names to `out`.
pub fn generate(kind: Generate, out: &mut impl Write) -> io::Result<()> {
    let mut cmd = command();
    match kind {
        Generate::Man => man_page(cmd, out),
        Generate::CompleteBash => complete(Shell::Bash, &mut cmd, out),
        Generate::CompleteZsh => complete(Shell::Zsh, &mut cmd, out),
        Generate::CompleteFish => complete(Shell::Fish, &mut cmd, out),
    }
}

/// The completions of the program by its command's name, `ulid-tool`.
fn complete(shell: Shell, cmd: &mut clap::Command, out: &mut impl Write) -> io::Result<()> {
    let name = cmd.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(shell, cmd, name.as_str(), &mut script);
    if shell == Shell::Bash {
        // clap_complete (4.6.11, the newest) spells the state of a
        // subcommand two ways when the program's name has a hyphen: the
        // loop that reads the words sets `ulid__tool__subcmd__new`, the
        // branches that offer its options test `ulid__subcmd__tool__subcmd__new`,
        // so no subcommand's options would complete. The loop's spelling
        // wins; once clap_complete agrees with itself this changes nothing.
        let script = String::from_utf8_lossy(&script)
            .replace(&name.replace('-', "__subcmd__"), &name.replace('-', "__"));
        return out.write_all(script.as_bytes());
    }
    out.write_all(&script)
}

/// ulid-tool(1): the command's page, then a section per command with its own
/// synopsis, description, options and examples, so that one page is the
/// whole manual.
fn man_page(cmd: clap::Command, out: &mut impl Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone()).manual(format!("{} manual", cmd.get_name()));
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    out.write_all(b".SH COMMANDS\n")?;
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let name = format!("{} {}", cmd.get_name(), sub.get_name());
        let page = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
        let mut section = Vec::new();
        page.render_synopsis_section(&mut section)?;
        page.render_description_section(&mut section)?;
        page.render_options_section(&mut section)?;
        // the command's own page, as a subsection of this one
        let section = String::from_utf8_lossy(&section)
            .replace(".SH SYNOPSIS\n", &format!(".SS \"{name}\"\n"))
            .replace(".SH DESCRIPTION\n", ".PP\n")
            .replace(".SH OPTIONS\n", ".PP\nOptions:\n");
        out.write_all(section.as_bytes())?;
        if let Some(examples) = sub.get_after_help() {
            preformatted(out, &examples.to_string())?;
        }
    }
    if let Some(examples) = cmd.get_after_help() {
        // the section's title says what `--help`'s first line says
        let examples = examples.to_string();
        let examples = examples.strip_prefix("Examples:\n").unwrap_or(&examples);
        out.write_all(b".SH EXAMPLES\n")?;
        preformatted(out, examples)?;
    }
    man.render_version_section(out)?;
    Ok(())
}

/// Lines kept as they are (no filling), escaped for roff.
fn preformatted(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(b".PP\n.nf\n")?;
    for line in text.lines() {
        let line = line.replace('\\', "\\e").replace('-', "\\-");
        if line.starts_with('.') || line.starts_with('\'') {
            out.write_all(b"\\&")?;
        }
        writeln!(out, "{line}")?;
    }
    out.write_all(b".fi\n")
}
