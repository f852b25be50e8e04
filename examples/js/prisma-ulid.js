'use strict'

// Prisma 7 (with @prisma/adapter-pg) support for the PostgreSQL type `ulid`.
//
// Prisma's schema language has no ulid type, and the client neither reads
// nor writes an `Unsupported("ulid")` field (as Prisma documents it; not
// tested here). Map a ulid column to a String
// field, and create the table with SQL (a migration you write yourself):
//
//   model Order {
//     id       String   @id @default(dbgenerated("gen_monotonic_ulid()"))
//     parentId String?
//     tags     String[]
//   }
//
//   CREATE TABLE "Order" (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
//                         "parentId" ulid, tags ulid[] NOT NULL DEFAULT '{}');
//
// Prisma sends strings without a type, so the server reads them as ulids
// where a ulid is expected, and a ulid comes back as its 26-character string.
// A ulid[] comes back as its text, '{01JGFJJZ00XHF7E02JJ03AE4T7,...}', which
// Prisma cannot read as a String[] until the adapter parses it: give
// ulidTypeParser() to PrismaPg.
//
//   const adapter = new PrismaPg({ connectionString }, { userDefinedTypeParser: ulidTypeParser() })
//   const prisma = new PrismaClient({ adapter })
//
// Copy this file into your application; it needs pg, which adapter-pg uses.

const { types } = require('pg')

// text[]'s parser splits any array of ulids correctly: a ulid's text never
// needs quoting. Built-in OIDs are fixed; the ulid type's are not.
const TEXT_ARRAY_OID = 1009
const parseTextArray = types.getTypeParser(TEXT_ARRAY_OID, 'text')

/**
 * A `userDefinedTypeParser` for PrismaPg that reads ulid and ulid[] values.
 * The type's OIDs differ from database to database: it looks them up by name
 * on first use, so use one per PrismaPg (one database).
 *
 * @param {object} [options]
 * @param {function(string): *} [options.parse] what a ulid becomes; the
 *   string itself by default (which is what a String field expects)
 */
function ulidTypeParser ({ parse = (text) => text } = {}) {
  let oids // a promise of { ulid, array }
  const lookUp = async (queryable) => {
    const { rows: [[ulid, array]] } = await queryable.queryRaw({
      sql: "SELECT to_regtype('ulid')::oid::int4, to_regtype('ulid[]')::oid::int4",
      args: [],
      argTypes: []
    })
    return { ulid, array }
  }
  const parseElements = (value) =>
    Array.isArray(value) ? value.map(parseElements) : value === null ? null : parse(value)

  return async (oid, value, queryable) => {
    if (oids === undefined) {
      oids = lookUp(queryable)
      oids.catch(() => { oids = undefined }) // try again on the next value
    }
    const { ulid, array } = await oids
    if (value === null || value === undefined) return value
    if (oid === ulid) return parse(value)
    if (oid === array) return parseElements(parseTextArray(value))
    return value
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * The smallest ULID of a millisecond, as the server's `timestamptz::ulid`
 * makes it: `{ id: { gte: ulidFromTime(start), lt: ulidFromTime(end) } }`
 * selects the rows whose id was made in [start, end), from the id's index.
 *
 * @param {Date|number} when a Date or milliseconds since 1970
 * @returns {string}
 */
function ulidFromTime (when) {
  let ms = when instanceof Date ? when.getTime() : when
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= 2 ** 48) {
    throw new RangeError(`no ULID has the time ${when}`)
  }
  let time = ''
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32] + time
    ms = Math.floor(ms / 32)
  }
  return time + '0'.repeat(16)
}

module.exports = { ulidTypeParser, ulidFromTime }
