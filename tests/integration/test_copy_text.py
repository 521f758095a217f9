"""Story: a user moves a table out of Shoal and back in with psql's \\copy and psycopg's COPY, in
PostgreSQL's text and CSV formats, and gets the bytes and rows PostgreSQL 15 gives for the same table:
tabs, newlines, backslashes, quotes, empty strings and NULLs survive the round trip; bad options and bad
rows fail with PostgreSQL's SQLSTATEs."""

import subprocess

import psycopg
import pytest

from postgres_oracle import answer

TABLE = ("CREATE TABLE copy_people (id integer, name text, balance numeric(7,2), born date, code char(3), "
         "active boolean, score double precision)")
ROWS = ("INSERT INTO copy_people VALUES "
        "(1, E'tab\\there\\\\slash\\nnewline', 1.5, '2020-01-02', 'ab', true, 0.25), "
        "(2, NULL, NULL, NULL, NULL, NULL, NULL), "
        "(3, '', -0.5, '1999-12-31', 'abc', false, -1e10), "
        "(4, 'comma, \"quoted\"', 0, '2000-01-01', '', true, 3), "
        "(5, E'\\\\.', 1, '1970-01-01', 'x', false, 1.5), "
        "(6, E'cr\\rand bell\\007 and form\\ffeed', 99999.99, '2024-02-29', 'z z', true, 2), "
        "(7, 'NULL', 7, '1900-03-01', 'N', NULL, 7)")
SETUP = ["DROP TABLE IF EXISTS copy_people", "DROP TABLE IF EXISTS copy_back", "DROP VIEW IF EXISTS copy_view",
         TABLE, ROWS, TABLE.replace("copy_people", "copy_back"),
         "CREATE VIEW copy_view AS SELECT id FROM copy_people"]

# COPY TO STDOUT in each format and with each option: the lines must be PostgreSQL's. A table's rows come in
# no particular order (on Shoal, from several workers), so those are compared sorted, the header first.
UNORDERED = [
    "COPY copy_people TO STDOUT",
    "COPY copy_people TO STDOUT WITH (FORMAT csv)",
    "COPY copy_people TO STDOUT WITH (FORMAT csv, HEADER)",
    "COPY copy_people (name, id) TO STDOUT WITH (HEADER)",
    "COPY copy_people TO STDOUT WITH (DELIMITER '|', NULL 'NULL')",
    "COPY copy_people TO STDOUT WITH (FORMAT csv, FORCE_QUOTE *)",
    "COPY copy_people TO STDOUT WITH (FORMAT csv, FORCE_QUOTE (name, code), NULL 'NULL')",
    "COPY copy_people TO STDOUT WITH (FORMAT csv, DELIMITER ';', QUOTE '''', ESCAPE '\\')",
    "COPY public.copy_people (code) TO STDOUT CSV",
    "COPY copy_people TO STDOUT (FORMAT text, HEADER false, FREEZE, ENCODING 'UTF8')",
]
ORDERED = [
    "COPY (SELECT id, name FROM copy_people WHERE id > 2 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)",
    "COPY (SELECT name AS \"the name\" FROM copy_people ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)",
    "COPY (SELECT id * 2 AS doubled, born + 1 AS next_day FROM copy_people ORDER BY id) TO STDOUT",
    "COPY (SELECT count(*) AS n FROM copy_people WHERE id < 0) TO STDOUT (HEADER)",
]
# What PostgreSQL refuses, Shoal refuses with the same SQLSTATE.
REFUSED = [
    "COPY copy_view TO STDOUT",
    "COPY copy_people (nosuch) TO STDOUT",
    "COPY copy_people (id, id) TO STDOUT",
    "COPY nosuch TO STDOUT",
    "COPY copy_people TO STDOUT (FORMAT xml)",
    "COPY copy_people TO STDOUT (QUOTE '''')",
    "COPY copy_people TO STDOUT (FORMAT csv, QUOTE ',')",
    "COPY copy_people TO STDOUT (DELIMITER 'ab')",
    "COPY copy_people TO STDOUT (FORMAT csv, NULL 'x,y')",
    "COPY copy_people TO STDOUT (FORMAT csv, NULL 'a\"b')",
    "COPY copy_people TO STDOUT (HEADER match)",
    "COPY copy_people TO STDOUT (HEADER, HEADER)",
    "COPY copy_people TO STDOUT (bogus)",
    "COPY copy_people TO STDOUT (HEADER 'maybe')",
    "COPY copy_people TO STDOUT (ESCAPE 'a')",
    "COPY copy_people TO STDOUT (FORMAT csv, ESCAPE 'ab')",
    "COPY copy_people TO STDOUT (FORCE_QUOTE (id))",
    "COPY copy_people TO STDOUT (FORMAT csv, FORCE_NOT_NULL (id))",
    "COPY copy_people TO STDOUT (DELIMITER E'\\n')",
    "COPY copy_people TO STDOUT (NULL E'a\\rb')",
    "COPY copy_people TO STDOUT (DELIMITER 'a')",
    "COPY copy_people TO STDOUT (FREEZE 'x')",
]


def copy_out(conninfo, sql):
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with connection.cursor() as cursor:
            with cursor.copy(sql) as copy:
                data = b"".join(bytes(block) for block in copy)
            return data, cursor.rowcount


def copy_in(conninfo, sql, data):
    """Loads `data` with COPY FROM STDIN: ("ok", rows) or ("error", SQLSTATE)."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        with connection.cursor() as cursor:
            try:
                with cursor.copy(sql) as copy:
                    copy.write(data)
            except psycopg.Error as error:
                return ("error", error.sqlstate)
            return ("ok", cursor.rowcount)


def contents(conninfo, table):
    return answer(conninfo, f"SELECT * FROM {table} ORDER BY id, name")


@pytest.fixture(scope="module")
def both(cluster, postgres):
    shoal = f"host=127.0.0.1 port={cluster.port} user=postgres dbname=postgres connect_timeout=10"
    for conninfo in (shoal, postgres.conninfo()):
        for sql in SETUP:
            assert answer(conninfo, sql)[0] == "rows", sql
    yield shoal, postgres.conninfo()
    for sql in SETUP[:3]:
        answer(shoal, sql)


@pytest.fixture
def empty_copy_back(both):
    for conninfo in both:
        answer(conninfo, "TRUNCATE copy_back")
    return both


def sorted_lines(data, header):
    lines = data.split(b"\n")
    assert lines[-1] == b""
    first = lines[:1] if header else []
    return first + sorted(lines[len(first):-1])


@pytest.mark.parametrize("sql", UNORDERED)
def test_copy_to_writes_a_tables_lines_as_postgresql(both, sql):
    shoal, postgres = both
    (shoal_data, shoal_rows), (pg_data, pg_rows) = copy_out(shoal, sql), copy_out(postgres, sql)
    header = "HEADER)" in sql or "HEADER," in sql
    assert sorted_lines(shoal_data, header) == sorted_lines(pg_data, header)
    assert shoal_rows == pg_rows == 7


@pytest.mark.parametrize("sql", ORDERED)
def test_copy_of_a_query_writes_postgresqls_bytes(both, sql):
    shoal, postgres = both
    assert copy_out(shoal, sql) == copy_out(postgres, sql)


@pytest.mark.parametrize("sql", REFUSED)
def test_copy_refuses_what_postgresql_refuses(both, sql):
    shoal, postgres = both
    refused = answer(postgres, sql)
    assert refused[0] == "error"
    assert answer(shoal, sql) == refused


def test_copy_to_a_server_file_is_refused(both, tmp_path):
    # PostgreSQL lets only superusers and pg_write_server_files write server files: others get 42501, as in
    # PostgreSQL. Shoal writes none at all yet: a superuser gets 0A000, and no file appears.
    shoal = both[0]
    target = tmp_path / "out.txt"
    assert answer(shoal, f"COPY copy_people TO '{target}'") == ("error", "0A000")
    answer(shoal, "DROP ROLE IF EXISTS copy_writer")
    answer(shoal, "CREATE ROLE copy_writer LOGIN")
    try:
        writer = shoal.replace("user=postgres", "user=copy_writer")
        assert answer(writer, f"COPY copy_people TO '{target}'") == ("error", "42501")
    finally:
        answer(shoal, "DROP ROLE copy_writer")
    assert not target.exists()


@pytest.mark.parametrize("options", ["", "WITH (FORMAT csv)", "WITH (FORMAT csv, HEADER)", "WITH (HEADER)",
                                     "WITH (NULL 'NA')", "WITH (FORMAT csv, NULL 'NULL')"])
def test_what_copy_to_wrote_copy_from_reads_back(empty_copy_back, options):
    shoal, postgres = empty_copy_back
    for conninfo in (shoal, postgres):
        data, _ = copy_out(conninfo, f"COPY copy_people TO STDOUT {options}")
        assert copy_in(conninfo, f"COPY copy_back FROM STDIN {options}", data) == ("ok", 7)
    assert contents(shoal, "copy_back") == contents(postgres, "copy_back") == contents(postgres, "copy_people")


# Text-format input that exercises every escape, NULL and the end-of-data marker.
TEXT_INPUT = (b"10\tocta\\154 and hex\\x41\\x4a and \\\\N\t1.25\t2001-02-03\tab\tt\t1\n"
              b"11\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n"
              b"12\t\tbad\\q\t2001-02-03\t\\\t\tf\t2\n"
              b"\\.\n")
BAD_TEXT_INPUT = [
    b"1\ttoo few\n",
    b"1\ta\t1\t2001-01-01\tab\tt\t1\textra\n",
    b"x\ta\t1\t2001-01-01\tab\tt\t1\n",
    b"1\ta\t1\t2001-02-30\tab\tt\t1\n",
    b"1\ta\\000b\t1\t2001-01-01\tab\tt\t1\n",
]


@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_copy_from_reads_postgresqls_text_format(empty_copy_back, line_end):
    shoal, postgres = empty_copy_back
    good = TEXT_INPUT.replace(b"\tbad\\q\t", b"\t2.5\t").replace(b"\n", line_end)
    for conninfo in (shoal, postgres):
        assert copy_in(conninfo, "COPY copy_back FROM STDIN", good) == ("ok", 3)
    assert contents(shoal, "copy_back") == contents(postgres, "copy_back")


@pytest.mark.parametrize("sql", ["COPY copy_view FROM STDIN", "COPY copy_back FROM STDIN (FORMAT csv, FORCE_QUOTE (id))",
                                 "COPY copy_back (nosuch) FROM STDIN", "COPY copy_back (id, id) FROM STDIN"])
def test_copy_from_refuses_what_postgresql_refuses(empty_copy_back, sql):
    shoal, postgres = empty_copy_back
    refused = copy_in(postgres, sql, b"1\n")
    assert refused[0] == "error"
    assert copy_in(shoal, sql, b"1\n") == refused


@pytest.mark.parametrize("sql, data", [
    ("COPY copy_back (name, id) FROM STDIN", b"first\t1\n\\N\t2\nthird\t3\n"),
    ("COPY copy_back (score, code, id) FROM STDIN (FORMAT csv, HEADER)", b"s,c,i\n1.5,ab,1\n,,2\n"),
    ("COPY copy_back (id) FROM STDIN", b"7\n8\n"),
    ("COPY copy_back (name) FROM STDIN", b"only\ttwo\n"),
    # COPY's NULL option: the raw field text that stands for NULL; in CSV only when unquoted.
    ("COPY copy_back (id, name) FROM STDIN (NULL 'NA')", b"1\tNA\n2\t\\N\n3\tNAB\n"),
    ("COPY copy_back (id, name, code) FROM STDIN (FORMAT csv, NULL 'NA')", b'1,NA,\n2,"NA",x\n'),
    ("COPY copy_back (id, name) FROM STDIN (NULL '')", b"1\t\n2\tx\n"),
    ("COPY copy_back (id, score) FROM STDIN (NULL 'NA')", b"1\tNA\n2\t\n"),
    # FORCE_NOT_NULL: an unquoted null string is a value; FORCE_NULL: a quoted one is NULL too.
    ("COPY copy_back (id, name, code) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (name))", b'1,,\n2,"",""\n'),
    ("COPY copy_back (id, name, code) FROM STDIN (FORMAT csv, FORCE_NULL (name, code))", b'1,,\n2,"",""\n'),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, NULL 'NA', FORCE_NULL (name), FORCE_NOT_NULL (name))",
     b'1,NA\n2,"NA"\n3,x\n'),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, FORCE_NULL (code))", b"1,x\n"),
    ("COPY copy_back (id, name) FROM STDIN (FORCE_NULL (name))", b"1\tx\n"),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, FORCE_NOT_NULL (nosuch))", b"1,x\n"),
    # HEADER MATCH: the header line names the columns the fields fill, or the COPY fails with 22P04.
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, HEADER MATCH)", b'id,"name"\n1,x\n'),
    ("COPY copy_back (id, name) FROM STDIN (HEADER MATCH)", b"id\tname\n1\tx\n"),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, HEADER MATCH)", b"id,nom\n1,x\n"),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, HEADER MATCH)", b"id\n1,x\n"),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, HEADER MATCH)", b"id,name,extra\n1,x\n"),
    ("COPY copy_back (id, name) FROM STDIN (FORMAT csv, HEADER MATCH)", b"id,\n1,x\n"),
    ("COPY copy_back (id, name) FROM STDIN (HEADER MATCH)", b"ID\tname\n1\tx\n"),
])
def test_copy_from_with_a_column_list_fills_the_rest_with_null(empty_copy_back, sql, data):
    shoal, postgres = empty_copy_back
    loaded = copy_in(postgres, sql, data)
    assert copy_in(shoal, sql, data) == loaded
    assert contents(shoal, "copy_back") == contents(postgres, "copy_back")


@pytest.mark.parametrize("data", BAD_TEXT_INPUT + [TEXT_INPUT])
def test_copy_from_refuses_bad_text_rows_as_postgresql(empty_copy_back, data):
    shoal, postgres = empty_copy_back
    refused = copy_in(postgres, "COPY copy_back FROM STDIN", data)
    assert refused[0] == "error"
    assert copy_in(shoal, "COPY copy_back FROM STDIN", data) == refused
    assert answer(shoal, "SELECT count(*) FROM copy_back")[2] == [(0,)]


def psql(port, command, user="shoal", host="127.0.0.1"):
    result = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", str(port), "-U", user,
                             "-d", "postgres", "-c", command], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_psql_copy_to_a_file_and_back(both, cluster, postgres, tmp_path):
    for name, port, host, user in (("shoal", cluster.port, "127.0.0.1", "shoal"),
                                   ("postgres", postgres.port, str(postgres.directory), postgres.user)):
        out = tmp_path / f"{name}.csv"
        assert psql(port, f"\\copy copy_people to '{out}' with (format csv, header)", user, host) == "COPY 7\n"
        answer_conninfo = both[0] if name == "shoal" else both[1]
        answer(answer_conninfo, "TRUNCATE copy_back")
        assert psql(port, f"\\copy copy_back from '{out}' with (format csv, header)", user, host) == "COPY 7\n"
    shoal_lines = sorted_lines((tmp_path / "shoal.csv").read_bytes(), True)
    assert shoal_lines == sorted_lines((tmp_path / "postgres.csv").read_bytes(), True)
    assert contents(both[0], "copy_back") == contents(both[1], "copy_back")
