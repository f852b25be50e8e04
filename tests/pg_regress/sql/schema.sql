-- The extension in a schema that is not on the search_path: every object
-- is reachable qualified, and indexes, defaults, casts and aggregates work.
CREATE SCHEMA ext;
CREATE EXTENSION ulid SCHEMA ext;
SET DateStyle = ISO;
SET TimeZone = UTC;
SHOW search_path;

-- nothing landed in public
SELECT count(*) AS objects_in_public FROM pg_depend d
JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ulid')
  AND p.pronamespace = 'public'::regnamespace;

-- unqualified names are not found, as for any object off the search_path
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid;
SELECT gen_ulid();

CREATE TABLE t (
    id ext.ulid PRIMARY KEY DEFAULT ext.gen_monotonic_ulid(),
    created_at timestamptz GENERATED ALWAYS AS (ext.ulid_timestamp(id)) STORED,
    n int
);
INSERT INTO t (n) SELECT g FROM generate_series(1, 1000) g;
INSERT INTO t (id, n) VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7', 0);
CREATE INDEX t_hash ON t USING hash (id);
CREATE INDEX t_brin ON t USING brin (id);
ANALYZE t;

-- default operator classes are found by type, not by search_path
SELECT c.relname, o.opcname, n.nspname AS opclass_schema
FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
JOIN pg_opclass o ON o.oid = x.indclass[0] JOIN pg_namespace n ON n.oid = o.opcnamespace
WHERE x.indrelid = 't'::regclass ORDER BY 1;

-- operators, qualified
SELECT n FROM t WHERE id OPERATOR(ext.=) '01JGFJJZ00XHF7E02JJ03AE4T7'::ext.ulid;
SELECT count(*) FROM t WHERE id OPERATOR(ext.>=) '2025-01-02'::timestamptz::ext.ulid;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT n FROM t WHERE id OPERATOR(ext.=) '01JGFJJZ00XHF7E02JJ03AE4T7'::ext.ulid;
RESET enable_seqscan;

-- ORDER BY and DISTINCT use the default btree class
SELECT bool_and(id OPERATOR(ext.>) prev) AS ordered
FROM (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM t) s WHERE prev IS NOT NULL;
SELECT count(DISTINCT id) FROM t;

-- aggregates and casts
SELECT ext.min(id), ext.ulid_timestamp(ext.min(id)) AS oldest FROM t;
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ext.ulid::uuid AS as_uuid,
       '01JGFJJZ00XHF7E02JJ03AE4T7'::ext.ulid::timestamptz AS made,
       '2025-01-01'::timestamptz::ext.ulid AS floor,
       '\x01941f297c00ec5e7700529006a71347'::bytea::ext.ulid AS from_bytes;

-- a hash-partitioned table
CREATE TABLE p (id ext.ulid NOT NULL) PARTITION BY HASH (id);
CREATE TABLE p0 PARTITION OF p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE p1 PARTITION OF p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO p SELECT id FROM t;
SELECT count(*) AS rows, count(DISTINCT tableoid) AS partitions FROM p;

-- with the schema on the search_path, plain names work as usual
SET search_path = public, ext;
SELECT id = '01JGFJJZ00XHF7E02JJ03AE4T7' AS found FROM t WHERE n = 0;
