-- A short tour of ulid. Run by scripts/demo.
\set ECHO queries
\pset footer off
SET TimeZone = UTC;
CREATE EXTENSION ulid;

-- A table keyed by time-ordered ids. Within one millisecond each id is the
-- one before plus a random step (1 to 2^32): they sort in the order they
-- were made, and none gives its neighbours away.
CREATE TABLE orders (
    id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
    total numeric
);
INSERT INTO orders (total) SELECT round((random() * 100)::numeric, 2) FROM generate_series(1, 5);
SELECT id, ulid_timestamp(id) AS created_at, total FROM orders ORDER BY id;

-- 26 characters of Crockford base32 in (either case), canonical upper case out
SELECT '01jgfjjz00xhf7e02jj03ae4t7'::ulid AS id;

-- What drivers send reads as the same value: bytea hex text, and UUID text
SELECT '\x01941f297c00ec5e7700529006a71347'::ulid AS from_hex,
       '01941f29-7c00-ec5e-7700-529006a71347'::ulid AS from_uuid_text;

-- Stored in 16 bytes like uuid: a 48-bit millisecond timestamp, then 80 random bits
SELECT pg_column_size('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid) AS bytes,
       '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::bytea AS binary_form,
       '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::uuid AS as_uuid;

-- Time ranges: January 2025 as ulid bounds
SELECT '2025-01-01'::timestamptz::ulid AS from_id, '2025-02-01'::timestamptz::ulid AS to_id;

-- Backfilling ids for past events
SELECT gen_ulid('2025-01-01 12:00:00+00') AS backfilled;

-- Bad input is refused with a clear message, never truncated
SELECT '80000000000000000000000000'::ulid;
