-- The first half of re-synchronising a 0.5.0 catalog with this server:
--
--   ALTER EXTENSION ulid UPDATE TO '0.5.0-resync'; ALTER EXTENSION ulid UPDATE;
--
-- An update to the version a database already has does nothing, so after a
-- pg_upgrade the catalog is brought to what a fresh install on the new
-- server has by going to this version and back: the way back
-- (ulid--0.5.0-resync--0.5.0.sql) does the work. This half changes nothing.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit
