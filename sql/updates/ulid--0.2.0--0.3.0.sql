-- ulid 0.2.0 to 0.3.0: public ids, ulid_encrypt() and ulid_decrypt(). Like
-- every step that lands on a release, it then adds what a fresh install on
-- this server has and the database lacks.
\echo Use "ALTER EXTENSION ulid UPDATE" to load this file. \quit

\ir ../shared/public_ids.sql

\ir ../shared/version_dependent.sql
