'use strict'

// Drizzle ORM 0.45 (node-postgres and postgres.js drivers) and drizzle-kit
// against the ulid extension, through examples/js/drizzle-ulid.js. The
// database comes from PGHOST, PGPORT, PGUSER and PGDATABASE.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const pg = require('pg')
const postgres = require('postgres')
const { sql, eq, and, gte, lt, inArray, isNull, arrayContains, asc, desc } = require('drizzle-orm')
const { drizzle } = require('drizzle-orm/node-postgres')
const { drizzle: drizzlePostgresJs } = require('drizzle-orm/postgres-js')
const { pgTable, text } = require('drizzle-orm/pg-core')
const { alias } = require('drizzle-orm/pg-core')
const { generateDrizzleJson, generateMigration, pushSchema } = require('drizzle-kit/api')
const { ulid: newUlid, decodeTime, encodeTime, isValid, ulidToUUID, MIN_ULID, MAX_ULID } = require('ulid')

const { ulid, ulidFromTime } = require(path.join(__dirname, '../../../examples/js/drizzle-ulid.js'))

const { KNOWN, timeRange, mixed } = require('./samples.js')

const events = pgTable('drizzle_events', {
  id: ulid('id').primaryKey().default(sql`gen_monotonic_ulid()`),
  name: text('name').notNull().unique(),
  parentId: ulid('parent_id').references(() => events.id),
  related: ulid('related').array()
})

let pool, db
before(async () => {
  pool = new pg.Pool()
  db = drizzle({ client: pool })
})
after(() => pool.end())

let names = 0
const name = () => `e${++names}`

// Runs first: the other tests use the table it creates.
test('drizzle-kit writes ulid columns, and push then finds nothing to change', async () => {
  const statements = await generateMigration(generateDrizzleJson({}), generateDrizzleJson({ events }))
  const ddl = statements.join('\n')
  // drizzle-kit quotes a type it does not know: "ulid" is the same type
  assert.match(ddl, /"id" "ulid" PRIMARY KEY DEFAULT gen_monotonic_ulid\(\) NOT NULL/, ddl)
  assert.match(ddl, /"parent_id" "ulid",/, ddl)
  assert.match(ddl, /"related" "ulid"\[\]/, ddl)
  assert.match(ddl, /FOREIGN KEY \("parent_id"\) REFERENCES "public"."drizzle_events"\("id"\)/, ddl)
  await db.execute(sql`DROP TABLE IF EXISTS drizzle_events`)
  for (const statement of statements) await db.execute(sql.raw(statement))

  const { rows } = await pool.query(`
    SELECT attname, format_type(atttypid, atttypmod) AS type, pg_get_expr(adbin, adrelid) AS "default"
    FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum
    WHERE attrelid = 'drizzle_events'::regclass AND attnum > 0 ORDER BY attnum`)
  assert.deepEqual(rows, [
    { attname: 'id', type: 'ulid', default: 'gen_monotonic_ulid()' },
    { attname: 'name', type: 'text', default: null },
    { attname: 'parent_id', type: 'ulid', default: null },
    { attname: 'related', type: 'ulid[]', default: null }
  ])

  // push reads the table back and compares it with the schema
  const push = await pushSchema({ events }, db)
  assert.deepEqual(push.statementsToExecute, [])
  assert.equal(push.hasDataLoss, false)
})

test('a gen_monotonic_ulid() default key comes back filled from RETURNING, in order', async () => {
  const before = Date.now()
  const [first] = await db.insert(events).values({ name: name() }).returning()
  assert.ok(isValid(first.id), first.id)
  assert.ok(Math.abs(decodeTime(first.id) - before) < 5000)
  assert.equal(first.parentId, null)
  assert.equal(first.related, null)

  const many = await db.insert(events).values(Array.from({ length: 50 }, () => ({ name: name() })))
    .returning({ id: events.id })
  const ids = [first.id, ...many.map((r) => r.id)]
  assert.deepEqual([...ids].sort(), ids) // one statement, then the next: increasing
  assert.equal(new Set(ids).size, ids.length)
})

test('find by id, by several ids, and through a ulid foreign key', async () => {
  const [parent] = await db.insert(events).values({ name: name() }).returning()
  const kids = await db.insert(events).values([1, 2, 3].map(() => ({ name: name(), parentId: parent.id }))).returning()

  assert.deepEqual(await db.select().from(events).where(eq(events.id, parent.id)), [parent])
  // the server reads lower case and the UUID form as the same ulid
  for (const spelling of [parent.id.toLowerCase(), ulidToUUID(parent.id)]) {
    const [row] = await db.select({ id: events.id }).from(events).where(eq(events.id, spelling))
    assert.equal(row.id, parent.id)
  }
  assert.deepEqual(await db.select().from(events).where(eq(events.id, MAX_ULID)), [])

  const picked = await db.select({ id: events.id }).from(events)
    .where(inArray(events.id, [kids[2].id, kids[0].id])).orderBy(asc(events.id))
  assert.deepEqual(picked.map((r) => r.id), [kids[0].id, kids[2].id])

  const parents = alias(events, 'parents')
  const joined = await db.select({ kid: events.id, parent: parents.id, parentName: parents.name })
    .from(events).innerJoin(parents, eq(events.parentId, parents.id))
    .where(eq(parents.id, parent.id)).orderBy(desc(events.id))
  assert.deepEqual(joined, kids.map((k) => ({ kid: k.id, parent: parent.id, parentName: parent.name })).reverse())
})

test('NULL is null, and isNull finds it', async () => {
  const [lone] = await db.insert(events).values({ name: name(), related: null }).returning()
  const [child] = await db.insert(events).values({ name: name(), parentId: lone.id }).returning()
  const orphans = await db.select({ id: events.id }).from(events)
    .where(and(isNull(events.parentId), inArray(events.id, [lone.id, child.id])))
  assert.deepEqual(orphans, [{ id: lone.id }])
  const [updated] = await db.update(events).set({ parentId: null }).where(eq(events.id, child.id)).returning()
  assert.equal(updated.parentId, null)
})

test('ulid[] columns are arrays both ways, on node-postgres and on postgres.js', async () => {
  const ids = [newUlid(), MIN_ULID, MAX_ULID, KNOWN]
  const [row] = await db.insert(events).values({ name: name(), related: ids }).returning()
  assert.deepEqual(row.related, ids)
  const [empty] = await db.insert(events).values({ name: name(), related: [] }).returning()
  assert.deepEqual(empty.related, [])

  const [found] = await db.select().from(events).where(eq(events.id, row.id))
  assert.deepEqual(found.related, ids)
  const having = await db.select({ id: events.id }).from(events).where(arrayContains(events.related, [KNOWN]))
  assert.deepEqual(having, [{ id: row.id }])

  const client = postgres({ max: 1 })
  try {
    const other = drizzlePostgresJs({ client })
    const [viaPostgresJs] = await other.select().from(events).where(eq(events.id, row.id))
    assert.deepEqual(viaPostgresJs, found)
    const [inserted] = await other.insert(events).values({ name: name(), related: ids.slice(1) }).returning()
    assert.deepEqual(inserted.related, ids.slice(1))
  } finally {
    await client.end()
  }
})

test('time ranges: ulidFromTime is the server\'s timestamptz::ulid', async () => {
  const start = Date.parse('2024-01-01T00:00:00Z')
  const { inside, outside } = timeRange(start)
  await db.insert(events).values([...inside, ...outside].map((id) => ({ id, name: name() })))

  const found = await db.select({ id: events.id }).from(events)
    .where(and(gte(events.id, ulidFromTime(new Date(start))), lt(events.id, ulidFromTime(new Date(start + 10)))))
    .orderBy(asc(events.id))
  assert.deepEqual(found.map((r) => r.id), [...inside].sort())

  const [{ bound }] = await db.select({ bound: ulidFromTime(new Date(start + 5)) }).from(sql`(SELECT 1) AS one`)
  assert.equal(bound, encodeTime(start + 5, 10) + '0'.repeat(16))
  const [{ at }] = await db.select({ at: sql`ulid_timestamp(${events.id})`.mapWith(String) })
    .from(events).where(eq(events.id, inside[2]))
  assert.equal(new Date(at).getTime(), start + 5)
})

test('the ulid package\'s values round-trip, and sort as the server sorts them', async () => {
  const ids = [MIN_ULID, MAX_ULID.toLowerCase(), ...mixed(40)]
  const made = await db.insert(events).values(ids.map((id) => ({ id, name: name() }))).returning({ id: events.id })
  const upper = ids.map((id) => id.toUpperCase())
  assert.deepEqual(made.map((r) => r.id), upper)
  const back = await db.select({ id: events.id }).from(events).where(inArray(events.id, ids)).orderBy(asc(events.id))
  assert.deepEqual(back.map((r) => r.id), [...upper].sort())
})

test('bad input is the server\'s 22P02, in Drizzle\'s query error', async () => {
  for (const bad of ['8' + '0'.repeat(25), 'not a ulid', KNOWN.slice(1)]) {
    const error = await db.select().from(events).where(eq(events.id, bad)).then(() => null, (e) => e)
    assert.ok(error instanceof Error && /Failed query/.test(error.message), `${bad}: ${error}`)
    assert.equal(error.cause?.code, '22P02', `${bad}: ${error.cause}`)
    await assert.rejects(db.insert(events).values({ name: name(), related: [KNOWN, bad] }),
      (e) => e.cause?.code === '22P02')
  }
})
