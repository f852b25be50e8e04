-- ulid 0.3.0 to 0.4.0: the SQL objects do not change. Like every step that
-- lands on a release, it then adds what a fresh install on this server has
-- and the database lacks.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

\ir ../shared/version_dependent.sql
