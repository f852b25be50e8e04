-- The second half of re-synchronising a 0.5.0 catalog with this server (see
-- ulid--0.5.0--0.5.0-resync.sql): adds what a fresh install of 0.5.0 on this
-- server has and the database lacks, as every step to 0.5.0 does.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

\ir ../shared/version_dependent.sql
