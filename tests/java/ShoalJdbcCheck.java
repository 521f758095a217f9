// What pgjdbc, the PostgreSQL JDBC driver, sees of a server holding TPC-H: the DatabaseMetaData calls that
// DBeaver-like tools make on connect, typed PreparedStatement parameters, and a result read with a fetch
// size. Driven by tests/integration/test_pgjdbc.py, which runs it against Shoal and against PostgreSQL 15
// and compares.
//
// Usage: java -cp postgresql.jar:. ShoalJdbcCheck <server>=<jdbc url> ...
// Runs every check against each server in turn, in this one JVM, and prints one JSON object per check and
// server on its own line:
//   {"server": server, "check": name, "ok": true, "detail": ...}
//   {"server": server, "check": name, "ok": false, "error": ..., "sqlstate": ...}
// A check's detail is what the driver returned (result sets as column labels and rows), never a verdict:
// the test decides what is right. Each check runs on a fresh connection, so that one failure cannot spill
// into the next.

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

public final class ShoalJdbcCheck {
  /** One check: what it asks of a connection, returning its detail. */
  private interface Check {
    Object run(Connection connection) throws Exception;
  }

  private static final Map<String, Check> CHECKS = new LinkedHashMap<>();

  static {
    CHECKS.put("get_catalogs", connection -> resultSet(connection.getMetaData().getCatalogs()));
    CHECKS.put("get_schemas", connection -> resultSet(connection.getMetaData().getSchemas()));
    CHECKS.put("get_tables",
        connection -> resultSet(connection.getMetaData().getTables(null, "public", "%", new String[] {"TABLE"})));
    CHECKS.put("get_tables_staging", connection -> resultSet(
        connection.getMetaData().getTables(null, "stag%", "%", new String[] {"TABLE", "VIEW"})));
    CHECKS.put("get_columns_lineitem",
        connection -> resultSet(connection.getMetaData().getColumns(null, "public", "lineitem", "%")));
    CHECKS.put("get_primary_keys_lineitem",
        connection -> resultSet(connection.getMetaData().getPrimaryKeys(null, "public", "lineitem")));
    CHECKS.put("get_index_info_orders",
        connection -> resultSet(connection.getMetaData().getIndexInfo(null, "public", "orders", false, true)));
    CHECKS.put("get_type_info", connection -> resultSet(connection.getMetaData().getTypeInfo()));
    CHECKS.put("set_date", connection -> query(connection,
        "SELECT count(*), sum(o_totalprice) FROM orders WHERE o_orderdate = ?",
        statement -> statement.setDate(1, Date.valueOf("1995-03-15"))));
    CHECKS.put("set_timestamp", connection -> query(connection,
        "SELECT count(*) FROM lineitem WHERE l_shipdate < ?",
        statement -> statement.setTimestamp(1, Timestamp.valueOf("1995-03-15 00:00:00"))));
    CHECKS.put("set_time", connection -> query(connection,
        "SELECT (CAST(? AS time) + interval '90 minutes')::text",
        statement -> statement.setTime(1, Time.valueOf("23:11:12"))));
    CHECKS.put("set_float", connection -> query(connection,
        "SELECT ? * 2, (? + ?)::text, pg_typeof(?)::text",
        statement -> {
          statement.setFloat(1, 1.1f);
          statement.setFloat(2, 0.1f);
          statement.setFloat(3, 0.2f);
          statement.setFloat(4, 2.5f);
        }));
    CHECKS.put("set_big_decimal", connection -> query(connection,
        "SELECT count(*), sum(l_extendedprice) FROM lineitem WHERE l_extendedprice > ?",
        statement -> statement.setBigDecimal(1, new BigDecimal("50000.25"))));
    CHECKS.put("set_long", connection -> query(connection,
        "SELECT count(*), sum(o_totalprice), max(o_orderkey) FROM orders WHERE o_orderkey < ?",
        statement -> statement.setLong(1, 1000L)));
    CHECKS.put("fetch_size_streaming", ShoalJdbcCheck::fetchSizeStreaming);
  }

  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  public static void main(String[] arguments) throws Exception {
    if (arguments.length == 0) {
      System.err.println("usage: ShoalJdbcCheck <server>=<jdbc url> ...");
      System.exit(2);
    }
    for (String argument : arguments) {
      int equals = argument.indexOf('=');
      if (equals <= 0) {
        System.err.println("not <server>=<jdbc url>: " + argument);
        System.exit(2);
      }
      runChecks(argument.substring(0, equals), argument.substring(equals + 1));
    }
  }

  private static void runChecks(String server, String url) {
    for (Map.Entry<String, Check> check : CHECKS.entrySet()) {
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("server", server);
      line.put("check", check.getKey());
      try (Connection connection = DriverManager.getConnection(url)) {
        Object detail = check.getValue().run(connection);
        line.put("ok", true);
        line.put("detail", detail);
      } catch (SQLException error) {
        line.put("ok", false);
        line.put("error", String.valueOf(error.getMessage()));
        line.put("sqlstate", error.getSQLState());
      } catch (Exception error) {
        line.put("ok", false);
        line.put("error", error.toString());
        line.put("sqlstate", null);
      }
      System.out.println(Json.write(line));
      System.out.flush();
    }
  }

  /** A result set as {"columns": [label, ...], "rows": [[value, ...], ...]}, values as getObject gives them. */
  private static Map<String, Object> resultSet(ResultSet results) throws SQLException {
    try (ResultSet closing = results) {
      ResultSetMetaData metaData = results.getMetaData();
      List<Object> columns = new ArrayList<>();
      for (int i = 1; i <= metaData.getColumnCount(); ++i) columns.add(metaData.getColumnLabel(i));
      List<Object> rows = new ArrayList<>();
      while (results.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= metaData.getColumnCount(); ++i) row.add(results.getObject(i));
        rows.add(row);
      }
      Map<String, Object> table = new LinkedHashMap<>();
      table.put("columns", columns);
      table.put("rows", rows);
      return table;
    }
  }

  /** Runs `sql` as a PreparedStatement with the parameters `binder` sets; its result set. */
  private static Map<String, Object> query(Connection connection, String sql, Binder binder) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      return resultSet(statement.executeQuery());
    }
  }

  /**
   * Reads lineitem with autocommit off and a fetch size of 100, which pgjdbc turns into a named portal that
   * it executes 100 rows at a time. The driver's wire log (java.util.logging, FINEST) tells how many Execute
   * messages it sent and how many PortalSuspended it got back: that the rows came in batches.
   */
  private static Map<String, Object> fetchSizeStreaming(Connection connection) throws SQLException {
    Logger driverLogger = Logger.getLogger("org.postgresql");
    WireCounter wire = new WireCounter();
    Level previous = driverLogger.getLevel();
    driverLogger.setLevel(Level.FINEST);
    driverLogger.addHandler(wire);
    Map<String, Object> detail = new LinkedHashMap<>();
    try {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.setFetchSize(100);
        long rows = 0;
        long keys = 0;
        try (ResultSet results = statement.executeQuery("SELECT l_orderkey, l_linenumber FROM lineitem")) {
          while (results.next()) {
            ++rows;
            keys += results.getLong(1);
          }
        }
        detail.put("rows", rows);
        detail.put("sum_l_orderkey", keys);
      }
      connection.commit();
    } finally {
      driverLogger.removeHandler(wire);
      driverLogger.setLevel(previous);
    }
    detail.put("executes_with_limit_100", wire.executesWithLimit100);
    detail.put("portal_suspended", wire.portalSuspended);
    try (Statement statement = connection.createStatement();
        ResultSet count = statement.executeQuery("SELECT count(*) FROM lineitem")) {
      count.next();
      detail.put("count", count.getLong(1));
    }
    return detail;
  }

  /** Counts the wire messages of a fetch-size read in pgjdbc's FINEST log. */
  private static final class WireCounter extends Handler {
    long executesWithLimit100 = 0;
    long portalSuspended = 0;

    @Override
    public void publish(LogRecord record) {
      String message = record.getMessage();
      if (message == null) return;
      if (message.startsWith(" FE=> Execute(portal=") && record.getParameters() != null) {
        for (Object parameter : record.getParameters()) {
          if (Integer.valueOf(100).equals(parameter)) ++executesWithLimit100;
        }
      } else if (message.startsWith(" <=BE PortalSuspended")) {
        ++portalSuspended;
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  /** Just enough JSON for the output: maps, lists, strings, numbers, booleans and null; anything else as a string. */
  private static final class Json {
    static String write(Object value) {
      StringBuilder out = new StringBuilder();
      append(out, value);
      return out.toString();
    }

    private static void append(StringBuilder out, Object value) {
      if (value == null) {
        out.append("null");
      } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
          || value instanceof Short) {
        out.append(value);
      } else if (value instanceof Map) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
          if (!first) out.append(", ");
          first = false;
          appendString(out, String.valueOf(entry.getKey()));
          out.append(": ");
          append(out, entry.getValue());
        }
        out.append('}');
      } else if (value instanceof List) {
        out.append('[');
        boolean first = true;
        for (Object item : (List<?>) value) {
          if (!first) out.append(", ");
          first = false;
          append(out, item);
        }
        out.append(']');
      } else {
        // Decimals, floats, dates and driver objects as their text, so that nothing is rounded on the way.
        appendString(out, value.toString());
      }
    }

    private static void appendString(StringBuilder out, String text) {
      out.append('"');
      for (int i = 0; i < text.length(); ++i) {
        char c = text.charAt(i);
        switch (c) {
          case '"': out.append("\\\""); break;
          case '\\': out.append("\\\\"); break;
          case '\n': out.append("\\n"); break;
          case '\r': out.append("\\r"); break;
          case '\t': out.append("\\t"); break;
          default:
            if (c < 0x20) {
              out.append(String.format("\\u%04x", (int) c));
            } else {
              out.append(c);
            }
        }
      }
      out.append('"');
    }
  }
}
