-- ulid 0.1.0 to 0.2.0.
--
-- 0.2.0 changes no object of 0.1.0: its new input forms (the bytea hex and
-- the UUID text) are in the library, which still has every function 0.1.0
-- names. What a fresh install creates depends on the server, though (BRIN
-- minmax-multi and bloom classes from PostgreSQL 14, btree skip support
-- from 18), and a database that pg_upgrade moved to a newer server keeps
-- what its old server had. So this step, like every step that lands on
-- 0.2.0, adds what a fresh install on this server has and the database
-- lacks; it never removes anything.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

-- This script runs as a superuser even when an ordinary user updates (ulid
-- is trusted), with the extension's schema, which that user may create
-- objects in, on the search_path. So every function and operator in the
-- block below is named with its schema: unqualified, `oid = regnamespace`
-- would pick an operator that user made for exactly those types in that
-- schema over pg_catalog's `oid = oid`, and run it as superuser.
DO $$
DECLARE
    server pg_catalog.int4 := pg_catalog.current_setting('server_version_num')::pg_catalog.int4;
    btree_family pg_catalog.oid := (
        SELECT f.oid FROM pg_catalog.pg_opfamily f JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) f.opfmethod
        WHERE a.amname OPERATOR(pg_catalog.=) 'btree' AND f.opfname OPERATOR(pg_catalog.=) 'ulid_ops'
          AND f.opfnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace);
BEGIN
    -- BRIN minmax-multi and bloom: PostgreSQL 14 and later.
    IF server OPERATOR(pg_catalog.>=) 140000 AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.opcmethod
        WHERE a.amname OPERATOR(pg_catalog.=) 'brin' AND c.opcname OPERATOR(pg_catalog.=) 'ulid_minmax_multi_ops'
          AND c.opcnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace)
    THEN
        CREATE OPERATOR CLASS @extschema@.ulid_minmax_multi_ops FOR TYPE @extschema@.ulid USING brin AS
            OPERATOR 1 @extschema@.<,
            OPERATOR 2 @extschema@.<=,
            OPERATOR 3 @extschema@.=,
            OPERATOR 4 @extschema@.>=,
            OPERATOR 5 @extschema@.>,
            FUNCTION 1 pg_catalog.brin_minmax_multi_opcinfo(pg_catalog.internal),
            FUNCTION 2 pg_catalog.brin_minmax_multi_add_value(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
            FUNCTION 3 pg_catalog.brin_minmax_multi_consistent(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.int4),
            FUNCTION 4 pg_catalog.brin_minmax_multi_union(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
            FUNCTION 5 pg_catalog.brin_minmax_multi_options(pg_catalog.internal),
            FUNCTION 11 pg_catalog.brin_minmax_multi_distance_uuid(pg_catalog.internal, pg_catalog.internal);
    END IF;
    IF server OPERATOR(pg_catalog.>=) 140000 AND NOT EXISTS (
        SELECT FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.opcmethod
        WHERE a.amname OPERATOR(pg_catalog.=) 'brin' AND c.opcname OPERATOR(pg_catalog.=) 'ulid_bloom_ops'
          AND c.opcnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace)
    THEN
        CREATE OPERATOR CLASS @extschema@.ulid_bloom_ops FOR TYPE @extschema@.ulid USING brin AS
            OPERATOR 1 @extschema@.=,
            FUNCTION 1 pg_catalog.brin_bloom_opcinfo(pg_catalog.internal),
            FUNCTION 2 pg_catalog.brin_bloom_add_value(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
            FUNCTION 3 pg_catalog.brin_bloom_consistent(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.int4),
            FUNCTION 4 pg_catalog.brin_bloom_union(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
            FUNCTION 5 pg_catalog.brin_bloom_options(pg_catalog.internal),
            FUNCTION 11 @extschema@.ulid_hash(@extschema@.ulid);
    END IF;

    -- btree skip support: PostgreSQL 18 and later.
    IF server OPERATOR(pg_catalog.>=) 180000 THEN
        IF pg_catalog.to_regprocedure('@extschema@.ulid_skipsupport(pg_catalog.internal)') IS NULL THEN
            CREATE FUNCTION @extschema@.ulid_skipsupport(pg_catalog.internal) RETURNS pg_catalog.void
                IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_skipsupport';
        END IF;
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_amproc
                       WHERE amprocfamily OPERATOR(pg_catalog.=) btree_family AND amprocnum OPERATOR(pg_catalog.=) 6) THEN
            ALTER OPERATOR FAMILY @extschema@.ulid_ops USING btree
                ADD FUNCTION 6 (@extschema@.ulid, @extschema@.ulid) @extschema@.ulid_skipsupport(pg_catalog.internal);
        END IF;
    END IF;
END
$$;
