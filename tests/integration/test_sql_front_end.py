"""Story: a user defines views, asks EXPLAIN how queries would run, and uses an ordinary psycopg application."""

import psycopg
import pytest

from cluster import run_sql as run


@pytest.fixture
def orders(cluster):
    """Two small tables with statistics, dropped afterwards."""
    run(cluster, "DROP VIEW IF EXISTS fe_big_orders")
    run(cluster, "DROP TABLE IF EXISTS fe_orders")
    run(cluster, "DROP TABLE IF EXISTS fe_customers")
    run(cluster, "CREATE TABLE fe_customers (id INTEGER NOT NULL PRIMARY KEY, name TEXT, region TEXT)")
    run(cluster, "CREATE TABLE fe_orders (id INTEGER NOT NULL PRIMARY KEY, customer INTEGER, total DECIMAL(10,2))")
    run(cluster, "INSERT INTO fe_customers VALUES (1, 'ann', 'north'), (2, 'bob', 'south'), (3, 'cy', NULL)")
    run(cluster, "INSERT INTO fe_orders VALUES (10, 1, 5.00), (11, 1, 250.00), (12, 2, 99.99), (13, NULL, 700.00)")
    yield
    run(cluster, "DROP VIEW IF EXISTS fe_big_orders")
    run(cluster, "DROP TABLE IF EXISTS fe_orders")
    run(cluster, "DROP TABLE IF EXISTS fe_customers")


def explain(cluster, sql):
    return "\n".join(row[0] for row in run(cluster, "EXPLAIN " + sql))


def test_views_are_queried_like_tables_and_survive_a_restart_of_the_session(cluster, orders):
    run(cluster, "CREATE VIEW fe_big_orders (order_id, amount) AS SELECT id, total FROM fe_orders WHERE total > 100")
    assert run(cluster, "SELECT count(*), sum(amount) FROM fe_big_orders") == [(2, 950)]
    assert run(cluster, "SELECT max(order_id) FROM fe_big_orders WHERE amount < 500") == [(11,)]
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.errors.DuplicateTable):
            connection.execute("CREATE VIEW fe_big_orders AS SELECT 1")
        connection.execute("CREATE OR REPLACE VIEW fe_big_orders AS SELECT id AS order_id, total AS amount "
                           "FROM fe_orders WHERE total > 10")
        assert connection.execute("SELECT count(*) FROM fe_big_orders").fetchone() == (3,)
        with pytest.raises(psycopg.errors.WrongObjectType) as caught:
            connection.execute("DROP TABLE fe_big_orders")
        assert caught.value.diag.message_hint == "Use DROP VIEW to remove a view."
    run(cluster, "DROP VIEW fe_big_orders")
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.errors.UndefinedTable):
            connection.execute("SELECT * FROM fe_big_orders")


def test_explain_shows_decorrelated_joins_with_estimates(cluster, orders):
    plan = explain(cluster, """SELECT c.name, sum(o.total) FROM fe_customers c JOIN fe_orders o ON o.customer = c.id
                               WHERE EXISTS (SELECT 1 FROM fe_orders big WHERE big.customer = c.id AND big.total > 200)
                               GROUP BY c.name ORDER BY 2 DESC""")
    assert "HashJoin INNER" in plan, plan
    assert "HashJoin SEMI" in plan, plan
    assert "HashAggregate" in plan and "Sort" in plan, plan
    assert "Dependent" not in plan and "CrossProduct" not in plan, plan
    assert "(rows=" in plan, plan
    verbose = explain(cluster, "VERBOSE SELECT id * 2 AS twice FROM fe_orders WHERE total > 100")
    assert "twice := (id * 2)" in verbose, verbose
    assert "filter: (total > 100.00)" in verbose, verbose
    # The plan runs: joins, subqueries, grouping and ordering.
    rows = run(cluster, """SELECT c.name, sum(o.total) FROM fe_customers c JOIN fe_orders o ON o.customer = c.id
                           WHERE EXISTS (SELECT 1 FROM fe_orders big WHERE big.customer = c.id AND big.total > 200)
                           GROUP BY c.name ORDER BY 2 DESC""")
    assert rows == [("ann", 255)]
    assert run(cluster, "SELECT name FROM fe_customers ORDER BY name DESC LIMIT 2") == [("cy",), ("bob",)]
    assert run(cluster, """SELECT id FROM fe_customers WHERE id NOT IN (SELECT customer FROM fe_orders)""") == []
    assert run(cluster, """SELECT id FROM fe_customers WHERE id NOT IN
                           (SELECT customer FROM fe_orders WHERE customer IS NOT NULL) ORDER BY id""") == [(3,)]
    assert run(cluster, """SELECT c.id, (SELECT count(*) FROM fe_orders o WHERE o.customer = c.id)
                           FROM fe_customers c ORDER BY 1""") == [(1, 2), (2, 1), (3, 0)]


def test_explain_analyze_shows_actual_rows_next_to_the_estimates(cluster, orders):
    plan = explain(cluster, """ANALYZE SELECT c.region, count(*) FROM fe_customers c JOIN fe_orders o ON o.customer = c.id
                               GROUP BY c.region""")
    assert "HashJoin INNER  (rows=" in plan, plan
    join_line = next(line for line in plan.splitlines() if "HashJoin INNER" in line)
    assert join_line.endswith("actual=3)"), plan  # orders 10, 11 and 12 have customers
    scan_line = next(line for line in plan.splitlines() if "Scan fe_orders" in line)
    assert scan_line.endswith("actual=4)"), plan


def test_a_psycopg_application_prepares_statements_and_deallocates_them(cluster, orders):
    """psycopg prepares a statement after five runs and sends DEALLOCATE ALL after DDL."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        for _ in range(8):
            assert connection.execute("SELECT count(*) FROM fe_orders WHERE total > %s", (50,)).fetchone() == (3,)
        connection.execute("CREATE VIEW fe_big_orders AS SELECT id FROM fe_orders WHERE total > 100")
        for _ in range(3):
            assert connection.execute("SELECT count(*) FROM fe_orders WHERE total > %s", (50,)).fetchone() == (3,)
        connection.execute("DEALLOCATE ALL")
        connection.execute("DISCARD ALL")
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            connection.execute("DEALLOCATE no_such_statement")
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_a_parameter_in_a_simple_query_is_an_error_not_a_crash(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.errors.UndefinedParameter) as caught:
            connection.execute("SELECT $1", prepare=False)
        assert caught.value.diag.statement_position == "8"
        assert connection.execute("SELECT 2").fetchone() == (2,)
