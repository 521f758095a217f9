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

How (the machinery is bench/query_set_bench.py's and bench/tpch_bench.py's):
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

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import query_set_bench  # noqa: E402

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


if __name__ == "__main__":
    sys.exit(query_set_bench.main(__doc__, QUERIES, DUCKDB_SETUP, title="string/date queries"))
