-- ulid.layout: the ULID specification's layout, or values that are also UUIDv7s.
CREATE EXTENSION ulid;
SET DateStyle = ISO;
SET TimeZone = UTC;

SELECT name, setting, context, vartype, enumvals, short_desc
FROM pg_settings WHERE name = 'ulid.layout';

-- The version nibble and the variant bits of 1,000 values of each generator,
-- in each layout: random in the ULID layout, 7 and 10 in the UUIDv7 one.
CREATE VIEW made AS
SELECT generator, get_byte(id::bytea, 6) >> 4 AS version, get_byte(id::bytea, 8) >> 6 AS variant
FROM (SELECT 'gen_ulid()' AS generator, gen_ulid() AS id FROM generate_series(1, 1000)
      UNION ALL SELECT 'gen_ulid(timestamptz)', gen_ulid('2025-01-01 00:00:00+00') FROM generate_series(1, 1000)
      UNION ALL SELECT 'gen_monotonic_ulid()', gen_monotonic_ulid() FROM generate_series(1, 1000)) g;

SELECT generator, count(DISTINCT version) > 8 AS versions_vary, count(DISTINCT variant) = 4 AS variants_vary
FROM made WHERE generator <> 'gen_monotonic_ulid()' GROUP BY 1 ORDER BY 1;

SET ulid.layout = uuidv7;
SELECT generator, count(*) AS values, count(*) FILTER (WHERE version = 7 AND variant = 2) AS uuidv7s
FROM made GROUP BY 1 ORDER BY 1;

-- Still ULIDs: the timestamp is the millisecond, the text 26 characters.
SELECT ulid_timestamp(gen_ulid('2025-01-01 12:34:56.789+00')) AS time,
       length(gen_ulid()::text) AS text_length;
-- The bounds of a time range do not change.
SELECT '2025-01-01 00:00:00+00'::timestamptz::ulid AS bound;

-- gen_monotonic_ulid() in this layout after a value of the other one,
-- in one session: above it.
SET ulid.layout = ulid;
SELECT gen_monotonic_ulid() AS a \gset
SET ulid.layout = uuidv7;
SELECT gen_monotonic_ulid() AS b \gset
SELECT :'b'::ulid > :'a'::ulid AS increases, get_byte(:'b'::ulid::bytea, 6) >> 4 AS version;

-- Other values are refused.
SET ulid.layout = uuidv4;
\echo :LAST_ERROR_SQLSTATE
RESET ulid.layout;
SHOW ulid.layout;
