'use strict'

// Registering in pg.types changes every client of the process: this runs in
// a process of its own (node --test runs each file in one).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const pg = require('pg')
const { ulid } = require('ulid')

const { registerUlid } = require(path.join(__dirname, '../../../examples/js/pg-ulid.js'))

test('registered in pg.types, the parsers serve every client of a pool', async () => {
  const pool = new pg.Pool({ max: 3 })
  try {
    await registerUlid(pool, { types: pg.types })
    const ids = Array.from({ length: 20 }, () => ulid())
    const results = await Promise.all(
      Array.from({ length: 6 }, () => pool.query('SELECT $1::ulid[] AS ids, pg_backend_pid() AS pid', [ids]))
    )
    for (const { rows } of results) assert.deepEqual(rows[0].ids, ids)
    assert.ok(new Set(results.map(({ rows }) => rows[0].pid)).size > 1, 'the queries used several connections')
  } finally {
    await pool.end()
  }
})
