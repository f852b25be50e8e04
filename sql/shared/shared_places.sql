CREATE FUNCTION @extschema@.ulid_shared_places(
    OUT place pg_catalog.int4, OUT database pg_catalog.oid, OUT backends pg_catalog.int4)
    RETURNS SETOF pg_catalog.record
    VOLATILE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_shared_places_wrapper';
REVOKE ALL ON FUNCTION @extschema@.ulid_shared_places() FROM PUBLIC;
COMMENT ON FUNCTION @extschema@.ulid_shared_places() IS
    'for superusers: each place of gen_monotonic_ulid()''s shared table, the database it serves (null: none yet) and how many of its backends are attached';
