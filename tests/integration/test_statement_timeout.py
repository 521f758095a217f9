"""Story: an analyst sets statement_timeout = '1s' and runs a self-join that takes seconds over two workers.
The statement fails with 57014 "canceling statement due to statement timeout" within 1.5 s, both workers
stop working on it, and the session goes on; so does a result of ten million rows that is still being sent. SET and SHOW spell the setting as PostgreSQL 15 does."""

import os
import pathlib
import time

import psycopg
import pytest

from cluster import start_with_tpch

# Seconds of work at SF 0.01 on 2 cores: lineitem paired with itself on line number and return flag, about 9 s
# here (test_distributed_execution's join on ship mode took only 1.7 s on an idle machine, under the 2 s this
# test needs).
LONG_SELF_JOIN = ("SELECT count(*), sum(a.l_quantity * b.l_discount) FROM lineitem a "
                  "JOIN lineitem b ON a.l_linenumber = b.l_linenumber AND a.l_returnflag = b.l_returnflag")


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture(scope="module")
def tpch_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("timeout"), workers=2)
    yield local
    local.kill()


def test_a_long_query_is_cancelled_on_every_worker_by_statement_timeout(tpch_cluster):
    workers = [tpch_cluster.worker_pid(f"worker-{i}") for i in (1, 2)]
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        # It runs longer than 2 s (cancelled there too), so a 1 s timeout has work to stop.
        connection.execute("SET statement_timeout = '2s'")
        with pytest.raises(psycopg.errors.QueryCanceled):
            connection.execute(LONG_SELF_JOIN).fetchall()

        connection.execute("SET statement_timeout = '1s'")
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled) as raised:
            connection.execute(LONG_SELF_JOIN).fetchall()
        elapsed_s = time.monotonic() - started
        assert raised.value.sqlstate == "57014"
        assert "statement timeout" in str(raised.value)
        print(f"self-join timed out after {elapsed_s:.2f} s")
        assert 1.0 <= elapsed_s <= 1.5

        # Neither worker goes on with it. A worker stops at its next chunk: the join chunk it is expanding
        # (one probe chunk's pairs, a few tenths of a second here) is finished first, so its idle half
        # second starts within 1 s of the error.
        time.sleep(1.0)
        before = [cpu_seconds(pid) for pid in workers]
        time.sleep(0.5)
        busy = [cpu_seconds(pid) - b for pid, b in zip(workers, before)]
        assert max(busy) < 0.05, f"workers used {busy} s of CPU in 0.5 s, 1 s after the timeout"

        # Quick statements are untouched by it, and RESET lifts it.
        assert connection.execute("SELECT count(*) FROM nation").fetchone() == (25,)
        connection.execute("RESET statement_timeout")
        assert connection.execute("SHOW statement_timeout").fetchone() == ("0",)


def test_a_result_too_large_to_send_in_time_is_cancelled_while_it_is_sent(tpch_cluster):
    # Ten million rows, joined in about a second on the coordinator (pg_attribute lives there), take many
    # seconds to send: the timeout stops the sending too, as PostgreSQL's does. A sqlsmith query found it.
    sql = ("SELECT a.attname, o.o_orderpriority, o.o_custkey FROM orders o "
           "JOIN pg_catalog.pg_attribute a ON o.o_shippriority <= a.attrelid")
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        connection.execute("SET statement_timeout = '1s'")
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled, match="statement timeout"):
            connection.execute(sql).fetchall()
        elapsed_s = time.monotonic() - started
        assert elapsed_s <= 2.0, f"cancelled after {elapsed_s:.2f} s"
        assert connection.execute("SELECT count(*) FROM nation").fetchone() == (25,)


@pytest.mark.parametrize("value", ["1000", "1500", "'1s'", "'2min'", "'90s'", "'1h'", "0", "'1.5s'", "'abc'", "-5"])
def test_statement_timeout_is_set_and_shown_as_in_postgresql(cluster, postgres, value):
    sql = f"SET statement_timeout = {value}"
    results = []
    for conninfo in (cluster.conninfo(), postgres.conninfo()):
        with psycopg.connect(conninfo, autocommit=True) as connection:
            try:
                connection.execute(sql)
                results.append(connection.execute("SHOW statement_timeout").fetchone())
            except psycopg.Error as error:
                results.append(error.sqlstate)
    assert results[0] == results[1]
