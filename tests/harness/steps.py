"""gen_monotonic_ulid()'s random step within a millisecond, uniform on [1, 2^32], as the native
(tests/server) and the portable (tests/portable) generators are checked."""

from __future__ import annotations

STEPS = 100_000
# 64 classes, 63 degrees of freedom: a uniform source exceeds this with odds of about 1 in 10^11
CHI_SQUARE_LIMIT = 170.0


def within_milliseconds(values: list[int]) -> list[int]:
    """The steps between consecutive values (128-bit integers) that share a millisecond."""
    return [b - a for a, b in zip(values, values[1:]) if a >> 80 == b >> 80]


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def assert_uniform_on_1_to_2_pow_32(steps: list[int]) -> None:
    assert all(1 <= s <= 2**32 for s in steps), (min(steps), max(steps))
    # the top six bits of step - 1 (64 equal ranges) and the low six (64 residues) look uniform
    high, low = [0] * 64, [0] * 64
    for s in steps:
        high[(s - 1) >> 26] += 1
        low[(s - 1) & 63] += 1
    assert chi_square(high) < CHI_SQUARE_LIMIT, high
    assert chi_square(low) < CHI_SQUARE_LIMIT, low
    # one value must not reveal the next: a step below 2^16 has odds of 2^-16, about 1.5 expected among
    # 100,000 steps, twenty about once in 10^15
    small = sum(1 for s in steps if s < 2**16)
    assert small < 20, small
