-- A trusted extension: a role that is not a superuser but may create
-- objects in the database can install and use it.
SELECT version, trusted, superuser FROM pg_available_extension_versions WHERE name = 'ulid' ORDER BY version;

-- (roles belong to the cluster: clear any left by an interrupted run)
SET client_min_messages = warning;
DO $$ BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ulid_regress_owner') THEN
        EXECUTE 'DROP OWNED BY ulid_regress_owner';
    END IF;
END $$;
DROP ROLE IF EXISTS ulid_regress_owner, ulid_regress_nobody;
RESET client_min_messages;
CREATE ROLE ulid_regress_owner;
CREATE ROLE ulid_regress_nobody;
DO $$ BEGIN
    EXECUTE format('GRANT CREATE ON DATABASE %I TO ulid_regress_owner', current_database());
END $$;
GRANT CREATE ON SCHEMA public TO ulid_regress_owner;

-- without CREATE on the database: refused
SET ROLE ulid_regress_nobody;
CREATE EXTENSION ulid;
RESET ROLE;

SET ROLE ulid_regress_owner;
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE EXTENSION ulid;
SELECT extowner::regrole AS owner FROM pg_extension WHERE extname = 'ulid';
CREATE TABLE mine (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), n int);
INSERT INTO mine (n) SELECT generate_series(1, 100);
CREATE INDEX mine_brin ON mine USING brin (id);
SELECT count(*), count(DISTINCT id), min(id) < max(id) AS ordered FROM mine;
SELECT '01JGFJJZ00XHF7E02JJ03AE4T7'::ulid::timestamptz AT TIME ZONE 'UTC' AS made;
-- the owner of the extension may also drop it
DROP TABLE mine;
DROP EXTENSION ulid;
RESET ROLE;

DO $$ BEGIN
    EXECUTE format('REVOKE CREATE ON DATABASE %I FROM ulid_regress_owner', current_database());
END $$;
REVOKE CREATE ON SCHEMA public FROM ulid_regress_owner;
DROP ROLE ulid_regress_owner;
DROP ROLE ulid_regress_nobody;
