"""Query results of the SQL engine against PostgreSQL 15's, through psycopg: sqllogictest-style files.

Runs every tests/sql/logic/*.test file twice, on a cluster of 1 worker and on one of 3 workers (each started once
for this module), each run on one autocommit connection, its records in order. The format is the one
sql_test_files.py reads (shared with test_sql_errors.py):

    statement ok
    CREATE TABLE lg_t (a integer, b text)

    statement error 22012
    SELECT 1 / 0
    ----
    division by zero

    query rowsort
    SELECT a, b FROM lg_t
    ----
    1|x
    2|NULL

- `statement ok` must succeed. `statement error <SQLSTATE>` must fail with that SQLSTATE, and with that primary
  message when `----` and a message follow. Positions and hints are tests/sql/errors' business, not checked here.
- `query` runs its SQL and compares the rows; `query rowsort` sorts the rendered rows of both sides first, for
  queries without an ORDER BY that fixes the order. Values are rendered by `sql_test_files.render_value`: NULL,
  booleans t/f, decimals with their exact scale (1.50), ISO dates, strings without trailing spaces (CHAR(n) pads
  them) and `(empty)` for an empty string; columns are joined with `|`. No rows: `----` then a blank line.
- `onlyif`/`skipif` `shoal`/`postgresql`. The expected answers are PostgreSQL 15's, written by
  tests/sql/generate_expected.py and never by hand: it starts a scratch PostgreSQL 15 (Debian's postgresql-15),
  runs each file's records in order and rewrites their expected blocks in place, leaving records under
  `onlyif shoal` alone (`.venv/bin/python tests/sql/generate_expected.py tests/sql/logic/<file>.test ...`; run
  again, it changes nothing). Only a deliberate, documented limitation of Shoal (FULL JOIN not executed yet,
  date ± interval being a date) may hold a Shoal answer of its own under `onlyif shoal`, beside PostgreSQL's
  under `onlyif postgresql`.
- A wrong answer of Shoal keeps PostgreSQL's expected result and lives in a `known_bugs_*.test` file, whose test is
  marked xfail(strict=True) by KNOWN_BUGS below, which lists the failing records. So the other files pass outright;
  a failing record that is not listed still fails its known-bugs file's test; and once every listed bug is fixed
  the strict xfail fails, asking to move the records to the file of their theme.
- Strings compare and sort byte-wise in Shoal, and upper, lower and initcap change ASCII letters only, so the
  PostgreSQL database must use the C locale (`initdb --locale=C`, as generate_expected.py and the scratch server
  do, or `CREATE DATABASE ... TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`).

With SHOAL_SQL_LOGIC_POSTGRES_DSN set (for example `host=127.0.0.1 port=5432 user=postgres dbname=postgres`),
test_file_against_postgresql runs the same files against that PostgreSQL server as database `postgresql`, to
check that the expected answers are really PostgreSQL's.
"""

import os

import psycopg
import pytest

from cluster import LocalCluster
from sql_test_files import SQL_DIR, STATEMENT_TIMEOUT_S, FormatError, Watchdog, execute, parse_file, render_row

LOGIC_DIR = SQL_DIR / "logic"
TEST_FILES = sorted(LOGIC_DIR.glob("*.test"))

# known_bugs_*.test files: the Shoal bugs their records document, and the lines of exactly the records that fail on
# Shoal. Each of these files fails against Shoal until every bug in it is fixed (strict xfail), and passes against
# PostgreSQL. test_there_are_logic_files checks that the lines still start records; check_file, that no other record
# fails and that every listed one still does.
KNOWN_BUGS = {
    "known_bugs_json.test": (
        "GROUP BY, DISTINCT and count(DISTINCT) of jsonb give 0A000 (jsonb groups by structure, not text); "
        "::numeric keeps 16 fraction digits and 38 digits at most; ORDER BY a jsonb output column of a UNION, "
        "jsonb || and casts of jsonb numbers of more than 38 digits give 0A000",
        [72, 77, 82, 87, 111, 116, 124, 134, 144, 150, 158, 163]),
    "known_bugs_char_text.test": (
        "CHAR(n) against VARCHAR compares as text, not as bpchar (=, IN, join, UNION)",
        [28, 37, 45, 54]),
    "known_bugs_in_subqueries.test": (
        "a row-valued IN subquery fails with 42601",
        [40, 45]),
    "known_bugs_datetime.test": (
        "dates of 4714 BC rejected; date input '20240506' and 'May 6, 2024' rejected; SET TIME ZONE INTERVAL with "
        "the sign reversed; to_char of BC years astronomical; to_char ignores RM and FF1-FF6",
        [22, 27, 36, 45, 51]),
    "known_bugs_functions.test": (
        "float8::numeric keeps 17 digits; RE2's messages for bad patterns; float8 underflow "
        "gives 0; unconstrained numeric columns and text::numeric have a fixed scale; '42'::date is 22007; varchar(n) "
        "rejects trailing spaces; COALESCE/GREATEST of date and timestamp is 42804; CASE's 42804 names the types in "
        "reverse; an exactly-zero numeric variance has scale 16",
        [39, 45, 51, 57, 65, 73, 79, 83, 92, 98]),
    "known_bugs_dropped_columns.test": (
        "after ALTER TABLE ... DROP COLUMN, ordinal_position and attnum number the columns 1..n again, where "
        "PostgreSQL keeps each column's number and leaves a gap",
        [19, 27]),
    "known_bugs_numeric_scale.test": (
        "numeric division and AVG keep 16 fractional digits, not PostgreSQL's 16 significant ones; CASE, COALESCE "
        "and UNION pad values to one scale (and so does lag with a default); n / 3 and avg(n) of numeric(38,0) overflow",
        [28, 34, 40, 46, 52, 58, 67, 74, 82, 88, 95]),
}


def known_bug_reason(name):
    description, lines = KNOWN_BUGS[name]
    return f"Shoal bug: {description} (tests/sql/logic/{name}, records at lines {', '.join(map(str, lines))})"


def logic_records(path):
    """The records of one logic file; positions and hints are rejected (tests/sql/errors checks those)."""
    records = parse_file(path)
    for record in records:
        if record.kind == "error" and (record.position is not None or record.hint is not None):
            raise FormatError(f"{record.where()}: logic files check an error's SQLSTATE and message only")
    return records


def show_rows(rows):
    return "\n".join(f"        {row}" for row in rows) if rows else "        (no rows)"


def run_file(conninfo, path, database):
    """Runs one file's records for `database`; returns (number of records run, list of (line, mismatch report))."""
    records = [record for record in logic_records(path) if record.applies_to(database)]
    mismatches = []

    def mismatch(record, text):
        mismatches.append((record.line, f"{record.where()}\n    SQL: {record.sql}\n    {text}"))

    def expected_error(record):
        return f"error {record.sqlstate}" + ("" if record.message is None else f" {record.message!r}")

    # prepare_threshold=None: every statement goes as written, and psycopg never sends DEALLOCATE ALL of its own.
    connection = psycopg.connect(conninfo, autocommit=True, prepare_threshold=None)
    try:
        for record in records:
            watchdog = Watchdog(connection)
            try:
                with watchdog:
                    rows = execute(connection, record.sql)
            except psycopg.Error as error:
                caught = error
            else:
                if record.kind == "error":
                    mismatch(record, f"expected: {expected_error(record)}\n    actual:   succeeded")
                elif record.kind == "query" and rows is None:
                    mismatch(record, "expected rows, but the statement returned no result set")
                elif record.kind == "query":
                    actual = [render_row(row) for row in rows]
                    expected = list(record.rows)
                    if record.sort_mode == "rowsort":
                        actual.sort()
                        expected.sort()
                    if actual != expected:
                        mismatch(record, f"expected ({len(expected)} rows):\n{show_rows(expected)}\n"
                                         f"    actual ({len(actual)} rows):\n{show_rows(actual)}")
                continue
            if watchdog.fired.is_set():
                mismatch(record, f"hung: no answer in {STATEMENT_TIMEOUT_S} s ({caught})")
            if connection.closed or connection.broken:
                mismatch(record, f"the connection died (server crash?): {caught}")
                return len(records), mismatches  # later records would only report the same loss
            actual = f"error {caught.sqlstate} {caught.diag.message_primary!r}"
            if record.kind != "error":
                mismatch(record, f"expected: {'rows' if record.kind == 'query' else 'success'}\n    actual:   {actual}")
            elif caught.sqlstate != record.sqlstate or (record.message is not None
                                                         and caught.diag.message_primary != record.message):
                mismatch(record, f"expected: {expected_error(record)}\n    actual:   {actual}")
            try:
                alive = connection.execute("SELECT 1").fetchone() == (1,)
            except psycopg.Error as error:
                alive = False
                if connection.closed or connection.broken:
                    mismatch(record, f"the connection died after the error: {error}")
                    return len(records), mismatches
            if not alive:
                mismatch(record, "SELECT 1 failed after the error")
    finally:
        connection.close()
    return len(records), mismatches


class KnownBugsStillFail(AssertionError):
    """The records of a known_bugs_*.test file that fail on Shoal are all listed in KNOWN_BUGS: the expected xfail."""


def report(path, database, count, mismatches):
    return (f"{len(mismatches)} of {count} records of {path.name} differ on {database}:\n\n"
            + "\n\n".join(text for _, text in mismatches))


def check_file(conninfo, path, database):
    count, mismatches = run_file(conninfo, path, database)
    assert count > 0, f"{path}: no records for {database}"
    if database == "shoal" and path.name in KNOWN_BUGS:
        listed = set(KNOWN_BUGS[path.name][1])
        unlisted = [(line, text) for line, text in mismatches if line not in listed]
        assert not unlisted, "records not listed in KNOWN_BUGS fail: " + report(path, database, count, unlisted)
        fixed = sorted(listed - {line for line, _ in mismatches})
        assert not fixed or not mismatches, (f"the records at lines {fixed} of {path.name} pass now: move them to the "
                                             f"file of their theme and out of KNOWN_BUGS")
        if mismatches:
            raise KnownBugsStillFail(report(path, database, count, mismatches))
        return  # every bug fixed: the strict xfail fails this; move the records to the files of their themes
    assert not mismatches, report(path, database, count, mismatches)


def test_there_are_logic_files():
    assert TEST_FILES, f"no .test files in {LOGIC_DIR}"
    for path in TEST_FILES:
        logic_records(path)  # a malformed file fails here, naming the line
    bug_files = {path.name for path in TEST_FILES if path.name.startswith("known_bugs_")}
    assert bug_files == set(KNOWN_BUGS), "every known_bugs_*.test file, and only those, needs a KNOWN_BUGS entry"
    for name, (_, lines) in KNOWN_BUGS.items():
        record_lines = {record.line for record in logic_records(LOGIC_DIR / name)}
        assert set(lines) <= record_lines, (f"KNOWN_BUGS[{name!r}] lists lines that start no record: "
                                            f"{sorted(set(lines) - record_lines)}")


def shoal_case(path):
    if path.name in KNOWN_BUGS:
        # raises=: only the listed records failing is the expected failure; any other failure fails the test.
        marks = pytest.mark.xfail(strict=True, raises=KnownBugsStillFail, reason=known_bug_reason(path.name))
        return pytest.param(path, id=path.name, marks=marks)
    return pytest.param(path, id=path.name)


WORKER_COUNTS = (1, 3)


@pytest.fixture(scope="module", params=WORKER_COUNTS, ids=[f"{count}-worker" for count in WORKER_COUNTS])
def logic_cluster(request, tmp_path_factory):
    """A cluster of 1 and one of 3 workers, each started once for this module: every file runs on both."""
    local = LocalCluster(tmp_path_factory.mktemp(f"logic-{request.param}-workers"), workers=request.param).start()
    yield local
    assert local.stop() == 0, "shoal local should exit 0 on SIGTERM"


@pytest.mark.parametrize("path", [shoal_case(path) for path in TEST_FILES])
def test_file_against_shoal(logic_cluster, path):
    check_file(logic_cluster.conninfo(), path, "shoal")


POSTGRES_DSN = os.environ.get("SHOAL_SQL_LOGIC_POSTGRES_DSN")


@pytest.mark.parametrize("path", TEST_FILES, ids=[path.name for path in TEST_FILES])
def test_file_against_postgresql(postgres, path):
    """The expected results are PostgreSQL's: the scratch PostgreSQL 15 (or the one SHOAL_SQL_LOGIC_POSTGRES_DSN
    names) gives them too."""
    check_file(POSTGRES_DSN or postgres.conninfo(), path, "postgresql")
