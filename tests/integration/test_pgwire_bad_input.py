"""Hostile or broken clients end only their own connection; everyone else is served."""

import socket
import struct

import psycopg

PROTOCOL_3 = 196608
SSL_REQUEST = 80877103
CANCEL_REQUEST = 80877102


def connect(cluster):
    sock = socket.create_connection(("127.0.0.1", cluster.port), timeout=10)
    sock.settimeout(10)
    return sock


def startup_packet(user="shoal"):
    body = struct.pack("!i", PROTOCOL_3) + b"user\0" + user.encode() + b"\0database\0shoal\0\0"
    return struct.pack("!i", len(body) + 4) + body


def read_message(sock):
    """Returns (type, body), or None when the server closed the connection."""
    header = b""
    while len(header) < 5:
        chunk = sock.recv(5 - len(header))
        if not chunk:
            return None
        header += chunk
    kind, length = header[:1], struct.unpack("!i", header[1:])[0]
    body = b""
    while len(body) < length - 4:
        chunk = sock.recv(length - 4 - len(body))
        if not chunk:
            return None
        body += chunk
    return kind, body


def error_fields(body):
    fields = {}
    for field in body.split(b"\0"):
        if field:
            fields[field[:1].decode()] = field[1:].decode()
    return fields


def read_until_ready(sock):
    messages = []
    while True:
        message = read_message(sock)
        assert message is not None, f"closed before ReadyForQuery after {messages}"
        messages.append(message)
        if message[0] == b"Z":
            return messages


def assert_closed(sock):
    """The server closes the connection (maybe after an ErrorResponse)."""
    for _ in range(100):
        try:
            message = read_message(sock)
        except ConnectionResetError:
            return
        if message is None:
            return
        assert message[0] in (b"E", b"N"), message
    raise AssertionError("connection stayed open")


def assert_still_serving(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT 'still here'").fetchone() == ("still here",)


def test_garbage_bytes_close_only_that_connection(cluster):
    """Random bytes instead of a startup packet: an error, the connection closes, others go on."""
    with connect(cluster) as sock:
        sock.sendall(b"\x00\x00\x00\x10GET / HTTP/1.1\r\n\r\n" * 4)
        assert_closed(sock)
    with connect(cluster) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert_closed(sock)
    assert_still_serving(cluster)


def test_absurd_startup_length_gets_08P01(cluster):
    """A startup packet claiming 2 GB (or 4 bytes) gets ErrorResponse 08P01 and a close."""
    for length in (0x7FFFFFFF, 4, -1):
        with connect(cluster) as sock:
            sock.sendall(struct.pack("!i", length) + b"\0" * 8)
            message = read_message(sock)
            assert message is not None and message[0] == b"E"
            assert error_fields(message[1])["C"] == "08P01"
            assert_closed(sock)
    assert_still_serving(cluster)


def test_client_leaving_mid_startup(cluster):
    """Half a startup packet and then a hang-up."""
    with connect(cluster) as sock:
        sock.sendall(startup_packet()[:7])
    assert_still_serving(cluster)


def test_client_leaving_mid_message(cluster):
    """A client that logs in, sends half a query and disconnects."""
    with connect(cluster) as sock:
        sock.sendall(startup_packet())
        read_until_ready(sock)
        query = b"SELECT 1\0"
        sock.sendall(b"Q" + struct.pack("!i", len(query) + 4) + query[:3])
    assert_still_serving(cluster)


def test_unknown_message_type_is_a_protocol_violation(cluster):
    """After startup, a message type that does not exist ends the connection with 08P01."""
    with connect(cluster) as sock:
        sock.sendall(startup_packet())
        read_until_ready(sock)
        sock.sendall(b"\x01" + struct.pack("!i", 4))
        message = read_message(sock)
        assert message[0] == b"E" and error_fields(message[1])["C"] == "08P01"
        assert_closed(sock)
    assert_still_serving(cluster)


def test_absurd_message_length_after_startup(cluster):
    """A query message claiming 2 GB is refused before anything is allocated."""
    with connect(cluster) as sock:
        sock.sendall(startup_packet())
        read_until_ready(sock)
        sock.sendall(b"Q" + struct.pack("!i", 0x7FFFFFFF))
        message = read_message(sock)
        assert message[0] == b"E" and error_fields(message[1])["C"] == "08P01"
        assert_closed(sock)
    assert_still_serving(cluster)


def test_ssl_request_is_declined_and_startup_continues(cluster):
    """SSLRequest gets 'N' (no TLS yet), and a plain startup then succeeds."""
    with connect(cluster) as sock:
        sock.sendall(struct.pack("!ii", 8, SSL_REQUEST))
        assert sock.recv(1) == b"N"
        sock.sendall(startup_packet())
        messages = read_until_ready(sock)
        kinds = [kind for kind, _ in messages]
        assert kinds[0] == b"R" and b"K" in kinds and b"S" in kinds
        parameters = dict(body.split(b"\0")[:2] for kind, body in messages if kind == b"S")
        for name in (b"server_version", b"client_encoding", b"DateStyle", b"integer_datetimes",
                     b"standard_conforming_strings"):
            assert name in parameters


def test_missing_user_is_refused(cluster):
    with connect(cluster) as sock:
        body = struct.pack("!i", PROTOCOL_3) + b"database\0shoal\0\0"
        sock.sendall(struct.pack("!i", len(body) + 4) + body)
        message = read_message(sock)
        assert message[0] == b"E" and error_fields(message[1])["C"] == "28000"
        assert_closed(sock)


def test_cancel_request_with_wrong_key_is_ignored(cluster):
    """A CancelRequest with a bogus key closes silently and cancels nothing."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with connect(cluster) as sock:
            sock.sendall(struct.pack("!iiii", 16, CANCEL_REQUEST, connection.info.backend_pid, 12345))
            assert sock.recv(1) == b""
        assert connection.execute("SELECT 1").fetchone() == (1,)
        connection.cancel()  # a real cancel request with the right key: accepted and harmless when idle
        assert connection.execute("SELECT 2").fetchone() == (2,)


def test_errors_in_extended_protocol_skip_to_sync(cluster):
    """A failing Parse makes the server skip to Sync, then the session works again."""
    with connect(cluster) as sock:
        sock.sendall(startup_packet())
        read_until_ready(sock)

        def message(kind, body):
            return kind + struct.pack("!i", len(body) + 4) + body

        parse_bad = message(b"P", b"\0SELEC 1\0" + struct.pack("!h", 0))
        bind = message(b"B", b"\0\0" + struct.pack("!hhh", 0, 0, 0))
        execute = message(b"E", b"\0" + struct.pack("!i", 0))
        sync = message(b"S", b"")
        sock.sendall(parse_bad + bind + execute + sync)
        messages = read_until_ready(sock)
        assert [kind for kind, _ in messages] == [b"E", b"Z"]
        assert error_fields(messages[0][1])["C"] == "42601"
        parse_good = message(b"P", b"\0SELECT $1::integer + 1\0" + struct.pack("!hi", 1, 23))
        bind_good = message(b"B", b"\0\0" + struct.pack("!hhi", 0, 1, 1) + b"5" + struct.pack("!h", 0))
        sock.sendall(parse_good + bind_good + execute + sync)
        messages = read_until_ready(sock)
        assert [kind for kind, _ in messages] == [b"1", b"2", b"D", b"C", b"Z"]
        assert messages[2][1].endswith(b"6")
