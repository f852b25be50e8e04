'use strict'

// node-postgres and the ulid package against a server with the ulid
// extension, and the adapter in examples/js. The database comes from the
// usual PGHOST, PGPORT, PGUSER and PGDATABASE variables.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const pg = require('pg')
const {
  ulid, monotonicFactory, decodeTime, isValid, ulidToUUID, uuidToULID, MIN_ULID, MAX_ULID, TIME_MAX
} = require('ulid')

const { registerUlid } = require(path.join(__dirname, '../../../examples/js/pg-ulid.js'))

// The README's example: 2025-01-01 00:00:00 UTC.
const KNOWN = '01JGFJJZ00XHF7E02JJ03AE4T7'
const KNOWN_HEX = '01941f297c00ec5e7700529006a71347'

assert.ok(process.env.PGDATABASE, 'set PGDATABASE to a database with the ulid extension')

function samples () {
  const ids = [MIN_ULID, MAX_ULID, KNOWN]
  for (let i = 0; i < 100; i++) ids.push(ulid())
  return ids
}

function shuffle (array) {
  for (let i = array.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    const swap = array[i]
    array[i] = array[j]
    array[j] = swap
  }
  return array
}

function toBuffer (id) {
  return Buffer.from(ulidToUUID(id).replace(/-/g, ''), 'hex')
}

let client
before(async () => {
  client = new pg.Client()
  await client.connect()
})
after(() => client.end())

async function connect (t) {
  const c = new pg.Client()
  await c.connect()
  t.after(() => c.end())
  return c
}

// Every test gets a table of its own.
let tables = 0
async function table (columns) {
  const name = `t${++tables}`
  await client.query(`CREATE TEMP TABLE ${name} (${columns})`)
  return name
}

test('the server reads a bytea\'s hex text and the UUID form', async () => {
  const { rows } = await client.query('SELECT $1::ulid::text AS hex, $2::ulid::text AS upper, $3::ulid::text AS lower', [
    '\\x' + KNOWN_HEX, ulidToUUID(KNOWN), ulidToUUID(KNOWN).toLowerCase()
  ])
  assert.deepEqual(rows[0], { hex: KNOWN, upper: KNOWN, lower: KNOWN })
})

test('bad text is 22P02, a binary value of the wrong size 22P03', async () => {
  for (const bad of [
    '01JGFJJZ00XHF7E02JJ03AE4TU', // U is not Crockford base32
    '80000000000000000000000000', // above 128 bits
    '01JGFJJZ00XHF7E02JJ03AE4T', // 25 characters
    '\\x' + KNOWN_HEX.slice(2), // 30 hex digits
    '01941f29-7c00-ec5e-7700-529006a7134' // a UUID one digit short
  ]) {
    await assert.rejects(client.query('SELECT $1::ulid', [bad]), { code: '22P02' }, bad)
  }
  await assert.rejects(client.query('SELECT $1::ulid', [toBuffer(KNOWN).subarray(1)]), { code: '22P03' })
})

test('strings round-trip, in either case, and compare as ulids', async () => {
  const t = await table('n int, id ulid')
  const ids = samples()
  for (const [n, id] of ids.entries()) {
    await client.query(`INSERT INTO ${t} VALUES ($1, $2)`, [n, n % 2 ? id.toLowerCase() : id])
  }
  const { rows } = await client.query(`SELECT id FROM ${t} ORDER BY n`)
  assert.deepEqual(rows.map((r) => r.id), ids)
  assert.ok(rows.every((r) => isValid(r.id)))
  for (const [n, id] of ids.entries()) {
    const found = await client.query(`SELECT n FROM ${t} WHERE id = $1`, [id.toLowerCase()])
    assert.deepEqual(found.rows, [{ n }])
  }
})

test('a Buffer is sent as the 16 bytes, in an array as a bytea\'s hex text', async () => {
  const t = await table('n int, id ulid')
  const ids = samples()
  for (const [n, id] of ids.entries()) {
    await client.query(`INSERT INTO ${t} VALUES ($1, $2)`, [n, toBuffer(id)])
  }
  const { rows } = await client.query(`SELECT id, id::bytea AS raw FROM ${t} ORDER BY n`)
  assert.deepEqual(rows.map((r) => r.id), ids)
  assert.deepEqual(rows.map((r) => r.raw), ids.map(toBuffer))

  // pg writes a Buffer inside an array as \\x and hex digits
  const array = await client.query('SELECT $1::ulid[]::text[] AS ids', [ids.map(toBuffer)])
  assert.deepEqual(array.rows[0].ids, ids)
  // a Uint8Array is sent like a Buffer
  const typed = await client.query('SELECT $1::ulid::text AS id', [new Uint8Array(toBuffer(KNOWN))])
  assert.equal(typed.rows[0].id, KNOWN)
})

test('UUID strings from ulidToUUID are read as the same ulid', async () => {
  const t = await table('n int, id ulid')
  const ids = samples()
  for (const [n, id] of ids.entries()) {
    await client.query(`INSERT INTO ${t} VALUES ($1, $2)`, [n, ulidToUUID(id)])
  }
  const { rows } = await client.query(`SELECT id, id::uuid::text AS uuid FROM ${t} ORDER BY n`)
  assert.deepEqual(rows.map((r) => r.id), ids)
  assert.deepEqual(rows.map((r) => uuidToULID(r.uuid)), ids)
  const found = await client.query(`SELECT n FROM ${t} WHERE id = $1`, [ulidToUUID(KNOWN)])
  assert.deepEqual(found.rows, [{ n: 2 }])
})

test('without registerUlid a ulid is a string and a ulid[] its text', async () => {
  const { rows } = await client.query(`SELECT $1::ulid AS id, ARRAY[$1, $2]::ulid[] AS ids`, [KNOWN, MAX_ULID])
  assert.deepEqual(rows[0], { id: KNOWN, ids: `{${KNOWN},${MAX_ULID}}` })
})

test('registerUlid: arrays become arrays of strings, on that client only', async (t) => {
  const registered = await connect(t)
  await registerUlid(registered)
  const ids = samples()
  const query = `SELECT $1::ulid[] AS ids, $2::ulid[] AS nested, '{}'::ulid[] AS empty, $3::ulid AS id`
  const params = [ids, [[KNOWN, null], [MIN_ULID, MAX_ULID]], KNOWN]
  const { rows } = await registered.query(query, params)
  assert.deepEqual(rows[0], {
    ids, nested: [[KNOWN, null], [MIN_ULID, MAX_ULID]], empty: [], id: KNOWN
  })
  const other = await client.query(query, params)
  assert.equal(typeof other.rows[0].ids, 'string')
})

test('registerUlid: parse decides what a ulid becomes, in arrays too', async (t) => {
  const registered = await connect(t)
  await registerUlid(registered, { parse: (id) => ({ id, time: new Date(decodeTime(id)) }) })
  const { rows } = await registered.query('SELECT $1::ulid AS id, ARRAY[$1, NULL]::ulid[] AS ids', [KNOWN])
  const parsed = { id: KNOWN, time: new Date('2025-01-01T00:00:00Z') }
  assert.deepEqual(rows[0], { id: parsed, ids: [parsed, null] })
})

test('monotonic values round-trip and sort in the order they were made', async () => {
  const t = await table('n int, id ulid')
  const next = monotonicFactory()
  const start = Date.now()
  const ids = []
  for (let i = 0; i < 1000; i++) ids.push(next(start + Math.floor(i / 100))) // 100 per millisecond
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i]} after ${ids[i - 1]}`)

  const order = shuffle(ids.map((_, n) => n))
  await client.query(`INSERT INTO ${t} SELECT * FROM unnest($1::int[], $2::ulid[])`, [order, order.map((n) => ids[n])])
  const { rows } = await client.query(`SELECT n, id FROM ${t} ORDER BY id`)
  assert.deepEqual(rows.map((r) => r.id), ids)
  assert.deepEqual(rows.map((r) => r.n), ids.map((_, n) => n))
})

test('decodeTime agrees with ulid_timestamp over the whole range', async () => {
  const t = await table('id ulid')
  const ids = samples()
  for (let i = 0; i < 500; i++) ids.push(ulid(1 + Math.floor(Math.random() * TIME_MAX)))
  await client.query(`INSERT INTO ${t} SELECT unnest($1::ulid[])`, [ids])
  const { rows } = await client.query(
    `SELECT id, (extract(epoch FROM ulid_timestamp(id)) * 1000)::bigint::text AS ms FROM ${t} ORDER BY id`
  )
  assert.equal(rows.length, ids.length)
  // the string order of ULIDs is their order
  assert.deepEqual(rows.map((r) => r.id), [...ids].sort())
  for (const { id, ms } of rows) assert.equal(Number(ms), decodeTime(id), id)

  // and the Date node-postgres makes of a timestamptz is decodeTime's
  const now = ulid()
  const { rows: [row] } = await client.query('SELECT ulid_timestamp($1) AS ts', [now])
  assert.equal(row.ts.getTime(), decodeTime(now))
})
