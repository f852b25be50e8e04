-- Conversions: uuid, timestamptz, bytea and text.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

-- Every cast to or from ulid, with its context (e = explicit, a = assignment,
-- i = implicit) and method (b = binary-coercible, f = function). None is implicit.
SELECT c.castsource::regtype AS source, c.casttarget::regtype AS target,
       c.castcontext AS context, c.castmethod AS method, c.castfunc::regprocedure AS function
FROM pg_cast c
WHERE c.castsource = 'ulid'::regtype OR c.casttarget = 'ulid'::regtype
ORDER BY c.castsource::regtype::text, c.casttarget::regtype::text;

-- uuid <-> ulid: the same 16 bytes, reinterpreted.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::uuid AS as_uuid;
SELECT '01941f29-7c00-ec5e-7700-529006a71347'::uuid::ulid AS as_ulid;
SELECT '00000000-0000-0000-0000-000000000000'::uuid::ulid AS nil,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid::ulid AS max;
SELECT ulid_send(id) = uuid_send(id::uuid) AS same_bytes
FROM (VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')) v(id);

-- A UUIDv7 starts with the same 48-bit millisecond timestamp, so its time reads back.
SELECT '01941f29-7c00-7000-8000-000000000000'::uuid::ulid::timestamptz AS uuidv7_time;

-- Assignment casts: a uuid value goes into a ulid column and back without a cast.
CREATE TABLE ids (u uuid, l ulid);
INSERT INTO ids (l) VALUES ('01941f29-7c00-ec5e-7700-529006a71347'::uuid);
UPDATE ids SET u = l;
SELECT u, l FROM ids;

-- Neither is cast implicitly: ulid and uuid compare through operators of
-- their own (uuid_comparisons.sql), and what has none needs a cast.
SELECT l = u AS equal, l = u::ulid AS equal_as_ulid, l::uuid = u AS equal_as_uuid FROM ids;
SELECT COALESCE(l, u) FROM ids;
\echo :LAST_ERROR_SQLSTATE
SELECT COALESCE(l, u::ulid) AS first_not_null FROM ids;

-- ulid -> timestamptz: the exact millisecond. IMMUTABLE: a timestamptz is an
-- absolute instant, whatever the session's TimeZone.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::timestamptz AS made;
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::timestamptz = '2025-01-01 00:00:00+00' AS worked_example;
SELECT ulid_timestamp('01JGFJJZ00XHF7E02JJ03AE4T7') AS made,
       ulid_timestamp('00000000000000000000000000') AS epoch,
       ulid_timestamp('0000XSNJG00000000000000000') AS epoch_second_1000000,
       ulid_timestamp('7ZZZZZZZZZZZZZZZZZZZZZZZZZ') AS last;
SET TimeZone = 'America/New_York';
SELECT ulid_timestamp('01JGFJJZ00XHF7E02JJ03AE4T7') AS made_in_new_york_time;
SET TimeZone = UTC;
SELECT p.proname, p.provolatile, p.proparallel FROM pg_proc p
WHERE p.proname IN ('ulid_timestamp', 'ulid_from_timestamptz', 'ulid_to_bytea', 'ulid_from_bytea')
ORDER BY 1;

-- No cast to timestamp without time zone: it would depend on TimeZone.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::timestamp;
\echo :LAST_ERROR_SQLSTATE

-- timestamptz -> ulid: the smallest ULID of that millisecond, for range bounds.
SELECT '2025-01-01 00:00:00+00'::timestamptz::ulid AS start_of_2025;
SELECT '1970-01-01 00:00:00+00'::timestamptz::ulid AS epoch,
       '1970-01-12 13:46:40+00'::timestamptz::ulid AS epoch_second_1000000,
       '10889-08-02 05:31:50.655+00'::timestamptz::ulid AS last_millisecond;
-- sub-millisecond digits are truncated toward the past
SELECT '2025-01-01 00:00:00.000999+00'::timestamptz::ulid = '2025-01-01 00:00:00+00'::timestamptz::ulid AS truncated,
       '1999-12-31 23:59:59.9999+00'::timestamptz::ulid::timestamptz AS before_2000_truncates_down,
       '1970-01-01 00:00:00.0005+00'::timestamptz::ulid::timestamptz AS first_millisecond;
-- and the round trip keeps the millisecond
SELECT ts, ts::ulid::timestamptz = date_trunc('milliseconds', ts) AS round_trips
FROM (VALUES ('2025-06-30 12:34:56.789+00'::timestamptz), ('2000-01-01 00:00:00+00'), ('2262-04-11 23:47:16.854+00')) v(ts);

-- Out of range: before 1970, after 10889-08-02 05:31:50.655 UTC, or infinite.
SELECT '1969-12-31 23:59:59.999+00'::timestamptz::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '10889-08-02 05:31:50.656+00'::timestamptz::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT 'infinity'::timestamptz::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '-infinity'::timestamptz::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT ulid_from_timestamptz(NULL) IS NULL AS null_in_null_out;

-- bytea <-> ulid: exactly the 16 bytes of the binary layout.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::bytea AS bytes;
SELECT '\x01941f297c00ec5e7700529006a71347'::bytea::ulid AS from_bytes;
SELECT decode(repeat('ff', 16), 'hex')::ulid AS largest;
SELECT '\x01941f297c00ec5e7700529006a713'::bytea::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT '\x01941f297c00ec5e7700529006a7134700'::bytea::ulid;
\echo :LAST_ERROR_SQLSTATE
SELECT ''::bytea::ulid;
\echo :LAST_ERROR_SQLSTATE
-- a bytea from a table (possibly stored compressed or out of line) converts too
CREATE TABLE raw (b bytea);
INSERT INTO raw VALUES ('\x01941f297c00ec5e7700529006a71347');
SELECT b::ulid FROM raw;

-- text <-> ulid are the I/O conversions.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::text, '01jgfjjz00xhf7e02jj03ae4t7'::text::ulid;
