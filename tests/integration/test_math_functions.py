"""Story: a report rounds prices to cents, buckets amounts with floor and ceil, takes logarithms of growth and
square roots of variances. Shoal's mathematical functions answer as PostgreSQL 15's: the same result types
(numeric stays numeric at the scale round asks for, integers go to double precision), the same rounding (half
away from zero for numeric, half to even for double precision), the same NULLs and the same errors."""

import pytest

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE amounts (id integer, i integer, b bigint, s smallint, n numeric(12,4), d double precision)",
    "INSERT INTO amounts VALUES "
    "(1, 7, 9000000000, 3, 1234.5678, 2.5), (2, -7, -9000000000, -3, -1234.5678, -2.5), "
    "(3, 0, 0, 0, 0, 0), (4, NULL, NULL, NULL, NULL, NULL), (5, 2147483647, 9223372036854775807, 32767, "
    "99999999.9999, '1e308'), (6, 1, 1, 1, 0.5000, 0.5), (7, -1, -1, -1, -0.5000, -0.5), "
    "(8, 10, 10, 10, 12.5000, 3.5), (9, 100, 100, 100, 0.0001, '1e-300')",
]
DROP = ["DROP TABLE IF EXISTS amounts"]

QUERIES = [
    "SELECT id, abs(i), abs(b), abs(s), abs(n), abs(d), pg_typeof(abs(s)), pg_typeof(abs(n)) FROM amounts "
    "WHERE id <> 5 ORDER BY id",
    "SELECT id, sign(i), sign(n), sign(d), ceil(n), ceiling(d), floor(n), floor(d), ceil(i), floor(b) "
    "FROM amounts ORDER BY id",
    "SELECT id, round(n), round(n, 2), round(n, 0), round(n, -2), round(n, 6), round(i, 1), round(d), round(i), "
    "round(n, NULL) FROM amounts ORDER BY id",
    "SELECT id, trunc(n), trunc(n, 2), trunc(n, -1), trunc(d), trunc(i, 2) FROM amounts ORDER BY id",
    "SELECT round(2.5), round(-2.5), round(2.5::float8), round(3.5::float8), round(-0.5::float8), "
    "round(1234.5678, -2), round(12.5, -1), trunc(-2.567, 1), ceil(-0.5::float8), round(0.5, 40 - 38)",
    "SELECT id, sqrt(d), cbrt(d), exp(d), ln(d), log(d), log10(d) FROM amounts WHERE d > 0 AND d < 100 ORDER BY id",
    "SELECT id, sqrt(i), cbrt(n), power(i, 2), power(d, 0.5), pow(2, s), exp(s), ln(b), log10(i) FROM amounts "
    "WHERE i > 0 AND i < 1000 ORDER BY id",
    "SELECT mod(i, 3), mod(b, 7), mod(n, 2.5), mod(s, s), mod(-7, 3), pi() FROM amounts WHERE id = 1",
    "SELECT pg_typeof(round(1)), pg_typeof(round(1.5, 1)), pg_typeof(sign(1)), pg_typeof(sign(1.5)), "
    "pg_typeof(ceil(1)), pg_typeof(ceil(1.5)), pg_typeof(sqrt(2)), pg_typeof(power(2, 3)), pg_typeof(mod(5, 3)), "
    "pg_typeof(mod(5.5, 2)), pg_typeof(abs(1.5::float8)), pg_typeof(pi()), pg_typeof(trunc(1))",
    "SELECT floor(n / 100) * 100 AS bucket, count(*), round(avg(n), 2) FROM amounts GROUP BY 1 ORDER BY 1",
    "SELECT id FROM amounts WHERE round(n, 1) = 1234.6 OR abs(i) = 7 ORDER BY id",
    # Errors.
    "SELECT abs(i) FROM amounts WHERE id = 5",
    "SELECT abs(-2147483648)",
    "SELECT abs(s) FROM amounts WHERE id = 5",
    "SELECT abs(-32768::int2)",
    "SELECT sqrt(-1::float8)",
    "SELECT ln(0::float8)",
    "SELECT log(-1::float8)",
    "SELECT exp(d) FROM amounts WHERE id = 5",
    "SELECT power(0::float8, -1)",
    "SELECT power(-8::float8, 1.0 / 3)",
    "SELECT power(10::float8, 400)",
    "SELECT round(n, 2) FROM amounts WHERE id = 5",
    "SELECT mod(i, 0) FROM amounts WHERE id = 1",
    "SELECT round(2.5::float8, 1)",
    "SELECT mod(2.5::float8, 1)",
    "SELECT round('2.5')",
    "SELECT abs('x'::text)",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


@pytest.mark.parametrize("sql", QUERIES)
def test_math_functions_answer_as_postgresql(both, sql):
    shoal, postgres = both
    assert session_answers(shoal, [sql]) == session_answers(postgres, [sql])
