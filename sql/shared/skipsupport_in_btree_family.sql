ALTER OPERATOR FAMILY @extschema@.ulid_ops USING btree
    ADD FUNCTION 6 (@extschema@.ulid, @extschema@.ulid) @extschema@.ulid_skipsupport(pg_catalog.internal);
