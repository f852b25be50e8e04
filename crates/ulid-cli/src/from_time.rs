//! `ulid from-time`: the smallest id of a millisecond, what
//! `timestamptz::ulid` gives, for the bounds of a range query.

use crate::cli::FromTimeArgs;
use crate::output::{push_id, Output};
use crate::{time, Failure, OK};
use std::io::Write;
use ulid_core::codec;

/// `ulid from-time`.
pub(crate) fn run<W: Write>(args: &FromTimeArgs, out: &mut Output<W>) -> Result<u8, Failure> {
    let ms = time::parse_time(&args.time).map_err(Failure::Message)?;
    push_id(
        &mut out.buf,
        &codec::from_parts(ms, &[0; codec::RANDOM_BYTES]),
        args.format,
    );
    out.buf.push(b'\n');
    Ok(OK)
}
