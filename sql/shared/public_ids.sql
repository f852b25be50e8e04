CREATE FUNCTION @extschema@.ulid_encrypt(id @extschema@.ulid, key pg_catalog.bytea) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_encrypt';
COMMENT ON FUNCTION @extschema@.ulid_encrypt(@extschema@.ulid, pg_catalog.bytea) IS
    'the public id of a ULID: its 16 bytes encrypted with AES under key (16, 24 or 32 bytes)';

CREATE FUNCTION @extschema@.ulid_decrypt(id @extschema@.ulid, key pg_catalog.bytea) RETURNS @extschema@.ulid
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE C AS 'MODULE_PATHNAME', 'ulid_decrypt';
COMMENT ON FUNCTION @extschema@.ulid_decrypt(@extschema@.ulid, pg_catalog.bytea) IS
    'the ULID behind a public id made by ulid_encrypt with the same key';
