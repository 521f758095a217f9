"""Writes the expected blocks of SQL logic files from PostgreSQL 15's answers, so that none is typed by hand.

    .venv/bin/python tests/sql/generate_expected.py tests/sql/logic/functions_math.test [more.test ...]
    .venv/bin/python tests/sql/generate_expected.py --dsn "host=... dbname=..." tests/sql/logic/x.test

Without --dsn, it starts a scratch PostgreSQL 15 with Debian's binaries (/usr/lib/postgresql/15/bin: initdb and
pg_ctl; as the `postgres` user through runuser when run as root) in a temporary directory: the C locale and UTF8,
as Shoal compares text byte-wise and changes the case of ASCII letters only, TimeZone UTC, listening only on a
unix socket in that directory. It stops the server and deletes the directory at the end, also after a failure.
With --dsn it uses that server's database instead (it must be PostgreSQL 15 with the C locale), whose tables the
files then create and drop.

Each file runs on one autocommit psycopg connection of its own, its records in order, as
tests/integration/test_sql_logic.py runs them; the file is parsed and values are rendered by
tests/integration/sql_test_files.py, so the text is the one the test compares. Each record's expected block is
rewritten in place:

- `query [rowsort|nosort]`: the rendered rows after `----` (nothing after it for no rows), in PostgreSQL's order,
  or sorted as the test sorts them for `rowsort`. A query that fails on PostgreSQL becomes a `statement error`
  record, with a warning; a value with a line break, which the format cannot hold, or one psycopg cannot read
  (a date Python cannot hold: cast it to text) stops the script.
- `statement ok` / `statement error`: `statement ok` when PostgreSQL runs it, else `statement error <SQLSTATE>`,
  `----` and PostgreSQL's primary message.
- Records PostgreSQL does not run (`onlyif shoal`, `skipif postgresql`) are left as they are, and so are comments,
  blank lines, the SQL and the sort mode.

Running it again over generated files changes nothing (it says which files it rewrote). It warns about a query
without ORDER BY that returns several rows in `nosort` mode, whose order PostgreSQL does not fix. Warnings name
records by their line in the file as it was read.
"""

import argparse
import os
import pathlib
import pwd
import shutil
import subprocess
import sys
import tempfile

import psycopg

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "integration"))

from sql_test_files import FormatError, execute, parse_file, render_row  # noqa: E402

PG_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")
PG_PORT = 5432  # only names the socket file in the scratch directory: no TCP listener


class ScratchPostgres:
    """A PostgreSQL 15 cluster of its own in a temporary directory, reached over a unix socket there."""

    def __init__(self):
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="shoal-generate-expected-"))
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else pwd.getpwuid(os.geteuid()).pw_name
        self.started = False

    def _run(self, *arguments):
        # initdb and postgres refuse to run as root: run them as the postgres user Debian's package created.
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        result = subprocess.run(prefix + [str(argument) for argument in arguments], capture_output=True, text=True,
                                timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, arguments))} failed ({result.returncode}):\n{result.stdout}"
                               f"{result.stderr}")

    def start(self):
        if self.as_root:
            entry = pwd.getpwnam("postgres")
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        data = self.directory / "data"
        self._run(PG_BIN / "initdb", "-D", data, "-A", "trust", "-U", self.user, "--no-sync", "--locale=C",
                  "--encoding=UTF8")
        self._run(PG_BIN / "pg_ctl", "-D", data, "-l", self.directory / "log", "-w", "-o",
                  f"-p {PG_PORT} -k {self.directory} -c listen_addresses='' -c fsync=off -c TimeZone=UTC", "start")
        self.started = True
        return self

    def conninfo(self):
        return f"host={self.directory} port={PG_PORT} user={self.user} dbname=postgres"

    def stop(self):
        if self.started:
            try:
                self._run(PG_BIN / "pg_ctl", "-D", self.directory / "data", "-m", "fast", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired) as error:
                print(f"warning: stopping the scratch PostgreSQL: {error}", file=sys.stderr)
        shutil.rmtree(self.directory, ignore_errors=True)


def record_end(lines, record):
    """The index after the last line of `record` (its header, SQL and expected block) in the file's `lines`."""
    index = record.line  # the line after the header (record.line is 1-based)
    while index < len(lines) and lines[index].strip() and lines[index].rstrip() != "----":
        index += 1
    if index >= len(lines) or lines[index].rstrip() != "----":
        return index
    index += 1
    if record.kind == "query":
        while index < len(lines) and lines[index].strip():
            index += 1
        return index
    index += 1  # the message
    if index < len(lines) and lines[index].startswith("hint: "):
        index += 1
    return index


def answer(connection, record):
    """What PostgreSQL answers to the record's SQL: ("rows", rendered rows or None) or ("error", SQLSTATE, message)."""
    try:
        rows = execute(connection, record.sql)
    except psycopg.Error as error:
        if connection.closed or connection.broken:
            raise RuntimeError(f"{record.where()}: the connection to PostgreSQL died: {error}") from error
        if error.sqlstate is None:  # psycopg's own, such as a date Python cannot hold: the test could not run it
            raise RuntimeError(f"{record.where()}: psycopg cannot read PostgreSQL's answer ({error}); cast the "
                               f"value to text") from error
        return ("error", error.sqlstate, error.diag.message_primary)
    return ("rows", None if rows is None else [render_row(row) for row in rows])


def new_block(record, header, outcome):
    """The record's lines from its header to the end of its expected block, from PostgreSQL's outcome; `header` is
    its header line as written (a query keeps its sort mode)."""
    sql_lines = record.sql.split("\n")
    if outcome[0] == "error":
        _, sqlstate, message = outcome
        if record.kind == "query":
            print(f"warning: {record.where()}: the query fails on PostgreSQL ({sqlstate} {message}); written as a "
                  f"`statement error` record", file=sys.stderr)
        if not message or "\n" in message:
            raise RuntimeError(f"{record.where()}: PostgreSQL's message {message!r} does not fit on one line")
        return [f"statement error {sqlstate}", *sql_lines, "----", message]
    rows = outcome[1]
    if record.kind != "query":
        return ["statement ok", *sql_lines]
    if rows is None:
        raise RuntimeError(f"{record.where()}: a `query` record whose SQL returns no result set on PostgreSQL")
    for row in rows:
        if "\n" in row or "\r" in row:
            raise RuntimeError(f"{record.where()}: a value has a line break, which the format cannot hold: {row!r}")
    if record.sort_mode == "nosort" and len(rows) > 1 and "ORDER BY" not in " ".join(record.sql.upper().split()):
        print(f"warning: {record.where()}: {len(rows)} rows without ORDER BY in `nosort` mode; use `query rowsort`",
              file=sys.stderr)
    if record.sort_mode == "rowsort":
        rows = sorted(rows)  # as the test sorts them: the file does not depend on PostgreSQL's order
    return [header.rstrip(), *sql_lines, "----", *rows]


def generate(path, conninfo):
    """Rewrites the expected blocks of one file; returns whether its text changed."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    records = parse_file(path)
    for record in records:
        if record.position is not None or record.hint is not None:
            raise FormatError(f"{record.where()}: positions and hints are not generated (logic files check neither)")
    output = []
    done = 0  # lines of `lines` already copied to `output`
    with psycopg.connect(conninfo, autocommit=True, prepare_threshold=None) as connection:
        for record in records:
            start = record.line - 1
            end = record_end(lines, record)
            output.extend(lines[done:start])
            if record.applies_to("postgresql"):
                output.extend(new_block(record, lines[start], answer(connection, record)))
            else:
                output.extend(lines[start:end])
            done = end
    output.extend(lines[done:])
    new_text = "\n".join(output) + "\n"
    if new_text == text:
        return False
    path.write_text(new_text, encoding="utf-8")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("files", nargs="+", type=pathlib.Path, help=".test files to rewrite in place")
    parser.add_argument("--dsn", help="an existing PostgreSQL 15 (C locale) to use instead of a scratch one")
    arguments = parser.parse_args()
    server = None if arguments.dsn else ScratchPostgres()
    try:
        conninfo = arguments.dsn or server.start().conninfo()
        with psycopg.connect(conninfo, autocommit=True) as connection:
            version = connection.info.server_version
        if version // 10000 != 15:
            raise RuntimeError(f"the server is PostgreSQL {version}, not 15")
        for path in arguments.files:
            changed = generate(path, conninfo)
            print(f"{path}: {'rewritten' if changed else 'unchanged'} ({len(parse_file(path))} records)")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
