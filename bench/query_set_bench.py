"""The machinery of the query-set benchmarks (string_date_bench.py, analytical_sql_bench.py): a local Shoal
cluster and DuckDB over the same TPC-H data, each query run hot on both, Shoal's answer checked against DuckDB's,
and the times, ratios and totals printed and written as JSON. Each benchmark gives its queries and calls main()."""

import argparse
import json
import math
import os
import pathlib
import sys

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
    tpch_bench.add_query_set_arguments(parser, "runs per query and engine; the best counts")
    parser.add_argument("--queries", default=f"1-{len(queries)}", help=f"e.g. 1-{len(queries)} or 1,6,9")
    arguments = parser.parse_args()
    arguments.queries = [n for part in filter(None, arguments.queries.split(","))
                         for n in range(int(part.partition("-")[0]), int(part.partition("-")[2] or part) + 1)]
    with tpch_bench.bench_directories(arguments, "shoal-query-set-bench-") as (data_dir, tbl_dir):
        results = measure(arguments, data_dir, tbl_dir, queries, duckdb_setup, title)
    report = {"sf": arguments.sf, "workers": arguments.workers,
              "threads_per_worker": arguments.threads or os.cpu_count(), "repeat": arguments.repeat,
              "queries": results, **tpch_bench.summarize(results)}
    print(f"Shoal/DuckDB on the total: {report['total_ratio']:.2f} (target <= {target})")
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {arguments.json}")
    return 0 if all(r["correct"] for r in results) else 1
