'use strict'

// postgres.js (npm `postgres`, 3.4) support for the PostgreSQL type `ulid`.
//
// postgres.js keys custom types by OID, which it must know when the `sql`
// function is made, and the ulid type's OID differs from database to
// database. ulidType() looks it up by name over one short connection and
// returns the entry for postgres.js's `types` option:
//
//   const postgres = require('postgres')
//   const { ulidType } = require('./postgres-js-ulid')
//
//   const sql = postgres({ ...options, types: { ulid: await ulidType(options) } })
//   await sql`INSERT INTO orders (id, tags) VALUES (${id}, ${ids})`
//   const [order] = await sql`SELECT id, tags FROM orders WHERE id = ${id}` // tags: an array
//   sql.typed.ulid(id)                   // a parameter typed ulid where nothing else says so
//   sql.array(ids, sql.options.types.ulid.to) // the same for a ulid[]
//
// postgres.js fetches the array types of every type at connect (its default
// `fetch_types`), so a ulid[] comes back as an array even without this file,
// but a NULL element comes back as the text 'NULL', and sql.array(ids) is sent
// as text[], which no ulid[] operator takes. With ulidType(), NULL elements
// are null, `sql.typed.ulid` and `sql.array(ids, oid)` send ulid and ulid[],
// and `parse` decides what a ulid becomes.
//
// Copy this file into your application; it needs postgres itself.

const postgres = require('postgres')

/**
 * The `types` entry for ulid in this database.
 *
 * @param {object|string} options the options (or URL) you give postgres()
 * @param {object} [how]
 * @param {function(string): *} [how.parse] what a ulid becomes; the string
 *   itself by default
 * @param {function(*): string} [how.serialize] how a value is sent; its
 *   String() by default (a ULID string, or any object that prints as one)
 */
async function ulidType (options = {}, { parse = (text) => text, serialize = String } = {}) {
  const probe = typeof options === 'string'
    ? postgres(options, { max: 1, fetch_types: false })
    : postgres({ ...options, max: 1, fetch_types: false })
  try {
    const [{ oid }] = await probe`SELECT 'ulid'::regtype::oid::int4 AS oid`
    // postgres.js hands an array's unquoted NULL to the element parser as
    // the text 'NULL', which no ULID can be
    return { to: oid, from: [oid], parse: (text) => text === 'NULL' ? null : parse(text), serialize }
  } finally {
    await probe.end()
  }
}

module.exports = { ulidType }
