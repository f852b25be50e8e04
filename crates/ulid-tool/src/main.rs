//! `ulid-tool`: see `lib.rs`, where the work is done.

fn main() -> std::process::ExitCode {
    ulid_tool::main()
}
