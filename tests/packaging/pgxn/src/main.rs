//! Checks META.json files against the PGXN Meta Spec with pgxn_meta's
//! validator: for each file named, prints `PATH: valid, spec N` or
//! `PATH: invalid: WHY`, and exits 1 when any is invalid or unreadable.
//!
//!     ulid-pgxn-check META.json [MORE.json ...]

use std::process::ExitCode;

use pgxn_meta::valid::Validator;
use serde_json::Value;

fn check(validator: &mut Validator, path: &str) -> Result<u8, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    validator.validate(&meta).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: ulid-pgxn-check META.json [MORE.json ...]");
        return ExitCode::from(2);
    }
    let mut validator = Validator::new();
    let mut status = ExitCode::SUCCESS;
    for path in &paths {
        match check(&mut validator, path) {
            Ok(spec) => println!("{path}: valid, spec {spec}"),
            Err(why) => {
                println!("{path}: invalid: {why}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
