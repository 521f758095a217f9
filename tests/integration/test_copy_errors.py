"""Story: a user loads a file with a bad row. The error says where it is, and nothing of that COPY stays loaded."""

import psycopg
import pytest

from cluster import run_sql as run




@pytest.fixture
def people(cluster):
    run(cluster, "DROP TABLE IF EXISTS people")
    run(cluster, "CREATE TABLE people (id INTEGER NOT NULL, code CHAR(3), born DATE, balance DECIMAL(8,2)) "
                 "WITH (distribution = 'hash(id)')")
    yield "people"
    run(cluster, "DROP TABLE IF EXISTS people")


def good_rows(count, start=0):
    return "".join(f"{i}|c{i % 10}|1990-01-{1 + i % 28:02d}|{i % 1000}.25|\n" for i in range(start, start + count))


def copy_error(cluster, path):
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        with pytest.raises(psycopg.Error) as error:
            connection.execute(f"COPY people FROM '{path}' WITH (FORMAT tbl)")
        return error.value.sqlstate, error.value.diag.message_primary


@pytest.mark.parametrize("bad_row, sqlstate, column", [
    ("7|abc|1990-01-01|\n", "22P04", "balance"),                 # a field missing
    ("7|abc|1990-01-01|1.00|extra|\n", "22P04", None),           # a field too many
    ("7|abc|1995-02-30|1.00|\n", "22008", "born"),               # no such day
    ("7|abc|1995-2x-01|1.00|\n", "22007", "born"),               # not a date at all
    ("99999999999|abc|1990-01-01|1.00|\n", "22003", "id"),       # out of INTEGER's range
    ("7|abc|1990-01-01|123456789.00|\n", "22003", "balance"),    # too many digits for DECIMAL(8,2)
    ("7|abcd|1990-01-01|1.00|\n", "22001", "code"),              # too long for CHAR(3)
    ("seven|abc|1990-01-01|1.00|\n", "22P02", "id"),             # not a number
])
def test_bad_row_names_file_line_and_column_and_loads_nothing(cluster, people, tmp_path, bad_row, sqlstate, column):
    # Enough rows for several blocks, so that more than one worker is parsing when the bad row is found.
    path = tmp_path / "people.tbl"
    path.write_text(good_rows(150_000) + bad_row + good_rows(150_000, start=150_000))
    state, message = copy_error(cluster, path)
    assert state == sqlstate, message
    assert str(path) in message and "line 150001" in message, message
    if column:
        assert f"column {column}" in message, message
    assert run(cluster, "SELECT count(*) FROM people") == [(0,)], "a failed COPY must leave nothing behind"


def test_missing_file(cluster, people, tmp_path):
    state, message = copy_error(cluster, tmp_path / "nowhere.tbl")
    assert state == "58P01" and "nowhere.tbl" in message


def test_empty_file_loads_nothing(cluster, people, tmp_path):
    path = tmp_path / "empty.tbl"
    path.write_text("")
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute(f"COPY people FROM '{path}' WITH (FORMAT tbl)").statusmessage == "COPY 0"
    assert run(cluster, "SELECT count(*) FROM people") == [(0,)]


def test_null_in_not_null_column(cluster, people, tmp_path):
    path = tmp_path / "nulls.tbl"
    path.write_text(good_rows(10) + "|abc|1990-01-01|1.00|\n")
    state, message = copy_error(cluster, path)
    assert state == "23502" and '"id"' in message


def test_a_good_copy_after_a_bad_one(cluster, people, tmp_path):
    bad = tmp_path / "bad.tbl"
    bad.write_text(good_rows(1000) + "x|y|z|w|\n")
    copy_error(cluster, bad)
    good = tmp_path / "good.tbl"
    good.write_text(good_rows(300_000))
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute(f"COPY people FROM '{good}'").statusmessage == "COPY 300000"
    assert run(cluster, "SELECT count(*), sum(id), min(born), max(code) FROM people")[0][:2] == (300000, 44999850000)


def test_csv_header_and_quotes(cluster, people, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text('id,code,born,balance\n1,"a,b",1990-01-01,1.5\n2,"""q",,\n3,,1990-01-03,-2\n')
    with psycopg.connect(cluster.conninfo(), autocommit=True) as connection:
        assert connection.execute(f"COPY people FROM '{path}' WITH (FORMAT csv, HEADER)").statusmessage == "COPY 3"
    rows = run(cluster, "SELECT id, code, born IS NULL, balance FROM people WHERE id >= 1")
    assert sorted(rows, key=lambda row: row[0])[1][:3] == (2, '"q ', True)
