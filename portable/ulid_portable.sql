-- ulid_portable: ULIDs in plain SQL on `uuid`, for servers that cannot load
-- ulid's library (managed PostgreSQL: Amazon RDS and Aurora, Cloud SQL,
-- Azure Database, Supabase, Neon...).
--
-- Run it with psql (`psql -v ON_ERROR_STOP=1 -f ulid_portable.sql`) or
-- paste it into a migration. It needs PostgreSQL 13 or later, PL/pgSQL,
-- and a role that may create the schema `ulid_portable` (CREATE on the
-- database), or that owns a schema `ulid_portable` made for it (CREATE
-- SCHEMA ulid_portable AUTHORIZATION that_role); no extension, no
-- superuser. It refuses a schema in which another role may create objects
-- or owns any, and a pgcrypto that another role owns than the one that
-- runs it or a superuser. Running it again replaces the functions with
-- this file's.
-- `SELECT ulid_portable.version()` tells which file is installed.
--
-- The file is one statement, a DO block: it installs everything or, at
-- the first error, nothing, however it is run (psql with or without
-- ON_ERROR_STOP, a migration tool, pasted by hand).
--
-- Every value is a `uuid` whose 16 bytes are exactly those of the native
-- `ulid` type, so a column filled here becomes a `ulid` column with
-- `ALTER TABLE ... ALTER COLUMN id TYPE ulid`, without a rewrite, once the
-- extension can be installed. Text, errors and the `ulid.layout` setting
-- are the native type's too.
--
-- Everything here names its schema (`pg_catalog.` included, operators as
-- `OPERATOR(pg_catalog.=)`, types as `pg_catalog.text`), so the file and
-- its functions do the same under any search_path; no function carries a
-- SET clause, which would keep the SQL ones from being inlined into the
-- queries that call them. (`OPERATOR(...)` binds like any user-defined
-- operator, so every expression here is parenthesised.) Every literal
-- passed to a function is typed ('hex'::pg_catalog.text): an untyped one
-- is `unknown` until a function is chosen for it, and an overload taking
-- `text` would be preferred to the function meant. Literals that hold a
-- backslash are E'' strings, read the same whatever the session's
-- standard_conforming_strings.
--
-- Functions whose names start with an underscore are this file's helpers.

DO $install$
DECLARE
    others pg_catalog.text;
    first_object pg_catalog.text;
    first_owner pg_catalog.text;
    objects pg_catalog.int8;
BEGIN

IF pg_catalog.to_regnamespace('ulid_portable'::pg_catalog.text) IS NULL THEN
    -- (CREATE SCHEMA checks the privilege before IF NOT EXISTS)
    CREATE SCHEMA ulid_portable;
    COMMENT ON SCHEMA ulid_portable IS
        'ULIDs in plain SQL on uuid, for servers without the ulid extension';
ELSIF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
                  WHERE n.nspname OPERATOR(pg_catalog.=) 'ulid_portable' AND r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
THEN
    -- whoever owns the schema may replace or drop what is in it
    RAISE EXCEPTION 'schema "ulid_portable" belongs to role "%", not to "%"',
        (SELECT r.rolname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
         WHERE n.nspname OPERATOR(pg_catalog.=) 'ulid_portable'), CURRENT_USER USING
        ERRCODE = '42501',
        DETAIL = 'The owner of the schema can replace or drop the functions this file would make in it.',
        HINT = 'Run the file as the schema''s owner, or have the schema made with CREATE SCHEMA ulid_portable AUTHORIZATION for the role that runs it.';
END IF;

-- Nobody but the owner may create in the schema, and nothing in it belongs
-- to another role. A function there of another role's making, such as an
-- overload of one of this file's, could be called instead of it and would
-- run with the rights of whoever called it; its owner could change it at
-- any time; and an object of another role is one this file could not
-- replace or drop.
SELECT pg_catalog.string_agg(CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                                  ELSE pg_catalog.quote_ident(r.rolname::pg_catalog.text) END, ', '::pg_catalog.text
                             ORDER BY a.grantee OPERATOR(pg_catalog.<>) 0, r.rolname)
INTO others
FROM pg_catalog.pg_namespace n
CROSS JOIN LATERAL pg_catalog.aclexplode(COALESCE(n.nspacl, pg_catalog.acldefault('n'::pg_catalog."char", n.nspowner))) AS a
LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
WHERE n.oid OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('ulid_portable'::pg_catalog.text)
  AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
  AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner;
IF others IS NOT NULL THEN
    RAISE EXCEPTION 'other roles than its owner may create objects in schema "ulid_portable": %', others USING
        ERRCODE = '42501',
        DETAIL = 'A role that may create objects in the schema can add functions there that calls of this file''s functions would run instead, with the rights of whoever called them.',
        HINT = pg_catalog.format('Revoke the privilege (REVOKE CREATE ON SCHEMA ulid_portable FROM %s), then run the file again.'::pg_catalog.text, others);
END IF;

SELECT pg_catalog.count(*), pg_catalog.min(pg_catalog.pg_describe_object(o.classid, o.objid, 0)),
       (pg_catalog.array_agg(r.rolname ORDER BY pg_catalog.pg_describe_object(o.classid, o.objid, 0)))[1]
INTO objects, first_object, first_owner
FROM (SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.relnamespace, c.relowner FROM pg_catalog.pg_class c
      UNION ALL SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass::pg_catalog.oid, p.oid, p.pronamespace, p.proowner FROM pg_catalog.pg_proc p
      -- (not a relation's row type, nor an array type: each goes with the
      -- relation or the type it belongs to, and has its owner)
      UNION ALL SELECT 'pg_catalog.pg_type'::pg_catalog.regclass::pg_catalog.oid, t.oid, t.typnamespace, t.typowner FROM pg_catalog.pg_type t
                WHERE t.typrelid OPERATOR(pg_catalog.=) 0
                  AND NOT EXISTS (SELECT FROM pg_catalog.pg_type e WHERE e.typarray OPERATOR(pg_catalog.=) t.oid)
      UNION ALL SELECT 'pg_catalog.pg_operator'::pg_catalog.regclass::pg_catalog.oid, o.oid, o.oprnamespace, o.oprowner FROM pg_catalog.pg_operator o
      UNION ALL SELECT 'pg_catalog.pg_opclass'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.opcnamespace, c.opcowner FROM pg_catalog.pg_opclass c
      UNION ALL SELECT 'pg_catalog.pg_opfamily'::pg_catalog.regclass::pg_catalog.oid, f.oid, f.opfnamespace, f.opfowner FROM pg_catalog.pg_opfamily f
      UNION ALL SELECT 'pg_catalog.pg_collation'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.collnamespace, c.collowner FROM pg_catalog.pg_collation c
      UNION ALL SELECT 'pg_catalog.pg_conversion'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.connamespace, c.conowner FROM pg_catalog.pg_conversion c
      UNION ALL SELECT 'pg_catalog.pg_ts_config'::pg_catalog.regclass::pg_catalog.oid, c.oid, c.cfgnamespace, c.cfgowner FROM pg_catalog.pg_ts_config c
      UNION ALL SELECT 'pg_catalog.pg_ts_dict'::pg_catalog.regclass::pg_catalog.oid, d.oid, d.dictnamespace, d.dictowner FROM pg_catalog.pg_ts_dict d
      UNION ALL SELECT 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::pg_catalog.oid, s.oid, s.stxnamespace, s.stxowner FROM pg_catalog.pg_statistic_ext s
     ) AS o (classid, objid, namespace, owner)
JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) o.namespace
LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) o.owner
WHERE n.oid OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('ulid_portable'::pg_catalog.text)
  AND o.owner OPERATOR(pg_catalog.<>) n.nspowner;
IF objects OPERATOR(pg_catalog.>) 0 THEN
    RAISE EXCEPTION 'schema "ulid_portable" holds % owned by role "%"', first_object, first_owner USING
        ERRCODE = '42501',
        DETAIL = pg_catalog.format('Objects in the schema that belong to other roles than its owner: %s. Their owners can change them, '
                                   'and a function among them could be called instead of one of this file''s.'::pg_catalog.text, objects),
        HINT = 'Drop them, or give them to the schema''s owner (ALTER ... OWNER TO), then run the file again.';
END IF;

-- Which file is installed: the ulid release it comes with.
CREATE OR REPLACE FUNCTION ulid_portable.version()
    RETURNS pg_catalog.text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
SELECT '0.5.0'::pg_catalog.text
$fn$;


-- ---- errors ----------------------------------------------------------------
--
-- The native type's errors, with their SQLSTATEs, messages, details and
-- hints. The SQL functions below call these only on the way to an error;
-- each returns NULL for a NULL argument, so that NULL in gives NULL out as
-- in a STRICT function.

CREATE OR REPLACE FUNCTION ulid_portable._timestamp_out_of_range(ts pg_catalog.timestamptz)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $fn$
BEGIN
    IF ts IS NULL THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'timestamp out of range for ulid' USING
        ERRCODE = '22008',
        DETAIL = 'A ULID holds times from 1970-01-01 00:00:00 UTC to 10889-08-02 05:31:50.655 UTC, '
                 'to the millisecond; infinite timestamps have no ULID.';
END
$fn$;

CREATE OR REPLACE FUNCTION ulid_portable._invalid_key(id pg_catalog.uuid, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $fn$
DECLARE
    len pg_catalog.int4 := pg_catalog.octet_length(key);
BEGIN
    IF id IS NULL OR key IS NULL THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'invalid key length for ulid_encrypt and ulid_decrypt: % %', len,
        CASE WHEN len OPERATOR(pg_catalog.=) 1 THEN 'byte' ELSE 'bytes' END USING
        ERRCODE = '22023',
        DETAIL = 'The key is 16, 24 or 32 bytes: AES-128, AES-192 or AES-256.';
END
$fn$;

-- A value of an enum setting, read as the native extension reads it (case
-- does not matter). Where the extension is not loaded, `ulid.layout` and
-- `ulid.monotonic_step` are placeholders that take any text, and any
-- client may set them for its session: behind a pooler in transaction mode
-- that session is the next clients' too. So a value the extension would
-- have refused at SET is not an error here (it would fail every later
-- call of every client on that backend, for as long as the session
-- lasts): it is the default, the first choice, with a WARNING that says
-- so (the extension's message and SQLSTATE) on each call that reads it.
CREATE OR REPLACE FUNCTION ulid_portable._setting_is(setting pg_catalog.text, choices pg_catalog.text[])
    RETURNS pg_catalog.bool LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $fn$
DECLARE
    given pg_catalog.text := COALESCE(pg_catalog.current_setting(setting, true), '');
BEGIN
    -- unset: the first choice, the default
    IF given OPERATOR(pg_catalog.=) '' THEN
        RETURN false;
    END IF;
    -- case folded in ASCII alone, as PostgreSQL reads an enum setting (the
    -- database's collation could fold otherwise: a Turkish one lowers I to
    -- a dotless i)
    IF pg_catalog.lower(given COLLATE pg_catalog."C") OPERATOR(pg_catalog.=) choices[1] THEN
        RETURN false;
    END IF;
    IF pg_catalog.lower(given COLLATE pg_catalog."C") OPERATOR(pg_catalog.=) choices[2] THEN
        RETURN true;
    END IF;
    -- the value's characters other than printable ASCII shown as '?': a
    -- message the next client's encoding cannot hold would fail its call
    RAISE WARNING 'invalid value for parameter "%": "%"', setting,
        pg_catalog.regexp_replace(given COLLATE pg_catalog."C", '[^ -~]'::pg_catalog.text, '?'::pg_catalog.text, 'g'::pg_catalog.text) USING
        ERRCODE = '22023',
        DETAIL = pg_catalog.format('The default, %s, is used instead.'::pg_catalog.text, choices[1]),
        HINT = pg_catalog.format('Available values: %s.'::pg_catalog.text, pg_catalog.array_to_string(choices, ', '::pg_catalog.text));
    RETURN false;
END
$fn$;

-- Whether ulid.layout asks for UUIDv7s.
CREATE OR REPLACE FUNCTION ulid_portable._layout_is_uuidv7()
    RETURNS pg_catalog.bool LANGUAGE sql STABLE PARALLEL SAFE
AS $fn$
SELECT ulid_portable._setting_is('ulid.layout'::pg_catalog.text, '{ulid,uuidv7}'::pg_catalog.text[])
$fn$;

-- Rust's char::escape_debug escapes these code points when a character
-- stands alone, which is how the native type shows the character a DETAIL
-- names: control and other unprintable characters, and combining marks.
-- The first and last code point of each range, in order, made by
-- portable/escape-table.rs from the Rust that builds the extension;
-- tests/portable compares the details with the native type's.
CREATE OR REPLACE FUNCTION ulid_portable._show_character(c pg_catalog.text)
    RETURNS pg_catalog.text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    cp pg_catalog.int4 := pg_catalog.ascii(c);
    escaped CONSTANT pg_catalog.int4[] :=
        '{0,31,34,34,39,39,92,92,127,160,173,173,768,879,888,889,896,899,907,907,909,909,930,930,1155,'
        '1161,1328,1328,1367,1368,1419,1420,1424,1469,1471,1471,1473,1474,1476,1477,1479,1487,1515,1518,'
        '1525,1541,1552,1562,1564,1564,1611,1631,1648,1648,1750,1757,1759,1764,1767,1768,1770,1773,1806,'
        '1807,1809,1809,1840,1868,1958,1968,1970,1983,2027,2035,2043,2045,2070,2073,2075,2083,2085,2087,'
        '2089,2095,2111,2111,2137,2141,2143,2143,2155,2159,2192,2207,2250,2306,2362,2362,2364,2364,2369,'
        '2376,2381,2381,2385,2391,2402,2403,2433,2433,2436,2436,2445,2446,2449,2450,2473,2473,2481,2481,'
        '2483,2485,2490,2492,2494,2494,2497,2502,2505,2506,2509,2509,2511,2523,2526,2526,2530,2533,2558,'
        '2562,2564,2564,2571,2574,2577,2578,2601,2601,2609,2609,2612,2612,2615,2615,2618,2621,2625,2648,'
        '2653,2653,2655,2661,2672,2673,2677,2677,2679,2690,2692,2692,2702,2702,2706,2706,2729,2729,2737,'
        '2737,2740,2740,2746,2748,2753,2760,2762,2762,2765,2767,2769,2783,2786,2789,2802,2808,2810,2817,'
        '2820,2820,2829,2830,2833,2834,2857,2857,2865,2865,2868,2868,2874,2876,2878,2879,2881,2886,2889,'
        '2890,2893,2907,2910,2910,2914,2917,2936,2946,2948,2948,2955,2957,2961,2961,2966,2968,2971,2971,'
        '2973,2973,2976,2978,2981,2983,2987,2989,3002,3006,3008,3008,3011,3013,3017,3017,3021,3023,3025,'
        '3045,3067,3072,3076,3076,3085,3085,3089,3089,3113,3113,3130,3132,3134,3136,3141,3159,3163,3163,'
        '3166,3167,3170,3173,3184,3190,3201,3201,3213,3213,3217,3217,3241,3241,3252,3252,3258,3260,3263,'
        '3264,3266,3266,3269,3291,3295,3295,3298,3301,3312,3312,3316,3329,3341,3341,3345,3345,3387,3388,'
        '3390,3390,3393,3397,3401,3401,3405,3405,3408,3411,3415,3415,3426,3429,3456,3457,3460,3460,3479,'
        '3481,3506,3506,3516,3516,3518,3519,3527,3535,3538,3543,3551,3557,3568,3569,3573,3584,3633,3633,'
        '3636,3646,3655,3662,3676,3712,3715,3715,3717,3717,3723,3723,3748,3748,3750,3750,3761,3761,3764,'
        '3772,3774,3775,3781,3781,3783,3791,3802,3803,3808,3839,3864,3865,3893,3893,3895,3895,3897,3897,'
        '3912,3912,3949,3966,3968,3972,3974,3975,3981,4029,4038,4038,4045,4045,4059,4095,4141,4144,4146,'
        '4151,4153,4154,4157,4158,4184,4185,4190,4192,4209,4212,4226,4226,4229,4230,4237,4237,4253,4253,'
        '4294,4294,4296,4300,4302,4303,4681,4681,4686,4687,4695,4695,4697,4697,4702,4703,4745,4745,4750,'
        '4751,4785,4785,4790,4791,4799,4799,4801,4801,4806,4807,4823,4823,4881,4881,4886,4887,4955,4959,'
        '4989,4991,5018,5023,5110,5111,5118,5119,5760,5760,5789,5791,5881,5887,5906,5918,5938,5940,5943,'
        '5951,5970,5983,5997,5997,6001,6015,6068,6069,6071,6077,6086,6086,6089,6099,6109,6111,6122,6127,'
        '6138,6143,6155,6159,6170,6175,6265,6271,6277,6278,6313,6313,6315,6319,6390,6399,6431,6434,6439,'
        '6440,6444,6447,6450,6450,6457,6463,6465,6467,6510,6511,6517,6527,6572,6575,6602,6607,6619,6621,'
        '6679,6680,6683,6685,6742,6742,6744,6752,6754,6754,6757,6764,6771,6783,6794,6799,6810,6815,6830,'
        '6915,6964,6973,6978,6980,6989,6989,7019,7027,7040,7041,7074,7077,7080,7085,7142,7142,7144,7145,'
        '7149,7149,7151,7163,7212,7219,7222,7226,7242,7244,7307,7311,7355,7356,7368,7378,7380,7392,7394,'
        '7400,7405,7405,7412,7412,7416,7417,7419,7423,7616,7679,7958,7959,7966,7967,8006,8007,8014,8015,'
        '8024,8024,8026,8026,8028,8028,8030,8030,8062,8063,8117,8117,8133,8133,8148,8149,8156,8156,8176,'
        '8177,8181,8181,8191,8207,8232,8239,8287,8303,8306,8307,8335,8335,8349,8351,8386,8447,8588,8591,'
        '9258,9279,9291,9311,11124,11125,11503,11505,11508,11512,11558,11558,11560,11564,11566,11567,'
        '11624,11630,11633,11647,11671,11679,11687,11687,11695,11695,11703,11703,11711,11711,11719,11719,'
        '11727,11727,11735,11735,11743,11775,11870,11903,11930,11930,12020,12031,12246,12271,12288,12288,'
        '12330,12335,12352,12352,12439,12442,12544,12548,12592,12592,12687,12687,12774,12782,12831,12831,'
        '42125,42127,42183,42191,42540,42559,42607,42610,42612,42621,42654,42655,42736,42737,42744,42751,'
        '42973,42992,43010,43010,43014,43014,43019,43019,43045,43046,43052,43055,43066,43071,43128,43135,'
        '43204,43213,43226,43249,43263,43263,43302,43309,43335,43345,43347,43358,43389,43394,43443,43443,'
        '43446,43449,43452,43453,43456,43456,43470,43470,43482,43485,43493,43493,43519,43519,43561,43566,'
        '43569,43570,43573,43583,43587,43587,43596,43596,43598,43599,43610,43611,43644,43644,43696,43696,'
        '43698,43700,43703,43704,43710,43711,43713,43713,43715,43738,43756,43757,43766,43776,43783,43784,'
        '43791,43792,43799,43807,43815,43815,43823,43823,43884,43887,44005,44005,44008,44008,44013,44015,'
        '44026,44031,55204,55215,55239,55242,55292,55295,57344,63743,64110,64111,64218,64255,64263,64274,'
        '64280,64284,64286,64286,64311,64311,64317,64317,64319,64319,64322,64322,64325,64325,64976,65007,'
        '65024,65039,65050,65071,65107,65107,65127,65127,65132,65135,65141,65141,65277,65280,65438,65439,'
        '65471,65473,65480,65481,65488,65489,65496,65497,65501,65503,65511,65511,65519,65531,65534,65535,'
        '65548,65548,65575,65575,65595,65595,65598,65598,65614,65615,65630,65663,65787,65791,65795,65798,'
        '65844,65846,65935,65935,65949,65951,65953,65999,66045,66175,66205,66207,66257,66272,66300,66303,'
        '66340,66348,66379,66383,66422,66431,66462,66462,66500,66503,66518,66559,66718,66719,66730,66735,'
        '66772,66775,66812,66815,66856,66863,66916,66926,66939,66939,66955,66955,66963,66963,66966,66966,'
        '66978,66978,66994,66994,67002,67002,67005,67007,67060,67071,67383,67391,67414,67423,67432,67455,'
        '67462,67462,67505,67505,67515,67583,67590,67591,67593,67593,67638,67638,67641,67643,67645,67646,'
        '67670,67670,67743,67750,67760,67807,67827,67827,67830,67834,67868,67870,67898,67902,67930,67967,'
        '68024,68027,68048,68049,68097,68111,68116,68116,68120,68120,68150,68159,68169,68175,68185,68191,'
        '68256,68287,68325,68330,68343,68351,68406,68408,68438,68439,68467,68471,68498,68504,68509,68520,'
        '68528,68607,68681,68735,68787,68799,68851,68857,68900,68911,68922,68927,68966,68973,68998,69005,'
        '69008,69215,69247,69247,69290,69292,69294,69295,69298,69313,69320,69327,69337,69375,69416,69423,'
        '69446,69456,69466,69487,69506,69509,69514,69551,69580,69599,69623,69631,69633,69633,69688,69702,'
        '69710,69713,69744,69744,69747,69748,69750,69761,69811,69814,69817,69818,69821,69821,69826,69839,'
        '69865,69871,69882,69890,69927,69931,69933,69941,69960,69967,70003,70003,70007,70017,70070,70078,'
        '70080,70080,70089,70092,70095,70095,70112,70112,70133,70143,70162,70162,70191,70193,70196,70199,'
        '70206,70206,70209,70271,70279,70279,70281,70281,70286,70286,70302,70302,70314,70319,70367,70367,'
        '70371,70383,70394,70401,70404,70404,70413,70414,70417,70418,70441,70441,70449,70449,70452,70452,'
        '70458,70460,70462,70462,70464,70464,70469,70470,70473,70474,70477,70479,70481,70492,70500,70527,'
        '70538,70538,70540,70541,70543,70543,70582,70582,70584,70584,70587,70601,70603,70603,70606,70608,'
        '70610,70610,70614,70614,70617,70655,70712,70719,70722,70724,70726,70726,70748,70748,70750,70750,'
        '70754,70783,70832,70832,70835,70840,70842,70842,70845,70845,70847,70848,70850,70851,70856,70863,'
        '70874,71039,71087,71087,71090,71095,71100,71101,71103,71104,71132,71167,71219,71226,71229,71229,'
        '71231,71232,71237,71247,71258,71263,71277,71295,71339,71339,71341,71341,71344,71351,71354,71359,'
        '71370,71375,71396,71423,71451,71453,71455,71455,71458,71461,71463,71471,71495,71679,71727,71735,'
        '71737,71738,71740,71839,71923,71934,71943,71944,71946,71947,71956,71956,71959,71959,71984,71984,'
        '71990,71990,71993,71998,72003,72003,72007,72015,72026,72095,72104,72105,72148,72155,72160,72160,'
        '72165,72191,72193,72202,72243,72248,72251,72254,72263,72271,72273,72278,72281,72283,72330,72342,'
        '72344,72345,72355,72367,72441,72447,72458,72544,72546,72548,72550,72550,72552,72639,72674,72687,'
        '72698,72703,72713,72713,72752,72765,72767,72767,72774,72783,72813,72815,72848,72872,72874,72880,'
        '72882,72883,72885,72959,72967,72967,72970,72970,73009,73029,73031,73039,73050,73055,73062,73062,'
        '73065,73065,73103,73106,73109,73109,73111,73111,73113,73119,73130,73135,73180,73183,73194,73439,'
        '73459,73460,73465,73473,73489,73489,73526,73533,73536,73538,73562,73647,73649,73663,73714,73726,'
        '74650,74751,74863,74863,74869,74879,75076,77711,77811,77823,78896,78912,78919,78943,82939,82943,'
        '83527,90367,90398,90409,90413,90415,90426,92159,92729,92735,92767,92767,92778,92781,92863,92863,'
        '92874,92879,92910,92916,92918,92927,92976,92982,92998,93007,93018,93018,93026,93026,93048,93052,'
        '93072,93503,93562,93759,93851,93855,93881,93882,93908,93951,94027,94031,94088,94098,94112,94175,'
        '94180,94193,94199,94207,101590,101630,101663,101759,101875,110575,110580,110580,110588,110588,'
        '110591,110591,110883,110897,110899,110927,110931,110932,110934,110947,110952,110959,111356,'
        '113663,113771,113775,113789,113791,113801,113807,113818,113819,113821,113822,113824,117759,'
        '118013,118015,118452,118457,118481,118495,118513,118607,118724,118783,119030,119039,119079,'
        '119080,119141,119145,119149,119170,119173,119179,119210,119213,119275,119295,119362,119364,'
        '119366,119487,119508,119519,119540,119551,119639,119647,119673,119807,119893,119893,119965,'
        '119965,119968,119969,119971,119972,119975,119976,119981,119981,119994,119994,119996,119996,'
        '120004,120004,120070,120070,120075,120076,120085,120085,120093,120093,120122,120122,120127,'
        '120127,120133,120133,120135,120137,120145,120145,120486,120487,120780,120781,121344,121398,'
        '121403,121452,121461,121461,121476,121476,121484,122623,122655,122660,122667,122927,122990,'
        '123135,123181,123190,123198,123199,123210,123213,123216,123535,123566,123583,123628,123631,'
        '123642,123646,123648,124111,124140,124143,124154,124367,124398,124399,124411,124414,124416,'
        '124607,124639,124639,124643,124643,124646,124646,124654,124655,124661,124669,124672,124895,'
        '124903,124903,124908,124908,124911,124911,124927,124927,125125,125126,125136,125183,125252,'
        '125258,125260,125263,125274,125277,125280,126064,126133,126208,126270,126463,126468,126468,'
        '126496,126496,126499,126499,126501,126502,126504,126504,126515,126515,126520,126520,126522,'
        '126522,126524,126529,126531,126534,126536,126536,126538,126538,126540,126540,126544,126544,'
        '126547,126547,126549,126550,126552,126552,126554,126554,126556,126556,126558,126558,126560,'
        '126560,126563,126563,126565,126566,126571,126571,126579,126579,126584,126584,126589,126589,'
        '126591,126591,126602,126602,126620,126624,126628,126628,126634,126634,126652,126703,126706,'
        '126975,127020,127023,127124,127135,127151,127152,127168,127168,127184,127184,127222,127231,'
        '127406,127461,127491,127503,127548,127551,127561,127567,127570,127583,127590,127743,128729,'
        '128731,128749,128751,128765,128767,128986,128991,129004,129007,129009,129023,129036,129039,'
        '129096,129103,129114,129119,129160,129167,129198,129199,129212,129215,129218,129231,129241,'
        '129279,129624,129631,129646,129647,129661,129663,129675,129677,129735,129735,129737,129740,'
        '129757,129758,129771,129774,129785,129791,129939,129939,130043,131071,173792,173823,178206,'
        '178207,183982,183983,191457,191471,192094,194559,195102,196607,201547,201551,210042,1114111}';
    low pg_catalog.int4 := 1;
    high pg_catalog.int4 := pg_catalog.array_length(escaped, 1) OPERATOR(pg_catalog./) 2;
    middle pg_catalog.int4;
BEGIN
    CASE
        WHEN cp OPERATOR(pg_catalog.=) 9 THEN RETURN E'"\\t"';
        WHEN cp OPERATOR(pg_catalog.=) 10 THEN RETURN E'"\\n"';
        WHEN cp OPERATOR(pg_catalog.=) 13 THEN RETURN E'"\\r"';
        WHEN cp OPERATOR(pg_catalog.=) 34 THEN RETURN E'"\\""';
        WHEN cp OPERATOR(pg_catalog.=) 39 THEN RETURN E'"\\\'"';
        WHEN cp OPERATOR(pg_catalog.=) 92 THEN RETURN E'"\\\\"';
        ELSE NULL;
    END CASE;
    -- the last range that starts at or below cp: range `high`
    WHILE low OPERATOR(pg_catalog.<=) high LOOP
        middle := (low OPERATOR(pg_catalog.+) high) OPERATOR(pg_catalog./) 2;
        IF escaped[(2 OPERATOR(pg_catalog.*) middle) OPERATOR(pg_catalog.-) 1] OPERATOR(pg_catalog.<=) cp THEN
            low := middle OPERATOR(pg_catalog.+) 1;
        ELSE
            high := middle OPERATOR(pg_catalog.-) 1;
        END IF;
    END LOOP;
    IF high OPERATOR(pg_catalog.>=) 1 AND cp OPERATOR(pg_catalog.<=) escaped[2 OPERATOR(pg_catalog.*) high] THEN
        RETURN E'"\\u{' OPERATOR(pg_catalog.||) pg_catalog.to_hex(cp) OPERATOR(pg_catalog.||) '}"';
    END IF;
    RETURN '"' OPERATOR(pg_catalog.||) c OPERATOR(pg_catalog.||) '"';
END
$fn$;

-- What is wrong with a text that is not a ULID, as the native type's input
-- function says it: the first problem found reading left to right (see
-- codec::parse in ulid-core). NULLs for a text that is a ULID.
--
-- In time linear in the input, however long: the first character outside
-- an alphabet is found by the length of the longest prefix inside it (one
-- regular expression), never by reading the text one substr() at a time,
-- which costs time in the position in a multibyte encoding.
CREATE OR REPLACE FUNCTION ulid_portable._bad_text(input pg_catalog.text,
                                                   OUT detail pg_catalog.text, OUT hint pg_catalog.text)
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    forms CONSTANT pg_catalog.text := E'A ulid is written as 26 Crockford base32 characters, as \\x and 32 '
                                      'hexadecimal digits, or as a UUID (8-4-4-4-12 hexadecimal digits).';
    uuid_form CONSTANT pg_catalog.text := 'The UUID form is 8-4-4-4-12 hexadecimal digits.';
    base32 CONSTANT pg_catalog.text := 'A ULID uses Crockford''s base32: the digits and the letters A to Z '
                                       'except I, L, O and U.';
    hex CONSTANT pg_catalog.text := '0123456789abcdefABCDEF';
    bytes pg_catalog.int4 := pg_catalog.octet_length(input);
    chars pg_catalog.int4 := pg_catalog.length(input);
    -- how many ASCII characters lead the text
    ascii_run pg_catalog.int4 := pg_catalog.length(pg_catalog.substring(input, E'^[\\x01-\\x7f]*'::pg_catalog.text));
    c pg_catalog.text;
    bad pg_catalog.int4;
BEGIN
    -- Positions count characters: every character before the one named is
    -- ASCII, so they are the native type's byte positions too.
    IF pg_catalog.left(input, 2) OPERATOR(pg_catalog.=) E'\\x' THEN
        bad := 3 OPERATOR(pg_catalog.+) pg_catalog.length(pg_catalog.substring(pg_catalog.substr(input, 3), '^[0123456789abcdefABCDEF]*'::pg_catalog.text));
        IF bad OPERATOR(pg_catalog.<=) chars THEN
            detail := pg_catalog.format('Invalid hexadecimal digit %s at position %s.'::pg_catalog.text,
                                        ulid_portable._show_character(pg_catalog.substr(input, bad, 1)), bad);
        ELSIF chars OPERATOR(pg_catalog.<>) 34 THEN
            detail := pg_catalog.format(E'Expected 32 hexadecimal digits after "\\x", found %s.'::pg_catalog.text, chars OPERATOR(pg_catalog.-) 2);
        END IF;
        RETURN;
    END IF;

    IF bytes OPERATOR(pg_catalog.<>) 26 AND pg_catalog.strpos(input, '-'::pg_catalog.text) OPERATOR(pg_catalog.>) 0 THEN
        -- the UUID form: its first 36 characters, one at a time (no more
        -- than 36 reads), then its length
        FOR i IN 1..LEAST(chars, 36) LOOP
            c := pg_catalog.substr(input, i, 1);
            IF i OPERATOR(pg_catalog.=) ANY ('{9,14,19,24}'::pg_catalog.int4[]) THEN
                IF c OPERATOR(pg_catalog.<>) '-' THEN
                    detail := pg_catalog.format('Expected a hyphen at position %s, found %s.'::pg_catalog.text,
                                                i, ulid_portable._show_character(c));
                    hint := uuid_form;
                    RETURN;
                END IF;
            ELSIF c OPERATOR(pg_catalog.=) '-' THEN
                detail := pg_catalog.format('Unexpected hyphen at position %s.'::pg_catalog.text, i);
                hint := uuid_form;
                RETURN;
            ELSIF pg_catalog.strpos(hex, c) OPERATOR(pg_catalog.=) 0 THEN
                detail := pg_catalog.format('Invalid hexadecimal digit %s at position %s.'::pg_catalog.text,
                                            ulid_portable._show_character(c), i);
                hint := uuid_form;
                RETURN;
            END IF;
        END LOOP;
        IF bytes OPERATOR(pg_catalog.<>) 36 THEN
            IF ascii_run OPERATOR(pg_catalog.<) chars THEN
                -- the first 36 characters are in order: name the first
                -- that is not ASCII, rather than count bytes
                detail := pg_catalog.format('Invalid hexadecimal digit %s at position %s.'::pg_catalog.text,
                                            ulid_portable._show_character(pg_catalog.substr(input, ascii_run OPERATOR(pg_catalog.+) 1, 1)),
                                            ascii_run OPERATOR(pg_catalog.+) 1);
                hint := uuid_form;
                RETURN;
            END IF;
            detail := pg_catalog.format('Expected 36 characters in the UUID form, found %s.'::pg_catalog.text, bytes);
            hint := uuid_form;
        END IF;
        RETURN;
    END IF;

    -- the ULID text
    IF bytes OPERATOR(pg_catalog.=) 26
       AND pg_catalog.strpos('89ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz'::pg_catalog.text, pg_catalog.left(input, 1))
           OPERATOR(pg_catalog.>) 0
    THEN
        detail := pg_catalog.format('The first character is %s, above "7": the value would not fit in 128 bits.'::pg_catalog.text,
                                    ulid_portable._show_character(pg_catalog.left(input, 1)));
        RETURN;
    END IF;
    IF bytes OPERATOR(pg_catalog.=) 26 OR ascii_run OPERATOR(pg_catalog.<) chars THEN
        bad := 1 OPERATOR(pg_catalog.+) pg_catalog.length(pg_catalog.substring(
                   input, '^[0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz]*'::pg_catalog.text));
        IF bad OPERATOR(pg_catalog.<=) chars THEN
            detail := pg_catalog.format('Invalid character %s at position %s.'::pg_catalog.text,
                                        ulid_portable._show_character(pg_catalog.substr(input, bad, 1)), bad);
            hint := base32;
            RETURN;
        END IF;
    END IF;
    IF bytes OPERATOR(pg_catalog.<>) 26 THEN
        detail := pg_catalog.format('Expected 26 characters, found %s.'::pg_catalog.text, bytes);
        hint := forms;
    END IF;
END
$fn$;

-- Raises the native type's error for a text that is not a ULID.
CREATE OR REPLACE FUNCTION ulid_portable._raise_bad_text(input pg_catalog.text)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    why_detail pg_catalog.text;
    why_hint pg_catalog.text;
BEGIN
    SELECT why.detail, why.hint INTO why_detail, why_hint FROM ulid_portable._bad_text(input) AS why;
    IF why_hint IS NULL THEN
        RAISE EXCEPTION 'invalid input syntax for type ulid: "%"', input USING
            ERRCODE = '22P02', DETAIL = why_detail;
    END IF;
    RAISE EXCEPTION 'invalid input syntax for type ulid: "%"', input USING
        ERRCODE = '22P02', DETAIL = why_detail, HINT = why_hint;
END
$fn$;


-- ---- text ------------------------------------------------------------------
--
-- The 26 characters of Crockford base32 carry 130 bits: two zero bits, then
-- the 16 bytes. Both directions go through lookup tables in bytea constants
-- (get_byte and substring on a bytea take constant time): ulid_text reads
-- the 130 bits ten at a time (byte 0 alone, then 12 groups of 10 bits) and
-- takes each pair of characters from a table of the 1024 pairs; ulid_parse
-- maps each character's byte to its 5-bit value (both cases) in a table of
-- the 128 ASCII bytes. Both tables are written out from the alphabet below,
-- once, into the two functions' bodies. (translate() and regular
-- expressions with counted repeats, the obvious tools, cost several times
-- as much per call.)

DO $do$
DECLARE
    alphabet CONSTANT pg_catalog.text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    lower_alphabet CONSTANT pg_catalog.text := '0123456789abcdefghjkmnpqrstvwxyz';
    pairs pg_catalog.text;   -- the 2048 bytes of the pair table, in hexadecimal
    digits pg_catalog.text;  -- the 128 bytes of the ASCII table (255: not a digit)
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.encode(pg_catalog.convert_to(
               pg_catalog.substr(alphabet, (i OPERATOR(pg_catalog./) 32) OPERATOR(pg_catalog.+) 1, 1)
               OPERATOR(pg_catalog.||) pg_catalog.substr(alphabet, (i OPERATOR(pg_catalog.%) 32) OPERATOR(pg_catalog.+) 1, 1),
               'UTF8'::pg_catalog.name), 'hex'::pg_catalog.text), ''::pg_catalog.text ORDER BY i)
    INTO pairs FROM pg_catalog.generate_series(0, 1023) AS i;
    SELECT pg_catalog.string_agg(CASE
               WHEN pg_catalog.strpos(alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.>) 0
               THEN pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.strpos(alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.-) 1), 2, '0'::pg_catalog.text)
               WHEN pg_catalog.strpos(lower_alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.>) 0
               THEN pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.strpos(lower_alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.-) 1), 2, '0'::pg_catalog.text)
               ELSE 'ff'
           END, ''::pg_catalog.text ORDER BY i)
    INTO digits FROM pg_catalog.generate_series(1, 127) AS i;
    digits := 'ff' OPERATOR(pg_catalog.||) digits;  -- byte 0, which no text holds

    -- ulid_text(uuid): the 26-character text the native type prints.
    EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_text(id pg_catalog.uuid)
    RETURNS pg_catalog.text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    b pg_catalog.bit(128) := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.uuid_send(id), 'hex'::pg_catalog.text))::pg_catalog.bit(128);
BEGIN
    RETURN pg_catalog.encode(
        pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 1, 8)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 9, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 19, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 29, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 39, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 49, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 59, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 69, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 79, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 89, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 99, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 109, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring(E'\\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 119, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2),
        'escape'::pg_catalog.text);
END
$fn$
$sql$::pg_catalog.text, pairs);

    -- ulid_parse(text): a ULID's text in either case, \x and 32 hexadecimal
    -- digits, or the UUID text, as the native type reads them; its errors
    -- for anything else.
    EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_parse(input pg_catalog.text)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    -- the input under the collation "C", whatever the caller's: a
    -- nondeterministic collation would refuse the pattern matches and
    -- substring searches below, or make E'\\X' equal E'\\x'
    t pg_catalog.text COLLATE pg_catalog."C" := input;
    bytes pg_catalog.int4 := pg_catalog.octet_length(input);
    b pg_catalog.bytea;
    h pg_catalog.text COLLATE pg_catalog."C";
BEGIN
    IF bytes OPERATOR(pg_catalog.=) 26 THEN
        -- 26 digits, the first at most 7 (no more than 128 bits)
        IF t OPERATOR(pg_catalog.!~) '[^0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]'
           AND pg_catalog.strpos('01234567'::pg_catalog.text, pg_catalog.left(t, 1)) OPERATOR(pg_catalog.>) 0
        THEN
            b := pg_catalog.decode(t, 'escape'::pg_catalog.text);  -- the characters' bytes (no backslash among them)
            RETURN (pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 1))), 2, '0'::pg_catalog.text)
                    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 2))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 35)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 3))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 30)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 4))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 25)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 5))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 20)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 6))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 15)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 7))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 10)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 8))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 9))), 10, '0'::pg_catalog.text)
                    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 10))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 35)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 11))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 30)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 12))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 25)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 13))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 20)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 14))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 15)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 15))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 10)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 16))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 17))), 10, '0'::pg_catalog.text)
                    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 18))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 35)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 19))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 30)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 20))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 25)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 21))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 20)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 22))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 15)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 23))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 10)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 24))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte(E'\\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 25))), 10, '0'::pg_catalog.text)
                   )::pg_catalog.uuid;
        END IF;
    ELSIF bytes OPERATOR(pg_catalog.=) 34 THEN
        h := pg_catalog.substr(t, 3);
        IF pg_catalog.left(t, 2) OPERATOR(pg_catalog.=) E'\\x' AND h OPERATOR(pg_catalog.!~) '[^0-9a-fA-F]' THEN
            RETURN h::pg_catalog.uuid;
        END IF;
    ELSIF bytes OPERATOR(pg_catalog.=) 36 THEN
        -- only 8-4-4-4-12 (uuid's own input takes more spellings)
        h := pg_catalog.replace(t, '-'::pg_catalog.text, ''::pg_catalog.text);
        IF pg_catalog.octet_length(h) OPERATOR(pg_catalog.=) 32 AND h OPERATOR(pg_catalog.!~) '[^0-9a-fA-F]'
           AND (pg_catalog.substr(t, 9, 1) OPERATOR(pg_catalog.||) pg_catalog.substr(t, 14, 1)
                OPERATOR(pg_catalog.||) pg_catalog.substr(t, 19, 1) OPERATOR(pg_catalog.||) pg_catalog.substr(t, 24, 1))
               OPERATOR(pg_catalog.=) '----'
        THEN
            RETURN h::pg_catalog.uuid;
        END IF;
    END IF;
    RETURN ulid_portable._raise_bad_text(t);
END
$fn$
$sql$::pg_catalog.text, digits);
END
$do$;


-- ---- time ------------------------------------------------------------------
--
-- A ULID's first 48 bits are Unix milliseconds, written as 12 hexadecimal
-- digits: the hex of ms + 2^48 without its leading "1". The millisecond of a
-- timestamptz is taken exactly: gen_monotonic_ulid() rounds the float
-- epoch of the time truncated to its millisecond (date_trunc), whose error
-- stays below a tenth of a millisecond up to the year 10889 (an epoch taken
-- before the truncation would be off by one near some boundaries); the
-- other generators and ulid_from_timestamptz, which must be IMMUTABLE
-- where date_trunc is not, read the timestamptz's 64-bit count of
-- microseconds (timestamptz_send).

-- ulid_timestamp(uuid): the exact millisecond in the first 48 bits. Whole
-- multiples of 65.536 seconds plus milliseconds, so that the interval
-- arithmetic is exact in double precision up to the year 10889.
CREATE OR REPLACE FUNCTION ulid_portable.ulid_timestamp(id pg_catalog.uuid)
    RETURNS pg_catalog.timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
SELECT pg_catalog.timezone('UTC'::pg_catalog.text,
    ('1970-01-01 00:00:00'::pg_catalog.timestamp
     OPERATOR(pg_catalog.+) (('x' OPERATOR(pg_catalog.||) pg_catalog.left(id::pg_catalog.text, 8))::pg_catalog.bit(32)::pg_catalog.int8::pg_catalog.float8
                             OPERATOR(pg_catalog.*) '65.536 s'::pg_catalog.interval))
    OPERATOR(pg_catalog.+) (('x' OPERATOR(pg_catalog.||) pg_catalog.substr(id::pg_catalog.text, 10, 4))::pg_catalog.bit(16)::pg_catalog.int8::pg_catalog.float8
                            OPERATOR(pg_catalog.*) '1 ms'::pg_catalog.interval))
$fn$;

-- ulid_from_timestamptz(timestamptz): the smallest ULID of that millisecond
-- (random part zero), for range bounds.
CREATE OR REPLACE FUNCTION ulid_portable.ulid_from_timestamptz(ts pg_catalog.timestamptz)
    RETURNS pg_catalog.uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
SELECT CASE
    WHEN (ts OPERATOR(pg_catalog.>=) '1970-01-01 00:00:00+00'::pg_catalog.timestamptz)
         AND (ts OPERATOR(pg_catalog.<) '10889-08-02 05:31:50.656+00'::pg_catalog.timestamptz)
    THEN (pg_catalog.substr(pg_catalog.to_hex(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(ts), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                OPERATOR(pg_catalog.+) 282421661510656000) OPERATOR(pg_catalog./) 1000)), 2)
          OPERATOR(pg_catalog.||) '00000000000000000000')::pg_catalog.uuid
    ELSE ulid_portable._timestamp_out_of_range(ts)
END
$fn$;


-- ---- generators ------------------------------------------------------------
--
-- The time: the timestamp's own microseconds since 2000-01-01, read
-- exactly from its binary form (timestamptz_send, as
-- ulid_from_timestamptz reads them), whatever the session's time zone,
-- moved to the Unix epoch and divided down to milliseconds, as 6 bytes
-- (the last 6 of int8send's 8).
--
-- Random bits come from gen_random_uuid(), PostgreSQL's own CSPRNG (core
-- from 13 on). Its 16 bytes have 122 random bits: all of bytes 0-5 and
-- 9-15, and all of bytes 6-8 but the version 4 and the variant.
-- overlay(... FROM 4 FOR 6) keeps bytes 0-2 and 9-15, 80 random bits. For
-- a UUIDv7, its text 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx' from the 16th
-- character, 'xxx-yxxx-xxxxxxxxxxxx', is exactly the 74 random bits and the
-- variant that a UUIDv7 has after its version digit (uuid's input takes a
-- hyphen after any four digits).
--
-- ulid.layout decides which (see ulid_portable._setting_is); the common
-- values are compared in SQL so that gen_ulid() stays one inlined
-- expression, one call of gen_random_uuid(). It repeats gen_ulid(timestamptz)
-- rather than call it with clock_timestamp(): a SQL function that uses an
-- argument more than once is not inlined when the argument is volatile,
-- and one that is not inlined runs as a query of its own on every call.
-- Bytes are joined as bytea and made text once (encode), the cheapest
-- path to uuid's input that core offers.

-- gen_ulid(): the current millisecond and 80 random bits (74 and the UUIDv7
-- version and variant under ulid.layout = uuidv7).
CREATE OR REPLACE FUNCTION ulid_portable.gen_ulid()
    RETURNS pg_catalog.uuid LANGUAGE sql VOLATILE PARALLEL SAFE
AS $fn$
SELECT CASE
    WHEN COALESCE(pg_catalog.current_setting('ulid.layout'::pg_catalog.text, true), '') OPERATOR(pg_catalog.=) ANY ('{"",ulid}'::pg_catalog.text[])
    THEN pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                     OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000)), 3)
                           OPERATOR(pg_catalog.||) pg_catalog.overlay(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), ''::pg_catalog.bytea, 4, 6), 'hex'::pg_catalog.text)::pg_catalog.uuid
    WHEN pg_catalog.current_setting('ulid.layout'::pg_catalog.text, true) OPERATOR(pg_catalog.=) 'uuidv7'
         OR ulid_portable._layout_is_uuidv7()
    THEN (pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                     OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000)), 3), 'hex'::pg_catalog.text)
          OPERATOR(pg_catalog.||) '7' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 16))::pg_catalog.uuid
    ELSE pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.clock_timestamp()), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                     OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000)), 3)
                           OPERATOR(pg_catalog.||) pg_catalog.overlay(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), ''::pg_catalog.bytea, 4, 6), 'hex'::pg_catalog.text)::pg_catalog.uuid
END
$fn$;

-- gen_ulid(timestamptz): that millisecond and random bits, for backfills.
CREATE OR REPLACE FUNCTION ulid_portable.gen_ulid(ts pg_catalog.timestamptz)
    RETURNS pg_catalog.uuid LANGUAGE sql VOLATILE PARALLEL SAFE
AS $fn$
SELECT CASE
    WHEN (ts OPERATOR(pg_catalog.>=) '1970-01-01 00:00:00+00'::pg_catalog.timestamptz)
         AND (ts OPERATOR(pg_catalog.<) '10889-08-02 05:31:50.656+00'::pg_catalog.timestamptz)
    THEN CASE
        WHEN COALESCE(pg_catalog.current_setting('ulid.layout'::pg_catalog.text, true), '') OPERATOR(pg_catalog.=) ANY ('{"",ulid}'::pg_catalog.text[])
        THEN pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(ts), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                     OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000)), 3)
                               OPERATOR(pg_catalog.||) pg_catalog.overlay(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), ''::pg_catalog.bytea, 4, 6), 'hex'::pg_catalog.text)::pg_catalog.uuid
        WHEN pg_catalog.current_setting('ulid.layout'::pg_catalog.text, true) OPERATOR(pg_catalog.=) 'uuidv7'
             OR ulid_portable._layout_is_uuidv7()
        THEN (pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(ts), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                     OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000)), 3), 'hex'::pg_catalog.text)
              OPERATOR(pg_catalog.||) '7' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 16))::pg_catalog.uuid
        ELSE pg_catalog.encode(pg_catalog.substr(pg_catalog.int8send(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(ts), 'hex'::pg_catalog.text))::pg_catalog.bit(64)::pg_catalog.int8
                                                     OPERATOR(pg_catalog.+) 946684800000000) OPERATOR(pg_catalog./) 1000)), 3)
                               OPERATOR(pg_catalog.||) pg_catalog.overlay(pg_catalog.uuid_send(pg_catalog.gen_random_uuid()), ''::pg_catalog.bytea, 4, 6), 'hex'::pg_catalog.text)::pg_catalog.uuid
    END
    ELSE ulid_portable._timestamp_out_of_range(ts)
END
$fn$;

-- This backend as gen_monotonic_ulid() stamps its state: '/pid/start', its
-- pid and the microsecond it started, in hexadecimal. Where the server does
-- not show the start to the current role (a role, after SET ROLE, that is
-- not a member of the login role and has no pg_read_all_stats), '/pid/':
-- such a role continues a state of this pid with the start it was stamped
-- with, which it cannot check (gen_monotonic_ulid()).
CREATE OR REPLACE FUNCTION ulid_portable._backend()
    RETURNS pg_catalog.text LANGUAGE sql STABLE PARALLEL RESTRICTED
AS $fn$
SELECT '/' OPERATOR(pg_catalog.||) pg_catalog.to_hex(pg_catalog.pg_backend_pid()) OPERATOR(pg_catalog.||) '/'
       OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.encode(pg_catalog.timestamptz_send(a.backend_start), 'hex'::pg_catalog.text)
                                          FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) AS a), '')
$fn$;

-- gen_monotonic_ulid(): greater than the previous value of this session.
--
-- The state machine of ulid-core's Monotonic (crates/ulid-core/src/
-- monotonic.rs), step for step: a later millisecond gets fresh random bits;
-- the same one, or an earlier one after the clock stepped back, keeps the
-- last value's millisecond and adds a step to its random part (under
-- ulid.layout = uuidv7, to its 74 free bits) until the clock catches up. The
-- step is uniform on [1, 2^32] (ulid.monotonic_step = one: 1); when fewer
-- values are left above the last one, draw % left + 1; when none, SQLSTATE
-- 2200H.
--
-- The last value lives in the session's setting ulid_portable.monotonic_last,
-- written with set_config(): its 32 hexadecimal digits, then which backend
-- wrote it (its pid and the microsecond it started, from
-- ulid_portable._backend()) and in which transaction (the transaction's
-- start), as `digits/pid/start/transaction`. A value that this backend did
-- not write is ignored as if there were none: one that ALTER ROLE or ALTER
-- DATABASE ... SET, connection options or a SET before the first call put
-- there would otherwise be continued by every new session that starts with
-- it, the same values from the same point, maybe far in the future. The
-- backend is looked up (pg_stat_activity) on the first call of each
-- transaction; later calls of the transaction find their own pid and
-- transaction in the state, which no setting made before the session
-- started can hold. A temporary table
-- would need the TEMP privilege, leave catalog rows behind, and make each
-- call an UPDATE of one row whose versions pile up within a transaction, so
-- that a statement of many calls slows down as it goes (bench/ measures
-- it). Like every setting it is transactional: a rolled-back transaction
-- or savepoint takes it back to where it was, so the values that follow are
-- greater than every value that was kept, not necessarily than those the
-- rollback threw away. RESET ALL and DISCARD ALL forget it.
--
-- A state too far ahead of clock_timestamp() is ignored too, as if there
-- were none. The clients of a pooled connection (pgbouncer in transaction
-- mode) take turns on one backend and so share its state, and any of them
-- can write a state stamped as the backend's own with set_config():
-- without a bound, one client's state far in the future would be
-- continued by every client after it. A state that an earlier transaction
-- left, which may be another client's, is honoured up to a second ahead
-- (under 1000 ms); one written in this transaction, up to ten seconds.
-- Within the bound a state is honoured as the extension honours it, so a
-- clock that steps back by less than that still keeps the last value's
-- millisecond; after a larger step back the values start again from the
-- clock (the extension would keep the last millisecond however far the
-- clock stepped back). A state an earlier transaction left with fewer
-- than 2^56 values above it in its millisecond (the random part's bits
-- above the low 40 within 2^16 of their largest value, which a client can
-- write, or which one state in 2^24 has by chance, one in 2^18 under the
-- UUIDv7 layout) goes on to the next millisecond, at most a second ahead,
-- and a state that is not 32 hex digits is ignored: only this
-- transaction's own values can make its calls fail with 2200H. (A state
-- continued is less than a second ahead of the clock, so its millisecond
-- lasts less than a second; a backend makes far fewer than 2^24 calls in
-- a second, each stepping by at most 2^32.)
--
-- An 80-bit random part, or a 74-bit UUIDv7 counter, is two bigints: its
-- bits above the low 40, and the low 40.
CREATE OR REPLACE FUNCTION ulid_portable.gen_monotonic_ulid()
    RETURNS pg_catalog.uuid LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $fn$
DECLARE
    raw pg_catalog.text := COALESCE(pg_catalog.current_setting('ulid_portable.monotonic_last'::pg_catalog.text, true), '');
    xact pg_catalog.text := pg_catalog.encode(pg_catalog.timestamptz_send(pg_catalog.transaction_timestamp()), 'hex'::pg_catalog.text);
    -- whether this backend wrote the state in this transaction
    this_xact pg_catalog.bool := pg_catalog.strpos(raw, '/' OPERATOR(pg_catalog.||) pg_catalog.to_hex(pg_catalog.pg_backend_pid()) OPERATOR(pg_catalog.||) '/')
                                 OPERATOR(pg_catalog.=) 33
                                 AND pg_catalog.right(raw, 17) OPERATOR(pg_catalog.=) ('/' OPERATOR(pg_catalog.||) xact);
    -- this backend as the current role sees it, looked up on the first call
    -- of a transaction: '/pid/start', or '/pid/' where the start is hidden
    looked pg_catalog.text := CASE WHEN this_xact THEN '' ELSE ulid_portable._backend() END;
    -- this backend, '/pid/start': from the state when this backend wrote it
    -- in this transaction; from the state too when it holds this pid and the
    -- start is hidden from the current role (after SET ROLE), which cannot
    -- check the start but keeps it for a role that can; else as looked up
    me pg_catalog.text := CASE
        WHEN this_xact THEN pg_catalog.substr(raw, 33, pg_catalog.length(raw) OPERATOR(pg_catalog.-) 49)
        WHEN pg_catalog.right(looked, 1) OPERATOR(pg_catalog.=) '/'
             AND pg_catalog.left(pg_catalog.substr(raw, 33), pg_catalog.length(looked)) OPERATOR(pg_catalog.=) looked
        THEN looked OPERATOR(pg_catalog.||) pg_catalog.split_part(pg_catalog.substr(raw, 33 OPERATOR(pg_catalog.+) pg_catalog.length(looked)), '/'::pg_catalog.text, 1)
        ELSE looked
    END;
    -- the last value, if this backend wrote it and it is 32 hex digits
    state pg_catalog.text := CASE
        WHEN pg_catalog.left(pg_catalog.substr(raw, 33), pg_catalog.length(me) OPERATOR(pg_catalog.+) 1)
             OPERATOR(pg_catalog.=) (me OPERATOR(pg_catalog.||) '/')
             AND pg_catalog.left(raw, 32) OPERATOR(pg_catalog.~) '^[0-9a-fA-F]{32}$'::pg_catalog.text
        THEN pg_catalog.left(raw, 32)
        ELSE ''
    END;
    now_ms pg_catalog.int8 := (pg_catalog.date_part('epoch'::pg_catalog.text, pg_catalog.date_trunc('milliseconds'::pg_catalog.text, pg_catalog.clock_timestamp()))
                               OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8;
    -- the settings, checked on every call as the extension checks them at SET
    v7 pg_catalog.bool := CASE
        WHEN COALESCE(pg_catalog.current_setting('ulid.layout'::pg_catalog.text, true), '') OPERATOR(pg_catalog.=) ANY ('{"",ulid}'::pg_catalog.text[]) THEN false
        WHEN pg_catalog.current_setting('ulid.layout'::pg_catalog.text, true) OPERATOR(pg_catalog.=) 'uuidv7' THEN true
        ELSE ulid_portable._setting_is('ulid.layout'::pg_catalog.text, '{ulid,uuidv7}'::pg_catalog.text[])
    END;
    step_one pg_catalog.bool := CASE
        WHEN COALESCE(pg_catalog.current_setting('ulid.monotonic_step'::pg_catalog.text, true), '') OPERATOR(pg_catalog.=) ANY ('{"",random}'::pg_catalog.text[]) THEN false
        WHEN pg_catalog.current_setting('ulid.monotonic_step'::pg_catalog.text, true) OPERATOR(pg_catalog.=) 'one' THEN true
        ELSE ulid_portable._setting_is('ulid.monotonic_step'::pg_catalog.text, '{random,one}'::pg_catalog.text[])
    END;
    last_ms pg_catalog.int8 := CASE
        WHEN state OPERATOR(pg_catalog.<>) '' THEN ('x' OPERATOR(pg_catalog.||) pg_catalog.left(state, 12))::pg_catalog.bit(48)::pg_catalog.int8
        ELSE 0  -- nothing yet
    END;
    fresh_ms pg_catalog.int8;   -- the plan is fresh bits for this millisecond
    hi pg_catalog.int8;         -- the last value's random part above the low 40 bits
    lo pg_catalog.int8;         -- and the low 40 bits
    top pg_catalog.int8;        -- the largest `hi` of the layout
    nibble pg_catalog.int8;
    variant pg_catalog.int8;
    prefix pg_catalog.int8;
    draw pg_catalog.int8;
    step pg_catalog.int8;
BEGIN
    IF now_ms OPERATOR(pg_catalog.<) 0 OR now_ms OPERATOR(pg_catalog.>) 281474976710655 THEN
        -- a clock outside what a ULID can hold
        RETURN ulid_portable._timestamp_out_of_range(pg_catalog.clock_timestamp());
    ELSIF now_ms OPERATOR(pg_catalog.>) last_ms
          OR last_ms OPERATOR(pg_catalog.>) (now_ms OPERATOR(pg_catalog.+) CASE WHEN this_xact THEN 10000 ELSE 999 END) THEN
        -- a later millisecond; or a state too far ahead of the clock,
        -- ignored as if there were none (see above)
        fresh_ms := now_ms;
    ELSE
        hi := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(state, 13, 10))::pg_catalog.bit(40)::pg_catalog.int8;
        lo := ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(state, 23, 10))::pg_catalog.bit(40)::pg_catalog.int8;
        IF v7 THEN
            -- Step from the greatest UUIDv7 of the last value's millisecond
            -- that is not above it, found from the version nibble and the
            -- variant bits; `hi`:`lo` become that UUIDv7's 74 free bits (the
            -- low nibble of byte 6, byte 7, the low six bits of byte 8, the
            -- rest), and `top` their largest value.
            nibble := (hi OPERATOR(pg_catalog.>>) 36) OPERATOR(pg_catalog.&) 15;
            variant := (hi OPERATOR(pg_catalog.>>) 22) OPERATOR(pg_catalog.&) 3;
            top := 17179869183;  -- 2^34 - 1
            hi := (((hi OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.&) 15) OPERATOR(pg_catalog.<<) 30)
                  OPERATOR(pg_catalog.|) (((hi OPERATOR(pg_catalog.>>) 24) OPERATOR(pg_catalog.&) 255) OPERATOR(pg_catalog.<<) 22)
                  OPERATOR(pg_catalog.|) (hi OPERATOR(pg_catalog.&) 4194303);
            prefix := hi OPERATOR(pg_catalog.>>) 22;  -- the 12 bits before the variant
            IF nibble OPERATOR(pg_catalog.<) 7 THEN
                -- every UUIDv7 of the millisecond is above it
                fresh_ms := last_ms;
            ELSIF nibble OPERATOR(pg_catalog.>) 7 THEN
                -- none is
                hi := top;
                lo := 1099511627775;
            ELSIF variant OPERATOR(pg_catalog.=) 3 THEN
                hi := (prefix OPERATOR(pg_catalog.<<) 22) OPERATOR(pg_catalog.|) 4194303;
                lo := 1099511627775;
            ELSIF variant OPERATOR(pg_catalog.<) 2 THEN
                IF prefix OPERATOR(pg_catalog.=) 0 THEN
                    fresh_ms := last_ms;
                ELSE
                    hi := ((prefix OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.<<) 22) OPERATOR(pg_catalog.|) 4194303;
                    lo := 1099511627775;
                END IF;
            END IF;
            -- no UUIDv7 left above a value of the other layout: the next
            -- millisecond (a full UUIDv7 is exhausted, as in the other layout)
            IF fresh_ms IS NULL AND hi OPERATOR(pg_catalog.=) top AND lo OPERATOR(pg_catalog.=) 1099511627775
               AND NOT (nibble OPERATOR(pg_catalog.=) 7 AND variant OPERATOR(pg_catalog.=) 2)
            THEN
                fresh_ms := last_ms OPERATOR(pg_catalog.+) 1;
            END IF;
        ELSE
            top := 1099511627775;  -- 2^40 - 1
        END IF;
        -- fewer than 2^56 values left above a state an earlier transaction
        -- left: the next millisecond, so that its values cannot run out
        -- (see above)
        IF fresh_ms IS NULL AND NOT this_xact AND hi OPERATOR(pg_catalog.>) (top OPERATOR(pg_catalog.-) 65536)
        THEN
            fresh_ms := last_ms OPERATOR(pg_catalog.+) 1;
        END IF;
    END IF;

    IF fresh_ms IS NOT NULL THEN
        IF fresh_ms OPERATOR(pg_catalog.>) 281474976710655 THEN
            RETURN ulid_portable._timestamp_out_of_range('infinity'::pg_catalog.timestamptz);
        END IF;
        -- 80 random bits, or a UUIDv7's version, 74 random bits and variant
        -- (see the generators above)
        RETURN pg_catalog.left(pg_catalog.set_config('ulid_portable.monotonic_last'::pg_catalog.text,
            pg_catalog.lpad(pg_catalog.to_hex(fresh_ms), 12, '0'::pg_catalog.text) OPERATOR(pg_catalog.||) CASE
                WHEN v7 THEN '7' OPERATOR(pg_catalog.||) pg_catalog.replace(pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 16), '-'::pg_catalog.text, ''::pg_catalog.text)
                ELSE pg_catalog.overlay(pg_catalog.gen_random_uuid()::pg_catalog.text, ''::pg_catalog.text, 9, 16)
            END OPERATOR(pg_catalog.||) me OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||) xact, false), 32)::pg_catalog.uuid;
    END IF;

    -- a step of draw + 1, or of draw % left + 1 when fewer than that are
    -- left up to top:2^40-1
    draw := CASE
        WHEN step_one THEN 0
        ELSE ('x' OPERATOR(pg_catalog.||) pg_catalog.left(pg_catalog.gen_random_uuid()::pg_catalog.text, 8))::pg_catalog.bit(32)::pg_catalog.int8
    END;
    IF hi OPERATOR(pg_catalog.<) top OR draw OPERATOR(pg_catalog.<) (1099511627775 OPERATOR(pg_catalog.-) lo) THEN
        step := draw OPERATOR(pg_catalog.+) 1;
    ELSIF lo OPERATOR(pg_catalog.<) 1099511627775 THEN
        step := (draw OPERATOR(pg_catalog.%) (1099511627775 OPERATOR(pg_catalog.-) lo)) OPERATOR(pg_catalog.+) 1;
    ELSE
        RAISE EXCEPTION 'gen_monotonic_ulid() has no value left in this millisecond' USING
            ERRCODE = '2200H',
            DETAIL = CASE
                WHEN v7 THEN 'The 74 random bits of the UUIDv7 layout reached their largest value; '
                             'the generator fails rather than wrap around.'
                ELSE 'The 80-bit random part reached its largest value; the generator fails rather than wrap around.'
            END,
            HINT = 'Values are available again from the next millisecond.';
    END IF;
    lo := lo OPERATOR(pg_catalog.+) step;
    IF lo OPERATOR(pg_catalog.>) 1099511627775 THEN
        lo := lo OPERATOR(pg_catalog.-) 1099511627776;
        hi := hi OPERATOR(pg_catalog.+) 1;
    END IF;
    IF v7 THEN
        -- the 74 bits back into a UUIDv7's random part, version 7 and
        -- variant 10 between them (0x7000800000)
        hi := 481044725760
              OPERATOR(pg_catalog.|) ((hi OPERATOR(pg_catalog.>>) 30) OPERATOR(pg_catalog.<<) 32)
              OPERATOR(pg_catalog.|) (((hi OPERATOR(pg_catalog.>>) 22) OPERATOR(pg_catalog.&) 255) OPERATOR(pg_catalog.<<) 24)
              OPERATOR(pg_catalog.|) (hi OPERATOR(pg_catalog.&) 4194303);
    END IF;
    RETURN pg_catalog.left(pg_catalog.set_config('ulid_portable.monotonic_last'::pg_catalog.text,
        pg_catalog.lpad(pg_catalog.to_hex(last_ms), 12, '0'::pg_catalog.text)
        OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(hi), 10, '0'::pg_catalog.text)
        OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(lo), 10, '0'::pg_catalog.text)
        OPERATOR(pg_catalog.||) me OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||) xact, false), 32)::pg_catalog.uuid;
END
$fn$;


-- ---- public ids ------------------------------------------------------------
--
-- ulid_encrypt(uuid, key) and ulid_decrypt(uuid, key): AES of the one
-- 16-byte block under a 16, 24 or 32-byte key, byte for byte what the native
-- functions give, through pgcrypto (a contrib module most managed services
-- offer), in the schema it was created in. Where this file finds no pgcrypto, the two
-- functions are made anyway and say what to do: create pgcrypto, then run
-- the file again.
--
-- The calls of pgcrypto's encrypt and decrypt, which get the key, are
-- bound to those two functions when the file runs, so that no function
-- made later can take them: a body the SQL standard's way (RETURN ...,
-- PostgreSQL 14 on) is parsed at CREATE, names its functions by oid and
-- depends on them, and is still inlined. PostgreSQL 13 has no such bodies,
-- and a string body would look encrypt up by name on every first call of
-- a session; there the call goes through an ordered-set aggregate of this
-- schema whose final function is pgcrypto's (an aggregate names its
-- functions by oid and depends on them too): the block is its aggregated
-- value, the key and the mode its direct arguments, which PostgreSQL
-- passes to the final function after the state. Either way pgcrypto
-- cannot be dropped while they call it, and DROP EXTENSION pgcrypto
-- CASCADE drops them (or, on 13, the aggregates they call): nothing of the
-- same name in pgcrypto's schema, made later, is ever called.
--
-- What binding does not cover is refused: a pgcrypto, or an encrypt or
-- decrypt of it, that another role than the one that runs the file or a
-- superuser owns. Its owner can replace the function in place (CREATE OR
-- REPLACE keeps its oid), and the calls would then run the owner's code
-- with the key.

DO $do$
DECLARE
    crypto pg_catalog.text;
    owners pg_catalog.text;
    fn pg_catalog.text;
BEGIN
    SELECT pg_catalog.quote_ident(n.nspname) INTO crypto
    FROM pg_catalog.pg_extension e
    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
    WHERE e.extname OPERATOR(pg_catalog.=) 'pgcrypto';

    IF crypto IS NOT NULL THEN
        SELECT pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(r.rolname::pg_catalog.text), ', '::pg_catalog.text)
        INTO owners
        FROM (SELECT e.extowner FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pgcrypto'
              UNION ALL
              SELECT p.proowner FROM pg_catalog.pg_proc p
              WHERE p.oid OPERATOR(pg_catalog.=) ANY (ARRAY[
                  pg_catalog.to_regprocedure(crypto OPERATOR(pg_catalog.||) '.encrypt(pg_catalog.bytea, pg_catalog.bytea, pg_catalog.text)'),
                  pg_catalog.to_regprocedure(crypto OPERATOR(pg_catalog.||) '.decrypt(pg_catalog.bytea, pg_catalog.bytea, pg_catalog.text)')]::pg_catalog.oid[])
             ) AS o (owner)
        JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) o.owner
        WHERE r.rolname OPERATOR(pg_catalog.<>) CURRENT_USER AND NOT r.rolsuper;
        IF owners IS NOT NULL THEN
            RAISE EXCEPTION 'extension "pgcrypto", or its encrypt or decrypt, belongs to another role than "%" or a superuser: %', CURRENT_USER, owners USING
                ERRCODE = '42501',
                DETAIL = 'ulid_encrypt and ulid_decrypt pass the key to pgcrypto''s encrypt and decrypt: the owner of pgcrypto can drop it and them '
                         'with it, and the owner of a function can replace it with code of its own, which would get the key.',
                HINT = 'Have pgcrypto created by a superuser or by the role that runs this file (DROP EXTENSION pgcrypto, then CREATE EXTENSION pgcrypto as that role), then run the file again.';
        END IF;
    END IF;

    FOREACH fn IN ARRAY '{encrypt,decrypt}'::pg_catalog.text[] LOOP
        IF crypto IS NULL THEN
            EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_%1$s(id pg_catalog.uuid, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $body$
BEGIN
    RAISE EXCEPTION 'ulid_portable.ulid_%1$s() needs the extension pgcrypto, which this database did not have when ulid_portable was installed' USING
        ERRCODE = '55000',
        HINT = 'Run CREATE EXTENSION pgcrypto, then run ulid_portable.sql again.';
END
$body$
$sql$::pg_catalog.text, fn);
        ELSIF pg_catalog.current_setting('server_version_num'::pg_catalog.text)::pg_catalog.int4 OPERATOR(pg_catalog.>=) 140000 THEN
            EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_%1$s(id pg_catalog.uuid, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN pg_catalog.octet_length(key) OPERATOR(pg_catalog.=) ANY ('{16,24,32}'::pg_catalog.int4[])
    THEN pg_catalog.encode(%2$s.%1$s(pg_catalog.uuid_send(id), key, 'aes-ecb/pad:none'::pg_catalog.text), 'hex'::pg_catalog.text)::pg_catalog.uuid
    ELSE ulid_portable._invalid_key(id, key)
END
$sql$::pg_catalog.text, fn, crypto);
        ELSE
            -- (the aggregate's final function is looked up with exactly
            -- these argument types: bytea, the state, then the direct ones.
            -- With no initial state and a strict byteacat, the state is the
            -- block, never concatenated: NULL for a NULL id, and the strict
            -- final function then gives NULL)
            EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE AGGREGATE ulid_portable._aes_%1$s(key pg_catalog.bytea, cipher pg_catalog.text ORDER BY block pg_catalog.bytea) (
    SFUNC = pg_catalog.byteacat, STYPE = pg_catalog.bytea, FINALFUNC = %2$s.%1$s, PARALLEL = SAFE
)
$sql$::pg_catalog.text, fn, crypto);
            EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_%1$s(id pg_catalog.uuid, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $body$
SELECT CASE
    WHEN pg_catalog.octet_length(key) OPERATOR(pg_catalog.=) ANY ('{16,24,32}'::pg_catalog.int4[])
    THEN pg_catalog.encode(ulid_portable._aes_%1$s(key, 'aes-ecb/pad:none'::pg_catalog.text) WITHIN GROUP (ORDER BY pg_catalog.uuid_send(id)),
                           'hex'::pg_catalog.text)::pg_catalog.uuid
    ELSE ulid_portable._invalid_key(id, key)
END
$body$
$sql$::pg_catalog.text, fn);
        END IF;
    END LOOP;
END
$do$;


-- ---- after the move to the extension ----------------------------------------
--
-- Where the ulid extension is installed (ulid's own type: 16 bytes, not
-- pgx_ulid's, which some services install under the same name), the
-- functions that read a value take the type too, so that code written for
-- this layer keeps working on a column moved to `ulid` (ALTER TABLE ...
-- TYPE ulid): ulid_text, ulid_timestamp, ulid_encrypt and ulid_decrypt get
-- a `ulid` overload, each calling the `uuid` one with the same bytes. They
-- also get a `text` one, so that a literal or an untyped parameter, which
-- could now be read as either type, is read as a text as PostgreSQL reads
-- an unknown value where a function takes text (then as a uuid, as
-- before). Run the file again after CREATE EXTENSION ulid to add them;
-- DROP EXTENSION ulid needs CASCADE while they exist.

DO $do$
DECLARE
    native pg_catalog.text;
    overload pg_catalog.text;
BEGIN
    SELECT pg_catalog.format('%I.%I'::pg_catalog.text, n.nspname, t.typname) INTO native
    FROM pg_catalog.pg_extension e
    JOIN pg_catalog.pg_depend d ON d.refobjid OPERATOR(pg_catalog.=) e.oid
         AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
         AND d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
    JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) d.objid
    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.typnamespace
    WHERE e.extname OPERATOR(pg_catalog.=) 'ulid' AND t.typname OPERATOR(pg_catalog.=) 'ulid'
      AND t.typlen OPERATOR(pg_catalog.=) 16;
    IF native IS NULL THEN
        RETURN;
    END IF;
    FOREACH overload IN ARRAY ARRAY[native, 'pg_catalog.text'] LOOP
        EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_text(id %1$s)
    RETURNS pg_catalog.text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$ SELECT ulid_portable.ulid_text(id::pg_catalog.uuid) $fn$;
CREATE OR REPLACE FUNCTION ulid_portable.ulid_timestamp(id %1$s)
    RETURNS pg_catalog.timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT ulid_portable.ulid_timestamp(id::pg_catalog.uuid) $fn$;
CREATE OR REPLACE FUNCTION ulid_portable.ulid_encrypt(id %1$s, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT ulid_portable.ulid_encrypt(id::pg_catalog.uuid, key) $fn$;
CREATE OR REPLACE FUNCTION ulid_portable.ulid_decrypt(id %1$s, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT ulid_portable.ulid_decrypt(id::pg_catalog.uuid, key) $fn$;
$sql$::pg_catalog.text, overload);
    END LOOP;
END
$do$;


-- ---- what each function is -------------------------------------------------

COMMENT ON FUNCTION ulid_portable.gen_ulid() IS
    'a new ULID as a uuid: the current millisecond and 80 random bits';
COMMENT ON FUNCTION ulid_portable.gen_ulid(pg_catalog.timestamptz) IS
    'a new ULID as a uuid for the given millisecond, with 80 random bits';
COMMENT ON FUNCTION ulid_portable.gen_monotonic_ulid() IS
    'a new ULID as a uuid, greater than the previous one of this session';
COMMENT ON FUNCTION ulid_portable.ulid_text(pg_catalog.uuid) IS
    'the 26-character ULID text of a uuid';
COMMENT ON FUNCTION ulid_portable.ulid_parse(pg_catalog.text) IS
    E'the uuid of a ULID text, of \\x and 32 hexadecimal digits, or of a UUID text';
COMMENT ON FUNCTION ulid_portable.ulid_timestamp(pg_catalog.uuid) IS
    'the millisecond in the first 48 bits of a ULID';
COMMENT ON FUNCTION ulid_portable.ulid_from_timestamptz(pg_catalog.timestamptz) IS
    'the smallest ULID of a millisecond, for range bounds';
COMMENT ON FUNCTION ulid_portable.ulid_encrypt(pg_catalog.uuid, pg_catalog.bytea) IS
    'the public id of a ULID: its 16 bytes encrypted with AES under key (16, 24 or 32 bytes), through pgcrypto';
COMMENT ON FUNCTION ulid_portable.ulid_decrypt(pg_catalog.uuid, pg_catalog.bytea) IS
    'the ULID behind a public id made by ulid_encrypt with the same key, through pgcrypto';
COMMENT ON FUNCTION ulid_portable.version() IS
    'the ulid release this file of the portable layer comes with';

END
$install$;
