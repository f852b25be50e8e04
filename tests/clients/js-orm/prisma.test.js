'use strict'

// Prisma 7 on @prisma/adapter-pg against the ulid extension, through
// examples/js/prisma-ulid.js. The client is generated from prisma/schema.prisma
// by test_client_js_orm.py (ULID_PRISMA_CLIENT names it); the database comes
// from PGHOST, PGPORT, PGUSER and PGDATABASE.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { PrismaPg } = require('@prisma/adapter-pg')
const { ulid, decodeTime, isValid, ulidToUUID, MIN_ULID, MAX_ULID } = require('ulid')

const { ulidTypeParser, ulidFromTime } = require(path.join(__dirname, '../../../examples/js/prisma-ulid.js'))

const { KNOWN, timeRange, mixed } = require('./samples.js')

assert.ok(process.env.ULID_PRISMA_CLIENT, 'set ULID_PRISMA_CLIENT to the generated client')
const { PrismaClient, Prisma } = require(process.env.ULID_PRISMA_CLIENT)

// What Prisma cannot make: the table, by SQL as a migration would.
const DDL = [
  'DROP TABLE IF EXISTS prisma_events',
  `CREATE TABLE prisma_events (
     id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(),
     name text NOT NULL UNIQUE,
     "parentId" ulid REFERENCES prisma_events,
     related ulid[] NOT NULL DEFAULT '{}')`
]

let prisma
before(async () => {
  prisma = new PrismaClient({ adapter: new PrismaPg({}, { userDefinedTypeParser: ulidTypeParser() }) })
  for (const statement of DDL) await prisma.$executeRawUnsafe(statement)
})
after(() => prisma.$disconnect())

let names = 0
const name = () => `e${++names}`

test('an @id with dbgenerated("gen_monotonic_ulid()") comes back filled, in order', async () => {
  const before = Date.now()
  const first = await prisma.event.create({ data: { name: name() } })
  assert.ok(isValid(first.id), first.id)
  assert.ok(decodeTime(first.id) >= before - 1000 && decodeTime(first.id) <= Date.now() + 1000)

  const more = []
  for (let i = 0; i < 20; i++) more.push((await prisma.event.create({ data: { name: name() } })).id)
  const ids = [first.id, ...more]
  assert.deepEqual([...ids].sort(), ids) // one connection at a time: the order of the inserts
  assert.equal(new Set(ids).size, ids.length)

  const stored = await prisma.$queryRaw`SELECT id::text AS id FROM prisma_events WHERE id = ANY(${ids}::ulid[]) ORDER BY id`
  assert.deepEqual(stored.map((r) => r.id), ids)
})

test('find by id, by several ids, and through a ulid foreign key', async () => {
  const parent = await prisma.event.create({ data: { name: name() } })
  const kids = []
  for (let i = 0; i < 3; i++) kids.push(await prisma.event.create({ data: { name: name(), parentId: parent.id } }))

  assert.deepEqual(await prisma.event.findUnique({ where: { id: parent.id } }), parent)
  // the server reads lower case and the UUID form as the same ulid
  assert.equal((await prisma.event.findUnique({ where: { id: parent.id.toLowerCase() } })).name, parent.name)
  assert.equal((await prisma.event.findUnique({ where: { id: ulidToUUID(parent.id) } })).name, parent.name)
  assert.equal(await prisma.event.findUnique({ where: { id: MAX_ULID } }), null)

  const picked = await prisma.event.findMany({ where: { id: { in: [kids[2].id, kids[0].id] } }, orderBy: { id: 'asc' } })
  assert.deepEqual(picked.map((e) => e.id), [kids[0].id, kids[2].id])

  const withKids = await prisma.event.findUnique({
    where: { id: parent.id }, include: { children: { orderBy: { id: 'desc' } } }
  })
  assert.deepEqual(withKids.children.map((e) => e.id), kids.map((e) => e.id).reverse())
  const kid = await prisma.event.findUnique({ where: { id: kids[1].id }, include: { parent: true } })
  assert.equal(kid.parentId, parent.id)
  assert.deepEqual(kid.parent, parent)
})

test('NULL is null, and a filter on it', async () => {
  const lone = await prisma.event.create({ data: { name: name() } })
  assert.equal(lone.parentId, null)
  const child = await prisma.event.create({ data: { name: name(), parentId: lone.id } })
  const orphans = await prisma.event.findMany({ where: { parentId: null, id: { in: [lone.id, child.id] } } })
  assert.deepEqual(orphans.map((e) => e.id), [lone.id])
  const updated = await prisma.event.update({ where: { id: child.id }, data: { parentId: null } })
  assert.equal(updated.parentId, null)
})

test('ulid[] as String[]: arrays come back as arrays, with ulidTypeParser', async () => {
  const ids = [ulid(), MIN_ULID, MAX_ULID, ulid()]
  const created = await prisma.event.create({ data: { name: name(), related: ids } })
  assert.deepEqual(created.related, ids)
  const empty = await prisma.event.create({ data: { name: name() } })
  assert.deepEqual(empty.related, [])

  const found = await prisma.event.findUnique({ where: { id: created.id } })
  assert.deepEqual(found.related, ids)
  const pushed = await prisma.event.update({ where: { id: created.id }, data: { related: { push: KNOWN } } })
  assert.deepEqual(pushed.related, [...ids, KNOWN])
  const having = await prisma.event.findMany({ where: { related: { has: MAX_ULID } }, select: { id: true } })
  assert.deepEqual(having, [{ id: created.id }])
  // raw queries are parsed too
  const [raw] = await prisma.$queryRaw`SELECT related FROM prisma_events WHERE id = ${created.id}::ulid`
  assert.deepEqual(raw.related, [...ids, KNOWN])
})

test('without ulidTypeParser Prisma cannot read a ulid[] as String[]', async () => {
  const plain = new PrismaClient({ adapter: new PrismaPg({}) })
  try {
    const { id } = await plain.event.create({ data: { name: name() }, select: { id: true } })
    assert.ok(isValid(id)) // single values need nothing
    await assert.rejects(plain.event.findUnique({ where: { id } }))
  } finally {
    await plain.$disconnect()
  }
})

test('time ranges: ulidFromTime is the server\'s timestamptz::ulid', async () => {
  for (const ms of [0, 1, Date.parse('2025-01-01T00:00:00Z'), Date.now(), 2 ** 48 - 1]) {
    const at = new Date(ms)
    const [{ bound }] = await prisma.$queryRaw`SELECT (${at}::timestamptz::ulid)::text AS bound`
    assert.equal(ulidFromTime(at), bound, at.toISOString())
    assert.equal(ulidFromTime(ms), bound)
  }
  assert.throws(() => ulidFromTime(-1), RangeError)
  assert.throws(() => ulidFromTime(2 ** 48), RangeError)

  const start = Date.parse('2024-01-01T00:00:00Z')
  const { inside, outside } = timeRange(start)
  for (const id of [...inside, ...outside]) await prisma.event.create({ data: { id, name: name() } })

  const found = await prisma.event.findMany({
    where: { id: { gte: ulidFromTime(start), lt: ulidFromTime(start + 10) } },
    orderBy: { id: 'asc' }
  })
  assert.deepEqual(found.map((e) => e.id), [...inside].sort())
  const raw = await prisma.$queryRaw`
    SELECT id FROM prisma_events
    WHERE id >= ${new Date(start)}::timestamptz::ulid AND id < ${new Date(start + 10)}::timestamptz::ulid
    ORDER BY id`
  assert.deepEqual(raw.map((r) => r.id), [...inside].sort())
})

test('the ulid package\'s values round-trip, and sort as the server sorts them', async () => {
  const ids = [MIN_ULID, MAX_ULID, KNOWN, ...mixed(30)]
  const made = []
  for (const id of ids) made.push(await prisma.event.create({ data: { id, name: name() }, select: { id: true } }))
  assert.deepEqual(made.map((e) => e.id), ids)
  const back = await prisma.event.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } })
  assert.deepEqual(back.map((e) => e.id), [...ids].sort())
  // a lower-case ULID is stored as the same value
  const lower = ulid()
  const stored = await prisma.event.create({ data: { id: lower.toLowerCase(), name: name() } })
  assert.equal(stored.id, lower)
})

test('bad input is the server\'s 22P02, as a Prisma error', async () => {
  for (const bad of ['8' + '0'.repeat(25), 'not a ulid', KNOWN.slice(1)]) {
    const error = await prisma.event.findUnique({ where: { id: bad } }).then(() => null, (e) => e)
    assert.ok(error instanceof Prisma.PrismaClientKnownRequestError, `${bad}: ${error}`)
    assert.equal(error.code, 'P2007') // Prisma's "data validation error"
    assert.equal(error.meta?.driverAdapterError?.cause?.originalCode, '22P02', `${bad}: ${JSON.stringify(error.meta)}`)
    await assert.rejects(prisma.event.create({ data: { name: name(), related: [bad] } }),
      (e) => e.meta?.driverAdapterError?.cause?.originalCode === '22P02')
  }
})
