-- Comparisons between ulid and uuid, either way round: the same 16 bytes,
-- so the same order, through ulid's btree and hash indexes. SQL written for
-- a uuid column (UUID parameters, UUID range bounds) keeps working once the
-- column is a ulid, and nothing that resolved before resolves otherwise.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

-- The twelve operators, each with its mirror as commutator, its negator and
-- the estimators of the ulid = ulid ones.
SELECT o.oid::regoperator AS operator, o.oprcom::regoperator AS commutator,
       o.oprnegate::regoperator AS negator, o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge
FROM pg_operator o
WHERE (o.oprleft, o.oprright) IN (('ulid'::regtype, 'uuid'::regtype), ('uuid'::regtype, 'ulid'::regtype))
ORDER BY o.oprleft::regtype::text, o.oprname;

-- Their functions, and the two comparison functions of the btree family:
-- the C code of the ulid ones, IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF.
SELECT p.oid::regprocedure AS function, p.prosrc, p.provolatile, p.proisstrict,
       p.proparallel, p.proleakproof
FROM pg_proc p
WHERE p.proname LIKE 'ulid\_uuid\_%' OR p.proname LIKE 'uuid\_ulid\_%'
ORDER BY p.proname;

-- What each pair of types has in ulid's families (skip support, on 18 and
-- later, is left out: indexes.sql shows it). uuid's own operators are there
-- too: a family must hold every pair of its types.
SELECT am.amname AS method, o.amoplefttype::regtype AS left, o.amoprighttype::regtype AS right,
       string_agg(o.amopopr::regoperator::text, ' ' ORDER BY o.amopstrategy) AS operators,
       (SELECT string_agg(p.amprocnum || ': ' || p.amproc::regprocedure::text, ', ' ORDER BY p.amprocnum)
        FROM pg_amproc p
        WHERE p.amprocfamily = o.amopfamily AND p.amproclefttype = o.amoplefttype
          AND p.amprocrighttype = o.amoprighttype AND p.amprocnum <> 6) AS support
FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am am ON am.oid = f.opfmethod
WHERE f.opfname = 'ulid_ops'
GROUP BY am.amname, o.amopfamily, o.amoplefttype, o.amoprighttype
ORDER BY 1, 2::text, 3::text;

-- So every btree and hash class of both types validates (amvalidate would
-- print what is missing).
SELECT am.amname, c.opcname, c.opcintype::regtype AS type, amvalidate(c.oid) AS valid
FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
WHERE c.opcintype IN ('ulid'::regtype, 'uuid'::regtype) AND am.amname IN ('btree', 'hash')
ORDER BY 1, 2;

-- One value in both spellings: equal, and ordered against its neighbours.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid = '01941f29-7c00-ec5e-7700-529006a71347'::uuid AS same_bytes,
       '01941f29-7c00-ec5e-7700-529006a71347'::uuid = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS either_way,
       '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid < '01941f29-7c00-ec5e-7700-529006a71348'::uuid AS before_the_next,
       '01941f29-7c00-ec5e-7700-529006a71346'::uuid < '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS after_the_one_before;

-- Every operator on every pair of these values answers as ulid's own and as
-- uuid's own do, in both orders; so does the comparison function.
CREATE TABLE v (id ulid);
INSERT INTO v VALUES ('00000000000000000000000000'), ('0000XSNJG00000000000000000'),
    ('01JGFJJZ00XHF7E02JJ03AE4T7'), ('01JGFJJZ000000000000000000'), ('01JGFJJZ010000000000000000'),
    ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT count(*) AS pairs,
       bool_and((a.id = b.id::uuid) = (a.id = b.id) AND (a.id::uuid = b.id) = (a.id = b.id)
            AND (a.id <> b.id::uuid) = (a.id <> b.id) AND (a.id::uuid <> b.id) = (a.id <> b.id)
            AND (a.id < b.id::uuid) = (a.id < b.id) AND (a.id::uuid < b.id) = (a.id < b.id)
            AND (a.id <= b.id::uuid) = (a.id <= b.id) AND (a.id::uuid <= b.id) = (a.id <= b.id)
            AND (a.id > b.id::uuid) = (a.id > b.id) AND (a.id::uuid > b.id) = (a.id > b.id)
            AND (a.id >= b.id::uuid) = (a.id >= b.id) AND (a.id::uuid >= b.id) = (a.id >= b.id)
            AND sign(ulid_uuid_cmp(a.id, b.id::uuid)) = sign(ulid_cmp(a.id, b.id))
            AND sign(uuid_ulid_cmp(a.id::uuid, b.id)) = sign(ulid_cmp(a.id, b.id))) AS as_ulid,
       bool_and((a.id < b.id::uuid) = (a.id::uuid < b.id::uuid)
            AND (a.id = b.id::uuid) = (a.id::uuid = b.id::uuid)) AS as_uuid
FROM v a, v b;

-- With NULL, NULL.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid = NULL::uuid AS ulid_null,
       NULL::uuid < '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS null_ulid,
       ulid_uuid_cmp(NULL, NULL) IS NULL AS cmp_null;

-- What each spelling resolves to, as a view keeps it: an untyped literal or
-- NULL takes the column's type, as before; a uuid value or column meets the
-- cross-type operator; a list of uuids becomes one comparison each; a uuid
-- column compared with a literal stays uuid = uuid.
CREATE TABLE pairs (id ulid, u uuid);
CREATE VIEW spelled AS SELECT
    id = '01JGFJJZ00XHF7E02JJ03AE4T7' AS ulid_text,
    id = '01941f29-7c00-ec5e-7700-529006a71347' AS uuid_text,
    id = NULL AS null_literal,
    id = u AS ulid_uuid,
    u = id AS uuid_ulid,
    id IN ('01JGFJJZ00XHF7E02JJ03AE4T7', '01941f29-7c00-ec5e-7700-529006a71347') AS in_literals,
    id IN (u, '01941f29-7c00-ec5e-7700-529006a71347'::uuid) AS in_uuids,
    id = ANY (ARRAY[u]) AS any_uuid_array,
    u = '01941f29-7c00-ec5e-7700-529006a71347' AS uuid_column_text
FROM pairs, (VALUES (1)) AS one (x);  -- a second relation: every version qualifies the columns then
SELECT pg_get_viewdef('spelled', true);
SELECT DISTINCT d.refobjid::regoperator::text AS operator_used
FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
WHERE d.classid = 'pg_rewrite'::regclass AND r.ev_class = 'spelled'::regclass
  AND d.refclassid = 'pg_operator'::regclass
ORDER BY 1;

-- Text is still not compared with a ulid without a cast, and nothing is
-- cast implicitly: COALESCE of a ulid and a uuid needs one. (Errors in
-- short here and below: their details are worded differently on newer
-- servers.)
\set VERBOSITY terse
SELECT id = '01JGFJJZ00XHF7E02JJ03AE4T7'::text FROM pairs;
\echo :LAST_ERROR_SQLSTATE
SELECT COALESCE(id, u) FROM pairs;
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default

-- 20,000 time-ordered ids, one per second from 2025-01-01.
CREATE TABLE events (id ulid PRIMARY KEY, n int);
INSERT INTO events
SELECT gen_ulid(timestamptz '2025-01-01' + g * interval '1 second'), g FROM generate_series(1, 20000) g;
VACUUM ANALYZE events;
CREATE TABLE probe AS SELECT id::uuid AS u, n FROM events WHERE n % 97 = 0;

-- A uuid key, on either side, uses the btree on the ulid column.
EXPLAIN (COSTS OFF) SELECT n FROM events WHERE id = '01941f29-7c00-ec5e-7700-529006a71347'::uuid;
EXPLAIN (COSTS OFF) SELECT n FROM events WHERE '01941f29-7c00-ec5e-7700-529006a71347'::uuid = id;
SELECT count(*) AS probes, bool_and((SELECT e.n FROM events e WHERE e.id = p.u) = p.n) AS btree_finds_all
FROM probe p;

-- A parameter typed uuid, as a driver sends one, in a generic plan.
SET plan_cache_mode = force_generic_plan;
PREPARE by_uuid(uuid) AS SELECT n FROM events WHERE id = $1;
EXPLAIN (COSTS OFF) EXECUTE by_uuid('01941f29-7c00-ec5e-7700-529006a71347');
SELECT id::uuid AS some_uuid FROM events WHERE n = 1234 \gset
EXECUTE by_uuid(:'some_uuid');
RESET plan_cache_mode;

-- A time range with uuid bounds: the index, in index order, the same rows
-- as ulid bounds.
EXPLAIN (COSTS OFF)
SELECT n FROM events
WHERE id >= '2025-01-01 01:00+00'::timestamptz::ulid::uuid AND id < '2025-01-01 02:00+00'::timestamptz::ulid::uuid
ORDER BY id LIMIT 5;
SELECT array_agg(n) AS first_five FROM (
    SELECT n FROM events
    WHERE id >= '2025-01-01 01:00+00'::timestamptz::ulid::uuid AND id < '2025-01-01 02:00+00'::timestamptz::ulid::uuid
    ORDER BY id LIMIT 5) x;
SELECT (SELECT count(*) FROM events
        WHERE id >= '2025-01-01 01:00+00'::timestamptz::ulid::uuid AND id < '2025-01-01 02:00+00'::timestamptz::ulid::uuid)
       AS uuid_bounds,
       (SELECT count(*) FROM events
        WHERE id >= '2025-01-01 01:00+00'::timestamptz::ulid AND id < '2025-01-01 02:00+00'::timestamptz::ulid)
       AS ulid_bounds;

-- A list of uuids: an array of them is one index condition.
EXPLAIN (COSTS OFF) SELECT n FROM events
WHERE id = ANY ('{01941f29-7c00-ec5e-7700-529006a71347,01941f29-7c00-ec5e-7700-529006a71348}'::uuid[]);
SELECT count(*) AS found FROM events WHERE id = ANY (ARRAY(SELECT u FROM probe));

-- The same through a hash index.
ALTER TABLE events DROP CONSTRAINT events_pkey;
CREATE INDEX events_hash ON events USING hash (id);
ANALYZE events;
EXPLAIN (COSTS OFF) SELECT n FROM events WHERE id = '01941f29-7c00-ec5e-7700-529006a71347'::uuid;
SELECT bool_and((SELECT e.n FROM events e WHERE e.id = p.u) = p.n) AS hash_finds_all FROM probe p;
DROP INDEX events_hash;
ALTER TABLE events ADD PRIMARY KEY (id);

-- Joins of a ulid column with a uuid column: hash join, merge join, and
-- the same rows as with a cast.
CREATE TABLE legacy AS SELECT id::uuid AS u, n * 2 AS m FROM events WHERE n % 3 = 0;
ANALYZE legacy;
SET enable_mergejoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events e JOIN legacy l ON l.u = e.id;
SELECT count(*) AS hash_join_rows, bool_and(l.m = 2 * e.n) AS hash_join_pairs_right
FROM events e JOIN legacy l ON l.u = e.id;
SET enable_mergejoin = on; SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events e JOIN legacy l ON e.id = l.u;
SELECT count(*) AS merge_join_rows, bool_and(l.m = 2 * e.n) AS merge_join_pairs_right
FROM events e JOIN legacy l ON e.id = l.u;
RESET enable_mergejoin; RESET enable_nestloop; RESET enable_hashjoin;
SELECT count(*) AS rows_with_a_cast FROM events e JOIN legacy l ON l.u::ulid = e.id;

-- uuid alone is as before: ORDER BY and a merge join of two uuid columns
-- read uuid's own btree indexes, with no sort.
CREATE INDEX legacy_u ON legacy (u);
CREATE TABLE legacy2 AS SELECT u, m FROM legacy;
CREATE INDEX legacy2_u ON legacy2 (u);
ANALYZE legacy2;
EXPLAIN (COSTS OFF) SELECT * FROM legacy ORDER BY u LIMIT 3;
SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM legacy a JOIN legacy2 b ON a.u = b.u;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_sort;
SELECT count(DISTINCT u) AS distinct_uuids FROM legacy;

-- The other way round is not served: an index on a uuid column is of
-- core's uuid family, which knows nothing of ulid, so a ulid value reads
-- the whole table; cast the value to uuid.
EXPLAIN (COSTS OFF) SELECT m FROM legacy WHERE u = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid;
EXPLAIN (COSTS OFF) SELECT m FROM legacy WHERE u = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::uuid;

-- A uuid column may reference a ulid key: the key's family compares them.
-- (A ulid column cannot reference a uuid key: core's uuid family knows
-- nothing of ulid.)
CREATE TABLE lines (order_id uuid REFERENCES events (id));
INSERT INTO lines SELECT u FROM probe;
INSERT INTO lines VALUES ('00000000-0000-0000-0000-000000000000');
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE uuid_keys (u uuid PRIMARY KEY);
\set VERBOSITY terse
CREATE TABLE ulid_refs (id ulid REFERENCES uuid_keys (u));
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default

-- So a referenced table moves to ulid first, its foreign keys kept.
CREATE TABLE parent (id uuid PRIMARY KEY);
CREATE TABLE child (parent_id uuid REFERENCES parent (id));
INSERT INTO parent SELECT u FROM probe;
INSERT INTO child SELECT u FROM probe;
ALTER TABLE parent ALTER COLUMN id TYPE ulid;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'child'::regclass;
INSERT INTO child VALUES ('00000000-0000-0000-0000-000000000000');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS children_found FROM child c JOIN parent p ON p.id = c.parent_id;

-- Partitions by ulid are pruned by uuid bounds and uuid keys.
CREATE TABLE by_hour (id ulid NOT NULL, n int) PARTITION BY RANGE (id);
CREATE TABLE by_hour_0 PARTITION OF by_hour
    FOR VALUES FROM ('2025-01-01 00:00+00'::timestamptz::ulid) TO ('2025-01-01 01:00+00'::timestamptz::ulid);
CREATE TABLE by_hour_1 PARTITION OF by_hour
    FOR VALUES FROM ('2025-01-01 01:00+00'::timestamptz::ulid) TO ('2025-01-01 02:00+00'::timestamptz::ulid);
CREATE TABLE by_hour_rest PARTITION OF by_hour DEFAULT;
INSERT INTO by_hour SELECT id, n FROM events;
ANALYZE by_hour;
EXPLAIN (COSTS OFF) SELECT count(*) FROM by_hour
WHERE id >= '2025-01-01 01:10+00'::timestamptz::ulid::uuid AND id < '2025-01-01 01:20+00'::timestamptz::ulid::uuid;
CREATE TABLE by_key (id ulid NOT NULL) PARTITION BY HASH (id);
CREATE TABLE by_key_0 PARTITION OF by_key FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE by_key_1 PARTITION OF by_key FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO by_key SELECT id FROM events;
EXPLAIN (COSTS OFF) SELECT * FROM by_key WHERE id = '01941f29-7c00-ec5e-7700-529006a71347'::uuid;
SELECT count(*) AS hash_routed_right FROM by_key k JOIN probe p ON k.id = p.u
WHERE satisfies_hash_partition('by_key'::regclass, 2, right(k.tableoid::regclass::text, 1)::int, p.u::ulid);
