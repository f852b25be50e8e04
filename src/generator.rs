//! Making new ULIDs: the monotonic state machine of the specification and the
//! per-process random source. Pure Rust, no PostgreSQL: the clock reading and
//! the process id are passed in, so tests can step the clock backwards, pin
//! the random bits, or pretend the process was forked.
//!
//! Where the state lives (a backend's memory or shared memory under a lock)
//! is decided by `gen.rs`; this module only says how it moves.

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

/// Anything that yields 80 random bits.
pub trait RandomSource {
    fn random(&mut self) -> [u8; RANDOM_BYTES];
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
    #[cfg(any(test, feature = "pg_test"))]
    pub fn last(&self) -> [u8; BYTES] {
        self.0
    }

    /// Never hand out anything at or below `value`: tests use it to start
    /// from a known point, as if the clock had been ahead.
    #[cfg(any(test, feature = "pg_test"))]
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
    /// A later millisecond gets fresh random bits. The same millisecond, or
    /// an earlier one because the clock stepped back, keeps the last
    /// timestamp and adds one to the random part, with carry, until the clock
    /// catches up. `random` is only called when fresh bits are needed.
    #[inline]
    pub fn next(
        &mut self,
        now_ms: u64,
        rng: &mut impl RandomSource,
    ) -> Result<[u8; BYTES], GenerateError> {
        let value = if self.needs_random(now_ms) {
            generate(now_ms, rng)?
        } else {
            increment_random(&self.0).ok_or(GenerateError::Exhausted)?
        };
        self.0 = value;
        Ok(value)
    }
}

/// The 80-bit random part of a ULID read as a big-endian `u128`.
const RANDOM_MASK: u128 = (1 << (8 * RANDOM_BYTES)) - 1;

/// `value` with one added to its 80-bit random part, or `None` when that part
/// is already all ones.
///
/// As one big-endian 128-bit number the carry runs through the random part
/// by itself, and it never reaches the timestamp because an all-ones random
/// part is refused first. Most calls of a busy generator come here, so it
/// is a handful of instructions rather than a byte-by-byte carry loop.
#[inline]
fn increment_random(value: &[u8; BYTES]) -> Option<[u8; BYTES]> {
    let number = u128::from_be_bytes(*value);
    if number & RANDOM_MASK == RANDOM_MASK {
        return None;
    }
    Some((number + 1).to_be_bytes())
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

impl RandomSource for ProcessRngHandle<'_> {
    #[inline]
    fn random(&mut self) -> [u8; RANDOM_BYTES] {
        let state = &mut *self.0;
        if state.next == BUFFER_BYTES {
            state.refill();
        }
        let mut out = [0u8; RANDOM_BYTES];
        out.copy_from_slice(&state.buffer[state.next..state.next + RANDOM_BYTES]);
        state.next += RANDOM_BYTES;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode, encode};

    /// Hands out a fixed sequence of random parts and counts the calls.
    struct Scripted(Vec<[u8; RANDOM_BYTES]>, usize);

    impl RandomSource for Scripted {
        fn random(&mut self) -> [u8; RANDOM_BYTES] {
            let value = self.0[self.1 % self.0.len()];
            self.1 += 1;
            value
        }
    }

    fn scripted(parts: &[[u8; RANDOM_BYTES]]) -> Scripted {
        Scripted(parts.to_vec(), 0)
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
            .map(|_| text(state.next(ms, &mut rng).unwrap()))
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
            rng.1, 1,
            "fresh randomness only for the first value of the millisecond"
        );
    }

    #[test]
    fn overflow_within_one_millisecond_fails_and_does_not_wrap() {
        let last = "01BX5ZZKBKZZZZZZZZZZZZZZZZ";
        let ms = codec::timestamp_ms(&decode(last.as_bytes()).unwrap());
        let mut rng = scripted(&[[0xFF; RANDOM_BYTES]]);
        let mut state = Monotonic::new();
        assert_eq!(text(state.next(ms, &mut rng).unwrap()), last);
        assert_eq!(state.next(ms, &mut rng), Err(GenerateError::Exhausted));
        assert_eq!(state.next(ms, &mut rng), Err(GenerateError::Exhausted));
        assert_eq!(text(state.last()), last, "a failure leaves the state alone");
        // the next millisecond recovers with fresh bits
        let next = state
            .next(ms + 1, &mut scripted(&[[0; RANDOM_BYTES]]))
            .unwrap();
        assert_eq!(codec::timestamp_ms(&next), ms + 1);
    }

    #[test]
    fn carry_runs_through_the_random_part_only() {
        let mut value = [0u8; BYTES];
        value[5] = 7; // timestamp byte
        value[7..].fill(0xFF);
        let next = increment_random(&value).unwrap();
        assert_eq!(next[..6], value[..6]);
        assert_eq!(next[6], 1);
        assert!(next[7..].iter().all(|&b| b == 0));
    }

    #[test]
    fn a_later_millisecond_draws_fresh_bits() {
        let mut rng = scripted(&[[9; RANDOM_BYTES], [1; RANDOM_BYTES]]);
        let mut state = Monotonic::new();
        let a = state.next(1_000, &mut rng).unwrap();
        let b = state.next(1_001, &mut rng).unwrap();
        assert_eq!(codec::timestamp_ms(&b), 1_001);
        assert_eq!(b[6..], [1; RANDOM_BYTES]);
        assert!(
            b > a,
            "a later millisecond sorts later even with smaller random bits"
        );
    }

    fn clock_step_back(step_ms: u64) {
        let start = 1_735_689_600_000;
        let mut rng = scripted(&[[0x80; RANDOM_BYTES], [0; RANDOM_BYTES]]);
        let mut state = Monotonic::new();
        let mut previous = state.next(start, &mut rng).unwrap();
        // the clock jumps back, then creeps forward to where it was, and on
        let mut now = start - step_ms;
        while now <= start {
            let value = state.next(now, &mut rng).unwrap();
            assert!(value > previous);
            assert_eq!(
                codec::timestamp_ms(&value),
                start,
                "keeps the last millisecond"
            );
            previous = value;
            now += 1.max(step_ms / 1000);
        }
        let value = state.next(start + 1, &mut rng).unwrap();
        assert!(value > previous);
        assert_eq!(
            codec::timestamp_ms(&value),
            start + 1,
            "moves on once the clock catches up"
        );
        assert_eq!(rng.1, 2);
    }

    #[test]
    fn clock_steps_back_one_millisecond() {
        clock_step_back(1);
    }

    #[test]
    fn clock_steps_back_ten_seconds() {
        clock_step_back(10_000);
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
            state.next(MAX_TIMESTAMP_MS + 1, &mut rng),
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
        let next = state.next(0, &mut scripted(&[[0; RANDOM_BYTES]])).unwrap();
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
            let value = state.next(now, &mut rng.for_process(42)).unwrap();
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
