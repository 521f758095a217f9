"""`shoal bench net`: the network microbenchmark runs end to end over real
processes and TCP, and its report has every figure the plots need."""
import json
import os
import subprocess

SHOAL = os.environ.get("SHOAL_BINARY", "build/release/cli/shoal")


def test_bench_net_reports_every_figure_for_three_nodes(tmp_path):
    report_path = tmp_path / "net.json"
    result = subprocess.run(
        [SHOAL, "--log-level", "warn", "bench", "net", "--nodes", "3", "--transport", "auto",
         "--bytes-per-node", str(8 << 20), "--sizes", "4096,524288", "--repeats", "1",
         "--base-port", "18300", "--json", str(report_path)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ratio" in result.stdout
    report = json.loads(report_path.read_text())
    # No RDMA device here: auto falls back to TCP (the soft-RoCE suite covers RDMA).
    assert report["transport"] in ("tcp", "rdma")
    for key in ("p2p_ratio_to_baseline", "baseline_gbps", "p2p_unidirectional_gbps", "p2p_bidirectional_gbps"):
        assert report[key] > 0, key
    assert [entry["message_bytes"] for entry in report["all_to_all"]] == [4096, 524288]
    assert set(report["schedule_comparison"]) == {"round-robin", "free"}
    assert set(report["cpu_seconds_per_gb"]) == {f"multiplexer_{report['transport']}", "baseline_tcp_socket"}
    # Every node moved what it was meant to: all-to-all nodes send to 2 peers and receive from 2.
    for run in report["runs"]:
        if run["scenario"].startswith("all-to-all"):
            assert run["bytes_sent"] == run["bytes_received"] > 0, run


def test_bench_net_rejects_a_bad_transport():
    result = subprocess.run([SHOAL, "bench", "net", "--transport", "carrier-pigeon"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "carrier-pigeon" in result.stderr
