# frozen_string_literal: true

# What every Ruby client test loads: minitest, ActiveRecord connected to the
# database that PGHOST, PGPORT, PGDATABASE and PGUSER name (the Unix socket
# of the test cluster), and a migration that makes the tables of the tests.
# The adapter is loaded by the test files that use it, not here.

require "minitest/autorun"
require "stringio"
require "tmpdir"
require "active_record"

ActiveRecord::Migration.verbose = false

module ClientDatabase
  CONFIG = {
    adapter: "postgresql",
    host: ENV.fetch("PGHOST"),
    port: Integer(ENV.fetch("PGPORT")),
    database: ENV.fetch("PGDATABASE"),
    username: ENV.fetch("PGUSER"),
  }.freeze

  def self.connect
    ActiveRecord::Base.establish_connection(CONFIG)
  end

  # A connection with a type map of its own, loaded now.
  def self.reconnect
    ActiveRecord::Base.connection_pool.disconnect!
    ActiveRecord::Base.connection
  end

  # schema.rb of the database, as `bin/rails db:schema:dump` writes it.
  def self.schema_rb
    io = StringIO.new
    ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, io)
    io.string
  end

  # structure.sql, as `db:schema:dump` with schema_format = :sql writes it:
  # pg_dump, the first in PATH.
  def self.structure_sql
    Dir.mktmpdir do |dir|
      path = File.join(dir, "structure.sql")
      ActiveRecord::Tasks::DatabaseTasks.structure_dump(CONFIG.transform_keys(&:to_s), path)
      File.read(path)
    end
  end
end

# Customers and their orders, keyed by ulid, as an application's migration
# makes them; `column :id, :ulid` spelled without the adapter's `t.ulid`.
class CreateCustomersAndOrders < ActiveRecord::Migration[6.1]
  def change
    create_table :customers, id: :ulid, default: -> { "gen_monotonic_ulid()" } do |t|
      t.text :name
    end
    create_table :orders, id: :ulid, default: -> { "gen_monotonic_ulid()" } do |t|
      t.column :customer_id, :ulid, null: false
      t.numeric :total
      t.foreign_key :customers
    end
  end
end

class Customer < ActiveRecord::Base
  has_many :orders
end

class Order < ActiveRecord::Base
  belongs_to :customer
end
