'use strict'

// TypeORM 1.x (postgres driver, node-postgres) against the ulid extension,
// through examples/js/typeorm-ulid.js. The database comes from PGHOST,
// PGPORT, PGUSER and PGDATABASE.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { DataSource, EntitySchema, In, IsNull, QueryFailedError } = require('typeorm')
const { ulid, decodeTime, isValid, ulidToUUID, MIN_ULID, MAX_ULID } = require('ulid')

const { supportUlid, ulidTimeRange } = require(path.join(__dirname, '../../../examples/js/typeorm-ulid.js'))

const { KNOWN, timeRange, mixed } = require('./samples.js')

const Event = new EntitySchema({
  name: 'Event',
  tableName: 'typeorm_events',
  columns: {
    id: { type: 'ulid', primary: true, default: () => 'gen_monotonic_ulid()' },
    name: { type: 'text', unique: true },
    related: { type: 'ulid', array: true, nullable: true }
  },
  relations: {
    parent: { type: 'many-to-one', target: 'Event', nullable: true, joinColumn: { name: 'parent_id' }, inverseSide: 'children' },
    children: { type: 'one-to-many', target: 'Event', inverseSide: 'parent' }
  }
})

function options (more = {}) {
  return {
    type: 'postgres',
    host: process.env.PGHOST,
    port: Number(process.env.PGPORT),
    username: process.env.PGUSER,
    database: process.env.PGDATABASE,
    entities: [Event],
    poolSize: 3,
    ...more
  }
}

let dataSource, events
before(async () => {
  dataSource = supportUlid(new DataSource(options({ synchronize: true, dropSchema: true })))
  await dataSource.initialize()
  events = dataSource.getRepository(Event)
})
after(() => dataSource.destroy())

let names = 0
const name = () => `e${++names}`

test('without supportUlid TypeORM refuses the type', async () => {
  const plain = new DataSource(options())
  await assert.rejects(plain.initialize(), { name: 'DataTypeNotSupportedError' })
})

test('schema synchronization makes ulid columns, and finds nothing to change after', async () => {
  const columns = await dataSource.query(`
    SELECT attname, format_type(atttypid, atttypmod) AS type, pg_get_expr(adbin, adrelid) AS "default"
    FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
    WHERE attrelid = 'typeorm_events'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attname`)
  assert.deepEqual(columns, [
    { attname: 'id', type: 'ulid', default: 'gen_monotonic_ulid()' },
    { attname: 'name', type: 'text', default: null },
    { attname: 'parent_id', type: 'ulid', default: null },
    { attname: 'related', type: 'ulid[]', default: null }
  ])
  const pending = await dataSource.driver.createSchemaBuilder().log()
  assert.deepEqual(pending.upQueries.map((q) => q.query), [])
})

test('a gen_monotonic_ulid() default key comes back filled from RETURNING, in order', async () => {
  const before = Date.now()
  const first = await events.save({ name: name() })
  assert.ok(isValid(first.id), first.id)
  assert.ok(Math.abs(decodeTime(first.id) - before) < 5000)

  const many = await events.save(Array.from({ length: 30 }, () => ({ name: name() })))
  const ids = [first.id, ...many.map((e) => e.id)]
  assert.ok(ids.every(isValid))
  assert.deepEqual([...ids].sort(), ids)
  assert.equal(new Set(ids).size, ids.length)
  const { identifiers } = await events.insert({ name: name() })
  assert.ok(isValid(identifiers[0].id) && identifiers[0].id > ids.at(-1))
})

test('find by id, by several ids, and through a ulid foreign key', async () => {
  const parent = await events.save({ name: name() })
  const kids = await events.save([1, 2, 3].map(() => ({ name: name(), parent })))

  const found = await events.findOneBy({ id: parent.id })
  assert.deepEqual({ ...found }, { id: parent.id, name: parent.name, related: null })
  for (const spelling of [parent.id.toLowerCase(), ulidToUUID(parent.id)]) {
    assert.equal((await events.findOneBy({ id: spelling })).id, parent.id)
  }
  assert.equal(await events.findOneBy({ id: MAX_ULID }), null)

  const picked = await events.find({ where: { id: In([kids[2].id, kids[0].id]) }, order: { id: 'ASC' } })
  assert.deepEqual(picked.map((e) => e.id), [kids[0].id, kids[2].id])

  const withKids = await events.findOne({ where: { id: parent.id }, relations: { children: true }, order: { children: { id: 'DESC' } } })
  assert.deepEqual(withKids.children.map((e) => e.id), kids.map((k) => k.id).reverse())
  const kid = await events.findOne({ where: { id: kids[1].id }, relations: { parent: true } })
  assert.equal(kid.parent.id, parent.id)
  const byParent = await events.find({ where: { parent: { id: parent.id } }, order: { id: 'ASC' } })
  assert.deepEqual(byParent.map((e) => e.id), kids.map((k) => k.id))
})

test('NULL is null, and IsNull finds it', async () => {
  const lone = await events.save({ name: name(), related: null })
  const child = await events.save({ name: name(), parent: lone })
  const orphans = await events.find({ where: { parent: IsNull(), id: In([lone.id, child.id]) } })
  assert.deepEqual(orphans.map((e) => e.id), [lone.id])
  assert.equal((await events.findOneBy({ id: lone.id })).related, null)
})

test('ulid[] columns come back as arrays, on every pooled connection', async () => {
  const ids = [ulid(), MIN_ULID, MAX_ULID, KNOWN]
  const saved = await events.save({ name: name(), related: ids })
  const empty = await events.save({ name: name(), related: [] })
  assert.deepEqual((await events.findOneBy({ id: saved.id })).related, ids)
  assert.deepEqual((await events.findOneBy({ id: empty.id })).related, [])

  // as many at once as the pool has connections, so each one is used
  const reads = await Promise.all(Array.from({ length: 6 }, () =>
    dataSource.query('SELECT related, ARRAY[id, NULL] AS pair, pg_sleep(0.05) FROM typeorm_events WHERE id = $1', [saved.id])))
  for (const [row] of reads) {
    assert.deepEqual(row.related, ids)
    assert.deepEqual(row.pair, [saved.id, null])
  }
  const having = await events.createQueryBuilder('e').select('e.id', 'id')
    .where('e.related @> ARRAY[:known]::ulid[]', { known: KNOWN }).getRawMany()
  assert.deepEqual(having, [{ id: saved.id }])
})

test('time ranges: ulidTimeRange bounds are timestamptz::ulid', async () => {
  const start = Date.parse('2024-01-01T00:00:00Z')
  const { inside, outside } = timeRange(start)
  await events.insert([...inside, ...outside].map((id) => ({ id, name: name() })))

  const found = await events.find({ where: { id: ulidTimeRange(new Date(start), new Date(start + 10)) }, order: { id: 'ASC' } })
  assert.deepEqual(found.map((e) => e.id), [...inside].sort())
  const viaBuilder = await events.createQueryBuilder('e')
    .where('e.id >= (:start)::timestamptz::ulid AND e.id < (:end)::timestamptz::ulid',
      { start: new Date(start + 5), end: new Date(start + 10) })
    .orderBy('e.id').getMany()
  assert.deepEqual(viaBuilder.map((e) => e.id), inside.slice(2))
})

test('the ulid package\'s values round-trip, and sort as the server sorts them', async () => {
  const ids = [MIN_ULID, MAX_ULID.toLowerCase(), ...mixed(40)]
  await events.insert(ids.map((id) => ({ id, name: name() })))
  const upper = ids.map((id) => id.toUpperCase())
  const back = await events.find({ where: { id: In(ids) }, order: { id: 'ASC' } })
  assert.deepEqual(back.map((e) => e.id), [...upper].sort())
})

test('bad input is the server\'s 22P02, as a QueryFailedError', async () => {
  for (const bad of ['8' + '0'.repeat(25), 'not a ulid', KNOWN.slice(1)]) {
    const error = await events.findOneBy({ id: bad }).then(() => null, (e) => e)
    assert.ok(error instanceof QueryFailedError, `${bad}: ${error}`)
    assert.equal(error.driverError.code, '22P02')
    await assert.rejects(events.insert({ name: name(), related: [KNOWN, bad] }),
      (e) => e instanceof QueryFailedError && e.driverError.code === '22P02')
  }
})
