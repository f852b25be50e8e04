-- A short tour of the ulid type. Run by scripts/demo.
\set ECHO queries
CREATE EXTENSION ulid;

-- 26 characters of Crockford base32 in, canonical upper case out
SELECT '01jgfjjz00xhf7e02jj03ae4t7'::ulid AS id;

-- stored in 16 bytes, like uuid: 48-bit millisecond timestamp, then 80 random bits
SELECT pg_column_size('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid) AS bytes,
       ulid_send('01JGFJJZ00XHF7E02JJ03AE4T7') AS binary_form;

-- bad input is refused with a clear message, never truncated
SELECT '80000000000000000000000000'::ulid;
