//! Comparison, hashing and indexing: operators, the btree, hash and BRIN
//! operator classes, and `min`/`max`.
//!
//! A ulid is ordered by its 16 bytes compared with `memcmp`, which is also
//! time order; that is exactly how core orders `uuid`. So every support
//! function whose meaning is "this, for 16 bytes" is core's own C function,
//! as contrib/isn reuses core's for its types: `uuid_cmp`,
//! `uuid_sortsupport` (abbreviated keys with the HyperLogLog abort rule),
//! `uuid_hash` and `uuid_hash_extended` (so a ulid hashes exactly like the
//! uuid with the same bytes), `btequalimage` (deduplication), the generic
//! BRIN support functions, and on PostgreSQL 18 `uuid_skipsupport`. Those
//! with a uuid signature are exported under ulid names by
//! `fmgr::core_function!`, which says why they are C functions rather than
//! `LANGUAGE internal` ones. Indexes and sorts on ulid therefore run the
//! very code they run on uuid. Only what core does not have for uuid is
//! written here: the `smaller`/`larger` transition functions of `min` and
//! `max`.
//!
//! The comparisons of a ulid with a uuid, either way round
//! (`sql/shared/uuid_comparisons.sql`), are the same C functions under
//! cross-type signatures, in the same btree and hash families, which then
//! hold uuid's own operators too.

use crate::fmgr::{arg, arg_ulid, core_function, pg_function};
use pgrx::prelude::*;

extension_sql!(
    r#"
-- Comparison functions: core's uuid ones (see core_function! in fmgr.rs),
-- which compare the 16 bytes with memcmp. LEAKPROOF as uuid's are, so row-level-security quals can use
-- indexes on ulid columns.
CREATE FUNCTION @extschema@.ulid_eq(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_eq';
CREATE FUNCTION @extschema@.ulid_ne(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_ne';
CREATE FUNCTION @extschema@.ulid_lt(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_lt';
CREATE FUNCTION @extschema@.ulid_le(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_le';
CREATE FUNCTION @extschema@.ulid_gt(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_gt';
CREATE FUNCTION @extschema@.ulid_ge(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.bool
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_ge';
CREATE FUNCTION @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid) RETURNS pg_catalog.int4
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_cmp';
CREATE FUNCTION @extschema@.ulid_sortsupport(pg_catalog.internal) RETURNS pg_catalog.void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_sortsupport';
CREATE FUNCTION @extschema@.ulid_hash(@extschema@.ulid) RETURNS pg_catalog.int4
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_hash';
CREATE FUNCTION @extschema@.ulid_hash_extended(@extschema@.ulid, pg_catalog.int8) RETURNS pg_catalog.int8
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_hash_extended';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel,
    HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.ulid, RIGHTARG = @extschema@.ulid,
    FUNCTION = @extschema@.ulid_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.ulid_ops DEFAULT FOR TYPE @extschema@.ulid USING btree AS
    OPERATOR 1 @extschema@.<,
    OPERATOR 2 @extschema@.<=,
    OPERATOR 3 @extschema@.=,
    OPERATOR 4 @extschema@.>=,
    OPERATOR 5 @extschema@.>,
    FUNCTION 1 @extschema@.ulid_cmp(@extschema@.ulid, @extschema@.ulid),
    FUNCTION 2 @extschema@.ulid_sortsupport(pg_catalog.internal),
    -- equal values are bitwise equal, so btree may deduplicate
    FUNCTION 4 pg_catalog.btequalimage(pg_catalog.oid);

CREATE OPERATOR CLASS @extschema@.ulid_ops DEFAULT FOR TYPE @extschema@.ulid USING hash AS
    OPERATOR 1 @extschema@.=,
    FUNCTION 1 @extschema@.ulid_hash(@extschema@.ulid),
    FUNCTION 2 @extschema@.ulid_hash_extended(@extschema@.ulid, pg_catalog.int8);

-- BRIN: the same three classes core has for uuid, on core's generic support
-- functions. minmax suits time-ordered ids; minmax-multi tolerates some
-- out-of-order ranges; bloom serves equality on random ids.
CREATE OPERATOR CLASS @extschema@.ulid_minmax_ops DEFAULT FOR TYPE @extschema@.ulid USING brin AS
    OPERATOR 1 @extschema@.<,
    OPERATOR 2 @extschema@.<=,
    OPERATOR 3 @extschema@.=,
    OPERATOR 4 @extschema@.>=,
    OPERATOR 5 @extschema@.>,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(pg_catalog.internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal);

-- min and max: parallel-safe, and SORTOP lets the planner answer them from
-- a btree index.
CREATE FUNCTION @extschema@.ulid_smaller(@extschema@.ulid, @extschema@.ulid) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_smaller';
CREATE FUNCTION @extschema@.ulid_larger(@extschema@.ulid, @extschema@.ulid) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_larger';
CREATE AGGREGATE @extschema@.min(@extschema@.ulid) (
    SFUNC = @extschema@.ulid_smaller, STYPE = @extschema@.ulid,
    COMBINEFUNC = @extschema@.ulid_smaller,
    SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.ulid) (
    SFUNC = @extschema@.ulid_larger, STYPE = @extschema@.ulid,
    COMBINEFUNC = @extschema@.ulid_larger,
    SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE
);
"#,
    name = "ulid_ops",
    requires = ["ulid_type"],
);

// Comparisons between ulid and uuid, both ways round, in the btree and hash
// families above. A file in sql/shared/ because the update from 0.3.0
// adds the same objects.
extension_sql_file!(
    "../sql/shared/uuid_comparisons.sql",
    name = "ulid_uuid_comparisons",
    requires = ["ulid_ops"],
);

// What exists only on some servers: BRIN minmax-multi and bloom from
// PostgreSQL 14, btree skip support (support function 6, core's uuid one)
// from 18. Each statement is a file in sql/shared/ because the update
// scripts add the same objects to a database that lacks them
// (sql/shared/version_dependent.sql).
//
// Every block of the install script requires the one before it, these at
// the end: cargo-pgrx orders blocks that no `requires` orders differently
// from one build to the next (it adds the graph's edges in hash-map
// order), and a release's files must be the same bytes whenever they are
// built (tests/release checks that the blocks form one chain).
#[cfg(not(feature = "pg13"))]
mod brin_multi_and_bloom {
    use pgrx::prelude::*;

    extension_sql_file!(
        "../sql/shared/brin_minmax_multi_ops.sql",
        name = "ulid_brin_minmax_multi_ops",
        requires = ["ulid_public_ids"],
    );
    extension_sql_file!(
        "../sql/shared/brin_bloom_ops.sql",
        name = "ulid_brin_bloom_ops",
        requires = ["ulid_brin_minmax_multi_ops"],
    );
}

#[cfg(not(any(
    feature = "pg13",
    feature = "pg14",
    feature = "pg15",
    feature = "pg16",
    feature = "pg17"
)))]
mod skip_support {
    use pgrx::prelude::*;

    extension_sql_file!(
        "../sql/shared/skipsupport_function.sql",
        name = "ulid_skipsupport_function",
        requires = ["ulid_brin_bloom_ops"],
    );
    extension_sql_file!(
        "../sql/shared/skipsupport_in_btree_family.sql",
        name = "ulid_skipsupport_in_btree_family",
        requires = ["ulid_skipsupport_function"],
    );
}

core_function! {
    ulid_eq => uuid_eq,
    ulid_ne => uuid_ne,
    ulid_lt => uuid_lt,
    ulid_le => uuid_le,
    ulid_gt => uuid_gt,
    ulid_ge => uuid_ge,
    ulid_cmp => uuid_cmp,
    ulid_sortsupport => uuid_sortsupport,
    ulid_hash => uuid_hash,
    ulid_hash_extended => uuid_hash_extended,
    #[cfg(not(any(feature = "pg13", feature = "pg14", feature = "pg15", feature = "pg16", feature = "pg17")))]
    ulid_skipsupport => uuid_skipsupport,
}

pg_function! {
    /// `ulid_smaller(a, b)`: the smaller argument, itself (no copy), as
    /// core's `text_smaller` does.
    fn ulid_smaller(fcinfo) -> Datum {
        // SAFETY: both arguments of `ulid_smaller(ulid, ulid)`, a STRICT
        // function, are ulids; the datum returned is one of them, which its
        // caller keeps past the call (core's `text_smaller` returns one too).
        unsafe {
            let pick_first = arg_ulid(fcinfo, 0) <= arg_ulid(fcinfo, 1);
            arg(fcinfo, if pick_first { 0 } else { 1 })
        }
    }

    /// `ulid_larger(a, b)`: the larger argument.
    fn ulid_larger(fcinfo) -> Datum {
        // SAFETY: as in `ulid_smaller`.
        unsafe {
            let pick_first = arg_ulid(fcinfo, 0) >= arg_ulid(fcinfo, 1);
            arg(fcinfo, if pick_first { 0 } else { 1 })
        }
    }
}
