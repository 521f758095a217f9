"""TPC-H load benchmark: CALL tpch_load(SF) into a local cluster against tpchgen-cli alone writing the same
.tbl files, measured side by side in one run, plus the workers' resident memory once the data is loaded.

    .venv/bin/python bench/tpch_load_bench.py --shoal build/release/cli/shoal --sf 1 --workers 2

Targets (issue "Columnar storage ..."): load time <= 1.5 x generator time; summed worker RSS <= 1.5 GB at SF 1.
"""

import argparse
import os
import pathlib
import shutil
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
    arguments = parser.parse_args()

    os.environ["SHOAL_BINARY"] = str(pathlib.Path(arguments.shoal).resolve())
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "integration"))
    import psycopg
    from cluster import LocalCluster

    with tempfile.TemporaryDirectory(dir=arguments.scratch, prefix="tpchgen-bench-") as scratch:
        generator_s = time_generator(arguments.sf, scratch)
    print(f"tpchgen-cli alone, SF {arguments.sf}: {generator_s:.2f} s", flush=True)

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

    ratio = load_s / generator_s
    print(f"CALL tpch_load({arguments.sf}) on {arguments.workers} workers: {load_s:.2f} s "
          f"({rows} lineitem rows); {ratio:.2f} x the generator alone (target <= 1.5)")
    print(f"worker resident memory after the load: {rss_kib / 1024:.0f} MiB summed over {len(workers)} workers "
          f"(peak during the load {peak_kib / 1024:.0f} MiB; target <= 1536 MiB at SF 1)")


if __name__ == "__main__":
    main()
