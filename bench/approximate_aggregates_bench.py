"""approx_count_distinct and approx_percentile over TPC-H lineitem on a local Shoal cluster, side by side in one
run with Shoal's own exact count(DISTINCT ...) and percentile_disc, and with DuckDB's approx_count_distinct and
approx_quantile over the same data.

    .venv/bin/python bench/approximate_aggregates_bench.py [--sf 1] [--workers 2] [--repeat 3] [--json out.json]

Each row reports the best time of each form and the approximate answers' largest relative error against the
exact ones (which must stay within 2.4 % for the distinct counts above 512 values, 0 below, and 1 % for the
percentiles). The exit code is 1 when an error bound is broken.
"""

import argparse
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tpch_bench  # noqa: E402  (also puts tests/tpch and tests/integration on sys.path)

# (name, Shoal's approximate form, Shoal's exact form, DuckDB's approximate form, allowed relative error)
CASES = [
    ("distinct parts, suppliers and orders overall",
     "SELECT approx_count_distinct(l_partkey), approx_count_distinct(l_suppkey), approx_count_distinct(l_orderkey) "
     "FROM lineitem",
     "SELECT count(DISTINCT l_partkey), count(DISTINCT l_suppkey), count(DISTINCT l_orderkey) FROM lineitem",
     "SELECT approx_count_distinct(l_partkey), approx_count_distinct(l_suppkey), approx_count_distinct(l_orderkey) "
     "FROM lineitem", 0.024),
    ("distinct orders and comments per ship mode",
     "SELECT l_shipmode, approx_count_distinct(l_orderkey), approx_count_distinct(l_comment) FROM lineitem "
     "GROUP BY 1 ORDER BY 1",
     "SELECT l_shipmode, count(DISTINCT l_orderkey), count(DISTINCT l_comment) FROM lineitem GROUP BY 1 ORDER BY 1",
     "SELECT l_shipmode, approx_count_distinct(l_orderkey), approx_count_distinct(l_comment) FROM lineitem "
     "GROUP BY 1 ORDER BY 1", 0.024),
    ("distinct customers per order month",
     "SELECT date_trunc('month', o_orderdate), approx_count_distinct(o_custkey) FROM orders GROUP BY 1 ORDER BY 1",
     "SELECT date_trunc('month', o_orderdate), count(DISTINCT o_custkey) FROM orders GROUP BY 1 ORDER BY 1",
     "SELECT date_trunc('month', o_orderdate), approx_count_distinct(o_custkey) FROM orders GROUP BY 1 ORDER BY 1",
     0.024),
    ("price median and p99 per return flag and status",
     "SELECT l_returnflag, l_linestatus, approx_percentile(l_extendedprice, 0.5), "
     "approx_percentile(l_extendedprice, 0.99) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2",
     "SELECT l_returnflag, l_linestatus, percentile_disc(0.5) WITHIN GROUP (ORDER BY l_extendedprice), "
     "percentile_disc(0.99) WITHIN GROUP (ORDER BY l_extendedprice) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2",
     "SELECT l_returnflag, l_linestatus, approx_quantile(l_extendedprice, 0.5), "
     "approx_quantile(l_extendedprice, 0.99) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2", 0.01),
]


def largest_error(approximate, exact):
    """The largest relative difference between numeric cells of two equally shaped answers."""
    assert len(approximate) == len(exact), (len(approximate), len(exact))
    worst = 0.0
    for got_row, want_row in zip(approximate, exact):
        for got, want in zip(got_row, want_row):
            if isinstance(want, (int, float)) or hasattr(want, "as_integer_ratio"):
                got, want = float(got), float(want)
                worst = max(worst, abs(got - want) / abs(want) if want else abs(got))
            else:
                assert str(got)[:10] == str(want)[:10], (got, want)
    return worst


def measure(arguments, data_dir, tbl_dir):
    import psycopg
    import validate_queries_duckdb as tpch
    threads = arguments.threads or os.cpu_count()
    cluster = tpch_bench.start_cluster(data_dir, arguments.workers, arguments.threads)
    results = []
    try:
        with psycopg.connect(cluster.conninfo(), autocommit=True) as shoal:
            tpch_bench.ensure_loaded(shoal, arguments.sf)
            duck = tpch_bench.duckdb_connection(arguments.sf, threads * arguments.workers, tbl_dir)
            print(f"\napproximate aggregates, TPC-H SF {arguments.sf}: Shoal on {arguments.workers} worker(s) x "
                  f"{threads} thread(s), best of {arguments.repeat}")
            print(f"{'approx s':>9} {'exact s':>9} {'duckdb s':>9} {'error':>8}  case")
            for name, approximate, exact, duckdb, allowed in CASES:
                approx_s, approx_rows = tpch_bench.best_time(lambda: tpch.run(shoal, approximate)[1], arguments.repeat)
                exact_s, exact_rows = tpch_bench.best_time(lambda: tpch.run(shoal, exact)[1], arguments.repeat)
                duck_s, _ = tpch_bench.best_time(lambda: tpch.run(duck, duckdb)[1], arguments.repeat)
                error = largest_error(approx_rows, exact_rows)
                results.append({"name": name, "approximate": approx_s, "exact": exact_s, "duckdb": duck_s,
                                "error": error, "allowed": allowed, "within": error <= allowed})
                print(f"{approx_s:9.3f} {exact_s:9.3f} {duck_s:9.3f} {100 * error:7.3f}%  {name}"
                      f"{'' if error <= allowed else '  ERROR ABOVE ' + str(allowed)}", flush=True)
    finally:
        cluster.stop()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tpch_bench.add_query_set_arguments(parser, "runs per form; the best counts")
    arguments = parser.parse_args()
    with tpch_bench.bench_directories(arguments, "shoal-approximate-bench-") as (data_dir, tbl_dir):
        results = measure(arguments, data_dir, tbl_dir)
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps({"sf": arguments.sf, "results": results}, indent=2) + "\n")
    return 0 if all(r["within"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
