//! Where the random bits of new ULIDs come from: the `RandomSource` the
//! generators draw from, and `ProcessRng`, a buffered ChaCha CSPRNG seeded
//! from the operating system and owned by one process, which reseeds when
//! it finds itself in another process (after a `fork()`).
//!
//! The extension keeps one `ProcessRng` per backend; the command-line tool
//! one per run. Tests of the generators pass a scripted source instead.

use crate::codec::RANDOM_BYTES;
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};

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

/// Random bytes are drawn from ChaCha this many at a time; a ULID takes 10.
const BUFFER_BYTES: usize = 100 * RANDOM_BYTES;
/// How many buffers a process draws (64 of 1,000 bytes) before it reseeds from the OS.
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
