-- A catalogue of bad input. Each is refused with its SQLSTATE and leaves
-- the transaction usable after ROLLBACK TO SAVEPOINT.
CREATE EXTENSION ulid;
CREATE TABLE t (id ulid);
\set VERBOSITY default
BEGIN;
INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7');

-- Texts that are not ULIDs: the bad_text vectors of tests/vectors/ulid.json,
-- each with its SQLSTATE, message, DETAIL and HINT (tests/server/test_vectors.py).

-- a failed INSERT inside a savepoint; the transaction goes on
SAVEPOINT s;
INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T8'), ('01JGFJJZ00XHF7E02JJ03AE4TU');
ROLLBACK TO SAVEPOINT s;

-- binary values of the wrong length
SAVEPOINT s;
SELECT '\x0102'::bytea::ulid;
ROLLBACK TO SAVEPOINT s;
SAVEPOINT s;
SELECT decode(repeat('00', 17), 'hex')::ulid;
ROLLBACK TO SAVEPOINT s;
SAVEPOINT s;
SELECT ''::bytea::ulid;
ROLLBACK TO SAVEPOINT s;

-- timestamps a ULID cannot hold
SAVEPOINT s;
SELECT '1969-12-31 23:59:59.999999+00'::timestamptz::ulid;
ROLLBACK TO SAVEPOINT s;
SAVEPOINT s;
SELECT gen_ulid('-infinity');
ROLLBACK TO SAVEPOINT s;
SAVEPOINT s;
SELECT gen_ulid('294276-12-31 23:59:59+00'::timestamptz);
ROLLBACK TO SAVEPOINT s;
SAVEPOINT s;
SELECT 'infinity'::timestamptz::ulid;
ROLLBACK TO SAVEPOINT s;

-- after all that, the transaction still works and holds only the good row
INSERT INTO t VALUES ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT id FROM t ORDER BY id;
COMMIT;

-- NULL in every function: NULL out (the STRICT ones) or a value
SELECT ulid_in(NULL) IS NULL AS ulid_in, ulid_out(NULL) IS NULL AS ulid_out,
       ulid_send(NULL) IS NULL AS ulid_send,
       ulid_timestamp(NULL) IS NULL AS ulid_timestamp,
       ulid_from_timestamptz(NULL) IS NULL AS from_timestamptz,
       ulid_to_bytea(NULL) IS NULL AS to_bytea, ulid_from_bytea(NULL) IS NULL AS from_bytea,
       gen_ulid(NULL) IS NULL AS gen_ulid_at;
SELECT ulid_eq(NULL, NULL) IS NULL AS eq, ulid_ne(NULL, '01JGFJJZ00XHF7E02JJ03AE4T7') IS NULL AS ne,
       ulid_lt(NULL, NULL) IS NULL AS lt, ulid_le(NULL, NULL) IS NULL AS le,
       ulid_gt(NULL, NULL) IS NULL AS gt, ulid_ge(NULL, NULL) IS NULL AS ge,
       ulid_cmp(NULL, NULL) IS NULL AS cmp, ulid_hash(NULL) IS NULL AS hash,
       ulid_hash_extended(NULL, 0) IS NULL AS hash_extended,
       ulid_smaller(NULL, '01JGFJJZ00XHF7E02JJ03AE4T7') IS NULL AS smaller,
       ulid_larger('01JGFJJZ00XHF7E02JJ03AE4T7', NULL) IS NULL AS larger;
SELECT NULL::ulid::uuid IS NULL AS to_uuid, NULL::uuid::ulid IS NULL AS from_uuid,
       NULL::ulid::timestamptz IS NULL AS to_timestamptz, NULL::timestamptz::ulid IS NULL AS from_timestamptz,
       NULL::ulid::bytea IS NULL AS to_bytea, NULL::bytea::ulid IS NULL AS from_bytea,
       NULL::ulid::text IS NULL AS to_text, NULL::text::ulid IS NULL AS from_text;
SELECT min(x), max(x) FROM (VALUES (NULL::ulid), (NULL)) v(x);
