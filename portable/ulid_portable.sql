-- ulid_portable: ULIDs in plain SQL on `uuid`, for servers that cannot load
-- ulid's library (managed PostgreSQL: Amazon RDS and Aurora, Cloud SQL,
-- Azure Database, Supabase, Neon...).
--
-- Run it with psql (`psql -f ulid_portable.sql`) or paste it into a
-- migration. It needs PostgreSQL 13 or later, PL/pgSQL, and a role that may
-- create the schema `ulid_portable` (CREATE on the database) or that has
-- CREATE on a schema `ulid_portable` made for it; no extension, no
-- superuser. Running it again replaces the functions with this file's.
--
-- Every value is a `uuid` whose 16 bytes are exactly those of the native
-- `ulid` type, so a column filled here becomes a `ulid` column with
-- `ALTER TABLE ... ALTER COLUMN id TYPE ulid`, without a rewrite, once the
-- extension can be installed. Text, errors and the `ulid.layout` setting
-- are the native type's too.
--
-- Everything here names its schema (`pg_catalog.` included, operators as
-- `OPERATOR(pg_catalog.=)`), so the file and its functions do the same
-- under any search_path; no function carries a SET clause, which would
-- keep the SQL ones from being inlined into the queries that call them.
-- (`OPERATOR(...)` binds like any user-defined operator, so every
-- expression here is parenthesised.)
--
-- Functions whose names start with an underscore are this file's helpers.

DO $do$
BEGIN
    -- CREATE SCHEMA checks the privilege before IF NOT EXISTS: a schema made
    -- for this role by someone else must be left alone, not created again
    IF pg_catalog.to_regnamespace('ulid_portable') IS NULL THEN
        CREATE SCHEMA ulid_portable;
        COMMENT ON SCHEMA ulid_portable IS
            'ULIDs in plain SQL on uuid, for servers without the ulid extension';
    END IF;
END
$do$;


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
-- `ulid.monotonic_step` are placeholders that take any text, so a value the
-- extension would have refused at SET is refused here, when it is used,
-- with the extension's error.
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
    IF pg_catalog.lower(given) OPERATOR(pg_catalog.=) choices[1] THEN
        RETURN false;
    END IF;
    IF pg_catalog.lower(given) OPERATOR(pg_catalog.=) choices[2] THEN
        RETURN true;
    END IF;
    RAISE EXCEPTION 'invalid value for parameter "%": "%"', setting, given USING
        ERRCODE = '22023',
        HINT = pg_catalog.format('Available values: %s.', pg_catalog.array_to_string(choices, ', '));
END
$fn$;

-- Whether ulid.layout asks for UUIDv7s.
CREATE OR REPLACE FUNCTION ulid_portable._layout_is_uuidv7()
    RETURNS pg_catalog.bool LANGUAGE sql STABLE PARALLEL SAFE
AS $fn$
SELECT ulid_portable._setting_is('ulid.layout', '{ulid,uuidv7}')
$fn$;

-- Rust's char::escape_debug escapes these code points when a character
-- stands alone, which is how the native type shows the character a DETAIL
-- names: control and other unprintable characters, and combining marks.
-- Hexadecimal ranges, made by portable/escape-table.rs from the Rust that
-- builds the extension; tests/portable compares the details with the native
-- type's.
CREATE OR REPLACE FUNCTION ulid_portable._show_character(c pg_catalog.text)
    RETURNS pg_catalog.text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    cp pg_catalog.int4 := pg_catalog.ascii(c);
    span pg_catalog.text;
    ends pg_catalog.text[];
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
    FOREACH span IN ARRAY pg_catalog.string_to_array(
        '0-1f,22,27,5c,7f-a0,ad,300-36f,378-379,380-383,38b,38d,3a2,483-489,530,557-558,58b-58c,590-5bd,5'
        'bf,5c1-5c2,5c4-5c5,5c7-5cf,5eb-5ee,5f5-605,610-61a,61c,64b-65f,670,6d6-6dd,6df-6e4,6e7-6e8,6ea-6'
        'ed,70e-70f,711,730-74c,7a6-7b0,7b2-7bf,7eb-7f3,7fb-7fd,816-819,81b-823,825-827,829-82f,83f,859-8'
        '5d,85f,86b-86f,890-89f,8ca-902,93a,93c,941-948,94d,951-957,962-963,981,984,98d-98e,991-992,9a9,9'
        'b1,9b3-9b5,9ba-9bc,9be,9c1-9c6,9c9-9ca,9cd,9cf-9db,9de,9e2-9e5,9fe-a02,a04,a0b-a0e,a11-a12,a29,a'
        '31,a34,a37,a3a-a3d,a41-a58,a5d,a5f-a65,a70-a71,a75,a77-a82,a84,a8e,a92,aa9,ab1,ab4,aba-abc,ac1-a'
        'c8,aca,acd-acf,ad1-adf,ae2-ae5,af2-af8,afa-b01,b04,b0d-b0e,b11-b12,b29,b31,b34,b3a-b3c,b3e-b3f,b'
        '41-b46,b49-b4a,b4d-b5b,b5e,b62-b65,b78-b82,b84,b8b-b8d,b91,b96-b98,b9b,b9d,ba0-ba2,ba5-ba7,bab-b'
        'ad,bba-bbe,bc0,bc3-bc5,bc9,bcd-bcf,bd1-be5,bfb-c00,c04,c0d,c11,c29,c3a-c3c,c3e-c40,c45-c57,c5b,c'
        '5e-c5f,c62-c65,c70-c76,c81,c8d,c91,ca9,cb4,cba-cbc,cbf-cc0,cc2,cc5-cdb,cdf,ce2-ce5,cf0,cf4-d01,d'
        '0d,d11,d3b-d3c,d3e,d41-d45,d49,d4d,d50-d53,d57,d62-d65,d80-d81,d84,d97-d99,db2,dbc,dbe-dbf,dc7-d'
        'cf,dd2-dd7,ddf-de5,df0-df1,df5-e00,e31,e34-e3e,e47-e4e,e5c-e80,e83,e85,e8b,ea4,ea6,eb1,eb4-ebc,e'
        'be-ebf,ec5,ec7-ecf,eda-edb,ee0-eff,f18-f19,f35,f37,f39,f48,f6d-f7e,f80-f84,f86-f87,f8d-fbd,fc6,f'
        'cd,fdb-fff,102d-1030,1032-1037,1039-103a,103d-103e,1058-1059,105e-1060,1071-1074,1082,1085-1086,'
        '108d,109d,10c6,10c8-10cc,10ce-10cf,1249,124e-124f,1257,1259,125e-125f,1289,128e-128f,12b1,12b6-1'
        '2b7,12bf,12c1,12c6-12c7,12d7,1311,1316-1317,135b-135f,137d-137f,139a-139f,13f6-13f7,13fe-13ff,16'
        '80,169d-169f,16f9-16ff,1712-171e,1732-1734,1737-173f,1752-175f,176d,1771-177f,17b4-17b5,17b7-17b'
        'd,17c6,17c9-17d3,17dd-17df,17ea-17ef,17fa-17ff,180b-180f,181a-181f,1879-187f,1885-1886,18a9,18ab'
        '-18af,18f6-18ff,191f-1922,1927-1928,192c-192f,1932,1939-193f,1941-1943,196e-196f,1975-197f,19ac-'
        '19af,19ca-19cf,19db-19dd,1a17-1a18,1a1b-1a1d,1a56,1a58-1a60,1a62,1a65-1a6c,1a73-1a7f,1a8a-1a8f,1'
        'a9a-1a9f,1aae-1b03,1b34-1b3d,1b42-1b44,1b4d,1b6b-1b73,1b80-1b81,1ba2-1ba5,1ba8-1bad,1be6,1be8-1b'
        'e9,1bed,1bef-1bfb,1c2c-1c33,1c36-1c3a,1c4a-1c4c,1c8b-1c8f,1cbb-1cbc,1cc8-1cd2,1cd4-1ce0,1ce2-1ce'
        '8,1ced,1cf4,1cf8-1cf9,1cfb-1cff,1dc0-1dff,1f16-1f17,1f1e-1f1f,1f46-1f47,1f4e-1f4f,1f58,1f5a,1f5c'
        ',1f5e,1f7e-1f7f,1fb5,1fc5,1fd4-1fd5,1fdc,1ff0-1ff1,1ff5,1fff-200f,2028-202f,205f-206f,2072-2073,'
        '208f,209d-209f,20c2-20ff,218c-218f,242a-243f,244b-245f,2b74-2b75,2cef-2cf1,2cf4-2cf8,2d26,2d28-2'
        'd2c,2d2e-2d2f,2d68-2d6e,2d71-2d7f,2d97-2d9f,2da7,2daf,2db7,2dbf,2dc7,2dcf,2dd7,2ddf-2dff,2e5e-2e'
        '7f,2e9a,2ef4-2eff,2fd6-2fef,3000,302a-302f,3040,3097-309a,3100-3104,3130,318f,31e6-31ee,321f,a48'
        'd-a48f,a4c7-a4cf,a62c-a63f,a66f-a672,a674-a67d,a69e-a69f,a6f0-a6f1,a6f8-a6ff,a7dd-a7f0,a802,a806'
        ',a80b,a825-a826,a82c-a82f,a83a-a83f,a878-a87f,a8c4-a8cd,a8da-a8f1,a8ff,a926-a92d,a947-a951,a953-'
        'a95e,a97d-a982,a9b3,a9b6-a9b9,a9bc-a9bd,a9c0,a9ce,a9da-a9dd,a9e5,a9ff,aa29-aa2e,aa31-aa32,aa35-a'
        'a3f,aa43,aa4c,aa4e-aa4f,aa5a-aa5b,aa7c,aab0,aab2-aab4,aab7-aab8,aabe-aabf,aac1,aac3-aada,aaec-aa'
        'ed,aaf6-ab00,ab07-ab08,ab0f-ab10,ab17-ab1f,ab27,ab2f,ab6c-ab6f,abe5,abe8,abed-abef,abfa-abff,d7a'
        '4-d7af,d7c7-d7ca,d7fc-d7ff,e000-f8ff,fa6e-fa6f,fada-faff,fb07-fb12,fb18-fb1c,fb1e,fb37,fb3d,fb3f'
        ',fb42,fb45,fdd0-fdef,fe00-fe0f,fe1a-fe2f,fe53,fe67,fe6c-fe6f,fe75,fefd-ff00,ff9e-ff9f,ffbf-ffc1,'
        'ffc8-ffc9,ffd0-ffd1,ffd8-ffd9,ffdd-ffdf,ffe7,ffef-fffb,fffe-ffff,1000c,10027,1003b,1003e,1004e-1'
        '004f,1005e-1007f,100fb-100ff,10103-10106,10134-10136,1018f,1019d-1019f,101a1-101cf,101fd-1027f,1'
        '029d-1029f,102d1-102e0,102fc-102ff,10324-1032c,1034b-1034f,10376-1037f,1039e,103c4-103c7,103d6-1'
        '03ff,1049e-1049f,104aa-104af,104d4-104d7,104fc-104ff,10528-1052f,10564-1056e,1057b,1058b,10593,1'
        '0596,105a2,105b2,105ba,105bd-105bf,105f4-105ff,10737-1073f,10756-1075f,10768-1077f,10786,107b1,1'
        '07bb-107ff,10806-10807,10809,10836,10839-1083b,1083d-1083e,10856,1089f-108a6,108b0-108df,108f3,1'
        '08f6-108fa,1091c-1091e,1093a-1093e,1095a-1097f,109b8-109bb,109d0-109d1,10a01-10a0f,10a14,10a18,1'
        '0a36-10a3f,10a49-10a4f,10a59-10a5f,10aa0-10abf,10ae5-10aea,10af7-10aff,10b36-10b38,10b56-10b57,1'
        '0b73-10b77,10b92-10b98,10b9d-10ba8,10bb0-10bff,10c49-10c7f,10cb3-10cbf,10cf3-10cf9,10d24-10d2f,1'
        '0d3a-10d3f,10d66-10d6d,10d86-10d8d,10d90-10e5f,10e7f,10eaa-10eac,10eae-10eaf,10eb2-10ec1,10ec8-1'
        '0ecf,10ed9-10eff,10f28-10f2f,10f46-10f50,10f5a-10f6f,10f82-10f85,10f8a-10faf,10fcc-10fdf,10ff7-1'
        '0fff,11001,11038-11046,1104e-11051,11070,11073-11074,11076-11081,110b3-110b6,110b9-110ba,110bd,1'
        '10c2-110cf,110e9-110ef,110fa-11102,11127-1112b,1112d-11135,11148-1114f,11173,11177-11181,111b6-1'
        '11be,111c0,111c9-111cc,111cf,111e0,111f5-111ff,11212,1122f-11231,11234-11237,1123e,11241-1127f,1'
        '1287,11289,1128e,1129e,112aa-112af,112df,112e3-112ef,112fa-11301,11304,1130d-1130e,11311-11312,1'
        '1329,11331,11334,1133a-1133c,1133e,11340,11345-11346,11349-1134a,1134d-1134f,11351-1135c,11364-1'
        '137f,1138a,1138c-1138d,1138f,113b6,113b8,113bb-113c9,113cb,113ce-113d0,113d2,113d6,113d9-113ff,1'
        '1438-1143f,11442-11444,11446,1145c,1145e,11462-1147f,114b0,114b3-114b8,114ba,114bd,114bf-114c0,1'
        '14c2-114c3,114c8-114cf,114da-1157f,115af,115b2-115b7,115bc-115bd,115bf-115c0,115dc-115ff,11633-1'
        '163a,1163d,1163f-11640,11645-1164f,1165a-1165f,1166d-1167f,116ab,116ad,116b0-116b7,116ba-116bf,1'
        '16ca-116cf,116e4-116ff,1171b-1171d,1171f,11722-11725,11727-1172f,11747-117ff,1182f-11837,11839-1'
        '183a,1183c-1189f,118f3-118fe,11907-11908,1190a-1190b,11914,11917,11930,11936,11939-1193e,11943,1'
        '1947-1194f,1195a-1199f,119a8-119a9,119d4-119db,119e0,119e5-119ff,11a01-11a0a,11a33-11a38,11a3b-1'
        '1a3e,11a47-11a4f,11a51-11a56,11a59-11a5b,11a8a-11a96,11a98-11a99,11aa3-11aaf,11af9-11aff,11b0a-1'
        '1b60,11b62-11b64,11b66,11b68-11bbf,11be2-11bef,11bfa-11bff,11c09,11c30-11c3d,11c3f,11c46-11c4f,1'
        '1c6d-11c6f,11c90-11ca8,11caa-11cb0,11cb2-11cb3,11cb5-11cff,11d07,11d0a,11d31-11d45,11d47-11d4f,1'
        '1d5a-11d5f,11d66,11d69,11d8f-11d92,11d95,11d97,11d99-11d9f,11daa-11daf,11ddc-11ddf,11dea-11edf,1'
        '1ef3-11ef4,11ef9-11f01,11f11,11f36-11f3d,11f40-11f42,11f5a-11faf,11fb1-11fbf,11ff2-11ffe,1239a-1'
        '23ff,1246f,12475-1247f,12544-12f8f,12ff3-12fff,13430-13440,13447-1345f,143fb-143ff,14647-160ff,1'
        '611e-16129,1612d-1612f,1613a-167ff,16a39-16a3f,16a5f,16a6a-16a6d,16abf,16aca-16acf,16aee-16af4,1'
        '6af6-16aff,16b30-16b36,16b46-16b4f,16b5a,16b62,16b78-16b7c,16b90-16d3f,16d7a-16e3f,16e9b-16e9f,1'
        '6eb9-16eba,16ed4-16eff,16f4b-16f4f,16f88-16f92,16fa0-16fdf,16fe4-16ff1,16ff7-16fff,18cd6-18cfe,1'
        '8d1f-18d7f,18df3-1afef,1aff4,1affc,1afff,1b123-1b131,1b133-1b14f,1b153-1b154,1b156-1b163,1b168-1'
        'b16f,1b2fc-1bbff,1bc6b-1bc6f,1bc7d-1bc7f,1bc89-1bc8f,1bc9a-1bc9b,1bc9d-1bc9e,1bca0-1cbff,1ccfd-1'
        'ccff,1ceb4-1ceb9,1ced1-1cedf,1cef1-1cf4f,1cfc4-1cfff,1d0f6-1d0ff,1d127-1d128,1d165-1d169,1d16d-1'
        'd182,1d185-1d18b,1d1aa-1d1ad,1d1eb-1d1ff,1d242-1d244,1d246-1d2bf,1d2d4-1d2df,1d2f4-1d2ff,1d357-1'
        'd35f,1d379-1d3ff,1d455,1d49d,1d4a0-1d4a1,1d4a3-1d4a4,1d4a7-1d4a8,1d4ad,1d4ba,1d4bc,1d4c4,1d506,1'
        'd50b-1d50c,1d515,1d51d,1d53a,1d53f,1d545,1d547-1d549,1d551,1d6a6-1d6a7,1d7cc-1d7cd,1da00-1da36,1'
        'da3b-1da6c,1da75,1da84,1da8c-1deff,1df1f-1df24,1df2b-1e02f,1e06e-1e0ff,1e12d-1e136,1e13e-1e13f,1'
        'e14a-1e14d,1e150-1e28f,1e2ae-1e2bf,1e2ec-1e2ef,1e2fa-1e2fe,1e300-1e4cf,1e4ec-1e4ef,1e4fa-1e5cf,1'
        'e5ee-1e5ef,1e5fb-1e5fe,1e600-1e6bf,1e6df,1e6e3,1e6e6,1e6ee-1e6ef,1e6f5-1e6fd,1e700-1e7df,1e7e7,1'
        'e7ec,1e7ef,1e7ff,1e8c5-1e8c6,1e8d0-1e8ff,1e944-1e94a,1e94c-1e94f,1e95a-1e95d,1e960-1ec70,1ecb5-1'
        'ed00,1ed3e-1edff,1ee04,1ee20,1ee23,1ee25-1ee26,1ee28,1ee33,1ee38,1ee3a,1ee3c-1ee41,1ee43-1ee46,1'
        'ee48,1ee4a,1ee4c,1ee50,1ee53,1ee55-1ee56,1ee58,1ee5a,1ee5c,1ee5e,1ee60,1ee63,1ee65-1ee66,1ee6b,1'
        'ee73,1ee78,1ee7d,1ee7f,1ee8a,1ee9c-1eea0,1eea4,1eeaa,1eebc-1eeef,1eef2-1efff,1f02c-1f02f,1f094-1'
        'f09f,1f0af-1f0b0,1f0c0,1f0d0,1f0f6-1f0ff,1f1ae-1f1e5,1f203-1f20f,1f23c-1f23f,1f249-1f24f,1f252-1'
        'f25f,1f266-1f2ff,1f6d9-1f6db,1f6ed-1f6ef,1f6fd-1f6ff,1f7da-1f7df,1f7ec-1f7ef,1f7f1-1f7ff,1f80c-1'
        'f80f,1f848-1f84f,1f85a-1f85f,1f888-1f88f,1f8ae-1f8af,1f8bc-1f8bf,1f8c2-1f8cf,1f8d9-1f8ff,1fa58-1'
        'fa5f,1fa6e-1fa6f,1fa7d-1fa7f,1fa8b-1fa8d,1fac7,1fac9-1facc,1fadd-1fade,1faeb-1faee,1faf9-1faff,1'
        'fb93,1fbfb-1ffff,2a6e0-2a6ff,2b81e-2b81f,2ceae-2ceaf,2ebe1-2ebef,2ee5e-2f7ff,2fa1e-2ffff,3134b-3'
        '134f,3347a-10ffff', ',')
    LOOP
        ends := pg_catalog.string_to_array(span, '-');
        IF cp OPERATOR(pg_catalog.>=) ('x' OPERATOR(pg_catalog.||) pg_catalog.lpad(ends[1], 8, '0'))::pg_catalog.bit(32)::pg_catalog.int4
           AND cp OPERATOR(pg_catalog.<=) ('x' OPERATOR(pg_catalog.||) pg_catalog.lpad(ends[pg_catalog.array_length(ends, 1)], 8, '0'))::pg_catalog.bit(32)::pg_catalog.int4
        THEN
            RETURN E'"\\u{' OPERATOR(pg_catalog.||) pg_catalog.to_hex(cp) OPERATOR(pg_catalog.||) '}"';
        END IF;
    END LOOP;
    RETURN '"' OPERATOR(pg_catalog.||) c OPERATOR(pg_catalog.||) '"';
END
$fn$;

-- What is wrong with a text that is not a ULID, as the native type's input
-- function says it: the first problem found reading left to right (see
-- codec::parse in ulid-core). NULLs for a text that is a ULID.
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
    digits CONSTANT pg_catalog.text := '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';
    hex CONSTANT pg_catalog.text := '0123456789abcdefABCDEF';
    bytes pg_catalog.int4 := pg_catalog.octet_length(input);
    chars pg_catalog.int4 := pg_catalog.length(input);
    ascii pg_catalog.bool := (input OPERATOR(pg_catalog.~) E'^[\\x01-\\x7f]*$');
    c pg_catalog.text;
BEGIN
    -- Positions count characters: every character before the one named is
    -- ASCII, so they are the native type's byte positions too.
    IF pg_catalog.left(input, 2) OPERATOR(pg_catalog.=) E'\\x' THEN
        FOR i IN 3..chars LOOP
            c := pg_catalog.substr(input, i, 1);
            IF pg_catalog.strpos(hex, c) OPERATOR(pg_catalog.=) 0 THEN
                detail := pg_catalog.format('Invalid hexadecimal digit %s at position %s.',
                                            ulid_portable._show_character(c), i);
                RETURN;
            END IF;
        END LOOP;
        IF chars OPERATOR(pg_catalog.<>) 34 THEN
            detail := pg_catalog.format(E'Expected 32 hexadecimal digits after "\\x", found %s.', chars OPERATOR(pg_catalog.-) 2);
        END IF;
        RETURN;
    END IF;

    IF bytes OPERATOR(pg_catalog.<>) 26 AND pg_catalog.strpos(input, '-') OPERATOR(pg_catalog.>) 0 THEN
        -- the UUID form
        FOR i IN 1..LEAST(chars, 36) LOOP
            c := pg_catalog.substr(input, i, 1);
            IF i OPERATOR(pg_catalog.=) ANY ('{9,14,19,24}'::pg_catalog.int4[]) THEN
                IF c OPERATOR(pg_catalog.<>) '-' THEN
                    detail := pg_catalog.format('Expected a hyphen at position %s, found %s.',
                                                i, ulid_portable._show_character(c));
                    hint := uuid_form;
                    RETURN;
                END IF;
            ELSIF c OPERATOR(pg_catalog.=) '-' THEN
                detail := pg_catalog.format('Unexpected hyphen at position %s.', i);
                hint := uuid_form;
                RETURN;
            ELSIF pg_catalog.strpos(hex, c) OPERATOR(pg_catalog.=) 0 THEN
                detail := pg_catalog.format('Invalid hexadecimal digit %s at position %s.',
                                            ulid_portable._show_character(c), i);
                RETURN;
            END IF;
        END LOOP;
        IF bytes OPERATOR(pg_catalog.<>) 36 THEN
            IF NOT ascii THEN
                -- the first 36 characters are in order: name the first
                -- that is not ASCII, rather than count bytes
                FOR i IN 37..chars LOOP
                    c := pg_catalog.substr(input, i, 1);
                    IF pg_catalog.ascii(c) OPERATOR(pg_catalog.>) 127 THEN
                        detail := pg_catalog.format('Invalid hexadecimal digit %s at position %s.',
                                                    ulid_portable._show_character(c), i);
                        RETURN;
                    END IF;
                END LOOP;
            END IF;
            detail := pg_catalog.format('Expected 36 characters in the UUID form, found %s.', bytes);
            hint := uuid_form;
        END IF;
        RETURN;
    END IF;

    -- the ULID text
    IF bytes OPERATOR(pg_catalog.=) 26
       AND pg_catalog.strpos('89ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz', pg_catalog.left(input, 1))
           OPERATOR(pg_catalog.>) 0
    THEN
        detail := pg_catalog.format('The first character is %s, above "7": the value would not fit in 128 bits.',
                                    ulid_portable._show_character(pg_catalog.left(input, 1)));
        RETURN;
    END IF;
    IF bytes OPERATOR(pg_catalog.=) 26 OR NOT ascii THEN
        FOR i IN 1..chars LOOP
            c := pg_catalog.substr(input, i, 1);
            IF pg_catalog.strpos(digits, c) OPERATOR(pg_catalog.=) 0 THEN
                detail := pg_catalog.format('Invalid character %s at position %s.',
                                            ulid_portable._show_character(c), i);
                hint := base32;
                RETURN;
            END IF;
        END LOOP;
    END IF;
    IF bytes OPERATOR(pg_catalog.<>) 26 THEN
        detail := pg_catalog.format('Expected 26 characters, found %s.', bytes);
        hint := forms;
    END IF;
END
$fn$;

-- Raises the native type's error for a text that is not a ULID.
CREATE OR REPLACE FUNCTION ulid_portable._raise_bad_text(input pg_catalog.text)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    why record := ulid_portable._bad_text(input);
BEGIN
    IF why.hint IS NULL THEN
        RAISE EXCEPTION 'invalid input syntax for type ulid: "%"', input USING
            ERRCODE = '22P02', DETAIL = why.detail;
    END IF;
    RAISE EXCEPTION 'invalid input syntax for type ulid: "%"', input USING
        ERRCODE = '22P02', DETAIL = why.detail, HINT = why.hint;
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
               'UTF8'), 'hex'), '' ORDER BY i)
    INTO pairs FROM pg_catalog.generate_series(0, 1023) AS i;
    SELECT pg_catalog.string_agg(CASE
               WHEN pg_catalog.strpos(alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.>) 0
               THEN pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.strpos(alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.-) 1), 2, '0')
               WHEN pg_catalog.strpos(lower_alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.>) 0
               THEN pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.strpos(lower_alphabet, pg_catalog.chr(i)) OPERATOR(pg_catalog.-) 1), 2, '0')
               ELSE 'ff'
           END, '' ORDER BY i)
    INTO digits FROM pg_catalog.generate_series(1, 127) AS i;
    digits := 'ff' OPERATOR(pg_catalog.||) digits;  -- byte 0, which no text holds

    -- ulid_text(uuid): the 26-character text the native type prints.
    EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_text(id pg_catalog.uuid)
    RETURNS pg_catalog.text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    b pg_catalog.bit(128) := ('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.uuid_send(id), 'hex'))::pg_catalog.bit(128);
BEGIN
    RETURN pg_catalog.encode(
        pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 1, 8)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 9, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 19, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 29, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 39, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 49, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 59, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 69, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 79, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 89, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 99, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 109, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2)
        OPERATOR(pg_catalog.||) pg_catalog.substring('\x%1$s'::pg_catalog.bytea, (pg_catalog.substring(b, 119, 10)::pg_catalog.int4 OPERATOR(pg_catalog.*) 2) OPERATOR(pg_catalog.+) 1, 2),
        'escape');
END
$fn$
$sql$, pairs);

    -- ulid_parse(text): a ULID's text in either case, \x and 32 hexadecimal
    -- digits, or the UUID text, as the native type reads them; its errors
    -- for anything else.
    EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_parse(input pg_catalog.text)
    RETURNS pg_catalog.uuid LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
    bytes pg_catalog.int4 := pg_catalog.octet_length(input);
    b pg_catalog.bytea;
    h pg_catalog.text;
BEGIN
    IF bytes OPERATOR(pg_catalog.=) 26 THEN
        -- 26 digits, the first at most 7 (no more than 128 bits)
        IF input OPERATOR(pg_catalog.!~) '[^0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]'
           AND pg_catalog.strpos('01234567', pg_catalog.left(input, 1)) OPERATOR(pg_catalog.>) 0
        THEN
            b := pg_catalog.decode(input, 'escape');  -- the characters' bytes (no backslash among them)
            RETURN (pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 1))), 2, '0')
                    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 2))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 35)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 3))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 30)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 4))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 25)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 5))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 20)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 6))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 15)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 7))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 10)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 8))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 9))), 10, '0')
                    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 10))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 35)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 11))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 30)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 12))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 25)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 13))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 20)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 14))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 15)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 15))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 10)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 16))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 17))), 10, '0')
                    OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(
                        (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 18))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 35)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 19))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 30)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 20))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 25)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 21))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 20)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 22))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 15)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 23))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 10)
                        OPERATOR(pg_catalog.|) (pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 24))::pg_catalog.int8 OPERATOR(pg_catalog.<<) 5)
                        OPERATOR(pg_catalog.|) pg_catalog.get_byte('\x%1$s'::pg_catalog.bytea, pg_catalog.get_byte(b, 25))), 10, '0')
                   )::pg_catalog.uuid;
        END IF;
    ELSIF bytes OPERATOR(pg_catalog.=) 34 THEN
        h := pg_catalog.substr(input, 3);
        IF pg_catalog.left(input, 2) OPERATOR(pg_catalog.=) E'\\x' AND h OPERATOR(pg_catalog.!~) '[^0-9a-fA-F]' THEN
            RETURN h::pg_catalog.uuid;
        END IF;
    ELSIF bytes OPERATOR(pg_catalog.=) 36 THEN
        -- only 8-4-4-4-12 (uuid's own input takes more spellings)
        h := pg_catalog.replace(input, '-', '');
        IF pg_catalog.octet_length(h) OPERATOR(pg_catalog.=) 32 AND h OPERATOR(pg_catalog.!~) '[^0-9a-fA-F]'
           AND (pg_catalog.substr(input, 9, 1) OPERATOR(pg_catalog.||) pg_catalog.substr(input, 14, 1)
                OPERATOR(pg_catalog.||) pg_catalog.substr(input, 19, 1) OPERATOR(pg_catalog.||) pg_catalog.substr(input, 24, 1))
               OPERATOR(pg_catalog.=) '----'
        THEN
            RETURN h::pg_catalog.uuid;
        END IF;
    END IF;
    RETURN ulid_portable._raise_bad_text(input);
END
$fn$
$sql$, digits);
END
$do$;


-- ---- time ------------------------------------------------------------------
--
-- A ULID's first 48 bits are Unix milliseconds, written as 12 hexadecimal
-- digits: the hex of ms + 2^48 without its leading "1". The millisecond of a
-- timestamptz is taken exactly: the generators round the float epoch of
-- the time truncated to its millisecond (date_trunc), whose error stays
-- below a tenth of a millisecond up to the year 10889 (an epoch taken
-- before the truncation would be off by one near some boundaries);
-- ulid_from_timestamptz, which must be IMMUTABLE where date_trunc is not,
-- reads the timestamptz's 64-bit count of microseconds (timestamptz_send).

-- ulid_timestamp(uuid): the exact millisecond in the first 48 bits. Whole
-- multiples of 65.536 seconds plus milliseconds, so that the interval
-- arithmetic is exact in double precision up to the year 10889.
CREATE OR REPLACE FUNCTION ulid_portable.ulid_timestamp(id pg_catalog.uuid)
    RETURNS pg_catalog.timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
SELECT pg_catalog.timezone('UTC',
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
    THEN (pg_catalog.substr(pg_catalog.to_hex(((('x' OPERATOR(pg_catalog.||) pg_catalog.encode(pg_catalog.timestamptz_send(ts), 'hex'))::pg_catalog.bit(64)::pg_catalog.int8
                                                OPERATOR(pg_catalog.+) 282421661510656000) OPERATOR(pg_catalog./) 1000)), 2)
          OPERATOR(pg_catalog.||) '00000000000000000000')::pg_catalog.uuid
    ELSE ulid_portable._timestamp_out_of_range(ts)
END
$fn$;


-- ---- generators ------------------------------------------------------------
--
-- Random bits come from gen_random_uuid(), PostgreSQL's own CSPRNG (core
-- from 13 on). Its text 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx' has 120
-- random bits in whole hexadecimal digits, the version 4 and the variant y
-- apart: overlay(... FROM 9 FOR 16) keeps its first 8 and last 12 digits,
-- 80 random bits; substr(..., 16) is 'xxx-yxxx-xxxxxxxxxxxx', exactly the
-- 74 random bits and the variant that a UUIDv7 has after its version digit.
--
-- ulid.layout decides which (see ulid_portable._setting_is); the common
-- values are compared in SQL so that gen_ulid() stays one inlined
-- expression, one call of gen_random_uuid().

-- gen_ulid(): the current millisecond and 80 random bits (74 and the UUIDv7
-- version and variant under ulid.layout = uuidv7).
CREATE OR REPLACE FUNCTION ulid_portable.gen_ulid()
    RETURNS pg_catalog.uuid LANGUAGE sql VOLATILE PARALLEL SAFE
AS $fn$
SELECT (pg_catalog.substr(pg_catalog.to_hex((pg_catalog.date_part('epoch', pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp()))
                                             OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8 OPERATOR(pg_catalog.+) 281474976710656), 2)
        OPERATOR(pg_catalog.||) CASE
            WHEN COALESCE(pg_catalog.current_setting('ulid.layout', true), '') OPERATOR(pg_catalog.=) ANY ('{"",ulid}'::pg_catalog.text[])
            THEN pg_catalog.overlay(pg_catalog.gen_random_uuid()::pg_catalog.text, '', 9, 16)
            WHEN pg_catalog.current_setting('ulid.layout', true) OPERATOR(pg_catalog.=) 'uuidv7'
                 OR ulid_portable._layout_is_uuidv7()
            THEN '7' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 16)
            ELSE pg_catalog.overlay(pg_catalog.gen_random_uuid()::pg_catalog.text, '', 9, 16)
        END)::pg_catalog.uuid
$fn$;

-- gen_ulid(timestamptz): that millisecond and random bits, for backfills.
CREATE OR REPLACE FUNCTION ulid_portable.gen_ulid(ts pg_catalog.timestamptz)
    RETURNS pg_catalog.uuid LANGUAGE sql VOLATILE PARALLEL SAFE
AS $fn$
SELECT CASE
    WHEN (ts OPERATOR(pg_catalog.>=) '1970-01-01 00:00:00+00'::pg_catalog.timestamptz)
         AND (ts OPERATOR(pg_catalog.<) '10889-08-02 05:31:50.656+00'::pg_catalog.timestamptz)
    THEN (pg_catalog.substr(pg_catalog.to_hex((pg_catalog.date_part('epoch', pg_catalog.date_trunc('milliseconds', ts))
                                               OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8 OPERATOR(pg_catalog.+) 281474976710656), 2)
          OPERATOR(pg_catalog.||) CASE
              WHEN COALESCE(pg_catalog.current_setting('ulid.layout', true), '') OPERATOR(pg_catalog.=) ANY ('{"",ulid}'::pg_catalog.text[])
              THEN pg_catalog.overlay(pg_catalog.gen_random_uuid()::pg_catalog.text, '', 9, 16)
              WHEN pg_catalog.current_setting('ulid.layout', true) OPERATOR(pg_catalog.=) 'uuidv7'
                   OR ulid_portable._layout_is_uuidv7()
              THEN '7' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 16)
              ELSE pg_catalog.overlay(pg_catalog.gen_random_uuid()::pg_catalog.text, '', 9, 16)
          END)::pg_catalog.uuid
    ELSE ulid_portable._timestamp_out_of_range(ts)
END
$fn$;

-- gen_monotonic_ulid(): greater than the previous value of this session.
--
-- The state machine of ulid-core's Monotonic (crates/ulid-core/src/
-- generator.rs), step for step: a later millisecond gets fresh random bits;
-- the same one, or an earlier one after the clock stepped back, keeps the
-- last value's millisecond and adds a step to its random part (under
-- ulid.layout = uuidv7, to its 74 free bits) until the clock catches up. The
-- step is uniform on [1, 2^32] (ulid.monotonic_step = one: 1); when fewer
-- values are left above the last one, draw % left + 1; when none, SQLSTATE
-- 2200H.
--
-- The last value lives in the session's setting ulid_portable.monotonic_last
-- (32 hexadecimal digits), written with set_config(). A temporary table
-- would need the TEMP privilege, leave catalog rows behind, and make each
-- call an UPDATE of one row whose versions pile up within a transaction, so
-- that a statement of many calls slows down as it goes (bench/ measures
-- it). Like every setting it is transactional: a rolled-back transaction
-- or savepoint takes it back to where it was, so the values that follow are
-- greater than every value that was kept, not necessarily than those the
-- rollback threw away. RESET ALL and DISCARD ALL forget it.
--
-- An 80-bit random part, or a 74-bit UUIDv7 counter, is two bigints: its
-- bits above the low 40, and the low 40.
CREATE OR REPLACE FUNCTION ulid_portable.gen_monotonic_ulid()
    RETURNS pg_catalog.uuid LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $fn$
DECLARE
    state pg_catalog.text := pg_catalog.current_setting('ulid_portable.monotonic_last', true);
    now_ms pg_catalog.int8 := (pg_catalog.date_part('epoch', pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp()))
                               OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8;
    -- the settings, checked on every call as the extension checks them at SET
    v7 pg_catalog.bool := CASE
        WHEN COALESCE(pg_catalog.current_setting('ulid.layout', true), '') OPERATOR(pg_catalog.=) ANY ('{"",ulid}'::pg_catalog.text[]) THEN false
        WHEN pg_catalog.current_setting('ulid.layout', true) OPERATOR(pg_catalog.=) 'uuidv7' THEN true
        ELSE ulid_portable._setting_is('ulid.layout', '{ulid,uuidv7}')
    END;
    step_one pg_catalog.bool := CASE
        WHEN COALESCE(pg_catalog.current_setting('ulid.monotonic_step', true), '') OPERATOR(pg_catalog.=) ANY ('{"",random}'::pg_catalog.text[]) THEN false
        WHEN pg_catalog.current_setting('ulid.monotonic_step', true) OPERATOR(pg_catalog.=) 'one' THEN true
        ELSE ulid_portable._setting_is('ulid.monotonic_step', '{random,one}')
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
    ELSIF now_ms OPERATOR(pg_catalog.>) last_ms THEN
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
    END IF;

    IF fresh_ms IS NOT NULL THEN
        IF fresh_ms OPERATOR(pg_catalog.>) 281474976710655 THEN
            RETURN ulid_portable._timestamp_out_of_range('infinity');
        END IF;
        -- 80 random bits, or a UUIDv7's version, 74 random bits and variant
        -- (see the generators above)
        RETURN pg_catalog.set_config('ulid_portable.monotonic_last',
            pg_catalog.lpad(pg_catalog.to_hex(fresh_ms), 12, '0') OPERATOR(pg_catalog.||) CASE
                WHEN v7 THEN '7' OPERATOR(pg_catalog.||) pg_catalog.replace(pg_catalog.substr(pg_catalog.gen_random_uuid()::pg_catalog.text, 16), '-', '')
                ELSE pg_catalog.overlay(pg_catalog.gen_random_uuid()::pg_catalog.text, '', 9, 16)
            END, false)::pg_catalog.uuid;
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
            DETAIL = 'The 80-bit random part reached its largest value; the generator fails rather than wrap around.',
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
    RETURN pg_catalog.set_config('ulid_portable.monotonic_last',
        pg_catalog.lpad(pg_catalog.to_hex(last_ms), 12, '0')
        OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(hi), 10, '0')
        OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.to_hex(lo), 10, '0'), false)::pg_catalog.uuid;
END
$fn$;


-- ---- public ids ------------------------------------------------------------
--
-- ulid_encrypt(uuid, key) and ulid_decrypt(uuid, key): AES of the one
-- 16-byte block under a 16, 24 or 32-byte key, byte for byte what the native
-- functions give, through pgcrypto (every managed service offers it), in the
-- schema it was created in. Where this file finds no pgcrypto, the two
-- functions are made anyway and say what to do: create pgcrypto, then run
-- the file again.

DO $do$
DECLARE
    crypto pg_catalog.text;
    fn pg_catalog.text;
BEGIN
    SELECT pg_catalog.quote_ident(n.nspname) INTO crypto
    FROM pg_catalog.pg_extension e
    JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
    WHERE e.extname OPERATOR(pg_catalog.=) 'pgcrypto';

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
$sql$, fn);
        ELSE
            EXECUTE pg_catalog.format($sql$
CREATE OR REPLACE FUNCTION ulid_portable.ulid_%1$s(id pg_catalog.uuid, key pg_catalog.bytea)
    RETURNS pg_catalog.uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $body$
SELECT CASE
    WHEN pg_catalog.octet_length(key) OPERATOR(pg_catalog.=) ANY ('{16,24,32}'::pg_catalog.int4[])
    THEN pg_catalog.encode(%2$s.%1$s(pg_catalog.uuid_send(id), key, 'aes-ecb/pad:none'), 'hex')::pg_catalog.uuid
    ELSE ulid_portable._invalid_key(id, key)
END
$body$
$sql$, fn, crypto);
        END IF;
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
