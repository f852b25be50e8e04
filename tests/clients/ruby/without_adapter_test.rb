# frozen_string_literal: true

# ActiveRecord (6.1 or 7.2) and ulid columns without
# examples/ruby/ulid_active_record.rb: what users see before they add it.

require_relative "helper"

ClientDatabase.connect
CreateCustomersAndOrders.migrate(:up)

class WithoutAdapterTest < Minitest::Test
  # the same warning from 6.1 and 7.2
  UNKNOWN = /^unknown OID (\d+): failed to recognize type of 'id'\. It will be treated as String\.$/.freeze
  # 7.2 writes the schema's version, and a blank line after each table it
  # could not dump
  DEFINE = AR72 ? "ActiveRecord::Schema[7.2].define(version: 0) do\n" : "ActiveRecord::Schema.define(version: 0) do\n\n"
  AFTER = AR72 ? "\n\n" : "\n"

  def test_reading_a_ulid_column_warns_of_an_unknown_oid
    ClientDatabase.reconnect
    Customer.reset_column_information
    _, err = capture_io { Customer.columns }
    oid = ClientDatabase.connection.select_value("SELECT 'ulid'::regtype::oid")
    assert_match UNKNOWN, err
    assert_equal oid.to_s, err[UNKNOWN, 1]
    assert_nil Customer.columns_hash["id"].type
  end

  def test_create_reads_the_generated_id_back_as_the_26_character_text
    customer = nil
    capture_io { customer = Customer.create!(name: "a") }
    # the newest row: the column's default is gen_monotonic_ulid()
    text = ClientDatabase.connection.select_value("SELECT max(id)::text FROM customers")
    assert_equal text, customer.id
    assert_equal text, Customer.last.id
    assert_match(/\A[0-7][0-9A-HJKMNP-TV-Z]{25}\z/, customer.id)
  end

  def test_schema_rb_cannot_dump_the_tables
    capture_io { ClientDatabase.reconnect }
    schema = nil
    capture_io { schema = ClientDatabase.schema_rb }
    assert_includes schema, DEFINE
    assert_includes schema, %(# Could not dump table "customers" because of following StandardError\n#   Unknown type 'ulid' for column 'id'\n#{AFTER}# Could not dump table "orders")
    assert_includes schema, %(# Could not dump table "orders" because of following StandardError\n#   Unknown type 'ulid' for column 'id'\n#{AFTER}  add_foreign_key)
    refute_includes schema, %(create_table "customers")
    refute_includes schema, %(create_table "orders")
  end

  def test_structure_sql_keeps_the_columns_and_their_defaults
    sql = ClientDatabase.structure_sql
    assert_match(/CREATE TABLE public\.customers \(\n    id public\.ulid DEFAULT public\.gen_monotonic_ulid\(\) NOT NULL,\n    name text\n\);/, sql)
    assert_match(/^    customer_id public\.ulid NOT NULL,$/, sql)
    assert_includes sql, "CREATE EXTENSION IF NOT EXISTS ulid WITH SCHEMA public;"
  end
end
