"""Error cases of the SQL front end: each statement's SQLSTATE, message, HINT and position, through psycopg.

Runs every tests/sql/errors/*.test file against the shared cluster. The files use the sqllogictest-like format that
sql_test_files.py reads (shared with test_sql_logic.py); these files hold only `statement` records:

    # comment
    statement ok
    CREATE TABLE t (a integer, b text)

    onlyif shoal
    statement error 42703 position 8
    SELECT nope FROM t
    ----
    column "nope" does not exist
    hint: Perhaps you meant to reference the column "t.b".

- The SQL runs from the line after the `statement` line to a `----` line or a blank line.
- `statement error <SQLSTATE> [position <N>]` must be followed by `----`, the exact primary message, and optionally
  `hint: <text>`. Without `position` the error must carry no position; without `hint:` it must carry no HINT.
- `onlyif <database>` / `skipif <database>` before a record limit it to (or exclude it from) one database, as in
  sqllogictest. The databases are `shoal` and `postgresql`. Where Shoal answers differently from PostgreSQL the
  file holds both answers: PostgreSQL's under `onlyif postgresql`, Shoal's under `onlyif shoal`.
- Records run in order on one autocommit connection. After every error the connection must still answer
  `SELECT 1`.

With SHOAL_SQL_ERRORS_POSTGRES_DSN set (for example `host=127.0.0.1 port=5432 user=postgres dbname=postgres`),
test_files_against_postgresql runs the same files against that PostgreSQL server as database `postgresql`, to
check that the expected PostgreSQL answers are really PostgreSQL's.
"""

import os

import psycopg
import pytest

from sql_test_files import SQL_DIR, STATEMENT_TIMEOUT_S, FormatError, Watchdog, describe_error, execute, parse_file

ERRORS_DIR = SQL_DIR / "errors"
TEST_FILES = sorted(ERRORS_DIR.glob("*.test"))


def error_records(path):
    """The records of one errors file, which must all be statements, with a message for every error."""
    records = parse_file(path)
    for record in records:
        if record.kind == "query":
            raise FormatError(f"{record.where()}: the error files hold `statement` records only")
        if record.kind == "error" and record.message is None:
            raise FormatError(f"{record.where()}: `statement error` needs `----` and the expected message")
    return records


def run_file(conninfo, path, database):
    """Runs one file's records for `database`; returns (number of records run, list of mismatch reports)."""
    records = [record for record in error_records(path) if record.applies_to(database)]
    mismatches = []
    # prepare_threshold=None: every statement goes as written, and psycopg never sends DEALLOCATE ALL of its own.
    connection = psycopg.connect(conninfo, autocommit=True, prepare_threshold=None)
    try:
        for record in records:
            header = f"{record.where()}\n    SQL: {record.sql!r}"
            watchdog = Watchdog(connection)
            try:
                with watchdog:
                    execute(connection, record.sql)
                if not record.expect_ok:
                    expected = describe_error(record.sqlstate, record.message, record.position, record.hint)
                    mismatches.append(f"{header}\n    expected: {expected}\n    actual:   succeeded")
                continue
            except psycopg.Error as error:
                caught = error
            if watchdog.fired.is_set():
                mismatches.append(f"{header}\n    hung: no answer in {STATEMENT_TIMEOUT_S} s ({caught})")
            if connection.closed or connection.broken:
                mismatches.append(f"{header}\n    the connection died (server crash?): {caught}")
                return len(records), mismatches  # later records would only report the same loss
            diag = caught.diag
            position = int(diag.statement_position) if diag.statement_position else None
            actual = (caught.sqlstate, diag.message_primary, position, diag.message_hint)
            if record.expect_ok:
                mismatches.append(f"{header}\n    expected: success\n    actual:   {describe_error(*actual)}")
            elif actual != (record.sqlstate, record.message, record.position, record.hint):
                expected = describe_error(record.sqlstate, record.message, record.position, record.hint)
                mismatches.append(f"{header}\n    expected: {expected}\n    actual:   {describe_error(*actual)}")
            try:
                alive = connection.execute("SELECT 1").fetchone() == (1,)
            except psycopg.Error as error:
                alive = False
                if connection.closed or connection.broken:
                    mismatches.append(f"{header}\n    the connection died after the error: {error}")
                    return len(records), mismatches
            if not alive:
                mismatches.append(f"{header}\n    SELECT 1 failed after the error")
    finally:
        connection.close()
    return len(records), mismatches


def check_file(conninfo, path, database):
    count, mismatches = run_file(conninfo, path, database)
    assert count > 0, f"{path}: no records for {database}"
    assert not mismatches, (f"{len(mismatches)} of {count} records of {path.name} differ on {database}:\n\n"
                            + "\n\n".join(mismatches))


def test_there_are_error_files():
    assert TEST_FILES, f"no .test files in {ERRORS_DIR}"
    for path in TEST_FILES:
        error_records(path)  # a malformed file fails here, naming the line


@pytest.mark.parametrize("path", TEST_FILES, ids=[path.name for path in TEST_FILES])
def test_file_against_shoal(cluster, path):
    check_file(cluster.conninfo(), path, "shoal")


POSTGRES_DSN = os.environ.get("SHOAL_SQL_ERRORS_POSTGRES_DSN")


@pytest.mark.parametrize("path", TEST_FILES, ids=[path.name for path in TEST_FILES])
def test_file_against_postgresql(postgres, path):
    """The expected results are PostgreSQL's: the scratch PostgreSQL 15 (or the one SHOAL_SQL_ERRORS_POSTGRES_DSN names) gives
    them too."""
    check_file(POSTGRES_DSN or postgres.conninfo(), path, "postgresql")
