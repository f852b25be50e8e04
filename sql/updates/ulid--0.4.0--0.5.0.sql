-- ulid 0.4.0 to 0.5.0. Like every step that lands on a release, it adds
-- what a fresh install on this server has and the database lacks.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

-- The monotonic generator's shared state is each database's own.
COMMENT ON FUNCTION @extschema@.gen_monotonic_ulid() IS
    'a new ULID greater than the previous one: across the sessions of the database when ulid is in shared_preload_libraries or on PostgreSQL 17 and later, else within the session';

-- Who uses the shared table, for superusers.
\ir ../shared/shared_places.sql

\ir ../shared/version_dependent.sql
