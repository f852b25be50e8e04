-- ulid 0.1.0 to 0.2.0.
--
-- 0.2.0 changes no object of 0.1.0: its new input forms (the bytea hex and
-- the UUID text) are in the library, which still has every function 0.1.0
-- names. What a fresh install creates depends on the server, though (BRIN
-- minmax-multi and bloom classes from PostgreSQL 14, btree skip support
-- from 18), and a database that pg_upgrade moved to a newer server keeps
-- what its old server had. So this step, like every step that lands on
-- 0.2.0, adds what a fresh install on this server has and the database
-- lacks; it never removes anything.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

\ir ../shared/version_dependent.sql
