'use strict'
// ULIDs the ORM suites share, made with the ulid package.
const { ulid, monotonicFactory } = require('ulid')

// The README's example: 2025-01-01 00:00:00 UTC
const KNOWN = '01JGFJJZ00XHF7E02JJ03AE4T7'

// Values inside the 10 ms from start (two of its first millisecond, from
// one monotonic factory, and one of its last) and outside them (the
// millisecond before, and the first one after).
function timeRange (start) {
  const next = monotonicFactory()
  const inside = [next(start), next(start), next(start + 5), ulid(start + 9)]
  const outside = [ulid(start - 1), ulid(start + 10), next(start + 10)]
  return { inside, outside }
}

// n values of now, monotonic and random in turn.
function mixed (n) {
  const next = monotonicFactory()
  const ids = []
  for (let i = 0; i < n; i++) ids.push(i % 2 ? ulid() : next())
  return ids
}

module.exports = { KNOWN, timeRange, mixed }
