"""Story: a user browses a 2-worker cluster with psql 15's backslash commands and sees what psql shows for the
same tables and views on PostgreSQL 15: \\dt, \\dv, \\dn, \\d, \\du, \\df and \\l, with and without a name pattern,
and \\d and \\d+ of TPC-H's lineitem and orders (its keys, and comments on orders), and of a table and a view in a
schema of their own, also found through search_path. Both are
browsed as user shoal, which owns everything on both sides."""

import subprocess

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import TPCH_SCHEMA, answer

SCHEMA = [
    "CREATE TABLE psql_orders (o_id bigint PRIMARY KEY, o_total numeric(12,2), o_date date)",
    "CREATE TABLE psql_items (i_order bigint NOT NULL, i_name varchar(30), i_flag char(1))",
    "CREATE TABLE \"Mixed Case\" (a integer)",
    "CREATE VIEW psql_big_orders AS SELECT o_id, o_total FROM psql_orders WHERE o_total > 100",
    *[sql for sql in TPCH_SCHEMA if sql.startswith(("CREATE TABLE orders", "CREATE TABLE lineitem"))],
    "INSERT INTO psql_orders VALUES (1, 120.50, '1996-01-02'), (2, NULL, '1996-12-01'), (3, 99.99, NULL)",
    "INSERT INTO psql_items VALUES (1, 'bolt, \"hex\"', 'A'), (1, NULL, NULL), (3, 'tab\there', 'B')",
    "COMMENT ON TABLE orders IS 'One row per order'",
    "COMMENT ON COLUMN orders.o_comment IS 'Free text from the clerk'",
    "CREATE SCHEMA psql_staging",
    "COMMENT ON SCHEMA psql_staging IS 'Loads before they are checked'",
    "CREATE TABLE psql_staging.loads (id integer PRIMARY KEY, note text)",
    "CREATE TABLE psql_accounts (region integer, login text, seat integer, PRIMARY KEY (region, login), "
    "UNIQUE (seat, region))",
    "CREATE VIEW psql_staging.recent_loads AS SELECT id FROM psql_staging.loads WHERE id > 10",
]

COMMANDS = ["\\dt", "\\dv", "\\dn", "\\d", "\\dt psql*", "\\dt psql_o*", "\\dv *orders", "\\dt \"Mixed Case\"",
            "\\dt nosuch", "\\dt public.*", "\\l psql_oracle", "\\l nosuch", "\\du shoal", "\\du nosuch",
            "\\d lineitem", "\\d+ orders", "\\d psql_items", "\\d \"Mixed Case\"", "\\d nosuch", "\\df",
            "\\df char_length", "\\df current_setting", "\\df replace", "\\df nosuch", "\\dt psql_staging.*",
            "\\dv psql_staging.*", "\\d psql_staging.loads", "\\d psql_staging.recent_loads", "\\dn psql*",
            "\\dn+ psql*", "\\d psql_accounts"]


def psql(host, port, *commands):
    """psql run with each of `commands` as a -c, in order, in one session."""
    arguments = [argument for command in commands for argument in ("-c", command)]
    done = subprocess.run(["psql", "-X", "-P", "pager=off", "-h", str(host), "-p", str(port), "-U", "shoal",
                           "-d", "psql_oracle", *arguments],
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def servers(tmp_path_factory, postgres):
    """A fresh 2-worker cluster and a fresh database psql_oracle on the scratch PostgreSQL, both with SCHEMA."""
    admin = postgres.conninfo()
    with psycopg.connect(admin, autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_roles WHERE rolname = 'shoal'").fetchone():
            connection.execute("CREATE ROLE shoal LOGIN")
        # Shoal's one role has every attribute (\\du lists them).
        connection.execute("ALTER ROLE shoal SUPERUSER CREATEROLE CREATEDB REPLICATION BYPASSRLS LOGIN")
        connection.execute("DROP DATABASE IF EXISTS psql_oracle")
        connection.execute("CREATE DATABASE psql_oracle OWNER shoal")
    oracle = f"host={postgres.directory} port={postgres.port} user=shoal dbname=psql_oracle"
    local = LocalCluster(tmp_path_factory.mktemp("psql"), workers=2).start()
    shoal = f"host=127.0.0.1 port={local.port} user=shoal dbname=psql_oracle connect_timeout=10"
    try:
        for conninfo in (shoal, oracle):
            for sql in SCHEMA:
                assert answer(conninfo, sql) == ("rows", None, None), sql
        yield ("127.0.0.1", local.port), (str(postgres.directory), postgres.port)
    finally:
        local.kill()


@pytest.mark.parametrize("command", COMMANDS)
def test_psql_shows_what_it_shows_on_postgresql(servers, command):
    shoal, oracle = servers
    assert psql(*shoal, command) == psql(*oracle, command)


# Expanded output, and \copy out to psql's own output in text and CSV (what \copy ... to 'file' writes).
SESSIONS = [
    ("\\x on", "SELECT * FROM psql_orders ORDER BY o_id"),
    ("\\x on", "SELECT i_order, i_name FROM psql_items WHERE i_name IS NOT NULL ORDER BY 2"),
    ("\\copy (SELECT * FROM psql_orders ORDER BY o_id) to stdout",),
    ("\\copy (SELECT * FROM psql_items ORDER BY i_order, i_name) to stdout with (format csv, header)",),
    ("\\copy psql_orders (o_id, o_date) to stdout csv",),
    ("SET search_path = psql_staging, public", "\\dt", "\\d loads"),
]


@pytest.mark.parametrize("commands", SESSIONS)
def test_psql_session_shows_what_it_shows_on_postgresql(servers, commands):
    shoal, oracle = servers
    shoal_answer = psql(*shoal, *commands)
    assert shoal_answer[0] == 0, shoal_answer
    if "ORDER BY" not in commands[-1]:  # a whole table comes out in storage order: compare its lines as a set
        assert sorted(shoal_answer[1].splitlines()) == sorted(psql(*oracle, *commands)[1].splitlines())
    else:
        assert shoal_answer == psql(*oracle, *commands)
