"""The machinery of the query-set benchmarks (string_date_bench.py, analytical_sql_bench.py): a local Shoal
cluster and DuckDB over the same TPC-H data, each query run hot on both, Shoal's answer checked against DuckDB's,
and the times, ratios and totals printed and written as JSON. Each benchmark gives its queries and calls main()."""

import argparse
import json
import math
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tpch_bench  # noqa: E402  (also puts tests/tpch and tests/integration on sys.path)


def run(connection, text, repeat):
    import validate_queries_duckdb as tpch
    return tpch_bench.best_time(lambda: tpch.run(connection, text)[1], repeat)


def measure(arguments, data_dir, tbl_dir, queries, duckdb_setup, title):
    """One result per selected query: best times on both engines, the ratio and the answer check."""
    import psycopg
    threads = arguments.threads or os.cpu_count()
    cluster = tpch_bench.start_cluster(data_dir, arguments.workers, arguments.threads)
    results = []
    try:
        with psycopg.connect(cluster.conninfo(), autocommit=True) as shoal:
            tpch_bench.ensure_loaded(shoal, arguments.sf)
            duck = tpch_bench.duckdb_connection(arguments.sf, threads * arguments.workers, tbl_dir)
            for statement in duckdb_setup:
                duck.execute(statement)
            print(f"\n{title}, TPC-H SF {arguments.sf}: Shoal on {arguments.workers} worker(s) x "
                  f"{threads} thread(s) against DuckDB, best of {arguments.repeat}")
            print(f"{'query':>5} {'shoal s':>9} {'duckdb s':>9} {'ratio':>7}  answer")
            for number in arguments.queries:
                name, text = queries[number - 1]
                try:
                    shoal_s, got = run(shoal, text, arguments.repeat)
                    error = None
                except psycopg.Error as failure:
                    shoal_s, got, error = math.nan, None, f"{failure.sqlstate}: {str(failure).strip()}"
                duck_s, expected = run(duck, text, arguments.repeat)
                difference = error or tpch_bench.first_difference(got, expected)
                results.append({"query": number, "name": name, "shoal": shoal_s, "duckdb": duck_s,
                                "ratio": shoal_s / duck_s if duck_s > 0 else math.nan,
                                "correct": difference is None, "rows": len(expected),
                                **({"difference": difference} if difference else {})})
                print(f"{'S%02d' % number:>5} {shoal_s:9.3f} {duck_s:9.3f} {results[-1]['ratio']:7.2f}  "
                      f"{'ok' if difference is None else 'WRONG: ' + difference}  ({name})", flush=True)
    finally:
        cluster.stop()
    return results


def main(description, queries, duckdb_setup=(), title="queries", target=1.5):
    """Parses the command line, measures `queries` ((name, SQL) pairs) and reports; returns the exit code."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoal", default=str(tpch_bench.ROOT / "build" / "release" / "cli" / "shoal"),
                        help="the shoal binary")
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="threads per worker (0: one per core)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per query and engine; the best counts")
    parser.add_argument("--queries", default=f"1-{len(queries)}", help=f"e.g. 1-{len(queries)} or 1,6,9")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--data-dir", help="the cluster's directory, kept between runs (default: a scratch one)")
    parser.add_argument("--tbl-dir", help="where DuckDB's .tbl files are (written if missing; default: scratch)")
    arguments = parser.parse_args()
    arguments.queries = [n for part in filter(None, arguments.queries.split(","))
                         for n in range(int(part.partition("-")[0]), int(part.partition("-")[2] or part) + 1)]
    os.environ["SHOAL_BINARY"] = str(pathlib.Path(arguments.shoal).resolve())
    # CALL tpch_load runs tpchgen-cli: let a shoal binary outside the build tree find the venv's.
    os.environ["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"

    with tempfile.TemporaryDirectory(prefix="shoal-query-set-bench-") as scratch:
        data_dir = pathlib.Path(arguments.data_dir or pathlib.Path(scratch) / "cluster")
        tbl_dir = pathlib.Path(arguments.tbl_dir or pathlib.Path(scratch) / "tbl")
        data_dir.mkdir(parents=True, exist_ok=True)
        tbl_dir.mkdir(parents=True, exist_ok=True)
        results = measure(arguments, data_dir, tbl_dir, queries, duckdb_setup, title)
    report = {"sf": arguments.sf, "workers": arguments.workers,
              "threads_per_worker": arguments.threads or os.cpu_count(), "repeat": arguments.repeat,
              "queries": results, **tpch_bench.summarize(results)}
    print(f"Shoal/DuckDB on the total: {report['total_ratio']:.2f} (target <= {target})")
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {arguments.json}")
    return 0 if all(r["correct"] for r in results) else 1
