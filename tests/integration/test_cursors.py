"""Story: a Python job reads a large result through psycopg's named (server-side) cursor, a batch at a
time, and a SQL user walks a result with DECLARE, FETCH, MOVE and CLOSE; rows, command tags and SQLSTATEs
are PostgreSQL 15's for the same session."""

import psycopg
import pytest

from postgres_oracle import session_answers

ROWS = 2500
SETUP = ["DROP TABLE IF EXISTS cursor_rows",
         "CREATE TABLE cursor_rows (id integer PRIMARY KEY, label text, amount numeric(10,2))"]

SESSIONS = {
    "fetch, move and close in a transaction": [
        "BEGIN",
        "DECLARE walk CURSOR FOR SELECT id, label FROM cursor_rows WHERE id <= 10 ORDER BY id",
        "FETCH 3 FROM walk",
        "FETCH NEXT FROM walk",
        "MOVE 2 IN walk",
        "FETCH FORWARD 2 FROM walk",
        "MOVE FORWARD ALL IN walk",
        "FETCH 1 FROM walk",
        "CLOSE walk",
        "COMMIT",
    ],
    "a cursor ends with its transaction unless WITH HOLD": [
        "BEGIN",
        "DECLARE gone CURSOR FOR SELECT id FROM cursor_rows ORDER BY id",
        "DECLARE kept CURSOR WITH HOLD FOR SELECT id FROM cursor_rows WHERE id > 2490 ORDER BY id",
        "FETCH 2 FROM kept",
        "COMMIT",
        "FETCH 1 FROM gone",
        "FETCH 3 FROM kept",
        "FETCH ALL FROM kept",
        "CLOSE kept",
        "CLOSE kept",
    ],
    "a rolled back cursor is gone, even WITH HOLD": [
        "BEGIN",
        "DECLARE held CURSOR WITH HOLD FOR SELECT id FROM cursor_rows ORDER BY id",
        "ROLLBACK",
        "FETCH 1 FROM held",
    ],
    "what PostgreSQL refuses": [
        "DECLARE outside CURSOR FOR SELECT 1",
        "FETCH 1 FROM nosuch",
        "CLOSE nosuch",
        "BEGIN",
        "DECLARE twice CURSOR FOR SELECT 1",
        "DECLARE twice CURSOR FOR SELECT 2",
        "ROLLBACK",
        "BEGIN",
        "DECLARE back NO SCROLL CURSOR FOR SELECT id FROM cursor_rows ORDER BY id",
        "FETCH 2 FROM back",
        "FETCH BACKWARD 1 FROM back",
        "ROLLBACK",
        "BEGIN",
        "DECLARE many CURSOR FOR SELECT id, amount FROM cursor_rows ORDER BY id LIMIT 3",
        "CLOSE ALL",
        "FETCH 1 FROM many",
        "ROLLBACK",
    ],
}


@pytest.fixture(scope="module")
def both(cluster, postgres):
    shoal = f"host=127.0.0.1 port={cluster.port} user=postgres dbname=postgres connect_timeout=10"
    data = "".join(f"{i}\tlabel {i}\t{i * 1.25:.2f}\n" for i in range(1, ROWS + 1)).encode()
    for conninfo in (shoal, postgres.conninfo()):
        session_answers(conninfo, SETUP)
        with psycopg.connect(conninfo, autocommit=True) as connection:
            with connection.cursor().copy("COPY cursor_rows FROM STDIN") as copy:
                copy.write(data)
    yield shoal, postgres.conninfo()
    session_answers(shoal, SETUP[:1])


@pytest.mark.parametrize("name", SESSIONS)
def test_a_session_with_cursors_answers_as_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


def read_with_named_cursors(conninfo):
    """What psycopg's server-side cursors give: iteration in batches, fetchmany, scroll and WITH HOLD."""
    seen = {}
    with psycopg.connect(conninfo) as connection:  # psycopg opens the transaction a named cursor needs
        with connection.cursor(name="all_rows") as cursor:
            cursor.itersize = 300
            cursor.execute("SELECT id, label, amount FROM cursor_rows WHERE amount > %s ORDER BY id", (10,))
            seen["description"] = [(column.name, column.type_code) for column in cursor.description]
            rows = list(cursor)
            seen["count"] = len(rows)
            seen["ends"] = rows[:2] + rows[-2:]
        with connection.cursor(name="some_rows") as cursor:
            cursor.execute("SELECT id FROM cursor_rows ORDER BY id LIMIT %s", (50,))
            seen["first"] = cursor.fetchmany(7)
            cursor.scroll(10)
            seen["after_scroll"] = cursor.fetchone()
            seen["rest"] = len(cursor.fetchall())
        connection.commit()
        with connection.cursor(name="held", withhold=True) as cursor:
            cursor.execute("SELECT label FROM cursor_rows WHERE id % 500 = 0 ORDER BY id")
            connection.commit()  # a WITH HOLD cursor outlives its transaction
            seen["held"] = cursor.fetchall()
    return seen


def test_psycopg_named_cursors_read_as_on_postgresql(both):
    shoal, postgres = both
    assert read_with_named_cursors(shoal) == read_with_named_cursors(postgres)
