"""Story: a BI tool writes `GREATEST(shipped, promised)`, `LEAST(price, cap)`, `flag IS NOT TRUE` and
`num_nulls(a, b, c)` in its generated SQL. Shoal answers them as PostgreSQL 15 does: GREATEST and LEAST ignore
NULLs (NULL only when every argument is), resolve one common type, and the boolean tests are never NULL."""

import pytest

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE readings (id integer, a integer, b bigint, c numeric(8,2), d date, e date, t text, f boolean)",
    "INSERT INTO readings VALUES (1, 1, 2, 3.50, '2024-01-01', '2023-12-31', 'pear', true), "
    "(2, 5, NULL, -1.25, NULL, '2024-06-01', 'apple', false), (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
    "(4, -7, -7, -7.00, '2020-02-29', '2020-02-29', '', true), (5, 2147483647, 9223372036854775807, 0.01, "
    "'9999-12-31', '0001-01-01', 'Zebra', NULL)",
]
DROP = ["DROP TABLE IF EXISTS readings"]

QUERIES = [
    "SELECT id, greatest(a, b), least(a, b), greatest(a, c), least(b, c, a), greatest(d, e), least(d, e), "
    "greatest(t, 'm'), least(t, 'm', NULL) FROM readings ORDER BY id",
    "SELECT id, greatest(a), least(NULL::int, NULL), greatest(1, 2.5, a), pg_typeof(greatest(a, b)), "
    "pg_typeof(least(a, c)) FROM readings ORDER BY id",
    "SELECT id, f IS TRUE, f IS NOT TRUE, f IS FALSE, f IS NOT FALSE, f IS UNKNOWN, f IS NOT UNKNOWN "
    "FROM readings ORDER BY id",
    "SELECT id FROM readings WHERE f IS NOT TRUE ORDER BY id",
    "SELECT id, num_nulls(a, b, c, d, t, f), num_nonnulls(a, b, c, d, t, f), num_nulls(NULL), num_nonnulls(1) "
    "FROM readings ORDER BY id",
    "SELECT greatest(a, b) AS g, count(*) FROM readings GROUP BY greatest(a, b) ORDER BY g",
    "SELECT sum(greatest(a, 0)), max(least(c, 1)) FROM readings",
    "SELECT greatest(1, 'x')",
    "SELECT greatest(a, t) FROM readings",
    "SELECT a IS TRUE FROM readings",
    "SELECT num_nulls()",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_conditional_expressions_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])
