#!/usr/bin/env python3
"""Plots the report of `shoal bench net --json FILE`.

Three panels, after the paper's figures: all-to-all throughput per node by
message size (Figure 10c), the round-robin schedule against the free one
(Figure 10b), and point-to-point throughput against the plain TCP socket
baseline measured in the same run (Figure 5).

Usage: plot_net.py REPORT.json OUTPUT.png|svg
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        report = json.load(f)
    transport = report.get("transport", "?")
    nodes = report["nodes"]
    fig, (sizes, schedules, p2p) = plt.subplots(1, 3, figsize=(15, 4.5))

    entries = report.get("all_to_all", [])
    sizes.plot([e["message_bytes"] / 1024 for e in entries], [e["gbps_per_node"] for e in entries], marker="o")
    sizes.set_xscale("log", base=2)
    sizes.set_xlabel("message size (KB)")
    sizes.set_ylabel("GB/s per node")
    sizes.set_title(f"all-to-all, {nodes} nodes, round-robin ({transport})")
    sizes.grid(True, alpha=0.3)

    comparison = report.get("schedule_comparison", {})
    names = list(comparison)
    schedules.bar(names, [comparison[n]["gbps_per_node"] for n in names], color=["tab:blue", "tab:orange"][: len(names)])
    schedules.set_ylabel("GB/s per node")
    schedules.set_title(f"network schedule, 512 KB messages, {nodes} nodes")

    labels = ["multiplexer\nunidirectional", "multiplexer\nbidirectional", "TCP socket\nbaseline"]
    values = [report.get("p2p_unidirectional_gbps", 0), report.get("p2p_bidirectional_gbps", 0), report.get("baseline_gbps", 0)]
    p2p.bar(labels, values, color=["tab:blue", "tab:green", "tab:gray"])
    p2p.set_ylabel("GB/s")
    p2p.set_title(f"point-to-point (ratio to baseline {report.get('p2p_ratio_to_baseline', 0):.2f})")

    fig.tight_layout()
    fig.savefig(sys.argv[2])
    print(f"wrote {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
