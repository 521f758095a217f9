"""Story: catalog queries and SQLAlchemy's reflection put set-returning functions in the select list,
`SELECT conname, unnest(conkey), generate_subscripts(conkey, 1) FROM pg_constraint`, and analysts expand arrays
with `SELECT id, unnest(tags)`. Shoal runs them as PostgreSQL 15's ProjectSet does, on the workers where the rows
are: each row repeated for its longest function, shorter ones padded with NULL, rows without any value dropped.
The same operator runs a function in FROM that reads the items before it (`FROM t, unnest(t.tags) x`)."""

import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE srf_items (id integer PRIMARY KEY, n integer, name text)",
    "INSERT INTO srf_items VALUES " + ", ".join(f"({i}, {i % 4}, 'item{i}')" for i in range(1, 41)),
]
DROP = ["DROP TABLE IF EXISTS srf_items"]

QUERIES = [
    "SELECT unnest(ARRAY[1,2,3])",
    "SELECT unnest(ARRAY[1,2,3]) AS x, generate_series(1, 5) AS g, 7 AS c",
    "SELECT id, generate_series(1, n) FROM srf_items WHERE id < 12 ORDER BY 1, 2",
    "SELECT id, unnest(ARRAY[id, id * 10]) + 1, generate_subscripts(ARRAY[n, n], 1) FROM srf_items WHERE id < 5 "
    "ORDER BY 1, 2",
    "SELECT count(*), sum(g) FROM (SELECT generate_series(1, n) AS g FROM srf_items) s",
    "SELECT n, unnest(array_agg(id ORDER BY id)) FROM srf_items GROUP BY n ORDER BY 1, 2",
    "SELECT unnest('{a,b}'::text[]), unnest('{1}'::int[]) ORDER BY 1",
    "SELECT DISTINCT unnest(ARRAY[n, 1]) FROM srf_items ORDER BY 1",
    "SELECT unnest(NULL::int[]), 1",
    "SELECT id, generate_series(n, 1, -1) FROM srf_items WHERE id BETWEEN 5 AND 8 ORDER BY 1, 2 DESC",
    "SELECT id, unnest(ARRAY[name, NULL]) FROM srf_items WHERE id = 3",
    "SELECT id FROM (SELECT id, generate_series(1, n) AS g FROM srf_items) s WHERE g = 3 ORDER BY 1",
    "SELECT c.conname, unnest(c.conkey) AS attnum, generate_subscripts(c.conkey, 1) AS ord FROM pg_constraint c "
    "WHERE c.conrelid = 'srf_items'::regclass",
    # Errors, with PostgreSQL's SQLSTATEs.
    "SELECT * FROM srf_items WHERE unnest(ARRAY[id]) = 1",
    "SELECT sum(unnest(ARRAY[1]))",
    "SELECT unnest(1)",
    "SELECT generate_series(1, 3, 0)",
    # Aggregate clauses on functions that are no aggregates.
    "SELECT unnest(DISTINCT ARRAY[1])",
    "SELECT unnest(ARRAY[1] ORDER BY 1)",
    "SELECT lower(DISTINCT 'a')",
    "SELECT lower('a') FILTER (WHERE true)",
    "SELECT lower(*)",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_set_functions_in_the_select_list_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_set_functions_run_where_the_rows_are(both):
    shoal, _ = both
    kind, _, rows = answer(shoal, "EXPLAIN SELECT id, unnest(ARRAY[id, n]) FROM srf_items")
    plan = "\n".join(row[0] for row in rows)
    assert kind == "rows" and "ProjectSet" in plan and "function: unnest(" in plan, plan
    # Below the gather: computed on each worker over its own rows.
    assert plan.index("ProjectSet") > plan.index("gather"), plan


LATERAL_QUERIES = [
    # A function in FROM reads the items before it (implicitly LATERAL): it runs once per row of them.
    "SELECT id, x FROM srf_items, unnest(ARRAY[id, id + 100]) x WHERE id < 4 ORDER BY 1, 2",
    "SELECT s.id, g FROM srf_items s, LATERAL generate_series(1, s.n) g WHERE s.id BETWEEN 5 AND 9 ORDER BY 1, 2",
    "SELECT id, g FROM srf_items, generate_series(1, n) g WHERE g > 2 ORDER BY 1, 2",
    "SELECT count(*), sum(g) FROM srf_items, generate_series(1, n) g",
    "SELECT x, y FROM unnest(ARRAY[1, 2]) x, generate_series(1, x) y ORDER BY 1, 2",
    "SELECT i.n, count(*) FROM srf_items i, generate_subscripts(ARRAY[i.id, i.n, 0], 1) s GROUP BY 1 ORDER BY 1",
    # On the right of a JOIN, a function is LATERAL too: bound as a LATERAL subquery, LEFT JOIN's rows kept.
    "SELECT id, g FROM srf_items JOIN generate_series(1, n) g ON true ORDER BY 1, 2",
    "SELECT id, g FROM srf_items LEFT JOIN LATERAL generate_series(3, n) g ON g % 2 = 1 ORDER BY 1, 2",
    # WITH ORDINALITY numbers each outer row's rows of the function.
    "SELECT id, x, o FROM srf_items, unnest(ARRAY[id, n, NULL]) WITH ORDINALITY AS u(x, o) ORDER BY 1, 3",
    "SELECT id, g, o FROM srf_items JOIN LATERAL generate_series(1, n) WITH ORDINALITY AS s(g, o) ON o > 1 "
    "ORDER BY 1, 3",
    "SELECT id, ARRAY(SELECT x * 10 + o FROM unnest(ARRAY[id, 5]) WITH ORDINALITY AS u(x, o) ORDER BY o) "
    "FROM srf_items ORDER BY 1",
    # In a subquery over the outer query's columns: computed for their distinct values, joined back.
    "SELECT id, ARRAY(SELECT x FROM unnest(ARRAY[id, 5]) x ORDER BY x) FROM srf_items ORDER BY 1",
    "SELECT id, (SELECT string_agg(g::text, '-') FROM generate_series(1, n) g) FROM srf_items ORDER BY 1",
]


@pytest.mark.parametrize("sql", LATERAL_QUERIES)
def test_functions_in_from_reading_earlier_items_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)
