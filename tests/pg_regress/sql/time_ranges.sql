-- Time-range queries, range partitions and generated columns on ulid keys.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

-- January 2025 as a ulid range is an index range scan.
CREATE TABLE orders (id ulid PRIMARY KEY DEFAULT gen_ulid(), total numeric);
INSERT INTO orders (id, total)
SELECT gen_ulid(timestamptz '2024-12-01' + g * interval '1 hour'), g FROM generate_series(0, 24 * 120) g;
ANALYZE orders;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM orders
WHERE id >= '2025-01-01'::timestamptz::ulid AND id < '2025-02-01'::timestamptz::ulid;
SELECT count(*) AS january_orders,
       min(ulid_timestamp(id)) AS first, max(ulid_timestamp(id)) AS last
FROM orders
WHERE id >= '2025-01-01'::timestamptz::ulid AND id < '2025-02-01'::timestamptz::ulid;

-- A generated column with the creation time (needs an IMMUTABLE function).
CREATE TABLE notes (
    id ulid PRIMARY KEY,
    created_at timestamptz GENERATED ALWAYS AS (ulid_timestamp(id)) STORED,
    body text
);
INSERT INTO notes (id, body) VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7', 'new year');
SELECT id, created_at, body FROM notes;
-- ...and an expression index on it.
CREATE INDEX notes_created ON notes ((ulid_timestamp(id)));

-- Range partitions by month, with bounds from timestamptz::ulid.
CREATE TABLE events (id ulid NOT NULL, body text) PARTITION BY RANGE (id);
CREATE TABLE events_2025_01 PARTITION OF events
    FOR VALUES FROM ('2025-01-01'::timestamptz::ulid) TO ('2025-02-01'::timestamptz::ulid);
CREATE TABLE events_2025_02 PARTITION OF events
    FOR VALUES FROM ('2025-02-01'::timestamptz::ulid) TO ('2025-03-01'::timestamptz::ulid);
SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_class c WHERE c.relispartition AND c.relname LIKE 'events_%' ORDER BY 1;
INSERT INTO events
SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 day'), 'day ' || g FROM generate_series(0, 58) g;
SELECT tableoid::regclass AS partition, count(*),
       min(ulid_timestamp(id))::date AS first_day, max(ulid_timestamp(id))::date AS last_day
FROM events GROUP BY 1 ORDER BY 1;
-- a row outside every partition is refused
INSERT INTO events VALUES ('2025-03-01'::timestamptz::ulid, 'march');
\echo :LAST_ERROR_SQLSTATE
-- pruning: a February query reads only the February partition
EXPLAIN (COSTS OFF)
SELECT * FROM events WHERE id >= '2025-02-10'::timestamptz::ulid AND id < '2025-02-11'::timestamptz::ulid;
SELECT body FROM events WHERE id >= '2025-02-10'::timestamptz::ulid AND id < '2025-02-11'::timestamptz::ulid;
