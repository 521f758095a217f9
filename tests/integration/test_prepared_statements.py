"""Story: an application prepares its statements once and runs them many times, with SQL's PREPARE,
EXECUTE and DEALLOCATE or through its driver, including paginated queries whose LIMIT and OFFSET are
parameters (SQLAlchemy's .limit() through psycopg 3 sends `LIMIT $1`); every answer and every SQLSTATE is
PostgreSQL 15's for the same session."""

import psycopg
import pytest

from postgres_oracle import session_answers, set_up_both

SETUP = ["DROP TABLE IF EXISTS prep_items", "CREATE TABLE prep_items (id integer PRIMARY KEY, name text, price numeric(8,2))",
         "INSERT INTO prep_items VALUES (1, 'apple', 1.25), (2, 'pear', 2.50), (3, 'plum', 0.75), (4, 'fig', 3.00), "
         "(5, 'kiwi', NULL)"]

# Each list runs in one session, statement by statement; each statement's answer is compared.
SESSIONS = {
    "prepare, execute, deallocate": [
        "PREPARE add_one (integer) AS SELECT $1 + 1 AS next",
        "EXECUTE add_one(5)",
        "EXECUTE add_one('7')",
        "EXECUTE add_one(2 * 3)",
        "EXECUTE add_one",
        "EXECUTE add_one(1, 2)",
        "EXECUTE add_one(true)",
        "EXECUTE nosuch(1)",
        "PREPARE add_one AS SELECT 1",
        "DEALLOCATE add_one",
        "EXECUTE add_one(5)",
        "DEALLOCATE add_one",
        "DEALLOCATE PREPARE nosuch",
    ],
    "parameter types inferred and declared": [
        "PREPARE by_name AS SELECT id, price FROM prep_items WHERE name = $1",
        "EXECUTE by_name('pear')",
        "EXECUTE by_name('none')",
        "PREPARE cheaper (numeric) AS SELECT name FROM prep_items WHERE price < $1 ORDER BY name",
        "EXECUTE cheaper(2)",
        "EXECUTE cheaper('1.5')",
        "EXECUTE cheaper(NULL)",
        "DEALLOCATE ALL",
        "EXECUTE by_name('pear')",
    ],
    "pages with LIMIT and OFFSET parameters": [
        "PREPARE page (bigint, bigint) AS SELECT id, name FROM prep_items ORDER BY id LIMIT $1 OFFSET $2",
        "EXECUTE page(2, 0)",
        "EXECUTE page(2, 2)",
        "EXECUTE page(2, 4)",
        "EXECUTE page(NULL, 3)",
        "EXECUTE page(-1, 0)",
        "EXECUTE page(1, -1)",
        "PREPARE top AS SELECT name FROM prep_items ORDER BY price DESC NULLS LAST FETCH FIRST $1 ROWS ONLY",
        "EXECUTE top(3)",
        "EXECUTE top(1)",
    ],
    "prepared inserts": [
        "PREPARE put (integer, text) AS INSERT INTO prep_items (id, name) VALUES ($1, $2)",
        "EXECUTE put(10, 'lime')",
        "EXECUTE put(11, NULL)",
        "SELECT id, name, price FROM prep_items WHERE id >= 10 ORDER BY id",
    ],
}


@pytest.fixture
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    session_answers(shoal, SETUP[:1])


@pytest.mark.parametrize("name", SESSIONS)
def test_a_session_of_prepared_statements_answers_as_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


def driver_pages(conninfo):
    """Pages through the table with server-side parameters, as psycopg 3 (and SQLAlchemy on it) sends them."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        pages = []
        for offset in range(0, 6, 2):
            pages.append(connection.execute("SELECT id, name FROM prep_items ORDER BY id LIMIT %s OFFSET %s",
                                            (2, offset)).fetchall())
        # The same statement again and again: psycopg prepares it on the server after a few runs.
        for limit in (1, 3, 5, 1, 2, 4, 0):
            pages.append(connection.execute("SELECT name FROM prep_items ORDER BY id LIMIT %s", (limit,)).fetchall())
        pages.append(connection.execute("SELECT count(*) FROM (SELECT id FROM prep_items LIMIT %s) AS firsts",
                                        (3,)).fetchall())
        connection.execute("PREPARE named_page (int) AS SELECT id FROM prep_items ORDER BY id LIMIT $1")
        # Through the extended protocol, EXECUTE's result is described before it runs.
        cursor = connection.execute("EXECUTE named_page(2)", prepare=True)
        pages.append(([column.name for column in cursor.description], cursor.fetchall()))
        try:  # EXECUTE is a utility statement: its arguments cannot be parameters
            connection.execute("EXECUTE named_page(%s)", (2,))
        except psycopg.Error as error:
            pages.append(error.sqlstate)
        return pages


def test_a_driver_pages_with_limit_parameters(both):
    shoal, postgres = both
    assert driver_pages(shoal) == driver_pages(postgres)
