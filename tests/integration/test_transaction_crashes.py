"""Story: a process dies with kill -9 at each step of the two-phase commit (SHOAL_FAULT_POINT, armed for one
transaction), and the cluster is restarted over the same data. A transaction whose commit decision was recorded
is then wholly there; one that was not is wholly absent, on every worker and in every table it touched; a
COMMIT that returned success is never lost. Ten trials per step (SHOAL_CRASH_TRIALS sets another number)."""

import os

import psycopg
import pytest

from cluster import wait_until

TRIALS = int(os.environ.get("SHOAL_CRASH_TRIALS", "10"))

# The step, and whether the transaction must have committed once the cluster is back.
POINTS = {
    "worker-after-prepare": False,       # a worker wrote its prepared record and died before it voted
    "coordinator-after-prepare": False,  # every worker voted; the coordinator died before recording a decision
    "coordinator-after-decision": True,  # the decision is recorded; no worker heard it
    "worker-before-commit": True,        # the workers heard it and died before applying it
    "worker-mid-commit": True,           # a worker applied it to one table and died before the next
}

# Hashed, so that every worker holds rows of both tables and "worker-mid-commit" (between two tables) is reached on
# every worker, whatever worker a block of rows would go to under random placement.
SETUP = ["CREATE TABLE crash_a (id integer, v integer) WITH (distribution = 'hash(id)')",
         "CREATE TABLE crash_b (id integer, v integer) WITH (distribution = 'hash(id)')",
         "INSERT INTO crash_a SELECT g, 1 FROM generate_series(1, 100) g",
         "INSERT INTO crash_b SELECT g, 1 FROM generate_series(1, 100) g"]
BEFORE = ((100, 100), (100, 100))
AFTER = ((260, 440), (100, 600))


def state(conninfo):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        return tuple(connection.execute(f"SELECT count(*), sum(v) FROM {table}").fetchone()
                     for table in ("crash_a", "crash_b"))


@pytest.mark.parametrize("trial", range(TRIALS))
@pytest.mark.parametrize("point", POINTS)
def test_a_crash_at_each_commit_step_leaves_the_transaction_whole_or_absent(own_cluster, tmp_path, point, trial):
    data = tmp_path / "data"
    armed = tmp_path / "armed"
    cluster = own_cluster(data_dir=data, env={"SHOAL_FAULT_POINT": point, "SHOAL_FAULT_ARMED_FILE": str(armed)})
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        for sql in SETUP:
            connection.execute(sql)
    assert state(cluster.conninfo()) == BEFORE
    workers_before = {name: cluster.worker_pid(name) for name in ("worker-1", "worker-2")}
    armed.touch()
    committed = False
    try:
        with psycopg.connect(cluster.conninfo()) as connection:
            connection.execute("INSERT INTO crash_a SELECT g, 2 FROM generate_series(101, 300) g")
            connection.execute("UPDATE crash_b SET v = v + 10 WHERE id <= 50")
            connection.execute("DELETE FROM crash_a WHERE id <= 20 OR id > 280")
            connection.commit()
            committed = True
    except psycopg.Error:
        pass
    # The fault fired: the coordinator's death fails the COMMIT; a worker's shows as a new process.
    if point.startswith("coordinator") or point == "worker-after-prepare":
        assert not committed, f"the transaction committed although the process died at {point}"
    if point.startswith("worker"):
        def a_worker_died():
            try:
                return any(cluster.worker_pid(name) != pid for name, pid in workers_before.items())
            except AssertionError:
                return True  # not running at the moment
        assert wait_until(a_worker_died, 10) is not None, f"no worker died at {point}"
    armed.unlink()
    cluster.kill()
    restarted = own_cluster(data_dir=data)

    def settled():
        try:
            return state(restarted.conninfo()) == (AFTER if POINTS[point] or committed else BEFORE)
        except psycopg.Error:
            return False

    wait_until(settled, 20)
    seen = state(restarted.conninfo())
    assert seen in (BEFORE, AFTER), f"a transaction half applied after a crash at {point}: {seen}"
    if committed:
        assert seen == AFTER, f"a COMMIT that returned success was lost after a crash at {point}"
    assert seen == (AFTER if POINTS[point] else BEFORE), (point, committed, seen)
