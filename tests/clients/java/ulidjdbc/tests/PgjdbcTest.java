/*
 * pgjdbc and the ulid type: what works without an adapter, what needs
 * stringtype=unspecified, and the adapter users copy (examples/java/ulidjdbc),
 * in text mode, past prepareThreshold and in binary mode. Every value read
 * is compared with the same ULID's 26-character text, its 16 bytes and its
 * uuid, written out here, not computed by the code under test.
 */
package ulidjdbc.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.postgresql.util.PGobject;
import org.postgresql.util.PSQLException;

import ulidjdbc.PgUlid;

class PgjdbcTest {
    static final String TEXT = "01JGFJJZ00XHF7E02JJ03AE4T7";
    static final byte[] BYTES = HexFormat.of().parseHex("01941f297c00ec5e7700529006a71347");
    static final UUID AS_UUID = UUID.fromString("01941f29-7c00-ec5e-7700-529006a71347");
    static final String READ_ALL = "SELECT id, id, id, id::uuid, id::bytea, id FROM (SELECT ?::ulid AS id) t";

    /** The six columns of READ_ALL read as String, PGobject, the adapter, UUID, bytes of id::bytea, bytes of id. */
    record Read(String text, PGobject object, Object adapted, UUID uuid, byte[] bytea, byte[] raw) {}

    static Read readAll(PreparedStatement ps) throws SQLException {
        ps.setString(1, TEXT);
        try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            return new Read(rs.getString(1), (PGobject) rs.getObject(2), rs.getObject(3),
                rs.getObject(4, UUID.class), rs.getBytes(5), rs.getBytes(6));
        }
    }

    /** How many of the connection's statements are READ_ALL prepared on the server. */
    static int serverPrepared(Connection conn) throws SQLException {
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_prepared_statements"
                 + " WHERE statement LIKE 'SELECT id, id, id, id::uuid, id::bytea, id FROM (SELECT $1::ulid%'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static void assertSameUlid(Read r) {
        assertEquals(TEXT, r.text());
        assertEquals("ulid", r.object().getType());
        assertEquals(TEXT, r.object().getValue());
        assertEquals(AS_UUID, r.uuid());
        assertArrayEquals(BYTES, r.bytea());
    }

    @Test
    void adapterConvertsTextBytesAndUuid() {
        PgUlid u = PgUlid.of(TEXT);
        assertEquals(TEXT, u.getValue());
        assertArrayEquals(BYTES, u.toByteArray());
        assertEquals(AS_UUID, u.toUuid());
        assertEquals(u, PgUlid.fromUuid(AS_UUID));
        assertEquals(u, PgUlid.fromBytes(BYTES));
        assertEquals(u, PgUlid.of(TEXT.toLowerCase()));
        assertEquals(1735689600000L, u.timestamp());
        assertThrows(IllegalArgumentException.class, () -> PgUlid.of("81JGFJJZ00XHF7E02JJ03AE4T7"));
        assertThrows(IllegalArgumentException.class, () -> PgUlid.of("01JGFJJZ00XHF7E02JJ03AE4TU"));
        assertThrows(IllegalArgumentException.class, () -> PgUlid.of(TEXT + "0"));
    }

    @Test
    void insertDefaultReturning() throws SQLException {
        try (Connection conn = Db.connect()) {
            PgUlid.register(conn);
            Db.table(conn, "returning_orders");
            List<PgUlid> ids = new ArrayList<>();
            try (PreparedStatement ps = conn.prepareStatement(
                    "INSERT INTO returning_orders (total) VALUES (?) RETURNING id")) {
                for (int i = 0; i < 3; i++) {
                    ps.setBigDecimal(1, new java.math.BigDecimal("9.99"));
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        PgUlid id = assertInstanceOf(PgUlid.class, rs.getObject(1));
                        assertEquals(rs.getString(1), id.getValue());
                        assertTrue(rs.getString(1).matches("[0-7][0-9A-HJKMNP-TV-Z]{25}"), rs.getString(1));
                        ids.add(id);
                    }
                }
            }
            // gen_monotonic_ulid(): each one above the one before
            assertTrue(ids.get(0).compareTo(ids.get(1)) < 0 && ids.get(1).compareTo(ids.get(2)) < 0, ids.toString());
            try (PreparedStatement ps = conn.prepareStatement("SELECT total FROM returning_orders WHERE id = ?")) {
                ps.setObject(1, ids.get(1));
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals("9.99", rs.getBigDecimal(1).toPlainString());
                }
            }
        }
    }

    @Test
    void stringBindFailsWithoutStringtypeUnspecified() throws SQLException {
        try (Connection conn = Db.connect()) {
            Db.table(conn, "string_orders");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO string_orders (id) VALUES (?)")) {
                ps.setString(1, TEXT);
                PSQLException e = assertThrows(PSQLException.class, ps::executeUpdate);
                assertEquals("42804", e.getSQLState());
                assertEquals("ERROR: column \"id\" is of type ulid but expression is of type character varying\n"
                    + "  Hint: You will need to rewrite or cast the expression.\n  Position: 40", e.getMessage());
            }
            // a cast in the SQL is the other way
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO string_orders (id) VALUES (?::ulid)")) {
                ps.setString(1, TEXT);
                assertEquals(1, ps.executeUpdate());
            }
        }
    }

    @Test
    void stringBindWithStringtypeUnspecified() throws SQLException {
        try (Connection conn = Db.connect("stringtype", "unspecified")) {
            Db.table(conn, "unspecified_orders");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO unspecified_orders (id) VALUES (?)")) {
                ps.setString(1, TEXT);
                assertEquals(1, ps.executeUpdate());
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM unspecified_orders WHERE id = ?")) {
                ps.setString(1, TEXT.toLowerCase());
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(TEXT, rs.getString(1));
                }
                // bad text is the server's error
                ps.setString(1, "not a ulid");
                PSQLException e = assertThrows(PSQLException.class, ps::executeQuery);
                assertEquals("22P02", e.getSQLState());
                assertTrue(e.getMessage().startsWith("ERROR: invalid input syntax for type ulid: \"not a ulid\""),
                    e.getMessage());
            }
        }
    }

    @Test
    void pgobjectBind() throws SQLException {
        try (Connection conn = Db.connect()) {
            Db.table(conn, "pgobject_orders");
            // a plain PGobject, no adapter: sent as text, typed ulid by name
            PGobject plain = new PGobject();
            plain.setType("ulid");
            plain.setValue(TEXT);
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO pgobject_orders (id) VALUES (?)")) {
                ps.setObject(1, plain);
                assertEquals(1, ps.executeUpdate());
                ps.setObject(1, PgUlid.of("01JGFJJZ00XHF7E02JJ03AE4T8"));
                assertEquals(1, ps.executeUpdate());
                ps.setNull(1, Types.OTHER);
                PSQLException e = assertThrows(PSQLException.class, ps::executeUpdate);
                assertEquals("23502", e.getSQLState());
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM pgobject_orders WHERE id = ?")) {
                ps.setObject(1, PgUlid.of(TEXT));
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    // without register(), getObject is a plain PGobject
                    PGobject got = assertInstanceOf(PGobject.class, rs.getObject(1));
                    assertFalse(got instanceof PgUlid);
                    assertEquals(plain, got);
                    ClassCastException c = assertThrows(ClassCastException.class, () -> rs.getObject(1, UUID.class));
                    assertEquals("Cannot cast org.postgresql.util.PGobject to java.util.UUID", c.getMessage());
                    SQLException e = assertThrows(SQLException.class, () -> rs.getObject(1, String.class));
                    assertEquals("22023 conversion to class java.lang.String from ulid not supported",
                        e.getSQLState() + " " + e.getMessage());
                }
            }
        }
    }

    @Test
    void uuidBindThroughCast() throws SQLException {
        // no adapter: a java.util.UUID needs none
        try (Connection conn = Db.connect()) {
            Db.table(conn, "uuid_orders");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO uuid_orders (id) VALUES (?::ulid)")) {
                ps.setObject(1, AS_UUID);
                assertEquals(1, ps.executeUpdate());
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT id, id::uuid FROM uuid_orders WHERE id = ?::ulid")) {
                ps.setObject(1, AS_UUID);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(TEXT, rs.getString(1));
                    assertEquals(AS_UUID, rs.getObject(2));
                    assertEquals(AS_UUID, rs.getObject(2, UUID.class));
                }
            }
            // without the cast: the uuid parameter is assigned to the column, and
            // compared with the extension's ulid = uuid operator
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO uuid_orders (id) VALUES (?)")) {
                ps.setObject(1, PgUlid.of("01JGFJJZ00XHF7E02JJ03AE4T8").toUuid());
                assertEquals(1, ps.executeUpdate());
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM uuid_orders WHERE id = ? ORDER BY id")) {
                ps.setObject(1, AS_UUID);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(TEXT, rs.getString(1));
                    assertFalse(rs.next());
                }
            }
        }
    }

    @Test
    void readsInTextMode() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "0")) {
            PgUlid.register(conn);
            try (PreparedStatement ps = conn.prepareStatement(READ_ALL)) {
                for (int i = 0; i < 8; i++) {
                    Read r = readAll(ps);
                    assertSameUlid(r);
                    assertEquals(PgUlid.of(TEXT), r.adapted());
                    // getBytes on the ulid column itself is the text's 26 ASCII bytes
                    assertArrayEquals(TEXT.getBytes(StandardCharsets.US_ASCII), r.raw());
                }
                ps.setString(1, TEXT);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    // getObject(i, String.class) and (i, UUID.class), which frameworks call, refuse the type
                    SQLException e = assertThrows(SQLException.class, () -> rs.getObject(1, String.class));
                    assertEquals("22023 conversion to class java.lang.String from ulid not supported",
                        e.getSQLState() + " " + e.getMessage());
                    ClassCastException c = assertThrows(ClassCastException.class, () -> rs.getObject(1, UUID.class));
                    assertEquals("Cannot cast ulidjdbc.PgUlid to java.util.UUID", c.getMessage());
                }
                assertEquals(0, serverPrepared(conn));
            }
        }
    }

    @Test
    void readsPastPrepareThresholdWithoutTheAdapter() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "2")) {
            try (PreparedStatement ps = conn.prepareStatement(READ_ALL)) {
                for (int i = 1; i <= 6; i++) {
                    Read r = readAll(ps);
                    assertSameUlid(r);
                    assertEquals(r.object(), r.adapted());
                    // prepared on the server, still read in text: pgjdbc asks for binary only for the types it knows
                    assertArrayEquals(TEXT.getBytes(StandardCharsets.US_ASCII), r.raw());
                    assertEquals(i >= 2 ? 1 : 0, serverPrepared(conn), "execution " + i);
                }
            }
        }
    }

    @Test
    void readsPastPrepareThresholdWithTheAdapter() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "2")) {
            PgUlid.register(conn);
            try (PreparedStatement ps = conn.prepareStatement(READ_ALL)) {
                for (int i = 1; i <= 6; i++) {
                    Read r = readAll(ps);
                    assertSameUlid(r);
                    assertEquals(PgUlid.of(TEXT), r.adapted());
                    // registering a PGBinaryObject asks for binary: prepared at the 2nd execution, binary from the 3rd
                    byte[] expected = i >= 3 ? BYTES : TEXT.getBytes(StandardCharsets.US_ASCII);
                    assertArrayEquals(expected, r.raw(), "execution " + i);
                    assertEquals(i >= 2 ? 1 : 0, serverPrepared(conn), "execution " + i);
                }
            }
        }
    }

    @Test
    void binaryFromTheSixthExecutionByDefault() throws SQLException {
        try (Connection conn = Db.connect()) {
            PgUlid.register(conn);
            try (PreparedStatement ps = conn.prepareStatement(READ_ALL)) {
                for (int i = 1; i <= 7; i++) {
                    Read r = readAll(ps);
                    assertSameUlid(r);
                    assertEquals(PgUlid.of(TEXT), r.adapted());
                    byte[] expected = i >= 6 ? BYTES : TEXT.getBytes(StandardCharsets.US_ASCII);
                    assertArrayEquals(expected, r.raw(), "execution " + i);
                }
            }
        }
    }

    @Test
    void readsInBinaryWithBinaryTransferEnable() throws SQLException {
        int oid;
        try (Connection conn = Db.connect()) {
            oid = Db.ulidOid(conn);
        }
        try (Connection conn = Db.connect("binaryTransferEnable", Integer.toString(oid), "prepareThreshold", "2")) {
            try (PreparedStatement ps = conn.prepareStatement(READ_ALL)) {
                for (int i = 1; i <= 6; i++) {
                    Read r = readAll(ps);
                    // prepared on the server at the 2nd execution, read in binary from the 3rd: a plain
                    // PGobject then has no value (readsInBinaryWithoutTheAdapter), only getBytes works
                    if (i < 3) {
                        assertSameUlid(r);
                    } else {
                        assertNull(r.text());
                        assertNull(r.object().getValue());
                        assertEquals(AS_UUID, r.uuid());
                        assertArrayEquals(BYTES, r.bytea());
                    }
                    byte[] expected = i >= 3 ? BYTES : TEXT.getBytes(StandardCharsets.US_ASCII);
                    assertArrayEquals(expected, r.raw(), "execution " + i);
                    assertEquals(i >= 2 ? 1 : 0, serverPrepared(conn), "execution " + i);
                }
            }
        }
    }

    @Test
    void readsInBinaryWithoutTheAdapter() throws SQLException {
        int oid;
        try (Connection conn = Db.connect()) {
            oid = Db.ulidOid(conn);
        }
        try (Connection conn = Db.connect("binaryTransferEnable", Integer.toString(oid), "prepareThreshold", "-1")) {
            try (PreparedStatement ps = conn.prepareStatement("SELECT id, id, id FROM (SELECT ?::ulid AS id) t")) {
                ps.setString(1, TEXT);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    // pgjdbc has the 16 bytes but no way to make text of them: a plain
                    // PGobject with no value, and getString null for a value that is not NULL
                    PGobject o = (PGobject) rs.getObject(1);
                    assertEquals("ulid", o.getType());
                    assertNull(o.getValue());
                    assertFalse(rs.wasNull());
                    assertNull(rs.getString(2));
                    assertFalse(rs.wasNull());
                    assertArrayEquals(BYTES, rs.getBytes(3));
                }
            }
        }
    }

    @Test
    void binaryTransferEnableTakesNoTypeName() {
        // only a number or a built-in type's name: the connection fails
        PSQLException e = assertThrows(PSQLException.class, () -> Db.connect("binaryTransferEnable", "ulid").close());
        assertEquals("22023", e.getSQLState());
        assertEquals("oid type ulid not known and not a number", e.getMessage());
    }

    @Test
    void binaryTransferDisableKeepsTheAdapterInText() throws SQLException {
        int oid;
        try (Connection conn = Db.connect()) {
            oid = Db.ulidOid(conn);
        }
        try (Connection conn = Db.connect("binaryTransferDisable", Integer.toString(oid), "prepareThreshold", "-1")) {
            PgUlid.register(conn);
            try (PreparedStatement ps = conn.prepareStatement(READ_ALL)) {
                for (int i = 1; i <= 3; i++) {
                    Read r = readAll(ps);
                    assertSameUlid(r);
                    assertEquals(PgUlid.of(TEXT), r.adapted());
                    assertArrayEquals(TEXT.getBytes(StandardCharsets.US_ASCII), r.raw());
                }
            }
        }
    }

    @Test
    void readsAndWritesInBinaryWithTheAdapter() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "-1")) {
            PgUlid.register(conn);
            Db.table(conn, "binary_orders");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO binary_orders (id) VALUES (?)")) {
                ps.setObject(1, PgUlid.of(TEXT));
                assertEquals(1, ps.executeUpdate());
            }
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT id, id, id, id::uuid, id::bytea, id FROM binary_orders WHERE id = ?")) {
                ps.setObject(1, PgUlid.fromBytes(BYTES));
                for (int i = 0; i < 3; i++) {
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        Read r = new Read(rs.getString(1), (PGobject) rs.getObject(2), rs.getObject(3),
                            rs.getObject(4, UUID.class), rs.getBytes(5), rs.getBytes(6));
                        assertSameUlid(r);
                        assertEquals(PgUlid.of(TEXT), r.adapted());
                        assertArrayEquals(BYTES, r.raw());
                    }
                }
            }
        }
    }

    @Test
    void batchInsert() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "2")) {
            PgUlid.register(conn);
            Db.table(conn, "batch_orders");
            List<PgUlid> sent = new ArrayList<>();
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO batch_orders (id, total) VALUES (?, ?)")) {
                for (int i = 0; i < 50; i++) {
                    // spread over the alphabet, sent in reverse order
                    PgUlid id = PgUlid.of(String.format("01JGFJJZ00XHF7E02JJ03AE4%02d", 49 - i));
                    sent.add(id);
                    ps.setObject(1, id);
                    ps.setInt(2, i);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                assertEquals(50, counts.length);
                for (int c : counts) {
                    assertEquals(1, c);
                }
            }
            List<PgUlid> read = new ArrayList<>();
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, total FROM batch_orders ORDER BY id")) {
                while (rs.next()) {
                    PgUlid id = (PgUlid) rs.getObject(1);
                    assertEquals(sent.get(rs.getInt(2)), id);
                    read.add(id);
                }
            }
            List<PgUlid> sorted = new ArrayList<>(sent);
            sorted.sort(null);
            assertEquals(sorted, read);
        }
    }

    @Test
    void keysetPages() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "2")) {
            PgUlid.register(conn);
            Db.table(conn, "page_orders");
            try (Statement st = conn.createStatement()) {
                st.execute("INSERT INTO page_orders (total) SELECT g FROM generate_series(1, 95) g");
            }
            List<String> all = new ArrayList<>();
            try (Statement st = conn.createStatement();
                 ResultSet rs = st.executeQuery("SELECT id::text FROM page_orders ORDER BY id")) {
                while (rs.next()) {
                    all.add(rs.getString(1));
                }
            }
            assertEquals(95, all.size());
            List<String> paged = new ArrayList<>();
            List<Integer> sizes = new ArrayList<>();
            PgUlid after = PgUlid.of("00000000000000000000000000");
            try (PreparedStatement ps = conn.prepareStatement(
                    "SELECT id, total FROM page_orders WHERE id > ? ORDER BY id LIMIT 10")) {
                while (true) {
                    ps.setObject(1, after);
                    int n = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            after = (PgUlid) rs.getObject(1);
                            paged.add(after.getValue());
                            // monotonic ids: the order of insertion
                            assertEquals(paged.size(), rs.getInt(2));
                            n++;
                        }
                    }
                    if (n == 0) {
                        break;
                    }
                    sizes.add(n);
                }
            }
            assertEquals(all, paged);
            assertEquals(List.of(10, 10, 10, 10, 10, 10, 10, 10, 10, 5), sizes);
            List<String> sorted = new ArrayList<>(all);
            sorted.sort(null);
            assertEquals(sorted, all, "the text sorts as the bytes do");
        }
    }

    @Test
    void nulls() throws SQLException {
        try (Connection conn = Db.connect("prepareThreshold", "-1")) {
            PgUlid.register(conn);
            try (PreparedStatement ps = conn.prepareStatement("SELECT ?::ulid, ?::ulid IS NULL")) {
                ps.setNull(1, Types.OTHER);
                ps.setObject(2, new PgUlid());
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertNull(rs.getObject(1));
                    assertNull(rs.getString(1));
                    assertTrue(rs.wasNull());
                    assertTrue(rs.getBoolean(2));
                }
            }
        }
    }
}
