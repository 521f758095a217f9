"""Story: a finance report formats its amounts with to_char(number, template), as it did on PostgreSQL: group
separators, signs in every position, brackets for negatives, fill mode, V, EEEE, Roman numerals and ordinals.
Random templates over every number type (a fixed seed, so a failure replays) give PostgreSQL 15's text, or its
SQLSTATE, byte for byte; and a table spread over the workers formats the same as PostgreSQL's."""

import random

import psycopg

from postgres_oracle import both_servers_fixture, session_answers

SCHEMA = [
    "CREATE TABLE ledger (id integer, amount numeric(14,3), units integer, big bigint, rate double precision, "
    "ratio real, small smallint)",
    "INSERT INTO ledger VALUES "
    "(1, 1234567.891, 42, 9223372036854775807, 0.000123, 1.5, 7), "
    "(2, -0.004, -7, -9223372036854775808, '-1e300', -2.25, -32768), "
    "(3, 0, 0, 0, 0, 0, 0), "
    "(4, 99999999999.999, 2147483647, 123456789, 12345.678901, '3.4028235e38', 32767), "
    "(5, NULL, NULL, NULL, 'NaN', 'Infinity', NULL), "
    "(6, -5.5, 3999, 4000, 2.5, -0.5, 11)",
]
DROP = ["DROP TABLE IF EXISTS ledger"]

both = both_servers_fixture(DROP + SCHEMA, DROP)

TOKENS = ["9"] * 8 + ["0"] * 4 + [".", "D", ",", "G", "S", "MI", "PL", "SG", "PR", "L", "V", "EEEE", "FM", "RN",
                                    "rn", "TH", "th", "B", " ", "x", '"ab"', "fm"]


def random_value(rng):
    kind = rng.choice(["integer", "bigint", "numeric", "float8", "real", "smallint"])
    magnitude = rng.choice([0, 1, 2, 3, 5, 8, 12, 17])
    value = rng.choice([-1, 1]) * rng.random() * 10 ** magnitude
    if kind in ("integer", "smallint"):
        limit = 2**31 - 1 if kind == "integer" else 32767
        return f"({max(-limit, min(limit, int(value)))})::{kind}"
    if kind == "bigint":
        return f"({int(value)})::bigint"
    if kind == "numeric":
        return f"({round(value, rng.randint(0, 6))})::numeric"
    if kind == "float8":
        if rng.random() < 0.05:
            return rng.choice(["'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8"])
        return f"({value!r})::float8"
    return f"({value:.6g})::real"


def answer(connection, sql):
    try:
        return "ok", connection.execute(sql).fetchone()[0]
    except psycopg.Error as error:
        return "error", error.sqlstate


def test_random_templates_format_as_postgresql(both):
    rng = random.Random(26)
    shoal, postgres = both
    mismatches = []
    with psycopg.connect(shoal, autocommit=True) as ours, psycopg.connect(postgres, autocommit=True) as theirs:
        for _ in range(1500):
            template = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 9)))
            sql = f"SELECT to_char({random_value(rng)}, '{template}')"
            expected, got = answer(theirs, sql), answer(ours, sql)
            if expected != got:
                mismatches.append((sql, expected, got))
    assert mismatches == []


def test_a_distributed_table_formats_as_postgresql(both):
    queries = [
        "SELECT id, to_char(amount, 'FM999,999,999,990.00'), to_char(amount, 'S9G999G999G999D999'), "
        "to_char(amount, '9.999EEEE'), to_char(amount, '999PR') FROM ledger ORDER BY id",
        "SELECT id, to_char(units, '9999th'), to_char(units, 'FMRN'), to_char(units, '00000MI'), "
        "to_char(small, 'SG99999'), to_char(big, 'FM9,999,999,999,999,999,999') FROM ledger ORDER BY id",
        "SELECT id, to_char(rate, '999,999.999999'), to_char(rate, 'FM0.00EEEE'), to_char(ratio, '9.99999999'), "
        "to_char(ratio, 'L999V99') FROM ledger ORDER BY id",
        "SELECT to_char(sum(amount), 'FM999,999,999,999.000'), to_char(avg(units), '99999.99') FROM ledger",
        "SELECT to_char(units, template) FROM ledger, (SELECT '9,999' AS template UNION ALL SELECT 'FM0000') t "
        "WHERE id < 4 ORDER BY id, template",
    ]
    shoal, postgres = both
    assert session_answers(shoal, queries) == session_answers(postgres, queries)
