'use strict'

// Drizzle ORM (0.45, PostgreSQL) support for the PostgreSQL type `ulid`.
//
// `ulid` is a column builder, like Drizzle's own `uuid`: drizzle-kit writes
// `ulid` in the DDL it generates, values are the 26-character strings, and
// `.array()` columns are arrays of them.
//
//   const { pgTable, text } = require('drizzle-orm/pg-core')
//   const { sql } = require('drizzle-orm')
//   const { ulid, ulidFromTime } = require('./drizzle-ulid')
//
//   const orders = pgTable('orders', {
//     id: ulid('id').primaryKey().default(sql`gen_monotonic_ulid()`),
//     tags: ulid('tags').array()
//   })
//   const [{ id }] = await db.insert(orders).values({}).returning()
//   await db.select().from(orders)
//     .where(and(gte(orders.id, ulidFromTime(start)), lt(orders.id, ulidFromTime(end))))
//
// Parameters are sent as text and read by the server as ulids; send what the
// server reads (a ULID in either case, or the UUID form). The type needs no
// OID: Drizzle parses ulid[] itself, on node-postgres and on postgres.js.
//
// Copy this file into your application; it needs drizzle-orm itself.

const { sql } = require('drizzle-orm')
const { customType } = require('drizzle-orm/pg-core')

/** A `ulid` column; its values are strings. */
const ulid = customType({
  dataType () {
    return 'ulid'
  },
  toDriver (value) {
    // anything whose String() is a ULID, such as a ULID object, goes as text
    return String(value)
  }
})

/**
 * The smallest ULID of `when`'s millisecond, computed by the server
 * (`timestamptz::ulid`): compare an id with it to select by creation time
 * from the id's index.
 *
 * @param {Date} when
 */
function ulidFromTime (when) {
  return sql`${when.toISOString()}::timestamptz::ulid`.mapWith(String)
}

module.exports = { ulid, ulidFromTime }
