'use strict'

// node-postgres (pg 8) support for the PostgreSQL type `ulid`.
//
// Without it a ulid already comes back as its 26-character string, but a
// ulid[] comes back as the array's text, '{01JGFJJZ00XHF7E02JJ03AE4T7,...}'.
// registerUlid makes a ulid[] an array of strings, and can turn every ulid,
// in arrays too, into a value of your choosing with `parse`.
//
// Parameters need nothing: send the 26-character string (either case), the
// UUID form (ulidToUUID from the ulid package), or a 16-byte Buffer.
//
// Copy this file into your application; it needs nothing but pg itself.

// text[]'s parser splits any array of ulids correctly: a ulid's text never
// needs quoting. Built-in OIDs are fixed; the ulid type's are not.
const TEXT_ARRAY_OID = 1009

/**
 * Looks up the ulid type's OIDs (they differ from database to database) and
 * registers parsers for ulid and ulid[].
 *
 * @param {object} queryable a pg.Client, a pool's client, or a pg.Pool
 * @param {object} [options]
 * @param {function(string): *} [options.parse] what a ulid becomes; the
 *   string itself by default
 * @param {object} [options.types] where to register: the client itself by
 *   default; pass pg.types to register for every client of the process, such
 *   as a pool's (all of them must use databases where the OIDs are the same)
 */
async function registerUlid (queryable, { parse = (text) => text, types = queryable } = {}) {
  const { rows: [oids] } = await queryable.query(
    "SELECT 'ulid'::regtype::oid AS ulid, 'ulid[]'::regtype::oid AS array"
  )
  const parseTextArray = types.getTypeParser(TEXT_ARRAY_OID, 'text')
  const parseElements = (value) =>
    Array.isArray(value) ? value.map(parseElements) : value === null ? null : parse(value)
  types.setTypeParser(oids.ulid, 'text', parse)
  types.setTypeParser(oids.array, 'text', (text) => parseElements(parseTextArray(text)))
}

module.exports = { registerUlid }
