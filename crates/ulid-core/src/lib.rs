//! The pure core of `ulid`: everything about a ULID that needs no
//! PostgreSQL, so it builds and is tested with plain `cargo test -p ulid-core`
//! on any machine.
//!
//! - `codec`: the 16-byte value, its 26-character Crockford base32 text and
//!   the two other texts clients send for the same 128 bits;
//! - `monotonic`: new values, and the specification's monotonic state
//!   machine (random or +1 steps within a millisecond, either layout);
//! - `rng`: the per-process CSPRNG new values draw from;
//! - `time`: PostgreSQL `timestamptz` microseconds to and from the Unix
//!   milliseconds a ULID holds;
//! - `cipher`: AES on a ULID's 16 bytes, for public ids (the extension's
//!   and ulid-tool's `public_ids` modules).
//!
//! The extension crate (the repository's root) is the SQL layer on top:
//! it reads the clock, finds the generator's state, and turns the errors
//! defined here into PostgreSQL errors. The command-line tool, ulid-tool
//! (`crates/ulid-tool`), is the other user, with the same words for them.
//!
//! Its one `unsafe` block (`cipher`'s empty `asm!`) says why it is sound;
//! clippy refuses an `unsafe` block without a `// SAFETY:` comment, or an
//! `unsafe fn` without a `# Safety` section.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod cipher;
pub mod codec;
pub mod monotonic;
pub mod rng;
pub mod time;
