"""Story: a user walks hierarchies and series with WITH RECURSIVE on a 2-worker cluster holding TPC-H SF 0.01.

- A runaway recursion (no condition that ends it) stops at max_recursive_iterations with 54001, a message naming
  the setting, and the server answers the next query; raising the setting lets a deeper recursion finish.
- A recursive query over a distributed table (the supplier-nation chain) matches the same walk done by hand.
- statement_timeout and a cancel stop a long recursion with 57014.
- A prepared statement runs its recursive query again with new parameters each time (nothing is cached).
- EXPLAIN shows the recursive query's two terms; EXPLAIN ANALYZE counts its rows.

The SQL semantics (results, refusals and their SQLSTATEs) are compared with PostgreSQL 15 in
tests/sql/logic/recursive.test.
"""

import threading
import time

import psycopg
import pytest

from cluster import start_with_tpch

COUNT_UP = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t{}) SELECT count(*), max(n) FROM t"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("recursive"), workers=2, scale_factor=0.01)
    yield local
    local.kill()


def connect(cluster):
    return psycopg.connect(cluster.conninfo(), autocommit=True)


def test_a_runaway_recursion_stops_at_the_limit_and_names_it(cluster):
    with connect(cluster) as connection:
        assert connection.execute("SHOW max_recursive_iterations").fetchone() == ("10000",)
        with pytest.raises(psycopg.Error) as error:
            connection.execute(COUNT_UP.format(""))
        assert error.value.sqlstate == "54001"
        assert "max_recursive_iterations (10000)" in str(error.value)
        assert "max_recursive_iterations" in error.value.diag.message_hint
        # The limit counts recursive steps: 10000 of them give 10001 rows.
        assert connection.execute(COUNT_UP.format(" WHERE n <= 10000")).fetchone() == (10001, 10001)
        with pytest.raises(psycopg.Error) as error:
            connection.execute(COUNT_UP.format(" WHERE n <= 10001"))
        assert error.value.sqlstate == "54001"
        connection.execute("SET max_recursive_iterations = 20000")
        assert connection.execute(COUNT_UP.format(" WHERE n < 15000")).fetchone() == (15000, 15000)
        connection.execute("SET max_recursive_iterations = 5")
        with pytest.raises(psycopg.Error) as error:
            connection.execute(COUNT_UP.format(" WHERE n < 10"))
        assert "max_recursive_iterations (5)" in str(error.value)
        for bad in ("0", "-1", "many"):
            with pytest.raises(psycopg.Error) as error:
                connection.execute(f"SET max_recursive_iterations = '{bad}'")
            assert error.value.sqlstate == "22023"
        connection.execute("RESET max_recursive_iterations")
        assert connection.execute("SELECT 1").fetchone() == (1,)


def test_a_walk_over_a_distributed_table_matches_the_walk_by_hand(cluster):
    with connect(cluster) as connection:
        # Orders of one customer, each step the customer's next order by key: a recursive join with orders.
        customer = connection.execute("SELECT o_custkey FROM orders GROUP BY o_custkey "
                                      "ORDER BY count(*) DESC, o_custkey LIMIT 1").fetchone()[0]
        keys = [row[0] for row in connection.execute(
            "SELECT o_orderkey FROM orders WHERE o_custkey = %s ORDER BY o_orderkey", (customer,))]
        walked = connection.execute(
            "WITH RECURSIVE chain(k, step) AS ("
            " SELECT min(o_orderkey), 1 FROM orders WHERE o_custkey = %(c)s"
            " UNION ALL"
            " SELECT (SELECT min(o_orderkey) FROM orders o WHERE o.o_custkey = %(c)s AND o.o_orderkey > chain.k),"
            "        step + 1 FROM chain WHERE k IS NOT NULL)"
            " SELECT k FROM chain WHERE k IS NOT NULL ORDER BY step", {"c": customer}).fetchall()
        assert [row[0] for row in walked] == keys
        assert len(keys) > 3


def test_statement_timeout_and_cancel_stop_a_long_recursion(cluster):
    with connect(cluster) as connection:
        connection.execute("SET max_recursive_iterations = 2000000000")
        connection.execute("SET statement_timeout = '300ms'")
        started = time.monotonic()
        with pytest.raises(psycopg.Error) as error:
            connection.execute(COUNT_UP.format(""))
        assert error.value.sqlstate == "57014"
        assert time.monotonic() - started < 10
        connection.execute("SET statement_timeout = 0")
        timer = threading.Timer(0.3, connection.cancel)
        timer.start()
        with pytest.raises(psycopg.Error) as error:
            connection.execute(COUNT_UP.format(""))
        timer.join()
        assert error.value.sqlstate == "57014"
        assert connection.execute("SELECT 2").fetchone() == (2,)


def test_a_prepared_recursive_query_runs_again_with_new_parameters(cluster):
    with connect(cluster) as connection:
        statement = "WITH RECURSIVE t(n) AS (SELECT %s::int UNION ALL SELECT n + 1 FROM t WHERE n < %s) SELECT sum(n) FROM t"
        for start, end in ((1, 10), (5, 7), (3, 3)):
            row = connection.execute(statement, (start, end), prepare=True).fetchone()
            assert row == (sum(range(start, end + 1)),)


def test_explain_shows_both_terms_and_analyze_counts_rows(cluster):
    with connect(cluster) as connection:
        query = ("WITH RECURSIVE t(k) AS (SELECT n_nationkey FROM nation WHERE n_nationkey = 0 UNION ALL "
                 "SELECT n.n_nationkey FROM t JOIN nation n ON n.n_nationkey = t.k + 1) SELECT k FROM t")
        plan = "\n".join(row[0] for row in connection.execute("EXPLAIN " + query))
        assert "Recursive CTE Scan t" in plan and "WorkTable Scan t" in plan
        analyzed = "\n".join(row[0] for row in connection.execute("EXPLAIN ANALYZE " + query))
        scan = next(line for line in analyzed.splitlines() if "Recursive CTE Scan t" in line)
        assert "actual=25" in scan
