-- ulid 0.3.0 to 0.4.0: comparisons between ulid and uuid, and the new
-- comment of gen_monotonic_ulid(). Like every step
-- that lands on a release, it then adds what a fresh install on this
-- server has and the database lacks.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

-- A database may have its own operators between ulid and uuid in the
-- extension's schema, made before the extension had them. The script never
-- adopts an object it did not make, and CREATE OPERATOR would only say
-- "operator = already exists"; so say which ones, and what to do.
DO $$
DECLARE
    taken pg_catalog.text := (
        SELECT pg_catalog.string_agg(o.oid::pg_catalog.regoperator::pg_catalog.text, ', ' ORDER BY o.oid)
        FROM pg_catalog.pg_operator o
        WHERE o.oprnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
          AND o.oprname OPERATOR(pg_catalog.=) ANY ('{=,<>,<,<=,>,>=}'::pg_catalog.name[])
          AND ((o.oprleft OPERATOR(pg_catalog.=) '@extschema@.ulid'::pg_catalog.regtype
                AND o.oprright OPERATOR(pg_catalog.=) 'pg_catalog.uuid'::pg_catalog.regtype)
            OR (o.oprleft OPERATOR(pg_catalog.=) 'pg_catalog.uuid'::pg_catalog.regtype
                AND o.oprright OPERATOR(pg_catalog.=) '@extschema@.ulid'::pg_catalog.regtype)));
BEGIN
    IF taken IS NOT NULL THEN
        RAISE EXCEPTION 'ulid 0.4.0 adds the operators between ulid and uuid, and schema % already has %',
                        '@extschema@', taken
            USING ERRCODE = 'duplicate_function',
                  HINT = 'Drop those operators (and their functions), then update again: the extension''s compare the same way and use the indexes.';
    END IF;
END
$$;

\ir ../shared/uuid_comparisons.sql

-- From 0.4.0, gen_monotonic_ulid() is server-wide on PostgreSQL 17 and later
-- without shared_preload_libraries (the dynamic shared memory registry).
COMMENT ON FUNCTION @extschema@.gen_monotonic_ulid() IS
    'a new ULID greater than the previous one: across the server when ulid is in shared_preload_libraries or on PostgreSQL 17 and later, else within the session';

\ir ../shared/version_dependent.sql
