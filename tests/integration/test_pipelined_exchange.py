"""Story: the exchange's receive side is pipelined. Messages flow from the network into per-NUMA-node queues,
where the receiving pipeline's threads take them as they arrive, their own node's queue first, and give each
back as its rows are decoded. On workers that simulate two NUMA nodes, shoal_queries shows that most messages
were consumed on the node they arrived on. A repartition of 10 million rows (about 450 MB) leaves each
worker's resident memory far below what it received: the input is never materialized."""

import pathlib

import psycopg
import pytest

from cluster import LocalCluster, run_sql, start_with_tpch

MB = 1 << 20


def shuffle_figures(connection, text):
    return connection.execute(
        "SELECT bytes_shuffled, messages_shuffled, messages_consumed_locally, messages_stolen FROM shoal_queries "
        "WHERE query_text = %s AND state = 'done' ORDER BY query_id DESC LIMIT 1", (text,)).fetchone()


def test_messages_are_mostly_consumed_on_the_numa_node_they_arrived_on(tmp_path):
    # Small messages, so that the query's rows fill a hundred of them.
    local = start_with_tpch(tmp_path / "numa", workers=2,
                            extra_args=["--numa-nodes", "2", "--message-bytes", "16384"])
    try:
        text = "SELECT count(DISTINCT l_comment) FROM lineitem"
        local_total, stolen_total = 0, 0
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            for _ in range(3):
                assert connection.execute(text).fetchone()[0] > 50000
                sent_bytes, sent_messages, consumed_locally, stolen = shuffle_figures(connection, text)
                # Every message a worker sent to the other was consumed there, besides each worker's own.
                assert sent_messages > 40
                assert consumed_locally + stolen >= sent_messages
                local_total += consumed_locally
                stolen_total += stolen
        print(f"{local_total} messages consumed on the NUMA node they arrived on, {stolen_total} stolen")
        assert local_total > stolen_total, f"{local_total} consumed on their own node, {stolen_total} stolen"
    finally:
        local.kill()


def peak_since_reset(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def resident(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_a_ten_million_row_repartition_keeps_worker_memory_bounded(tmp_path):
    local = LocalCluster(tmp_path / "repartition", workers=2).start()
    try:
        run_sql(local, "CREATE TABLE wide (id bigint, k text) WITH (distribution = 'hash(id)')")
        run_sql(local, "INSERT INTO wide SELECT g, repeat('x', 40) || (g % 1000)::text "
                       "FROM generate_series(1, 10000000) g")
        # count(DISTINCT k) repartitions every row on k (no partial aggregation can shrink it) into a hash
        # table of 1000 values: all that has to stay is the table and the flow-control windows.
        text = "SELECT count(DISTINCT k) FROM wide"
        pids = [local.worker_pid(f"worker-{i}") for i in (1, 2)]
        run_sql(local, text)  # warm-up: the message pools reach their size
        before = {pid: resident(pid) for pid in pids}
        for pid in pids:
            pathlib.Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets the peak (VmHWM) to now
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute(text).fetchone()[0] == 1000
            sent_bytes, _, _, _ = shuffle_figures(connection, text)
        received_per_worker = sent_bytes / 2
        assert received_per_worker > 100 * MB
        for pid in pids:
            growth = peak_since_reset(pid) - before[pid]
            print(f"worker {pid}: peak resident memory grew {growth / MB:.1f} MB, "
                  f"receiving {received_per_worker / MB:.0f} MB")
            # The receive window (16 messages of 512 KiB per peer), the send pool's 64 messages and the threads'
            # decoded vectors: a few dozen MB, whatever the input's size.
            assert growth < 64 * MB, (f"worker {pid} grew by {growth / MB:.0f} MB while receiving "
                                      f"{received_per_worker / MB:.0f} MB from the other")
    finally:
        local.kill()
