-- Soft input errors: pg_input_is_valid and pg_input_error_info answer
-- without raising (PostgreSQL 16 and later: soft_errors.pg16.out). Before
-- 16 neither function exists and bad input always raises (soft_errors.out).
CREATE EXTENSION ulid;
\set VERBOSITY terse
SELECT '80000000000000000000000000'::ulid;
\set VERBOSITY default

SELECT pg_input_is_valid('01JGFJJZ00XHF7E02JJ03AE4T7', 'ulid') AS canonical,
       pg_input_is_valid('01jgfjjz00xhf7e02jj03ae4t7', 'ulid') AS lower_case,
       pg_input_is_valid('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', 'ulid') AS largest,
       pg_input_is_valid('80000000000000000000000000', 'ulid') AS above_largest,
       pg_input_is_valid('01JGFJJZ00XHF7E02JJ03AE4T', 'ulid') AS too_short,
       pg_input_is_valid('01JGFJJZ00XHF7E02JJ03AE4TU', 'ulid') AS letter_u;

SELECT input, e.*
FROM (VALUES ('80000000000000000000000000'),
             ('01JGFJJZ00XHF7E02JJ03AE4T'),
             ('01JGFJJZ00XHF7E02JJ03AE4TL'),
             ('01JGFJJZ00XHF7E02JJ03AE4é'),
             ('01JGFJJZ00XHF7E02JJ03AE4T7'),
             ('\x01941f297c00ec5e7700529006a71347'),
             ('\x01941f297c00ec5e7700529006a7134'),
             ('\x01941f297c00ec5e7700529006a7134g'),
             ('01941f29-7c00-ec5e-7700-529006a71347'),
             ('01941f297-c00-ec5e-7700-529006a71347'),
             ('01941f29-7c00-ec5e-7700-529006a7134')) AS v(input),
     LATERAL pg_input_error_info(input, 'ulid') AS e;

-- Soft errors also serve arrays of ulid.
SELECT pg_input_is_valid('{01JGFJJZ00XHF7E02JJ03AE4T7,nope}', 'ulid[]') AS bad_element,
       pg_input_is_valid('{01JGFJJZ00XHF7E02JJ03AE4T7}', 'ulid[]') AS good_array;
