-- requires: pg16
-- Soft input errors: pg_input_is_valid and pg_input_error_info answer
-- without raising (PostgreSQL 16 and later).
CREATE EXTENSION ulid;

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
             ('01JGFJJZ00XHF7E02JJ03AE4T7')) AS v(input),
     LATERAL pg_input_error_info(input, 'ulid') AS e;

-- Soft errors also serve arrays of ulid.
SELECT pg_input_is_valid('{01JGFJJZ00XHF7E02JJ03AE4T7,nope}', 'ulid[]') AS bad_element,
       pg_input_is_valid('{01JGFJJZ00XHF7E02JJ03AE4T7}', 'ulid[]') AS good_array;
