"""Story: an analyst exports all of lineitem in key order (`SELECT * FROM lineitem ORDER BY l_orderkey,
l_linenumber`, TPC-H SF 1, 6 million rows) from a 2-worker cluster with psycopg.

- EXPLAIN shows each worker sorting its own rows and the coordinator merging the sorted streams, with no sort of
  its own.
- The rows reach the client while the workers are still sending them: the first row comes early, and the workers
  keep working (encoding and sending rows) after the client has it. Every row arrives, in order.
- The coordinator's resident memory grows by less than 200 MB over an export of more than 1 GB: the merged rows
  are streamed, with the client's pace holding back the workers, not collected.
"""

import pathlib
import time

import psycopg
import pytest
from psycopg.types.string import TextLoader

from cluster import start_with_tpch

EXPORT = "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber"
LINEITEM_SF1 = 6001215


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("ordered-streaming"), workers=2, scale_factor=1)
    yield local
    local.kill()


def connect(cluster):
    connection = psycopg.connect(cluster.conninfo(), autocommit=True)
    # The rows stay text: converting 6 million rows of numerics and dates in Python would time the client.
    for name in ("int4", "int8", "numeric", "date", "bpchar", "varchar", "text"):
        connection.adapters.register_loader(name, TextLoader)
    return connection


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks of 1/100 s


def status_mb(pid, field):
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith(field + ":"))


def test_explain_shows_the_workers_sort_and_the_coordinators_merge(cluster):
    with connect(cluster) as connection:
        plan = [row[0] for row in connection.execute("EXPLAIN " + EXPORT)]
        coordinator = plan[:plan.index(next(line for line in plan if line.startswith("Fragment")))]
        assert any("merged on (l_orderkey, l_linenumber)" in line for line in coordinator), plan
        assert not any("Sort" in line for line in coordinator), plan
        workers = plan[len(coordinator):]
        assert any(line.strip().startswith("Sort") for line in workers), plan


def test_an_ordered_export_streams_to_the_client_in_order(cluster):
    coordinator = cluster.worker_pid("coordinator")
    workers = [cluster.worker_pid(name) for name in ("worker-1", "worker-2")]
    with connect(cluster) as connection:
        pathlib.Path(f"/proc/{coordinator}/clear_refs").write_text("5")  # the peak (VmHWM) starts again from now
        before = status_mb(coordinator, "VmRSS")
        started = time.monotonic()
        first_row_at = None
        workers_cpu_at_first_row = None
        rows = 0
        previous = (0, 0)
        exported_bytes = 0
        with connection.cursor() as cursor:
            for row in cursor.stream(EXPORT):
                if first_row_at is None:
                    first_row_at = time.monotonic() - started
                    workers_cpu_at_first_row = sum(cpu_seconds(pid) for pid in workers)
                key = (int(row[0]), int(row[3]))
                assert key > previous, f"row {rows} ({key}) is out of order after {previous}"
                previous = key
                rows += 1
                if rows % 100 == 0:
                    exported_bytes += 100 * sum(len(value) for value in row)
        finished_at = time.monotonic() - started
        workers_cpu_after = sum(cpu_seconds(pid) for pid in workers) - workers_cpu_at_first_row
        growth = status_mb(coordinator, "VmHWM") - before
    assert rows == LINEITEM_SF1
    assert exported_bytes > 600 << 20
    # The workers still had rows to encode and send when the client had its first one.
    assert workers_cpu_after > 1.0, (first_row_at, finished_at, workers_cpu_after)
    assert first_row_at < finished_at / 2, (first_row_at, finished_at)
    assert growth < 200, f"the coordinator grew by {growth:.0f} MB streaming {exported_bytes >> 20} MB"
    print(f"first row after {first_row_at:.1f} s of {finished_at:.1f} s; workers used {workers_cpu_after:.1f} s of "
          f"CPU after it; coordinator +{growth:.0f} MB for {exported_bytes >> 20} MB of text")


def test_a_client_that_stops_reading_cancels_the_export(cluster):
    with connect(cluster) as connection:
        with connection.cursor() as cursor:
            for count, _ in enumerate(cursor.stream(EXPORT)):
                if count == 1000:
                    break
        connection.cancel()
        assert connection.execute("SELECT count(*) FROM nation").fetchone() == ("25",)
