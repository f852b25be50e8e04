# frozen_string_literal: true

# The `ulid` type of the PostgreSQL extension for ActiveRecord 6.1 (Debian 12's
# ruby-activerecord) and 7.2 (Debian sid's): copy this file beside your code
# and require it after active_record, before the first connection (in a
# Rails application, from config/initializers/).
#
# Without it ActiveRecord reads a ulid column as an unknown type: it warns
# "unknown OID N: failed to recognize type of 'id'. It will be treated as
# String." and schema.rb cannot dump the table ("Unknown type 'ulid'").
# With it:
#   - the PostgreSQL adapter's type map knows `ulid` by name, so it maps the
#     type's OID (which differs between databases) when it loads its types,
#     and `ulid[]` becomes an array of ULIDs;
#   - a ulid attribute is the 26-character text form in upper case; it takes
#     that form in either case, the uuid text form or the 16 raw bytes, and
#     refuses anything else with an ArgumentError rather than querying for
#     NULL;
#   - migrations take `t.ulid :name` (and `t.column :name, :ulid`), and
#     schema.rb writes the type, `t.ulid` and `id: :ulid`, so it loads again.
#
# Values go to the server as text, which its input function reads (the
# extension's docs/reference.md, "On the wire").

require "active_record"
require "active_record/connection_adapters/postgresql_adapter"

module UlidActiveRecord
  CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
  TEXT = /\A[0-7][0-9A-HJKMNP-TV-Z]{25}\z/i.freeze
  UUID = /\A\h{8}-\h{4}-\h{4}-\h{4}-\h{12}\z/.freeze

  # The 26-character text of 16 bytes: the 128-bit number in base 32, most
  # significant digit first (the first digit holds 3 bits).
  def self.encode(bytes)
    hi, lo = bytes.unpack("Q>Q>")
    n = (hi << 64) | lo
    (0...26).map { |i| CROCKFORD[(n >> (5 * (25 - i))) & 31] }.join
  end

  # The 16 bytes of a text form the server accepts.
  def self.decode(text)
    raise ArgumentError, "not a ULID: #{text.inspect}" unless text.is_a?(String) && TEXT.match?(text)

    n = text.upcase.each_char.reduce(0) { |acc, c| (acc << 5) | CROCKFORD.index(c) }
    [n >> 64, n & 0xFFFF_FFFF_FFFF_FFFF].pack("Q>Q>")
  end

  class Type < ActiveModel::Type::Value
    def type
      :ulid
    end

    # What a value read from the database or assigned by the application
    # becomes: the canonical text, or nil.
    def cast_value(value)
      case value
      when TEXT then value.upcase
      when UUID then UlidActiveRecord.encode([value.delete("-")].pack("H*"))
      when String
        if value.encoding == Encoding::BINARY && value.bytesize == 16
          UlidActiveRecord.encode(value)
        else
          raise ArgumentError, "not a ULID: #{value.inspect}"
        end
      else
        raise ArgumentError, "not a ULID: #{value.inspect}"
      end
    end

    def serialize(value)
      value.nil? ? nil : cast(value)
    end
  end

  # ActiveRecord 7.2 keeps the adapter's native types and builds its type map
  # in class methods, which each connection's type map starts from.
  module AdapterClassTypes
    def native_database_types
      @ulid_native_database_types ||= super.merge(ulid: { name: "ulid" }).freeze
    end

    # Registered by name: load_additional_types maps each OID whose typname
    # is a key of the type map, and builds `ulid[]` on it.
    def initialize_type_map(m)
      super
      m.register_type "ulid", Type.new
    end
  end

  # ActiveRecord 6.1: the same, in instance methods.
  module AdapterTypes
    def native_database_types
      @ulid_native_database_types ||= super.merge(ulid: { name: "ulid" }).freeze
    end

    private

    def initialize_type_map(m = type_map)
      super
      m.register_type "ulid", Type.new
    end
  end

  # `t.ulid :customer_id` in create_table and change_table.
  module ColumnMethods
    def ulid(*names, **options)
      names.each { |name| column(name, :ulid, **options) }
    end
  end
end

# the class methods where the adapter has them (7.2), else the instance
# methods (6.1)
if ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.respond_to?(:initialize_type_map)
  ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.singleton_class.prepend(UlidActiveRecord::AdapterClassTypes)
else
  ActiveRecord::ConnectionAdapters::PostgreSQLAdapter.prepend(UlidActiveRecord::AdapterTypes)
end
ActiveRecord::ConnectionAdapters::PostgreSQL::TableDefinition.include(UlidActiveRecord::ColumnMethods)
ActiveRecord::ConnectionAdapters::PostgreSQL::Table.include(UlidActiveRecord::ColumnMethods)
# `attribute :ref, :ulid` on a model
ActiveRecord::Type.register(:ulid, UlidActiveRecord::Type, adapter: :postgresql)
