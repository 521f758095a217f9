"""Story: a user caps a session's queries at 1 MB with SET query_memory_limit_mb and runs a GROUP BY whose hash
table needs more; the query fails with SQLSTATE 53200 naming the limit instead of the worker being killed, and
after RESET the same query answers. Checked both where the plan is shipped whole to the one worker and where
the coordinator runs it over two workers."""

import psycopg
import pytest

from cluster import start_with_tpch

BIG_GROUP_BY = ("SELECT l_orderkey, l_partkey, count(*) FROM lineitem GROUP BY l_orderkey, l_partkey "
                "ORDER BY 3 DESC, 1, 2 LIMIT 1")


@pytest.fixture(scope="module", params=[1, 2], ids=["1-worker", "2-workers"])
def loaded_cluster(request, tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("memory-limit"), workers=request.param)
    yield local
    local.kill()


def test_a_query_over_its_memory_limit_fails_with_53200_and_runs_after_reset(loaded_cluster):
    with psycopg.connect(loaded_cluster.conninfo(), autocommit=True) as connection:
        connection.execute("SET query_memory_limit_mb = 1")
        assert connection.execute("SHOW query_memory_limit_mb").fetchone() == ("1",)
        with pytest.raises(psycopg.errors.OutOfMemory) as raised:
            connection.execute(BIG_GROUP_BY).fetchall()
        assert raised.value.sqlstate == "53200"
        assert "memory limit of 1 MB" in str(raised.value)
        assert "query_memory_limit_mb" in str(raised.value)
        # The session is fine, and small queries still fit.
        assert connection.execute("SELECT count(*) FROM nation").fetchone() == (25,)
        connection.execute("RESET query_memory_limit_mb")
        rows = connection.execute(BIG_GROUP_BY).fetchall()
        assert len(rows) == 1 and rows[0][2] >= 1


def test_the_limit_must_be_a_number_of_megabytes(loaded_cluster):
    with psycopg.connect(loaded_cluster.conninfo(), autocommit=True) as connection:
        for bad in ("'-5'", "'lots'", "'1.5'"):
            with pytest.raises(psycopg.errors.InvalidParameterValue):
                connection.execute(f"SET query_memory_limit_mb = {bad}")



def test_a_window_over_its_memory_limit_fails_with_53200_and_the_workers_stay_up(loaded_cluster):
    """A window sorts its whole partition input: over the limit it fails cleanly, and the next query runs."""
    window = ("SELECT l_orderkey, sum(l_quantity) OVER (PARTITION BY l_partkey ORDER BY l_orderkey, l_linenumber) "
              "FROM lineitem ORDER BY 2 DESC, 1 LIMIT 1")
    with psycopg.connect(loaded_cluster.conninfo(), autocommit=True) as connection:
        connection.execute("SET query_memory_limit_mb = 1")
        with pytest.raises(psycopg.errors.OutOfMemory) as raised:
            connection.execute(window).fetchall()
        assert raised.value.sqlstate == "53200"
        connection.execute("RESET query_memory_limit_mb")
        assert len(connection.execute(window).fetchall()) == 1
