/*
 * The ulid type for pgjdbc: a PGobject that holds a ULID's 16 bytes, reads
 * the server's text form (26 Crockford base32 characters) and its binary
 * form (the 16 bytes), and is sent as either.
 *
 * Copy this file. Call PgUlid.register(conn) once per connection (a pool's
 * connection-init hook is the place): getObject then returns a PgUlid for a
 * ulid column, and setObject(i, pgUlid) binds one, in binary once pgjdbc has
 * prepared the statement on the server.
 *
 * The type is found by its name, never by a fixed OID: the OID is assigned
 * when the extension is created and differs between databases.
 */
package ulidjdbc;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.UUID;

import org.postgresql.PGConnection;
import org.postgresql.util.PGBinaryObject;
import org.postgresql.util.PGobject;

public class PgUlid extends PGobject implements PGBinaryObject, Comparable<PgUlid> {
    private static final long serialVersionUID = 1L;
    public static final String TYPE = "ulid";
    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    private static final int[] DIGITS = new int[128];

    static {
        Arrays.fill(DIGITS, -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            DIGITS[ALPHABET[i]] = i;
            DIGITS[Character.toLowerCase(ALPHABET[i])] = i;
        }
    }

    /** Null for SQL NULL, else exactly 16 bytes, timestamp first. */
    private byte[] bytes;

    /** pgjdbc makes one with this constructor, then calls setValue or setByteValue. */
    public PgUlid() {
        setType(TYPE);
    }

    private PgUlid(byte[] bytes) {
        this();
        this.bytes = bytes;
    }

    /** From the 26-character text; IllegalArgumentException for anything else. */
    public static PgUlid of(String text) {
        return new PgUlid(parse(text));
    }

    public static PgUlid fromBytes(byte[] b) {
        if (b.length != 16) {
            throw new IllegalArgumentException("a ULID is 16 bytes, not " + b.length);
        }
        return new PgUlid(b.clone());
    }

    /** The same 16 bytes as a uuid, as the server's ulid::uuid cast gives them. */
    public static PgUlid fromUuid(UUID u) {
        return new PgUlid(ByteBuffer.allocate(16)
            .putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array());
    }

    public UUID toUuid() {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new UUID(b.getLong(), b.getLong());
    }

    public byte[] toByteArray() {
        return bytes == null ? null : bytes.clone();
    }

    /** Milliseconds since the Unix epoch: the first 48 bits. */
    public long timestamp() {
        return ByteBuffer.wrap(bytes).getLong() >>> 16;
    }

    /**
     * Registers the type on a connection, looked up by name: getObject
     * returns PgUlid for ulid columns. Because PgUlid is a PGBinaryObject,
     * pgjdbc's addDataType also asks for ulid in binary both ways (16 bytes
     * instead of 26 characters), on the statements it prepares on the
     * server: from the execution after the prepareThreshold-th of a
     * PreparedStatement (5 by default; prepareThreshold=-1 for at once).
     * binaryTransferDisable=<the oid> keeps it in text.
     */
    public static void register(Connection conn) throws SQLException {
        conn.unwrap(PGConnection.class).addDataType(TYPE, PgUlid.class);
    }

    // --- PGobject: the text form

    @Override
    public void setValue(String value) throws SQLException {
        try {
            bytes = value == null ? null : parse(value);
        } catch (IllegalArgumentException e) {
            throw new SQLException(e.getMessage(), "22P02", e);
        }
    }

    @Override
    public String getValue() {
        return bytes == null ? null : format(bytes);
    }

    @Override
    public boolean isNull() {
        return bytes == null;
    }

    // --- PGBinaryObject: the binary form, the 16 bytes as they are

    @Override
    public void setByteValue(byte[] value, int offset) throws SQLException {
        if (value.length - offset != 16) {
            throw new SQLException("a binary ulid is 16 bytes, not " + (value.length - offset), "22P03");
        }
        bytes = Arrays.copyOfRange(value, offset, offset + 16);
    }

    @Override
    public int lengthInBytes() {
        // 0 is how pgjdbc is told the value is NULL
        return bytes == null ? 0 : 16;
    }

    @Override
    public void toBytes(byte[] target, int offset) {
        System.arraycopy(bytes, 0, target, offset, 16);
    }

    // --- values: compared by their bytes, which is the server's order

    @Override
    public int compareTo(PgUlid o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PgUlid && Arrays.equals(bytes, ((PgUlid) o).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public PgUlid clone() throws CloneNotSupportedException {
        PgUlid copy = (PgUlid) super.clone();
        copy.bytes = toByteArray();
        return copy;
    }

    // --- Crockford base32: 26 characters carry 130 bits, the first at most 7

    static byte[] parse(String text) {
        if (text.length() != 26) {
            throw new IllegalArgumentException("invalid ULID \"" + text + "\": not 26 characters");
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 26; i++) {
            char c = text.charAt(i);
            int d = c < 128 ? DIGITS[c] : -1;
            if (d < 0 || (i == 0 && d > 7)) {
                throw new IllegalArgumentException("invalid ULID \"" + text + "\" at character " + (i + 1));
            }
            hi = (hi << 5) | (lo >>> 59);
            lo = (lo << 5) | d;
        }
        return ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
    }

    static String format(byte[] b) {
        ByteBuffer buf = ByteBuffer.wrap(b);
        long hi = buf.getLong();
        long lo = buf.getLong();
        char[] out = new char[26];
        for (int i = 25; i >= 0; i--) {
            out[i] = ALPHABET[(int) (lo & 31)];
            lo = (lo >>> 5) | (hi << 59);
            hi >>>= 5;
        }
        return new String(out);
    }
}
