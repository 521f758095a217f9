"""Story: catalog queries and analysts put set-returning functions in FROM: pgjdbc's type lookup walks
`generate_series(1, array_upper(current_schemas(false), 1)) AS s(r)`, psql unnests arrays, and everyone
counts with generate_series. Shoal answers them as PostgreSQL 15 does, names of the columns included, also
joined with a table spread over the workers."""

import pytest

from postgres_oracle import answer, both_servers_fixture

SCHEMA = [
    "CREATE TABLE tf_items (id integer PRIMARY KEY, grp integer)",
    "INSERT INTO tf_items VALUES (1, 0), (2, 1), (3, 1), (4, 2)",
]
DROP = ["DROP TABLE IF EXISTS tf_items"]

QUERIES = [
    "SELECT * FROM generate_series(1, 5)",
    "SELECT * FROM generate_series(1, 10, 3) AS s",
    "SELECT r FROM generate_series(1, array_upper(current_schemas(false), 1)) AS s(r)",
    "SELECT * FROM generate_series(5, 1, -2) WITH ORDINALITY",
    "SELECT * FROM generate_series(1, 3) WITH ORDINALITY AS t(v, n)",
    "SELECT count(*), sum(g), min(g), max(g) FROM generate_series(1, 100000) g",
    "SELECT * FROM generate_series(9223372036854775806, 9223372036854775807)",
    "SELECT * FROM generate_series(-2147483648, -2147483647)",
    "SELECT * FROM generate_series(3, 1)",
    "SELECT * FROM generate_series(1, NULL)",
    "SELECT t.* FROM generate_series(1, 2) t",
    "SELECT generate_series FROM generate_series(1, 2)",
    "SELECT * FROM unnest(ARRAY['a', 'b', NULL]) WITH ORDINALITY",
    "SELECT x FROM unnest('{3,1,2}'::int[]) x ORDER BY x",
    "SELECT * FROM unnest('{}'::text[])",
    "SELECT * FROM generate_subscripts(ARRAY[10, 20, 30], 1)",
    "SELECT * FROM generate_subscripts(ARRAY[10, 20, 30], 1, true)",
    "SELECT * FROM generate_subscripts(ARRAY[10, 20, 30], 2)",
    # Joined with a table, grouped, filtered.
    "SELECT i.id, g FROM tf_items i, generate_series(1, 2) g WHERE i.id = g ORDER BY 1",
    "SELECT g, count(i.id) FROM generate_series(0, 3) g LEFT JOIN tf_items i ON i.grp = g GROUP BY g ORDER BY g",
    "SELECT id FROM tf_items WHERE id IN (SELECT * FROM unnest(ARRAY[2, 4, 6])) ORDER BY 1",
    "SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 50) b WHERE a % 100 = b",
    # Errors.
    "SELECT * FROM generate_series(1, 3, 0)",
    "SELECT * FROM unnest('{1}')",
    "SELECT * FROM generate_series('a', 2)",
    "SELECT * FROM unnest(5)",
    "SELECT * FROM generate_series(1, 2) AS t(a, b)",
]


# The shared Shoal cluster and the scratch PostgreSQL, each set up with SCHEMA.
both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_functions_in_from_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert answer(shoal, sql) == answer(postgres, sql)


def test_a_parameter_sets_the_series(both):
    """Drivers send the bounds as parameters; the statement is prepared once and run with new values."""
    import psycopg
    results = []
    for conninfo in both:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            seen = []
            for stop in (3, 0, 5):
                seen.append(connection.execute("SELECT count(*), max(g) FROM generate_series(1, %s::int) g",
                                               (stop,), prepare=True).fetchone())
            results.append(seen)
    assert results[0] == results[1]
