"""Soak test: a cluster under steady TPC-H load keeps answering and keeps its memory flat.

Story: a user starts `shoal local` with a coordinator and two workers, loads TPC-H (SF 0.01 by default) and lets
16 clients, each on its own connection, run the 22 TPC-H queries (tests/tpch/queries) over and over in a shuffled
order for five minutes. Every 5 s the script samples the resident memory (VmRSS) of the coordinator and of each
worker. At the end it prints the samples, the queries run, queries/s and the errors, and compares each process's
memory in the last minute of the run with its memory in the first minute after warm-up (warm-up: 60 s or 20% of
the run, whichever is longer). Under load the resident memory swings by a tenth and more between two samples
with the queries in flight and with the allocator's trims, so one sample is no baseline, nor is a mean (it moves
with how often the trims happen to land). A leak or an allocator ratchet raises the high-water mark: the run passes
when no query failed and the peak of the last window is at most 10% above the peak of the first window after
warm-up (memory that shrinks is not a leak). The means are printed alongside. Exit code 0 on a pass,
1 otherwise. The samples also split VmRSS into anonymous and file-backed memory.

Not a pytest test: run it by hand or from a nightly job, e.g.
    .venv/bin/python tests/soak/soak.py --binary build/release/cli/shoal --json /tmp/soak.json
"""

import argparse
import contextlib
import json
import os
import pathlib
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "integration"))
from tpch_answers import TPCH, statements  # noqa: E402  (the 22 query files and their statement splitter)

MAX_ERROR_MESSAGES = 10
STUCK_GRACE_S = 120  # how long a client may still be inside a query after the run ends


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.environ.get("SHOAL_BINARY", str(REPO_ROOT / "build/release/cli/shoal")),
                        help="shoal executable (default: $SHOAL_BINARY or build/release/cli/shoal)")
    parser.add_argument("--workers", type=int, default=2, help="workers in the local cluster (default 2)")
    parser.add_argument("--scale", type=float, default=0.01, help="TPC-H scale factor (default 0.01)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent client connections (default 16)")
    parser.add_argument("--seconds", type=float, default=300, help="length of the load phase (default 300)")
    parser.add_argument("--sample-every", type=float, default=5, help="seconds between memory samples (default 5)")
    parser.add_argument("--warmup-seconds", type=float, default=60, help="minimum warm-up (default 60)")
    parser.add_argument("--warmup-fraction", type=float, default=0.2, help="minimum warm-up, share of the run (0.2)")
    parser.add_argument("--window-seconds", type=float, default=60,
                        help="length of the first and the last window compared (default 60)")
    parser.add_argument("--tolerance", type=float, default=10, help="allowed RSS growth after warm-up, %% (10)")
    parser.add_argument("--seed", type=int, default=1, help="base seed of the clients' query orders (default 1)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    return parser.parse_args()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_cluster(args, port, data_dir):
    """`shoal local`, once it has printed its ready: line; its output is kept for the failure message."""
    env = dict(os.environ)
    # CALL tpch_load runs tpchgen-cli, which the venv installs beside this python.
    env["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    process = subprocess.Popen([args.binary, "local", "--workers", str(args.workers), "--pg-port", str(port),
                                "--data-dir", str(data_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env=env, text=True, errors="replace")
    output, ready = [], threading.Event()

    def read():  # keep draining stdout so the cluster never blocks on a full pipe
        for line in process.stdout:
            output.append(line)
            if line.startswith("ready:"):
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(60):
        stop_cluster(process)
        raise RuntimeError("shoal local printed no ready: line within 60 s:\n" + "".join(output[-30:]))
    return process


def cluster_processes(local_pid):
    """{name: pid} of the coordinator and the workers, the children of the `shoal local` process."""
    named, children = {}, pathlib.Path(f"/proc/{local_pid}/task/{local_pid}/children")
    for pid in map(int, children.read_text().split() if children.exists() else []):
        try:
            argv = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # gone since the listing
            continue
        if "coordinator" in argv:
            named["coordinator"] = pid
        elif "--node-name" in argv:
            named[argv[argv.index("--node-name") + 1]] = pid
    return dict(sorted(named.items(), key=lambda item: (item[0] != "coordinator", item[0])))


def status_mb(pid, field):
    """A /proc/PID/status memory field (VmRSS, RssAnon, RssFile) in MB; None once the process is gone."""
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def rss_mb(pid):
    return status_mb(pid, "VmRSS")


def stop_cluster(process):
    """SIGTERM to `shoal local`, SIGKILL to it and its children if it is still there after 10 s."""
    if process.poll() is not None:
        return
    children = list(cluster_processes(process.pid).values())
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        for pid in children + [process.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait()


class Client(threading.Thread):
    """One connection looping over the 22 queries in an order shuffled by its own seed."""

    def __init__(self, number, conninfo, seed, deadline, errors, lock):
        super().__init__(daemon=True)
        self.number, self.conninfo, self.deadline = number, conninfo, deadline
        self.random = random.Random(seed)
        self.errors, self.lock = errors, lock
        self.queries = self.failures = 0
        # Q15 creates and drops a view named revenue0; each client gets its own name so they do not collide.
        self.texts = {n: [s.replace("revenue0", f"revenue0_c{number}") for s in
                          statements((TPCH / "queries" / f"q{n:02d}.sql").read_text())] for n in range(1, 23)}

    def run(self):
        connection = None
        while time.monotonic() < self.deadline:
            order = list(self.texts)
            self.random.shuffle(order)
            for query in order:
                if time.monotonic() >= self.deadline:
                    break
                try:
                    if connection is None or connection.closed or connection.broken:
                        connection = psycopg.connect(self.conninfo, autocommit=True)
                    for statement in self.texts[query]:
                        cursor = connection.execute(statement)
                        if cursor.description:
                            cursor.fetchall()
                    self.queries += 1
                except Exception as error:  # any failure counts; the first few are kept for the report
                    self.failures += 1
                    with self.lock:
                        if len(self.errors) < MAX_ERROR_MESSAGES:
                            self.errors.append(f"client {self.number} Q{query:02d}: {type(error).__name__}: {error}")
                    if query == 15 and connection is not None and not connection.broken:
                        # A failed Q15 may leave its view behind, which would fail every later Q15.
                        with contextlib.suppress(Exception):
                            connection.execute(f"DROP VIEW IF EXISTS revenue0_c{self.number}")
                    time.sleep(0.5)  # do not spin if the cluster is down
        if connection is not None:
            connection.close()


def summarize(samples, names, warmup_at, window, tolerance):
    """Per process: mean and peak RSS of the first window after warm-up and of the last window, growth in %."""
    end = samples[-1]["t"] if samples else 0
    first = [sample for sample in samples if warmup_at <= sample["t"] < warmup_at + window]
    last = [sample for sample in samples if sample["t"] > end - window and sample["t"] >= warmup_at]
    summary = {}
    for name in names:
        early = [sample["rss_mb"][name] for sample in first]
        late = [sample["rss_mb"][name] for sample in last]
        if not early or not late or None in early + late:
            summary[name] = {"ok": False, "reason": "no sample after warm-up" if not early else "process gone"}
            continue
        figures = {"warmup_mean_mb": statistics.fmean(early), "warmup_max_mb": max(early),
                   "end_mean_mb": statistics.fmean(late), "end_max_mb": max(late)}
        figures["mean_growth_pct"] = 100 * (figures["end_mean_mb"] / figures["warmup_mean_mb"] - 1)
        figures["max_growth_pct"] = 100 * (figures["end_max_mb"] / figures["warmup_max_mb"] - 1)
        figures["ok"] = figures["max_growth_pct"] <= tolerance
        summary[name] = figures
    return summary


def main():
    args = parse_args()
    data_dir = pathlib.Path(tempfile.mkdtemp(prefix="shoal-soak-"))
    port = free_port()
    conninfo = f"host=127.0.0.1 port={port} user=shoal dbname=shoal connect_timeout=10"
    process = start_cluster(args, port, data_dir)
    try:
        names = cluster_processes(process.pid)
        print(f"cluster up on port {port} ({', '.join(f'{n}={p}' for n, p in names.items())}); loading TPC-H SF "
              f"{args.scale}", flush=True)
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(f"CALL tpch_load({args.scale})")
            lineitems = connection.execute("SELECT count(*) FROM lineitem").fetchone()[0]
        print(f"loaded {lineitems} lineitem rows; {args.clients} clients for {args.seconds:g} s", flush=True)

        errors, lock = [], threading.Lock()
        start = time.monotonic()
        deadline = start + args.seconds
        clients = [Client(n, conninfo, args.seed * 1000 + n, deadline, errors, lock) for n in range(args.clients)]
        for client in clients:
            client.start()
        # Sample on a fixed schedule while the clients run; the last sample is the "end" value.
        samples, tick = [], 0
        while True:
            at = start + tick * args.sample_every
            if at > deadline:
                break
            time.sleep(max(0.0, at - time.monotonic()))
            samples.append({"t": round(time.monotonic() - start, 1), "queries": sum(c.queries for c in clients),
                            "rss_mb": {name: rss_mb(pid) for name, pid in names.items()},
                            "rss_anon_mb": {name: status_mb(pid, "RssAnon") for name, pid in names.items()},
                            "rss_file_mb": {name: status_mb(pid, "RssFile") for name, pid in names.items()}})
            tick += 1
        for client in clients:
            client.join(timeout=max(0.0, deadline + STUCK_GRACE_S - time.monotonic()))
        elapsed = time.monotonic() - start
        stuck = sum(client.is_alive() for client in clients)
    finally:
        stop_cluster(process)

    queries = sum(client.queries for client in clients)
    failures = sum(client.failures for client in clients) + stuck
    if stuck:
        errors.append(f"{stuck} client(s) still inside a query {STUCK_GRACE_S} s after the run ended")
    warmup_at = max(args.warmup_seconds, args.warmup_fraction * args.seconds)
    memory = summarize(samples, names, warmup_at, args.window_seconds, args.tolerance)
    passed = failures == 0 and all(entry["ok"] for entry in memory.values())

    print("\n   t(s)  queries  " + "  ".join(f"{name:>12}" for name in names) + "   (VmRSS, MB)")
    for sample in samples:
        cells = ["gone" if v is None else f"{v:.1f}" for v in sample["rss_mb"].values()]
        print(f"{sample['t']:7.1f}  {sample['queries']:7d}  " + "  ".join(f"{c:>12}" for c in cells))
    print(f"\nqueries: {queries} in {elapsed:.1f} s = {queries / elapsed:.2f} q/s over {args.clients} clients; "
          f"errors: {failures}")
    for message in errors:
        print(f"  error: {message}")
    print(f"VmRSS mean/peak of the {args.window_seconds:g} s after warm-up (t >= {warmup_at:.0f} s) and of the "
          f"last {args.window_seconds:g} s, tolerance {args.tolerance:g}%:")
    for name, entry in memory.items():
        if "reason" in entry:
            print(f"  {name:>12}: FAIL ({entry['reason']})")
            continue
        print(f"  {name:>12}: mean {entry['warmup_mean_mb']:.1f} -> {entry['end_mean_mb']:.1f} MB "
              f"({entry['mean_growth_pct']:+.1f}%), peak {entry['warmup_max_mb']:.1f} -> {entry['end_max_mb']:.1f} MB "
              f"({entry['max_growth_pct']:+.1f}%)  {'ok' if entry['ok'] else 'FAIL'}")
    print("PASS" if passed else f"FAIL (cluster data and logs kept in {data_dir})")

    if args.json:
        figures = {"config": vars(args), "queries": queries, "elapsed_s": elapsed, "queries_per_s": queries / elapsed,
                   "errors": failures, "error_messages": errors, "warmup_at_s": warmup_at, "samples": samples,
                   "memory": memory, "passed": passed}
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    if passed:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
