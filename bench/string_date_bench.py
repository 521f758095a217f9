"""String- and date-heavy SQL over TPC-H on a local Shoal cluster against DuckDB over the same data, in one run.

    .venv/bin/python bench/string_date_bench.py --shoal build/release/cli/shoal --sf 1 --workers 2 [--json FILE]

What a dashboard or an ETL job asks of the SQL function library (issue "The SQL people write, part 1"):
date_trunc('month' / 'week' / 'quarter' / 'year') and EXTRACT group-bys, date arithmetic (date - date,
date + interval, age), regular expressions (~, ~*, regexp_replace with back-references), LIKE and ILIKE on
comments, string_agg(... ORDER BY ...), percentile_cont(...) WITHIN GROUP, and lower / upper / substring /
split_part / concat / lpad / to_char(date, 'YYYY-MM') group-bys. The queries are in QUERIES below; each one is
the same text on both engines. DuckDB has no to_char: a macro maps the one pattern used ('YYYY-MM') to
strftime, which DuckDB inlines. percentile_cont's argument is cast to double precision, as PostgreSQL does
implicitly (it has no numeric percentile_cont); DuckDB would otherwise interpolate decimals at their scale.

How (the machinery is bench/tpch_bench.py's):
  1. Starts `shoal local --workers N` on a scratch (or --data-dir) directory and loads TPC-H at --sf with
     CALL tpch_load, unless that directory already holds it.
  2. Writes the same data as .tbl files with tpchgen-cli (or uses --tbl-dir) and loads it into DuckDB's
     in-memory tables, with as many threads as the Shoal cluster's workers have in all.
  3. Runs each query --repeat times on each engine, hot, and keeps the best time. Shoal's answer is checked
     against DuckDB's: decimals exactly at the scale Shoal prints, other numbers (percentile_cont, avg,
     EXTRACT) within 1e-9 relative, dates by value, text (string_agg, to_char, ...) exactly once CHAR(n)
     padding is stripped; every query orders its rows completely.
  4. Prints per-query times, their ratio and the check, then the totals and geometric means; writes
     {"queries": [{"query": 1, "name": ..., "shoal": s, "duckdb": s, "ratio": r, "correct": true}, ...],
      "total_ratio": r, "geomean_ratio": r, ...} to --json.

The exit code is 1 when an answer is wrong. Target (issue 26): Shoal/DuckDB <= 1.5 on the total at SF 1.
"""

import argparse
import json
import math
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tpch_bench  # noqa: E402  (also puts tests/tpch and tests/integration on sys.path)

# (name, SQL): one statement each, the same text on Shoal and on DuckDB.
QUERIES = [
    ("monthly orders: date_trunc('month')", """
SELECT CAST(date_trunc('month', o_orderdate) AS date) AS month, count(*) AS orders,
       sum(o_totalprice) AS revenue, avg(o_totalprice) AS avg_order
FROM orders
GROUP BY 1 ORDER BY 1"""),
    ("weekly shipments per mode: date_trunc('week')", """
SELECT CAST(date_trunc('week', l_shipdate) AS date) AS week, l_shipmode, count(*) AS items,
       sum(l_quantity) AS quantity, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM lineitem
WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1996-01-01'
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("quarterly returns: date_trunc('quarter')", """
SELECT CAST(date_trunc('quarter', l_receiptdate) AS date) AS quarter, l_returnflag, count(*) AS items,
       sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM lineitem
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("transit days per month: EXTRACT(year, month), date - date", """
SELECT EXTRACT(year FROM l_shipdate) AS year, EXTRACT(month FROM l_shipdate) AS month, count(*) AS items,
       avg(l_receiptdate - l_shipdate) AS avg_transit_days,
       sum(CASE WHEN l_receiptdate > l_commitdate THEN 1 ELSE 0 END) AS late
FROM lineitem
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("orders with special requests: ILIKE", """
SELECT o_orderpriority, EXTRACT(year FROM o_orderdate) AS year, count(*) AS orders, sum(o_totalprice) AS revenue
FROM orders
WHERE o_comment ILIKE '%SPECIAL%requests%'
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("lineitem comments: ~* and date_trunc('year')", """
SELECT CAST(date_trunc('year', l_shipdate) AS date) AS year, l_linestatus, count(*) AS items,
       sum(l_extendedprice) AS gross
FROM lineitem
WHERE l_comment ~* '(ironic|final) (deposits|accounts)'
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("lineitem comments: LIKE and NOT LIKE", """
SELECT l_shipmode, l_shipinstruct, count(*) AS items, sum(l_extendedprice) AS gross
FROM lineitem
WHERE l_comment LIKE '%furious%' AND l_comment NOT LIKE '%quick%' AND l_shipinstruct LIKE '%RETURN%'
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("part names ~ and types rearranged: regexp_replace", """
SELECT lower(regexp_replace(p_type, '^(\\w+) (\\w+) (\\w+)$', '\\3 \\1')) AS material,
       split_part(p_container, ' ', 1) AS container_size, count(*) AS parts, avg(p_retailprice) AS avg_price
FROM part
WHERE p_name ~ '^(almond|ivory|lime)' OR p_name ~ '(green|red)$'
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("clerk teams: regexp_replace on 1.5M orders", """
SELECT regexp_replace(o_clerk, '^Clerk#0*(\\d*)\\d\\d$', 'team \\1') AS team, count(*) AS orders,
       sum(o_totalprice) AS revenue
FROM orders
GROUP BY 1 ORDER BY 1"""),
    ("ship-mode sequences per order: string_agg over 1.5M groups", """
SELECT modes, count(*) AS orders
FROM (SELECT l_orderkey, string_agg(trim(l_shipmode), ',' ORDER BY l_linenumber) AS modes
      FROM lineitem GROUP BY l_orderkey) AS per_order
GROUP BY modes ORDER BY orders DESC, modes LIMIT 20"""),
    ("richest customers per nation: string_agg(ORDER BY)", """
SELECT n_name, count(*) AS customers, string_agg(c_name, ', ' ORDER BY c_acctbal DESC, c_name) AS names
FROM customer JOIN nation ON c_nationkey = n_nationkey
WHERE c_acctbal > 9900
GROUP BY n_name ORDER BY n_name"""),
    ("order value percentiles per priority and year: percentile_cont", """
SELECT o_orderpriority, EXTRACT(year FROM o_orderdate) AS year, count(*) AS orders,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(o_totalprice AS double precision)) AS median,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY CAST(o_totalprice AS double precision)) AS p90
FROM orders
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("overall medians: percentile_cont over lineitem", """
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY CAST(l_extendedprice AS double precision)) AS median_price,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY l_receiptdate - l_shipdate) AS median_transit,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY CAST(l_discount AS double precision)) AS q1_discount
FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01'"""),
    ("month and priority labels: to_char, split_part, lower", """
SELECT to_char(o_orderdate, 'YYYY-MM') AS month, lower(split_part(o_orderpriority, '-', 2)) AS priority,
       count(*) AS orders, sum(o_totalprice) AS revenue
FROM orders
WHERE o_orderdate >= DATE '1996-01-01'
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("segment codes: concat, upper, substring, lpad", """
SELECT concat(upper(substring(c_mktsegment, 1, 3)), '-', lpad(CAST(c_nationkey AS varchar), 3, '0')) AS code,
       EXTRACT(year FROM o_orderdate) AS year, count(*) AS orders, sum(o_totalprice) AS revenue
FROM customer JOIN orders ON o_custkey = c_custkey
GROUP BY 1, 2 ORDER BY 1, 2"""),
    ("received over a month after ordering: + interval, age", """
SELECT EXTRACT(month FROM age(l_receiptdate, o_orderdate)) AS months, l_shipmode, count(*) AS items,
       sum(l_extendedprice) AS gross
FROM orders JOIN lineitem ON l_orderkey = o_orderkey
WHERE l_receiptdate > o_orderdate + interval '1 month' AND o_orderdate >= DATE '1995-01-01'
GROUP BY 1, 2 ORDER BY 1, 2"""),
]

# DuckDB has no to_char; the queries use one pattern of it, which strftime spells '%Y-%m'.
DUCKDB_SETUP = ["CREATE MACRO to_char(d, fmt) AS strftime(d, replace(replace(fmt, 'YYYY', '%Y'), 'MM', '%m'))"]


def run(connection, text, repeat):
    import validate_queries_duckdb as tpch
    return tpch_bench.best_time(lambda: tpch.run(connection, text)[1], repeat)


def measure(arguments, data_dir, tbl_dir):
    """One result per selected query: best times on both engines, the ratio and the answer check."""
    import psycopg
    threads = arguments.threads or os.cpu_count()
    cluster = tpch_bench.start_cluster(data_dir, arguments.workers, arguments.threads)
    results = []
    try:
        with psycopg.connect(cluster.conninfo(), autocommit=True) as shoal:
            tpch_bench.ensure_loaded(shoal, arguments.sf)
            duck = tpch_bench.duckdb_connection(arguments.sf, threads * arguments.workers, tbl_dir)
            for statement in DUCKDB_SETUP:
                duck.execute(statement)
            print(f"\nstring/date queries, TPC-H SF {arguments.sf}: Shoal on {arguments.workers} worker(s) x "
                  f"{threads} thread(s) against DuckDB, best of {arguments.repeat}")
            print(f"{'query':>5} {'shoal s':>9} {'duckdb s':>9} {'ratio':>7}  answer")
            for number in arguments.queries:
                name, text = QUERIES[number - 1]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoal", default=str(tpch_bench.ROOT / "build" / "release" / "cli" / "shoal"),
                        help="the shoal binary")
    parser.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=0, help="threads per worker (0: one per core)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per query and engine; the best counts")
    parser.add_argument("--queries", default=f"1-{len(QUERIES)}", help=f"e.g. 1-{len(QUERIES)} or 1,6,9")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--data-dir", help="the cluster's directory, kept between runs (default: a scratch one)")
    parser.add_argument("--tbl-dir", help="where DuckDB's .tbl files are (written if missing; default: scratch)")
    arguments = parser.parse_args()
    arguments.queries = [n for part in filter(None, arguments.queries.split(","))
                         for n in range(int(part.partition("-")[0]), int(part.partition("-")[2] or part) + 1)]
    os.environ["SHOAL_BINARY"] = str(pathlib.Path(arguments.shoal).resolve())
    # CALL tpch_load runs tpchgen-cli: let a shoal binary outside the build tree find the venv's.
    os.environ["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"

    with tempfile.TemporaryDirectory(prefix="shoal-string-date-bench-") as scratch:
        data_dir = pathlib.Path(arguments.data_dir or pathlib.Path(scratch) / "cluster")
        tbl_dir = pathlib.Path(arguments.tbl_dir or pathlib.Path(scratch) / "tbl")
        data_dir.mkdir(parents=True, exist_ok=True)
        tbl_dir.mkdir(parents=True, exist_ok=True)
        results = measure(arguments, data_dir, tbl_dir)
    report = {"sf": arguments.sf, "workers": arguments.workers,
              "threads_per_worker": arguments.threads or os.cpu_count(), "repeat": arguments.repeat,
              "queries": results, **tpch_bench.summarize(results)}
    print(f"Shoal/DuckDB on the total: {report['total_ratio']:.2f} (target <= 1.5)")
    if arguments.json:
        pathlib.Path(arguments.json).write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {arguments.json}")
    return 0 if all(r["correct"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
