CREATE OPERATOR CLASS @extschema@.ulid_bloom_ops FOR TYPE @extschema@.ulid USING brin AS
    OPERATOR 1 @extschema@.=,
    FUNCTION 1 pg_catalog.brin_bloom_opcinfo(pg_catalog.internal),
    FUNCTION 2 pg_catalog.brin_bloom_add_value(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
    FUNCTION 3 pg_catalog.brin_bloom_consistent(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.int4),
    FUNCTION 4 pg_catalog.brin_bloom_union(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
    FUNCTION 5 pg_catalog.brin_bloom_options(pg_catalog.internal),
    FUNCTION 11 @extschema@.ulid_hash(@extschema@.ulid);
