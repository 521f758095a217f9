"""Story: a Python ETL job moves rows with psycopg's binary COPY, the fastest way psycopg knows. COPY ... TO
STDOUT (FORMAT binary) gives the very bytes PostgreSQL 15 gives, COPY ... FROM STDIN (FORMAT binary) loads
what PostgreSQL loads (write_row, a column list, NULLs), and malformed input or options fail with
PostgreSQL's SQLSTATEs and leave nothing behind."""

import datetime
import decimal

import psycopg
import pytest

from postgres_oracle import session_answers, set_up_both

COLUMNS = ("id integer, small smallint, big bigint, amount numeric(12,2), ratio double precision, label text, "
           "code varchar(10), flag char(3), day date, ok boolean, score real")
SETUP = ["DROP TABLE IF EXISTS cb_source", "DROP TABLE IF EXISTS cb_target",
         f"CREATE TABLE cb_source ({COLUMNS})", f"CREATE TABLE cb_target ({COLUMNS})",
         "INSERT INTO cb_source VALUES "
         "(1, 7, 9000000000, 123.45, 0.5, 'plain', 'A-1', 'xy', '2024-02-29', true, 1.1), "
         "(2, -7, -1, -0.01, -2.25, 'tab\there \"q\" \\\\ é', '', 'abc', '1970-01-01', false, '-Infinity'), "
         "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
         "(4, 0, 0, 0, 0, '', 'z', '', '0001-01-01', NULL, '-0'), "
         f"(5, 32767, 9223372036854775807, 9999999999.99, 15000000000.5, 'long {'x' * 300}', 'B', 'c', "
         "'9999-12-31', true, '3.4028235e38')"]
# psycopg has no binary dumper for bpchar: the char(3) column takes text's binary form, as PostgreSQL reads it.
TYPES = ["int4", "int2", "int8", "numeric", "float8", "text", "varchar", "text", "date", "bool", "float4"]
ROWS = [
    (10, 1, 2, decimal.Decimal("3.50"), 4.25, "five", "six", "sev", datetime.date(2023, 12, 31), True, 0.25),
    (11, None, None, None, None, None, None, None, None, None, None),
    (12, -32768, -9223372036854775808, decimal.Decimal("-9999999999.99"), float("inf"), "ünïcode", "x", "",
     datetime.date(2000, 1, 1), False, -1.5),
]


@pytest.fixture
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    session_answers(shoal, SETUP[:2])


def copied_out(conninfo, statement):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with connection.cursor().copy(statement) as copy:
            return b"".join(bytes(block) for block in copy)


@pytest.mark.parametrize("statement", [
    "COPY cb_source TO STDOUT (FORMAT binary)",
    "COPY cb_source (label, id, day) TO STDOUT (FORMAT binary)",
    "COPY (SELECT id, amount * 2, upper(label) FROM cb_source WHERE id > 1 ORDER BY id) TO STDOUT (FORMAT binary)",
    "COPY (SELECT id FROM cb_source WHERE false) TO STDOUT WITH (FORMAT 'binary')",
])
def test_binary_copy_out_gives_postgresqls_bytes(both, statement):
    shoal, postgres = both
    produced = copied_out(shoal, statement)
    assert produced.startswith(b"PGCOPY\n\xff\r\n\x00") and produced.endswith(b"\xff\xff")
    assert produced == copied_out(postgres, statement)


def load_rows(conninfo, statement, types, rows):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with connection.cursor().copy(statement) as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)
        return connection.execute("SELECT * FROM cb_target ORDER BY id").fetchall()


def test_binary_copy_in_loads_what_postgresql_loads(both):
    shoal, postgres = both
    statement = "COPY cb_target FROM STDIN (FORMAT binary)"
    loaded = load_rows(shoal, statement, TYPES, ROWS)
    assert loaded == load_rows(postgres, statement, TYPES, ROWS)
    assert [row[0] for row in loaded] == [10, 11, 12]


def test_binary_copy_in_with_a_column_list_and_a_round_trip(both):
    """The other columns get NULL; rows copied out in binary from one table load into another unchanged."""
    shoal, postgres = both
    statement = "COPY cb_target (label, id) FROM STDIN (FORMAT binary)"
    assert load_rows(shoal, statement, ["text", "int4"], [("a", 1), (None, 2)]) == load_rows(
        postgres, statement, ["text", "int4"], [("a", 1), (None, 2)])
    for conninfo in (shoal, postgres):
        data = copied_out(conninfo, "COPY cb_source TO STDOUT (FORMAT binary)")
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("TRUNCATE cb_target")
            with connection.cursor().copy("COPY cb_target FROM STDIN (FORMAT binary)") as copy:
                copy.write(data)
    query = "SELECT * FROM cb_target ORDER BY id"
    assert session_answers(shoal, [query]) == session_answers(postgres, [query])
    assert len(session_answers(shoal, [query])[0][3]) == 5


def copy_in_error(conninfo, statement, data):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        try:
            with connection.cursor().copy(statement) as copy:
                copy.write(data)
        except psycopg.Error as error:
            left = connection.execute("SELECT count(*) FROM cb_target").fetchone()[0]
            return error.sqlstate, left
    return None


HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
ONE_INT = b"\x00\x01" + b"\x00\x00\x00\x04" + b"\x00\x00\x00\x07"


@pytest.mark.parametrize("statement, data", [
    ("COPY cb_target (id) FROM STDIN (FORMAT binary)", b"not a binary copy file at all"),
    ("COPY cb_target (id) FROM STDIN (FORMAT binary)", b"PGCOPY\n\xff\r\n\x00\x00"),
    ("COPY cb_target (id, label) FROM STDIN (FORMAT binary)", HEADER + ONE_INT + b"\xff\xff"),
    ("COPY cb_target (id) FROM STDIN (FORMAT binary)", HEADER + ONE_INT + b"\x00\x01\x00\x00\x00\x04\x00"),
    ("COPY cb_target (id) FROM STDIN (FORMAT binary)", HEADER + b"\x00\x01\x00\x00\x00\x02\x00\x07\xff\xff"),
    ("COPY cb_target (day) FROM STDIN (FORMAT binary)", HEADER + b"\x00\x01\x00\x00\x00\x02\x00\x07\xff\xff"),
])
def test_malformed_binary_input_fails_as_on_postgresql_and_loads_nothing(both, statement, data):
    shoal, postgres = both
    assert copy_in_error(shoal, statement, data) == copy_in_error(postgres, statement, data)


@pytest.mark.parametrize("sql", [
    "COPY cb_source TO STDOUT (FORMAT binary, DELIMITER ',')",
    "COPY cb_source TO STDOUT (FORMAT binary, NULL 'x')",
    "COPY cb_source TO STDOUT (FORMAT binary, HEADER)",
    "COPY cb_source TO STDOUT (FORMAT binary, QUOTE '\"')",
    "COPY cb_target FROM STDIN (FORMAT binary, FORCE_NULL (id))",
    "COPY cb_source TO STDOUT (FORMAT binary, HEADER false)",
])
def test_binary_copy_options_are_checked_as_on_postgresql(both, sql):
    shoal, postgres = both

    def outcome(conninfo):
        with psycopg.connect(conninfo, autocommit=True) as connection:
            try:
                with connection.cursor().copy(sql) as copy:
                    return ("ok", b"".join(bytes(block) for block in copy) if "TO" in sql else None)
            except psycopg.Error as error:
                return ("error", error.sqlstate, error.diag.message_primary)

    assert outcome(shoal) == outcome(postgres)
