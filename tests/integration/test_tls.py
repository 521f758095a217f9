"""Story: an operator makes certificates with `shoal certs init`, starts the cluster with --tls-cert and
--tls-key, and requires TLS with hostssl rules. psql and psycopg connect with sslmode=verify-full against the
private CA (by 127.0.0.1 and by localhost), log in with SCRAM-SHA-256 bound to the TLS channel
(channel_binding=require, so SCRAM-SHA-256-PLUS), and pgjdbc logs in with SCRAM over TLS; a client that trusts
another CA is refused by its own verification, and a plaintext client by the rules. (issue 27, TLS)"""

import json
import os
import select
import socket
import stat
import struct
import subprocess
import time

import psycopg
import pytest

from cluster import SHOAL_BINARY, LocalCluster
from test_pgjdbc import PGJDBC_JAR, check_classes  # noqa: F401  (the fixture)

HBA = """\
host    all shoal 127.0.0.1/32 trust
hostssl all all   127.0.0.1/32 scram-sha-256
host    all all   127.0.0.1/32 reject
"""


def certs_init(directory, *hosts):
    arguments = [SHOAL_BINARY, "certs", "init", str(directory)]
    for host in hosts:
        arguments += ["--host", host]
    return subprocess.run(arguments, capture_output=True, text=True, timeout=60)


STARTUP_TIMEOUT_S = 5


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tls")
    assert certs_init(directory / "certs", "shoal-test.internal").returncode == 0
    (directory / "hba.conf").write_text(HBA)
    cluster = LocalCluster(directory / "data", workers=1, extra_args=[
        "--tls-cert", str(directory / "certs" / "node.crt"), "--tls-key", str(directory / "certs" / "node.key"),
        "--hba-file", str(directory / "hba.conf"), "--client-startup-timeout", str(STARTUP_TIMEOUT_S)]).start()
    with psycopg.connect(conninfo(cluster, "shoal"), autocommit=True) as connection:
        connection.execute("CREATE ROLE app LOGIN PASSWORD 'tls-pw'")
    yield cluster, directory / "certs"
    cluster.kill()


def conninfo(cluster, user, **extra):
    options = " ".join(f"{key}={value}" for key, value in extra.items())
    return f"host=127.0.0.1 port={cluster.port} user={user} dbname=shoal connect_timeout=10 {options}"


def test_certs_init_writes_a_ca_and_a_node_certificate(tmp_path):
    done = certs_init(tmp_path)
    assert done.returncode == 0, done.stderr
    for name, secret in [("ca.crt", False), ("ca.key", True), ("node.crt", False), ("node.key", True)]:
        mode = stat.S_IMODE(os.stat(tmp_path / name).st_mode)
        assert (mode & 0o077 == 0) if secret else (mode & 0o044 == 0o044), (name, oct(mode))
    verified = subprocess.run(["openssl", "verify", "-CAfile", str(tmp_path / "ca.crt"), str(tmp_path / "node.crt")],
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    again = certs_init(tmp_path)  # never overwrites a key
    assert again.returncode != 0 and "exists already" in again.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_psql_verifies_the_server_against_the_ca(tls_cluster, host):
    cluster, certs = tls_cluster
    done = subprocess.run(["psql", "-X", f"host={host} port={cluster.port} user=shoal dbname=shoal sslmode=verify-full "
                           f"sslrootcert={certs / 'ca.crt'}", "-c", "\\conninfo"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "SSL connection (protocol: TLSv1.3" in done.stdout


def test_a_client_trusting_another_ca_refuses_the_server(tls_cluster, tmp_path):
    cluster, _ = tls_cluster
    assert certs_init(tmp_path).returncode == 0
    with pytest.raises(psycopg.OperationalError, match="certificate verify failed"):
        psycopg.connect(conninfo(cluster, "shoal", sslmode="verify-full", sslrootcert=tmp_path / "ca.crt")).close()


def test_scram_bound_to_the_tls_channel(tls_cluster):
    cluster, certs = tls_cluster
    secure = conninfo(cluster, "app", password="tls-pw", sslmode="verify-full", sslrootcert=certs / "ca.crt",
                      channel_binding="require")
    with psycopg.connect(secure) as connection:
        assert connection.pgconn.ssl_in_use
        assert connection.execute("SELECT current_user").fetchone() == ("app",)
    with pytest.raises(psycopg.OperationalError, match='password authentication failed for user "app"'):
        psycopg.connect(secure.replace("tls-pw", "wrong")).close()
    # The hostssl rule admits app only over TLS; in the clear the last rule rejects it.
    with pytest.raises(psycopg.OperationalError, match='pg_hba.conf rejects connection for host "127.0.0.1", '
                                                       'user "app", database "shoal", no encryption'):
        psycopg.connect(conninfo(cluster, "app", password="tls-pw", sslmode="disable")).close()


def test_pgjdbc_logs_in_with_scram_over_tls(tls_cluster, check_classes):  # noqa: F811
    cluster, certs = tls_cluster
    url = (f"jdbc:postgresql://127.0.0.1:{cluster.port}/shoal?user=app&password=tls-pw&sslmode=verify-full"
           f"&sslrootcert={certs / 'ca.crt'}&connectTimeout=10")
    done = subprocess.run(["java", "-cp", f"{PGJDBC_JAR}:{check_classes}", "ShoalJdbcCheck", f"tls={url}"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = {line["check"]: line for line in map(json.loads, done.stdout.splitlines())}
    assert lines["get_catalogs"]["ok"], lines["get_catalogs"]
    assert ["shoal"] in lines["get_catalogs"]["detail"]["rows"]
    wrong = subprocess.run(["java", "-cp", f"{PGJDBC_JAR}:{check_classes}", "ShoalJdbcCheck",
                            f"tls={url.replace('tls-pw', 'nope')}"], capture_output=True, text=True, timeout=120)
    refused = json.loads(wrong.stdout.splitlines()[0])
    assert not refused["ok"] and refused["sqlstate"] == "28P01", refused


def test_a_tls_slowloris_is_cut_off_at_the_startup_deadline(tls_cluster):
    """A client that asks for TLS, then trickles its ClientHello a byte every quarter second, is cut off at the
    startup's absolute deadline: the handshake cannot stretch it one read at a time."""
    cluster, _ = tls_cluster
    sock = socket.create_connection(("127.0.0.1", cluster.port), timeout=30)
    with sock:
        sock.sendall(struct.pack("!ii", 8, 80877103))  # SSLRequest
        assert sock.recv(1) == b"S"
        hello = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(500)  # a ClientHello that never ends
        started = time.monotonic()
        closed_after = None
        for byte in hello:
            try:
                sock.sendall(bytes([byte]))
                readable, _, _ = select.select([sock], [], [], 0.25)
                if readable and sock.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except OSError:
                closed_after = time.monotonic() - started
                break
        assert closed_after is not None, "the server kept reading a ClientHello for its whole length"
        assert closed_after <= STARTUP_TIMEOUT_S + 2, closed_after
