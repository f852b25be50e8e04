-- The second half of re-synchronising a 0.2.0 catalog with this server (see
-- ulid--0.2.0--0.2.0-resync.sql): adds what a fresh install of 0.2.0 on this
-- server has and the database lacks, exactly as ulid--0.1.0--0.2.0.sql does.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

\ir ../shared/version_dependent.sql
