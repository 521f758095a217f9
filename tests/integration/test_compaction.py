"""Story: deleted rows do not slow a table down for long. After a DELETE commits, the workers rewrite the segments
that hold the deleted rows without them, and merge the small segments that row-by-row inserts leave, within a few
seconds, once no snapshot needs the old versions; a REPEATABLE READ transaction that still reads them holds that
back. The table answers the same before and after, and after a restart."""

import glob
import time

import psycopg

from cluster import LocalCluster


def segment_files(directory):
    return len(glob.glob(f"{directory}/**/*.seg", recursive=True))


def wait_for_fewer_segments(directory, than, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if segment_files(directory) < than:
            return segment_files(directory)
        time.sleep(0.2)
    return segment_files(directory)


def test_deleted_rows_are_compacted_away_once_no_snapshot_needs_them(tmp_path):
    directory = tmp_path / "cluster"
    local = LocalCluster(directory, workers=2).start()
    try:
        with psycopg.connect(local.conninfo(), autocommit=True) as connection, \
                psycopg.connect(local.conninfo()) as reader:
            connection.execute("CREATE TABLE compacted (id bigint, label text)")
            connection.execute("INSERT INTO compacted SELECT i, 'row ' || i FROM generate_series(1, 400000) i")
            for i in range(10):  # ten single-row segments
                connection.execute("INSERT INTO compacted VALUES (%s, 'single')", [1000000 + i])
            # A REPEATABLE READ reader that took its snapshot before the DELETE keeps the old versions.
            reader.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            old = reader.execute("SELECT count(*), sum(id) FROM compacted").fetchone()
            connection.execute("DELETE FROM compacted WHERE id % 3 = 0")
            answer = connection.execute("SELECT count(*), sum(id), count(DISTINCT label) FROM compacted").fetchone()
            before = segment_files(directory)
            time.sleep(4)  # several compaction passes, with the horizon held back by the reader
            assert reader.execute("SELECT count(*), sum(id) FROM compacted").fetchone() == old
            reader.rollback()
            after = wait_for_fewer_segments(directory, before)
            assert after < before, f"{before} segment files before, {after} after"
            assert connection.execute(
                "SELECT count(*), sum(id), count(DISTINCT label) FROM compacted").fetchone() == answer
        local.kill()
        local = LocalCluster(directory, workers=2).start()
        with psycopg.connect(local.conninfo(), autocommit=True) as connection:
            assert connection.execute(
                "SELECT count(*), sum(id), count(DISTINCT label) FROM compacted").fetchone() == answer
    finally:
        local.kill()
