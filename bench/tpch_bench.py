"""TPC-H on a local Shoal cluster against DuckDB over the same data, measured side by side in one run.

    shoal bench tpch --sf 1 --workers 1 [--json FILE]          (runs this script with the repo's venv)
    .venv/bin/python bench/tpch_bench.py --shoal build/release/cli/shoal --sf 1 --workers 1 --json out.json

What it does:
  1. Starts `shoal local --workers N` on a scratch (or --data-dir) directory and loads TPC-H at --sf with
     CALL tpch_load, unless that directory already holds it.
  2. Writes the same data as .tbl files with tpchgen-cli and loads it into DuckDB's own in-memory tables
     (the Python package, with as many threads as the Shoal cluster's workers have in all).
  3. Runs each of the 22 queries (tests/tpch/queries) --repeat times on each engine, hot, and keeps the best
     time. Shoal's answer is checked against DuckDB's: decimals exactly at the scale Shoal prints, other
     numbers within 1e-9 relative, everything else as text, rows in order.
  4. Prints per-query times, their ratio and the check, then the totals and geometric means; writes
     {"queries": [{"query": 1, "shoal": s, "duckdb": s, "ratio": r, "correct": true, ...}, ...], ...}
     to --json.
  5. With --scaling Q,...: restarts the cluster with 1 and then 2 threads per worker and prints each listed
     query's speed-up (best of --scaling-repeat), the morsel engine's scaling check.
  6. With --workers N > 1, the distributed run: the same queries on 1 worker in the same run, and with
     --layouts also on N workers over the chunked layout (every table but nation and region DISTRIBUTED
     RANDOMLY). It prints a table like Table 2 of the high-speed-networks paper: per query the time on N
     workers and on 1, the messages and bytes the query shuffled between workers (from shoal_queries), then the
     totals, geometric means and queries per hour; the JSON gains "messages", "bytes_shuffled", "one_worker"
     and, per layout, the same again.

The exit code is 1 when an answer is wrong. Targets: Shoal/DuckDB at most 1.5 for the total and the geometric
mean at SF 1 on one worker (issue "Morsel-driven local engine"); 1 -> 2 threads speeds Q1 and Q6 up >= 1.8x;
4 local workers on this machine's shared cores take at most 1.5 times the 1-worker total (issue "Distributed
execution").
"""

import argparse
import contextlib
import decimal
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUERIES = ROOT / "tests" / "tpch" / "queries"
sys.path.insert(0, str(ROOT / "tests" / "tpch"))
sys.path.insert(0, str(ROOT / "tests" / "integration"))


def generator_path():
    return shutil.which("tpchgen-cli") or str(pathlib.Path(sys.executable).parent / "tpchgen-cli")


def query_text(number):
    return (QUERIES / f"q{number:02d}.sql").read_text()


def best_time(run, repeat):
    """(best seconds, the last answer) of `repeat` runs."""
    best, answer = math.inf, None
    for _ in range(repeat):
        started = time.perf_counter()
        answer = run()
        best = min(best, time.perf_counter() - started)
    return best, answer


def same_cell(got, expected):
    if got is None or expected is None:
        return got is None and expected is None
    if isinstance(got, decimal.Decimal) and isinstance(expected, decimal.Decimal):
        # Exact at the scale Shoal printed, DuckDB's value rounded to it as PostgreSQL rounds (half away from 0).
        quantum = decimal.Decimal(1).scaleb(got.as_tuple().exponent)
        return got == expected.quantize(quantum, rounding=decimal.ROUND_HALF_UP)
    if isinstance(got, (int, float, decimal.Decimal)) and isinstance(expected, (int, float, decimal.Decimal)):
        return math.isclose(float(got), float(expected), rel_tol=1e-9, abs_tol=1e-12)
    if hasattr(got, "isoformat") and hasattr(expected, "isoformat"):
        return got.isoformat() == expected.isoformat()
    return str(got).rstrip() == str(expected).rstrip()


def first_difference(got_rows, expected_rows):
    if len(got_rows) != len(expected_rows):
        return f"{len(got_rows)} rows, DuckDB has {len(expected_rows)}"
    for index, (got, expected) in enumerate(zip(got_rows, expected_rows)):
        if len(got) != len(expected):
            return f"row {index}: {len(got)} columns, DuckDB has {len(expected)}"
        for column, (a, b) in enumerate(zip(got, expected)):
            if not same_cell(a, b):
                return f"row {index} column {column}: {a!r}, DuckDB has {b!r}"
    return None


def geometric_mean(values):
    return math.exp(sum(math.log(max(v, 1e-6)) for v in values) / len(values))


def start_cluster(data_dir, workers, threads):
    from cluster import LocalCluster
    return LocalCluster(data_dir, workers=workers, extra_args=["--threads", str(threads)]).start()


def ensure_loaded(connection, scale_factor, layout="partitioned"):
    loaded = connection.execute(
        "SELECT coalesce(sum(row_count), 0), min(distribution) FROM shoal_tables WHERE table_name = 'lineitem'"
    ).fetchone()
    if loaded[0] and (loaded[1] == "random") == (layout == "chunked"):
        return
    print(f"loading TPC-H SF {scale_factor} into Shoal ({layout}) ...", flush=True)
    started = time.monotonic()
    connection.execute(f"CALL tpch_load({scale_factor}, 0, '{layout}')")
    print(f"  loaded in {time.monotonic() - started:.1f} s", flush=True)


def shuffled(connection):
    """Bytes and messages the connection's last finished statement shuffled between workers."""
    row = connection.execute(
        "SELECT bytes_shuffled, messages_shuffled FROM shoal_queries WHERE state = 'done' "
        "AND query_text NOT LIKE '%shoal_queries%' ORDER BY query_id DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, 0)


def run_series(arguments, data_dir, workers, layout, duck_answers):
    """Each query on a cluster of `workers` over `layout`: best time, shuffle counts, answer check."""
    import psycopg
    cluster = start_cluster(data_dir / f"{workers}-workers-{layout}", workers, arguments.threads)
    series = {}
    try:
        with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
            ensure_loaded(connection, arguments.sf, layout)
            print(f"\n{workers} worker(s), {layout} layout, best of {arguments.repeat}:", flush=True)
            for number in arguments.queries:
                try:
                    seconds, got = run_shoal(connection, number, arguments.repeat)
                    moved, messages = shuffled(connection)
                    difference = first_difference(got, duck_answers[number])
                except psycopg.Error as failure:
                    seconds, moved, messages = math.nan, 0, 0
                    difference = f"{failure.sqlstate}: {str(failure).strip()}"
                series[number] = {"seconds": seconds, "messages": messages, "bytes_shuffled": moved,
                                  "correct": difference is None, **({"difference": difference} if difference else {})}
                print(f"  Q{number:02d} {seconds:8.3f} s  {messages:8d} messages {moved / 1e6:10.1f} MB  "
                      f"{'ok' if difference is None else 'WRONG: ' + difference}", flush=True)
    finally:
        cluster.stop()
    return series


def distributed_report(arguments, data_dir, results):
    """Table 2: N workers against 1, with what each query shuffled, per layout."""
    duck_answers = {r["query"]: r.pop("_answer") for r in results}
    many = {r["query"]: {"seconds": r["shoal"], "messages": r["messages"], "bytes_shuffled": r["bytes_shuffled"],
                         "correct": r["correct"]} for r in results}
    one = run_series(arguments, data_dir, 1, "partitioned", duck_answers)
    layouts = {"partitioned": many}
    for layout in arguments.layouts:
        if layout != "partitioned":
            layouts[layout] = run_series(arguments, data_dir, arguments.workers, layout, duck_answers)
    n = arguments.workers
    print(f"\nTPC-H SF {arguments.sf}, like the paper's Table 2: {n} workers against 1 on this machine's shared cores")
    header = f"{'query':>5} {'1 worker s':>11} {f'{n} workers s':>12} {'ratio':>6}"
    for layout in layouts:
        header += f" {layout + ' msgs':>18} {layout + ' MB':>16}"
    print(header)
    for number in arguments.queries:
        line = f"{'Q%02d' % number:>5} {one[number]['seconds']:11.3f} {many[number]['seconds']:12.3f} " \
               f"{many[number]['seconds'] / one[number]['seconds']:6.2f}"
        for layout, series in layouts.items():
            line += f" {series[number]['messages']:18d} {series[number]['bytes_shuffled'] / 1e6:16.1f}"
        print(line)
    summary = {}
    for name, series in [("one_worker", one)] + [(f"{layout}", series) for layout, series in layouts.items()]:
        times = [entry["seconds"] for entry in series.values() if not math.isnan(entry["seconds"])]
        total = sum(times)
        summary[name] = {
            "total": total, "geomean": geometric_mean(times) if times else math.nan,
            "queries_per_hour": 3600 * len(times) / total if total else math.nan,
            "messages": sum(entry["messages"] for entry in series.values()),
            "bytes_shuffled": sum(entry["bytes_shuffled"] for entry in series.values()),
            "all_correct": all(entry["correct"] for entry in series.values()),
        }
        print(f"{name:>12}: total {total:7.3f} s, geometric mean {summary[name]['geomean']:.3f} s, "
              f"{summary[name]['queries_per_hour']:8.0f} queries/hour, {summary[name]['messages']} messages, "
              f"{summary[name]['bytes_shuffled'] / 1e6:.1f} MB shuffled, "
              f"{'all answers right' if summary[name]['all_correct'] else 'WRONG ANSWERS'}")
    ratio = summary["partitioned"]["total"] / summary["one_worker"]["total"]
    print(f"{n} workers take {ratio:.2f} x the 1-worker total (target <= 1.5)")
    for result in results:
        result["one_worker"] = one[result["query"]]["seconds"]
        for layout, series in layouts.items():
            if layout != "partitioned":
                result[layout] = series[result["query"]]
    return {"distributed": summary, "workers_to_one_ratio": ratio,
            "all_correct_distributed": all(entry["all_correct"] for entry in summary.values())}


def run_shoal(connection, number, repeat):
    import validate_queries_duckdb as tpch
    return best_time(lambda: tpch.run(connection, query_text(number))[1], repeat)


def duckdb_connection(scale_factor, threads, tbl_dir):
    import duckdb
    import validate_queries_duckdb as tpch
    if not (pathlib.Path(tbl_dir) / "lineitem.tbl").exists():
        print(f"writing SF {scale_factor} .tbl files for DuckDB with tpchgen-cli ...", flush=True)
        subprocess.run([generator_path(), "tbl", "-s", str(scale_factor), "--output-dir", str(tbl_dir)], check=True)
    connection = duckdb.connect()
    connection.execute(f"SET threads = {threads}")
    started = time.monotonic()
    tpch.load(connection, tbl_dir)
    print(f"DuckDB {duckdb.__version__} loaded the same data in {time.monotonic() - started:.1f} s "
          f"({threads} threads)", flush=True)
    return connection


def run_duckdb(connection, number, repeat):
    import validate_queries_duckdb as tpch
    return best_time(lambda: tpch.run(connection, query_text(number))[1], repeat)


def compare_with_duckdb(arguments, data_dir, tbl_dir):
    import psycopg
    threads = arguments.threads or os.cpu_count()
    cluster = start_cluster(data_dir, arguments.workers, arguments.threads)
    results = []
    try:
        with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
            ensure_loaded(connection, arguments.sf)
            duck = duckdb_connection(arguments.sf, threads * arguments.workers, tbl_dir)
            print(f"\nTPC-H SF {arguments.sf}: Shoal on {arguments.workers} worker(s) x {threads} thread(s) "
                  f"against DuckDB, best of {arguments.repeat}")
            print(f"{'query':>5} {'shoal s':>9} {'duckdb s':>9} {'ratio':>7}  answer")
            for number in arguments.queries:
                try:
                    shoal_s, got = run_shoal(connection, number, arguments.repeat)
                    moved, messages = shuffled(connection)
                    error = None
                except psycopg.Error as failure:
                    shoal_s, got, error = math.nan, None, f"{failure.sqlstate}: {str(failure).strip()}"
                    moved, messages = 0, 0
                duck_s, expected = run_duckdb(duck, number, arguments.repeat)
                difference = error or first_difference(got, expected)
                results.append({"query": number, "shoal": shoal_s, "duckdb": duck_s,
                                "ratio": shoal_s / duck_s if duck_s > 0 else math.nan,
                                "correct": difference is None, "rows": len(expected),
                                "messages": messages, "bytes_shuffled": moved, "_answer": expected,
                                **({"difference": difference} if difference else {})})
                row = results[-1]
                print(f"{'Q%02d' % number:>5} {shoal_s:9.3f} {duck_s:9.3f} {row['ratio']:7.2f}  "
                      f"{'ok' if difference is None else 'WRONG: ' + difference}", flush=True)
    finally:
        cluster.stop()
    return results


def measure_scaling(arguments, data_dir):
    import psycopg
    timings = {}
    for threads in (1, 2):
        cluster = start_cluster(data_dir, arguments.workers, threads)
        try:
            with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
                ensure_loaded(connection, arguments.sf)
                for number in arguments.scaling:
                    timings[(number, threads)] = run_shoal(connection, number, arguments.scaling_repeat)[0]
        finally:
            cluster.stop()
    print(f"\nScaling, {arguments.workers} worker(s), best of {arguments.scaling_repeat}:")
    print(f"{'query':>5} {'1 thread s':>11} {'2 threads s':>12} {'speed-up':>9}")
    scaling = []
    for number in arguments.scaling:
        one, two = timings[(number, 1)], timings[(number, 2)]
        scaling.append({"query": number, "one_thread": one, "two_threads": two, "speedup": one / two})
        print(f"{'Q%02d' % number:>5} {one:11.3f} {two:12.3f} {one / two:8.2f}x")
    return scaling


def summarize(results):
    timed = [r for r in results if not math.isnan(r["shoal"])]
    shoal_total = sum(r["shoal"] for r in timed)
    duck_total = sum(r["duckdb"] for r in timed)
    summary = {
        "shoal_total": shoal_total, "duckdb_total": duck_total,
        "total_ratio": shoal_total / duck_total if duck_total else math.nan,
        "shoal_geomean": geometric_mean([r["shoal"] for r in timed]) if timed else math.nan,
        "duckdb_geomean": geometric_mean([r["duckdb"] for r in timed]) if timed else math.nan,
        "all_correct": all(r["correct"] for r in results),
    }
    summary["geomean_ratio"] = summary["shoal_geomean"] / summary["duckdb_geomean"]
    print(f"{'total':>5} {shoal_total:9.3f} {duck_total:9.3f} {summary['total_ratio']:7.2f}")
    print(f"{'geo':>5} {summary['shoal_geomean']:9.3f} {summary['duckdb_geomean']:9.3f} "
          f"{summary['geomean_ratio']:7.2f}")
    print(f"answers: {sum(r['correct'] for r in results)} of {len(results)} match DuckDB's")
    return summary


def add_query_set_arguments(parser, repeat_help):
    """The command-line options the query-set benchmarks share: the binary, the data, the cluster, the output."""
    parser.add_argument("--shoal", default=str(ROOT / "build" / "release" / "cli" / "shoal"), help="the shoal binary")
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="threads per worker (0: one per core)")
    parser.add_argument("--repeat", type=int, default=3, help=repeat_help)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--data-dir", help="the cluster's directory, kept between runs (default: a scratch one)")
    parser.add_argument("--tbl-dir", help="where DuckDB's .tbl files are (written if missing; default: scratch)")


@contextlib.contextmanager
def bench_directories(arguments, prefix):
    """The cluster's and DuckDB's data directories (--data-dir, --tbl-dir, or scratch ones deleted after), with
    the environment the cluster needs: SHOAL_BINARY, and the venv's tpchgen-cli on PATH for CALL tpch_load."""
    os.environ["SHOAL_BINARY"] = str(pathlib.Path(arguments.shoal).resolve())
    os.environ["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        data_dir = pathlib.Path(arguments.data_dir or pathlib.Path(scratch) / "cluster")
        tbl_dir = pathlib.Path(arguments.tbl_dir or pathlib.Path(scratch) / "tbl")
        data_dir.mkdir(parents=True, exist_ok=True)
        tbl_dir.mkdir(parents=True, exist_ok=True)
        yield data_dir, tbl_dir


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoal", default=str(ROOT / "build" / "release" / "cli" / "shoal"), help="the shoal binary")
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0, help="threads per worker (0: one per core)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per query and engine; the best counts")
    parser.add_argument("--queries", default="1-22", help="e.g. 1-22 or 1,6,9")
    parser.add_argument("--scaling", default="", help="queries to time with 1 and 2 threads, e.g. 1,6")
    parser.add_argument("--scaling-repeat", type=int, default=15,
                        help="runs per query and thread count in the scaling check (a 10 ms query needs many "
                             "runs before its best one is free of this machine's noise)")
    parser.add_argument("--layouts", default="partitioned,chunked",
                        help="with --workers > 1: the layouts to run on N workers (partitioned, chunked)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--data-dir", help="the cluster's directory, kept between runs (default: a scratch one)")
    parser.add_argument("--tbl-dir", help="where DuckDB's .tbl files are (written if missing; default: scratch)")
    arguments = parser.parse_args()

    def numbers(text):
        out = []
        for part in filter(None, text.split(",")):
            low, _, high = part.partition("-")
            out += list(range(int(low), int(high or low) + 1))
        return out

    arguments.queries = numbers(arguments.queries)
    arguments.scaling = numbers(arguments.scaling)
    arguments.layouts = [layout for layout in arguments.layouts.split(",") if layout]
    os.environ["SHOAL_BINARY"] = str(pathlib.Path(arguments.shoal).resolve())

    with tempfile.TemporaryDirectory(prefix="shoal-tpch-bench-") as scratch:
        data_dir = pathlib.Path(arguments.data_dir or pathlib.Path(scratch) / "cluster")
        tbl_dir = pathlib.Path(arguments.tbl_dir or pathlib.Path(scratch) / "tbl")
        data_dir.mkdir(parents=True, exist_ok=True)
        tbl_dir.mkdir(parents=True, exist_ok=True)
        report = {"sf": arguments.sf, "workers": arguments.workers,
                  "threads_per_worker": arguments.threads or os.cpu_count(), "repeat": arguments.repeat}
        results = compare_with_duckdb(arguments, data_dir, tbl_dir) if arguments.queries else []
        report["queries"] = results
        if results:
            report.update(summarize(results))
            if arguments.workers > 1:
                report.update(distributed_report(arguments, data_dir, results))
        for result in results:
            result.pop("_answer", None)
        if arguments.scaling:
            report["scaling"] = measure_scaling(arguments, data_dir)
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {arguments.json}")
    return 0 if all(r["correct"] for r in results) and report.get("all_correct_distributed", True) else 1


if __name__ == "__main__":
    sys.exit(main())
