"""Story: an analyst stages intermediate results in temporary tables. CREATE TEMP TABLE, CREATE TEMP TABLE ... AS
and SELECT ... INTO TEMP make tables only their session sees, which shadow a permanent table of the same name, join
with the cluster's tables, show up in psql's catalog queries as temporary, and go away when the session ends (and,
after a crash, when the coordinator starts again). Each session answers as PostgreSQL 15 answers it, notices
included; only the number in the temporary schema's name (pg_temp_N) differs, and is masked."""

import re
import psycopg
import pytest

from cluster import LocalCluster, wait_until
from postgres_oracle import session_answers, set_up_both

SETUP = ["DROP TABLE IF EXISTS tt_shadowed", "DROP TABLE IF EXISTS tt_orders",
         "CREATE TABLE tt_shadowed (a integer)", "INSERT INTO tt_shadowed VALUES (1)",
         "CREATE TABLE tt_orders (id integer PRIMARY KEY, customer integer, total numeric(10,2))",
         "INSERT INTO tt_orders SELECT g, g % 7, g * 1.25 FROM generate_series(1, 200) AS g"]

WHAT_PG_CLASS_SHOWS = (
    "SELECT c.relname, c.relkind, c.relpersistence, n.nspname, pg_table_is_visible(c.oid) FROM pg_class c "
    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname LIKE 'tt\\_%' ORDER BY 1, 4")

SESSION = [
    "CREATE TEMP TABLE tt_shadowed (a integer, b text)",
    "INSERT INTO tt_shadowed VALUES (2, 'temporary'), (3, NULL)",
    "SELECT * FROM tt_shadowed ORDER BY a",
    "SELECT * FROM public.tt_shadowed",
    "SELECT * FROM pg_temp.tt_shadowed ORDER BY a",
    "CREATE TEMPORARY TABLE tt_big_customers AS "
    "SELECT customer, sum(total) AS spent FROM tt_orders GROUP BY customer HAVING sum(total) > 3500",
    "SELECT * FROM tt_big_customers ORDER BY customer",
    "SELECT o.customer, count(*), max(b.spent) FROM tt_orders o JOIN tt_big_customers b USING (customer) "
    "GROUP BY o.customer ORDER BY 1",
    "SELECT g AS n INTO TEMP tt_small FROM generate_series(1, 3) AS g",
    "SELECT * FROM tt_small ORDER BY n",
    "CREATE TEMP VIEW tt_view AS SELECT n * 10 AS tens FROM tt_small",
    "SELECT * FROM tt_view ORDER BY tens",
    "CREATE VIEW tt_implicit AS SELECT customer FROM tt_big_customers",
    "SELECT count(*) FROM tt_implicit",
    WHAT_PG_CLASS_SHOWS,
    "SELECT current_schemas(false), current_schemas(true)",
    "SELECT table_name, table_type FROM information_schema.tables WHERE table_name LIKE 'tt\\_%' ORDER BY 1, 2",
    "SELECT count(*) FROM pg_namespace WHERE oid = pg_my_temp_schema()",
    "CREATE TEMP TABLE public.tt_elsewhere (a integer)",
    "CREATE TEMP TABLE tt_small (x integer)",
    "ALTER TABLE tt_small ADD COLUMN label text",
    "INSERT INTO tt_small VALUES (4, 'four')",
    "SELECT * FROM tt_small ORDER BY n",
    "DROP TABLE tt_shadowed",
    "SELECT * FROM tt_shadowed",
    "DROP VIEW tt_implicit",
    "DROP TABLE tt_big_customers",
    WHAT_PG_CLASS_SHOWS,
]


def masked(value):
    """`value` (answers, rows, values) with the temporary schema's number masked: PostgreSQL's pg_temp_3 is
    pg_temp_1001 here."""
    if isinstance(value, str):
        return re.sub(r"pg_temp_\d+", "pg_temp_N", value)
    if isinstance(value, (list, tuple)):
        return type(value)(masked(item) for item in value)
    return value


@pytest.fixture(scope="module")
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    session_answers(shoal, ["DROP TABLE IF EXISTS tt_shadowed", "DROP TABLE IF EXISTS tt_orders"])


def test_a_session_of_temporary_tables_answers_as_on_postgresql(both):
    shoal, postgres = both
    ours = masked(session_answers(shoal, SESSION, with_notices=True))
    theirs = masked(session_answers(postgres, SESSION, with_notices=True))
    for mine, expected in zip(ours, theirs):
        assert mine == expected


def test_other_sessions_neither_see_nor_read_them(both):
    """Another session finds the permanent table under the name, and reading the first session's temporary
    table by its schema's name fails with 0A000, on both servers."""
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as owner, psycopg.connect(conninfo, autocommit=True) as other:
            owner.execute("CREATE TEMP TABLE tt_shadowed (a integer)")
            owner.execute("INSERT INTO tt_shadowed VALUES (42)")
            schema = owner.execute("SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()").fetchone()
            assert owner.execute("SELECT a FROM tt_shadowed").fetchall() == [(42,)]
            assert other.execute("SELECT a FROM tt_shadowed").fetchall() == [(1,)], conninfo
            if schema is not None:
                with pytest.raises(psycopg.errors.FeatureNotSupported):
                    other.execute(f"SELECT a FROM {schema[0]}.tt_shadowed")


def test_a_temporary_table_goes_with_its_session(cluster):
    """Once the session ends, its temporary tables and schema are gone from the catalog: another session's
    pg_class and pg_namespace no longer list them."""
    conninfo = cluster.conninfo()
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute("CREATE TEMP TABLE tt_gone AS SELECT g FROM generate_series(1, 1000) AS g")
        schema = connection.execute("SELECT relnamespace::regnamespace::text FROM pg_class "
                                    "WHERE relname = 'tt_gone'").fetchone()[0]
        assert schema.startswith("pg_temp_")
    with psycopg.connect(conninfo, autocommit=True) as watcher:
        # The session's end drops the tables, then the schema: wait for both.
        def gone():
            tables = watcher.execute("SELECT count(*) FROM pg_class WHERE relname = 'tt_gone'").fetchone()[0]
            schemas = watcher.execute("SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone()[0]
            return tables == 0 and schemas == 0
        wait_until(gone, timeout_s=10)


def test_on_commit_drop_is_refused_until_transactions_are(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            connection.execute("CREATE TEMP TABLE tt_once (a integer) ON COMMIT DROP")


def test_temporary_tables_a_crash_left_are_dropped_at_the_next_start(tmp_path):
    local = LocalCluster(tmp_path, workers=1).start()
    try:
        connection = psycopg.connect(local.conninfo(), autocommit=True)
        connection.execute("CREATE TABLE tt_kept (a integer)")
        connection.execute("INSERT INTO tt_kept VALUES (1)")
        connection.execute("CREATE TEMP TABLE tt_left (a integer)")
        connection.execute("INSERT INTO tt_left VALUES (2)")
        local.kill()  # the session never ends cleanly
        connection.close()
        local = LocalCluster(tmp_path, workers=1).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute("SELECT a FROM tt_kept").fetchall() == [(1,)]
            assert connection.execute("SELECT count(*) FROM pg_class WHERE relname = 'tt_left'").fetchone() == (0,)
            assert connection.execute(
                "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg\\_temp\\_%'").fetchone() == (0,)
    finally:
        assert local.stop() == 0
