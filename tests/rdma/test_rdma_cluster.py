"""Story, inside the soft-RoCE VM (deploy/rxe-vm): Shoal's RDMA path carries real traffic. `shoal bench net`
over three node processes moves every byte it sends over RDMA, and a 2-worker cluster whose exchanges go over
RDMA answers the 22 TPC-H queries at SF 0.01 exactly as the official answers say."""

import json
import os
import pathlib
import subprocess
import sys

import psycopg
import pytest

from cluster import LocalCluster
from tpch_answers import assert_official_answer, run_query

SHOAL = os.environ.get("SHOAL_BINARY", "build/release/cli/shoal")
RXE_ADDRESS = "10.255.255.1"  # the dummy netdev rxe0 is bound to inside the VM


def test_bench_net_moves_every_byte_over_rdma_between_three_processes(tmp_path):
    report_path = tmp_path / "net.json"
    result = subprocess.run(
        [SHOAL, "--log-level", "warn", "bench", "net", "--nodes", "3", "--transport", "rdma", "--host", RXE_ADDRESS,
         "--bytes-per-node", str(4 << 20), "--sizes", "4096,524288", "--repeats", "1", "--base-port", "18500",
         "--json", str(report_path)],
        capture_output=True, text=True, timeout=600)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(report_path.read_text())
    assert report["transport"] == "rdma"
    assert report["p2p_unidirectional_gbps"] > 0
    for run in report["runs"]:
        if run["scenario"].startswith("all-to-all"):
            assert run["bytes_sent"] == run["bytes_received"] > 0, run


@pytest.fixture(scope="module")
def rdma_cluster(tmp_path_factory):
    directory = tmp_path_factory.mktemp("rdma-cluster")
    generator = pathlib.Path(sys.executable).parent / "tpchgen-cli"
    local = LocalCluster(directory, workers=2, extra_args=["--host", RXE_ADDRESS, "--transport", "rdma",
                                                           "--tpchgen", str(generator)]).start()
    with psycopg.connect(local.conninfo(), autocommit=True) as connection:
        connection.execute("CALL tpch_load(0.01)")
    yield local, directory
    local.kill()


def test_tpch_answers_over_rdma_exchanges(rdma_cluster):
    cluster, directory = rdma_cluster
    for query in range(1, 23):
        assert_official_answer(run_query(cluster.conninfo(), query), query, "0.01")
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        shuffled = connection.execute(
            "SELECT sum(bytes_shuffled) FROM shoal_queries WHERE state = 'done'").fetchone()[0]
    assert shuffled > 0, "the queries moved no rows between the workers"
    # The workers' multiplexers connected to each other over RDMA, not TCP.
    logs = "".join((directory / "logs" / f"worker-{n}.log").read_text() for n in (1, 2))
    assert "over rdma" in logs and "over tcp" not in logs, logs[-2000:]
    print(f"TPC-H SF 0.01 on 2 workers over RDMA: 22 official answers; {shuffled} bytes shuffled over rxe0")
