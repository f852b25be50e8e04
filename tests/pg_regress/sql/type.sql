-- The ulid type: its physical shape, its text form and its errors.
CREATE EXTENSION ulid;

-- Stored exactly like uuid: 16 bytes, by reference, char alignment, plain storage.
SELECT t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory
FROM pg_type t
WHERE t.oid IN ('ulid'::regtype, 'uuid'::regtype)
ORDER BY t.typname;

SELECT pg_column_size('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid) AS ulid_bytes,
       pg_column_size('0194215c-2580-3c5e-7702-942039a2c7a0'::uuid) AS uuid_bytes;

-- Text round trip: the spec's worked example, made 2025-01-01 00:00:00 UTC.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid;
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::text = '01JGFJJZ00XHF7E02JJ03AE4T7' AS round_trips;

-- Input is case-insensitive, output is canonical upper case.
SELECT '01jgfjjz00xhf7e02jj03ae4t7'::ulid, '01JgFjJz00xHf7E02jJ03aE4t7'::ulid;

-- The smallest and the largest values.
SELECT '00000000000000000000000000'::ulid AS smallest, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid AS largest;
SELECT '7zzzzzzzzzzzzzzzzzzzzzzzzz'::ulid;

-- The binary form is the specification's byte layout: 48-bit timestamp
-- (0x01941f297c00 = 1735689600000 ms), then 80 random bits.
SELECT ulid_send('01JGFJJZ00XHF7E02JJ03AE4T7');
SELECT ulid_send('00000000000000000000000000'), ulid_send('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT ulid_send('0000XSNJG00000000000000000') AS epoch_second_1000000;

-- text <-> ulid are PostgreSQL's automatic I/O conversions.
SELECT ('01JGFJJZ00XHF7E02JJ03AE4T7'::text)::ulid;
SELECT CAST('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS text) || '!' AS concatenated;

-- NULL in, NULL out.
SELECT NULL::ulid IS NULL AS is_null, ulid_out(NULL) IS NULL AS out_null, ulid_send(NULL) IS NULL AS send_null;

-- Arrays and composites of ulid work like any other type.
SELECT ARRAY['01JGFJJZ00XHF7E02JJ03AE4T7', '00000000000000000000000000']::ulid[];
SELECT ('{01jgfjjz00xhf7e02jj03ae4t7}'::ulid[])[1];
SELECT ROW('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid, 1);

-- A table column round-trips through storage.
CREATE TABLE stored (id ulid);
INSERT INTO stored VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7'), ('7zzzzzzzzzzzzzzzzzzzzzzzzz'), (NULL);
SELECT id, id::text AS text FROM stored;

-- Bad text: SQLSTATE 22P02, a DETAIL naming the problem and its position.
SELECT '80000000000000000000000000'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT 'Z0000000000000000000000000'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT ''::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '01JGFJJZ00XHF7E02JJ03AE4T'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '01JGFJJZ00XHF7E02JJ03AE4T70'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '01JGFJJZ00XHF7E02JJ03AE4TU'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '01IGFJJZ00XHF7E02JJ03AE4T7'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '01JGFJJZ00XHF7E02JJ03AE4é'::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT ' 01JGFJJZ00XHF7E02JJ03AE4T7'::ulid;
\echo :LAST_ERROR_SQLSTATE
-- A UUID text is read as the same 16 bytes (input_forms.sql has the details),
-- but not without its hyphens.
SELECT '0194215c-2580-3c5e-7702-942039a2c7a0'::ulid;
SELECT '0194215c25803c5e7702942039a2c7a0'::ulid;
\echo :LAST_ERROR_SQLSTATE

-- A failed insert changes nothing.
INSERT INTO stored VALUES ('00000000000000000000000000'), ('not a ulid');
SELECT count(*) FROM stored;
