//! `ulid-tool`: see `lib.rs`, where the work is done.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    ulid_tool::main()
}
