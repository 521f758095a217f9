"""Story: psycopg and SQLAlchemy wrap probes in savepoints (psycopg's nested `conn.transaction()`), and a
SQL user recovers a failed transaction with ROLLBACK TO SAVEPOINT. Command tags, SQLSTATEs and the cursors
a rollback closes are PostgreSQL 15's. What ROLLBACK TO does to rows written under a savepoint is
test_transactions.py's story."""

import psycopg
import pytest

from postgres_oracle import session_answers, set_up_both

SETUP = ["DROP TABLE IF EXISTS savepoint_rows", "CREATE TABLE savepoint_rows (id integer PRIMARY KEY, label text)",
         "INSERT INTO savepoint_rows VALUES (1, 'one'), (2, 'two'), (3, 'three')"]

SESSIONS = {
    "a failed statement is rolled back to its savepoint": [
        "BEGIN",
        "SELECT count(*) FROM savepoint_rows",
        "SAVEPOINT probe",
        "SELECT * FROM nosuch_table",
        "SELECT 1",
        "ROLLBACK TO SAVEPOINT probe",
        "SELECT label FROM savepoint_rows WHERE id = 2",
        "RELEASE SAVEPOINT probe",
        "COMMIT",
    ],
    "savepoints nest, and a name may repeat": [
        "BEGIN",
        "SAVEPOINT a",
        "SAVEPOINT b",
        "SAVEPOINT a",
        "RELEASE a",
        "ROLLBACK TO a",
        "RELEASE b",
        "ROLLBACK TO a",
        "ROLLBACK TO b",
        "ROLLBACK",
    ],
    "rolling back to a savepoint closes the cursors declared since": [
        "BEGIN",
        "DECLARE before CURSOR FOR SELECT id FROM savepoint_rows ORDER BY id",
        "SAVEPOINT s",
        "DECLARE after CURSOR FOR SELECT id FROM savepoint_rows ORDER BY id",
        "FETCH 1 FROM after",
        "ROLLBACK TO s",
        "FETCH 1 FROM before",
        "FETCH 1 FROM after",
        "ROLLBACK",
    ],
    "what PostgreSQL refuses": [
        "SAVEPOINT outside",
        "RELEASE SAVEPOINT outside",
        "ROLLBACK TO SAVEPOINT outside",
        "BEGIN",
        "RELEASE nosuch",
        "ROLLBACK",
        "BEGIN",
        "SELECT 1/0",
        "SAVEPOINT too_late",
        "ROLLBACK TO nosuch",
        "SELECT 1",
        "ROLLBACK",
    ],
    "COMMIT and ROLLBACK end the savepoints with the block": [
        "BEGIN",
        "SAVEPOINT kept",
        "COMMIT",
        "BEGIN",
        "ROLLBACK TO kept",
        "ROLLBACK",
    ],
}


@pytest.fixture(scope="module")
def both(cluster, postgres):
    shoal, oracle = set_up_both(cluster, postgres, SETUP)
    yield shoal, oracle
    session_answers(shoal, SETUP[:1])


@pytest.mark.parametrize("name", SESSIONS)
def test_a_session_with_savepoints_answers_as_postgresql(both, name):
    shoal, postgres = both
    assert session_answers(shoal, SESSIONS[name]) == session_answers(postgres, SESSIONS[name])


def probe_in_nested_transactions(conninfo):
    """psycopg's nested transaction() blocks: a failing probe inside one does not spoil the outer one."""
    seen = []
    with psycopg.connect(conninfo) as connection:
        seen.append(connection.execute("SELECT count(*) FROM savepoint_rows").fetchone())
        try:
            with connection.transaction():
                connection.execute("SELECT * FROM nosuch_table")
        except psycopg.errors.UndefinedTable:
            seen.append("probe failed")
        with connection.transaction():
            seen.append(connection.execute("SELECT max(id) FROM savepoint_rows").fetchone())
        seen.append(connection.info.transaction_status.name)
    return seen


def test_psycopg_nested_transactions_recover_as_on_postgresql(both):
    shoal, postgres = both
    assert probe_in_nested_transactions(shoal) == probe_in_nested_transactions(postgres)
