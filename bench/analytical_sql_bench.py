"""Window, ROLLUP and INTERSECT/EXCEPT queries over TPC-H on a local Shoal cluster against DuckDB, in one run.

    .venv/bin/python bench/analytical_sql_bench.py --shoal build/release/cli/shoal --sf 1 --workers 2 [--json FILE]

What an analyst asks of window functions, grouping sets and set operations (issue "The SQL people write, part
2"): running totals per customer, the top orders per customer, ranks within a group of grouped rows, a moving
average without PARTITION BY, the gap to the previous order, each line's share of its order over all of
lineitem, revenue rolled up over nation and year, and the customers who ordered in both of two years (and in one
but not the other). Each query ends in a small
result (an aggregate over the window's output or a short ordered list), so that the window is measured and not
the transfer of millions of rows to the client; each is the same text on both engines.

How: bench/query_set_bench.py's machinery (start a cluster, load TPC-H, load DuckDB, run each query hot
--repeat times on both, check Shoal's answer against DuckDB's). The exit code is 1 when an answer is wrong.
Target (issue 28): Shoal/DuckDB <= 1.5 on the total at SF 1.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import query_set_bench  # noqa: E402

QUERIES = [
    ("running totals per customer: sum() OVER (PARTITION BY ... ORDER BY ...)", """
SELECT count(*) AS orders, sum(running) AS total_of_running_totals, max(running) AS largest
FROM (SELECT sum(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS running
      FROM orders) s"""),
    ("top three orders per customer: row_number() <= 3", """
SELECT count(*) AS orders, sum(o_totalprice) AS value
FROM (SELECT o_totalprice, row_number() OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC, o_orderkey) AS rn
      FROM orders) ranked
WHERE rn <= 3"""),
    ("best part per brand by revenue: rank() over grouped rows", """
SELECT p_brand, p_partkey, revenue
FROM (SELECT p_brand, p_partkey, sum(l_extendedprice * (1 - l_discount)) AS revenue,
             rank() OVER (PARTITION BY p_brand ORDER BY sum(l_extendedprice * (1 - l_discount)) DESC) AS r
      FROM lineitem JOIN part ON p_partkey = l_partkey
      GROUP BY p_brand, p_partkey) s
WHERE r = 1
ORDER BY p_brand, p_partkey"""),
    ("7-day moving average of daily revenue: ROWS frame without PARTITION BY", """
SELECT l_shipdate, revenue, avg(revenue) OVER (ORDER BY l_shipdate ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS week
FROM (SELECT l_shipdate, sum(l_extendedprice) AS revenue FROM lineitem GROUP BY l_shipdate) daily
ORDER BY l_shipdate
LIMIT 400"""),
    ("days since the customer's previous order: lag()", """
SELECT count(*) AS repeat_orders, sum(o_orderdate - previous) AS days, max(o_orderdate - previous) AS longest_gap
FROM (SELECT o_orderdate, lag(o_orderdate) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS previous
      FROM orders) s
WHERE previous IS NOT NULL"""),
    ("lines worth over half their order: sum() OVER (PARTITION BY l_orderkey)", """
SELECT count(*) AS lines
FROM (SELECT l_extendedprice * 2 AS twice, sum(l_extendedprice) OVER (PARTITION BY l_orderkey) AS order_total
      FROM lineitem) s
WHERE twice > order_total"""),
    ("revenue by nation and year with subtotals: ROLLUP", """
SELECT n_name, CAST(EXTRACT(year FROM o_orderdate) AS integer) AS year,
       sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM lineitem JOIN orders ON l_orderkey = o_orderkey JOIN customer ON o_custkey = c_custkey
     JOIN nation ON c_nationkey = n_nationkey
GROUP BY ROLLUP (n_name, CAST(EXTRACT(year FROM o_orderdate) AS integer))
ORDER BY 1 NULLS LAST, 2 NULLS LAST"""),
    ("customers who ordered in 1995 and in 1996: INTERSECT", """
SELECT count(*) AS customers FROM (
  SELECT o_custkey FROM orders WHERE o_orderdate >= DATE '1995-01-01' AND o_orderdate < DATE '1996-01-01'
  INTERSECT
  SELECT o_custkey FROM orders WHERE o_orderdate >= DATE '1996-01-01' AND o_orderdate < DATE '1997-01-01') s"""),
    ("customers who ordered in 1995 but not in 1996: EXCEPT", """
SELECT count(*) AS customers FROM (
  SELECT o_custkey FROM orders WHERE o_orderdate >= DATE '1995-01-01' AND o_orderdate < DATE '1996-01-01'
  EXCEPT
  SELECT o_custkey FROM orders WHERE o_orderdate >= DATE '1996-01-01' AND o_orderdate < DATE '1997-01-01') s"""),
]

if __name__ == "__main__":
    sys.exit(query_set_bench.main(__doc__, QUERIES, title="window, rollup and set-operation queries"))
