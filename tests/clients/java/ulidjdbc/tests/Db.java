/*
 * Connections to the test's database: the URL comes from the ulid.url
 * system property (the pytest module sets it to the fixture's database, over
 * TCP on 127.0.0.1), with pgjdbc properties added per test.
 */
package ulidjdbc.tests;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

final class Db {
    private Db() {}

    static Connection connect(String... properties) throws SQLException {
        String url = System.getProperty("ulid.url");
        if (url == null) {
            throw new IllegalStateException("-Dulid.url=jdbc:postgresql://... is not set");
        }
        Properties props = new Properties();
        for (int i = 0; i < properties.length; i += 2) {
            props.setProperty(properties[i], properties[i + 1]);
        }
        return DriverManager.getConnection(url, props);
    }

    static int ulidOid(Connection conn) throws SQLException {
        try (var st = conn.createStatement(); var rs = st.executeQuery("SELECT 'ulid'::regtype::oid")) {
            rs.next();
            return (int) rs.getLong(1);
        }
    }

    /** A table of the test's own, emptied: each test class has one name. */
    static void table(Connection conn, String name) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + name);
            st.execute("CREATE TABLE " + name + " (id ulid PRIMARY KEY DEFAULT gen_monotonic_ulid(), total numeric)");
        }
    }
}
