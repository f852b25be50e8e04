-- Index support: btree, hash and BRIN operator classes, and the plans they enable.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

SELECT am.amname, c.opcname, c.opcdefault
FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
WHERE c.opcintype = 'ulid'::regtype
ORDER BY am.amname, c.opcname;

-- The support functions: the ulid ones hand their calls to core's uuid
-- functions; the others are core's generic ones. (Those for ulid with
-- uuid: uuid_comparisons.sql.)
SELECT am.amname, f.opfname, p.amprocnum, p.amproc::regprocedure AS function,
       (SELECT l.lanname FROM pg_proc x JOIN pg_language l ON l.oid = x.prolang WHERE x.oid = p.amproc) AS language
FROM pg_amproc p
JOIN pg_opfamily f ON f.oid = p.amprocfamily
JOIN pg_am am ON am.oid = f.opfmethod
WHERE p.amproclefttype = 'ulid'::regtype AND p.amprocrighttype = 'ulid'::regtype AND p.amprocnum <> 6
ORDER BY am.amname, f.opfname, p.amprocnum;

-- A ulid hashes exactly like the uuid with the same bytes.
SELECT ulid_hash(id) = uuid_hash(encode(ulid_send(id), 'hex')::uuid) AS same_hash,
       ulid_hash_extended(id, 42) = uuid_hash_extended(encode(ulid_send(id), 'hex')::uuid, 42) AS same_extended_hash
FROM (VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid), ('00000000000000000000000000'), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')) v(id);

-- 100,000 time-ordered ids, one per second from 2025-01-01.
CREATE TABLE events (id ulid PRIMARY KEY, n int);
INSERT INTO events
SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 second'), g FROM generate_series(1, 100000) g;
VACUUM ANALYZE events;
-- every 997th row, to look up
CREATE TABLE probe AS SELECT id, n FROM events WHERE n % 997 = 0;

-- ORDER BY id LIMIT: read from the btree, no sort, in time order.
EXPLAIN (COSTS OFF) SELECT * FROM events ORDER BY id LIMIT 10;
SELECT array_agg(n) AS first_ten FROM (SELECT n FROM events ORDER BY id LIMIT 10) x;
EXPLAIN (COSTS OFF) SELECT * FROM events ORDER BY id DESC LIMIT 10;
SELECT array_agg(n) AS last_ten FROM (SELECT n FROM events ORDER BY id DESC LIMIT 10) x;

-- Equality through the btree finds every probe, as a sequential scan does.
EXPLAIN (COSTS OFF) SELECT n FROM events WHERE id = '01JGFJJZ00XHF7E02JJ03AE4T7';
SELECT count(*) AS probes, bool_and((SELECT e.n FROM events e WHERE e.id = p.id) = p.n) AS btree_finds_all
FROM probe p;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SELECT bool_and((SELECT e.n FROM events e WHERE e.id = p.id) = p.n) AS seqscan_finds_all FROM probe p;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;

-- The same through a hash index.
ALTER TABLE events DROP CONSTRAINT events_pkey;
CREATE INDEX events_hash ON events USING hash (id);
ANALYZE events;
EXPLAIN (COSTS OFF) SELECT n FROM events WHERE id = '01JGFJJZ00XHF7E02JJ03AE4T7';
SELECT bool_and((SELECT e.n FROM events e WHERE e.id = p.id) = p.n) AS hash_finds_all FROM probe p;
DROP INDEX events_hash;

-- A time range over BRIN: a bitmap heap scan on the BRIN index, the same rows as a seqscan.
CREATE INDEX events_brin ON events USING brin (id);
VACUUM ANALYZE events;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM events
WHERE id >= '2025-01-01 06:00+00'::timestamptz::ulid AND id < '2025-01-01 12:00+00'::timestamptz::ulid;
SELECT count(*) AS in_range_by_brin FROM events
WHERE id >= '2025-01-01 06:00+00'::timestamptz::ulid AND id < '2025-01-01 12:00+00'::timestamptz::ulid;
SET enable_bitmapscan = off;
SELECT count(*) AS in_range_by_seqscan FROM events
WHERE id >= '2025-01-01 06:00+00'::timestamptz::ulid AND id < '2025-01-01 12:00+00'::timestamptz::ulid;
RESET enable_bitmapscan;
SELECT pg_relation_size('events_brin') < pg_relation_size('events') / 100 AS brin_is_tiny;

DROP INDEX events_brin;
-- (the minmax-multi and bloom classes, PostgreSQL 14 and later: brin_classes.sql)

-- Joins: hash join and merge join on ulid keys, forced in turn.
CREATE TABLE other AS SELECT id, n * 2 AS m FROM events WHERE n % 3 = 0;
ANALYZE other;
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events e JOIN other o ON o.id = e.id;
SELECT count(*) AS hash_join_rows, bool_and(o.m = 2 * e.n) AS hash_join_pairs_right
FROM events e JOIN other o ON o.id = e.id;
SET enable_mergejoin = on; SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events e JOIN other o ON o.id = e.id;
SELECT count(*) AS merge_join_rows, bool_and(o.m = 2 * e.n) AS merge_join_pairs_right
FROM events e JOIN other o ON o.id = e.id;
RESET enable_mergejoin; RESET enable_nestloop; RESET enable_hashjoin;

-- GROUP BY and DISTINCT, hashed and sorted.
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id, count(*) FROM (SELECT id FROM other UNION ALL SELECT id FROM other) u GROUP BY id;
SELECT count(*) AS groups, min(c) AS min_per_group, max(c) AS max_per_group
FROM (SELECT id, count(*) AS c FROM (SELECT id FROM other UNION ALL SELECT id FROM other) u GROUP BY id) g;
RESET enable_sort;
SET enable_hashagg = off;
SELECT count(DISTINCT id) AS distinct_sorted FROM (SELECT id FROM other UNION ALL SELECT id FROM other) u;
RESET enable_hashagg;

-- Btree deduplication is on (btequalimage): duplicates shrink the index.
CREATE TABLE dups AS SELECT ('01JGFJJZ00XHF7E02JJ03AE4' || lpad((g % 10)::text, 2, '0'))::ulid AS id
FROM generate_series(1, 50000) g;
CREATE INDEX dups_dedup ON dups (id);
CREATE INDEX dups_nodedup ON dups (id) WITH (deduplicate_items = off);
SELECT pg_relation_size('dups_dedup') * 2 < pg_relation_size('dups_nodedup') AS deduplicated;

-- Hash partitioning on a ulid key routes rows by ulid_hash.
CREATE TABLE parts (id ulid NOT NULL) PARTITION BY HASH (id);
CREATE TABLE parts_0 PARTITION OF parts FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE parts_2 PARTITION OF parts FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE parts_3 PARTITION OF parts FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO parts SELECT id FROM events;
SELECT count(*) AS rows, count(DISTINCT tableoid) AS partitions_used FROM parts;
SELECT tableoid::regclass AS partition,
       bool_and(satisfies_hash_partition('parts'::regclass, 4, right(tableoid::regclass::text, 1)::int, id)) AS rows_belong
FROM parts GROUP BY 1 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM parts WHERE id = '01JGFJJZ00XHF7E02JJ03AE4T7';
