# frozen_string_literal: true

# What every Ruby client test loads: minitest, ActiveRecord connected to the
# database that PGHOST, PGPORT, PGDATABASE and PGUSER name (the test
# cluster's Unix socket, or 127.0.0.1 from the Debian sid system), and a
# migration that makes the tables of the tests. The adapter is loaded by the
# test files that use it, not here.
#
# The same files run on ActiveRecord 6.1 (Debian 12) and 7.2 (Debian sid),
# written as an application of each version is: a deprecated call raises on
# both, and on 7.2 `ActiveRecord::Base.connection`, which 7.2 replaces with
# `lease_connection` and `with_connection`, is refused.

require "minitest/autorun"
require "stringio"
require "tmpdir"
require "active_record"

ActiveRecord::Migration.verbose = false

# ActiveRecord 7.2 or later, rather than 6.1
AR72 = ActiveRecord.gem_version >= Gem::Version.new("7.2")

if AR72
  ActiveRecord.deprecator.behavior = :raise
  ActiveRecord.permanent_connection_checkout = :disallowed
else
  ActiveSupport::Deprecation.behavior = :raise
end

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

  # The connection of this thread: 7.2's lease_connection, 6.1's connection.
  def self.connection
    AR72 ? ActiveRecord::Base.lease_connection : ActiveRecord::Base.connection
  end

  # A connection with a type map of its own, loaded now.
  def self.reconnect
    ActiveRecord::Base.connection_pool.disconnect!
    connection
  end

  # schema.rb of the database, as `bin/rails db:schema:dump` writes it: 7.2
  # dumps from a connection pool, 6.1 from a connection.
  def self.schema_rb
    io = StringIO.new
    ActiveRecord::SchemaDumper.dump(AR72 ? ActiveRecord::Base.connection_pool : connection, io)
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
# makes them (a migration of the version that runs it: [6.1] or [7.2]);
# `column :id, :ulid` spelled without the adapter's `t.ulid`.
class CreateCustomersAndOrders < ActiveRecord::Migration[ActiveRecord::Migration.current_version]
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
