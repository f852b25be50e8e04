//! Making new ULIDs: `generate` for a value of a given millisecond, and the
//! monotonic state machine of the specification, in either layout. Pure
//! Rust, no PostgreSQL: the clock reading and the random source are passed
//! in, so tests can step the clock backwards or pin the random bits. The
//! random source itself is `rng.rs`.
//!
//! Within one millisecond the monotonic generator steps by a uniformly
//! random amount in [1, 2^32] (`Step::Random`, much as oklog/ulid's default
//! steps by up to 2^32 - 1), so
//! that a value does not give away its neighbours; `Step::One` is the
//! specification's +1.
//!
//! Under `Layout::UuidV7` every new value is also a valid RFC 9562 UUIDv7:
//! the version nibble (bits 48-51) is 7, the variant (bits 64-65) is `10`,
//! and the other 74 bits of the random part are random. The monotonic
//! generator then steps over those 74 bits, and after a value of the other
//! layout (sessions with different settings can share one state) it finds
//! the next UUIDv7 above it, in the same millisecond when there is one and
//! in the next millisecond when there is none.
//!
//! Where the state lives (a backend's memory or shared memory under a lock,
//! the extension's `src/generators.rs` and `src/shmem.rs`; one run of the
//! command-line tool) is decided by the caller; this module only says how
//! it moves.

use crate::codec::{self, BYTES, MAX_TIMESTAMP_MS, RANDOM_BYTES};
use crate::rng::RandomSource;

/// Why no value could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerateError {
    /// The millisecond is after 10889-08-02 05:31:50.655 UTC, the last one a
    /// ULID can hold.
    TimestampOutOfRange,
    /// Within one millisecond the random part (80 bits, or the 74 free bits
    /// of a UUIDv7) reached all ones; the specification says to fail rather
    /// than wrap.
    Exhausted,
}

impl GenerateError {
    /// What went wrong, in the words of the error's message: the
    /// extension's (after the generator's name for the exhausted
    /// millisecond) and the command-line tool's.
    pub fn message(&self) -> &'static str {
        match self {
            GenerateError::TimestampOutOfRange => crate::time::RANGE_MESSAGE,
            GenerateError::Exhausted => "no value left in this millisecond",
        }
    }

    /// The message as a generator named `generator` raises it: the
    /// extension's `gen_monotonic_ulid() has no value left in this
    /// millisecond`.
    pub fn message_of(&self, generator: &str) -> String {
        match self {
            GenerateError::TimestampOutOfRange => self.message().to_string(),
            GenerateError::Exhausted => format!("{generator} has {}", self.message()),
        }
    }

    /// What to do about it, where there is something to do: the HINT.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            GenerateError::TimestampOutOfRange => None,
            GenerateError::Exhausted => {
                Some("Values are available again from the next millisecond.")
            }
        }
    }

    /// Why no value could be made, in one sentence: the DETAIL of the
    /// generators' errors, and what the command-line tool says.
    pub fn detail(&self, layout: Layout) -> &'static str {
        match (self, layout) {
            (GenerateError::TimestampOutOfRange, _) => crate::time::RANGE_DETAIL,
            (GenerateError::Exhausted, Layout::Ulid) => {
                "The 80-bit random part reached its largest value; \
                 the generator fails rather than wrap around."
            }
            (GenerateError::Exhausted, Layout::UuidV7) => {
                "The 74 random bits of the UUIDv7 layout reached their largest value; \
                 the generator fails rather than wrap around."
            }
        }
    }
}

/// How far a monotonic generator moves within one millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A uniformly random amount in [1, 2^32]: someone who holds one value
    /// cannot find the next by counting, and a millisecond starting at a
    /// random point still has room for about 2^48 values.
    Random,
    /// The specification's +1: values of one millisecond are dense, and
    /// each one names its neighbours.
    One,
}

impl Step {
    /// What a step of this kind adds, less one: a random draw, or 0.
    #[inline]
    fn draw(self, rng: &mut impl RandomSource) -> u32 {
        match self {
            Step::Random => rng.random_u32(),
            Step::One => 0,
        }
    }
}

/// Which bits of a new value are random.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The ULID specification's: all 80 bits after the timestamp.
    Ulid,
    /// Also a valid RFC 9562 UUIDv7: version 7, variant `10`, 74 random bits.
    UuidV7,
}

/// Whether `value` is laid out as a UUIDv7 (version 7, variant `10`).
#[inline]
pub fn is_uuidv7(value: &[u8; BYTES]) -> bool {
    value[6] >> 4 == 7 && value[8] >> 6 == 0b10
}

/// The 74 free bits of a UUIDv7 as one number, in the value's bit order.
const V7_MAX: u128 = (1 << 74) - 1;

/// The 74 free bits of `value` (which need not be a UUIDv7): the low nibble
/// of byte 6, byte 7, the low six bits of byte 8 and bytes 9 to 15.
#[inline]
fn v7_counter(value: &[u8; BYTES]) -> u128 {
    let number = u128::from_be_bytes(*value);
    (((number >> 72) & 0xF) << 70) | (((number >> 64) & 0xFF) << 62) | (number & ((1 << 62) - 1))
}

/// The UUIDv7 of millisecond `ms` whose 74 free bits are `counter`.
#[inline]
fn from_v7_counter(ms: u64, counter: u128) -> [u8; BYTES] {
    let number = (u128::from(ms) << 80)
        | (0x7 << 76)
        | (counter >> 70 << 72)
        | ((counter >> 62 & 0xFF) << 64)
        | (0b10 << 62)
        | (counter & ((1 << 62) - 1));
    number.to_be_bytes()
}

/// A ULID for `now_ms` with fresh random bits, laid out as `layout` says.
#[inline]
pub fn generate(
    now_ms: u64,
    rng: &mut impl RandomSource,
    layout: Layout,
) -> Result<[u8; BYTES], GenerateError> {
    if now_ms > MAX_TIMESTAMP_MS {
        return Err(GenerateError::TimestampOutOfRange);
    }
    let value = codec::from_parts(now_ms, &rng.random());
    Ok(match layout {
        Layout::Ulid => value,
        // the same draw, with its 74 free bits where a UUIDv7 has them
        Layout::UuidV7 => from_v7_counter(now_ms, v7_counter(&value)),
    })
}

/// What `Monotonic::next` does for a clock reading: fresh random bits for
/// a millisecond, or a step from a base within the last value's millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Fresh {
        ms: u64,
    },
    /// Step the whole 80-bit random part up from the last value.
    StepRandomPart,
    /// Step the 74 free bits of a UUIDv7 up from `from`, the greatest
    /// UUIDv7 of the millisecond at or below the last value.
    StepV7 {
        from: u128,
    },
}

/// The state of a monotonic generator: the last value it handed out.
///
/// All zeros means "nothing yet"; it is plain bytes so it can live in shared
/// memory as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Monotonic([u8; BYTES]);

impl Monotonic {
    pub const fn new() -> Self {
        Monotonic([0; BYTES])
    }

    /// The last value handed out (all zeros before the first).
    pub fn last(&self) -> [u8; BYTES] {
        self.0
    }

    /// Never hand out anything at or below `value`: tests use it to start
    /// from a known point, as if the clock had been ahead. It only ever
    /// moves the state forward, so it cannot break monotonicity.
    pub fn advance_past(&mut self, value: [u8; BYTES]) {
        if value > self.0 {
            self.0 = value;
        }
    }

    /// How the next value for `now_ms` is made.
    #[inline]
    fn plan(&self, now_ms: u64, layout: Layout) -> Plan {
        let last_ms = codec::timestamp_ms(&self.0);
        if now_ms > last_ms {
            return Plan::Fresh { ms: now_ms };
        }
        match layout {
            Layout::Ulid => Plan::StepRandomPart,
            Layout::UuidV7 => {
                // the greatest UUIDv7 of the last value's millisecond that is
                // not above it, by the version nibble and the variant bits
                let last = &self.0;
                let prefix = v7_counter(last) >> 62; // the 12 bits before the variant
                let below = match (last[6] >> 4).cmp(&7) {
                    // every UUIDv7 of the millisecond is above it
                    core::cmp::Ordering::Less => None,
                    // none is
                    core::cmp::Ordering::Greater => Some(V7_MAX),
                    core::cmp::Ordering::Equal => match last[8] >> 6 {
                        0b10 => Some(v7_counter(last)),
                        0b11 => Some(prefix << 62 | ((1 << 62) - 1)),
                        _ if prefix == 0 => None,
                        _ => Some((prefix - 1) << 62 | ((1 << 62) - 1)),
                    },
                };
                match below {
                    None => Plan::Fresh { ms: last_ms },
                    // no UUIDv7 left above a value of the other layout: the
                    // next millisecond (a UUIDv7 that is full is exhausted,
                    // as in the other layout)
                    Some(V7_MAX) if !is_uuidv7(last) => Plan::Fresh { ms: last_ms + 1 },
                    Some(from) => Plan::StepV7 { from },
                }
            }
        }
    }

    /// Whether `next(now_ms, ..)` would draw fresh random bits: for a
    /// millisecond later than the last value's, and under `Layout::UuidV7`
    /// when the last value's millisecond holds no UUIDv7 at or below it, or
    /// none above it.
    #[inline]
    pub fn needs_random(&self, now_ms: u64, layout: Layout) -> bool {
        matches!(self.plan(now_ms, layout), Plan::Fresh { .. })
    }

    /// The next value, strictly greater than every one before it.
    ///
    /// A later millisecond gets fresh random bits (`rng.random()`). The same
    /// millisecond, or an earlier one because the clock stepped back, keeps
    /// the last timestamp and adds `step` to the random part (under
    /// `Layout::UuidV7`, to its 74 free bits), with carry, until the clock
    /// catches up; a random step takes `rng.random_u32()`. `rng` is asked
    /// only for what is needed.
    #[inline]
    pub fn next(
        &mut self,
        now_ms: u64,
        rng: &mut impl RandomSource,
        step: Step,
        layout: Layout,
    ) -> Result<[u8; BYTES], GenerateError> {
        let value = match self.plan(now_ms, layout) {
            Plan::Fresh { ms } => generate(ms, rng, layout)?,
            Plan::StepRandomPart => {
                step_random_part(&self.0, step.draw(rng)).ok_or(GenerateError::Exhausted)?
            }
            Plan::StepV7 { from } => {
                let counter =
                    step_within(from, V7_MAX, step.draw(rng)).ok_or(GenerateError::Exhausted)?;
                from_v7_counter(codec::timestamp_ms(&self.0), counter)
            }
        };
        self.0 = value;
        Ok(value)
    }
}

/// The 80-bit random part of a ULID read as a big-endian `u128`.
const RANDOM_MASK: u128 = (1 << (8 * RANDOM_BYTES)) - 1;

/// `value` moved forward by `draw + 1` within its millisecond, or `None`
/// when its random part is already all ones.
///
/// `draw` is uniform on the 32-bit numbers for a random step (so the step
/// is uniform on [1, 2^32]) and 0 for +1. The random part never wraps: when
/// fewer values are left above `value` than the step, the step is
/// `draw % left + 1` instead, still at least one and at most what is left,
/// so the generator moves forward until the random part is all ones and
/// fails only then. A millisecond that starts at a uniformly random point
/// gets there after about 2^48 random steps.
///
/// As one big-endian 128-bit number the carry runs through the random part
/// by itself and never reaches the timestamp. Most calls of a busy
/// generator come here, so it is a handful of instructions rather than a
/// byte-by-byte carry loop.
#[inline]
fn step_random_part(value: &[u8; BYTES], draw: u32) -> Option<[u8; BYTES]> {
    let number = u128::from_be_bytes(*value);
    let random = step_within(number & RANDOM_MASK, RANDOM_MASK, draw)?;
    Some((number & !RANDOM_MASK | random).to_be_bytes())
}

/// `from` moved forward by `draw + 1`, or by `draw % left + 1` when fewer
/// than that are left up to `max`; `None` when `from` is `max`.
#[inline]
fn step_within(from: u128, max: u128, draw: u32) -> Option<u128> {
    let left = max - from;
    let step = if u128::from(draw) < left {
        u128::from(draw) + 1
    } else if left > 0 {
        // fewer than 2^32 values left: `left` fits in 32 bits here
        u128::from(draw % left as u32) + 1
    } else {
        return None;
    };
    Some(from + step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode, encode};
    use crate::rng::ProcessRng;

    /// Hands out a fixed sequence of random parts, and of 32-bit draws for
    /// random steps, and counts the calls of each.
    struct Scripted {
        parts: Vec<[u8; RANDOM_BYTES]>,
        calls: usize,
        draws: Vec<u32>,
        draw_calls: usize,
    }

    impl RandomSource for Scripted {
        fn random(&mut self) -> [u8; RANDOM_BYTES] {
            let value = self.parts[self.calls % self.parts.len()];
            self.calls += 1;
            value
        }

        fn random_u32(&mut self) -> u32 {
            let value = self.draws[self.draw_calls % self.draws.len()];
            self.draw_calls += 1;
            value
        }
    }

    /// Random parts as given; every random step draws 0 (a step of one).
    fn scripted(parts: &[[u8; RANDOM_BYTES]]) -> Scripted {
        scripted_steps(parts, &[0])
    }

    fn scripted_steps(parts: &[[u8; RANDOM_BYTES]], draws: &[u32]) -> Scripted {
        Scripted {
            parts: parts.to_vec(),
            calls: 0,
            draws: draws.to_vec(),
            draw_calls: 0,
        }
    }

    /// The random part of a value as a number.
    fn random_number(value: [u8; BYTES]) -> u128 {
        u128::from_be_bytes(value) & RANDOM_MASK
    }

    fn text(bytes: [u8; BYTES]) -> String {
        String::from_utf8(encode(&bytes).to_vec()).unwrap()
    }

    fn random_part(text: &str) -> [u8; RANDOM_BYTES] {
        decode(text.as_bytes()).unwrap()[6..].try_into().unwrap()
    }

    #[test]
    fn spec_example_run_within_one_millisecond() {
        let first = "01BX5ZZKBKACTAV9WEVGEMMVRY";
        let ms = codec::timestamp_ms(&decode(first.as_bytes()).unwrap());
        let mut rng = scripted(&[random_part(first)]);
        let mut state = Monotonic::new();
        let run: Vec<String> = (0..4)
            .map(|_| text(state.next(ms, &mut rng, Step::One, Layout::Ulid).unwrap()))
            .collect();
        assert_eq!(
            run,
            [
                "01BX5ZZKBKACTAV9WEVGEMMVRY",
                "01BX5ZZKBKACTAV9WEVGEMMVRZ",
                "01BX5ZZKBKACTAV9WEVGEMMVS0",
                "01BX5ZZKBKACTAV9WEVGEMMVS1"
            ]
        );
        assert_eq!(
            (rng.calls, rng.draw_calls),
            (1, 0),
            "fresh randomness only for the first value of the millisecond, and no step drawn"
        );
    }

    #[test]
    fn overflow_within_one_millisecond_fails_and_does_not_wrap() {
        let last = "01BX5ZZKBKZZZZZZZZZZZZZZZZ";
        let ms = codec::timestamp_ms(&decode(last.as_bytes()).unwrap());
        let mut rng = scripted(&[[0xFF; RANDOM_BYTES]]);
        let mut state = Monotonic::new();
        assert_eq!(
            text(state.next(ms, &mut rng, Step::One, Layout::Ulid).unwrap()),
            last
        );
        for step in [Step::One, Step::Random, Step::One] {
            assert_eq!(
                state.next(ms, &mut rng, step, Layout::Ulid),
                Err(GenerateError::Exhausted)
            );
        }
        assert_eq!(text(state.last()), last, "a failure leaves the state alone");
        // the next millisecond recovers with fresh bits
        let next = state
            .next(
                ms + 1,
                &mut scripted(&[[0; RANDOM_BYTES]]),
                Step::Random,
                Layout::Ulid,
            )
            .unwrap();
        assert_eq!(codec::timestamp_ms(&next), ms + 1);
    }

    #[test]
    fn carry_runs_through_the_random_part_only() {
        let mut value = [0u8; BYTES];
        value[5] = 7; // timestamp byte
        value[7..].fill(0xFF);
        let next = step_random_part(&value, 0).unwrap();
        assert_eq!(next[..6], value[..6]);
        assert_eq!(next[6], 1);
        assert!(next[7..].iter().all(|&b| b == 0));
        // the largest step carries too
        let mut value = [0u8; BYTES];
        value[5] = 7;
        value[12..].fill(0xFF);
        let next = step_random_part(&value, u32::MAX).unwrap();
        assert_eq!(next[..6], value[..6]);
        assert_eq!(random_number(next), 0xFFFF_FFFF + (1 << 32));
    }

    #[test]
    fn a_random_step_is_the_draw_plus_one() {
        let start = decode(b"01BX5ZZKBKACTAV9WEVGEMMVRY").unwrap();
        let ms = codec::timestamp_ms(&start);
        let draws = [0, u32::MAX, 12_345, 1 << 31];
        let mut rng = scripted_steps(&[random_part("01BX5ZZKBKACTAV9WEVGEMMVRY")], &draws);
        let mut state = Monotonic::new();
        let mut previous = state
            .next(ms, &mut rng, Step::Random, Layout::Ulid)
            .unwrap();
        assert_eq!(previous, start);
        for draw in draws {
            let value = state
                .next(ms, &mut rng, Step::Random, Layout::Ulid)
                .unwrap();
            assert_eq!(codec::timestamp_ms(&value), ms);
            assert_eq!(
                random_number(value) - random_number(previous),
                u128::from(draw) + 1
            );
            previous = value;
        }
        assert_eq!((rng.calls, rng.draw_calls), (1, draws.len()));
    }

    #[test]
    fn near_the_end_random_steps_shrink_and_fail_only_at_all_ones() {
        let mut part = [0xFF; RANDOM_BYTES];
        part[RANDOM_BYTES - 1] = 0xFF - 5; // five values left above it
        let ms = 1_735_689_600_000;
        // draw 7 with 5 left: step 7 % 5 + 1 = 3, 2 left; draw 4: 4 % 2 + 1 = 1,
        // 1 left; draw 0: step 1, all ones
        let mut rng = scripted_steps(&[part], &[7, 4, 0, 9]);
        let mut state = Monotonic::new();
        let first = random_number(
            state
                .next(ms, &mut rng, Step::Random, Layout::Ulid)
                .unwrap(),
        );
        assert_eq!(first, RANDOM_MASK - 5);
        let run: Vec<u128> = (0..3)
            .map(|_| {
                random_number(
                    state
                        .next(ms, &mut rng, Step::Random, Layout::Ulid)
                        .unwrap(),
                )
            })
            .collect();
        assert_eq!(run, [RANDOM_MASK - 2, RANDOM_MASK - 1, RANDOM_MASK]);
        assert_eq!(
            state.next(ms, &mut rng, Step::Random, Layout::Ulid),
            Err(GenerateError::Exhausted)
        );
        assert_eq!(random_number(state.last()), RANDOM_MASK, "no wrap");
    }

    proptest::proptest! {
        #[test]
        fn every_step_moves_forward_within_the_millisecond_and_never_wraps(
            ms in 0..=MAX_TIMESTAMP_MS,
            part in 0..=RANDOM_MASK,
            near_the_end in proptest::bool::ANY,
            draw in proptest::num::u32::ANY,
            one in proptest::bool::ANY,
        ) {
            // half the cases within 2^33 of the end, where steps must shrink
            let part = if near_the_end { RANDOM_MASK - (part & 0x1_FFFF_FFFF) } else { part };
            let start = codec::from_parts(ms, &part.to_be_bytes()[16 - RANDOM_BYTES..].try_into().unwrap());
            let mut state = Monotonic::new();
            state.advance_past(start);
            let step = if one { Step::One } else { Step::Random };
            let mut rng = scripted_steps(&[[0; RANDOM_BYTES]], &[draw]);
            let left = RANDOM_MASK - part;
            match state.next(ms, &mut rng, step, Layout::Ulid) {
                Err(err) => {
                    proptest::prop_assert_eq!(err, GenerateError::Exhausted);
                    proptest::prop_assert_eq!(left, 0);
                    proptest::prop_assert_eq!(state.last(), start);
                }
                Ok(value) => {
                    proptest::prop_assert!(value > start);
                    proptest::prop_assert_eq!(codec::timestamp_ms(&value), ms);
                    let moved = random_number(value) - part;
                    let wanted = if one { 1 } else { u128::from(draw) + 1 };
                    proptest::prop_assert!(moved >= 1 && moved <= left && moved <= 1 << 32);
                    if wanted <= left {
                        proptest::prop_assert_eq!(moved, wanted);
                    }
                    proptest::prop_assert_eq!(rng.calls, 0, "no fresh bits within a millisecond");
                }
            }
        }
    }

    /// Chi-square statistic of `counts` against equal expected counts.
    fn chi_square(counts: &[u64]) -> f64 {
        let total: u64 = counts.iter().sum();
        let expected = total as f64 / counts.len() as f64;
        counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum()
    }

    #[test]
    fn random_steps_from_the_process_rng_are_uniform_on_1_to_2_pow_32() {
        // 100,000 steps within one millisecond, from the real random source.
        // Each step falls in one of 64 equal ranges by its top six bits and
        // in one of 64 classes by its low six: both must fit the uniform
        // distribution (chi-square, 63 degrees of freedom, below 130; the
        // chance of a uniform source exceeding it is about 1e-6).
        let mut rng = ProcessRng::new();
        let mut state = Monotonic::new();
        let ms = 1_700_000_000_000;
        state.advance_past(codec::from_parts(ms, &[0; RANDOM_BYTES]));
        let mut previous = random_number(state.last());
        let (mut high, mut low) = ([0u64; 64], [0u64; 64]);
        let mut small = 0;
        for _ in 0..100_000 {
            let value = state
                .next(ms, &mut rng.for_process(3), Step::Random, Layout::Ulid)
                .unwrap();
            let step = random_number(value) - previous;
            previous = random_number(value);
            assert!((1..=1 << 32).contains(&step), "step {step}");
            high[((step - 1) >> 26) as usize] += 1;
            low[((step - 1) & 63) as usize] += 1;
            small += u32::from(step < 1 << 16);
        }
        // a uniform source exceeds 170 (63 degrees of freedom) once in
        // 10^11, and has twenty steps below 2^16 of 100,000 once in 10^15
        assert!(chi_square(&high) < 170.0, "top bits: {high:?}");
        assert!(chi_square(&low) < 170.0, "low bits: {low:?}");
        assert!(small < 20, "{small} steps below 2^16");
    }

    #[test]
    fn a_later_millisecond_draws_fresh_bits() {
        let mut rng = scripted(&[[9; RANDOM_BYTES], [1; RANDOM_BYTES]]);
        let mut state = Monotonic::new();
        let a = state
            .next(1_000, &mut rng, Step::Random, Layout::Ulid)
            .unwrap();
        let b = state
            .next(1_001, &mut rng, Step::Random, Layout::Ulid)
            .unwrap();
        assert_eq!(codec::timestamp_ms(&b), 1_001);
        assert_eq!(b[6..], [1; RANDOM_BYTES]);
        assert!(
            b > a,
            "a later millisecond sorts later even with smaller random bits"
        );
    }

    fn clock_step_back(step_ms: u64, step: Step) {
        let start = 1_735_689_600_000;
        let mut rng = scripted_steps(
            &[[0x80; RANDOM_BYTES], [0; RANDOM_BYTES]],
            &[u32::MAX, 77, 1 << 20],
        );
        let mut state = Monotonic::new();
        let mut previous = state.next(start, &mut rng, step, Layout::Ulid).unwrap();
        // the clock jumps back, then creeps forward to where it was, and on
        let mut now = start - step_ms;
        while now <= start {
            let value = state.next(now, &mut rng, step, Layout::Ulid).unwrap();
            assert!(value > previous);
            assert_eq!(
                codec::timestamp_ms(&value),
                start,
                "keeps the last millisecond"
            );
            previous = value;
            now += 1.max(step_ms / 1000);
        }
        let value = state.next(start + 1, &mut rng, step, Layout::Ulid).unwrap();
        assert!(value > previous);
        assert_eq!(
            codec::timestamp_ms(&value),
            start + 1,
            "moves on once the clock catches up"
        );
        assert_eq!(rng.calls, 2);
    }

    #[test]
    fn clock_steps_back_one_millisecond() {
        clock_step_back(1, Step::One);
        clock_step_back(1, Step::Random);
    }

    #[test]
    fn clock_steps_back_ten_seconds() {
        clock_step_back(10_000, Step::One);
        clock_step_back(10_000, Step::Random);
    }

    #[test]
    fn timestamps_past_10889_are_refused() {
        let mut rng = scripted(&[[0; RANDOM_BYTES]]);
        assert!(generate(MAX_TIMESTAMP_MS, &mut rng, Layout::Ulid).is_ok());
        assert_eq!(
            generate(MAX_TIMESTAMP_MS + 1, &mut rng, Layout::Ulid),
            Err(GenerateError::TimestampOutOfRange)
        );
        let mut state = Monotonic::new();
        assert_eq!(
            state.next(MAX_TIMESTAMP_MS + 1, &mut rng, Step::Random, Layout::Ulid),
            Err(GenerateError::TimestampOutOfRange)
        );
        assert_eq!(state.last(), [0; BYTES]);
    }

    #[test]
    fn advance_past_only_moves_forward() {
        let mut state = Monotonic::new();
        let high = decode(b"01JGFJJZ00XHF7E02JJ03AE4T7").unwrap();
        state.advance_past(high);
        state.advance_past([0; BYTES]);
        assert_eq!(state.last(), high);
        let next = state
            .next(
                0,
                &mut scripted(&[[0; RANDOM_BYTES]]),
                Step::One,
                Layout::Ulid,
            )
            .unwrap();
        assert_eq!(text(next), "01JGFJJZ00XHF7E02JJ03AE4T8");
    }

    #[test]
    fn a_million_values_strictly_increase() {
        let mut rng = ProcessRng::new();
        let mut state = Monotonic::new();
        let mut previous = [0u8; BYTES];
        for i in 0..1_000_000u64 {
            // a clock that stalls, steps back and moves on
            let now = 1_700_000_000_000 + i / 1000 - (i % 7 == 0) as u64 * 3;
            let step = if i % 5 == 0 { Step::One } else { Step::Random };
            let value = state
                .next(now, &mut rng.for_process(42), step, Layout::Ulid)
                .unwrap();
            assert!(value > previous);
            previous = value;
        }
    }

    // ---- Layout::UuidV7 ----------------------------------------------------

    #[test]
    fn the_74_free_bits_round_trip_through_a_uuidv7() {
        let mut rng = ProcessRng::new();
        for _ in 0..10_000 {
            let value =
                generate(1_700_000_000_000, &mut rng.for_process(5), Layout::UuidV7).unwrap();
            assert!(is_uuidv7(&value), "{value:02x?}");
            let counter = v7_counter(&value);
            assert!(counter <= V7_MAX);
            assert_eq!(from_v7_counter(1_700_000_000_000, counter), value);
        }
        assert_eq!(
            from_v7_counter(0, 0),
            *b"\0\0\0\0\0\0\x70\0\x80\0\0\0\0\0\0\0"
        );
        assert_eq!(
            from_v7_counter(0, V7_MAX),
            *b"\0\0\0\0\0\0\x7f\xff\xbf\xff\xff\xff\xff\xff\xff\xff"
        );
        // counters and values are in the same order
        assert!(from_v7_counter(9, 1 << 62) > from_v7_counter(9, (1 << 62) - 1));
        assert!(from_v7_counter(9, 1 << 70) > from_v7_counter(9, (1 << 70) - 1));
    }

    #[test]
    fn uuidv7_values_use_all_74_free_bits() {
        // every free bit is set in 35% to 65% of 4096 values; the six fixed
        // bits never vary
        let mut rng = ProcessRng::new();
        let mut counts = [0u32; 128];
        let draws = 4096;
        for _ in 0..draws {
            let value =
                u128::from_be_bytes(generate(5, &mut rng.for_process(8), Layout::UuidV7).unwrap());
            for (bit, count) in counts.iter_mut().enumerate() {
                *count += u32::from((value >> bit & 1) as u8);
            }
        }
        let fixed = [(76, 1), (77, 1), (78, 1), (79, 0), (62, 0), (63, 1)];
        for (bit, set) in fixed {
            assert_eq!(counts[bit], set * draws, "bit {bit}");
        }
        for bit in (0..80).filter(|bit| !fixed.iter().any(|(f, _)| f == bit)) {
            let share = f64::from(counts[bit]) / f64::from(draws);
            assert!(
                (0.35..0.65).contains(&share),
                "bit {bit} set {share:.2} of the time"
            );
        }
    }

    #[test]
    fn a_uuidv7_run_within_one_millisecond_steps_over_the_free_bits() {
        let ms = 1_700_000_000_000;
        let mut state = Monotonic::new();
        let mut rng = scripted_steps(&[[0x42; RANDOM_BYTES]], &[0, 6, u32::MAX]);
        let first = state
            .next(ms, &mut rng, Step::Random, Layout::UuidV7)
            .unwrap();
        assert!(is_uuidv7(&first));
        let mut previous = first;
        for expected_step in [1, 7, 1 << 32, 1, 7] {
            let value = state
                .next(ms, &mut rng, Step::Random, Layout::UuidV7)
                .unwrap();
            assert!(is_uuidv7(&value) && value > previous);
            assert_eq!(codec::timestamp_ms(&value), ms);
            assert_eq!(v7_counter(&value) - v7_counter(&previous), expected_step);
            previous = value;
        }
        let value = state.next(ms, &mut rng, Step::One, Layout::UuidV7).unwrap();
        assert_eq!(v7_counter(&value) - v7_counter(&previous), 1);
    }

    #[test]
    fn a_full_uuidv7_millisecond_is_exhausted_and_does_not_wrap() {
        let ms = 1_700_000_000_000;
        let full = from_v7_counter(ms, V7_MAX);
        let mut state = Monotonic::new();
        state.advance_past(full);
        for step in [Step::One, Step::Random] {
            assert_eq!(
                state.next(
                    ms,
                    &mut scripted(&[[0; RANDOM_BYTES]]),
                    step,
                    Layout::UuidV7
                ),
                Err(GenerateError::Exhausted)
            );
            assert_eq!(state.last(), full);
        }
        // one below: the last value left, then exhausted
        let mut state = Monotonic::new();
        state.advance_past(from_v7_counter(ms, V7_MAX - 1));
        let mut rng = scripted_steps(&[[0; RANDOM_BYTES]], &[u32::MAX]);
        assert_eq!(
            state.next(ms, &mut rng, Step::Random, Layout::UuidV7),
            Ok(full)
        );
    }

    /// After a value of the ULID layout whose version nibble is above 7, no
    /// UUIDv7 of its millisecond is greater: the next one is in the next
    /// millisecond, with fresh bits. Below 7, every one is: fresh bits in the
    /// same millisecond.
    #[test]
    fn a_uuidv7_after_a_plain_value_goes_above_it() {
        let ms = 1_700_000_000_000;
        for (byte6, expected_ms) in [(0x80, ms + 1), (0xFF, ms + 1), (0x6F, ms), (0x00, ms)] {
            let mut last = codec::from_parts(ms, &[0x55; RANDOM_BYTES]);
            last[6] = byte6;
            let mut state = Monotonic::new();
            state.advance_past(last);
            assert!(state.needs_random(ms, Layout::UuidV7));
            assert!(!state.needs_random(ms, Layout::Ulid));
            let mut rng = scripted(&[[0x11; RANDOM_BYTES]]);
            let value = state
                .next(ms, &mut rng, Step::Random, Layout::UuidV7)
                .unwrap();
            assert!(is_uuidv7(&value) && value > last, "{byte6:x}");
            assert_eq!(codec::timestamp_ms(&value), expected_ms, "{byte6:x}");
            assert_eq!(rng.calls, 1, "fresh bits");
        }
    }

    /// After a value of the other layout whose version nibble is 7 (one in
    /// 16), the UUIDv7s above it in its millisecond are the ones from the
    /// 12 bits before its variant on (or one more, when its variant bits are
    /// `11`): the next value takes those 12 bits and, for its 62 bits after
    /// the variant, the step alone, with no fresh bits drawn.
    #[test]
    fn a_uuidv7_after_a_plain_value_of_version_7_continues_from_its_bits() {
        let ms = 1_700_000_000_000;
        for (variant, prefix) in [(0b11, 0xABD), (0b00, 0xABC), (0b01, 0xABC)] {
            let mut last = codec::from_parts(ms, &[0x55; RANDOM_BYTES]);
            last[6] = 0x7A;
            last[7] = 0xBC;
            last[8] = variant << 6 | (last[8] & 0x3F);
            assert!(!is_uuidv7(&last));
            let mut state = Monotonic::new();
            state.advance_past(last);
            assert!(!state.needs_random(ms, Layout::UuidV7), "{variant:b}");
            let mut rng = scripted_steps(&[[0x11; RANDOM_BYTES]], &[12_345]);
            let value = state
                .next(ms, &mut rng, Step::Random, Layout::UuidV7)
                .unwrap();
            assert!(is_uuidv7(&value) && value > last, "{variant:b}");
            assert_eq!(codec::timestamp_ms(&value), ms);
            assert_eq!(v7_counter(&value) >> 62, prefix, "{variant:b}");
            assert_eq!(v7_counter(&value) & ((1 << 62) - 1), 12_345);
            assert_eq!(rng.calls, 0, "no fresh bits");
            // by one: the first UUIDv7 above it
            let mut state = Monotonic::new();
            state.advance_past(last);
            let value = state.next(ms, &mut rng, Step::One, Layout::UuidV7).unwrap();
            assert_eq!(value, from_v7_counter(ms, prefix << 62));
        }
        // the 12 bits are zero and the variant below `10`: every UUIDv7 of
        // the millisecond is above it, fresh bits as for a nibble below 7
        let mut last = codec::from_parts(ms, &[0; RANDOM_BYTES]);
        last[6] = 0x70;
        let mut state = Monotonic::new();
        state.advance_past(last);
        assert!(state.needs_random(ms, Layout::UuidV7));
        // a plain value that is laid out as a UUIDv7 by chance (one in 64)
        // is stepped from like any UUIDv7
        let plain_v7 = from_v7_counter(ms, 0x1234_5678_9ABC);
        let mut state = Monotonic::new();
        state.advance_past(plain_v7);
        let mut rng = scripted_steps(&[[0x11; RANDOM_BYTES]], &[6]);
        let value = state
            .next(ms, &mut rng, Step::Random, Layout::UuidV7)
            .unwrap();
        assert_eq!(value, from_v7_counter(ms, 0x1234_5678_9ABC + 7));
        assert_eq!(rng.calls, 0);
    }

    #[test]
    fn the_exhausted_detail_counts_the_random_bits_of_the_layout() {
        let err = GenerateError::Exhausted;
        assert_eq!(
            err.detail(Layout::Ulid),
            "The 80-bit random part reached its largest value; \
             the generator fails rather than wrap around."
        );
        assert_eq!(
            err.detail(Layout::UuidV7),
            "The 74 random bits of the UUIDv7 layout reached their largest value; \
             the generator fails rather than wrap around."
        );
        assert!(GenerateError::TimestampOutOfRange
            .detail(Layout::UuidV7)
            .contains("10889-08-02 05:31:50.655 UTC"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

        /// From any last value at all, made under either layout or by
        /// whatever else wrote the state, a UUIDv7 step goes strictly up, to
        /// a UUIDv7 of the same millisecond, or of the next one exactly when
        /// the same one has none above the last value; it fails only when
        /// the last value is the greatest UUIDv7 of its millisecond.
        #[test]
        fn a_uuidv7_step_from_any_value_goes_up_to_a_uuidv7(
            last in proptest::prelude::any::<[u8; BYTES]>(),
            nibble in 0u8..16,
            variant in 0u8..4,
            draw in proptest::prelude::any::<u32>(),
            one in proptest::bool::ANY,
            behind in 0u64..3,
        ) {
            let mut last = last;
            last[0] = 0; // a timestamp with room for one more millisecond
            // bias toward the interesting bits: the version nibble and the variant
            last[6] = nibble << 4 | (last[6] & 0xF);
            last[8] = variant << 6 | (last[8] & 0x3F);
            let ms = codec::timestamp_ms(&last);
            let step = if one { Step::One } else { Step::Random };
            let mut state = Monotonic::new();
            state.advance_past(last);
            let mut rng = scripted_steps(&[[0x99; RANDOM_BYTES]], &[draw]);
            // whether the greatest UUIDv7 of the millisecond is above last
            let v7_above_in_ms = from_v7_counter(ms, V7_MAX) > last;
            match state.next(ms.saturating_sub(behind), &mut rng, step, Layout::UuidV7) {
                Ok(value) => {
                    proptest::prop_assert!(value > last);
                    proptest::prop_assert!(is_uuidv7(&value));
                    let value_ms = codec::timestamp_ms(&value);
                    if v7_above_in_ms {
                        proptest::prop_assert_eq!(value_ms, ms);
                    } else {
                        proptest::prop_assert_eq!(value_ms, ms + 1);
                    }
                    proptest::prop_assert_eq!(state.last(), value);
                }
                Err(err) => {
                    proptest::prop_assert_eq!(err, GenerateError::Exhausted);
                    proptest::prop_assert_eq!(last, from_v7_counter(ms, V7_MAX));
                    proptest::prop_assert_eq!(state.last(), last);
                }
            }
        }
    }

    /// Sessions with different settings share one state: whatever the
    /// layout and the step of each call, and a clock that sometimes steps
    /// back, every value is above the one before, and each has its layout.
    #[test]
    fn mixed_layouts_on_one_state_never_go_backwards() {
        let mut state = Monotonic::new();
        let mut rng = ProcessRng::new();
        let mut choices = ProcessRng::new();
        let mut previous = [0; BYTES];
        let mut v7 = 0;
        for i in 0..200_000u64 {
            let pick = choices.for_process(2).random_u32();
            let layout = if pick & 1 == 0 {
                Layout::Ulid
            } else {
                Layout::UuidV7
            };
            let step = if pick & 2 == 0 {
                Step::Random
            } else {
                Step::One
            };
            let now = 1_700_000_000_000 + i / 2000 - u64::from(pick.is_multiple_of(97)) * 2;
            let value = state
                .next(now, &mut rng.for_process(1), step, layout)
                .unwrap();
            assert!(value > previous, "call {i}");
            if layout == Layout::UuidV7 {
                assert!(is_uuidv7(&value), "call {i}");
                v7 += 1;
            }
            previous = value;
        }
        assert!((90_000..110_000).contains(&v7));
    }
}
