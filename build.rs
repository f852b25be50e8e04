//! Renders the update scripts before cargo-pgrx installs them.
//!
//! `sql/updates/ulid--A--B.sql` are templates: a line `\ir FILE` stands for
//! FILE (relative to the file that names it, at the line's indentation,
//! itself rendered the same way), so that what several scripts say alike
//! is written once, in `sql/shared/`. cargo-pgrx copies the update scripts
//! it finds in `sql/` beside the generated install script (`cargo pgrx
//! install`, `package`, `test`), so the rendered scripts are written there,
//! as build output that git ignores; a rendered script without a template
//! is removed. `\ir` is psql's "include relative", which an extension
//! script cannot run, so a script that still had one would fail loudly.

use std::fs;
use std::path::{Path, PathBuf};

fn render(path: &Path, indent: &str, depth: usize, out: &mut String) {
    assert!(depth < 8, "{}: includes nested too deep", path.display());
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    for line in text.lines() {
        let trimmed = line.trim_start();
        let include = trimmed
            .strip_prefix("\\ir ")
            .map(str::trim)
            .filter(|target| !target.is_empty() && !target.contains(char::is_whitespace));
        if let Some(target) = include {
            let more = &line[..line.len() - trimmed.len()];
            let included = path.parent().unwrap().join(target);
            render(&included, &format!("{indent}{more}"), depth + 1, out);
            continue;
        }
        if !line.trim().is_empty() {
            out.push_str(indent);
        }
        out.push_str(line);
        out.push('\n');
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let (templates, rendered) = (root.join("sql/updates"), root.join("sql"));
    println!("cargo:rerun-if-changed={}", templates.display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("sql/shared").display()
    );

    let mut names = Vec::new();
    for entry in fs::read_dir(&templates).expect("sql/updates") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !(name.starts_with("ulid--") && name.ends_with(".sql")) {
            continue;
        }
        let mut out = String::new();
        render(&path, "", 0, &mut out);
        assert!(
            !out.lines()
                .any(|line| line.trim_start().starts_with("\\ir")),
            "{name}: a line starting with \\ir that is not `\\ir FILE`"
        );
        let target = rendered.join(&name);
        if fs::read_to_string(&target).ok().as_deref() != Some(out.as_str()) {
            // written beside it and renamed over it, so that a build of
            // another profile or target running at once never reads half
            let partial = rendered.join(format!(".{name}.{}", std::process::id()));
            fs::write(&partial, out).unwrap_or_else(|err| panic!("{}: {err}", partial.display()));
            fs::rename(&partial, &target)
                .unwrap_or_else(|err| panic!("{}: {err}", target.display()));
        }
        names.push(name);
    }
    // what an earlier build rendered from a template that is gone
    for entry in fs::read_dir(&rendered).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.starts_with("ulid--") && name.ends_with(".sql") && !names.contains(&name) {
            fs::remove_file(rendered.join(&name)).unwrap();
        }
    }
}
