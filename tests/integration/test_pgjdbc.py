"""Story: a Java tool connects with pgjdbc 42.7.14 to a 2-worker cluster holding TPC-H SF 0.01, browses it
through DatabaseMetaData the way DBeaver does on connect, binds dates, timestamps, decimals and longs to
PreparedStatements over orders and lineitem, and reads lineitem with a fetch size of 100; it gets what pgjdbc
gets from PostgreSQL 15 for the same TPC-H tables and rows. tests/java/ShoalJdbcCheck.java makes the calls,
once per server, in one JVM each; this module compares. What Shoal lacks for some calls (composite field
selection, array_in) makes those checks strict xfails, each expecting the exact error Shoal gives today."""

import json
import pathlib
import socket
import subprocess
import threading

import psycopg
import pytest

from cluster import REPO_ROOT, start_with_tpch
from postgres_oracle import TPCH_SCHEMA

PGJDBC_JAR = REPO_ROOT / ".jdbc" / "postgresql-42.7.14.jar"
CHECK_SOURCE = REPO_ROOT / "tests" / "java" / "ShoalJdbcCheck.java"
DATABASE = "shoal"

TPCH_TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]

# What getColumns reports for lineitem on PostgreSQL 15 (checked below against the scratch PostgreSQL's own
# answer): COLUMN_NAME, TYPE_NAME, DATA_TYPE (java.sql.Types), COLUMN_SIZE, DECIMAL_DIGITS, NULLABLE.
BIGINT, INTEGER, NUMERIC, CHAR, DATE, VARCHAR = -5, 4, 2, 1, 91, 12
LINEITEM_COLUMNS = [
    ("l_orderkey", "int8", BIGINT, 19, 0, 0),
    ("l_partkey", "int4", INTEGER, 10, 0, 0),
    ("l_suppkey", "int4", INTEGER, 10, 0, 0),
    ("l_linenumber", "int4", INTEGER, 10, 0, 0),
    ("l_quantity", "numeric", NUMERIC, 15, 2, 0),
    ("l_extendedprice", "numeric", NUMERIC, 15, 2, 0),
    ("l_discount", "numeric", NUMERIC, 15, 2, 0),
    ("l_tax", "numeric", NUMERIC, 15, 2, 0),
    ("l_returnflag", "bpchar", CHAR, 1, 0, 0),
    ("l_linestatus", "bpchar", CHAR, 1, 0, 0),
    ("l_shipdate", "date", DATE, 13, 0, 0),
    ("l_commitdate", "date", DATE, 13, 0, 0),
    ("l_receiptdate", "date", DATE, 13, 0, 0),
    ("l_shipinstruct", "bpchar", CHAR, 25, 0, 0),
    ("l_shipmode", "bpchar", CHAR, 10, 0, 0),
    ("l_comment", "varchar", VARCHAR, 44, 0, 0),
]
# The types every TPC-H tool binds or reads, with the java.sql.Types pgjdbc maps them to.
TYPE_INFO_TYPES = {"int4": INTEGER, "int8": BIGINT, "numeric": NUMERIC, "varchar": VARCHAR, "bpchar": CHAR,
                   "date": DATE, "bool": -7, "text": VARCHAR}
LINEITEM_ROWS_SF_001 = 60175
STAGING_SCHEMA = ["CREATE SCHEMA staging", "CREATE TABLE staging.loads (id integer PRIMARY KEY, note text)",
                  "CREATE VIEW staging.recent AS SELECT id FROM staging.loads WHERE id > 10"]

# The checks that fail on Shoal today, each with the error pgjdbc reports for it, word for word.
KNOWN_FAILURES = {}
CHECKS = ["get_catalogs", "get_schemas", "get_tables", "get_tables_staging", "get_columns_lineitem", "get_primary_keys_lineitem",
          "get_index_info_orders", "get_type_info", "set_date", "set_timestamp", "set_time", "set_float", "set_big_decimal",
          "set_long", "fetch_size_streaming"]


class KnownShoalFailure(Exception):
    """Shoal failed a check with exactly the error KNOWN_FAILURES expects: the only failure a strict xfail
    here accepts, so that a different error, or a wrong answer, fails the test outright."""


class UnixSocketForwarder:
    """A TCP port on 127.0.0.1 that relays each connection to a Unix socket: pgjdbc speaks TCP only, and the
    scratch PostgreSQL listens on its Unix socket alone."""

    def __init__(self, path):
        self.path = str(path)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            server = socket.socket(socket.AF_UNIX)
            try:
                server.connect(self.path)
            except OSError:
                server.close()
                client.close()
                continue
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._relay, args=(source, target), daemon=True).start()

    @staticmethod
    def _relay(source, target):
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            source.close()

    def close(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        self.listener.close()


@pytest.fixture(scope="session")
def check_classes(tmp_path_factory):
    """ShoalJdbcCheck.java compiled against pgjdbc, once per session."""
    assert PGJDBC_JAR.exists(), f"{PGJDBC_JAR} is missing: deploy/install-deps.sh fetches it"
    classes = tmp_path_factory.mktemp("pgjdbc-classes")
    done = subprocess.run(["javac", "-d", str(classes), "-cp", str(PGJDBC_JAR), str(CHECK_SOURCE)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return classes


def run_checks(classes, ports):
    """Every check of ShoalJdbcCheck against each server on 127.0.0.1, as user shoal in database shoal, in one
    JVM: {server: {check name: its JSON line}} for `ports`' {server: port}."""
    servers = [f"{server}=jdbc:postgresql://127.0.0.1:{port}/{DATABASE}?user=shoal&connectTimeout=10"
               for server, port in ports.items()]
    # UTC in the JVM, so that the session's TimeZone, and what setDate and setTimestamp send, never vary.
    done = subprocess.run(["java", "-Duser.timezone=UTC", "-cp", f"{PGJDBC_JAR}:{classes}", "ShoalJdbcCheck",
                           *servers], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = {server: {} for server in ports}
    for line in map(json.loads, done.stdout.splitlines()):
        results[line["server"]][line["check"]] = line
    for server in ports:
        assert list(results[server]) == CHECKS, done.stdout
    return results


def copy_table(source, target, table):
    with source.cursor().copy(f"COPY {table} TO STDOUT") as reading, \
            target.cursor().copy(f"COPY {table} FROM STDIN") as writing:
        for block in reading:
            writing.write(block)


@pytest.fixture(scope="module")
def results(tmp_path_factory, postgres, check_classes):
    """What the checks give on a 2-worker cluster with TPC-H SF 0.01 and on the scratch PostgreSQL holding
    the same tables and rows (copied from the cluster): {"shoal": ..., "postgres": ...}. The cluster is this
    module's own, as for every TPC-H suite: the shared one holds other modules' tables, which getTables lists."""
    admin = postgres.conninfo()
    with psycopg.connect(admin, autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_roles WHERE rolname = 'shoal'").fetchone():
            connection.execute("CREATE ROLE shoal SUPERUSER LOGIN")
        connection.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
        connection.execute(f"CREATE DATABASE {DATABASE} OWNER shoal")
    oracle = f"host={postgres.directory} port={postgres.port} user=shoal dbname={DATABASE}"
    local = start_with_tpch(tmp_path_factory.mktemp("pgjdbc"), workers=2)
    forwarder = UnixSocketForwarder(pathlib.Path(postgres.directory) / f".s.PGSQL.{postgres.port}")
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as shoal, \
                psycopg.connect(oracle, autocommit=True) as target:
            for sql in TPCH_SCHEMA:
                target.execute(sql)
            for table in TPCH_TABLES:
                copy_table(shoal, target, table)
            # A schema of the tool user's own, holding a table and a view.
            for server in (shoal, target):
                for sql in STAGING_SCHEMA:
                    server.execute(sql)
        yield run_checks(check_classes, {"shoal": local.port, "postgres": forwarder.port})
    finally:
        forwarder.close()
        local.kill()


def rows(detail, *labels):
    """The rows of a result set's detail, narrowed to the columns `labels` (all of them when none)."""
    if not labels:
        return detail["rows"]
    positions = [detail["columns"].index(label) for label in labels]
    return [tuple(row[position] for position in positions) for row in detail["rows"]]


def comparable(check, detail):
    """A check's detail, less what differs between two servers by design."""
    if check == "get_index_info_orders":
        # The index's tuple and page counts are the server's storage statistics.
        kept = [label for label in detail["columns"] if label not in ("CARDINALITY", "PAGES")]
        return {"columns": kept, "rows": rows(detail, *kept)}
    if check == "get_type_info":
        # Shoal has only some of PostgreSQL's types: the ones TPC-H uses must be described alike (in any order:
        # pgjdbc sorts them by DATA_TYPE alone).
        name = detail["columns"].index("TYPE_NAME")
        return {"columns": detail["columns"],
                "rows": sorted(row for row in detail["rows"] if row[name] in TYPE_INFO_TYPES)}
    return detail


def assert_facts(check, detail):
    """What a check must return for TPC-H, whichever server answers."""
    if check == "get_catalogs":
        assert [DATABASE] in rows(detail)
    elif check == "get_schemas":
        assert {"information_schema", "pg_catalog", "public", "staging"} <= {
            name for name, in rows(detail, "TABLE_SCHEM")}
    elif check == "get_tables_staging":
        assert rows(detail, "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE") == [
            ("staging", "loads", "TABLE"), ("staging", "recent", "VIEW")]
    elif check == "get_tables":
        assert rows(detail, "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE") == [
            ("public", name, "TABLE") for name in TPCH_TABLES]
    elif check == "get_columns_lineitem":
        assert rows(detail, "COLUMN_NAME", "TYPE_NAME", "DATA_TYPE", "COLUMN_SIZE", "DECIMAL_DIGITS",
                    "NULLABLE") == LINEITEM_COLUMNS
        assert rows(detail, "ORDINAL_POSITION") == [(position,) for position in range(1, 17)]
    elif check == "get_primary_keys_lineitem":
        assert rows(detail, "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME") == [
            ("lineitem", "l_orderkey", 1, "lineitem_pkey"), ("lineitem", "l_linenumber", 2, "lineitem_pkey")]
    elif check == "get_index_info_orders":
        assert rows(detail, "TABLE_NAME", "NON_UNIQUE", "INDEX_NAME", "ORDINAL_POSITION", "COLUMN_NAME") == [
            ("orders", False, "orders_pkey", 1, "o_orderkey")]
    elif check == "get_type_info":
        described = dict(rows(detail, "TYPE_NAME", "DATA_TYPE"))
        assert {name: described.get(name) for name in TYPE_INFO_TYPES} == TYPE_INFO_TYPES
    elif check == "set_time":
        assert rows(detail) == [["00:41:12"]]  # 23:11:12 plus 90 minutes wraps past midnight
    elif check == "set_float":
        # setFloat sends float4: real * integer is double precision, real + real stays real.
        assert rows(detail) == [["2.200000047683716", "0.3", "real"]]
    elif check in ("set_date", "set_timestamp", "set_big_decimal", "set_long"):
        assert len(rows(detail)) == 1 and rows(detail)[0][0] > 0
    elif check == "fetch_size_streaming":
        # 60175 rows, 100 at a time: 601 full batches, each followed by PortalSuspended, and the last 75.
        assert detail == {"rows": LINEITEM_ROWS_SF_001, "sum_l_orderkey": detail["sum_l_orderkey"],
                          "executes_with_limit_100": 602, "portal_suspended": 601, "count": LINEITEM_ROWS_SF_001}


def test_postgresql_answers_every_check(results):
    """The oracle itself: every check passes on PostgreSQL 15 with the values TPC-H implies."""
    for check, line in results["postgres"].items():
        assert line["ok"], line
        assert_facts(check, line["detail"])


@pytest.mark.parametrize("check", [
    pytest.param(check, marks=pytest.mark.xfail(strict=True, raises=KnownShoalFailure, reason=KNOWN_FAILURES[check]))
    if check in KNOWN_FAILURES else check for check in CHECKS])
def test_pgjdbc_gets_what_postgresql_gives(results, check):
    shoal, postgres = results["shoal"][check], results["postgres"][check]
    if not shoal["ok"] and shoal["error"] == KNOWN_FAILURES.get(check):
        raise KnownShoalFailure(f"{shoal['sqlstate']}: {shoal['error']}")
    assert shoal["ok"], shoal
    assert postgres["ok"], postgres
    if check == "get_catalogs":
        # Shoal lists the database the session is in; PostgreSQL lists every database of the server.
        assert rows(shoal["detail"]) == [[DATABASE]]
        assert shoal["detail"]["columns"] == postgres["detail"]["columns"]
    else:
        assert comparable(check, shoal["detail"]) == comparable(check, postgres["detail"])
    assert_facts(check, shoal["detail"])
