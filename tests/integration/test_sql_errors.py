"""Error cases of the SQL front end: each statement's SQLSTATE, message, HINT and position, through psycopg.

Runs every tests/sql/errors/*.test file against the shared cluster. The files use a sqllogictest-like format:

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
- `statement error <SQLSTATE> [position <N>]` is followed by `----`, the exact primary message, and optionally
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

import dataclasses
import os
import pathlib
import threading

import psycopg
import pytest

ERRORS_DIR = pathlib.Path(__file__).resolve().parents[1] / "sql" / "errors"
TEST_FILES = sorted(ERRORS_DIR.glob("*.test"))
DATABASES = ("shoal", "postgresql")
STATEMENT_TIMEOUT_S = 30


@dataclasses.dataclass
class Record:
    path: pathlib.Path
    line: int  # 1-based line of the `statement` line
    sql: str
    expect_ok: bool
    sqlstate: str = None
    position: int = None
    message: str = None
    hint: str = None
    onlyif: set = dataclasses.field(default_factory=set)
    skipif: set = dataclasses.field(default_factory=set)

    def applies_to(self, database):
        return (not self.onlyif or database in self.onlyif) and database not in self.skipif

    def where(self):
        return f"{self.path.relative_to(ERRORS_DIR.parents[2])}:{self.line}"


class FormatError(Exception):
    pass


def parse_file(path):
    """The records of one .test file; raises FormatError naming the line of a malformed record."""
    lines = path.read_text(encoding="utf-8").splitlines()
    records = []
    onlyif, skipif = set(), set()
    index = 0

    def fail(message):
        raise FormatError(f"{path}:{index + 1}: {message}")

    while index < len(lines):
        line = lines[index].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            index += 1
            continue
        words = line.split()
        if words[0] in ("onlyif", "skipif"):
            if len(words) != 2 or words[1] not in DATABASES:
                fail(f"expected `{words[0]} <database>` with a database of {DATABASES}")
            (onlyif if words[0] == "onlyif" else skipif).add(words[1])
            index += 1
            continue
        if words[0] != "statement":
            fail(f"expected a `statement` record, not {line!r}")
        record = Record(path=path, line=index + 1, sql="", expect_ok=False, onlyif=onlyif, skipif=skipif)
        onlyif, skipif = set(), set()
        if words[1:] == ["ok"]:
            record.expect_ok = True
        elif len(words) >= 3 and words[1] == "error":
            record.sqlstate = words[2]
            if len(record.sqlstate) != 5:
                fail(f"SQLSTATE {record.sqlstate!r} is not five characters")
            rest = words[3:]
            if rest:
                if len(rest) != 2 or rest[0] != "position" or not rest[1].isdigit():
                    fail("expected `statement error <SQLSTATE> [position <N>]`")
                record.position = int(rest[1])
        else:
            fail("expected `statement ok` or `statement error <SQLSTATE> [position <N>]`")
        index += 1
        sql_lines = []
        while index < len(lines) and lines[index].strip() and lines[index].rstrip() != "----":
            sql_lines.append(lines[index].rstrip())
            index += 1
        if not sql_lines:
            fail("the record has no SQL")
        record.sql = "\n".join(sql_lines)
        has_result = index < len(lines) and lines[index].rstrip() == "----"
        if record.expect_ok:
            if has_result:
                fail("`statement ok` takes no `----` section")
        else:
            if not has_result or index + 1 >= len(lines) or not lines[index + 1].strip():
                fail("`statement error` needs `----` and the expected message on the next line")
            record.message = lines[index + 1]
            index += 2
            if index < len(lines) and lines[index].startswith("hint: "):
                record.hint = lines[index][len("hint: "):]
                index += 1
            if index < len(lines) and lines[index].strip():
                fail(f"expected a blank line after the expected error, not {lines[index]!r}")
        records.append(record)
    if onlyif or skipif:
        fail("onlyif/skipif at the end of the file, with no record after it")
    return records


class Watchdog:
    """Cancels the statement running on `connection` after STATEMENT_TIMEOUT_S; `fired` tells a hang."""

    def __init__(self, connection):
        self.fired = threading.Event()
        self.connection = connection
        self.timer = threading.Timer(STATEMENT_TIMEOUT_S, self._cancel)

    def _cancel(self):
        self.fired.set()
        self.connection.cancel_safe()

    def __enter__(self):
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        return False


def execute(connection, sql):
    """Runs `sql` and drains every result, including those of later statements in a multi-statement string."""
    cursor = connection.execute(sql)
    while True:
        if cursor.description:
            cursor.fetchall()
        if not cursor.nextset():
            break


def describe(sqlstate, message, position, hint):
    text = f"{sqlstate} {message!r} position={position}"
    return text + (f" hint={hint!r}" if hint is not None else " (no hint)")


def run_file(conninfo, path, database):
    """Runs one file's records for `database`; returns (number of records run, list of mismatch reports)."""
    records = [record for record in parse_file(path) if record.applies_to(database)]
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
                    expected = describe(record.sqlstate, record.message, record.position, record.hint)
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
                mismatches.append(f"{header}\n    expected: success\n    actual:   {describe(*actual)}")
            elif actual != (record.sqlstate, record.message, record.position, record.hint):
                expected = describe(record.sqlstate, record.message, record.position, record.hint)
                mismatches.append(f"{header}\n    expected: {expected}\n    actual:   {describe(*actual)}")
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
        parse_file(path)  # a malformed file fails here, naming the line


@pytest.mark.parametrize("path", TEST_FILES, ids=[path.name for path in TEST_FILES])
def test_file_against_shoal(cluster, path):
    check_file(cluster.conninfo(), path, "shoal")


POSTGRES_DSN = os.environ.get("SHOAL_SQL_ERRORS_POSTGRES_DSN")


@pytest.mark.skipif(not POSTGRES_DSN, reason="set SHOAL_SQL_ERRORS_POSTGRES_DSN to check the files against PostgreSQL")
@pytest.mark.parametrize("path", TEST_FILES, ids=[path.name for path in TEST_FILES])
def test_file_against_postgresql(path):
    check_file(POSTGRES_DSN, path, "postgresql")
