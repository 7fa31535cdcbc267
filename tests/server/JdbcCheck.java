// silt serve through the PostgreSQL JDBC driver (issue 22): connect with SCRAM
// over TLS, plain and prepared statements, every common type, and the
// DatabaseMetaData calls that DBeaver and other tools make on connect and
// while browsing. Prints "ok NAME" / "FAIL NAME info" lines for server_test.py.
//
// usage: java -cp postgresql.jar:. JdbcCheck URL USER PASSWORD
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;

public class JdbcCheck {
    static int failed = 0;

    static void check(String name, boolean ok, Object info) {
        System.out.println((ok ? "ok   " : "FAIL ") + name + (ok ? "" : " " + info));
        if (!ok) failed++;
    }

    static List<String> column(ResultSet rs, String col) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) out.add(rs.getString(col));
        rs.close();
        return out;
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.setProperty("user", args[1]);
        p.setProperty("password", args[2]);
        try (Connection c = DriverManager.getConnection(args[0], p)) {
            check("connect", c.isValid(5), "");
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT a, b, c, d, e, f, g, h, i FROM t ORDER BY a")) {
                rs.next();
                boolean row1 = rs.getInt(1) == 1 && "x".equals(rs.getString(2)) && rs.getDouble(3) == 1.5
                    && new BigDecimal("12.34").equals(rs.getBigDecimal(4))
                    && "2024-01-02".equals(rs.getDate(5).toString())
                    && rs.getTimestamp(6).getTime() == 1704164645000L
                    && rs.getBoolean(7) && Arrays.equals(rs.getBytes(8), new byte[] {1, 2})
                    && rs.getLong(9) == 9000000000L;
                check("statement reads every type", row1, rs.getString(6));
                rs.next();
                rs.getString(2);
                check("statement reads NULLs", rs.wasNull() && rs.getInt(1) == 2, "");
            }
            // prepared: the driver switches to server-side named statements after 5 runs
            try (PreparedStatement ps = c.prepareStatement("SELECT b, i FROM t WHERE a = ?")) {
                String got = "";
                for (int k = 0; k < 8; k++) {
                    ps.setInt(1, 1 + (k % 2));
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        got += rs.getString(1) + ",";
                    }
                }
                check("prepared statement", got.equals("x,null,x,null,x,null,x,null,"), got);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT ? AS s, ? AS l, ? AS d, ? AS bo, ? AS dt")) {
                ps.setString(1, "it's");
                ps.setLong(2, 1L << 40);
                ps.setDouble(3, 2.5);
                ps.setBoolean(4, true);
                ps.setDate(5, java.sql.Date.valueOf("2020-02-29"));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    boolean ok = rs.getString(1).equals("it's") && rs.getLong(2) == (1L << 40)
                        && rs.getDouble(3) == 2.5 && rs.getBoolean(4)
                        && rs.getDate(5).toString().equals("2020-02-29");
                    check("prepared parameter types", ok, rs.getString(1) + " " + rs.getString(5));
                }
            }
            try (Statement st = c.createStatement()) {
                st.setFetchSize(100);
                c.setAutoCommit(false);  // fetch size only streams inside a transaction
                int n = 0;
                try (ResultSet rs = st.executeQuery("SELECT id FROM range(0, 1000)")) {
                    while (rs.next()) n++;
                }
                c.commit();
                c.setAutoCommit(true);
                check("fetch size (portal row limits)", n == 1000, n);
            }
            try (Statement st = c.createStatement()) {
                int n = st.executeUpdate("INSERT INTO c VALUES (1), (2), (3)");
                check("executeUpdate INSERT count", n == 3, n);
                n = st.executeUpdate("UPDATE c SET v = v + 1 WHERE v >= 2");
                check("executeUpdate UPDATE count", n == 2, n);
                n = st.executeUpdate("DELETE FROM c WHERE v = 1");
                check("executeUpdate DELETE count", n == 1, n);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT nope FROM t")) {
                ps.executeQuery();
                check("error SQLSTATE", false, "no error");
            } catch (SQLException e) {
                check("error SQLSTATE", "42703".equals(e.getSQLState()), e.getSQLState());
            }

            DatabaseMetaData md = c.getMetaData();
            check("getDatabaseProductName", md.getDatabaseProductName().equals("PostgreSQL"),
                  md.getDatabaseProductName());
            check("getCatalogs", column(md.getCatalogs(), "TABLE_CAT").equals(List.of("default")),
                  "");
            List<String> schemas = column(md.getSchemas(), "TABLE_SCHEM");
            check("getSchemas", schemas.contains("default") && schemas.contains("other"), schemas);
            List<String> tables = column(md.getTables(null, "default", "%", new String[] {"TABLE"}),
                                         "TABLE_NAME");
            // persistent views are listed too, as TABLE (SHOW TABLES does not tell them apart)
            check("getTables", tables.equals(List.of("c", "t", "v_other")), tables);
            tables = column(md.getTables(null, null, "t%", null), "TABLE_NAME");
            check("getTables pattern", tables.contains("t") && tables.contains("t2")
                  && !tables.contains("c"), tables);
            List<String> types = column(md.getTableTypes(), "TABLE_TYPE");
            check("getTableTypes", types.contains("TABLE"), types);
            try (ResultSet rs = md.getColumns(null, "default", "t", "%")) {
                List<String> got = new ArrayList<>();
                while (rs.next())
                    got.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME") + ":"
                            + rs.getInt("DATA_TYPE") + ":" + rs.getInt("ORDINAL_POSITION"));
                check("getColumns", got.size() == 9 && got.get(0).equals("a:int4:4:1")
                      && got.get(1).equals("b:text:12:2") && got.get(3).equals("d:numeric:2:4")
                      && got.get(8).equals("i:int8:-5:9"), got);
            }
            check("getPrimaryKeys (none)", column(md.getPrimaryKeys(null, "default", "t"),
                                                   "COLUMN_NAME").isEmpty(), "");
            check("getImportedKeys (none)", column(md.getImportedKeys(null, "default", "t"),
                                                    "FKCOLUMN_NAME").isEmpty(), "");
            check("getIndexInfo (none)", column(md.getIndexInfo(null, "default", "t", false, true),
                                                 "INDEX_NAME").isEmpty(), "");
            List<String> ti = column(md.getTypeInfo(), "TYPE_NAME");
            check("getTypeInfo", ti.contains("int4") && ti.contains("text")
                  && ti.contains("numeric"), ti);
            check("getProcedures", column(md.getProcedures(null, "default", "%"),
                                           "PROCEDURE_NAME").isEmpty(), "");
            check("getFunctions", column(md.getFunctions(null, "default", "%"),
                                          "FUNCTION_NAME").isEmpty(), "");
        }
        try {
            Properties bad = new Properties();
            bad.setProperty("user", args[1]);
            bad.setProperty("password", "wrong-password");
            DriverManager.getConnection(args[0], bad).close();
            check("wrong password refused", false, "connected");
        } catch (SQLException e) {
            check("wrong password refused", "28P01".equals(e.getSQLState()), e.getSQLState());
        }
        System.out.println(failed == 0 ? "jdbc: all passed" : "jdbc: " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
