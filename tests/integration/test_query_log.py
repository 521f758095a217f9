"""Story: an operator looks at shoal_queries to see what clients ran: each statement's text, whether it is still
running, finished, failed or was cancelled, how long it took and how many rows it returned (through the simple and
the extended protocol alike), and what it moved between nodes."""

import threading
import time

import psycopg
import pytest

from cluster import start_with_tpch


@pytest.fixture(scope="module")
def tpch_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("query-log"), workers=1)
    yield local
    local.kill()


def entries(connection, pattern):
    return connection.execute(
        "SELECT query_id, state, rows, elapsed_seconds, bytes_shuffled, messages_shuffled FROM shoal_queries "
        "WHERE query_text LIKE %s ORDER BY query_id", (pattern,)).fetchall()


def test_finished_failed_cancelled_and_running_statements_show(tpch_cluster):
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        assert len(connection.execute("SELECT n_name FROM nation /* log-simple */", prepare=False).fetchall()) == 25
        assert len(connection.execute("SELECT r_name FROM region WHERE r_regionkey < %s /* log-extended */",
                                      (3,)).fetchall()) == 3
        with pytest.raises(psycopg.errors.DivisionByZero):
            connection.execute("SELECT 1 / (n_nationkey - n_nationkey) FROM nation /* log-failed */").fetchall()

        def cancel_soon():
            time.sleep(0.3)
            connection.cancel()

        canceller = threading.Thread(target=cancel_soon)
        canceller.start()
        with pytest.raises(psycopg.errors.QueryCanceled):
            connection.execute("SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_quantity < b.l_quantity "
                               "/* log-cancelled */").fetchall()
        canceller.join()

        [(simple_id, state, rows, elapsed, shuffled_bytes, shuffled_messages)] = entries(connection, "%log-simple%")
        assert (state, rows) == ("done", 25)
        assert 0 <= elapsed < 10
        # One worker holds all the data: nothing moved between nodes.
        assert (shuffled_bytes, shuffled_messages) == (0, 0)
        [(extended_id, state, rows, _, _, _)] = entries(connection, "%log-extended%")
        assert (state, rows) == ("done", 3) and extended_id > simple_id
        [(_, state, _, _, _, _)] = entries(connection, "%log-failed%")
        assert state == "failed"
        [(_, state, _, elapsed, _, _)] = entries(connection, "%log-cancelled%")
        assert state == "cancelled" and elapsed >= 0.2
        # The view's own query is running while it reads itself.
        [(state,)] = connection.execute("SELECT state FROM shoal_queries WHERE query_text LIKE '%log-self%' "
                                        "/* log-self */").fetchall()
        assert state == "running"
