-- min() and max(): parallel-safe aggregates that an index can answer.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtransfn, a.aggcombinefn,
       a.aggsortop::regoperator AS sortop, p.proparallel
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE a.aggtranstype = 'ulid'::regtype
ORDER BY a.aggfnoid::regprocedure::text;

CREATE TABLE t (id ulid);
INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7'), ('00000000000000000000000000'),
                     ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'), (NULL), ('01JGFJJZ000000000000000000');
SELECT min(id), max(id), count(id) FROM t;
SELECT min(id), max(id) FROM t WHERE id IS NULL;
SELECT min(id) FROM t WHERE false;

-- With a btree index, min and max read one end of the index.
CREATE INDEX ON t (id);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT max(id) FROM t;
SELECT max(id) FROM t;
RESET enable_seqscan;

-- Under a forced parallel plan the combine function merges the workers' results.
CREATE TABLE big AS
SELECT gen_ulid(timestamptz '2025-01-01 00:00:00+00' + g * interval '1 second') AS id
FROM generate_series(1, 20000) g;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT min(id), max(id) FROM big;
SELECT ulid_timestamp(min(id)) AT TIME ZONE 'UTC' AS first_made,
       ulid_timestamp(max(id)) AT TIME ZONE 'UTC' AS last_made,
       min(id) = (SELECT id FROM big ORDER BY id LIMIT 1) AS min_is_first,
       max(id) = (SELECT id FROM big ORDER BY id DESC LIMIT 1) AS max_is_last
FROM big;
