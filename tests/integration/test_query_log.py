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
            # The aggregate reads both sides, so that it cannot be grouped before the join: the query runs long.
            connection.execute("SELECT count(*), sum(a.l_quantity * b.l_discount) FROM lineitem a, lineitem b "
                               "WHERE a.l_quantity < b.l_quantity /* log-cancelled */").fetchall()
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


def test_a_role_sees_the_text_of_other_roles_statements_only_with_their_privileges(cluster):
    """shoal_queries keeps who ran each statement; another ordinary role sees that it ran, not its text (it may
    hold a password), unless it has that role's privileges or pg_read_all_stats, as pg_stat_activity."""
    admin = f"host=127.0.0.1 port={cluster.port} user=shoal dbname=shoal connect_timeout=10"
    with psycopg.connect(admin, autocommit=True) as connection:
        for role in ("ql_writer", "ql_reader"):
            connection.execute(f"DROP ROLE IF EXISTS {role}")
            connection.execute(f"CREATE ROLE {role} LOGIN")
    try:
        with psycopg.connect(admin.replace("user=shoal", "user=ql_writer"), autocommit=True) as writer:
            writer.execute("SELECT 'ql-secret-marker'").fetchall()
        sql = "SELECT usename, query_text FROM shoal_queries WHERE usename = 'ql_writer' AND state = 'done'"
        with psycopg.connect(admin.replace("user=shoal", "user=ql_reader"), autocommit=True) as reader:
            assert reader.execute(sql).fetchall() == [("ql_writer", "<insufficient privilege>")]
            with psycopg.connect(admin, autocommit=True) as connection:
                assert connection.execute(sql).fetchall() == [("ql_writer", "SELECT 'ql-secret-marker'")]
                connection.execute("GRANT ql_writer TO ql_reader")
            assert reader.execute(sql).fetchall() == [("ql_writer", "SELECT 'ql-secret-marker'")]
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute("REVOKE ql_writer FROM ql_reader")
            for role in ("ql_writer", "ql_reader"):
                connection.execute(f"DROP ROLE {role}")
