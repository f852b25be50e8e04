# frozen_string_literal: true

# ruby-pg (the pg gem) and ulid with no setup: the text form and the binary
# form of a value are the same ULID, both ways.

require "minitest/autorun"
require "pg"
require "ulid_active_record" # only for its codec, UlidActiveRecord.encode and .decode

class PgTest < Minitest::Test
  VALUES = %w[00000000000000000000000000 01JGFJJZ00XHF7E02JJ03AE4T7 7ZZZZZZZZZZZZZZZZZZZZZZZZZ].freeze

  def setup
    @conn = PG.connect # PGHOST, PGPORT, PGDATABASE, PGUSER
    @conn.exec("CREATE TEMP TABLE t (n int, id ulid)")
    @conn.exec("INSERT INTO t SELECT n, gen_monotonic_ulid() FROM generate_series(1, 200) n")
    VALUES.each_with_index { |v, i| @conn.exec_params("INSERT INTO t VALUES ($1, $2)", [-3 + i, v]) }
  end

  def teardown
    @conn.close
  end

  def test_text_and_binary_results_are_the_same_ulid
    text = @conn.exec("SELECT id FROM t ORDER BY n").values.flatten
    binary = @conn.exec_params("SELECT id FROM t ORDER BY n", [], 1).values.flatten
    assert_equal 203, text.size
    assert_equal VALUES, text.first(3)
    binary.each { |b| assert_equal [Encoding::BINARY, 16], [b.encoding, b.bytesize] }
    assert_equal text, binary.map { |b| UlidActiveRecord.encode(b) }
    assert_equal binary, text.map { |t| UlidActiveRecord.decode(t) }
    assert_equal ["\x00".b * 16, "\xff".b * 16], [binary[0], binary[2]]
  end

  def test_binary_bytes_are_the_uuid_bytes
    rows = @conn.exec_params("SELECT id, id::uuid FROM t ORDER BY n", [], 1).values
    rows.each { |id, uuid| assert_equal id, uuid }
    uuid = @conn.exec("SELECT id::uuid FROM t WHERE n = -2").getvalue(0, 0)
    assert_equal uuid.delete("-"), UlidActiveRecord.decode(VALUES[1]).unpack1("H*")
    # a uuid's text as a parameter is the same ULID
    assert_equal [["-2"]], @conn.exec_params("SELECT n FROM t WHERE id = $1", [uuid]).values
  end

  def test_a_binary_parameter_is_read_as_the_16_bytes
    oid = @conn.exec("SELECT 'ulid'::regtype::oid").getvalue(0, 0).to_i
    bytes = UlidActiveRecord.decode(VALUES[1])
    res = @conn.exec_params("SELECT n, $1::ulid::text FROM t WHERE id = $1",
                            [{ value: bytes, type: oid, format: 1 }])
    assert_equal [["-2", VALUES[1]]], res.values
  end

  def test_ordering_by_id_is_byte_order
    text = @conn.exec("SELECT id FROM t ORDER BY id").values.flatten
    binary = @conn.exec_params("SELECT id FROM t ORDER BY id", [], 1).values.flatten
    assert_equal binary.sort, binary
    assert_equal text.sort, text
    monotonic = @conn.exec("SELECT id FROM t WHERE n > 0 ORDER BY n").values.flatten
    assert_equal monotonic.sort, monotonic
    assert_equal 200, monotonic.uniq.size
  end

  def test_lower_case_text_is_read_and_bad_text_is_an_error
    res = @conn.exec_params("SELECT n FROM t WHERE id = $1", [VALUES[1].downcase])
    assert_equal [["-2"]], res.values
    error = assert_raises(PG::InvalidTextRepresentation) { @conn.exec_params("SELECT $1::ulid", ["8ZZZZZZZZZZZZZZZZZZZZZZZZZ"]) }
    assert_match(/ulid/, error.message)
  end
end
