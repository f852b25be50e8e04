//! `ulid-tool new` and `monotonic`: new ids from a clock and a random
//! source, both passed in, so that tests can freeze the clock, step it
//! back, or start the monotonic state near the end of a millisecond.
//! `write_new` is the one loop that makes ids: `from-time` runs it too, on
//! a clock stopped at its millisecond.

use crate::cli::{Batch, IdFormat, LayoutArg, Making, MonotonicArgs, NewArgs, StepArg};
use crate::exit::{Failure, OK};
use crate::output::{push_id, Output};
use crate::time;
use std::io::{self, Write};
use ulid_core::codec::{self, BYTES};
use ulid_core::monotonic::{self, GenerateError, Layout, Monotonic, Step};
use ulid_core::rng::{ProcessRng, RandomSource};

/// Where the millisecond of each new id comes from.
pub trait Clock {
    fn now_ms(&mut self) -> Result<u64, GenerateError>;
}

/// The system's wall clock.
pub struct SystemClock;

impl Clock for SystemClock {
    #[inline]
    fn now_ms(&mut self) -> Result<u64, GenerateError> {
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(since) => {
                u64::try_from(since.as_millis()).map_err(|_| GenerateError::TimestampOutOfRange)
            }
            // a clock before 1970 has no ULID
            Err(_) => Err(GenerateError::TimestampOutOfRange),
        }
    }
}

/// A clock stopped at one millisecond (`--time`).
pub struct Frozen(pub u64);

impl Clock for Frozen {
    #[inline]
    fn now_ms(&mut self) -> Result<u64, GenerateError> {
        Ok(self.0)
    }
}

/// What `ulid-tool new` (or `monotonic`, or `from-time`) was asked for.
#[derive(Debug, Clone, Copy)]
pub struct NewOptions {
    pub count: u64,
    /// `Some(step)` for `--monotonic`
    pub monotonic: Option<Step>,
    pub layout: Layout,
    pub format: IdFormat,
    /// Start the monotonic state above this value.
    pub after: Option<[u8; BYTES]>,
    /// Every id of the millisecond the clock reads (`from-time`): an id the
    /// generator would make past it means that millisecond has no value
    /// left, and fails as `GenerateError::Exhausted`.
    pub one_millisecond: bool,
}

/// Why `new` stopped: a value could not be made (after `made` ids), or the
/// output could not be written.
#[derive(Debug)]
pub enum NewError {
    Generate { err: GenerateError, made: u64 },
    Io(io::Error),
}

impl From<io::Error> for NewError {
    fn from(err: io::Error) -> Self {
        NewError::Io(err)
    }
}

/// Writes `options.count` new ids to `out`, one per line.
pub fn write_new<W: Write>(
    options: &NewOptions,
    clock: &mut impl Clock,
    rng: &mut impl RandomSource,
    out: &mut Output<W>,
) -> Result<(), NewError> {
    let layout = options.layout;
    match options.monotonic {
        Some(step) => {
            let mut state = Monotonic::new();
            if let Some(after) = options.after {
                state.advance_past(after);
            }
            write_ids(options, clock, out, |now| {
                state.next(now, rng, step, layout)
            })
        }
        None => write_ids(options, clock, out, |now| {
            monotonic::generate(now, rng, layout)
        }),
    }
}

/// The loop: `options.count` ids, each `make` of the clock's reading, one
/// a line. (Generic in `make`, so that each generator gets a loop of its
/// own, with no choice between them on the way of every id.)
#[inline(always)]
fn write_ids<W: Write>(
    options: &NewOptions,
    clock: &mut impl Clock,
    out: &mut Output<W>,
    mut make: impl FnMut(u64) -> Result<[u8; BYTES], GenerateError>,
) -> Result<(), NewError> {
    for made in 0..options.count {
        let failed = |err| NewError::Generate { err, made };
        let now = clock.now_ms().map_err(failed)?;
        let value = make(now).map_err(failed)?;
        // the generator keeps the millisecond of its last value, which is
        // this one; the one case it moves on (UUIDv7s after a value of the
        // other layout with none left above it) is this millisecond's end
        if options.one_millisecond && codec::timestamp_ms(&value) != now {
            return Err(failed(GenerateError::Exhausted));
        }
        push_id(&mut out.buf, &value, options.format);
        out.buf.push(b'\n');
        out.flush_if_full()?;
    }
    Ok(())
}

/// The layout `arg` names.
pub fn layout(arg: LayoutArg) -> Layout {
    match arg {
        LayoutArg::Ulid => Layout::Ulid,
        LayoutArg::Uuidv7 => Layout::UuidV7,
    }
}

/// The step `arg` names.
pub fn step(arg: StepArg) -> Step {
    match arg {
        StepArg::Random => Step::Random,
        StepArg::One => Step::One,
    }
}

/// What is said when no value could be made after `made` ids.
pub fn generate_failure(err: GenerateError, made: u64, layout: Layout) -> String {
    let ids = if made == 1 { "id" } else { "ids" };
    format!(
        "{} after {made} {ids}: {}",
        err.message(),
        err.detail(layout)
    )
}

/// The value `--after` names.
pub(crate) fn parse_after(text: &str) -> Result<[u8; BYTES], Failure> {
    let text = text.trim().as_bytes();
    codec::parse(text).map_err(|err| Failure::Message(format!("--after: {}", err.detail(text))))
}

/// `ulid-tool new`.
pub(crate) fn run<W: Write>(args: &NewArgs, out: &mut Output<W>) -> Result<u8, Failure> {
    let step = args.monotonic.then_some(args.step);
    new_ids(&args.batch, step, args.after.as_deref(), &args.making, out)
}

/// `ulid-tool monotonic`: `new --monotonic`.
pub(crate) fn run_monotonic<W: Write>(
    args: &MonotonicArgs,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    let stepping = &args.stepping;
    new_ids(
        &args.batch,
        Some(stepping.step),
        stepping.after.as_deref(),
        &stepping.making,
        out,
    )
}

/// New ids, monotonic when `step` is there.
fn new_ids<W: Write>(
    batch: &Batch,
    step: Option<StepArg>,
    after: Option<&str>,
    making: &Making,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    let options = NewOptions {
        count: batch.count,
        monotonic: step.map(self::step),
        layout: layout(making.layout),
        format: making.output.format,
        after: after.map(parse_after).transpose()?,
        one_millisecond: false,
    };
    match &batch.time {
        Some(text) => {
            let ms = time::parse_time(text).map_err(Failure::Message)?;
            make(&options, &mut Frozen(ms), out)
        }
        None => make(&options, &mut SystemClock, out),
    }
}

/// Writes the ids `options` asks for, read from `clock`, with this
/// process's random source, and says why if it stops early.
pub(crate) fn make<W: Write>(
    options: &NewOptions,
    clock: &mut impl Clock,
    out: &mut Output<W>,
) -> Result<u8, Failure> {
    let mut rng = ProcessRng::new();
    let mut rng = rng.for_process(std::process::id() as i32);
    match write_new(options, clock, &mut rng, out) {
        Ok(()) => Ok(OK),
        Err(NewError::Io(err)) => Err(Failure::Io(err)),
        Err(NewError::Generate { err, made }) => Err(Failure::Message(generate_failure(
            err,
            made,
            options.layout,
        ))),
    }
}
