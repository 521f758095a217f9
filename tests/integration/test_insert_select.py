"""Story: a user fills tables from queries with INSERT ... SELECT on a 3-worker cluster holding TPC-H SF 0.1.

- A copy of lineitem into a table hashed on another key: EXPLAIN says each worker routes the rows it computes
  to the workers that own them, and the coordinator's peak resident memory does not grow by the rows (a query that
  ends on the coordinator does grow it: the test shows the difference). The copy holds the source's rows, each on
  the worker that owns its key: a join that the planner runs in place, without moving rows, finds every one.
- A query whose last step runs on the coordinator (ORDER BY ... LIMIT, an aggregate) routes from there.
- A statement that fails on some row (a division by zero, a NULL for a NOT NULL column, a cancel) leaves nothing
  of itself behind, on any worker.
- A table filled from itself doubles, and a prepared INSERT ... SELECT or CREATE TABLE AS takes parameters.

The SQL semantics (casts, column lists, errors) are compared with PostgreSQL 15 in tests/sql/logic/insert_select.test.
"""

import pathlib
import threading
import time

import psycopg
import pytest

from cluster import start_with_tpch

COPY = "lg_copy"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("insert-select"), workers=3, scale_factor=0.1)
    yield local
    local.kill()


def connect(cluster):
    return psycopg.connect(cluster.conninfo(), autocommit=True)


def coordinator_growth_mb(cluster, connection, statement):
    """Runs `statement`; returns how far above its resident memory before it the coordinator's peak went."""
    pid = cluster.worker_pid("coordinator")

    def status_mb(field):
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
        return next(int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith(field + ":"))

    pathlib.Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak (VmHWM) starts again from now
    before = status_mb("VmRSS")
    connection.execute(statement)
    return status_mb("VmHWM") - before


def explain(connection, statement):
    return "\n".join(row[0] for row in connection.execute("EXPLAIN " + statement).fetchall())


def fresh_copy(connection):
    connection.execute(f"DROP TABLE IF EXISTS {COPY}")
    connection.execute(f"CREATE TABLE {COPY} (orderkey bigint NOT NULL, line integer, quantity numeric(15,2), "
                       "price numeric(15,2), comment varchar(44)) WITH (distribution = 'hash(orderkey)')")


COPY_LINEITEM = (f"INSERT INTO {COPY} SELECT l_orderkey, l_linenumber, l_quantity, l_extendedprice, l_comment "
                 "FROM lineitem")
SOURCE_FIGURES = "SELECT count(*), sum(l_quantity), sum(l_extendedprice), count(DISTINCT l_comment) FROM lineitem"
COPY_FIGURES = f"SELECT count(*), sum(quantity), sum(price), count(DISTINCT comment) FROM {COPY}"


def test_workers_route_a_copy_of_lineitem_to_its_owners_without_the_coordinator(cluster):
    with connect(cluster) as connection:
        fresh_copy(connection)
        plan = explain(connection, COPY_LINEITEM)
        assert plan.startswith(f"Insert on {COPY}\n  rows routed to the workers that own them by each worker"), plan
        worker_routed_growth = coordinator_growth_mb(cluster, connection, COPY_LINEITEM)
        assert connection.execute(COPY_FIGURES).fetchone() == connection.execute(SOURCE_FIGURES).fetchone()
        # orders is hashed on o_orderkey as the copy is on orderkey: the join runs where the rows are, and finds
        # every line only if each sits on the worker that owns its key.
        join = f"SELECT count(*) FROM {COPY} JOIN orders ON orderkey = o_orderkey"
        assert "repartition" not in explain(connection, join) and "broadcast" not in explain(connection, join)
        assert connection.execute(join).fetchone() == (600572,)

        # The same rows through the coordinator (ORDER BY ends there) grow its peak by what they hold.
        fresh_copy(connection)
        through_coordinator = COPY_LINEITEM + " ORDER BY l_orderkey, l_linenumber"
        assert "from the coordinator" in explain(connection, through_coordinator)
        coordinator_routed_growth = coordinator_growth_mb(cluster, connection, through_coordinator)
        assert connection.execute(COPY_FIGURES).fetchone() == connection.execute(SOURCE_FIGURES).fetchone()
    # Seen here: under 1 MB routed by the workers, 39 to 66 MB through the coordinator (less when its heap still
    # holds free memory from an earlier statement).
    assert worker_routed_growth < 5, (worker_routed_growth, coordinator_routed_growth)
    assert coordinator_routed_growth > 15, (worker_routed_growth, coordinator_routed_growth)


def test_a_query_that_ends_on_the_coordinator_routes_from_there(cluster):
    with connect(cluster) as connection:
        connection.execute("DROP TABLE IF EXISTS lg_top")
        connection.execute("CREATE TABLE lg_top (customer integer PRIMARY KEY, spent numeric(18,2), orders bigint)")
        top = ("INSERT INTO lg_top SELECT o_custkey, sum(o_totalprice), count(*) FROM orders "
               "GROUP BY o_custkey ORDER BY 2 DESC LIMIT 10")
        assert "from the coordinator" in explain(connection, top)
        assert connection.execute(top).statusmessage == "INSERT 0 10"
        expected = connection.execute("SELECT o_custkey, sum(o_totalprice), count(*) FROM orders GROUP BY o_custkey "
                                      "ORDER BY 2 DESC LIMIT 10").fetchall()
        assert connection.execute("SELECT * FROM lg_top ORDER BY spent DESC").fetchall() == expected


def test_a_statement_that_fails_on_some_row_leaves_nothing_behind(cluster):
    with connect(cluster) as connection:
        fresh_copy(connection)
        connection.execute(f"INSERT INTO {COPY} SELECT o_orderkey, 0, 0, 0, 'kept' FROM orders WHERE o_orderkey < 100")
        before = connection.execute(f"SELECT count(*) FROM {COPY}").fetchone()
        # Line 7 exists only on some orders, spread over the workers: some rows are staged before it fails.
        with pytest.raises(psycopg.errors.DivisionByZero):
            connection.execute(f"INSERT INTO {COPY} SELECT l_orderkey, 100 / (l_linenumber - 7), l_quantity, "
                               "l_extendedprice, l_comment FROM lineitem")
        with pytest.raises(psycopg.errors.NotNullViolation):
            connection.execute(f"INSERT INTO {COPY} SELECT CASE WHEN l_linenumber < 7 THEN l_orderkey END, "
                               "l_linenumber, l_quantity, l_extendedprice, l_comment FROM lineitem")
        assert connection.execute(f"SELECT count(*) FROM {COPY}").fetchone() == before


def test_a_cancelled_insert_leaves_nothing_behind(cluster):
    with connect(cluster) as connection:
        fresh_copy(connection)
        # A cross product long enough to cancel in the middle (seconds on 2 cores).
        slow = (f"INSERT INTO {COPY} SELECT a.l_orderkey, a.l_linenumber, b.l_quantity, b.l_extendedprice, "
                "'crossed' FROM lineitem a JOIN lineitem b ON a.l_suppkey = b.l_suppkey")
        timer = threading.Timer(1.0, connection.cancel)
        timer.start()
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled):
            connection.execute(slow)
        timer.join()
        assert time.monotonic() - started < 10
        assert connection.execute(f"SELECT count(*) FROM {COPY}").fetchone() == (0,)


def test_a_table_filled_from_itself_doubles(cluster):
    with connect(cluster) as connection:
        fresh_copy(connection)
        connection.execute(f"INSERT INTO {COPY} SELECT o_orderkey, 1, o_totalprice, 0, o_orderstatus FROM orders")
        connection.execute(f"INSERT INTO {COPY} SELECT orderkey, line + 1, quantity, price, comment FROM {COPY}")
        assert connection.execute(f"SELECT count(*), count(DISTINCT orderkey), sum(line) FROM {COPY}").fetchone() == (
            300000, 150000, 450000)


def test_a_prepared_insert_select_takes_its_parameters(cluster):
    """psycopg's parameters travel in the extended protocol; prepared once, the statement runs twice."""
    with connect(cluster) as connection:
        connection.execute("DROP TABLE IF EXISTS lg_params")
        connection.execute("CREATE TABLE lg_params (region integer, nations bigint, label text)")
        statement = "INSERT INTO lg_params SELECT n_regionkey, count(*), %s FROM nation WHERE n_regionkey = %s GROUP BY 1"
        for region in (1, 3):
            cursor = connection.execute(statement, (f"region {region}", region), prepare=True)
            assert cursor.statusmessage == "INSERT 0 1"
        connection.execute("CREATE TABLE lg_params_copy AS SELECT * FROM lg_params WHERE nations >= %s", (5,))
        assert connection.execute("SELECT * FROM lg_params_copy ORDER BY region").fetchall() == [
            (1, 5, "region 1"), (3, 5, "region 3")]
        connection.execute("DROP TABLE lg_params_copy")
