"""Story: a user creates tables, fills them with INSERT and COPY, and reads them back with SQL."""

import subprocess

import psycopg
import pytest

from cluster import run_sql as run




def sqlstate_of(cluster, sql):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as error:
            connection.execute(sql)
        return error.value.sqlstate, str(error.value)


@pytest.fixture
def table(cluster, request):
    """A fresh table name, dropped afterwards."""
    name = f"t_{request.node.name.lower().replace('[', '_').replace(']', '').replace('-', '_')}"[:60]
    run(cluster, f"DROP TABLE IF EXISTS {name}")
    yield name
    run(cluster, f"DROP TABLE IF EXISTS {name}")


def test_every_type_round_trips_through_insert(cluster, table):
    run(cluster, f"""CREATE TABLE {table} (i INTEGER NOT NULL, b BIGINT, d DECIMAL(15,2), w DECIMAL(30,4),
                     f DOUBLE PRECISION, dt DATE, c CHAR(5), v VARCHAR(10), t TEXT, flag BOOLEAN)
                     WITH (distribution = 'hash(i)')""")
    run(cluster, f"""INSERT INTO {table} VALUES
        (1, 9000000000, 12.34, 12345678901234567890.1234, 1.5, DATE '1998-12-01', 'ab', 'hello', 'a long text value', true),
        (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, -1, -0.01, -1.0001, -2.25, '1992-01-01', 'abcde', '', 'x', false)""")
    rows = run(cluster, f"SELECT i, b, d, w, f, dt, c, v, t, flag FROM {table} WHERE i = 1")
    import datetime
    from decimal import Decimal
    assert rows == [(1, 9000000000, Decimal("12.34"), Decimal("12345678901234567890.1234"), 1.5,
                     datetime.date(1998, 12, 1), "ab   ", "hello", "a long text value", True)]
    assert run(cluster, f"SELECT i, b, c, flag FROM {table} WHERE i = 2") == [(2, None, None, None)]
    assert run(cluster, f"SELECT count(*), count(b), sum(d), min(dt), max(c), sum(i) FROM {table}") == [
        (3, 2, Decimal("12.33"), datetime.date(1992, 1, 1), "abcde", 6)]


def test_distributions_spread_rows_and_answer_alike(cluster):
    for distribution in ("hash(k)", "replicated", "random"):
        name = "t_dist_" + distribution.split("(")[0]
        run(cluster, f"DROP TABLE IF EXISTS {name}")
        run(cluster, f"CREATE TABLE {name} (k INTEGER, v TEXT) WITH (distribution = '{distribution}')")
        values = ", ".join(f"({k}, 'value {k}')" for k in range(1000))
        assert run(cluster, f"SELECT count(*) FROM {name}") == [(0,)]
        with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
            assert connection.execute(f"INSERT INTO {name} VALUES {values}").statusmessage == "INSERT 0 1000"
        assert run(cluster, f"SELECT count(*), sum(k), min(v), max(v) FROM {name}") == [
            (1000, 499500, "value 0", "value 999")], distribution
        assert run(cluster, f"SELECT v FROM {name} WHERE k = 517") == [("value 517",)]
        run(cluster, f"DROP TABLE {name}")


def test_ddl_errors_have_sqlstates(cluster, table):
    run(cluster, f"CREATE TABLE {table} (a INTEGER PRIMARY KEY, b TEXT)")
    assert sqlstate_of(cluster, f"CREATE TABLE {table} (a INTEGER)")[0] == "42P07"
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        notices = []
        connection.add_notice_handler(lambda notice: notices.append(notice.message_primary))
        connection.execute(f"CREATE TABLE IF NOT EXISTS {table} (a INTEGER)")
        connection.execute("DROP TABLE IF EXISTS no_such_table")
        assert notices == [f'relation "{table}" already exists, skipping', 'table "no_such_table" does not exist, skipping']
    assert sqlstate_of(cluster, "DROP TABLE no_such_table")[0] == "42P01"
    assert sqlstate_of(cluster, "CREATE TABLE bad (a INTEGER) WITH (distribution = 'hash(zz)')")[0] == "42703"
    assert sqlstate_of(cluster, "CREATE TABLE bad (a INTEGER) WITH (distribution = 'sideways')")[0] == "22023"
    assert sqlstate_of(cluster, "CREATE TABLE bad (a INTEGER, a TEXT)")[0] == "42701"
    assert sqlstate_of(cluster, "CREATE TABLE bad (a INTEGER CHECK (a > 0))")[0] == "0A000"
    assert sqlstate_of(cluster, "CREATE TABLE bad (a TIMETZ)")[0] == "0A000"  # time with time zone: not yet
    assert sqlstate_of(cluster, "CREATE TABLE bad (a NOTATYPE)")[0] == "42704"
    state, message = sqlstate_of(cluster, f"INSERT INTO {table} VALUES (NULL, 'x')")
    assert state == "23502" and '"a"' in message
    assert sqlstate_of(cluster, f"INSERT INTO {table} VALUES (1, 'x', 3)")[0] == "42601"
    assert sqlstate_of(cluster, f"INSERT INTO {table} (nope) VALUES (1)")[0] == "42703"
    assert sqlstate_of(cluster, f"INSERT INTO {table} VALUES ('abc', 'x')")[0] == "22P02"
    assert sqlstate_of(cluster, f"SELECT a, count(*) FROM {table}")[0] == "42803"
    assert sqlstate_of(cluster, f"SELECT a FROM {table} WHERE count(*) > 1")[0] == "42803"
    assert sqlstate_of(cluster, f"SELECT sum(b) FROM {table}")[0] == "42883"
    assert run(cluster, f"SELECT count(*) FROM {table}") == [(0,)], "failed INSERTs leave nothing behind"


def test_truncate_and_drop_empty_the_workers(cluster, table):
    run(cluster, f"CREATE TABLE {table} (a INTEGER)")
    run(cluster, f"INSERT INTO {table} VALUES (1), (2), (3)")
    run(cluster, f"TRUNCATE {table}")
    assert run(cluster, f"SELECT count(*) FROM {table}") == [(0,)]
    run(cluster, f"INSERT INTO {table} VALUES (4)")
    assert run(cluster, f"SELECT sum(a) FROM {table}") == [(4,)]
    run(cluster, f"DROP TABLE {table}")
    assert sqlstate_of(cluster, f"SELECT * FROM {table}")[0] == "42P01"


def test_parameters_in_insert_and_select(cluster, table):
    run(cluster, f"CREATE TABLE {table} (a INTEGER, b TEXT)")
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        for a in range(5):
            connection.execute(f"INSERT INTO {table} VALUES (%s, %s)", (a, f"row {a}"))
        assert connection.execute(f"SELECT b FROM {table} WHERE a = %s", (3,)).fetchall() == [("row 3",)]
        assert connection.execute(f"SELECT count(*) FROM {table} WHERE a >= %s", (2,)).fetchone() == (3,)


def test_psql_copy_from_stdin(cluster, table, tmp_path):
    run(cluster, f"CREATE TABLE {table} (a INTEGER, b VARCHAR(20), c DATE)")
    data = tmp_path / "rows.csv"
    data.write_text("a,b,c\n" + "".join(f"{i},name {i},1995-01-{1 + i % 28:02d}\n" for i in range(5000)))
    result = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(cluster.port),
                             "-U", "shoal", "-c", f"\\copy {table} FROM '{data}' WITH (FORMAT csv, HEADER)"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "COPY 5000"
    assert run(cluster, f"SELECT count(*), sum(a), min(c), max(b) FROM {table}")[0][:2] == (5000, 12497500)


def test_psycopg_copy_from_stdin_tbl(cluster, table):
    run(cluster, f"CREATE TABLE {table} (a INTEGER, b TEXT)")
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with connection.cursor() as cursor:
            with cursor.copy(f"COPY {table} FROM STDIN WITH (FORMAT tbl)") as copy:
                for i in range(10000):
                    copy.write(f"{i}|text {i}|\n")
            assert cursor.rowcount == 10000
    assert run(cluster, f"SELECT count(*), max(a) FROM {table}") == [(10000, 9999)]
