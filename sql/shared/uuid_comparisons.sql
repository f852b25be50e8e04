-- Comparisons between ulid and uuid, both ways round, in ulid's btree and
-- hash families: `ulid_col = $1::uuid` and `ulid_col >= some_uuid` use an
-- index on the ulid column, and a ulid column joins a uuid one. So SQL
-- written for a uuid column (the portable layer's ulid_parse() and
-- ulid_from_timestamptz() return uuid) keeps working once the column is a
-- ulid. The casts stay assignment-only: an exact operator per pair of
-- types is what PostgreSQL's own integer family does (int4 = int8), and it
-- leaves nothing ambiguous: `ulid_col = 'text'` and `ulid_col = NULL` still
-- take the other side's type.
--
-- Both types are 16 bytes compared with memcmp, so the C functions are the
-- ulid ones (core's uuid functions, see fmgr.rs); only the SQL signatures
-- are new.
CREATE FUNCTION @extschema@.ulid_uuid_eq(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_eq';
CREATE FUNCTION @extschema@.ulid_uuid_ne(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_ne';
CREATE FUNCTION @extschema@.ulid_uuid_lt(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_lt';
CREATE FUNCTION @extschema@.ulid_uuid_le(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_le';
CREATE FUNCTION @extschema@.ulid_uuid_gt(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_gt';
CREATE FUNCTION @extschema@.ulid_uuid_ge(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_ge';
CREATE FUNCTION @extschema@.ulid_uuid_cmp(@extschema@.ulid, pg_catalog.uuid) RETURNS pg_catalog.int4
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_cmp';

CREATE FUNCTION @extschema@.uuid_ulid_eq(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_eq';
CREATE FUNCTION @extschema@.uuid_ulid_ne(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_ne';
CREATE FUNCTION @extschema@.uuid_ulid_lt(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_lt';
CREATE FUNCTION @extschema@.uuid_ulid_le(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_le';
CREATE FUNCTION @extschema@.uuid_ulid_gt(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_gt';
CREATE FUNCTION @extschema@.uuid_ulid_ge(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_ge';
CREATE FUNCTION @extschema@.uuid_ulid_cmp(pg_catalog.uuid, @extschema@.ulid) RETURNS pg_catalog.int4
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_cmp';

-- Each operator's commutator is its mirror with the types swapped, so the
-- first of each pair makes the second as a shell that the second then fills.
CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.ulid, RIGHTARG = pg_catalog.uuid,
    FUNCTION = @extschema@.ulid_uuid_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
    HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.ulid, RIGHTARG = pg_catalog.uuid,
    FUNCTION = @extschema@.ulid_uuid_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.ulid, RIGHTARG = pg_catalog.uuid,
    FUNCTION = @extschema@.ulid_uuid_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.ulid, RIGHTARG = pg_catalog.uuid,
    FUNCTION = @extschema@.ulid_uuid_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.ulid, RIGHTARG = pg_catalog.uuid,
    FUNCTION = @extschema@.ulid_uuid_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.ulid, RIGHTARG = pg_catalog.uuid,
    FUNCTION = @extschema@.ulid_uuid_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR @extschema@.= (
    LEFTARG = pg_catalog.uuid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.uuid_ulid_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
    HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = pg_catalog.uuid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.uuid_ulid_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = pg_catalog.uuid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.uuid_ulid_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = pg_catalog.uuid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.uuid_ulid_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = pg_catalog.uuid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.uuid_ulid_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = pg_catalog.uuid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.uuid_ulid_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

-- A family with two types must hold every pair of them, or amvalidate()
-- reports it incomplete and the planner cannot derive one comparison from
-- two: so uuid's own operators and support functions join ulid's families
-- too (they stay in core's uuid_ops as well; an operator may be in several
-- families).
ALTER OPERATOR FAMILY @extschema@.ulid_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.ulid, pg_catalog.uuid),
    OPERATOR 2 @extschema@.<= (@extschema@.ulid, pg_catalog.uuid),
    OPERATOR 3 @extschema@.= (@extschema@.ulid, pg_catalog.uuid),
    OPERATOR 4 @extschema@.>= (@extschema@.ulid, pg_catalog.uuid),
    OPERATOR 5 @extschema@.> (@extschema@.ulid, pg_catalog.uuid),
    FUNCTION 1 (@extschema@.ulid, pg_catalog.uuid) @extschema@.ulid_uuid_cmp(@extschema@.ulid, pg_catalog.uuid),
    OPERATOR 1 @extschema@.< (pg_catalog.uuid, @extschema@.ulid),
    OPERATOR 2 @extschema@.<= (pg_catalog.uuid, @extschema@.ulid),
    OPERATOR 3 @extschema@.= (pg_catalog.uuid, @extschema@.ulid),
    OPERATOR 4 @extschema@.>= (pg_catalog.uuid, @extschema@.ulid),
    OPERATOR 5 @extschema@.> (pg_catalog.uuid, @extschema@.ulid),
    FUNCTION 1 (pg_catalog.uuid, @extschema@.ulid) @extschema@.uuid_ulid_cmp(pg_catalog.uuid, @extschema@.ulid),
    OPERATOR 1 pg_catalog.< (pg_catalog.uuid, pg_catalog.uuid),
    OPERATOR 2 pg_catalog.<= (pg_catalog.uuid, pg_catalog.uuid),
    OPERATOR 3 pg_catalog.= (pg_catalog.uuid, pg_catalog.uuid),
    OPERATOR 4 pg_catalog.>= (pg_catalog.uuid, pg_catalog.uuid),
    OPERATOR 5 pg_catalog.> (pg_catalog.uuid, pg_catalog.uuid),
    FUNCTION 1 (pg_catalog.uuid, pg_catalog.uuid) pg_catalog.uuid_cmp(pg_catalog.uuid, pg_catalog.uuid);

-- Hashing a ulid gives what hashing the uuid of the same bytes gives, so a
-- hash index on ulid finds a uuid key and a hash join matches across the
-- two types.
ALTER OPERATOR FAMILY @extschema@.ulid_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.ulid, pg_catalog.uuid),
    OPERATOR 1 @extschema@.= (pg_catalog.uuid, @extschema@.ulid),
    OPERATOR 1 pg_catalog.= (pg_catalog.uuid, pg_catalog.uuid),
    FUNCTION 1 pg_catalog.uuid_hash(pg_catalog.uuid),
    FUNCTION 2 pg_catalog.uuid_hash_extended(pg_catalog.uuid, pg_catalog.int8);
