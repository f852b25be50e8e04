-- The three texts ulid_in reads: the ULID text, the bytea hex text that
-- drivers send for a 16-byte buffer, and the UUID text that clients of a
-- former uuid column send. Output is always the ULID text.
CREATE EXTENSION ulid;

-- The specification's example in each form, either case.
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS ulid_text,
       '\x01941f297c00ec5e7700529006a71347'::ulid AS bytea_hex,
       '\x01941F297C00EC5E7700529006A71347'::ulid AS bytea_hex_upper,
       '01941f29-7c00-ec5e-7700-529006a71347'::ulid AS uuid_text,
       '01941F29-7C00-EC5E-7700-529006A71347'::ulid AS uuid_upper;
SELECT '\x01941f297c00ec5e7700529006a71347'::ulid = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS hex_equal,
       '01941f29-7c00-ec5e-7700-529006a71347'::ulid = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS uuid_equal;

-- The same 16 bytes as bytea and uuid give the same texts.
SELECT encode(ulid_send(v), 'hex') AS hex, v::uuid AS uuid
FROM (VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7'::ulid)) AS t(v);
SELECT ('\x' || encode(ulid_send(v), 'hex'))::ulid = v AS via_hex,
       (v::uuid)::text::ulid = v AS via_uuid_text
FROM (VALUES ('00000000000000000000000000'::ulid), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'),
             ('01JGFJJZ00XHF7E02JJ03AE4T7')) AS t(v);

-- The ends of the range in each form.
SELECT '\x00000000000000000000000000000000'::ulid AS hex_zero,
       '\xffffffffffffffffffffffffffffffff'::ulid AS hex_max,
       'ffffffff-ffff-ffff-ffff-ffffffffffff'::ulid AS uuid_max;

-- A text parameter in any form compares as a ulid.
CREATE TABLE t (id ulid PRIMARY KEY);
INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7'), ('\x01941f297c00ec5e7700529006a71348'),
                     ('01941f29-7c00-ec5e-7700-529006a71349');
SELECT id FROM t ORDER BY id;
PREPARE find(ulid) AS SELECT id FROM t WHERE id = $1;
EXECUTE find('\x01941f297c00ec5e7700529006a71347');
EXECUTE find('01941f29-7c00-ec5e-7700-529006a71348');

-- COPY text reads them too (a backslash is doubled in COPY's text format).
COPY t FROM STDIN;
\\x01941f297c00ec5e7700529006a7134a
01941f29-7c00-ec5e-7700-529006a7134b
\.
SELECT id FROM t ORDER BY id;
-- Each form's mistakes: the bad_text vectors of tests/vectors/ulid.json
-- (tests/server/test_vectors.py).
