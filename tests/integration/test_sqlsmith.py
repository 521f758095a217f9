"""Story: sqlsmith, the random SQL generator Debian packages (1.4), fuzzes a 2-worker cluster holding TPC-H SF 0.01
for a bounded time (5,000 queries or 60 s, whichever comes first). The cluster must come out of it whole: no node
crashes, no statement outlives the 1 s statement_timeout sqlsmith sets on its session (beyond a margin), every
error sqlsmith gets carries a SQLSTATE, and a fresh session still answers. The SQLSTATEs it met, and how often,
are printed and written to sqlsmith-summary.json in the test's tmp dir.

sqlsmith reaches the server through PgWireTap, a relay that reads the protocol as it passes: each statement's
text, the time from its Query message to ReadyForQuery, and the ErrorResponse it got, with the SQLSTATE field
itself (sqlsmith's own report keeps only the messages' first lines). A connection the server drops mid-statement
counts as a crash.

sqlsmith first reads the server's catalog (pg_type, information_schema.tables, pg_attribute, pg_constraint,
pg_operator, pg_proc) and draws its queries' functions and operators from it: the first run reads Shoal's own,
which lists what Shoal answers. A second run lets sqlsmith read its catalog from the scratch PostgreSQL 15
holding the same TPC-H tables, and sends every query it generates (over the TPC-H tables alone:
--exclude-catalog) to Shoal: it draws from all of PostgreSQL's functions and operators, of which Shoal has
only some, so it probes how Shoal refuses the others."""

import collections
import json
import pathlib
import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time

import psycopg
import pytest

from cluster import process_exists, start_with_tpch
from postgres_oracle import TPCH_SCHEMA

SQLSMITH = shutil.which("sqlsmith") or "/usr/bin/sqlsmith"
MAX_QUERIES = 5000
RUN_SECONDS = 60
# sqlsmith sets statement_timeout to 1 s on its session (postgres.cc: "set statement_timeout to '1s'"); a
# statement that has not ended 4 s after that counts as a hang.
STATEMENT_TIMEOUT_S = 1.0
HANG_MARGIN_S = 4.0
# The statements sqlsmith's session sends around each generated query, which are not themselves generated.
CONTROL_STATEMENT = re.compile(r"^\s*(begin|rollback|set \w+ to '[^']*')\s*;?\s*$", re.IGNORECASE)

ORACLE_DATABASE = "sqlsmith_tpch"

SSL_REQUEST, GSSENC_REQUEST, CANCEL_REQUEST = 80877103, 80877104, 80877102


class Backend:
    """Where PgWireTap sends a connection: a TCP (host, port) or a Unix socket path, with startup parameters
    to override (user, database)."""

    def __init__(self, name, address, startup=None):
        self.name = name
        self.address = address
        self.startup = startup or {}

    def connect(self):
        if isinstance(self.address, tuple):
            return socket.create_connection(self.address, timeout=10)
        server = socket.socket(socket.AF_UNIX)
        server.settimeout(10)
        server.connect(self.address)
        return server


class Session:
    """One client connection through the tap: its statements as they ran."""

    def __init__(self, index, backend):
        self.index = index
        self.backend = backend.name
        self.lock = threading.Lock()
        self.statements = []  # {"sql", "seconds", "error", "sqlstate", "message", "lost"}
        self.current = None  # the statement sent and not yet answered by ReadyForQuery
        self.outside_errors = []  # ErrorResponses outside any statement (at startup): (fields)
        self.terminated = False  # the client sent Terminate
        self.ended = False  # one side closed the connection
        self.server_closed = False  # the server closed it first, without the client's Terminate

    def client_message(self, kind, body):
        with self.lock:
            if kind == b"Q" or (kind == b"P" and self.current is None):
                sql = body[body.index(b"\0") + 1:] if kind == b"P" else body
                self.current = {"sql": sql.split(b"\0", 1)[0].decode(errors="replace"),
                                "started": time.monotonic(), "error": None}
            elif kind == b"X":
                self.terminated = True

    def server_message(self, kind, body):
        with self.lock:
            if kind == b"E":
                fields = {}
                for field in body.split(b"\0"):
                    if field:
                        fields[chr(field[0])] = field[1:].decode(errors="replace")
                if self.current is not None:
                    if self.current["error"] is None:
                        self.current["error"] = fields
                else:
                    self.outside_errors.append(fields)
            elif kind == b"Z" and self.current is not None:
                self._finish(lost=False)

    def _finish(self, lost):
        current, self.current = self.current, None
        error = current["error"] or {}
        self.statements.append({"sql": current["sql"], "seconds": time.monotonic() - current["started"],
                                "sqlstate": error.get("C") if current["error"] is not None else None,
                                "error": current["error"] is not None, "message": error.get("M"), "lost": lost})

    def closed(self, by_server):
        with self.lock:
            if self.ended:
                return
            self.ended = True
            if by_server and not self.terminated:
                self.server_closed = True
            if self.current is not None:
                # A statement the server never answered: lost if the server closed first, else cut short by the
                # client (sqlsmith stopped at the end of the run).
                self._finish(lost=by_server and not self.terminated)


class PgWireTap:
    """A TCP port on 127.0.0.1 relaying each PostgreSQL connection to the backend `route(index)` picks for
    the index-th connection (0-based), and reading the protocol as it passes. Answers SSL and GSS encryption
    requests with 'N' itself, as a server without TLS does."""

    def __init__(self, route):
        self.route = route
        self.sessions = []
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.stopping = threading.Event()
        self.threads = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            thread = threading.Thread(target=self._serve, args=(client,), daemon=True)
            self.threads.append(thread)
            thread.start()

    @staticmethod
    def _read_exactly(connection, size):
        data = b""
        while len(data) < size:
            chunk = connection.recv(size - len(data))
            if not chunk:
                raise ConnectionError("closed during startup")
            data += chunk
        return data

    def _serve(self, client):
        server = None
        try:
            while True:
                length = struct.unpack("!i", self._read_exactly(client, 4))[0]
                payload = self._read_exactly(client, length - 4)
                code = struct.unpack("!i", payload[:4])[0]
                if code in (SSL_REQUEST, GSSENC_REQUEST):
                    client.sendall(b"N")
                    continue
                break
            with self.lock:
                index = len(self.sessions)
                backend = self.route(index)
                session = Session(index, backend)
                self.sessions.append(session)
            server = backend.connect()
            server.settimeout(None)
            if code == CANCEL_REQUEST:
                server.sendall(struct.pack("!i", length) + payload)
            else:
                parameters = payload[4:].split(b"\0")
                pairs = dict(zip(parameters[0::2], parameters[1::2]))
                pairs.pop(b"", None)
                for key, value in backend.startup.items():
                    pairs[key.encode()] = value.encode()
                body = payload[:4] + b"".join(key + b"\0" + value + b"\0" for key, value in pairs.items()) + b"\0"
                server.sendall(struct.pack("!i", len(body) + 4) + body)
            replies = threading.Thread(target=self._relay, args=(server, client, session.server_message, session,
                                                                 True), daemon=True)
            replies.start()
            self._relay(client, server, session.client_message, session, False)
            replies.join(timeout=30)
        except (OSError, ConnectionError):
            pass
        finally:
            for end in (client, server):
                if end is not None:
                    end.close()

    @staticmethod
    def _relay(source, target, on_message, session, from_server):
        buffered = b""
        try:
            while data := source.recv(65536):
                buffered += data
                while len(buffered) >= 5:
                    length = struct.unpack("!i", buffered[1:5])[0]
                    if len(buffered) < 1 + length:
                        break
                    on_message(buffered[:1], buffered[5:1 + length])
                    buffered = buffered[1 + length:]
                target.sendall(data)
        except OSError:
            pass
        finally:
            session.closed(by_server=from_server)
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        self.listener.close()
        for thread in self.threads:
            thread.join(timeout=10)


@pytest.fixture(scope="module")
def tpch_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("sqlsmith"), workers=2)
    yield local
    local.kill()


def run_sqlsmith(tap, tmp_path, *options):
    """Runs sqlsmith through `tap` until MAX_QUERIES or RUN_SECONDS: (exit code, seconds, stderr)."""
    target = f"host=127.0.0.1 port={tap.port} user=shoal dbname=shoal connect_timeout=10"
    command = [SQLSMITH, f"--target={target}", f"--max-queries={MAX_QUERIES}", "--seed=20240601", "--verbose",
               *options]
    stderr_path = tmp_path / "sqlsmith.stderr"
    started = time.monotonic()
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            process.wait(timeout=RUN_SECONDS)
        except subprocess.TimeoutExpired:
            # SIGINT makes a --verbose sqlsmith print its report and exit.
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
    seconds = time.monotonic() - started
    tap.close()
    return process.returncode, seconds, stderr_path.read_text(errors="replace")


def assert_cluster_survived(cluster, pids_before):
    """Every node process still runs (the same ones: none restarted), a fresh session answers, and the
    workers still run a distributed query."""
    assert cluster.process.poll() is None, "shoal local exited"
    assert sorted(cluster.child_pids()) == sorted(pids_before), "a node process exited or was replaced"
    assert all(process_exists(pid) for pid in pids_before)
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
        # At least TPC-H's 60175 rows: Shoal does not roll back yet, so the INSERTs sqlsmith sends inside
        # BEGIN ... ROLLBACK stay.
        assert connection.execute("SELECT count(*) FROM lineitem").fetchone()[0] >= 60175
        states = connection.execute("SELECT name, state FROM shoal_nodes ORDER BY name").fetchall()
        assert states == [("coordinator", "up"), ("worker-1", "up"), ("worker-2", "up")], states


def is_catalog_session(session):
    """sqlsmith's catalog reader (postgres.cc's schema_pqxx), which names itself first thing."""
    first = session.statements[0]["sql"] if session.statements else ""
    return first.startswith("SET application_name='sqlsmith::schema'")


def summarize(tap, backend, returncode, seconds, tmp_path):
    """The statements sqlsmith sent to `backend`, summed up: printed, and written to sqlsmith-summary.json (the
    failed generated queries to sqlsmith-errors.jsonl). Returns (sessions, statements, summary)."""
    sessions = [session for session in tap.sessions if session.backend == backend]
    statements = [statement for session in sessions for statement in session.statements]
    catalog = [statement for session in sessions if is_catalog_session(session) for statement in session.statements]
    generated = [statement for session in sessions if not is_catalog_session(session)
                 for statement in session.statements if not CONTROL_STATEMENT.match(statement["sql"])]
    errors = [statement for statement in generated if statement["error"]]
    by_sqlstate = collections.Counter(statement["sqlstate"] or "(none)" for statement in errors)
    messages = collections.defaultdict(collections.Counter)
    for statement in errors:
        messages[statement["sqlstate"] or "(none)"][(statement["message"] or "(no message)").splitlines()[0][:120]] += 1
    kinds = collections.defaultdict(collections.Counter)
    for statement in generated:
        kind = (statement["sql"].split() or ["(empty)"])[0].lower()
        kinds[kind]["error" if statement["error"] else "ok"] += 1
    summary = {
        "sqlsmith_exit_code": returncode,
        "seconds": round(seconds, 1),
        "connections": len(sessions),
        "catalog_statements": len(catalog),
        "catalog_errors": [(statement["sql"].strip(), statement["sqlstate"], statement["message"])
                           for statement in catalog if statement["error"]],
        "generated_queries": len(generated),
        "succeeded": len(generated) - len(errors),
        "by_statement_kind": {kind: dict(counter) for kind, counter in sorted(kinds.items())},
        "errors_by_sqlstate": dict(by_sqlstate.most_common()),
        "top_messages_by_sqlstate": {state: dict(counter.most_common(5)) for state, counter in messages.items()},
        "slowest_seconds": round(max((statement["seconds"] for statement in statements), default=0), 3),
        "connections_closed_by_server": sum(session.server_closed for session in sessions),
    }
    (tmp_path / "sqlsmith-summary.json").write_text(json.dumps(summary, indent=2))
    with open(tmp_path / "sqlsmith-errors.jsonl", "w") as out:
        for statement in errors:
            out.write(json.dumps(statement) + "\n")
    # The statements that outlived the timeout in full, to reproduce them.
    with open(tmp_path / "sqlsmith-slow.jsonl", "w") as out:
        for statement in statements:
            if statement["seconds"] > STATEMENT_TIMEOUT_S + HANG_MARGIN_S:
                out.write(json.dumps(statement) + "\n")
    print(f"sqlsmith summary ({tmp_path / 'sqlsmith-summary.json'}):\n{json.dumps(summary, indent=2)}")
    return sessions, statements, summary


def assert_no_crash_hang_or_bare_error(sessions, statements):
    lost = [statement["sql"][:300] for statement in statements if statement["lost"]]
    assert not lost, f"the server dropped the connection during {len(lost)} statements, first: {lost[0]}"
    assert not [session.index for session in sessions if session.server_closed], "the server closed a session"
    bare = [statement for statement in statements if statement["error"] and not statement["sqlstate"]]
    assert not bare, f"{len(bare)} errors without SQLSTATE, first: {bare[0]}"
    outside = [fields for session in sessions for fields in session.outside_errors]
    assert all(fields.get("C") for fields in outside), outside
    # Every statement ended within the statement timeout, plus the margin (sqlsmith's catalog reader sets none,
    # but its catalog queries take milliseconds); one still running when sqlsmith stopped counts its time so far.
    limit = STATEMENT_TIMEOUT_S + HANG_MARGIN_S
    hung = [(round(statement["seconds"], 2), statement["sql"][:300]) for statement in statements
            if statement["seconds"] > limit]
    assert not hung, f"{len(hung)} statements ran past {limit} s: {hung[:3]}"


def test_sqlsmith_fuzzes_a_tpch_cluster_without_crash_hang_or_error_without_sqlstate(tpch_cluster, tmp_path):
    pids_before = tpch_cluster.child_pids()
    shoal = Backend("shoal", ("127.0.0.1", tpch_cluster.port))
    tap = PgWireTap(lambda index: shoal)
    returncode, seconds, stderr = run_sqlsmith(tap, tmp_path)
    sessions, statements, summary = summarize(tap, "shoal", returncode, seconds, tmp_path)
    assert_cluster_survived(tpch_cluster, pids_before)
    assert_no_crash_hang_or_bare_error(sessions, statements)
    assert summary["catalog_errors"] == [], summary["catalog_errors"]
    assert "Generating indexes...done." in stderr, stderr[-3000:]
    assert returncode == 0 or seconds >= RUN_SECONDS, stderr[-3000:]
    assert summary["generated_queries"] >= MAX_QUERIES or seconds >= RUN_SECONDS, summary


@pytest.fixture(scope="module")
def oracle_catalog(postgres):
    """The scratch PostgreSQL holding the TPC-H tables (empty: sqlsmith reads only their definitions), in a
    database of this module's own."""
    with psycopg.connect(postgres.conninfo(), autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {ORACLE_DATABASE}")
        connection.execute(f"CREATE DATABASE {ORACLE_DATABASE}")
    with psycopg.connect(postgres.conninfo(ORACLE_DATABASE), autocommit=True) as connection:
        for sql in TPCH_SCHEMA:
            connection.execute(sql)
    return Backend("postgres", str(pathlib.Path(postgres.directory) / f".s.PGSQL.{postgres.port}"),
                   {"user": postgres.user, "database": ORACLE_DATABASE})


def test_sqlsmith_queries_from_postgresql_catalog_leave_the_cluster_whole(tpch_cluster, oracle_catalog, tmp_path):
    pids_before = tpch_cluster.child_pids()
    shoal = Backend("shoal", ("127.0.0.1", tpch_cluster.port))
    # sqlsmith 1.4 opens two catalog connections first (the catalog reader, then one that only names itself
    # and rolls back), then the session it tests with, which it reopens after a lost connection.
    tap = PgWireTap(lambda index: oracle_catalog if index < 2 else shoal)
    returncode, seconds, stderr = run_sqlsmith(tap, tmp_path, "--exclude-catalog")
    sessions, statements, summary = summarize(tap, "shoal", returncode, seconds, tmp_path)
    catalog = [session for session in tap.sessions if session.backend == "postgres"]
    assert catalog and all(map(is_catalog_session, catalog)), [session.statements[:1] for session in catalog]
    assert sessions and sessions[0].statements[0]["sql"] == "set statement_timeout to '1s'", sessions[:1]
    assert_cluster_survived(tpch_cluster, pids_before)
    assert_no_crash_hang_or_bare_error(sessions, statements)
    assert "Generating indexes...done." in stderr, (stderr[-3000:], summary["catalog_errors"])
    assert returncode == 0 or seconds >= RUN_SECONDS, stderr[-3000:]
    assert summary["generated_queries"] >= MAX_QUERIES or seconds >= RUN_SECONDS, summary
