-- Public ids: ulid_encrypt(id, key) and ulid_decrypt(id, key), AES on the 16 bytes.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

-- The functions as declared: immutable, strict, parallel safe.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatile, p.proisstrict AS strict,
       p.proparallel AS parallel, p.proleakproof AS leakproof, pg_get_function_arguments(p.oid) AS arguments,
       obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p WHERE p.proname IN ('ulid_encrypt', 'ulid_decrypt') ORDER BY 1::text;

-- FIPS-197, appendix C: the plaintext 00112233445566778899aabbccddeeff as a
-- ulid, under the keys 000102... of 16, 24 and 32 bytes (AES-128, -192, -256).
SELECT '00112233-4455-6677-8899-aabbccddeeff'::ulid AS plaintext;
SELECT length(key) * 8 AS bits,
       ulid_encrypt('00112233-4455-6677-8899-aabbccddeeff', key)::uuid AS ciphertext,
       ulid_decrypt(ulid_encrypt('00112233-4455-6677-8899-aabbccddeeff', key), key)::uuid AS decrypted
FROM (VALUES ('\x000102030405060708090a0b0c0d0e0f'::bytea),
             ('\x000102030405060708090a0b0c0d0e0f1011121314151617'),
             ('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f')) k(key)
ORDER BY bits;
SELECT ulid_decrypt('69c4e0d8-6a7b-0430-d8cd-b78070b4c55a', '\x000102030405060708090a0b0c0d0e0f')::uuid
    AS aes128_decrypted;

-- The public id is itself a ULID, in the canonical text; its "timestamp"
-- is whatever its first 48 bits say.
SELECT ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '\x000102030405060708090a0b0c0d0e0f') AS public_id,
       ulid_timestamp(ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '\x000102030405060708090a0b0c0d0e0f'))
           AS meaningless_time;

-- Named arguments.
SELECT ulid_decrypt(key => '\x000102030405060708090a0b0c0d0e0f',
                    id => ulid_encrypt(key => '\x000102030405060708090a0b0c0d0e0f', id => '01JGFJJZ00XHF7E02JJ03AE4T7'))
    AS round_trip;

-- Round trips under many keys in one statement: one call site, the key
-- changing from row to row.
SELECT count(*) AS rows,
       count(*) FILTER (WHERE ulid_decrypt(ulid_encrypt(id, key), key) = id) AS round_trips,
       count(DISTINCT ulid_encrypt(id, key)) AS distinct_public_ids
FROM (SELECT gen_ulid() AS id, sha256(i::text::bytea) AS key FROM generate_series(1, 500) i) r;

-- NULL in, NULL out.
SELECT ulid_encrypt(NULL, '\x000102030405060708090a0b0c0d0e0f') IS NULL AS null_id,
       ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', NULL) IS NULL AS null_key,
       ulid_decrypt(NULL, NULL) IS NULL AS both;

-- A key of any other length is an error (22023) naming the lengths allowed.
SELECT ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '');
\echo :LAST_ERROR_SQLSTATE
SELECT ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '\x000102030405060708090a0b0c0d0e');
\echo :LAST_ERROR_SQLSTATE
SELECT ulid_decrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '\x000102030405060708090a0b0c0d0e0f10');
\echo :LAST_ERROR_SQLSTATE
SELECT ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', decode(repeat('00', 33), 'hex'));
\echo :LAST_ERROR_SQLSTATE

-- An error changes nothing: the row that would have had a bad key is not written.
CREATE TABLE tickets (id ulid PRIMARY KEY, public_id ulid);
INSERT INTO tickets SELECT '01JGFJJZ00XHF7E02JJ03AE4T7', ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', k)
FROM unnest(ARRAY['\x000102030405060708090a0b0c0d0e0f'::bytea, '\x00']) k;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS rows_written FROM tickets;

-- A lookup by public id is a lookup by id: the decrypted constant is folded
-- and the primary key's index is used.
INSERT INTO tickets SELECT id, ulid_encrypt(id, '\x000102030405060708090a0b0c0d0e0f')
FROM (SELECT gen_ulid('2025-01-01 00:00:00+00') AS id FROM generate_series(1, 1000)) g;
INSERT INTO tickets VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7',
                           ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '\x000102030405060708090a0b0c0d0e0f'));
ANALYZE tickets;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT id FROM tickets WHERE id = ulid_decrypt('38Z4YRRNNWWW2QZ01QS8KN01E9', '\x000102030405060708090a0b0c0d0e0f');
PREPARE by_public_id(ulid, bytea) AS SELECT id FROM tickets WHERE id = ulid_decrypt($1, $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE by_public_id('38Z4YRRNNWWW2QZ01QS8KN01E9', '\x000102030405060708090a0b0c0d0e0f');
EXECUTE by_public_id(ulid_encrypt('01JGFJJZ00XHF7E02JJ03AE4T7', '\x000102030405060708090a0b0c0d0e0f'),
                     '\x000102030405060708090a0b0c0d0e0f');
RESET plan_cache_mode;
RESET enable_seqscan;
