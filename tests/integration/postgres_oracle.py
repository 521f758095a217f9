"""A scratch PostgreSQL 15, started once per test session, as the oracle for what Shoal must answer: the
tests run the same statement on both and compare, never against results typed in by hand."""

import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import tempfile

import psycopg
import pytest

PG_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")


class ScratchPostgres:
    def __init__(self):
        self.directory = pathlib.Path(tempfile.mkdtemp(prefix="shoal-pg-oracle-"))
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.user = None

    def _run(self, *arguments):
        # initdb and postgres refuse to run as root: run them as the postgres user the package created.
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(prefix + [str(argument) for argument in arguments], check=True, capture_output=True,
                       timeout=120)

    def start(self):
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        data = self.directory / "data"
        # Collation C, as Shoal compares text byte by byte (and cases only ASCII letters).
        self._run(PG_BIN / "initdb", "-D", data, "-A", "trust", "-U", self.user, "--no-sync", "--locale=C",
                  "--encoding=UTF8")
        self._run(PG_BIN / "pg_ctl", "-D", data, "-l", self.directory / "log", "-w", "-o",
                  f"-p {self.port} -k {self.directory} -c listen_addresses='' -c fsync=off", "start")
        return self

    def conninfo(self, dbname=None):
        return f"host={self.directory} port={self.port} user={self.user} dbname={dbname or self.user}"

    def stop(self):
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(prefix + [str(PG_BIN / "pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate",
                                 "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres():
    """The scratch PostgreSQL 15; fails (never skips) when it cannot start."""
    server = ScratchPostgres().start()
    yield server
    server.stop()


def answer(conninfo, sql):
    """What a server answers to `sql`: ("rows", column names, rows) or ("error", SQLSTATE)."""
    with psycopg.connect(conninfo, autocommit=True) as connection:
        try:
            cursor = connection.execute(sql)
        except psycopg.Error as error:
            return ("error", error.sqlstate)
        if cursor.description is None:
            return ("rows", None, None)
        return ("rows", [column.name for column in cursor.description], cursor.fetchall())



def session_answers(conninfo, statements):
    """What a server answers to each of `statements`, run one after another in one session (autocommit, so
    that BEGIN and COMMIT are the statements'): (sql, command tag, column names, rows) or (sql, "error",
    SQLSTATE)."""
    answers = []
    with psycopg.connect(conninfo, autocommit=True) as connection:
        for sql in statements:
            try:
                cursor = connection.execute(sql)
            except psycopg.Error as error:
                answers.append((sql, "error", error.sqlstate))
                continue
            rows = cursor.fetchall() if cursor.description else None
            columns = [column.name for column in cursor.description] if cursor.description else None
            answers.append((sql, cursor.statusmessage, columns, rows))
    return answers


def shoal_conninfo(cluster):
    """How the oracle tests reach the shared Shoal cluster: as user postgres, like the scratch PostgreSQL."""
    return f"host=127.0.0.1 port={cluster.port} user=postgres dbname=postgres connect_timeout=10"


def set_up_both(cluster, postgres, statements):
    """Runs `statements` (each must succeed) on the shared Shoal cluster and on the scratch PostgreSQL;
    returns the two conninfos, Shoal's first."""
    shoal = shoal_conninfo(cluster)
    for conninfo in (shoal, postgres.conninfo()):
        for sql, *outcome in session_answers(conninfo, statements):
            assert outcome[0] != "error", (conninfo, sql, outcome)
    return shoal, postgres.conninfo()


def both_servers_fixture(setup, teardown):
    """A module fixture giving (Shoal's conninfo, PostgreSQL's) after running `setup` on both; `teardown` runs
    on Shoal afterwards (the scratch PostgreSQL goes away with its data)."""
    @pytest.fixture(scope="module")
    def both(cluster, postgres):
        shoal, oracle = set_up_both(cluster, postgres, setup)
        yield shoal, oracle
        session_answers(shoal, teardown)
    return both
