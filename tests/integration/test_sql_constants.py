"""A newcomer connects with psql or psycopg and asks Shoal simple questions."""

import datetime
import decimal
import subprocess
import time

import psycopg
import pytest
from psycopg import errors


def psql(cluster, sql):
    return subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "shoal", "-X", "-A", "-t", "-c", sql],
        capture_output=True, text=True, timeout=30)


def test_walking_skeleton_query_through_psql(cluster):
    """`SELECT 1 + 1, 'a' || 'b', NULL IS NULL` answers through the real psql binary."""
    result = psql(cluster, "SELECT 1 + 1, 'a' || 'b', NULL IS NULL")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2|ab|t"


def test_walking_skeleton_query_through_psycopg(cluster):
    """The same query through psycopg, with PostgreSQL's type OIDs on every column."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        cursor = connection.execute("SELECT 1 + 1, 'a' || 'b', NULL IS NULL")
        assert cursor.fetchone() == (2, "ab", True)
        assert [column.type_code for column in cursor.description] == [23, 25, 16]


def test_a_query_of_no_table_answers_at_once(cluster):
    """SELECT 1 runs on the coordinator: it once went through the workers' exchanges and took 3 s each."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        started = time.monotonic()
        for value in range(20):
            assert connection.execute("SELECT %s::integer + 1", (value,)).fetchone() == (value + 1,)
            # Without ORDER BY the branches' rows may arrive in either order (they run in parallel).
            assert sorted(connection.execute("SELECT 1 UNION ALL SELECT 2").fetchall()) == [(1,), (2,)]
        assert time.monotonic() - started < 2.0


def test_result_types_carry_postgres_oids(cluster):
    """numeric, float8, date, int8 and text columns arrive typed, so drivers convert them."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        cursor = connection.execute(
            "SELECT 1.50 * 2, 2.5::float8, date '2024-02-28' + 2, 3000000000, 'x'::varchar(5), 10.0 / 3")
        assert cursor.fetchone() == (decimal.Decimal("3.00"), 2.5, datetime.date(2024, 3, 1), 3000000000, "x",
                                     decimal.Decimal("3.3333333333333333"))
        assert [column.type_code for column in cursor.description] == [1700, 701, 1082, 20, 1043, 1700]


def test_bad_sql_returns_42601_with_position(cluster):
    """A typo gets SQLSTATE 42601 and the character position of the mistake."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(errors.SyntaxError) as caught:
            connection.execute("SELECT 1 FROM FROM")
        assert caught.value.sqlstate == "42601"
        assert caught.value.diag.statement_position == "15"
        assert connection.execute("SELECT 1").fetchone() == (1,)
    result = psql(cluster, "SELEC 1")
    assert result.returncode != 0
    assert "syntax error" in result.stderr


@pytest.mark.parametrize("sql, sqlstate", [
    ("SELECT 1 / 0", "22012"),
    ("SELECT 2147483647 + 1", "22003"),
    ("SELECT 'abc'::integer", "22P02"),
    ("SELECT nope FROM shoal_nodes", "42703"),
    ("SELECT * FROM no_such_table", "42P01"),
    ("SELECT 1 + 'a'::text", "42883"),
    ("SELECT 1 INTERSECT SELECT 'a'::text", "42804"),
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r LIMIT 1) SELECT * FROM r", "0A000"),
])
def test_errors_carry_sqlstates(cluster, sql, sqlstate):
    """Each kind of mistake gets its PostgreSQL SQLSTATE, and the connection stays usable."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as caught:
            connection.execute(sql)
        assert caught.value.sqlstate == sqlstate
        assert connection.execute("SELECT 42").fetchone() == (42,)


def test_parameterised_queries(cluster):
    """psycopg's parameters travel by the extended protocol and take their types from context."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute("SELECT %s + 1", (41,)).fetchone() == (42,)
        assert connection.execute("SELECT %s || 'x'", ("ab",)).fetchone() == ("abx",)
        assert connection.execute("SELECT %s::date + 1", ("2024-12-31",)).fetchone() == (datetime.date(2025, 1, 1),)
        assert connection.execute("SELECT %s * 2", (decimal.Decimal("1.25"),)).fetchone() == (decimal.Decimal("2.50"),)
        assert connection.execute("SELECT %s IS NULL", (None,)).fetchone() == (True,)
        assert connection.execute("SELECT %s AND true", (True,)).fetchone() == (True,)
        assert connection.execute("SELECT %s", (2.5,)).fetchone() == (2.5,)


def test_prepared_statements_are_reused(cluster):
    """A statement run many times is prepared once on the server and reused."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        for value in range(12):
            assert connection.execute("SELECT %s * 10", (value,), prepare=True).fetchone() == (value * 10,)
        for value in range(8):  # psycopg prepares on its own after 5 runs
            assert connection.execute("SELECT %s - 1", (value,)).fetchone() == (value - 1,)


def test_binary_results(cluster):
    """A binary cursor gets every type in PostgreSQL's binary format."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        cursor = connection.cursor(binary=True)
        row = cursor.execute("SELECT 1, 2::bigint, 'x', true, 1.5::float8, -12.345::numeric(8,3), "
                             "date '2024-01-02', 0.0001, NULL::integer").fetchone()
        assert row == (1, 2, "x", True, 1.5, decimal.Decimal("-12.345"), datetime.date(2024, 1, 2),
                       decimal.Decimal("0.0001"), None)


def test_transactions_as_drivers_use_them(cluster):
    """psycopg opens a transaction; an error aborts it until ROLLBACK, then work goes on."""
    with psycopg.connect(cluster.conninfo()) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
        assert connection.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        connection.commit()
        with pytest.raises(errors.DivisionByZero):
            connection.execute("SELECT 1 / 0")
        with pytest.raises(errors.InFailedSqlTransaction):
            connection.execute("SELECT 1")
        connection.rollback()
        assert connection.execute("SELECT 2").fetchone() == (2,)


def test_settings(cluster):
    """SET and SHOW work for the settings clients use, and unknown ones are refused."""
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        connection.execute("SET application_name = 'dashboard'")
        assert connection.execute("SHOW application_name").fetchone() == ("dashboard",)
        assert connection.info.parameter_status("application_name") == "dashboard"
        assert connection.execute("SHOW DateStyle").fetchone() == ("ISO, MDY",)
        assert connection.info.parameter_status("server_version").startswith("15")
        with pytest.raises(errors.UndefinedObject):
            connection.execute("SET no_such_setting = 1")


def test_multi_statement_simple_query_and_fetchmany(cluster):
    """psql-style scripts run statement by statement; large results can be fetched in parts."""
    result = psql(cluster, "SELECT 1; SELECT 'two'")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "two"]
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        cursor = connection.execute("SELECT node_id FROM shoal_nodes")
        assert len(cursor.fetchmany(2)) == 2
        assert len(cursor.fetchall()) == 1
