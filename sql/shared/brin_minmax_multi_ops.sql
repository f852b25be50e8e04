CREATE OPERATOR CLASS @extschema@.ulid_minmax_multi_ops FOR TYPE @extschema@.ulid USING brin AS
    OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
    OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
    FUNCTION 1 pg_catalog.brin_minmax_multi_opcinfo(pg_catalog.internal),
    FUNCTION 2 pg_catalog.brin_minmax_multi_add_value(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
    FUNCTION 3 pg_catalog.brin_minmax_multi_consistent(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal, pg_catalog.int4),
    FUNCTION 4 pg_catalog.brin_minmax_multi_union(pg_catalog.internal, pg_catalog.internal, pg_catalog.internal),
    FUNCTION 5 pg_catalog.brin_minmax_multi_options(pg_catalog.internal),
    FUNCTION 11 pg_catalog.brin_minmax_multi_distance_uuid(pg_catalog.internal, pg_catalog.internal);
