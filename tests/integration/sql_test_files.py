"""Reading and running the SQL test files of tests/sql/<area>/*.test (sqllogictest-like), shared by their runners.

A file is a list of records separated by blank lines; `#` starts a comment line.

    statement ok
    CREATE TABLE t (a integer, b text)

    statement error 42703 position 8
    SELECT nope FROM t
    ----
    column "nope" does not exist
    hint: Perhaps you meant to reference the column "t.b".

    query rowsort
    SELECT a, b FROM t
    ----
    1|x
    2|NULL

- `statement ok` / `statement error <SQLSTATE> [position <N>]`: the SQL runs from the line after the `statement`
  line to a `----` line or a blank line. An error record may be followed by `----`, the exact primary message and
  optionally `hint: <text>`. Which of these a runner requires or checks is up to the runner.
- `query [rowsort|nosort]`: the SQL runs to a `----` line; the expected rows follow, one a line, up to a blank line
  or the end of the file (an empty result is `----` then a blank line). `nosort` (the default) compares rows in
  order, for queries whose ORDER BY fixes it; `rowsort` sorts the rendered rows of both sides first.
  `render_row` says how values are written.
- `onlyif <database>` / `skipif <database>` before a record limit it to (or exclude it from) one database, as in
  sqllogictest. The databases are `shoal` and `postgresql`.
"""

import dataclasses
import datetime
import decimal
import pathlib
import threading

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SQL_DIR = REPO_ROOT / "tests" / "sql"
DATABASES = ("shoal", "postgresql")
STATEMENT_TIMEOUT_S = 30
SORT_MODES = ("nosort", "rowsort")


@dataclasses.dataclass
class Record:
    path: pathlib.Path
    line: int  # 1-based line of the `statement` or `query` line
    kind: str  # "ok", "error" or "query"
    sql: str = ""
    sqlstate: str = None
    position: int = None
    message: str = None
    hint: str = None
    sort_mode: str = "nosort"
    rows: list = dataclasses.field(default_factory=list)  # a query's expected rows, rendered
    onlyif: set = dataclasses.field(default_factory=set)
    skipif: set = dataclasses.field(default_factory=set)

    @property
    def expect_ok(self):
        return self.kind == "ok"

    def applies_to(self, database):
        return (not self.onlyif or database in self.onlyif) and database not in self.skipif

    def where(self):
        path = self.path.resolve()
        return f"{path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path}:{self.line}"


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

    def read_sql():
        nonlocal index
        sql_lines = []
        while index < len(lines) and lines[index].strip() and lines[index].rstrip() != "----":
            sql_lines.append(lines[index].rstrip())
            index += 1
        if not sql_lines:
            fail("the record has no SQL")
        return "\n".join(sql_lines)

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
        record = Record(path=path, line=index + 1, kind="", onlyif=onlyif, skipif=skipif)
        onlyif, skipif = set(), set()
        if words[0] == "query":
            record.kind = "query"
            if len(words) > 2 or (len(words) == 2 and words[1] not in SORT_MODES):
                fail(f"expected `query [{'|'.join(SORT_MODES)}]`")
            if len(words) == 2:
                record.sort_mode = words[1]
            index += 1
            record.sql = read_sql()
            if index >= len(lines) or lines[index].rstrip() != "----":
                fail("a `query` needs `----` after its SQL (then its rows, or a blank line for none)")
            index += 1
            while index < len(lines) and lines[index].strip():
                record.rows.append(lines[index].rstrip())
                index += 1
            records.append(record)
            continue
        if words[0] != "statement":
            fail(f"expected a `statement` or `query` record, not {line!r}")
        if words[1:] == ["ok"]:
            record.kind = "ok"
        elif len(words) >= 3 and words[1] == "error":
            record.kind = "error"
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
        record.sql = read_sql()
        has_result = index < len(lines) and lines[index].rstrip() == "----"
        if record.kind == "ok":
            if has_result:
                fail("`statement ok` takes no `----` section")
        elif has_result:
            if index + 1 >= len(lines) or not lines[index + 1].strip():
                fail("`----` after `statement error` needs the expected message on the next line")
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


def render_value(value):
    """A value as psycopg returns it, as text: NULL, t/f, exact decimals, ISO dates, strings without trailing
    spaces (CHAR(n) pads them), and `(empty)` for an empty string, which would otherwise end the rows."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, decimal.Decimal):
        return format(value, "f")  # the exact digits and scale, never an exponent
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        text = value.rstrip(" ")
        return text if text else "(empty)"
    return str(value)


def render_row(row):
    return "|".join(render_value(value) for value in row)


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
    """Runs `sql` and drains every result, including those of later statements in a multi-statement string; returns
    the rows of the last result that had any columns (None if none had)."""
    cursor = connection.execute(sql)
    rows = None
    while True:
        if cursor.description:
            rows = cursor.fetchall()
        if not cursor.nextset():
            break
    return rows


def describe_error(sqlstate, message, position, hint):
    text = f"{sqlstate} {message!r} position={position}"
    return text + (f" hint={hint!r}" if hint is not None else " (no hint)")
