"""Story: an operator turns logins on with a pg_hba.conf-like --hba-file, and nobody gets in without
credentials. psql and psycopg log in with SCRAM-SHA-256; a wrong password, an unknown role and a role
without LOGIN are refused with PostgreSQL's FATAL errors and SQLSTATEs (28P01, 28000), seen here by a small
SCRAM client of the test's own; host rules reject and admit as pg_hba.conf does; CREATE/ALTER/DROP ROLE answer
as PostgreSQL 15 does, as a superuser and as an ordinary role; roles and passwords survive a restart; and an
address that keeps failing is refused for a while. (issue 27, logins)"""

import base64
import concurrent.futures
import hashlib
import hmac
import os
import socket
import stat
import struct
import subprocess

import psycopg
import pytest

from cluster import LocalCluster
from postgres_oracle import session_answers

HBA = """\
# The test's superuser connection, then everyone else with a password.
host all shoal 127.0.0.1/32 trust
host all blocked 127.0.0.1/32 reject
host nosuchdb all 127.0.0.1/32 reject
host all all 127.0.0.1/32 scram-sha-256
"""
PROTOCOL_3 = 196608


@pytest.fixture(scope="module")
def secured(tmp_path_factory):
    directory = tmp_path_factory.mktemp("logins")
    hba = directory / "hba.conf"
    hba.write_text(HBA)
    cluster = LocalCluster(directory / "data", workers=1, extra_args=["--hba-file", str(hba)]).start()
    superuser = f"host=127.0.0.1 port={cluster.port} user=shoal dbname=shoal connect_timeout=10"
    with psycopg.connect(superuser, autocommit=True) as connection:
        connection.execute("CREATE ROLE analyst LOGIN PASSWORD 'correct horse'")
        connection.execute("CREATE ROLE reader PASSWORD 'no login'")  # NOLOGIN, as CREATE ROLE defaults
        connection.execute("CREATE USER blocked PASSWORD 'whatever'")
    yield cluster, hba
    cluster.kill()


def conninfo(cluster, user, password=None, dbname="shoal"):
    info = f"host=127.0.0.1 port={cluster.port} user={user} dbname={dbname} connect_timeout=10"
    return info + (f" password='{password}'" if password is not None else "")


def raw_login(port, user, password, dbname="shoal"):
    """Logs in as `user` with a SCRAM-SHA-256 client written here (RFC 5802), independent of libpq: returns
    ("ok", None) or ("error", SQLSTATE, message) from the server's ErrorResponse."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    with sock:
        parameters = f"user\0{user}\0database\0{dbname}\0\0".encode()
        sock.sendall(struct.pack("!ii", 8 + len(parameters), PROTOCOL_3) + parameters)
        buffered = b""
        client_nonce = base64.b64encode(os.urandom(18)).decode()
        client_first_bare = f"n=,r={client_nonce}"
        auth_message = None
        salted = None

        def send(kind, payload):
            sock.sendall(kind + struct.pack("!i", 4 + len(payload)) + payload)

        while True:
            while len(buffered) < 5 or len(buffered) < 1 + struct.unpack("!i", buffered[1:5])[0]:
                chunk = sock.recv(65536)
                if not chunk:
                    return ("closed",)
                buffered += chunk
            kind, length = buffered[:1], struct.unpack("!i", buffered[1:5])[0]
            body, buffered = buffered[5:1 + length], buffered[1 + length:]
            if kind == b"E":
                fields = {part[:1]: part[1:].decode() for part in body.split(b"\0") if part}
                return ("error", fields.get(b"C"), fields.get(b"M"))
            if kind == b"Z":
                return ("ok", None)
            if kind != b"R":
                continue
            code = struct.unpack("!i", body[:4])[0]
            if code == 10:  # AuthenticationSASL
                assert b"SCRAM-SHA-256" in body[4:]
                first = b"n,," + client_first_bare.encode()
                send(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(first)) + first)
            elif code == 11:  # SASLContinue: r=..., s=..., i=...
                server_first = body[4:].decode()
                attributes = dict(part.split("=", 1) for part in server_first.split(","))
                assert attributes["r"].startswith(client_nonce)
                salted = hashlib.pbkdf2_hmac("sha256", password.encode(), base64.b64decode(attributes["s"]),
                                             int(attributes["i"]))
                without_proof = f"c=biws,r={attributes['r']}"
                auth_message = f"{client_first_bare},{server_first},{without_proof}".encode()
                client_key = hmac.new(salted, b"Client Key", "sha256").digest()
                signature = hmac.new(hashlib.sha256(client_key).digest(), auth_message, "sha256").digest()
                proof = bytes(a ^ b for a, b in zip(client_key, signature))
                send(b"p", f"{without_proof},p={base64.b64encode(proof).decode()}".encode())
            elif code == 12:  # SASLFinal: the server proves it knows the verifier too
                server_key = hmac.new(salted, b"Server Key", "sha256").digest()
                expected = base64.b64encode(hmac.new(server_key, auth_message, "sha256").digest()).decode()
                assert body[4:].decode() == f"v={expected}"


def test_psql_and_psycopg_log_in_with_scram(secured):
    cluster, _ = secured
    done = subprocess.run(["psql", "-X", "-A", "-t", conninfo(cluster, "analyst"), "-c",
                           "SELECT current_user, session_user"],
                          env={**os.environ, "PGPASSWORD": "correct horse"}, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "analyst|analyst"
    with psycopg.connect(conninfo(cluster, "analyst", "correct horse")) as connection:
        assert connection.execute("SELECT current_user").fetchone() == ("analyst",)
    assert raw_login(cluster.port, "analyst", "correct horse") == ("ok", None)


@pytest.mark.parametrize("user, password, expected", [
    ("analyst", "wrong", ("error", "28P01", 'password authentication failed for user "analyst"')),
    # An unknown role fails exactly as a wrong password does: nothing tells which roles exist.
    ("nobody", "anything", ("error", "28P01", 'password authentication failed for user "nobody"')),
    ("reader", "no login", ("error", "28000", 'role "reader" is not permitted to log in')),
    ("blocked", "whatever", ("error", "28000", 'pg_hba.conf rejects connection for host "127.0.0.1", user '
                                              '"blocked", database "shoal", no encryption')),
])
def test_refused_logins(secured, user, password, expected):
    cluster, _ = secured
    assert raw_login(cluster.port, user, password) == expected
    with pytest.raises(psycopg.OperationalError, match=expected[2].split(" for ")[0]):
        psycopg.connect(conninfo(cluster, user, password)).close()


def test_no_rule_admits_the_client(tmp_path):
    hba = tmp_path / "hba.conf"
    hba.write_text("host all shoal 10.0.0.0/8 trust\n")
    cluster = LocalCluster(tmp_path / "data", workers=1, extra_args=["--hba-file", str(hba)]).start()
    try:
        assert raw_login(cluster.port, "shoal", "") == (
            "error", "28000", 'no pg_hba.conf entry for host "127.0.0.1", user "shoal", database "shoal", '
                              'no encryption')
    finally:
        cluster.kill()


def test_role_commands_answer_as_postgresql(secured, postgres):
    cluster, _ = secured
    statements = ["CREATE ROLE ops_a LOGIN PASSWORD 'pw-a' CREATEROLE", "CREATE ROLE ops_a",
                  "CREATE USER ops_b PASSWORD NULL", "CREATE ROLE pg_ops", "CREATE ROLE ops_c SUPERUSER NOSUPERUSER",
                  "CREATE ROLE ops_c LOGIN LOGIN", "ALTER ROLE ops_b NOLOGIN CREATEDB", "ALTER ROLE ops_none LOGIN",
                  "SELECT rolname, rolsuper, rolcanlogin, rolcreatedb, rolcreaterole, rolpassword FROM pg_roles "
                  "WHERE rolname LIKE 'ops%' ORDER BY 1",
                  "SELECT usename, usesuper FROM pg_user WHERE usename LIKE 'ops%' ORDER BY 1",
                  "DROP ROLE ops_none", "DROP ROLE IF EXISTS ops_none, ops_b", "DROP ROLE ops_a"]
    shoal = session_answers(conninfo(cluster, "shoal"), statements, with_notices=True)
    oracle_statements = ["DROP ROLE IF EXISTS ops_a, ops_b, ops_c"] + statements
    oracle = session_answers(postgres.conninfo(), oracle_statements, with_notices=True)[1:]
    assert shoal == oracle


def test_an_ordinary_role_is_held_to_its_rights(secured, postgres):
    """What a role with LOGIN but no CREATEROLE may do to roles: change its own password, nothing else."""
    cluster, _ = secured
    setup = ["DROP ROLE IF EXISTS plain_user, plain_other", "CREATE ROLE plain_user LOGIN PASSWORD 'pw'",
             "CREATE ROLE plain_other"]
    statements = ["CREATE ROLE plain_new", "ALTER ROLE plain_user PASSWORD 'changed'", "ALTER ROLE plain_user CREATEDB",
                  "ALTER ROLE plain_other LOGIN", "ALTER ROLE shoal_or_postgres NOLOGIN", "DROP ROLE plain_other",
                  "ALTER ROLE plain_user SUPERUSER"]
    session_answers(postgres.conninfo(), setup)
    session_answers(conninfo(cluster, "shoal"), setup[1:])
    oracle = session_answers(postgres.conninfo().replace(f"user={postgres.user}", "user=plain_user"), statements)
    shoal = session_answers(conninfo(cluster, "plain_user", "pw"), statements)
    assert shoal == oracle
    # The new password is the one that works now.
    assert raw_login(cluster.port, "plain_user", "changed") == ("ok", None)
    assert raw_login(cluster.port, "plain_user", "pw")[:2] == ("error", "28P01")


def test_the_bootstrap_superuser_stays(secured):
    cluster, _ = secured
    with psycopg.connect(conninfo(cluster, "shoal"), autocommit=True) as connection:
        for sql, sqlstate in [("DROP ROLE shoal", "55006"), ("ALTER ROLE shoal NOSUPERUSER", "42501")]:
            with pytest.raises(psycopg.Error) as refused:
                connection.execute(sql)
            assert refused.value.sqlstate == sqlstate


def test_roles_and_passwords_survive_a_restart(tmp_path):
    hba = tmp_path / "hba.conf"
    hba.write_text(HBA)
    data = tmp_path / "data"
    cluster = LocalCluster(data, workers=1, extra_args=["--hba-file", str(hba)]).start()
    try:
        with psycopg.connect(conninfo(cluster, "shoal"), autocommit=True) as connection:
            connection.execute("CREATE ROLE keeper LOGIN PASSWORD 's3cret'")
        assert cluster.stop() == 0
        cluster = LocalCluster(data, workers=1, extra_args=["--hba-file", str(hba)]).start()
        assert raw_login(cluster.port, "keeper", "s3cret") == ("ok", None)
        assert raw_login(cluster.port, "keeper", "guess")[:2] == ("error", "28P01")
        # Only the verifier is kept, never the password.
        catalog = (data / "coordinator" / "catalog.json").read_text()
        assert "s3cret" not in catalog and "SCRAM-SHA-256$4096:" in catalog
        assert stat.S_IMODE(os.stat(data / "coordinator" / "catalog.json").st_mode) == 0o600
    finally:
        cluster.kill()


def cluster_with_target(tmp_path):
    """A fresh cluster (failed logins counted from zero) with role target, password 'right'."""
    hba = tmp_path / "hba.conf"
    hba.write_text(HBA)
    cluster = LocalCluster(tmp_path / "data", workers=1, extra_args=["--hba-file", str(hba)]).start()
    with psycopg.connect(conninfo(cluster, "shoal"), autocommit=True) as connection:
        connection.execute("CREATE ROLE target LOGIN PASSWORD 'right'")
    return cluster


def test_an_address_that_keeps_failing_is_refused_for_a_while(tmp_path):
    cluster = cluster_with_target(tmp_path)
    try:
        failures = [raw_login(cluster.port, "target", f"guess {i}")[:2] for i in range(10)]
        assert failures == [("error", "28P01")] * 10
        # The eleventh try is not even checked, right password or not.
        refused = raw_login(cluster.port, "target", "right")
        assert refused[:2] == ("error", "28000") and "too many failed logins from 127.0.0.1" in refused[2]
    finally:
        cluster.kill()


def test_twenty_logins_at_once_cannot_slip_past_the_limit(tmp_path):
    """A password counts as failed from the moment it is checked until it proves right: twenty right
    passwords at once all log in, but of twenty wrong ones sent at once at most ten are checked (28P01); the
    others are refused unchecked, and so is the right password after them."""
    cluster = cluster_with_target(tmp_path)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            logins = list(pool.map(lambda i: raw_login(cluster.port, "target", "right")[:1], range(20)))
            assert logins == [("ok",)] * 20, logins
            answers = list(pool.map(lambda i: raw_login(cluster.port, "target", f"guess {i}")[:2], range(20)))
        assert answers.count(("error", "28P01")) <= 10, answers
        assert answers.count(("error", "28000")) >= 10, answers
        assert raw_login(cluster.port, "target", "right")[:2] == ("error", "28000")
    finally:
        cluster.kill()


def test_server_files_and_tpch_load_are_a_superusers(secured):
    """A login that is no superuser cannot read the coordinator's files through COPY, nor drop and recreate
    the TPC-H tables with tpch_load; the superuser still can."""
    cluster, _ = secured
    with psycopg.connect(conninfo(cluster, "shoal"), autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS lines (line text)")
    with psycopg.connect(conninfo(cluster, "analyst", "correct horse"), autocommit=True) as connection:
        for sql in ["COPY lines FROM '/etc/passwd'", "COPY lines FROM '/no/such/file'", "CALL tpch_load(0.01)"]:
            with pytest.raises(psycopg.Error) as refused:
                connection.execute(sql)
            assert refused.value.sqlstate == "42501", sql
            assert "/etc/passwd" not in str(refused.value) and "root" not in str(refused.value)
    with psycopg.connect(conninfo(cluster, "shoal"), autocommit=True) as connection:
        connection.execute("COPY lines FROM '/etc/hostname'")
        assert connection.execute("SELECT count(*) FROM lines").fetchone()[0] >= 1


def server_first_message(port, user, initial_response_length=None):
    """The server-first message SCRAM gives `user` (its nonce, salt and iterations), or the server's error
    for an initial response declared `initial_response_length` bytes long."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        parameters = f"user\0{user}\0database\0shoal\0\0".encode()
        sock.sendall(struct.pack("!ii", 8 + len(parameters), PROTOCOL_3) + parameters)
        reply = sock.recv(65536)
        assert reply[:1] == b"R" and struct.unpack("!i", reply[5:9])[0] == 10, reply
        first = b"n,,n=,r=" + base64.b64encode(os.urandom(18))
        if initial_response_length is not None:
            sock.sendall(b"p" + struct.pack("!i", initial_response_length) + b"SCRAM-SHA-256\0")
        else:
            payload = b"SCRAM-SHA-256\0" + struct.pack("!i", len(first)) + first
            sock.sendall(b"p" + struct.pack("!i", 4 + len(payload)) + payload)
        reply = sock.recv(65536)
        if reply[:1] == b"E":
            return reply
        return dict(part.split("=", 1) for part in reply[9:].decode().split(","))


def test_an_unknown_role_looks_like_a_real_one(secured):
    """Its SCRAM salt is the same at every try and its iterations are the default, as a real role's are: two
    logins cannot tell whether the role exists."""
    cluster, _ = secured
    first, second = (server_first_message(cluster.port, "no_such_role") for _ in range(2))
    assert first["s"] == second["s"] and first["i"] == second["i"] == "4096"
    assert server_first_message(cluster.port, "other_unknown")["s"] != first["s"]
    real = [server_first_message(cluster.port, "analyst") for _ in range(2)]
    assert real[0]["s"] == real[1]["s"] and real[0]["i"] == "4096"


def test_an_oversized_authentication_message_is_refused(secured):
    """Before a login, no client makes the server hold more than PostgreSQL's 64 KB authentication token."""
    cluster, _ = secured
    reply = server_first_message(cluster.port, "analyst", initial_response_length=1 << 20)
    assert reply[:1] == b"E" and b"08P01" in reply and b"invalid message length" in reply
