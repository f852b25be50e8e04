CREATE FUNCTION @extschema@.ulid_skipsupport(pg_catalog.internal) RETURNS pg_catalog.void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_skipsupport';
