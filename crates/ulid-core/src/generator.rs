//! Making new ULIDs: the monotonic state machine of the specification and the
//! per-process random source. Pure Rust, no PostgreSQL: the clock reading and
//! the process id are passed in, so tests can step the clock backwards, pin
//! the random bits, or pretend the process was forked.
//!
//! Within one millisecond the monotonic generator steps by a uniformly
//! random amount in [1, 2^32] (`Step::Random`, as oklog/ulid's default), so
//! that a value does not give away its neighbours; `Step::One` is the
//! specification's +1.
//!
//! Where the state lives (a backend's memory or shared memory under a lock)
//! is decided by the extension (`src/generators.rs`); this module only says
//! how it moves.

use crate::codec::{self, BYTES, MAX_TIMESTAMP_MS, RANDOM_BYTES};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};

/// Why no value could be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerateError {
    /// The millisecond is after 10889-08-02 05:31:50.655 UTC, the last one a
    /// ULID can hold.
    TimestampOutOfRange,
    /// Within one millisecond the 80-bit random part reached all ones; the
    /// specification says to fail rather than wrap.
    Exhausted,
}

/// Anything that yields random bits.
pub trait RandomSource {
    /// 80 random bits: the random part of a new ULID.
    fn random(&mut self) -> [u8; RANDOM_BYTES];

    /// 32 random bits, for a random step.
    #[inline]
    fn random_u32(&mut self) -> u32 {
        let bits = self.random();
        u32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]])
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

/// A ULID for `now_ms` with fresh random bits.
#[inline]
pub fn generate(now_ms: u64, rng: &mut impl RandomSource) -> Result<[u8; BYTES], GenerateError> {
    if now_ms > MAX_TIMESTAMP_MS {
        return Err(GenerateError::TimestampOutOfRange);
    }
    Ok(codec::from_parts(now_ms, &rng.random()))
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

    /// Whether `next(now_ms, ..)` would draw fresh random bits: only for a
    /// millisecond later than the last value's.
    #[inline]
    pub fn needs_random(&self, now_ms: u64) -> bool {
        now_ms > codec::timestamp_ms(&self.0)
    }

    /// The next value, strictly greater than every one before it.
    ///
    /// A later millisecond gets fresh random bits (`rng.random()`). The same
    /// millisecond, or an earlier one because the clock stepped back, keeps
    /// the last timestamp and adds `step` to the random part, with carry,
    /// until the clock catches up; a random step takes `rng.random_u32()`.
    /// `rng` is asked only for what is needed.
    #[inline]
    pub fn next(
        &mut self,
        now_ms: u64,
        rng: &mut impl RandomSource,
        step: Step,
    ) -> Result<[u8; BYTES], GenerateError> {
        let value = if self.needs_random(now_ms) {
            generate(now_ms, rng)?
        } else {
            let draw = match step {
                Step::Random => rng.random_u32(),
                Step::One => 0,
            };
            step_random_part(&self.0, draw).ok_or(GenerateError::Exhausted)?
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
    let left = RANDOM_MASK - (number & RANDOM_MASK);
    let step = if u128::from(draw) < left {
        u128::from(draw) + 1
    } else if left > 0 {
        // fewer than 2^32 values left: `left` fits in 32 bits here
        u128::from(draw % left as u32) + 1
    } else {
        return None;
    };
    Some((number + step).to_be_bytes())
}

/// Random bytes are drawn from ChaCha this many at a time; a ULID takes 10.
const BUFFER_BYTES: usize = 100 * RANDOM_BYTES;
/// How many buffers a process draws (about 64 KiB) before it reseeds from the OS.
const REFILLS_PER_SEED: u32 = 64;

/// A ChaCha CSPRNG seeded from the operating system, owned by one process.
///
/// It remembers the process id it was seeded in: a process that inherited
/// it by `fork()` (a backend forked from a postmaster that loaded the
/// library early) sees another id and reseeds, dropping any buffered bytes,
/// before producing anything, so two processes never share a random stream.
/// It also reseeds after `REFILLS_PER_SEED` buffers.
///
/// Bytes come from a buffer refilled a thousand at a time: drawing 10 bytes
/// straight from the generator costs several times more per ULID.
#[derive(Clone)]
pub struct ProcessRng {
    rng: Option<StdRng>,
    owner_pid: i32,
    buffer: [u8; BUFFER_BYTES],
    /// Offset of the next unused bytes; `BUFFER_BYTES` when empty.
    next: usize,
    refills_left: u32,
}

impl ProcessRng {
    pub const fn new() -> Self {
        ProcessRng {
            rng: None,
            owner_pid: 0,
            buffer: [0; BUFFER_BYTES],
            next: BUFFER_BYTES,
            refills_left: 0,
        }
    }

    /// The random source for the process `pid`, reseeded first if it was
    /// seeded in another process.
    #[inline]
    pub fn for_process(&mut self, pid: i32) -> ProcessRngHandle<'_> {
        if self.owner_pid != pid || self.rng.is_none() {
            self.reseed(pid);
        }
        ProcessRngHandle(self)
    }

    #[cold]
    fn reseed(&mut self, pid: i32) {
        self.rng = Some(StdRng::from_os_rng());
        self.owner_pid = pid;
        self.next = BUFFER_BYTES;
        self.refills_left = REFILLS_PER_SEED;
    }

    #[cold]
    fn refill(&mut self) {
        if self.refills_left == 0 {
            self.reseed(self.owner_pid);
        }
        self.refills_left -= 1;
        match self.rng.as_mut() {
            Some(rng) => rng.fill_bytes(&mut self.buffer),
            None => unreachable!("ProcessRng::for_process always seeds"),
        }
        self.next = 0;
    }
}

impl Default for ProcessRng {
    fn default() -> Self {
        Self::new()
    }
}

/// A `ProcessRng` checked against the current pid.
pub struct ProcessRngHandle<'a>(&'a mut ProcessRng);

impl ProcessRngHandle<'_> {
    /// The next `N` unused bytes of the buffer, refilling it first when
    /// fewer are left (those are dropped: no byte is ever handed out twice).
    #[inline]
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let state = &mut *self.0;
        if state.next + N > BUFFER_BYTES {
            state.refill();
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&state.buffer[state.next..state.next + N]);
        state.next += N;
        out
    }
}

impl RandomSource for ProcessRngHandle<'_> {
    #[inline]
    fn random(&mut self) -> [u8; RANDOM_BYTES] {
        self.take()
    }

    /// Four bytes rather than ten: a busy monotonic generator draws one of
    /// these a call.
    #[inline]
    fn random_u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode, encode};

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
            .map(|_| text(state.next(ms, &mut rng, Step::One).unwrap()))
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
        assert_eq!(text(state.next(ms, &mut rng, Step::One).unwrap()), last);
        for step in [Step::One, Step::Random, Step::One] {
            assert_eq!(
                state.next(ms, &mut rng, step),
                Err(GenerateError::Exhausted)
            );
        }
        assert_eq!(text(state.last()), last, "a failure leaves the state alone");
        // the next millisecond recovers with fresh bits
        let next = state
            .next(ms + 1, &mut scripted(&[[0; RANDOM_BYTES]]), Step::Random)
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
        let mut previous = state.next(ms, &mut rng, Step::Random).unwrap();
        assert_eq!(previous, start);
        for draw in draws {
            let value = state.next(ms, &mut rng, Step::Random).unwrap();
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
        let first = random_number(state.next(ms, &mut rng, Step::Random).unwrap());
        assert_eq!(first, RANDOM_MASK - 5);
        let run: Vec<u128> = (0..3)
            .map(|_| random_number(state.next(ms, &mut rng, Step::Random).unwrap()))
            .collect();
        assert_eq!(run, [RANDOM_MASK - 2, RANDOM_MASK - 1, RANDOM_MASK]);
        assert_eq!(
            state.next(ms, &mut rng, Step::Random),
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
            match state.next(ms, &mut rng, step) {
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
                .next(ms, &mut rng.for_process(3), Step::Random)
                .unwrap();
            let step = random_number(value) - previous;
            previous = random_number(value);
            assert!((2..=1 << 32).contains(&step), "step {step}");
            high[((step - 1) >> 26) as usize] += 1;
            low[((step - 1) & 63) as usize] += 1;
            small += u32::from(step < 1 << 16);
        }
        assert!(chi_square(&high) < 130.0, "top bits: {high:?}");
        assert!(chi_square(&low) < 130.0, "low bits: {low:?}");
        assert!(small < 10, "{small} steps below 2^16");
    }

    #[test]
    fn a_later_millisecond_draws_fresh_bits() {
        let mut rng = scripted(&[[9; RANDOM_BYTES], [1; RANDOM_BYTES]]);
        let mut state = Monotonic::new();
        let a = state.next(1_000, &mut rng, Step::Random).unwrap();
        let b = state.next(1_001, &mut rng, Step::Random).unwrap();
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
        let mut previous = state.next(start, &mut rng, step).unwrap();
        // the clock jumps back, then creeps forward to where it was, and on
        let mut now = start - step_ms;
        while now <= start {
            let value = state.next(now, &mut rng, step).unwrap();
            assert!(value > previous);
            assert_eq!(
                codec::timestamp_ms(&value),
                start,
                "keeps the last millisecond"
            );
            previous = value;
            now += 1.max(step_ms / 1000);
        }
        let value = state.next(start + 1, &mut rng, step).unwrap();
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
        assert!(generate(MAX_TIMESTAMP_MS, &mut rng).is_ok());
        assert_eq!(
            generate(MAX_TIMESTAMP_MS + 1, &mut rng),
            Err(GenerateError::TimestampOutOfRange)
        );
        let mut state = Monotonic::new();
        assert_eq!(
            state.next(MAX_TIMESTAMP_MS + 1, &mut rng, Step::Random),
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
            .next(0, &mut scripted(&[[0; RANDOM_BYTES]]), Step::One)
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
            let value = state.next(now, &mut rng.for_process(42), step).unwrap();
            assert!(value > previous);
            previous = value;
        }
    }

    #[test]
    fn process_rng_reseeds_in_a_new_process() {
        let mut parent = ProcessRng::new();
        parent.for_process(100).random();
        // A forked child starts with a copy of the parent's state, buffer
        // included; without the pid check it would hand out exactly what
        // the parent hands out next.
        let mut child = parent.clone();
        let mut twin = parent.clone();
        let parent_next = parent.for_process(100).random();
        assert_eq!(
            twin.for_process(100).random(),
            parent_next,
            "a copy that is not told repeats"
        );
        let child_next = child.for_process(200).random();
        assert_eq!(child.owner_pid, 200);
        assert_ne!(child_next, parent_next);
        assert_eq!(child.next, RANDOM_BYTES, "the inherited buffer was dropped");
    }

    /// The first draw of the next buffer if the generator were not reseeded.
    fn unreseeded_next(rng: &ProcessRng) -> [u8; RANDOM_BYTES] {
        let mut copy = rng.rng.clone().unwrap();
        let mut buffer = [0u8; BUFFER_BYTES];
        copy.fill_bytes(&mut buffer);
        buffer[..RANDOM_BYTES].try_into().unwrap()
    }

    #[test]
    fn process_rng_reseeds_after_its_budget() {
        let mut rng = ProcessRng::new();
        let per_buffer = BUFFER_BYTES / RANDOM_BYTES;
        rng.for_process(1).random();
        for refill in 1..=REFILLS_PER_SEED {
            for _ in 1..per_buffer {
                rng.for_process(1).random();
            }
            // the buffer is empty: the next draw refills it
            let expected = unreseeded_next(&rng);
            let drawn = rng.for_process(1).random();
            if refill < REFILLS_PER_SEED {
                assert_eq!(drawn, expected, "refill {refill} continues the stream");
            } else {
                assert_ne!(
                    drawn, expected,
                    "after {REFILLS_PER_SEED} buffers comes a fresh seed"
                );
                assert_eq!(rng.refills_left, REFILLS_PER_SEED - 1);
            }
        }
    }

    #[test]
    fn mixed_draws_read_the_stream_in_order_and_drop_only_a_short_tail() {
        let mut rng = ProcessRng::new();
        rng.for_process(5); // seeds, nothing drawn yet
        let mut stream = rng.rng.clone().unwrap();
        let mut expected = vec![0u8; 2 * BUFFER_BYTES];
        stream.fill_bytes(&mut expected[..BUFFER_BYTES]);
        stream.fill_bytes(&mut expected[BUFFER_BYTES..]);

        let per_buffer = BUFFER_BYTES / RANDOM_BYTES;
        let mut drawn = Vec::new();
        for _ in 0..per_buffer - 1 {
            drawn.extend(rng.for_process(5).random());
        }
        // 10 bytes left: two 4-byte draws fit, the third starts a new buffer
        for _ in 0..3 {
            drawn.extend(rng.for_process(5).random_u32().to_le_bytes());
        }
        assert_eq!(drawn[..BUFFER_BYTES - 2], expected[..BUFFER_BYTES - 2]);
        assert_eq!(
            drawn[BUFFER_BYTES - 2..],
            expected[BUFFER_BYTES..BUFFER_BYTES + 4]
        );
    }

    #[test]
    fn consecutive_draws_do_not_overlap() {
        let mut rng = ProcessRng::new();
        let draws: Vec<_> = (0..3 * BUFFER_BYTES / RANDOM_BYTES)
            .map(|_| rng.for_process(9).random())
            .collect();
        let unique: std::collections::HashSet<_> = draws.iter().collect();
        assert_eq!(unique.len(), draws.len());
    }

    #[test]
    fn random_bits_look_random() {
        // A cheap sanity check that all 80 bits are used: over 4096 draws
        // every bit position is set somewhere between 35% and 65% of the time.
        let mut rng = ProcessRng::new();
        let mut counts = [0u32; 80];
        let draws = 4096;
        for _ in 0..draws {
            let r = rng.for_process(7).random();
            for (bit, count) in counts.iter_mut().enumerate() {
                *count += u32::from(r[bit / 8] >> (bit % 8) & 1);
            }
        }
        for (bit, &count) in counts.iter().enumerate() {
            let share = f64::from(count) / f64::from(draws);
            assert!(
                (0.35..0.65).contains(&share),
                "bit {bit} set {share:.2} of the time"
            );
        }
    }
}
