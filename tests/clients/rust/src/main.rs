//! Real clients on PostgreSQL's binary protocol, each through the adapter
//! users copy from examples/rust/: the `postgres` and `tokio-postgres`
//! crates, then sqlx. Values are the `ulid` crate's, and every value read
//! back is compared with what was sent, with the server's text form and with
//! the crate's own ordering and timestamp.
//!
//! Usage: ulid-rust-client-check "host=... port=... user=... dbname=..."
//!
//! Prints one "DRIVER: N checks passed" line per driver; any mismatch ends
//! the program with an error instead.

use std::error::Error;

use ulid::{Generator, Ulid};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Returns early with an error, so one failed comparison fails the run.
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+).into());
        }
    };
}

mod with_postgres;
mod with_sqlx;
mod with_tokio_postgres;

/// ULIDs from the crate's monotonic generator, in the order made, then
/// values at both ends of the timestamp and of the random part.
fn sample() -> Result<Vec<Ulid>> {
    let mut generator = Generator::new();
    let mut values = (0..1000)
        .map(|_| generator.generate())
        .collect::<std::result::Result<Vec<_>, _>>()?;
    ensure!(
        values.windows(2).all(|w| w[0] < w[1]),
        "the generator went backwards"
    );
    let now = values[0].timestamp_ms();
    let max_ms = (1 << 48) - 1;
    let max_random = (1 << 80) - 1;
    values.extend([
        Ulid::nil(),
        Ulid(u128::MAX),
        Ulid::from_parts(0, 1),
        Ulid::from_parts(1, 0),
        Ulid::from_parts(now, 0),
        Ulid::from_parts(now, 1 << 79),
        Ulid::from_parts(now, max_random),
        Ulid::from_parts(1 << 47, 0),
        Ulid::from_parts(max_ms, 0),
    ]);
    Ok(values)
}

/// The indexes of `len` values in a scrambled but reproducible order, so
/// that reading rows back in insertion order cannot pass for sorting.
fn scrambled(len: usize) -> impl Iterator<Item = usize> {
    // 7919 is prime, so coprime with any shorter length: a permutation
    (0..len).map(move |i| i * 7919 % len)
}

/// The `key=value` connection string split into its pairs.
fn conninfo_pairs(conninfo: &str) -> Vec<(&str, &str)> {
    conninfo
        .split_whitespace()
        .filter_map(|pair| pair.split_once('='))
        .collect()
}

fn main() -> Result<()> {
    let conninfo = std::env::args()
        .nth(1)
        .ok_or("usage: ulid-rust-client-check CONNINFO")?;
    let values = sample()?;

    // The blocking client runs its own runtime, so it goes first, outside ours.
    let checks = with_postgres::run(&conninfo, &values)?;
    println!("postgres: {checks} checks passed");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let checks = runtime.block_on(with_tokio_postgres::run(&conninfo, &values))?;
    println!("tokio-postgres: {checks} checks passed");
    let checks = runtime.block_on(with_sqlx::run(&conninfo, &values))?;
    println!("sqlx: {checks} checks passed");
    Ok(())
}
