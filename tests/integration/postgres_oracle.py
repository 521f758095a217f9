"""A scratch PostgreSQL 15, started once per test session, as the oracle for what Shoal must answer: the
tests run the same statement on both and compare, never against results typed in by hand."""

import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import tempfile

import psycopg
import pytest

# coordinator/query/tpch_loader.cpp's schema without Shoal's distribution clauses: the TPC-H tables on the
# scratch PostgreSQL, for suites that compare a client's view of them.
TPCH_SCHEMA = [
    "CREATE TABLE region (r_regionkey INTEGER NOT NULL PRIMARY KEY, r_name CHAR(25) NOT NULL, "
    "r_comment VARCHAR(152))",
    "CREATE TABLE nation (n_nationkey INTEGER NOT NULL PRIMARY KEY, n_name CHAR(25) NOT NULL, "
    "n_regionkey INTEGER NOT NULL, n_comment VARCHAR(152))",
    "CREATE TABLE supplier (s_suppkey INTEGER NOT NULL PRIMARY KEY, s_name CHAR(25) NOT NULL, "
    "s_address VARCHAR(40) NOT NULL, s_nationkey INTEGER NOT NULL, s_phone CHAR(15) NOT NULL, "
    "s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL)",
    "CREATE TABLE customer (c_custkey INTEGER NOT NULL PRIMARY KEY, c_name VARCHAR(25) NOT NULL, "
    "c_address VARCHAR(40) NOT NULL, c_nationkey INTEGER NOT NULL, c_phone CHAR(15) NOT NULL, "
    "c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL)",
    "CREATE TABLE part (p_partkey INTEGER NOT NULL PRIMARY KEY, p_name VARCHAR(55) NOT NULL, "
    "p_mfgr CHAR(25) NOT NULL, p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INTEGER NOT NULL, "
    "p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL)",
    "CREATE TABLE partsupp (ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL, "
    "ps_availqty INTEGER NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL, "
    "PRIMARY KEY (ps_partkey, ps_suppkey))",
    "CREATE TABLE orders (o_orderkey BIGINT NOT NULL PRIMARY KEY, o_custkey INTEGER NOT NULL, "
    "o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, "
    "o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL, o_shippriority INTEGER NOT NULL, "
    "o_comment VARCHAR(79) NOT NULL)",
    "CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, "
    "l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, "
    "l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, "
    "l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, "
    "l_receiptdate DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, "
    "l_comment VARCHAR(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber))",
]

PG_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")


class ScratchPostgres:
    def __init__(self):
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="shoal-pg-oracle-"))
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.user = None

    def _run(self, *arguments):
        # initdb and postgres refuse to run as root: run them as the postgres user the package created.
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(prefix + [str(argument) for argument in arguments], check=True, capture_output=True,
                       timeout=120)

    def start(self):
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        data = self.directory / "data"
        # Collation C, as Shoal compares text byte by byte (and cases only ASCII letters).
        self._run(PG_BIN / "initdb", "-D", data, "-A", "trust", "-U", self.user, "--no-sync", "--locale=C",
                  "--encoding=UTF8")
        self._run(PG_BIN / "pg_ctl", "-D", data, "-l", self.directory / "log", "-w", "-o",
                  f"-p {self.port} -k {self.directory} -c listen_addresses='' -c fsync=off", "start")
        return self

    def conninfo(self, dbname=None):
        return f"host={self.directory} port={self.port} user={self.user} dbname={dbname or self.user}"

    def stop(self):
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(prefix + [str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate",
                                 "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    """The scratch PostgreSQL 15; fails (never skips) when it cannot start."""
    server = ScratchPostgres().start()
    yield server
    server.stop()


def answer(conninfo, sql):
    """What a server answers to `sql`: ("rows", column names, rows) or ("error", SQLSTATE)."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        try:
            cursor = connection.execute(sql)
        except psycopg.Error as error:
            return ("error", error.sqlstate)
        if cursor.description is None:
            return ("rows", None, None)
        return ("rows", [column.name for column in cursor.description], cursor.fetchall())



def session_answers(conninfo, statements, with_notices=False, text_types=()):
    """What a server answers to each of `statements`, run one after another in one session (autocommit, so
    that BEGIN and COMMIT are the statements'): (sql, command tag, column names, rows) or (sql, "error",
    SQLSTATE). With `with_notices`, each answer ends with the notices the statement raised (severity,
    SQLSTATE, message, detail). Values of the types named in `text_types` ("timestamptz") are compared as the
    server's text: byte for byte, and beyond what Python's types hold (infinity, years BC)."""
    answers = []
    with psycopg.connect(conninfo, autocommit=True) as connection:
        for name in text_types:
            connection.adapters.register_loader(name, psycopg.types.string.TextLoader)
        notices = []
        connection.add_notice_handler(lambda diagnostic: notices.append(
            (diagnostic.severity, diagnostic.sqlstate, diagnostic.message_primary, diagnostic.message_detail)))
        for sql in statements:
            notices.clear()
            try:
                cursor = connection.execute(sql)
            except psycopg.Error as error:
                answers.append((sql, "error", error.sqlstate) + ((list(notices),) if with_notices else ()))
                continue
            rows = cursor.fetchall() if cursor.description else None
            columns = [column.name for column in cursor.description] if cursor.description else None
            answers.append((sql, cursor.statusmessage, columns, rows) + ((list(notices),) if with_notices else ()))
    return answers


def shoal_conninfo(cluster):
    """How the oracle tests reach the shared Shoal cluster: as user postgres, like the scratch PostgreSQL."""
    return f"host=127.0.0.1 port={cluster.port} user=postgres dbname=postgres connect_timeout=10"


def set_up_both(cluster, postgres, statements):
    """Runs `statements` (each must succeed) on the shared Shoal cluster and on the scratch PostgreSQL;
    returns the two conninfos, Shoal's first."""
    shoal = shoal_conninfo(cluster)
    for conninfo in (shoal, postgres.conninfo()):
        for sql, *outcome in session_answers(conninfo, statements):
            assert outcome[0] != "error", (conninfo, sql, outcome)
    return shoal, postgres.conninfo()


def both_servers_fixture(setup, teardown):
    """A module fixture giving (Shoal's conninfo, PostgreSQL's) after running `setup` on both; `teardown` runs
    on Shoal afterwards (the scratch PostgreSQL goes away with its data)."""
    @pytest.fixture(scope="module")
    def both(cluster, postgres):
        shoal, oracle = set_up_both(cluster, postgres, setup)
        yield shoal, oracle
        session_answers(shoal, teardown)
    return both
