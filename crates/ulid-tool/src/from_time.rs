//! `ulid-tool from-time TIME [N]`: N new ids of one millisecond, each greater
//! than the one before, from ulid-core's monotonic generator with a clock
//! stopped at TIME. Every id is of TIME's millisecond: when it has no value
//! left the command fails, as the generator does, after the ids made; it
//! never wraps around nor moves on to the next millisecond.

use crate::cli::{FromTimeArgs, IdFormat};
use crate::exit::{Failure, OK};
use crate::new::{generate_failure, layout, step, NewError};
use crate::output::{push_id, Output};
use crate::time;
use std::io::Write;
use ulid_core::codec::{self, BYTES};
use ulid_core::monotonic::{GenerateError, Layout, Monotonic, Step};
use ulid_core::rng::{ProcessRng, RandomSource};

/// What `ulid-tool from-time` was asked for.
#[derive(Debug, Clone, Copy)]
pub struct FromTimeOptions {
    /// The Unix millisecond of every id.
    pub ms: u64,
    pub count: u64,
    pub step: Step,
    pub layout: Layout,
    pub format: IdFormat,
    /// Start above this value (of millisecond `ms`), as if it had been made
    /// last.
    pub after: Option<[u8; BYTES]>,
}

/// Writes `options.count` ids of millisecond `options.ms` to `out`, one a
/// line, each greater than the one before.
pub fn write_from_time<W: Write>(
    options: &FromTimeOptions,
    rng: &mut impl RandomSource,
    out: &mut Output<W>,
) -> Result<(), NewError> {
    let mut state = Monotonic::new();
    if let Some(after) = options.after {
        state.advance_past(after);
    }
    for made in 0..options.count {
        let value = state
            .next(options.ms, rng, options.step, options.layout)
            .map_err(|err| NewError::Generate { err, made })?;
        // the generator keeps the millisecond of its last value, which is
        // this one; the one case it moves on (UUIDv7s after a value of the
        // other layout with none left above it) is this millisecond's end
        if codec::timestamp_ms(&value) != options.ms {
            return Err(NewError::Generate {
                err: GenerateError::Exhausted,
                made,
            });
        }
        push_id(&mut out.buf, &value, options.format);
        out.buf.push(b'\n');
        out.flush_if_full()?;
    }
    Ok(())
}

/// `ulid-tool from-time`.
pub(crate) fn run<W: Write>(args: &FromTimeArgs, out: &mut Output<W>) -> Result<u8, Failure> {
    let ms = time::parse_time(&args.time).map_err(Failure::Message)?;
    let after = match &args.after {
        Some(text) => {
            let text = text.trim().as_bytes();
            let value = codec::parse(text)
                .map_err(|err| Failure::Message(format!("--after: {}", err.detail(text))))?;
            if codec::timestamp_ms(&value) != ms {
                return Err(Failure::Message(
                    "--after: not an id of TIME's millisecond".into(),
                ));
            }
            Some(value)
        }
        None => None,
    };
    let options = FromTimeOptions {
        ms,
        count: args.count,
        step: step(args.step),
        layout: layout(args.making.layout),
        format: args.making.output.format,
        after,
    };
    let mut rng = ProcessRng::new();
    let mut rng = rng.for_process(std::process::id() as i32);
    match write_from_time(&options, &mut rng, out) {
        Ok(()) => Ok(OK),
        Err(NewError::Io(err)) => Err(Failure::Io(err)),
        Err(NewError::Generate { err, made }) => Err(Failure::Message(generate_failure(
            err,
            made,
            options.layout,
        ))),
    }
}
