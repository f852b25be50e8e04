//! `ulid-tool from-time TIME [N]`: N new ids of one millisecond, each greater
//! than the one before, from `new`'s monotonic generator with a clock
//! stopped at TIME. Every id is of TIME's millisecond: when it has no value
//! left the command fails, as the generator does, after the ids made; it
//! never wraps around nor moves on to the next millisecond.

use crate::cli::FromTimeArgs;
use crate::exit::Failure;
use crate::new::{layout, make, parse_after, step, Frozen, NewOptions};
use crate::output::Output;
use crate::time;
use std::io::Write;
use ulid_core::codec;

/// `ulid-tool from-time`.
pub(crate) fn run<W: Write>(args: &FromTimeArgs, out: &mut Output<W>) -> Result<u8, Failure> {
    let ms = time::parse_time(&args.time).map_err(Failure::Message)?;
    let after = match &args.stepping.after {
        Some(text) => {
            let value = parse_after(text)?;
            if codec::timestamp_ms(&value) != ms {
                return Err(Failure::Message(
                    "--after: not an id of TIME's millisecond".into(),
                ));
            }
            Some(value)
        }
        None => None,
    };
    let options = NewOptions {
        count: args.count,
        monotonic: Some(step(args.stepping.step)),
        layout: layout(args.stepping.making.layout),
        format: args.stepping.making.output.format,
        after,
        one_millisecond: true,
    };
    make(&options, &mut Frozen(ms), out)
}
