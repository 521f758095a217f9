"""Story: Shoal as a real cluster. deploy/netns-cluster.sh puts a real etcd-server and the coordinator on one "host"
and three workers on three others (network namespaces joined by a bridge, each with its own IP), the workers
register in etcd under 5-second leases, and TPC-H SF 0.1 is loaded. Then the cluster lives through churn:

- the 22 TPC-H queries return the official answers;
- a worker's link is cut: the coordinator marks it down within the lease TTL plus 1 s, a query running on it and
  every later query that needs it fail with 08006 naming it, replicated tables are still read from the other
  workers' copies, and when the link returns the worker rejoins and the same queries work again;
- etcd restarts (with its data, and then without it): the cluster keeps answering while etcd is away, and once
  etcd is back every worker and the catalog are registered in it again;
- the coordinator restarts with an empty data directory: the catalog comes back from etcd and the data is there;
- a worker told to leave (SIGTERM) finishes the query it is running before it deregisters.

Needs root (network namespaces); `make test-cluster` runs it alone, `make test` with the rest."""

import os
import pathlib
import re
import shutil
import subprocess
import threading
import time

import psycopg
import pytest

from tpch_answers import assert_official_answer, run_query

REPO = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = REPO / "deploy" / "netns-cluster.sh"
CONNINFO = "host=10.77.0.10 port=5433 user=shoal dbname=shoal connect_timeout=5"
ETCD = "10.77.0.10:2379"
LEASE_TTL = 5
WORKERS = 3
# Tables and their TPC-H SF 0.1 cardinalities.
CARDINALITIES = {"lineitem": 600572, "orders": 150000, "customer": 15000, "part": 20000, "partsupp": 80000,
                 "supplier": 1000, "nation": 25, "region": 5}
# A join that needs every worker, with a known answer (Q3's).
QUERY_NEEDING_EVERY_WORKER = 3


def script(*arguments, state):
    result = subprocess.run([str(SCRIPT), *arguments], env={**os.environ, "SHOAL_NETNS_DIR": str(state)},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"netns-cluster.sh {' '.join(arguments)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def sql(statement, timeout=30):
    with psycopg.connect(CONNINFO, autocommit=True) as connection:
        connection.execute(f"SET statement_timeout = {timeout * 1000}")
        cursor = connection.execute(statement)
        return cursor.fetchall() if cursor.description else None


def states():
    return {name: state for name, state in sql("SELECT name, state FROM shoal_nodes WHERE role = 'worker'")}


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except psycopg.Error:
            pass
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def etcd_keys(prefix):
    result = subprocess.run(["etcdctl", "--endpoints", ETCD, "get", "--prefix", prefix, "--keys-only"],
                            env={**os.environ, "ETCDCTL_API": "3"}, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return sorted(line for line in result.stdout.splitlines() if line)


def assert_fails_naming(statement, worker):
    with pytest.raises(psycopg.Error) as failure:
        sql(statement)
    assert failure.value.sqlstate == "08006", failure.value
    assert f'"{worker}"' in str(failure.value), failure.value
    return str(failure.value)


@pytest.fixture(scope="module")
def netns_cluster(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.fail("the netns cluster needs root: it creates network namespaces")
    state = tmp_path_factory.mktemp("netns-cluster")
    subprocess.run([str(SCRIPT), "down"], env={**os.environ, "SHOAL_NETNS_DIR": str(state)}, capture_output=True)
    try:
        print(script("up", str(WORKERS), "--sf", "0.1", state=state))
        yield state
    finally:
        logs = state / "logs"
        if logs.exists():
            # Kept beside the test's output for whoever reads a failure.
            shutil.copytree(logs, REPO / "build" / "netns-cluster-logs", dirs_exist_ok=True)
        script("down", state=state)


def test_workers_find_the_coordinator_through_etcd(netns_cluster):
    assert states() == {f"worker-{k}": "up" for k in range(1, WORKERS + 1)}
    members = etcd_keys("/shoal/netns/members/")
    assert members == [f"/shoal/netns/members/worker-{k}" for k in range(1, WORKERS + 1)]
    catalog = etcd_keys("/shoal/netns/catalog/")
    assert "/shoal/netns/catalog/tables/public/lineitem" in catalog and "/shoal/netns/catalog/meta" in catalog
    for table, rows in CARDINALITIES.items():
        assert sql(f"SELECT count(*) FROM {table}") == [(rows,)], table


@pytest.mark.parametrize("query", range(1, 23), ids=[f"Q{n:02d}" for n in range(1, 23)])
def test_tpch_sf01_returns_the_official_answers(netns_cluster, query):
    assert_official_answer(run_query(CONNINFO, query), query, "0.1")


def test_a_worker_cut_off_is_marked_down_and_rejoins(netns_cluster):
    # A query in flight when the link goes: it must fail naming the worker, not hang.
    running = {}

    def long_query():
        try:
            # The aggregate reads both sides of the self-join, so that it cannot be grouped before the join.
            running["rows"] = sql("SELECT count(*), sum(a.l_quantity * b.l_discount) FROM lineitem a "
                                  "JOIN lineitem b ON a.l_suppkey = b.l_suppkey "
                                  "JOIN supplier s ON s.s_suppkey = a.l_suppkey", timeout=60)
        except psycopg.Error as error:
            running["error"] = error

    in_flight = threading.Thread(target=long_query)
    in_flight.start()
    time.sleep(0.3)
    subprocess.run(["ip", "link", "set", "shoal-v2", "down"], check=True)
    cut = time.monotonic()
    try:
        wait_for(lambda: states()["worker-2"] == "down", LEASE_TTL + 1, "worker-2 marked down")
        detected = time.monotonic() - cut
        print(f"worker-2 marked down {detected:.2f} s after its link was cut (lease TTL {LEASE_TTL} s)")
        in_flight.join(timeout=30)
        assert not in_flight.is_alive(), "the query running on the cut-off worker hangs"
        if "error" in running:
            error = running["error"]
            assert error.sqlstate == "08006" and '"worker-2"' in str(error), error
            print(f"the query in flight failed: {error}")
        # Every query that needs worker-2 fails at once, naming it.
        started = time.monotonic()
        message = assert_fails_naming("SELECT count(*) FROM lineitem", "worker-2")
        assert_fails_naming("SELECT count(*) FROM orders JOIN customer ON o_custkey = c_custkey", "worker-2")
        assert time.monotonic() - started < 2
        print(f"a query needing it: {message}")
        # Replicated tables are read from the copies on the workers still up.
        assert sql("SELECT count(*) FROM nation") == [(25,)]
        regions = sql("SELECT r_name, count(*) FROM nation JOIN region ON n_regionkey = r_regionkey "
                      "GROUP BY r_name ORDER BY r_name")
        assert [(name.rstrip(), count) for name, count in regions] == [
            (name, 5) for name in ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]]
    finally:
        subprocess.run(["ip", "link", "set", "shoal-v2", "up"], check=True)
    restored = time.monotonic()
    wait_for(lambda: states()["worker-2"] == "up", 15, "worker-2 up again after its link returned")
    print(f"worker-2 rejoined {time.monotonic() - restored:.2f} s after its link returned")
    assert sql("SELECT count(*) FROM lineitem") == [(CARDINALITIES["lineitem"],)]
    assert_official_answer(run_query(CONNINFO, QUERY_NEEDING_EVERY_WORKER), QUERY_NEEDING_EVERY_WORKER, "0.1")


def restart_etcd(state, lose_data):
    script("stop", "etcd", state=state)
    away = time.monotonic()
    # The cluster keeps answering without etcd, and its view of the workers stays.
    time.sleep(LEASE_TTL + 1)
    assert states() == {f"worker-{k}": "up" for k in range(1, WORKERS + 1)}
    assert_official_answer(run_query(CONNINFO, 1), 1, "0.1")
    assert sql("SELECT count(*) FROM lineitem") == [(CARDINALITIES["lineitem"],)]
    if lose_data:
        shutil.rmtree(state / "etcd")
    back = time.monotonic()
    script("start", "etcd", state=state)

    def resynchronized():
        # The coordinator read every member from etcd again: each was heard from since etcd came back.
        ages = sql("SELECT seconds_since_heartbeat FROM shoal_nodes WHERE role = 'worker'")
        return len(ages) == WORKERS and all(age < time.monotonic() - back for (age,) in ages)

    wait_for(resynchronized, 10, "the coordinator resynchronized with etcd")
    print(f"etcd away for {time.monotonic() - away:.1f} s{' and back without its data' if lose_data else ''}")
    expected = [f"/shoal/netns/members/worker-{k}" for k in range(1, WORKERS + 1)]
    wait_for(lambda: etcd_keys("/shoal/netns/members/") == expected, 15, "every worker registered in etcd again")
    wait_for(lambda: len(etcd_keys("/shoal/netns/catalog/tables/")) == len(CARDINALITIES), 15,
             "the catalog back in etcd")


def test_the_cluster_outlives_an_etcd_restart(netns_cluster):
    restart_etcd(netns_cluster, lose_data=False)
    # The watch works again: a worker leaving is seen, and so is its return.
    script("stop", "worker-3", state=netns_cluster)
    wait_for(lambda: states()["worker-3"] == "left", 5, "worker-3 seen leaving after etcd came back")
    script("start", "worker-3", state=netns_cluster)
    wait_for(lambda: states()["worker-3"] == "up", 10, "worker-3 seen returning")
    assert_official_answer(run_query(CONNINFO, QUERY_NEEDING_EVERY_WORKER), QUERY_NEEDING_EVERY_WORKER, "0.1")


def test_etcd_that_lost_its_data_gets_everything_registered_again(netns_cluster):
    restart_etcd(netns_cluster, lose_data=True)
    assert states() == {f"worker-{k}": "up" for k in range(1, WORKERS + 1)}
    assert_official_answer(run_query(CONNINFO, QUERY_NEEDING_EVERY_WORKER), QUERY_NEEDING_EVERY_WORKER, "0.1")


def test_a_restarted_coordinator_recovers_the_catalog_from_etcd(netns_cluster):
    sql("CREATE TABLE survivors (id INTEGER NOT NULL, name VARCHAR(20)) WITH (distribution = 'hash(id)')")
    sql("INSERT INTO survivors VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    script("stop", "coordinator", state=netns_cluster)
    # Nothing of the catalog is on the coordinator's disk: as if it came back on another host.
    shutil.rmtree(netns_cluster / "coordinator", ignore_errors=True)
    script("start", "coordinator", state=netns_cluster)
    wait_for(lambda: states() == {f"worker-{k}": "up" for k in range(1, WORKERS + 1)}, 10,
             "the new coordinator sees every worker")
    assert sql("SELECT id, name FROM survivors ORDER BY id") == [(1, "one"), (2, "two"), (3, "three")]
    # The commit sequence continued from etcd (a fresh one would read below the rows above and see none):
    # commits made now are newer than theirs, and the snapshots after them see both.
    sql("UPDATE survivors SET name = upper(name) WHERE id = 2")
    sql("INSERT INTO survivors VALUES (4, 'four')")
    sql("DELETE FROM survivors WHERE id = 1")
    assert sql("SELECT id, name FROM survivors ORDER BY id") == [(2, "TWO"), (3, "three"), (4, "four")]
    for table, rows in CARDINALITIES.items():
        assert sql(f"SELECT count(*) FROM {table}") == [(rows,)], table
    assert_official_answer(run_query(CONNINFO, 1), 1, "0.1")


def test_a_worker_leaving_finishes_its_running_query_first(netns_cluster):
    # The aggregate reads both sides of the self-join, so that it cannot be grouped before the join.
    query = ("SELECT count(*), sum(a.l_quantity * b.l_discount) FROM lineitem a "
             "JOIN lineitem b ON a.l_suppkey = b.l_suppkey WHERE a.l_linenumber = 1")
    started = time.monotonic()
    expected = sql(query, timeout=120)
    alone = time.monotonic() - started
    result = {}

    def run():
        try:
            result["rows"] = sql(query, timeout=120)
        except psycopg.Error as error:
            result["error"] = error

    in_flight = threading.Thread(target=run)
    in_flight.start()
    time.sleep(min(0.3, alone / 3))
    script("stop", "worker-1", state=netns_cluster)  # SIGTERM; returns once the process is gone
    in_flight.join(timeout=120)
    assert result.get("rows") == expected, result
    log = (netns_cluster / "logs" / "worker-1.log").read_text()
    draining = re.findall(r"draining: no new work is taken; (\d+) call\(s\) running", log)
    assert draining and int(draining[-1]) >= 1, "the worker left with nothing running: the test proved nothing"
    assert "drained: every running call finished" in log
    print(f"worker-1 drained a {alone:.2f} s query ({draining[-1]} call(s) running) before it left")
    wait_for(lambda: states()["worker-1"] == "left", 5, "worker-1 shown as left")
    assert_fails_naming("SELECT count(*) FROM lineitem", "worker-1")
    script("start", "worker-1", state=netns_cluster)
    wait_for(lambda: states()["worker-1"] == "up", 10, "worker-1 back")
    assert sql("SELECT count(*) FROM lineitem") == [(CARDINALITIES["lineitem"],)]
