-- A catalogue of bad input. Each is refused with its SQLSTATE and leaves
-- the transaction usable after ROLLBACK TO SAVEPOINT.
CREATE EXTENSION ulid;
CREATE TABLE t (id ulid);
\set VERBOSITY default
BEGIN;
INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7');

-- texts that are not ULIDs, one statement each
CREATE TEMP TABLE cases (label text, input text);
INSERT INTO cases VALUES
    ('empty', ''),
    ('25 characters', '01JGFJJZ00XHF7E02JJ03AE4T'),
    ('27 characters', '01JGFJJZ00XHF7E02JJ03AE4T77'),
    ('leading space', ' 01JGFJJZ00XHF7E02JJ03AE4T7'),
    ('trailing space', '01JGFJJZ00XHF7E02JJ03AE4T7 '),
    ('inner space', '01JGFJJZ00 XHF7E02JJ03AE4T'),
    ('tab', E'01JGFJJZ00XHF7E02JJ03AE4T\t'),
    ('newline', E'01JGFJJZ00XHF7E02JJ03AE4T\n'),
    ('I first', 'I1JGFJJZ00XHF7E02JJ03AE4T7'),
    ('i second', '0iJGFJJZ00XHF7E02JJ03AE4T7'),
    ('L in timestamp', '01JGFLJZ00XHF7E02JJ03AE4T7'),
    ('l in random', '01JGFJJZ00XHF7El2JJ03AE4T7'),
    ('O in random', '01JGFJJZ00XHF7E02JJ03AO4T7'),
    ('o last', '01JGFJJZ00XHF7E02JJ03AE4To'),
    ('U at 11', '01JGFJJZ00UHF7E02JJ03AE4T7'),
    ('u at 20', '01JGFJJZ00XHF7E02JJu3AE4T7'),
    ('hyphen', '01JGFJJZ00-XHF7E02JJ03AE4T'),
    ('hex without \x', '01941f297c00ec5e7700529006a71347'),
    ('\x, 31 digits', '\x01941f297c00ec5e7700529006a7134'),
    ('\x, 33 digits', '\x01941f297c00ec5e7700529006a713470'),
    ('\x, no digits', '\x'),
    ('\x, non-hex digit', '\x01941f297c00ec5e7700529006a7134g'),
    ('\x, space inside', '\x01941f297c00ec5e 7700529006a71347'),
    ('\x, 16 bytes as a ULID text', '\x01JGFJJZ00XHF7E02JJ03AE4T7'),
    ('\X upper-case prefix', '\X01941f297c00ec5e7700529006a71347'),
    ('bytea escape format', '\001\224\037'),
    ('uuid, hyphen one late', '01941f297-c00-ec5e-7700-529006a71347'),
    ('uuid, hyphen one early', '01941f2-97c00-ec5e-7700-529006a71347'),
    ('uuid, 35 characters', '01941f29-7c00-ec5e-7700-529006a7134'),
    ('uuid, 37 characters', '01941f29-7c00-ec5e-7700-529006a713470'),
    ('uuid, non-hex digit', '01941f29-7c00-ec5e-7700-529006a7134z'),
    ('uuid in braces', '{01941f29-7c00-ec5e-7700-529006a71347}'),
    ('uuid, hyphens only', '------------------------------------'),
    ('uuid, trailing é', '01941f29-7c00-ec5e-7700-529006a71347é'),
    ('first char 8', '80000000000000000000000000'),
    ('first char 9', '90000000000000000000000000'),
    ('first char A', 'A0000000000000000000000000'),
    ('first char Z', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ'),
    ('first char z', 'zzzzzzzzzzzzzzzzzzzzzzzzzz'),
    ('e acute, 26 bytes', '01JGFJJZ00XHF7E02JJ03AE4é'),
    ('e acute, 26 characters', '01JGFJJZ00XHF7E02JJ03AE4Té'),
    ('euro sign', '€1JGFJJZ00XHF7E02JJ03AE4T7'),
    ('emoji', '01JGFJJZ00XHF7E02JJ03AE😀'),
    ('cyrillic O', '01JGFJJZ00XHF7E02JJ03AE4TО'),
    ('fullwidth digit', '０1JGFJJZ00XHF7E02JJ03AE4T7'),
    ('one megabyte', repeat('0', 1048576));

DO $$
DECLARE c record; st text; msg text; det text;
BEGIN
    FOR c IN SELECT * FROM cases LOOP
        BEGIN
            PERFORM c.input::ulid;
            RAISE NOTICE '%: accepted!', c.label;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
            RAISE NOTICE '% | % | % | %', c.label, st, left(msg, 80), det;
        END;
    END LOOP;
END $$;

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
