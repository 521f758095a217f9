"""Story: an analyst keeps staging tables in a schema of their own. CREATE SCHEMA, tables and views in it,
names qualified everywhere a BI tool qualifies them ("staging"."orders"), search_path honoured for lookups,
for CREATE and by current_schema(), and DROP SCHEMA ... CASCADE: each session answers as PostgreSQL 15
answers it, notices included. The schemas and their tables outlive a restart of the cluster."""

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import session_answers, set_up_both

TEARDOWN = ["DROP SCHEMA IF EXISTS sc_staging CASCADE", "DROP SCHEMA IF EXISTS sc_views CASCADE",
            "DROP SCHEMA IF EXISTS sc_errors CASCADE", "DROP SCHEMA IF EXISTS \"Sc Mixed\" CASCADE",
            "DROP SCHEMA IF EXISTS sc_copy CASCADE", "DROP SCHEMA IF EXISTS sc_prep CASCADE", "DROP SCHEMA IF EXISTS sc_noted CASCADE",
            "DROP TABLE IF EXISTS sc_orders", "DROP TABLE IF EXISTS sc_t", "DROP TABLE IF EXISTS sc_t2"]
SETUP = TEARDOWN + [
         "CREATE TABLE sc_orders (id integer, note text)", "INSERT INTO sc_orders VALUES (1, 'the public one')",
         "CREATE TABLE sc_t (a integer)", "INSERT INTO sc_t VALUES (100)"]

WHERE_THEY_LIVE = (
    "SELECT n.nspname, c.relname, c.relkind, pg_table_is_visible(c.oid) FROM pg_class c "
    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname IN ('orders', 'extra', 'sc_orders', 'v', 'sc_t') "
    "ORDER BY 1, 2")

SESSIONS = {
    "tables in a schema of their own, named with it or found on the search path": [
        "CREATE SCHEMA sc_staging",
        "CREATE TABLE sc_staging.orders (id integer PRIMARY KEY, total numeric(10,2))",
        "INSERT INTO sc_staging.orders VALUES (1, 10.50), (2, 20.00)",
        "SELECT * FROM sc_staging.orders ORDER BY id",
        "SELECT * FROM \"sc_staging\".\"orders\" ORDER BY id",
        "SELECT sc_staging.orders.total FROM sc_staging.orders ORDER BY 1",
        "SELECT o.id, p.note FROM sc_staging.orders o JOIN public.sc_orders p ON p.id = o.id",
        "SELECT * FROM orders",
        "SET search_path = sc_staging, public",
        "SHOW search_path",
        "SELECT current_schema(), current_schemas(false), current_schemas(true), current_schema",
        "SELECT * FROM orders ORDER BY id",
        "SELECT * FROM sc_orders",
        "CREATE TABLE extra (a integer)",
        "INSERT INTO extra VALUES (7)",
        "SELECT * FROM sc_staging.extra",
        "SELECT 'orders'::regclass::text, 'public.sc_orders'::regclass::text, 'extra'::regclass::text",
        WHERE_THEY_LIVE,
        "SELECT table_schema, table_name, table_type FROM information_schema.tables "
        "WHERE table_name IN ('orders', 'extra', 'sc_orders') ORDER BY 1, 2",
        "SELECT table_schema, table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = 'sc_staging' ORDER BY 2, ordinal_position",
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'sc\\_%'",
        "SELECT schemaname, tablename FROM pg_tables WHERE schemaname = 'sc_staging' ORDER BY 2",
        "SELECT indexrelid::regclass::text, indrelid::regclass::text FROM pg_index "
        "WHERE indrelid = 'sc_staging.orders'::regclass",
        "SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'sc_staging.orders'::regclass",
        "RESET search_path",
        "SELECT 'sc_staging.orders'::regclass::text, 'sc_staging'::regnamespace::text",
        WHERE_THEY_LIVE,
        "TRUNCATE sc_staging.extra",
        "SELECT count(*) FROM sc_staging.extra",
        "DROP SCHEMA sc_staging",
        "DROP TABLE sc_staging.extra",
        "DROP SCHEMA sc_staging CASCADE",
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'sc\\_%'",
        "SELECT * FROM sc_staging.orders",
    ],
    "a view reads the tables of the search path it was created under": [
        "CREATE SCHEMA sc_views",
        "CREATE TABLE sc_views.sc_t (a integer)",
        "INSERT INTO sc_views.sc_t VALUES (1), (2)",
        "SET search_path = sc_views",
        "CREATE VIEW v AS SELECT a FROM sc_t",
        "SELECT * FROM v ORDER BY 1",
        "RESET search_path",
        "SELECT * FROM sc_t",
        "SELECT * FROM sc_views.v ORDER BY 1",
        "SELECT * FROM v",
        "SELECT table_schema, table_name FROM information_schema.views WHERE table_schema = 'sc_views'",
        WHERE_THEY_LIVE,
        "DROP VIEW v",
        "DROP VIEW sc_views.v",
        "DROP SCHEMA sc_views CASCADE",
    ],
    "what PostgreSQL refuses, with its SQLSTATEs": [
        "CREATE SCHEMA sc_errors",
        "CREATE SCHEMA sc_errors",
        "CREATE SCHEMA IF NOT EXISTS sc_errors",
        "CREATE SCHEMA pg_nope",
        "CREATE TABLE sc_nope.t (a integer)",
        "SELECT * FROM sc_nope.t",
        "INSERT INTO sc_nope.t VALUES (1)",
        "DROP SCHEMA sc_nope",
        "DROP SCHEMA IF EXISTS sc_nope, sc_nope_too",
        "DROP TABLE sc_nope.t",
        "DROP TABLE IF EXISTS sc_nope.t",
        "DROP SCHEMA pg_catalog",
        "SELECT 'sc_nope.t'::regclass",
        "SELECT 'sc_errors'::regnamespace::text, 'sc_nope'::regnamespace",
        "SELECT has_schema_privilege('sc_errors', 'USAGE')",
        "SELECT has_schema_privilege('sc_nope', 'USAGE')",
        "SET search_path = sc_missing",
        "CREATE TABLE t_nowhere (a integer)",
        "SELECT current_schema(), current_schemas(false)",
        "SELECT * FROM pg_class WHERE false",
        "RESET search_path",
        "CREATE TABLE pg_catalog.t_system (a integer)",
        "TRUNCATE pg_class",
        "DROP SCHEMA sc_errors",
        "DROP SCHEMA sc_errors",
    ],
    "quoted schema names": [
        "CREATE SCHEMA \"Sc Mixed\"",
        "CREATE TABLE \"Sc Mixed\".\"T\" (a integer)",
        "INSERT INTO \"Sc Mixed\".\"T\" VALUES (3)",
        "SELECT * FROM \"Sc Mixed\".\"T\"",
        "SET search_path TO \"Sc Mixed\", public",
        "SHOW search_path",
        "SELECT * FROM \"T\"",
        "SELECT current_schemas(true)",
        "SET search_path = ''",
        "SHOW search_path",
        "SELECT current_schemas(true)",
        "RESET search_path",
        "SELECT '\"Sc Mixed\".\"T\"'::regclass::text",
        "DROP SCHEMA \"Sc Mixed\" CASCADE",
    ],
    "a prepared statement binds again under another search_path, as PostgreSQL plans it again": [
        "CREATE SCHEMA sc_prep",
        "CREATE TABLE sc_prep.sc_t (a integer)",
        "INSERT INTO sc_prep.sc_t VALUES (1)",
        "PREPARE sc_read AS SELECT a FROM sc_t",
        "PREPARE sc_write AS INSERT INTO sc_t VALUES (5)",
        "EXECUTE sc_read",
        "SET search_path = sc_prep, public",
        "EXECUTE sc_read",
        "EXECUTE sc_write",
        "SELECT a FROM sc_prep.sc_t ORDER BY 1",
        "RESET search_path",
        "EXECUTE sc_read",
        "CREATE TABLE sc_t2 (a integer)",
        "CREATE TABLE sc_prep.sc_t2 (a text)",
        "PREPARE sc_typed AS SELECT a FROM sc_t2",
        "SET search_path = sc_prep",
        "EXECUTE sc_typed",
        "RESET search_path",
        "EXECUTE sc_typed",
        "DEALLOCATE ALL",
        "DROP TABLE sc_t2",
        "DROP SCHEMA sc_prep CASCADE",
    ],
    "COMMENT ON SCHEMA, shown where PostgreSQL shows it": [
        "CREATE SCHEMA sc_noted",
        "COMMENT ON SCHEMA sc_noted IS 'Staging area'",
        "SELECT n.nspname, obj_description(n.oid, 'pg_namespace'), obj_description(n.oid) FROM pg_namespace n "
        "WHERE n.nspname IN ('sc_noted', 'public', 'pg_catalog', 'information_schema') ORDER BY 1",
        "SELECT n.nspname, d.objsubid, d.description FROM pg_description d JOIN pg_namespace n ON n.oid = d.objoid "
        "WHERE d.classoid = 'pg_namespace'::regclass AND n.nspname NOT LIKE 'pg\\_toast%' ORDER BY 1",
        "COMMENT ON SCHEMA public IS 'ours now'",
        "SELECT obj_description('public'::regnamespace, 'pg_namespace')",
        "COMMENT ON SCHEMA public IS 'standard public schema'",
        "COMMENT ON SCHEMA sc_noted IS NULL",
        "SELECT obj_description('sc_noted'::regnamespace, 'pg_namespace')",
        "COMMENT ON SCHEMA sc_missing IS 'x'",
        "COMMENT ON SCHEMA sc_noted IS 'again'",
        "DROP SCHEMA sc_noted",
        "SELECT count(*) FROM pg_description d JOIN pg_namespace n ON n.oid = d.objoid "
        "WHERE d.classoid = 'pg_namespace'::regclass AND n.nspname NOT LIKE 'pg\\_toast%'",
    ],
    "COPY and COMMENT ON name tables with their schema": [
        "CREATE SCHEMA sc_copy",
        "CREATE TABLE sc_copy.items (id integer, label text)",
        "COMMENT ON TABLE sc_copy.items IS 'staged items'",
        "COMMENT ON COLUMN sc_copy.items.label IS 'what it is'",
        "SELECT obj_description('sc_copy.items'::regclass, 'pg_class'), "
        "col_description('sc_copy.items'::regclass, 2)",
        "COMMENT ON TABLE items IS 'x'",
        "DROP SCHEMA sc_copy CASCADE",
    ],
}


def run_session(conninfo, statements):
    return session_answers(conninfo, statements, with_notices=True)


@pytest.fixture
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    run_session(shoal, TEARDOWN)


@pytest.mark.parametrize("name", SESSIONS)
def test_schemas_answer_as_on_postgresql(both, name):
    shoal, postgres = both
    assert run_session(shoal, SESSIONS[name]) == run_session(postgres, SESSIONS[name])


def test_a_schema_and_its_tables_outlive_a_restart(tmp_path):
    local = LocalCluster(tmp_path, workers=1).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            connection.execute("CREATE SCHEMA kept")
            connection.execute("CREATE TABLE kept.t (a integer)")
            connection.execute("INSERT INTO kept.t VALUES (1), (2)")
            connection.execute("CREATE TABLE t (a integer)")  # the same name in public stays apart
            connection.execute("INSERT INTO t VALUES (3)")
            connection.execute("CREATE VIEW kept.v AS SELECT a FROM kept.t WHERE a > 1")
        assert local.stop() == 0
        local = LocalCluster(tmp_path, workers=1).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute("SELECT sum(a) FROM kept.t").fetchone() == (3,)
            assert connection.execute("SELECT sum(a) FROM public.t").fetchone() == (3,)
            assert connection.execute("SELECT a FROM kept.v").fetchall() == [(2,)]
            assert connection.execute(
                "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE c.relname = 't' ORDER BY 1").fetchall() == [("kept",), ("public",)]
            connection.execute("DROP SCHEMA kept CASCADE")
            assert connection.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'kept'").fetchone() == (0,)
            assert connection.execute("SELECT a FROM t").fetchall() == [(3,)]
    finally:
        local.kill()


def test_a_driver_prepared_statement_follows_search_path(both):
    """psycopg prepares a statement it runs often (Parse once, then Bind and Execute): changing search_path in
    between makes it read the relation the new path finds, on both servers."""

    def reads(conninfo):
        seen = []
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("CREATE SCHEMA sc_prep")
            connection.execute("CREATE TABLE sc_prep.sc_t (a integer)")
            connection.execute("INSERT INTO sc_prep.sc_t VALUES (1)")
            try:
                for path in ("public", "sc_prep, public", "public"):
                    connection.execute(f"SET search_path = {path}")
                    seen.append(connection.execute("SELECT a FROM sc_t", prepare=True).fetchall())
            finally:
                connection.execute("RESET search_path")
                connection.execute("DROP SCHEMA sc_prep CASCADE")
        return seen

    shoal, postgres = both
    assert reads(shoal) == reads(postgres) == [[(100,)], [(1,)], [(100,)]]
