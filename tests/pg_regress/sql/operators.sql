-- Comparison operators, their metadata, and ordering.
CREATE EXTENSION ulid;

-- Every comparison operator with its commutator, negator and estimators.
SELECT o.oprname, o.oprcom::regoperator AS commutator, o.oprnegate::regoperator AS negator,
       o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge
FROM pg_operator o
WHERE o.oprleft = 'ulid'::regtype AND o.oprright = 'ulid'::regtype
ORDER BY o.oprname;

-- The functions behind them: IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF, like uuid's.
SELECT p.proname, p.provolatile, p.proisstrict, p.proparallel, p.proleakproof
FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
WHERE o.oprleft = 'ulid'::regtype AND o.oprright = 'ulid'::regtype
ORDER BY p.proname;

-- Values compare by time first, then by their random part.
CREATE TABLE v (name text, id ulid);
INSERT INTO v VALUES
    ('zero',  '00000000000000000000000000'),
    ('epoch second 1000000', '0000XSNJG00000000000000000'),
    ('2025',  '01JGFJJZ00XHF7E02JJ03AE4T7'),
    ('2025 same ms, smaller random', '01JGFJJZ000000000000000000'),
    ('2025 + 1 ms', '01JGFJJZ010000000000000000'),
    ('largest', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT name, id FROM v ORDER BY id;
SELECT name, id FROM v ORDER BY id DESC;

-- Operator truth table on a few pairs.
SELECT a.name AS a, b.name AS b,
       a.id = b.id AS eq, a.id <> b.id AS ne, a.id < b.id AS lt,
       a.id <= b.id AS le, a.id > b.id AS gt, a.id >= b.id AS ge,
       sign(ulid_cmp(a.id, b.id)) AS cmp
FROM v a, v b
WHERE a.name IN ('2025', 'zero') AND b.name IN ('2025', '2025 same ms, smaller random', 'largest')
ORDER BY a.name, b.name;

-- Case does not matter to equality: both spell the same value.
SELECT '01jgfjjz00xhf7e02jj03ae4t7'::ulid = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS same;

-- Comparisons with NULL are NULL.
SELECT NULL::ulid = '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS eq_null,
       NULL::ulid < '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid AS lt_null;

-- ORDER BY on ulid is the order of the text in the "C" collation, and the
-- order of the bytes.
CREATE TABLE r AS
SELECT gen_ulid(timestamptz '2025-01-01 00:00:00+00' + (g % 50) * interval '1 ms') AS id
FROM generate_series(1, 5000) g;
SELECT count(*) AS rows,
       bool_and(by_id = by_text) AS id_order_is_text_order,
       bool_and(by_id = by_bytes) AS id_order_is_byte_order
FROM (SELECT row_number() OVER (ORDER BY id) AS by_id,
             row_number() OVER (ORDER BY id::text COLLATE "C") AS by_text,
             row_number() OVER (ORDER BY ulid_send(id)) AS by_bytes
      FROM r) s;

-- Operators on mixed types are not invented: ulid = text needs a cast.
-- (ulid and uuid have operators of their own: uuid_comparisons.sql.)
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid = '01JGFJJZ00XHF7E02JJ03AE4T7'::text;
\echo :LAST_ERROR_SQLSTATE
