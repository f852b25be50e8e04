-- Every object the extension owns, from pg_depend. A change to the SQL
-- surface shows up here as a reviewed diff.
CREATE EXTENSION ulid;

SELECT e.extname, e.extversion, e.extrelocatable, n.nspname AS schema
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'ulid';

SELECT name, version, superuser, trusted, relocatable, requires
FROM pg_available_extension_versions WHERE name = 'ulid' ORDER BY version;

-- every update path: from each release to the next, and the round trip
-- through the transit version that re-synchronises a catalog
SELECT source, target, path
FROM pg_extension_update_paths('ulid') WHERE path IS NOT NULL ORDER BY 1, 2;

SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS object
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ulid')
  AND d.deptype = 'e'
ORDER BY 1;

-- the members of its operator families
SELECT f.opfname || ' (' || am.amname || ')' AS family, m.kind, m.number, m.object
FROM pg_opfamily f
JOIN pg_am am ON am.oid = f.opfmethod
JOIN LATERAL (
    SELECT 'operator' AS kind, o.amopstrategy AS number, o.amopopr::regoperator::text AS object
    FROM pg_amop o WHERE o.amopfamily = f.oid
    UNION ALL
    SELECT 'function', p.amprocnum, p.amproc::regprocedure::text
    FROM pg_amproc p WHERE p.amprocfamily = f.oid
) m ON true
WHERE f.opfname LIKE 'ulid%'
ORDER BY 1, 2 DESC, 3, 4;

-- Dropping the extension leaves nothing behind.
DROP EXTENSION ulid;
SELECT count(*) AS leftover_functions FROM pg_proc WHERE proname LIKE '%ulid%';
SELECT count(*) AS leftover_types FROM pg_type WHERE typname LIKE '%ulid%';
SELECT count(*) AS leftover_operators FROM pg_operator o JOIN pg_type t ON t.oid = o.oprleft WHERE t.typname = 'ulid';
