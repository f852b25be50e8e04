"""The random step of gen_monotonic_ulid() within a millisecond, as the
native generator (tests/server) and the portable one (tests/portable) are
both checked: uniform on [1, 2^32], read from consecutive values of one
millisecond."""

from __future__ import annotations

STEPS = 100_000
# 64 equal classes, 63 degrees of freedom: a uniform source exceeds this
# chi-square value with odds of about one in 10^11.
CHI_SQUARE_LIMIT = 170.0


def within_milliseconds(values: list[int]) -> list[int]:
    """The steps between consecutive values (as 128-bit numbers) that share
    a millisecond."""
    return [b - a for a, b in zip(values, values[1:]) if a >> 80 == b >> 80]


def chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def assert_uniform_on_1_to_2_pow_32(steps: list[int]) -> None:
    assert all(1 <= s <= 2**32 for s in steps), (min(steps), max(steps))
    # the top six bits of step - 1 place it in one of 64 equal ranges, the
    # low six in one of 64 residues: both must look uniform
    high, low = [0] * 64, [0] * 64
    for s in steps:
        high[(s - 1) >> 26] += 1
        low[(s - 1) & 63] += 1
    assert chi_square(high) < CHI_SQUARE_LIMIT, high
    assert chi_square(low) < CHI_SQUARE_LIMIT, low
    # one value does not reveal the next: a step below 2^16 (one of one
    # among them) has odds of 2^-16, about 1.5 expected among 100,000 and
    # twenty once in 10^15
    small = sum(1 for s in steps if s < 2**16)
    assert small < 20, small
