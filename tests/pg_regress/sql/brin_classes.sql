-- requires: pg14
-- BRIN minmax-multi and bloom (PostgreSQL 14 and later; PostgreSQL 13 has
-- neither, and the extension leaves them out there: see objects.out).
CREATE EXTENSION ulid;

-- 100,000 time-ordered ids, one per second from 2025-01-01.
CREATE TABLE events (id ulid, n int);
INSERT INTO events
SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 second'), g FROM generate_series(1, 100000) g;
-- every 997th row, to look up
CREATE TABLE probe AS SELECT id, n FROM events WHERE n % 997 = 0;

-- They give the same answers as a sequential scan.
CREATE INDEX events_brin_multi ON events USING brin (id ulid_minmax_multi_ops);
VACUUM ANALYZE events;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events
WHERE id >= '2025-01-01 06:00+00'::timestamptz::ulid AND id < '2025-01-01 12:00+00'::timestamptz::ulid;
SELECT count(*) AS in_range_by_minmax_multi FROM events
WHERE id >= '2025-01-01 06:00+00'::timestamptz::ulid AND id < '2025-01-01 12:00+00'::timestamptz::ulid;
DROP INDEX events_brin_multi;
CREATE INDEX events_brin_bloom ON events USING brin (id ulid_bloom_ops);
VACUUM ANALYZE events;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT n FROM events WHERE id = '01JGFJJZ00XHF7E02JJ03AE4T7';
SELECT bool_and((SELECT e.n FROM events e WHERE e.id = p.id) = p.n) AS bloom_finds_all FROM probe p;
RESET enable_seqscan;
DROP INDEX events_brin_bloom;

SET enable_bitmapscan = off;
SELECT count(*) AS in_range_by_seqscan FROM events
WHERE id >= '2025-01-01 06:00+00'::timestamptz::ulid AND id < '2025-01-01 12:00+00'::timestamptz::ulid;
RESET enable_bitmapscan;
