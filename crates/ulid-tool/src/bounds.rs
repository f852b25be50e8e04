//! `ulid-tool bounds`: the smallest id of a millisecond, what `timestamptz::ulid`
//! gives, for the bounds of a range query: FROM's, and the one after TO's.

use crate::cli::BoundsArgs;
use crate::exit::{Failure, OK};
use crate::output::{push_id, push_time, Output};
use crate::time;
use std::io::Write;
use ulid_core::codec::{self, MAX_TIMESTAMP_MS};

/// The smallest id of millisecond `ms` (its random part zero): the value
/// `timestamptz::ulid` gives for any time within it.
pub fn smallest_of(ms: u64) -> [u8; codec::BYTES] {
    codec::from_parts(ms, &[0; codec::RANDOM_BYTES])
}

/// The millisecond `ms` as `ulid-tool parse` shows a time, for messages.
fn shown(ms: u64) -> String {
    let mut text = Vec::new();
    push_time(&mut text, ms);
    String::from_utf8_lossy(&text).into_owned()
}

/// `ulid-tool bounds`: both times are read before anything is printed.
pub(crate) fn run<W: Write>(args: &BoundsArgs, out: &mut Output<W>) -> Result<u8, Failure> {
    let from = time::parse_time(&args.from).map_err(Failure::Message)?;
    let after_to = match &args.to {
        Some(text) => {
            let to = time::parse_time(text).map_err(Failure::Message)?;
            if to < from {
                return Err(Failure::Message(format!(
                    "TO ({}) is before FROM ({}): no id lies between them",
                    shown(to),
                    shown(from)
                )));
            }
            if to == MAX_TIMESTAMP_MS {
                return Err(Failure::Message(format!(
                    "TO ({}) is the last millisecond a ULID holds: no id is above it; \
                     leave TO out (id >= FROM alone)",
                    shown(to)
                )));
            }
            Some(to + 1)
        }
        None => None,
    };
    for ms in std::iter::once(from).chain(after_to) {
        push_id(&mut out.buf, &smallest_of(ms), args.output.format);
        out.buf.push(b'\n');
    }
    Ok(OK)
}
