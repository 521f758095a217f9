"""No remote control without credentials: an outsider who can reach a node's gRPC ports runs no program,
drops no table, drains no worker and joins nothing; a member with the cluster secret still cannot make a
worker run a program of its choosing."""

import os
import stat

import grpc
import psycopg
import pytest

from cluster import start_with_tpch
from internal_grpc import call, cluster_token, internal_methods, proto_modules


def worker_addresses(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        return [row[0] for row in connection.execute(
            "SELECT address FROM shoal_nodes WHERE role = 'worker' ORDER BY name").fetchall()]


@pytest.fixture(scope="module")
def loaded_cluster(tmp_path_factory):
    local = start_with_tpch(tmp_path_factory.mktemp("auth-cluster"), workers=2)
    yield local
    local.kill()


def lineitem_rows(cluster):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        return connection.execute("SELECT count(*) FROM lineitem").fetchone()[0]


def test_every_internal_call_without_the_cluster_token_is_refused(loaded_cluster):
    """Each method of Control, WorkerControl and WorkerData, called with no token or a wrong one, answers
    UNAUTHENTICATED and changes nothing: the data and the workers are all still there."""
    rows_before = lineitem_rows(loaded_cluster)
    control = f"127.0.0.1:{loaded_cluster.control_port()}"
    worker = worker_addresses(loaded_cluster)[0]
    methods = list(internal_methods())
    assert len(methods) >= 15
    for service, method in methods:
        address = control if service == "Control" else worker
        for token in (None, "0" * 64):
            code, details = call(address, service, method.name, token=token)
            assert code == grpc.StatusCode.UNAUTHENTICATED, (service, method.name, code, details)
    assert lineitem_rows(loaded_cluster) == rows_before
    with psycopg.connect(loaded_cluster.conninfo(), autocommit=True) as connection:
        states = connection.execute("SELECT state FROM shoal_nodes WHERE role = 'worker'").fetchall()
    assert states == [("up",), ("up",)]


def test_generate_tpch_never_runs_a_program_the_caller_names(loaded_cluster, tmp_path):
    """Once a remote code execution: GenerateTpch ran whatever path the request named. Without the token
    it is refused outright; with it, a request that names a program is refused (42501) and the program
    never runs."""
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\n")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    storage_pb2 = proto_modules()["storage_pb2"]
    request = storage_pb2.GenerateTpchRequest(load_id=987654, scale_factor=0.01, part=1, parts=1,
                                              generator=str(program))
    worker = worker_addresses(loaded_cluster)[0]
    code, _ = call(worker, "WorkerData", "GenerateTpch", request)
    assert code == grpc.StatusCode.UNAUTHENTICATED
    token = cluster_token(loaded_cluster.data_dir / "cluster-secret")
    code, details = call(worker, "WorkerData", "GenerateTpch", request, token=token)
    assert code != grpc.StatusCode.OK
    assert "may not name a program" in details
    assert not marker.exists()


def test_a_live_workers_name_cannot_be_taken_over(loaded_cluster):
    """Registering under a live worker's name from another address is refused, even with the secret, and
    queries keep going to the real worker."""
    control_pb2 = proto_modules()["control_pb2"]
    token = cluster_token(loaded_cluster.data_dir / "cluster-secret")
    request = control_pb2.RegisterWorkerRequest(cluster_id="shoal-local", protocol_version=1, node_name="worker-1",
                                                address="127.0.0.1:1", exchange_address="127.0.0.1:2")
    code, details = call(f"127.0.0.1:{loaded_cluster.control_port()}", "Control", "RegisterWorker", request,
                         token=token)
    assert code == grpc.StatusCode.ALREADY_EXISTS, details
    assert lineitem_rows(loaded_cluster) > 0


def test_the_local_cluster_secret_is_its_owners_alone(loaded_cluster):
    mode = os.stat(loaded_cluster.data_dir / "cluster-secret").st_mode
    assert mode & (stat.S_IRWXG | stat.S_IRWXO) == 0
