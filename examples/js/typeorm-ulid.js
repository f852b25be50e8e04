'use strict'

// TypeORM (1.x, the `postgres` driver on node-postgres) support for the
// PostgreSQL type `ulid`.
//
// TypeORM refuses column types its driver does not list
// (DataTypeNotSupportedError), and node-postgres returns a ulid[] as its
// text, '{01JGFJJZ00XHF7E02JJ03AE4T7,...}'. supportUlid() adds `ulid` to the
// driver's supported types, so schema synchronization creates ulid
// columns (as the tests check; a generated migration should too), and has every pooled connection parse ulid[] into arrays,
// looking the type's OIDs up by name when the connection opens (with
// node-postgres' pool hook `onConnect`). Call it before initialize():
//
//   const { DataSource, EntitySchema } = require('typeorm')
//   const { supportUlid, ulidTimeRange } = require('./typeorm-ulid')
//
//   const Order = new EntitySchema({
//     name: 'Order',
//     columns: {
//       id: { type: 'ulid', primary: true, default: () => 'gen_monotonic_ulid()' },
//       tags: { type: 'ulid', array: true, nullable: true }
//     }
//   })
//   const dataSource = supportUlid(new DataSource({ type: 'postgres', entities: [Order], ... }))
//   await dataSource.initialize()
//   const { id } = await dataSource.getRepository(Order).save({}) // id from RETURNING
//   await dataSource.getRepository(Order).findBy({ id: ulidTimeRange(start, end) })
//
// Values are the 26-character strings; parameters go as text, which the
// server reads as ulids. With decorators, the same options (the tests use
// an EntitySchema): @PrimaryColumn({ type: 'ulid', ... }).
//
// Copy this file into your application; it needs typeorm and pg.

const { Raw } = require('typeorm')

const TEXT_ARRAY_OID = 1009

/**
 * Lets `dataSource` use ulid columns. Call it before initialize().
 *
 * @param {import('typeorm').DataSource} dataSource a `postgres` data source
 * @param {object} [options]
 * @param {function(string): *} [options.parse] what a ulid becomes; the
 *   string itself by default
 * @returns the data source
 */
function supportUlid (dataSource, { parse = (text) => text } = {}) {
  const { driver } = dataSource
  if (dataSource.options.type !== 'postgres') {
    throw new Error(`ulid needs a postgres data source, not ${dataSource.options.type}`)
  }
  if (dataSource.isInitialized) {
    throw new Error('call supportUlid() before initialize(): the pool reads its options then')
  }
  if (!driver.supportedDataTypes.includes('ulid')) driver.supportedDataTypes.push('ulid')

  const extra = dataSource.options.extra || {}
  const onConnect = extra.onConnect
  dataSource.setOptions({
    extra: {
      ...extra,
      // node-postgres' pool awaits this before it hands a new connection out
      onConnect: async (client) => {
        await registerParsers(client, parse)
        if (onConnect) await onConnect(client)
      }
    }
  })
  return dataSource
}

async function registerParsers (client, parse) {
  const { rows: [oids] } = await client.query(
    "SELECT to_regtype('ulid')::oid::int4 AS ulid, to_regtype('ulid[]')::oid::int4 AS array"
  )
  // Not created yet (a migration will): values stay strings and ulid[] text
  // on this connection.
  if (oids.ulid === null) return
  const parseTextArray = client.getTypeParser(TEXT_ARRAY_OID, 'text')
  const parseElements = (value) =>
    Array.isArray(value) ? value.map(parseElements) : value === null ? null : parse(value)
  client.setTypeParser(oids.ulid, 'text', parse)
  client.setTypeParser(oids.array, 'text', (text) => parseElements(parseTextArray(text)))
}

/**
 * A find operator for ids made in [start, end): the bounds are the server's
 * `timestamptz::ulid`, so the id's index serves the query.
 *
 * @param {Date} start
 * @param {Date} end
 */
function ulidTimeRange (start, end) {
  return Raw((id) => `${id} >= (:ulidStart)::timestamptz::ulid AND ${id} < (:ulidEnd)::timestamptz::ulid`, {
    ulidStart: start.toISOString(),
    ulidEnd: end.toISOString()
  })
}

module.exports = { supportUlid, ulidTimeRange }
