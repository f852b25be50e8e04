-- The generators: gen_ulid(), gen_ulid(timestamptz), gen_monotonic_ulid().
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel
FROM pg_proc p WHERE p.proname IN ('gen_ulid', 'gen_monotonic_ulid')
ORDER BY p.oid::regprocedure::text;

-- gen_ulid(): the current millisecond and 80 random bits.
SELECT length(gen_ulid()::text) AS text_length;
SELECT clock_timestamp() AS before \gset
SELECT gen_ulid() AS id \gset
SELECT clock_timestamp() AS after \gset
SELECT ulid_timestamp(:'id') BETWEEN date_trunc('milliseconds', :'before'::timestamptz) AND :'after'::timestamptz
    AS made_now;

-- No two alike, in one statement or across statements.
CREATE TABLE many AS SELECT gen_ulid() AS id FROM generate_series(1, 100000);
INSERT INTO many SELECT gen_ulid() FROM generate_series(1, 100000);
SELECT count(*) AS generated, count(DISTINCT id) AS distinct_values FROM many;
-- every one of the 80 random bits varies
SELECT count(*) AS random_bits_seen_set_and_clear FROM generate_series(48, 127) bit
WHERE EXISTS (SELECT 1 FROM many WHERE get_bit(ulid_send(id), bit) = 1)
  AND EXISTS (SELECT 1 FROM many WHERE get_bit(ulid_send(id), bit) = 0);

-- gen_ulid(timestamptz): that millisecond, fresh random bits; for backfills.
SELECT ulid_timestamp(gen_ulid('2025-01-01 12:34:56.789123+00')) AS made;
SELECT gen_ulid('2025-01-01 00:00:00+00') <> gen_ulid('2025-01-01 00:00:00+00') AS random_part_differs,
       gen_ulid('2025-01-01 00:00:00+00') >= '2025-01-01 00:00:00+00'::timestamptz::ulid AS at_or_after_floor,
       gen_ulid('2025-01-01 00:00:00+00') < '2025-01-01 00:00:00.001+00'::timestamptz::ulid AS before_next_ms;
SELECT ulid_timestamp(gen_ulid('1970-01-01 00:00:00+00')) AS first, ulid_timestamp(gen_ulid('10889-08-02 05:31:50.655+00')) AS last;
SELECT gen_ulid('1969-12-31 23:59:59.999+00');
\echo :LAST_ERROR_SQLSTATE
SELECT gen_ulid('10889-08-02 05:31:50.656+00');
\echo :LAST_ERROR_SQLSTATE
SELECT gen_ulid('infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT gen_ulid(NULL::timestamptz) IS NULL AS null_in_null_out;

-- gen_monotonic_ulid(): each value greater than the one before; within a
-- millisecond the random part moves on by a random step between 1 and 2^32
-- (ulid.monotonic_step = random, the default) or by one (= one).
SHOW ulid.monotonic_step;
CREATE TABLE mono AS SELECT n, gen_monotonic_ulid() AS id FROM generate_series(1, 1000000) n;
SELECT count(*) AS values, bool_and(id > prev) AS strictly_increasing
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM mono) s WHERE prev IS NOT NULL;
SELECT bool_and(ulid_timestamp(id) >= ulid_timestamp(prev)) AS time_never_goes_back,
       bool_or(ulid_timestamp(id) = ulid_timestamp(prev)) AS some_share_a_millisecond
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM mono) s WHERE prev IS NOT NULL;
-- The step from one value to the next within a millisecond: the 80-bit
-- random parts as numbers (20 bits and 60), subtracted.
CREATE FUNCTION random_step(id ulid, prev ulid) RETURNS numeric LANGUAGE sql AS $$
    SELECT (('x' || substr(encode(ulid_send(id), 'hex'), 13, 5))::bit(20)::int
            - ('x' || substr(encode(ulid_send(prev), 'hex'), 13, 5))::bit(20)::int)::numeric * 2 ^ 60
         + (('x' || right(encode(ulid_send(id), 'hex'), 15))::bit(60)::bigint
            - ('x' || right(encode(ulid_send(prev), 'hex'), 15))::bit(60)::bigint)
$$;
-- within one millisecond consecutive values differ by 1 to 2^32, rarely by
-- little (a step below 2^16 has odds of 1 in 65536)
SELECT bool_and(step BETWEEN 1 AND 2 ^ 32) AS steps_within_1_to_2_pow_32,
       count(*) FILTER (WHERE step < 2 ^ 16) < count(*) / 1000 AS few_small_steps,
       count(*) > 1000 AS enough_steps
FROM (SELECT random_step(id, prev) AS step
      FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM mono) s
      WHERE ulid_timestamp(id) = ulid_timestamp(prev)) steps;
-- ulid.monotonic_step = one: the specification's +1, exactly
SET ulid.monotonic_step = one;
CREATE TABLE mono_one AS SELECT n, gen_monotonic_ulid() AS id FROM generate_series(1, 100000) n;
SELECT bool_and(random_step(id, prev) = 1) AS plus_one, count(*) > 1000 AS enough_steps
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM mono_one) s
WHERE ulid_timestamp(id) = ulid_timestamp(prev);
RESET ulid.monotonic_step;
-- Only a superuser chooses the step (or a role granted SET on it): with
-- ulid preloaded every role steps from one shared value, and a step of one
-- would hand each caller the previous caller's value plus one.
CREATE ROLE regress_ulid_tenant;
SET ROLE regress_ulid_tenant;
SET ulid.monotonic_step = one;
SELECT set_config('ulid.monotonic_step', 'one', false);
SHOW ulid.monotonic_step;
RESET ROLE;
DROP ROLE regress_ulid_tenant;
-- across statements of the session too
SELECT gen_monotonic_ulid() > (SELECT max(id) FROM mono) AS next_statement_is_greater;

-- A DEFAULT for primary keys.
CREATE TABLE items (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), name text);
INSERT INTO items (name) SELECT 'item ' || g FROM generate_series(1, 1000) g;
SELECT count(*) AS items, bool_and(id > prev) AS ids_follow_insert_order
FROM (SELECT id, lag(id) OVER (ORDER BY right(name, -5)::int) AS prev FROM items) s WHERE prev IS NOT NULL;

-- Under a parallel plan, gen_monotonic_ulid() (PARALLEL RESTRICTED) runs in
-- the leader, above the Gather, so one statement's output still increases.
CREATE TABLE big AS SELECT g AS n FROM generate_series(1, 200000) g;
ANALYZE big;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT gen_monotonic_ulid(), n FROM big;
SELECT count(*) AS values, bool_and(id > prev) AS strictly_increasing
FROM (SELECT id, lag(id) OVER () AS prev FROM (SELECT gen_monotonic_ulid() AS id FROM big) s) t
WHERE prev IS NOT NULL;
-- gen_ulid() is PARALLEL SAFE and runs in the workers.
EXPLAIN (VERBOSE, COSTS OFF) SELECT gen_ulid(), n FROM big;
SELECT count(DISTINCT id) AS distinct_from_workers FROM (SELECT gen_ulid() AS id FROM big) s;
