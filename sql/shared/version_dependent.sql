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
    -- the BRIN operator classes of ulid the database has
    brin_classes pg_catalog.name[] := ARRAY(
        SELECT c.opcname FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.opcmethod
        WHERE a.amname OPERATOR(pg_catalog.=) 'brin'
          AND c.opcnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace);
BEGIN
    -- BRIN minmax-multi and bloom: PostgreSQL 14 and later.
    IF server OPERATOR(pg_catalog.>=) 140000
       AND NOT 'ulid_minmax_multi_ops'::pg_catalog.name OPERATOR(pg_catalog.=) ANY (brin_classes) THEN
        \ir brin_minmax_multi_ops.sql
    END IF;
    IF server OPERATOR(pg_catalog.>=) 140000
       AND NOT 'ulid_bloom_ops'::pg_catalog.name OPERATOR(pg_catalog.=) ANY (brin_classes) THEN
        \ir brin_bloom_ops.sql
    END IF;

    -- btree skip support: PostgreSQL 18 and later.
    IF server OPERATOR(pg_catalog.>=) 180000 THEN
        IF pg_catalog.to_regprocedure('@extschema@.ulid_skipsupport(pg_catalog.internal)') IS NULL THEN
            \ir skipsupport_function.sql
        END IF;
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_amproc
                       WHERE amprocfamily OPERATOR(pg_catalog.=) btree_family AND amprocnum OPERATOR(pg_catalog.=) 6) THEN
            \ir skipsupport_in_btree_family.sql
        END IF;
    END IF;
END
$$;
