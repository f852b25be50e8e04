-- A stand-in for pgx_ulid 0.2.2 (github.com/pksunkara/pgx_ulid), made of
-- PostgreSQL's own functions, so that docs/migrating.md can move a database
-- off pgx_ulid as its readers will: it has what the move has to deal with.
--   - pgx_ulid's names: the type `ulid` (with pgrx's names for its input and
--     output functions, operators and operator classes), `gen_ulid()`,
--     `gen_monotonic_ulid()`, and `ulid_to_timestamp` behind an IMPLICIT
--     cast to `timestamp` (pgx_ulid's README builds generated columns on it);
--   - a variable-length type whose values print as ULID text, as pgx_ulid's
--     do. pgx_ulid stores the 128-bit value in the processor's byte order,
--     this stores its text: neither is ulid's 16-byte layout, so a column
--     can only move through its text, which is the same in all three.
-- It is no ULID implementation: input is not checked, and
-- gen_monotonic_ulid() is gen_ulid() under pgx_ulid's other name.

CREATE TYPE @extschema@.ulid;
CREATE FUNCTION @extschema@.ulid_in(cstring) RETURNS @extschema@.ulid
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'textin';
CREATE FUNCTION @extschema@.ulid_out(@extschema@.ulid) RETURNS cstring
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'textout';
CREATE TYPE @extschema@.ulid (
    INPUT = @extschema@.ulid_in, OUTPUT = @extschema@.ulid_out,
    INTERNALLENGTH = VARIABLE, STORAGE = extended
);

-- comparisons: the bytes of upper-case Crockford text sort as the values do
CREATE FUNCTION @extschema@.ulid_eq(@extschema@.ulid, @extschema@.ulid) RETURNS boolean
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'byteaeq';
CREATE FUNCTION @extschema@.ulid_ne(@extschema@.ulid, @extschema@.ulid) RETURNS boolean
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'byteane';
CREATE FUNCTION @extschema@.ulid_lt(@extschema@.ulid, @extschema@.ulid) RETURNS boolean
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'bytealt';
CREATE FUNCTION @extschema@.ulid_le(@extschema@.ulid, @extschema@.ulid) RETURNS boolean
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'byteale';
CREATE FUNCTION @extschema@.ulid_gt(@extschema@.ulid, @extschema@.ulid) RETURNS boolean
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'byteagt';
CREATE FUNCTION @extschema@.ulid_ge(@extschema@.ulid, @extschema@.ulid) RETURNS boolean
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'byteage';
CREATE FUNCTION @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid) RETURNS integer
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'byteacmp';
CREATE FUNCTION @extschema@.ulid_hash(@extschema@.ulid) RETURNS integer
    LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE AS 'hashvarlena';

CREATE OPERATOR @extschema@.= (LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_eq, COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_ne, COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_lt, COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_le, COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_gt, COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_ge, COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR CLASS @extschema@.ulid_btree_ops DEFAULT FOR TYPE @extschema@.ulid USING btree AS
    OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
    OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
    FUNCTION 1 @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid);
CREATE OPERATOR CLASS @extschema@.ulid_hash_ops DEFAULT FOR TYPE @extschema@.ulid USING hash AS
    OPERATOR 1 @extschema@.=, FUNCTION 1 @extschema@.ulid_hash(@extschema@.ulid);

-- the generators: the current millisecond and 80 random bits, as
-- 26 characters of Crockford base32 (the top two of 130 bits are zero)
CREATE FUNCTION @extschema@.gen_ulid() RETURNS @extschema@.ulid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT pg_catalog.string_agg(pg_catalog.substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
               pg_catalog.substring(bits, 5 * i + 1, 5)::pg_catalog.int4 + 1, 1), '' ORDER BY i)::@extschema@.ulid
    FROM (SELECT (B'00' || ('x' || pg_catalog.lpad(pg_catalog.to_hex(
                     pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::pg_catalog.int8), 12, '0')
                  || pg_catalog.substr(pg_catalog.encode(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), 'hex'), 1, 20)
                 )::pg_catalog.bit(128)) AS bits) AS value,
         pg_catalog.generate_series(0, 25) AS i
$$;
CREATE FUNCTION @extschema@.gen_monotonic_ulid() RETURNS @extschema@.ulid LANGUAGE sql VOLATILE AS $$
    SELECT @extschema@.gen_ulid()
$$;

-- the time of a value, as a timestamp without time zone in UTC, behind an
-- IMPLICIT cast, as pgx_ulid has it
CREATE FUNCTION @extschema@.ulid_to_timestamp(@extschema@.ulid) RETURNS pg_catalog.timestamp
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT pg_catalog.timezone('UTC', pg_catalog.to_timestamp(pg_catalog.sum(
               (pg_catalog.strpos('0123456789ABCDEFGHJKMNPQRSTVWXYZ', pg_catalog.substr($1::pg_catalog.text, i + 1, 1)) - 1)::pg_catalog.numeric
               * 32::pg_catalog.numeric ^ (9 - i)) / 1000))
    FROM pg_catalog.generate_series(0, 9) AS i
$$;
CREATE CAST (@extschema@.ulid AS pg_catalog.timestamp)
    WITH FUNCTION @extschema@.ulid_to_timestamp(@extschema@.ulid) AS IMPLICIT;
