"""Story: a user selects a large result on a one-worker cluster (the plan runs on the worker). Rows start
arriving while the worker is still computing the rest, instead of after the whole result has been gathered on
the coordinator; and a client that fetches in batches (the extended protocol's Execute with a row limit, as JDBC's
fetch size does) gets every row exactly once, batch by batch, with PortalSuspended between the batches."""

import socket
import struct
import time

import psycopg
import pytest

LINEITEM_ROWS_SF_01 = 600572


@pytest.fixture(scope="module")
def tpch_cluster(tmp_path_factory):
    from cluster import LocalCluster

    # One query thread, so that the worker's part of a query lasts long enough to be measured.
    local = LocalCluster(tmp_path_factory.mktemp("streaming"), workers=1, extra_args=["--threads", "1"]).start()
    with psycopg.connect(local.conninfo(), autocommit=True) as connection:
        connection.execute("CALL tpch_load(0.1)")
    yield local
    local.kill()


def test_the_first_rows_arrive_before_the_query_is_done(tpch_cluster):
    # A costly filter over every row: the worker takes a while, and its rows come out morsel by morsel.
    condition = "lower(l_comment) || upper(l_comment) LIKE '%e%E%' AND l_comment LIKE '%e%e%e%'"
    query = f"SELECT l_orderkey, l_linenumber, l_comment FROM lineitem WHERE {condition}"
    with psycopg.connect(tpch_cluster.conninfo(), autocommit=True) as connection:
        expected = connection.execute(f"SELECT count(*) FROM lineitem WHERE {condition}").fetchone()[0]
        compute_s = min(timed(lambda: connection.execute(f"SELECT count(*) FROM lineitem WHERE {condition}"))
                        for _ in range(3))
        first_row_s, rows = [], 0
        started = time.monotonic()
        for _ in connection.cursor().stream(query):  # libpq single-row mode: rows as they arrive
            if not first_row_s:
                first_row_s.append(time.monotonic() - started)
            rows += 1
        total_s = time.monotonic() - started
    print(f"the query alone takes {compute_s * 1000:.0f} ms; streamed, its first row came after "
          f"{first_row_s[0] * 1000:.0f} ms and the last after {total_s * 1000:.0f} ms")
    assert rows == expected > 0
    # Gathered whole before sending, the first row could not come before the query is done.
    assert first_row_s[0] < compute_s / 2, "the first row waited for the whole query: not streamed"


def timed(run):
    started = time.monotonic()
    run()
    return time.monotonic() - started


class RawPgwire:
    """Just enough of the PostgreSQL protocol to send Execute with a row limit, which psycopg never does."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        body = struct.pack("!i", 196608) + b"user\0shoal\0database\0shoal\0\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        while self.read()[0] != b"Z":
            pass

    def send(self, kind, body=b""):
        self.sock.sendall(kind + struct.pack("!i", len(body) + 4) + body)

    def read_exact(self, size):
        data = b""
        while len(data) < size:
            more = self.sock.recv(size - len(data))
            assert more, "the server closed the connection"
            data += more
        return data

    def read(self):
        kind = self.read_exact(1)
        (length,) = struct.unpack("!i", self.read_exact(4))
        return kind, self.read_exact(length - 4)

    def close(self):
        self.send(b"X")
        self.sock.close()


def test_execute_with_a_row_limit_suspends_and_resumes_the_stream(tpch_cluster):
    client = RawPgwire(tpch_cluster.port)
    try:
        client.send(b"P", b"\0SELECT l_orderkey, l_linenumber FROM lineitem\0" + struct.pack("!h", 0))
        client.send(b"B", b"\0\0" + struct.pack("!hhh", 0, 0, 0))
        batch = 5000  # not a multiple of the 2048-row chunks, so batches end inside chunks
        seen = set()
        suspensions = 0
        while True:
            client.send(b"E", b"\0" + struct.pack("!i", batch))
            client.send(b"H")
            rows_in_batch = 0
            while True:
                kind, body = client.read()
                if kind in (b"1", b"2"):
                    continue
                if kind == b"D":
                    (columns,) = struct.unpack("!h", body[:2])
                    assert columns == 2
                    values, offset = [], 2
                    for _ in range(columns):
                        (size,) = struct.unpack("!i", body[offset:offset + 4])
                        values.append(body[offset + 4:offset + 4 + size].decode())
                        offset += 4 + size
                    seen.add(tuple(values))
                    rows_in_batch += 1
                    continue
                assert kind in (b"s", b"C"), (kind, body)
                break
            assert rows_in_batch <= batch
            if kind == b"C":
                assert body.rstrip(b"\0") == f"SELECT {rows_in_batch}".encode()
                break
            assert rows_in_batch == batch
            suspensions += 1
        client.send(b"S")
        while client.read()[0] != b"Z":
            pass
    finally:
        client.close()
    assert len(seen) == LINEITEM_ROWS_SF_01  # every (orderkey, linenumber) exactly once
    assert suspensions == LINEITEM_ROWS_SF_01 // batch
