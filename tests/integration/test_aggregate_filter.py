"""Story: a dashboard counts orders per status in one pass, `count(*) FILTER (WHERE status = 'F')` beside the
total, sums revenue of one year only, and lists the late ones with string_agg. Shoal answers as PostgreSQL 15
does over a table with NULLs spread across two workers, including FILTER with DISTINCT, with GROUP BY, in
HAVING and over no rows at all, and refuses what PostgreSQL refuses."""

import pytest

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE sales (id integer, region text, amount numeric(10,2), late boolean, day date)",
    "INSERT INTO sales VALUES (1, 'north', 10.50, true, '2024-01-05'), (2, 'north', 20.00, false, '2024-02-01'), "
    "(3, 'south', NULL, true, '2024-01-20'), (4, 'south', 7.25, NULL, '2023-12-31'), "
    "(5, NULL, 3.00, false, NULL), (6, 'east', 99.99, true, '2024-03-03'), (7, 'north', 10.50, true, '2024-01-05')",
]
DROP = ["DROP TABLE IF EXISTS sales"]

QUERIES = [
    "SELECT count(*), count(*) FILTER (WHERE late), count(amount) FILTER (WHERE late), "
    "sum(amount) FILTER (WHERE day >= '2024-01-01'), avg(amount) FILTER (WHERE NOT late), "
    "min(day) FILTER (WHERE late), max(region) FILTER (WHERE amount > 10) FROM sales",
    "SELECT region, count(*) FILTER (WHERE late IS NULL OR NOT late), sum(amount) FILTER (WHERE late), "
    "string_agg(id::text, ',' ORDER BY id) FILTER (WHERE late) FROM sales GROUP BY region ORDER BY region",
    "SELECT count(DISTINCT amount) FILTER (WHERE late), sum(DISTINCT amount) FILTER (WHERE region = 'north'), "
    "bool_and(late) FILTER (WHERE region = 'north'), bool_or(late) FILTER (WHERE amount < 5) FROM sales",
    "SELECT count(*) FILTER (WHERE late), sum(amount) FILTER (WHERE late) FROM sales WHERE id > 100",
    "SELECT region FROM sales GROUP BY region HAVING count(*) FILTER (WHERE late) >= 1 ORDER BY region",
    "SELECT count(*) FILTER (WHERE 'true') FROM sales",
    "SELECT count(*) FILTER (WHERE id) FROM sales",
    "SELECT count(*) FILTER (WHERE count(*) > 1) FROM sales",
    "SELECT abs(id) FILTER (WHERE late) FROM sales",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_aggregate_filter_answers_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])
