"""Story: a quality engineer measures how much each machine's readings spread, and how well one sensor
predicts another: stddev and variance (sample and population), covar, corr and the regr_* family, per
machine, over the whole table, under FILTER and DISTINCT. Shoal answers as PostgreSQL 15 does across two
workers: exactly for integers and decimals (PostgreSQL computes those over exact numeric sums), and for
double precision with PostgreSQL's Youngs-Cramer algorithm, which stays accurate for readings near 1e9 that
barely move. Float results may differ in the last bits only where the workers' partial states merge in
another order than PostgreSQL adds rows, so they are compared to 12 significant digits."""

import math

import psycopg
import pytest

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE readings (machine integer, x double precision, y double precision, n integer, "
    "big bigint, grams numeric(12,2))",
    # Machine 1: plain values. 2: near 1e9 with a spread of a few units (sums of squares would lose it all).
    # 3: one reading. 4: all equal. 5: NULLs only. 6: an infinite reading. 7: x and y perfectly correlated.
    "INSERT INTO readings VALUES "
    "(1, 1, 2, 1, 10, 1.50), (1, 2, 4.5, 2, 20, 2.25), (1, 4, 7, 4, 40, 100000.01), (1, 8, 8, -3, -7, 0.01), "
    "(2, 1e9, 1, 5, 1000000000000, 0), (2, 1e9 + 1, 2, 5, 1000000000001, 0), (2, 1e9 + 3, 5, 6, 1000000000003, 0.05), "
    "(3, 7, 1, 7, 7, 7), "
    "(4, 5, 5, 8, 8, 8.50), (4, 5, 5, 8, 8, 8.50), (4, 5, 5, 8, 8, 8.50), "
    "(5, NULL, NULL, NULL, NULL, NULL), (5, NULL, 3, NULL, NULL, NULL), "
    "(6, 'Infinity', 1, 1, 1, 1), (6, 2, 2, 2, 2, 2), "
    "(7, 1, 3, 1, 1, 1), (7, 2, 5, 2, 2, 2), (7, 3, 7, 3, 3, 3), (7, 4, 9, -5, 4, 4)",
]
DROP = ["DROP TABLE IF EXISTS readings"]

ONE_VARIABLE = "stddev({0}), stddev_samp({0}), stddev_pop({0}), variance({0}), var_samp({0}), var_pop({0})"
# Over integers and decimals the results are numeric. PostgreSQL gives a result below 1 more than 16 fraction
# digits; Shoal's numerics have a fixed scale of 16 here, as for AVG (tests/sql/logic/known_bugs_numeric_scale.test),
# so those are compared at 16 digits.
EXACT = ", ".join(f"round({name}({{0}}), 16)" for name in
                  ("stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"))
TWO_VARIABLES = ("corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_count(y, x), regr_slope(y, x), "
                 "regr_intercept(y, x), regr_r2(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), "
                 "regr_avgx(y, x), regr_avgy(y, x)")

QUERIES = [
    f"SELECT machine, {ONE_VARIABLE.format('x')} FROM readings GROUP BY machine ORDER BY machine",
    f"SELECT machine, {EXACT.format('n')} FROM readings GROUP BY machine ORDER BY machine",
    f"SELECT machine, {EXACT.format('big')} FROM readings GROUP BY machine ORDER BY machine",
    f"SELECT machine, {EXACT.format('grams')} FROM readings GROUP BY machine ORDER BY machine",
    # Spreads of 1 and more: PostgreSQL's own scale, 16 digits or fewer, and so its exact text's value.
    f"SELECT machine, {ONE_VARIABLE.format('grams')} FROM readings WHERE machine IN (1, 7) GROUP BY machine "
    "ORDER BY machine",
    f"SELECT machine, {TWO_VARIABLES} FROM readings GROUP BY machine ORDER BY machine",
    f"SELECT {ONE_VARIABLE.format('x')}, {ONE_VARIABLE.format('n')} FROM readings WHERE machine <> 6",
    f"SELECT {EXACT.format('grams')} FROM readings",
    f"SELECT {TWO_VARIABLES} FROM readings WHERE machine <> 6",
    # Integers and decimals of one type mixed with others: smallint, and arguments cast in the call.
    "SELECT round(stddev(n::smallint), 16), round(variance(grams * 2), 16), stddev(x::real), corr(n, grams) "
    "FROM readings",
    # No rows at all, and FILTER leaving a group empty.
    f"SELECT {EXACT.format('grams')}, {TWO_VARIABLES} FROM readings WHERE machine > 100",
    "SELECT machine, stddev(x) FILTER (WHERE x < 4), round(variance(n) FILTER (WHERE n > 0), 16), "
    "corr(y, x) FILTER (WHERE machine = 7) FROM readings GROUP BY machine ORDER BY machine",
    "SELECT stddev(DISTINCT x), var_pop(DISTINCT x) FROM readings WHERE machine <> 6",
    "SELECT machine FROM readings GROUP BY machine HAVING stddev(n) > 1 ORDER BY machine",
    "SELECT stddev('1') FROM readings",
    # What PostgreSQL refuses.
    "SELECT variance(*) FROM readings",
    "SELECT stddev(x::text) FROM readings",
    "SELECT corr(x) FROM readings",
    "SELECT corr(x, 'a') FROM readings",
    "SELECT stddev(stddev(x)) FROM readings",
    "SELECT machine FROM readings WHERE stddev(x) > 1",
]

both = both_servers_fixture(DROP + SCHEMA, DROP)


def close(a, b):
    """Equal answers, floats to 12 significant digits (NaN equal to NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("sql", QUERIES)
def test_statistical_aggregates_answer_as_postgresql(both, sql):
    shoal, postgres = both
    ours, theirs = session_answers(shoal, [sql]), session_answers(postgres, [sql])
    assert close(ours, theirs), (ours, theirs)


def test_the_readings_near_a_billion_keep_their_spread(both):
    """Sums of squares in double precision would give 0 or garbage here; the moments give the exact spread."""
    shoal, _ = both
    rows = session_answers(shoal, ["SELECT var_samp(x) FROM readings WHERE machine = 2"])[0][3]
    assert rows == [(pytest.approx(7 / 3, rel=1e-12),)]


def test_a_float_overflow_fails_with_22003_as_in_postgresql(both):
    statements = ["CREATE TABLE huge (x double precision)", "INSERT INTO huge VALUES ('1e308'), ('-1e308')",
                  "SELECT variance(x) FROM huge", "DROP TABLE huge"]
    shoal, postgres = both
    assert session_answers(shoal, statements) == session_answers(postgres, statements)
    assert session_answers(shoal, statements)[2][1:] == ("error", "22003")


def test_a_bigint_spread_beyond_a_fixed_scale_numeric_fails_cleanly(both):
    """PostgreSQL's numeric result would carry fewer fraction digits; Shoal's numerics have a fixed scale, so a
    variance of 1e36 cannot be written with 16 of them: 22003 naming the way out, never a wrong number."""
    shoal, _ = both
    statements = ["CREATE TABLE spread (v bigint)",
                  "INSERT INTO spread VALUES (-1000000000000000000), (1000000000000000000)",
                  "SELECT variance(v) FROM spread", "SELECT variance(v::double precision) FROM spread",
                  "DROP TABLE spread"]
    answers = session_answers(shoal, statements)
    assert answers[2][1:] == ("error", "22003")
    assert answers[3][3] == [(2e36,)]
    with psycopg.connect(shoal) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
