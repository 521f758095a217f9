"""Story: an operator turns on mutual TLS for the cluster's internal traffic (`shoal local --internal-tls`: a
cluster CA and node certificate made with the data). Queries still run across the workers. A process on the
network without a certificate from the cluster's CA cannot call any internal service, even holding the cluster
token: not over plaintext, not over TLS without a client certificate, not with a certificate from another CA;
and a worker started without one never joins. With the cluster's certificate a call gets through the handshake
to the service, which still refuses to run a program the caller names. (issue 27, internal traffic)"""

import subprocess
import time

import grpc
import psycopg
import pytest

from cluster import SHOAL_BINARY, start_with_tpch
from internal_grpc import call, cluster_token, internal_methods, proto_modules


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("internal-tls"), extra_args=["--internal-tls"])
    yield local
    local.kill()


def workers(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        return connection.execute(
            "SELECT name, address, state FROM shoal_nodes WHERE role = 'worker' ORDER BY name").fetchall()


def credentials(directory, with_client_certificate=True, root=None):
    ca = (root or directory / "ca.crt").read_bytes()
    if not with_client_certificate:
        return grpc.ssl_channel_credentials(root_certificates=ca)
    return grpc.ssl_channel_credentials(root_certificates=ca, private_key=(directory / "node.key").read_bytes(),
                                        certificate_chain=(directory / "node.crt").read_bytes())


def test_queries_run_across_workers_over_mutual_tls(tls_cluster):
    with psycopg.connect(tls_cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey"
                                  ).fetchone() == (60175,)
    log = (tls_cluster.data_dir / "logs" / "coordinator.log").read_text()
    assert "mutual TLS with the cluster CA" in log


def test_no_internal_call_gets_through_without_the_clusters_certificate(tls_cluster, tmp_path):
    own = tls_cluster.data_dir / "internal-tls"
    token = cluster_token(tls_cluster.data_dir / "cluster-secret")
    stranger = tmp_path / "stranger"
    made = subprocess.run([SHOAL_BINARY, "certs", "init", str(stranger)], capture_output=True, text=True, timeout=30)
    assert made.returncode == 0, made.stderr
    attempts = {
        "plaintext": None,
        "TLS without a client certificate": credentials(own, with_client_certificate=False),
        "a certificate from another CA": credentials(stranger, root=own / "ca.crt"),
    }
    control = f"127.0.0.1:{tls_cluster.control_port()}"
    worker = workers(tls_cluster)[0][1]
    for service, method in internal_methods():
        address = control if service == "Control" else worker
        for how, creds in attempts.items():
            code, details = call(address, service, method.name, token=token, credentials=creds, timeout=5)
            assert code == grpc.StatusCode.UNAVAILABLE, (how, service, method.name, code, details)
    assert [state for _, _, state in workers(tls_cluster)] == ["up", "up"]
    with psycopg.connect(tls_cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT count(*) FROM lineitem").fetchone() == (60175,)


def test_with_the_clusters_certificate_a_call_reaches_the_service(tls_cluster, tmp_path):
    """The same client with the cluster's certificate and token passes the handshake; GenerateTpch still
    refuses to run the program it names (so the refusals above were the handshake's, not the service's)."""
    own = tls_cluster.data_dir / "internal-tls"
    token = cluster_token(tls_cluster.data_dir / "cluster-secret")
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\n")
    program.chmod(0o755)
    storage = proto_modules()["storage_pb2"]
    request = storage.GenerateTpchRequest(load_id=987655, scale_factor=0.01, part=1, parts=1, generator=str(program))
    worker = workers(tls_cluster)[0][1]
    code, details = call(worker, "WorkerData", "GenerateTpch", request=request, token=token,
                         credentials=credentials(own))
    assert code not in (grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE), (code, details)
    assert "may not name a program" in details
    assert not marker.exists()


def test_a_worker_without_the_clusters_certificate_never_joins(tls_cluster, tmp_path):
    intruder = subprocess.Popen(
        [SHOAL_BINARY, "worker", "--coordinator", f"127.0.0.1:{tls_cluster.control_port()}", "--cluster-id",
         "shoal-local", "--node-name", "intruder", "--listen-host", "127.0.0.1", "--data-dir", str(tmp_path / "data"),
         "--cluster-secret-file", str(tls_cluster.data_dir / "cluster-secret")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(5)
        assert "intruder" not in [name for name, _, _ in workers(tls_cluster)]
    finally:
        intruder.kill()
        intruder.wait(timeout=10)
