//! The command line: every command, option and help text, in one clap
//! definition. The man page and the shell completions (`--generate`) are
//! made from this same definition, so they cannot drift from `--help`.

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

const ABOUT: &str = "Make, read, check and convert ULIDs, as the ulid type for PostgreSQL does";

const LONG_ABOUT: &str = "\
Make, read, check and convert ULIDs, exactly as the ulid type for PostgreSQL \
does, with the same code.

An id is read in any of the three forms the type reads: 26 Crockford base32 \
characters (the ULID text), the UUID text that psql prints for a uuid column, \
or \\x and 32 hexadecimal digits (a bytea). Commands that read ids take them \
as arguments, each exactly as given (a blank before or after it makes it \
invalid, as for the type) or, when there are none, one per line from \
standard input, blanks around a line ignored and empty lines skipped.

Exit status: 0 when all went well, 1 when an id given was not valid (the \
reason on standard error), 2 for a usage error or a failure (a bad option, an \
unreadable key file, an exhausted millisecond).";

const EXAMPLES: &str = "\
Examples:
  ulid-tool new                                  one new id
  ulid-tool new 3 --monotonic                    three, strictly increasing
  ulid-tool monotonic 3                          the same
  ulid-tool new --time 2025-01-01T12:00:00Z      an id for that millisecond
  ulid-tool from-time 2025-01-01T12:00:00Z 5     five increasing ids of that millisecond
  ulid-tool new --layout uuidv7 --format uuid    also a valid UUIDv7, as a UUID
  ulid-tool parse 01JGFJJZ00XHF7E02JJ03AE4T7     when it was made, and its other texts
  psql -Atc 'SELECT id FROM t' | ulid-tool parse --format json
  ulid-tool validate \"$ID\" || echo bad id
  ulid-tool bounds 2025-01-01T00:00:00Z 2025-01-31T23:59:59.999Z
                                                 the bounds of January, for a range query
  ulid-tool encrypt \"$ID\" --key-file key.bin     the public id for $ID

Each command has its own examples: ulid-tool help COMMAND.";

/// `ulid-tool`: the whole command line.
#[derive(Debug, Parser)]
#[command(
    name = "ulid-tool",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    arg_required_else_help = true,
    subcommand_required = false,
    args_conflicts_with_subcommands = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Print the man page or a shell completion script, for packagers.
    #[arg(long, value_name = "KIND", hide = true, exclusive = true)]
    pub generate: Option<Generate>,
}

/// What `--generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    /// The man page, ulid-tool(1), in roff
    Man,
    /// Completions for bash
    CompleteBash,
    /// Completions for zsh
    CompleteZsh,
    /// Completions for fish
    CompleteFish,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Make new ids
    #[command(
        long_about = "\
Make new ids: the current millisecond (or --time's) and random bits from a \
CSPRNG seeded from the operating system, one id per line.

--monotonic makes every id greater than the one before, as \
gen_monotonic_ulid() does within a session: within one millisecond it steps \
the random part up by a random amount in [1, 2^32] (--step one: by one, as \
the ULID specification says), and when the clock steps back it keeps the \
last millisecond until the clock catches up. It fails (exit status 2) only \
when a millisecond has no value left. Ids of separate runs are not ordered \
among themselves beyond their milliseconds.",
        after_help = "\
Examples:
  ulid-tool new                                  01JGFJJZ00XHF7E02JJ03AE4T7 (say)
  ulid-tool new 1000000 > ids.txt                a million ids
  ulid-tool new 5 --monotonic --time 1735689600000
                                                 five increasing ids of that millisecond
  ulid-tool new --layout uuidv7 --format uuid    01941f29-7c00-7e5e-b700-529006a71347 (say)"
    )]
    New(NewArgs),

    /// New ids, each greater than the one before: ulid-tool new --monotonic
    #[command(
        long_about = "\
N new ids (1 by default), one per line, each greater than the one before: \
what ulid-tool new N --monotonic does, with the same options (--time, --step, \
--layout, --format); ulid-tool help new says how the ids step.",
        after_help = "\
Examples:
  ulid-tool monotonic 10                         ten ids, strictly increasing
  ulid-tool monotonic 3 --step one --time 2025-01-01T00:00:00Z"
    )]
    Monotonic(MonotonicArgs),

    /// New ids of one millisecond, strictly increasing
    #[command(
        name = "from-time",
        long_about = "\
N new ids (1 by default) of TIME's millisecond, one per line, each greater \
than the one before: the first with random bits, the next ones stepped up \
within the millisecond, as ulid-tool new --monotonic --time TIME makes them \
(--step, --layout and --format as for new). All of them are of that millisecond: \
when it has no value left, ulid-tool says so and stops with exit status 2 after \
the ids made, rather than wrap around or move to the next millisecond.

For the bounds of a range query (the smallest id of a millisecond, what \
TIME::timestamptz::ulid gives), see ulid-tool bounds.",
        after_help = "\
Examples:
  ulid-tool from-time 2026-04-15T00:00:00Z 5     five ids of midnight UTC
  ulid-tool from-time 1735689600000 3 --layout uuidv7 --format uuid"
    )]
    FromTime(FromTimeArgs),

    /// Show what an id holds: its texts, its time, its random part
    #[command(
        long_about = "\
Show what each id holds: its ULID text, its UUID text, its \\x hex text, the \
time it names (UTC, to the millisecond, and as Unix milliseconds), its 80-bit \
random part in hexadecimal, and whether it is also a valid RFC 9562 UUIDv7. \
The same values as the type's casts: id::uuid, ulid_timestamp(id).

--format text prints one field a line, with a blank line between ids; tsv \
prints one id a line, the fields in the order ulid, uuid, hex, time, unix_ms, \
random, uuidv7, separated by tabs; json prints one object a line (JSON \
lines). An id that is not valid is reported on standard error and skipped; \
the exit status is then 1.

A valid value whose time is outside the years 1990 to 2199 (and whose random \
part is not zero, as a range bound's is) is printed as any other, with a \
note on standard error: it may be a public id (ulid-tool encrypt), whose first 48 \
bits are AES output rather than a time; ulid-tool decrypt reads the id behind it. \
The note changes neither the output nor the exit status.",
        after_help = "\
Examples:
  ulid-tool parse 01JGFJJZ00XHF7E02JJ03AE4T7
  ulid-tool parse 01941f29-7c00-ec5e-7700-529006a71347 --format json
  psql -Atc 'SELECT id FROM orders' | ulid-tool parse --format tsv | cut -f4"
    )]
    Parse(ParseArgs),

    /// Check ids: exit status 0 when every one is valid, 1 when one is not
    #[command(
        long_about = "\
Check that each id is valid in one of the three forms the type reads. \
Prints nothing for a valid id; for one that is not, its position and the \
reason on standard error, in the words of the type's error DETAIL, and its \
HINT in brackets when it has one. Exit status 0 when every id is valid, 1 \
when any is not, 2 for a usage error.",
        after_help = "\
Examples:
  ulid-tool validate 01JGFJJZ00XHF7E02JJ03AE4T7
  ulid-tool validate < ids.txt && echo all valid"
    )]
    Validate(ValidateArgs),

    /// The bounds of a time range, for range queries
    #[command(
        long_about = "\
The smallest id of FROM's millisecond (its random part zero), what \
FROM::timestamptz::ulid gives, and, given TO, the smallest id of the \
millisecond after TO's, one per line. Every id made in FROM's millisecond or \
later is at least the first, and every id made in TO's millisecond or \
earlier is below the second, so the two bound the range from FROM to TO, \
both included to the millisecond, as in WHERE id >= '...' AND id < '...'.

TO before FROM, or TO in the last millisecond a ULID holds (no id is above \
it: leave TO out), is an error, exit status 2.",
        after_help = "\
Examples:
  ulid-tool bounds 2025-01-01T00:00:00Z          01JGFJJZ000000000000000000
  ulid-tool bounds 2025-01-01T00:00:00Z 2025-01-01T23:59:59.999Z
                                                 01JGFJJZ000000000000000000
                                                 01JGJ4ZP000000000000000000
  ulid-tool bounds 1735689600000 --format uuid"
    )]
    Bounds(BoundsArgs),

    /// Public ids: encrypt ids with a key, as ulid_encrypt() does
    #[command(
        long_about = "\
The public id of each id: AES (128, 192 or 256 by the key's length) of its \
16 bytes, exactly what ulid_encrypt(id, key) gives. The key comes from \
exactly one of: --key-file (a file of the raw 16, 24 or 32 bytes), \
--key-hex-file (a file whose first line is the key in hexadecimal digits), \
--key-env (an environment variable holding them) or --key-hex (the digits \
themselves). It is never printed, not even in an error.

A key file that group or others may open (mode & 077 not zero) is refused, \
as ssh refuses such a private key: chmod 600 it, or pass \
--allow-readable-key to use it with a warning. The file judged is the one \
opened: a symlink's target, the file behind /dev/stdin. A key file may be \
standard input (- or /dev/stdin) only when the ids are given as arguments. \
--key-hex is seen by ps and kept in shell history: prefer a key file or \
--key-env.",
        after_help = "\
Examples:
  (umask 077; head -c 32 /dev/urandom > key.bin)    a new AES-256 key, private
  ulid-tool encrypt 01JGFJJZ00XHF7E02JJ03AE4T7 --key-file key.bin
  psql -Atc 'SELECT id FROM orders' | ulid-tool encrypt --key-file key.bin
  (umask 077; od -An -vtx1 -N32 /dev/urandom | tr -d ' \\n' > key.hex)
                                                    a new AES-256 key, in hexadecimal
  ulid-tool encrypt 01JGFJJZ00XHF7E02JJ03AE4T7 --key-hex-file key.hex
  ULID_KEY=$(cat key.hex) ulid-tool encrypt 01JGFJJZ00XHF7E02JJ03AE4T7 --key-env ULID_KEY"
    )]
    Encrypt(CryptArgs),

    /// Public ids: decrypt public ids with their key, as ulid_decrypt() does
    #[command(
        long_about = "\
The id behind each public id: AES decryption of its 16 bytes, exactly what \
ulid_decrypt(id, key) gives. The key comes from exactly one of --key-file \
(the raw 16, 24 or 32 bytes), --key-hex-file (the first line of a file, in \
hexadecimal digits), --key-env (an environment variable) or --key-hex; it \
is never printed. A key file that group or others may open is refused, as \
for encrypt.",
        after_help = "\
Examples:
  ulid-tool decrypt 38Z4YRRNNWWW2QZ01QS8KN01E9 --key-file key.bin
  ulid-tool decrypt 38Z4YRRNNWWW2QZ01QS8KN01E9 --key-env ULID_KEY"
    )]
    Decrypt(CryptArgs),
}

/// How an id is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdFormat {
    /// 26 Crockford base32 characters
    Ulid,
    /// The UUID text, 8-4-4-4-12 lower-case hexadecimal digits
    Uuid,
    /// \x and 32 lower-case hexadecimal digits, as a bytea
    Hex,
}

/// Which bits of a new id are random.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// The 80 bits after the timestamp, as the ULID specification says
    Ulid,
    /// Also a valid RFC 9562 UUIDv7: version 7, variant 10, 74 random bits
    Uuidv7,
}

/// How far --monotonic moves within one millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StepArg {
    /// A uniformly random amount in [1, 2^32], as gen_monotonic_ulid()
    Random,
    /// Plus one, as the ULID specification says
    One,
}

/// How `parse` prints what it found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ParseFormat {
    /// One field a line, a blank line between ids
    Text,
    /// One JSON object a line
    Json,
    /// One id a line, tab-separated fields
    Tsv,
}

/// How many ids, and of which time: the `[N]` and `--time` of `new` and
/// `monotonic`.
#[derive(Debug, Args)]
pub struct Batch {
    /// How many ids
    #[arg(value_name = "N", default_value_t = 1)]
    pub count: u64,

    /// Make ids of this time instead of now: RFC 3339 (2025-01-01T12:00:00Z,
    /// 2025-01-01T13:00:00.250+01:00) or Unix milliseconds (1735732800000)
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
}

/// How new ids are laid out and written: `--layout` and `--format` of
/// `new`, `monotonic` and `from-time`. (Each of them declares its own
/// `--step` and `--after`, whose help says how they read for it.)
#[derive(Debug, Args)]
pub struct Making {
    /// Which bits are random
    #[arg(long, value_enum, default_value_t = LayoutArg::Ulid)]
    pub layout: LayoutArg,

    #[command(flatten)]
    pub output: IdOutput,
}

/// How the ids a command prints are written: `--format` of every command
/// that prints ids (`parse` prints more, and has its own).
#[derive(Debug, Args)]
pub struct IdOutput {
    /// How ids are written
    #[arg(long, value_enum, default_value_t = IdFormat::Ulid)]
    pub format: IdFormat,
}

/// The ids a command reads: `parse`, `validate`, `encrypt` and `decrypt`.
#[derive(Debug, Args)]
pub struct IdsInput {
    /// Ids in any of the three forms, read as given; none: one per line from
    /// standard input, the blanks around it ignored
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    #[command(flatten)]
    pub batch: Batch,

    /// Every id greater than the one before
    #[arg(long)]
    pub monotonic: bool,

    /// How far --monotonic steps within one millisecond
    #[arg(long, value_enum, default_value_t = StepArg::Random, requires = "monotonic")]
    pub step: StepArg,

    #[command(flatten)]
    pub making: Making,

    /// Start --monotonic above this id, as if it had been made last (for tests)
    #[arg(long, value_name = "ID", hide = true, requires = "monotonic")]
    pub after: Option<String>,
}

#[derive(Debug, Args)]
pub struct MonotonicArgs {
    #[command(flatten)]
    pub batch: Batch,

    #[command(flatten)]
    pub stepping: Stepping,
}

/// How the ids of `monotonic` and `from-time` follow one another, and how
/// they are made and written.
#[derive(Debug, Args)]
pub struct Stepping {
    /// How far each id steps within one millisecond
    #[arg(long, value_enum, default_value_t = StepArg::Random)]
    pub step: StepArg,

    #[command(flatten)]
    pub making: Making,

    /// Start above this id, as if it had been made last (for tests; with
    /// from-time, an id of TIME's millisecond)
    #[arg(long, value_name = "ID", hide = true)]
    pub after: Option<String>,
}

#[derive(Debug, Args)]
pub struct FromTimeArgs {
    /// RFC 3339 (2025-01-01T00:00:00Z) or Unix milliseconds
    #[arg(value_name = "TIME")]
    pub time: String,

    /// How many ids
    #[arg(value_name = "N", default_value_t = 1)]
    pub count: u64,

    #[command(flatten)]
    pub stepping: Stepping,
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    #[command(flatten)]
    pub input: IdsInput,

    /// How to print what each id holds
    #[arg(long, value_enum, default_value_t = ParseFormat::Text)]
    pub format: ParseFormat,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: IdsInput,
}

#[derive(Debug, Args)]
pub struct BoundsArgs {
    /// The range's first millisecond: RFC 3339 (2025-01-01T00:00:00Z) or
    /// Unix milliseconds
    #[arg(value_name = "FROM")]
    pub from: String,

    /// The range's last millisecond, included: the second id printed is the
    /// smallest of the millisecond after it
    #[arg(value_name = "TO")]
    pub to: Option<String>,

    #[command(flatten)]
    pub output: IdOutput,
}

/// The key comes from exactly one place (the group `key`): clap refuses
/// none and two, as usage errors.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("key")
        .required(true)
        .multiple(false)
        .args(["key_file", "key_hex_file", "key_env", "key_hex"])
))]
pub struct CryptArgs {
    #[command(flatten)]
    pub input: IdsInput,

    /// A file holding the key: exactly 16, 24 or 32 bytes, readable by its
    /// owner only (chmod 600); - for standard input, when ids are given as
    /// arguments
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<std::path::PathBuf>,

    /// A file whose first line is the key in hexadecimal digits (32, 48 or
    /// 64, \x first at most, blanks around them ignored), readable by its
    /// owner only; - for standard input, when ids are given as arguments
    #[arg(long, value_name = "FILE")]
    pub key_hex_file: Option<std::path::PathBuf>,

    /// The name of an environment variable holding the key in hexadecimal
    /// digits, as for --key-hex-file
    #[arg(long, value_name = "NAME")]
    pub key_env: Option<std::ffi::OsString>,

    /// The key as 32, 48 or 64 hexadecimal digits (seen by ps and kept in
    /// shell history: prefer a key file or --key-env)
    #[arg(long, value_name = "HEX")]
    pub key_hex: Option<String>,

    /// Use a key file that group or others may open, with a warning,
    /// instead of refusing it
    #[arg(long, conflicts_with_all = ["key_hex", "key_env"])]
    pub allow_readable_key: bool,

    #[command(flatten)]
    pub output: IdOutput,
}

/// The id in place of a command (`ulid-tool 01JG...`), which the type would
/// read, when that is why the command line was refused.
pub fn an_id_given_as_a_command(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    match err.get(ContextKind::InvalidSubcommand)? {
        ContextValue::String(word) if ulid_core::codec::parse(word.trim().as_bytes()).is_ok() => {
            Some(word.clone())
        }
        _ => None,
    }
}

/// The clap command, for the man page and the completions.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}
