'use strict'

// postgres.js (npm `postgres`) against the ulid extension, through
// examples/js/postgres-js-ulid.js. The database comes from PGHOST, PGPORT,
// PGUSER and PGDATABASE.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const postgres = require('postgres')
const { ulid, decodeTime, isValid, ulidToUUID, MIN_ULID, MAX_ULID } = require('ulid')

const { ulidType } = require(path.join(__dirname, '../../../examples/js/postgres-js-ulid.js'))

const { KNOWN, timeRange, mixed } = require('./samples.js')

let sql
before(async () => {
  sql = postgres({ max: 2, onnotice: () => {}, types: { ulid: await ulidType() } })
  await sql`DROP TABLE IF EXISTS pgjs_events`
  await sql`CREATE TABLE pgjs_events (
    id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
    name text NOT NULL UNIQUE,
    parent_id ulid REFERENCES pgjs_events,
    related ulid[])`
})
after(() => sql.end())

let names = 0
const name = () => `e${++names}`

test('ulidType looks the OID up by name, and the type is ulid', async () => {
  const [{ oid }] = await sql`SELECT 'ulid'::regtype::oid::int4 AS oid`
  assert.equal(sql.options.types.ulid.to, oid)
  assert.deepEqual(sql.options.types.ulid.from, [oid])
  const [{ type }] = await sql`SELECT pg_typeof(${sql.typed.ulid(KNOWN)})::text AS type`
  assert.equal(type, 'ulid')
  // a URL works as well as options
  const url = `postgres://${process.env.PGUSER}@127.0.0.1:${process.env.PGPORT}/${process.env.PGDATABASE}`
  assert.equal((await ulidType(url)).to, oid)
})

test('a gen_monotonic_ulid() default key comes back filled from RETURNING, in order', async () => {
  const before = Date.now()
  const [first] = await sql`INSERT INTO pgjs_events ${sql({ name: name() })} RETURNING *`
  assert.ok(isValid(first.id), first.id)
  assert.ok(Math.abs(decodeTime(first.id) - before) < 5000)
  assert.deepEqual({ parent: first.parent_id, related: first.related }, { parent: null, related: null })

  const many = await sql`INSERT INTO pgjs_events ${sql(Array.from({ length: 50 }, () => ({ name: name() })))} RETURNING id`
  const ids = [first.id, ...many.map((r) => r.id)]
  assert.deepEqual([...ids].sort(), ids)
  assert.equal(new Set(ids).size, ids.length)
})

test('find by id, by several ids, and through a ulid foreign key', async () => {
  const [parent] = await sql`INSERT INTO pgjs_events ${sql({ name: name() })} RETURNING *`
  const kids = await sql`INSERT INTO pgjs_events ${sql([1, 2, 3].map(() => ({ name: name(), parent_id: parent.id })))} RETURNING id`

  assert.deepEqual([...await sql`SELECT * FROM pgjs_events WHERE id = ${parent.id}`], [parent])
  assert.deepEqual([...await sql`SELECT * FROM pgjs_events WHERE id = ${sql.typed.ulid(parent.id)}`], [parent])
  for (const spelling of [parent.id.toLowerCase(), ulidToUUID(parent.id)]) {
    const [row] = await sql`SELECT id FROM pgjs_events WHERE id = ${spelling}`
    assert.equal(row.id, parent.id)
  }
  assert.equal((await sql`SELECT 1 FROM pgjs_events WHERE id = ${MAX_ULID}`).count, 0)

  const wanted = [kids[2].id, kids[0].id]
  const viaIn = await sql`SELECT id FROM pgjs_events WHERE id IN ${sql(wanted)} ORDER BY id`
  const viaAny = await sql`SELECT id FROM pgjs_events WHERE id = ANY(${sql.array(wanted, sql.options.types.ulid.to)}) ORDER BY id`
  assert.deepEqual(viaIn.map((r) => r.id), [kids[0].id, kids[2].id])
  assert.deepEqual(viaAny.map((r) => r.id), [kids[0].id, kids[2].id])

  const joined = await sql`
    SELECT k.id, p.name FROM pgjs_events k JOIN pgjs_events p ON k.parent_id = p.id
    WHERE p.id = ${parent.id} ORDER BY k.id DESC`
  assert.deepEqual(joined.map((r) => [r.id, r.name]), kids.map((k) => [k.id, parent.name]).reverse())
})

test('NULL is null both ways', async () => {
  const [row] = await sql`INSERT INTO pgjs_events ${sql({ name: name(), parent_id: null, related: null })} RETURNING *`
  assert.equal(row.parent_id, null)
  assert.equal(row.related, null)
  const [{ id, ids }] = await sql`SELECT ${sql.typed.ulid(null)} AS id, ARRAY[NULL, ${KNOWN}]::ulid[] AS ids`
  assert.equal(id, null)
  assert.deepEqual(ids, [null, KNOWN])
})

test('ulid[] is an array both ways, NULL elements included', async () => {
  const ids = [ulid(), MIN_ULID, MAX_ULID, KNOWN]
  const [row] = await sql`INSERT INTO pgjs_events ${sql({ name: name(), related: ids })} RETURNING related`
  assert.deepEqual(row.related, ids)
  const [found] = await sql`SELECT related FROM pgjs_events WHERE related @> ${sql.array([KNOWN], sql.options.types.ulid.to)}`
  assert.deepEqual(found.related, ids)
  const [{ typed, nested }] = await sql`
    SELECT ${sql.array(ids, sql.options.types.ulid.to)} AS typed, ${`{{${KNOWN},NULL},{NULL,"${MAX_ULID}"}}`}::ulid[] AS nested`
  assert.deepEqual(typed, ids)
  assert.deepEqual(nested, [[KNOWN, null], [null, MAX_ULID]])
  const [withNull] = await sql`INSERT INTO pgjs_events ${sql({ name: name(), related: [null, KNOWN] })} RETURNING related`
  assert.deepEqual(withNull.related, [null, KNOWN])
})

test('without ulidType: NULL elements read as the text NULL, untyped arrays are text[]', async () => {
  const plain = postgres({ max: 1 })
  try {
    const [row] = await plain`SELECT ARRAY[${KNOWN}::ulid, NULL] AS ids`
    assert.deepEqual(row.ids, [KNOWN, 'NULL'])
    await assert.rejects(plain`SELECT ${plain.array([KNOWN])}::text[] @> ARRAY[${KNOWN}::ulid]`, { code: '42883' })
  } finally {
    await plain.end()
  }
})

test('parse decides what a ulid becomes, in arrays too', async () => {
  const parse = (id) => ({ id, time: new Date(decodeTime(id)) })
  const custom = postgres({ max: 1, types: { ulid: await ulidType({}, { parse }) } })
  try {
    const [row] = await custom`SELECT ${custom.typed.ulid(KNOWN)} AS id, ARRAY[${KNOWN}, NULL]::ulid[] AS ids`
    const parsed = { id: KNOWN, time: new Date('2025-01-01T00:00:00Z') }
    assert.deepEqual(row, { id: parsed, ids: [parsed, null] })
  } finally {
    await custom.end()
  }
})

test('time ranges with timestamptz::ulid bounds', async () => {
  const start = Date.parse('2024-01-01T00:00:00Z')
  const { inside, outside } = timeRange(start)
  await sql`INSERT INTO pgjs_events ${sql([...inside, ...outside].map((id) => ({ id, name: name() })))}`

  const found = await sql`
    SELECT id FROM pgjs_events
    WHERE id >= ${new Date(start)}::timestamptz::ulid AND id < ${new Date(start + 10)}::timestamptz::ulid
    ORDER BY id`
  assert.deepEqual(found.map((r) => r.id), [...inside].sort())
  const [{ at }] = await sql`SELECT ulid_timestamp(${inside[2]}) AS at`
  assert.equal(at.getTime(), start + 5)
})

test('the ulid package\'s values round-trip, and sort as the server sorts them', async () => {
  const ids = [MIN_ULID, MAX_ULID.toLowerCase(), ...mixed(40)]
  const made = await sql`INSERT INTO pgjs_events ${sql(ids.map((id) => ({ id, name: name() })))} RETURNING id`
  const upper = ids.map((id) => id.toUpperCase())
  assert.deepEqual(made.map((r) => r.id), upper)
  const back = await sql`SELECT id FROM pgjs_events WHERE id IN ${sql(ids)} ORDER BY id`
  assert.deepEqual(back.map((r) => r.id), [...upper].sort())
})

test('bad input is the server\'s 22P02, as a PostgresError', async () => {
  for (const bad of ['8' + '0'.repeat(25), 'not a ulid', KNOWN.slice(1)]) {
    await assert.rejects(sql`SELECT * FROM pgjs_events WHERE id = ${bad}`,
      (e) => e instanceof postgres.PostgresError && e.code === '22P02')
    await assert.rejects(sql`SELECT ${sql.typed.ulid(bad)}`, { code: '22P02' })
    await assert.rejects(sql`INSERT INTO pgjs_events ${sql({ name: name(), related: [KNOWN, bad] })}`,
      { name: 'PostgresError', code: '22P02' })
  }
})
