"""TPC-H load benchmark: CALL tpch_load(SF) into a local cluster against tpchgen-cli alone writing the same
.tbl files, measured side by side in one run, plus the workers' resident memory once the data is loaded.

    .venv/bin/python bench/tpch_load_bench.py --shoal build/release/cli/shoal --sf 1 --workers 2 --repeat 5

Each repeat times the generator alone and then the load, one right after the other, so that both see the
machine in the same state; the figure to quote is the median of the per-repeat ratios (a shared 2-core VM
moves single timings by 10-20 %).

Targets (issue "Columnar storage ..."): load time <= 1.5 x generator time; summed worker RSS <= 1.5 GB at SF 1.
"""

import argparse
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time


def generator_path():
    return shutil.which("tpchgen-cli") or str(pathlib.Path(sys.executable).parent / "tpchgen-cli")


def time_generator(scale_factor, directory):
    """tpchgen-cli alone, writing every table's .tbl file with all cores, as a user would run it."""
    import subprocess
    started = time.monotonic()
    subprocess.run([generator_path(), "tbl", "-s", str(scale_factor), "--output-dir", str(directory)], check=True)
    return time.monotonic() - started


def memory_kib(pid, field):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoal", default="build/release/cli/shoal", help="the shoal binary")
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scratch", default="/dev/shm", help="where tpchgen-cli writes its files when timed alone")
    parser.add_argument("--repeat", type=int, default=5, help="generator-then-load pairs to take the median of")
    arguments = parser.parse_args()

    os.environ["SHOAL_BINARY"] = str(pathlib.Path(arguments.shoal).resolve())
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "integration"))
    import psycopg
    from cluster import LocalCluster

    ratios = []
    for repeat in range(1, arguments.repeat + 1):
        with tempfile.TemporaryDirectory(dir=arguments.scratch, prefix="tpchgen-bench-") as scratch:
            generator_s = time_generator(arguments.sf, scratch)
        with tempfile.TemporaryDirectory(prefix="shoal-load-bench-") as data_dir:
            cluster = LocalCluster(data_dir, workers=arguments.workers).start()
            try:
                with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
                    started = time.monotonic()
                    connection.execute(f"CALL tpch_load({arguments.sf})")
                    load_s = time.monotonic() - started
                    rows = connection.execute("SELECT count(*) FROM lineitem").fetchone()[0]
                workers = [pid for pid in cluster.child_pids()
                           if b"worker" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]
                rss_kib = sum(memory_kib(pid, "VmRSS") for pid in workers)
                peak_kib = sum(memory_kib(pid, "VmHWM") for pid in workers)
            finally:
                cluster.stop()
        ratios.append(load_s / generator_s)
        print(f"[{repeat}/{arguments.repeat}] tpchgen-cli alone, SF {arguments.sf}: {generator_s:.2f} s; "
              f"CALL tpch_load({arguments.sf}) on {arguments.workers} workers: {load_s:.2f} s ({rows} lineitem rows): "
              f"{load_s / generator_s:.2f} x", flush=True)
        print(f"      worker resident memory after the load: {rss_kib / 1024:.0f} MiB summed over {len(workers)} "
              f"workers (peak during the load {peak_kib / 1024:.0f} MiB; target <= 1536 MiB at SF 1)", flush=True)
    print(f"load time / generator time: median {statistics.median(ratios):.2f} x over {len(ratios)} repeat(s) "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f}; target <= 1.5)")


if __name__ == "__main__":
    main()
