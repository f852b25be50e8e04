-- ulid 0.4.0 to 0.5.0: no SQL object has changed yet. Like every step that
-- lands on a release, it adds what a fresh install on this server has and
-- the database lacks.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

\ir ../shared/version_dependent.sql
