"""Story: a DBA opens psql next to a busy dashboard and asks pg_stat_activity who is connected and what runs.
She sees every session of the coordinator: its pid (pg_backend_pid()), user, database, application_name and
client address; an idle session's last query; a session idle in a transaction block with its xact_start; a
running query as 'active', with its text, while it runs; and a closed session no more."""

import threading
import time

import psycopg
import pytest

from cluster import wait_until
from postgres_oracle import answer

# A cross join of seconds on 2 cores: long enough to be seen running.
LONG_QUERY = "SELECT count(*) FROM generate_series(1, 4000) a, generate_series(1, 4000) b WHERE a + b = 4001"


def activity(conninfo, pid):
    with psycopg.connect(conninfo, autocommit=True) as watcher:
        return watcher.execute(
            "SELECT state, query, application_name, usename, datname, client_addr, client_port > 0, "
            "backend_start <= query_start, query_start <= state_change OR state = 'active', xact_start, "
            "backend_type, backend_start <= now() "
            "FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()


def shoal_conninfo(cluster, application=None):
    conninfo = f"host=127.0.0.1 port={cluster.port} user=shoal dbname=shoal connect_timeout=10"
    return conninfo + (f" application_name={application}" if application else "")


def test_a_session_sees_itself_running(cluster):
    with psycopg.connect(shoal_conninfo(cluster, "psql"), autocommit=True) as connection:
        row = connection.execute(
            "SELECT pid = pg_backend_pid(), state, query, application_name, datname, usename, backend_type, "
            "xact_start = query_start, extract(epoch FROM now()) - extract(epoch FROM xact_start) BETWEEN -1 AND 1 "
            "FROM pg_stat_activity "
            "WHERE pid = pg_backend_pid()").fetchone()
    assert row[:7] == (True, "active", row[2], "psql", "shoal", "shoal", "client backend")
    assert row[2].startswith("SELECT pid = pg_backend_pid()")
    assert row[7] is True and row[8] is True


def test_idle_sessions_show_their_last_query_and_open_transactions(cluster):
    with psycopg.connect(shoal_conninfo(cluster, "dashboard"), autocommit=True) as dashboard:
        pid = dashboard.execute("SELECT pg_backend_pid()").fetchone()[0]
        idle = activity(shoal_conninfo(cluster), pid)
        assert idle[:7] == ("idle", "SELECT pg_backend_pid()", "dashboard", "shoal", "shoal", "127.0.0.1", True)
        assert idle[7:10] == (True, True, None) and idle[10:] == ("client backend", True)

        dashboard.execute("BEGIN")
        dashboard.execute("SELECT 1")
        in_block = activity(shoal_conninfo(cluster), pid)
        assert in_block[0] == "idle in transaction" and in_block[1] == "SELECT 1"
        assert in_block[9] is not None
        began = in_block[9]
        with pytest.raises(psycopg.errors.DivisionByZero):
            dashboard.execute("SELECT 1 / 0")
        aborted = activity(shoal_conninfo(cluster), pid)
        assert aborted[0] == "idle in transaction (aborted)" and aborted[9] == began
        dashboard.execute("ROLLBACK")
        assert activity(shoal_conninfo(cluster), pid)[0] == "idle"
    # The server notices the Terminate message a moment after the client sent it.
    assert wait_until(lambda: activity(shoal_conninfo(cluster), pid) is None, 5) is not None, \
        "a closed session still shows"


def test_a_running_query_is_active_while_it_runs(cluster):
    with psycopg.connect(shoal_conninfo(cluster, "etl"), autocommit=True) as busy:
        pid = busy.execute("SELECT pg_backend_pid()").fetchone()[0]
        done = threading.Event()
        thread = threading.Thread(target=lambda: (busy.execute(LONG_QUERY).fetchall(), done.set()))
        thread.start()
        seen = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not done.is_set():
            row = activity(shoal_conninfo(cluster), pid)
            if row[0] == "active":
                seen = row
                break
            time.sleep(0.02)
        thread.join(timeout=60)
        assert seen is not None, "the running query was never seen active"
        assert seen[1] == LONG_QUERY and seen[2] == "etl"
        assert activity(shoal_conninfo(cluster), pid)[:2] == ("idle", LONG_QUERY)


def test_columns_are_postgresql_15s(cluster, postgres):
    sql = ("SELECT attname FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_stat_activity'::regclass "
           "AND attnum > 0 ORDER BY attnum")
    shoal = answer(shoal_conninfo(cluster), sql)
    assert shoal == answer(postgres.conninfo(), sql)
    oid = "SELECT 'pg_stat_activity'::regclass::oid"
    assert answer(shoal_conninfo(cluster), oid) == answer(postgres.conninfo(), oid)


def test_a_role_sees_only_its_own_sessions_queries_unless_it_may_read_all_stats(cluster, postgres):
    """As in PostgreSQL: an ordinary role sees another role's session (who, which program) but not what it
    runs nor when; once granted pg_read_all_stats it sees everything. The hidden row is the one PostgreSQL 15
    shows."""
    columns = ("usename, application_name, client_addr, client_port, backend_start IS NULL, xact_start, "
               "query_start, state_change, state, query, backend_type")
    answers = []
    for server, admin in ((postgres, postgres.conninfo()), (cluster, shoal_conninfo(cluster))):
        with psycopg.connect(admin, autocommit=True) as connection:
            for role in ("sa_busy", "sa_nosy"):
                connection.execute(f"DROP ROLE IF EXISTS {role}")
                connection.execute(f"CREATE ROLE {role} LOGIN")
        as_role = (lambda role: admin.replace(f"user={postgres.user}", f"user={role}", 1)) if server is postgres \
            else (lambda role: admin.replace("user=shoal", f"user={role}"))
        try:
            with psycopg.connect(as_role("sa_busy") + " application_name=busy", autocommit=True) as busy:
                busy.execute("SELECT 1")
                with psycopg.connect(as_role("sa_nosy"), autocommit=True) as nosy:
                    sql = f"SELECT {columns} FROM pg_stat_activity WHERE usename = 'sa_busy'"
                    hidden = nosy.execute(sql).fetchall()
                    with psycopg.connect(admin, autocommit=True) as connection:
                        connection.execute("GRANT pg_read_all_stats TO sa_nosy")
                    shown = nosy.execute(f"SELECT query, state FROM pg_stat_activity WHERE usename = 'sa_busy'"
                                         ).fetchall()
            answers.append((hidden, shown))
        finally:
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute("REVOKE pg_read_all_stats FROM sa_nosy")
                for role in ("sa_busy", "sa_nosy"):
                    connection.execute(f"DROP ROLE {role}")
    assert answers[0][0] == [("sa_busy", "busy", None, None, True, None, None, None, None,
                              "<insufficient privilege>", None)]
    assert answers[1] == answers[0]
    assert answers[0][1] == [("SELECT 1", "idle")]
